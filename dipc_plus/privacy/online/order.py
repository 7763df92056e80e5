"""What a path has shown about the order of the stored variables, to drop paths of probability 0.

Why: with several stored variables the coupling game would otherwise pay for control paths no run can
take (m-Range: a query inside [lo, hi) shows lo < hi, so a later query below lo and at least hi cannot
happen), and such a path can make the game infinite.  A noisy read r = q[i] + c + n has a fresh
continuous noise, so it equals no stored variable almost surely: a top against x gives x < r, a bot
against y gives r < y (whatever the operator), a store z <- r gives z = r.  The facts are the strict
order and the equalities these imply between variables (closed under transitivity), forgotten for a
variable when it is drawn or stored again.  A step whose comparisons need y < r < x while x < y or
x = y is known has probability 0 on every input (docs/design/every_length.md, section 2, "Paths of
probability 0").  Discrete draws tie with positive probability: no facts are kept for them.
"""
from __future__ import annotations

from dipc_plus.privacy.online.automaton import Step


def _closed(less: set, same: set) -> frozenset:
    """The facts ("<", i, j) and ("=", i, j) (i < j) implied by `less` and `same`."""
    cls = {}
    for i, j in same:
        a, b = cls.setdefault(i, {i}), cls.setdefault(j, {j})
        if a is not b:
            a |= b
            for v in b:
                cls[v] = a
    group = lambda v: frozenset(cls.get(v, {v}))  # noqa: E731
    order = {(group(i), group(j)) for i, j in less}
    grew = True
    while grew:
        grew = False
        for (a, b) in list(order):
            for (c, d) in list(order):
                if b == c and (a, d) not in order:
                    order.add((a, d))
                    grew = True
    out = {("<", i, j) for a, b in order for i in a for j in b}
    out |= {("=", i, j) for a in {group(v) for v in cls} for i in a for j in a if i < j}
    return frozenset(out)


def _below(facts: frozenset, i: int, j: int) -> bool:
    """Whether x_i <= x_j is known (x_i < x_j, or the same value)."""
    return i == j or ("<", i, j) in facts or ("=", min(i, j), max(i, j)) in facts


def next_facts(st: Step, facts: frozenset, index: dict) -> frozenset | None:
    """The facts after the step, or None when the step contradicts them (probability 0)."""
    less = {(i, j) for kind, i, j in facts if kind == "<"}
    same = {(i, j) for kind, i, j in facts if kind == "="}
    lower, upper, equal = set(), set(), set()      # variables below r, above r, equal to r
    for e in st.events:
        if e.kind in ("resample", "store"):
            k = index[e.var]
            less = {p for p in less if k not in p}
            same = {p for p in same if k not in p}
            lower.discard(k)
            upper.discard(k)
            if e.kind == "store":
                less |= {(i, k) for i in lower} | {(k, j) for j in upper}
                same |= {(i, k) for i in equal}
                equal.add(k)
        elif e.kind == "guard" and e.noisy:
            # a top puts x_k below r, so below every variable known above r or equal to it (a bot: mirrored)
            k, known = index[e.var], _closed(less, same)
            beyond = (upper if e.top else lower) | equal
            below_k = [(k, j) if e.top else (j, k) for j in beyond]
            if any(_below(known, j, i) for i, j in below_k):
                return None
            (lower if e.top else upper).add(k)
            less |= set(below_k)
    return _closed(less, same)

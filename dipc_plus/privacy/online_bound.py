"""The loss bound of an online automaton for every m, and the patterns of no bound.

Why: with the iteration graph of `online_automaton`, the coupling argument of
docs/every_length.md bounds the privacy loss for every number of queries: per
threshold segment, shift x up (U), down (D) or not at all (Z); the value iteration
in `coupling_bound` gives the least bound this argument proves, d.  When that bound is
infinite, `leaks` looks for the graph patterns that make a program private for no
constant (leaking pair, leaking cycle, disclosing cycle, disclosure after a pumped
guard); without one the verdict is "cannot decide".
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.execution.lazy import lazy_import
from dipc_plus.privacy.online_automaton import EXIT, Automaton, Event, Step

nx = lazy_import("networkx")

INF = None  # an infinite cost; every arithmetic helper below treats None as +infinity
MODES = ("U", "D", "Z")


def _add(a, b):
    return None if a is None or b is None else a + b


def _max(a, b):
    return None if a is None or b is None else max(a, b)


def _min(a, b):
    return b if a is None else a if b is None else min(a, b)




# --------------------------------------------------------------------------- the coupling bound


def guard_cost(e: Event, mode: str):
    """eps-multiples paid by one event under a segment mode (docs/every_length.md, Lemma 1)."""
    b = e.rate
    if e.kind == "noisy_out":
        return b
    if e.kind == "disclose":
        return b
    if e.kind != "guard":
        return Fraction(0)
    if not e.noisy:
        return Fraction(0) if (mode == "D" and e.top) or (mode == "U" and not e.top) else INF
    if mode == "Z":
        return b
    free = (mode == "D") == e.top
    return Fraction(0) if free else 2 * b


def _step_value(st: Step, mode: str, V: dict):
    """Cost of one step entered in `mode`, plus the value of its destination; disclosure on
    a guarded step forbids the mode that moves x away from the disclosed value."""
    def rest(i, m):
        total = Fraction(0)
        for j in range(i, len(st.events)):
            e = st.events[j]
            if e.kind == "resample":
                best = INF
                for m2 in MODES:
                    v = _add(total, _add(Fraction(0) if m2 == "Z" else e.rate, rest(j + 1, m2)))
                    best = _min(best, v)
                return best
            c = guard_cost(e, m)
            if e.kind == "disclose" and st.guard is not None and st.guard.noisy:
                g = st.guard
                if (m == "U" and g.top) or (m == "D" and not g.top):
                    c = INF
            total = _add(total, c)
            if total is None:
                return INF
        return _add(total, Fraction(0) if st.dst == EXIT else V[(st.dst, m)])
    return rest(0, mode)


@dataclass
class Bound:
    d: Fraction | None      # None: the coupling argument gives no finite bound
    rounds: int
    values: dict


def coupling_bound(auto: Automaton) -> Bound:
    """A fixpoint of the segment game, reached by value iteration with widening (exact).

    Values start at 0 (the least fixpoint is the sup over m of the m-step values); a round
    budget of 2|V|+5 without stabilising widens the still-growing values to infinity.
    Widening only raises values, and any fixpoint of a monotone operator lies above its
    least one, so the returned d is a sound upper bound (docs/every_length.md, section 3)."""
    states = auto.states()
    by_src = {}
    for st in auto.steps:
        by_src.setdefault(st.src, []).append(st)
    V = {(s, m): Fraction(0) for s in states for m in MODES}
    budget, rounds, total = 2 * len(V) + 5, 0, 0
    while True:
        W = {}
        for (s, m) in V:
            best = Fraction(0)
            for st in by_src.get(s, []):
                best = _max(best, _step_value(st, m, V))
                if best is None:
                    break
            W[(s, m)] = best
        total += 1
        if W == V:
            break
        rounds += 1
        if rounds >= budget:
            W = {key: (INF if W[key] != V[key] else W[key]) for key in W}
            rounds = 0
        V = W
    a0 = auto.threshold_rate or Fraction(0)
    d = INF
    for m in MODES:
        d = _min(d, _add(Fraction(0) if m == "Z" else a0, V[(auto.start, m)]))
    return Bound(d, total, V)


# --------------------------------------------------------------------------- the non-privacy patterns


def leaks(auto: Automaton) -> list[str]:
    """The graph patterns (docs/every_length.md, section 4) reachable in the automaton."""
    states = auto.states()
    steps = [s for s in auto.steps if s.src in states]
    G = nx.MultiDiGraph()
    G.add_nodes_from(states)
    for k, st in enumerate(steps):
        if st.dst != EXIT:
            G.add_edge(st.src, st.dst, key=k)
    comp = {}
    for n, scc in enumerate(nx.strongly_connected_components(G)):
        for s in scc:
            comp[s] = n
    on_cycle = [st for st in steps if st.dst != EXIT and comp[st.src] == comp[st.dst]]
    found = []
    by_comp = {}
    for st in on_cycle:
        by_comp.setdefault(comp[st.src], []).append(st)
    for c, sts in by_comp.items():
        if any(any(e.kind == "resample" for e in st.events) for st in sts) and any(st.guard for st in sts):
            found.append("leaking cycle: a cycle re-samples the threshold and compares with it: "
                         + auto.describe_step(next(st for st in sts if st.guard)))
        for st in sts:
            # a fresh noisy output, or a released read that no guard compares (docs, section 3)
            if any(e.kind == "noisy_out" or e.kind == "disclose" and st.guard is None for e in st.events):
                found.append("disclosing cycle: a cycle releases a noisy value of q[i] each time: "
                             + auto.describe_step(st))
                break
    # Within a segment: the graph of steps that do not re-sample x.
    G0 = nx.MultiDiGraph()
    G0.add_nodes_from(states)
    seg = [st for st in steps if st.dst != EXIT and not any(e.kind == "resample" for e in st.events)]
    for st in seg:
        G0.add_edge(st.src, st.dst)
    comp0 = {}
    for n, scc in enumerate(nx.strongly_connected_components(G0)):
        for s in scc:
            comp0[s] = n
    pumped = {True: set(), False: set()}
    for st in seg:
        g = st.guard
        if g is not None and comp0[st.src] == comp0[st.dst]:
            pumped[g.top].add(st.src)
    for top in (True, False):
        for s in pumped[top]:
            ahead = nx.descendants(G0, s) | {s}
            behind = nx.ancestors(G0, s) | {s}
            if any(o in ahead or o in behind for o in pumped[not top]):
                found.append("leaking pair: within one threshold segment both 'above' and 'below' steps repeat "
                             "without bound")
                break
            for st in steps:
                g = st.guard
                if g is not None and g.top != top and st.disclosed() and (st.src in ahead or st.dst in behind):
                    found.append("disclosure after a pumped guard: the noisy read is released on a step whose "
                                 "guard is the opposite of a repeating one in the same segment: "
                                 + auto.describe_step(st))
                    break
    if any(st.guard is not None and not st.guard.noisy for st in steps):
        found.append("noise-free guard: q[i] itself is compared with the threshold")
    return list(dict.fromkeys(found))

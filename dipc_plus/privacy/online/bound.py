"""The coupling bound d of an online automaton: a loss bound for every m.

Why: for every pair of adjacent inputs and every output, the runs of one input on a
control path are mapped to runs of the other on the same path by shifting the noises;
the table `guard_cost` says what each event costs under the segment's mode (threshold
shifted up U, down D, or not Z), and the value iteration in `coupling_bound` gives the
least bound this argument proves, d (docs/design/every_length.md, section 2).  When it is
infinite, `patterns` decides whether a proof of "no constant" applies.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.privacy.online.automaton import EXIT, Automaton, Event, Step

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
    """eps-multiples paid by one event under a segment mode (docs/design/every_length.md, Lemma 1)."""
    b = e.rate
    if e.kind == "noisy_out":
        return b
    if e.kind == "disclose":
        return b
    if e.kind == "gap":     # r' - x' = r - x: the read moves with x, by B (U, D) or 0 (Z), from q'[i] - q[i]
        return b if mode == "Z" else 2 * b
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
            if e.kind == "guard" and e.noisy and st.releases_gap():
                c = Fraction(0)   # the gap fixes the read's shift (paid there) and keeps r' - x' = r - x
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


def _round(V: dict, by_src: dict) -> dict:
    """One round of the game: each (node, mode) takes its worst step entered in that mode."""
    W = {}
    for (s, m) in V:
        best = Fraction(0)
        for st in by_src.get(s, []):
            best = _max(best, _step_value(st, m, V))
            if best is None:
                break
        W[(s, m)] = best
    return W


def _start(auto: Automaton, V: dict):
    """d from the values at the start node: the best mode of the first segment, its threshold paid."""
    a0 = auto.threshold_rate or Fraction(0)
    d = INF
    for m in MODES:
        d = _min(d, _add(Fraction(0) if m == "Z" else a0, V[(auto.start, m)]))
    return d


def _by_source(auto: Automaton) -> dict:
    by_src = {}
    for st in auto.steps:
        by_src.setdefault(st.src, []).append(st)
    return by_src


def coupling_bound(auto: Automaton) -> Bound:
    """A fixpoint of the segment game, reached by value iteration with widening (exact).

    Values start at 0 (the least fixpoint is the sup over m of the m-step values); a round
    budget of 2|V|+5 without stabilising widens the still-growing values to infinity.
    Widening only raises values, and any fixpoint of a monotone operator lies above its
    least one, so the returned d is a sound upper bound (docs/design/every_length.md, section 3)."""
    by_src = _by_source(auto)
    V = {(s, m): Fraction(0) for s in auto.states() for m in MODES}
    budget, rounds, total = 2 * len(V) + 5, 0, 0
    while True:
        W = _round(V, by_src)
        total += 1
        if W == V:
            break
        rounds += 1
        if rounds >= budget:
            W = {key: (INF if W[key] != V[key] else W[key]) for key in W}
            rounds = 0
        V = W
    return Bound(_start(auto, V), total, V)


def bound_at_length(auto: Automaton, length: int) -> Bound:
    """The coupling bound for runs of at most `length` iterations: `length` rounds of the game
    from 0, exactly (no widening).  The Lemma of docs/design/every_length.md section 2 is per m,
    so this bounds the loss of the program unrolled at m = `length`; it is at most
    `coupling_bound`'s d (the least fixpoint is the sup of these iterates) and finite where that
    one is not (a released noisy value per iteration: the Laplace mechanism)."""
    if length < 0:
        raise ValueError("a length is a number of iterations, at least 0")
    by_src = _by_source(auto)
    V = {(s, m): Fraction(0) for s in auto.states() for m in MODES}
    for _ in range(length):
        V = _round(V, by_src)
    return Bound(_start(auto, V), length, V)

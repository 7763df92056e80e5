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


def _add(a, b):
    return None if a is None or b is None else a + b


def _max(a, b):
    return None if a is None or b is None else max(a, b)


def _min(a, b):
    return b if a is None else a if b is None else min(a, b)




# --------------------------------------------------------------------------- the coupling bound


# The threshold's shift x' - x in a segment (a mode), in units of the bound B: U = +B, D = -B,
# Z = 0, and Q = the shift of a stored read (x <- r), some fixed value in [-B, B] set by q' - q.
MODES = ("U", "D", "Z", "Q")
SAMPLED_MODES = ("U", "D", "Z")       # the modes a freshly drawn threshold may take
# The read's shift r' - r: one of the modes' (Q: equal to the threshold's current Q shift), or F
# (its noise not moved: r' - r = q'[i] - q[i], in [-B, B]).
READ_SHIFTS = ("F", "U", "D", "Z", "S")   # S: the threshold's shift at the read's first use
_RANGE = {"U": (1, 1), "D": (-1, -1), "Z": (0, 0), "F": (-1, 1), "Q": (-1, 1)}


def read_shift_cost(shift: str, b: Fraction) -> Fraction:
    """eps-multiples (times B) paid by a read of rate b shifted by `shift`: its noise moves by the
    shift minus q'[i] - q[i], at most 0 (F), B (Z) or 2B (U, D, Q)."""
    return Fraction(0) if shift == "F" else b if shift == "Z" else 2 * b


def keeps_outcome(top: bool, shift: str, mode: str) -> bool:
    """Whether r' - x' = (r - x) + (shift - mode) keeps the outcome for every q' - q: equal shifts, or
    shift >= mode for a top (shift <= mode for a bot) over their whole ranges."""
    if shift == mode:
        return True
    (slo, shi), (mlo, mhi) = _RANGE[shift], _RANGE[mode]
    return slo >= mhi if top else shi <= mlo


def _event_allows(e: Event, shift: str, mode: str) -> bool:
    """Whether the read's shift fits the event under the threshold's current mode."""
    if e.kind == "guard":
        return keeps_outcome(e.top, shift if e.noisy else "F", mode)
    if e.kind == "disclose":       # the released value is kept: r' = r
        return shift == "Z"
    if e.kind == "gap":            # r' - x' = r - x
        return shift == mode
    return True


def _step_value(st: Step, mode: str, V: dict):
    """Cost of one step entered in `mode`, plus the value of its destination, under the best shift
    of its read: the shift is chosen once (S: the threshold's shift where the read is first used)
    and paid once; a re-sampling picks the next mode; a store x <- r makes the read's shift the
    threshold's (F: a Q shift)."""
    b = st.read_rate()
    events = st.events

    def rest(i, m, shift):
        total = Fraction(0)
        for j in range(i, len(events)):
            e = events[j]
            if e.kind == "resample":
                best = INF
                for m2 in SAMPLED_MODES:
                    best = _min(best, _add(total, _add(Fraction(0) if m2 == "Z" else e.rate, rest(j + 1, m2, shift))))
                return best
            uses_read = e.kind in ("disclose", "gap", "store") or (e.kind == "guard" and e.noisy)
            if uses_read and shift == "S":
                shift = m                         # the threshold's current shift (Q: that same value)
                total += read_shift_cost(shift, b)
            if not _event_allows(e, shift, m):
                return INF
            if e.kind == "noisy_out":
                total += e.rate
            elif e.kind == "store":
                m = "Q" if shift == "F" else shift
        return _add(total, Fraction(0) if st.dst == EXIT else V[(st.dst, m)])

    if b is None:
        return rest(0, mode, "F")
    best = INF
    for shift in READ_SHIFTS:
        v = rest(0, mode, shift)
        if shift != "S":
            v = _add(v, read_shift_cost(shift, b))
        best = _min(best, v)
    return best


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
    for m in ("Z",) if auto.threshold_constant else SAMPLED_MODES:
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

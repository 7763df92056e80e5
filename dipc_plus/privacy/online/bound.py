"""The coupling bound d of an online automaton: a loss bound for every m.

Why: for every pair of adjacent inputs and every output, the runs of one input on a
control path are mapped to runs of the other on the same path by shifting the noises;
the table `guard_cost` says what each event costs under the segment's mode (threshold
shifted up U, down D, or not Z), and the value iteration in `coupling_bound` gives the
least bound this argument proves, d (docs/design/every_length.md, section 2).  When it is
infinite, `patterns` decides whether a proof of "no constant" applies.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.privacy.online.automaton import EXIT, Automaton, Event, Step

INF = None  # an infinite cost; every arithmetic helper below treats None as +infinity


def _add(a, b):
    return None if a is None or b is None else a + b


def _max(a, b):
    return None if a is None or b is None else max(a, b)


def _min(a, b):
    return b if a is None else a if b is None else min(a, b)




# --------------------------------------------------------------------------- the coupling bound


# A variable's shift x' - x in a segment (a mode), in units of the bound B: U = +B, D = -B, Z = 0,
# and a Q tag ("Q", "Q2", ...) = the shift of a read stored in it (x <- r) with its noise not moved:
# q'[j] - q[j] for the storing position j, a fixed value in [-B, B] set by q' - q.  Variables with
# the same tag hold the same shift (they stored the same read); different tags are unrelated.
MODES = ("U", "D", "Z", "Q")
SAMPLED_MODES = ("U", "D", "Z")       # the modes a freshly drawn threshold may take
# The read's shift r' - r: U, D, Z, one of the Q tags the variables hold, or F (its noise not moved:
# r' - r = q'[i] - q[i], in [-B, B]).
READ_SHIFTS = ("F", "U", "D", "Z")
_RANGE = {"U": (1, 1), "D": (-1, -1), "Z": (0, 0), "F": (-1, 1)}

# The coupling game's positions are (control state, one mode per stored variable); past this many the
# bound is not computed (exit 2): the count grows with the number of stored variables.
MAX_COUPLING_STATES = 20_000


def is_tag(mode: str) -> bool:
    return mode.startswith("Q")


def tag_name(n: int) -> str:
    """The n-th Q tag (0-based): "Q", "Q2", "Q3", ..."""
    return "Q" if n == 0 else f"Q{n + 1}"


def canonical(modes: tuple) -> tuple:
    """The modes with their Q tags renamed in order of first appearance (Q, Q2, ...): two vectors
    that differ only in the names of their tags are the same position of the game."""
    names = {}
    for m in modes:
        if is_tag(m) and m not in names:
            names[m] = tag_name(len(names))
    return tuple(names.get(m, m) for m in modes)


def mode_vectors(k: int) -> list:
    """Every canonical vector of modes of k stored variables."""
    out = [()]
    for _ in range(k):
        grown = []
        for vec in out:
            tags = len({m for m in vec if is_tag(m)})
            grown += [vec + (m,) for m in (*SAMPLED_MODES, *(tag_name(n) for n in range(tags + 1)))]
        out = grown
    return out


def coupling_states(auto: Automaton) -> int:
    """The number of positions of the coupling game: control states times mode vectors."""
    return len(auto.states()) * len(mode_vectors(len(auto.variables)))


def read_shift_cost(shift: str, b: Fraction) -> Fraction:
    """eps-multiples (times B) paid by a read of rate b shifted by `shift`: its noise moves by the
    shift minus q'[i] - q[i], at most 0 (F), B (Z) or 2B (U, D, a Q tag)."""
    return Fraction(0) if shift == "F" else b if shift == "Z" else 2 * b


def keeps_outcome(top: bool, shift: str, mode: str) -> bool:
    """Whether r' - x' = (r - x) + (shift - mode) keeps the outcome for every q' - q: equal shifts, or
    shift >= mode for a top (shift <= mode for a bot) over their whole ranges (a Q tag: [-B, B])."""
    if shift == mode:
        return True
    (slo, shi), (mlo, mhi) = _RANGE.get(shift, (-1, 1)), _RANGE.get(mode, (-1, 1))
    return slo >= mhi if top else shi <= mlo


def _event_allows(e: Event, shift: str, mode: str) -> bool:
    """Whether the read's shift fits the event under its variable's current mode."""
    if e.kind == "guard":
        return keeps_outcome(e.top, shift if e.noisy else "F", mode)
    if e.kind == "disclose":       # the released value is kept: r' = r
        return shift == "Z"
    if e.kind == "gap":            # r' - x' = r - x
        return shift == mode
    return True


def _fresh_tag(modes: tuple) -> str:
    used = set(modes)
    return next(tag_name(n) for n in range(len(modes) + 1) if tag_name(n) not in used)


def _step_value(st: Step, modes: tuple, V: dict, index: dict):
    """Cost of one step entered with `modes` (one per stored variable), plus the value of its
    destination, under the best shift of its read: the shift is chosen once (U, D, Z, F, or a Q tag
    a variable holds at the step's start) and paid once; a re-sampling picks its variable's next mode;
    a store x <- r makes the read's shift x's (F: a Q tag of its own)."""
    b = st.read_rate()
    events = st.events
    fresh = _fresh_tag(modes)

    def rest(i, ms, shift):
        total = Fraction(0)
        for j in range(i, len(events)):
            e = events[j]
            k = index.get(e.var)
            if e.kind == "resample":
                best = INF
                for m2 in SAMPLED_MODES:
                    nxt = ms[:k] + (m2,) + ms[k + 1:]
                    best = _min(best, _add(total, _add(Fraction(0) if m2 == "Z" else e.rate, rest(j + 1, nxt, shift))))
                return best
            if not _event_allows(e, shift, ms[k] if k is not None else "Z"):
                return INF
            if e.kind == "noisy_out":
                total += e.rate
            elif e.kind == "store":
                ms = ms[:k] + ((fresh if shift == "F" else shift),) + ms[k + 1:]
        return _add(total, Fraction(0) if st.dst == EXIT else V[(st.dst, canonical(ms))])

    if b is None:
        return rest(0, modes, "F")
    best = INF
    for shift in (*READ_SHIFTS, *sorted({m for m in modes if is_tag(m)})):
        best = _min(best, _add(rest(0, modes, shift), read_shift_cost(shift, b)))
    return best


@dataclass
class Bound:
    d: Fraction | None      # None: the coupling argument gives no finite bound
    rounds: int
    values: dict


def _round(V: dict, by_src: dict, index: dict) -> dict:
    """One round of the game: each (node, modes) takes its worst step entered with those modes."""
    W = {}
    for (s, m) in V:
        best = Fraction(0)
        for st in by_src.get(s, []):
            best = _max(best, _step_value(st, m, V, index))
            if best is None:
                break
        W[(s, m)] = best
    return W


def _start(auto: Automaton, V: dict):
    """d from the values at the start node: the best modes of the first segment, each drawn variable's
    shift paid (a constant start keeps Z)."""
    choices = [("Z",) if a0 is None else SAMPLED_MODES for a0 in auto.start_rates]
    d = INF
    for modes in itertools.product(*choices):
        paid = sum((a0 for a0, m in zip(auto.start_rates, modes) if m != "Z"), Fraction(0))
        d = _min(d, _add(paid, V[(auto.start, canonical(modes))]))
    return d


def _positions(auto: Automaton) -> dict:
    """The game's positions at value 0, or a UserError (exit 2) past MAX_COUPLING_STATES."""
    size = coupling_states(auto)
    if size > MAX_COUPLING_STATES:
        file, _, line = auto.loop_pos.rpartition(":")
        raise UserError(f"cannot decide privacy for every m: the coupling game has {size} positions "
                        f"({len(auto.states())} control states times the modes of {len(auto.variables)} stored "
                        f"variables), more than the limit MAX_COUPLING_STATES = {MAX_COUPLING_STATES}",
                        file=file or None, line=int(line) if line.isdigit() else None,
                        hint="use fewer stored variables or a smaller finite state, or decide one m at a time "
                             "without --every-length")
    vectors = mode_vectors(len(auto.variables))
    return {(s, m): Fraction(0) for s in auto.states() for m in vectors}


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
    by_src, index = _by_source(auto), {v: k for k, v in enumerate(auto.variables)}
    V = _positions(auto)
    budget, rounds, total = 2 * len(V) + 5, 0, 0
    while True:
        W = _round(V, by_src, index)
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
    by_src, index = _by_source(auto), {v: k for k, v in enumerate(auto.variables)}
    V = _positions(auto)
    for _ in range(length):
        V = _round(V, by_src, index)
    return Bound(_start(auto, V), length, V)

"""The coupling bound d of an online automaton: a loss bound for every m.

Why: for every pair of adjacent inputs and every output, the runs of one input on a
control path are mapped to runs of the other on the same path by shifting the noises;
the table `guard_cost` says what each event costs under the segment's mode (threshold
shifted up U, down D, or not Z), and the value iteration in `coupling_bound` gives the
least bound this argument proves, d (docs/design/every_length.md, section 2).  When it is
infinite, `patterns` decides whether a proof of "no constant" applies.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.privacy.online.automaton import EXIT, Automaton, Event, Step, reachable
from dipc_plus.privacy.online.order import next_facts

# --------------------------------------------------------------------------- the coupling bound


# A variable's shift x' - x in a segment (a mode), in units of the bound B: U = +B, D = -B, Z = 0,
# and a Q tag ("Q", "Q2", ...) = the shift of a read stored in it (x <- r) with its noise not moved:
# q'[j] - q[j] for the storing position j, a fixed value in [-B, B] set by q' - q.  Variables with
# the same tag hold the same shift (they stored the same read); different tags are unrelated.
# A variable whose value no step has used yet holds a `Pending` shift instead: chosen at its first use
# (docs/design/every_length.md, section 2, "Shifts chosen at first use").
# The read's shift r' - r: U, D, Z, one of the Q tags the variables hold, or F (its noise not moved:
# r' - r = q'[i] - q[i], in [-B, B]).
READ_SHIFTS = ("F", "U", "D", "Z")
_RANGE = {"U": (1, 1), "D": (-1, -1), "Z": (0, 0), "F": (-1, 1)}

# The coupling game's positions are (control state, one mode per stored variable, the order facts);
# past this many reachable ones the bound is not computed (exit 2): the count grows with the number of
# stored variables.
MAX_COUPLING_STATES = 20_000


@dataclass(frozen=True)
class Pending:
    """The shift of a value not used yet, to be chosen (and paid) at its first use: a draw of rate a
    (U or D cost a, Z nothing) or a read of rate b only stored so far (U, D 2b, Z b, F nothing and a
    tag).  Variables with the same group hold the same value (one read stored in several)."""
    group: int
    rate: Fraction
    read: bool

    def options(self) -> tuple:
        """(mode, paid) for each shift the value may take; "F" stands for a fresh Q tag."""
        if self.read:
            return tuple((s, read_shift_cost(s, self.rate)) for s in ("U", "D", "Z", "F"))
        return (("U", self.rate), ("D", self.rate), ("Z", Fraction(0)))


def is_tag(mode) -> bool:
    return isinstance(mode, str) and mode.startswith("Q")


def tag_name(n: int) -> str:
    """The n-th Q tag (0-based): "Q", "Q2", "Q3", ..."""
    return "Q" if n == 0 else f"Q{n + 1}"


def canonical(modes: tuple) -> tuple:
    """The modes with their Q tags renamed in order of first appearance (Q, Q2, ...), and their pending
    groups numbered likewise: two vectors that differ only in those names are the same position."""
    names, groups = {}, {}
    for m in modes:
        if is_tag(m) and m not in names:
            names[m] = tag_name(len(names))
        elif isinstance(m, Pending) and m.group not in groups:
            groups[m.group] = len(groups)
    return tuple(names.get(m, m) if isinstance(m, str) else Pending(groups[m.group], m.rate, m.read) for m in modes)


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
    return next(tag_name(n) for n in range(len(modes) + 1) if tag_name(n) not in modes)


def _fresh_group(modes: tuple) -> int:
    used = {m.group for m in modes if isinstance(m, Pending)}
    return next(n for n in range(len(modes) + 1) if n not in used)


def _resolve(modes: tuple, group: int, mode: str) -> tuple:
    """Every variable of the pending group takes `mode` ("F": one fresh Q tag for all of them)."""
    chosen = _fresh_tag(modes) if mode == "F" else mode
    return tuple(chosen if isinstance(m, Pending) and m.group == group else m for m in modes)


def _used_first(st: Step, index: dict) -> list:
    """The variables the step compares or releases a gap of before it draws or stores them again: their
    values from before the step are used here."""
    out, fresh = [], set()
    for e in st.events:
        if e.kind in ("resample", "store"):
            fresh.add(e.var)
        elif e.kind in ("guard", "gap") and e.var not in fresh and index[e.var] not in out:
            out.append(index[e.var])
    return out


def _stores_only(st: Step) -> bool:
    """Whether the step's noisy read is only stored (no noisy comparison, release or gap uses it): then
    its shift, like a draw's, can wait for the stored value's first use."""
    return st.read_rate() is not None and not any(
        e.kind in ("disclose", "gap") or e.kind == "guard" and e.noisy for e in st.events)


def step_options(st: Step, modes: tuple, facts: frozenset, index: dict, exact_order: bool) -> list:
    """The choices of the coupling for one step entered with `modes` (one per stored variable) and the
    order `facts`, each as (cost paid in the step, the position it leads to or None at an exit): the
    pending values the step uses take their shifts (paid now); the read's shift is chosen once (U, D,
    Z, F, or a Q tag a variable holds) and paid once, unless the read is only stored (then it is
    pending in the variables that store it); a draw makes its variable pending; a store x <- r makes
    the read's shift x's (F: a Q tag of its own).  No choice: the step cannot be coupled (infinite).
    A step the order facts rule out (probability 0) costs nothing."""
    after = next_facts(st, facts, index) if exact_order else frozenset()
    if after is None:
        return [(Fraction(0), None)]
    b = st.read_rate()
    events = st.events
    deferred = _stores_only(st)

    def rest(i, ms, shift, group, total):
        for j in range(i, len(events)):
            e = events[j]
            k = index.get(e.var)
            if e.kind == "resample":
                ms = ms[:k] + (Pending(_fresh_group(ms), e.rate, False),) + ms[k + 1:]
                continue
            if k is not None and isinstance(ms[k], Pending) and e.kind in ("guard", "gap"):
                # drawn again earlier in this step and used now: its shift is chosen here
                return [o for chosen, paid in _resolutions(ms, [k]) for o in rest(j, chosen, shift, group, total + paid)]
            if not _event_allows(e, shift, ms[k] if k is not None else "Z"):
                return []
            if e.kind == "noisy_out":
                total += e.rate
            elif e.kind == "store":
                if deferred and group is None:
                    group = _fresh_group(ms)   # one group for every variable that stores this read
                held = Pending(group, b, True) if deferred else _fresh_tag(ms) if shift == "F" else shift
                ms = ms[:k] + (held,) + ms[k + 1:]
        return [(total, None if st.dst == EXIT else (st.dst, canonical(ms), after))]

    out = []
    for ms, paid in _resolutions(modes, _used_first(st, index)):
        if b is None or deferred:
            out += rest(0, ms, "F", None, paid)
        else:
            for shift in (*READ_SHIFTS, *sorted({m for m in ms if is_tag(m)})):
                out += rest(0, ms, shift, None, paid + read_shift_cost(shift, b))
    return out


def _resolutions(modes: tuple, used: list) -> list:
    """(modes, paid) for every choice of shifts of the pending groups among the `used` variables."""
    out = [(modes, Fraction(0))]
    for k in used:
        if isinstance(out[0][0][k], Pending):   # alike in every entry: each has resolved the same groups
            out = [(_resolve(ms, ms[k].group, mode), paid + cost) for ms, paid in out for mode, cost in ms[k].options()]
    return out


@dataclass
class Bound:
    d: Fraction | None      # None: the coupling argument gives no finite bound
    rounds: int
    values: dict            # every reachable position of the game (control state, modes, order facts) -> its value


def _round(V: dict, moves: dict) -> dict:
    """One round of the game: each position takes its worst step under that step's best choice
    (math.inf, the only float, stands for a step no choice couples)."""
    return {pos: max([Fraction(0), *(min((cost if nxt is None else cost + V[nxt] for cost, nxt in options),
                                         default=math.inf) for options in moves[pos])])
            for pos in V}


def _game(auto: Automaton) -> tuple:
    """The coupling game of an automaton: its start position, and the moves of every reachable
    position (per step from its control state, that step's `step_options`)."""
    index = {v: k for k, v in enumerate(auto.variables)}
    by_src = auto.by_src()
    # a drawn variable's shift waits for its first use; a constant start keeps Z (x' = x = c)
    modes = tuple("Z" if a0 is None else Pending(k, a0, False) for k, a0 in enumerate(auto.start_rates))
    start, moves = (auto.start, canonical(modes), frozenset()), {}

    def successors(pos):
        moves[pos] = [step_options(st, pos[1], pos[2], index, not auto.integer_draw) for st in by_src.get(pos[0], [])]
        if len(moves) > MAX_COUPLING_STATES:
            raise UserError.at(auto.loop_at,
                               f"cannot decide privacy for every m: the coupling game has more than {len(moves) - 1} "
                               f"positions ({len(auto.states())} control states times the modes and order facts of "
                               f"{len(auto.variables)} stored variables), past the limit MAX_COUPLING_STATES = "
                               f"{MAX_COUPLING_STATES}",
                               hint="use fewer stored variables or a smaller finite state, or decide one m at a time "
                                    "without --every-length")
        return [nxt for options in moves[pos] for _, nxt in options if nxt is not None]

    reachable(start, successors)
    return start, moves


def coupling_bound(auto: Automaton, length: int | None = None) -> Bound:
    """The segment game's values from 0, exactly: after `length` rounds, or (None) at a fixpoint.

    At a length it bounds the loss of the program unrolled at m = `length` (the Lemma of
    docs/design/every_length.md section 2 is per m), with no widening: finite where the fixpoint is
    not (a released noisy value per iteration: the Laplace mechanism).  For every m, the least
    fixpoint is the sup of those iterates; a round budget of 2|V|+5 without stabilising widens the
    still-growing values to infinity.  Widening only raises values, and any fixpoint of a monotone
    operator lies above its least one, so the returned d is a sound upper bound (section 3)."""
    if length is not None and length < 0:
        raise ValueError("a length is a number of iterations, at least 0")
    start, moves = _game(auto)
    V = dict.fromkeys(moves, Fraction(0))
    budget, rounds, total = 2 * len(V) + 5, 0, 0
    while total != length:
        W = _round(V, moves)
        total += 1
        if length is None and W == V:
            break
        rounds += 1
        if length is None and rounds >= budget:
            W = {key: (math.inf if W[key] != V[key] else W[key]) for key in W}
            rounds = 0
        V = W
    return Bound(None if V[start] == math.inf else V[start], total, V)

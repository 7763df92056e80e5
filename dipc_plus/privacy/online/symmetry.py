"""Which queries an output's probability cannot tell apart: exchangeable iterations, proved.

Why: a grid check that computes P_u[o] at every input u pays 3^m output tables although, for an
online program, P_u[o] depends on u only through a few multisets.  This module proves that from
the program, on the whitelist of the online class (`recognise`): the checked program at its own
length is split into a prefix and n copies of one iteration (`shape.shape_at_length`), the recogniser
turns the iteration into the automaton over the finite state, and an output o is walked through
the automaton: the steps consistent with o, position by position, are the only ways to produce o.

The fact (docs/design/every_length.md describes the class): along one path of steps, the only
randomness is the thresholds (drawn in the prefix, drawn again by 'resample' events) and one
fresh read per step, Lap(b*eps, q[i]) (or q[i] itself), whose only use is the step's comparison
with the current threshold.  So, with x_s the threshold of segment s (between two draws),

    P_u[path] = prod over segments s of  E_{x_s}[ prod over steps i of s of  F_i(x_s, q_i) ]

where F_i is P(read above x) or its complement, fixed by the step's guard (top or bot, noisy
or not, its rate).  Two positions whose steps lie in the same segment with the same guard are
exchangeable: swapping their queries permutes the factors of one product.  A position whose step
has no guard (or comes after an exit) does not occur at all.  P_u[o] is the sum over the paths
consistent with o; positions are grouped by their (segment, guard) on every such path at once,
so a permutation inside a group keeps every term.  Released reals (`val[i] <- r`, its gap
`val[i] <- r - x`, a fresh noisy output) tie a value to its position: they are refused here, as is anything the recogniser refuses
(a located `UserError`), and the caller keeps the check that computes every input.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.errors import UserError
from dipc_plus.privacy.online.automaton import EXIT, Automaton
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import ELEMENT, shape_at_length
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import freeze_value

MAX_PATHS = 256   # consistent paths per output walked before the proof is given up
UNREAD = None     # the key of a position no step on the path compares


def _refuse(why: str, file: str, pos=None) -> UserError:
    """A refusal at a statement (`pos`), or at the program's file when no one statement is the cause."""
    return UserError(f"no symmetry proved: {why}", file=getattr(pos, "file", file), line=getattr(pos, "line", None),
                     column=getattr(pos, "column", None),
                     hint="the check then computes the output table of every input of the grid")


def _shape_refusal(program: ir.Program):
    """The refusals of `shape.shape_at_length` worded for the symmetry proof: the program at its
    own length n must have one real input array q[1..n] and end with n copies of one iteration."""
    def refusal(qname: str | None, real: bool) -> UserError:
        if qname is None:
            return _refuse("the program's inputs are not exactly one array q[1..n]", program.source)
        if not real:
            return _refuse(f"the input '{qname}' is not real", program.source)
        n, body = len(program.arrays[qname]), program.body
        return _refuse(f"the body does not end with {n} copies of one iteration over {qname}[i]", program.source,
                       body[-1].pos if body else None)
    return refusal


@dataclass(frozen=True)
class OutputGroups:
    """For one output: the input positions (0-based) in groups whose queries may be permuted among
    themselves without changing P[o], and those no consistent path reads (`unread`)."""
    groups: tuple    # of tuples of positions, each group sorted, groups in order of their first
    unread: tuple    # positions P[o] does not depend on

    @property
    def read(self) -> set:
        return {k for g in self.groups for k in g}


class Exchangeability:
    """The proof for one program (built from it, or a located `UserError` saying what it does not
    account for): `of(o)` gives an output's groups (None: no path produces o, so P[o] = 0 at every input)."""

    def __init__(self, program: ir.Program):
        shape = shape_at_length(program, _shape_refusal(program))
        self.auto: Automaton = recognise(shape)
        self.n = shape.length
        if len(self.auto.variables) > 1:
            raise _refuse(f"the loop compares with {len(self.auto.variables)} stored variables; the "
                          "factorisation per segment holds for one threshold", program.source)
        for st in self.auto.steps:
            if st.has("store"):
                raise _refuse(f"a step stores its read in the threshold ({self.auto.describe_step(st)}, "
                              f"{st.where}): the read's position then sets the later steps' threshold",
                              program.source)
            if st.has("disclose", "gap", "noisy_out"):
                raise _refuse(f"a step releases a real value ({self.auto.describe_step(st)}, {st.where}); "
                              "a released read is tied to its position", program.source)
        self.names = program.output_names()
        self.place = []                     # output index -> (array, position 1..)
        for name in self.names:
            hit = ELEMENT.match(name)
            if hit is None:
                raise _refuse(f"the output '{name}' is not an array element", program.source)
            self.place.append((hit.group(1), int(hit.group(2))))
        # output element -> its frozen value after the prefix (absent: not given one there)
        self.initial = {name: freeze_value(v) for name, v in self.auto.initial.items()}
        self.by_src = self.auto.by_src()

    def _paths(self, o: tuple) -> list:
        """The step sequences consistent with output o: lists of the steps taken at 1..n (fewer
        after an exit)."""
        want: dict = {}                     # position -> {array: frozen value}
        for name, (arr, k), v in zip(self.names, self.place, o):
            want.setdefault(k, {})[arr] = (name, freeze_value(v))
        found, todo = [], [(self.auto.start, ())]
        while todo:
            state, taken = todo.pop()
            i = len(taken) + 1
            if i > self.n:
                found.append(taken)
                continue
            for st in self.by_src.get(state, []):
                writes = {a: freeze_value(v) for a, v in st.writes().items()}
                if not all(writes.get(arr, self.initial.get(name)) == v for arr, (name, v) in want.get(i, {}).items()):
                    continue
                if st.dst == EXIT:
                    if all(self.initial.get(name) == v for j in range(i + 1, self.n + 1)
                           for name, v in want.get(j, {}).values()):
                        found.append(taken + (st,))
                    continue
                todo.append((st.dst, taken + (st,)))
            if len(found) + len(todo) > MAX_PATHS:
                raise _refuse(f"more than {MAX_PATHS} ways through the loop give the output {o}",
                              self.auto.loop_pos)
        # an output element the loop never writes nor the prefix sets has no known value
        for k, arrs in want.items():
            if k > self.n and any(self.initial.get(name) != v for name, v in arrs.values()):
                return []
        return found

    def of(self, o: tuple) -> OutputGroups | None:
        paths = self._paths(o)
        if not paths:
            return None
        labels = [[] for _ in range(self.n)]
        for taken in paths:
            segment = 0
            keys = [UNREAD] * self.n
            for k, st in enumerate(taken):
                for e in st.events:
                    if e.kind == "resample":
                        segment += 1
                    elif e.kind == "guard":
                        keys[k] = (segment, e.top, e.noisy, e.rate)
            for k in range(self.n):
                labels[k].append(keys[k])
        by_label: dict = {}
        for k, lab in enumerate(labels):
            by_label.setdefault(tuple(lab), []).append(k)
        unread = tuple(by_label.pop((UNREAD,) * len(paths), ()))
        return OutputGroups(tuple(tuple(g) for g in by_label.values()), unread)

"""Outputs computed after the loop from the per-step outputs (issue 40, item 3): counts, scores, the
index of the last top.

Why: such an output is a deterministic function of the sequence the loop writes, so for every m a
bound d on the sequence's loss is a bound on its loss too (post-processing:
P[f(W) in S] = P[W in f^-1(S)] on both sides).  Its domain may depend on m (a count 0..m), which the
class refuses elsewhere; here m may occur in the tail and in the derived outputs' types, because the
bound is computed on the sequence alone (docs/design/every_length.md, "Counted outputs").  The tail
is recognised on the lowered program by `semantics.post_processing.derived_tail`; this module adds
the every-length preconditions (no `exit`, finite derived outputs) and the projection: the tail is
cut off, the per-step arrays it reads become the outputs, the derived ones are dropped.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir
from dipc_plus.semantics.instructions import assigned, contains_exit, stmts_read
from dipc_plus.semantics.post_processing import derived_tail

RULE = ("an output computed after the loop over the queries must be a finite value (a count, a score, an index) "
        "computed from the per-step arrays alone, by assignments and ifs")


@dataclass(frozen=True)
class CountedTail:
    """The lowered program without its tail (the per-step arrays the tail reads promoted to
    outputs, the derived outputs dropped), the derived outputs, and the source lines of the tail."""
    program: ir.Program
    derived: tuple = ()
    lines: frozenset = frozenset()
    at: object = None             # the ir.Pos of the tail's first statement (file, line, column), for refusals


def _step_arrays(program: ir.Program, length: int) -> dict:
    """Array -> its elements, for every array of `length` elements other than the inputs (the
    per-step values the loop may write at position i)."""
    inputs = set(program.input_names())
    return {a: flat for a, flat in program.arrays.items() if len(flat) == length and not set(flat) & inputs}


def counted_tail(program: ir.Program, length: int, hint: str) -> CountedTail:
    """Split off the post-processing tail of `program` (lowered at m = `length`); the program
    unchanged when it has none.  A tail outside the preconditions is refused with its line."""
    arrays = _step_arrays(program, length)
    sources = {n for flat in arrays.values() for n in flat}
    start, derived = derived_tail(program, sources)
    if not derived:
        return CountedTail(program)
    tail = program.body[start:]
    first = next(s for s in ir.statements(tail) if isinstance(s, ir.Assign) and s.target in derived)
    real = next((s for s in ir.statements(tail) if isinstance(s, ir.Assign) and s.target in derived
                 and isinstance(program.variables[s.target], ir.RealT)), None)
    if real is not None:
        raise UserError.at(real.pos, f"cannot decide privacy for every m: the real output '{real.target}' is "
                           "computed after the loop; " + RULE + " (a real value would need its events carried "
                           "through the function)", hint=hint)
    if contains_exit(program.body[:start]):
        raise UserError.at(first.pos, f"cannot decide privacy for every m: '{first.target}' is computed after "
                           "the loop, which can `exit` before it (then the output is never computed, so it is "
                           "not a function of the per-step outputs)",
                           hint="stop answering with a flag (if not done then ... done <- true) instead of exit, "
                                "or " + hint)
    used = stmts_read(tail) - assigned(tail)
    promoted = [a for a, flat in arrays.items() if set(flat) & used]
    kept = [(n, t) for n, t in program.outputs if n not in derived]
    names = {n for n, _ in kept}
    extra = [(n, program.variables[n]) for a in promoted for n in arrays[a] if n not in names]
    before = program.body[:start]
    before_uses = assigned(before) | stmts_read(before)
    variables = {v: t for v, t in program.variables.items() if v not in assigned(tail) or v in before_uses}
    projected = dataclasses.replace(program, outputs=tuple(kept + extra), body=before, variables=variables)
    return CountedTail(projected, derived, frozenset(s.pos.line for s in ir.statements(tail)), tail[0].pos)

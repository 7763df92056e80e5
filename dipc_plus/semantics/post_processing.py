"""Outputs that are post-processing of other outputs (issue 38, item 6), recognised on `ir.Program`.

Why: a count of bots, or the index of the last top, is a deterministic function of outputs
that a privacy claim may already cover; releasing it beside them costs no privacy (for every
set S of (kept, derived) values, P[(kept, f(kept)) in S] = P[kept in g^-1(S)]).  A prover
then decides the claim on the program with those outputs dropped (`project`) and carries a
verification over.  It is a whitelist with named preconditions, each refused with its reason:

* the program never executes `exit` (an early exit would skip the computation, so the derived
  value would depend on whether the run exited, not on the other outputs' final values);
* the derived outputs are computed in a tail of top-level statements, after every other output
  has its final value: the tail has no draw, no noisy comparison and no loop, writes no kept
  output, and each variable it writes is first assigned at top level of the tail (so no value
  from before the tail leaks in);
* every expression and condition in the tail reads only kept outputs, variables the tail has
  already assigned at top level, and constants;
* a derived output is finite (bool, a finite type or an integer range), not real.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dipc_plus.semantics import ir
from dipc_plus.semantics.instructions import assigned, contains_exit, own_reads


@dataclass(frozen=True)
class PostProcessing:
    """The derived outputs and the kept ones they are computed from, or why there are none."""
    derived: tuple = ()       # flat output names, in declaration order
    kept: tuple = ()
    reason: str = ""          # why no output is recognised as post-processing (when `derived` is empty)

    @property
    def applies(self) -> bool:
        return bool(self.derived)

    def describe(self) -> str:
        return f"{', '.join(self.derived)} computed from {', '.join(self.kept) or 'constants'} alone"


def deterministic(body) -> bool:
    """Only assignments and ifs (no draw, noisy comparison, loop or exit) at any depth."""
    return all(isinstance(s, (ir.Assign, ir.If)) for s in ir.statements(body))


def deterministic_tails(body):
    """(t, body[t:]) for each tail of top-level statements that is `deterministic`, longest first."""
    start = len(body)
    while start > 0 and deterministic(body[start - 1:start]):
        start -= 1
    return ((t, body[t:]) for t in range(start, len(body)))


def reads_within(body, allowed: set) -> bool:
    """Does every expression and condition of `body` read only `allowed`, and every nested
    assignment write a variable of `allowed` (already assigned at top level of the tail)?"""
    return all(own_reads(s) <= allowed and not (isinstance(s, ir.Assign) and s.target not in allowed)
               for s in ir.statements(body))


def tail_is_post_processing(tail, kept: set) -> bool:
    """The preconditions on the tail's reads: top-level assignments read kept outputs and what the
    tail assigned before them; an `if` reads and writes only those."""
    defined: set = set()
    for s in tail:
        if isinstance(s, ir.Assign):
            if not own_reads(s) <= kept | defined:
                return False
            defined.add(s.target)
        elif not reads_within((s,), kept | defined):
            return False
    return True


def post_processing(program: ir.Program) -> PostProcessing:
    """The outputs of `program` computed only from its other outputs (`PostProcessing.derived`):
    the longest deterministic tail of top-level statements that satisfies the module's preconditions."""
    if contains_exit(program.body):
        return PostProcessing(reason="the program can exit early, so an output computed at its end may not run")
    outputs = program.output_names()
    for _, tail in deterministic_tails(program.body):       # the longest tail first: it computes the most
        derived = [o for o in outputs if o in assigned(tail)]
        kept = [o for o in outputs if o not in derived]
        if not derived or not kept or any(isinstance(program.variables[o], ir.RealT) for o in derived):
            continue
        if tail_is_post_processing(tail, set(kept)):
            return PostProcessing(tuple(derived), tuple(kept))
    return PostProcessing(reason="no output is computed, after the others are final, from them and constants alone")


def derived_tail(program: ir.Program, sources: set) -> tuple[int, tuple]:
    """(start, derived): the longest deterministic tail body[start:] of top-level statements that
    writes outputs and no source, and reads only `sources` (flat names), what it assigned before
    and constants - outputs computed from per-step values after a loop (the every-length class,
    issue 40).  Real derived outputs are included: the caller decides whether it handles them.
    (len(body), ()) when there is none."""
    outputs = program.output_names()
    for t, tail in deterministic_tails(program.body):
        written = assigned(tail)
        derived = tuple(o for o in outputs if o in written)
        if derived and not written & sources and tail_is_post_processing(tail, sources):
            return t, derived
    return len(program.body), ()


def project(program: ir.Program, derived) -> ir.Program:
    """The same program releasing only the outputs not in `derived` (they stay its variables)."""
    drop = set(derived)
    return dataclasses.replace(program, outputs=tuple((n, t) for n, t in program.outputs if n not in drop))

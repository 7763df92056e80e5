"""Which real inputs each output's probability reads: grid points that agree there share it.

For a program the symbolic walk accepts (`semantics.symbolic_chain`: acyclic, Laplace noise,
finite outputs), P_u[out = o] is the sum over o's paths of P[the path's atoms] at u, and the
walk's path set is complete.  An atom is a linear form over noises and inputs; its probability
at u reads u only through the inputs whose coefficient is nonzero.  So P_u[out = o] depends on
u restricted to S_o, the inputs occurring in some atom of some path to o, and two inputs that
agree on S_o have the same exact closed form for o (Sparse with c = 1: "first top at query k"
reads q[1..k] only).  Nothing is assumed about symmetry; `OutputSupport.key` is the sharing key.

A whitelist: the program must pass the symbolic walk and have only Bool/DOM outputs (a real or
integer output's value, and so its ball, is not a function of the path alone); anything else
raises `NotSymbolic` with the reason, and callers keep the per-point path.
tests/test_output_support.py compares shared closed forms with per-point ones on generated
programs.  `accuracy.classes` caches per-output probabilities by this key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.semantics.symbolic_chain import NotSymbolic, symbolic_paths

__all__ = ["OutputSupport", "output_support"]


@dataclass(repr=False, eq=False)
class OutputSupport:
    """Per finite output value tuple o (in `outputs`, the per-point distribution's order):
    `support[o]`, the flat names of the real inputs P[out = o] reads, in input order.
    `inputs` is every real input's flat name."""
    program: ir.Program
    inputs: list
    outputs: list
    support: dict

    def key(self, output: tuple, flat: Mapping) -> tuple:
        """(output, the values of `flat` on the output's support): inputs with equal keys have
        equal P[out = output].  `flat` maps flat input names to values (as `distribution.bind`)."""
        return (output, tuple(flat[name] for name in self.support[output]))

    def __repr__(self) -> str:
        sizes = sorted(len(s) for s in self.support.values())
        return f"<OutputSupport of {self.program.name}: {len(self.outputs)} outputs, support sizes {sizes}>"


def output_support(program: ir.Program) -> OutputSupport:
    """The support of every output of `program`.  Raises `NotSymbolic` (a `UserError`) where it
    does not apply."""
    not_finite = [name for name, t in program.outputs if not isinstance(t, (ir.BoolT, ir.DomT))]
    if not_finite:
        raise NotSymbolic(f"{program.name}: the output '{not_finite[0]}' is not Bool or DOM; "
                          "per-output supports are read for finite outputs only")
    walk = symbolic_paths(program)
    support: dict = {}
    for output in walk.paths:
        used = {k for k, _, _ in walk.input_terms(output)}
        support[output] = tuple(walk.real_inputs[k] for k in sorted(used))
    return OutputSupport(program, list(walk.real_inputs), list(walk.paths), support)

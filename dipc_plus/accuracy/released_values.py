"""Released values: which inputs P[output in the ball of det(u)] reads when real outputs are
det's value plus fresh noise (NumericSparse's `val[i] = q[i] + Lap`).

Why: output supports (`semantics.output_support`) refuse real outputs, so NumericSparse computed
one distribution per grid input.  With a noise-free det whose real outputs are linear forms
(`classes.DetRegions`) and the L-inf output distance, the ball of det(u) at gamma is "the finite
outputs equal det's, every real output within gamma of det's value".  The program's walk with
each Laplace sample a mean plus a fresh noise symbol (`accuracy.monotone.Monotonicity`, every
path, none pruned) gives, per finite output value w, each path's half-spaces (affine in the
noises and the inputs) and its real outputs' forms.  When on every path to w each real output is
det's form plus noises that occur in none of the path's half-spaces
(`OutputAtoms.real_outputs_independent`), the event of a path in the ball is "its half-spaces
hold" and "those noises stay within gamma", independent events; the second's probability does
not read u (rates are constant multiples of eps).  So P[in the ball] at u is a function of gamma
and u on the inputs with a nonzero coefficient in some half-space of a path to w (`reads`), and
inputs of one det template that agree there share it.  A whitelist: anything the walk refuses, a
template whose finite outputs no path of the walk reaches, or a real output that shares a
noise with a comparison gives None (the per-point path).  tests/test_released_values.py compares
the shared probabilities with the per-point ones.
"""
from __future__ import annotations

from typing import Mapping

from dipc_plus.accuracy.monotone import Monotonicity
from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics import ir


class ReleasedValues:
    """Per det template key (`DetRegions` keys): the input names P[in the ball of det(u)] reads."""

    def __init__(self, reads: dict, real_outputs: frozenset):
        self.reads = reads
        self.real_outputs = real_outputs

    @staticmethod
    def of(program: ir.Program, regions) -> "ReleasedValues | None":
        """The reads of every template of `regions` (a `classes.DetRegions` with real outputs), or
        None where the argument above is not proved for this program."""
        try:
            walk = Monotonicity(program, real_outputs=True)
        except UserError:
            return None
        order = list(walk.inputs)
        reads = {}
        for key, outputs in regions.templates.items():
            finite = {name: v for name, v in outputs.items() if not isinstance(v, LinForm)}
            forms = {name: v for name, v in outputs.items() if isinstance(v, LinForm)}
            if set(finite) != set(walk.finite) or set(forms) != set(walk.reals_out):
                return None
            atoms = walk.output(finite)
            if not atoms.real_forms:   # no path found under this key: refuse rather than read nothing
                return None
            if atoms.real_outputs_independent(forms) is not None:
                return None
            reads[key] = tuple(name for name in order if name in atoms.signs)
        return ReleasedValues(reads, frozenset(walk.reals_out))

    def key(self, det_key: tuple, flat: Mapping, cheap) -> tuple:
        """(template, u on the names its ball probability reads), `cheap` making each value a key."""
        return det_key, tuple(cheap(flat[name]) for name in self.reads[det_key])

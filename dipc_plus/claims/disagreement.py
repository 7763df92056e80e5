"""Distance to disagreement dd(u) = d(u, {w : det(w) != det(u)}), exactly.

This is the alpha an accuracy claim is checked at (Barthe et al., POPL 2021,
Definition 1; section 7: with beta continuous in alpha, checking at
alpha = dd(u) covers every alpha < dd(u)).  Two versions:

* over the real input space (the paper's definition), `RealSpace` here: the
  noise-free program is run symbolically (`noise_free.paths`), once per
  assignment of the finite inputs; every path whose output can differ from
  det(u) contributes a region (its path condition, plus "real output j < or >
  det(u)_j" when only a real output can differ), and dd(u) is the least distance
  from u to a region: an exact LP for L-inf (`lp_dd`), one LP per way of
  respecting the NumericSparse rule, and 0/1/infinity for zero-one.  When every
  region is a box the L-inf distance is read off the bounds in closed form
  instead (`box_dd`), and an argmax of noisy reads has its own closed form
  (`argmax_dd`);
* over a finite grid of inputs (an option, and what the paper's tool used):
  `grid_dd.GridSpace`.

The infimum may not be attained (open regions, e.g. a tie broken by a strict
comparison): the result (`dd_result.Disagreement`) says so and gives a closure
point approaching it.  Every attaining witness is re-checked by running the
noise-free program.

The result type and the grid are re-exported here: a claim picks its space
(`AccuracyClaim.dd`).
"""
from __future__ import annotations

import itertools
import math
from functools import cached_property
from fractions import Fraction
from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.exact import lp
from dipc_plus.exact.linear import LinForm
from dipc_plus.claims import noise_free
from dipc_plus.claims.argmax_dd import argmax_dd as argmax_closed_form, recognise_regions as argmax_regions
from dipc_plus.claims.box_dd import boxes_of, finite_splits, nearest_box, split_boxes
from dipc_plus.claims.dd_result import Disagreement, outputs_equal
from dipc_plus.claims.distances import INF, InputDistance, LinfInput, NumericSparseInput, ZeroOneInput, linf_gap
from dipc_plus.claims.grid_dd import GridSpace
from dipc_plus.claims.lp_dd import constraint_bound, linf_to_region
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.semantics.evaluate import domain_values, values_equal
from dipc_plus.semantics.values import freeze_env

__all__ = ["MAX_FINITE_ASSIGNMENTS", "INF", "Disagreement", "outputs_equal",
           "GridSpace", "RealSpace"]

MAX_FINITE_ASSIGNMENTS = 100_000


class RealSpace:
    """dd over the real input space for one program and input distance.

    The symbolic paths of the noise-free program are computed once per
    assignment of the finite (non-real) inputs and reused for every u.
    """

    def __init__(self, program: ir.Program, distance: InputDistance, argmax_formula: bool = True):
        self.program = program
        self.distance = distance
        self.reals = noise_free.real_inputs(program)
        self.finite = [(n, t) for n, t in program.inputs if not isinstance(t, ir.RealT)]
        for n, t in self.finite:
            if not isinstance(t, (ir.DomT, ir.BoolT)):
                raise UserError(f"input '{n}' of type {t} cannot be enumerated for the distance to disagreement",
                                hint="use dd_over = \"grid\"")
        count = math.prod(len(domain_values(t)) for _, t in self.finite)
        if count > MAX_FINITE_ASSIGNMENTS:
            raise ResourceLimit(f"{count} assignments of the finite inputs are too many to enumerate",
                                hint="use dd_over = \"grid\"")
        self.argmax_formula = argmax_formula
        self._boxes: dict = {}  # det output -> [(fixed, box)] of its regions, or None (some region no box)

    @cached_property
    def paths(self) -> list[noise_free.Path]:
        """The noise-free program's paths, for every assignment of the finite inputs."""
        names = [n for n, _ in self.finite]
        return [path for values in itertools.product(*(domain_values(t) for _, t in self.finite))
                for path in noise_free.paths(self.program, dict(zip(names, values)), self.reals)]

    @cached_property
    def argmax_regions(self):
        """The `claims.argmax_dd` regions (None: not an argmax, or argmax_formula off)."""
        return argmax_regions(self.program, self.distance) if self.argmax_formula else None

    # -- regions where det differs from det(u) ----------------------------------------------
    def regions(self, det_u: Mapping):
        """(fixed finite inputs, constraints) for every region of inputs whose det differs from det_u."""
        for path in self.paths:
            affine = {k: v for k, v in path.outputs.items() if isinstance(v, LinForm)}
            if any(not values_equal(v, det_u[k]) for k, v in path.outputs.items() if k not in affine):
                yield path.fixed, list(path.condition)
                continue
            for k, form in affine.items():
                target = Fraction(det_u[k])
                if form.is_constant():
                    if form.const != target:
                        yield path.fixed, list(path.condition)
                        break
                    continue
                for op in ("<", ">"):
                    yield path.fixed, list(path.condition) + [
                        lp.Constraint.of(form - LinForm.constant(target), op)]

    # -- the distance from u to one region -------------------------------------------------
    def _splits(self, u) -> list:
        """The constraints of each way the NumericSparse distance stays finite at u: every real input
        that is >= T at u moved below T, or left exactly where it is (`box_dd.finite_splits`); one
        empty way for any other distance."""
        if not isinstance(self.distance, NumericSparseInput):
            return [[]]
        T = self.distance.threshold
        return finite_splits([n for n in self.reals if n in self.distance.reals and Fraction(u[n]) >= T], T, u)

    def _units(self, u, det_u):
        """(fixed finite inputs, constraints) whose distance from u is plain L-inf: every region
        split by `_splits`."""
        splits = self._splits(u)
        for fixed, region in self.regions(det_u):
            for extra in splits:
                yield fixed, region + extra

    # -- public ---------------------------------------------------------------------------------
    def dd(self, u: Mapping, det_u: dict | None = None) -> Disagreement:
        """dd(u): in closed form when every region is a box, else by exact LPs."""
        det_u = noise_free.run(self.program, u) if det_u is None else det_u
        for route in (self.box_dd, self.argmax_dd):
            found = route(u, det_u)
            if found is not None:
                return found
        return self.lp_dd(u, det_u)

    def argmax_dd(self, u: Mapping, det_u: Mapping) -> Disagreement | None:
        """dd(u) in closed form for a recognised argmax of noisy reads (`claims.argmax_dd`; same
        value and attainment as `lp_dd`), or None when the program is not one."""
        if self.argmax_regions is None:
            return None
        index, found = argmax_closed_form(self.argmax_regions, u)
        (name, det_index), = det_u.items()
        if det_index != index:
            raise AssertionError(f"argmax det {index} differs from the noise-free program's {det_index} at {dict(u)}")
        return self._checked(u, det_u, found, "argmax dd")

    def lp_dd(self, u: Mapping, det_u: Mapping) -> Disagreement:
        """dd(u) by one exact LP per region (any affine regions), nearest regions first."""
        if isinstance(self.distance, ZeroOneInput):
            return self._zero_one_dd(u, det_u)
        # a cheap lower bound per region: its farthest single constraint (`lp_dd.constraint_bound`)
        # (INF when the finite inputs are infinitely far or a constant constraint fails)
        units = []
        for fixed, region in self._units(u, det_u):
            gap = linf_gap(u, fixed)
            units.append((constraint_bound(u, region, gap), gap, fixed, region))
        units.sort(key=lambda t: t[0])   # stable: ties keep the regions' order
        best = Disagreement(INF, False)
        for bound, gap, fixed, region in units:
            if bound == INF or bound > best.value or (bound == best.value and best.attained):
                break  # sorted by bound: nothing later can do better
            value, attained, point = linf_to_region(u, region, self.reals, gap)
            if value == INF:
                continue
            if value < best.value or (value == best.value and attained and not best.attained):
                full = None if point is None else {**fixed, **point}
                best = Disagreement(value, attained, full)
        return self._checked(u, det_u, best, "dd")

    def _zero_one_dd(self, u: Mapping, det_u: Mapping) -> Disagreement:
        """Under the zero-one distance every region with a point is at distance 1 (u is in none), so
        dd(u) is 1, witnessed by an interior point of the first such region."""
        for fixed, region in self.regions(det_u):
            inner = lp.interior_point(region, list(self.reals))
            if inner is not None:
                witness = {**fixed, **{n: inner.get(n, Fraction(0)) for n in self.reals}}
                return self._checked(u, det_u, Disagreement(Fraction(1), True, witness), "dd")
        return Disagreement(INF, False)

    # -- closed form for box regions ----------------------------------------------------------
    def box_dd(self, u: Mapping, det_u: Mapping) -> Disagreement | None:
        """dd(u) in closed form (same value and attainment as `lp_dd`), or None when some region
        is not a box or the distance is neither L-inf nor NumericSparse.  The witness is the
        attaining point (`_checked` runs det on it), or the closure point."""
        if not isinstance(self.distance, (LinfInput, NumericSparseInput)):
            return None
        key = freeze_env(det_u)   # every input with the same det(u) has the same regions
        if key not in self._boxes:
            self._boxes[key] = boxes_of(self.regions(det_u))
        if self._boxes[key] is None:
            return None
        # the boxes split for the NumericSparse distance as `_units` splits regions
        found = nearest_box(u, split_boxes(self._boxes[key], self._splits(u)), self.reals)
        return self._checked(u, det_u, found, "box dd")

    # -- re-checking what a route found ---------------------------------------------------------
    def _checked(self, u: Mapping, det_u: Mapping, result: Disagreement, route: str) -> Disagreement:
        """`result` after running det on what a route found: the attaining witness must disagree
        with u.  Every route's answer passes here."""
        if result.value == INF:
            return Disagreement(INF, False)
        if result.attained:
            result.output = noise_free.run(self.program, result.witness)
            if outputs_equal(result.output, det_u):
                raise AssertionError(f"{route} witness {result.witness} does not disagree with {dict(u)}")
        return result

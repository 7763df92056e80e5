"""Distance to disagreement dd(u) = d(u, {w : det(w) != det(u)}), exactly.

This is the alpha an accuracy claim is checked at (Barthe et al., POPL 2021,
Definition 1; section 7: with beta continuous in alpha, checking at
alpha = dd(u) covers every alpha < dd(u)).  Two versions:

* over the real input space (the paper's definition): the noise-free program
  is run symbolically (`noise_free.paths`), once per assignment of the finite
  inputs; every path whose output can differ from det(u) contributes a region
  (its path condition, plus "real output j < or > det(u)_j" when only a real
  output can differ), and dd(u) is the least distance from u to a region: an
  exact LP for L-inf (minimise s with s >= |w_i - u_i|), one LP per way of
  respecting the NumericSparse rule, and 0/1/infinity for zero-one;
* over a finite grid of inputs (an option, and what the paper's tool used):
  the least distance to a grid point whose det output differs.

The infimum may not be attained (open regions, e.g. a tie broken by a strict
comparison): the result says so and gives a closure point approaching it and
a genuine disagreeing input within a stated tolerance of it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping

from . import ir, lp, noise_free
from .distances import INF, InputDistance, NumericSparseInput, ZeroOneInput, _gap
from .errors import ResourceLimit, UserError
from .evaluate import domain_values, values_equal

DEFAULT_TOLERANCE = Fraction(1, 1000)
MAX_FINITE_ASSIGNMENTS = 100_000
_S = ("__dd_s__",)  # the LP variable bounding the distance (a name no input has)


@dataclass
class Disagreement:
    """dd(u) and how it is reached.

    value     Fraction, or INF when no input disagrees at finite distance
    attained  some input w with det(w) != det(u) has d(u, w) == value
    witness   such a w when attained; otherwise a point of the closure of the
              disagreement region at distance value (it may itself agree with u)
    near      when not attained (and finite): an input that does disagree, at
              distance `near_distance` <= value + tolerance
    output    det(witness) (attained) or det(near)
    """
    value: object
    attained: bool
    witness: dict | None = None
    near: dict | None = None
    near_distance: object = None
    output: dict | None = None

    def __str__(self) -> str:
        if self.value == INF:
            return "infinity"
        return f"{self.value}" + ("" if self.attained else " (infimum, not attained)")


def outputs_equal(a: Mapping, b: Mapping) -> bool:
    return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)


def _same(x, y) -> bool:
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool) and isinstance(y, (int, Fraction)) \
            and not isinstance(y, bool):
        return Fraction(x) == Fraction(y)
    return values_equal(x, y)


# --------------------------------------------------------------------------- grid


def dd_grid(u: Mapping, points, det: Callable[[Mapping], dict], distance: InputDistance,
            det_u: dict | None = None) -> Disagreement:
    """min d(u, w) over the grid points w with det(w) != det(u) (INF if there is none)."""
    det_u = det(u) if det_u is None else det_u
    best = None
    for w in points:
        out = det(w)
        if outputs_equal(out, det_u):
            continue
        dist = distance.between(u, w)
        if best is None or dist < best.value:
            best = Disagreement(dist, True, dict(w), output=out)
            if dist == 0:
                break
    return best if best is not None else Disagreement(INF, False)


# --------------------------------------------------------------------------- real space


class RealSpace:
    """dd over the real input space for one program and input distance.

    The symbolic paths of the noise-free program are computed once per
    assignment of the finite (non-real) inputs and reused for every u.
    """

    def __init__(self, program: ir.Program, distance: InputDistance,
                 tolerance: Fraction = DEFAULT_TOLERANCE, max_paths: int = noise_free.DEFAULT_MAX_PATHS):
        self.program = program
        self.distance = distance
        self.tolerance = Fraction(tolerance)
        self.reals = noise_free.real_inputs(program)
        self.finite = [(n, t) for n, t in program.inputs if not isinstance(t, ir.RealT)]
        for n, t in self.finite:
            if not isinstance(t, (ir.DomT, ir.BoolT)):
                raise UserError(f"input '{n}' of type {t} cannot be enumerated for the distance to disagreement",
                                hint="use dd_over = \"grid\"")
        count = 1
        for _, t in self.finite:
            count *= len(domain_values(t))
        if count > MAX_FINITE_ASSIGNMENTS:
            raise ResourceLimit(f"{count} assignments of the finite inputs are too many to enumerate",
                                hint="use dd_over = \"grid\"")
        self.max_paths = max_paths
        self._paths: list[noise_free.Path] | None = None

    def all_paths(self) -> list[noise_free.Path]:
        if self._paths is None:
            found = []
            names = [n for n, _ in self.finite]
            for values in itertools.product(*(domain_values(t) for _, t in self.finite)):
                fixed = dict(zip(names, values))
                found.extend(noise_free.paths(self.program, fixed, self.reals, self.max_paths))
            self._paths = found
        return self._paths

    # -- regions where det differs from det(u) ----------------------------------------------
    def regions(self, det_u: Mapping):
        """(fixed finite inputs, constraints) for every region of inputs whose det differs from det_u."""
        for path in self.all_paths():
            affine = {k: v for k, v in path.outputs.items() if isinstance(v, noise_free.Affine)}
            if any(not _same(v, det_u[k]) for k, v in path.outputs.items() if k not in affine):
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
                        lp.Constraint.make(form.as_dict(), op, target - form.const)]

    # -- the distance from u to one region -------------------------------------------------
    def _finite_gap(self, u, fixed):
        if isinstance(self.distance, ZeroOneInput):
            return Fraction(0) if all(values_equal(u[k], v) for k, v in fixed.items()) else Fraction(1)
        return max((_gap(u[k], v) for k, v in fixed.items()), default=Fraction(0))

    def _linf_region(self, u, region):
        """(value, attained, witness point, interior point) of min ||w - u||_inf over the region.

        The LP is written in y_i = w_i - u_i + s, so every variable is >= 0:
        minimise s subject to y_i <= 2s and the region's constraints in y and s.
        """
        if not self.reals:  # nothing can move: the region is all or nothing
            ok = all(c.holds({}) for c in region)
            return (Fraction(0), True, {}, {}) if ok else (INF, False, None, None)
        ys = {name: ("__dd_y__", name) for name in self.reals}
        cons = []
        for c in region:
            coeffs = {ys[n]: a for n, a in c.coeffs}
            total = sum((a for _, a in c.coeffs), Fraction(0))
            coeffs[_S] = coeffs.get(_S, 0) - total
            shift = sum((a * Fraction(u[n]) for n, a in c.coeffs), Fraction(0))
            cons.append(lp.Constraint.make(coeffs, c.op, c.rhs - shift))
        for name in self.reals:
            cons.append(lp.Constraint.make({ys[name]: 1, _S: -2}, "<=", 0))
        variables = list(ys.values()) + [_S]
        res = lp.minimize({_S: 1}, cons, variables, nonneg=variables)
        if res.status == "infeasible":
            return INF, False, None, None

        def back(p):
            if p is None:
                return None
            return {n: p[ys[n]] - p[_S] + Fraction(u[n]) for n in self.reals}
        return res.value, res.attained, back(res.point), back(res.interior)

    def _units(self, u, det_u):
        """(fixed finite inputs, constraints) whose distance from u is plain L-inf (or zero-one).

        For the NumericSparse distance every region is split by how each real
        input that is >= T at u is kept at finite distance: moved below T, or
        left exactly where it is.
        """
        above = []
        if isinstance(self.distance, NumericSparseInput):
            T = self.distance.threshold
            above = [n for n in self.reals if n in self.distance.reals and Fraction(u[n]) >= T]
        for fixed, region in self.regions(det_u):
            if not above:
                yield fixed, region
                continue
            for choice in itertools.product((True, False), repeat=len(above)):
                yield fixed, region + [lp.Constraint.make({n: 1}, "<", T) if below else
                                       lp.Constraint.make({n: 1}, "==", Fraction(u[n]))
                                       for n, below in zip(above, choice)]

    def _lower_bound(self, u, fixed, region):
        """A cheap lower bound on the distance from u to the region: the farthest single
        constraint (L-inf distance to a half-space is its violation over the 1-norm)."""
        if isinstance(self.distance, ZeroOneInput):
            return Fraction(0)
        bound = self._finite_gap(u, fixed)
        for c in region:
            norm = sum(abs(a) for _, a in c.coeffs)
            if norm == 0:
                if not c.holds({}):
                    return INF
                continue
            excess = c.lhs_value(u) - c.rhs
            if c.op in ("<", "<="):
                viol = excess
            elif c.op in (">", ">="):
                viol = -excess
            else:
                viol = abs(excess)
            if viol > 0:
                bound = max(bound, viol / norm)
        return bound

    def _region_distance(self, u, fixed, region):
        """(value, attained, point, interior point) of the distance from u to one unit."""
        gap = self._finite_gap(u, fixed)
        if gap == INF:
            return INF, False, None, None
        if isinstance(self.distance, ZeroOneInput):
            inner = lp.interior_point(region, list(self.reals))
            if inner is None:
                return INF, False, None, None
            w = {n: inner.get(n, Fraction(0)) for n in self.reals}
            return Fraction(1), True, w, w
        value, attained, point, inner = self._linf_region(u, region)
        if value == INF or gap <= value:
            return value, attained, point, inner
        # max(gap, ||w-u||) is gap wherever ||w-u|| <= gap: such a w exists since inf < gap.
        closed = region + [c for n in self.reals for c in (
            lp.Constraint.make({n: 1}, "<=", Fraction(u[n]) + gap),
            lp.Constraint.make({n: 1}, ">=", Fraction(u[n]) - gap))]
        return gap, True, lp.interior_point(closed, list(self.reals)), inner

    # -- public ---------------------------------------------------------------------------------
    def dd(self, u: Mapping, det_u: dict | None = None) -> Disagreement:
        det_u = noise_free.run(self.program, u) if det_u is None else det_u
        units = [(self._lower_bound(u, fixed, region), k, fixed, region)
                 for k, (fixed, region) in enumerate(self._units(u, det_u))]
        units.sort(key=lambda t: (t[0], t[1]))
        best = Disagreement(INF, False)
        best_inner = None
        for bound, _, fixed, region in units:
            if bound > best.value or (bound == best.value and best.attained):
                break  # sorted by bound: nothing later can do better
            value, attained, point, inner = self._region_distance(u, fixed, region)
            if value == INF:
                continue
            if value < best.value or (value == best.value and attained and not best.attained):
                full = None if point is None else {**fixed, **point}
                best = Disagreement(value, attained, full)
                best_inner = None if inner is None else {**fixed, **inner}
        if best.value == INF:
            return best
        if best.attained:
            best.output = noise_free.run(self.program, best.witness)
            if outputs_equal(best.output, det_u):
                raise AssertionError(f"dd witness {best.witness} does not disagree with {dict(u)}")
        else:
            self._approach(u, det_u, best, best_inner)
        return best

    def _approach(self, u, det_u, best: Disagreement, inner: dict | None) -> None:
        """Find a disagreeing input within `tolerance` of the infimum (p + lambda (r - p))."""
        if inner is None:
            return
        p, r = best.witness, inner
        lam = Fraction(1)
        for _ in range(200):
            w = {k: (p[k] + lam * (Fraction(r[k]) - p[k])) if k in self.reals else p[k] for k in p}
            dist = self.distance.between(u, w)
            if dist <= best.value + self.tolerance:
                out = noise_free.run(self.program, w)
                if outputs_equal(out, det_u):
                    raise AssertionError(f"dd near point {w} does not disagree with {dict(u)}")
                best.near, best.near_distance, best.output = w, dist, out
                return
            lam /= 2


def distance_to_disagreement(program: ir.Program, u: Mapping, distance: InputDistance, *,
                             over: str = "reals", grid=None, det: Callable | None = None,
                             det_u: dict | None = None) -> Disagreement:
    """dd(u) over the real input space (over="reals") or over `grid` (over="grid").

    `det` (grid only) defaults to the noise-free program; the real-space version
    always uses the noise-free program (a table is only known on its inputs).
    """
    if over == "reals":
        return RealSpace(program, distance).dd(u, det_u)
    if over == "grid":
        if grid is None:
            raise ValueError("dd over a grid needs the grid points")
        det = det or (lambda w: noise_free.run(program, w))
        return dd_grid(u, grid, det, distance, det_u)
    raise ValueError(f"unknown dd space {over!r}")

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
  respecting the NumericSparse rule, and 0/1/infinity for zero-one.  When
  every region is a box (Sparse, AboveThreshold, NumericSparse: each
  constraint bounds one input) the L-inf distance is read off the bounds in
  closed form instead, with the same value and attainment (10-15x faster on
  the paper's grids; tests compare the two on whole grids);
* over a finite grid of inputs (an option, and what the paper's tool used):
  the least distance to a grid point whose det output differs, computed by
  `GridSpace` with det run once per point and the distances from u to all
  points in one exact vectorised step.

The infimum may not be attained (open regions, e.g. a tie broken by a strict
comparison): the result says so and gives a closure point approaching it and
a genuine disagreeing input within a stated tolerance of it.

Why one module of a little over 600 lines: the two spaces (`RealSpace`,
`GridSpace`) answer one question, share the result type and the closure-point
logic, and are only meaningful side by side (the claim file picks one).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from math import floor, lcm
from typing import Callable, Mapping

from dipc_plus.execution.lazy import lazy_import

np = lazy_import("numpy")

from dipc_plus.semantics import ir
from dipc_plus.exact import lp
from dipc_plus.claims import noise_free
from dipc_plus.claims.argmax_dd import argmax_dd as argmax_closed_form, recognise_regions as argmax_regions
from dipc_plus.claims.distances import INF, InputDistance, LinfInput, NumericSparseInput, ZeroOneInput, value_gap
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.semantics.evaluate import domain_values, values_equal

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
    return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)




# --------------------------------------------------------------------------- grid


def _frozen(env: Mapping) -> tuple:
    """A hashable form of an input or output, equal numbers equal whatever their type."""
    def norm(v):
        if isinstance(v, (bool, str)):
            return (type(v).__name__, v)
        return ("num", Fraction(v))
    return tuple(sorted((k, norm(v)) for k, v in env.items()))


class GridSpace:
    """dd over a fixed list of grid points, with det run once per point.

    Points are grouped by their det output, and the distances from u to all of
    them are taken in one exact step: the grid's numbers are scaled to integers
    by their common denominator (numpy int64 when they fit, Python ints
    otherwise), so no floating point is involved.  Distances other than L-inf,
    zero-one and NumericSparse, or grids with symbols or Booleans, use the
    distance's own `between`.  Ties go to the first point in grid order.
    """

    def __init__(self, points: list, det: Callable[[Mapping], dict], distance: InputDistance):
        self.points = list(points)
        self.distance = distance
        self.names = list(self.points[0]) if self.points else []
        self._det_fn = det
        self.dets = [det(w) for w in self.points]
        keys = {}
        self.groups = np.array([keys.setdefault(_frozen(o), len(keys)) for o in self.dets], dtype=np.int64)
        self._keys = keys
        self._matrix = self._numeric_matrix()

    # -- exact integer view of the grid --------------------------------------------------
    def _numeric_matrix(self):
        """(integer matrix, scale) with point[i][name_j] = M[i, j] / scale, or None."""
        if not self.points or not isinstance(self.distance, (LinfInput, NumericSparseInput, ZeroOneInput)):
            return None
        values = []
        for w in self.points:
            if list(w) != self.names:
                return None
            row = []
            for v in w.values():
                if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                    return None
                row.append(Fraction(v))
            values.append(row)
        scale = 1
        for row in values:
            for v in row:
                scale = lcm(scale, v.denominator)
        ints = [[int(v * scale) for v in row] for row in values]
        biggest = max((abs(x) for row in ints for x in row), default=0)
        dtype = np.int64 if biggest < 2 ** 61 else object
        return np.array(ints, dtype=dtype), scale

    def _scaled(self, u: Mapping, scale: int):
        row = []
        for name in self.names:
            v = u[name]
            if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                return None
            x = Fraction(v) * scale
            if x.denominator != 1:
                return None
            row.append(int(x))
        return row

    # -- the distance to disagreement ---------------------------------------------------------
    def dd(self, u: Mapping, det_u: dict | None = None) -> Disagreement:
        det_u = self._det_fn(u) if det_u is None else det_u
        key = _frozen(det_u)
        group = self._keys.get(key, -1)
        other = np.nonzero(self.groups != group)[0]
        if len(other) == 0:
            return Disagreement(INF, False)
        fast = self._fast(u, other)
        if fast is not None:
            return fast
        best = None
        for i in other:
            w = self.points[i]
            if outputs_equal(self.dets[i], det_u):  # same output, different key form
                continue
            d = self.distance.between(u, w)
            if best is None or d < best[0]:
                best = (d, i)
                if d == 0:
                    break
        if best is None or best[0] == INF:
            return Disagreement(INF, False)
        return Disagreement(best[0], True, dict(self.points[best[1]]), output=self.dets[best[1]])

    def _fast(self, u: Mapping, other: np.ndarray) -> Disagreement | None:
        if self._matrix is None or list(u) != self.names:
            return None
        M, scale = self._matrix
        row = self._scaled(u, scale)
        if row is None:
            return None
        x = np.array(row, dtype=M.dtype)
        sub = M[other]
        diff = sub - x
        if isinstance(self.distance, ZeroOneInput):
            dist = (diff != 0).any(axis=1).astype(np.int64) * scale
            infinite = np.zeros(len(other), dtype=bool)
        else:
            dist = np.abs(diff).max(axis=1) if diff.shape[1] else np.zeros(len(other), dtype=M.dtype)
            infinite = np.zeros(len(other), dtype=bool)
            if isinstance(self.distance, NumericSparseInput):
                t = self.distance.threshold * scale
                if t.denominator != 1:
                    return None
                t = int(t)
                for j, name in enumerate(self.names):
                    if name in self.distance.reals and x[j] >= t:
                        infinite |= (sub[:, j] >= t) & (sub[:, j] != x[j])
        finite = np.nonzero(~infinite)[0]
        if len(finite) == 0:
            return Disagreement(INF, False)
        k = finite[int(np.argmin(dist[finite]))]  # first minimum, in grid order
        i = int(other[k])
        value = Fraction(int(dist[k]), scale)
        return Disagreement(value, True, dict(self.points[i]), output=self.dets[i])


def dd_grid(u: Mapping, points, det: Callable[[Mapping], dict], distance: InputDistance,
            det_u: dict | None = None) -> Disagreement:
    """min d(u, w) over the grid points w with det(w) != det(u) (INF if there is none).
    One-off use; keep a `GridSpace` to run det once per point for a whole grid."""
    return GridSpace(points, det, distance).dd(u, det_u)


# --------------------------------------------------------------------------- box regions
# Every constraint of a region bounds one input (Sparse, AboveThreshold, NumericSparse):
# the L-inf distance from u to the box is its largest per-coordinate gap, and whether some
# input of the box attains it is read off which bounds are active (open or closed).

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}


class _Box:
    """Per variable: lower and upper bounds, each (value, closed) or None."""

    def __init__(self):
        self.lo: dict = {}
        self.hi: dict = {}
        self.empty = False

    # A box is not changed once it is measured (`_box_units` changes copies), so `box_dd`'s
    # views of it below are remembered on it, for the same `names` every time.

    def denominator(self, names) -> int:
        """The least common denominator of the bounds on `names`."""
        found = self.__dict__.get("_denominator")
        if found is None:
            found = self._denominator = lcm(*(b[0].denominator for bounds in (self.lo, self.hi)
                                              for n, b in bounds.items() if n in names))
        return found

    def empty_over(self, names) -> bool:
        """`is_empty(names)`, remembered."""
        found = self.__dict__.get("_empty")
        if found is None:
            found = self._empty = self.is_empty(names)
        return found

    def scaled(self, names, scale: int) -> list:
        """[(lo, lo closed, hi, hi closed)] per name, the bounds times `scale` (a multiple of
        `denominator`) as integers, None where unbounded, remembered per scale."""
        cache = self.__dict__.setdefault("_scaled", {})
        found = cache.get(scale)
        if found is None:
            found = []
            for n in names:
                lo, hi = self.lo.get(n), self.hi.get(n)
                found.append((None if lo is None else int(lo[0] * scale), lo is not None and lo[1],
                              None if hi is None else int(hi[0] * scale), hi is not None and hi[1]))
            cache[scale] = found
        return found

    def copy(self) -> "_Box":
        other = _Box()
        other.lo, other.hi, other.empty = dict(self.lo), dict(self.hi), self.empty
        return other

    def add(self, c: lp.Constraint) -> bool:
        """Intersect with one constraint; False if it bounds more than one variable."""
        if not c.coeffs:
            if not c.holds({}):
                self.empty = True
            return True
        if len(c.coeffs) != 1:
            return False
        (name, a), = c.coeffs
        self.add_bound(name, c.rhs / a, c.op if a > 0 else _FLIP[c.op])
        return True

    def add_bound(self, name, x: Fraction, op: str) -> None:
        """Intersect with  name op x."""
        if op in (">", ">=", "=="):
            self._tighten(self.lo, name, x, op != ">", lower=True)
        if op in ("<", "<=", "=="):
            self._tighten(self.hi, name, x, op != "<", lower=False)

    @staticmethod
    def _tighten(bounds: dict, name, x: Fraction, closed: bool, lower: bool) -> None:
        old = bounds.get(name)
        if old is None or (x > old[0] if lower else x < old[0]) or (x == old[0] and not closed):
            bounds[name] = (x, closed)

    def interval(self, name) -> tuple:
        return self.lo.get(name), self.hi.get(name)

    def is_empty(self, names) -> bool:
        if self.empty:
            return True
        for n in names:
            lo, hi = self.interval(n)
            if lo is not None and hi is not None:
                if lo[0] > hi[0] or (lo[0] == hi[0] and not (lo[1] and hi[1])):
                    return True
        return False


def _coordinate(u_n: Fraction, lo, hi) -> tuple[Fraction, bool]:
    """(distance from u_n to the interval, whether the nearest point belongs to it)."""
    if lo is not None and u_n < lo[0]:
        return lo[0] - u_n, lo[1]
    if hi is not None and u_n > hi[0]:
        return u_n - hi[0], hi[1]
    if lo is not None and u_n == lo[0] and not lo[1]:
        return _ZERO, False
    if hi is not None and u_n == hi[0] and not hi[1]:
        return _ZERO, False
    return _ZERO, True


_ZERO = Fraction(0)


def _box_coordinates(point: list, bounds: list, limit) -> list | None:
    """[(distance, whether the nearest point is in the box)] per coordinate, all scaled to integers
    (`_Box.scaled`), or None as soon as one exceeds the integer `limit`: a box farther than one
    already found in a single coordinate cannot replace it."""
    coords = []
    for x, (lo, lo_closed, hi, hi_closed) in zip(point, bounds):
        if lo is not None and x < lo:
            d = (lo - x, lo_closed)
        elif hi is not None and x > hi:
            d = (x - hi, hi_closed)
        else:   # inside, or on an open end
            d = (0, not ((lo is not None and x == lo and not lo_closed) or
                         (hi is not None and x == hi and not hi_closed)))
        if limit is not None and d[0] > limit:
            return None
        coords.append(d)
    return coords


def _pick(u_n: Fraction, lo, hi, value: Fraction) -> Fraction:
    """A point of the interval within `value` of u_n (it exists: the box attains `value`)."""
    d, included = _coordinate(u_n, lo, hi)
    if d == 0 and included:
        return u_n
    if lo is not None and u_n <= lo[0]:
        target, inward = lo[0], 1
    else:
        target, inward = hi[0], -1
    if included:
        return target
    room = value - d  # > 0 here, and the interval is not a point
    width = (hi[0] - lo[0]) if lo is not None and hi is not None else room
    return target + inward * min(room, width) / 2


# --------------------------------------------------------------------------- real space


class RealSpace:
    """dd over the real input space for one program and input distance.

    The symbolic paths of the noise-free program are computed once per
    assignment of the finite (non-real) inputs and reused for every u.
    """

    def __init__(self, program: ir.Program, distance: InputDistance,
                 tolerance: Fraction = DEFAULT_TOLERANCE, max_paths: int = noise_free.DEFAULT_MAX_PATHS,
                 argmax_formula: bool = True):
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
        # claims.argmax_dd regions, once looked for (None: not an argmax, or argmax_formula off)
        self._argmax = False if argmax_formula else None
        self._boxes: dict = {}  # det output -> [(fixed, box)] of its regions, or None (some region no box)

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
                        lp.Constraint.make(form.as_dict(), op, target - form.const)]

    # -- the distance from u to one region -------------------------------------------------
    def _finite_gap(self, u, fixed):
        if isinstance(self.distance, ZeroOneInput):
            return Fraction(0) if all(values_equal(u[k], v) for k, v in fixed.items()) else Fraction(1)
        return max((value_gap(u[k], v) for k, v in fixed.items()), default=Fraction(0))

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
    def dd(self, u: Mapping, det_u: dict | None = None, near: bool = True) -> Disagreement:
        """dd(u): in closed form when every region is a box, else by exact LPs.  near=False skips
        finding a disagreeing input near an infimum that is not attained (a run of det each;
        the accuracy checker needs only the value)."""
        det_u = noise_free.run(self.program, u) if det_u is None else det_u
        fast = self.box_dd(u, det_u, near)
        if fast is None:
            fast = self.argmax_dd(u, det_u, near)
        return fast if fast is not None else self.lp_dd(u, det_u, near)

    def argmax_dd(self, u: Mapping, det_u: Mapping, near: bool = True) -> Disagreement | None:
        """dd(u) in closed form for a recognised argmax of noisy reads (`claims.argmax_dd`; same
        value and attainment as `lp_dd`), or None when the program is not one."""
        if self._argmax is False:
            self._argmax = argmax_regions(self.program, self.distance)
        if self._argmax is None:
            return None
        index, value, attained, witness, close = argmax_closed_form(
            self._argmax, u, self.tolerance if near else None)
        (name, det_index), = det_u.items()
        if det_index != index:
            raise AssertionError(f"argmax det {index} differs from the noise-free program's {det_index} at {dict(u)}")
        if value == INF:
            return Disagreement(INF, False)
        result = Disagreement(value, attained, witness)
        if attained:   # re-checked by running det, as box_dd does
            result.output = noise_free.run(self.program, witness)
            if outputs_equal(result.output, det_u):
                raise AssertionError(f"argmax dd witness {witness} does not disagree with {dict(u)}")
        elif close is not None:
            dist = self.distance.between(u, close)
            out = noise_free.run(self.program, close)
            if not dist <= value + self.tolerance or outputs_equal(out, det_u):
                raise AssertionError(f"argmax dd near point {close} does not disagree with {dict(u)} within tolerance")
            result.near, result.near_distance, result.output = close, dist, out
        return result

    def lp_dd(self, u: Mapping, det_u: Mapping, near: bool = True) -> Disagreement:
        """dd(u) by one exact LP per region (any affine regions)."""
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
        elif near:
            self._approach(u, det_u, best, best_inner)
        return best

    # -- closed form for box regions ----------------------------------------------------------
    def _region_boxes(self, det_u: Mapping):
        """[(fixed, box)] for the regions where det differs from det_u, or None if one is no box
        (cached per det output: every input with the same det(u) has the same regions)."""
        key = _frozen(det_u)
        if key not in self._boxes:
            boxes = []
            for fixed, region in self.regions(det_u):
                box = _Box()
                if not all(box.add(c) for c in region):
                    boxes = None
                    break
                boxes.append((fixed, box))
            self._boxes[key] = boxes
        return self._boxes[key]

    def _box_units(self, u: Mapping, det_u: Mapping):
        """The boxes to measure from u, split for the NumericSparse distance as `_units` splits regions."""
        boxes = self._region_boxes(det_u)
        if boxes is None:
            return None
        above = []
        if isinstance(self.distance, NumericSparseInput):
            T = self.distance.threshold
            above = [n for n in self.reals if n in self.distance.reals and Fraction(u[n]) >= T]
        if not above:
            return boxes
        units = []
        for fixed, base in boxes:
            for choice in itertools.product((True, False), repeat=len(above)):
                box = base.copy()
                for n, below in zip(above, choice):
                    if below:
                        box.add_bound(n, T, "<")
                    else:
                        box.add_bound(n, Fraction(u[n]), "==")
                units.append((fixed, box))
        return units

    def box_dd(self, u: Mapping, det_u: Mapping, near: bool = True) -> Disagreement | None:
        """dd(u) in closed form (same value and attainment as `lp_dd`), or None when some region
        is not a box or the distance is neither L-inf nor NumericSparse."""
        if not isinstance(self.distance, (LinfInput, NumericSparseInput)):
            return None
        units = self._box_units(u, det_u)
        if units is None:
            return None
        at = {n: Fraction(u[n]) for n in self.reals}
        best = self._nearest_box(u, units, at)
        if best is None:
            return Disagreement(INF, False)
        return self._box_witness(u, det_u, best, at, near)

    def _nearest_box(self, u: Mapping, units: list, at: dict):
        """(value, attained, fixed, box) of the box nearest to u in the distance (an attained
        value preferred on a tie), or None when every box is empty or infinitely far."""
        reals = self.reals
        # distances measured in integers: u and every bound over their common denominator
        scale = lcm(*(x.denominator for x in at.values()), *(box.denominator(reals) for _, box in units))
        point = [x.numerator * (scale // x.denominator) for x in at.values()]
        best = None  # (value, attained, fixed, box)
        for fixed, box in units:
            if box.empty_over(reals):
                continue
            gap = max((value_gap(u[k], v) for k, v in fixed.items()), default=_ZERO)
            if gap == INF:
                continue
            coords = _box_coordinates(point, box.scaled(reals, scale),
                                      None if best is None else floor(best[0] * scale))
            if coords is None:
                continue
            scaled = max((d for d, _ in coords), default=0)
            attained = all(d < scaled or included for d, included in coords)
            value = Fraction(scaled, scale)
            if gap > value:
                value, attained = gap, True
            if best is None or value < best[0] or (value == best[0] and attained and not best[1]):
                best = (value, attained, fixed, box)
        return best

    def _box_witness(self, u: Mapping, det_u: Mapping, best: tuple, at: dict, near: bool) -> Disagreement:
        """The disagreement of the nearest box with its witness, each re-checked on the noise-free
        program: the attaining point, or the closure point and (with `near`) a point within the
        tolerance."""
        value, attained, fixed, box = best
        reals = self.reals
        if attained:
            point = {n: _pick(at[n], *box.interval(n), value) for n in reals}
        else:
            point = {n: _clamp(at[n], *box.interval(n)) for n in reals}
        witness = {**{k: u[k] for k in u}, **fixed, **point}
        result = Disagreement(value, attained, witness)
        if attained:
            result.output = noise_free.run(self.program, witness)
            if outputs_equal(result.output, det_u):
                raise AssertionError(f"box dd witness {witness} does not disagree with {dict(u)}")
        elif near:  # a disagreeing input of the box within the tolerance of the infimum, in closed form
            close = {**witness, **{n: _pick(at[n], *box.interval(n), value + self.tolerance) for n in reals}}
            dist = self.distance.between(u, close)
            out = noise_free.run(self.program, close)
            if not dist <= value + self.tolerance or outputs_equal(out, det_u):
                raise AssertionError(f"box dd near point {close} does not disagree with {dict(u)} within tolerance")
            result.near, result.near_distance, result.output = close, dist, out
        return result

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


def _clamp(x: Fraction, lo, hi) -> Fraction:
    """x moved into the closure of an interval given as (bound, included) ends, None unbounded."""
    x = max(x, lo[0]) if lo is not None else x
    return min(x, hi[0]) if hi is not None else x


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

"""Distance to disagreement over a finite grid of inputs (an option, and what the paper's tool used).

The least distance from u to a grid point whose det output differs; `GridSpace` runs det once
per point and takes the distances from u to all points in one exact vectorised step.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping

from dipc_plus.execution.lazy import lazy_import
from dipc_plus.exact.convert import common_denominator, scaled_integers
from dipc_plus.semantics.values import freeze_env, is_number

np = lazy_import("numpy")

from dipc_plus.claims.dd_result import Disagreement, outputs_equal
from dipc_plus.claims.distances import INF, InputDistance, LinfInput, NumericSparseInput, ZeroOneInput


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
        self._keys: dict = {}   # det output -> its group number
        self.groups = np.array([self._keys.setdefault(freeze_env(o), len(self._keys)) for o in self.dets],
                               dtype=np.int64)
        self._matrix = self._numeric_matrix()

    # -- exact integer view of the grid --------------------------------------------------
    def _numeric_matrix(self):
        """(integer matrix, scale) with point[i][name_j] = M[i, j] / scale, or None."""
        if not self.points or not isinstance(self.distance, (LinfInput, NumericSparseInput, ZeroOneInput)):
            return None
        values = [_rationals(w, self.names) if list(w) == self.names else None for w in self.points]
        if None in values:
            return None
        scale = common_denominator(v for row in values for v in row)
        ints = [scaled_integers(row, scale) for row in values]
        biggest = max((abs(x) for row in ints for x in row), default=0)
        dtype = np.int64 if biggest < 2 ** 61 else object
        return np.array(ints, dtype=dtype), scale

    # -- the distance to disagreement ---------------------------------------------------------
    def dd(self, u: Mapping, det_u: dict | None = None) -> Disagreement:
        """The nearest disagreeing grid point (always attained)."""
        det_u = self._det_fn(u) if det_u is None else det_u
        other = np.nonzero(self.groups != self._keys.get(freeze_env(det_u), -1))[0]
        found = self._fast(u, other) if len(other) else (INF, None)
        if found is None:   # the distance's own `between`, point by point
            disagreeing = [i for i in other if not outputs_equal(self.dets[i], det_u)]  # not another key form
            found = min(((self.distance.between(u, self.points[i]), i) for i in disagreeing),
                        key=lambda found: found[0], default=(INF, None))   # the first nearest
        value, i = found
        if value == INF:
            return Disagreement(INF, False)
        return Disagreement(value, True, dict(self.points[i]), output=self.dets[i])

    def _fast(self, u: Mapping, other: np.ndarray) -> tuple | None:
        """(dd, index of the nearest point) by the exact integer matrix, or None where it does not apply."""
        if self._matrix is None or list(u) != self.names:
            return None
        M, scale = self._matrix
        row = _rationals(u, self.names)
        ints = None if row is None else scaled_integers(row, scale)   # None: u is off the grid's scale
        if ints is None:
            return None
        x = np.array(ints, dtype=M.dtype)
        sub = M[other]
        diff = sub - x
        infinite = np.zeros(len(other), dtype=bool)
        if isinstance(self.distance, ZeroOneInput):
            dist = (diff != 0).any(axis=1).astype(np.int64) * scale
        else:
            dist = np.abs(diff).max(axis=1) if diff.shape[1] else np.zeros(len(other), dtype=M.dtype)
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
            return INF, None
        k = finite[int(np.argmin(dist[finite]))]  # first minimum, in grid order
        return Fraction(int(dist[k]), scale), int(other[k])


def _rationals(env: Mapping, names: list) -> list | None:
    """The values of `names` in `env` as Fractions, or None when one is a Boolean or no number."""
    if not all(is_number(env[n]) for n in names):
        return None
    return [Fraction(env[n]) for n in names]

"""A claim at eps = ln r on a grid: "against every neighbour" as a min filter.

Why it exists: at eps = ln r every probability is a rational, so for one output v,
P[u -> v] <= e^budget P[u' -> v] for every neighbour u' of u is the same as the
comparison with the smallest neighbouring probability, a separable min filter over
the grid (numpy arrays of exact rationals).  This checks huge grids quickly; it is
used only with delta = 0, where the claim is a per-output one.
"""
from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

from typing import TYPE_CHECKING

from dipc_plus.privacy.dp.support_pairs import neighbour_indices

if TYPE_CHECKING:
    from dipc_plus.privacy.dp.plan import Unit

FILTER_LIMIT = 2_000_000


def filter_applies(claim, unit: "Unit") -> bool:
    """At eps = ln r every probability is a rational, so 'for every neighbour u' of u' becomes
    'against the smallest neighbouring probability', a separable min filter on the grid."""
    return (claim.eps.is_log_point and unit.grid is not None and claim.delta_is_zero
            and claim.adjacency.kind in ("linf", "one-position", "hamming") and filter_pairs(unit) <= FILTER_LIMIT)


def _axis_neighbours(values: list, adjacency) -> list:
    """Per grid value's index, the indices a neighbour may take in this coordinate (itself included)."""
    if adjacency.kind == "hamming":
        return [list(range(len(values)))] * len(values)
    return neighbour_indices(values, adjacency.bound)


def _axis_min(A, axis: int, nbrs: list):
    """Along one axis, each index's minimum over its neighbouring indices `nbrs[index]`."""
    import numpy as np
    return np.stack([np.minimum.reduce([A.take(j, axis=axis) for j in js]) for js in nbrs], axis=axis)


def point_arrays(claim, unit: "Unit") -> dict:
    """{output key: array of exact probabilities over the grid}, keys in order of first occurrence."""
    import numpy as np
    names = list(unit.inputs)
    shape = tuple(len(unit.grid[n]) for n in names)
    tables = [unit.source.at_log(unit.canon({n: unit.grid[n][i] for n, i in zip(names, idx)}), claim.eps.log_of)
              for idx in itertools.product(*(range(k) for k in shape))]
    keys = dict.fromkeys(k for T in tables for k in T)
    return {k: np.array([T.get(k, Fraction(0)) for T in tables], dtype=object).reshape(shape) for k in keys}


def neighbour_minimum(A, unit: "Unit", adjacency):
    """M[u] = min over u's neighbours w (u itself included) of A[w]."""
    import numpy as np
    nb = [_axis_neighbours(unit.grid[n], adjacency) for n in unit.inputs]
    if adjacency.kind == "linf":   # the L-inf neighbourhood is a product: one axis's minimum after another
        return functools.reduce(lambda M, axis: _axis_min(M, axis, nb[axis]), range(len(nb)), A)
    mins = [_axis_min(A, axis, nb[axis]) for axis in range(len(nb))]
    return np.minimum.reduce(mins) if len(mins) > 1 else mins[0]


def _points(claim, unit: "Unit", arrays: dict):
    """Output by output, every grid index: (output key, its array A, the index, the smallest
    neighbouring probability there)."""
    import numpy as np
    for k, A in arrays.items():
        M = neighbour_minimum(A, unit, claim.adjacency)
        for idx in np.ndindex(A.shape):
            yield k, A, idx, M[idx]


def _smallest_neighbour(claim, unit: "Unit", A, idx: tuple) -> tuple:
    """(the input at idx, its neighbour w with the smallest A (brute force around one point), A[w])."""
    names = list(unit.inputs)
    nb = [_axis_neighbours(unit.grid[n], claim.adjacency) for n in names]
    if claim.adjacency.kind == "linf":
        cands = itertools.product(*(nb[a][idx[a]] for a in range(len(names))))
    else:
        cands = (idx[:a] + (j,) + idx[a + 1:] for a in range(len(names)) for j in nb[a][idx[a]])
    best = min((c for c in cands if c != idx), key=lambda c: A[c], default=None)   # the first smallest
    def env(at):
        return {n: unit.grid[n][i] for n, i in zip(names, at)}
    return env(idx), env(best), A[best]


def filter_pairs(unit: "Unit") -> int:
    """How many pairs the point filter counts as checked for `unit`: one per grid point (each is
    compared with its smallest neighbouring probability)."""
    return math.prod(len(unit.grid[n]) for n in unit.inputs)


def point_filter_check(claim, unit: "Unit", checker):
    """(pairs, obligations, the failure or None) for a claim at eps = ln r: a failure is (u, w, [the
    output], eps), the arguments of `check.counterexample` after the unit."""
    arrays = point_arrays(claim, unit)
    E, d = checker.E_at, checker.delta_at
    n = filter_pairs(unit) if arrays else 0
    for k, A, idx, m in _points(claim, unit, arrays):
        if A[idx] > E * m + d:
            u, w, at_w = _smallest_neighbour(claim, unit, A, idx)
            if A[idx] > E * at_w + d:
                return n, n * len(arrays), (u, w, [k], claim.eps.log_of)
    return n, n * len(arrays), None


def point_filter_loss(claim, unit: "Unit"):
    """(best ratio or None for infinite, u, w, key) over the grid at eps = ln r."""
    best = None
    for k, A, idx, m in _points(claim, unit, point_arrays(claim, unit)):
        if A[idx] == 0:
            continue
        if m == 0:
            return (None, *_smallest_neighbour(claim, unit, A, idx)[:2], k)
        if best is None or A[idx] / m > best[0]:
            best = (A[idx] / m, A, idx, k)
    ratio, A, idx, k = best
    return (ratio, *_smallest_neighbour(claim, unit, A, idx)[:2], k)

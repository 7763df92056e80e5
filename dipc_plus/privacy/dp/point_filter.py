"""A claim at eps = ln r on a grid: "against every neighbour" as a min filter.

Why it exists: at eps = ln r every probability is a rational, so for one output v,
P[u -> v] <= e^budget P[u' -> v] for every neighbour u' of u is the same as the
comparison with the smallest neighbouring probability, a separable min filter over
the grid (numpy arrays of exact rationals).  This checks huge grids quickly; it is
used only with delta = 0, where the claim is a per-output one.
"""
from __future__ import annotations

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
    if not claim.eps.is_log_point or unit.grid is None or not claim.delta_is_zero:
        return False
    if claim.adjacency.kind not in ("linf", "one-position", "hamming"):
        return False
    return math.prod(len(unit.grid[n]) for n in unit.inputs) <= FILTER_LIMIT


def _axis_neighbours(values: list, adjacency) -> list:
    """Per grid value's index, the indices a neighbour may take in this coordinate (itself included)."""
    if adjacency.kind == "hamming":
        return [list(range(len(values)))] * len(values)
    return neighbour_indices(values, adjacency.bound)


def _axis_min(A, axis: int, nbrs: list):
    import numpy as np
    parts = []
    for js in nbrs:
        parts.append(np.minimum.reduce([A.take(j, axis=axis) for j in js]))
    return np.stack(parts, axis=axis)


def point_arrays(claim, unit: "Unit"):
    """(output keys, {key: array of exact probabilities over the grid}, axis names)."""
    import numpy as np
    names = list(unit.inputs)
    shape = tuple(len(unit.grid[n]) for n in names)
    r = claim.eps.log_of
    tables = {}
    keys: list = []
    seen = set()
    for idx in itertools.product(*(range(k) for k in shape)):
        env = {n: unit.grid[n][i] for n, i in zip(names, idx)}
        T = unit.source.at_log(unit.canon(env), r)
        tables[idx] = T
        for k in T:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    arrays = {}
    for k in keys:
        A = np.empty(shape, dtype=object)
        for idx, T in tables.items():
            A[idx] = T.get(k, Fraction(0))
        arrays[k] = A
    return keys, arrays, names


def neighbour_minimum(A, unit: "Unit", names: list, adjacency):
    """M[u] = min over u's neighbours w (u itself included) of A[w]."""
    import numpy as np
    nb = [_axis_neighbours(unit.grid[n], adjacency) for n in names]
    if adjacency.kind == "linf":
        M = A
        for axis in range(len(names)):
            M = _axis_min(M, axis, nb[axis])
        return M
    mins = [_axis_min(A, axis, nb[axis]) for axis in range(len(names))]
    return np.minimum.reduce(mins) if len(mins) > 1 else mins[0]


def _argmin_neighbour(A, idx: tuple, unit: "Unit", names: list, adjacency):
    """A neighbour index of idx with the smallest A (brute force around one point)."""
    nb = [_axis_neighbours(unit.grid[n], adjacency) for n in names]
    best = None
    if adjacency.kind == "linf":
        cands = itertools.product(*(nb[a][idx[a]] for a in range(len(names))))
    else:
        cands = (idx[:a] + (j,) + idx[a + 1:] for a in range(len(names)) for j in nb[a][idx[a]])
    for c in cands:
        if c == idx:
            continue
        if best is None or A[c] < A[best]:
            best = c
    return best


def _env_at(unit: "Unit", names: list, idx: tuple) -> dict:
    return {n: unit.grid[n][i] for n, i in zip(names, idx)}


def filter_pairs(unit: "Unit") -> int:
    """How many pairs the point filter counts as checked for `unit`: one per grid point (each is
    compared with its smallest neighbouring probability)."""
    return math.prod(len(unit.grid[n]) for n in unit.inputs)


def point_filter_check(claim, unit: "Unit", checker):
    """(pairs, obligations, failing (u, w, v) or None) for a claim at eps = ln r."""
    import numpy as np
    keys, arrays, names = point_arrays(claim, unit)
    E, d = checker.E_at, checker.delta_at
    n = filter_pairs(unit) if arrays else 0
    for k in keys:
        A = arrays[k]
        M = neighbour_minimum(A, unit, names, claim.adjacency)
        for idx in np.ndindex(A.shape):
            if A[idx] > E * M[idx] + d:
                w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
                if A[idx] > E * A[w] + d:
                    return n, n * len(keys), (_env_at(unit, names, idx), _env_at(unit, names, w), k)
    return n, n * len(keys), None


def point_filter_loss(claim, unit: "Unit"):
    """(best ratio or None for infinite, u, w, key) over the grid at eps = ln r."""
    import numpy as np
    keys, arrays, names = point_arrays(claim, unit)
    best = None
    for k in keys:
        A = arrays[k]
        M = neighbour_minimum(A, unit, names, claim.adjacency)
        for idx in np.ndindex(A.shape):
            a = A[idx]
            if a == 0:
                continue
            m = M[idx]
            if m == 0:
                w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
                return None, _env_at(unit, names, idx), _env_at(unit, names, w), k
            ratio = a / m
            if best is None or ratio > best[0]:
                best = (ratio, idx, k)
    ratio, idx, k = best
    A = arrays[k]
    w = _argmin_neighbour(A, idx, unit, names, claim.adjacency)
    return ratio, _env_at(unit, names, idx), _env_at(unit, names, w), k

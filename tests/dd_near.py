"""A disagreeing input near an infimum dd(u) that is not attained, found by the tests themselves:
the corners of a small cube around the closure point the package returns, each run through det.
The package computes dd's value and attainment only; this checks that the infimum is approached."""
from __future__ import annotations

import itertools
from fractions import Fraction

from dipc_plus.claims.dd_result import outputs_equal

TOLERANCE = Fraction(1, 1000)


def near_disagreeing(det, u, found, distance, det_u, tolerance=TOLERANCE) -> dict | None:
    """An input w with found.value < d(u, w) <= found.value + tolerance and det(w) != det_u,
    among the closure point moved by 0 or +-tolerance/2 in each real coordinate; None if none is."""
    step = tolerance / 2
    reals = [k for k, v in found.witness.items() if not isinstance(v, (bool, str))]
    for moves in itertools.product((0, step, -step), repeat=len(reals)):
        w = dict(found.witness)
        w.update({k: Fraction(w[k]) + m for k, m in zip(reals, moves)})
        if found.value < distance.between(u, w) <= found.value + tolerance and not outputs_equal(det(w), det_u):
            return w
    return None

"""Certified enclosures on sub-boxes, shared by the branch-and-bound provers of accuracy and privacy.

Why: `accuracy.region_bnb` and `privacy.dp.pair_bnb` both enclose sums of terms
c eps^n q^a e^(eps g(q)) (g linear) over a sub-box of inputs times an eps interval or a tail
eps >= T; the exact ranges of linear forms, the factor eps^n e^(eps g) on a tail and the cheap
"may this cell meet the sub-box" test live here once (`accuracy` and `privacy` never import each
other).
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb

from dipc_plus.decision.certified import hull, q_ball, upper_bound


def linear_range(coeffs, const, box: list) -> tuple[Fraction, Fraction]:
    """The exact (min, max) of sum coeffs_i x_i + const over the box [(lo_i, hi_i)].

    >>> linear_range([2, -1], 1, [(0, 1), (0, 3)])     # 2x - y + 1 on [0, 1] x [0, 3]
    (Fraction(-2, 1), Fraction(3, 1))
    """
    lo = hi = Fraction(const)
    for a, (a0, a1) in zip(coeffs, box):
        a = Fraction(a)
        lo, hi = lo + min(a * a0, a * a1), hi + max(a * a0, a * a1)
    return lo, hi


def power_range(a: Fraction, b: Fraction, k: int) -> tuple[Fraction, Fraction]:
    """The exact range of x^k over [a, b].

    >>> power_range(Fraction(-1), Fraction(2), 2), power_range(Fraction(-2), Fraction(1), 3)
    ((Fraction(0, 1), Fraction(4, 1)), (Fraction(-8, 1), Fraction(1, 1)))
    """
    lo, hi = sorted((a ** k, b ** k))
    if k % 2 == 0 and a <= 0 <= b:
        lo = Fraction(0)
    return lo, hi


def tail_factor(n: int, g_lo: Fraction, g_hi: Fraction, start: Fraction) -> arb | None:
    """An enclosure of eps^n e^(eps g) for every eps >= start > 0 and g in [g_lo, g_hi] (n may be
    negative), or None when it is unbounded there (no decay).

    >>> f = tail_factor(1, Fraction(-2), Fraction(-1), Fraction(2))   # eps e^(-eps) <= 2/e^2 on eps >= 2
    >>> f.lower() <= 0 and f.upper() >= 0.2706, tail_factor(0, Fraction(0), Fraction(1), Fraction(1))
    (True, None)
    """
    if g_lo == g_hi == 0:
        if n == 0:
            return arb(1)
        return hull(Fraction(0), Fraction(start) ** n) if n < 0 else None
    if g_hi >= 0:
        return None
    return hull(Fraction(0), upper_bound(tail_top(n, g_hi, start)))


def tail_top(n: int, g: Fraction, start: Fraction) -> arb | None:
    """A ball holding the largest value of eps^n e^(eps g) over eps >= start > 0 (at the current
    precision), or None when it does not decay (g > 0, or g = 0 with n > 0): the one tail rule.

    eps e^(-eps) peaks at eps = 1 (1/e = 0.36788), so from 1/2 on its top is 1/e, from 2 on 2/e^2 = 0.27067:

    >>> 0.36787 < tail_top(1, Fraction(-1), Fraction(1, 2)) < 0.36788, 0.27067 < tail_top(1, Fraction(-1), Fraction(2)) < 0.27068
    (True, True)
    """
    if g > 0 or (g == 0 and n > 0):
        return None
    at = q_ball(max(Fraction(n) / -g, Fraction(start)) if n > 0 else Fraction(start))
    return at ** n * (q_ball(g) * at).exp()


def interval_times(x: tuple, y: tuple) -> tuple[Fraction, Fraction]:
    """The exact product of two rational intervals.

    >>> interval_times((Fraction(-1), Fraction(2)), (Fraction(3), Fraction(4)))
    (Fraction(-4, 1), Fraction(8, 1))
    """
    ends = [a * b for a in x for b in y]
    return min(ends), max(ends)


def reader_images(readers: list, Z: list) -> list:
    """The exact ranges over the box Z of every row of every linear image x of z (`readers[r]`: rows over z).

    >>> reader_images([[(1, 1)]], [(0, 1), (2, 3)])      # z1 + z2 on [0, 1] x [2, 3]
    [[(Fraction(2, 1), Fraction(4, 1))]]
    """
    return [[linear_range(row, 0, Z) for row in rows] for rows in readers]


def cell_may_meet(cell, box: list) -> bool:
    """False only when no point of the box satisfies the cell's constraints h.(q, 1) op 0 (a cheap
    exact test on each constraint alone).

    >>> from types import SimpleNamespace as Cell
    >>> cell_may_meet(Cell(constraints=[((1, -2), "<=")]), [(0, 1)]), cell_may_meet(Cell(constraints=[((1, -2), "==")]), [(3, 4)])
    (True, False)
    """
    for h, op in cell.constraints:
        lo, hi = linear_range(h[:-1], h[-1], box)
        if (op == "<=" and lo > 0) or (op == "<" and lo >= 0) or (op == "==" and (lo > 0 or hi < 0)):
            return False
    return True

"""G/eps near eps = 0 as an exact series in eps with polynomial coefficients, plus a certified remainder.

Why: near eps = 0 a privacy difference G = sum c eps^n x^a e^(eps g(z)) vanishes with every input
(at eps = 0 no input matters), so G/eps is what must stay >= 0, and its terms cancel to first
order: enclosing them one by one (or their derivatives) leaves a gap that only exponentially many
sub-boxes close.  Expanding e^(eps g) = sum_k (eps g)^k / k! makes the cancellation exact: the
coefficient C_j(z) of eps^j is a polynomial in z computed in rationals (`series`), so
G/eps = C_0/eps + C_1(z) + eps C_2(z) + ... + R, where C_0 is a constant (the eps-free terms read no
input) and R is bounded by Lagrange's remainder of each term (`SeriesForm.lower`).

z is the branch-and-bound's coordinates; x, the point a monomial reads, is a linear image of z
(`readers`, as in `decision.mean_value`).  Polynomials are dicts {exponent tuple: Fraction}.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from dipc_plus.decision.box_enclosure import interval_times, linear_range, power_range, q_ball, reader_images
from dipc_plus.decision.certified import upper_bound
from dipc_plus.exact.param_poly import poly_mul

ORDER = 6      # the series is kept up to eps^ORDER in G (eps^(ORDER - 1) in G/eps)


def affine_poly(coeffs, const, m: int) -> dict:
    """sum coeffs_i z_i + const as a polynomial in m variables.

    >>> affine_poly([2, 0], 1, 2)
    {(0, 0): Fraction(1, 1), (1, 0): Fraction(2, 1)}
    """
    out = {(0,) * m: Fraction(const)} if const else {}
    for i, a in enumerate(coeffs):
        if a:
            out[tuple(int(j == i) for j in range(m))] = Fraction(a)
    return out


def poly_range(poly: dict, Z: list) -> tuple[Fraction, Fraction]:
    """An exact rational interval holding the polynomial over the box Z (monomial by monomial).

    >>> poly_range({(2,): Fraction(1), (0,): Fraction(-1)}, [(Fraction(-1), Fraction(2))])   # z^2 - 1 on [-1, 2]
    (Fraction(-1, 1), Fraction(3, 1))
    """
    lo = hi = Fraction(0)
    for e, c in poly.items():
        term = (c, c)
        for (a, b), k in zip(Z, e):
            if k:
                term = interval_times(term, power_range(a, b, k))
        lo, hi = lo + term[0], hi + term[1]
    return lo, hi


class SeriesForm:
    """The exact series of sum c eps^n x^a e^(eps g(z)) (terms (c, n, powers, reader, (coeffs, const))).

    G = e^(eps z) - 1 on z in [1, 2]: G/eps = z + eps z^2/2 + ..., so C_0 = 0 and C_1 = z, and
    G/eps >= 1 there for eps in (0, 1/10]:

    >>> S = SeriesForm([(Fraction(1), 0, (), 0, ([1], 0)), (Fraction(-1), 0, (), 0, ([0], 0))], 1, [[]])
    >>> S.constant, S.coefficients[1]
    (Fraction(0, 1), {(1,): Fraction(1, 1)})
    >>> 0 < S.lower([(Fraction(1), Fraction(2))], Fraction(1, 10)) <= 1
    True
    """

    def __init__(self, terms: list, m: int, readers: list):
        self.terms, self.m, self.readers = terms, m, readers
        self.coefficients = [dict() for _ in range(ORDER + 1)]
        one = {(0,) * m: Fraction(1)}
        for c, n, powers, reader, (g, g0) in terms:
            if n > ORDER:
                continue
            mono = one
            for row, k in zip(readers[reader], powers):
                for _ in range(k):
                    mono = poly_mul(mono, affine_poly(row, 0, m))
            gp, power = affine_poly(g, g0, m), mono
            for k in range(ORDER - n + 1):
                target = self.coefficients[n + k]
                for e, v in power.items():
                    target[e] = target.get(e, Fraction(0)) + c * v / math.factorial(k)
                power = poly_mul(power, gp)
        self.coefficients = [{e: v for e, v in C.items() if v} for C in self.coefficients]

    @property
    def constant(self) -> Fraction | None:
        """C_0 when it is a constant (it is: the eps-free terms read no input), else None."""
        C0 = self.coefficients[0]
        if any(any(e) for e in C0):
            return None
        return sum(C0.values(), Fraction(0))

    def lower(self, Z: list, e1: Fraction) -> Fraction | None:
        """A rational below G/eps on Z x (0, e1]; None when C_0 < 0 (G/eps unbounded below)."""
        s0 = self.constant
        if s0 is None or s0 < 0:
            return None
        low = s0 / e1 + poly_range(self.coefficients[1], Z)[0]
        for j in range(2, ORDER + 1):
            c_lo = poly_range(self.coefficients[j], Z)[0]
            if c_lo < 0:
                low += c_lo * e1 ** (j - 1)
        return low - self.remainder(Z, e1)

    def remainder(self, Z: list, e1: Fraction) -> Fraction:
        """Above |G - series|/eps on Z x (0, e1]: each term's Lagrange remainder
        |c x^a| eps^(n-1) |eps g|^(K+1)/(K+1)! e^(max(0, eps g)), K = ORDER - n (the whole term when n > ORDER)."""
        total = arb(0)
        images = reader_images(self.readers, Z)
        for c, n, powers, reader, (g, g0) in self.terms:
            size = abs(c)
            for (a, b), k in zip(images[reader], powers):
                size *= max(abs(a), abs(b)) ** k
            g_lo, g_hi = linear_range(g, g0, Z)
            grow = q_ball(max(Fraction(0), e1 * g_hi)).exp()
            if n > ORDER:
                total += q_ball(size * e1 ** (n - 1)) * grow
                continue
            K = ORDER - n
            gm = max(abs(g_lo), abs(g_hi))
            total += q_ball(size * e1 ** (n - 1 + K + 1) * gm ** (K + 1) / math.factorial(K + 1)) * grow
        return upper_bound(total)

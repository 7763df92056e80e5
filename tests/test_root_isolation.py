"""The exact isolation of the positive zeros of an irreducible polynomial (`decision.roots`).

Why: every sentence `decide` answers rests on it; the isolation moved from a Sturm chain over Q
(seconds at degree 110, minutes above, inside one C call) to arb's certified complex root
isolation.  Each interval is checked here against mpmath's roots (an independent route) and by
the exact sign change at its ends, including the polynomial of degree 110 seed 74 of the box
privacy generator met, and a zero closer to 0 than a ball's radius may be.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from flint import fmpq_poly

from dipc_plus.decision.roots import zeros_in
from dipc_plus.decision.decide import decide
from dipc_plus.decision.certified import Interval
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.expoly import ExpPoly

# t^110 coefficients of the factor met in the generator's seed 74 (144 t^110 - 45 t^88 - 24 t^75 - 96 t^66 + 15 t^60 + 20)
SEED_74 = {0: 20, 60: 15, 66: -96, 75: -24, 88: -45, 110: 144}


def poly(coeffs: dict) -> fmpq_poly:
    return fmpq_poly([coeffs.get(i, 0) for i in range(max(coeffs) + 1)])


def positive_real_roots(p: fmpq_poly) -> list:
    """mpmath's roots of p (50 digits), the real positive ones."""
    cs = [int(c) for c in reversed(p.numer().coeffs())]
    with mpmath.workdps(50):
        roots = mpmath.polyroots(cs, maxsteps=400, extraprec=400)
        return sorted(r.real for r in roots if abs(r.imag) < mpmath.mpf(10) ** -30 and r.real > 0)


CASES = [
    {0: -2, 2: 1},                          # sqrt 2
    {0: 1, 1: -10, 3: 1},                   # three real zeros, two positive
    {0: -3, 5: 1},                          # one positive zero, four complex
    {0: 1, 1: 1, 2: 1},                     # no real zero
    {0: -2, 2: 10 ** 40},                   # a zero at 1.4e-20
    {0: 2, 1: -10 ** 30, 2: 1},             # a zero at 2e-30 beside one at 1e30
    SEED_74,
]


@pytest.mark.parametrize("coeffs", CASES)
def test_each_interval_holds_exactly_the_zero_mpmath_finds(coeffs):
    p = poly(coeffs)
    assert len(p.factor()[1]) == 1, "the cases are irreducible"
    h = sum((ExpPoly.eps(i) * F(c) for i, c in coeffs.items()), ExpPoly.ZERO)    # p(eps)
    intervals = [(r.lo, r.hi) for r in zeros_in(h, 1, Interval())]
    expected = positive_real_roots(p)
    assert len(intervals) == len(expected)
    for (a, b), root in zip(intervals, expected):
        assert 0 <= a < b
        pa, pb = p(to_fmpq(a)), p(to_fmpq(b))
        assert pa != 0 and pb != 0 and (pa > 0) != (pb > 0)
        with mpmath.workdps(50):   # the ends at the roots' own precision (the global dps depends on test order)
            assert mpmath.mpf(a.numerator) / a.denominator <= root <= mpmath.mpf(b.numerator) / b.denominator
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(intervals, intervals[1:]))


def test_a_sentence_of_degree_110_in_t_is_decided():
    """h = 144 t^110 - 45 t^88 - 24 t^75 - 96 t^66 + 15 t^60 + 20 with t = e^(eps/110): h(0) = 14 and
    h' > 0 for t >= 1 (mpmath on a grid: about 4644 at t = 1, growing), so h > 14 on (0, inf) holds
    while h >= 15 fails near eps = 0; its zeros at t < 1 lie outside the interval."""
    h = sum((ExpPoly.exp(F(i, 110), F(c)) for i, c in SEED_74.items()), ExpPoly.ZERO)
    assert decide(h - 14, ">", Interval()).holds
    assert not decide(h - 15, ">=", Interval()).holds

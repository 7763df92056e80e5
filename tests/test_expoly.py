"""The exact value layer: ring laws, canonical quotients, certified evaluation.

Values are checked against an independent evaluation with mpmath at 50 digits,
never against numbers copied from the implementation.
"""
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from dipc_plus.exact.expoly import ExpFrac, ExpPoly

mpmath.mp.dps = 50

small = st.fractions(min_value=-3, max_value=3, max_denominator=4)
monomial = st.tuples(small, st.integers(0, 2), small)  # (coeff, eps power, exponent)
exppolys = st.lists(monomial, min_size=0, max_size=4).map(
    lambda ms: sum((ExpPoly.monomial(c, k, q) for c, k, q in ms), ExpPoly.ZERO))
positive_eps = st.fractions(min_value=F(1, 20), max_value=4, max_denominator=20)


def mp_value(f: ExpPoly, eps) -> mpmath.mpf:
    """Independent evaluation from the monomial list with mpmath."""
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.fsum(mpmath.mpf(c.numerator) / c.denominator * e ** k
                       * mpmath.exp(mpmath.mpf(q.numerator) / q.denominator * e)
                       for c, k, q in f.monomials())


def contains(ball, x: mpmath.mpf) -> bool:
    mid, rad = mpmath.mpf(ball.mid().str(60, radius=False)), mpmath.mpf(ball.rad().str(5, radius=False))
    return abs(mid - x) <= rad + mpmath.mpf(10) ** -40 * max(1, abs(x))


@settings(max_examples=150, deadline=None)
@given(exppolys, exppolys, exppolys)
def test_ring_laws(a, b, c):
    assert a + b == b + a
    assert a * b == b * a
    assert (a + b) * c == a * c + b * c
    assert (a * b) * c == a * (b * c)
    assert a - a == ExpPoly.ZERO
    assert (a + b) - b == a


@settings(max_examples=100, deadline=None)
@given(exppolys, exppolys, positive_eps)
def test_product_value_matches_independent_evaluation(a, b, eps):
    prod = a * b
    assert mpmath.almosteq(mp_value(prod, eps), mp_value(a, eps) * mp_value(b, eps), 1e-40, 1e-40)
    assert contains(prod.arb_value(eps, prec=200), mp_value(a, eps) * mp_value(b, eps))


@settings(max_examples=60, deadline=None)
@given(exppolys, exppolys, exppolys)
def test_quotients_are_canonical(a, b, c):
    if b.is_zero() or c.is_zero():
        return
    assert ExpFrac(a * c, b * c) == ExpFrac(a, b)
    assert ExpFrac(a, b) * ExpFrac(b, c) == ExpFrac(a, c) if not a.is_zero() else True
    assert ExpFrac(a, b) + ExpFrac(c, b) == ExpFrac(a + c, b)
    assert hash(ExpFrac(a * c, b * c)) == hash(ExpFrac(a, b))


@settings(max_examples=60, deadline=None)
@given(exppolys, exppolys, positive_eps)
def test_quotient_ball_contains_true_value(a, b, eps):
    if b.is_zero():
        return
    den = mp_value(b, eps)
    if abs(den) < mpmath.mpf(10) ** -20:
        return
    ball = ExpFrac(a, b).arb_value(eps, prec=300)
    assert contains(ball, mp_value(a, eps) / den)


def test_known_cancellations():
    t = ExpPoly.exp(1)
    # (e^{2 eps} - 1) / (e^{eps} - 1) = e^{eps} + 1
    assert ExpFrac(ExpPoly.exp(2) - 1, t - 1) == t + 1
    # (e^{eps} - 1) / (e^{eps/2} - 1) = e^{eps/2} + 1: needs t = e^{eps/2}
    assert ExpFrac(t - 1, ExpPoly.exp(F(1, 2)) - 1) == ExpPoly.exp(F(1, 2)) + 1
    # probabilities of a two-point distribution add to exactly 1
    den = 1 + t
    assert ExpFrac(1, den) + ExpFrac(t, den) == 1
    # an exponential factor is a unit: e^{-eps} eps / (3 e^{-eps} + 6 e^{-2 eps}) = eps e^{eps} / (3 e^{eps} + 6)
    lhs = ExpFrac(ExpPoly.eps() * ExpPoly.exp(-1), 3 * ExpPoly.exp(-1) + 6 * ExpPoly.exp(-2))
    rhs = ExpFrac(ExpPoly.eps() * ExpPoly.exp(1), 3 * ExpPoly.exp(1) + 6)
    assert lhs == rhs


def test_derivative_matches_numerical_derivative():
    f = ExpPoly.monomial(F(1, 4), 2, F(-1, 3)) + ExpPoly.exp(2, F(-1, 2)) + 1
    for eps in (F(1, 3), F(1), F(5, 2)):
        numeric = mpmath.diff(lambda e: sum(mpmath.mpf(c.numerator) / c.denominator * e ** k *
                                  mpmath.exp(mpmath.mpf(q.numerator) / q.denominator * e)
                                  for c, k, q in f.monomials()),
                              mpmath.mpf(eps.numerator) / eps.denominator)
        assert mpmath.almosteq(mp_value(f.derivative(), eps), numeric, 1e-30)


def test_text_and_sympy_agree():
    import sympy
    f = 1 - F(1, 2) * ExpPoly.exp(-1) + F(1, 4) * ExpPoly.eps() * ExpPoly.exp(-1)
    assert str(f) == "1 - 1/2*e^(-eps) + 1/4*eps*e^(-eps)"
    eps = sympy.Symbol("epsilon", positive=True)
    expected = 1 - sympy.exp(-eps) / 2 + eps * sympy.exp(-eps) / 4
    assert sympy.simplify(f.to_sympy() - expected) == 0


def test_zero_denominator_is_rejected():
    with pytest.raises(ZeroDivisionError):
        ExpFrac(ExpPoly.ONE, ExpPoly.ZERO)


def test_mpoly_round_trip():
    f = ExpPoly.monomial(3, 1, F(-2, 3)) + ExpPoly.exp(F(1, 2), 5) + 7
    L = f.denominator_lcm()
    F_, s = f.to_mpoly(L)
    assert ExpPoly.from_mpoly(F_, L, s) == f

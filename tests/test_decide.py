"""The certified decision procedure: sentences whose answers are known independently.

Every refutation's witness is re-checked twice: with `recheck` (exact zero test + arb)
and with mpmath at 50 digits from the monomial list.  Zeros are compared with values
computed independently (closed forms, mpmath root finding), never with numbers copied
from the implementation.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from dipc_plus.decision.certified import Interval, IntervalError, UndefinedError, exact_zero_at, recheck, sign_at
from dipc_plus.decision.decide import analyse, decide, simplest_rational
from dipc_plus.decision.roots import (AlgebraicRoot, LogAlgebraicRoot, RationalRoot, TranscendentalRoot, dominant_term,
                                      taylor_order_at_zero, zero_free_beyond, zero_free_near_zero)
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly

mpmath.mp.dps = 50

EPS = ExpPoly.eps()
T = ExpPoly.exp(1)  # e^eps


def mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def mp_poly(f: ExpPoly, x) -> mpmath.mpf:
    x = mp(x) if isinstance(x, F) else mpmath.mpf(x)
    return mpmath.fsum(mp(c) * x ** k * mpmath.exp(mp(q) * x) for c, k, q in f.monomials())


def mp_value(f, x) -> mpmath.mpf:
    if isinstance(f, ExpFrac):
        return mp_poly(f.num, x) / mp_poly(f.den, x)
    return mp_poly(f, x)


def mp_scale(f, x) -> mpmath.mpf:
    """Sum of the monomials' absolute values: the size of the rounding error's reference."""
    num = f.num if isinstance(f, ExpFrac) else f
    x = mp(x)
    return mpmath.fsum(abs(mp(c) * x ** k * mpmath.exp(mp(q) * x)) for c, k, q in num.monomials())


def mp_holds(v, rel: str) -> bool:
    return {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0}[rel]


def assert_refuted(d, f, rel: str):
    """The witness refutes the claim: by recheck, by mpmath, and by the certified ball."""
    assert not d.holds
    w = d.witness
    assert w is not None and d.interval.contains(w)
    assert recheck(f, w, rel) is False
    v = mp_value(f, w)
    ball = d.witness_value
    if ball.is_exact() and ball.is_zero():
        assert abs(v) < mpmath.mpf(10) ** -40 * mp_scale(f, w) and rel in (">", "<")
    else:
        assert not mp_holds(v, rel)
        assert ball_contains(ball, v)
        assert (", < 0" if v < 0 else ", > 0") in d.explanation


def ball_contains(ball, x: mpmath.mpf) -> bool:
    mid = mpmath.mpf(ball.mid().str(60, radius=False))
    rad = mpmath.mpf(ball.rad().str(5, radius=False))
    return abs(mid - x) <= rad + mpmath.mpf(10) ** -40 * max(1, abs(x))


def assert_encloses(root, value: mpmath.mpf):
    assert mp(root.lo) <= value <= mp(root.hi), (root.describe(), value)


def brute_force_simplest(pred, max_den: int = 60, max_num: int = 400):
    """Least denominator, then numerator, by exhaustive search (independent of Stern-Brocot)."""
    for d in range(1, max_den + 1):
        for n in range(1, max_num + 1):
            if pred(F(n, d)):
                return F(n, d)
    return None


# ---------------------------------------------------------------------------------------
# intervals and relations
# ---------------------------------------------------------------------------------------

def test_interval_parse_and_print():
    assert Interval.parse("(0, inf)") == Interval()
    assert Interval.parse("[1/10, 5]") == Interval(F(1, 10), F(5), True, True)
    assert Interval.parse(" (0.5,2] ") == Interval(F(1, 2), F(2), False, True)
    assert str(Interval.parse("[1/10, 5)")) == "[1/10, 5)"
    assert str(Interval()) == "(0, inf)"
    assert Interval.parse("[3, 3]").is_point()
    for bad in ["[0, 1]", "(1, inf]", "(2, 1)", "(1, 1)", "1, 2", "(a, 2)", "(-1, 2)", "(inf, 2)"]:
        with pytest.raises(IntervalError) as info:
            Interval.parse(bad)
        assert isinstance(info.value, UserError) and isinstance(info.value, ValueError)


def test_unknown_relation_is_rejected():
    with pytest.raises(ValueError):
        decide(EPS, "==")


# ---------------------------------------------------------------------------------------
# double zeros, tangencies, strict claims at irrational points
# ---------------------------------------------------------------------------------------

def test_double_zero_of_a_pure_t_factor():
    f = (T - 2) ** 2
    d = decide(f, ">=")
    assert d.holds and d.witness is None
    [r] = d.roots
    assert isinstance(r, LogAlgebraicRoot) and r.multiplicity == 2 and r.short() == "ln(2)"
    assert_encloses(r, mpmath.log(2))
    assert [reg.sign for reg in d.sign_regions] == [1, 0, 1]
    # the strict claim fails only at the irrational eps = ln 2: no rational witness exists
    d = decide(f, ">")
    assert not d.holds and d.witness is None and d.witness_value is None
    assert d.failure.is_point and d.failure.root.short() == "ln(2)"
    assert_encloses(d.failure.root, mpmath.log(2))
    r.refine_to(F(1, 10 ** 30))
    assert r.hi - r.lo <= F(1, 10 ** 30)
    assert_encloses(r, mpmath.log(2))
    assert "irrational" in d.explanation
    # away from ln 2 the strict claim holds
    assert decide(f, ">", "[1, 2]").holds
    assert decide(f, ">", "(0, 1/2]").holds


def test_tangency_at_a_rational_point():
    f = (EPS - 1) ** 2 * T
    assert decide(f, ">=").holds
    d = decide(f, ">")
    assert_refuted(d, f, ">")
    assert d.witness == 1 and d.witness_value.is_zero() and d.witness_value.is_exact()
    assert isinstance(d.roots[0], RationalRoot) and d.roots[0].multiplicity == 2
    assert decide(f, ">", "(1, 2]").holds
    d = decide(f, ">", "[1, 2]")
    assert_refuted(d, f, ">")
    assert d.witness == 1


def test_tangency_at_an_algebraic_point():
    f = (EPS ** 2 - 2) ** 2 * ExpPoly.exp(F(-1, 2))
    assert decide(f, ">=").holds
    d = decide(f, ">")
    assert not d.holds and d.witness is None
    root = d.failure.root
    assert isinstance(root, AlgebraicRoot) and root.short() == "sqrt(2)"
    assert_encloses(root, mpmath.sqrt(2))
    d = decide(EPS ** 2 - 2, ">=")
    assert_refuted(d, EPS ** 2 - 2, ">=")
    assert d.witness == 1


def test_double_zeros_of_a_mixed_factor():
    g = T - 3 * EPS
    d = decide(g ** 2, ">=")
    assert d.holds and len(d.roots) == 2
    assert all(isinstance(r, TranscendentalRoot) and r.multiplicity == 2 for r in d.roots)
    d = decide(g ** 2, ">")
    assert not d.holds and d.witness is None and len(d.failing_regions) == 2
    assert decide(g ** 3, ">=").witness == 1


def test_zeros_at_logarithms_of_irrational_algebraic_numbers():
    f = ExpPoly.exp(3) - T - 1  # t^3 - t - 1 with t = e^eps: t0 is the plastic number
    plastic = mpmath.findroot(lambda t: t ** 3 - t - 1, 1.3)
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    [r] = d.roots
    assert isinstance(r, LogAlgebraicRoot) and r.t.exact is None
    assert_encloses(r, mpmath.log(plastic))
    assert d.witness == F(1, 4)  # ln(plastic) = 0.2812...
    g = ExpPoly.exp(F(2, 3)) - 3  # zero at (3/2) ln 3
    [r] = analyse(g, "(1, 2)").roots
    assert_encloses(r, mpmath.log(3) * 3 / 2)
    assert analyse(g, "(1, 8/5]").roots == [] and decide(g, "<", "(1, 8/5]").holds


# ---------------------------------------------------------------------------------------
# sign changes near 0, near infinity, several mixed zeros
# ---------------------------------------------------------------------------------------

def test_sign_change_at_zero_from_taylor_coefficients():
    f = T - 1 - EPS - EPS ** 2  # = -eps^2/2 + O(eps^3) near 0, +inf at inf
    k, c, _ = taylor_order_at_zero(f)
    assert (k, c) == (2, -1)  # f''(0) = 1 - 2
    delta = zero_free_near_zero(f)
    for j in range(1, 30):
        assert mp_poly(f, delta * F(j, 30)) < 0
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    assert d.witness == 1 and d.sign_regions[0].sign == -1
    [r] = d.roots
    assert_encloses(r, mpmath.findroot(lambda x: mpmath.exp(x) - 1 - x - x * x, 1.8))
    d = decide(f, ">=", "(0, 1/100)")
    assert_refuted(d, f, ">=")
    assert d.witness == F(1, 101)
    assert decide(f, ">", "[2, inf)").holds
    # a zero close to 0: e^eps - 1 - 2 eps + 4 eps^2 = -eps + 9/2 eps^2 + ... has one near 0.2
    g = T - 1 - 2 * EPS + 4 * EPS ** 2
    z = mpmath.findroot(lambda x: mpmath.exp(x) - 1 - 2 * x + 4 * x * x, 0.2)
    d = decide(g, ">=")
    assert_refuted(d, g, ">=")
    [r] = d.roots
    assert_encloses(r, z)
    assert d.witness == F(1, 5) and [reg.sign for reg in d.sign_regions] == [-1, 0, 1]


def test_sign_change_at_infinity():
    f = ExpPoly.exp(-1) - F(1, 1000)
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    assert d.witness == 7  # ln 1000 = 6.9...
    assert d.roots[0].short() == "ln(1000)"
    assert_encloses(d.roots[0], mpmath.log(1000))
    assert decide(f, ">", "(0, 69/10]").holds
    assert not decide(f, ">", "(0, 7]").holds

    g = 1 - EPS * T  # 1 at 0+, -inf at inf; zero at W(1)
    d = decide(g, ">=")
    assert_refuted(d, g, ">=")
    assert d.witness == 1
    assert_encloses(d.roots[0], mpmath.lambertw(1).real)


def test_bound_beyond_which_the_dominant_term_decides():
    h = EPS ** 5 * ExpPoly.exp(F(1, 7)) - 1000 * ExpPoly.exp(F(-3, 5)) + EPS - 17
    c, d, q = dominant_term(h)
    assert (c, d, q) == (1, 5, F(1, 7))
    B = zero_free_beyond(h)
    for x in [B, B + F(1, 3), 2 * B, 10 * B, 100 * B]:
        assert mp_poly(h, x) > 0


def test_mixed_factor_with_two_zeros():
    f = T - 3 * EPS
    z1 = mpmath.findroot(lambda x: mpmath.exp(x) - 3 * x, 0.6)
    z2 = mpmath.findroot(lambda x: mpmath.exp(x) - 3 * x, 1.5)
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    assert d.witness == 1
    assert [reg.sign for reg in d.sign_regions] == [1, 0, -1, 0, 1]
    for r, z in zip(d.roots, (z1, z2)):
        assert isinstance(r, TranscendentalRoot)
        assert_encloses(r, z)
        r.refine_to(F(1, 10 ** 20))
        assert_encloses(r, z)
        assert mp_poly(f, r.lo) * mp_poly(f, r.hi) < 0
    d = decide(f, "<=")
    assert_refuted(d, f, "<=")
    assert d.witness == 2  # f > 0 beyond 1.512..., and 2 is simpler than 1/2
    d = decide(f, "<=", "(0, 1]")
    assert_refuted(d, f, "<=")
    assert d.witness == F(1, 2)
    assert decide(f, "<=", "[7/10, 3/2]").holds
    assert decide(f, "<", "[7/10, 3/2]").holds
    assert not decide(f, "<", "[7/10, 2]").holds
    assert len(analyse(f, "[1, inf)").roots) == 1


def test_nearly_tangent_mixed_zeros_are_separated():
    f = T - F(27183, 10000) * EPS  # two zeros about 0.007 apart around eps = 1
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    a, b = d.roots
    for r, guess in ((a, 0.99), (b, 1.01)):
        assert_encloses(r, mpmath.findroot(lambda x: mpmath.exp(x) - mpmath.mpf(27183) / 10000 * x, guess))
    assert decide(T - F(27182, 10000) * EPS, ">").holds  # 2.7182 < e: never touches


# ---------------------------------------------------------------------------------------
# quotients and finite intervals
# ---------------------------------------------------------------------------------------

def test_quotients():
    f = (T - 2) / (T + 1)
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    assert d.witness == F(1, 2)
    assert decide(f, ">=", "[1, inf)").holds
    g = 1 / (1 - T)  # negative denominator on eps > 0
    d = decide(g, ">=", "[1, 2]")
    assert_refuted(d, g, ">=")
    assert d.witness == 1
    assert decide(g, "<", "(0, inf)").holds


def test_denominator_vanishing_inside_the_interval_is_an_error():
    f = ExpFrac(ExpPoly.ONE, T - 2)
    with pytest.raises(UndefinedError) as info:
        decide(f, ">")
    assert isinstance(info.value, ValueError) and "ln(2)" in str(info.value)
    assert decide(f, ">", "[1, 2]").holds
    assert decide(f, "<", "(0, 1/2]").holds
    h = ExpFrac(T, EPS - 1)
    with pytest.raises(ValueError):
        decide(h, ">=", "[1, 2]")
    assert decide(h, ">", "(1, 2]").holds
    with pytest.raises(ValueError):
        sign_at(h, 1)


def test_open_and_closed_finite_ends():
    f = EPS - 1
    assert decide(f, ">=", "[1, 2]").holds
    assert decide(f, ">", "(1, 2]").holds
    d = decide(f, ">", "[1, 2]")
    assert_refuted(d, f, ">")
    assert d.witness == 1 and d.witness_value.is_zero()
    d = decide(f, ">=", "(1/2, 2]")
    assert_refuted(d, f, ">=")
    assert d.witness == F(2, 3)
    d = decide(f, "<", "[1/3, 1]")
    assert_refuted(d, f, "<")
    assert d.witness == 1
    assert decide(f, "<", "[1/3, 1)").holds
    assert decide(f, "<=", "[1, 1]").holds and not decide(f, "<", "[1, 1]").holds
    assert decide(f, ">", "[5/4, 5/4]").holds
    t_end = ExpPoly.exp(F(1, 3)) - F(3, 2)  # zero at 3 ln(3/2) = 1.216...
    d = decide(t_end, "<", "[1, 10]")
    assert_refuted(d, t_end, "<")
    assert d.witness == 2 and d.roots[0].short() == "3*ln(3/2)"
    assert decide(t_end, "<", "[1, 6/5]").holds


def test_zero_function_and_constants():
    assert decide(ExpPoly.ZERO, ">=").holds
    d = decide(ExpPoly.ZERO, ">", "[1/3, 2]")
    assert not d.holds and d.witness == 1 and d.witness_value.is_zero()
    assert decide(ExpPoly.const(F(1, 10 ** 30)), ">").holds
    d = decide(ExpPoly.const(-1), ">=", "(5/2, inf)")
    assert_refuted(d, ExpPoly.const(-1), ">=")
    assert d.witness == 3


# ---------------------------------------------------------------------------------------
# an accuracy claim of the Sparse shape
# ---------------------------------------------------------------------------------------

def test_sparse_like_accuracy_shape():
    """1 - P - beta, beta = 2*m*c*e^(-alpha*eps/(8c)), P a Laplace-style tail."""
    m, c, alpha = 4, 2, 1
    beta = 2 * m * c * ExpPoly.exp(-F(alpha, 8 * c))
    P = F(1, 2) * ExpPoly.exp(F(-1, 4)) * (1 + EPS / 8)
    f = 1 - P - beta
    fm = lambda x: 1 - mpmath.exp(-x / 4) * (1 + x / 8) / 2 - 16 * mpmath.exp(-x / 16)
    z = mpmath.findroot(fm, 44)
    d = decide(f, ">=")
    assert_refuted(d, f, ">=")
    assert d.witness == 1
    [r] = d.roots
    assert_encloses(r, z)
    assert decide(f, ">=", "[45, inf)").holds
    d = decide(f, ">=", "[44, inf)")
    assert_refuted(d, f, ">=")
    assert d.witness == 44
    # the bound as a quotient: (1 - P) / beta >= 1
    q = (1 - P) / beta - 1
    assert decide(q, ">=", "[45, inf)").holds
    assert decide(q, ">=", "[44, inf)").witness == 44


# ---------------------------------------------------------------------------------------
# the independent re-check and the simplest witness
# ---------------------------------------------------------------------------------------

def test_recheck_and_exact_zeros():
    f = (EPS - F(3, 7)) * (T + EPS)
    assert exact_zero_at(f, F(3, 7)) and not exact_zero_at(f, F(3, 8))
    assert sign_at(f, F(3, 7)) == 0
    assert recheck(f, F(3, 7), ">=") and recheck(f, F(3, 7), "<=") and not recheck(f, F(3, 7), ">")
    assert recheck(f, 1, ">") and not recheck(f, F(1, 4), ">=")
    # e^eps - e^(eps/2) * e^(eps/2) cancels exactly
    g = T - ExpPoly.exp(F(1, 2)) * ExpPoly.exp(F(1, 2))
    assert g.is_zero() and sign_at(g, 3) == 0
    # a value far below double precision is still signed correctly
    tiny = ExpPoly.exp(-1) - ExpPoly.exp(F(-10001, 10000))
    assert sign_at(tiny, 20000) == 1
    assert mp_poly(tiny, F(20000)) > 0


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=0, max_value=6, max_denominator=12),
       st.one_of(st.none(), st.fractions(min_value=F(1, 12), max_value=3, max_denominator=12)),
       st.booleans(), st.booleans())
def test_simplest_rational_matches_exhaustive_search(lo, width, lo_closed, hi_closed):
    hi = None if width is None else lo + width
    lo_closed = lo_closed and lo > 0
    inside = Interval(lo, hi, lo_closed, hi_closed and hi is not None).contains
    assert simplest_rational(lo, hi, lo_closed, hi_closed and hi is not None) == brute_force_simplest(inside)


def test_witness_is_the_simplest_failing_rational():
    cases = [(T - 3 * EPS, ">=", "(0, inf)"), ((T - 2) / (T + 1), ">=", "(0, inf)"),
             (ExpPoly.exp(-1) - F(1, 1000), ">=", "(0, inf)"), (EPS ** 3 - 2, ">", "(1/5, 3)"),
             (T - 1 - EPS - EPS ** 2, ">=", "(0, 1/100)"), ((EPS - F(5, 3)) * (T - 3 * EPS), "<=", "[1/2, 4]")]
    for f, rel, I in cases:
        d = decide(f, rel, I)
        assert_refuted(d, f, rel)
        I = Interval.parse(I)
        expected = brute_force_simplest(lambda x: I.contains(x) and not mp_holds(mp_value(f, x), rel),
                                        max_den=d.witness.denominator)
        assert expected == d.witness, (f, rel, I, expected, d.witness)


# ---------------------------------------------------------------------------------------
# random sentences whose answer is known by construction
# ---------------------------------------------------------------------------------------

def _known_product(rng: random.Random):
    """c * prod (eps - r)^m * prod (e^(eps/L) - s)^n [* (e^eps + eps^2 + 1)]: zeros r (rational)
    and L ln s (if > 0), parity from the exponents, all known without expanding."""
    L = rng.choice([1, 2, 3])
    eps_f = [(F(rng.randint(1, 40), rng.randint(1, 8)), rng.randint(1, 3)) for _ in range(rng.randint(0, 3))]
    t_f = [(F(rng.randint(1, 60), rng.randint(1, 6)), rng.randint(1, 3)) for _ in range(rng.randint(0, 3))]
    t_f = [(s, n) for s, n in t_f if s != 1]
    c = F(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 5))
    positive = rng.random() < 0.3
    f = ExpPoly.const(c)
    for r, m in eps_f:
        f = f * (EPS - r) ** m
    for s, n in t_f:
        f = f * (ExpPoly.exp(F(1, L)) - s) ** n
    if positive:
        f = f * (T + EPS ** 2 + 1)

    def sign(x: mpmath.mpf) -> int:
        out = 1 if c > 0 else -1
        for r, m in eps_f:
            out *= int(mpmath.sign(x - mp(r))) ** m
        for s, n in t_f:
            out *= int(mpmath.sign(mpmath.exp(x / L) - mp(s))) ** n
        return out

    zeros: dict = {}
    for r, m in eps_f:
        zeros[("r", r)] = zeros.get(("r", r), 0) + m
    for s, n in t_f:
        zeros[("s", s)] = zeros.get(("s", s), 0) + n
    value = {k: (mp(k[1]) if k[0] == "r" else L * mpmath.log(mp(k[1]))) for k in zeros}
    return f, sign, zeros, value, eps_f


def _random_interval(rng: random.Random, eps_f) -> Interval:
    ends = [F(rng.randint(1, 40), rng.randint(1, 8)) for _ in range(2)] + [r for r, _ in eps_f]
    lo = rng.choice([F(0), F(0)] + ends)
    hi = rng.choice([None] + [e for e in ends if e > lo] or [None])
    lo_closed = lo > 0 and rng.random() < 0.5
    hi_closed = hi is not None and rng.random() < 0.5
    return Interval(lo, hi, lo_closed, hi_closed)


def _in(I: Interval, x: mpmath.mpf, exact: F | None) -> bool:
    if exact is not None:
        return I.contains(exact)
    return x > mp(I.lo) and (I.hi is None or x < mp(I.hi))


@pytest.mark.parametrize("seed", range(40))
def test_random_products_with_known_answers(seed):
    rng = random.Random(1000 + seed)
    f, sign, zeros, value, eps_f = _known_product(rng)
    I = _random_interval(rng, eps_f)
    inside = sorted((value[k], k) for k in zeros
                    if _in(I, value[k], k[1] if k[0] == "r" else None) and value[k] > 0)
    # the truth from the factorisation: signs between consecutive zeros, zeros themselves
    hi_mp = mp(I.hi) if I.hi is not None else (inside[-1][0] if inside else mp(I.lo)) + 10
    cuts = [mp(I.lo)] + [v for v, _ in inside] + [hi_mp]
    piece_signs = [sign((a + b) / 2) for a, b in zip(cuts, cuts[1:]) if a < b]
    if I.is_point():
        piece_signs = [sign(mp(I.lo))]
    for rel in (">=", ">", "<=", "<"):
        expected = all(mp_holds(s, rel) for s in piece_signs) and (rel in (">=", "<=") or not inside)
        d = decide(f, rel, I)
        assert d.holds == expected, (str(f), rel, str(I))
        if not d.holds and d.witness is not None:
            assert_refuted(d, f, rel)
            x = d.witness
            exact_zero = any(x == r for r, _ in eps_f)
            truth = 0 if exact_zero else sign(mp(x))
            assert not mp_holds(truth, rel)
    found = analyse(f, I).roots
    assert len(found) == len(inside)
    for r, (v, k) in zip(found, inside):
        assert_encloses(r, v)
        assert r.multiplicity == zeros[k]
        assert isinstance(r, RationalRoot if k[0] == "r" else LogAlgebraicRoot)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.fractions(min_value=-4, max_value=4, max_denominator=3), st.integers(0, 2),
                          st.fractions(min_value=-2, max_value=2, max_denominator=3)), min_size=1, max_size=4))
def test_random_exponential_polynomials_against_dense_sampling(monos):
    """Any region sign claimed must agree with 50-digit evaluations inside it."""
    f = sum((ExpPoly.monomial(c, k, q) for c, k, q in monos), ExpPoly.ZERO)
    if f.is_zero():
        return
    d = decide(f, ">=", "(0, 30)")
    for reg in d.sign_regions:
        if reg.is_point:
            continue
        a = reg.lo.hi if hasattr(reg.lo, "hi") else reg.lo
        b = reg.hi.lo if hasattr(reg.hi, "lo") else reg.hi
        for j in range(1, 8):
            v = mp_poly(f, a + (b - a) * F(j, 8))
            assert v != 0 and int(mpmath.sign(v)) == reg.sign
    if not d.holds:
        assert mp_poly(f, d.witness) < 0


def test_zero_of_a_sum_of_nearly_cancelling_exponentials():
    """(1 - e^(-eps/8))^8 - 1/256, expanded: binomial terms of size 70 cancel to about 1/256
    near the zero; its one zero is 8 ln 2 (where e^(-eps/8) = 1/2).  The isolation must find
    exactly that one, in an interval that holds it."""
    from math import comb, log
    from dipc_plus.decision.roots import isolate_mixed_zeros
    h = ExpPoly({F(-j, 8): [(-1) ** j * comb(8, j)] for j in range(9)}) - ExpPoly.const(F(1, 256))
    zeros = isolate_mixed_zeros(h, F(1, 10), F(40))
    assert len(zeros) == 1
    lo, hi, sign_at_lo = zeros[0]
    assert lo <= 8 * log(2) <= hi and sign_at_lo == -1


def test_exppoly_pickles_without_its_cached_balls():
    """Worker processes send ExpPolys back after evaluating them; the cached arb balls must
    not travel (arb does not pickle) and the copy must evaluate to the same ball."""
    import pickle
    import dipc_plus.execution.executor  # noqa: F401  (registers how fmpq_poly pickles)
    f = ExpPoly({F(0): [1, 2], F(-1, 2): [1]}) * ExpPoly.const(F(1, 3))
    before = f.arb_value(F(3, 2), 96)
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.arb_value(F(3, 2), 96).overlaps(before)

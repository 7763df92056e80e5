"""The exact Laplace engine: closed forms by hand, numerical integration, Monte Carlo.

Closed forms below are derived in the comments and compared as identities
(ExpPoly ==).  Everything else is checked against an independent floating-point
computation (scipy quad over the Laplace density and CDF, written out here) at
several eps to 1e-9 relative, or against Monte Carlo with a 5-sigma band; the
exact side is evaluated as a certified arb ball.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction as F

import numpy as np
import pytest

from dipc_plus.exact import constraints
from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact import open_regions
from dipc_plus.exact.linear import Atom, LinForm, Noise, atom, negate
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from conftest import lap_cdf, lap_pdf, lap_sf, quad as quad_line

EPS_VALUES = [F(1, 3), F(1), F(5, 2)]


def lin(coeffs=None, const=0) -> LinForm:
    return LinForm.make(coeffs or {}, const)


def lap(rate) -> Noise:
    return Noise("lap", F(rate))


def E(q, c=1) -> ExpPoly:
    """c * e^(q eps)."""
    return ExpPoly.exp(F(q), c)


def exact_float(p: ExpPoly, eps) -> float:
    ball = p.arb_value(eps, prec=200)
    return float(ball.mid().str(25, radius=False))


# --------------------------------------------------------------- independent numerics
# conftest's Laplace oracles, in this file's convention: zero mean, rate a * eps


def pdf(x, a, eps):
    return lap_pdf(x, 0.0, a * eps)


def cdf(x, a, eps):
    """P[N <= x] for N ~ Lap(a eps, 0)."""
    return lap_cdf(x, 0.0, a * eps)


def sf(x, a, eps):
    """P[N > x]."""
    return lap_sf(x, 0.0, a * eps)


def assert_close(p: ExpPoly, numeric: float, eps, rel=1e-9):
    exact = exact_float(p, eps)
    assert abs(exact - numeric) <= rel * abs(exact) + 1e-15, (float(eps), exact, numeric, str(p))


def P(atoms, noises) -> ExpPoly:
    return le.probability(tuple(atoms), tuple(noises))


# --------------------------------------------------------------- closed forms by hand

@pytest.mark.parametrize("a", [F(1), F(1, 2), F(3)])
@pytest.mark.parametrize("k", [F(0), F(2), F(-3, 2)])
def test_single_noise_tail(a, k):
    # N ~ Lap(a eps): P[N >= k] = 1/2 e^(-a k eps) for k >= 0, and 1 - 1/2 e^(a k eps) for k < 0.
    expected = E(-a * k, F(1, 2)) if k >= 0 else 1 - E(a * k, F(1, 2))
    assert P([atom(lin({0: 1}), ">=", lin(const=k))], [lap(a)]) == expected
    assert P([atom(lin({0: 1}), "<", lin(const=k))], [lap(a)]) == 1 - expected
    # scaling the noise: P[2N >= 2k] is the same event
    assert P([atom(lin({0: 2}), ">=", lin(const=2 * k))], [lap(a)]) == expected


@pytest.mark.parametrize("g", [F(1), F(5, 2)])
def test_single_noise_band(g):
    # P[|N| <= g] = 1 - e^(-a g eps)
    a = F(1, 9)
    atoms = [atom(lin({0: 1}), "<=", lin(const=g)), atom(lin({0: 1}), ">=", lin(const=-g))]
    assert P(atoms, [lap(a)]) == 1 - E(-a * g)


def test_same_rate_difference_has_polynomial_factor():
    # X, Y ~ Lap(eps) iid: D = X - Y has density (eps/4)(1 + eps|d|) e^(-eps|d|), so
    # P[X >= Y + 1] = (1/4) int_eps^oo (1 + s) e^(-s) ds = (2 + eps)/4 e^(-eps).
    p = P([atom(lin({0: 1}), ">=", lin({1: 1}, 1))], [lap(1), lap(1)])
    assert p == (2 + ExpPoly.eps()) * E(-1, F(1, 4))
    # the same for rate a and shift k >= 0: (2 + a k eps)/4 e^(-a k eps)
    a, k = F(2, 3), F(3)
    p = P([atom(lin({0: 1}), ">=", lin({1: 1}, k))], [lap(a), lap(a)])
    assert p == (2 + ExpPoly.eps() * (a * k)) * E(-a * k, F(1, 4))


@pytest.mark.parametrize("a,b,k", [(F(1), F(2), F(1)), (F(3), F(1, 2), F(2)), (F(1, 3), F(1), F(3, 2))])
def test_different_rates(a, b, k):
    # X ~ Lap(a eps), Y ~ Lap(b eps), k >= 0.  Condition on Y = y, P[X >= y + k] = S(y + k):
    #   y >= 0:      (b/4) e^(-a k eps) / (a + b)
    #   -k <= y < 0: (b/4) (e^(-a k eps) - e^(-b k eps)) / (b - a)
    #   y < -k:      1/2 e^(-b k eps) - (b/4) e^(-b k eps) / (a + b)
    # which sums to  b^2 / (2 (b^2 - a^2)) (e^(-a k eps) - e^(-b k eps)) + 1/2 e^(-b k eps).
    p = P([atom(lin({0: 1}), ">=", lin({1: 1}, k))], [lap(a), lap(b)])
    c = b * b / (2 * (b * b - a * a))
    assert p == E(-a * k, c) - E(-b * k, c) + E(-b * k, F(1, 2))


def paper_p1(x1, x2) -> ExpPoly:
    """Section 5.1, Example 2: NumericSparse, N = 2, T = 0, x1 < 0 < x2, output (bot, z)."""
    return (1 - F(2, 3) * (E(F(2, 9) * x1) + E(F(-2, 9) * x2))
            + F(1, 6) * (E(F(4, 9) * x1) + E(F(-4, 9) * x2))
            - F(1, 48) * (E(F(6 * x1 - 2 * x2, 9)) + E(-F(6 * x2 - 2 * x1, 9)))
            + E(F(2, 9) * (x1 - x2), F(1, 4)))


def example2_atoms(x1, x2):
    # rT = N0 ~ Lap(4eps/9, 0), r1 = x1 + N1, r2 = x2 + N2 with N1, N2 ~ Lap(2eps/9, 0)
    noises = [lap(F(4, 9)), lap(F(2, 9)), lap(F(2, 9))]
    atoms = [atom(lin({1: 1}, x1), "<", lin({0: 1})), atom(lin({2: 1}, x2), ">=", lin({0: 1}))]
    return atoms, noises


@pytest.mark.parametrize("x1,x2", [(F(-1), F(2)), (F(-1, 2), F(3)), (F(-3), F(1, 3))])
def test_paper_example_2(x1, x2):
    atoms, noises = example2_atoms(x1, x2)
    p1 = P(atoms, noises)
    assert p1 == paper_p1(x1, x2)
    # p2: the output o ~ Lap(eps/9, 0) (z = x2 + o) lands within x_Y of x2
    for xY in (F(1), F(5, 2)):
        band = [atom(lin({0: 1}), "<=", lin(const=xY)), atom(lin({0: 1}), ">=", lin(const=-xY))]
        p2 = P(band, [lap(F(1, 9))])
        assert p2 == 1 - E(-xY / 9)
        # through the seam: components split, product of the engine's answers
        ids = {0: noises[0], 1: noises[1], 2: noises[2], 3: lap(F(1, 9))}
        shifted = [atom(lin({3: 1}), "<=", lin(const=xY)), atom(lin({3: 1}), ">=", lin(const=-xY))]
        assert constraints.probability(atoms + shifted, ids) == ExpFrac(paper_p1(x1, x2) * (1 - E(-xY / 9)))


def test_paper_example_2_numerically():
    x1, x2 = F(-1), F(2)
    atoms, _ = example2_atoms(x1, x2)
    p = P(atoms, example2_atoms(x1, x2)[1])
    for eps in EPS_VALUES:
        e = float(eps)
        num = quad_line(lambda t: pdf(t, 4 / 9, e) * cdf(t - float(x1), 2 / 9, e) * sf(t - float(x2), 2 / 9, e),
                        [0, float(x1), float(x2)])
        assert_close(p, num, eps)


# --------------------------------------------------------------- numerical cross-checks

def test_star_threshold_against_quad():
    # SparseVariant-like: one threshold T ~ Lap(eps/2), queries q_i + N_i, N_i ~ Lap(eps/4)
    qs = [F(1), F(-1), F(0), F(2), F(-1, 2)]
    above = [True, False, False, True, False]
    noises = [lap(F(1, 2))] + [lap(F(1, 4))] * len(qs)
    atoms = [atom(lin({i + 1: 1}, q), ">=" if up else "<", lin({0: 1})) for i, (q, up) in enumerate(zip(qs, above))]
    p = P(atoms, noises)
    for eps in EPS_VALUES:
        e = float(eps)

        def f(t):
            v = pdf(t, 0.5, e)
            for q, up in zip(qs, above):
                v *= sf(t - float(q), 0.25, e) if up else cdf(t - float(q), 0.25, e)
            return v
        assert_close(p, quad_line(f, [0] + [float(q) for q in qs]), eps)


def test_noisy_max_three_against_quad_and_sums_to_one():
    q = [F(-1), F(0), F(0)]
    rates = [F(1, 2)] * 3
    total = ExpPoly.ZERO
    for i in range(3):
        atoms = [atom(lin({i: 1}, q[i]), ">", lin({j: 1}, q[j])) for j in range(3) if j != i]
        p = P(atoms, [lap(r) for r in rates])
        total = total + p
        for eps in EPS_VALUES:
            e = float(eps)

            def f(x, i=i):
                v = pdf(x, 0.5, e)
                for j in range(3):
                    if j != i:
                        v *= cdf(x + float(q[i] - q[j]), 0.5, e)
                return v
            assert_close(p, quad_line(f, [0] + [float(q[j] - q[i]) for j in range(3)]), eps)
    assert total == ExpPoly.ONE
    # the two tied queries win equally often
    p1 = P([atom(lin({1: 1}, 0), ">", lin({j: 1}, q[j])) for j in (0, 2)], [lap(r) for r in rates])
    p2 = P([atom(lin({2: 1}, 0), ">", lin({j: 1}, q[j])) for j in (0, 1)], [lap(r) for r in rates])
    assert p1 == p2


def test_chain_mixed_rates_against_quad():
    # N0 + 1 < N1,  N1 - 1/2 < N2  with rates 1, 1/2, 2
    a = [1.0, 0.5, 2.0]
    atoms = [atom(lin({0: 1}, 1), "<", lin({1: 1})), atom(lin({1: 1}, F(-1, 2)), "<", lin({2: 1}))]
    p = P(atoms, [lap(1), lap(F(1, 2)), lap(2)])
    for eps in EPS_VALUES:
        e = float(eps)

        def inner(y):  # P[N0 + 1 < N1 and N1 < y] as a function of y = N2 + 1/2
            return quad_line(lambda x1: pdf(x1, a[1], e) * cdf(x1 - 1, a[0], e), [0, 1], hi=y)
        num = quad_line(lambda x2: pdf(x2, a[2], e) * inner(x2 + 0.5), [0, -0.5, 0.5])
        assert_close(p, num, eps)


def test_tree_against_quad():
    # hub T; A < T; B > T + 1; C < A - 1   (a tree of difference constraints)
    rates = [F(1), F(1, 2), F(3, 2), F(1)]
    fl = [float(r) for r in rates]
    atoms = [atom(lin({1: 1}), "<", lin({0: 1})), atom(lin({2: 1}), ">", lin({0: 1}, 1)),
             atom(lin({3: 1}), "<", lin({1: 1}, -1))]
    p = P(atoms, [lap(r) for r in rates])
    for eps in EPS_VALUES:
        e = float(eps)

        def branch(t):  # P[A < t and C < A - 1]
            return quad_line(lambda x: pdf(x, fl[1], e) * cdf(x - 1, fl[3], e), [0, 1], hi=t)
        num = quad_line(lambda t: pdf(t, fl[0], e) * branch(t) * sf(t + 1, fl[2], e), [0, -1, 1])
        assert_close(p, num, eps)


def test_sum_of_three_noises_against_quad():
    # smart sum: |N0 + N1 + N2 + k| <= g, mixed rates
    k, g = F(1, 2), F(2)
    rates = [1.0, 0.5, 1.5]
    f = lin({0: 1, 1: 1, 2: 1}, k)
    atoms = [atom(f, "<=", lin(const=g)), atom(f, ">=", lin(const=-g))]
    p = P(atoms, [lap(F(1)), lap(F(1, 2)), lap(F(3, 2))])
    hi, lo = float(g - k), float(-g - k)
    for eps in EPS_VALUES:
        e = float(eps)

        def inner(n0):
            return quad_line(lambda n1: pdf(n1, rates[1], e) * (cdf(hi - n0 - n1, rates[2], e)
                                                               - cdf(lo - n0 - n1, rates[2], e)),
                             [0, hi - n0, lo - n0])
        num = quad_line(lambda n0: pdf(n0, rates[0], e) * inner(n0), [0, hi, lo])
        assert_close(p, num, eps)


def test_general_coefficients_against_quad():
    # non-difference constraints: 2 N0 - N1 < 1 and N0 + 3 N1 > -2 (the exact simplex path)
    atoms = [Atom(lin({0: 2, 1: -1}, -1), "<"), atom(lin({0: 1, 1: 3}), ">", lin(const=-2))]
    p = P(atoms, [lap(1), lap(F(1, 3))])
    for eps in EPS_VALUES:
        e = float(eps)

        def f(n0):  # N1 in (2 n0 - 1, oo) and N1 > (-2 - n0)/3
            lo_ = max(2 * n0 - 1, (-2 - n0) / 3)
            return pdf(n0, 1.0, e) * sf(lo_, 1 / 3, e)
        assert_close(p, quad_line(f, [0, 0.5, -2, 1 / 7]), eps)


def _random_atom(rng, n):
    vs = rng.sample(range(n), rng.randint(1, n))
    return Atom(lin({v: rng.choice([-2, -1, 1, 2, 3]) for v in vs}, rng.randint(-2, 2)), rng.choice(["<", "<="]))


def _random_case(rng):
    """2-4 noises with mixed rates, 1-4 atoms with small integer coefficients and constants."""
    n = rng.randint(2, 4)
    rates = [F(rng.choice([1, 2, 3]), rng.choice([1, 2])) for _ in range(n)]
    return [_random_atom(rng, n) for _ in range(rng.randint(1, 4))], rates


@pytest.mark.slow
def test_random_constraint_sets_against_monte_carlo():
    rng = random.Random(20210101)
    gen = np.random.default_rng(7)
    N = 100_000
    for case in range(40):
        atoms, rates = _random_case(rng)
        p = P(atoms, [lap(r) for r in rates])
        eps = EPS_VALUES[case % len(EPS_VALUES)]
        e = float(eps)
        x = np.stack([gen.laplace(0.0, 1.0 / (float(r) * e), N) for r in rates])
        ok = np.ones(N, bool)
        for a in atoms:
            ok &= sum(float(c) * x[i] for i, c in a.form.coeffs) + float(a.form.const) < 0
        exact = exact_float(p, eps)
        assert -1e-12 <= exact <= 1 + 1e-12
        sigma = math.sqrt(max(exact * (1 - exact), 0.0) / N)
        assert abs(ok.mean() - exact) <= 5 * sigma + 1.0 / N, (atoms, rates, e, ok.mean(), exact, str(p))


# --------------------------------------------------------------- exact identities

def test_complements_add_up_exactly():
    rng = random.Random(99)
    for _ in range(30):
        atoms, rates = _random_case(rng)
        noises = [lap(r) for r in rates]
        a = _random_atom(rng, len(rates))
        assert P(atoms + [a], noises) + P(atoms + [negate(a)], noises) == P(atoms, noises)
        assert P([a], noises) + P([negate(a)], noises) == ExpPoly.ONE


def test_equalities_have_measure_zero():
    base = [atom(lin({0: 1}), "<", lin({1: 1}, 1))]
    noises = [lap(1), lap(2)]
    eq = atom(lin({0: 1}), "==", lin({1: 1}))
    assert P(base + [eq], noises) == ExpPoly.ZERO
    assert P(base + [negate(eq)], noises) == P(base, noises)
    assert P([Atom(lin(const=0), "==")], [lap(1)]) == ExpPoly.ONE
    assert P([Atom(lin(const=1), "<")], [lap(1)]) == ExpPoly.ZERO


def test_infeasible_and_redundant_regions():
    noises = [lap(1), lap(1), lap(1)]
    # N0 < N1 < N2 < N0: empty
    cyc = [atom(lin({0: 1}), "<", lin({1: 1})), atom(lin({1: 1}), "<", lin({2: 1})),
           atom(lin({2: 1}), "<", lin({0: 1}))]
    assert P(cyc, noises) == ExpPoly.ZERO
    # a redundant atom does not change the answer
    chain = cyc[:2]
    assert P(chain + [atom(lin({0: 1}), "<", lin({2: 1}, 1))], noises) == P(chain, noises)
    # three iid noises in a given order: 1/6
    assert P(chain, noises) == ExpPoly.const(F(1, 6))


def test_difference_and_simplex_feasibility_agree():
    """The shortest-path test and the exact simplex decide the same regions the same way."""
    rng = random.Random(5)
    for _ in range(150):
        n = rng.randint(1, 4)
        items = {}
        for _ in range(rng.randint(1, 6)):
            d = [0] * n
            i = rng.randrange(n)
            if n > 1 and rng.random() < 0.7:
                j = rng.choice([v for v in range(n) if v != i])
                d[i], d[j] = 1, -1
            else:
                d[i] = rng.choice([1, -1])
            d = tuple(d)
            items[d] = max(items.get(d, F(-10)), F(rng.randint(-3, 3), rng.choice([1, 2])))
        # d.u + off*eps < 0 as the primitive integer constraint the regions module keeps
        cons = [open_regions.constraint([v * off.denominator for v in d] + [off.numerator])
                for d, off in items.items()]
        by_paths = open_regions._difference_simplify(cons)
        by_lp = open_regions._lp_simplify(cons)
        if by_paths is None or by_lp is None:
            assert by_paths is None and by_lp is None, cons
        else:
            assert set(by_paths) == set(by_lp), cons

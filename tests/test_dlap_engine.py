"""Exact discrete Laplace probabilities: hand-derived closed forms, brute-force sums, Monte Carlo.

The brute-force reference never touches the engine: it enumerates the integer
box |k_i| <= K with numpy, counts the points that satisfy the atoms by their
weight exponent sum_i r_i |k_i| (exact integers, independent of eps), and
evaluates the count polynomial with mpmath at 50 digits.  The mass outside the
box is at most sum_i 2 t_i^(K+1) / (1 + t_i), which is the tolerance used.
"""
from fractions import Fraction as F
from functools import reduce
from math import lcm
import random

import mpmath
import numpy as np
import pytest

from dipc_plus.exact.linear import LinForm, Noise, atom, negate
from dipc_plus.exact import constraints
from dipc_plus.exact.dlap_engine import probability
from dipc_plus.exact.expoly import ExpFrac, ExpPoly

mpmath.mp.dps = 50

EPS = [F(7, 10), F(17, 10), F(31, 10)]


def D(rate=1):
    return Noise("dlap", F(rate))


def N(i, c=1):
    return LinForm.make({i: c})


def K(k):
    return LinForm.constant(k)


def mp_of(value: ExpFrac, eps: F) -> mpmath.mpf:
    """num and den as 200-bit balls, divided in mpmath (the quotient ball is not needed)."""
    num, den = (mpmath.mpf(p.arb_value(eps, prec=200).mid().str(60, radius=False)) for p in (value.num, value.den))
    return num / den


def brute_force(atoms, noises, eps_list, target=mpmath.mpf(10) ** -14):
    """(values at each eps, truncation bounds) by explicit summation over a box."""
    n = len(noises)
    rates = [F(nz.rate) for nz in noises]
    L = reduce(lcm, (r.denominator for r in rates), 1)
    r_int = [int(r * L) for r in rates]
    tmin = max(mpmath.exp(-mpmath.mpf(a.numerator) / a.denominator * mpmath.mpf(e.numerator) / e.denominator)
               for a in rates for e in eps_list)
    Kbox = int(mpmath.ceil(mpmath.log(target / (2 * n)) / mpmath.log(tmin)))
    axis = np.arange(-Kbox, Kbox + 1, dtype=np.int64)
    grids = np.meshgrid(*([axis] * n), indexing="ij", sparse=True)
    mask = np.ones((2 * Kbox + 1,) * n, dtype=bool)
    for a in atoms:
        coeffs = dict(a.form.coeffs)
        scale = reduce(lcm, [c.denominator for c in coeffs.values()] + [a.form.const.denominator], 1)
        val = int(a.form.const * scale) + sum(int(c * scale) * grids[i] for i, c in coeffs.items())
        val = np.broadcast_to(val, mask.shape)
        mask &= {"<": val < 0, "<=": val <= 0, "==": val == 0, "!=": val != 0}[a.op]
    expo = sum(r * np.abs(g) for r, g in zip(r_int, grids))
    expo = np.broadcast_to(expo, mask.shape)
    counts = np.bincount(expo[mask], minlength=1)
    values, tails = [], []
    for e in eps_list:
        T = mpmath.exp(-mpmath.mpf(e.numerator) / e.denominator / L)
        s = mpmath.fsum(int(c) * T ** m for m, c in enumerate(counts) if c)
        norm, tail = mpmath.mpf(1), mpmath.mpf(0)
        for r in r_int:
            t = T ** r
            norm *= (1 - t) / (1 + t)
            tail += 2 * t ** (Kbox + 1) / (1 + t)
        values.append(s * norm)
        tails.append(tail)
    return values, tails


def assert_matches_brute_force(atoms, noises, eps_list=EPS):
    exact = probability(tuple(atoms), tuple(noises))
    values, tails = brute_force(atoms, noises, eps_list)
    for e, v, tail in zip(eps_list, values, tails):
        got = mp_of(exact, e)
        assert abs(got - v) <= tail + mpmath.mpf(10) ** -30, (atoms, e, got, v)
    return exact


# ----------------------------------------------------------------------------- closed forms

t = ExpPoly.exp(-1)          # e^-eps
s2 = ExpPoly.exp(-2)         # e^-2eps


def test_single_noise_tail_and_point():
    # P[N >= 1] = c * sum_{k>=1} t^k = t/(1+t) = 1/(1+e^eps)
    assert probability((atom(N(0), ">=", K(1)),), (D(),)) == ExpFrac(1, 1 + ExpPoly.exp(1))
    # P[N == 0] = c = (1-t)/(1+t)
    assert probability((atom(N(0), "==", K(0)),), (D(),)) == ExpFrac(1 - t, 1 + t)
    # P[N > 0] is the same event as P[N >= 1]; P[N <= 0] its complement
    assert probability((atom(N(0), ">", K(0)),), (D(),)) == ExpFrac(t, 1 + t)
    assert probability((atom(N(0), "<=", K(0)),), (D(),)) == ExpFrac(1, 1 + t)
    # P[N >= k] = t^k/(1+t) for k >= 1, at rate 3/2 (t = e^(-3eps/2))
    t32 = ExpPoly.exp(F(-3, 2))
    assert probability((atom(N(0), ">=", K(4)),), (D(F(3, 2)),)) == ExpFrac(t32 ** 4, 1 + t32)


def test_two_noises_same_rate():
    # P[X == Y] = c^2 sum_k t^(2|k|) = (1-t)(1+t^2)/(1+t)^3
    eq = ExpFrac((1 - t) * (1 + t * t), (1 + t) ** 3)
    assert probability((atom(N(0), "==", N(1)),), (D(), D())) == eq
    # P[X >= Y] = (1 + P[X == Y]) / 2 by symmetry of X - Y
    assert probability((atom(N(0), ">=", N(1)),), (D(), D())) == (1 + eq) * F(1, 2)
    assert probability((atom(N(0), "<", N(1)),), (D(), D())) == (1 - eq) * F(1, 2)


def test_two_noises_different_rates():
    # X ~ DLap(eps), Y ~ DLap(2 eps): P[X == Y] = c_1 c_2 (1 + t s)/(1 - t s), s = t^2
    eq = ExpFrac((1 - t) * (1 - s2) * (1 + t * s2), (1 + t) * (1 + s2) * (1 - t * s2))
    assert probability((atom(N(0), "==", N(1)),), (D(1), D(2))) == eq
    assert probability((atom(N(0), "<", N(1)),), (D(1), D(2))) == (1 - eq) * F(1, 2)
    assert probability((atom(N(0), "!=", N(1)),), (D(1), D(2))) == 1 - eq


def test_closed_forms_match_brute_force():
    for atoms, noises in [
        ((atom(N(0), ">=", K(1)),), (D(),)),
        ((atom(N(0), "==", N(1)),), (D(), D(2))),
        ((atom(N(0), ">=", N(1)),), (D(), D())),
    ]:
        assert_matches_brute_force(atoms, noises)


# ----------------------------------------------------------------------------- random sets

def random_atoms(rng: random.Random, n: int, count: int, coeffs=(-1, 1)):
    ops = ["<", "<=", ">", ">=", "==", "!="]
    atoms = []
    for _ in range(count):
        support = rng.sample(range(n), rng.randint(1, n))
        lhs = LinForm.make({i: rng.choice(coeffs) for i in support}, rng.randint(-3, 3))
        atoms.append(atom(lhs, rng.choice(ops), K(0)))
    return atoms


@pytest.mark.parametrize("seed", range(30))
def test_random_unit_constraints_match_brute_force(seed):
    rng = random.Random(seed)
    n = rng.choice([2, 2, 3])
    rates = [1, 2, F(3, 2)] if n == 3 else [F(1, 2), 1, 3]
    noises = tuple(D(rng.choice(rates)) for _ in range(n))
    assert_matches_brute_force(random_atoms(rng, n, rng.randint(1, 3)), noises)


@pytest.mark.parametrize("seed", range(8))
def test_non_unit_and_rational_coefficients_match_brute_force(seed):
    rng = random.Random(1000 + seed)
    n = rng.choice([2, 3])
    noises = tuple(D(rng.choice([1, 2])) for _ in range(n))
    atoms = random_atoms(rng, n, rng.randint(1, 2), coeffs=(-2, -1, 1, 2, 3))
    # a rational coefficient and constant, cleared by scaling inside the engine
    atoms.append(atom(LinForm.make({0: F(1, 2), n - 1: F(-1, 3)}, F(1, 3)), rng.choice(["<", "<=", "!="]), K(0)))
    assert_matches_brute_force(atoms, noises)


def test_equality_without_unit_coefficient_matches_brute_force():
    atoms = [atom(N(0, 2) + N(1, 3), "==", K(1)), atom(N(0), "<=", N(1) + K(2))]
    assert_matches_brute_force(atoms, (D(), D()))
    atoms = [atom(N(0, 2) + N(1, 4), "==", K(1))]  # 2x + 4y = 1 has no integer solution
    assert probability(tuple(atoms), (D(), D())) == 0


def test_too_many_residue_classes_is_refused_clearly():
    atoms = (atom(N(0, 7) + N(1, 5) + N(2, 3), "<=", K(0)),
             atom(N(0, 5) + N(1, 7) + N(2, -3), "<=", K(0)),
             atom(N(0, 3) + N(1, -5) + N(2, 7), "<=", K(2)))
    with pytest.raises(ValueError, match="residue classes"):
        probability(atoms, (D(), D(), D()))


@pytest.mark.parametrize("seed", range(12))
def test_split_on_an_atom_and_its_negation_is_exact(seed):
    rng = random.Random(2000 + seed)
    n = rng.choice([2, 3])
    noises = {i: D(rng.choice([1, 2, F(1, 2)])) for i in range(n)}
    base = random_atoms(rng, n, rng.randint(1, 2))
    a = random_atoms(rng, n, 1)[0]
    with_a = constraints.probability(base + [a], noises)
    without_a = constraints.probability(base + [negate(a)], noises)
    assert with_a + without_a == constraints.probability(base, noises)


# ----------------------------------------------------------------------------- mechanisms

def noisy_max_atoms(i, scores):
    """Candidate i wins: strictly above every earlier candidate, at least every later one."""
    return tuple(atom(N(i) + K(scores[i]), ">" if j < i else ">=", N(j) + K(scores[j]))
                 for j in range(len(scores)) if j != i)


def test_noisy_max_outcomes_sum_to_one_and_match_brute_force():
    scores = [0, 1, 1, 3, 0]
    noises = tuple(D() for _ in scores)
    probs = [probability(noisy_max_atoms(i, scores), noises) for i in range(len(scores))]
    assert sum(probs, ExpFrac(0)) == 1
    small = [2, 0, 2]
    for i in range(3):
        assert_matches_brute_force(noisy_max_atoms(i, small), (D(), D(2), D()))
    # ties favour the first index: with equal scores candidate 0 has the larger chance
    assert probs[1](1.0) > probs[2](1.0)


def threshold_star(k, queries, thr):
    """Sparse/AboveThreshold: queries 0..k-1 below the noisy threshold, query k at or above it."""
    ats = [atom(N(j + 1) + K(queries[j]), "<", N(0) + K(thr)) for j in range(k)]
    if k < len(queries):
        ats.append(atom(N(k + 1) + K(queries[k]), ">=", N(0) + K(thr)))
    return tuple(ats)


def test_threshold_star_outcomes_sum_to_one():
    queries, thr = [3, 1, 4, 1, 5, 2], 2
    noises = (D(F(1, 2)),) + tuple(D(F(1, 4)) for _ in queries)
    total = sum((probability(threshold_star(k, queries, thr), noises[:min(k, len(queries) - 1) + 2])
                 for k in range(len(queries) + 1)), ExpFrac(0))
    assert total == 1


def test_threshold_star_matches_brute_force():
    queries, thr = [1, 2, 0], 1
    noises = (D(1), D(2), D(2))
    assert_matches_brute_force(threshold_star(1, queries, thr), noises)  # 1 below, then 1 above


def sample_dlap(rng, rate, eps, size):
    """DLap(rate*eps) as the difference of two geometric variables."""
    p = 1 - np.exp(-rate * eps)
    return rng.geometric(p, size) - rng.geometric(p, size)


def test_threshold_star_monte_carlo():
    queries, thr, k = [2, 0, 1, 3], 1, 2
    eps = 0.8
    exact = probability(threshold_star(k, queries, thr), (D(F(1, 2)),) + (D(1),) * (k + 1))
    rng = np.random.default_rng(12345)
    size = 400_000
    T = sample_dlap(rng, 0.5, eps, size)
    ok = np.ones(size, dtype=bool)
    for j in range(k):
        ok &= sample_dlap(rng, 1, eps, size) + queries[j] < T + thr
    ok &= sample_dlap(rng, 1, eps, size) + queries[k] >= T + thr
    p = exact(eps)
    assert abs(ok.mean() - p) < 5 * np.sqrt(p * (1 - p) / size)

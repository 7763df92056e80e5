"""The Laplace engine's term sums (exact/exp_terms.py): antiderivatives at a bound, products.

The antiderivative at a bound is compared with an independent quadrature
(conftest.quad) of the integrand it stands for; products are compared with
ExpPoly multiplication, an independent implementation of the same algebra.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest
from flint import fmpq, fmpq_poly

from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.exact.exp_terms import Rescale, TermSpace
from dipc_plus.exact.symbolic_terms import SymbolicForm
from conftest import quad


def in_eps(space: TermSpace, terms: dict) -> ExpPoly:
    """A sum whose terms depend on eps alone as the public ExpPoly (the engine's own conversion)."""
    return SymbolicForm.from_engine(terms, space.n, 0, space.D).at(())


def key(space: TermSpace, exponents: dict, powers: dict | None = None) -> tuple:
    """The key of e^(sum_j l_j u_j + l_eps eps) u^powers, exponents given on the grid (D*l)."""
    k = [0] * (2 * space.n + 1)
    for j, e in exponents.items():
        k[space.n if j == "eps" else j] = e
    for j, a in (powers or {}).items():
        k[space.power_index(j)] = a
    return tuple(k)


@pytest.mark.parametrize("seed", range(12))
def test_antiderivative_at_an_upper_bound_matches_quadrature(seed):
    """One noise of rate a, the term c eps^m u^k e^(b u) (b > 0 so the lower end converges),
    integrated over u < r eps with the density's constant a/2: exactly, then by quadrature."""
    rng = random.Random(seed)
    D = rng.choice([1, 2, 3])
    a = F(rng.randint(1, 4), D)
    bD = rng.randint(1, 5)
    k = rng.randint(0, 3)
    m = rng.randint(0, 2)
    coeff = F(rng.randint(-5, 5) or 1, rng.randint(1, 4))
    r_num, r_den = rng.randint(-3, 3), 1
    space = TermSpace((int(a * D),), D)
    poly = fmpq_poly([0] * m + [fmpq(coeff.numerator, coeff.denominator)])
    rest = key(space, {})
    c = (r_den, -r_num)                       # u - r eps < 0
    sums = space.at_bound([(bD, k, rest, poly)], c, 0, +1)
    exact = in_eps(space, sums)
    b = bD / D
    for eps in (0.5, 1.0, 2.0):
        upper = r_num / r_den * eps
        numeric = quad(lambda u: float(a) / 2 * float(coeff) * eps ** m * u ** k * math.exp(b * u),
                       [], -math.inf, upper)
        assert exact(eps) == pytest.approx(numeric, rel=1e-9, abs=1e-12)


def test_antiderivative_with_no_exponent_is_a_power():
    """b = 0: u^k at a lower bound B = eps (sign -1) gives -a/2 B^(k+1)/(k+1)."""
    space = TermSpace((2,), 1)                # a = 2
    c = (-1, 1)                               # u > 1*eps: B = eps
    sums = space.at_bound([(0, 2, key(space, {}), space.one)], c, 0, -1)
    assert in_eps(space, sums) == ExpPoly.monomial(F(-1, 3), 3, 0)


def test_a_bound_with_another_noise_raises_its_power_and_shifts_its_exponent():
    """e^(b u_0) at u_0 = u_1 - eps  is  e^(b u_1 - b eps): the exponent moves onto u_1 and eps."""
    space = TermSpace((1, 1), 1)
    c = (1, -1, 1)                            # u_0 - u_1 + eps < 0: u_0 < u_1 - eps
    sums = space.at_bound([(2, 0, key(space, {}), space.one)], c, 0, +1)
    # 1/2 * (1/2) e^(2 u_1 - 2 eps)
    assert sums == {key(space, {1: 2, "eps": -2}): fmpq_poly([fmpq(1, 4)])}
    # with u_0^1: the antiderivative (y/b - 1/b^2) e^(b y) at y = u_1 - eps
    sums = space.at_bound([(2, 1, key(space, {}), space.one)], c, 0, +1)
    expected = {key(space, {1: 2, "eps": -2}, {1: 1}): fmpq_poly([fmpq(1, 4)]),
                key(space, {1: 2, "eps": -2}): fmpq_poly([fmpq(-1, 8), fmpq(-1, 4)])}
    assert sums == expected


def test_a_bound_off_the_grid_asks_for_a_finer_grid():
    space = TermSpace((1, 1), 1)
    c = (2, -1, 0)                            # u_0 < u_1 / 2: e^(1 * u_0) there is e^(u_1/2)
    with pytest.raises(Rescale) as raised:
        space.at_bound([(1, 0, key(space, {}), space.one)], c, 0, +1)
    assert raised.value.factor == 2


def test_products_agree_with_exppoly():
    rng = random.Random(3)
    space = TermSpace((1,), 2)
    for _ in range(30):
        sides = []
        for _ in range(2):
            terms = {}
            for _ in range(rng.randint(1, 4)):
                e = rng.randint(-4, 4)
                p = fmpq_poly([fmpq(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))])
                if p:
                    terms[key(space, {"eps": e})] = terms.get(key(space, {"eps": e}), 0) + p
            sides.append({k: p for k, p in terms.items() if p})
        product = in_eps(space, space.multiply(*sides))
        assert product == in_eps(space, sides[0]) * in_eps(space, sides[1])

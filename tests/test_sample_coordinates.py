"""The Laplace engine integrates over sample coordinates W_j = U_j + eps m_j: the means it
picks, and values unchanged against centred coordinates (m = 0), quadrature and hand-derived
closed forms."""
from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from dipc_plus.exact import constraints
from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.exact.open_regions import constraint
from conftest import lap_cdf, lap_pdf, lap_sf, quad

EPS_VALUES = [F(1, 3), F(1), F(5, 2)]


def lin(coeffs=None, const=0) -> LinForm:
    return LinForm.make(coeffs or {}, const)


def vectors(atoms, n) -> set:
    """The engine's integer constraints of strict atoms (form < 0 or form <= 0 alike)."""
    out = set()
    for a in atoms:
        vec = [F(0)] * (n + 1)
        for i, c in a.form.coeffs:
            vec[i] = c
        vec[-1] = a.form.const
        den = 1
        for v in vec:
            den = den * v.denominator
        out.add(constraint([int(v * den) for v in vec]))
    return out


def cold():
    constraints.clear_probability_caches()


def test_the_means_are_the_samples_means_of_a_sparse_star():
    """Sparse compares q_i + N_i with the threshold N_0 (mean T = 0): the engine's means are the
    program's, m_i = q_i (the hub, in every comparison, is the root with mean 0), and every
    comparison becomes W_i - W_0 < 0 with no eps offset."""
    qs = [F(-1), F(1, 2), F(0), F(7, 3)]
    atoms = [atom(lin({i + 1: 1}, q), ">=" if i % 2 else "<", lin({0: 1})) for i, q in enumerate(qs)]
    cons = vectors(atoms, len(qs) + 1)
    means = le.sample_means(cons, len(qs) + 1)
    assert means == [(F(0),)] + [(q,) for q in qs]
    shifted = le.shift_to_samples(cons, means, len(qs) + 1)
    assert all(c[-1] == 0 for c in shifted) and len(shifted) == len(qs)


def test_a_cycle_keeps_the_offset_a_tree_cannot_zero():
    # u0 - u1 + eps < 0, u1 - u2 + eps < 0, u2 - u0 + eps < 0: the offsets sum to 3, not 0
    cons = {(1, -1, 0, 1), (0, 1, -1, 1), (-1, 0, 1, 1)}
    shifted = le.shift_to_samples(cons, le.sample_means(cons, 3), 3)
    assert sorted(c[-1] for c in shifted) == [0, 0, 3]


def random_problem(rng: random.Random):
    n = rng.randint(2, 4)
    rates = [rng.choice([F(1), F(1, 2), F(1, 3), F(2, 3)]) for _ in range(n)]
    atoms = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        i, j = rng.sample(range(n), 2)
        off = F(rng.randint(-4, 4), rng.choice([1, 2, 3]))
        if kind < 0.6:     # a comparison of two samples
            atoms.append(atom(lin({i: 1}, off), rng.choice(["<", "<=", ">", ">="]), lin({j: 1})))
        elif kind < 0.8:   # a sample against a constant
            atoms.append(atom(lin({i: 1}), rng.choice(["<", ">"]), lin(const=off)))
        else:              # a sum of samples (the LP's kind)
            k = rng.choice([x for x in range(n) if x not in (i, j)] or [i])
            atoms.append(atom(lin({i: 1, j: 1}, off), "<", lin({k: rng.choice([1, 2])})))
    return tuple(atoms), tuple(Noise("lap", r) for r in rates)


def test_sample_and_centred_coordinates_give_identical_closed_forms(monkeypatch):
    """Any means are exact; m = 0 is the engine's old centred integration."""
    rng = random.Random(27)
    problems = [random_problem(rng) for _ in range(60)]
    cold()
    sample = [le.probability(a, nz) for a, nz in problems]
    monkeypatch.setattr(le, "sample_means", lambda cons, n: [(F(0),)] * n)
    cold()
    centred = [le.probability(a, nz) for a, nz in problems]
    cold()
    assert sample == centred
    assert sum(1 for p in sample if p not in (ExpPoly.ZERO, ExpPoly.ONE)) > 30   # not vacuous


@pytest.mark.parametrize("eps", EPS_VALUES)
def test_an_ordering_event_with_means_against_quadrature(eps):
    """P[X1 < X2 < X3], X_i = mu_i + Lap(a_i eps): the integral over x2 of pdf_2 cdf_1 sf_3."""
    mus = [F(1, 2), F(-1), F(2, 3)]
    rates = [F(1, 2), F(1), F(1, 3)]
    atoms = (atom(lin({0: 1}, mus[0]), "<", lin({1: 1}, mus[1])),
             atom(lin({1: 1}, mus[1]), "<", lin({2: 1}, mus[2])))
    cold()
    p = le.probability(atoms, tuple(Noise("lap", r) for r in rates))
    b = [float(r * eps) for r in rates]
    m = [float(x) for x in mus]
    want = quad(lambda x: lap_pdf(x, m[1], b[1]) * lap_cdf(x, m[0], b[0]) * lap_sf(x, m[2], b[2]), m)
    ball = p.arb_value(eps, prec=200)
    assert abs(float(ball.mid()) - want) <= 1e-9 * want
    assert float(ball.rad()) < 1e-30


def test_one_sided_noise_by_hand():
    """E_j ~ ExpNoise(a_j eps): P[E1 + 1/2 < E2] = int_{1/2}^inf a2 e^(-a2 y) (1 - e^(-a1 (y - 1/2))) dy
    = a1/(a1 + a2) e^(-a2 eps/2), with a1 = 1/2, a2 = 1/3: 3/5 e^(-eps/6)."""
    cold()
    p = constraints.probability([atom(lin({0: 1}, F(1, 2)), "<", lin({1: 1}))],
                                {0: Noise("exp", F(1, 2)), 1: Noise("exp", F(1, 3))})
    assert ExpFrac.of(p) == ExpFrac.of(ExpPoly.exp(F(-1, 6), F(3, 5)))

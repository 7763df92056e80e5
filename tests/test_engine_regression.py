"""Pinned closed forms: a guard for performance work on the exact engine.

The strings below were computed by the engine before its optimisation (commit
139aa00) and are canonical (ExpPoly/ExpFrac print one way only), so any change
of value, however small, fails here.  Each pin is also checked against an
independent 1-d quadrature (scipy, written out below) at several eps, so a pin
cannot be a wrong value frozen in place.  Program-level pins run the whole
pipeline (DTMC, constraint components, reachability) on one input of each row
of experiments/bench_exact.py.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from dipc_plus.exact import constraints
from dipc_plus.claims import noise_free
from dipc_plus.exact import laplace_engine as le
from dipc_plus.api import LoadedProgram
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.semantics.distribution import bind, distribution_of_chain
from conftest import PROGRAMS, lap_cdf, lap_pdf, lap_sf, quad

EPS_VALUES = [F(1, 2), F(1), F(3)]


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


def exact_float(p, eps) -> float:
    return float(p.arb_value(eps, prec=200).mid().str(25, radius=False))


def assert_matches(p, numeric, eps):
    exact = exact_float(p, eps)
    assert abs(exact - numeric) <= 1e-9 * abs(exact) + 1e-15, (float(eps), exact, numeric, str(p))


def lin(coeffs=None, const=0) -> LinForm:
    return LinForm.make(coeffs or {}, const)


def lap(rate) -> Noise:
    return Noise("lap", F(rate))


# --------------------------------------------------------------- program level

def program_value(file, params, q, gamma):
    prog = LoadedProgram.from_file(PROGRAMS / file, **params)
    qf = [F(v) for v in q]
    det = noise_free.run(prog.program, bind(prog.program, {"q": qf}))
    return distribution_of_chain(prog.dtmc(q=qf)).within(det, gamma)


def noisy_max_numeric(e):
    # q = [-1, 2, 0], rates eps/2: query 2 wins iff N_j < x + q_2 - q_j for the others
    return quad(lambda x: pdf(x, 0.5, e) * cdf(x + 3.0, 0.5, e) * cdf(x + 2.0, 0.5, e), [0.0, -3.0, -2.0])


def sparse_numeric(e):
    # q = [-1, 0, 1, 0], c = 4: threshold Lap(eps/8), queries Lap(eps/16), output bot top top top;
    # the threshold is re-drawn after each top, so three independent segments
    seg1 = quad(lambda t: pdf(t, 1 / 8, e) * cdf(t + 1, 1 / 16, e) * sf(t, 1 / 16, e), [0.0, -1.0])
    seg2 = quad(lambda t: pdf(t, 1 / 8, e) * sf(t - 1, 1 / 16, e), [0.0, 1.0])
    seg3 = quad(lambda t: pdf(t, 1 / 8, e) * sf(t, 1 / 16, e), [0.0])
    return seg1 * seg2 * seg3


def sparse_variant_numeric(e):
    # q = [0, -1, 1, 0], one threshold Lap(eps/8), queries Lap(eps/16): top bot top top
    def f(t):
        return (pdf(t, 1 / 8, e) * sf(t, 1 / 16, e) * cdf(t + 1, 1 / 16, e)
                * sf(t - 1, 1 / 16, e) * sf(t, 1 / 16, e))
    return quad(f, [0.0, -1.0, 1.0])


def numeric_sparse_numeric(e):
    # q = [-1, 1, 0, 2], c = 1, gamma = 1: bot then num (exit); the released value
    # q_2 + Lap(eps/9) must be within 1 of q_2
    seg = quad(lambda t: pdf(t, 4 / 9, e) * cdf(t + 1, 2 / 9, e) * sf(t - 1, 2 / 9, e), [0.0, -1.0, 1.0])
    return seg * (1 - math.exp(-e / 9))


PROGRAM_PINS = [
    ("noisy_max.dip", {"m": 3}, [-1, 2, 0], 0, noisy_max_numeric,
     "1 - 1/2*e^(-eps) - 1/4*eps*e^(-eps) - 1/8*e^(-3/2*eps) - 1/4*eps*e^(-3/2*eps) "
     "+ 1/24*e^(-2*eps) - 1/12*e^(-5/2*eps)"),
    ("sparse.dip", {"m": 4, "c": 4, "T": 0}, [-1, 0, 1, 0], 0, sparse_numeric,
     "1/4 - 37/96*e^(-1/16*eps) + 13/48*e^(-1/8*eps) - 59/576*e^(-3/16*eps) + 1/48*e^(-1/4*eps) "
     "- 1/576*e^(-5/16*eps)"),
    ("sparse_variant.dip", {"m": 4, "c": 4, "T": 0}, [0, -1, 1, 0], 0, sparse_variant_numeric,
     "7/24 - 17/40*e^(-1/16*eps) + 23/96*e^(-1/8*eps) - 1/24*e^(-3/16*eps) - 1/80*e^(-1/4*eps) "
     "+ 1/120*e^(-5/16*eps) - 1/480*e^(-3/8*eps)"),
    ("numeric_sparse.dip", {"m": 4, "c": 1, "T": 0}, [-1, 1, 0, 2], 1, numeric_sparse_numeric,
     "1 - e^(-1/9*eps) - 4/3*e^(-2/9*eps) + 4/3*e^(-1/3*eps) + 7/12*e^(-4/9*eps) - 7/12*e^(-5/9*eps) "
     "- 1/24*e^(-8/9*eps) + 1/24*e^(-eps)"),
]


@pytest.mark.parametrize("file,params,q,gamma,numeric,pinned", PROGRAM_PINS,
                         ids=[p[0] for p in PROGRAM_PINS])
def test_program_closed_forms_are_pinned(file, params, q, gamma, numeric, pinned):
    p = program_value(file, params, q, gamma)
    assert str(p) == pinned
    for eps in EPS_VALUES:
        assert_matches(p, numeric(float(eps)), eps)


# --------------------------------------------------------------- engine level

def star_case():
    # threshold N0 ~ Lap(eps), leaves Lap(eps/3): N1 + 1/2 >= N0, N2 - 2 < N0, N3 <= N0, N4 + 1 > N0
    atoms = [atom(lin({1: 1}, F(1, 2)), ">=", lin({0: 1})), atom(lin({2: 1}, -2), "<", lin({0: 1})),
             atom(lin({3: 1}, 0), "<=", lin({0: 1})), atom(lin({4: 1}, 1), ">", lin({0: 1}))]
    noises = [lap(1)] + [lap(F(1, 3))] * 4

    def numeric(e):
        def f(t):
            return (pdf(t, 1, e) * sf(t - 0.5, 1 / 3, e) * cdf(t + 2, 1 / 3, e)
                    * cdf(t, 1 / 3, e) * sf(t - 1, 1 / 3, e))
        return quad(f, [0.0, 0.5, -2.0, 1.0])
    return atoms, noises, numeric


def chain_case():
    # non-unit coefficients: 2 N0 - N1 < 1 and N1 + 3 N2 > -1/2, rates 1, 1/3, 2
    atoms = [atom(lin({0: 2, 1: -1}), "<", lin(const=1)), atom(lin({1: 1, 2: 3}), ">", lin(const=F(-1, 2)))]
    noises = [lap(1), lap(F(1, 3)), lap(2)]

    def numeric(e):
        # given N1 = y: N0 < (1 + y)/2 and N2 > (-1/2 - y)/3
        return quad(lambda y: pdf(y, 1 / 3, e) * cdf((1 + y) / 2, 1, e) * sf((-0.5 - y) / 3, 2, e),
                    [0.0, -1.0, -0.5])
    return atoms, noises, numeric


def noisy_max_four_case():
    # N0 beats N1 + 0, N2 - 1 and N3 + 1/2, all Lap(eps/2)
    shifts = [(1, F(0)), (2, F(-1)), (3, F(1, 2))]
    atoms = [atom(lin({0: 1}), ">", lin({j: 1}, k)) for j, k in shifts]
    noises = [lap(F(1, 2))] * 4

    def numeric(e):
        def f(x):
            v = pdf(x, 0.5, e)
            for _, k in shifts:
                v *= cdf(x - float(k), 0.5, e)
            return v
        return quad(f, [0.0] + [float(k) for _, k in shifts])
    return atoms, noises, numeric


def sum_case():
    # -2 <= N0 <= 2 and -1 <= N0 + N1 <= 2, rates 1 and 1/2
    atoms = [atom(lin({0: 1}), "<=", lin(const=2)), atom(lin({0: 1}), ">=", lin(const=-2)),
             atom(lin({0: 1, 1: 1}), "<=", lin(const=2)), atom(lin({0: 1, 1: 1}), ">=", lin(const=-1))]
    noises = [lap(1), lap(F(1, 2))]

    def numeric(e):
        def f(x):
            if not -2 < x < 2:
                return 0.0
            return pdf(x, 1, e) * (cdf(2 - x, 0.5, e) - cdf(-1 - x, 0.5, e))
        return quad(f, [-2.0, 0.0, 2.0])
    return atoms, noises, numeric


ENGINE_PINS = [
    ("star", star_case,
     "1/2 - 13/40*e^(-1/6*eps) - 13/40*e^(-1/3*eps) + 3/8*e^(-1/2*eps) - 3/8*e^(-2/3*eps) "
     "+ 9/64*e^(-5/6*eps) + 1/8*e^(-eps) - 11/160*e^(-7/6*eps) - 1/80*e^(-4/3*eps) + 1/64*e^(-3/2*eps) "
     "- 1/320*e^(-5/3*eps) - 1/320*e^(-13/6*eps) + 1/1120*e^(-5/2*eps) + 1/80*e^(-8/3*eps) "
     "- 1/320*e^(-7/2*eps) - 1/320*e^(-11/3*eps) + 1/1120*e^(-9/2*eps)"),
    ("chain", chain_case,
     "1 - 2/3*e^(-1/6*eps) + 1/6*e^(-1/3*eps) - 8/15*e^(-5/12*eps) + 2/5*e^(-1/2*eps) "
     "+ 1/36*e^(-2/3*eps) - 1/45*e^(-5/6*eps)"),
    ("noisy_max_four", noisy_max_four_case,
     "7/24*e^(-1/4*eps) + 1/16*eps*e^(-1/4*eps) + 1/24*e^(-1/2*eps) - 1/8*e^(-3/4*eps) "
     "+ 1/24*e^(-eps) - 1/192*e^(-5/4*eps) + 1/192*e^(-7/4*eps)"),
    ("sum", sum_case,
     "1 - 2/3*e^(-1/2*eps) - 1/2*e^(-eps) - 1/6*e^(-5/2*eps) + 1/6*e^(-7/2*eps) + 1/6*e^(-4*eps)"),
]


@pytest.mark.parametrize("name,case,pinned", ENGINE_PINS, ids=[p[0] for p in ENGINE_PINS])
def test_engine_closed_forms_are_pinned(name, case, pinned):
    atoms, noises, numeric = case()
    le.clear_caches()
    p = le.probability(tuple(atoms), tuple(noises))
    assert str(p) == pinned
    # the same value through the component layer (canonical renaming, caches)
    via = constraints.probability(atoms, dict(enumerate(noises)))
    assert str(via) == pinned
    for eps in EPS_VALUES:
        assert_matches(p, numeric(float(eps)), eps)


@pytest.mark.parametrize("name,case,pinned", ENGINE_PINS, ids=[p[0] for p in ENGINE_PINS])
def test_pins_survive_renaming_the_noises(name, case, pinned):
    """Relabelling noise ids (reversed, spread out) must not change the value."""
    atoms, noises, _ = case()
    n = len(noises)
    new_id = {i: 7 * (n - i) + 3 for i in range(n)}
    renamed = [atom(LinForm.make({new_id[i]: c for i, c in a.form.coeffs}, a.form.const), a.op, lin())
               for a in atoms]
    mapping = {new_id[i]: noises[i] for i in range(n)}
    assert str(constraints.probability(renamed, mapping)) == pinned


# --------------------------------------------------------------- whole grids, bit for bit

def test_every_closed_form_of_the_fixture_grids_is_unchanged():
    """str() of every probability of the bench grids, the Sparse m=4 c=1 accuracy check and
    the SVT privacy grid equals tests/fixtures/closed_forms.json (written by
    tests/closed_form_fixture.py before the kernel was optimised): kernel speed-ups
    must not move a single closed form."""
    import json
    from closed_form_fixture import FIXTURE, all_forms
    pinned = json.loads(FIXTURE.read_text())
    now = all_forms()
    assert sorted(now) == sorted(pinned)
    changed = [k for k in pinned if now[k] != pinned[k]]
    assert not changed, [(k, pinned[k], now[k]) for k in changed[:3]]
    assert sum(v is not None for v in pinned.values()) > 1200

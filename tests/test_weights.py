"""Exponential mechanism and user `choose` distributions: exact totals and independent values."""
from fractions import Fraction as F
import math

import mpmath
import pytest

from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.weights import exp_mechanism, normalise

mpmath.mp.dps = 50
EPS = [F(1, 10), F(7, 10), F(2), F(9, 2)]


def direct(rate, scores, eps):
    """P[v] straight from the definition with mpmath."""
    e = mpmath.mpf(eps.numerator) / eps.denominator
    w = {
        v: mpmath.exp(mpmath.mpf((F(rate) * F(f)).numerator) / (F(rate) * F(f)).denominator * e)
        for v, f in scores.items()}
    total = mpmath.fsum(w.values())
    return {v: x / total for v, x in w.items()}


@pytest.mark.parametrize("rate, scores", [
    (F(1, 2), {"a": 0, "b": 1, "c": 3}),
    (1, {0: F(1, 3), 1: F(-2, 3), 2: F(1, 3), 3: 0}),
    (F(3, 4), {i: (i * 7) % 5 for i in range(8)}),
    (2, {"only": 5}),
])
def test_exp_mechanism_sums_to_one_and_matches_definition(rate, scores):
    probs = exp_mechanism(rate, scores)
    assert set(probs) == set(scores)
    assert sum(probs.values(), ExpFrac(0)) == 1
    for eps in EPS:
        want = direct(rate, scores, eps)
        for v, p in probs.items():
            got = p.num.arb_value(eps, prec=200).mid().str(40, radius=False)
            got = mpmath.mpf(got) / mpmath.mpf(p.den.arb_value(eps, prec=200).mid().str(40, radius=False))
            assert abs(got - want[v]) < mpmath.mpf(10) ** -30
            # and against plain floats, as the brief asks
            fl = math.exp(float(F(rate) * F(scores[v])) * float(eps)) / sum(
                math.exp(float(F(rate) * F(f)) * float(eps)) for f in scores.values())
            assert abs(p(float(eps)) - fl) < 1e-12


def test_exp_mechanism_equal_scores_equal_probabilities_and_order():
    probs = exp_mechanism(1, {"x": 2, "y": 2, "z": 0})
    assert probs["x"] == probs["y"]
    # closed form: P[z] = 1 / (1 + 2 e^(2 eps))
    assert probs["z"] == ExpFrac(1, 1 + 2 * ExpPoly.exp(2))
    assert probs["x"] == ExpFrac(1, 2 + ExpPoly.exp(-2))


def test_exp_mechanism_rejects_bad_input():
    with pytest.raises(ValueError):
        exp_mechanism(0, {"a": 1})
    with pytest.raises(ValueError):
        exp_mechanism(1, {})


def test_normalise_user_weights():
    e = ExpPoly.exp(1)
    weights = {"a": ExpFrac(e), "b": ExpFrac(1), "c": ExpFrac(0), "d": ExpFrac(1 + e, 2)}
    probs = normalise(weights)
    assert sum(probs.values(), ExpFrac(0)) == 1
    assert probs["c"].is_zero()
    for eps in (0.3, 1.0, 2.5):
        w = {"a": math.exp(eps), "b": 1.0, "c": 0.0, "d": (1 + math.exp(eps)) / 2}
        tot = sum(w.values())
        for v in w:
            assert abs(probs[v](eps) - w[v] / tot) < 1e-12


def test_normalise_accepts_plain_numbers_and_polys():
    probs = normalise({1: F(1, 3), 2: ExpPoly.ONE, 3: 2})
    assert probs == {1: ExpFrac(F(1, 10)), 2: ExpFrac(F(3, 10)), 3: ExpFrac(F(6, 10))}


def test_normalise_rejects_total_zero():
    e = ExpPoly.exp(1)
    with pytest.raises(ValueError, match="add up to 0"):
        normalise({"a": ExpFrac(e), "b": ExpFrac(-e)})
    with pytest.raises(ValueError, match="add up to 0"):
        normalise({"a": ExpFrac(0)})

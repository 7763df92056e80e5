"""Box privacy by the worst neighbour by monotonicity (privacy/dp/worst_neighbour.py) and the
refutations beside it (issue 38, methods 2 and 4)."""
from __future__ import annotations

import random
from fractions import Fraction as F
from pathlib import Path

import pytest
from flint import arb

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.exact.argmax_integral import argmax_probabilities
from dipc_plus.privacy.dp.box import REFUTED, VERIFIED, decide_box_privacy, lattice_claim
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.dp.worst_neighbour import worst_neighbour_for

THEORIES = Path(__file__).resolve().parent.parent / "theories"


def claim(name: str, **params):
    return load_privacy_claim(str(THEORIES / name), {k: F(v) for k, v in params.items()})


@pytest.mark.parametrize("name", ["noisy_max_privacy_box.toml", "noisy_max_exp_privacy_box.toml"])
def test_noisy_max_verified_and_no_refuted_pair_on_dense_lattice(name):
    c = claim(name)
    res = decide_box_privacy(c)
    assert res.verdict == VERIFIED and res.method.startswith("worst neighbour by monotonicity")
    assert res.worst.k == 1
    assert "1, a lower bound" in res.report()          # the tight sup at the integer points is eps
    dense = check_dp(lattice_claim(c, F(1, 2)))         # 125 points: every pair exact
    assert dense.verified


@pytest.mark.parametrize("kind,name", [("lap", "noisy_max_privacy_box.toml"), ("exp", "noisy_max_exp_privacy_box.toml")])
def test_monotonicity_signs_against_exact_probabilities(kind, name):
    wn = worst_neighbour_for(claim(name))
    rng = random.Random(38)
    for _ in range(6):
        u = [F(rng.randint(0, 8), 4) for _ in range(3)]
        l, delta = rng.randrange(3), F(rng.randint(1, 4), 4)
        v = list(u)
        v[l] += delta
        pu = argmax_probabilities([(kind, F(1, 2), x) for x in u])
        pv = argmax_probabilities([(kind, F(1, 2), x) for x in v])
        for j in range(3):
            dirs = wn.per_output[str(j + 1)][2]
            up = f"q[{l + 1}] up" in dirs
            for eps in (F(1, 3), F(2), F(7)):
                diff = (pv[j] - pu[j]).arb_value(eps)
                assert not (diff < 0) if up else not (diff > 0)


def test_worst_pair_ratio_at_most_e_eps_exactly():
    # u = (1, 1, 1), its worst neighbour for out = 1 is (0, 2, 2): the ratio stays below e^eps
    for eps in (F(1, 10), F(1), F(10)):
        p = argmax_probabilities([("lap", F(1, 2), x) for x in (1, 1, 1)])[0].arb_value(eps)
        q = argmax_probabilities([("lap", F(1, 2), x) for x in (0, 2, 2)])[0].arb_value(eps)
        assert p < (arb(eps.numerator) / eps.denominator).exp() * q


def test_m5_proved_without_search():
    wn = worst_neighbour_for(claim("noisy_max_privacy_box.toml", m=5))
    assert wn.applies and wn.k == 1 and wn.translation


def test_refuses_real_outputs_and_budget_below():
    assert not worst_neighbour_for(claim("noisy_max_value_privacy_box.toml")).applies
    c = claim("noisy_max_privacy_box.toml")
    import dataclasses
    tight = dataclasses.replace(c, adjacency=dataclasses.replace(c.adjacency, bound=F(2)))
    wn = worst_neighbour_for(tight)
    assert not wn.applies and wn.k == 2


def test_jump_mean_refuted_inside_the_jump():
    res = decide_box_privacy(claim("jump_mean_privacy_box.toml"))
    assert res.verdict == REFUTED
    cex = res.counterexample
    xs = [F(cex.input["x"]), F(cex.neighbour["x"])]
    assert any(F(1, 4) < x < F(3, 4) for x in xs)
    assert any(s.sup.endswith("11/2") for s in res.searched)


def test_noisy_max_value_twin_refuted():
    res = decide_box_privacy(claim("noisy_max_value_privacy_box.toml"))
    assert res.verdict == REFUTED

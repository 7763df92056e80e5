"""The Bayes-optimal adversary (dipc_plus.privacy.pufferfish.attack): exact success and advantage as closed
forms in eps, against hand formulas and simulation of the adversary."""
from __future__ import annotations

import math
import os
from fractions import Fraction

import numpy as np
import pytest

import dipc_plus
from dipc_plus.privacy.pufferfish.attack import hypothesis_attack, scenario_attacks
from dipc_plus.privacy.output_tables import TableSource
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.semantics.sampler import simulate
from dipc_plus.semantics.stats import wilson
from conftest import ROOT



def source(name, **params):
    p = dipc_plus.load(os.path.join(ROOT, "programs", f"{name}.dip"), **params).program
    return p, TableSource(p, {}, use_chain=False, expected=2)


def success_at(result, eps: float) -> float:
    """The Bayes-optimal success at eps: the best of the pieces' guessing rules (each is an
    adversary; the piece holding eps has the optimal one)."""
    return max(p.success(eps) for p in result.pieces)


def simulate_adversary(program, prior, guess, eps: Fraction, out_name: str, n=200_000, seed=3):
    """Monte Carlo of the adversary: draw an input from the prior, run, guess from the output."""
    rng = np.random.default_rng(seed)
    weights = np.array([float(w) for _, w in prior])
    counts = rng.multinomial(n, weights / weights.sum())
    wins = 0
    for (u, _), k in zip(prior, counts):
        if not k:
            continue
        r = simulate(program, u, eps, int(k), seed=int(rng.integers(1 << 30)))
        col = r.column(out_name)
        wins += sum(1 for y in col if guess(y) == u)
    return wilson(wins, n, 0.999)


def test_randomized_response_uniform_prior():
    p, src = source("randomized_response")
    prior = [({"x": False}, Fraction(1)), ({"x": True}, Fraction(1))]
    res = hypothesis_attack(src, [(u, w, u["x"]) for u, w in prior])
    assert len(res.pieces) == 1 and res.baseline == Fraction(1, 2)
    for e in (0.2, 1.0, 3.0):
        assert res.pieces[0].success(e) == pytest.approx(math.exp(e) / (1 + math.exp(e)), rel=1e-12)
    w = simulate_adversary(p, prior, lambda y: {"x": bool(y)}, Fraction(1), "y")
    assert w.low <= res.pieces[0].success(1.0) <= w.high


def test_skewed_prior_has_a_breakpoint_at_ln3():
    _, src = source("randomized_response")
    res = hypothesis_attack(src, [({"x": False}, Fraction(1), False), ({"x": True}, Fraction(3), True)])
    assert len(res.pieces) == 2
    cut = res.pieces[0].hi
    b = cut.ball(80)
    assert abs(float(b.mid()) - math.log(3)) < 1e-15
    assert res.pieces[0].success == Fraction(3, 4)          # below ln 3: always guess true
    assert res.advantage(res.pieces[0]) == 0


def test_truncated_geometric_guessing_the_count():
    p, src = source("truncated_geometric", k=2)
    prior = [({"x": x}, Fraction(1)) for x in (0, 1, 2)]
    res = hypothesis_attack(src, [(u, w, u["x"]) for u, w in prior])
    # by hand: guess y itself; success = (1/3) * sum_x P[y = x | x]
    for e in (0.3, 1.0, 2.0):
        a = math.exp(-e)
        hand = (1 / (1 + a) + (1 - a) / (1 + a) + 1 / (1 + a)) / 3
        assert res.pieces[-1].success(e) == pytest.approx(hand, rel=1e-12) or \
            any(pc.success(e) == pytest.approx(hand, rel=1e-12) for pc in res.pieces)
    w = simulate_adversary(p, prior, lambda y: {"x": int(y)}, Fraction(1, 2), "y")
    assert w.low <= success_at(res, 0.5) <= w.high


def test_pufferfish_scenarios_attack():
    claim = load_privacy_claim(os.path.join(ROOT, "theories", "truncated_geometric_count_pufferfish.toml"))
    results = {r.name.split(":")[0]: r for r in scenario_attacks(claim)}
    contagious = [r for n, r in results.items() if n.startswith("contagious")][0]
    # contagious at p = 1/2: guessing the count 0 or 2 from the output; success 1 - e^-eps / 2
    for e in (0.5, 1.5):
        assert contagious.pieces[0].success(e) == pytest.approx(1 - math.exp(-e) / 2, rel=1e-12)
    independent = [r for n, r in results.items() if n.startswith("independent")][0]
    # correlation helps the adversary: higher success at every eps
    for e in (0.5, 1.0, 3.0):
        assert success_at(contagious, e) > success_at(independent, e)

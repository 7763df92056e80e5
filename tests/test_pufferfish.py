"""Pufferfish privacy (dipc_plus.privacy.pufferfish.check): FAIER's case studies, exact answers checked
against an independent enumeration of FAIER's own probability tables and against simulation."""
from __future__ import annotations

import itertools
import os
from fractions import Fraction

import numpy as np
import pytest

from dipc_plus.errors import UserError
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.exact.param_poly import poly_eval
from dipc_plus.decision.param_decide import bernstein_decide as _bernstein_decide, decide_univariate as _decide_univariate
from dipc_plus.privacy.pufferfish.check import check_pufferfish
from dipc_plus.privacy.pufferfish.loss import pufferfish_loss
from dipc_plus.semantics.sampler import simulate
from dipc_plus.semantics.stats import wilson
from conftest import ROOT, THEORIES


ROW = {0: [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)], 1: [Fraction(1, 3)] * 3,
       2: [Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)]}   # FAIER Fig. 1a (alpha = 1/2)


def conditional(prior: list, secret, out) -> Fraction:
    """P[y = out | secret] for the count mechanism, from FAIER's rows (independent of dipc)."""
    num = sum(w * ROW[sum(x)][out] for x, w in prior if secret(x))
    den = sum(w for x, w in prior if secret(x))
    return num / den


def test_count_mechanism_contagious_refuted_independent_verified():
    claim = load_privacy_claim(os.path.join(THEORIES, "truncated_geometric_count_pufferfish.toml"))
    result = check_pufferfish(claim)
    assert not result.verified
    cex = result.counterexample
    assert cex.scenario.startswith("contagious")
    p = cex.params["p"]
    prior = [((0, 0), 1 - p), ((1, 1), p)]
    sick = lambda x: x[0] == 1
    y = cex.output["y"]
    pa = conditional(prior, sick if cex.secret == "sick" else (lambda x: not sick(x)), y)
    pb = conditional(prior, (lambda x: not sick(x)) if cex.secret == "sick" else sick, y)
    assert (pa, pb) == (cex.p, cex.q) and pa / pb == 4
    # the independent scenario alone: every ratio at most 2 for a grid of p (brute force)
    for k in range(1, 20):
        p = Fraction(k, 20)
        prior = [((a, b), (p if a else 1 - p) * (p if b else 1 - p)) for a in (0, 1) for b in (0, 1)]
        for y in range(3):
            r = conditional(prior, sick, y) / conditional(prior, lambda x: not sick(x), y)
            assert Fraction(1, 2) <= r <= 2
    loss = pufferfish_loss(claim)
    assert loss.worst[6] == 4


def test_faier_example_4_5_as_printed():
    """FAIER's own conditioning (present = count >= 1): verified for every p; the conditional
    probabilities are the paper's text values (e.g. P[0 | absent] = (p^2 - 4p + 4)/6)."""
    claim = load_privacy_claim(os.path.join(THEORIES, "truncated_geometric_pufferfish.toml"))
    assert check_pufferfish(claim).verified
    sc = claim.scenarios[0]
    for p in (Fraction(1, 3), Fraction(3, 4)):
        prior = [((x,), poly_eval(w, (p,))) for (u, w) in sc.support for x in [u["x"]]]
        absent = conditional([((x[0], 0), w) for x, w in prior], lambda x: True, 0)
        present = conditional([((x[0], 0), w) for x, w in prior], lambda x: x[0] >= 1, 0)
        assert absent == (p * p - 4 * p + 4) / 6
        assert present == (4 - 3 * p) / (12 - 6 * p)


def faier_noisy_max_improved(v) -> dict:
    out: dict = {}
    for noisy in itertools.product(range(3), repeat=len(v)):
        w = Fraction(1)
        for x, y in zip(v, noisy):
            w *= ROW[x][y]
        ties = [i + 1 for i, y in enumerate(noisy) if y == max(noisy)]
        for i in ties:
            out[i] = out.get(i, 0) + w / len(ties)
    return out


def test_faier_examples_6_2_and_6_3():
    ok = load_privacy_claim(os.path.join(THEORIES, "discrete_noisy_max_improved_pufferfish.toml"))
    assert check_pufferfish(ok).verified
    bad = load_privacy_claim(os.path.join(THEORIES, "discrete_noisy_max_improved_contagious_pufferfish.toml"))
    res = check_pufferfish(bad)
    assert not res.verified
    cex = res.counterexample
    assert cex.params == {"pA": Fraction(1, 2), "pB": Fraction(1, 2), "pC": Fraction(1, 2)}
    # independent: enumerate the prior at p = 1/2 with FAIER's rows
    binom = {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}

    def cond(a):
        num = den = Fraction(0)
        for b, c in itertools.product(range(3), repeat=2):
            w = binom[b] * binom[c]
            num += w * faier_noisy_max_improved([a, b, c]).get(cex.output["out"], 0)
            den += w
        return num / den
    first, second = (2, 0) if cex.secret == "hasA" else (0, 2)
    assert (cond(first), cond(second)) == (cex.p, cex.q)
    assert cex.p > 2 * cex.q


def test_pufferfish_on_an_eps_interval_with_a_parameter_simulates(tmp_path):
    """Contagious records, claim eps-Pufferfish for every eps: the secret moves the count by 2,
    so it fails; the counterexample (p, eps) is rational and its conditional probabilities are
    checked by sampling inputs from the prior and running the program."""
    body = open(os.path.join(THEORIES, "truncated_geometric_count_pufferfish.toml")).read()
    body = body.replace('eps = "ln(2)"', 'eps = "(0, inf)"').replace('path = "../', f'path = "{ROOT}/')
    path = tmp_path / "c.toml"
    path.write_text(body)
    claim = load_privacy_claim(str(path))
    res = check_pufferfish(claim)
    assert not res.verified
    cex = res.counterexample
    eps, p = cex.eps, cex.params["p"]
    assert isinstance(eps, Fraction)
    sc = [s for s in claim.scenarios if s.name == cex.scenario][0]
    pred = claim.secrets[cex.secret]
    other = claim.secrets[cex.other]
    rng = np.random.default_rng(5)

    def estimate(secret, n=200_000):
        support = [(u, float(poly_eval(w, (p,)))) for u, w in sc.support if secret.holds(u)]
        weights = np.array([w for _, w in support])
        counts = rng.multinomial(n, weights / weights.sum())
        hits = 0
        for (u, _), k in zip(support, counts):
            if k:
                r = simulate(claim.program, u, eps, int(k), seed=int(rng.integers(1 << 30)))
                hits += int((r.column("y") == cex.output["y"]).sum())
        return wilson(hits, n, 0.999)
    w1, w2 = estimate(pred), estimate(other)
    assert w1.low <= cex.p(float(eps)) <= w1.high
    assert w2.low <= cex.q(float(eps)) <= w2.high


def test_univariate_decision_is_exact():
    third = Fraction(1, 3)
    square = {(2,): Fraction(1), (1,): -2 * third, (0,): third * third}   # (p - 1/3)^2
    assert _decide_univariate(square, (Fraction(0), Fraction(1), False, False)) is None
    narrow = dict(square)
    narrow[(0,)] -= Fraction(1, 10 ** 6)                                    # fails near 1/3 only
    bad = _decide_univariate(narrow, (Fraction(0), Fraction(1), False, False))
    assert bad is not None
    x = bad[0]
    assert abs(x - third) < Fraction(1, 1000) and poly_eval(narrow, (x,)) < 0


def test_bernstein_never_guesses():
    """(pA - pB)^2 >= 0 holds but touches 0 on a line: subdivision cannot certify it, so the
    check stops with an error instead of answering."""
    G = {(2, 0): Fraction(1), (1, 1): Fraction(-2), (0, 2): Fraction(1)}
    box = [(Fraction(0), Fraction(1), False, False)] * 2
    with pytest.raises(UserError, match="could not decide"):
        _bernstein_decide(G, box, check=lambda c: c >= 0,
                          refute=lambda pt: pt if poly_eval(G, pt) < 0 else None, max_boxes=200)
    shifted = dict(G)
    shifted[(0, 0)] = Fraction(1, 100)          # strictly positive: certified
    assert _bernstein_decide(shifted, box, check=lambda c: c >= 0,
                             refute=lambda pt: pt if poly_eval(shifted, pt) < 0 else None) is None
    negative = dict(G)
    negative[(0, 0)] = Fraction(-1, 100)        # fails on the diagonal: a rational witness
    pt = _bernstein_decide(negative, box, check=lambda c: c >= 0,
                           refute=lambda pt: pt if poly_eval(negative, pt) < 0 else None)
    assert poly_eval(negative, pt) < 0

"""Claims tight only in the limit eps -> infinity (issue 39, item 4): beta - P[error] -> 0 as eps
grows with x = eps*d -> 0, so the flat bound of the tail (every decaying eps-part at its largest)
leaves a negative constant and the tail stayed open; the dominant terms in eps, nested by decay
(`decision.dominant_tail`), decide it.  Verdicts against the exact per-point path on a lattice of
the box, and the gap against an independent mpmath evaluation."""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
from conftest import THEORIES, run_main

from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.box_reduction import REFUTED, VERIFIED
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.decision.certified import Interval
from dipc_plus.decision.dominant_tail import nested_parts, strip_by_dominant_terms
from dipc_plus.decision.two_variable import REFUTED as REFUTED_2V, ExpPoly2, decide_two_variable, strip_tail

F = Fraction
LIMIT = THEORIES / "noisy_compare_limit_inf_box.toml"
T = ExpPoly2.term
EVERY_EPS = Interval(F(0), None, False, False)
# beta - P[error] of the claim along the worst point, d = dd, x = eps*d:
# (e^(-x) - (1 + x) e^(-2x))/2 + e^(-eps)/2 - e^(-2 eps)/4
GAP = (T(F(1, 2), B=-1) - T(F(1, 2), B=-2) - T(F(1, 2), 1, 1, B=-2) + T(F(1, 2), A=-1) - T(F(1, 4), A=-2))


def test_the_parts_are_nested_slowest_first():
    base, parts = nested_parts(GAP.eps_groups(), F(8))
    assert base.arb_value(F(0)).contains(0)                  # G_0(0) = 0: the limit is tight there
    # R_1 bounds e^(-eps) on [8, inf), R_2 the ratio e^(-2 eps)/e^(-eps) = e^(-eps): both e^(-8)
    assert [float(R) for R, _ in parts] == pytest.approx([mpmath.exp(-8)] * 2, rel=1e-12)


def test_the_flat_bound_fails_and_the_nested_one_proves_the_tail():
    groups = GAP.eps_groups()
    assert strip_by_dominant_terms(groups, F(8), F(0), F(8))
    assert strip_tail(GAP, F(0), F(1), F(8)) == (F(8), "dominant terms in eps")


def test_a_tail_that_is_negative_is_not_proved():
    """With -e^(-eps)/2 instead, F < 0 near x = 0 at every large eps: nothing is proved, and the
    sentence is refuted at a certified point."""
    worse = GAP - T(1, A=-1)
    assert not strip_by_dominant_terms(worse.eps_groups(), F(8), F(0), F(8))
    assert decide_two_variable(worse, F(0), F(1), EVERY_EPS).verdict == REFUTED_2V


def test_the_gap_is_positive_far_out_in_mpmath():
    rng = random.Random(5)
    for _ in range(200):
        eps = F(rng.randint(8, 400))
        d = F(rng.randint(1, 10 ** 6), 10 ** 6) ** 3       # many points with x = eps*d near 0
        with mpmath.workdps(80):
            e = mpmath.mpf(eps.numerator) / eps.denominator
            x = mpmath.mpf(d.numerator) / d.denominator * e
            gap = (mpmath.exp(-x) - (1 + x) * mpmath.exp(-2 * x)) / 2 + mpmath.exp(-e) / 2 - mpmath.exp(-2 * e) / 4
        assert gap > 0
        assert GAP.at(d, eps) > 0 and GAP.at(d, eps).contains(gap)


@pytest.mark.parametrize("kappa", [1, 2])
def test_the_claim_against_every_lattice_point(kappa):
    claim = load_claim(str(LIMIT)).accuracy
    result = decide_box(claim, kappa)
    assert result.verdict == (VERIFIED if kappa == 1 else REFUTED)
    if kappa == 1:
        assert all("dominant terms in eps" in r.method for r in result.regions)
    checker = AccuracyChecker(claim)
    points = [{"q1": F(i, 4) - 1, "q2": F(j, 4) - 1} for i in range(9) for j in range(9)]
    refuted = [u for u in points if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]
    assert bool(refuted) == (kappa == 2)


def test_the_cli_verifies_it():
    code, out, _ = run_main(["accuracy", str(LIMIT)])
    assert code == 0 and "dominant terms in eps" in out

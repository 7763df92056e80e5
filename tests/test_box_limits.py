"""Claims tight only in a limit (issue 39, item 4): beta - P[error] -> 0 as eps -> 0, so every
rectangle of the branch-and-bound that touches eps = 0 stays open; the series of the closed form
in eps (`decision.series_strip`) decides that strip.  Verdicts against the exact per-point path
at the rational points of a lattice of the box, and the strip's proof against certified values."""
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
from dipc_plus.decision.series_strip import leading_order, strip_at_zero
from dipc_plus.decision import two_variable
from dipc_plus.decision.two_variable import UNDECIDED, ExpPoly2, Rect, branch_and_bound, decide_two_variable

F = Fraction
LIMIT = THEORIES / "noisy_compare_limit_box.toml"
T = ExpPoly2.term
# beta - P[error] of the limit claim along the worst point, d = dd, x = eps*d:
# e^(-x)/2 + (1 - (1 + eps) e^(-eps))/2 - (1 + x) e^(-2x)/2
GAP = (T(F(1, 2), B=-1) + ExpPoly2.const(F(1, 2)) - T(F(1, 2), A=-1) - T(F(1, 2), 1, 0, A=-1)
       - T(F(1, 2), B=-2) - T(F(1, 2), 1, 1, B=-2))


def test_the_leading_term_is_computed_exactly():
    assert leading_order(GAP.terms) == (2, {0: F(1, 4), 2: F(1, 4)})     # eps^2 (1 + d^2)/4


def test_the_strip_is_proved_and_holds_at_random_points():
    delta = strip_at_zero(GAP.terms, F(0), F(1))
    assert delta is not None and delta > 0
    rng = random.Random(3)
    for _ in range(200):
        d, eps = F(rng.randint(0, 1000), 1000), delta * F(rng.randint(1, 1000), 1000)
        with mpmath.workdps(60):     # the gap written out again in mpmath: about eps^2 (1 + d^2)/4 > 0
            e = mpmath.mpf(eps.numerator) / eps.denominator
            x = mpmath.mpf(d.numerator) / d.denominator * e
            gap = mpmath.exp(-x) / 2 + (1 - (1 + e) * mpmath.exp(-e)) / 2 - (1 + x) * mpmath.exp(-2 * x) / 2
        assert gap > 0


def test_a_negative_limit_is_not_proved():
    """Subtract eps^2 (1 + d^2)/2: the leading term is negative, the strip is not proved."""
    worse = GAP - T(F(1, 2), 2, 0) - T(F(1, 2), 2, 2)
    assert strip_at_zero(worse.terms, F(0), F(1)) is None


def test_the_branch_and_bound_alone_leaves_the_strip_open(monkeypatch):
    I = Interval(F(0), F(4), False, True)
    alone = branch_and_bound(GAP, Rect(F(0), F(1), F(0), F(4)), 2000)
    assert alone.verdict == UNDECIDED and any(r.e0 == 0 for r in alone.undecided)
    monkeypatch.setattr(two_variable, "BNB_RECTANGLES", 2000)
    found = decide_two_variable(GAP, F(0), F(1), I)
    assert found.verdict == VERIFIED and "series at eps -> 0" in found.method


@pytest.mark.parametrize("kappa", [1, 2])
def test_the_limit_claim_against_every_lattice_point(kappa):
    claim = load_claim(str(LIMIT)).accuracy
    result = decide_box(claim, kappa)
    assert result.verdict == (VERIFIED if kappa == 1 else REFUTED)
    if kappa == 1:
        assert all("series at eps -> 0" in r.method for r in result.regions)
    checker = AccuracyChecker(claim)
    points = [{"q1": F(i, 4) - 1, "q2": F(j, 4) - 1} for i in range(9) for j in range(9)]
    refuted = [u for u in points if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]
    assert bool(refuted) == (kappa == 2)


def test_the_cli_verifies_it():
    code, out, _ = run_main(["accuracy", str(LIMIT)])
    assert code == 0 and "series at eps -> 0" in out

"""Det regions of a box claim that the box does not meet (issue 39, item 2): a region of share 0
holds no input with dd > 0, so it is not applicable, whatever its monotonicity, and the summary
line of an undecided box says what the other regions really are."""
from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import THEORIES, run_main

from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.box_reduction import NOT_APPLICABLE, UNDECIDED, VERIFIED
from dipc_plus.accuracy.result import BOX, AccuracyResult, RegionResult
from dipc_plus.accuracy.box_sweep import box_sweep
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim

F = Fraction
TWO = THEORIES / "two_thresholds_box.toml"


def load(path, **sets):
    return load_claim(str(path), {k: F(v) for k, v in sets.items()}).accuracy


def test_regions_that_miss_the_box_are_not_applicable():
    result = decide_box(load(TWO))
    assert result.verdict == VERIFIED and not result.vacuous
    by_level = {r.det["level"]: r for r in result.regions}
    assert by_level[2].verdict == VERIFIED and by_level[2].share == 1
    for level in (0, 1):       # level 1 is not monotone in q: before, it made the box undecided
        assert by_level[level].share == 0
        assert by_level[level].verdict == NOT_APPLICABLE and by_level[level].method == "share 0 of the box"


def test_the_cli_verifies_it_with_exit_0():
    code, out, _ = run_main(["accuracy", str(TWO)])
    assert code == 0 and "VERIFIED on the box q in [1, 3]" in out and "undecided" not in out


@pytest.mark.parametrize("kappa", [1, 2, 3])
def test_box_verdict_agrees_with_every_rational_point(kappa):
    """P[error] = exp(-eps*(q - 1))/2 on q > 1: beta/2 holds exactly, beta/3 fails; the box
    against the exact per-point path at the 1/8-lattice of [1, 3] (q = 1 has dd = 0)."""
    claim = load(TWO)
    checker = AccuracyChecker(claim)
    refuted = [q for q in (1 + F(k, 8) for k in range(17))
               if any(r.verdict == "refuted" for r in checker.check_input({"q": q}, kappa))]
    result = decide_box(claim, kappa)
    assert (result.verdict == VERIFIED) == (not refuted)
    assert (kappa <= 2) == (result.verdict == VERIFIED)


def test_box_sweep_no_longer_stops():
    res = box_sweep(load(TWO))
    assert res.best_kappa == 2
    assert res.kappa_star is not None and res.kappa_star.lo == 2 == res.kappa_star.hi


def test_a_region_with_a_positive_share_is_still_decided_on_its_own():
    """On [-1, 3] the region of level 1 has share 1/4 and is not monotone: not skipped."""
    claim = load(TWO)
    claim.points.bounds["q"] = (F(-1), F(3))
    result = decide_box(claim)
    level1 = next(r for r in result.regions if r.det["level"] == 1)
    assert level1.share == F(1, 4) and level1.verdict == UNDECIDED and "check 'monotone'" in level1.reason


def region(verdict, condition):
    return RegionResult({"level": 0}, condition, F(1, 2), F(0), verdict, "m")


@pytest.mark.parametrize("others, text", [
    ([VERIFIED], "every other region is verified"),
    ([NOT_APPLICABLE, NOT_APPLICABLE], "every other region is not applicable"),
    ([VERIFIED, NOT_APPLICABLE], "of the others, 1 verified, 1 not applicable"),
    ([], "no other region"),
])
def test_the_undecided_summary_line_says_what_the_other_regions_are(others, text):
    result = AccuracyResult(load(TWO), inputs_kind=BOX)
    result.regions = [region(UNDECIDED, "q > 1")] + [region(v, f"r{k}") for k, v in enumerate(others)]
    line = next(x for x in result.report().splitlines() if x.startswith("UNDECIDED"))
    assert line.endswith(text)

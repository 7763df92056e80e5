"""The certified branch-and-bound over (input, eps) for box det regions with no proved monotonicity
(`accuracy.region_bnb`, issue 39 item 3).

The middle level of a three-level output reads its input with both signs (q > 0 and q <= 1), so
the corner reduction cannot name a worst point there and the region was UNDECIDED.  Here a true
claim is verified and a false one refuted by the branch-and-bound, each cross-checked with the
exact per-point engine on a lattice of the box; and seeds of the box generator's long run that
stayed UNDECIDED are now decided, with the generator's own contradiction checks.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from dipc_plus.accuracy.box import decide_box
from dipc_plus.accuracy.box_reduction import REFUTED, UNDECIDED, VERIFIED
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim

import test_box_accuracy_generator as generator

THREE_LEVELS = """\
input q: real
output o: 0..2
r <- Lap(eps, q)
if r > 1 then
    o <- 2
else
    if r > 0 then
        o <- 1
    else
        o <- 0
    end
end
"""

CLAIM = """\
[program]
path = "{program}"

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "{beta}"
eps = "[1/2, 2]"

[accuracy.inputs]
box = {{ q = [-1, 2] }}
"""

BNB = "certified branch-and-bound"


def claim_of(tmp_path, beta: str):
    (tmp_path / "three.dip").write_text(THREE_LEVELS)
    path = tmp_path / "claim.toml"
    path.write_text(CLAIM.format(program=tmp_path / "three.dip", beta=beta))
    return load_claim(str(path)).accuracy


def refuted_points(claim, kappa: int) -> list:
    """The points of the box's 1/8-lattice the exact per-point engine refutes."""
    checker = AccuracyChecker(claim)
    (lo, hi), = claim.points.bounds.values()
    points = [{"q": lo + k * F(1, 8)} for k in range(int((hi - lo) * 8) + 1)]
    return [u for u in points if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]


def middle(result):
    (region,) = [r for r in result.regions if r.det.get("o") == 1]
    return region


def test_three_levels_verified_where_no_monotonicity_is_proved(tmp_path):
    # P_err at q = d in the middle level is e^(-eps d)/2 + e^(-eps (1 - d))/2 <= e^(-eps d) <= 3/2 e^(-eps d)
    claim = claim_of(tmp_path, "3/2*exp(-alpha*eps)")
    result = decide_box(claim, 1)
    assert result.verdict == VERIFIED, [(r.condition, r.verdict, r.reason) for r in result.regions]
    assert BNB in middle(result).method
    assert refuted_points(claim, 1) == []


def test_three_levels_false_variant_refuted_at_a_rechecked_point(tmp_path):
    # with kappa = 2, at q = 1/2 (dd = 1/2): e^(-eps/2) > 3/4 e^(-eps/2)
    claim = claim_of(tmp_path, "3/2*exp(-alpha*eps)")
    result = decide_box(claim, 2)
    assert result.verdict == REFUTED
    assert BNB in middle(result).method
    u = result.counterexample.input
    assert 0 < u["q"] < 1
    assert any(r.verdict == REFUTED for r in AccuracyChecker(claim).check_input(u, 2))
    bad = refuted_points(claim, 2)
    assert bad and all(0 < p["q"] < 1 for p in bad)   # the monotone outer levels hold


def test_a_tight_claim_stays_undecided_with_its_open_sub_boxes(tmp_path):
    # beta = e^(-alpha eps): equality at q = 1/2 for every eps; nothing refutes, nothing proves it
    claim = claim_of(tmp_path, "exp(-alpha*eps)")
    result = decide_box(claim, 1)
    region = middle(result)
    if region.verdict == REFUTED:
        pytest.fail(f"a true claim refuted at {result.counterexample.input}")
    assert region.verdict == UNDECIDED and "sub-boxes open" in region.reason and "q in [" in region.reason


# seeds of the generator's long run (DIPC_LONG=1) that were UNDECIDED before the branch-and-bound:
# middle levels of three-level outputs, all refuted now (within the generator's budget)
FORMERLY_UNDECIDED = (101, 107, 116, 128)


@pytest.mark.parametrize("seed", FORMERLY_UNDECIDED)
def test_formerly_undecided_generator_seeds_are_decided(seed, tmp_path):
    outcome = generator.decide_case(generator.SEED + seed, tmp_path)   # asserts no contradiction
    assert outcome.split(",")[0] in (VERIFIED, REFUTED), outcome

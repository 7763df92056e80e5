"""Box claims whose det regions are polyhedra, not boxes (issue 39, item 3): dd is the least
facet distance (a.q - b)/||a||_1, the worst point at each d minimises every input part of the
half-spaces over the region shrunk by d; verdicts against the exact per-point path at the
rational points of a lattice of the box (where dd comes from the LP, an independent route)."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from conftest import THEORIES, run_main

from dipc_plus.accuracy.box import decide_box, det_regions_by_shape
from dipc_plus.accuracy.box_reduction import REFUTED, UNDECIDED, VERIFIED
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.lp_dd import linf_to_region

F = Fraction
COMPARE = THEORIES / "noisy_compare_box.toml"
SUM = """input q1: real
input q2: real
output high: bool
r <- Lap(eps, q1 + q2)
if r >= 1 then
    high <- true
else
    high <- false
end
"""
SUM_CLAIM = """[program]
path = "sum.dip"
[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "exp(-alpha*eps)"
eps = "(0, inf)"
[accuracy.inputs]
box = { q1 = [-1, 1], q2 = [-1, 1] }
"""


def lattice_refutes(claim, kappa, step=F(1, 4)) -> list:
    checker = AccuracyChecker(claim)
    n = int(2 / step)
    points = [{"q1": -1 + i * step, "q2": -1 + j * step} for i in range(n + 1) for j in range(n + 1)]
    return [u for u in points if any(r.verdict == REFUTED for r in checker.check_input(u, kappa))]


@pytest.fixture
def sum_claim(tmp_path):
    (tmp_path / "sum.dip").write_text(SUM)
    (tmp_path / "sum.toml").write_text(SUM_CLAIM)
    return lambda: load_claim(str(tmp_path / "sum.toml")).accuracy


@pytest.mark.parametrize("kappa", [1, 2, 3])
def test_noisy_comparison_against_every_lattice_point(kappa):
    """P[error] = (1 + x) e^(-2x)/2 at dd = x/eps: beta/2 holds (a limit as x -> 0), beta/3 fails."""
    claim = load_claim(str(COMPARE)).accuracy
    result = decide_box(claim, kappa)
    assert result.verdict == (VERIFIED if kappa <= 2 else REFUTED)
    assert all(r.method.startswith("corner") for r in result.regions if r.verdict == VERIFIED)
    refuted = lattice_refutes(claim, kappa)
    assert bool(refuted) == (kappa == 3)
    if kappa == 3:    # the printed input re-checks, and it is not at a lattice point only
        cex = result.counterexample
        assert any(r.verdict == REFUTED for r in AccuracyChecker(claim).check_input(cex.input, kappa))


@pytest.mark.parametrize("kappa", [2, 3])
def test_a_sum_of_inputs_against_every_lattice_point(sum_claim, kappa):
    """det region q1 + q2 >= 1 meets the box in a triangle: P[error] = e^(-2x)/2 there, and below
    the facet the same; beta/2 holds, beta/3 fails."""
    result = decide_box(sum_claim(), kappa)
    assert result.verdict == (VERIFIED if kappa == 2 else REFUTED)
    assert bool(lattice_refutes(sum_claim(), kappa)) == (kappa == 3)


def test_the_cli_decides_it_and_names_the_facet_argument():
    code, out, _ = run_main(["accuracy", str(COMPARE)])
    assert code == 0 and "monotone along the facets" in out and "undecided" not in out
    code, out, _ = run_main(["accuracy", str(COMPARE), "--kappa", "3"])
    assert code == 1 and "REFUTED at" in out


def test_facet_distance_is_the_lp_distance_to_the_complement(sum_claim):
    """dd(q) = min over facets of (a.q - b)/||a||_1 equals the exact LP distance to every other
    region, at random rational points of each polyhedral region."""
    claim = sum_claim()
    names = list(claim.points.bounds)
    _, polys, _ = det_regions_by_shape(claim.program, names)
    from dipc_plus.claims import noise_free
    paths = noise_free.paths(claim.program, {}, names)
    rng = random.Random(7)
    for poly in polys:
        others = [list(p.condition) for p in paths
                  if {n: p.outputs[n] for n, _ in claim.program.outputs} != poly.det]
        for _ in range(20):
            q = {n: F(rng.randint(-40, 40), 8) for n in names}
            if not all(sum((a * q[n] for n, a in c.items()), F(0)) > b for c, b, _ in poly.facets):
                continue
            facet = min((sum((a * q[n] for n, a in c.items()), F(0)) - b) / norm for c, b, norm in poly.facets)
            lp_dd = min(linf_to_region(q, region, names)[0] for region in others)
            assert facet == lp_dd


def test_mixed_signs_along_a_facet_are_not_guessed(tmp_path):
    """The same input part with both signs on the paths to one output: undecided, by name."""
    (tmp_path / "sum.dip").write_text(SUM.replace("if r >= 1 then", "s <- Lap(eps, -q1 - q2)\nif r >= 1 and s >= -3 then"))
    (tmp_path / "sum.toml").write_text(SUM_CLAIM)
    result = decide_box(load_claim(str(tmp_path / "sum.toml")).accuracy)
    assert result.verdict == UNDECIDED
    assert any("check 'monotone'" in r.reason and "both signs" in r.reason for r in result.regions)

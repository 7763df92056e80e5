"""Reference mode (`--reference`) decides box claims of two or more varying inputs by the certified
branch-and-bound of `accuracy.region_bnb` on every det region (box regions, a union of paths), where
before only the box's vertices and centre were searched (UNDECIDED unless one refuted).  The verdict
is compared with the default mode's (corner reduction, polyhedral worst point), never opposite."""
from __future__ import annotations

import pathlib

import pytest

import dipc_plus

ROOT = pathlib.Path(__file__).resolve().parent.parent

CLAIM = """
[program]
path = "{program}"

[accuracy]
det = "noise-free"
input_distance = "linf"
output_distance = "zero-one"
alpha = "{alpha}"
gamma = 0
beta = "{beta}"
eps = "[1, 2]"

[accuracy.inputs]
box = {{ q1 = [-1, 1], q2 = [-1, 1] }}
"""


def _claim(tmp_path, program: str, beta: str, alpha: str = "dd") -> str:
    path = tmp_path / "claim.toml"
    path.write_text(CLAIM.format(program=ROOT / "programs" / program, beta=beta, alpha=alpha))
    return str(path)


@pytest.mark.parametrize("program", ["either_nonnegative.dip", "noisy_compare.dip"])
def test_two_input_box_verified_in_reference_mode(tmp_path, program):
    """On eps in [1, 2] beta = e^(-x/2) (x = eps*dd <= 2) is above P_err with room on every region (on
    the quadrant of either_nonnegative beta - P_err = e^(-x/2) - e^(-x) + e^(-2x)/4), so the b&b closes
    every region: the union of three paths and the quadrant; the half-spaces q1 >= q2, q1 < q2."""
    claim = _claim(tmp_path, program, "exp(-alpha*eps/2)")
    default = dipc_plus.check_accuracy(claim)
    reference = dipc_plus.check_accuracy(claim, reference=True)
    assert default.verdict == "verified"
    assert reference.verdict == "verified", reference.text
    data = reference.to_json()
    assert data.get("mode") == "reference"
    assert all("branch-and-bound" in r["method"] or r["verdict"] == "not applicable" for r in data["regions"])


def test_two_input_box_refuted_inside_in_reference_mode(tmp_path):
    """beta/2 fails on the quadrant q1, q2 < 0 near its corner (0, 0), where dd -> 0: both modes refute,
    the reference counterexample re-checked by the per-point path (a point inside the box)."""
    claim = _claim(tmp_path, "either_nonnegative.dip", "exp(-alpha*eps)")
    default = dipc_plus.check_accuracy(claim, kappa=2)
    reference = dipc_plus.check_accuracy(claim, kappa=2, reference=True)
    assert default.verdict == reference.verdict == "refuted"
    cex = reference.counterexample
    assert cex is not None and all(-1 <= cex.input[n] <= 1 for n in ("q1", "q2"))


def test_numeric_alpha_two_inputs_in_reference_mode(tmp_path):
    """A numeric alpha (no two-ends rule: that one reads dd = d on both ends) goes to the b&b as well."""
    claim = _claim(tmp_path, "noisy_compare.dip", "exp(-alpha*eps)", alpha="1/4")
    default = dipc_plus.check_accuracy(claim)
    reference = dipc_plus.check_accuracy(claim, reference=True)
    assert default.verdict == "verified"
    assert reference.verdict == "verified", reference.text


def test_unbounded_eps_stays_undecided_not_opposite():
    """With eps in (0, inf) and beta -> 0 as eps -> inf, F = beta - P_err tends to 0 on the tail, which
    no sub-box enclosure closes: reference mode says UNDECIDED naming the b&b's budget, never refuted."""
    path = ROOT / "theories" / "noisy_compare_box.toml"
    reference = dipc_plus.check_accuracy(str(path), reference=True, limits={"region_boxes": 200})
    assert dipc_plus.check_accuracy(str(path)).verdict == "verified"
    assert reference.verdict == "undecided"
    assert "region_boxes" in reference.text

"""A privacy box of one point (`privacy.dp.box.single_point_holds`).

Why: a box [c, c]^m has no pair but (u, u), so every budget e^budget >= 1 holds, 0*eps included;
every loss bound (at least eps per unit moved) missed it and a real output was left UNDECIDED.
"""
from __future__ import annotations

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.box import METHOD_SINGLE_POINT, REFUTED, VERIFIED, decide_box_privacy

FINITE = "input q: real[2]\noutput o: bool\nx <- Lap(eps, q[1])\no <- x >= 0\n"
REAL = "input q: real[2]\noutput o: real\no <- Lap(eps, q[1] + q[2])\n"
BOTH = "input q: real[2]\noutput o: bool\noutput r: real\nx <- Lap(eps, q[1])\no <- x >= 0\nr <- Lap(eps, q[2])\n"


def decide(tmp_path, program: str, box: str, budget: str = "0*eps", adjacency: str = "linf"):
    (tmp_path / "p.dip").write_text(program)
    claim = tmp_path / "claim.toml"
    claim.write_text(f'[program]\npath = "p.dip"\n\n[privacy]\nadjacency = "{adjacency}"\nbound = "1"\n'
                     f'budget = "{budget}"\n\n[privacy.inputs]\nbox = {{ q = {box} }}\n')
    return decide_box_privacy(load_privacy_claim(str(claim)))


@pytest.mark.parametrize("program", [FINITE, REAL, BOTH], ids=["finite", "real", "both"])
@pytest.mark.parametrize("adjacency", ["linf", "one-position"])
def test_a_single_point_box_holds_any_budget_of_at_least_one(tmp_path, program, adjacency):
    res = decide(tmp_path, program, '["1/2", "1/2"]', adjacency=adjacency)
    assert (res.verdict, res.method) == (VERIFIED, METHOD_SINGLE_POINT)
    assert "VERIFIED" in res.report()


def test_a_box_of_two_points_is_not_taken_for_one(tmp_path):
    """[0, 1]: the pair (0, 1) moves the mean by 1, a loss of eps > 0 = the budget."""
    res = decide(tmp_path, FINITE, "[0, 1]")
    assert res.verdict == REFUTED

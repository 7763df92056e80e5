"""The refutation of a box privacy claim at points strictly inside the cells of its input-only
comparisons (privacy/dp/cell_points.py; issue 38, method 4): a jump no lattice meets."""
from __future__ import annotations

from fractions import Fraction as F

from conftest import run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.dp.box import REFUTED, decide_box_privacy
from dipc_plus.privacy.dp.cell_points import coordinate_cuts, coordinate_values, neighbours
from dipc_plus.privacy.dp.density_ratio import input_only_comparisons

JUMP = """input  x: real
output out: real

if 1/3 < x and x < 2/5 then
    out <- Lap(eps, x + 5)
else
    out <- Lap(eps, x)
end
"""


def write_claim(tmp_path, program: str, box: str, adjacency: str = "linf", bound: str = "1/2",
                extra: str = "") -> str:
    (tmp_path / "p.dip").write_text(program)
    path = tmp_path / "claim.toml"
    path.write_text(f'[program]\npath = "{tmp_path / "p.dip"}"\n\n[privacy]\nadjacency = "{adjacency}"\n'
                    f'bound = "{bound}"\nbudget = "eps"\neps = "(0, inf)"\n{extra}\n[privacy.inputs]\nbox = {box}\n')
    return str(path)


def test_jump_between_lattice_points_refuted_inside_the_jump(tmp_path):
    res = decide_box_privacy(load_privacy_claim(write_claim(tmp_path, JUMP, "{ x = [0, 1] }")))
    assert res.verdict == REFUTED
    assert all(s.verdict != REFUTED for s in res.searched if not s.cuts)    # no lattice meets the jump
    cex = res.counterexample
    xs = [F(cex.input["x"]), F(cex.neighbour["x"])]
    assert any(F(1, 3) < x < F(2, 5) for x in xs)
    assert abs(xs[0] - xs[1]) <= F(1, 2)


def test_jump_refuted_on_named_events_too(tmp_path):
    claim = write_claim(tmp_path, JUMP, "{ x = [0, 1] }", extra='events = { out = ["(-inf, 3]", "(3, inf)"] }')
    code, out, _ = run_main(["privacy", claim])
    assert code == 1 and "\nREFUTED" in out and "inside the cells of 2 threshold(s)" in out


def test_no_jump_stays_unrefuted(tmp_path):
    # the same program with equal means in both branches is eps/2-private for |x - x'| <= 1/2
    program = JUMP.replace("x + 5", "x")
    res = decide_box_privacy(load_privacy_claim(write_claim(tmp_path, program, "{ x = [0, 1] }")))
    assert res.verdict != REFUTED
    # the searches only look for a counterexample (refute_only: finitely many points prove nothing), so a
    # search that found none is undecided; the one inside the cells of the two thresholds ran
    assert any(s.cuts == 2 and s.verdict != REFUTED for s in res.searched)
    assert not any(s.verdict == REFUTED for s in res.searched)


def test_cuts_of_a_two_input_comparison():
    program = parse_program("input a: real\ninput b: real\noutput o: real\nif 2*a - b > 1/3 then\n"
                            "  o <- Lap(eps, a)\nelse\n  o <- Lap(eps, b)\nend\n", "two.dip")
    box = {"a": (F(0), F(1)), "b": (F(0), F(1))}
    cuts = coordinate_cuts(input_only_comparisons(program, box), box)
    # 2a - b = 1/3 at a = 1/6 (b = 0) and a = 2/3 (b = 1); at b = 2a - 1/3: b = -1/3 (out), 5/3 (out)
    assert cuts == {"a": [F(1, 6), F(2, 3)], "b": []}
    assert coordinate_values(F(0), F(1), cuts["a"]) == [F(1, 12), F(1, 6), F(5, 12), F(2, 3), F(5, 6)]
    assert coordinate_values(F(0), F(1), []) == [F(1, 2)]


def test_neighbours_clipped_to_the_box():
    box = {"a": (F(0), F(1)), "b": (F(0), F(1))}
    got = neighbours({"a": F(1, 4), "b": F(1, 2)}, box, "linf", F(1, 2))
    assert {"a": F(0), "b": F(1, 2)} in got and {"a": F(3, 4), "b": F(1, 2)} in got
    assert {"a": F(3, 4), "b": F(1)} in got and {"a": F(0), "b": F(0)} in got
    assert all(box[n][0] <= w[n] <= box[n][1] for w in got for n in w)

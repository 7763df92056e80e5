"""Post-processing (issue 38, item 6): an output computed from other outputs alone keeps their
budget.  The recogniser (semantics.post_processing) on `ir.Program`, and the box decision that
decides the projection and carries a verification over (privacy.dp.box.post_processed)."""
from __future__ import annotations

from fractions import Fraction as F

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.dp.box import REFUTED, VERIFIED, decide_box_privacy, lattice_claim
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.semantics.post_processing import post_processing, project

SVT_ANSWERS_AND_COUNT = """param m = 3
type Ans = {none, bot, top}
input  q: real[m]
output out: Ans[m]
output nbots: 0..m
var done: bool = false

for i = 1 to m do
    out[i] <- none
end
rT <- Lap(eps/2, 0)
for i = 1 to m do
    if not done then
        r <- Lap(eps/4, q[i])
        b <- r >= rT
        if b then
            out[i] <- top
            done <- true
        else
            out[i] <- bot
        end
    end
end
nbots <- 0
for i = 1 to m do
    if out[i] == bot then
        nbots <- nbots + 1
    end
end
"""


def write_claim(tmp_path, program: str, budget: str = "eps") -> str:
    (tmp_path / "p.dip").write_text(program)
    path = tmp_path / "claim.toml"
    path.write_text(f'[program]\npath = "{tmp_path / "p.dip"}"\n\n[privacy]\nadjacency = "linf"\nbound = 1\n'
                    f'budget = "{budget}"\neps = "(0, inf)"\n\n[privacy.inputs]\nbox = {{ q = [-1, 1] }}\n')
    return str(path)


def test_the_count_of_bots_is_post_processing_of_the_answers():
    pp = post_processing(parse_program(SVT_ANSWERS_AND_COUNT, "svt.dip"))
    assert pp.derived == ("nbots",) and pp.kept == ("out[1]", "out[2]", "out[3]")


def test_svt_answers_and_count_verified_by_post_processing(tmp_path):
    claim = load_privacy_claim(write_claim(tmp_path, SVT_ANSWERS_AND_COUNT))
    res = decide_box_privacy(claim)
    assert res.verdict == VERIFIED and res.method.startswith("post-processing (nbots computed from out[1]")
    assert res.claim is claim and "nbots" in claim.program.output_names()
    # an independent check: the exact per-pair check of the original program on the box's integer points
    assert check_dp(lattice_claim(claim, F(1))).verified


def test_a_count_read_from_a_hidden_variable_is_not_post_processing():
    program = SVT_ANSWERS_AND_COUNT.replace("if out[i] == bot then", "if not done then")
    assert not post_processing(parse_program(program, "svt.dip")).applies


def test_a_count_taken_before_the_answers_are_final_is_not_post_processing():
    # nbots reads out[1] inside the loop, before out[2], out[3] are written: not a tail
    program = SVT_ANSWERS_AND_COUNT.replace("rT <- Lap(eps/2, 0)", "rT <- Lap(eps/2, 0)\nnbots <- 0\n"
                                            "if out[1] == none then\n    nbots <- 1\nend")
    program = program[:program.index("nbots <- 0\nfor")]
    assert not post_processing(parse_program(program, "svt.dip")).applies


def test_an_early_exit_refuses_post_processing():
    program = SVT_ANSWERS_AND_COUNT.replace("            done <- true", "            done <- true\n            exit").replace(
        "rT <- Lap(eps/2, 0)", "nbots <- 0\nrT <- Lap(eps/2, 0)")
    pp = post_processing(parse_program(program, "svt.dip"))
    assert not pp.applies and "exit" in pp.reason


def test_a_count_that_leaks_the_threshold_is_not_post_processing(tmp_path):
    # the derived output reads the noisy comparison `b`, not a released output
    program = SVT_ANSWERS_AND_COUNT.replace("if out[i] == bot then", "if b then").replace(
        "rT <- Lap(eps/2, 0)", "rT <- Lap(eps/2, 0)\nb <- false")
    assert not post_processing(parse_program(program, "svt.dip")).applies


def test_a_refuted_projection_is_decided_on_the_original(tmp_path):
    # no threshold noise: the answers alone are not eps-private; the verdict comes from the original
    program = SVT_ANSWERS_AND_COUNT.replace("Lap(eps/4, q[i])", "Lap(4*eps, q[i])")
    claim = load_privacy_claim(write_claim(tmp_path, program))
    assert decide_box_privacy(claim.__class__(**{**claim.__dict__, "program": project(
        claim.program, ("nbots",))})).verdict == REFUTED
    res = decide_box_privacy(claim)
    assert res.verdict == REFUTED and not res.method.startswith("post-processing")
    assert "nbots" in res.claim.program.output_names()

"""Outputs computed after the loop from the per-step outputs (issue 40, item 3): StatDP's SVT that
releases the number of bots, and StatDP's iSVT1-3, which release a Hamming score of the answers.

A count is a function of the answers, so the answers' bound d carries over for every m; the exact
tight loss of the program as written at m = 1, 2, 3 must still be at most d (else
BoundContradiction).  A refutation is the exact engine's re-checked counterexample of the program as
written; the patterns' "no constant" proofs are about the answers, so they are not used for a count.
"""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online.every_length import classify, decide_every_length


def _claim(tmp_path, name, budget="eps", source=None, params="m = 3"):
    path = PROGRAMS / f"{name}.dip"
    if source is not None:
        path = tmp_path / f"{name}.dip"
        path.write_text(source)
    text = (f'[program]\npath = "{path.as_posix()}"\nparams = {{ {params} }}\n[privacy]\nadjacency = "linf"\n'
            f'budget = "{budget}"\n[privacy.inputs]\ngrid = {{ q = [-1, 1] }}\n')
    p = tmp_path / f"{name}_{budget.replace('/', '_').replace('*', '_')}.toml"
    p.write_text(text)
    return str(p)


def _decide(path, **kw):
    return decide_every_length(load_privacy_claim(path), path, {}, **kw)


def test_the_count_is_cut_off_and_the_answers_it_reads_become_the_outputs():
    auto, bound, pats, _ = classify(load_program(str(PROGRAMS / "svt_count.dip"), {}))
    assert auto.derived == ("nbots",) and bound.d == 1 and pats == []
    assert auto.names == ("done",)          # the count is not a control state of the loop
    assert {e.label[0] for st in auto.steps for e in st.events if e.kind == "write"} == {"out"}


def test_svt_count_is_verified_for_every_m_with_the_answers_d(tmp_path):
    path = _claim(tmp_path, "svt_count")
    code, out, err = run_main(["privacy", PROGRAMS / "svt_count.dip", path, "--every-length"])
    assert code == 0, out + err
    assert "post-processing: nbots computed after the loop" in out and "VERIFIED for every m" in out
    res = _decide(path)
    assert res.verdict == "verified" and res.d == 1
    # the count's own exact losses (the cross-check), each at most d: 1/4, 1/2, 3/4
    assert [v for _, _, v, _ in res.losses] == [F(1, 4), F(1, 2), F(3, 4)]
    assert res.to_json()["derived_outputs"] == ["nbots"]


def test_isvt3_is_verified_at_its_bound_and_refuted_at_eps_with_a_rechecked_counterexample(tmp_path):
    res = _decide(_claim(tmp_path, "isvt3", "7/4*eps"))
    assert res.verdict == "verified" and res.d == F(7, 4)
    res = _decide(_claim(tmp_path, "isvt3"), longer=())
    assert res.verdict == "refuted"
    m, r = res.counterexample
    assert m == 2 and not r.verified
    cx = r.counterexample
    assert cx.output == {"score": 2}     # the answers [bot, top]: the only way to score 2 at m = 2


def test_isvt1_and_isvt2_have_no_finite_d_and_are_refuted_by_the_program_as_written(tmp_path):
    res = _decide(_claim(tmp_path, "isvt1"), longer=())
    assert res.d is None and res.verdict == "refuted" and res.counterexample[0] == 2
    assert "REFUTED at m = 2" in res.report() and "not private for any constant" not in res.report()
    res = _decide(_claim(tmp_path, "isvt2"), longer=())
    assert res.d is None and res.verdict == "refuted" and res.counterexample[0] == 3
    assert not res.counterexample[1].verified


COUNT_TAIL = """
nbots <- 0
for i = 1 to m do
    if out[i] == bot then
        nbots <- nbots + 1
    end
end
"""
HEAD = """param m = 3
type Ans = {none, bot, top}
input  q: real[m]
var out: Ans[m]
"""
LOOP = """rT <- Lap(eps/2, 0)
for i = 1 to m do
    out[i] <- none
end
for i = 1 to m do
    r <- Lap(eps/4, q[i])
    b <- r >= rT
    if b then
        out[i] <- top
        exit
    else
        out[i] <- bot
    end
end
"""


def _refusal(tmp_path, source):
    path = tmp_path / "p.dip"
    path.write_text(source)
    with pytest.raises(UserError) as err:
        classify(load_program(str(path), {}))
    return err.value, source.splitlines()


def test_a_count_after_a_loop_that_can_exit_is_refused_at_its_line(tmp_path):
    # (nbots is given a value before the loop too, so that the front end accepts the early exit)
    err, lines = _refusal(tmp_path, HEAD + "output nbots: 0..m\nnbots <- 0\n" + LOOP + COUNT_TAIL)
    assert "can `exit` before it" in err.message and "flag" in err.hint
    assert lines[err.line - 1].strip() == "nbots <- 0" and err.line > 10


def test_a_real_output_computed_after_the_loop_is_refused_at_its_line(tmp_path):
    loop = LOOP.replace("        exit\n", "")
    tail = "last <- 0\nfor i = 1 to m do\n    if out[i] == top then\n        last <- 1/2\n    end\nend\n"
    err, lines = _refusal(tmp_path, HEAD + "output last: real\n" + loop + tail)
    assert "real output 'last'" in err.message
    assert lines[err.line - 1].strip() == "last <- 0"


def test_m_outside_the_tail_is_still_refused(tmp_path):
    # the tail may use m; the loop may not (here the rate of the read depends on m)
    loop = LOOP.replace("        exit\n", "").replace("Lap(eps/4, q[i])", "Lap(eps/m, q[i])")
    err, lines = _refusal(tmp_path, HEAD + "output nbots: 0..m\n" + loop + COUNT_TAIL)
    assert "'m' (the number of queries) is used here" in err.message
    assert "Lap(eps/m, q[i])" in lines[err.line - 1]


def test_a_count_of_a_loop_variable_is_not_post_processing(tmp_path):
    # nbots copied from a counter of the loop reads no per-step output: not a tail, and m in its range
    # stays refused at the declaration
    loop = LOOP.replace("        exit\n", "").replace("        out[i] <- bot\n",
                                                       "        out[i] <- bot\n        if c < 3 then\n"
                                                       "            c <- c + 1\n        end\n")
    src = HEAD + "var c: 0..3 = 0\noutput nbots: 0..m\n" + loop + "nbots <- c\n"
    err, lines = _refusal(tmp_path, src)
    assert lines[err.line - 1].startswith("output nbots")


def test_json_names_the_derived_outputs(tmp_path):
    path = _claim(tmp_path, "svt_count")
    code, out, _ = run_main(["privacy", PROGRAMS / "svt_count.dip", path, "--every-length", "--json"])
    assert code == 0
    text = json.loads(out)
    found = json.dumps(text)
    assert '"derived_outputs": ["nbots"]' in found

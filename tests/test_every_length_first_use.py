"""Shifts chosen at first use and paths of probability 0 in the every-length game (issue 41).

A drawn bound, or a read only stored, takes its coupling shift at the first step that uses it, after
that step's outcomes are known; a step that the order of the stored variables rules out costs
nothing (docs/design/every_length.md, section 2).  Checked on the programs that need each: the
CCS 2023 tool's k-Min-Max (the first read stored in both bounds), m-Range (a range's "stuck" exit
after a read inside it), and a threshold compared once with q[i]; each verdict after the exact
losses at small m are shown to be at most d (else BoundContradiction)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online.every_length import classify, decide_every_length
from dipc_plus.privacy.online.order import next_facts
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import online_shape


def _d(name, params):
    return classify(load_program(str(PROGRAMS / f"{name}.dip"), {k: F(v) for k, v in params.items()}),
                    set(params))[1].d


@pytest.mark.parametrize("name, params, d", [
    ("m_range", {"k": 1}, F(1)), ("m_range", {"k": 2}, F(1)),
    ("k_min_max_watch", {"k": 1}, F(1, 2)),   # mn = mx: no read lies strictly between, each exit pays b + b
    ("k_min_max_watch", {"k": 2}, F(1)), ("k_min_max_watch", {"k": 3}, F(1)),
])
def test_the_ccs_2023_examples_get_a_finite_d(name, params, d):
    assert _d(name, params) == d


def test_a_read_inside_a_range_rules_out_its_stuck_exit():
    auto = recognise(online_shape(str(PROGRAMS / "m_range.dip"), {"k": F(1)}))
    index = {v: k for k, v in enumerate(auto.variables)}
    lo, hi = index["lo1"], index["hi1"]
    words = {st: auto.describe_step(st) for st in auto.steps}
    inside = next(st for st in auto.steps if st.dst != "exit")
    stuck = next(st for st in auto.steps if "bot vs lo1" in words[st] and "top vs hi1" in words[st])
    facts = next_facts(inside, frozenset(), index)
    assert ("<", lo, hi) in facts
    assert next_facts(stuck, facts, index) is None        # hi1 <= r < lo1 after lo1 < hi1: probability 0
    assert next_facts(stuck, frozenset(), index) is not None


ONCE = """param m = 3
type Ans = {none, bot, top}
input  q: real[m]
output out: Ans[m]
for i = 1 to m do
    out[i] <- none
end
x <- Lap(eps/2, 0)
for i = 1 to m do
    if q[i] >= x then
        out[i] <- top
    else
        out[i] <- bot
    end
    exit
end
"""


def _claim(tmp_path, program: str, budget: str, params: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(f'[program]\npath = "{program}"\nparams = {{ {params} }}\n[privacy]\nadjacency = "linf"\n'
                    f'budget = "{budget}"\n[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n')
    return str(path)


@pytest.mark.parametrize("program, params, budget", [
    ("once", "m = 2", "eps/2"),                                   # D on a top, U on a bot: d = a = 1/2
    ("k_min_max_watch", "m = 2, k = 1", "eps/2"),
])
def test_verified_after_the_exact_losses(tmp_path, program, params, budget):
    if program == "once":
        (tmp_path / "once.dip").write_text(ONCE)
        source = (tmp_path / "once.dip").as_posix()
    else:
        source = (PROGRAMS / f"{program}.dip").as_posix()
    path = _claim(tmp_path, source, budget, params)
    res = decide_every_length(load_privacy_claim(path, {}), path, {}, lengths=(1, 2), longer=())
    assert res.verdict == "verified" and res.d == F(1, 2)
    assert [m for m, *_ in res.losses] == [1, 2] and all(v is None or v <= res.d for _, _, v, _ in res.losses)

"""The stored chain: "private for no constant" with several stored variables (issue 41).

Min-Max without a stop (programs/min_max.dip) pumps its newmax self-loop: each update stores the
read in mx and the next update compares its read with mx, whatever mn holds
(docs/design/every_length.md, section 3b, *stored chain*).  The verdict carries the exact engine's
counterexample at the first m where the claimed budget fails, re-checked here on that pair alone by
the plain check.  With a stop (k_min_max) the cycle is broken and the bound verifies; a cycle of
mixed steps (a read between the two variables, then stored) is outside the proof: "cannot decide".
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online.every_length import classify, decide_every_length
from dipc_plus.privacy.online.patterns import leaks
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import online_shape


def _classify(path, params=None):
    params = params or {}
    return classify(load_program(path, {k: F(v) for k, v in params.items()} or None), set(params))


def _claim(tmp_path, program, budget, params, inputs='grid = { q = [0, 1] }', name="c"):
    text = (f'[program]\npath = "{program}"\nparams = {{ {params} }}\n'
            f'[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n[privacy.inputs]\n{inputs}\n')
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    return str(p)


def _plain_on_pair(tmp_path, program, budget, m, pair) -> int:
    """Exit code of the plain `dipc privacy` of the claim at length m on the one pair (an independent run)."""
    rows = ", ".join("{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in p.items()) + " }" for p in pair)
    path = _claim(tmp_path, program, budget, f"m = {m}", f"list = [{rows}]", name="pair")
    run = subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", path], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    return run.returncode


def test_min_max_has_a_stored_chain():
    auto, bound, pats, _ = _classify(str(PROGRAMS / "min_max.dip"))
    assert auto.variables == ("mn", "mx") and bound.d is None
    assert any(p.startswith("stored chain") and "mx <- the noisy read" in p for p in pats), pats


@pytest.mark.parametrize("budget, first_m", [("1/4*eps", 2), ("1/2*eps", None)])
def test_min_max_private_for_no_constant_with_a_rechecked_counterexample(tmp_path, budget, first_m):
    # exact losses 1/4, 1/2 at m = 1, 2: a claim of eps/4 fails at m = 2 on the claim's own grid; a claim
    # of eps/2 holds there, and the pattern's family inputs are searched from the predicted m = 3 on
    program = (PROGRAMS / "min_max.dip").as_posix()
    path = _claim(tmp_path, program, budget, "m = 2")
    # no budget of work on the search: the family inputs are searched up to m = 4 whatever it costs
    res = decide_every_length(load_privacy_claim(path), path, {}, lengths=(1, 2), longer=(), family_limit=4,
                              search_work=10 ** 18)
    assert res.verdict == "not private for any constant" and res.d is None
    assert [v for _, _, v, _ in res.losses] == [F(1, 4), F(1, 2)]
    assert res.counterexample is not None, res.family
    m, r = res.counterexample
    if first_m is not None:
        assert m == first_m
    else:
        assert 2 < m <= 4 and "fail the claimed 1/2*eps" in res.family
    cx = r.counterexample
    pair = [cx.to_json()["input"], cx.to_json()["neighbour"]]
    assert _plain_on_pair(tmp_path, program, budget, m, pair) == 1


@pytest.mark.parametrize("k, d", [(1, F(3, 2)), (2, F(2))])
def test_min_max_with_its_stop_is_still_verified(k, d):
    # the stop after the k-th update breaks every cycle of updates: no stored chain, and the bound holds
    auto, bound, pats, _ = _classify(str(PROGRAMS / "k_min_max.dip"), {"k": k})
    assert bound.d == d and not pats
    assert not any(p.startswith("stored chain") for p in leaks(auto))


MIXED = """param m = 3
type Ans = {none, newmin, between, newmax}
input  q: real[m]
output out: Ans[m]
for i = 1 to m do
    out[i] <- none
end
mn <- Lap(eps/2, 0)
mx <- Lap(eps/2, 2)
for i = 1 to m do
    r <- Lap(eps/4, q[i])
    if r < mn then
        out[i] <- newmin
        exit
    else
        if r > mx then
            out[i] <- newmax
            exit
        else
            out[i] <- between
            mn <- r
        end
    end
end
"""


def test_a_stored_cycle_of_mixed_steps_is_not_decided(tmp_path):
    # the only cycle is the "between" step (a top against mn, a bot against mx) that stores mn: its
    # outcomes are mixed, so no proof of section 3 covers it, and the bound is infinite
    path = tmp_path / "mixed.dip"
    path.write_text(MIXED)
    auto = recognise(online_shape(str(path), {}))
    assert not leaks(auto)
    with pytest.raises(UserError, match="no pattern of non-privacy") as err:
        _classify(str(path))
    assert err.value.line == 11   # the loop over the queries

"""The search for a counterexample past m = 1..3 is bounded (issue 40 item 6): Min-Max with budget
eps searched for 697 s in silence.  Now a check past the claim's lengths is started only within the
limits length_m (the largest m) and length_work (its work, guessed from the growth of the last
two); reaching one keeps the verdict and reports "no counterexample found up to m = K (limit)"."""
from __future__ import annotations

import json

from conftest import PROGRAMS, run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.online.every_length import decide_every_length


def _claim(tmp_path, budget: str) -> str:
    p = tmp_path / "forever.toml"
    p.write_text(f'[program]\npath = "{(PROGRAMS / "above_threshold_forever.dip").as_posix()}"\n'
                 f'params = {{ m = 3 }}\n[privacy]\nadjacency = "linf"\nbudget = "{budget}"\n'
                 '[privacy.inputs]\ngrid = { q = [-1, 1] }\n')
    return str(p)


def test_a_work_budget_stops_the_search_before_the_next_m(tmp_path):
    # AboveThreshold that keeps going: 3/2*eps holds at m <= 6 and first fails at m = 7.  With no
    # work allowed for checks past m = 3, none is started, and the verdict says where it stopped.
    path = _claim(tmp_path, "3/2*eps")
    res = decide_every_length(load_privacy_claim(path), path, {}, search_work=0)
    assert res.verdict == "not private for any constant" and res.counterexample is None
    assert [m for m, *_ in res.losses] == [1, 2, 3]
    text = res.report()
    assert "no counterexample to the claimed 3/2*eps found up to m = 3 (limit)" in text
    assert "checks at m = 4 were predicted" in text and "length_work" in text
    assert "NOT PRIVATE FOR ANY CONSTANT" in text
    assert res.to_json()["pattern_counterexample"].startswith("no counterexample")


def test_the_limit_on_m_caps_the_longer_lengths_too(tmp_path):
    path = _claim(tmp_path, "3/2*eps")
    res = decide_every_length(load_privacy_claim(path), path, {}, family_limit=4)
    assert res.verdict == "not private for any constant" and res.counterexample is None
    assert [m for m, *_ in res.losses] == [1, 2, 3, 4]
    assert "found up to m = 4 (limit): m = 5 is past the limit m = 4 (--limit length_m=N)" in res.report()


def test_the_command_takes_the_limits(tmp_path):
    path = _claim(tmp_path, "3/2*eps")
    code, out, err = run_main(["privacy", path, "--every-length", "--json", "--limit", "length_m=5"])
    assert code == 1, err
    record = json.loads(out)
    assert record["verdict"] == "not private for any constant"
    assert "found up to m = 5 (limit): m = 6 is past the limit m = 5" in record["pattern_counterexample"]
    code, _, err = run_main(["privacy", path, "--every-length", "--limit", "length_work=0"])
    assert code == 2 and "length_work must be positive" in err

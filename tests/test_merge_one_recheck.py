"""Issue 37 item 4: `dipc merge` re-checks ONE counterexample exactly - the merged one (the first
refuted item in input order) - through the normal check of its one input or pair, not every part's;
an accuracy part says what its own reports make (counts, verdict, counterexample, "vacuous"), and the
merged run says what the joined reports make, by the same summary."""
from __future__ import annotations

import json

import pytest

from conftest import THEORIES, run_main

UNGUARDED = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]
RUNS = {   # both parts of each run are refuted, so each part holds a counterexample
    "accuracy": ["accuracy", THEORIES / "sparse.toml", "--set", "m=3", "--set", "c=1", "--dd-over", "grid"],
    "privacy": ["privacy", THEORIES / "svt_lyu_alg4_privacy.toml"],
}
RECHECK = {"accuracy": ("dipc_plus.accuracy.box_reduction", "recheck"),
           "privacy": ("dipc_plus.privacy.dp.restate", "why_not_a_counterexample")}


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-recheck")
    out = {}
    for name, argv in RUNS.items():
        out[name] = []
        for i in (1, 2):
            code, text, err = run_main([*argv, *UNGUARDED, "--shard", f"{i}/2"])
            assert code == 1 and json.loads(text)["counterexample"] is not None, err
            out[name].append(folder / f"{name}{i}.json")
            out[name][-1].write_text(text)
    return out


@pytest.mark.parametrize("name", list(RUNS))
def test_the_merged_counterexample_is_the_one_rechecked(parts, monkeypatch, name):
    import importlib
    module_name, function = RECHECK[name]
    module = importlib.import_module(module_name)
    real, seen = getattr(module, function), []

    def counted(*args):
        seen.append(args)
        return real(*args)
    monkeypatch.setattr(module, function, counted)
    code, out, err = run_main(["merge", *reversed(parts[name]), "--timeout", "0", "--max-memory", "0"])
    assert code == 1, err
    merged = json.loads(out)
    assert merged["counterexample"] == json.loads(parts[name][0].read_text())["counterexample"]
    assert len(seen) == 1          # two refuted parts, one re-check: the merged counterexample's


def test_a_part_verdict_other_than_its_reports_make_is_named(parts, tmp_path):
    """The summary a part's reports make is checked field by field, the verdict included."""
    data = json.loads(parts["accuracy"][0].read_text())
    for report in data["reports"]:   # every refuted report made not applicable, the counts to match
        if report["verdict"] == "refuted":
            report["verdict"] = "not applicable"
            del report["counterexample"], report["beta"]
    data["obligations_applicable"] -= data["obligations_refuted"]
    data["obligations_refuted"] = 0
    bad = tmp_path / "verdict.json"
    bad.write_text(json.dumps(data))
    code, out, err = run_main(["merge", bad, parts["accuracy"][1]])
    assert code == 2 and str(bad) in err and "\"verdict\" is \"refuted\" but its reports make \"verified\"" in err, err

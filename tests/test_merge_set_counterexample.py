"""`dipc merge` of an (eps, delta)-DP run, whose counterexample is a set of outputs: the merged JSON is
the unsharded run's, and the set counterexample is re-checked through the hockey-stick check of its
pair (`privacy.dp.restate`) - an edited probability, or the set given as one output, is refused."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_main
from dipc_plus.commands.merge import without_timing

GUARDS = ["--timeout", "0", "--max-memory", "0"]
RR = f"""
[program]
path = "{ROOT}/programs/rr_clients.dip"
params = {{ n = 3, lam = "1/5" }}

[privacy]
adjacency = "hamming"
budget = "ln(2)"
delta = "3/20"
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(the unsharded JSON, the two parts' JSON, the folder) of randomized response at (ln 2, 3/20)."""
    folder = tmp_path_factory.mktemp("rr")
    claim = folder / "rr.toml"
    claim.write_text(RR)
    argv = ["privacy", claim, "--json", "--no-progress", *GUARDS]
    code, whole, err = run_main(argv)
    assert code == 1, err
    parts = []
    for i in (1, 2):
        code, text, err = run_main([*argv, "--shard", f"{i}/2"])
        assert code == 1, err
        parts.append(json.loads(text))
    return json.loads(whole), parts, folder


def merge(folder, parts):
    paths = []
    for k, part in enumerate(parts):
        paths.append(folder / f"edited{k}.json")
        paths[-1].write_text(json.dumps(part))
    return run_main(["merge", *paths, *GUARDS])


def test_the_merged_set_counterexample_is_the_unsharded_runs(run):
    whole, parts, folder = run
    code, out, err = merge(folder, parts)
    assert code == 1, err
    merged = json.loads(out)
    assert set(merged["counterexample"]) >= {"outputs", "output_set"}
    assert without_timing(merged) == without_timing(whole)


def test_an_edited_set_counterexample_is_refused_naming_its_field(run):
    _, (first, second), folder = run
    cex = first["counterexample"]
    code, _, err = merge(folder, [{**first, "counterexample": {**cex, "probability": "3/5"}}, second])
    assert code == 2 and ("this part's counterexample does not re-check: \"counterexample.probability\" is not what "
                          "the claim gives at this pair when checked again here") in err
    one = {k: v for k, v in cex.items() if k not in ("outputs", "output_set")}
    code, _, err = merge(folder, [{**first, "counterexample": {**one, "output": cex["outputs"][0]}}, second])
    assert code == 2 and ("\"counterexample.output\" is one output, but the claim has delta != 0 (sets of outputs "
                          "are compared)") in err

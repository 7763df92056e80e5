"""`dipc accuracy --summary` counted by report class (accuracy.grid_classes) against the
per-input path (`AccuracyChecker.run`, the reference): the same tally, worst inputs, first
counterexample, work record and JSON on the shipped support-path claims, verified and refuted."""
from __future__ import annotations

import functools
import json

import pytest

from conftest import THEORIES, run_main
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.grid_classes import counted_summary
from dipc_plus.accuracy.summary import WorstInputs, input_margin
from dipc_plus.claims.claim_file import load_claim


def _both(theory: str, params: dict, kappa: int = 1, n: int = 5):
    """(counted, per input): each the result's JSON with its worst inputs, seconds left out."""
    out = []
    for counted in (True, False):
        checker = AccuracyChecker(load_claim(str(THEORIES / f"{theory}.toml"), params))
        worst = WorstInputs(n)
        collect = functools.partial(input_margin, interval=checker.claim.eps)
        if counted:
            result = counted_summary(checker, checker.claim.points, kappa, collect, worst, False)
            assert result is not None, "the class path did not apply"
        else:
            result = checker.run(checker.claim.points, kappa, summarize="nothing", collect=collect, gather=worst.add)
        body = result.to_json()
        body.pop("seconds")
        cex = result.counterexample
        body["counterexample_input"] = None if cex is None else dict(cex.input)
        body["worst"] = [m.to_json(checker.program) for m in worst.worst()]
        out.append(json.dumps(body, default=str, sort_keys=True))
    return out


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7, 8])
def test_sparse_c1_summary_counted_as_per_input(m):
    counted, per_input = _both("sparse", {"m": m, "c": 1})
    assert counted == per_input


@pytest.mark.parametrize("theory,params", [("sparse", {"m": 4, "c": 2}), ("sparse_variant", {}),
                                           ("threshold_half", {}), ("two_thresholds", {}),
                                           ("above_threshold", {})])
def test_support_claims_counted_as_per_input(theory, params):
    counted, per_input = _both(theory, params, n=12)
    assert counted == per_input


def test_refuted_summary_names_the_first_refuted_input():
    """kappa = 40 refutes Sparse at some classes: the first counterexample and the counts agree."""
    counted, per_input = _both("sparse", {"m": 5, "c": 1}, kappa=40)
    assert '"verdict": "refuted"' in counted
    assert counted == per_input


def test_billions_of_inputs_summarized():
    """Sparse c = 1 on {-1,0,1}^20 (3,486,784,401 inputs): counted, not visited.  dd(u) > 0 (the
    claim applies) exactly where the first query that is not -1 is 1, or there is none: 3^(m-k)
    inputs per first such position k, and one more, (3^m + 1)/2 in all."""
    code, out, err = run_main(["accuracy", str(THEORIES / "sparse.toml"), "--set", "c=1", "--set", "m=20",
                               "--summary", "--json", "--limit", "grid_points=4000000000"])
    out = json.loads(out)
    assert code == 0, err
    assert out["inputs_checked"] == out["obligations"] == 3 ** 20
    assert out["obligations_applicable"] == (3 ** 20 + 1) // 2
    assert out["work"]["distributions"] == 21

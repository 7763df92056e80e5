"""What ties one object of a part together is a rule of its schema object (`parts.schema`): a
report's verdict against its counterexample and beta, a privacy part's verdict against its
counterexample and its pairs, its decisions against its obligations."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, THEORIES

from dipc_plus.commands.parts.schema import PART, REPORT, SchemaError, validate

CEX = {"input": {"q": [0]}, "eps": "1", "alpha": 1, "gamma": 0, "kappa": 1, "error_probability": "1",
       "bound": "0", "error_probability_value": "1", "bound_value": "0"}
PRIVACY_CEX = {"input": {"x": True}, "neighbour": {"x": False}, "output": {"out": True}, "eps": "1",
               **dict.fromkeys(("probability", "neighbour_probability", "probability_value",
                                "neighbour_probability_value", "bound_value", "ratio_value"), "1")}


@pytest.mark.parametrize("report, says", [
    ({"verdict": "refuted", "beta": "b"}, '"reports[2]" says refuted without a counterexample'),
    ({"verdict": "verified", "beta": "b", "counterexample": CEX}, '"reports[2]" says verified beside a counterexample'),
    ({"verdict": "not applicable", "beta": "b"}, '"reports[2]" says not applicable beside a bound beta'),
    ({"verdict": "verified"}, '"reports[2]" says verified without a bound beta'),
    ({"verdict": "refuted", "beta": "b", "counterexample": {**CEX, "input": {"q": [1]}}},
     '"reports[2]" has a counterexample at another input than the report'),
])
def test_a_report_that_contradicts_itself_is_refused_naming_it(report, says):
    with pytest.raises(SchemaError) as err:
        validate({"input": {"q": [0]}, "dd": 1, **report}, REPORT, "reports[2]")
    assert str(err.value) == says
    validate({"input": {"q": [0]}, "dd": 1, "verdict": "refuted", "beta": "b", "counterexample": CEX}, REPORT)


@pytest.fixture(scope="module")
def privacy_part():
    claim = str(THEORIES / "randomized_response_coin_privacy.toml")
    done = subprocess.run([sys.executable, "-m", "dipc_plus", "privacy", claim, "--json", "--shard", "1/1",
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True, check=False)
    return json.loads(done.stdout)


def test_a_privacy_part_is_checked_by_its_rules(privacy_part):
    validate(privacy_part, PART["privacy"])
    for edit, says in [({"decisions": privacy_part["obligations"] + 1}, "it made"),
                       ({"counterexample": PRIVACY_CEX}, "it says verified beside a counterexample"),
                       ({"verdict": "refuted"}, "it says refuted without a counterexample"),
                       ({"verdict": "refuted", "counterexample": PRIVACY_CEX, "pairs_checked": 0},
                        "it says refuted without checking a pair")]:
        with pytest.raises(SchemaError, match=says):
            validate({**privacy_part, **edit}, PART["privacy"])

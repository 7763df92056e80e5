"""Issue 36, item 8: `dipc merge` checks a part's counterexample field by field (exact numbers, the
input, the output, the closed forms), and re-checks an accuracy counterexample exactly when the
claim is here - an edited counterexample is exit 2 naming the part and the field, never REFUTED."""
from __future__ import annotations

import json

import pytest

from conftest import THEORIES, run_main

SPARSE_GRID = ["accuracy", THEORIES / "sparse.toml", "--set", "m=3", "--set", "c=1", "--dd-over", "grid"]   # refuted
SVT4 = ["privacy", THEORIES / "svt_lyu_alg4_privacy.toml"]   # refuted
UNGUARDED = ["--json", "--no-progress", "--timeout", "0", "--max-memory", "0"]


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """{name: [part paths]} of a refuted accuracy run and a refuted privacy run, two parts each."""
    folder = tmp_path_factory.mktemp("parts")
    out = {}
    for name, argv in (("accuracy", SPARSE_GRID), ("privacy", SVT4)):
        out[name] = []
        for i in (1, 2):
            code, text, err = run_main([*argv, *UNGUARDED, "--shard", f"{i}/2"])
            assert code == 1, err
            path = folder / f"{name}{i}.json"
            path.write_text(text)
            out[name].append(path)
    return out


def _merge(*paths):
    return run_main(["merge", *paths])


def _edited(tmp_path, path, change):
    data = json.loads(path.read_text())
    change(data)
    new = tmp_path / f"edited-{path.name}"
    new.write_text(json.dumps(data))
    return new


@pytest.mark.parametrize("name", ["accuracy", "privacy"])
def test_unedited_parts_still_merge_to_refuted(parts, name):
    code, out, err = _merge(*parts[name])
    assert code == 1, err
    assert json.loads(out)["verdict"] == "refuted"


def _issue_counterexample(data):
    """The issue's edit: the counterexample replaced by an eps that is not an exact rational."""
    data["counterexample"] = {"eps": "1e99999999"}
    for report in data.get("reports", []):
        if report["verdict"] == "refuted":
            report["counterexample"] = {"eps": "1e99999999"}


@pytest.mark.parametrize("name", ["accuracy", "privacy"])
def test_the_issues_counterexample_is_exit_2_naming_the_part(parts, tmp_path, name):
    bad = _edited(tmp_path, parts[name][0], _issue_counterexample)
    code, out, err = _merge(bad, parts[name][1])
    assert code == 2, (out, err)
    assert bad.name in err and "counterexample" in err and "has no \"input\"" in err


def _set(key, value, report_too=True):
    def change(data):
        data["counterexample"][key] = value
        for report in data.get("reports", []) if report_too else ():
            if report["verdict"] == "refuted":
                report["counterexample"][key] = value
                break
    return change


def _drop(key):
    def change(data):
        del data["counterexample"][key]
        for report in data.get("reports", []):
            if report["verdict"] == "refuted":
                del report["counterexample"][key]
                break
    return change


@pytest.mark.parametrize("name, change, field, says", [
    ("accuracy", _set("eps", "1e99999999"), "counterexample.eps", "not an exact number"),
    ("accuracy", _set("eps", "2/4"), "counterexample.eps", "not an exact number"),
    ("accuracy", _set("eps", "-3"), "counterexample.eps", "not a positive number"),
    ("accuracy", _set("gamma", 0.5), "counterexample.gamma", "not an exact number"),
    ("accuracy", _set("kappa", 0), "counterexample.kappa", "not a positive integer"),
    ("accuracy", _drop("error_probability"), "counterexample", "has no \"error_probability\""),
    ("accuracy", _set("input", {}), "counterexample.input", "not an object of values"),
    ("accuracy", _set("surprise", 1), "counterexample.surprise", "not a field of a counterexample"),
    ("privacy", _set("eps", "1e99999999"), "counterexample.eps", "not an exact number"),
    ("privacy", _set("eps", "ln(x)"), "counterexample.eps", "not an exact number"),
    ("privacy", _drop("output"), "counterexample", "has no \"output\""),
    ("privacy", _drop("neighbour"), "counterexample", "has no \"neighbour\""),
    ("privacy", _set("output", {"out": [None]}), "counterexample.output.out", "not a value"),
    ("privacy", _set("probability_value", 0.08), "counterexample.probability_value", "not a closed form"),
])
def test_each_field_of_a_counterexample_is_checked(parts, tmp_path, name, change, field, says):
    bad = _edited(tmp_path, parts[name][0], change)
    code, out, err = _merge(bad, parts[name][1])
    assert code == 2, (out, err)
    assert bad.name in err and f"\"{field}\"" in err and says in err, err


def test_an_accuracy_counterexample_at_another_eps_is_rechecked_against_the_claim(parts, tmp_path):
    """Well formed and consistent within its part, but not what the claim gives: re-checked exactly."""
    bad = _edited(tmp_path, parts["accuracy"][0], _set("eps", "21"))
    code, out, err = _merge(bad, parts["accuracy"][1])
    assert code == 2, (out, err)
    assert bad.name in err and "checked again here" in err


def test_an_accuracy_counterexample_at_another_input_than_its_report_is_refused(parts, tmp_path):
    data = json.loads(parts["accuracy"][0].read_text())
    holds = next(r for r in data["reports"] if r["verdict"] == "verified")
    bad = _edited(tmp_path, parts["accuracy"][0], _set("input", holds["input"]))
    code, out, err = _merge(bad, parts["accuracy"][1])
    assert code == 2, (out, err)
    assert bad.name in err and "at another input than the report" in err


def test_a_privacy_counterexample_input_outside_the_program_is_refused(parts, tmp_path):
    bad = _edited(tmp_path, parts["privacy"][0], _set("input", {"q": [0, 0]}, report_too=False))
    code, out, err = _merge(bad, parts["privacy"][1])
    assert code == 2, (out, err)
    assert bad.name in err and "\"counterexample.input\"" in err and "not an input of the program" in err

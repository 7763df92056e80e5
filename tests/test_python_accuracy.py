"""Accuracy of translated Python noisy max (issue 42): the verdicts, kappa* and closed forms of the
.dip twins, on grid and box.

numpy's argmax counts from 0, so the translation ends with `result <- _a2 - 1`; the noisy-max
output distance and the argmax accuracy routes (argmax orbits, closed-form dd, the box worst
point) read output value i - 1 as the index i.  Every comparison renames the Python input
`queries` to the twin's `q` and the output `result = i - 1` to `out = i`."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, THEORIES, run_main
from dipc_plus.claims.distances import NoisyMaxOutput

TWINS = [
    ("python_noisy_max.toml", "noisy_max.toml"),
    ("python_noisy_max_box.toml", "noisy_max_box.toml"),
    ("python_noisy_max_exp.toml", "noisy_max_exp.toml"),
    ("python_noisy_max_exp_box.toml", "noisy_max_exp_box.toml"),
]


def as_twin(value):
    """A Python run's JSON in the .dip twin's words (input queries -> q, output result = i-1 -> out = i)."""
    if isinstance(value, dict):
        if set(value) == {"result"}:
            return {"out": value["result"] + 1}
        return {("q" if k == "queries" else k): as_twin(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_twin(v) for v in value]
    if isinstance(value, str):
        return value.replace("queries", "q")
    return value


def run_json(command: str, claim, *extra) -> tuple[int, dict]:
    code, out, err = run_main([command, str(claim), "--json", *extra])
    assert code in (0, 1), out + err
    return code, json.loads(out)


def claim_text(name: str) -> str:
    """A theory's text with its program path made absolute (to be written elsewhere)."""
    return (THEORIES / name).read_text().replace("../programs", str(PROGRAMS))


@pytest.mark.parametrize("python, dip", TWINS)
def test_accuracy_verdict_reports_and_work_are_the_twins(python, dip):
    py_code, py = run_json("accuracy", THEORIES / python)
    dip_code, twin = run_json("accuracy", THEORIES / dip)
    assert py_code == dip_code == 0 and py["verdict"] == twin["verdict"] == "verified"
    if "reports" in twin:      # grid: per input the same det, dd, decision and closed forms
        keep = ("input", "det", "dd", "dd_attained", "alpha", "verdict", "beta", "p_correct")
        assert [as_twin({k: r.get(k) for k in keep}) for r in py["reports"]] == \
            [{k: r.get(k) for k in keep} for r in twin["reports"]]
        assert py["work"]["path"] == twin["work"]["path"] == "argmax orbits"
        assert py["work"]["distributions"] == twin["work"]["distributions"]
    else:                      # box: the same method, checks and region verdicts
        assert py["method"] == twin["method"] == "argmax worst point"
        assert [c["name"] for c in py["checks"]] == [c["name"] for c in twin["checks"]]
        assert "(1 -> 0, 2 -> 1, 3 -> 2)" in py["checks"][0]["proved"]
        assert [(as_twin(r["det"]), as_twin(r["region"]), r["verdict"], r["method"]) for r in py["regions"]] == \
            [(r["det"], r["region"], r["verdict"], r["method"]) for r in twin["regions"]]


@pytest.mark.parametrize("python, dip", TWINS)
def test_sweep_kappa_star_and_counterexample_closed_forms_are_the_twins(python, dip):
    _, py = run_json("sweep", THEORIES / python)
    _, twin = run_json("sweep", THEORIES / dip)
    assert py["best_kappa"] == twin["best_kappa"]
    detail, twin_detail = py["kappa_star_detail"], twin["kappa_star_detail"]
    assert detail["exact"] == twin_detail["exact"] and detail["enclosure"] == twin_detail["enclosure"]
    assert as_twin(detail["at"]) == twin_detail["at"]
    keep = ("input", "eps", "error_probability", "bound", "alpha", "gamma", "kappa")
    assert as_twin({k: py["counterexample"][k] for k in keep}) == {k: twin["counterexample"][k] for k in keep}
    if "region_kappa_star" in twin:
        assert as_twin(py["region_kappa_star"]) == twin["region_kappa_star"]


def test_noisy_max_kappa_star_is_the_known_value():
    """kappa* of NoisyMax at m = 3 (beta = 3 e^(-alpha eps/2)): the sweep stops at 4, refuting 5."""
    _, py = run_json("sweep", THEORIES / "python_noisy_max_box.toml")
    assert py["best_kappa"] == 4 and py["counterexample"]["kappa"] == 5


@pytest.mark.parametrize("python, dip", TWINS[:2])
def test_too_strong_claim_is_refuted_at_the_twins_counterexample(python, dip):
    py_code, py = run_json("accuracy", THEORIES / python, "--kappa", "5")
    dip_code, twin = run_json("accuracy", THEORIES / dip, "--kappa", "5")
    assert py_code == dip_code == 1 and py["verdict"] == twin["verdict"] == "refuted"


@pytest.mark.parametrize("dip_box", ["noisy_max_box.toml", "noisy_max_exp_box.toml"])
def test_zero_one_box_claim_is_decided_like_the_twin(tmp_path, dip_box):
    """The zero-one output distance on the Python noisy max took no argmax route before (undecided)."""
    python_box = "python_" + dip_box
    results = []
    for name in (python_box, dip_box):
        path = tmp_path / name
        path.write_text(claim_text(name).replace('output_distance = "noisy-max"', 'output_distance = "zero-one"'))
        results.append(run_json("accuracy", path))
    (py_code, py), (dip_code, twin) = results
    assert py_code == dip_code and py["verdict"] == twin["verdict"] == "verified"
    assert py["method"] == twin["method"] == "argmax worst point"


RELABELLED = """param m = 3
input q: real[m]
output o: {}
var noisy: real[3]
var k: 1..3
noisy[1] <- Lap(eps/2, q[1])
noisy[2] <- Lap(eps/2, q[2])
noisy[3] <- Lap(eps/2, q[3])
k <- argmax(noisy)
o <- {}
"""


def relabelled_claim(tmp_path, out_type: str, expr: str):
    (tmp_path / "p.dip").write_text(RELABELLED.format(out_type, expr))
    text = claim_text("noisy_max_box.toml").replace(str(PROGRAMS / "noisy_max.dip"), str(tmp_path / "p.dip"))
    (tmp_path / "c.toml").write_text(text)
    return tmp_path / "c.toml"


def test_a_dip_relabelling_gets_the_verdict_and_closed_forms_of_the_index(tmp_path):
    """2*k - 2 (labels 0, 2, 4) is injective: the claim reads as NoisyMax's, with its counterexample."""
    claim = relabelled_claim(tmp_path, "{0, 2, 4}", "2*k - 2")
    code, py = run_json("sweep", claim)
    _, twin = run_json("sweep", THEORIES / "noisy_max_box.toml")
    assert code == 0 and py["best_kappa"] == twin["best_kappa"]
    assert py["counterexample"]["error_probability"] == twin["counterexample"]["error_probability"]
    assert [r["det"] for r in py["region_kappa_star"]] == [{"o": 0}, {"o": 2}, {"o": 4}]


@pytest.mark.parametrize("out_type, expr", [("0..4", "k - 1"), ("0..2", "2 - abs(k - 2)"), ("0..2", "k - k")])
def test_noisy_max_distance_refuses_values_that_report_no_one_index(tmp_path, out_type, expr):
    """0..4 has values no index shows; a non-injective relabelling shows two indices alike."""
    code, out, err = run_main(["accuracy", str(relabelled_claim(tmp_path, out_type, expr))])
    assert code == 2, out + err
    assert "c.toml:" in err and "noisy-max distance" in err and "Traceback" not in err


def test_labelled_distance_reads_each_value_as_its_index():
    distance = NoisyMaxOutput("result", ("queries[1]", "queries[2]", "queries[3]"), (0, 1, 2))
    u = {"queries[1]": F(1), "queries[2]": F(-1, 2), "queries[3]": F(0)}
    assert distance.between(u, {"result": 0}, {"result": 1}) == F(3, 2)
    assert distance.between(u, {"result": 2}, {"result": 0}) == F(1)
    assert distance.index_of(2) == 3
    plain = NoisyMaxOutput("out", ("q[1]", "q[2]"))
    assert plain.index_of(2) == 2

"""The notebook API decides box claims (every real input of a box) as `dipc accuracy` and `dipc sweep`
do: the same verdict, regions and counterexample, `.to_json()` equal to the command's --json, and
`input=` checking one input as --input does.  The numbers are cross-checked against the closed form
P[error] = e^(-eps*|q - 1/2|)/2 of threshold_half (Laplace tail, `conftest.lap_sf`), not against
the code under test."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import dipc_plus
from dipc_plus import cli
from conftest import ROOT, lap_sf

SPARSE_BOX = str(ROOT / "theories/sparse_box.toml")
HALF_BOX = str(ROOT / "theories/threshold_half_box.toml")


def _cli_json(capsys, *argv):
    code = cli.main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _without_time(obj):
    """The JSON without wall-clock fields and the CLI's --strict report (an option of the command)."""
    if isinstance(obj, dict):
        return {k: _without_time(v) for k, v in obj.items() if k not in ("seconds", "strict")}
    if isinstance(obj, list):
        return [_without_time(v) for v in obj]
    return obj


def test_sparse_box_is_the_cli_twin(capsys):
    r = dipc_plus.check_accuracy(SPARSE_BOX)
    code, out = _cli_json(capsys, "accuracy", SPARSE_BOX)
    assert isinstance(r, dipc_plus.BoxReport) and isinstance(r, dipc_plus.AccuracyReport)
    assert code == 0 and out["verdict"] == "verified" and out["method"] == "corner reduction"
    assert _without_time(r.to_json()) == _without_time(out)
    assert r.verdict == "verified" and r.verified is True and r.counterexample is None
    assert r.to_json()["params"]["m"] == 3        # an integer parameter is a JSON number (docs/json.md)
    # one RegionVerdict per region of the JSON, and the box regions of m = 3 tile the box
    assert [(v.region, v.verdict, v.method) for v in r.regions] == \
        [(x["region"], x["verdict"], x["method"]) for x in out["regions"]]
    assert sum(v.share for v in r.regions) == 1 and r.undecided_share == 0
    assert r.regions[0].det == {"out": list(out["regions"][0]["det"]["out"])}
    assert repr(r).startswith("<BoxReport accuracy of sparse on the box q in [-1, 1]: verified")
    assert "VERIFIED on the box" in str(r) and "object at 0x" not in str(r)
    assert "<table>" in r._repr_html_()


def test_threshold_half_box_refuted_off_the_grid(capsys):
    r = dipc_plus.check_accuracy(HALF_BOX)
    code, out = _cli_json(capsys, "accuracy", HALF_BOX)
    assert code == 1 and r.verdict == "refuted" and r.verified is False
    assert _without_time(r.to_json()) == _without_time(out)
    cex = r.counterexample
    q = cex.input["q"]
    assert out["counterexample"]["input"]["q"] == str(q)
    # a point of the box between the integers (the grid claim holds at every integer)
    assert -2 <= q <= 2 and Fraction(q).denominator > 1
    # independently: P[error] = P[q + Lap(eps) < 1/2] for q > 1/2 (else the other tail), against
    # beta = 2/5 e^(-alpha eps/4) at alpha = dd(q) = |q - 1/2|
    eps, dd = float(cex.eps), abs(float(q) - 0.5)
    p_error = 1 - lap_sf(0.5, float(q), eps) if q >= Fraction(1, 2) else lap_sf(0.5, float(q), eps)
    beta = 0.4 * math.exp(-dd * eps / 4)
    assert p_error > beta * (1 + 1e-9)
    assert cex.error_ball > cex.bound_ball
    assert f"refuted at q={Fraction(q)}" in repr(r) and "REFUTED at" in str(r)


def test_input_on_a_box_claim_checks_that_input(capsys):
    r = dipc_plus.check_accuracy(HALF_BOX, input={"q": Fraction(5, 8)})
    code, out = _cli_json(capsys, "accuracy", HALF_BOX, "--input", "q=5/8")
    assert not isinstance(r, dipc_plus.BoxReport)
    assert code == 1 and r.verdict == "refuted"
    assert _without_time(r.to_json()) == _without_time(out)
    assert out["inputs_checked"] == 1


def test_box_sweeps_are_the_cli_twins(capsys):
    s = dipc_plus.sweep(SPARSE_BOX)
    code, out = _cli_json(capsys, "sweep", SPARSE_BOX)
    assert isinstance(s, dipc_plus.BoxSweepReport) and code == 0
    assert _without_time(s.to_json()) == _without_time(out)
    assert s.verified and s.best_kappa == out["best_kappa"] and s.kappa_star.text == out["kappa_star"]
    assert [(k.region, k.kappa_star.text) for k in s.region_kappa_stars] == \
        [(x["region"], x["kappa_star"]) for x in out["region_kappa_star"]]
    # the best kappa is the floor of kappa*, and beta/(best + 1) fails at a point of the box
    assert s.kappa_star.lo >= s.best_kappa and s.kappa_star.hi < s.best_kappa + 1
    assert s.counterexample.kappa == s.best_kappa + 1
    assert all(-1 <= x <= 1 for x in s.counterexample.input["q"])
    assert "best kappa" in repr(s) and "kappa*" in str(s)


def test_threshold_half_box_sweep(capsys):
    s = dipc_plus.sweep(HALF_BOX)
    code, out = _cli_json(capsys, "sweep", HALF_BOX)
    assert code == 1 and _without_time(s.to_json()) == _without_time(out)
    # beta/P[error] = (2/5 e^(-x/4)) / (e^(-x)/2) = 4/5 e^(3x/4) with x = eps*dd > 0: infimum 4/5
    star = s.kappa_star
    assert star is not None and star.lo <= Fraction(4, 5) <= star.hi
    assert s.best_kappa == 0 and s.verified is False and s.counterexample.kappa == 1


def test_box_sweep_refuses_what_the_cli_refuses():
    with pytest.raises(dipc_plus.UserError, match="Definition 2"):
        dipc_plus.sweep(HALF_BOX, paper=True)
    with pytest.raises(dipc_plus.UserError, match="no per-input reports"):
        dipc_plus.sweep(HALF_BOX, reports=True)
    # as `dipc accuracy --paper` / `--dd-over grid`: the corner reduction names the check, in Python words
    with pytest.raises(dipc_plus.UserError, match="check 'convention'") as paper:
        dipc_plus.check_accuracy(HALF_BOX, paper=True)
    assert "paper=True" in str(paper.value) and "--paper" not in str(paper.value)
    with pytest.raises(dipc_plus.UserError, match="dd over the reals"):
        dipc_plus.check_accuracy(HALF_BOX, dd_over="grid")


def test_the_docs_example_runs():
    """docs/claims.md, "Box claims from Python": its example is what the API prints."""
    import doctest
    import re
    text = (ROOT / "docs" / "claims.md").read_text()
    section = text.split("### Box claims from Python", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block, {}, "claims.md box example", str(ROOT / "docs/claims.md"), 0)
    assert len(test.examples) >= 4
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


def test_kappa_on_a_box_claim_is_the_cli_twin(capsys):
    """Sparse c = 1, m = 3 holds on the box with beta/6 (kappa* = 6.3758...) and fails with beta/7."""
    r = dipc_plus.check_accuracy(SPARSE_BOX, params={"c": 1}, kappa=7)
    code, out = _cli_json(capsys, "accuracy", SPARSE_BOX, "--set", "c=1", "--kappa", "7")
    assert code == 1 and r.verdict == "refuted" and r.counterexample.kappa == 7
    assert _without_time(r.to_json()) == _without_time(out)
    assert all(-1 <= x <= 1 for x in r.counterexample.input["q"])
    assert "beta/7 on the box" in repr(r)


MIXED = """\
input q: real
output a: bool, b: bool
r <- Lap(eps, q)
a <- r >= 0
s <- Lap(eps, 0)
b <- s >= q - 1
"""


def test_undecided_box_claim(tmp_path, capsys):
    """q has both signs in the paths to an output whose region (0 <= q <= 1) has share 1/2 of the
    box: the region is undecided, never a guess."""
    (tmp_path / "mixed.dip").write_text(MIXED)
    claim = tmp_path / "mixed.toml"
    claim.write_text('[program]\npath = "mixed.dip"\n[accuracy]\ninput_distance = "linf"\n'
                     'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "2*exp(-alpha*eps/2)"\n'
                     '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    r = dipc_plus.check_accuracy(claim)
    code, out = _cli_json(capsys, "accuracy", str(claim))
    assert code == 6 and r.verdict == "undecided" and r.verified is None and r.counterexample is None
    assert _without_time(r.to_json()) == _without_time(out)
    undecided = [v for v in r.regions if v.verdict == "undecided"]
    assert undecided and all("check 'monotone'" in v.reason for v in undecided)
    assert "undecided" in repr(r) and "UNDECIDED" in str(r)
    s = dipc_plus.sweep(claim)
    code, out = _cli_json(capsys, "sweep", str(claim))
    assert code == 6 and s.best_kappa is None and s.verified is None and s.undecided_regions
    assert _without_time(s.to_json()) == _without_time(out)
    assert "undecided" in repr(s)


def test_noisy_max_box_goes_through_the_argmax_worst_point(capsys):
    """decide_box's other route (accuracy.argmax_box) reaches the API unchanged: the eps >= 4 NoisyMax
    box claim is refuted between the grid points, as `dipc accuracy` says."""
    box = str(ROOT / "theories/noisy_max_eps4_box.toml")
    r = dipc_plus.check_accuracy(box)
    code, out = _cli_json(capsys, "accuracy", box)
    assert code == 1 and r.verdict == "refuted" and _without_time(r.to_json()) == _without_time(out)
    assert all(v.method.startswith("argmax worst point") for v in r.regions)
    assert any(Fraction(x).denominator > 1 for x in r.counterexample.input["q"])

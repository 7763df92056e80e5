"""Small consistency items: the command, --summary and the notebook API agree on the same claim.

A listed input written twice is one input (as in a privacy claim's list): it adds no obligation,
so every surface counts it once and the scope names it once.
"""
from __future__ import annotations

import json
import os

import pytest

import dipc_plus
from conftest import run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DUPLICATE_LIST = """\
[program]
path = "{program}"
params = {{ k = 2, sens = 1 }}

[accuracy]
det = "noise-free"
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = 1
beta = "k*exp(-gamma*eps/sens)"
eps = "(0, inf)"

[accuracy.inputs]
list = [ {{ q = [0, 1] }}, {{ q = [1, 1] }}, {{ q = [0, 1] }} ]
"""

TWO_INPUTS = "2 input(s): {q[1]=0, q[2]=1}; {q[1]=1, q[2]=1}"


@pytest.fixture
def duplicate_claim(tmp_path):
    path = tmp_path / "dup.toml"
    path.write_text(DUPLICATE_LIST.format(program=os.path.join(ROOT, "programs", "laplace.dip")))
    return path


def _counts(out: dict) -> tuple:
    return out["inputs_checked"], out["obligations"], out["scope"]["inputs_detail"], len(out["reports"])


def test_duplicate_listed_input_counts_once_in_the_command(duplicate_claim):
    code, out, err = run_main(["accuracy", duplicate_claim, "--json", "--no-progress"])
    assert code == 0, err
    assert _counts(json.loads(out)) == (2, 2, TWO_INPUTS, 2)


def test_duplicate_listed_input_counts_once_in_the_summary(duplicate_claim):
    code, out, err = run_main(["accuracy", duplicate_claim, "--summary", "--no-progress"])
    assert code == 0, err
    assert "2 input(s), 2 obligation(s), 2 where the claim applies, 0 refuted" in out
    assert "3 input(s)" not in out


def test_duplicate_listed_input_counts_once_in_the_api(duplicate_claim):
    report = dipc_plus.check_accuracy(duplicate_claim)
    assert _counts(report.to_json()) == (2, 2, TWO_INPUTS, 2)
    assert "2 input(s), 2 obligation(s)" in str(report)


def test_api_inputs_given_twice_count_once(duplicate_claim):
    report = dipc_plus.check_accuracy(duplicate_claim, inputs=[{"q": [0, 1]}, {"q": [0, 1]}])
    assert _counts(report.to_json()) == (1, 1, "1 input(s): {q[1]=0, q[2]=1}", 1)


def test_a_sup_ratio_has_both_ends():
    """`lower()` is the end the budget is compared with when refuting: an enclosure's lo, an exact
    value itself, nothing for an infinite sup (which refutes every budget on its own)."""
    from fractions import Fraction

    from dipc_plus.decision.sup_ratio import SupRatio
    enclosed = SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2))
    assert (enclosed.lower(), enclosed.upper()) == (Fraction(1, 3), Fraction(1, 2))
    assert SupRatio(value=Fraction(2)).lower() == SupRatio(value=Fraction(2)).upper() == 2
    assert SupRatio(infinite=True).lower() is None


HALF_BUDGET_RR = """\
[program]
path = "{program}"

[privacy]
adjacency = "hamming"
budget = "eps/2"
eps = "(0, inf)"
"""


def test_the_api_prints_booleans_as_the_reports_do(tmp_path):
    """Randomized response is eps-DP, not eps/2-DP: the counterexample's Boolean input, neighbour
    and output read `false`/`true` in the API's repr and table, as in the command's report."""
    path = tmp_path / "rr.toml"
    path.write_text(HALF_BUDGET_RR.format(program=os.path.join(ROOT, "programs", "randomized_response.dip")))
    report = dipc_plus.check_privacy(path)
    assert "input      x=false" in str(report)
    assert repr(report).endswith("refuted at x=false vs x=true, y=false, eps = 1>")
    rows = dict(report.counterexample.html_rows())
    assert (rows["input"], rows["neighbour"], rows["output"]) == ("x=false", "x=true", "y=false")
    assert "True" not in report.counterexample._repr_html_()

"""An integer plus a fraction in a translated Python function is a number, not an index.

`x = i + 0.5` used to be declared with the loop index's integer range and then refused with
"1/2 is outside the domain 0..1 of 'x'"; the sum is a real local, and the program's
distribution is the one worked out by hand from the Laplace tail P[L >= a] = e^(-a eps)/2.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import run_main
from dipc_plus.frontend.python.load import python_to_dip

SOURCE = """\
def half(prng, queries, epsilon):
    count = 0
    for i in range(len(queries)):
        x = i + 0.5
        if queries[i] + prng.laplace(scale=1.0 / epsilon) >= x:
            count += 1
    return count
"""


def test_the_sum_is_declared_real():
    dip = python_to_dip(SOURCE, "half.py", "half", {"m": Fraction(2)})[0]
    assert "var x: real" in dip


@pytest.mark.parametrize("whole", ["i + 1", "1 + i"])
def test_a_whole_constant_keeps_the_index_range(whole):
    dip = python_to_dip(SOURCE.replace("i + 0.5", whole), "half.py", "half", {"m": Fraction(2)})[0]
    assert "var x: 1..2" in dip


def test_the_distribution_is_the_hand_computed_one(tmp_path):
    path = tmp_path / "half.py"
    path.write_text(SOURCE)
    code, out, err = run_main(["prob", path, "--function", "half", "--set", "m=2",
                               "--input", "queries=[-1,-1]", "--json"])
    assert code == 0, err
    outcomes = {o["outputs"]["py_count"]: o["probability"] for o in json.loads(out)["outcomes"]}
    # query i = -1 passes x = i + 1/2 when its noise is >= 3/2 (i = 0) or >= 5/2 (i = 1).
    assert outcomes[2] == "1/4*e^(-4*eps)"
    assert outcomes[0] == "1 - 1/2*e^(-3/2*eps) - 1/2*e^(-5/2*eps) + 1/4*e^(-4*eps)"

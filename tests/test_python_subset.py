"""The rest of the Python subset, each function run against the exact distribution of its
translation (the test of tests/test_python_frontend.py, false alarm 1e-8 per case)."""
from __future__ import annotations

from fractions import Fraction

import pytest

import dipc_plus
import python_subset_examples as examples
from test_python_frontend import assert_same_distribution

CASES = [("noisy_max_by_hand", None), ("rising", 2), ("max_and_argmin", None), ("noisy_total", None),
         ("first_above", None)]
INPUTS = [[0, 1, 0], [1, Fraction(-1), Fraction(1, 2)]]


@pytest.mark.slow
@pytest.mark.parametrize("name,lengths", CASES)
@pytest.mark.parametrize("queries", INPUTS, ids=["q1", "q2"])
def test_subset_function_agrees_with_its_translation(name, lengths, queries):
    func = getattr(examples, name)
    program = dipc_plus.Program.from_python(func, params={"m": 3})
    assert_same_distribution(program, func, queries, {}, 3, lengths)


def test_by_hand_noisy_max_is_the_comprehension_one():
    """The loop form (enumerate, a running best) and the comprehension form give the same closed forms."""
    by_hand = dipc_plus.Program.from_python(examples.noisy_max_by_hand, params={"m": 3})
    from test_python_frontend import load_function
    shipped = dipc_plus.Program.from_python(load_function("noisy_max"), params={"m": 3})
    for q in ([0, 1, 0], [1, 0, Fraction(1, 2)]):
        a = {o.values: str(p) for o, p in by_hand.distribution(input={"queries": q}).items()}
        b = {o.values: str(p) for o, p in shipped.distribution(input={"queries": q}).items()}
        assert a == b

"""A `choose` weight that is negative at the input: the chain refuses it as the sampler does,
instead of printing a negative probability (and calling the distribution one that sums to 1)."""
from __future__ import annotations

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics.distribution import output_distribution

TEXT = """
input x: 0..2
output y: 0..2
distribution d(v: 0..2) over 0..2 {{ 0: {weight}; 1: 2 }}
y <- choose({rate}d(x))
"""


def program(weight: str, rate: str = ""):
    return parse_program(TEXT.format(weight=weight, rate=rate), "negative.dip")


def test_a_weight_negative_at_this_input_is_refused_at_the_weight_naming_the_draw():
    with pytest.raises(UserError) as err:
        output_distribution(program("v - 1"), {"x": 0})
    assert err.value.message == "distribution 'd' has a negative weight (outcome 0) at the draw on line 5"
    assert (err.value.line, err.value.column) == (4, 40) and err.value.hint == "weights must be non-negative"


def test_a_weight_negative_only_for_small_eps_is_refused_with_a_witness():
    # e^(eps) - 2 < 0 for eps < ln 2: the chain speaks for every eps, so it is refused
    with pytest.raises(UserError, match=r"negative weight \(outcome 0\) at the draw on line 5 at eps = 1/2"):
        output_distribution(program("exp(rate) - 2", "eps, "), {"x": 0})


def test_weights_that_are_never_negative_still_give_the_distribution():
    dist = output_distribution(program("v - 1"), {"x": 1})      # weights 0 and 2
    assert dist.sums_to_one() and dist.probability(y=1) == 1
    dist = output_distribution(program("exp(-rate)", "eps, "), {"x": 0})
    assert dist.sums_to_one()

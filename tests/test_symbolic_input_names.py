"""--box and --input of `prob --symbolic` name inputs: a name that is an output array (or no
name of the program) is a user error with the program's inputs in the hint, never a KeyError."""
from __future__ import annotations

import os

import pytest

from conftest import PROGRAMS
from dipc_plus.errors import UserError
from dipc_plus.frontend.load import load_program
from dipc_plus.semantics.symbolic_distribution import bind_finite_inputs, symbolic_distribution


@pytest.fixture(scope="module")
def above_threshold():
    return load_program(os.path.join(PROGRAMS, "above_threshold.dip"), {"m": 2})


def test_box_on_an_output_array_is_refused(above_threshold):
    with pytest.raises(UserError) as info:
        symbolic_distribution(above_threshold, {"q": (-1, 1), "out": (0, 1)})
    assert info.value.message == "--box out: 'out' is not an input of above_threshold"
    assert info.value.hint == "its inputs are q[1], q[2]"


def test_box_on_an_unknown_name_is_refused(above_threshold):
    with pytest.raises(UserError, match="--box z: 'z' is not an input"):
        symbolic_distribution(above_threshold, {"q": (-1, 1), "z": (0, 1)})


def test_input_on_an_output_array_is_refused(above_threshold):
    with pytest.raises(UserError, match="--input out: 'out' is not an input of above_threshold"):
        bind_finite_inputs(above_threshold, {"out": ["top", "bot"]})


def test_box_on_every_element_of_an_input_array(above_threshold):
    sd = symbolic_distribution(above_threshold, {"q": (-1, 1)})
    assert sd.bounds == [(-1, 1), (-1, 1)]

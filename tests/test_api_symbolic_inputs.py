"""Program.symbolic's box and SymbolicResult.at's input are read as every Program method reads its input
(`api.keywords.mapping`): a mapping, or keywords, each name once; anything else is a UserError, not a
TypeError from inside."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.errors import UserError

SIGN = "input x: real\noutput b: bool\nn <- Lap(eps, x)\nb <- n > 0\n"


@pytest.fixture(scope="module")
def sign():
    return dipc_plus.Program.from_text(SIGN, name="sign").symbolic(box={"x": (-1, 1)})


def test_input_as_a_mapping_or_as_keywords(sign):
    half = sign.at(input={"x": "1/2"})
    assert half == sign.at(x="1/2") and str(half[True]) == "1 - 1/2*e^(-1/2*eps)"


@pytest.mark.parametrize("bad, words", [
    ({"input": [0]}, "input is a mapping from names to values, not [0]"),
    ({"input": {"x": 0}, "x": 1}, "input 'x' is given twice (in input and as a keyword)"),
])
def test_a_bad_input_is_a_user_error(sign, bad, words):
    with pytest.raises(UserError) as err:
        sign.at(**bad)
    assert err.value.message == words


@pytest.mark.parametrize("box", [[1, 2], "q"])
def test_a_box_that_is_no_mapping_is_a_user_error(box):
    program = dipc_plus.Program.from_text(SIGN, name="sign")
    with pytest.raises(UserError) as err:
        program.symbolic(box=box)
    assert err.value.message == f"box is a mapping from names to values, not {box}"
    assert err.value.hint == "e.g. box={'q': (-1, 1)}"

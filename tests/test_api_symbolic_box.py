"""Program.symbolic's box: an entry that is not two numbers is one UserError, whatever is wrong with it
(not a pair, or a pair whose ends are not numbers), naming the entry and what was given."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.errors import UserError

SIGN = "input x: real\noutput b: bool\nn <- Lap(eps, x)\nb <- n > 0\n"


@pytest.mark.parametrize("pair, shown", [((1, 2, 3), "(1, 2, 3)"), (5, "5"), ((True, 1), "(True, 1)"),
                                         (["top", 1], "['top', 1]")])
def test_a_box_entry_that_is_not_two_numbers_is_one_user_error(pair, shown):
    program = dipc_plus.Program.from_text(SIGN, name="sign")
    with pytest.raises(UserError) as err:
        program.symbolic(box={"x": pair})
    assert err.value.message == f"box['x']: give two numbers (lo, hi), not {shown}"
    assert err.value.hint == "e.g. box={'q': (-1, 1)}"


def test_two_numbers_are_the_box():
    program = dipc_plus.Program.from_text(SIGN, name="sign")
    assert str(program.symbolic(box={"x": ("-1", 0.5)}).at(input={"x": 0})[True]) == "1/2"

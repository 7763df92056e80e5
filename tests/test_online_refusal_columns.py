"""The two refusals of the online shape that had a file but no line or column (issue 37): a program
read at its own m whose inputs are not one real array (`shape_at_length`), and a program with no
statement to split into iterations.  Both now point at a place: the first statement, or the start of
the file when there is none."""
from __future__ import annotations

import dataclasses

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.online.shape import shape_at_length

TWO_INPUTS = """param m = 3
input  q: real[m]
input  z: real
output out: real[m]
for i = 1 to m do
    out[i] <- Lap(eps, q[i])
end
"""


def _refusal(program) -> UserError:
    with pytest.raises(UserError) as err:
        shape_at_length(program)
    return err.value


def test_inputs_that_are_not_one_real_array_are_refused_at_the_first_statement():
    program = parse_program(TWO_INPUTS, "two_inputs.dip")
    err = _refusal(program)
    assert "exactly one input, an array q: real[m]" in err.message
    assert (err.file, err.line, err.column) == ("two_inputs.dip", 6, 5)    # out[i] <- Lap(..) of i = 1


def test_an_empty_body_is_refused_at_the_start_of_the_file():
    program = parse_program(TWO_INPUTS, "two_inputs.dip")
    one_input = dataclasses.replace(program, inputs=program.inputs[:3], body=())
    err = _refusal(one_input)
    assert "do not split into m such iterations" in err.message
    assert (err.file, err.line, err.column) == ("two_inputs.dip", 1, 1)


def test_the_command_line_message_carries_the_column():
    err = _refusal(parse_program(TWO_INPUTS, "two_inputs.dip"))
    assert str(err).startswith("two_inputs.dip:6:5: error: cannot decide privacy for every m")

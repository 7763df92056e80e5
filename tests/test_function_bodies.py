"""A function body sees only its own parameters: an array element or a program variable in it is
refused at the name, with the current wording (the program's own indices are flattened earlier)."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

CASES = [
    ("function f(x: 0..2) -> 0..2 = q[1]\ninput q: real[2]\noutput o: real\no <- Lap(eps, q[1])\n", 1, 31,
     "'q[...]': the body of function 'f' has no arrays", "pass the element as an argument"),
    ("distribution D(x: 0..2) over bool { true: q[1]; false: 1 }\ninput q: real[2]\noutput o: real\n"
     "o <- Lap(eps, q[1])\n", 1, 43,
     "'q[...]': the body of distribution 'D' has no arrays", "pass the element as an argument"),
    ("function f(x: 0..2) -> 0..2 = z\ninput z: 0..2\noutput o: real\no <- Lap(eps, z)\n", 1, 31,
     "'z' is a program variable; the body of function 'f' only sees its own parameters",
     "add a parameter for it and pass z as an argument"),
]


@pytest.mark.parametrize("text, line, column, message, hint", CASES)
def test_a_body_that_reads_outside_its_parameters_is_refused(text, line, column, message, hint):
    with pytest.raises(UserError) as info:
        parse_program(text, "f.dip")
    err = info.value
    assert (err.line, err.column, err.message, err.hint) == (line, column, message, hint)

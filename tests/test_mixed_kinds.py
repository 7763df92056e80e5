"""Every form that combines an integer (DLap) and a real (Lap) value is refused by one rule
(exprs.common_kind) with one message, at the form: a comparison, a sum, an argmax."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

HEAD = "param m = 3\ninput q: real[m]\noutput out: 1..3\nz <- DLap(eps, 0)\n"
NEVER_MIX = "integers (DLap samples) and reals (Lap samples, real inputs) never mix"
CASES = [
    ("b <- z < q[1]\nout <- 1\n", 5, 8, "this comparison",
     NEVER_MIX + "; compare reals with reals and integers with integers"),
    ("x <- z + q[1]\nout <- 1\n", 5, 6, "'+'", NEVER_MIX),
    ("r <- Lap(eps, q[1])\nout <- argmax(z, r, q[2])\n", 6, 8, "argmax", NEVER_MIX),
    ("r <- Lap(eps, q[1])\nout <- argmin(r, z)\n", 6, 8, "argmin", NEVER_MIX),
]


@pytest.mark.parametrize("body, line, column, what, hint", CASES)
def test_mixing_an_integer_and_a_real_is_one_message(body, line, column, what, hint):
    with pytest.raises(UserError) as info:
        parse_program(HEAD + body, "mix.dip")
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert err.message == f"{what} mixes an integer and a real value"
    assert err.hint == hint


def test_an_argmax_of_reals_alone_is_lowered():
    program = parse_program(HEAD + "r <- Lap(eps, q[1])\nout <- argmax(r, q[2])\n", "mix.dip")
    assert program.outputs[0][0] == "out"

"""A name that cannot stand in a compile-time constant (a rate, an array size or range bound, an
index or loop bound) is explained by where the constant is needed: a variable, or an unknown name
with the closest parameter.  `Scope.not_constant` says all six; each keeps its position and text."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

TAIL = "output o: real\no <- Lap(eps, q[1])\n"
CASES = [
    ("input q: real\nvar x: real\noutput o: real\nx <- q\no <- Lap(eps*x, q)\n", 5, 14,
     "a rate must be a constant multiple of eps, but 'x' is a variable",
     "use numbers and parameters: eps/2, 2*eps/(9*c)"),
    ("param mm = 2\ninput q: real\noutput o: real\no <- Lap(eps/m, q)\n", 4, 14,
     "unknown name 'm' in a rate", "did you mean 'mm'?"),
    ("input q: real\noutput o: real\no <- Lap(eps/zz, q)\n", 3, 14,
     "unknown name 'zz' in a rate", "rates use numbers, parameters and eps"),
    ("var k: 0..2 = 1\ninput q: real[k]\n" + TAIL, 2, 15,
     "'k' is a variable, but a compile-time constant is needed here",
     "sizes, bounds and indices use numbers, parameters and for-loop indices"),
    ("param mm = 2\nvar k: 0..m\ninput q: real[mm]\n" + TAIL, 2, 11,
     "unknown parameter 'm'", "did you mean 'mm'?"),
    ("input q: real[zz]\n" + TAIL, 1, 15, "unknown parameter 'zz'", "declare it: 'param zz = 3'"),
    ("var k: 1..2 = 1\ninput q: real[2]\noutput o: real\no <- Lap(eps, q[k])\n", 4, 17,
     "'k' is a variable, but this must be a compile-time constant",
     "indices and loop bounds use numbers, parameters and for-loop indices"),
    ("param mm = 2\ninput q: real[2]\noutput o: real\no <- Lap(eps, q[m])\n", 4, 17,
     "unknown name 'm'", "did you mean 'mm'?"),
    ("input q: real[2]\noutput o: real\no <- Lap(eps, q[zz])\n", 3, 17,
     "unknown name 'zz'", "indices and loop bounds use numbers, parameters and for-loop indices"),
]


@pytest.mark.parametrize("text, line, column, message, hint", CASES)
def test_a_name_in_a_constant_is_explained_by_where_it_is_needed(text, line, column, message, hint):
    with pytest.raises(UserError) as info:
        parse_program(text, "c.dip")
    err = info.value
    assert (err.line, err.column, err.message, err.hint) == (line, column, message, hint)

"""Loop bounds and the unrolling limit (frontend/unroll.py): a bound that is not a compile-time
constant, and a loop past the `unrolled` limit (found from the program's shape before unrolling, or
after the first iteration), are refused at the loop with one wording."""
from fractions import Fraction

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

PROGRAMS = {
 "huge_loop": ("param m = 3\ninput q: real[m]\noutput o: real[m]\nfor i = 1 to m do o[i] <- Lap(eps, q[i]) end\n", {"m": Fraction(10**7)}),
 "nested": ("param m = 3\ninput q: real\noutput o: real\nvar x: real\nfor i = 1 to m do for j = 1 to i do x <- Lap(eps, q) end end\no <- x\n", {"m": Fraction(3000)}),
 "bound_var": ("input q: real\noutput o: real\nvar k: 0..3\nk <- 2\nfor i = 1 to k do o <- Lap(eps, q) end\n", {}),
 "bound_unknown": ("input q: real\noutput o: real\nfor i = 1 to nn do o <- Lap(eps, q) end\n", {}),
 "lo_unknown": ("input q: real\noutput o: real\nfor i = aa to bb do o <- Lap(eps, q) end\n", {}),
 "check_size": ("param m = 3\ninput q: real\noutput o: real\nfor i = 1 to m do o <- Lap(eps, q) end\n", {"m": Fraction(10**7)}),
 "ok": ("param m = 2\ninput q: real[m]\noutput o: real[m]\nfor i = 1 to m do o[i] <- Lap(eps, q[i]) end\n", {}),
}

REFUSALS = [
    ('huge_loop', 'UserError', 2, 15, 'an array of 10000000 elements is too large (at most 100000)',
     'check the parameter values (--set)'),
    ('nested', 'ResourceLimit', 5, 23, 'this for loop would unroll to 707 iterations x 4 statement and expression parts, more than 1000000',
     'use smaller parameters (--set); the limit on statement and expression parts of a program once its for loops are unrolled is 1000000; raise it with --limit unrolled=N if the file is trusted'),
    ('bound_var', 'UserError', 5, 14, "'k' is a variable, but this must be a compile-time constant",
     'indices and loop bounds use numbers, parameters and for-loop indices'),
    ('bound_unknown', 'UserError', 3, 14, "unknown name 'nn'",
     'indices and loop bounds use numbers, parameters and for-loop indices'),
    ('lo_unknown', 'UserError', 3, 9, "unknown name 'aa'",
     'indices and loop bounds use numbers, parameters and for-loop indices'),
    ('check_size', 'ResourceLimit', 4, 5, 'this for loop would unroll to 10000000 iterations x at least 4 statement and expression parts, more than 1000000 (with m = 10000000)',
     'use smaller parameters (--set); the limit on statement and expression parts of a program once its for loops are unrolled is 1000000; raise it with --limit unrolled=N if the file is trusted'),
]


@pytest.mark.parametrize("name, kind, line, column, message, hint", REFUSALS)
def test_refusal_is_located_and_worded(name, kind, line, column, message, hint):
    text, params = PROGRAMS[name]
    with pytest.raises(UserError) as err:
        parse_program(text, "p.dip", params)
    assert type(err.value).__name__ == kind
    assert (err.value.line, err.value.column, err.value.message, err.value.hint) == (line, column, message, hint)


def test_a_loop_within_the_limits_unrolls():
    text, params = PROGRAMS["ok"]
    assert [s.target for s in parse_program(text, "p.dip", params).body] == ["o[1]", "o[2]"]

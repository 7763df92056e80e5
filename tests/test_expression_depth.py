"""Expressions nested deeper than the back ends evaluate (lower.MAX_DEPTH) are refused after lowering,
at the statement or declaration that holds them, naming what is too deep."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.frontend.lower import MAX_DEPTH

DEEP = " + ".join(["a"] * (MAX_DEPTH + 50))        # a left-leaning sum: one level per '+'
SHALLOW = " + ".join(["a"] * (MAX_DEPTH - 50))
HEAD = "input q: real\nvar a: 0..2\nvar b: bool\noutput o: real\na <- 1\n"
CASES = [
    (HEAD + f"if {DEEP} > 3 then b <- true else b <- false end\no <- Lap(eps, q)\n", 6, 1, "this condition"),
    (HEAD + f"b <- {DEEP} > 3\no <- Lap(eps, q)\n", 6, 1, "this expression"),
    ("function f(a: rational) -> rational = " + DEEP + "\ninput q: real\noutput o: real\no <- Lap(eps, q)\n",
     1, 10, "the body of 'f'"),
    ("distribution D(a: 0..2) over bool { true: " + DEEP + "; false: 1 }\ninput q: real\noutput o: real\n"
     "var b: bool\nb <- choose(D(1))\no <- Lap(eps, q)\n", 1, 14, "a weight of 'D'"),
]


@pytest.mark.parametrize("text, line, column, what", CASES)
def test_a_too_deep_expression_is_refused_where_it_is_written(text, line, column, what):
    with pytest.raises(UserError) as info:
        parse_program(text, "deep.dip")
    err = info.value
    assert (err.line, err.column, err.message) == (line, column, f"{what} is nested more than {MAX_DEPTH} levels deep")
    assert err.hint == "split it with intermediate variables or helper functions"


def test_an_expression_within_the_depth_is_lowered():
    program = parse_program(HEAD + f"b <- {SHALLOW} > 3\no <- Lap(eps, q)\n", "deep.dip")
    assert program.outputs[0][0] == "o"

"""A function or distribution calls only functions declared above it (no recursion): the scope
so far is what may be called, in a function body, a distribution's outcomes and weights alike."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

TAIL = "input q: real\noutput o: real\no <- Lap(eps, q)\n"
CASES = [
    ("function f(x: 0..2) -> 0..2 = g(x)\nfunction g(x: 0..2) -> 0..2 = x\n" + TAIL, 1, 31,
     "'g' is declared after function 'f'; a function can only call functions declared above it"),
    ("function f(x: 0..2) -> 0..2 = f(x)\n" + TAIL, 1, 31,
     "function 'f' calls itself; functions cannot be recursive"),
    ("distribution D(x: 0..2) over bool { true: g(x); false: 1 }\nfunction g(x: 0..2) -> rational = x\n" + TAIL,
     1, 43, "'g' is declared after distribution 'D'; a function can only call functions declared above it"),
]


@pytest.mark.parametrize("text, line, column, message", CASES)
def test_a_call_of_a_function_declared_below_is_refused(text, line, column, message):
    with pytest.raises(UserError) as info:
        parse_program(text, "calls.dip")
    assert (info.value.line, info.value.column, info.value.message) == (line, column, message)


def test_a_call_of_a_function_declared_above_is_lowered():
    text = ("function g(x: 0..2) -> rational = x\ndistribution D(x: 0..2) over bool { true: g(x); false: 1 }\n"
            "function f(x: 0..2) -> rational = g(x) + 1\n" + TAIL)
    assert set(parse_program(text, "calls.dip").functions) == {"g", "f"}

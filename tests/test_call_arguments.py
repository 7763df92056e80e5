"""Arguments of calls (a user function, a score function of Exp, a distribution of choose) are
checked by one routine (Lowerer.call_args): the count, each argument deterministic and fitting its
parameter, every refusal at the argument with one wording."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

F = "function f(a: 0..3, b: bool) -> int = if b then a else 0\nfunction s(a: 0..3, c: 1..3) -> rational = a + c\ndistribution D(x: bool) over bool { x: 3; not x: 1 }\ninput q: real\noutput o: 1..3\nvar k: 0..3\nvar z: bool\n"
PROGRAMS = {
 "ok": F + "k <- f(1, true)\nz <- choose(D(true))\no <- Exp(eps, s(k))\n",
 "f_count": F + "k <- f(1)\no <- 1\n",
 "f_type": F + "k <- f(1, 2)\no <- 1\n",
 "f_random": F + "k <- f(q, true)\no <- 1\n",
 "s_count": F + "o <- Exp(eps, s(1, 2))\n",
 "s_type": F + "o <- Exp(eps, s(true))\n",
 "d_count": F + "z <- choose(D())\no <- 1\n",
 "d_type": F + "z <- choose(D(3))\no <- 1\n",
}

REFUSALS = [
    ('f_count', 8, 6, 'f takes 2 argument(s), 1 given',
     'f(a: 0..3, b: bool)'),
    ('f_type', 8, 11, "argument 2 of f ('b') must be true or false, but the number 2 is a number",
     None),
    ('f_random', 8, 8, 'argument 1 of f must be a Boolean, DOM or rational value, but it is a real value',
     'real and integer values only appear in linear expressions, comparisons and as means of Lap/DLap'),
    ('s_count', 8, 15, 's has 2 parameters: give 1 argument(s); the last parameter is the candidate',
     'write x <- Exp(a*eps, F(args)) with F a function whose last parameter is the candidate'),
    ('s_type', 8, 17, "argument 1 of s ('a') is of domain 0..3, but true is a Boolean",
     'Booleans and DOM values are different types'),
    ('d_count', 8, 13, 'D takes 1 argument(s), 0 given',
     'D(x: bool)'),
    ('d_type', 8, 15, "argument 1 of D ('x') must be true or false, but the number 3 is a number",
     None),
]


@pytest.mark.parametrize("name, line, column, message, hint", REFUSALS)
def test_refusal_is_located_and_worded(name, line, column, message, hint):
    with pytest.raises(UserError) as err:
        parse_program(PROGRAMS[name], "p.dip")
    assert (err.value.line, err.value.column, err.value.message, err.value.hint) == (line, column, message, hint)


def test_arguments_are_lowered_in_order():
    body = parse_program(PROGRAMS["ok"], "p.dip").body
    assert [str(a.value) for a in body[0].expr.args] == ["1", "True"]
    assert body[1].dist.dist == "D" and body[2].dist.fn == "s"

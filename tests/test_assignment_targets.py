"""What may be assigned and what a declaration may be (frontend/unroll.py `target`, declare.py
`_ROLES`): every refusal keeps its position, message and hint."""
import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program

HEAD = "param m = 2\ntype Ans = {no, yes}\ninput q: real[m]\ninput r: real\noutput o: real\n"
TARGETS = [
    ("q <- 1\n", 6, 1, "'q' is an array; assign its elements, e.g. q[1] <- ...", None),
    ("for i = 1 to m do i <- 2 end\n", 6, 19, "cannot assign to 'i': it is a loop index",
     "assign to a variable instead"),
    ("m <- 3\n", 6, 1, "cannot assign to 'm': it is a parameter", "assign to a variable instead"),
    ("yes <- 3\n", 6, 1, "cannot assign to 'yes': it is a domain symbol", "assign to a variable instead"),
    ("r <- 3\n", 6, 1, "cannot assign to 'r': it is an input", "copy it into a local variable first"),
    ("q[2] <- 3\n", 6, 1, "cannot assign to 'q[2]': it is an input", "copy it into a local variable first"),
]
DECLARATIONS = [
    ("input q: rational\noutput o: real\n", 1, 10, "an input cannot have type rational",
     "use real, int, bool or a finite domain"),
    ("function f(x: real) -> bool = true\ninput q: real\noutput o: real\n", 1, 15,
     "a parameter cannot have type real", "use bool, int, rational or a finite domain"),
    ("distribution D() over int { 1: 1 }\ninput q: real\noutput o: real\n", 1, 23,
     "a distribution's values cannot have type int", "use bool or a finite domain"),
    ("type T = int\ninput q: real\noutput o: real\n", 1, 10, "a type cannot have type int",
     "use a finite domain (a range lo..hi or a set {a, b})"),
]


def refusal(text):
    with pytest.raises(UserError) as info:
        parse_program(text, "t.dip")
    err = info.value
    return err.line, err.column, err.message, err.hint


@pytest.mark.parametrize("body, line, column, message, hint", TARGETS)
def test_an_assignment_target_that_holds_no_variable_is_refused_at_it(body, line, column, message, hint):
    assert refusal(HEAD + body + "o <- Lap(eps, r)\n") == (line, column, message, hint)


@pytest.mark.parametrize("text, line, column, message, hint", DECLARATIONS)
def test_a_declaration_of_a_type_its_role_does_not_allow_is_refused(text, line, column, message, hint):
    assert refusal(text + "o <- Lap(eps, q)\n") == (line, column, message, hint)

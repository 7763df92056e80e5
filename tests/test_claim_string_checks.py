"""The one node check of claim strings (`expression.NodeCheck`, with the accuracy formula's
rules as `formula._FormulaCheck`): every refusal names what is wrong, sits at the column of
the offending part and carries a hint, whichever reader (formula, delta, budget, weight) asked."""
import pytest

from dipc_plus.claims.expression import ARITHMETIC, Where, read, syntax_tree
from dipc_plus.claims.formula import parse, parse_polynomial
from dipc_plus.errors import UserError

W = Where("c.toml", 4, 20, "privacy.x")


def refusal(read_it, text):
    with pytest.raises(UserError) as info:
        read_it(text)
    err = info.value
    assert err.file == "c.toml" and err.line == 4 and err.hint
    return err.message, err.column - 20


def beta(text):
    parse(text, ["m"], W).exact({"m": 1})


def delta(text):
    parse(text, ["m"], W, tree=read(text, W, what="delta", hint="H"), what="delta", hint="H").exact({"m": 1})


def budget(text):
    syntax_tree(text, W, ARITHMETIC | {"call"}, calls=("ln",), what="budget")


def weight(text):
    parse_polynomial(text, ["p"], W)


@pytest.mark.parametrize("read_it,what", [(beta, "formula"), (delta, "delta"), (budget, "budget"),
                                          (weight, "weight")])
def test_an_operator_is_refused_at_its_own_column(read_it, what):
    message, column = refusal(read_it, "1 + m % 2")
    assert message == f"privacy.x: the operator in 'm % 2' is not allowed in the {what}" and column == 4


@pytest.mark.parametrize("read_it", [beta, delta])
def test_formula_and_delta_give_the_same_reasons(read_it):
    assert refusal(read_it, "eps * log(2)") == ("privacy.x: 'log(...)': a logarithm is not a rational number, "
                                                "so it has no exact form here", 6)
    assert refusal(read_it, "1 + f(eps)") == ("privacy.x: unknown function 'f'", 4)
    assert refusal(read_it, "exp(x=1)") == ("privacy.x: exp takes exactly one argument", 0)
    assert refusal(read_it, "m(1)(2)") == ("privacy.x: 'm(1)' is not a function", 0)
    assert refusal(read_it, "eps**5000")[0] == "privacy.x: the exponent 5000 is larger than 200"


def test_a_literal_that_is_not_a_number_has_a_hint():
    message, column = refusal(beta, "eps * True")
    assert message == "privacy.x: True is not a number, in the formula 'eps * True'" and column == 6

"""Every run-time evaluator refuses a variable read on a path where it has no value with one
message and hint (evaluate.read_before_assigned): expressions, linear forms of the walks and the
chain, and the sampler's columns."""
from fractions import Fraction as F

import pytest

from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_expr
from dipc_plus.semantics.walk import linear_value

AT = ir.Pos("p.dip", 4, 2)
PROGRAM = parse_program("input q: real\noutput b: bool\nb <- q > 0\n")


def refused(call) -> UserError:
    with pytest.raises(UserError) as info:
        call()
    return info.value


@pytest.mark.parametrize("call", [
    lambda: eval_expr(ir.Var("x"), {}, PROGRAM, AT),
    lambda: eval_expr(ir.Lin("real", ((ir.Const(1), "x"),)), {}, PROGRAM, AT),
    lambda: linear_value({"x": F(1)}, F(0), {"q": LinForm.constant(1)}, AT),
])
def test_one_message(call):
    e = refused(call)
    assert str(e).splitlines()[0].endswith("error: 'x' is read before it is assigned")
    assert e.hint == "assign it on every path that reaches this statement"
    assert (e.file, e.line, e.column) == ("p.dip", 4, 2)

"""The one assignment rule of the walks and the chain (walk.assigned_value): a Real/Int
assignment whose expression is not linear is refused by the chain and stored as a constant
by the walks."""
from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics import ir
from dipc_plus.semantics.dtmc import DTMC
from dipc_plus.semantics.walk import Domain, PathState, Walk

TEXT = """
input  b: bool
output x: real
output o: bool

x <- 1
o <- not b
"""


def _with_nonlinear_real(program: ir.Program) -> ir.Program:
    """x <- (if b then 3 else 4) written as a plain expression, not a linear form."""
    first = program.body[0]
    expr = ir.Cond(ir.Var("b"), ir.Const(3), ir.Const(4))
    return dataclasses.replace(program, body=(dataclasses.replace(first, expr=expr),) + program.body[1:])


class _Plain(Domain):
    def split(self, st, form, op):  # pragma: no cover - the program has no comparison
        raise AssertionError


def test_the_chain_refuses_a_real_assignment_that_is_not_linear():
    program = _with_nonlinear_real(parse_program(TEXT))
    with pytest.raises(UserError, match="'x' is real: it needs a linear expression"):
        DTMC(program, {"b": True})


def test_the_walk_stores_its_constant_value():
    program = _with_nonlinear_real(parse_program(TEXT))
    [end] = Walk(program, _Plain(), 4).run(PathState({"b": False}, {}, None))
    assert end.reals["x"] == LinForm.constant(F(4)) and end.env["o"] is True


def test_both_read_a_linear_assignment_alike():
    program = parse_program(TEXT)
    chain = DTMC(program, {"b": True})
    [end] = Walk(program, _Plain(), 4).run(PathState({"b": True}, {}, None))
    assert chain.outputs_at(chain.exits[0]) == (LinForm.constant(1), False) == (end.reals["x"], end.env["o"])

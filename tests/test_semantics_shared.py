"""The pieces of semantics/ that several back ends share: what statements read before they write
(the live variables on entry), the shape of a piece of IR, the truth of a condition, output arrays
given as lists, and the outputs at a chain's exit."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.load import parse_program
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import build_chain, distribution_of_chain, flat_outputs, output_distribution
from dipc_plus.semantics.evaluate import eval_condition
from dipc_plus.semantics.structure import exposed_reads

BRANCHES = """
input  a: bool
input  b: bool
input  c: bool
output o: bool

if a then
    x <- b
else
    x <- c
end
y <- c
if b then
    y <- a
end
o <- x and y
z <- c
while z do
    z <- b and not z
end
"""


def test_a_variable_written_on_both_branches_is_not_read_before_it_is_written():
    body = parse_program(BRANCHES).body
    assert exposed_reads(body[:1]) == {"a", "b", "c"}
    assert exposed_reads(body[:4]) == {"a", "b", "c"}
    assert exposed_reads(body[2:4]) == {"a", "b", "x", "y"}     # y is written on one branch only
    assert exposed_reads(body[3:4]) == {"x", "y"}


def test_a_loop_reads_its_condition_and_what_its_body_reads_first():
    body = parse_program(BRANCHES).body
    assert exposed_reads(body[5:]) == {"z", "b"}
    assert exposed_reads(body[4:]) == {"c", "b"}


def test_the_shape_of_ir_forgets_positions_and_renames_variables():
    here, there = ir.Pos("f", 1, 1), ir.Pos("g", 9, 9)
    one = ir.Assign("x", ir.Binary("and", ir.Var("a"), ir.Var("b")), here)
    other = ir.Assign("x", ir.Binary("and", ir.Var("c"), ir.Var("b")), there)
    assert one != other
    assert ir.renamed(one, {"a": "k"}) == ir.renamed(other, {"c": "k"})
    assert ir.renamed(one) != ir.renamed(other)
    lin = ir.Lin("real", ((ir.Var("w"), "r"),), ir.Const(F(0)))
    assert ir.renamed(lin, {"w": "v", "r": "s"}) == ir.Lin("real", ((ir.Var("v"), "s"),), ir.Const(F(0)))


def test_a_condition_that_is_not_a_boolean_is_a_user_error():
    program = parse_program(BRANCHES)
    assert eval_condition(ir.Var("a"), {"a": True}, program, ir.NOWHERE) is True
    with pytest.raises(UserError, match="not true or false"):
        eval_condition(ir.Const(F(1)), {}, program, ir.Pos("p.dip", 3, 4), "the condition of 'while'")


TWO_OUTPUTS = """
input  q: real[2]
output o: real[2]
output k: bool

o[1] <- Lap(eps, q[1])
o[2] <- Lap(eps, q[2])
k <- o[1] >= o[2]
"""


def test_output_arrays_are_given_as_lists_or_one_value_for_every_element():
    program = parse_program(TWO_OUTPUTS)
    assert flat_outputs(program, {"o": [1, 2], "k": True}) == {"o[1]": 1, "o[2]": 2, "k": True}
    assert flat_outputs(program, {"o": F(1, 2)}, broadcast=True) == {"o[1]": F(1, 2), "o[2]": F(1, 2)}
    with pytest.raises(UserError, match="'o' is an array of 2 outputs"):
        flat_outputs(program, {"o": [1, 2, 3]})
    with pytest.raises(UserError, match="gamma of 'o' is an array of 2 outputs"):
        output_distribution(program, {"q": [0, 0]}).within({"o": [0, 0]}, {"o": [1, 1, 1]})


def test_within_takes_one_gamma_for_an_output_array():
    program = parse_program(TWO_OUTPUTS)
    one = output_distribution(program, {"q": [0, 0]}).within({"o": [0, 0]}, {"o": 1})
    each = output_distribution(program, {"q": [0, 0]}).within({"o": [0, 0]}, {"o": [1, 1]})
    assert one == each
    # independent Laplace noises of scale 1/eps: P[|N| <= 1]^2 = (1 - e^-eps)^2, at eps = 1
    assert abs(float(one(1.0)) - (1 - 2.718281828459045 ** -1) ** 2) < 1e-12


def test_the_outputs_at_each_exit_are_the_distribution_s_outcomes():
    program = parse_program(TWO_OUTPUTS)
    chain = build_chain(program, {"q": [0, 1]})
    values = [chain.outputs_at(e) for e in chain.exits]
    assert sorted(map(str, values)) == sorted(str(o.values) for o in distribution_of_chain(chain).outcomes())
    assert all(isinstance(v[2], bool) and v[0] is not None for v in values)

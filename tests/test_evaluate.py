"""Run-time evaluation of deterministic IR expressions (dipc_plus.semantics.evaluate).

Expected values are computed independently in the tests (Python arithmetic,
math.exp, an explicit enumeration), never copied from the implementation.
"""
import math
from fractions import Fraction as F

import pytest

from dipc_plus.semantics import ir
from dipc_plus.errors import UserError
from dipc_plus.semantics.evaluate import (choose_weights, eval_assign, eval_expr, eval_weight, expmech_scores,
                                lin_value_parts)

P = ir.Pos("t.dip", 7, 3)
D03 = ir.DomT((0, 1, 2, 3))
ANS = ir.DomT(("bot", "top"), "Ans")


def program(functions=(), distributions=(), variables=None):
    return ir.Program(name="t", source="t.dip", params={}, inputs=(), outputs=(), arrays={},
                      variables=variables or {}, functions={f.name: f for f in functions},
                      distributions={d.name: d for d in distributions}, body=())


def C(v):
    return ir.Const(v)


def V(n):
    return ir.Var(n)


def B(op, a, b):
    return ir.Binary(op, a, b)


def test_arithmetic_and_comparisons():
    prog = program()
    env = {"x": 3, "y": 2, "s": "top", "t": True}
    assert eval_expr(B("+", V("x"), V("y")), env, prog) == 5
    assert eval_expr(B("/", V("x"), V("y")), env, prog) == F(3, 2)
    assert eval_expr(B("/", C(4), V("y")), env, prog) == 2 and isinstance(eval_expr(B("/", C(4), V("y")), env, prog), int)
    assert eval_expr(B(">=", V("x"), V("y")), env, prog) is True
    assert eval_expr(B("==", V("s"), C("top")), env, prog) is True
    assert eval_expr(B("!=", V("s"), C("bot")), env, prog) is True
    assert eval_expr(ir.Unary("abs", B("-", V("y"), V("x"))), env, prog) == 1
    assert eval_expr(ir.Cond(V("t"), C(1), C(2)), env, prog) == 1


def test_booleans_short_circuit_and_never_equal_numbers():
    prog = program()
    # 'and' stops at false: the right side would read an unassigned variable.
    assert eval_expr(B("and", C(False), V("missing")), {}, prog) is False
    assert eval_expr(B("or", C(True), V("missing")), {}, prog) is True
    assert eval_expr(ir.Call("EQ", (C(True), C(1))), {}, prog) is False
    assert eval_expr(B("==", C(1), C(True)), {}, prog) is False


def test_builtins_follow_their_definitions():
    prog = program()
    vals = [2, 5, 5, 1]
    args = tuple(C(v) for v in vals)
    assert eval_expr(ir.Call("max", args), {}, prog) == max(vals)
    assert eval_expr(ir.Call("min", args), {}, prog) == min(vals)
    # first largest / smallest, 1-based
    assert eval_expr(ir.Call("argmax", args), {}, prog) == vals.index(max(vals)) + 1
    assert eval_expr(ir.Call("argmin", args), {}, prog) == vals.index(min(vals)) + 1
    assert eval_expr(ir.Call("count", (C(True), C(False), C(True))), {}, prog) == 2
    assert eval_expr(ir.Call("abs", (C(-3),)), {}, prog) == 3


def test_user_function_checks_domains_and_reports_position():
    f = ir.Function("half", (("d", D03),), ir.DomT((0, 1)), B("/", V("d"), C(2)), P)
    prog = program([f])
    assert eval_expr(ir.Call("half", (C(2),)), {}, prog) == 1
    with pytest.raises(UserError) as err:
        eval_expr(ir.Call("half", (C(1),)), {}, prog, P)  # 1/2 is not in 0..1
    assert err.value.line == 7 and "outside the domain" in err.value.message
    with pytest.raises(UserError):
        eval_expr(ir.Call("half", (C(9),)), {}, prog, P)  # 9 is not in 0..3


def test_division_by_zero_is_a_user_error_at_the_statement():
    f = ir.Function("inv", (("d", D03),), ir.RatT(), B("/", C(1), V("d")), P)
    prog = program([f])
    assert eval_expr(ir.Call("inv", (C(3),)), {}, prog) == F(1, 3)
    with pytest.raises(UserError) as err:
        eval_expr(ir.Call("inv", (C(0),)), {}, prog, ir.Pos("a.dip", 12, 5))
    assert (err.value.file, err.value.line, err.value.column) == ("a.dip", 12, 5)
    assert "division by zero" in err.value.message


def test_assignment_outside_domain():
    prog = program(variables={"x": D03, "a": ANS})
    stmt = ir.Assign("x", B("+", V("x"), C(1)), P)
    assert eval_assign(stmt, {"x": 2}, prog) == 3
    with pytest.raises(UserError) as err:
        eval_assign(stmt, {"x": 3}, prog)
    assert "outside the domain" in err.value.message and err.value.hint
    assert eval_assign(ir.Assign("a", C("top"), P), {}, prog) == "top"


def test_lin_value_parts_sums_repeats_drops_zeros():
    prog = program()
    lin = ir.Lin("real", ((C(2), "r"), (V("x"), "s"), (C(-2), "r"), (C(F(1, 2)), "s")), B("+", V("x"), C(1)))
    coefs, const = lin_value_parts(lin, {"x": 3}, prog)
    assert coefs == {"s": F(7, 2)}
    assert const == 4
    with pytest.raises(UserError):
        lin_value_parts(ir.Lin("int", ((C(F(1, 2)), "z"),), C(0)), {}, prog, P)
    with pytest.raises(UserError):
        lin_value_parts(ir.Lin("int", (), C(F(1, 2))), {}, prog, P)


def test_lin_full_value_with_floats():
    prog = program()
    lin = ir.Lin("real", ((C(2), "r"), (C(-1), "q")), C(F(1, 2)))
    assert eval_expr(lin, {"r": 1.25, "q": 0.5}, prog) == pytest.approx(2 * 1.25 - 0.5 + 0.5)


def test_weights_exact_and_float_agree():
    # weight = exp(-2*rate) / (1 - exp(-rate)) + eps*x
    w = B("+", B("/", ir.ExpOf(B("*", C(-2), ir.Rate())), B("-", C(1), ir.ExpOf(ir.Unary("-", ir.Rate())))),
          B("*", ir.Eps(), V("x")))
    prog = program()
    eps, a = 0.7, F(1, 3)
    got = eval_weight(w, {"x": 2}, prog, rate=float(a) * eps, eps=eps, exp=math.exp, num=float)
    rate = float(a) * eps
    assert got == pytest.approx(math.exp(-2 * rate) / (1 - math.exp(-rate)) + eps * 2)
    # A weight without rate is a plain rational
    assert eval_weight(B("-", C(1), V("x")), {"x": F(1, 4)}, prog, None, eps, math.exp) == F(3, 4)
    with pytest.raises(UserError):
        eval_weight(ir.ExpOf(ir.Rate()), {}, prog, None, eps, math.exp)


def test_choose_weights_add_equal_outcomes():
    # over 0..2: max(0, x-1) with weight 1, x with weight exp(rate), min(2, x+1) with weight 1
    dist = ir.DistDef("g", (("x", ir.DomT((0, 1, 2))),), ir.DomT((0, 1, 2)),
                      ((ir.Call("max", (C(0), B("-", V("x"), C(1)))), C(1)),
                       (V("x"), ir.ExpOf(ir.Rate())),
                       (ir.Call("min", (C(2), B("+", V("x"), C(1)))), C(1))), P)
    prog = program(distributions=[dist])
    eps = 0.5
    out = dict(choose_weights(ir.Choose(F(2), "g", (C(0),)), {}, prog, eps, math.exp, num=float))
    # x = 0: outcomes 0 (weight 1), 0 (weight e^{2 eps}), 1 (weight 1)
    assert out[0] == pytest.approx(1 + math.exp(2 * eps))
    assert out[1] == pytest.approx(1)
    assert set(out) == {0, 1}


def test_expmech_scores():
    score = ir.Function("score", (("h", D03), ("v", D03)), ir.RatT(),
                        ir.Unary("-", ir.Unary("abs", B("-", V("h"), V("v")))), P)
    prog = program([score])
    got = expmech_scores(ir.ExpMech(F(1), "score", (V("h"),)), (0, 1, 2, 3), {"h": 2}, prog)
    assert got == [(v, F(-abs(2 - v))) for v in range(4)]

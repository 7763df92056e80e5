"""Constructors of IR expressions that fold constants and drop neutral elements.

Lowering builds every arithmetic node through these, so the same source text
always gives the same IR (which makes printing and re-parsing a program give
an identical program) and constant sub-expressions are values early enough
for static domain checks.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.semantics import ir
from dipc_plus.errors import UserError
from dipc_plus.frontend.constant_size import bounded_arith
from dipc_plus.semantics.evaluate import eval_expr
from dipc_plus.semantics.values import plain_number

def const(value) -> ir.Const:
    return ir.Const(plain_number(value))


def num_const(e: ir.Expr):
    if isinstance(e, ir.Const) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool):
        return e.value
    return None


def arith(op: str, a: ir.Expr, b: ir.Expr, pos: ir.Pos | None = None) -> ir.Expr:
    """``a op b`` for op in + - * /: a constant when both sides are numbers, without the
    neutral element (x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1), 0 - x as -x, x * 0 as 0 and
    x * -1 as -x.  `pos` places a division by the constant zero and a folded constant past the
    `digits` limit."""
    x, y = num_const(a), num_const(b)
    if op == "/" and y == 0:
        raise UserError.at(pos, "division by zero")
    if x is not None and y is not None:
        return const(bounded_arith(op, x, y, pos))
    if y == (1 if op in ("*", "/") else 0):
        return a
    if op == "*" and 0 in (x, y):
        return const(0)
    if (op == "+" and x == 0) or (op == "*" and x == 1):
        return b
    if (op == "-" and x == 0) or (op == "*" and x == -1):
        return neg(b)
    if op == "*" and y == -1:
        return neg(a)
    return ir.Binary(op, a, b)


def folded(expr: ir.Unary | ir.Binary) -> ir.Expr:
    """`expr` as its value when its operands are constants (not, and, or, comparisons), by the
    evaluator that runs the program, so a folded constant is what the run would compute."""
    operands = (expr.arg,) if isinstance(expr, ir.Unary) else (expr.left, expr.right)
    if all(isinstance(x, ir.Const) for x in operands):
        return ir.Const(eval_expr(expr, {}, None))
    return expr


def neg(a: ir.Expr) -> ir.Expr:
    x = num_const(a)
    if x is not None:
        return const(-x)
    if isinstance(a, ir.Unary) and a.op == "-":
        return a.arg
    return ir.Unary("-", a)


def merge_terms(terms, pos: ir.Pos | None = None) -> tuple:
    """Sum the constant coefficients of a repeated variable; drop zero terms.  `pos` places a sum
    past the `digits` limit."""
    merged: list[list] = []
    for coef, var in terms:
        for entry in merged:
            if entry[1] == var and num_const(entry[0]) is not None and num_const(coef) is not None:
                entry[0] = arith("+", entry[0], coef, pos)
                break
        else:
            merged.append([coef, var])
    return tuple((c, v) for c, v in merged if num_const(c) != 0)

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
from dipc_plus.semantics.values import plain_number

def const(value) -> ir.Const:
    return ir.Const(plain_number(value))


def num_const(e: ir.Expr):
    if isinstance(e, ir.Const) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool):
        return e.value
    return None


def add(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    x, y = num_const(a), num_const(b)
    if x is not None and y is not None:
        return const(Fraction(x) + y)
    if x == 0:
        return b
    if y == 0:
        return a
    return ir.Binary("+", a, b)


def sub(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    x, y = num_const(a), num_const(b)
    if x is not None and y is not None:
        return const(Fraction(x) - y)
    if y == 0:
        return a
    if x == 0:
        return neg(b)
    return ir.Binary("-", a, b)


def mul(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    x, y = num_const(a), num_const(b)
    if x is not None and y is not None:
        return const(Fraction(x) * y)
    if x == 0 or y == 0:
        return const(0)
    if x == 1:
        return b
    if y == 1:
        return a
    if x == -1:
        return neg(b)
    if y == -1:
        return neg(a)
    return ir.Binary("*", a, b)


def div(a: ir.Expr, b: ir.Expr, pos: ir.Pos) -> ir.Expr:
    x, y = num_const(a), num_const(b)
    if y == 0:
        raise UserError.at(pos, "division by zero")
    if x is not None and y is not None:
        return const(Fraction(x) / y)
    if y == 1:
        return a
    return ir.Binary("/", a, b)


def neg(a: ir.Expr) -> ir.Expr:
    x = num_const(a)
    if x is not None:
        return const(-x)
    if isinstance(a, ir.Unary) and a.op == "-":
        return a.arg
    return ir.Unary("-", a)


def merge_terms(terms) -> tuple:
    """Sum the constant coefficients of a repeated variable; drop zero terms."""
    merged: list[list] = []
    for coef, var in terms:
        for entry in merged:
            if entry[1] == var and num_const(entry[0]) is not None and num_const(coef) is not None:
                entry[0] = add(entry[0], coef)
                break
        else:
            merged.append([coef, var])
    return tuple((c, v) for c, v in merged if num_const(c) != 0)

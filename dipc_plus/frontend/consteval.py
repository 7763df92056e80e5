"""Compile-time arithmetic: parameter values, bounds, array sizes and indices, rates.

These expressions are evaluated once, exactly (Fraction), over parameters and
`for` indices only; anything else in them is a mistake the user should hear
about at the offending name.
"""
from __future__ import annotations

import operator
from fractions import Fraction
from typing import Callable, Mapping

from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError

_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def const_value(expr: S.Expr, env: Mapping[str, Fraction], what: str,
                explain: Callable[[S.Name], UserError] | None = None) -> Fraction:
    """The exact value of a constant expression over `env` (params, loop indices).

    `what` says where the constant is needed ("an array size"); `explain` turns a
    name that is not in `env` into the right error (unknown vs. not constant).
    """
    def fail(node, message, hint=None):
        raise UserError.at(node.pos, message, hint)

    def walk(e) -> Fraction:
        if isinstance(e, S.Num):
            return Fraction(e.value)
        if isinstance(e, S.Name):
            if e.name in env:
                return Fraction(env[e.name])
            if explain is not None:
                raise explain(e)
            fail(e, f"'{e.name}' is not a parameter: {what} must be a compile-time constant",
                 "use numbers, parameters (param m = 3) and for-loop indices here")
        if isinstance(e, S.UnOp) and e.op == "-":
            return -walk(e.arg)
        if isinstance(e, S.BinOp) and e.op in ("+", "-", "*", "/"):
            a, b = walk(e.left), walk(e.right)
            if e.op == "/" and b == 0:
                fail(e, f"division by zero in {what}")
            return _ARITHMETIC[e.op](a, b)
        if isinstance(e, S.EpsLit):
            fail(e, f"'eps' cannot be used in {what}", "eps only appears in rates and distribution weights")
        fail(e, f"{what} must be a compile-time constant (numbers, parameters, for-loop indices and + - * /)")

    return walk(expr)


def const_int(expr: S.Expr, env: Mapping[str, Fraction], what: str,
              explain: Callable[[S.Name], UserError] | None = None) -> int:
    value = const_value(expr, env, what, explain)
    if value.denominator != 1:
        raise UserError.at(expr.pos, f"{what} must be an integer, but it is {value}",
                           hint="check the parameter values (--set) that it is computed from")
    return int(value)


def rate_multiple(expr: S.Expr, env: Mapping[str, Fraction],
                  explain: Callable[[S.Name], UserError] | None = None) -> Fraction:
    """For a rate written ``a*eps`` (any arrangement), the positive rational a."""
    hint = "write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)"

    def walk(e) -> tuple[Fraction, Fraction]:  # (multiple of eps, constant)
        if isinstance(e, S.EpsLit):
            return Fraction(1), Fraction(0)
        if isinstance(e, S.UnOp) and e.op == "-":
            a, c = walk(e.arg)
            return -a, -c
        if isinstance(e, S.BinOp) and e.op in ("+", "-", "*", "/"):
            a1, c1 = walk(e.left)
            a2, c2 = walk(e.right)
            if e.op == "+":
                return a1 + a2, c1 + c2
            if e.op == "-":
                return a1 - a2, c1 - c2
            if e.op == "*":
                if a1 and a2:
                    raise UserError.at(e.pos, "a rate cannot contain eps*eps", hint)
                return a1 * c2 + a2 * c1, c1 * c2
            if a2:
                if not a1 and not c2 and c1 * a2 > 0:   # c/(a*eps): a scale, as numpy, OpenDP and CheckDP write it
                    rate, scale = _show_multiple(a2 / c1), c1 / a2
                    scale = f"{scale.numerator}/" + ("eps" if scale.denominator == 1 else f"({scale.denominator}*eps)")
                    raise UserError.at(e.pos, f"a rate cannot divide by eps: {scale} looks like a scale (the form "
                                              f"of numpy, OpenDP and CheckDP); the rate is its inverse, {rate}",
                                       f"write {rate}, e.g. Lap({rate}, q): here Lap takes the rate 1/scale, so "
                                       f"scale {scale} is rate {rate}")
                raise UserError.at(e.pos, "a rate cannot divide by eps", hint)
            if c2 == 0:
                raise UserError.at(e.pos, "division by zero in a rate", hint)
            return a1 / c2, c1 / c2
        if isinstance(e, (S.Num, S.Name)):
            return Fraction(0), const_value(e, env, "a rate", explain)
        raise UserError.at(e.pos, "a rate must be a rational multiple of eps", hint)

    a, c = walk(expr)
    if c != 0:
        raise UserError.at(expr.pos, f"this rate is {_show_rate(a, c)}, not a multiple of eps", hint)
    if a <= 0:
        raise UserError.at(expr.pos, f"this rate is {_show_rate(a, c)}: it must be a positive multiple of eps", hint)
    return a


def _show_multiple(a: Fraction) -> str:
    """eps, eps/2, 3*eps, 3*eps/2: a positive multiple of eps as a program writes it."""
    head = "eps" if a.numerator == 1 else f"{a.numerator}*eps"
    return head if a.denominator == 1 else f"{head}/{a.denominator}"


def _show_rate(a: Fraction, c: Fraction) -> str:
    parts = []
    if a:
        parts.append(f"{a}*eps")
    if c or not parts:
        parts.append(str(c))
    return " + ".join(parts)

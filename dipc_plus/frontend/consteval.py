"""Compile-time arithmetic: parameter values, bounds, array sizes and indices, rates.

These expressions are evaluated once, exactly (Fraction), over parameters and
`for` indices only; anything else in them is a mistake the user should hear
about at the offending name.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping

from dipc_plus.frontend import surface as S
from dipc_plus.errors import UserError
from dipc_plus.frontend.constant_size import bounded_arith
from dipc_plus.semantics.pretty import format_rate

_ZERO = Fraction(0)
_RATE_HINT = "write a positive rational multiple of eps, e.g. eps, eps/2, 2*eps/9 or eps/(4*c)"


def const_value(expr: S.Expr, env: Mapping[str, Fraction], what: str,
                explain: Callable[[S.Name], UserError]) -> Fraction:
    """The exact value of a constant expression over `env` (params, loop indices).

    `what` says where the constant is needed ("an array size"); `explain` turns a
    name that is not in `env` into the right error (unknown vs. not constant).
    """
    return _eps_linear(expr, env, what, explain, rate=False)[1]


def const_int(expr: S.Expr, env: Mapping[str, Fraction], what: str,
              explain: Callable[[S.Name], UserError]) -> int:
    value = const_value(expr, env, what, explain)
    if value.denominator != 1:
        raise UserError.at(expr.pos, f"{what} must be an integer, but it is {value}",
                           hint="check the parameter values (--set) that it is computed from")
    return int(value)


def rate_multiple(expr: S.Expr, env: Mapping[str, Fraction],
                  explain: Callable[[S.Name], UserError]) -> Fraction:
    """For a rate written ``a*eps`` (any arrangement), the positive rational a."""
    a, c = _eps_linear(expr, env, "a rate", explain, rate=True)
    if c != 0:
        raise UserError.at(expr.pos, f"this rate is {_show_rate(a, c)}, not a multiple of eps", _RATE_HINT)
    if a <= 0:
        raise UserError.at(expr.pos, f"this rate is {_show_rate(a, c)}: it must be a positive multiple of eps",
                           _RATE_HINT)
    return a


def _eps_linear(expr: S.Expr, env: Mapping[str, Fraction], what: str,
                explain: Callable[[S.Name], UserError], rate: bool) -> tuple[Fraction, Fraction]:
    """(multiple of eps, constant) of `expr`, the one walk of compile-time arithmetic: `eps` is
    refused unless it is a `rate`, whose mistakes then have the rate's messages and hints."""
    def walk(e) -> tuple[Fraction, Fraction]:
        if isinstance(e, S.Num):
            return _ZERO, Fraction(e.value)
        if isinstance(e, S.Name):
            if e.name in env:
                return _ZERO, Fraction(env[e.name])
            raise explain(e)
        if isinstance(e, S.EpsLit):
            if rate:
                return Fraction(1), _ZERO
            raise UserError.at(e.pos, f"'eps' cannot be used in {what}",
                               "eps only appears in rates and distribution weights")
        if isinstance(e, S.UnOp) and e.op == "-":
            a, c = walk(e.arg)
            return -a, -c
        if isinstance(e, S.BinOp) and e.op in ("+", "-", "*", "/"):
            (a1, c1), (a2, c2) = walk(e.left), walk(e.right)
            if e.op in ("+", "-"):
                return bounded_arith(e.op, a1, a2, e.pos), bounded_arith(e.op, c1, c2, e.pos)
            if e.op == "*":
                if a1 and a2:
                    raise UserError.at(e.pos, "a rate cannot contain eps*eps", _RATE_HINT)
                return bounded_arith("*", a1 or a2, c2 if a1 else c1, e.pos), bounded_arith("*", c1, c2, e.pos)
            if a2:
                _refuse_eps_divisor(e, a1, c1, a2, c2)
            if c2 == 0:
                raise UserError.at(e.pos, f"division by zero in {what}", _RATE_HINT if rate else None)
            return bounded_arith("/", a1, c2, e.pos), bounded_arith("/", c1, c2, e.pos)
        if rate:
            raise UserError.at(e.pos, "a rate must be a rational multiple of eps", _RATE_HINT)
        raise UserError.at(e.pos, f"{what} must be a compile-time constant (numbers, parameters, for-loop indices "
                                  "and + - * /)")

    return walk(expr)


def _refuse_eps_divisor(e: S.BinOp, a1: Fraction, c1: Fraction, a2: Fraction, c2: Fraction):
    if not a1 and not c2 and c1 * a2 > 0:   # c/(a*eps): a scale, as numpy, OpenDP and CheckDP write it
        rate, scale = format_rate(a2 / c1), c1 / a2
        scale = f"{scale.numerator}/" + ("eps" if scale.denominator == 1 else f"({scale.denominator}*eps)")
        raise UserError.at(e.pos, f"a rate cannot divide by eps: {scale} looks like a scale (the form "
                                  f"of numpy, OpenDP and CheckDP); the rate is its inverse, {rate}",
                           f"write {rate}, e.g. Lap({rate}, q): here Lap takes the rate 1/scale, so "
                           f"scale {scale} is rate {rate}")
    raise UserError.at(e.pos, "a rate cannot divide by eps", _RATE_HINT)


def _show_rate(a: Fraction, c: Fraction) -> str:
    parts = []
    if a:
        parts.append(f"{a}*eps")
    if c or not parts:
        parts.append(str(c))
    return " + ".join(parts)

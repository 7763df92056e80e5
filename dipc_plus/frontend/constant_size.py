"""Arithmetic on the constants of a program, bounded by the `digits` limit.

Why a module of its own: the front end computes constants while it loads a program (parameter
values, sizes, bounds, indices, rates, folded coefficients), exactly.  Squaring doubles a
number's digits, so thirty lines `param p1 = p0*p0`, `param p2 = p1*p1`, ... asked for a
constant of ten billion digits and the front end never finished.  Every constant computed here
is kept within the `digits` limit (numerator and denominator), so each operation works on
bounded operands; a product or quotient is refused from its factors' bit lengths before it is
multiplied out.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd

from dipc_plus.errors import ResourceLimit
from dipc_plus.execution import limits

# log10(2) just below and just above its value: digit bounds from a bit length stay on the safe side
_LOG10_2_LOW, _LOG10_2_HIGH = 0.30102999, 0.30103000
_WORDS = {"+": "sum", "-": "difference", "*": "product", "/": "quotient"}


def bounded_arith(op: str, x, y, pos) -> Fraction:
    """``x op y`` (op in + - * /, y nonzero for /) for constants within the `digits` limit; refused
    at `pos` (the operation) when the result's numerator or denominator would pass the limit.

    >>> bounded_arith("*", Fraction(10**30), Fraction(10**29), None) == 10**59
    True
    """
    x, y = Fraction(x), Fraction(y)
    if op in ("*", "/"):
        y_num, y_den = (y.numerator, y.denominator) if op == "*" else (y.denominator, y.numerator)
        g1, g2 = gcd(x.numerator, y_den), gcd(y_num, x.denominator)   # the factors Fraction would cancel
        for a, b in ((x.numerator // g1, y_num // g2), (x.denominator // g2, y_den // g1)):
            bits = abs(a).bit_length() + abs(b).bit_length() - 1     # the product has at least these bits
            if a and b and int((bits - 1) * _LOG10_2_LOW) + 1 > limits.get("digits"):
                raise _too_large(op, f"about {int(bits * _LOG10_2_LOW) + 1} digits", pos)
    value = x * y if op == "*" else x / y if op == "/" else x + y if op == "+" else x - y
    return within_digits(value, pos, _WORDS[op])


def within_digits(value: Fraction, pos, what: str = "number") -> Fraction:
    """`value` when its numerator and denominator are within the `digits` limit, else refused at `pos`."""
    for part in (value.numerator, value.denominator):
        digits = _digits_past_limit(abs(part))
        if digits:
            raise _too_large(what, digits, pos)
    return value


def _digits_past_limit(n: int) -> str | None:
    """None when n has at most `digits` digits, else its number of digits in words."""
    most, bits = limits.get("digits"), n.bit_length()
    if bits * _LOG10_2_HIGH < most or (int((bits - 1) * _LOG10_2_LOW) + 1 <= most and n < 10 ** most):
        return None
    if bits < 13_000:                                     # below Python's int-to-text limit
        return f"{len(str(n))} digits"
    return f"about {int(bits * _LOG10_2_LOW) + 1} digits"


def _too_large(what: str, digits: str, pos) -> ResourceLimit:
    what = _WORDS.get(what, what)
    return ResourceLimit.at(pos, f"this {what} is a number of {digits} (in its numerator or denominator), "
                                 f"more than {limits.get('digits')}",
                            hint="use smaller parameters (--set); " + limits.hint("digits"))

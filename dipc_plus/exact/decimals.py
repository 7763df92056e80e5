"""Certified numbers as decimal text: the one printer for every interval a report shows.

Why it exists: a certified enclosure [lo, hi] stays certified on the screen only if
the printed lower end is <= lo and the printed upper end is >= hi.  Formatting the
ends with `f"{x:.8g}"` rounds to nearest and can print a lower end above the true
value (issue 8, item 3).  Here both ends are rounded outward exactly: a `Fraction`
end is rounded with integer arithmetic, an arb ball is first turned into the exact
dyadic rationals of its ends.  No float takes part.

`ball_text` keeps arb's own "[mid +/- rad]" form, which arb guarantees to contain
the ball (the printed radius is rounded up); it is here so that every certified
number of a report is printed by this module.  `midpoint_text` is the one
approximate reading of a ball (its midpoint, no bound claimed), printed beside a
certified form or marked "~".
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb

DEFAULT_DIGITS = 8


def exponent10(x: Fraction) -> int:
    """floor(log10(x)) for x > 0, exactly.

    >>> exponent10(Fraction(7, 1000)), exponent10(Fraction(12345))
    (-3, 4)
    """
    e = len(str(x.numerator)) - len(str(x.denominator))
    # 10^(e-1) < x < 10^(e+1); fix the off-by-one exactly
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


def plain_decimal(n: int, places: int) -> str:
    """n * 10^-places as plain decimal text (trailing zeros removed).

    >>> plain_decimal(-5, 2), plain_decimal(120, 2), plain_decimal(7, -1)
    ('-0.05', '1.2', '70')
    """
    sign = "-" if n < 0 else ""
    n = abs(n)
    if places <= 0:
        return sign + str(n * 10 ** (-places))
    text = str(n).rjust(places + 1, "0")
    whole, frac = text[:-places], text[-places:].rstrip("0")
    return sign + whole + ("." + frac if frac else "")


def _rounded(x: Fraction, digits: int, up: bool) -> str:
    if x == 0:
        return "0"
    e = exponent10(abs(x))
    places = digits - 1 - e
    scaled = x * Fraction(10) ** places
    n = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    if -6 <= e < 21:
        return plain_decimal(n, places)
    # scientific notation: n * 10^-places = m * 10^e with 1 <= |m| < 10 (|m| may round to 10)
    mantissa = plain_decimal(n, digits - 1)
    return f"{mantissa}e{e:+d}"


def decimal_down(x, digits: int = DEFAULT_DIGITS) -> str:
    """A decimal with at most `digits` significant digits that is <= x (exactly).

    >>> from fractions import Fraction
    >>> decimal_down(Fraction(2, 3), 4), decimal_down(Fraction(-2, 3), 4)
    ('0.6666', '-0.6667')
    """
    return _rounded(Fraction(x), digits, up=False)


def decimal_up(x, digits: int = DEFAULT_DIGITS) -> str:
    """A decimal with at most `digits` significant digits that is >= x (exactly).

    >>> from fractions import Fraction
    >>> decimal_up(Fraction(2, 3), 4), decimal_up(Fraction(-2, 3), 4)
    ('0.6667', '-0.6666')
    """
    return _rounded(Fraction(x), digits, up=True)


def arb_bounds(b: arb) -> tuple[Fraction, Fraction]:
    """The exact rational ends of a finite arb ball.

    >>> arb_bounds(arb("0.5"))
    (Fraction(1, 2), Fraction(1, 2))
    >>> lo, hi = arb_bounds(arb(1) / 3)
    >>> lo < Fraction(1, 3) < hi
    True
    """
    if not b.is_finite():
        raise ValueError(f"the ball {b} is not finite")
    return dyadic(b.lower()), dyadic(b.upper())


def dyadic(x: arb) -> Fraction:
    """The exact value of an exact ball (an end, a midpoint), mantissa times a power of 2.

    >>> dyadic((arb(1) / 3).mid()) == Fraction(1, 3), dyadic(arb("0.75"))
    (False, Fraction(3, 4))
    """
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def enclosure_text(lo, hi=None, digits: int = DEFAULT_DIGITS) -> str:
    """'[a, b]' with a <= lo and b >= hi, each with `digits` significant digits.

    `lo` and `hi` are Fractions (or ints); an arb ball may be given as `lo` with
    `hi` None, and then its own ends are used.

    >>> from fractions import Fraction
    >>> enclosure_text(Fraction(1, 3), Fraction(1, 2)), enclosure_text(Fraction(1, 3), Fraction(1, 3), 3)
    ('[0.33333333, 0.5]', '[0.333, 0.334]')
    >>> enclosure_text(Fraction(1, 4), Fraction(1, 4))       # exact ends print exactly
    '[0.25, 0.25]'
    """
    if isinstance(lo, arb):
        if hi is not None:
            raise TypeError("give one ball, or two rational ends")
        lo, hi = arb_bounds(lo)
    lo, hi = Fraction(lo), Fraction(hi)
    if lo > hi:
        raise ValueError(f"an enclosure needs lo <= hi, not [{lo}, {hi}]")
    if lo == hi:
        exact = _terminating(lo)
        if exact is not None:
            return f"[{exact}, {exact}]"
    return f"[{decimal_down(lo, digits)}, {decimal_up(hi, digits)}]"


def _terminating(x: Fraction, max_digits: int = 30) -> str | None:
    """x as exact decimal text when it terminates within `max_digits` significant digits."""
    if x == 0:
        return "0"
    text = _rounded(x, max_digits, up=False)
    return text if Fraction(text) == x else None


def ball_text(b: arb, digits: int = 20) -> str:
    """'[0.35326792243427551234 +/- 1.2e-39]': arb's printer, whose printed interval
    contains the ball (midpoint digits and a radius rounded up).

    >>> ball_text(arb(1) / 3, 10)
    '[0.3333333333 +/- 3.34e-11]'
    """
    return b.str(digits, radius=True)


def midpoint_text(b: arb, digits: int = 7) -> str:
    """The ball's midpoint with `digits` significant digits: a reading, not a bound.

    >>> midpoint_text(arb(1) / 3)
    '0.3333333'
    """
    return b.str(digits, radius=False)


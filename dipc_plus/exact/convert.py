"""Exact number conversions and their text, shared by every stage above `exact`.

python-flint's `fmpq` is the fast exact rational of the engines and the decision
procedure; `fractions.Fraction` is the rational of the IR, the claims and the user.
The two conversions and the one printed form of a rational ('17/10', '3') live here
once, so that no module carries its own copy.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

from flint import fmpq


def to_fmpq(x) -> fmpq:
    """The fmpq equal to x (an fmpq, a Fraction, an int, or anything Fraction accepts).

    >>> from fractions import Fraction
    >>> to_fmpq(Fraction(3, 4)), to_fmpq("0.25")
    (3/4, 1/4)
    """
    if isinstance(x, fmpq):
        return x
    if not isinstance(x, Fraction):
        if isinstance(x, int):
            return fmpq(x)
        x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


def to_fraction(x) -> Fraction:
    """The Fraction equal to x (an fmpq, or anything Fraction accepts).

    >>> from flint import fmpq
    >>> to_fraction(fmpq(-6, 4))
    Fraction(-3, 2)
    """
    if type(x) is Fraction:     # the common case first: linear forms convert every coefficient
        return x
    return Fraction(int(x.p), int(x.q)) if isinstance(x, fmpq) else Fraction(x)


def fmt_q(x) -> str:
    """A rational as the user writes it: '17/10', '3', '-1/2'.

    >>> from fractions import Fraction
    >>> fmt_q(Fraction(17, 10)), fmt_q(3), fmt_q(Fraction(-2, 4))
    ('17/10', '3', '-1/2')
    """
    x = to_fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def signed_sum(parts) -> str:
    """Terms given as (sign, text of the magnitude) joined as written, '0' for none: the one
    layout of every printed sum.

    >>> signed_sum([("-", "x"), ("+", "1/2"), ("-", "y")]), signed_sum([])
    ('-x + 1/2 - y', '0')
    """
    if not parts:
        return "0"
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    return text + "".join(f" {sign} {body}" for sign, body in parts[1:])


def linear_text(coeffs, names, const=0) -> str:
    """sum coeffs_i * names_i + const as text, unit coefficients and zero terms left out ('' for 0):
    the one way a linear form over named quantities is written (exponents, cells, rates).

    >>> from fractions import Fraction
    >>> linear_text([Fraction(1, 2), -1], ["q[1]", "q[2]"], Fraction(1, 4)), linear_text([0, -2], ["x", "y"]), linear_text([0], ["x"])
    ('1/2*q[1] - q[2] + 1/4', '-2*y', '')
    """
    parts = [("-" if a < 0 else "+", fmt_q(abs(a)) if n is None else n if abs(a) == 1 else f"{fmt_q(abs(a))}*{n}")
             for a, n in [*zip(coeffs, names), (const, None)] if a]
    return signed_sum(parts) if parts else ""


def json_q(x):
    """A rational for JSON (docs/json.md): an integer as a JSON number, any other as 'p/q';
    Booleans, symbols and None unchanged.  Every "params" object uses it, so a parameter has
    one JSON type whichever command or nested object prints it.

    >>> from fractions import Fraction
    >>> json_q(Fraction(3)), json_q(Fraction(1, 2)), json_q(True), json_q("top")
    (3, '1/2', True, 'top')
    """
    if isinstance(x, bool) or isinstance(x, str) or x is None:
        return x
    q = to_fraction(x)
    return q.numerator if q.denominator == 1 else f"{q.numerator}/{q.denominator}"



def json_exact(value):
    """`value` for JSON, exactly (docs/json.md): rationals as `json_q` writes them, lists and dicts
    element by element, None, Booleans and strings unchanged, anything else as its text.  The one
    converter of the privacy results' and the commands' JSON.

    >>> from fractions import Fraction
    >>> json_exact({"q": [Fraction(1, 2), 3], "b": True, "n": None})
    {'q': ['1/2', 3], 'b': True, 'n': None}
    """
    if isinstance(value, (list, tuple)):
        return [json_exact(v) for v in value]
    if isinstance(value, dict):
        return {k: json_exact(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, str, int, Fraction)):
        return json_q(value)
    return str(value)

def common_denominator(values) -> int:
    """The least common multiple of the rationals' denominators: the scale that makes them all integers.

    >>> from fractions import Fraction
    >>> common_denominator([Fraction(1, 2), Fraction(2, 3), 5])
    6
    """
    return lcm(1, *(Fraction(v).denominator for v in values))


def scaled_integers(values, scale: int) -> list | None:
    """The rationals times `scale` as ints (exact integer arithmetic on a common scale), or None when
    one of them is not an integer there.

    >>> from fractions import Fraction
    >>> scaled_integers([Fraction(1, 2), Fraction(-2, 3)], 6), scaled_integers([Fraction(1, 4)], 6)
    ([3, -4], None)
    """
    scaled = [Fraction(v) * scale for v in values]
    return None if any(x.denominator != 1 for x in scaled) else [x.numerator for x in scaled]

"""Exact values of closed forms where they are rational: at eps = ln r, or when they do
not depend on eps.

Why it exists: FAIER-style claims fix eps = ln r (alpha = e^-eps = 1/2), and many
mechanisms' probabilities do not depend on eps at all; then every probability is a
rational and a privacy claim becomes exact rational arithmetic, with no certified
procedure needed.  The functions here say when that is the case and compute the
value; they return None (or raise a `UserError` with a hint) when it is not.
"""
from __future__ import annotations

from fractions import Fraction

from flint import fmpz

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q, to_fraction
from dipc_plus.exact.expoly import ExpFrac, ExpPoly


def _rational_root(x: Fraction, n: int) -> Fraction | None:
    """x^(1/n) when it is rational, else None (x > 0): FLINT's integer n-th roots of the numerator
    and the denominator (rounded down), checked exactly."""
    root = Fraction(int(fmpz(x.numerator).root(n)), int(fmpz(x.denominator).root(n)))
    return root if root ** n == x else None


def rational_power(r: Fraction, q: Fraction) -> Fraction | None:
    """r^q for rational r > 0 and rational q when the result is rational, else None.

    >>> from fractions import Fraction
    >>> rational_power(Fraction(4), Fraction(3, 2)), rational_power(Fraction(8), Fraction(-2, 3))
    (Fraction(8, 1), Fraction(1, 4))
    >>> rational_power(Fraction(2), Fraction(1, 2)) is None      # sqrt(2) is irrational
    True
    """
    base = r ** abs(q.numerator)
    root = _rational_root(base, q.denominator) if q.denominator != 1 else base
    if root is None:
        return None
    return root if q.numerator >= 0 else 1 / root


def exppoly_at_log(f: ExpPoly, r: Fraction) -> Fraction | None:
    """f(ln r) exactly when it is rational: every coefficient polynomial constant and every
    r^q rational; None otherwise.

    >>> from fractions import Fraction
    >>> exppoly_at_log(ExpPoly.exp(-1, Fraction(1, 2)), Fraction(2))     # e^(-ln 2) / 2
    Fraction(1, 4)
    >>> exppoly_at_log(ExpPoly.eps(), Fraction(2)) is None                # ln 2 is irrational
    True
    """
    total = Fraction(0)
    for q, poly in f.terms.items():
        if poly.degree() > 0:
            return None
        power = rational_power(r, q)
        if power is None:
            return None
        total += to_fraction(poly[0]) * power
    return total


def value_at_log(f, r: Fraction) -> Fraction | None:
    """An ExpPoly/ExpFrac at eps = ln r as an exact rational, or None when that is not rational.

    >>> from fractions import Fraction
    >>> value_at_log(ExpFrac(ExpPoly.ONE, ExpPoly.exp(1) + 1), Fraction(3))   # 1 / (3 + 1)
    Fraction(1, 4)
    """
    f = ExpFrac.of(f)
    num = exppoly_at_log(f.num, r)
    den = exppoly_at_log(f.den, r)
    if num is None or den is None or den == 0:
        return None
    return num / den


def constant_value(f) -> Fraction | None:
    """The value of an eps-independent ExpPoly/ExpFrac, else None.

    >>> constant_value(ExpFrac(ExpPoly.exp(1, 2), ExpPoly.exp(1, 4)))     # 2e^eps / 4e^eps
    Fraction(1, 2)
    >>> constant_value(ExpPoly.exp(-1)) is None
    True
    """
    f = ExpFrac.of(f)
    if f.num.is_constant() and f.den.is_constant():
        return f.num.constant_value() / f.den.constant_value()
    return None


def ln_text(x: Fraction) -> str:
    """ln x as text for a positive rational x: 'ln(3)', 'ln(4/3)', and '0' for x = 1.  A Fraction
    is never infinite, so an infinite loss is not written here: its callers print 'inf'
    (`privacy.loss.tight.LossResult.loss_text`).

    >>> from fractions import Fraction
    >>> ln_text(Fraction(4, 3)), ln_text(Fraction(1)), ln_text(Fraction(3))
    ('ln(4/3)', '0', 'ln(3)')
    """
    if x == 1:
        return "0"
    return f"ln({fmt_q(x)})"



def rational_at_log(f, r: Fraction) -> Fraction:
    """f(ln r) as an exact rational, or a `UserError` saying why a claim at ln r cannot use it.

    >>> from fractions import Fraction
    >>> rational_at_log(ExpFrac(ExpPoly.exp(1), ExpPoly.exp(1) + 1), Fraction(3))   # 3 / (3 + 1)
    Fraction(3, 4)
    """
    v = value_at_log(f, r)
    if v is None:
        raise UserError(f"the probability {f} is not rational at eps = {ln_text(r)}",
                        hint="a claim at eps = ln(r) needs probabilities that are rational functions of e^eps "
                             "with integer exponents; give an eps interval instead")
    return v

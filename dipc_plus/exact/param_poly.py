"""Sparse polynomials in the symbolic parameters of Pufferfish priors (p, pA, ...).

Why it exists: prior weights are polynomials in the parameters with rational
coefficients, and the Pufferfish sums A_s(w) are polynomials whose coefficients are
exact values (rationals, or closed forms in eps).  One representation serves both:
``{exponent tuple: coefficient}`` with zero terms dropped, the coefficients
`Fraction`s or `ExpFrac`s; the functions below work for either (python-flint's
fmpq_mpoly cannot hold a closed form in eps as a coefficient).  Cancelling a ratio of
rational polynomials uses fmpq_mpoly's exact gcd; sympy only prints factored forms.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce
from operator import add

from flint import fmpq_mpoly_ctx

from dipc_plus.exact.convert import to_fmpq, to_fraction
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.open_regions import primitive
from dipc_plus.exact.sparse import add_keys, sparse_add, sparse_product


def is_zero_value(c) -> bool:
    """Whether a coefficient (a Fraction or an ExpFrac) is exactly zero.

    >>> from dipc_plus.exact.expoly import ExpPoly
    >>> is_zero_value(Fraction(0)), is_zero_value(ExpFrac(ExpPoly.exp(-1)))
    (True, False)
    """
    return c.is_zero() if isinstance(c, ExpFrac) else c == 0


def _times(a, b):
    if isinstance(a, ExpFrac) or isinstance(b, ExpFrac):
        return ExpFrac.of(a) * ExpFrac.of(b)
    return a * b


def poly_scale(poly: dict, c) -> dict:
    """Every coefficient times the value c (a Fraction or an ExpFrac).

    >>> poly_scale({(1,): Fraction(1, 3), (0,): Fraction(1)}, Fraction(3))    # 3 (p/3 + 1)
    {(1,): Fraction(1, 1), (0,): Fraction(3, 1)}
    """
    return {m: v for m, k in poly.items() if not is_zero_value(v := _times(k, c))}


def poly_add(a: dict, b: dict) -> dict:
    """a + b, zero terms dropped; exponent tuples follow the order of the parameter names.

    >>> poly_add({(1, 0): Fraction(1), (0, 1): Fraction(1)}, {(1, 0): Fraction(-1)})   # (p + q) - p
    {(0, 1): Fraction(1, 1)}
    """
    return {m: c for m, c in sparse_add(a, b).items() if not is_zero_value(c)}


def poly_mul(a: dict, b: dict) -> dict:
    """a * b, zero terms dropped.

    >>> s = {(1, 0): Fraction(1), (0, 1): Fraction(1)}      # p + q
    >>> poly_mul(s, s)                                       # p^2 + 2pq + q^2
    {(2, 0): Fraction(1, 1), (1, 1): Fraction(2, 1), (0, 2): Fraction(1, 1)}
    """
    return {m: c for m, c in sparse_product(a, b, add_keys, _times).items() if not is_zero_value(c)}


def poly_eval(poly: dict, point: tuple):
    """The value at a rational point of the parameters (a Fraction, or an ExpFrac when the
    coefficients are closed forms in eps).

    >>> poly_eval({(2, 0): Fraction(1), (1, 1): Fraction(2), (0, 2): Fraction(1)}, (1, 2))   # (1 + 2)^2
    Fraction(9, 1)
    """
    terms = [_times(c, math.prod((Fraction(x) ** e for x, e in zip(point, m)), start=Fraction(1)))
             for m, c in poly.items()]
    return reduce(add, terms) if terms else Fraction(0)


def poly_cancel(num: dict, den: dict, names: list) -> tuple[dict, dict]:
    """num/den with their common factor removed, exactly: python-flint's multivariate gcd over Q.
    Rational coefficients only.  The result is scaled to integer coefficients with no common
    content and a positive leading coefficient (lex order of `names`) in the denominator.

    (p^2 - 1) / (2p + 2) is (p - 1) / 2:

    >>> poly_cancel({(2,): Fraction(1), (0,): Fraction(-1)}, {(1,): Fraction(2), (0,): Fraction(2)}, ["p"])
    ({(1,): Fraction(1, 1), (0,): Fraction(-1, 1)}, {(0,): Fraction(2, 1)})
    """
    ctx = fmpq_mpoly_ctx.get(tuple(names), "lex")
    n, d = _mpoly(ctx, num), _mpoly(ctx, den)
    g = n.gcd(d)
    n, d = _rational_dict(n / g), _rational_dict(d / g)
    sign = -1 if d[max(d)] < 0 else 1
    ints = iter(primitive([sign * c for c in (*n.values(), *d.values())]))    # n's, then d's
    return {m: Fraction(next(ints)) for m in n}, {m: Fraction(next(ints)) for m in d}


def _mpoly(ctx, a: dict):
    return ctx.from_dict({m: to_fmpq(c) for m, c in a.items()})


def _rational_dict(p) -> dict:
    return {tuple(int(e) for e in m): to_fraction(c) for m, c in p.to_dict().items() if c != 0}


# --------------------------------------------------------------------------- presentation only


def ratio_text(num: dict, den: dict, names: list) -> str:
    """'(N) / (D)' for a ratio of rational polynomials: sympy's normal form of the quotient, each side
    factored (printing only: the value was cancelled exactly by `poly_cancel`; no text is parsed).

    >>> ratio_text({(2,): Fraction(1), (0,): Fraction(-1)}, {(2,): Fraction(1), (1,): Fraction(1)}, ["p"])
    '(p - 1) / (p)'
    >>> ratio_text({(2, 0): Fraction(1), (1, 1): Fraction(2), (0, 2): Fraction(1)}, {(0, 0): Fraction(3)}, ["p", "q"])
    '((p + q)**2/3) / (1)'
    """
    import sympy
    syms = [sympy.Symbol(n) for n in names]

    def expression(a: dict):
        return sum((sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[s ** e for s, e in zip(syms, m)])
                    for m, c in a.items()), sympy.Integer(0))
    n, d = sympy.fraction(sympy.cancel(expression(num) / expression(den)))
    return f"({sympy.factor(n)}) / ({sympy.factor(d)})"

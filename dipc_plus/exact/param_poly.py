"""Sparse polynomials in the symbolic parameters of Pufferfish priors (p, pA, ...).

Why it exists: prior weights are polynomials in the parameters with rational
coefficients, and the Pufferfish sums A_s(w) are polynomials whose coefficients are
exact values (rationals, or closed forms in eps).  One representation serves both:
``{exponent tuple: coefficient}`` with zero terms dropped, the coefficients
`Fraction`s or `ExpFrac`s; the functions below work for either.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.expoly import ExpFrac, ExpPoly


def is_zero_value(c) -> bool:
    return c.is_zero() if isinstance(c, ExpFrac) else c == 0


def _times(a, b):
    if isinstance(a, ExpFrac) or isinstance(b, ExpFrac):
        return ExpFrac.of(a) * ExpFrac.of(b)
    return a * b


def poly_scale(poly: dict, c) -> dict:
    """Every coefficient times the value c (a Fraction or an ExpFrac)."""
    return {m: _times(k, c) for m, k in poly.items() if not is_zero_value(_times(k, c))}


def poly_add(a: dict, b: dict) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out[m] + c if m in out else c
    return {m: c for m, c in out.items() if not is_zero_value(c)}


def poly_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(x + y for x, y in zip(ma, mb))
            term = _times(ca, cb)
            out[m] = out[m] + term if m in out else term
    return {m: c for m, c in out.items() if not is_zero_value(c)}


def poly_eval(poly: dict, point: tuple):
    """The value at a rational point of the parameters (a Fraction, or an ExpFrac when the
    coefficients are closed forms in eps)."""
    total = None
    for m, c in poly.items():
        w = Fraction(1)
        for x, e in zip(point, m):
            w *= Fraction(x) ** e
        term = c * w if not isinstance(c, ExpFrac) else c * ExpFrac.of(ExpPoly.const(w))
        total = term if total is None else total + term
    return total if total is not None else Fraction(0)


def poly_text(a: dict, names: list) -> str:
    """A readable, factored form (sympy builds it from the exact coefficients; no text is parsed)."""
    if not a:
        return "0"
    return str(_factor(a, names))


def _sympy_expr(a: dict, names: list):
    import sympy
    syms = [sympy.Symbol(n) for n in names]
    return sum(sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[s ** e for s, e in zip(syms, m)])
               for m, c in a.items()), syms


def _factor(a: dict, names: list):
    import sympy
    expr, _ = _sympy_expr(a, names)
    return sympy.factor(expr)


def poly_cancel(num: dict, den: dict, names: list) -> tuple[dict, dict]:
    """num/den with their common factor removed (exact rational polynomial arithmetic)."""
    import sympy
    n_expr, syms = _sympy_expr(num, names)
    d_expr, _ = _sympy_expr(den, names)
    n, d = sympy.fraction(sympy.cancel(n_expr / d_expr))

    def back(e):
        poly = sympy.Poly(sympy.expand(e), *syms)
        return {tuple(m): Fraction(int(c.p), int(c.q)) for m, c in poly.terms() if c != 0}
    return back(n), back(d)

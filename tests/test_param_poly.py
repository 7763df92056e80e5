"""exact.param_poly.poly_cancel (python-flint's gcd) against sympy as the independent route.

For random products A*C / (B*C) the cancelled pair must be the same rational function
(cross-multiplied exactly), share no factor (sympy's gcd is a constant), carry integer
coefficients with no common content, and have a denominator with positive leading
coefficient.  `ratio_text` prints what sympy's own cancel of the quotient prints.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

import sympy

from dipc_plus.exact.param_poly import poly_cancel, poly_mul, ratio_text


def _random_poly(rng: random.Random, nvars: int) -> dict:
    out: dict = {}
    for _ in range(rng.randint(1, 3)):
        m = tuple(rng.randint(0, 2) for _ in range(nvars))
        out[m] = out.get(m, 0) + Fraction(rng.randint(-6, 6), rng.choice([1, 2, 3, 4]))
    return {m: c for m, c in out.items() if c}


def _sympy(a: dict, syms) -> sympy.Expr:
    return sum(sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[s ** e for s, e in zip(syms, m)])
               for m, c in a.items())


def _cases(seed: int, count: int):
    rng = random.Random(seed)
    while count:
        nvars = rng.choice([1, 2, 3])
        names = ["p", "pA", "pB"][:nvars]
        a, b, c = (_random_poly(rng, nvars) for _ in range(3))
        num, den = poly_mul(a, c), poly_mul(b, c)
        if num and den:
            count -= 1
            yield num, den, names


def test_cancel_is_exact_and_lowest_terms():
    for num, den, names in _cases(29, 120):
        n, d = poly_cancel(num, den, names)
        syms = sympy.symbols(names)
        assert sympy.expand(_sympy(n, syms) * _sympy(den, syms) - _sympy(num, syms) * _sympy(d, syms)) == 0
        assert sympy.gcd(_sympy(n, syms), _sympy(d, syms)).is_number
        values = list(n.values()) + list(d.values())
        assert all(v.denominator == 1 for v in values)
        assert math.gcd(*(int(v) for v in values)) == 1
        assert d[max(d)] > 0


def test_cancel_removes_a_known_common_factor():
    # (p^2 - 1) / (2p + 2) = (p - 1) / 2
    n, d = poly_cancel({(2,): Fraction(1), (0,): Fraction(-1)}, {(1,): Fraction(2), (0,): Fraction(2)}, ["p"])
    assert (n, d) == ({(1,): Fraction(1), (0,): Fraction(-1)}, {(0,): Fraction(2)})


def test_ratio_text_is_sympys_form_of_the_quotient():
    for num, den, names in _cases(7, 40):
        n, d = poly_cancel(num, den, names)
        syms = sympy.symbols(names)
        top, bottom = sympy.fraction(sympy.cancel(_sympy(num, syms) / _sympy(den, syms)))
        assert ratio_text(n, d, names) == f"({sympy.factor(top)}) / ({sympy.factor(bottom)})"

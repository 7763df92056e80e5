"""Exact closed forms in eps and one more variable x, the claim's alpha:

    sum_(p, j) c_(p,j)(eps) * x^j * e^(p*x*eps),   each c an `ExpPoly` in eps,

and quotients of two such sums (`XFrac`).

Why: a claim with alpha = "dd" checks each input once, at alpha = dd(u).  That needs
two facts about its beta as a function of alpha, for every eps > 0:

* beta does not increase with alpha (so the one check covers every smaller alpha):
  the derivative is built term by term, and every term of it is a rational times
  eps^k e^(q eps) x^j e^(p x eps), which is >= 0 for x >= 0 and eps > 0, so the
  signs of those rationals prove (or fail to prove) the sign of the slope;
* the limit as alpha -> infinity (an input whose distance to disagreement is
  infinite): the dominant term (largest rate p, then largest power j) of the
  numerator and of the denominator decides it.

Both are read off exactly; nothing is evaluated numerically, and whatever cannot be
proven this way is reported as such (the caller refuses the claim).  With no x the
quotient is kept as a canonical `ExpFrac`, so the closed form of a formula at fixed
alpha is the same object whichever way it was written.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.convert import fmt_q, to_fraction
from dipc_plus.exact.expoly import ExpFrac, ExpPoly, binary_power, eps_power_text, exp_text
from dipc_plus.exact.sparse import SparseSum, accumulate

Key = tuple  # (p: Fraction, j: int): the term x^j * e^(p*x*eps)
FREE: Key = (Fraction(0), 0)


class XSum(SparseSum):
    """sum over keys (p, j) of coefficient(eps) * x^j * e^(p*x*eps); immutable, no zero coefficient.

    >>> s = XSum.x() * XSum.x()
    >>> print(s, "|", s.derivative())
    alpha^2 | (2)*alpha
    """

    __slots__ = ("terms",)

    def __init__(self, terms: dict | None = None):
        self.terms = {k: c for k, c in (terms or {}).items() if not c.is_zero()}

    @staticmethod
    def of(c: ExpPoly) -> "XSum":
        return XSum({FREE: c})

    @staticmethod
    def x() -> "XSum":
        return XSum({(Fraction(0), 1): ExpPoly.ONE})

    def free(self) -> ExpPoly | None:
        """The coefficient when x does not occur, else None."""
        if not self.terms:
            return ExpPoly.ZERO
        if set(self.terms) == {FREE}:
            return self.terms[FREE]
        return None

    def derivative(self) -> "XSum":
        """d/dx: x^j e^(p x eps) -> j x^(j-1) e^(p x eps) + p eps x^j e^(p x eps)."""
        out: dict = {}
        for (p, j), c in self.terms.items():
            if j:
                accumulate(out, (p, j - 1), c * j)
            if p:
                accumulate(out, (p, j), c * ExpPoly.monomial(p, 1, 0))
        return XSum(out)

    def leading(self) -> tuple[Key, ExpPoly]:
        """The dominant term as x -> infinity at any fixed eps > 0 where its coefficient is not 0."""
        k = max(self.terms)
        return k, self.terms[k]

    def signs(self) -> set[int]:
        """The signs of the rationals of every term c * eps^k e^(q eps) x^j e^(p x eps)."""
        return {1 if c > 0 else -1 for coeff in self.terms.values() for c, _, _ in coeff.monomials()}

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for (p, j), c in sorted(self.terms.items(), key=lambda kv: (-kv[0][0], -kv[0][1])):
            rate = {1: "", -1: "-"}.get(p, f"{fmt_q(p)}*")
            factors = eps_power_text(j, "alpha") + exp_text(f"{rate}alpha" if p else "")
            body = str(c)
            if factors:
                body = ("" if c == ExpPoly.ONE else f"({body})*") + "*".join(factors)
            parts.append(body)
        return " + ".join(parts)


def _closed_form(num: ExpPoly, den: ExpPoly):
    """num/den reduced: an ExpPoly when nothing is left below the line, else an ExpFrac."""
    frac = ExpFrac(num, den)
    return frac.num if frac.is_poly() else frac


class XFrac:
    """num / den of two `XSum`s.  Without x both are kept as a reduced `ExpFrac`; a
    denominator that is a nonzero constant is divided out.

    beta(alpha) = P[N > alpha] = e^(-alpha eps)/2 for N ~ Lap(eps) falls with alpha, towards 0:

    >>> beta = XFrac.const(Fraction(1, 2)) * (-(XFrac.x() * XFrac.eps())).exp()
    >>> beta.slope()
    ('nonpositive', '(-1/2*eps)*e^(-alpha*eps)')
    >>> print(beta.limit())
    0
    """

    __slots__ = ("num", "den")

    def __init__(self, num: XSum, den: XSum | None = None):
        den = XSum.of(ExpPoly.ONE) if den is None else den
        if den.is_zero():
            raise ZeroDivisionError("division by zero")
        n, d = num.free(), den.free()
        if n is not None and d is not None:
            frac = ExpFrac(n, d)
            num, den = XSum.of(frac.num), XSum.of(frac.den)
        elif d is not None and d.is_constant():
            c = d.constant_value()
            num, den = num.scaled(ExpPoly.const(1 / c)), XSum.of(ExpPoly.ONE)
        self.num, self.den = num, den

    @staticmethod
    def const(c) -> "XFrac":
        return XFrac(XSum.of(ExpPoly.const(c)))

    @staticmethod
    def eps() -> "XFrac":
        return XFrac(XSum.of(ExpPoly.eps()))

    @staticmethod
    def x() -> "XFrac":
        return XFrac(XSum.x())

    def __add__(self, other: "XFrac") -> "XFrac":
        if self.den.free() == other.den.free() is not None:
            return XFrac(self.num + other.num, self.den)
        return XFrac(self.num * other.den + other.num * self.den, self.den * other.den)

    def __neg__(self) -> "XFrac":
        return XFrac(-self.num, self.den)

    def __sub__(self, other: "XFrac") -> "XFrac":
        return self + (-other)

    def __mul__(self, other: "XFrac") -> "XFrac":
        return XFrac(self.num * other.num, self.den * other.den)

    def __truediv__(self, other: "XFrac") -> "XFrac":
        # a zero divisor makes a zero denominator, which __init__ refuses
        return XFrac(self.num * other.den, self.den * other.num)

    def power(self, n: int) -> "XFrac":
        """self ** n for an integer n (the caller bounds n)."""
        if n < 0:   # 1/0 for a zero base: __init__ refuses the zero denominator
            return XFrac(self.den, self.num).power(-n)
        return binary_power(self, n, XFrac.const(1))

    # -- what a formula needs ------------------------------------------------------------------------
    def constant(self) -> Fraction | None:
        """The rational value when the quotient depends on neither eps nor x."""
        n, d = self.num.free(), self.den.free()
        if n is None or d is None or not n.is_constant() or not d.is_constant():
            return None
        return n.constant_value() / d.constant_value()

    def exact(self):
        """The closed form in eps (an ExpPoly when there is no denominator, else an ExpFrac);
        ValueError when x occurs."""
        n, d = self.num.free(), self.den.free()
        if n is None or d is None:
            raise ValueError("depends on alpha")
        return _closed_form(n, d)

    def exp(self) -> "XFrac":
        """e^self for an exponent (a*x + b)*eps with rational a, b; ValueError(why) otherwise."""
        if self.den.free() != ExpPoly.ONE:
            raise ValueError("has an exponent that is not linear in eps")
        rates = {}
        for (p, j), c in self.num.terms.items():
            if p != 0 or j > 1:
                raise ValueError("has an exponent that is not of the form (a*alpha + b)*eps")
            if set(c.terms) != {Fraction(0)} or c.terms[Fraction(0)].degree() > 1:
                raise ValueError("has an exponent that is not linear in eps")
            poly = c.terms[Fraction(0)]
            constant, slope = to_fraction(poly[0]), to_fraction(poly[1])
            if constant:
                raise ValueError(f"contains the constant factor exp({fmt_q(constant)}"
                                 f"{'*alpha' if j else ''}), which is not rational")
            rates[j] = slope
        return XFrac(XSum({(rates.get(1, Fraction(0)), 0): ExpPoly.exp(rates.get(0, Fraction(0)))}))

    def rates(self) -> list[Fraction]:
        """Every rate q of e^(q eps) and p of e^(p x eps) that occurs (for the caller's bounds)."""
        out = []
        for s in (self.num, self.den):
            for (p, _), c in s.terms.items():
                out.append(p)
                out.extend(c.terms)
        return out

    def limit(self):
        """lim_{x -> infinity} at every eps > 0, as a closed form in eps; ValueError(why) when the
        limit is infinite or cannot be proven the same at every eps > 0."""
        if self.num.is_zero():
            return ExpPoly.ZERO
        (kn, cn), (kd, cd) = self.num.leading(), self.den.leading()
        if self.den.free() is None and len(XSum.of(cd).signs()) != 1:
            # a dominant coefficient that may vanish at some eps would change the dominant term there
            raise ValueError(f"the denominator's dominant coefficient {cd} may vanish for some eps > 0")
        if kn > kd:
            raise ValueError("has no finite limit")
        if kn < kd:
            return ExpPoly.ZERO
        return _closed_form(cn, cd)

    def slope(self) -> tuple[str, str]:
        """('nonpositive' | 'nonnegative' | 'unknown', the derivative d/dx as text): the sign is proven
        for every x >= 0 and eps > 0 from the signs of the derivative's terms."""
        num = self.num.derivative() * self.den - self.num * self.den.derivative()
        den = self.den * self.den
        text = str(num) if den.free() == ExpPoly.ONE else f"({num}) / ({den})"
        signs = num.signs()
        if not signs or signs == {-1}:
            return "nonpositive", text
        return ("nonnegative" if signs == {1} else "unknown"), text

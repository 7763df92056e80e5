"""Exact closed forms in eps: exponential polynomials and their quotients.

Every probability dipc-plus computes is an `ExpPoly`

    f(eps) = sum_q P_q(eps) * e^(q*eps),   q rational,  P_q in Q[eps],

or, once loops, the exponential mechanism or discrete Laplace noise appear, an
`ExpFrac` num/den of two of them.  Both are canonical, so equal values compare
equal: an ExpPoly keeps no zero coefficient polynomial; an ExpFrac is reduced by
the gcd of num and den as polynomials in (eps, t) with t = e^(eps/L) (L the lcm of
the exponents' denominators), its denominator made monic with lowest exponent 0.

python-flint does the arithmetic (fmpq, fmpq_poly, fmpq_mpoly, arb); sympy is used
only to print.
"""
from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from functools import cache, reduce
from math import lcm
from operator import add
from typing import Callable, Iterable, NamedTuple, Union

import flint
from flint import arb, fmpq, fmpq_poly

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q, signed_sum, to_fmpq, to_fraction
from dipc_plus.exact.sparse import SparseSum
from dipc_plus.execution import limits

Number = Union[int, Fraction, fmpq]


@contextmanager
def working_precision(prec: int):
    """Run the block with arb at `prec` bits, restoring the caller's precision after it.

    >>> before = flint.ctx.prec
    >>> with working_precision(200):
    ...     flint.ctx.prec
    200
    >>> flint.ctx.prec == before
    True
    """
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        yield
    finally:
        flint.ctx.prec = old


class ExpPoly(SparseSum):
    """sum_q P_q(eps) e^(q eps); immutable; `terms` maps Fraction q -> nonzero fmpq_poly (the ring
    operations of `SparseSum`, with numbers and `ExpFrac`s lifted first).

    P[N > 1] for N ~ Lap(eps) is e^(-eps)/2; its complement, its square, its value at eps = 1
    (1 - 1/(2e) = 0.81606028 by hand) and its derivative:

    >>> f = ExpPoly.const(1) - ExpPoly.exp(-1, Fraction(1, 2))
    >>> print(f, "|", f * f, "|", f.derivative())
    1 - 1/2*e^(-eps) | 1 - e^(-eps) + 1/4*e^(-2*eps) | 1/2*e^(-eps)
    >>> f.arb_value(1).str(8, radius=False)
    '0.81606028'
    """

    __slots__ = ("terms", "_hash", "_balls")
    combine = staticmethod(add)     # exponents q add in a product

    def __init__(self, terms: dict | None = None):
        self._balls = None
        clean = {}
        if terms:
            # exact type tests first: keys and values built by this class are already a
            # Fraction and an fmpq_poly, and re-making them was a large share of the time
            for q, p in terms.items():
                if type(p) is not fmpq_poly:
                    p = fmpq_poly(p)
                if not p.is_zero():
                    clean[q if type(q) is Fraction else Fraction(q)] = p
        self.terms = clean
        self._hash = None

    def __getstate__(self):
        """Worker processes send ExpPolys back; the cached balls stay behind (arb does not
        pickle, and the receiver rebuilds them on first use)."""
        return self.terms

    def __setstate__(self, terms) -> None:
        self.terms, self._hash, self._balls = terms, None, None

    # -- constructors ---------------------------------------------------------------
    @staticmethod
    def const(c: Number) -> "ExpPoly":
        return ExpPoly({Fraction(0): fmpq_poly([to_fmpq(c)])})

    @staticmethod
    def eps(power: int = 1) -> "ExpPoly":
        return ExpPoly({Fraction(0): fmpq_poly([0] * power + [1])})

    @staticmethod
    def exp(q: Number, coeff: Number = 1) -> "ExpPoly":
        """coeff * e^(q eps)."""
        return ExpPoly({to_fraction(q): fmpq_poly([to_fmpq(coeff)])})

    @staticmethod
    def monomial(coeff: Number, power: int, q: Number) -> "ExpPoly":
        """coeff * eps^power * e^(q eps)."""
        return ExpPoly({Fraction(q): fmpq_poly([0] * power + [to_fmpq(coeff)])})

    ZERO: "ExpPoly"
    ONE: "ExpPoly"

    # -- structure ---------------------------------------------------------------------
    def is_constant(self) -> bool:
        terms = self.terms
        return not terms or (len(terms) == 1 and 0 in terms and terms[0].degree() == 0)

    def constant_value(self) -> Fraction:
        """The value of a constant ExpPoly (raises ValueError otherwise)."""
        if not self.terms:
            return Fraction(0)
        if not self.is_constant():
            raise ValueError(f"{self} depends on eps")
        return to_fraction(self.terms[Fraction(0)][0])

    def monomials(self) -> Iterable[tuple[Fraction, int, Fraction]]:
        """(coefficient, power of eps, exponent q) for every nonzero monomial."""
        for q in sorted(self.terms):
            p = self.terms[q]
            for k, c in enumerate(p.coeffs()):
                if c != 0:
                    yield to_fraction(c), k, q

    def denominator_lcm(self) -> int:
        """L such that every exponent q is a multiple of 1/L."""
        return reduce(lcm, (q.denominator for q in self.terms), 1)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(tuple((q, tuple(str(c) for c in self.terms[q].coeffs())) for q in sorted(self.terms)))
        return self._hash

    def __eq__(self, other):
        if type(other) is not ExpPoly:   # the usual case skips the isinstance chain
            if not isinstance(other, (int, Fraction, fmpq, ExpPoly)):
                return NotImplemented    # an ExpFrac then compares itself with self (ExpFrac.__eq__)
            other = ExpPoly.lift(other)
        return self.terms.keys() == other.terms.keys() and all(
            self.terms[q] == other.terms[q] for q in self.terms)

    # -- arithmetic --------------------------------------------------------------------
    @staticmethod
    def lift(x) -> "ExpPoly":
        if isinstance(x, ExpPoly):
            return x
        if isinstance(x, (int, Fraction, fmpq)):
            return ExpPoly.const(x)
        raise TypeError(f"cannot use {type(x).__name__} as an exponential polynomial")

    def __add__(self, other):
        if isinstance(other, ExpFrac):
            return ExpFrac.of(self) + other
        return super().__add__(ExpPoly.lift(other))

    __radd__ = __add__

    def __rsub__(self, other):
        return ExpPoly.lift(other) - self

    def __mul__(self, other):
        if isinstance(other, ExpFrac):
            return ExpFrac.of(self) * other
        if isinstance(other, (int, Fraction, fmpq)):
            return self.scaled(to_fmpq(other))
        return super().__mul__(ExpPoly.lift(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, (int, Fraction, fmpq)):
            c = to_fmpq(other)
            if c == 0:
                raise ZeroDivisionError("division of an exponential polynomial by 0")
            return self * (1 / c)
        return ExpFrac(self, other)

    def __rtruediv__(self, other):
        return ExpFrac(ExpPoly.lift(other), self)

    def __pow__(self, n: int):
        if n < 0:
            return ExpFrac(ExpPoly.ONE, self ** (-n))
        return binary_power(self, n, ExpPoly.ONE)

    def derivative(self) -> "ExpPoly":
        """d/d eps."""
        return ExpPoly({q: p.derivative() + p * to_fmpq(q) for q, p in self.terms.items()})

    # -- evaluation --------------------------------------------------------------------
    def _terms_as_balls(self, prec: int) -> list:
        """[(ball of q, balls of P_q's coefficients, highest first)] at `prec` bits, cached:
        root isolation evaluates one function thousands of times at one precision, and
        converting its rationals to balls was half of that time (a bisection uses a few
        precisions, hence one list per precision)."""
        if self._balls is None:
            self._balls = {}
        if prec not in self._balls:
            self._balls[prec] = [(arb(to_fmpq(q)), [arb(c) for c in reversed(p.coeffs())])
                                 for q, p in self.terms.items()]
        return self._balls[prec]

    def arb_value(self, eps: Number | arb, prec: int = 128) -> arb:
        """A certified ball containing f(eps) (for a ball eps: containing f of every point in it)."""
        with working_precision(prec):
            e = eps if isinstance(eps, arb) else arb(to_fmpq(eps))
            total = arb(0)
            for q, coeffs in self._terms_as_balls(prec):
                acc = arb(0)
                for c in coeffs:
                    acc = acc * e + c
                total += acc * (q * e).exp()
            return total

    def __call__(self, eps: float) -> float:
        """Floating-point value, for plots and cross-checks only (never for a verdict)."""
        import math
        total = 0.0
        for q, p in self.terms.items():
            acc = 0.0
            for c in reversed(p.coeffs()):
                acc = acc * eps + float(to_fraction(c))
            total += acc * math.exp(float(q) * eps)
        return total

    # -- bivariate view ---------------------------------------------------------------
    def to_mpoly(self, L: int, ctx=None):
        """(F, s): F in Q[eps, t] (an fmpq_mpoly) with self = F(eps, e^(eps/L)) * t^s, t-degree minimal."""
        ctx = ctx or mpoly_ctx()
        if not self.terms:
            return ctx.from_dict({}), 0
        ks = {q: q * L for q in self.terms}
        for q, k in ks.items():
            if k.denominator != 1:
                raise ValueError(f"exponent {q} is not a multiple of 1/{L}")
        smin = min(int(k) for k in ks.values())
        data = {(e_pow, int(ks[q]) - smin): c for q, p in self.terms.items()
                for e_pow, c in enumerate(p.coeffs()) if c != 0}
        return ctx.from_dict(data), smin

    @staticmethod
    def from_mpoly(F, L: int, shift: int = 0) -> "ExpPoly":
        out: dict = {}     # exponent q -> {power of eps: coefficient}
        for (e_pow, tpow), c in F.to_dict().items():
            out.setdefault(Fraction(int(tpow) + shift, L), {})[int(e_pow)] = c
        return ExpPoly({q: fmpq_poly([cs.get(i, 0) for i in range(max(cs) + 1)]) for q, cs in out.items()})

    # -- printing ------------------------------------------------------------------------
    def to_sympy(self):
        import sympy
        eps = sympy.Symbol("epsilon", positive=True)
        total = sympy.Integer(0)
        for c, k, q in self.monomials():
            total += sympy.Rational(c.numerator, c.denominator) * eps ** k * sympy.exp(
                sympy.Rational(q.numerator, q.denominator) * eps)
        return total

    def __str__(self) -> str:
        return exppoly_text(self, PLAIN)

    def latex(self) -> str:
        return exppoly_text(self, LATEX)

    def __repr__(self) -> str:
        return f"ExpPoly({self})"


def binary_power(base, n: int, one):
    """base ** n for n >= 0 by repeated squaring (log2(n) products), any type with `*`.

    >>> binary_power(3, 5, 1), binary_power(ExpPoly.exp(1), 3, ExpPoly.ONE)
    (243, ExpPoly(e^(3*eps)))
    """
    result = one
    while n:
        if n & 1:
            result = result * base
        base = base * base
        n >>= 1
    return result


ExpPoly.ZERO = ExpPoly()
ExpPoly.ONE = ExpPoly.const(1)


@cache
def mpoly_ctx():
    """The shared Q[eps, t] context (variables named eps, t).

    >>> mpoly_ctx().names()
    ('eps', 't')
    """
    return flint.fmpq_mpoly_ctx.get(("eps", "t"), "lex")


class Notation(NamedTuple):
    """How a closed form is written (`PLAIN` or `LATEX`): one term printer and one fraction layout
    read either table, so the text and the LaTeX of a value list the same terms in the same order.

    >>> half = ExpFrac(ExpPoly.const(Fraction(1, 2)), ExpPoly.exp(1) + 1)
    >>> print(half.text(PLAIN), "|", half.text(LATEX))
    (1/2) / (e^eps + 1) | \\frac{\\frac{1}{2}}{e^{\\epsilon} + 1}
    """
    rational: Callable    # |c| -> its text
    eps_power: Callable   # k >= 1 -> eps^k
    exp: Callable         # q != 0 -> e^(q eps)
    times: str            # between the factors of a term
    fraction: str         # num over den, a format with two places


def exp_text(exponent: str, compound: bool = False) -> list:
    """e^(x*eps) as a list of plain-text factors for the exponent x written as `exponent` (none
    for an empty one; parentheses around a `compound` x such as 'q1 - 1/2'): the one way the
    per-point and the symbolic closed forms write their exponentials.

    >>> exp_text("-1"), exp_text("1/2"), exp_text("q1 - 1", compound=True), exp_text("")
    (['e^(-eps)'], ['e^(1/2*eps)'], ['e^((q1 - 1)*eps)'], [])
    """
    if not exponent:
        return []
    if exponent in ("1", "-1"):
        return ["e^eps" if exponent == "1" else "e^(-eps)"]
    return [f"e^(({exponent})*eps)" if compound else f"e^({exponent}*eps)"]


def eps_power_text(k: int, name: str = "eps") -> list:
    """eps^k (or another variable's power) as a list of plain-text factors (none for k = 0).

    >>> eps_power_text(0), eps_power_text(1), eps_power_text(3), eps_power_text(2, "alpha")
    ([], ['eps'], ['eps^3'], ['alpha^2'])
    """
    return [] if k == 0 else [name] if k == 1 else [f"{name}^{k}"]


def _latex_rat(q: Fraction) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"\\frac{{{q.numerator}}}{{{q.denominator}}}"


def _latex_exp(q: Fraction) -> str:
    rate = "" if abs(q) == 1 else _latex_rat(abs(q)) + " "
    return f"e^{{{'-' if q < 0 else ''}{rate}\\epsilon}}"


PLAIN = Notation(rational=fmt_q, eps_power=lambda k: eps_power_text(k)[0], exp=lambda q: exp_text(fmt_q(q))[0],
                 times="*", fraction="({}) / ({})")
LATEX = Notation(rational=_latex_rat, eps_power=lambda k: "\\epsilon" if k == 1 else f"\\epsilon^{{{k}}}",
                 exp=_latex_exp, times=" ", fraction="\\frac{{{}}}{{{}}}")


def plain_product(mag, factors: list, notation: Notation = PLAIN) -> str:
    """|c| times the factors, the coefficient left out when it is 1.

    >>> plain_product(Fraction(1, 2), ["eps"]), plain_product(1, ["eps"]), plain_product(1, [])
    ('1/2*eps', 'eps', '1')
    """
    return notation.times.join(([notation.rational(mag)] if mag != 1 or not factors else []) + factors)


def exppoly_text(f: ExpPoly, notation: Notation = PLAIN) -> str:
    """The terms of f, highest exponent first (then lowest power of eps), joined by signs.

    P[N_0 - N_1 > 1] for two Lap(eps) noises, e^(-eps)(2 + eps)/4, as plain text and as LaTeX
    (written directly rather than through sympy: sympy's printer took about a minute on the 20
    closed forms of NoisyMax m = 20, about 100 terms each; this takes milliseconds):

    >>> f = ExpPoly.exp(-1, Fraction(1, 2)) + ExpPoly.monomial(Fraction(1, 4), 1, -1)
    >>> exppoly_text(f)
    '1/2*e^(-eps) + 1/4*eps*e^(-eps)'
    >>> print(exppoly_text(f, LATEX))
    \\frac{1}{2} e^{-\\epsilon} + \\frac{1}{4} \\epsilon e^{-\\epsilon}
    >>> print(exppoly_text(ExpPoly.ONE - ExpPoly.monomial(Fraction(3), 2, Fraction(-5, 2)), LATEX))
    1 - 3 \\epsilon^{2} e^{-\\frac{5}{2} \\epsilon}
    """
    return monomial_sum_text([(c, ([notation.eps_power(k)] if k else []) + ([notation.exp(q)] if q else []))
                              for c, k, q in sorted(f.monomials(), key=lambda m: (-m[2], m[1]))], notation)


def monomial_sum_text(terms: list, notation: Notation = PLAIN) -> str:
    """[(rational c, its factors' texts)] as one signed sum: the layout of every closed form's terms.

    >>> monomial_sum_text([(Fraction(-1, 2), ["eps"]), (Fraction(1), [])])
    '-1/2*eps + 1'
    """
    return signed_sum([("-" if c < 0 else "+", plain_product(abs(c), factors, notation)) for c, factors in terms])


class ExpFrac:
    """num/den of exponential polynomials, reduced to a canonical form (see module doc).

    (e^(2 eps) - 1) / (e^eps - 1) reduces to e^eps + 1; the two outcomes of a fair exponential
    mechanism add up to exactly 1:

    >>> print(ExpFrac(ExpPoly.exp(2) - 1, ExpPoly.exp(1) - 1))
    e^eps + 1
    >>> win = ExpFrac(ExpPoly.exp(1), ExpPoly.exp(1) + 1)
    >>> print(win, "|", win + ExpFrac(ExpPoly.ONE, ExpPoly.exp(1) + 1))
    (e^eps) / (e^eps + 1) | 1
    """

    __slots__ = ("num", "den", "_hash")

    def __init__(self, num, den=None, *, reduce: bool = True):
        num = ExpPoly.lift(num)
        den = ExpPoly.ONE if den is None else ExpPoly.lift(den)
        if den.is_zero():
            raise ZeroDivisionError("exponential fraction with zero denominator")
        if reduce:
            num, den = _reduce(num, den)
        self.num = num
        self.den = den
        self._hash = None

    @staticmethod
    def of(x) -> "ExpFrac":
        if type(x) is ExpFrac or isinstance(x, ExpFrac):
            return x
        return ExpFrac(ExpPoly.lift(x), ExpPoly.ONE, reduce=False)

    def is_poly(self) -> bool:
        return self.den is ExpPoly.ONE or self.den == ExpPoly.ONE

    def is_zero(self) -> bool:
        return self.num.is_zero()

    def __eq__(self, other):
        if type(other) is not ExpFrac:
            if not isinstance(other, (int, Fraction, fmpq, ExpPoly)):
                return NotImplemented
            other = ExpFrac.of(other)     # a polynomial is its own canonical fraction over 1
        return self.num == other.num and self.den == other.den

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.num, self.den))
        return self._hash

    def __add__(self, other):
        other = ExpFrac.of(other)
        if self.is_poly() and other.is_poly():
            # num/1: _reduce would only replace the denominator by ExpPoly.ONE
            return ExpFrac(self.num + other.num, ExpPoly.ONE, reduce=False)
        if self.den == other.den:
            return ExpFrac(self.num + other.num, self.den)
        return ExpFrac(self.num * other.den + other.num * self.den, self.den * other.den)

    __radd__ = __add__

    def __neg__(self):
        return ExpFrac(-self.num, self.den, reduce=False)

    def __sub__(self, other):
        return self + (-ExpFrac.of(other))

    def __rsub__(self, other):
        return ExpFrac.of(other) - self

    def __mul__(self, other):
        """The product; a factor 1 (as a chain's edge factors often are) leaves the other one as it is.

        >>> half = ExpFrac(ExpPoly.const(Fraction(1, 2)))
        >>> FRAC_ONE * half is half, print(half * ExpFrac(ExpPoly.exp(1)))
        1/2*e^eps
        (True, None)
        """
        other = ExpFrac.of(other)
        if other.is_poly() and other.num == ExpPoly.ONE:
            return self
        if self.is_poly() and self.num == ExpPoly.ONE:
            return other
        if self.is_poly() and other.is_poly():   # as in __add__: nothing to cancel
            return ExpFrac(self.num * other.num, ExpPoly.ONE, reduce=False)
        return ExpFrac(self.num * other.num, self.den * other.den)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = ExpFrac.of(other)
        if other.is_zero():
            raise ZeroDivisionError("division by an exponential fraction that is identically 0")
        return ExpFrac(self.num * other.den, self.den * other.num)

    def __rtruediv__(self, other):
        return ExpFrac.of(other) / self

    def arb_value(self, eps, prec: int = 128) -> arb:
        with working_precision(prec):
            return self.num.arb_value(eps, prec) / self.den.arb_value(eps, prec)

    def __call__(self, eps: float) -> float:
        return self.num(eps) / self.den(eps)

    def to_sympy(self):
        return self.num.to_sympy() / self.den.to_sympy()

    def text(self, notation: Notation) -> str:
        """The numerator's terms, over the denominator's when there is one.

        1/(1 + e^(-eps)), kept in the canonical form e^eps/(e^eps + 1):

        >>> print(ExpFrac(ExpPoly.ONE, ExpPoly.ONE + ExpPoly.exp(-1)).latex())
        \\frac{e^{\\epsilon}}{e^{\\epsilon} + 1}
        """
        if self.is_poly():
            return exppoly_text(self.num, notation)
        return notation.fraction.format(exppoly_text(self.num, notation), exppoly_text(self.den, notation))

    def __str__(self) -> str:
        return self.text(PLAIN)

    def latex(self) -> str:
        return self.text(LATEX)

    def __repr__(self) -> str:
        return f"ExpFrac({self})"


def check_t_degree(num: ExpPoly, den: ExpPoly, L: int) -> None:
    """Refuse (the `exp_degree` limit) a fraction whose gcd would be taken in a degree FLINT cannot
    afford: the exponents' spread times L, the common denominator of the exponents.  Inputs such as
    1e-50 or 10^59 make it astronomical; FLINT then runs out of memory or silently fails (gcd 0).

    >>> check_t_degree(ExpPoly.exp(1) - 1, ExpPoly.ONE, 2)         # degree 2: fine
    >>> check_t_degree(ExpPoly.exp(10**9) - 1, ExpPoly.ONE, 1)     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dipc_plus.errors.UserError: error: a closed form to reduce has degree 1000000000 in e^(eps/1)...
    """
    degree = max((max(p.terms) - min(p.terms)) * L for p in (num, den))
    if degree > limits.get("exp_degree"):
        raise UserError(f"a closed form to reduce has degree {limits.clip(str(degree), 30)} in "
                        f"e^(eps/{limits.clip(str(L), 30)}): its exponents' denominators or sizes are too large",
                        hint="input values or constants with many digits (1e-50, 10^59) make them so; use "
                             "simpler rationals, or " + limits.hint("exp_degree"))


def _reduce(num: ExpPoly, den: ExpPoly) -> tuple[ExpPoly, ExpPoly]:
    """Cancel the gcd in Q[eps, t]; make den monic (lex order) with lowest exponent 0."""
    if num.is_zero():
        return ExpPoly.ZERO, ExpPoly.ONE
    if den.is_constant():
        c = den.constant_value()
        return (num * (1 / c) if c != 1 else num), ExpPoly.ONE
    L = lcm(num.denominator_lcm(), den.denominator_lcm())
    check_t_degree(num, den, L)
    ctx = mpoly_ctx()
    fn, sn = num.to_mpoly(L, ctx)
    fd, sd = den.to_mpoly(L, ctx)
    g = fn.gcd(fd)
    if g.is_zero():
        # FLINT's gcd reports a failure (exponents past a machine word) as 0, never as an error
        raise ArithmeticError(f"FLINT could not compute a gcd in Q[eps, t] (t = e^(eps/{L}))")
    if g != 1:
        fn = fn / g  # exact division
        fd = fd / g
    lc = fd.leading_coefficient()
    if lc != 1:
        fn = fn / lc
        fd = fd / lc
    # den * t^sd with its lowest t-power 0 after to_mpoly; keep num's shift relative to den's.
    return ExpPoly.from_mpoly(fn, L, sn - sd), ExpPoly.from_mpoly(fd, L, 0)


FRAC_ONE = ExpFrac(ExpPoly.ONE)
FRAC_ZERO = ExpFrac(ExpPoly.ZERO)


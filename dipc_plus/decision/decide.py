"""Certified decision of one-variable sentences  "for all eps in I: f(eps) R 0".

f is an exponential polynomial sum_q P_q(eps) e^(q eps) or a quotient of two
(`expoly.ExpPoly` / `ExpFrac`), I an interval inside (0, inf) with rational or
infinite ends, R one of >=, >, <=, <.  This is the one-quantifier case of the
McCallum-Weispfenning fragment (POPL 2021 paper, section 5.1), and every such
sentence gets an answer: there is no "unknown".  Every comparison behind a
verdict is exact (rationals, Sturm sequences) or a certified arb ball.

The method, one small function per step:

1. With t = e^(eps/L) (L the lcm of the exponents' denominators) f is F(eps, t)
   times a power of t, which is positive.  Factor F over Q.
2. Isolate the zeros of every irreducible factor g on I:
   * g in eps only: real algebraic zeros, isolated exactly by Sturm sequences;
   * g in t only: positive algebraic zeros t0, isolated exactly; eps0 = L ln t0 is
     enclosed with arb (refinable to any width);
   * g in eps and t: h(eps) = g(eps, e^(eps/L)) is searched on a bounded interval
     by certified bisection (arb interval evaluation of h and h'): a box where h
     excludes 0 has no zero; a box where h' excludes 0 holds at most one zero, and
     exactly one iff h changes sign at its rational ends.  Near 0 the first nonzero
     Taylor coefficient and a certified delta rule out zeros in (0, delta]; beyond an
     explicit bound B the dominant term fixes the sign.
3. Facts that make every loop finish (Hermite-Lindemann: e^a is transcendental for
   algebraic a != 0):
   * a rational eps > 0 is never a zero of a t-factor or of a mixed factor, and f(r)
     for rational r > 0 is 0 exactly when every P_q(r) is 0 (see `exact_zero_at`);
   * zeros of a mixed irreducible factor on eps > 0 are simple: a double zero would be
     a common zero of g and L g_eps + t g_t (finitely many, all algebraic, because g
     cannot divide L g_eps + t g_t unless g is free of eps), i.e. an algebraic point
     (a, e^(a/L)) with a != 0;
   * distinct irreducible factors share no zero on eps > 0 (same argument).
   So zeros are isolated points, different factors' zeros can be separated by
   refinement, and every zero's multiplicity is its factor's exponent.
4. Between consecutive zeros the sign of f is certified at a rational sample point,
   and cross-checked against the parity of the multiplicities.
5. A failing sentence gets the simplest rational witness (least denominator, then
   numerator; Stern-Brocot descent against the exact region ends), re-checked by
   `recheck`, an independent evaluation that does not use steps 1-4.

A sentence can fail only at irrational points, e.g. (e^eps - 2)^2 > 0 fails at
eps = ln 2 alone.  Then `Decision.witness` is None and `Decision.failure` is the
zero (a `RealRoot` inside a point `SignRegion`) with its certified enclosure.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Callable, Iterator, Union

import flint
from flint import arb, fmpq, fmpq_poly

from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly, mpoly_ctx

Boundary = Union[Fraction, "RealRoot"]
RELATIONS = (">=", ">", "<=", "<")
_REL_ALIASES = {">=": ">=", "=>": ">=", "\u2265": ">=", ">": ">", "<=": "<=", "=<": "<=",
                "\u2264": "<=", "<": "<"}


class IntervalError(UserError, ValueError):
    """An interval that is malformed or not inside (0, inf)."""


class UndefinedError(UserError, ValueError):
    """f is a quotient whose denominator vanishes inside the interval."""


class CertificationError(RuntimeError):
    """Two certified computations disagree: a bug in dipc-plus, never a user error."""


# ---------------------------------------------------------------------------------------
# small exact / ball helpers
# ---------------------------------------------------------------------------------------

@contextmanager
def working_precision(bits: int) -> Iterator[None]:
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _fr(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _exact_arb_to_fraction(x: arb) -> Fraction:
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def _lower(x: arb) -> Fraction:
    """A rational <= every point of the ball."""
    return _exact_arb_to_fraction(x.lower())


def _upper(x: arb) -> Fraction:
    return _exact_arb_to_fraction(x.upper())


def _hull(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole interval [lo, hi] (at the current precision)."""
    return arb(_fq(lo)).union(arb(_fq(hi)))


def _bits(x: Fraction) -> int:
    """About log2(1/x) for 0 < x, at least 0."""
    return max(0, x.denominator.bit_length() - x.numerator.bit_length() + 1)


def _ball_sign(b: arb) -> int:
    """+1 / -1 if the ball excludes 0, else 0 (meaning: undecided at this precision)."""
    if b > 0:
        return 1
    if b < 0:
        return -1
    return 0


def _fmt_q(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _approx(b: arb, digits: int = 7) -> str:
    return b.str(digits, radius=False)


# ---------------------------------------------------------------------------------------
# the interval and the relation
# ---------------------------------------------------------------------------------------

_INF_WORDS = {"inf", "+inf", "infinity", "+infinity", "oo", "\u221e"}


@dataclass(frozen=True)
class Interval:
    """An interval of eps inside (0, inf) with rational ends; hi=None means +inf."""

    lo: Fraction = Fraction(0)
    hi: Fraction | None = None
    lo_closed: bool = False
    hi_closed: bool = False

    def __post_init__(self):
        try:
            lo = Fraction(self.lo)
            hi = None if self.hi is None else Fraction(self.hi)
        except (TypeError, ValueError) as exc:
            raise IntervalError(f"interval ends must be rational numbers: {exc}") from None
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if lo < 0 or (lo == 0 and self.lo_closed):
            raise IntervalError(f"the interval {self} is not inside (0, inf)",
                                hint="eps ranges over (0, inf); start at '(0' or at a positive number")
        if hi is None and self.hi_closed:
            raise IntervalError("an interval cannot be closed at inf", hint="write 'inf)'")
        if hi is not None and (hi < lo or (hi == lo and not (self.lo_closed and self.hi_closed))):
            raise IntervalError(f"the interval {self} is empty")

    @staticmethod
    def parse(text: str) -> "Interval":
        """'(0, inf)', '[1/10, 5]', '(0.5, 2]' ... (ends: rationals, decimals, inf)."""
        s = text.strip()
        hint = "write e.g. '(0, inf)' or '[1/10, 5]'"
        if len(s) < 5 or s[0] not in "([" or s[-1] not in ")]" or s.count(",") != 1:
            raise IntervalError(f"cannot read the interval {text!r}", hint=hint)
        left, right = (part.strip() for part in s[1:-1].split(","))

        def end(word: str) -> Fraction | None:
            if word.lower() in _INF_WORDS:
                return None
            try:
                return Fraction(word)
            except (ValueError, ZeroDivisionError):
                raise IntervalError(f"{word!r} is not a rational number or inf", hint=hint) from None

        lo, hi = end(left), end(right)
        if lo is None:
            raise IntervalError("the lower end of an eps interval cannot be inf", hint=hint)
        return Interval(lo, hi, s[0] == "[", s[-1] == "]")

    def contains(self, x) -> bool:
        x = Fraction(x)
        if x < self.lo or (x == self.lo and not self.lo_closed):
            return False
        return self.hi is None or x < self.hi or (x == self.hi and self.hi_closed)

    def is_point(self) -> bool:
        return self.hi is not None and self.hi == self.lo

    def __str__(self) -> str:
        hi = "inf" if self.hi is None else _fmt_q(self.hi)
        return f"{'[' if self.lo_closed else '('}{_fmt_q(self.lo)}, {hi}{']' if self.hi_closed else ')'}"


def _relation(rel: str) -> str:
    key = rel.strip() if isinstance(rel, str) else rel
    if key not in _REL_ALIASES:
        raise ValueError(f"unknown relation {rel!r}; use one of {', '.join(RELATIONS)}")
    return _REL_ALIASES[key]


def _holds(sign: int, rel: str) -> bool:
    return {">=": sign >= 0, ">": sign > 0, "<=": sign <= 0, "<": sign < 0}[rel]


def _as_interval(interval) -> Interval:
    if interval is None:
        return Interval()
    if isinstance(interval, str):
        return Interval.parse(interval)
    return interval


# ---------------------------------------------------------------------------------------
# independent certified evaluation at a rational point
# ---------------------------------------------------------------------------------------

def _split(f) -> tuple[ExpPoly, ExpPoly]:
    if isinstance(f, ExpFrac):
        return f.num, f.den
    if isinstance(f, ExpPoly):
        return f, ExpPoly.ONE
    if isinstance(f, (int, Fraction, fmpq)):
        return ExpPoly.const(f), ExpPoly.ONE
    raise TypeError(f"cannot decide the sign of a {type(f).__name__}; expected ExpPoly or ExpFrac")


def exact_zero_at(h: ExpPoly, eps: Fraction) -> bool:
    """Is h(eps) = 0 exactly?  For rational eps != 0, h(eps) = sum_q P_q(eps) e^(q eps) is a
    polynomial with rational coefficients in the transcendental number e^(eps/L)
    (Hermite-Lindemann), so it vanishes iff every coefficient P_q(eps) does."""
    e = _fq(Fraction(eps))
    if e == 0:
        return sum((p(e) for p in h.terms.values()), fmpq(0)) == 0
    return all(p(e) == 0 for p in h.terms.values())


def _certified_ball(h: ExpPoly, eps: Fraction, start_prec: int = 64) -> tuple[int, arb]:
    """(sign, ball) of h(eps): exact 0 decided algebraically, else precision doubles until the
    ball excludes 0 (finite, because h(eps) != 0)."""
    if exact_zero_at(h, eps):
        return 0, arb(0)
    prec = start_prec
    while True:
        b = h.arb_value(_fq(Fraction(eps)), prec)
        s = _ball_sign(b)
        if s:
            return s, b
        prec *= 2


def _certified_sign(h: ExpPoly, eps: Fraction) -> int:
    return _certified_ball(h, eps)[0]


def sign_at(f, eps) -> int:
    """The certified sign (-1, 0, +1) of f at a rational eps; ValueError where f is undefined."""
    eps = Fraction(eps)
    num, den = _split(f)
    sd = _certified_sign(den, eps)
    if sd == 0:
        raise UndefinedError(f"f is undefined at eps = {_fmt_q(eps)}: its denominator vanishes there")
    return _certified_sign(num, eps) * sd


def value_ball(f, eps) -> tuple[int, arb]:
    """(certified sign, ball containing f(eps) whose sign is that sign; exactly 0 if f(eps) = 0)."""
    eps = Fraction(eps)
    s = sign_at(f, eps)
    if s == 0:
        return 0, arb(0)
    num, den = _split(f)
    prec = 64
    while True:
        with working_precision(prec):
            b = num.arb_value(_fq(eps), prec) / den.arb_value(_fq(eps), prec)
        bs = _ball_sign(b)
        if bs:
            if bs != s:
                raise CertificationError(f"two certified signs of f({eps}) disagree")
            return s, b
        prec *= 2


def recheck(f, eps, relation: str = ">=") -> bool:
    """Does f(eps) R 0 hold at this one rational eps?  Certified and independent of the
    factoring / root isolation in `decide` (exact zero test + arb at rising precision)."""
    return _holds(sign_at(f, eps), _relation(relation))


# ---------------------------------------------------------------------------------------
# real roots: exact or refinable isolating enclosures
# ---------------------------------------------------------------------------------------

class RealRoot:
    """A zero of one irreducible factor of f, inside the closed rational enclosure [lo, hi]
    (lo == hi == the value for a rational zero).  `refine` shrinks the enclosure towards
    the zero; `compare` decides the order with a rational exactly (it never loops forever,
    because an irrational zero never equals a rational)."""

    kind = "root"

    def __init__(self, factor: ExpPoly, multiplicity: int, lo: Fraction, hi: Fraction):
        self.factor = factor
        self.multiplicity = multiplicity
        self.lo = lo
        self.hi = hi

    @property
    def exact(self) -> Fraction | None:
        """The value when it is rational, else None."""
        return None

    def refine(self) -> None:
        raise NotImplementedError

    def compare(self, q) -> int:
        """sign(root - q), decided exactly."""
        q = Fraction(q)
        if self.exact is not None:
            return (self.exact > q) - (self.exact < q)
        while True:
            if q < self.lo:
                return 1
            if q > self.hi:
                return -1
            self.refine()

    def refine_to(self, width: Fraction) -> None:
        while self.exact is None and self.hi - self.lo > width:
            self.refine()

    def ball(self, prec: int = 64) -> arb:
        """A certified ball containing the zero."""
        if self.exact is not None:
            return arb(_fq(self.exact))
        self.refine_to(Fraction(max(1, abs(self.lo)), 2 ** prec))
        with working_precision(prec + 10):
            return _hull(self.lo, self.hi)

    def approx(self, digits: int = 7) -> str:
        return _approx(self.ball(int(digits * 3.33) + 8), digits)

    def short(self) -> str:
        """A compact name for messages: exact where simple, else ~decimal."""
        return "~" + self.approx()

    def describe(self) -> str:
        return (f"eps = {self.short()}: simple zero of {self.factor} "
                f"(multiplicity {self.multiplicity}) in [{_fmt_q(self.lo)}, {_fmt_q(self.hi)}]")

    def __str__(self) -> str:
        return self.short()

    def __repr__(self) -> str:
        return f"<{self.kind} root {self.describe()}>"


class RationalRoot(RealRoot):
    """A rational zero of a linear factor a*eps + b."""

    kind = "rational"

    def __init__(self, factor, multiplicity, value: Fraction):
        super().__init__(factor, multiplicity, value, value)

    @property
    def exact(self):
        return self.lo

    def refine(self):
        pass

    def short(self):
        return _fmt_q(self.lo)

    def describe(self):
        return f"eps = {self.short()} (exact zero of {self.factor}, multiplicity {self.multiplicity})"


def _sign_q(p: fmpq_poly, x: Fraction) -> int:
    v = p(_fq(x))
    return (v > 0) - (v < 0)


class AlgebraicRoot(RealRoot):
    """An irrational real zero of an irreducible polynomial p(eps) of degree >= 2."""

    kind = "algebraic"

    def __init__(self, factor, multiplicity, poly: fmpq_poly, lo: Fraction, hi: Fraction):
        super().__init__(factor, multiplicity, lo, hi)
        self.poly = poly
        self._sign_lo = _sign_q(poly, lo)
        if self._sign_lo == 0 or self._sign_lo == _sign_q(poly, hi):
            raise CertificationError(f"[{lo}, {hi}] does not isolate a zero of {factor}")

    def refine(self):
        mid = (self.lo + self.hi) / 2
        s = _sign_q(self.poly, mid)
        if s == 0:  # impossible for an irreducible polynomial of degree >= 2
            raise CertificationError(f"rational zero {mid} of irreducible {self.factor}")
        if s == self._sign_lo:
            self.lo = mid
        else:
            self.hi = mid

    def short(self):
        if self.poly.degree() == 2:
            return _quadratic_root_text(self)
        return "~" + self.approx()

    def describe(self):
        return (f"eps = {self.short()}: zero of {self.factor} (multiplicity {self.multiplicity}) "
                f"isolated in ({_fmt_q(self.lo)}, {_fmt_q(self.hi)})")


def _quadratic_root_text(root: AlgebraicRoot) -> str:
    """Closed form (-b +- sqrt(D)) / (2a) of a quadratic zero, the sign chosen exactly."""
    import sympy
    c, b, a = (_fr(x) for x in root.poly.coeffs())
    centre = -b / (2 * a)
    plus = root.compare(centre) > 0
    R = sympy.Rational
    expr = R(centre.numerator, centre.denominator) + (1 if plus else -1) * sympy.sqrt(
        R((b * b - 4 * a * c).numerator, (b * b - 4 * a * c).denominator)) / abs(R(2 * a.numerator, a.denominator))
    return str(expr).replace("**", "^")


class LogAlgebraicRoot(RealRoot):
    """eps0 = L ln t0 for a positive zero t0 != 1 of an irreducible polynomial p(t)."""

    kind = "log-algebraic"

    def __init__(self, factor, multiplicity, poly: fmpq_poly, L: int, t_lo: Fraction, t_hi: Fraction):
        self.poly = poly
        self.L = L
        self.t_lo, self.t_hi = t_lo, t_hi
        self._prec = 64
        if t_lo != t_hi:
            self._sign_lo = _sign_q(poly, t_lo)
            while self.t_lo <= 0:  # keep ln defined
                self._bisect_t()
        super().__init__(factor, multiplicity, Fraction(0), Fraction(0))
        self.lo, self.hi = self._eps_enclosure()

    @property
    def t_exact(self) -> Fraction | None:
        return self.t_lo if self.t_lo == self.t_hi else None

    def _bisect_t(self):
        mid = (self.t_lo + self.t_hi) / 2
        s = _sign_q(self.poly, mid)
        if s == 0:
            raise CertificationError(f"rational zero {mid} of irreducible {self.factor}")
        if s == self._sign_lo:
            self.t_lo = mid
        else:
            self.t_hi = mid

    def _eps_enclosure(self) -> tuple[Fraction, Fraction]:
        with working_precision(self._prec):
            L = arb(self.L)
            return _lower(L * arb(_fq(self.t_lo)).log()), _upper(L * arb(_fq(self.t_hi)).log())

    def refine(self):
        if self.t_exact is None:
            self._bisect_t()
        self._prec += 32
        lo, hi = self._eps_enclosure()
        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)

    def short(self):
        t0 = self.t_exact
        if t0 is None:
            return "~" + self.approx()
        arg = _fmt_q(t0)
        return f"ln({arg})" if self.L == 1 else f"{self.L}*ln({arg})"

    def describe(self):
        if self.t_exact is not None:
            return (f"eps = {self.short()} ~ {self.approx()}: zero of {self.factor} "
                    f"(multiplicity {self.multiplicity})")
        return (f"eps = {self.L}*ln(t0) ~ {self.approx()}, t0 the zero of {_tpoly_text(self.poly, self.L)} "
                f"in ({_fmt_q(self.t_lo)}, {_fmt_q(self.t_hi)}): zero of {self.factor} "
                f"(multiplicity {self.multiplicity})")


def _tpoly_text(p: fmpq_poly, L: int) -> str:
    """'t^3 - t - 1 (t = e^(eps/2))'."""
    parts = []
    for k in range(p.degree(), -1, -1):
        c = _fr(p.coeffs()[k])
        if c == 0:
            continue
        mono = "" if k == 0 else ("t" if k == 1 else f"t^{k}")
        mag = _fmt_q(abs(c))
        body = mag if not mono else (mono if abs(c) == 1 else f"{mag}*{mono}")
        parts.append(("-" if c < 0 else "+", body))
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    text += "".join(f" {sign} {body}" for sign, body in parts[1:])
    return f"{text} (t = e^eps)" if L == 1 else f"{text} (t = e^(eps/{L}))"


class TranscendentalRoot(RealRoot):
    """A zero of h(eps) = g(eps, e^(eps/L)) for an irreducible g in both variables: simple,
    unique in [lo, hi], where h has nonzero signs of opposite sign at the rational ends."""

    kind = "exp-transcendental"

    def __init__(self, factor, multiplicity, lo: Fraction, hi: Fraction, sign_lo: int):
        super().__init__(factor, multiplicity, lo, hi)
        self._sign_lo = sign_lo

    def refine(self):
        mid = (self.lo + self.hi) / 2
        s = _certified_sign(self.factor, mid)
        if s == 0:  # impossible: g(r, e^(r/L)) != 0 for rational r > 0
            raise CertificationError(f"rational zero {mid} of {self.factor}")
        if s == self._sign_lo:
            self.lo = mid
        else:
            self.hi = mid

    def describe(self):
        return (f"eps ~ {self.approx()}: the unique (simple) zero of {self.factor} in "
                f"[{_fmt_q(self.lo)}, {_fmt_q(self.hi)}] (multiplicity {self.multiplicity} in f)")


# ---------------------------------------------------------------------------------------
# Sturm sequences: exact isolation of real algebraic zeros
# ---------------------------------------------------------------------------------------

def _sturm_chain(p: fmpq_poly) -> list[fmpq_poly]:
    chain = [p, p.derivative()]
    while chain[-1].degree() > 0:
        r = chain[-2] % chain[-1]
        if r == 0:
            break
        chain.append(-r)
    return chain


def _variations(chain: list[fmpq_poly], x: Fraction) -> int:
    signs = [s for s in (_sign_q(p, x) for p in chain) if s]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def _cauchy_bound(p: fmpq_poly) -> Fraction:
    cs = [_fr(c) for c in p.coeffs()]
    lead = cs[-1]
    return 1 + max(abs(c / lead) for c in cs[:-1])


def _isolate_positive_zeros(p: fmpq_poly) -> list[tuple[Fraction, Fraction]]:
    """Disjoint (a, b), 0 <= a < b, each holding exactly one positive zero of the squarefree
    polynomial p with p(0) != 0 and no rational zeros (irreducible, degree >= 2)."""
    chain = _sturm_chain(p)
    out = []
    stack = [(Fraction(0), Fraction(int(_cauchy_bound(p)) + 1))]
    while stack:
        a, b = stack.pop()
        n = _variations(chain, a) - _variations(chain, b)
        if n == 0:
            continue
        if n == 1:
            out.append((a, b))
            continue
        m = (a + b) / 2
        if _sign_q(p, m) == 0:
            raise CertificationError(f"rational zero {m} of an irreducible polynomial")
        stack += [(m, b), (a, m)]
    return sorted(out)


# ---------------------------------------------------------------------------------------
# mixed factors: Taylor order at 0, a bound at infinity, certified bisection
# ---------------------------------------------------------------------------------------

def _value_at_zero(h: ExpPoly) -> Fraction:
    return sum((_fr(p.coeffs()[0]) for p in h.terms.values() if p.coeffs()), Fraction(0))


def taylor_order_at_zero(h: ExpPoly) -> tuple[int, Fraction, ExpPoly]:
    """(k, h^(k)(0), h^(k)) for the first k with h^(k)(0) != 0 (exists: h is analytic, not 0)."""
    if h.is_zero():
        raise ValueError("the zero function has no Taylor order")
    k, d = 0, h
    while (v := _value_at_zero(d)) == 0:
        d = d.derivative()
        k += 1
    return k, v, d


def zero_free_near_zero(h: ExpPoly) -> Fraction:
    """A rational delta > 0 with h != 0 on (0, delta].  If h^(j)(0) = 0 for j < k and h^(k)
    keeps one sign on [0, delta] (certified on an arb ball), then integrating k times
    gives h^(j) that same sign on (0, delta] for every j <= k."""
    _, _, dk = taylor_order_at_zero(h)
    m = 0
    while True:
        delta = Fraction(1, 2 ** m)
        prec = 64 + 4 * m
        with working_precision(prec):
            ball = dk.arb_value(_hull(Fraction(0), delta), prec)
        if _ball_sign(ball):
            return delta
        m += 1


def dominant_term(h: ExpPoly) -> tuple[Fraction, int, Fraction]:
    """(c, d, Q): c eps^d e^(Q eps) dominates h as eps -> inf (largest Q, then largest d)."""
    Q = max(h.terms)
    p = h.terms[Q]
    d = p.degree()
    return _fr(p.coeffs()[d]), d, Q


def zero_free_beyond(h: ExpPoly) -> Fraction:
    """A rational B with sign h = sign c on [B, inf), c eps^d e^(Q eps) the dominant term.
    With r(eps) = sum over the other terms of |c_iq| eps^(i-d) e^((q-Q) eps), each summand
    decreases for eps >= X0 = max(1, (i-d)/(Q-q)), so r(eps) <= r(X) for eps >= X >= X0;
    once r(X) < |c| (certified), |h - dominant| < |dominant| on [X, inf)."""
    c, d, Q = dominant_term(h)
    rest = [(abs(a), i - d, q - Q) for a, i, q in h.monomials() if (i, q) != (d, Q)]
    if not rest:
        return Fraction(1)
    x0 = Fraction(1)
    for _, m, k in rest:
        if k < 0 and m > 0:
            x0 = max(x0, Fraction(m) / -k)
    X = Fraction(-((-x0.numerator) // x0.denominator))  # ceil
    with working_precision(64):
        while True:
            x = arb(_fq(X))
            r = arb(0)
            for a, m, k in rest:
                power = x ** m if m >= 0 else 1 / x ** (-m)
                r += arb(_fq(a)) * power * (arb(_fq(k)) * x).exp()
            if r < arb(_fq(abs(c))):
                return X
            X *= 2


def _bisection_precision(lo: Fraction, hi: Fraction) -> int:
    return 64 + 2 * _bits(hi - lo) + max(abs(hi), 1).numerator.bit_length()


def isolate_mixed_zeros(h: ExpPoly, a: Fraction, b: Fraction) -> list[tuple[Fraction, Fraction, int]]:
    """All zeros of h on [a, b] (0 < a < b rational, h(a), h(b) != 0, zeros simple) as
    (lo, hi, sign of h(lo)), each [lo, hi] holding exactly one zero.  A box is dropped when
    the arb range of h excludes 0; when the range of h' excludes 0, h is strictly monotone
    there and holds a zero iff the certified signs at the rational ends differ; otherwise
    it is halved.  Finishes because h and h' have no common zero on [a, b]."""
    dh = h.derivative()
    signs: dict[Fraction, int] = {}

    def sign(x: Fraction) -> int:
        if x not in signs:
            signs[x] = _certified_sign(h, x)
            if signs[x] == 0:
                raise CertificationError(f"rational zero {x} of {h}")
        return signs[x]

    out = []
    stack = [(a, b)]
    while stack:
        lo, hi = stack.pop()
        prec = _bisection_precision(lo, hi)
        with working_precision(prec):
            box = _hull(lo, hi)
            if _ball_sign(h.arb_value(box, prec)):
                continue
            monotone = _ball_sign(dh.arb_value(box, prec)) != 0
        if monotone:
            if sign(lo) != sign(hi):
                out.append((lo, hi, sign(lo)))
            continue
        mid = (lo + hi) / 2
        stack += [(mid, hi), (lo, mid)]
    return sorted(out)


# ---------------------------------------------------------------------------------------
# factor-level root finding on I
# ---------------------------------------------------------------------------------------

@dataclass
class _Factor:
    poly: object  # irreducible fmpq_mpoly in (eps, t)
    multiplicity: int
    L: int

    @property
    def kind(self) -> str:
        de, dt = (int(x) for x in self.poly.degrees())
        if de == 0 and dt == 0:
            return "const"
        if dt == 0:
            return "eps"
        return "t" if de == 0 else "mixed"

    def univariate(self) -> fmpq_poly:
        idx = 0 if self.kind == "eps" else 1
        cs: dict[int, object] = {}
        for exps, c in self.poly.to_dict().items():
            cs[int(exps[idx])] = c
        return fmpq_poly([cs.get(i, 0) for i in range(max(cs) + 1)])

    def as_exppoly(self) -> ExpPoly:
        return ExpPoly.from_mpoly(self.poly, self.L)


def _factors(h: ExpPoly, L: int) -> list[_Factor]:
    if h.is_zero() or h.is_constant():
        return []
    F, _shift = h.to_mpoly(L, mpoly_ctx())
    _, fs = F.factor()
    return [_Factor(g, int(m), L) for g, m in fs]


def _in_interval(r: RealRoot, I: Interval) -> bool:
    c = r.compare(I.lo)
    if c < 0 or (c == 0 and not I.lo_closed):
        return False
    if I.hi is None:
        return True
    c = r.compare(I.hi)
    return c < 0 or (c == 0 and I.hi_closed)


def _factor_roots(fac: _Factor, I: Interval) -> list[RealRoot]:
    """The zeros of one irreducible factor inside I."""
    kind = fac.kind
    if kind == "const":
        return []
    text = fac.as_exppoly()
    m = fac.multiplicity
    if kind in ("eps", "t"):
        p = fac.univariate()
        if p.degree() == 1:
            c0, c1 = (_fr(c) for c in p.coeffs())
            z = -c0 / c1
            if kind == "eps":
                cands = [RationalRoot(text, m, z)] if z > 0 else []
            else:  # t0 = 1 gives eps = 0, t0 <= 0 is not a value of e^(eps/L)
                cands = [LogAlgebraicRoot(text, m, p, fac.L, z, z)] if z > 0 and z != 1 else []
        elif kind == "eps":
            cands = [AlgebraicRoot(text, m, p, a, b) for a, b in _isolate_positive_zeros(p)]
        else:
            cands = [LogAlgebraicRoot(text, m, p, fac.L, a, b) for a, b in _isolate_positive_zeros(p)]
        return [r for r in cands if _in_interval(r, I)]
    # mixed factor: bisection on a bounded interval, zero-free ends certified
    h = text
    a = I.lo if I.lo > 0 else zero_free_near_zero(h)
    b = I.hi if I.hi is not None else max(zero_free_beyond(h), a + 1)
    if a >= b:
        return []
    return [TranscendentalRoot(h, m, lo, hi, s) for lo, hi, s in isolate_mixed_zeros(h, a, b)]


def _separate(roots: list[RealRoot]) -> list[RealRoot]:
    """Sort the zeros and refine until their enclosures are pairwise disjoint (they are
    distinct points, so this finishes)."""
    roots = list(roots)
    while True:
        roots.sort(key=lambda r: (r.lo, r.hi))
        clash = False
        for x, y in zip(roots, roots[1:]):
            if x.hi >= y.lo:
                if x.exact is not None and y.exact is not None:
                    raise CertificationError(f"two factors share the zero {x.exact}")
                clash = True
                x.refine()
                y.refine()
        if not clash:
            return roots


# ---------------------------------------------------------------------------------------
# simplest rationals (Stern-Brocot descent against exact region ends)
# ---------------------------------------------------------------------------------------

def _cmp(q: Fraction, b: Boundary) -> int:
    """sign(q - b) for a rational or a RealRoot boundary."""
    if isinstance(b, RealRoot):
        return -b.compare(q)
    return (q > b) - (q < b)


def _largest_k(pred: Callable[[int], bool]) -> int:
    """Largest k >= 1 with pred(k), given pred(1) and pred monotone (true then false)."""
    lo, hi = 1, 2
    while pred(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo


def simplest_rational(lo: Boundary, hi: Boundary | None, lo_closed: bool = False,
                      hi_closed: bool = False) -> Fraction:
    """The rational with the least denominator (then least numerator) in the nonempty
    interval between lo >= 0 and hi (None: inf); ends may be irrational `RealRoot`s."""

    def where(q: Fraction) -> int:  # -1: left of the interval, 0: inside, +1: right of it
        c = _cmp(q, lo)
        if c < 0 or (c == 0 and not lo_closed):
            return -1
        if hi is not None:
            c = _cmp(q, hi)
            if c > 0 or (c == 0 and not hi_closed):
                return 1
        return 0

    # Invariant: the interval S lies strictly between left = p1/q1 and right = p2/q2, so
    # every rational in S lies in the Stern-Brocot subtree of their mediant, whose root (the
    # mediant) is the unique simplest rational of that subtree.  If the mediant is not in S,
    # S (being convex) lies on one side of it; go down that side, many steps at once.
    p1, q1, p2, q2 = 0, 1, 1, 0  # left 0/1, right 1/0 = inf
    while True:
        m = Fraction(p1 + p2, q1 + q2)
        w = where(m)
        if w == 0:
            return m
        if w < 0:
            k = _largest_k(lambda k: where(Fraction(p1 + k * p2, q1 + k * q2)) < 0)
            p1, q1 = p1 + k * p2, q1 + k * q2
        else:
            k = _largest_k(lambda k: where(Fraction(k * p1 + p2, k * q1 + q2)) > 0)
            p2, q2 = k * p1 + p2, k * q1 + q2


# ---------------------------------------------------------------------------------------
# sign regions
# ---------------------------------------------------------------------------------------

def _bname(b: Boundary | None) -> str:
    if b is None:
        return "inf"
    return b.short() if isinstance(b, RealRoot) else _fmt_q(b)


_SIGN_TEXT = {1: "> 0", 0: "= 0", -1: "< 0"}


@dataclass
class SignRegion:
    """A maximal piece of I on which f has one sign.  A zero is a point region (lo is hi);
    `sample` is the rational where the sign was certified (None at an irrational zero)."""

    lo: Boundary
    hi: Boundary | None
    lo_closed: bool
    hi_closed: bool
    sign: int
    sample: Fraction | None

    @property
    def is_point(self) -> bool:
        return self.lo is self.hi or (not isinstance(self.lo, RealRoot) and self.lo == self.hi)

    @property
    def root(self) -> RealRoot | None:
        return self.lo if self.is_point and isinstance(self.lo, RealRoot) else None

    def where(self) -> str:
        if self.is_point:
            return f"at eps = {_bname(self.lo)}"
        return (f"on {'[' if self.lo_closed else '('}{_bname(self.lo)}, {_bname(self.hi)}"
                f"{']' if self.hi_closed else ')'}")

    def __str__(self) -> str:
        return f"f {_SIGN_TEXT[self.sign]} {self.where()}"


def rational_gap(left: Boundary, right: Boundary | None) -> tuple[Fraction, Fraction | None]:
    """Rationals a < b with left <= a, b <= right (b None: inf), refining zeros as needed."""
    while True:
        a = left.hi if isinstance(left, RealRoot) else left
        b = right.lo if isinstance(right, RealRoot) else right
        if b is None or a < b:
            return a, b
        progressed = False
        for r in (left, right):
            if isinstance(r, RealRoot) and r.exact is None:
                r.refine()
                progressed = True
        if not progressed:
            raise CertificationError(f"empty gap between {left} and {right}")


def _sample(left: Boundary, right: Boundary | None) -> Fraction:
    """A simple rational inside the piece between left and right (the point itself for [a, a])."""
    if right is not None and not isinstance(left, RealRoot) and not isinstance(right, RealRoot) \
            and left == right:
        return left
    a, b = rational_gap(left, right)
    return simplest_rational(a, b)


def _regions(f, I: Interval, roots: list[RealRoot]) -> list[SignRegion]:
    """Cut I at the (sorted, separated) zeros; certify each piece's sign at a sample."""
    out: list[SignRegion] = []
    left: Boundary = I.lo
    left_closed = I.lo_closed

    def piece(right, right_closed):
        s = _sample(left, right)
        out.append(SignRegion(left, right, left_closed, right_closed, sign_at(f, s), s))

    for i, r in enumerate(roots):
        if not (i == 0 and r.exact is not None and r.exact == I.lo):
            piece(r, False)
        out.append(SignRegion(r, r, True, True, 0, r.exact))
        left, left_closed = r, False
    last = roots[-1] if roots else None
    if not (last is not None and I.hi is not None and last.exact is not None and last.exact == I.hi):
        piece(I.hi, I.hi_closed)
    return out


def _check_parity(regions: list[SignRegion]) -> None:
    """Crossing a zero of odd multiplicity flips the sign, even keeps it: an independent
    check of the isolation against the sample signs."""
    for before, at, after in zip(regions, regions[1:], regions[2:]):
        if at.root is None or before.is_point or after.is_point:
            continue
        expected = before.sign * (-1) ** at.root.multiplicity
        if after.sign != expected or before.sign == 0:
            raise CertificationError(
                f"sign {before.sign} before and {after.sign} after the zero {at.root.describe()}")


# ---------------------------------------------------------------------------------------
# the analysis and the decision
# ---------------------------------------------------------------------------------------

@dataclass
class Analysis:
    regions: list[SignRegion]
    roots: list[RealRoot]


def _common_L(num: ExpPoly, den: ExpPoly) -> int:
    return lcm(num.denominator_lcm(), den.denominator_lcm())


def _zeros(h: ExpPoly, L: int, I: Interval) -> list[RealRoot]:
    roots: list[RealRoot] = []
    for fac in _factors(h, L):
        roots += _factor_roots(fac, I)
    return _separate(roots)


def analyse(f, interval=None) -> Analysis:
    """Zeros of f in I and the sign of f on every piece between them."""
    I = _as_interval(interval)
    num, den = _split(f)
    L = _common_L(num, den)
    poles = _zeros(den, L, I)
    if poles:
        raise UndefinedError(
            f"f is undefined inside {I}: its denominator {den} vanishes at {poles[0].describe()}",
            hint="restrict the eps interval to avoid the zeros of the denominator")
    if I.is_point():
        s = sign_at(f, I.lo)
        return Analysis([SignRegion(I.lo, I.lo, True, True, s, I.lo)], [])
    if num.is_zero():
        s = _sample(I.lo, I.hi)
        return Analysis([SignRegion(I.lo, I.hi, I.lo_closed, I.hi_closed, 0, s)], [])
    roots = _zeros(num, L, I)
    regions = _regions(f, I, roots)
    _check_parity(regions)
    return Analysis(regions, roots)


def roots(f, interval=None) -> list[RealRoot]:
    """The zeros of f inside the interval, sorted, with disjoint certified enclosures."""
    return analyse(f, interval).roots


def _region_witness(region: SignRegion) -> Fraction | None:
    if region.is_point:
        return region.root.exact if region.root is not None else region.lo
    return simplest_rational(region.lo, region.hi, region.lo_closed, region.hi_closed)


@dataclass
class Decision:
    """The verdict on "for all eps in I: f(eps) R 0", with its certificate.

    `witness` is the simplest rational eps where the sentence fails and `witness_value`
    a certified ball for f(witness) (exactly 0 at an exact zero).  When the sentence fails
    only at irrational zeros (e.g. a strict claim at a double zero eps = ln 2), there is no
    rational witness: `witness` is None and `failure` is the point region of that zero,
    whose `root` carries the certified enclosure."""

    holds: bool
    relation: str
    interval: Interval
    f: object
    sign_regions: list[SignRegion]
    roots: list[RealRoot]
    witness: Fraction | None = None
    witness_value: arb | None = None
    failure: SignRegion | None = None
    explanation: str = ""
    failing_regions: list[SignRegion] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        return self.explanation


def _region_summary(regions: list[SignRegion]) -> str:
    parts = []
    for r in regions:
        text = str(r)
        if r.root is not None and r.root.multiplicity > 1:
            text += f" (zero of multiplicity {r.root.multiplicity})"
        parts.append(text)
    return "; ".join(parts)


def decide(f, relation: str = ">=", interval=None) -> Decision:
    """Decide  for all eps in I: f(eps) R 0  exactly (see the module doc for how)."""
    rel = _relation(relation)
    I = _as_interval(interval)
    a = analyse(f, I)
    claim = f"f {rel} 0 for all eps in {I}"
    failing = [r for r in a.regions if not _holds(r.sign, rel)]
    if not failing:
        return Decision(True, rel, I, f, a.regions, a.roots,
                        explanation=f"holds: {claim}. {_region_summary(a.regions)}.")
    best: tuple[Fraction, SignRegion] | None = None
    for region in failing:
        w = _region_witness(region)
        if w is not None and (best is None or (w.denominator, w.numerator) <
                              (best[0].denominator, best[0].numerator)):
            best = (w, region)
    if best is None:
        region = failing[0]
        where = ", ".join(r.root.describe() for r in failing)
        return Decision(False, rel, I, f, a.regions, a.roots, failure=region, failing_regions=failing,
                        explanation=(f"fails: {claim}, but only at irrational zeros of f, so no rational "
                                     f"eps is a witness: {where}. {_region_summary(a.regions)}."))
    w, region = best
    if recheck(f, w, rel):
        raise CertificationError(f"the witness eps = {w} does not refute {claim}")
    s, ball = value_ball(f, w)
    value = "exactly 0" if s == 0 else f"in {ball.str(10)}, {_SIGN_TEXT[s]}"
    return Decision(False, rel, I, f, a.regions, a.roots, witness=w, witness_value=ball,
                    failure=region, failing_regions=failing,
                    explanation=(f"fails: {claim}; f {_SIGN_TEXT[region.sign]} {region.where()}. "
                                 f"Witness eps = {_fmt_q(w)}: f({_fmt_q(w)}) is {value}. "
                                 f"{_region_summary(a.regions)}."))

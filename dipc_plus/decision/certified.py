"""Certified evaluation of exp-polynomials at rational points, and the eps interval.

The ground floor of the decision procedure (`decision.decide`): the interval type and
relations the user writes, arb-ball helpers with outward rounding, and the exact-zero
test plus rising-precision arb evaluation behind `sign_at` and `recheck`.  `recheck`
is the independent witness: it never uses the factoring or root isolation of
`decision.roots`, so a counterexample is confirmed by a second route.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

import flint
from flint import arb, fmpq

from dipc_plus.execution import limits
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q, to_fmpq
from dipc_plus.exact.expoly import ExpFrac, ExpPoly

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


def exact_ball_value(x: arb) -> Fraction:
    """The rational value of a ball of radius 0 (a dyadic number)."""
    m, e = x.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def lower_bound(x: arb) -> Fraction:
    """A rational <= every point of the ball."""
    return exact_ball_value(x.lower())


def upper_bound(x: arb) -> Fraction:
    return exact_ball_value(x.upper())


def hull(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole interval [lo, hi] (at the current precision)."""
    return arb(to_fmpq(lo)).union(arb(to_fmpq(hi)))


def bits_below(x: Fraction) -> int:
    """About log2(1/x) for 0 < x, at least 0."""
    return max(0, x.denominator.bit_length() - x.numerator.bit_length() + 1)


def ball_sign(b: arb) -> int:
    """+1 / -1 if the ball excludes 0, else 0 (meaning: undecided at this precision)."""
    if b > 0:
        return 1
    if b < 0:
        return -1
    return 0


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
            too_many = limits.too_many_digits(word)
            if too_many:                    # before Fraction: '1e999999999' would take minutes
                raise IntervalError(f"{limits.clip(word)} has {too_many}", hint=limits.hint("digits"))
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
        hi = "inf" if self.hi is None else fmt_q(self.hi)
        return f"{'[' if self.lo_closed else '('}{fmt_q(self.lo)}, {hi}{']' if self.hi_closed else ')'}"


def normalise_relation(rel: str) -> str:
    key = rel.strip() if isinstance(rel, str) else rel
    if key not in _REL_ALIASES:
        raise ValueError(f"unknown relation {rel!r}; use one of {', '.join(RELATIONS)}")
    return _REL_ALIASES[key]


def holds(sign: int, rel: str) -> bool:
    return {">=": sign >= 0, ">": sign > 0, "<=": sign <= 0, "<": sign < 0}[rel]


def as_interval(interval) -> Interval:
    if interval is None:
        return Interval()
    if isinstance(interval, str):
        return Interval.parse(interval)
    return interval


# ---------------------------------------------------------------------------------------
# independent certified evaluation at a rational point
# ---------------------------------------------------------------------------------------

def split_quotient(f) -> tuple[ExpPoly, ExpPoly]:
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
    e = to_fmpq(Fraction(eps))
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
        b = h.arb_value(to_fmpq(Fraction(eps)), prec)
        s = ball_sign(b)
        if s:
            return s, b
        prec *= 2


def certified_sign(h: ExpPoly, eps: Fraction) -> int:
    return _certified_ball(h, eps)[0]


def sign_at(f, eps) -> int:
    """The certified sign (-1, 0, +1) of f at a rational eps; ValueError where f is undefined."""
    eps = Fraction(eps)
    num, den = split_quotient(f)
    sd = certified_sign(den, eps)
    if sd == 0:
        raise UndefinedError(f"f is undefined at eps = {fmt_q(eps)}: its denominator vanishes there")
    return certified_sign(num, eps) * sd


def value_ball(f, eps) -> tuple[int, arb]:
    """(certified sign, ball containing f(eps) whose sign is that sign; exactly 0 if f(eps) = 0)."""
    eps = Fraction(eps)
    s = sign_at(f, eps)
    if s == 0:
        return 0, arb(0)
    num, den = split_quotient(f)
    prec = 64
    while True:
        with working_precision(prec):
            b = num.arb_value(to_fmpq(eps), prec) / den.arb_value(to_fmpq(eps), prec)
        bs = ball_sign(b)
        if bs:
            if bs != s:
                raise CertificationError(f"two certified signs of f({eps}) disagree")
            return s, b
        prec *= 2


def recheck(f, eps, relation: str = ">=") -> bool:
    """Does f(eps) R 0 hold at this one rational eps?  Certified and independent of the
    factoring / root isolation in `decide` (exact zero test + arb at rising precision)."""
    return holds(sign_at(f, eps), normalise_relation(relation))

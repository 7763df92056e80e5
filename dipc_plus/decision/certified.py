"""Certified evaluation of exp-polynomials at rational points, and the eps interval.

The ground floor of the decision procedure (`decision.decide`): the interval type and
relations the user writes, arb-ball helpers with outward rounding, and the exact-zero
test plus rising-precision arb evaluation behind `sign_at` and `recheck`.  `recheck`
is the independent witness: it never uses the factoring or root isolation of
`decision.roots`, so a counterexample is confirmed by a second route.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq

from dipc_plus.execution import limits
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q, to_fmpq
from dipc_plus.exact.decimals import arb_bounds
from dipc_plus.exact.expoly import ExpFrac, ExpPoly, working_precision

RELATIONS = (">=", ">", "<=", "<")
_REL_ALIASES = {">=": ">=", "=>": ">=", "\u2265": ">=", ">": ">", "<=": "<=", "=<": "<=",
                "\u2264": "<=", "<": "<"}


class IntervalError(UserError, ValueError):
    """An interval that is malformed or not inside (0, inf).

    >>> try:
    ...     Interval.parse("[0, 1]")
    ... except IntervalError as e:
    ...     print(e.message, "|", e.hint)
    the interval [0, 1] is not inside (0, inf) | eps ranges over (0, inf); start at '(0' or at a positive number
    """


class UndefinedError(UserError, ValueError):
    """f is a quotient whose denominator vanishes inside the interval.

    1 / (eps - 1) at eps = 1:

    >>> try:
    ...     sign_at(ExpFrac(ExpPoly.ONE, ExpPoly.eps() - 1), 1)
    ... except UndefinedError as e:
    ...     print(e.message)
    f is undefined at eps = 1: its denominator vanishes there
    """


class CertificationError(RuntimeError):
    """Two certified computations disagree: a bug in dipc-plus, never a user error.

    >>> isinstance(CertificationError("two signs disagree"), UserError)     # a bug, not bad input
    False
    """


# ---------------------------------------------------------------------------------------
# small exact / ball helpers
# ---------------------------------------------------------------------------------------

def lower_bound(x: arb) -> Fraction:
    """A rational <= every point of the ball.

    >>> third = arb(1) / 3
    >>> lower_bound(third) < Fraction(1, 3) < upper_bound(third)
    True
    """
    return arb_bounds(x)[0]


def upper_bound(x: arb) -> Fraction:
    """A rational >= every point of the ball.

    >>> upper_bound(arb("0.75"))
    Fraction(3, 4)
    """
    return arb_bounds(x)[1]


def q_ball(x) -> arb:
    """The rational x as an arb ball at the current precision (exact when x is a dyadic).

    >>> q_ball(Fraction(1, 2))
    0.500000000000000
    """
    return arb(to_fmpq(x))


def hull(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole interval [lo, hi] (at the current precision).

    >>> ball = hull(Fraction(1), Fraction(2))
    >>> ball.contains(1), ball.contains(2), ball.contains(3)
    (True, True, False)
    """
    return q_ball(lo).union(q_ball(hi))


def bits_below(x: Fraction) -> int:
    """About log2(1/x) for 0 < x, at least 0.

    >>> bits_below(Fraction(1, 1024)), bits_below(Fraction(3))
    (11, 0)
    """
    return max(0, x.denominator.bit_length() - x.numerator.bit_length() + 1)


def ball_sign(b: arb) -> int:
    """+1 / -1 if the ball excludes 0, else 0 (meaning: undecided at this precision).

    >>> ball_sign(arb(1) / 3), ball_sign(-arb(1) / 3), ball_sign(arb(0, 1))     # [0 +/- 1]: undecided
    (1, -1, 0)
    """
    return (b > 0) - (b < 0)       # an arb ball meeting 0 is neither > 0 nor < 0


def signed_ball(evaluate, prec: int = 64, most: int | None = None) -> tuple[int, arb]:
    """(sign, ball) of the first `evaluate(prec)` whose ball excludes 0, the precision doubling
    from `prec`; past `most` bits the last ball is returned with sign 0 (undecided).

    1 with an error of 2^(100 - prec) is positive from 128 bits on:

    >>> tried = []
    >>> signed_ball(lambda prec: tried.append(prec) or arb(1, 2.0 ** (100 - prec)))[0], tried
    (1, [64, 128])
    """
    while True:
        b = evaluate(prec)
        s = ball_sign(b)
        if s or (most is not None and prec >= most):
            return s, b
        prec *= 2


# ---------------------------------------------------------------------------------------
# the interval and the relation
# ---------------------------------------------------------------------------------------

_INF_WORDS = ("inf", "infinity", "oo", "\u221e")


def infinity_sign(word: str) -> int:
    """+1 for an end written as +infinity ('inf', '+oo', '\u221e' ...), -1 for -infinity, else 0.

    >>> infinity_sign("+Infinity"), infinity_sign("-oo"), infinity_sign("1e9")
    (1, -1, 0)
    """
    w = word.strip().lower()
    if w in _INF_WORDS or (w[:1] == "+" and w[1:] in _INF_WORDS):
        return 1
    return -1 if w[:1] == "-" and w[1:] in _INF_WORDS else 0


def interval_parts(text: str) -> tuple[str, str, bool, bool] | None:
    """(lower end word, upper end word, lower closed, upper closed) of an interval written
    '(a, b]'; None when the text does not have that shape.  Every interval a user writes (an
    eps range, an output event, a Pufferfish parameter's range) is split here, then its ends
    are read by the rules of its use.

    >>> interval_parts(" [1/10, inf) ")
    ('1/10', 'inf', True, False)
    """
    s = text.strip()
    if len(s) < 5 or s[0] not in "([" or s[-1] not in ")]" or s.count(",") != 1:
        return None
    left, right = (part.strip() for part in s[1:-1].split(","))
    return left, right, s[0] == "[", s[-1] == "]"


def interval_text(lo, hi, lo_closed: bool, hi_closed: bool) -> str:
    """An interval as the user writes it, ends by `fmt_q` (None: an infinite end).

    >>> interval_text(None, Fraction(1, 2), False, True)
    '(-inf, 1/2]'
    """
    return (f"{'[' if lo_closed else '('}{'-inf' if lo is None else fmt_q(lo)}, "
            f"{'inf' if hi is None else fmt_q(hi)}{']' if hi_closed else ')'}")


@dataclass(frozen=True)
class Interval:
    """An interval of eps inside (0, inf) with rational ends; hi=None means +inf.

    >>> i = Interval.parse("[1/10, 5)")
    >>> print(i), i.contains(5), i.contains(Fraction(1, 10)), Interval.parse("(0, inf)").contains(10**9)
    [1/10, 5)
    (None, False, True, True)
    """

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
        hint = "write e.g. '(0, inf)' or '[1/10, 5]'"
        parts = interval_parts(text)
        if parts is None:
            raise IntervalError(f"cannot read the interval {text!r}", hint=hint)

        def end(word: str) -> Fraction | None:
            if infinity_sign(word) > 0:
                return None
            too_many = limits.too_many_digits(word)
            if too_many:                    # before Fraction: '1e999999999' would take minutes
                raise IntervalError(f"{limits.clip(word)} has {too_many}", hint=limits.hint("digits"))
            try:
                return Fraction(word)
            except (ValueError, ZeroDivisionError):
                raise IntervalError(f"{word!r} is not a rational number or inf", hint=hint) from None

        lo, hi = end(parts[0]), end(parts[1])
        if lo is None:
            raise IntervalError("the lower end of an eps interval cannot be inf", hint=hint)
        return Interval(lo, hi, parts[2], parts[3])

    def contains(self, x) -> bool:
        x = Fraction(x)
        return position(lambda end: (x > end) - (x < end), self.lo, self.hi, self.lo_closed, self.hi_closed) == 0

    def is_point(self) -> bool:
        return self.hi is not None and self.hi == self.lo

    def __str__(self) -> str:
        return interval_text(self.lo, self.hi, self.lo_closed, self.hi_closed)


def position(compare, lo, hi, lo_closed: bool, hi_closed: bool) -> int:
    """Where a point lies against the interval between lo and hi (hi None: inf): -1 before it, 0 in it,
    +1 after it.  compare(end) is sign(point - end), decided exactly for the caller's kind of point and
    end (rationals, or the zeros of `decision.roots`); the lower end is compared first.

    >>> [position(lambda end: (x > end) - (x < end), Fraction(1), Fraction(2), False, True) for x in (1, 2, 3)]
    [-1, 0, 1]
    """
    c = compare(lo)
    if c < 0 or (c == 0 and not lo_closed):
        return -1
    if hi is not None:
        c = compare(hi)
        if c > 0 or (c == 0 and not hi_closed):
            return 1
    return 0


def normalise_relation(rel: str) -> str:
    """The canonical spelling of a relation the user wrote (one of `RELATIONS`).

    >>> normalise_relation("=>"), normalise_relation("\u2264")
    ('>=', '<=')
    """
    key = rel.strip() if isinstance(rel, str) else rel
    if key not in _REL_ALIASES:
        raise ValueError(f"unknown relation {rel!r}; use one of {', '.join(RELATIONS)}")
    return _REL_ALIASES[key]


def holds(sign: int, rel: str) -> bool:
    """Whether a value of this sign (-1, 0, +1) satisfies ``value rel 0``.

    >>> holds(0, ">="), holds(0, ">"), holds(-1, "<")
    (True, False, True)
    """
    return {">=": sign >= 0, ">": sign > 0, "<=": sign <= 0, "<": sign < 0}[rel]


def as_interval(interval) -> Interval:
    """An `Interval` from None (all of (0, inf)), its text, or itself.

    >>> print(as_interval(None), as_interval("[1, 2]"))
    (0, inf) [1, 2]
    """
    if interval is None:
        return Interval()
    if isinstance(interval, str):
        return Interval.parse(interval)
    return interval


# ---------------------------------------------------------------------------------------
# independent certified evaluation at a rational point
# ---------------------------------------------------------------------------------------

def split_quotient(f) -> tuple[ExpPoly, ExpPoly]:
    """(numerator, denominator) of an ExpFrac, ExpPoly or rational.

    >>> split_quotient(ExpFrac(ExpPoly.ONE, ExpPoly.exp(1) + 1))
    (ExpPoly(1), ExpPoly(e^eps + 1))
    """
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
    (Hermite-Lindemann), so it vanishes iff every coefficient P_q(eps) does.

    eps^2 - eps vanishes at eps = 1; 1 - 2e^(-eps) does not (e is not 2):

    >>> exact_zero_at(ExpPoly.eps(2) - ExpPoly.eps(), Fraction(1))
    True
    >>> exact_zero_at(ExpPoly.const(1) - ExpPoly.exp(-1, 2), Fraction(1))
    False
    """
    e = to_fmpq(Fraction(eps))
    if e == 0:
        return sum((p(e) for p in h.terms.values()), fmpq(0)) == 0
    return all(p(e) == 0 for p in h.terms.values())


def certified_sign(h: ExpPoly, eps: Fraction) -> int:
    """The sign of h(eps) at a rational eps, proven (see `sign_at` for quotients): an exact 0 is
    decided algebraically, any other value by a ball at rising precision (it excludes 0 at last).

    >>> certified_sign(ExpPoly.const(1) - ExpPoly.exp(-1, 2), Fraction(1))     # 1 - 2/e > 0
    1
    """
    if exact_zero_at(h, eps):
        return 0
    return signed_ball(lambda prec: h.arb_value(to_fmpq(Fraction(eps)), prec))[0]


def sign_at(f, eps) -> int:
    """The certified sign (-1, 0, +1) of f at a rational eps; ValueError where f is undefined.

    1 - 2e^(-eps) changes sign at ln 2 = 0.693...:

    >>> f = ExpPoly.const(1) - ExpPoly.exp(-1, 2)
    >>> sign_at(f, 1), sign_at(f, Fraction(1, 2))
    (1, -1)
    """
    eps = Fraction(eps)
    num, den = split_quotient(f)
    sd = certified_sign(den, eps)
    if sd == 0:
        raise UndefinedError(f"f is undefined at eps = {fmt_q(eps)}: its denominator vanishes there")
    return certified_sign(num, eps) * sd


def value_ball(f, eps) -> tuple[int, arb]:
    """(certified sign, ball containing f(eps) whose sign is that sign; exactly 0 if f(eps) = 0).

    1 - 2/e = 0.26424111765...:

    >>> sign, ball = value_ball(ExpPoly.const(1) - ExpPoly.exp(-1, 2), 1)
    >>> sign, Fraction(26424, 10**5) < lower_bound(ball) <= upper_bound(ball) < Fraction(26425, 10**5)
    (1, True)
    """
    eps = Fraction(eps)
    s = sign_at(f, eps)
    if s == 0:
        return 0, arb(0)
    num, den = split_quotient(f)

    def quotient(prec: int) -> arb:
        with working_precision(prec):
            return num.arb_value(to_fmpq(eps), prec) / den.arb_value(to_fmpq(eps), prec)

    bs, b = signed_ball(quotient)
    if bs != s:
        raise CertificationError(f"two certified signs of f({eps}) disagree")
    return s, b


def recheck(f, eps, relation: str = ">=") -> bool:
    """Does f(eps) R 0 hold at this one rational eps?  Certified and independent of the
    factoring / root isolation in `decide` (exact zero test + arb at rising precision).

    >>> f = ExpPoly.const(1) - ExpPoly.exp(-1, 2)                 # 1 - 2e^(-eps), zero at ln 2
    >>> recheck(f, 1, ">"), recheck(f, Fraction(1, 2), ">=")
    (True, False)
    """
    return holds(sign_at(f, eps), normalise_relation(relation))

"""Certified decision of one-variable sentences  "for all eps in I: f(eps) R 0".

f is an exponential polynomial or a quotient of two; every such sentence gets an answer
(no "unknown"), each comparison exact or a certified arb ball.  `decision.roots` isolates
the zeros; this module certifies the signs between them, finds the simplest rational
witness of a failure (re-checked by `recheck`) and returns the verdict.
Design: docs/design/certified_decision.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Callable, Union

from flint import arb

from dipc_plus.decision.certified import (CertificationError, Interval, UndefinedError, as_interval, holds,
                                          normalise_relation, position, recheck, sign_at, split_quotient,
                                          value_ball)
from dipc_plus.decision.roots import RealRoot, reset_budget, zeros_in
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.decimals import ball_text
from dipc_plus.exact.expoly import ExpPoly  # noqa: F401 (the doctests use it)

Boundary = Union[Fraction, RealRoot]


# ---------------------------------------------------------------------------------------
# simplest rationals (Stern-Brocot descent against exact region ends)
# ---------------------------------------------------------------------------------------

def compare_boundary(q: Fraction, b: Boundary) -> int:
    """sign(q - b) for a rational or a RealRoot boundary.

    >>> compare_boundary(Fraction(1, 2), analyse(ExpPoly.exp(1) - 2).roots[0]), compare_boundary(Fraction(1), Fraction(1))
    (-1, 0)
    """
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
    interval between lo >= 0 and hi (None: inf); ends may be irrational `RealRoot`s.

    >>> simplest_rational(Fraction(31, 100), Fraction(1, 3))
    Fraction(5, 16)
    >>> simplest_rational(Fraction(2), None)
    Fraction(3, 1)
    """

    def where(q: Fraction) -> int:  # -1: left of the interval, 0: inside, +1: right of it
        return position(lambda end: compare_boundary(q, end), lo, hi, lo_closed, hi_closed)

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

def sample_points(I: Interval, parts: int = 8) -> list[Fraction]:
    """Rational eps in I to start a numeric search from: a few landmarks (1/16 .. 16) and the
    points cutting I (or [lo, max(4 lo, 16)] when I is unbounded) into `parts` equal pieces.

    >>> sample_points(as_interval("(1, 3)"), 4)
    [Fraction(3, 2), Fraction(2, 1), Fraction(5, 2)]
    """
    if I.is_point():
        return [I.lo]
    landmarks = [Fraction(1, 16), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4),
                 Fraction(8), Fraction(16)]
    out = [x for x in landmarks if I.contains(x)]
    hi = I.hi if I.hi is not None else max(I.lo * 4, Fraction(16))
    for k in range(1, parts):
        x = I.lo + (hi - I.lo) * Fraction(k, parts)
        if I.contains(x) and x > 0:
            out.append(x)
    return sorted(set(out)) or [simplest_rational(I.lo, I.hi, I.lo_closed, I.hi_closed)]


def boundary_text(b: Boundary | None) -> str:
    """A piece's end: 'inf', '3/2', or the short name of a zero ('ln(2)', '~0.5671433').

    >>> boundary_text(None), boundary_text(Fraction(3, 2)), boundary_text(analyse(ExpPoly.exp(1) - 2).roots[0])
    ('inf', '3/2', 'ln(2)')
    """
    if b is None:
        return "inf"
    return b.short() if isinstance(b, RealRoot) else fmt_q(b)


def same_point(a: Boundary, b: Boundary | None) -> bool:
    """Whether two ends are one point: the same zero, or equal rationals (a rational zero is its value).

    >>> same_point(Fraction(1), Fraction(1)), same_point(Fraction(1), None), same_point(Fraction(1), analyse(ExpPoly.eps() - 1).roots[0])
    (True, False, True)
    """
    exact = [x.exact if isinstance(x, RealRoot) else x for x in (a, b)]
    return a is b or (exact[0] is not None and exact[0] == exact[1])


_SIGN_TEXT = {1: "> 0", 0: "= 0", -1: "< 0"}


@dataclass
class SignRegion:
    """A maximal piece of I on which f has one sign.  A zero is a point region (lo is hi);
    an interval of eps with irrational ends, not a region of inputs (no cell type applies);
    `sample` is the rational where the sign was certified (None at an irrational zero).

    1 - 2e^(-eps) is negative below ln 2, zero there, positive above:

    >>> f = ExpPoly.const(1) - ExpPoly.exp(-1, 2)
    >>> [str(r) for r in analyse(f).regions]
    ['f < 0 on (0, ln(2))', 'f = 0 at eps = ln(2)', 'f > 0 on (ln(2), inf)']
    >>> first, zero = analyse(f).regions[:2]
    >>> first.sample, zero.is_point, zero.sample
    (Fraction(1, 2), True, None)
    """

    lo: Boundary
    hi: Boundary | None
    lo_closed: bool
    hi_closed: bool
    sign: int
    sample: Fraction | None

    @property
    def is_point(self) -> bool:
        return same_point(self.lo, self.hi)

    @property
    def root(self) -> RealRoot | None:
        return self.lo if self.is_point and isinstance(self.lo, RealRoot) else None

    def where(self) -> str:
        if self.is_point:
            return f"at eps = {boundary_text(self.lo)}"
        return (f"on {'[' if self.lo_closed else '('}{boundary_text(self.lo)}, {boundary_text(self.hi)}"
                f"{']' if self.hi_closed else ')'}")

    def __str__(self) -> str:
        return f"f {_SIGN_TEXT[self.sign]} {self.where()}"


def rational_gap(left: Boundary, right: Boundary | None) -> tuple[Fraction, Fraction | None]:
    """Rationals a < b with left <= a, b <= right (b None: inf), refining zeros as needed.

    Between 1/2 and ln 2 = 0.693..., the upper end read off ln 2's enclosure:

    >>> ln2 = analyse(ExpPoly.const(1) - ExpPoly.exp(-1, 2)).roots[0]
    >>> a, b = rational_gap(Fraction(1, 2), ln2)
    >>> a, Fraction(1, 2) < b < Fraction(7, 10)
    (Fraction(1, 2), True)
    """
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


def pieces_between(points: list, I: Interval) -> list:
    """[(left, right, sample)]: the open pieces of I between consecutive points (and its ends),
    each with a simple rational sample inside it (the simplest rational between the enclosures of its
    ends; a point interval is one piece).  The one walk of the pieces between sorted points: the sign
    regions here, the envelopes' and the attack's pieces.

    >>> cuts = analyse(ExpPoly.eps(2) - 3 * ExpPoly.eps() + 2).roots       # zeros 1 and 2
    >>> [(boundary_text(a), boundary_text(b), x) for a, b, x in pieces_between(cuts, Interval())]
    [('0', '1', Fraction(1, 2)), ('1', '2', Fraction(3, 2)), ('2', 'inf', Fraction(3, 1))]
    """
    if I.is_point():
        return [(I.lo, I.hi, I.lo)]
    edges = [I.lo] + list(points) + [I.hi]
    out = []
    for left, right in zip(edges, edges[1:]):
        if not same_point(left, right):
            out.append((left, right, simplest_rational(*rational_gap(left, right))))
    return out


def _regions(f, I: Interval, roots: list[RealRoot]) -> list[SignRegion]:
    """Cut I at the (sorted, separated) zeros; certify each open piece's sign at its sample."""
    def zero(r: RealRoot) -> SignRegion:
        return SignRegion(r, r, True, True, 0, r.exact)

    out: list[SignRegion] = []
    for left, right, s in pieces_between(roots, I):
        if isinstance(left, RealRoot) and not out:      # a zero at the closed lower end
            out.append(zero(left))
        out.append(SignRegion(left, right, left is I.lo and I.lo_closed, right is I.hi and I.hi_closed,
                              sign_at(f, s), s))
        if isinstance(right, RealRoot):
            out.append(zero(right))
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
    """What `analyse` finds: the sign regions of f on I, in order, and the zeros between them.

    >>> a = analyse(ExpPoly.const(1) - ExpPoly.exp(-1, 2), "[1, 2]")     # ln 2 < 1: no zero here
    >>> [str(r) for r in a.regions], a.roots
    (['f > 0 on [1, 2]'], [])
    """

    regions: list[SignRegion]
    roots: list[RealRoot]


def analyse(f, interval=None) -> Analysis:
    """Zeros of f in I and the sign of f on every piece between them.

    eps - 1 on (0, 3) (a rational zero, found exactly):

    >>> [str(r) for r in analyse(ExpPoly.eps() - 1, "(0, 3)").regions]
    ['f < 0 on (0, 1)', 'f = 0 at eps = 1', 'f > 0 on (1, 3)']
    >>> [r.describe() for r in analyse(ExpPoly.const(1) - ExpPoly.exp(-1, 2)).roots]
    ['eps = ln(2) ~ 0.6931472: zero of e^eps - 2 (multiplicity 1)']
    """
    I = as_interval(interval)
    reset_budget()
    num, den = split_quotient(f)
    L = lcm(num.denominator_lcm(), den.denominator_lcm())
    poles = zeros_in(den, L, I)
    if poles:
        raise UndefinedError(
            f"f is undefined inside {I}: its denominator {den} vanishes at {poles[0].describe()}",
            hint="restrict the eps interval to avoid the zeros of the denominator")
    if I.is_point():
        s = sign_at(f, I.lo)
        return Analysis([SignRegion(I.lo, I.lo, True, True, s, I.lo)], [])
    roots = zeros_in(num, L, I)     # none for f = 0: one region, of sign 0
    regions = _regions(f, I, roots)
    _check_parity(regions)
    return Analysis(regions, roots)


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
    whose `root` carries the certified enclosure.

    (e^eps - 2)^2 > 0 fails only at eps = ln 2, an irrational point: no rational witness.

    >>> d = decide((ExpPoly.exp(1) - 2) ** 2, ">")
    >>> bool(d), d.witness, str(d.failure.root), d.failure.root.multiplicity
    (False, None, 'ln(2)', 2)
    """

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
    """Decide  for all eps in I: f(eps) R 0  exactly (see the module doc for how).

    1 - e^(-eps) > 0 for every eps > 0; 1 - 2e^(-eps) > 0 fails below ln 2, with the
    simplest rational witness 1/2 (1 - 2/sqrt(e) = -0.2131 by hand), and holds on [1, inf):

    >>> print(decide(ExpPoly.const(1) - ExpPoly.exp(-1), ">", "(0, inf)"))
    holds: f > 0 for all eps in (0, inf). f > 0 on (0, inf).
    >>> d = decide(ExpPoly.const(1) - ExpPoly.exp(-1, 2), ">")
    >>> bool(d), d.witness, d.witness_value.str(4, radius=False)
    (False, Fraction(1, 2), '-0.2131')
    >>> print(decide(ExpPoly.const(1) - ExpPoly.exp(-1, 2), ">", "[1, inf)"))
    holds: f > 0 for all eps in [1, inf). f > 0 on [1, inf).
    """
    rel = normalise_relation(relation)
    I = as_interval(interval)
    a = analyse(f, I)
    claim = f"f {rel} 0 for all eps in {I}"
    failing = [r for r in a.regions if not holds(r.sign, rel)]
    if not failing:
        return Decision(True, rel, I, f, a.regions, a.roots,
                        explanation=f"holds: {claim}. {_region_summary(a.regions)}.")
    witnesses = [(w, region) for region in failing if (w := _region_witness(region)) is not None]
    best = min(witnesses, key=lambda p: (p[0].denominator, p[0].numerator), default=None)   # the simplest, then first
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
    value = "exactly 0" if s == 0 else f"in {ball_text(ball, 10)}, {_SIGN_TEXT[s]}"
    return Decision(False, rel, I, f, a.regions, a.roots, witness=w, witness_value=ball,
                    failure=region, failing_regions=failing,
                    explanation=(f"fails: {claim}; f {_SIGN_TEXT[region.sign]} {region.where()}. "
                                 f"Witness eps = {fmt_q(w)}: f({fmt_q(w)}) is {value}. "
                                 f"{_region_summary(a.regions)}."))

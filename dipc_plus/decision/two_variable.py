"""Certified decision of two-variable sentences "for all d in (d0, d1], eps in I: F(d, eps) >= 0".

The corner reduction of a box claim (`accuracy.box`) leaves such a sentence for each
piece that is not homogeneous.  Exact routes first (separable parts, a wedge bound), then
a certified branch-and-bound on (d, eps) with a proved tail and, when eps reaches 0, the strip
eps -> 0 proved from the series of F (`decision.series_strip`); what stays open is reported
undecided, never guessed.  Design: docs/design/certified_decision.md.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, fmpq_poly

from dipc_plus.decision.bisection import holds_on_pieces
from dipc_plus.decision.certified import Interval, hull, lower_bound, q_ball, signed_ball, working_precision
from dipc_plus.decision.decide import decide
from dipc_plus.decision.dominant_tail import SMALLEST, strip_by_dominant_terms, sup_on_tail
from dipc_plus.decision.series_strip import strip_at_zero
from dipc_plus.exact.convert import fmt_q, linear_text, to_fmpq
from dipc_plus.exact.expoly import ExpPoly, eps_power_text, monomial_sum_text
from dipc_plus.exact.sparse import SparseSum

Key = tuple   # (i, j, A, B): eps^i * d^j * e^(eps*(A + B*d))

VERIFIED, REFUTED, UNDECIDED = "verified", "refuted", "undecided"
PRECISION = 128
TAIL_STARTS = (Fraction(8), Fraction(32), Fraction(128))     # the tail starts E tried, and the strip ends X
# The branch-and-bound's budget, a count of rectangles and never seconds, so that a sentence is decided or left
# undecided alike on an idle and on a loaded machine.  It replaced a 120 s deadline kept beside the same count;
# the shipped box claims need at most 1,793 rectangles in one branch-and-bound (0.14 CPU s; about 80 us each,
# experiments/decision_work.md), so 20,000 (11 times that, under 2 s of an idle core) keeps their verdicts.
BNB_RECTANGLES = 20_000


class ExpPoly2(SparseSum):
    """sum c * eps^i * d^j * e^(eps*(A + B*d)); `terms` maps (i, j, A, B) to a nonzero Fraction.

    e^(-x) - 1/2 with x = eps*d: negative at d = 1, eps = 2 (a certified ball):

    >>> f = ExpPoly2.term(1, B=-1) - ExpPoly2.const(Fraction(1, 2))
    >>> print(f, "|", f.at(Fraction(1), Fraction(2)) < 0)
    -1/2 + e^(-eps*d) | True
    >>> print(f.derivative_d(), "|", ExpPoly2.term(1, 2, 2) - ExpPoly2.term(2, 1, 1) + ExpPoly2.const(1))
    -eps*e^(-eps*d) | 1 - 2*eps*d + eps^2*d^2
    """

    __slots__ = ("terms",)

    def __init__(self, terms: dict | None = None):
        self.terms = {k: Fraction(c) for k, c in (terms or {}).items() if c}

    @staticmethod
    def const(c) -> "ExpPoly2":
        return ExpPoly2({(0, 0, Fraction(0), Fraction(0)): Fraction(c)})

    @staticmethod
    def term(c, i: int = 0, j: int = 0, A=0, B=0) -> "ExpPoly2":
        return ExpPoly2({(i, j, Fraction(A), Fraction(B)): Fraction(c)})

    def __mul__(self, other) -> "ExpPoly2":
        if not isinstance(other, ExpPoly2):
            return ExpPoly2({k: c * Fraction(other) for k, c in self.terms.items()})
        return super().__mul__(other)

    __rmul__ = __mul__

    def derivative_d(self) -> "ExpPoly2":
        return sum((ExpPoly2({(i, j - 1, A, B): c * j, (i + 1, j, A, B): c * B})
                    for (i, j, A, B), c in self.terms.items()), ExpPoly2())

    def derivative_eps(self) -> "ExpPoly2":
        return sum((ExpPoly2({(i - 1, j, A, B): c * i, (i, j, A, B): c * A, (i, j + 1, A, B): c * B})
                    for (i, j, A, B), c in self.terms.items()), ExpPoly2())

    def ball(self, d: arb, e: arb) -> arb:
        """An enclosure of F over the balls d, eps (naive interval evaluation, term by term)."""
        total = arb(0)
        x = d * e
        for (i, j, A, B), c in self.terms.items():
            t = q_ball(c) * e ** i * d ** j
            if A or B:
                t = t * (q_ball(A) * e + q_ball(B) * x).exp()
            total += t
        return total

    def at(self, d: Fraction, eps: Fraction) -> arb:
        """A certified ball of F(d, eps) whose sign is known (precision raised until it is),
        or the ball at 1024 bits (F may be 0 there)."""
        def at(bits: int) -> arb:
            with working_precision(bits):
                return self.ball(q_ball(d), q_ball(eps))
        return signed_ball(at, PRECISION, most=1024)[1]

    def eps_groups(self) -> dict:
        """{(k, A): G(x)} with F = sum eps^k e^(A eps) G(x) in x = eps*d (G an `ExpPoly` in x)."""
        return _exppolys(((i - j, A), B, j, c) for (i, j, A, B), c in self.terms.items())

    def x_groups(self) -> dict:
        """{(j, B): H(eps)} with F = sum x^j e^(B x) eps^(-J) H(eps), J the largest j - i (so that
        every H is an `ExpPoly`): eps^(-J) > 0, so the signs of the H decide F's."""
        J = max((j - i for i, j, _, _ in self.terms), default=0)
        J = max(J, 0)
        return _exppolys(((j, B), A, i - j + J, c) for (i, j, A, B), c in self.terms.items())

    def __str__(self) -> str:
        def factors(i, j, A, B):
            exponent = [f"e^({linear_text((A, B), ('eps', 'eps*d'))})"] if A or B else []
            return eps_power_text(i) + eps_power_text(j, "d") + exponent
        return monomial_sum_text([(c, factors(*key)) for key, c in
                                  sorted(self.terms.items(), key=lambda kv: (-kv[0][2], -kv[0][3], kv[0][:2]))])


def _exppolys(entries) -> dict:
    """{group: ExpPoly} from (group, rate q, power k, coefficient c) entries, each a term c x^k e^(q x)."""
    groups: dict = {}
    for group, q, k, c in entries:
        poly = groups.setdefault(group, {}).setdefault(q, [])
        poly.extend([Fraction(0)] * (k + 1 - len(poly)))
        poly[k] += c
    return {g: ExpPoly({q: fmpq_poly([to_fmpq(x) for x in p]) for q, p in polys.items()})
            for g, polys in groups.items()}


# --------------------------------------------------------------------------- the domain and the answer


@dataclass(frozen=True)
class Rect:
    """[d0, d1] x [e0, e1] (closed); e1 None: the tail eps >= e0.

    >>> Rect(Fraction(0), Fraction(1), Fraction(8), None).text()
    '0 <= d <= 1 and eps >= 8'
    """
    d0: Fraction
    d1: Fraction
    e0: Fraction
    e1: Fraction | None

    def text(self) -> str:
        eps = f"eps >= {fmt_q(self.e0)}" if self.e1 is None else f"{fmt_q(self.e0)} <= eps <= {fmt_q(self.e1)}"
        return f"{fmt_q(self.d0)} <= d <= {fmt_q(self.d1)} and {eps}"


@dataclass
class TwoVariableDecision:
    """`verdict` verified / refuted / undecided; `method` how (separable, branch-and-bound, or both
    for the compact part and the tail); `witness` (d, eps) rational where F < 0 is certified;
    `undecided` the rectangles left (with `undecided_share`, their share of the compact part's
    area, when the tail is proved); `rectangles` the B&B's count.

    >>> TwoVariableDecision(VERIFIED, "wedge bound (exact)").verdict
    'verified'
    """
    verdict: str
    method: str
    witness: tuple | None = None
    undecided: list = field(default_factory=list)
    undecided_share: Fraction | None = None
    rectangles: int = 0
    note: str = ""


def separable(F: ExpPoly2, d0: Fraction, d1: Fraction | None, I: Interval) -> str | None:
    """Which exact route proves F >= 0 on d in (d0, d1], eps in I (None: none).

    (x - 1)^2 = 1 - 2x + x^2 has one eps-part, whose factor is >= 0 for every x:

    >>> sq = ExpPoly2.const(1) - ExpPoly2.term(2, 1, 1) + ExpPoly2.term(1, 2, 2)
    >>> separable(sq, Fraction(0), Fraction(1), Interval(Fraction(1, 2), Fraction(2), True, True))
    'separable in eps (exact)'
    """
    lo_x = d0 * I.lo
    hi_x = None if d1 is None or I.hi is None else d1 * I.hi
    X = Interval(lo_x, hi_x, False, hi_x is not None and I.hi_closed)   # x > d0*eps >= d0*lo
    if all(decide(g, ">=", X).holds for g in F.eps_groups().values()):
        return "separable in eps (exact)"
    if all(decide(h, ">=", I).holds for h in F.x_groups().values()):
        return "separable in x (exact)"
    low = wedge_bound(F, d1)
    if low is not None and decide(low, ">=", X).holds:
        return "wedge bound (exact)"
    return None


def wedge_bound(F: ExpPoly2, d1: Fraction | None) -> ExpPoly | None:
    """A closed form L(x) <= F on the domain, or None.  In (x, eps) a term is c eps^k e^(A eps) x^j e^(B x):
    the terms with k = 0, A = 0 are kept; a positive term is dropped (it is > 0); a negative one with
    k = 0 and A < 0 is bounded below through eps >= x/d1 (d <= d1): e^(A eps) <= e^(A x/d1).

    1 - e^(-eps) on d <= 1 is at least 1 - e^(-x):

    >>> print(wedge_bound(ExpPoly2.const(1) - ExpPoly2.term(1, A=-1), Fraction(1)))
    1 - e^(-eps)
    """
    if d1 is None or d1 <= 0:
        return None
    kept = []
    for (i, j, A, B), c in F.terms.items():
        k = i - j
        if (k, A) != (0, 0):
            if c > 0:
                continue
            if k != 0 or A >= 0:
                return None
            B = B + A / d1
        kept.append((None, B, j, c))
    return _exppolys(kept).get(None, ExpPoly())


def decide_two_variable(F: ExpPoly2, d0: Fraction, d1: Fraction, I: Interval) -> TwoVariableDecision:
    """for all d in (d0, d1], eps in I: F(d, eps) >= 0 (see the module doc).

    e^(-x) - 1/2 fails for eps*d > ln 2; on d in (0, 1], eps in [1/2, 2] the B&B finds a rational
    point where F < 0 is certified:

    >>> f = ExpPoly2.term(1, B=-1) - ExpPoly2.const(Fraction(1, 2))
    >>> found = decide_two_variable(f, 0, 1, Interval(Fraction(1, 2), Fraction(2), True, True))
    >>> found.verdict, found.witness
    ('refuted', (Fraction(3, 4), Fraction(5, 4)))
    """
    d0, d1 = Fraction(d0), Fraction(d1)
    how = separable(F, d0, d1, I)
    if how:
        return TwoVariableDecision(VERIFIED, how)
    tail_note, E = "", I.hi
    if I.hi is None:
        for t in TAIL_STARTS:
            t = max(t, I.lo * 2, Fraction(1))
            if separable(F, d0, d1, Interval(t, None, True, False)):
                E, tail_note = t, f"tail eps >= {fmt_q(t)}: separable"
                break
            found = strip_tail(F, d0, d1, t)
            if found is not None:
                X, how = found
                E, tail_note = t, f"tail eps >= {fmt_q(t)}: strip x = eps*d <= {fmt_q(X)} ({how}) and wedge bound"
                break
        if E is None:
            E = max(TAIL_STARTS[0], I.lo * 2)
            cex = _tail_witness(F, d0, d1, E)
            if cex is not None:
                return TwoVariableDecision(REFUTED, "branch-and-bound (tail sample)", cex)
    low, strip_note = I.lo, ""
    if I.lo == 0:            # F may tend to 0 as eps -> 0: decide that strip by its series
        delta = strip_at_zero(F.terms, d0, d1)
        if delta is not None:
            low, strip_note = delta, f"strip eps <= {fmt_q(delta)}: series at eps -> 0"
            if E is not None and delta >= E:
                method = "series at eps -> 0" + (f"; {tail_note}" if tail_note else "")
                return TwoVariableDecision(VERIFIED, method)
    found = branch_and_bound(F, Rect(d0, d1, low, E))
    if found.verdict == REFUTED:
        return found
    if strip_note:
        found.method += f"; {strip_note}"
    if tail_note:
        found.method += f"; {tail_note}"
    elif I.hi is None:
        found.undecided.append(Rect(d0, d1, E, None))
        found.note = (f"the tail eps >= {fmt_q(E)} is not proved: no exact grouping of the terms has factors of one "
                      "sign there")
        found.verdict = UNDECIDED
        found.undecided_share = None
    return found


def strip_tail(F: ExpPoly2, d0: Fraction, d1: Fraction, E: Fraction,
               max_intervals: int = 4000) -> tuple[Fraction, str] | None:
    """(X, how): F >= 0 is proved on {eps >= E} (None if no X is found).

    Points with x = eps*d >= X: the wedge bound L(x) <= F (valid on the whole domain) is decided
    >= 0 on [X, inf) exactly.  Points with eps >= E and x <= X: every eps-part but the constant one
    decays (A < 0, or A = 0 with a negative power), so it lies in [0, M] with M its largest value on
    [E, inf); F >= G_0(x) + sum min(0, M * G_k(x)), enclosed on intervals of [d0*E, X] and bisected
    until every lower bound is >= 0 (depth-first, a budget of intervals).  Where G_0(x) tends to 0
    (a claim tight as eps -> inf), the eps-parts are nested by decay instead
    (`decision.dominant_tail`).

    e^(-x) - e^(-2x)/2 - 3/4 e^(-eps) (1 - e^(-x)) on d <= 1, eps >= 8:

    >>> G = (ExpPoly2.term(1, B=-1) - ExpPoly2.term(Fraction(1, 2), B=-2) - ExpPoly2.term(Fraction(3, 4), A=-1)
    ...      + ExpPoly2.term(Fraction(3, 4), A=-1, B=-1))
    >>> strip_tail(G, Fraction(0), Fraction(1), Fraction(8))
    (Fraction(8, 1), 'bounded eps-parts')
    """
    low = wedge_bound(F, d1)
    if low is None:
        return None
    groups = F.eps_groups()
    bounds = []
    for (k, A), g in groups.items():
        if (k, A) == (0, 0):
            continue
        M = sup_on_tail(k, A, E)
        if M is None:
            return None
        bounds.append((q_ball(M), g))
    base = groups.get((0, Fraction(0)), ExpPoly())
    for X in TAIL_STARTS:
        if not decide(low, ">=", Interval(X, None, True, False)).holds:
            continue
        if d0 * E >= X or holds_on_pieces(lambda a, b: _strip_lower(base, bounds, a, b) >= 0, d0 * E, X,
                                          max_intervals, SMALLEST):
            return X, "bounded eps-parts"
        if strip_by_dominant_terms(groups, E, d0 * E, X, max_intervals):
            return X, "dominant terms in eps"
        return None
    return None


def _strip_lower(base: ExpPoly, bounds: list, a: Fraction, b: Fraction) -> Fraction:
    """A lower bound of G_0(x) + sum min(0, M * G_k(x)) <= F on x in [a, b] (-1 when not finite)."""
    with working_precision(PRECISION):
        X = hull(a, b)
        total = base.arb_value(X, PRECISION)
        for M, g in bounds:
            lo = lower_bound(g.arb_value(X, PRECISION))
            if lo < 0:
                total += M * q_ball(lo)
        return lower_bound(total) if total.is_finite() else Fraction(-1)


def _tail_witness(F: ExpPoly2, d0, d1, E) -> tuple | None:
    """A rational point of the tail where F < 0 is certified (a few samples; None if none)."""
    for e in (E, 2 * E, 4 * E, 16 * E, 64 * E):
        for t in (Fraction(1), Fraction(1, 2), Fraction(1, 8), Fraction(1, 64)):
            d = d0 + (d1 - d0) * t
            if d > d0 and F.at(d, e) < 0:
                return d, e
    return None


def branch_and_bound(F: ExpPoly2, root: Rect, max_rects: int | None = None) -> TwoVariableDecision:
    """Best-first B&B on the closed rectangle `root` (compact): see the module doc.  It examines at most
    `max_rects` rectangles (default BNB_RECTANGLES, read at the call: a count of work, so the answer
    does not depend on the machine's load).

    >>> f = ExpPoly2.term(1, B=-1) + ExpPoly2.term(1, A=-1) - ExpPoly2.const(Fraction(1, 2))
    >>> found = branch_and_bound(f, Rect(Fraction(0), Fraction(1), Fraction(1, 10), Fraction(1)), 1000)
    >>> found.verdict, found.rectangles
    ('verified', 1)
    """
    max_rects = BNB_RECTANGLES if max_rects is None else max_rects
    Fd, Fe = F.derivative_d(), F.derivative_eps()
    heap: list = []
    counter = 0
    area = (root.d1 - root.d0) * (root.e1 - root.e0)

    def push(r: Rect) -> None:
        """Count the rectangle and keep it open unless F >= 0 on it is certified."""
        nonlocal counter
        counter += 1
        low = _lower(F, Fd, Fe, r)
        if low < 0:
            heapq.heappush(heap, (low, counter, r))

    push(root)
    while heap and counter < max_rects:
        _, _, r = heapq.heappop(heap)
        dm, em = (r.d0 + r.d1) / 2, (r.e0 + r.e1) / 2
        if dm > root.d0 and em > 0 and F.at(dm, em) < 0:
            return TwoVariableDecision(REFUTED, "branch-and-bound", (dm, em), rectangles=counter)
        if (r.d1 - r.d0) * max(r.e1, Fraction(1)) >= (r.e1 - r.e0):
            halves = (Rect(r.d0, dm, r.e0, r.e1), Rect(dm, r.d1, r.e0, r.e1))
        else:
            halves = (Rect(r.d0, r.d1, r.e0, em), Rect(r.d0, r.d1, em, r.e1))
        for h in halves:
            push(h)
    left = [r for _, _, r in sorted(heap)]
    if not left:
        return TwoVariableDecision(VERIFIED, "branch-and-bound", rectangles=counter)
    share = sum(((r.d1 - r.d0) * (r.e1 - r.e0) for r in left), Fraction(0)) / area if area else None
    return TwoVariableDecision(UNDECIDED, "branch-and-bound", undecided=left, undecided_share=share,
                               rectangles=counter,
                               note=(f"the budget of {max_rects} rectangles (decision.two_variable.BNB_RECTANGLES) ended "
                                     f"with {len(left)} rectangles open"))


def _lower(F: ExpPoly2, Fd: ExpPoly2, Fe: ExpPoly2, r: Rect) -> Fraction:
    """A certified lower bound of F on the closed rectangle r."""
    with working_precision(PRECISION):
        D, E = hull(r.d0, r.d1), hull(r.e0, r.e1)
        naive = F.ball(D, E)
        dm, em = (r.d0 + r.d1) / 2, (r.e0 + r.e1) / 2
        centred = F.ball(q_ball(dm), q_ball(em)) + Fd.ball(D, E) * (D - q_ball(dm)) + Fe.ball(D, E) * (E - q_ball(em))
        lows = [lower_bound(b) for b in (naive, centred) if b.is_finite()]
    return max(lows) if lows else Fraction(-10 ** 9)


def describe(result: TwoVariableDecision, limit: int = 4) -> str:
    """The undecided rectangles as inequalities (the first `limit`).

    >>> print(describe(TwoVariableDecision(UNDECIDED, "branch-and-bound",
    ...                                    undecided=[Rect(Fraction(0), Fraction(1), Fraction(8), None)])))
    0 <= d <= 1 and eps >= 8
    """
    parts = [r.text() for r in result.undecided[:limit]]
    more = len(result.undecided) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")

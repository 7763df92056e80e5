"""sup over eps of L(eps)/eps, for one exact likelihood ratio r(eps): exact or enclosed.

Why it exists: the smallest k with k*eps-DP on the claim's inputs is
sup_eps ln r(eps)/eps over the envelope's ratios.  When the supremum is a limit at
eps -> 0 or eps -> inf it is a rational, proved to bound the ratio on the whole
interval by `decide` (r <= e^(k eps) exactly).  Otherwise it is enclosed by interval
branch and bound with certified arb arithmetic:

* a box [x, y] (0 < x) is bounded by the smaller of two bounds on g = ln r / eps:
  the mean-value form g(m) + sup|g'| (y - x)/2, and
  max(g(x), sup psi on [x, y]) with psi = r'/r = (ln r)', because
  g(eps) = (x g(x) + integral_x^eps psi) / eps is a mean of g(x) and psi-values.  The
  second bound has no 1/eps^2 cancellation, so it stays sharp near eps = 0;
* next to 0 (when r(0) = 1) g(eps) is the mean of psi on [0, eps], so sup psi bounds it;
  beyond an explicit B the dominant terms bound it (`_tail_bound`);
* lower bounds are certified values g(x) at rational points.

Precision is raised (128, 256, 512 bits) when a round does not reach the tolerance; if
the last round still does not, the enclosure found so far is returned -- it is sound,
only wider -- and marked as not reaching the tolerance.  If no finite bound exists at
all, a `UserError` says so (exit 2), never a traceback.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from dipc_plus.decision.certified import hull, q_ball, working_precision
from dipc_plus.decision.decide import Interval, decide, sample_points
from dipc_plus.decision.roots import dominant_rest, dominant_term, rest_ball, value_at_zero
from dipc_plus.errors import UserError
from dipc_plus.exact.decimals import arb_bounds, decimal_down, decimal_up
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.convert import fmt_q

TOLERANCE = Fraction(1, 10 ** 5)
PRECISIONS = (128, 256, 512)
MAX_BOXES = 20000


@dataclass
class SupRatio:
    """sup over eps of L(eps)/eps: exact (value) or enclosed in [lo, hi].

    >>> SupRatio(value=Fraction(1, 2)).text(), SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2)).text(4)
    ('1/2', 'in [0.3333, 0.5]')
    >>> SupRatio(infinite=True).text(), SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2)).upper()
    ('inf', Fraction(1, 2))
    >>> SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2)).lower(), SupRatio(value=Fraction(1, 2)).lower()
    (Fraction(1, 3), Fraction(1, 2))
    """
    value: Fraction | None = None
    lo: Fraction | None = None
    hi: Fraction | None = None
    infinite: bool = False
    how: str = ""
    at_eps: Fraction | None = None
    candidate: object = None
    converged: bool = True

    def text(self, digits: int = 8) -> str:
        if self.infinite:
            return "inf"
        if self.value is not None:
            return fmt_q(self.value)
        return f"in [{decimal_down(self.lo, digits)}, {decimal_up(self.hi, digits)}]"

    def upper(self) -> Fraction | None:
        """The least bound proved above the sup (its exact value when known); None when it is infinite."""
        return self.value if self.value is not None else self.hi

    def lower(self) -> Fraction | None:
        """The greatest bound proved below the sup (its exact value when known); None when it is infinite."""
        return self.value if self.value is not None else self.lo


class NotCertified(UserError):
    """A certified bound could not be computed (exit code 2, with what was tried).

    >>> NotCertified("no bound").exit_code
    2
    """


def sup_ratio(pieces: list, I: Interval, tolerance: Fraction = TOLERANCE) -> SupRatio:
    """sup over eps in I of L(eps)/eps, L = ln of the envelope (= max over its pieces' ratios,
    each taken over all of I: a ratio is below the envelope where it does not attain it).

    The envelope of 2e^eps/(e^eps + 1) and e^(eps/3): sup ln r/eps is 1/2, the first ratio's
    limit at eps -> 0 (r'(0)/r(0) = 1/2):

    >>> from types import SimpleNamespace as Piece
    >>> r = ExpFrac(ExpPoly.exp(1, 2), ExpPoly.exp(1) + 1)
    >>> pieces = [Piece(candidate=Piece(ratio=r)), Piece(candidate=Piece(ratio=ExpPoly.exp(Fraction(1, 3))))]
    >>> sup_ratio(pieces, Interval()).text()
    '1/2'
    """
    sups = []
    for piece in pieces:
        s = sup_one(piece.candidate, I, tolerance)
        if s.infinite:
            return s
        sups.append(s)
    top = max(sups, key=lambda s: s.upper())
    lower = max(s.lower() for s in sups)
    if top.value is not None and top.value >= lower:
        return top
    return SupRatio(lo=lower, hi=top.upper(), how=top.how, at_eps=top.at_eps, candidate=top.candidate,
                    converged=all(s.converged for s in sups))


# --------------------------------------------------------------------------- limits and exact values


def _limits(r: ExpFrac, I: Interval):
    """lim ln r / eps at the ends of I that are 0 or inf: (at 0 or None, at inf or None);
    values are Fractions or +/-inf floats."""
    at0 = at_inf = None
    if I.lo == 0:
        n0, d0 = value_at_zero(r.num), value_at_zero(r.den)
        if _one_at_zero(r):         # ln r / eps -> (ln r)'(0) = r'(0)
            slope = _derivative(r)
            at0 = value_at_zero(slope.num) / value_at_zero(slope.den)
        elif n0 != 0 or d0 != 0:    # r -> inf at 0 (r > 0 on I), or r(0) above or below 1
            at0 = math.inf if d0 == 0 or n0 / d0 > 1 else -math.inf
    if I.hi is None:    # the rates Q of the dominant terms c eps^d e^(Q eps)
        at_inf = dominant_term(r.num)[2] - dominant_term(r.den)[2]
    return at0, at_inf


def _one_at_zero(r: ExpFrac) -> bool:
    """Whether r(0) = 1 (its denominator not 0 there)."""
    d0 = value_at_zero(r.den)
    return d0 != 0 and value_at_zero(r.num) == d0


def bounded_by(r, k: Fraction, I: Interval, factor: Fraction = Fraction(1)) -> bool:
    """Is r(eps) <= factor * e^(k eps) on all of I (decided exactly)?

    2e^eps/(e^eps + 1) <= e^(eps/2) everywhere (it is 2 e^(eps/2) <= 1 + e^eps, AM-GM), but
    not <= e^(eps/3):

    >>> r = ExpFrac(ExpPoly.exp(1, 2), ExpPoly.exp(1) + 1)
    >>> bounded_by(r, Fraction(1, 2), Interval()), bounded_by(r, Fraction(1, 3), Interval())
    (True, False)
    """
    return decide(ExpFrac.of(ExpPoly.exp(k, factor)) - ExpFrac.of(r), ">=", I).holds


def _psi_bounded(r: ExpFrac, k: Fraction, I: Interval) -> bool:
    """A sufficient exact test of sup ln r(eps)/eps <= k: psi = r'/r <= k on I (decided; the same
    exponents as r, so no new denominator), and g <= k at the left end (r(0) = 1 when I starts
    at 0; a certified comparison r(a) <= e^(k a) otherwise).  Then g(eps) = (ln r(a) +
    integral_a^eps psi) / eps is at most k everywhere."""
    psi = _derivative(r, log=True)
    if I.lo == 0:
        if not _one_at_zero(r):
            return False
    else:
        with working_precision(256):
            a = q_ball(I.lo)
            if not r.arb_value(a, 256) <= (q_ball(k) * a).exp():
                return False
    try:
        return decide(ExpFrac.of(ExpPoly.const(k)) - psi, ">=", I).holds
    except UserError:       # psi undefined somewhere in I (r has a zero there): no shortcut
        return False


def sup_one(cand, I: Interval, tolerance: Fraction = TOLERANCE, against: Fraction | None = None) -> SupRatio:
    """sup over eps in I of ln r(eps)/eps for one candidate (its `ratio` r): exact when a limit
    at an end bounds it (decided), else a certified enclosure.

    r = e^eps gives exactly 1; r = 1 + eps^2 peaks inside, at ln(1 + x^2)/x = 0.80474234...
    for x = 1.98029 (mpmath, from the derivative's zero):

    >>> from types import SimpleNamespace as Candidate
    >>> sup_one(Candidate(ratio=ExpPoly.exp(1)), Interval()).text()
    '1'
    >>> s = sup_one(Candidate(ratio=ExpPoly.eps(2) + 1), Interval(Fraction(1), Fraction(3), True, True), Fraction(1, 100))
    >>> s.lo <= Fraction(8047423425, 10**10) < Fraction(8047423426, 10**10) <= s.hi, s.hi - s.lo <= Fraction(1, 100)
    (True, True)
    """
    r = ExpFrac.of(cand.ratio)
    at0, at_inf = _limits(r, I)
    if at0 == math.inf:
        return SupRatio(infinite=True, how="L(eps)/eps -> inf as eps -> 0 (the ratio exceeds 1 at eps = 0)",
                        candidate=cand)
    exact = [x for x in (at0, at_inf) if isinstance(x, Fraction)]
    if exact:
        k = max(exact)
        where = "eps -> 0" if k == at0 else "eps -> inf"
        if _psi_bounded(r, k, I):
            return SupRatio(value=k, how=f"exact: the limit as {where}; (ln r)' <= {fmt_q(k)} on I (decided), "
                                         "so it bounds L(eps)/eps", candidate=cand)
        # e^(k eps) in the sentence: its denominator joins the others (t = e^(eps/L)); a large L
        # makes the polynomial in t too big to be worth it, and the enclosure below is used
        L = math.lcm(k.denominator, r.num.denominator_lcm(), r.den.denominator_lcm())
        if L <= 48 and bounded_by(r, k, I):
            return SupRatio(value=k, how=f"exact: the limit as {where}, an upper bound on I (decided)",
                            candidate=cand)
    found = enclose(r, I, tolerance, against)
    found.candidate, at = cand, found.at_eps
    found.how = "certified enclosure (interval branch and bound; the maximum is near eps = " \
                f"{decimal_down(at, 6) if at is not None else '?'})"
    if not found.converged:
        found.how += f"; the tolerance {fmt_q(tolerance)} was not reached, the enclosure is wider"
    return found


# --------------------------------------------------------------------------- certified pieces


def _upper(b: arb) -> Fraction | None:
    return arb_bounds(b)[1] if b.is_finite() else None


def _lower(b: arb) -> Fraction | None:
    return arb_bounds(b)[0] if b.is_finite() else None


class _Ratio:
    """r, r' and psi = r'/r with certified evaluations at one precision."""

    def __init__(self, r: ExpFrac, prec: int):
        self.r = r
        self.prec = prec
        self.dr = _derivative(r)
        self.psi = _derivative(r, log=True)
        self.dpsi = _derivative(self.psi)

    def g_lower(self, x: Fraction, upper: bool = False) -> Fraction | None:
        """A certified lower (with `upper`: upper) bound of g(x) = ln r(x) / x (x > 0 rational)."""
        with working_precision(self.prec):
            v = self.r.arb_value(q_ball(x), self.prec)
            if not v > 0:
                return None
            return (_upper if upper else _lower)(v.log() / q_ball(x))

    def psi_upper(self, a: Fraction, b: Fraction) -> Fraction | None:
        """An upper bound of psi on [a, b] with a < b (None when none is finite)."""
        with working_precision(self.prec):
            box = hull(a, b)
            m = (a + b) / 2
            # mean-value form of psi on the box, and its plain interval value: take the smaller
            plain = self.psi.arb_value(box, self.prec)
            dpsi = self.dpsi.arb_value(box, self.prec)
            mv = self.psi.arb_value(q_ball(m), self.prec) + dpsi.abs_upper() * (q_ball(b) - q_ball(a)) / 2
            ups = [u for u in (_upper(plain), _upper(mv)) if u is not None]
            return min(ups) if ups else None

    def box_upper(self, a: Fraction, b: Fraction) -> Fraction | None:
        """An upper bound of g on [a, b] with 0 < a < b (None when none is finite)."""
        bounds = []
        ga, ps = self.g_lower(a, upper=True), self.psi_upper(a, b)
        if ga is not None and ps is not None:
            bounds.append(max(ga, ps))
        with working_precision(self.prec):
            box = hull(a, b)
            m = (a + b) / 2
            rv, dv = self.r.arb_value(box, self.prec), self.dr.arb_value(box, self.prec)
            rm = self.r.arb_value(q_ball(m), self.prec)
            if rv > 0 and rm > 0:
                gm = rm.log() / q_ball(m)
                gp = dv / (rv * box) - rv.log() / (box * box)
                mv = _upper(gm + gp.abs_upper() * (q_ball(b) - q_ball(a)) / 2)
                if mv is not None:
                    bounds.append(mv)
        return min(bounds) if bounds else None


def _derivative(f: ExpFrac, log: bool = False) -> ExpFrac:
    """f', or with `log` (ln f)' = f'/f: the same exponents as f, so no new denominator."""
    num, den = f.num, f.den
    return ExpFrac(num.derivative() * den - num * den.derivative(), (num if log else den) * den)


def _near_zero_upper(R: _Ratio, delta: Fraction, pieces: int = 16) -> Fraction | None:
    """An upper bound of g on (0, delta] when r(0) = 1: g(eps) is the mean of psi on [0, eps]."""
    ups = [R.psi_upper(delta * Fraction(k, pieces), delta * Fraction(k + 1, pieces)) for k in range(pieces)]
    return None if None in ups else max(ups)


def _tail_bound(r: ExpFrac, B: Fraction, prec: int):
    """(B', bound) with ln r(eps)/eps <= bound for all eps >= B' >= B, from the dominant terms."""
    num, den = r.num, r.den
    if dominant_term(den)[0] < 0:  # the same ratio with both signs flipped
        num, den = -num, -den
    cn, dn, qn, rn, xn = dominant_rest(num)        # the rests decrease beyond x0
    cd, dd, qd, rd, xd = dominant_rest(den)
    if cn <= 0 or cd <= 0:
        return None
    Bp = max(B, xn, xd)
    for _ in range(60):
        with working_precision(prec):
            Rn, Rd = rest_ball(rn, Bp), rest_ball(rd, Bp)
            if Rd < 1:
                C = (q_ball(cn) / q_ball(cd) * (1 + Rn) / (1 - Rd)).log()
                dl = dn - dd
                Cu = _upper(C)
                xb = q_ball(Bp)
                if Cu is not None and dl > 0:
                    # (dl ln x + C)/x decreases once ln x >= 1 - C/dl
                    if _upper(xb.log()) >= 1 - Cu / dl + 1:
                        val = _upper((dl * xb.log() + C) / xb)
                        if val is not None:
                            return Bp, qn - qd + max(Fraction(0), val)
                elif Cu is not None:
                    return Bp, qn - qd + max(Fraction(0), Cu / Bp)
        Bp *= 2
    return None


# --------------------------------------------------------------------------- branch and bound


# A box's upper bound on g: a Fraction, or UNBOUNDED when no finite certified bound was found.
UNBOUNDED = None


def _priority(u: Fraction | None) -> tuple:
    """Heap key: unbounded boxes first, then the largest upper bound first."""
    return (0, Fraction(0)) if u is UNBOUNDED else (1, -u)


def enclose(r: ExpFrac, I: Interval, tol: Fraction = TOLERANCE, against: Fraction | None = None) -> SupRatio:
    """A certified enclosure lo <= sup ln r(eps)/eps <= hi on I (lo is g's value bound at `at_eps`;
    `converged` when hi - lo reached the tolerance), raising the precision when a round
    does not reach the tolerance (the narrowest round's enclosure otherwise).  With `against`
    (a budget k, for a search that only asks whether the sup is above it), the branch and bound
    stops as soon as the enclosure lies on one side of k: lo > k or hi <= k.

    sup of ln(1 + eps^2)/eps on [1, 3] is 0.80474234... (mpmath, at eps = 1.98029):

    >>> e = enclose(ExpFrac.of(ExpPoly.eps(2) + 1), Interval(Fraction(1), Fraction(3), True, True), Fraction(1, 100))
    >>> e.lo <= Fraction(8047423425, 10**10) < Fraction(8047423426, 10**10) <= e.hi, e.hi - e.lo <= Fraction(1, 100)
    (True, True)
    """
    best = None
    for prec in PRECISIONS:
        result = _enclose_at(r, I, tol, prec, against)
        if result is not None and (best is None or result.hi - result.lo < best.hi - best.lo):
            best = result
        if best is not None and (best.converged or sides_of(best, against)):
            return best
    if best is None:
        raise NotCertified("no certified bound on L(eps)/eps was found at 128, 256 or 512 bits",
                           hint="narrow the eps interval (e.g. eps = \"[1/100, 10]\"), or decide the budget "
                                "itself with `dipc privacy`")
    return best


def sides_of(e: SupRatio, against: Fraction | None) -> bool:
    """Whether the enclosure is on one side of `against` (never when it is None).

    >>> e = SupRatio(lo=Fraction(1, 3), hi=Fraction(1, 2))
    >>> sides_of(e, Fraction(1, 4)), sides_of(e, Fraction(1, 2)), sides_of(e, Fraction(2, 5)), sides_of(e, None)
    (True, True, False, False)
    """
    return against is not None and (e.lo > against or e.hi <= against)


def _enclose_at(r: ExpFrac, I: Interval, tol: Fraction, prec: int, against: Fraction | None = None) -> SupRatio | None:
    """The enclosure at one precision, or None when some part of I has no finite certified
    bound at it: a certified lower bound from a scan, the ends near 0 and inf bounded
    separately, the rest by branch and bound."""
    R = _Ratio(r, prec)
    lo_k, at = _lower_bound(R, I)
    left = None if lo_k is None else _left_end(R, I, lo_k, tol)
    right = None if left is None else _right_end(r, I, left[0], lo_k, tol, prec)
    if right is None:
        return None
    (a, near_zero), (b, tail) = left, right
    if b <= a:
        return _closing([], near_zero + tail, lo_k, at, tol)
    return _branch_and_bound(R, a, b, lo_k, at, near_zero + tail, tol, against)


def _left_end(R: _Ratio, I: Interval, lo_k: Fraction, tol: Fraction) -> tuple[Fraction, list] | None:
    """(a, bounds): where the branch and bound starts, and certified upper bounds of g on
    (I.lo, a) (none when a = I.lo); None when the part next to eps = 0 cannot be bounded."""
    if I.lo != 0:
        return I.lo, []
    if not _one_at_zero(R.r):
        # r(0) < 1 (g -> -inf) or r has a pole/zero at 0: start a little to the right, bounded below
        delta = _zero_side_delta(R, lo_k)
        return None if delta is None else (delta, [])
    delta = Fraction(1, 16)
    nz = _near_zero_upper(R, delta)
    while (nz is None or nz > lo_k + tol) and delta > Fraction(1, 1 << 30):
        delta /= 4
        nz = _near_zero_upper(R, delta)
    return None if nz is None else (delta, [nz])


def _right_end(r: ExpFrac, I: Interval, a: Fraction, lo_k: Fraction, tol: Fraction,
               prec: int) -> tuple[Fraction, list] | None:
    """(b, bounds): where the branch and bound stops, and a certified upper bound of g
    beyond it when I is unbounded (none for a bounded I); None when the tail has no bound."""
    if I.hi is not None:
        return I.hi, []
    B = max(a * 2, Fraction(16))
    tail = _tail_bound(r, B, prec)
    while tail is not None and tail[1] > lo_k + tol and B < 1 << 16:
        B *= 4
        tail = _tail_bound(r, B, prec)
    return None if tail is None else (tail[0], [tail[1]])


def _branch_and_bound(R: _Ratio, a: Fraction, b: Fraction, lo_k: Fraction, at: Fraction | None,
                      side: list, tol: Fraction, against: Fraction | None = None) -> SupRatio | None:
    """Best first on [a, b]: the box with the largest upper bound is split, its midpoint
    raising the lower bound, until every box is within the tolerance of it (or the box
    budget runs out: then the remaining boxes keep their finite bounds, not converged)."""
    heap: list = []

    def push(x: Fraction, y: Fraction) -> None:
        u = R.box_upper(x, y)
        heapq.heappush(heap, (_priority(u), x, y, u))

    n = 64
    for k in range(n):
        push(a + (b - a) * Fraction(k, n), a + (b - a) * Fraction(k + 1, n))
    settled = list(side)
    count = 0
    min_width = tol / (1 << 14)
    while heap:
        _, x, y, u = heap[0]
        if u is not UNBOUNDED and (u <= lo_k + tol or (against is not None and u <= against)):
            break                       # every remaining box is within tolerance (or at most `against`)
        if against is not None and lo_k > against:
            return _closing(heap, settled, lo_k, at)     # above `against`: decided
        heapq.heappop(heap)
        count += 1
        mid = (x + y) / 2
        g = R.g_lower(mid)
        if g is not None and g > lo_k:
            lo_k, at = g, mid
        if count > MAX_BOXES or (u is not UNBOUNDED and y - x < min_width):
            if u is UNBOUNDED:
                return None
            settled.append(u)
            if count > MAX_BOXES:
                return _closing(heap, settled, lo_k, at)
            continue
        push(x, mid)
        push(mid, y)
    return _closing(heap, settled, lo_k, at, tol)


def _closing(heap: list, settled: list, lo_k: Fraction, at: Fraction | None,
             tol: Fraction | None = None) -> SupRatio | None:
    """The enclosure once the search stops: the boxes left on the heap keep their bounds, beside
    the `settled` ones (None when a box has none); converged only when given a tolerance it meets."""
    rest = [v for _, _, _, v in heap]
    if any(v is UNBOUNDED for v in rest):
        return None
    hi = max([lo_k, *settled, *rest])
    return SupRatio(lo=lo_k, hi=hi, at_eps=at, converged=tol is not None and hi - lo_k <= tol)


def _zero_side_delta(R: _Ratio, lo_k: Fraction) -> Fraction | None:
    """A delta > 0 with g <= lo_k on (0, delta] when r(0) < 1, or None: where 0 < r < 1, g < 0, which
    is at most lo_k only when lo_k >= 0."""
    if lo_k < 0:
        return None
    delta = Fraction(1, 16)
    while delta > Fraction(1, 1 << 30):
        with working_precision(R.prec):
            v = R.r.arb_value(hull(Fraction(0), delta), R.prec)
        if v.is_finite() and v > 0 and v < 1:
            return delta
        delta /= 4
    return None


def _lower_bound(R: _Ratio, I: Interval) -> tuple[Fraction | None, Fraction | None]:
    """A rational k <= g(x) at some rational x of I (certified), found by a scan."""
    best_k, best_x = None, None
    xs = sample_points(I, 64)
    # refine around the best sample (floats only choose where to look; the bound is certified)
    for step_no in range(12):
        for x in xs:
            k = R.g_lower(x)
            if k is not None and (best_k is None or k > best_k):
                best_k, best_x = k, x
        if best_x is None:
            return None, None
        step = (best_x / 4 if best_x else Fraction(1, 8)) / 2 ** step_no
        xs = [Fraction(x).limit_denominator(1 << 20) for x in (best_x - step, best_x - step / 2,
                                                                best_x + step / 2, best_x + step)]
        xs = [x for x in xs if x > 0 and I.contains(x)]
    return best_k, best_x

"""How much better than claimed: the largest kappa with (alpha, beta/kappa, gamma) and the exact best constant.

The paper's Table 4 searches for the largest integer kappa such that the claim
with beta/kappa still holds, and shows a counterexample for kappa + 1.  Here the
search is replaced by the exact quantity behind it,

    kappa* = inf over applicable (u, gamma) and eps in I of  beta(eps) / P_err(u, eps),

because (alpha, beta/kappa, gamma) holds exactly when kappa <= kappa*.  For one
obligation r(eps) = beta/P_err = A/B is a quotient of exponential polynomials,
so its infimum over I is the least of

* its limits at the ends of I: exact rationals, from the first nonzero Taylor
  coefficients at eps -> 0 and the dominant terms at eps -> inf (or the
  certified value at a finite end);
* its values at the interior critical points, the zeros of A'B - AB', isolated
  by `decide.roots` (the same certified root machinery as the decision
  procedure) and evaluated in mean-value form on the zero's enclosure.

The enclosures are refined until kappa* is known to `digits` significant digits
(truncated, so the printed number is a certified lower bound) and its integer
part is certain.  best_kappa = floor(kappa*) is then confirmed by the decision
procedure itself: every obligation holds at best_kappa, and the obligation
attaining kappa* fails at best_kappa + 1 with a re-checked counterexample.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.report import REFUTED, VERIFIED, InputReport, env_json, fmt_q, json_value
from dipc_plus.accuracy.result import AccuracyResult
from dipc_plus.accuracy.sweep_result import SweepResult
from dipc_plus.decision.certified import hull
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.decision.decide import CertificationError, Interval, RealRoot, analyse
from dipc_plus.decision.roots import dominant_term, taylor_order_at_zero
from dipc_plus.claims.distances import INF
from dipc_plus.exact.expoly import ExpFrac, ExpPoly, working_precision
from dipc_plus.exact.decimals import arb_bounds, decimal_down, decimal_up, exponent10

DEFAULT_DIGITS = 6
DEFAULT_KAPPA_MAX = 1000
MAX_REFINEMENTS = 400


def truncated_decimal(lo: Fraction, hi: Fraction, digits: int) -> str | None:
    """The decimal with `digits` significant digits, truncated toward zero, shared by
    every number of [lo, hi] (0 < lo <= hi); None when [lo, hi] straddles two of them."""
    if lo <= 0:
        return "0" if hi == 0 else None

    def trunc(x: Fraction) -> tuple[int, int]:
        places = digits - 1 - exponent10(x)
        return math.floor(x * Fraction(10) ** places), places

    a, b = trunc(lo), trunc(hi)
    if a != b:
        return None
    t, places = a
    if places <= 0:
        return str(t * 10 ** (-places))
    text = str(t).rjust(places + 1, "0")
    return text[:-places] + "." + text[-places:]


def outward(lo: Fraction, hi: Fraction, digits: int = 12) -> tuple[str, str]:
    """[lo, hi] widened to decimals of `digits` significant digits (lo rounded down, hi up),
    exactly (`exact.decimals`, the one printer of certified intervals)."""
    return decimal_down(lo, digits), decimal_up(hi, digits)


# --------------------------------------------------------------------------- candidates for the infimum


@dataclass
class Candidate:
    """A place where one obligation's ratio beta/P_err may take its infimum, with a
    certified enclosure [lo, hi] of the value there (lo == hi when it is exact)."""
    report: InputReport
    kind: str                    # "eps->0", "eps->inf", "end", "critical", "constant"
    lo: Fraction = Fraction(0)
    hi: Fraction = Fraction(0)
    exact: bool = False
    infinite: bool = False
    eps: Fraction | None = None  # a finite end
    root: RealRoot | None = None
    closed: bool = True          # whether a finite end belongs to I (attained) or is only approached
    num: ExpPoly | None = None
    den: ExpPoly | None = None
    deriv: ExpPoly | None = None
    prec: int = 64

    def __post_init__(self) -> None:
        """A place whose value is not known exactly (nor infinite) is enclosed at once."""
        if not (self.exact or self.infinite):
            self._evaluate()

    def refine(self) -> None:
        if self.exact or self.infinite:
            return
        self.prec = min(self.prec + 32, 2048)
        if self.kind == "critical":
            for _ in range(4):
                self.root.refine()
        self._evaluate()

    def _evaluate(self) -> None:
        prec = self.prec
        with working_precision(prec):
            if self.kind in ("end", "constant"):
                x = arb(to_fmpq(self.eps))
                value = self.num.arb_value(x, prec) / self.den.arb_value(x, prec)
            else:  # mean-value form around the midpoint of the zero's enclosure
                lo, hi = self.root.lo, self.root.hi
                mid = (lo + hi) / 2
                xm = arb(to_fmpq(mid))
                box = hull(lo, hi)
                at_mid = self.num.arb_value(xm, prec) / self.den.arb_value(xm, prec)
                den_box = self.den.arb_value(box, prec)
                slope = self.deriv.arb_value(box, prec) / (den_box * den_box)
                value = at_mid + slope * hull(-(hi - lo) / 2, (hi - lo) / 2)
        if not value.is_finite():
            self.lo, self.hi = Fraction(-10 ** 30), Fraction(10 ** 30)
            return
        self.lo, self.hi = arb_bounds(value)

    def where(self) -> str:
        if self.kind == "end":
            return f"{'attained' if self.closed else 'approached'} at the end eps = {fmt_q(self.eps)}"
        if self.kind == "critical":
            lo, hi = outward(self.root.lo, self.root.hi, 12)
            return f"attained at the critical point eps ~ {self.root.approx(10)} (a zero of the derivative's " \
                   f"numerator, isolated in [{lo}, {hi}])"
        return _FIXED_PLACES[self.kind][0]

    def to_json(self) -> dict:
        r = self.report
        out = {"input": env_json(r.program, r.input), "alpha": json_value(r.alpha), "gamma": json_value(r.gamma)}
        if self.kind == "critical":
            out.update({"where": "interior", "eps": self.root.approx(15),
                        "eps_enclosure": list(outward(self.root.lo, self.root.hi, 15)), "attained": True})
        elif self.kind == "end":
            out.update({"where": "end", "eps": fmt_q(self.eps), "attained": self.closed})
        else:
            _, eps, attained = _FIXED_PLACES[self.kind]
            out.update({"where": self.kind, "eps": eps, "attained": attained})
        return out


# the places whose text does not depend on the candidate: kind -> (where, JSON "eps", attained)
_FIXED_PLACES = {"eps->0": ("approached as eps -> 0", "0", False),
                 "eps->inf": ("approached as eps -> inf", "inf", False),
                 "constant": ("attained everywhere (the ratio is constant)", None, True)}


def candidates(report: InputReport, interval: Interval) -> list[Candidate]:
    """Every place where beta/P_err of one obligation may take its infimum over the interval."""
    r = ExpFrac.of(report.beta) / report.p_error
    num, den = r.num, r.den
    deriv = num.derivative() * den - num * den.derivative()

    def make(kind, **kw) -> Candidate:
        return Candidate(report, kind, num=num, den=den, deriv=deriv, **kw)

    def limit(kind, order_num, order_den, lead_num, lead_den) -> Candidate:
        """The ratio's limit at an open end, from the orders of num and den there (larger: smaller there)."""
        if order_num > order_den:
            return make(kind, exact=True)
        if order_num == order_den:
            v = Fraction(lead_num) / Fraction(lead_den)
            return make(kind, lo=v, hi=v, exact=True)
        return make(kind, infinite=True)

    if deriv.is_zero():  # constant ratio
        return [make("constant", eps=_inside(interval))]
    if interval.lo == 0:   # left end
        kn, vn, _ = taylor_order_at_zero(num)
        kd, vd, _ = taylor_order_at_zero(den)
        out = [limit("eps->0", kn, kd, vn, vd)]
    else:
        out = [make("end", eps=interval.lo, closed=interval.lo_closed)]
    if interval.hi is None:   # right end: the dominant term decays faster where (rate, degree) is smaller
        cn, dn, qn = dominant_term(num)
        cd, dd, qd = dominant_term(den)
        out.append(limit("eps->inf", (-qn, -dn), (-qd, -dd), cn, cd))
    else:
        out.append(make("end", eps=interval.hi, closed=interval.hi_closed))
    if not interval.is_point():   # interior critical points
        inner = Interval(interval.lo, interval.hi, False, False)
        out += [make("critical", root=root) for root in analyse(deriv, inner).roots]
    for c in out:
        if c.exact and c.lo < 0:
            raise CertificationError(f"negative limit {c.lo} of beta/P[error] at {report.input}")
    return out


def _inside(interval: Interval) -> Fraction:
    if interval.is_point():
        return interval.lo
    hi = interval.hi if interval.hi is not None else interval.lo + 2
    return (interval.lo + hi) / 2


# --------------------------------------------------------------------------- kappa*


@dataclass
class KappaStar:
    """kappa* = inf beta/P_err with a certified enclosure and where it is reached."""
    lo: Fraction | float
    hi: Fraction | float
    text: str                # truncated to `digits` significant digits ("inf" when infinite)
    digits: int
    at: Candidate | None     # an obligation and place reaching it
    ties: int = 0            # other candidates not separated from it
    exact: bool = False

    @property
    def infinite(self) -> bool:
        return self.lo == INF

    @property
    def floor(self):
        if self.infinite:
            return INF
        a, b = math.floor(self.lo), math.floor(self.hi)
        return a if a == b else None  # None: not determined by the enclosure

    def value_text(self) -> str:
        """The finite value as the sweep reports write it: exact, or truncated with its certified enclosure."""
        if self.exact:
            return f"{fmt_q(self.lo)} exactly"
        return f"{self.text}... (certified enclosure [%s, %s])" % outward(self.lo, self.hi, self.digits + 4)

    def value_json(self) -> dict:
        """The certified enclosure and the exact value (None unless exact); nothing when infinite."""
        if self.infinite:
            return {}
        return {"enclosure": list(outward(self.lo, self.hi, self.digits + 6)),
                "exact": fmt_q(self.lo) if self.exact else None}

    def to_json(self) -> dict:
        out = {"value": self.text, "digits": self.digits, **self.value_json()}
        if self.at is not None:
            out["at"] = self.at.to_json()
            out["ties"] = self.ties
        return out


def input_candidates(reports: list[InputReport], interval: Interval) -> list[Candidate]:
    """The finite candidates of one input's applicable obligations.

    The expensive step of kappa*: the zeros of each ratio's derivative are isolated here, so in a
    sweep it runs where the input is checked (a run's `collect`) and the distribution can go."""
    return [c for rep in reports if rep.applies and not rep.p_error.is_zero()
            for c in candidates(rep, interval) if not c.infinite]


class CandidatePool:
    """The candidates that can still reach kappa*, fed in input order.

    A candidate whose enclosure lies above another's (c.lo > min hi) cannot be the infimum and
    is dropped as it arrives, so a sweep holds a handful of candidates, not one per input.  The
    inputs arrive in input order whatever the executor, so what is kept does not depend on it."""

    def __init__(self):
        self.kept: list[Candidate] = []
        self.best_hi = None

    def add(self, found: list[Candidate]) -> None:
        if not found:
            return
        hi = min(c.hi for c in found)
        if self.best_hi is None or hi < self.best_hi:
            self.best_hi = hi
            self.kept = [c for c in self.kept if c.lo <= hi]
        self.kept += [c for c in found if c.lo <= self.best_hi]


def kappa_star(reports: list[InputReport], interval: Interval, digits: int = DEFAULT_DIGITS) -> KappaStar:
    """The exact infimum of beta/P_err over the applicable obligations and eps in I."""
    pool = CandidatePool()   # every candidate at once keeps what one report at a time keeps
    pool.add(input_candidates(reports, interval))
    return kappa_star_of(pool, digits)


def kappa_star_of(candidate_pool: CandidatePool, digits: int = DEFAULT_DIGITS) -> KappaStar:
    """kappa* from the candidates that can reach it, refined until it is known to `digits` digits."""
    pool = candidate_pool.kept
    if not pool:
        return KappaStar(INF, INF, "inf", digits, None)
    for _ in range(MAX_REFINEMENTS):
        best_hi, near, lo, at = _nearest(pool)
        exact = at.exact and all(c is at or c.exact for c in near)
        # the ratio is >= 0, so an enclosure with hi <= 0 is exactly 0
        text = "0" if best_hi <= 0 else truncated_decimal(lo, best_hi, digits)
        if text is not None and math.floor(lo) == math.floor(best_hi):
            return KappaStar(lo, best_hi, text, digits, at, len(near) - 1, exact and lo == best_hi)
        for c in near:
            c.refine()
    # Cannot happen for distinct transcendental values; an exact tie with a decimal boundary ends here.
    best_hi, near, lo, at = _nearest(pool)
    text = truncated_decimal(lo, lo, digits) or decimal_down(lo, digits)
    return KappaStar(lo, best_hi, text, digits, at, len(near) - 1)


def _nearest(pool: list) -> tuple:
    """(the least upper end, the candidates not above it, their least lower end, the one reaching kappa*)."""
    best_hi = min(c.hi for c in pool)
    near = [c for c in pool if c.lo <= best_hi]
    return best_hi, near, min(c.lo for c in near), min(near, key=lambda c: (c.hi, c.lo))


# --------------------------------------------------------------------------- the sweep


def sweep(checker: AccuracyChecker, *, kappa_max: int = DEFAULT_KAPPA_MAX, digits: int = DEFAULT_DIGITS,
          points=None, progress: bool = False, base: AccuracyResult | None = None, executor=None,
          summarize: str = "json") -> SweepResult:
    """best_kappa, kappa* and the counterexample for best_kappa + 1 (see the module doc); every
    run over the inputs goes to `executor` (`AccuracyChecker.run`'s default: this process) and
    streams: each input is reduced to its `summarize` form and its kappa* candidates."""
    start = time.perf_counter()
    interval = checker.claim.eps
    pool = CandidatePool()
    if base is not None:          # a run kept every report: its candidates are made here
        result = base
        pool.add(input_candidates(result.reports, interval))
    else:   # each input's candidates are made where it is checked; its closed forms come home (absorb)
        result = checker.run(points, 1, progress=progress, description="sweep", executor=executor,
                             summarize=summarize, collect=functools.partial(input_candidates, interval=interval),
                             gather=pool.add, absorb=True)
    star = kappa_star_of(pool, digits)
    floor = star.floor
    if floor is None:  # kappa* sits on an integer to the enclosure's precision: let decide say
        k = math.ceil(star.lo)
        floor = k if checker.run(points, k, executor=executor, summarize="nothing").verdict == VERIFIED else k - 1
    capped = floor == INF or floor > kappa_max
    best = kappa_max if capped else int(floor)
    confirmed = None
    if best >= 1:
        confirmed = result if best == 1 else checker.run(points, best, progress=progress,
                                                         description=f"kappa={best}", executor=executor,
                                                         summarize="nothing")
        if confirmed.verdict != VERIFIED:
            raise CertificationError(f"kappa* = {star.text} but the claim with beta/{best} fails at "
                                     f"{confirmed.counterexample.describe() if confirmed.counterexample else '?'}")
    cex = None
    if not capped:
        rep = star.at.report
        failed = checker.check(rep.input, rep.alpha, rep.gamma, True, best + 1)
        if failed.verdict != REFUTED:
            raise CertificationError(f"kappa* = {star.text} is reached at {rep.input}, yet beta/{best + 1} "
                                     f"holds there")
        cex = failed.counterexample
    return SweepResult(result, kappa_max, best, capped, cex, star, confirmed, seconds=time.perf_counter() - start)


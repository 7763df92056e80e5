"""What the two box reductions (`accuracy.box`, the corner of a box region; `accuracy.argmax_box`,
the argmax worst point) share: the per-point re-check and search of a counterexample, the gammas,
beta/kappa, the preconditions they both prove.  Their answer is an `accuracy.result.AccuracyResult`
on the box scope, with one `RegionResult` per det region.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.accuracy.report import (NOT_APPLICABLE, REFUTED, UNDECIDED, VERIFIED,  # noqa: F401 (the verdict words the reductions use)
                                       Counterexample)
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.distances import ZeroOneOutput
from dipc_plus.decision.certified import CertificationError, Interval
from dipc_plus.decision.decide import decide
from dipc_plus.exact.expoly import ExpFrac

# where a reduction that proves nothing on a piece looks for a counterexample: these fractions of
# the way from its smallest to its largest d (each point re-checked by the per-point path)
SEARCH = (Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 8), Fraction(1, 16))


def recheck(checker, u: dict, kappa: int) -> Counterexample | None:
    """The per-point path at u (exactly as a grid or --input check): its counterexample, if refuted."""
    for report in checker.check_input(u, kappa):
        if report.verdict == REFUTED:
            return report.counterexample
    return None


def first_refuted(points, checker, kappa: int) -> Counterexample | None:
    """The counterexample at the first of `points` (made lazily, in order) that `recheck` refutes."""
    for u in points:
        cex = recheck(checker, u, kappa)
        if cex is not None:
            return cex
    return None


def search(point_at, d0, d1, checker, kappa: int) -> Counterexample | None:
    """The first counterexample at the points point_at(d) for d at the SEARCH fractions of (d0, d1]."""
    return first_refuted((point_at(d) for d in (d0 + (d1 - d0) * t for t in SEARCH) if d > d0), checker, kappa)


def gammas_of(claim: AccuracyClaim) -> list:
    """The gammas a box claim is decided at (those of its numeric alpha, or all with alpha = dd)."""
    return claim.gammas if claim.alpha == "dd" else claim.gamma_values(claim.alpha)


def within_one(claim: AccuracyClaim, gamma) -> tuple | None:
    """The verdict of every region when gamma >= 1 under the zero-one distance (no output errs), else None."""
    if gamma >= 1 and isinstance(claim.output_distance, ZeroOneOutput):
        return VERIFIED, "gamma >= 1", "every output is within zero-one distance 1", None
    return None


def beta_bound(claim: AccuracyClaim, alpha, gamma, kappa: int) -> ExpFrac:
    """beta(alpha, gamma)/kappa, the right side of every box sentence."""
    return ExpFrac.of(claim.beta_at(alpha, gamma)) * Fraction(1, kappa)


def x_interval(eps: Interval, d0, d1) -> Interval:
    """The range of x = eps*d for eps in the claim's interval and d in (d0, d1] (a homogeneous piece)."""
    return Interval(d0 * eps.lo, None if eps.hi is None else d1 * eps.hi, False,
                    eps.hi is not None and eps.hi_closed)


def from_witness(x, d0, d1, eps: Interval, point_at, checker, kappa: int) -> Counterexample | None:
    """A counterexample at point_at(d) for a d in (d0, d1] with x/d in the eps interval (x a failing
    x = eps*d of a homogeneous sentence), else by `search` over (d0, d1]."""
    if x is not None:
        low = max(d0, Fraction(0) if eps.hi is None else x / eps.hi)     # d with x/d inside the interval
        high = min(d1, d1 if eps.lo == 0 else x / eps.lo)
        near = [(low + high) / 2, high] + [d0 + (d1 - d0) * t for t in SEARCH]
        cex = first_refuted((point_at(d) for d in near if d0 < d <= d1 and eps.contains(x / d)), checker, kappa)
        if cex is not None:
            return cex
    return search(point_at, d0, d1, checker, kappa)


def homogeneous_sentence(claim: AccuracyClaim, p_err: ExpFrac, gamma, kappa: int, d0, d1, point_at, checker,
                         unchecked: str) -> Counterexample | None:
    """"for every x = eps*d, d in (d0, d1]: P_err(x) <= beta(1, x)/kappa" (p_err at the worst point v(1)):
    None when it holds, else its counterexample re-checked at a point v(d) = point_at(d)
    (CertificationError(unchecked) when none re-checks)."""
    decision = decide(beta_bound(claim, Fraction(1), gamma, kappa) - p_err, ">=", x_interval(claim.eps, d0, d1))
    if decision.holds:
        return None
    cex = from_witness(decision.witness, d0, d1, claim.eps, point_at, checker, kappa)
    if cex is None:
        raise CertificationError(unchecked)
    return cex


def closure_verdict(holds: bool, search, method: str, refuted_method: str, point: str) -> tuple:
    """A numeric alpha's verdict from the sentence at the closure point `point`(alpha) (`holds`), else
    from `search()` for a counterexample with dd > alpha."""
    if holds:
        return VERIFIED, method, "", None
    cex = search()
    if cex is not None:
        return REFUTED, refuted_method, "", cex
    return UNDECIDED, method, (f"fails at the closure point {point}(alpha), where dd = alpha; no counterexample "
                               "found with dd > alpha"), None


def refuse_paper(boundary: bool, refusal: type) -> None:
    """Every box reduction decides Definition 2 (dd(u) > alpha); `refusal` is the reduction's NotReducible."""
    if boundary:
        raise refusal("convention", "a box claim is decided under Definition 2 (dd(u) > alpha)",
                      hint="leave out --paper")


def beta_alpha_check(claim: AccuracyClaim, refusal: type) -> tuple[str, str]:
    """The `beta-alpha` precondition both box reductions share (alpha = "dd"): beta does not
    increase with alpha, proved term by term for every gamma; else `refusal` (the reduction's
    own NotReducible) naming the slope."""
    for g in claim.gammas:
        sign, slope = claim.beta.slope("alpha", {**claim.program.params, "gamma": g})
        if sign != "nonpositive":
            raise refusal("beta-alpha", f"d beta/d alpha = {slope} is not proved <= 0", file=claim.file,
                          hint="give a beta that does not increase with alpha")
    return ("beta-alpha", "d beta / d alpha <= 0 for alpha >= 0, eps > 0 (term by term)")

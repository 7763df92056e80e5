"""What a box accuracy claim's decision says: a verdict per det region and the whole result.

Why a module of its own: the box claim has two reductions (`accuracy.box`, the corner of a box
region; `accuracy.argmax_box`, the argmax worst point), and both answer in the same terms - the
regions with their method and share, the proved preconditions, one re-checked counterexample
or the undecided share - so `dipc accuracy`, `dipc sweep` and the API print one shape.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.accuracy.report import (REFUTED, Counterexample, beta_over, claim_json, env_json, env_text, fmt_q,
                                       kappa_clause)
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.distances import ZeroOneOutput
from dipc_plus.claims.scope import box_scope
from dipc_plus.decision.certified import Interval
from dipc_plus.exact.expoly import ExpFrac

VERIFIED, UNDECIDED, NOT_APPLICABLE = "verified", "undecided", "not applicable"
# where a reduction that proves nothing on a piece looks for a counterexample: these fractions of
# the way from its smallest to its largest d (each point re-checked by the per-point path)
SEARCH = (Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 8), Fraction(1, 16))


def recheck(checker, u: dict, kappa: int) -> Counterexample | None:
    """The per-point path at u (exactly as a grid or --input check): its counterexample, if refuted."""
    for report in checker.check_input(u, kappa):
        if report.verdict == REFUTED:
            return report.counterexample
    return None


def search(point_at, d0, d1, checker, kappa: int) -> Counterexample | None:
    """The first counterexample at the points point_at(d) for d at the SEARCH fractions of (d0, d1]."""
    for t in SEARCH:
        d = d0 + (d1 - d0) * t
        if d > d0:
            cex = recheck(checker, point_at(d), kappa)
            if cex is not None:
                return cex
    return None


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
        for d in [(low + high) / 2, high] + [d0 + (d1 - d0) * t for t in SEARCH]:
            if d0 < d <= d1 and eps.contains(x / d):
                cex = recheck(checker, point_at(d), kappa)
                if cex is not None:
                    return cex
    return search(point_at, d0, d1, checker, kappa)


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

@dataclass
class RegionResult:
    """The verdict on one det region of the box (and one gamma)."""
    det: dict
    condition: str            # the region as inequalities
    share: Fraction | None    # its share of the box's volume (None: not a box, not computed)
    gamma: Fraction
    verdict: str
    method: str
    reason: str = ""
    seconds: float = 0.0

    def to_json(self, program) -> dict:
        out = {"det": env_json(program, self.det), "region": self.condition, "share": "unknown" if self.share is None else fmt_q(self.share),
               "gamma": fmt_q(self.gamma), "verdict": self.verdict, "method": self.method,
               "seconds": round(self.seconds, 4)}
        if self.reason:
            out["reason"] = self.reason
        return out

    def line(self, program) -> str:
        text = (f"{self.condition:<44} det = {env_text(program, self.det):<24} share {'?' if self.share is None else fmt_q(self.share):<6} "
                f"{self.verdict} ({self.method})")
        return text + (f": {self.reason}" if self.reason else "")


@dataclass
class BoxResult:
    """A box claim's decision: `method` names the reduction (JSON), `method_note` where it is
    written (text), `sentence` the one sentence every region reduces to, when there is one."""
    claim: AccuracyClaim
    kappa: int
    checks: list                       # (name, what was proved)
    regions: list = field(default_factory=list)
    counterexample: Counterexample | None = None
    seconds: float = 0.0
    method: str = "corner reduction"
    method_note: str = ""
    sentence: str | None = None

    @property
    def verdict(self) -> str:
        if self.counterexample is not None:
            return REFUTED
        return UNDECIDED if any(r.verdict == UNDECIDED for r in self.regions) else VERIFIED

    @property
    def vacuous(self) -> bool:
        """Verified with nothing to check: the claim applies nowhere in the box (dd <= alpha)."""
        return self.verdict == VERIFIED and all(r.verdict == NOT_APPLICABLE for r in self.regions)

    @property
    def scope(self):
        return box_scope(self.claim.program, self.claim.points.bounds, str(self.claim.eps))

    def undecided_share(self):
        """The undecided regions' share of the box, or None when one of them is not a box."""
        seen = {}
        for r in self.regions:
            if r.verdict == UNDECIDED:
                seen[r.condition] = r.share
        if any(v is None for v in seen.values()):
            return None
        return sum(seen.values(), Fraction(0))

    def others_text(self) -> str:
        """What the regions that are not undecided are, counted by verdict (true for any mix)."""
        counts: dict = {}
        for r in self.regions:
            if r.verdict != UNDECIDED:
                counts[r.verdict] = counts.get(r.verdict, 0) + 1
        if not counts:
            return "no other region"
        if len(counts) == 1:
            (verdict, n), = counts.items()
            return f"every other region is {verdict}"
        return "of the others, " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())

    def to_json(self) -> dict:
        program = self.claim.program
        out = {"verdict": self.verdict, "vacuous": self.vacuous, "scope": self.scope.to_json(),
               **claim_json(self.claim), "kappa": self.kappa,
               "method": self.method, "checks": [{"name": n, "proved": t} for n, t in self.checks],
               **({} if self.sentence is None else {"sentence": self.sentence}),
               "regions": [r.to_json(program) for r in self.regions],
               "undecided_share": share_text(self.undecided_share()), "seconds": round(self.seconds, 3)}
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out

    def report(self, verbose: bool = False) -> str:
        """The command's text report (every region is listed: `verbose` changes nothing)."""
        program = self.claim.program
        lines = [f"claim:  {self.claim.describe()}",
                 f"        inputs with dd(u) > alpha (Definition 2){kappa_clause(self.kappa)}",
                 f"{self.method}{self.method_note}; proved preconditions:"]
        lines += [f"  {n}: {t}" for n, t in self.checks]
        if self.sentence:
            lines.append(f"every region reduces to: {self.sentence}")
        lines.append("")
        lines += [r.line(program) for r in self.regions]
        lines.append("")
        scope = self.scope
        if self.verdict == REFUTED:
            cex = self.counterexample
            lines.append(f"REFUTED at {env_text(program, cex.input)}, eps = {fmt_q(cex.eps)} (a point of the box, "
                         "re-checked by the per-point path and an independent certified evaluation)")
            lines.append(cex.describe())
        elif self.verdict == UNDECIDED:
            lines.append(f"UNDECIDED {scope.summary()}: the regions marked undecided (share "
                         f"{share_text(self.undecided_share())} of the box) are neither proved nor refuted; "
                         f"{self.others_text()}")
        elif self.vacuous:
            lines.append(scope.vacuously("the claim applies to no input of the box, dd <= alpha there"))
        else:
            lines.append(scope.verified(f"P[error] <= {beta_over(self.kappa)} for every eps in {self.claim.eps} at "
                                        "every real input of the box where the claim applies"))
        lines.append(f"{len(self.regions)} region verdict(s); {self.seconds:.2f} s")
        lines.append(scope.coverage())
        return "\n".join(lines)


    text = report   # the name callers of the box route knew


def share_text(share) -> str:
    """A share of the box as text; None means a region that is not a box (its volume is not computed)."""
    return "unknown (a region that is not a box)" if share is None else fmt_q(share)

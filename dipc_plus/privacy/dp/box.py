"""Box privacy claims: eps-DP for every pair of real inputs of a box (`[privacy.inputs] box`).

Why: a grid verdict says nothing between its points (issue 28).  A box claim states
P[P(u) in S] <= e^(k*eps) P[P(u') in S] for every pair u, u' of real inputs of the box under
the claim's adjacency, every set S of outputs (or named event) and every eps.  Three answers:

* verified by the **coupling bound** of the online class (docs/design/every_length.md,
  section 2): when the recogniser (`privacy.online`) accepts the program, the bound of the
  game played for the claim's m iterations, d, holds for every pair of real inputs with
  |q - q'| <= B, so d*B <= k proves the claim on every pair of the box.  Before it is
  printed the exact tight loss at the box's integer points must be at most d*B
  (`BoundContradiction`, exit 3, otherwise);
* refuted by the **exact per-point check** (`check_dp`) at rational points of the box - its
  integer points, then steps 1/2 and 1/4 while a lattice has at most `SEARCH_POINTS` points -
  whose counterexample is re-checked exactly as a grid claim's;
* undecided (exit 6) otherwise, naming what is missing; never a guess.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.claims.privacy_types import DPClaim, EpsRange
from dipc_plus.claims.scope import box_scope
from dipc_plus.decision.decide import Interval
from dipc_plus.exact.convert import fmt_q
from dipc_plus.privacy.display import counterexample_lines, user_value
from dipc_plus.privacy.dp.check import DEFAULT_MAX_STATES, PrivacyResult, check_dp
from dipc_plus.privacy.dp.coupling import Coupling, coupling_for
from dipc_plus.privacy.online.every_length import BoundContradiction

VERIFIED, REFUTED, UNDECIDED = "verified", "refuted", "undecided"
METHOD_BOUND = "coupling bound (every real input)"
METHOD_SEARCH = "exact check at rational points of the box"
SEARCH_STEPS = (Fraction(1), Fraction(1, 2), Fraction(1, 4))
SEARCH_POINTS = 125      # the largest lattice searched (its pairs grow as its square)
CHECK_POINTS = 729       # above, the bound is checked on fewer integer points of the box (`check_bound`)
CHECK_VALUES = 3         # ... each input at its smallest integer values, then only the two-block ones


@dataclass
class Searched:
    """One lattice of the box checked exactly (or skipped as too large)."""
    step: Fraction
    points: int
    pairs: int = 0
    verdict: str = ""              # 'verified' | 'refuted' | 'skipped'
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"step": fmt_q(self.step), "points": self.points, "pairs": self.pairs, "verdict": self.verdict,
                "seconds": round(self.seconds, 3)}


@dataclass
class BoxPrivacyResult:
    claim: DPClaim
    coupling: Coupling
    verdict: str = UNDECIDED
    method: str = ""
    losses: list = field(default_factory=list)      # (inputs checked, text of sup L/eps, pairs) against d*B
    searched: list = field(default_factory=list)    # Searched
    refutation: PrivacyResult | None = None         # the lattice check that failed (its counterexample)
    seconds: float = 0.0

    @property
    def counterexample(self):
        return None if self.refutation is None else self.refutation.counterexample

    @property
    def scope(self):
        sc = box_scope(self.claim.program, self.claim.box_bounds, str(self.claim.eps))
        sc.pairs = self.claim.adjacency.describe()
        return sc

    def undecided_reasons(self) -> list[str]:
        """What is missing for a verdict: the bound's reason and the search's extent."""
        out = [f"the coupling bound does not prove it: {self.coupling.reason}"]
        done = [s for s in self.searched if s.verdict != "skipped"]
        skipped = [s for s in self.searched if s.verdict == "skipped"]
        searched = ("no counterexample at the rational points searched (" +
                    "; ".join(f"step {fmt_q(s.step)}: {s.points} points, {s.pairs} pairs" for s in done) + ")"
                    if done else "no rational point of the box searched")
        out.append(searched + (f"; step {fmt_q(skipped[0].step)} not searched ({skipped[0].points} points > "
                               f"{SEARCH_POINTS})" if skipped else ""))
        return out

    def to_json(self) -> dict:
        c, cp = self.claim, self.coupling
        out = {"verdict": self.verdict, "kind": "dp", "scope": self.scope.to_json(), "claim": c.file,
               "program": c.program.name, "program_path": c.program.source,
               "params": {k: user_value(v) for k, v in c.program.params.items()},
               "statement": c.describe(), "budget": str(c.budget), "eps": str(c.eps),
               "adjacency": c.adjacency.kind, "method": self.method,
               "coupling": {"applies": cp.applies, "reason": cp.reason,
                            "d": None if cp.d is None else fmt_q(cp.d),
                            "bound": None if cp.bound is None else fmt_q(cp.bound),
                            "length": cp.length},
               "losses": [{"inputs": w, "sup_loss_over_eps": t, "pairs": n} for w, t, n in self.losses],
               "searched": [s.to_json() for s in self.searched], "seconds": round(self.seconds, 3)}
        if self.verdict == UNDECIDED:
            out["undecided"] = self.undecided_reasons()
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
        return out

    def report(self) -> str:
        c, cp = self.claim, self.coupling
        lines = [f"claim:  {c.describe()}"]
        if cp.d is not None:
            lines.append(f"coupling bound (docs/design/every_length.md, section 2), the online class at "
                         f"{cp.size_param} = {cp.length}: d = {fmt_q(cp.d)}, so P[P(q) in S] <= "
                         f"e^({eps_multiple(cp.bound)}) P[P(q') in S] for every pair of real inputs at "
                         f"{c.adjacency.describe()}")
        if cp.reason and self.verdict != UNDECIDED:     # an undecided verdict lists it below
            lines.append(f"coupling bound: {cp.reason}")
        for what, text, pairs in self.losses:
            lines.append(f"  exact tight sup L(eps)/eps on {what} ({pairs} pairs): {text} "
                         f"(at most d*B = {fmt_q(cp.bound)})")
        for s in self.searched:
            if s.verdict == "skipped":
                lines.append(f"  search at step {fmt_q(s.step)}: not run ({s.points} points > {SEARCH_POINTS})")
            else:
                lines.append(f"  search at step {fmt_q(s.step)}: {s.points} points, {s.pairs} pairs, {s.verdict} "
                             f"({s.seconds:.2f} s)")
        scope = self.scope
        eps = c.eps if c.eps.is_log_point else "every eps in " + str(c.eps)
        if self.verdict == VERIFIED:
            lines.append(f"VERIFIED {scope.summary()} by the {METHOD_BOUND}: P[P(u) in S] <= e^({c.budget}) "
                         f"P[P(u') in S] for every pair (u, u') of real inputs of the box at "
                         f"{c.adjacency.describe()}, every set S of outputs and {eps}")
        elif self.verdict == REFUTED:
            lines.append(f"REFUTED {scope.summary()} by the {METHOD_SEARCH} (a pair of the box, re-checked by an "
                         "independent evaluation):")
            lines += counterexample_lines(c, self.counterexample)
        else:
            lines.append(f"UNDECIDED {scope.summary()}: neither proved nor refuted; nothing is claimed")
            lines += [f"  {r}" for r in self.undecided_reasons()]
        lines.append(f"{self.seconds:.2f} s")
        lines.append(scope.coverage())
        return "\n".join(lines)


# --------------------------------------------------------------------------- the coupling bound


def eps_multiple(k: Fraction) -> str:
    return "eps" if k == 1 else f"{fmt_q(k)}*eps"


# --------------------------------------------------------------------------- rational points of the box


def lattice(lo: Fraction, hi: Fraction, step: Fraction, most: int | None = None) -> list[Fraction]:
    """The multiples of `step` in [lo, hi], and lo and hi themselves (only the `most` smallest of
    them when `most` is given: never more values are built, whatever the box)."""
    first, last = math.ceil(lo / step), math.floor(hi / step)
    if most is not None:
        last = min(last, first + most)
    values = sorted({lo, hi} | {k * step for k in range(first, last + 1)})
    return values if most is None else values[:most]


def lattice_size(lo: Fraction, hi: Fraction, step: Fraction) -> int:
    """len(lattice(lo, hi, step)), counted without building it."""
    first, last = math.ceil(lo / step), math.floor(hi / step)
    return max(0, last - first + 1) + (lo % step != 0) + (hi != lo and hi % step != 0)


def lattice_points(claim: DPClaim, step: Fraction) -> int:
    return math.prod(lattice_size(lo, hi, step) for lo, hi in claim.box_bounds.values())


def lattice_claim(claim: DPClaim, step: Fraction, most: int | None = None) -> DPClaim:
    """The claim on the lattice of `step` of its box (at most the `most` smallest values of each
    input): a grid claim, decided by the per-point path.  Check `lattice_points` first."""
    grid = {n: lattice(lo, hi, step, most) for n, (lo, hi) in claim.box_bounds.items()}
    return dataclasses.replace(claim, explicit_points=None, grid=grid, inputs_kind="grid", _points=None)


def every_eps(claim: DPClaim) -> DPClaim:
    """The claim for every eps > 0 (the coupling bound holds for every eps, so its check does)."""
    return dataclasses.replace(claim, eps=EpsRange(Interval.parse("(0, inf)")))


def check_bound(claim: DPClaim, cp: Coupling, max_states: int) -> tuple:
    """(what was checked, text, pairs): the exact tight sup L/eps on the box's integer points (every
    eps > 0); when there are more than CHECK_POINTS of them, on those with each input at its
    CHECK_VALUES smallest values, and on their two-block ones if still too many (a check of our
    code, not part of the proof: any points of the box will do).  Raises BoundContradiction when
    it is above d*B (our bound, or our code, is wrong)."""
    from dipc_plus.privacy.loss.tight import privacy_loss
    from dipc_plus.privacy.online.every_length import witness_inputs
    what = "the integer points of the box"
    if lattice_points(claim, Fraction(1)) <= CHECK_POINTS:
        lc = every_eps(lattice_claim(claim, Fraction(1)))
    else:
        lc = every_eps(lattice_claim(claim, Fraction(1), CHECK_VALUES))
        if any(lattice_size(lo, hi, Fraction(1)) > CHECK_VALUES for lo, hi in claim.box_bounds.values()):
            what = f"the integer points of the box with each input at its {CHECK_VALUES} smallest values"
        if lc.npoints > CHECK_POINTS:
            lc = witness_inputs(lc, cp.input_name, cp.length) or lc
            what += " and of the two-block form q = (x, ..., x, y, ..., y)"
    lr = privacy_loss(lc, max_states=max_states)
    above = lr.infinite is not None or (lr.constant is not None and lr.constant > 1)
    text = "inf" if above else (lr.sup.text() if lr.sup is not None else lr.loss_text())
    if lr.sup is not None and not above:
        above = lr.sup.upper() > cp.bound
    if above:
        raise BoundContradiction(f"the coupling bound is wrong: on {what} the exact tight sup L(eps)/eps is "
                                 f"{text}, not certified to be at most d*B = {fmt_q(cp.bound)}; no verdict is given")
    return what, text, lr.pairs


# --------------------------------------------------------------------------- the verdict


def decide_box_privacy(claim: DPClaim, max_states: int = DEFAULT_MAX_STATES) -> BoxPrivacyResult:
    """Verified by the coupling bound, refuted at a rational point of the box, or undecided."""
    if claim.kind != "dp" or claim.inputs_kind != "box":
        raise ValueError("decide_box_privacy takes a differential-privacy claim on a box")
    t0 = time.perf_counter()
    cp = coupling_for(claim)
    res = BoxPrivacyResult(claim, cp)
    if cp.applies:
        res.losses.append(check_bound(claim, cp, max_states))
        res.verdict, res.method = VERIFIED, METHOD_BOUND
        res.seconds = time.perf_counter() - t0
        return res
    for step in SEARCH_STEPS:
        npoints = lattice_points(claim, step)
        if npoints > SEARCH_POINTS:
            res.searched.append(Searched(step, npoints, verdict="skipped"))
            break
        lc = lattice_claim(claim, step)
        r = check_dp(lc, max_states=max_states)
        res.searched.append(Searched(step, lc.npoints, r.pairs, r.verdict, r.seconds))
        if not r.verified:
            res.refutation, res.verdict, res.method = r, REFUTED, METHOD_SEARCH
            break
        if all(lo == hi for lo, hi in claim.box_bounds.values()):
            break   # a box of one point: a finer step adds nothing
    res.seconds = time.perf_counter() - t0
    return res

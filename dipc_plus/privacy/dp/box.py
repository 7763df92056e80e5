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

A claim without events on a program with real outputs (`every_output_value`) is about every
value of those outputs: the coupling bound covers them (each coupled run keeps its outputs), its
cross-check is `check_real_outputs` on the integer points (whose candidates, exact lower bounds
of the loss, must not exceed d*B), and the refutation is `check_real_outputs` on the lattices,
whose counterexample (inputs, outcome, value w, eps) is re-checked on an event around w.
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
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.privacy.display import counterexample_lines, user_value
from dipc_plus.privacy.dp.check import DEFAULT_MAX_STATES, PrivacyResult, check_dp
from dipc_plus.privacy.dp.coupling import Coupling, coupling_for
from dipc_plus.privacy.online.every_length import BoundContradiction

VERIFIED, REFUTED, UNDECIDED = "verified", "refuted", "undecided"
METHOD_BOUND = "coupling bound (every real input)"
METHOD_SEARCH = "exact check at rational points of the box"
METHOD_VALUES_SEARCH = "exact density check on every output value at rational points of the box"
SEARCH_STEPS = (Fraction(1), Fraction(1, 2), Fraction(1, 4))
SEARCH_POINTS = 125      # the largest lattice searched (its pairs grow as its square)
CHECK_POINTS = 729       # above, the bound is checked on fewer integer points of the box (`check_bound`)
CHECK_VALUES = 3         # ... each input at its smallest integer values, then only the two-block ones
VALUE_SEARCH_POINTS = 27  # every output value: a pair costs a density comparison (~0.1 s), not a table look-up
VALUE_CHECK_POINTS = 27   # ... so the bound's cross-check on every output value takes fewer points too


@dataclass
class Searched:
    """One lattice of the box checked exactly (or skipped as too large)."""
    step: Fraction
    points: int
    pairs: int = 0
    verdict: str = ""              # 'verified' | 'refuted' | 'undecided' | 'skipped'
    seconds: float = 0.0
    two_block: bool = False        # only the lattice's two-block points q = (x, ..., x, y, ..., y)
    sup: str = ""                  # every output value: the sup of L/eps found there (a lower bound of the loss)

    def to_json(self) -> dict:
        return {"step": fmt_q(self.step), "points": self.points, "pairs": self.pairs, "verdict": self.verdict,
                "seconds": round(self.seconds, 3), "two_block": self.two_block, "sup_loss_over_eps": self.sup}

    def text(self) -> str:
        return (f"step {fmt_q(self.step)}: {self.points} {'two-block ' if self.two_block else ''}points, "
                f"{self.pairs} pair(s)" + (f", sup L(eps)/eps {self.sup}" if self.sup else ""))


@dataclass
class BoxPrivacyResult:
    claim: DPClaim
    coupling: Coupling
    verdict: str = UNDECIDED
    method: str = ""
    losses: list = field(default_factory=list)      # (inputs checked, text of sup L/eps, pairs) against d*B
    searched: list = field(default_factory=list)    # Searched
    refutation: object = None       # the lattice check that failed (a PrivacyResult or a RealOutputResult)
    seconds: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def every_value(self) -> bool:
        """Real outputs without events: the claim is about every value of them."""
        return bool(getattr(self.claim, "every_output_value", False))

    @property
    def search_method(self) -> str:
        return METHOD_VALUES_SEARCH if self.every_value else METHOD_SEARCH

    @property
    def search_limit(self) -> int:
        return VALUE_SEARCH_POINTS if self.every_value else SEARCH_POINTS

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
                    "; ".join(s.text() + ("" if s.verdict == VERIFIED else f", {s.verdict}") for s in done) + ")"
                    if done else "no rational point of the box searched")
        out.append(searched + (f"; step {fmt_q(skipped[0].step)} not searched ({skipped[0].points} points > "
                               f"{self.search_limit})" if skipped else ""))
        return out

    def scope_json(self) -> dict:
        out = self.scope.to_json()
        if self.every_value:
            out["outputs"] = "every value"
            out["summary"] += "; every value of the real outputs (densities)"
        return out

    def counterexample_json(self) -> dict | None:
        if self.counterexample is None:
            return None
        return self.refutation.counterexample_json() if self.every_value else self.counterexample.to_json()

    def to_json(self) -> dict:
        c, cp = self.claim, self.coupling
        out = {"verdict": self.verdict, "kind": "dp", "scope": self.scope_json(), "claim": c.file,
               "program": c.program.name, "program_path": c.program.source,
               "params": {k: user_value(v) for k, v in c.program.params.items()},
               "statement": c.describe(), "budget": str(c.budget), "eps": str(c.eps),
               "adjacency": c.adjacency.kind, "method": self.method,
               "coupling": {"applies": cp.applies, "reason": cp.reason,
                            "d": None if cp.d is None else fmt_q(cp.d),
                            "bound": None if cp.bound is None else fmt_q(cp.bound),
                            "length": cp.length},
               "losses": [{"inputs": w, "sup_loss_over_eps": t, "pairs": n} for w, t, n in self.losses],
               "searched": [s.to_json() for s in self.searched], "seconds": round(self.seconds, 3),
               "every_output_value": self.every_value, "notes": list(self.notes)}
        if self.verdict == UNDECIDED:
            out["undecided"] = self.undecided_reasons()
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample_json()
        return out

    def report(self) -> str:
        c, cp = self.claim, self.coupling
        lines = [f"claim:  {c.describe()}"]
        if self.every_value:
            lines.append("        real outputs without events: the claim is about every value of them (densities)")
        if cp.d is not None:
            lines.append(f"coupling bound (docs/design/every_length.md, section 2), the online class at "
                         f"{cp.size_param} = {cp.length}: d = {fmt_q(cp.d)}, so P[P(q) in S] <= "
                         f"e^({eps_multiple(cp.bound)}) P[P(q') in S] for every pair of real inputs at "
                         f"{c.adjacency.describe()}")
        if cp.reason and self.verdict != UNDECIDED:     # an undecided verdict lists it below
            lines.append(f"coupling bound: {cp.reason}")
        for what, text, pairs in self.losses:
            if self.every_value:
                lines.append(f"  exact sup over eps and every output value of L(eps)/eps on {what} ({pairs} "
                             f"ordered pairs): {text}, a lower bound of the loss on the box (at most d*B = "
                             f"{fmt_q(cp.bound)})")
            else:
                lines.append(f"  exact tight sup L(eps)/eps on {what} ({pairs} pairs): {text} "
                             f"(at most d*B = {fmt_q(cp.bound)})")
        lines += [f"  note: {n}" for n in self.notes]
        for s in self.searched:
            if s.verdict == "skipped":
                lines.append(f"  search at step {fmt_q(s.step)}: not run ({s.points} points > {self.search_limit})")
            else:
                lines.append(f"  search at {s.text()}, {s.verdict} ({s.seconds:.2f} s)")
        scope = self.scope
        eps = c.eps if c.eps.is_log_point else "every eps in " + str(c.eps)
        where = scope.summary() + ("; every value of the real outputs" if self.every_value else "")
        if self.verdict == VERIFIED:
            sets = ("every set S of outputs (every finite output and every value of the real outputs)"
                    if self.every_value else "every set S of outputs")
            lines.append(f"VERIFIED {where} by the {METHOD_BOUND}: P[P(u) in S] <= e^({c.budget}) "
                         f"P[P(u') in S] for every pair (u, u') of real inputs of the box at "
                         f"{c.adjacency.describe()}, {sets} and {eps}")
        elif self.verdict == REFUTED:
            lines.append(f"REFUTED {where} by the {self.search_method} (a pair of the box, re-checked by an "
                         "independent evaluation):")
            lines += (self.refutation.counterexample_lines() if self.every_value
                      else counterexample_lines(c, self.counterexample))
        else:
            lines.append(f"UNDECIDED {where}: neither proved nor refuted; nothing is claimed")
            lines += [f"  {r}" for r in self.undecided_reasons()]
        lines.append(f"{self.seconds:.2f} s")
        coverage = scope.coverage()
        if self.every_value:
            coverage = coverage.replace("scope: box; covered: ", "scope: box, every output value; covered: ", 1)
            coverage = coverage.replace("; not covered:", ", every value of the real outputs; not covered:", 1)
        lines.append(coverage)
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


def bound_check_claim(claim: DPClaim, cp: Coupling, most: int) -> tuple[DPClaim, str]:
    """(the claim on the points the bound is checked at, for every eps; those points in words): the
    box's integer points, or when there are more than `most` of them those with each input at its
    CHECK_VALUES smallest values, and their two-block ones if still too many."""
    from dipc_plus.privacy.online.every_length import witness_inputs
    what = "the integer points of the box"
    if lattice_points(claim, Fraction(1)) <= most:
        return every_eps(lattice_claim(claim, Fraction(1))), what
    lc = every_eps(lattice_claim(claim, Fraction(1), CHECK_VALUES))
    if any(lattice_size(lo, hi, Fraction(1)) > CHECK_VALUES for lo, hi in claim.box_bounds.values()):
        what = f"the integer points of the box with each input at its {CHECK_VALUES} smallest values"
    if lc.npoints > most:
        lc = witness_inputs(lc, cp.input_name, cp.length) or lc
        what += " and of the two-block form q = (x, ..., x, y, ..., y)"
    return lc, what


def check_bound(claim: DPClaim, cp: Coupling, max_states: int) -> tuple:
    """(what was checked, text, pairs): the exact tight sup L/eps on the box's integer points (every
    eps > 0); when there are more than CHECK_POINTS of them, on those with each input at its
    CHECK_VALUES smallest values, and on their two-block ones if still too many (a check of our
    code, not part of the proof: any points of the box will do).  Raises BoundContradiction when
    it is above d*B (our bound, or our code, is wrong)."""
    from dipc_plus.privacy.loss.tight import privacy_loss
    lc, what = bound_check_claim(claim, cp, CHECK_POINTS)
    lr = privacy_loss(lc, max_states=max_states)
    above = lr.infinite is not None or (lr.constant is not None and lr.constant > 1)
    text = "inf" if above else (lr.sup.text() if lr.sup is not None else lr.loss_text())
    if lr.sup is not None and not above:
        above = lr.sup.upper() > cp.bound
    if above:
        raise BoundContradiction(f"the coupling bound is wrong: on {what} the exact tight sup L(eps)/eps is "
                                 f"{text}, not certified to be at most d*B = {fmt_q(cp.bound)}; no verdict is given")
    return what, text, lr.pairs


def check_bound_every_value(claim: DPClaim, cp: Coupling) -> tuple[tuple, list]:
    """((what was checked, text, pairs), notes): the exact sup over eps and every output value of
    L(eps)/eps on the box's integer points (fewer as `bound_check_claim` chooses), by
    `check_real_outputs`.  Its candidates are exact lower bounds of the loss; one above d*B, or a
    re-checked counterexample, raises BoundContradiction (our bound, or our code, is wrong)."""
    from dipc_plus.privacy.dp.real_output_check import check_real_outputs
    lc, what = bound_check_claim(claim, cp, VALUE_CHECK_POINTS)
    r = check_real_outputs(lc)          # raises BoundContradiction itself on a counterexample
    best = r.best
    lower = None if best is None or best.infinite else (best.value if best.value is not None else best.lo)
    if r.verdict == REFUTED or (best is not None and (best.infinite or lower > cp.bound)):
        raise BoundContradiction(f"the coupling bound is wrong: on {what} the exact sup of L(eps)/eps over every "
                                 f"output value is at least {'inf' if best is None else best.text()}, above d*B = "
                                 f"{fmt_q(cp.bound)}; no verdict is given")
    notes = []
    if r.undecided:
        notes.append(f"the cross-check did not evaluate {len(r.undecided)} interval(s) of output values on {what} "
                     "(the verdict rests on the coupling bound, which covers them)")
    text = "no candidate" if best is None else best.text()
    return (what, text, r.pairs), notes


def two_block_lattice(claim: DPClaim, cp: Coupling, step: Fraction, most: int) -> DPClaim | None:
    """The two-block points q = (x, ..., x, y, ..., y) of the lattice of `step` (x, y on it), where
    every counterexample family of the online class lives (docs/design/every_length.md section 3):
    None unless the recogniser named the program's array and m, the lattice has at most
    SEARCH_POINTS values per input, and there are at most `most` such points."""
    if cp.length is None or any(lattice_size(lo, hi, step) > SEARCH_POINTS for lo, hi in claim.box_bounds.values()):
        return None
    from dipc_plus.privacy.online.every_length import witness_inputs
    grid = {n: lattice(lo, hi, step) for n, (lo, hi) in claim.box_bounds.items()}
    if len({n for n in grid if n.startswith(f"{cp.input_name}[")}) != cp.length:
        return None
    lc = witness_inputs(dataclasses.replace(claim, explicit_points=None, grid=grid, inputs_kind="grid",
                                            _points=None), cp.input_name, cp.length)
    return lc if lc is not None and lc.npoints <= most else None


def search_lattices(res: BoxPrivacyResult, max_states: int, options: RunOptions = DEFAULT_OPTIONS) -> None:
    """Refute at rational points of the box: the lattices of SEARCH_STEPS while they are small, by
    the per-point check (named events) or by `check_real_outputs` (every output value)."""
    claim = res.claim
    if res.every_value:
        from dipc_plus.privacy.dp.real_output_check import check_real_outputs
    for step in SEARCH_STEPS:
        npoints = lattice_points(claim, step)
        lc, two_block = (lattice_claim(claim, step), False) if npoints <= res.search_limit else (None, False)
        if lc is None and res.every_value:
            lc, two_block = two_block_lattice(claim, res.coupling, step, res.search_limit), True
        if lc is None:
            res.searched.append(Searched(step, npoints, verdict="skipped"))
            break
        sup = ""
        if res.every_value:
            r = check_real_outputs(lc, options)
            verdict, refuted = r.verdict, r.verdict == REFUTED
            sup = ("= " if r.sup_exact and not r.sup_text.startswith("at least") else "") + r.sup_text
        else:
            r = check_dp(lc, max_states=max_states, options=options)
            verdict, refuted = r.verdict, not r.verified
        res.searched.append(Searched(step, lc.npoints, r.pairs, verdict, r.seconds, two_block, sup.strip()))
        if refuted:
            res.refutation, res.verdict, res.method = r, REFUTED, res.search_method
            break
        if all(lo == hi for lo, hi in claim.box_bounds.values()):
            break   # a box of one point: a finer step adds nothing


# --------------------------------------------------------------------------- the verdict


def decide_box_privacy(claim: DPClaim, max_states: int = DEFAULT_MAX_STATES,
                       options: RunOptions = DEFAULT_OPTIONS) -> BoxPrivacyResult:
    """Verified by the coupling bound, refuted at a rational point of the box, or undecided (in
    reference mode, `options`, without the coupling bound)."""
    if claim.kind != "dp" or claim.inputs_kind != "box":
        raise ValueError("decide_box_privacy takes a differential-privacy claim on a box")
    t0 = time.perf_counter()
    cp = coupling_for(claim, options)
    res = BoxPrivacyResult(claim, cp)
    if cp.applies:
        if res.every_value:
            loss, res.notes = check_bound_every_value(claim, cp)
        else:
            loss = check_bound(claim, cp, max_states)
        res.losses.append(loss)
        res.verdict, res.method = VERIFIED, METHOD_BOUND
    else:
        search_lattices(res, max_states, options)
    res.seconds = time.perf_counter() - t0
    return res

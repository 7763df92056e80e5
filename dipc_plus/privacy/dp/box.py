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
* verified by the **density-ratio bound** (`privacy.dp.density_ratio`) outside the online class,
  when inputs reach the outputs only through shift-bounded noise means and no input-only
  comparison splits the box: the verdict names it with its k ("density-ratio bound: loss <= k*eps");
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
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.claims.scope import box_text
from dipc_plus.claims.claim_file import key_error
from dipc_plus.claims.privacy_types import DPClaim, EpsRange
from dipc_plus.claims.scope import box_scope
from dipc_plus.decision.decide import Interval
from dipc_plus.execution import limits
from dipc_plus.exact.convert import fmt_q
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.privacy.display import (dp_claim_json, eps_multiple, eps_phrase, every_value_coverage,
                                       every_value_scope_json)
from dipc_plus.privacy.dp.box_progress import BoxProgress
from dipc_plus.privacy.dp.cell_points import cell_points
from dipc_plus.privacy.dp.check import DEFAULT_MAX_STATES, check_dp
from dipc_plus.privacy.dp.coupling import Coupling, coupling_for
from dipc_plus.privacy.dp.pair_bnb import pair_bnb_for
from dipc_plus.privacy.dp.plan import adjacent_point_pairs
from dipc_plus.privacy.dp.density_ratio import DensityRatio, density_ratio_for
from dipc_plus.privacy.dp.worst_neighbour import WorstNeighbour, worst_neighbour_for
from dipc_plus.privacy.online.every_length import BoundContradiction

VERIFIED, REFUTED, UNDECIDED = "verified", "refuted", "undecided"
METHOD_BOUND = "coupling bound (every real input)"
METHOD_SEARCH = "exact check at rational points of the box"
METHOD_VALUES_SEARCH = "exact density check on every output value at rational points of the box"
METHOD_SINGLE_POINT = "single-point argument (the only pair is (u, u), whose output distributions are equal)"
SEARCH_STEPS = (Fraction(1), Fraction(1, 2), Fraction(1, 4))
SEARCH_POINTS = 125      # the largest lattice searched (its pairs grow as its square)
CHECK_POINTS = 81        # above, the bound is checked on fewer integer points of the box (`check_bound`): at 243
                         # (SVT m = 5 on [-1, 1]^5, 16564 pairs) the cross-check alone took a minute
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
    cuts: int = 0                  # > 0: not a lattice but the points inside the cells of this many thresholds

    def to_json(self) -> dict:
        return {"step": None if self.cuts else fmt_q(self.step), "cell_thresholds": self.cuts, "points": self.points, "pairs": self.pairs, "verdict": self.verdict,
                "seconds": round(self.seconds, 3), "two_block": self.two_block, "sup_loss_over_eps": self.sup}

    def text(self) -> str:
        sup = f", sup L(eps)/eps {self.sup}" if self.sup else ""
        if self.cuts:
            return (f"the points inside the cells of {self.cuts} threshold(s) of input-only comparisons and their "
                    f"neighbours: {self.points} points, {self.pairs} pair(s)" + sup)
        return (f"step {fmt_q(self.step)}: {self.points} {'two-block ' if self.two_block else ''}points, "
                f"{self.pairs} pair(s)" + sup)


@dataclass
class BoxCheck:
    """A box claim's decision: the verdict, the method that gave it and every method's evidence."""
    claim: DPClaim
    coupling: Coupling | None = None     # the coupling bound, tried first (set before any other method runs)
    verdict: str = UNDECIDED
    method: str = ""
    losses: list = field(default_factory=list)      # (inputs checked, text of sup L/eps, pairs) against d*B
    searched: list = field(default_factory=list)    # Searched
    refutation: object = None       # the lattice check that failed (a PairCheck or a RealOutputCheck)
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    progress: BoxProgress | None = field(default=None, repr=False)   # while deciding: the stages shown
    density: DensityRatio | None = None     # the density-ratio bound, tried when the coupling bound does not apply
    worst: WorstNeighbour | None = None     # the worst-neighbour bound, tried when the density-ratio bound does not prove it
    pair: object = None                     # the pair branch-and-bound (pair_bnb.PairBnB), tried last

    @property
    def proved_bound(self) -> Fraction | None:
        """The k of the bound the verdict rests on (the losses are checked against it)."""
        if self.coupling.bound is not None:
            return self.coupling.bound
        return None if self.worst is None else self.worst.k

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
        return box_scope(self.claim.program, self.claim.box_bounds, str(self.claim.eps))

    def undecided_reasons(self) -> list[str]:
        """What is missing for a verdict: the bound's reason and the search's extent."""
        out = [f"the coupling bound does not prove it: {self.coupling.reason}"]
        out += [f"the {b.name} does not prove it: {b.reason}" for b in (self.density, self.worst) if b is not None]
        if self.pair is not None and self.pair.verdict != VERIFIED:
            out.append(self.pair.reason)
        done = [s for s in self.searched if s.verdict != "skipped"]
        skipped = [s for s in self.searched if s.verdict == "skipped"]
        searched = ("no counterexample at the rational points searched (" +
                    "; ".join(s.text() + ("" if s.verdict == VERIFIED else f", {s.verdict}") for s in done) + ")"
                    if done else "no rational point of the box searched")
        out.append(searched + (f"; step {fmt_q(skipped[0].step)} not searched ({skipped[0].points} points > "
                               f"{self.search_limit})" if skipped else ""))
        return out

    def to_json(self) -> dict:
        c, cp = self.claim, self.coupling
        scope = every_value_scope_json(self.scope) if self.every_value else self.scope.to_json()
        out = {"verdict": self.verdict, "kind": "dp", "scope": scope, **dp_claim_json(c), "eps": str(c.eps),
               "adjacency": c.adjacency.kind, "method": self.method,
               "coupling": {"applies": cp.applies, "reason": cp.reason,
                            "d": None if cp.d is None else fmt_q(cp.d),
                            "bound": None if cp.bound is None else fmt_q(cp.bound),
                            "length": cp.length},
               "losses": [{"inputs": w, "sup_loss_over_eps": t, "pairs": n} for w, t, n in self.losses],
               "searched": [s.to_json() for s in self.searched], "seconds": round(self.seconds, 3),
               "every_output_value": self.every_value, "notes": list(self.notes),
               "density_ratio": None if self.density is None else self.density.to_json(),
               "worst_neighbour": None if self.worst is None else self.worst.to_json(),
               "pair_branch_and_bound": None if self.pair is None else self.pair.to_json()}
        if self.verdict == UNDECIDED:
            out["undecided"] = self.undecided_reasons()
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_json()
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
        dr = self.density
        if dr is not None and dr.k is not None:
            lines.append(f"density-ratio bound (docs/claims.md): every run's density changes by at most "
                         f"e^({eps_multiple(dr.k)}) between a pair at {c.adjacency.describe()} (max over "
                         f"{dr.how}, {dr.paths} path(s))")
        if self.worst is not None and self.worst.k is not None:
            lines.append(f"worst neighbour by monotonicity (docs/claims.md): P_u[o] <= e^({eps_multiple(self.worst.k)}) "
                         f"P_u'[o] for every finite output o and every pair at {c.adjacency.describe()}")
            lines += self.worst.lines()
        bound = self.proved_bound
        for what, text, pairs in self.losses:
            if self.every_value:
                lines.append(f"  exact sup over eps and every output value of L(eps)/eps on {what} ({pairs} "
                             f"ordered pairs): {text}, a lower bound of the loss on the box (at most d*B = "
                             f"{fmt_q(bound)})")
            else:
                lines.append(f"  exact tight sup L(eps)/eps on {what} ({pairs} pairs): {text}, a lower bound of "
                             f"the box's sup (at most the proved {fmt_q(bound)})")
        lines += [f"  note: {n}" for n in self.notes]
        for s in self.searched:
            if s.verdict == "skipped" and not s.cuts:
                lines.append(f"  search at step {fmt_q(s.step)}: not run ({s.points} points > {self.search_limit})")
            else:
                lines.append(f"  search at {s.text()}, {s.verdict} ({s.seconds:.2f} s)")
        scope = self.scope
        where = scope.summary() + ("; every value of the real outputs" if self.every_value else "")
        if self.verdict == VERIFIED:
            sets = ("every set S of outputs (every finite output and every value of the real outputs)"
                    if self.every_value else "every set S of outputs")
            lines.append(f"VERIFIED {where} by the {self.method}: P[P(u) in S] <= e^({c.budget}) "
                         f"P[P(u') in S] for every pair (u, u') of real inputs of the box at "
                         f"{c.adjacency.describe()}, {sets} and {eps_phrase(c)}")
        elif self.verdict == REFUTED:
            lines.append(f"REFUTED {where} by the {self.search_method} (a pair of the box, re-checked by an "
                         "independent evaluation):")
            lines += self.counterexample.lines(c)
        else:
            lines.append(f"UNDECIDED {where}: neither proved nor refuted; nothing is claimed")
            lines += [f"  {r}" for r in self.undecided_reasons()]
        lines.append(f"{self.seconds:.2f} s")
        lines.append(every_value_coverage(scope, "box, every output value") if self.every_value else scope.coverage())
        return "\n".join(lines)


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


def point_scale(claim: DPClaim) -> int:
    """The common denominator of a grid claim's real input values times their largest size (at
    least 1): about the degree in e^(eps/L) its closed forms reach per unit of a noise's rate, since
    each value becomes an exponent.  The exact check's time grows steeply with it (a box [0, 1/2000]
    takes seconds, [0, 1/4000] minutes), so it is bounded before the check starts."""
    columns = claim.grid.values() if claim.grid is not None else [env.values() for env in claim.explicit_points]
    values = {Fraction(v) for vs in columns for v in vs
              if isinstance(v, (int, Fraction)) and not isinstance(v, bool)}
    denominator = math.lcm(1, *(v.denominator for v in values))
    return denominator * max([1, *(math.ceil(abs(v)) for v in values)])


def check_point_scale(claim: DPClaim, what: str) -> DPClaim:
    """`claim` when its `point_scale` is within the `box_scale` limit; else a UserError naming it,
    before any exact work (the box's bounds alone decide it)."""
    scale = point_scale(claim)
    if scale > limits.get("box_scale"):
        raise key_error(claim.file, "privacy.inputs.box",
                        f"the exact check on {what} is too costly: their common denominator times their "
                        f"largest size is {limits.clip(str(scale), 30)}, more than {limits.get('box_scale')}",
                        "give the box bounds with small denominators and sizes (e.g. "
                        "[-1, 1] or [\"-1/2\", \"1/2\"]), or " + limits.hint("box_scale"))
    return claim


def lattice_claim(claim: DPClaim, step: Fraction, most: int | None = None) -> DPClaim:
    """The claim on the lattice of `step` of its box (at most the `most` smallest values of each
    input): a grid claim, decided by the per-point path.  Check `lattice_points` first."""
    grid = {n: lattice(lo, hi, step, most) for n, (lo, hi) in claim.box_bounds.items()}
    return dataclasses.replace(claim, explicit_points=None, grid=grid, inputs_kind="grid")


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
        step = cross_check_step(claim, most)
        if step != 1:
            what = f"the points of the box at step {fmt_q(step)} (the adjacency's bound: integer points are not adjacent)"
        return check_point_scale(every_eps(lattice_claim(claim, step)), what), what
    lc = every_eps(lattice_claim(claim, Fraction(1), CHECK_VALUES))
    if any(lattice_size(lo, hi, Fraction(1)) > CHECK_VALUES for lo, hi in claim.box_bounds.values()):
        what = f"the integer points of the box with each input at its {CHECK_VALUES} smallest values"
    if lc.npoints > most:
        lc = witness_inputs(lc, cp.input_name, cp.length) or lc
        what += " and of the two-block form q = (x, ..., x, y, ..., y)"
    return check_point_scale(lc, what), what


def cross_check_step(claim: DPClaim, most: int) -> Fraction:
    """The lattice step of the cross-check: 1, or the adjacency's bound B when B < 1 (no two
    integer points are then adjacent) and that lattice has at most `most` points."""
    bound = claim.adjacency.bound
    if claim.adjacency.kind != "pairs" and 0 < bound < 1 and lattice_points(claim, bound) <= most:
        return bound
    return Fraction(1)


def check_bound(res: BoxCheck, cp: Coupling, max_states: int, progress: bool = False) -> None:
    """Append to res.losses (what was checked, text, pairs): the exact sup of L(eps)/eps on the box's
    integer points (fewer as `bound_check_claim` chooses), for every eps > 0 - the tight loss for
    named events, `check_real_outputs` over every output value (whose candidates are exact lower
    bounds of the loss).  A check of our code, not part of the proof: any points of the box will do.
    Raises BoundContradiction when it is above the proved cp.bound (our bound, or our code, is wrong)."""
    claim = res.claim
    lc, what = bound_check_claim(claim, cp, VALUE_CHECK_POINTS if res.every_value else CHECK_POINTS)
    if not adjacent_point_pairs(lc.points, lc.adjacency):
        res.losses.append((what, "no adjacent pair there (not cross-checked; the bound is the proof)", 0))
        return
    if res.every_value:
        from dipc_plus.privacy.dp.real_output_check import check_real_outputs
        # the same coupling bound applies to lc (same program, budget and adjacency): check_real_outputs
        # raises BoundContradiction itself on a counterexample or a candidate above d*B
        r = check_real_outputs(lc)
        best = r.best
        if r.undecided:
            res.notes.append(f"the cross-check did not evaluate {len(r.undecided)} interval(s) of output values on "
                             f"{what} (the verdict rests on the coupling bound, which covers them)")
        res.losses.append((what, "no candidate" if best is None else best.text(), r.pairs))
        return
    from dipc_plus.privacy.loss.tight import privacy_loss
    lr = privacy_loss(lc, max_states=max_states, progress=progress)
    above = lr.infinite is not None or (lr.constant is not None and lr.constant > 1)
    text = "inf" if above else (lr.sup.text() if lr.sup is not None else lr.loss_text())
    if lr.sup is not None and not above:
        above = lr.sup.upper() > cp.bound
    if above:
        raise BoundContradiction(f"the coupling bound is wrong: on {what} the exact tight sup L(eps)/eps is "
                                 f"{text}, not certified to be at most d*B = {fmt_q(cp.bound)}; no verdict is given")
    res.losses.append((what, text, lr.pairs))


def two_block_lattice(claim: DPClaim, cp: Coupling, step: Fraction, most: int) -> DPClaim | None:
    """The two-block points q = (x, ..., x, y, ..., y) of the lattice of `step` (x, y on it), where
    every counterexample family of the online class lives (docs/design/every_length.md section 3):
    None unless the recogniser named the program's array and m, the lattice has at most
    SEARCH_POINTS values per input, and there are at most `most` such points."""
    if cp.length is None or any(lattice_size(lo, hi, step) > SEARCH_POINTS for lo, hi in claim.box_bounds.values()):
        return None
    from dipc_plus.privacy.online.every_length import witness_inputs
    lattice_of_step = lattice_claim(claim, step)
    if len({n for n in lattice_of_step.grid if n.startswith(f"{cp.input_name}[")}) != cp.length:
        return None
    lc = witness_inputs(lattice_of_step, cp.input_name, cp.length)
    return lc if lc is not None and lc.npoints <= most else None


def search_targets(res: BoxCheck):
    """The point sets searched for a counterexample, in order, each as (claim on them, its `Searched`
    row, stage, region): the lattices of SEARCH_STEPS while they are small (a skipped one is recorded
    and ends them; every output value falls back to their two-block points), then the points strictly
    inside the cells of the input-only comparisons and their neighbours (`cell_points`), which no
    lattice may meet (a jump on (1/3, 2/5))."""
    claim = res.claim
    for step in SEARCH_STEPS:
        npoints = lattice_points(claim, step)
        lc, two_block = (lattice_claim(claim, step), False) if npoints <= res.search_limit else (None, False)
        if lc is None and res.every_value:
            lc, two_block = two_block_lattice(claim, res.coupling, step, res.search_limit), True
        if lc is None:
            res.searched.append(Searched(step, npoints, verdict="skipped"))
            break
        check_point_scale(lc, f"the points of the box at step {fmt_q(step)}")
        yield (lc, Searched(step, lc.npoints, two_block=two_block), f"search for a counterexample at step {fmt_q(step)}",
               f"{lc.npoints} {'two-block ' if two_block else ''}points of the box")
        if all(lo == hi for lo, hi in claim.box_bounds.values()):
            break   # a box of one point: a finer step adds nothing
    if claim.adjacency.kind == "pairs":
        return
    points, cuts = cell_points(claim, res.search_limit)
    if points:
        lc = dataclasses.replace(claim, explicit_points=points, grid=None, inputs_kind="list")
        check_point_scale(lc, "the points inside the cells of the box")
        yield (lc, Searched(Fraction(0), len(points), cuts=cuts), "search for a counterexample inside the cells",
               f"{len(points)} points inside the cells of {cuts} threshold(s) and their neighbours")


# --------------------------------------------------------------------------- the portfolio of methods


def by_coupling(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    """The coupling bound of the online class (an accelerator: off in reference mode), cross-checked."""
    res.coupling = cp = coupling_for(res.claim, options)
    if not cp.applies:
        return None
    res.progress.stage("coupling bound: exact cross-check", f"the integer points of {res.progress.region}")
    check_bound(res, cp, max_states, progress)
    return VERIFIED, METHOD_BOUND, None


def by_single_point(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    return (VERIFIED, METHOD_SINGLE_POINT, None) if single_point_holds(res.claim) else None


def by_density_ratio(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    res.density = density_ratio_for(res.claim)
    return (VERIFIED, res.density.method, None) if res.density.applies else None


def by_worst_neighbour(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    """The worst neighbour by monotonicity, its k cross-checked like the coupling bound's d*B (its
    finite outputs never take the two-block points, so no array is named)."""
    res.worst = worst_neighbour_for(res.claim)
    if not res.worst.applies:
        return None
    res.progress.stage("worst neighbour: exact cross-check", f"the integer points of {res.progress.region}")
    check_bound(res, Coupling(True, bound=res.worst.k, input_name=""), max_states, progress)
    return VERIFIED, res.worst.method, None


def by_search(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    """Refute at rational points of the box (`search_targets`): every adjacent pair of each set
    checked exactly, by the per-point check (named events) or `check_real_outputs` (every value)."""
    for lc, searched, stage, region in search_targets(res):
        res.progress.stage(stage, region)
        if res.every_value:
            from dipc_plus.privacy.dp.real_output_check import check_real_outputs
            r = check_real_outputs(lc, options, refute_only=True)
            refuted = r.verdict == REFUTED
            sup = (("= " if r.sup_exact and not r.sup_text.startswith("at least") else "") + r.sup_text).strip()
        else:
            r = check_dp(lc, max_states=max_states, progress=res.progress.bar is not None, options=options)
            refuted, sup = not r.verified, ""
        res.searched.append(dataclasses.replace(searched, pairs=r.pairs, verdict=r.verdict, seconds=r.seconds, sup=sup))
        if refuted:
            return REFUTED, res.search_method, r
    return None


def by_pair_bnb(res: BoxCheck, max_states: int, options: RunOptions, progress: bool):
    """The pair branch-and-bound: a general prover within the `pair_boxes` limit, so it runs in reference mode."""
    res.pair = pair_bnb_for(res.claim)
    return (res.pair.verdict, res.pair.method, res.pair.refutation) if res.pair.verdict in (VERIFIED, REFUTED) else None


@dataclass(frozen=True)
class Method:
    """One method of the portfolio: the stage shown before it runs (None: none, or its own) and
    attempt(res, max_states, options, progress) -> (verdict, method, refutation) when it decides the
    claim, else None; each records its evidence on `res` as it goes."""
    stage: str | None
    attempt: Callable
    region: Callable[[], str | None] = lambda: None


PORTFOLIO = (Method("coupling bound", by_coupling), Method(None, by_single_point),
             Method("density-ratio bound", by_density_ratio), Method("worst neighbour by monotonicity", by_worst_neighbour),
             Method(None, by_search),
             Method("certified branch-and-bound over (u, u' - u, eps)", by_pair_bnb,
                    lambda: f"at most {limits.get('pair_boxes')} sub-boxes"))


# --------------------------------------------------------------------------- the verdict


def decide_box_privacy(claim: DPClaim, max_states: int = DEFAULT_MAX_STATES,
                       options: RunOptions = DEFAULT_OPTIONS, progress: bool = False) -> BoxCheck:
    """Verified as post-processing, or by the first method of the PORTFOLIO that decides the claim:
    the coupling bound (an accelerator: off in reference mode, `options`), the single point, the
    density-ratio bound or the worst neighbour (general provers, always on), refuted at a rational
    point of the box, or the pair branch-and-bound; else undecided.  Each method's stage is shown
    (`progress`) and noted for a stopped run."""
    if claim.kind != "dp" or claim.inputs_kind != "box":
        raise ValueError("decide_box_privacy takes a differential-privacy claim on a box")
    t0 = time.perf_counter()
    res = post_processed(claim, max_states, options, progress)
    if res is None:
        with BoxProgress(f"the box {box_text(claim.program, claim.box_bounds)}", progress) as stages:
            res = BoxCheck(claim, progress=stages)
            for method in PORTFOLIO:
                if method.stage is not None:
                    stages.stage(method.stage, method.region())
                decided = method.attempt(res, max_states, options, progress)
                if decided is not None:
                    res.verdict, res.method, res.refutation = decided
                    break
        res.progress = None
    res.seconds = time.perf_counter() - t0
    return res


def post_processed(claim: DPClaim, max_states: int, options: RunOptions, progress: bool) -> BoxCheck | None:
    """The claim verified as post-processing (`semantics.post_processing`): outputs computed from the
    others alone are dropped, the projection is decided, and its VERIFIED carried over (no loss is
    added by a function of released outputs).  None when no output is derived or the projection is
    not verified: a refutation of the projection is not carried over, the original is decided itself."""
    from dipc_plus.semantics.post_processing import post_processing, project
    pp = post_processing(claim.program)
    if not pp.applies:
        return None
    events = {n: e for n, e in claim.events.items() if n not in pp.derived}
    inner = decide_box_privacy(dataclasses.replace(claim, program=project(claim.program, pp.derived), events=events),
                               max_states, options, progress)
    if inner.verdict != VERIFIED:
        return None
    res = dataclasses.replace(inner, claim=claim, method=f"post-processing ({pp.describe()}) of the {inner.method}")
    res.notes = [*inner.notes, f"post-processing: {pp.describe()}; the claim on the other outputs is verified by "
                 f"the {inner.method}, and a function of released outputs adds no loss"]
    return res


def single_point_holds(claim: DPClaim) -> bool:
    """A box of one point u has no pair but (u, u) (or none, if the adjacency excludes it): the two
    output distributions are equal, so any budget e^budget = factor * e^(k eps) >= 1 holds (k >= 0,
    factor >= 1, eps >= 0), 0*eps included, which every bound on a loss (>= eps per unit moved) misses."""
    eps, budget = claim.eps, claim.budget
    nonnegative_eps = (eps.interval is None or eps.interval.lo >= 0) and (eps.log_of is None or eps.log_of >= 1)
    return (all(lo == hi for lo, hi in claim.box_bounds.values()) and budget.k >= 0 and budget.factor >= 1
            and nonnegative_eps)

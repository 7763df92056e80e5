"""`dipc sweep` on a box claim: the largest kappa with beta/kappa verified for every real input of the box.

Why: a grid's best kappa says nothing between its points; over a box it can be lower
(threshold_half: 1 on the grid, 0 on the box).  The box decider (`accuracy.box`) turns a
box claim into one sentence per piece of each det region's corner path, and dividing beta
by kappa only divides the right side of each sentence, so:

* the search: `decide_box` at kappa = 1, then doubling, then bisection (as the grid sweep's
  bounds: at most --kappa-max), gives best kappa with a counterexample for best + 1 that the
  box decider found on a corner path and re-checked by the per-point path.  An undecided
  region at any kappa stops the sweep: it says so instead of guessing.
* the exact value, where cheap: each sentence is "P_err <= beta/kappa" for one ratio
  beta/P_err of exponential polynomials (in x = eps*d on a homogeneous piece, in eps on a
  fixed piece or at a closure point), whose infimum `accuracy.sweep.candidates` finds
  exactly; kappa* is the least over the pieces.  On a homogeneous piece v(d) has dd = d, so
  the piece's infimum is the box's there; on the others it is a lower bound (the sentence is
  sufficient).  floor(kappa*) must equal the search's best kappa (a cross-check: two
  independent certified routes), and when kappa* is known the search only confirms
  floor(kappa*) and refutes floor(kappa*) + 1.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.accuracy import argmax_box
from dipc_plus.accuracy.sweep_result import SweepResult
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.accuracy.box import (CLOSURE, FIXED, HOMOGENEOUS, TWO_VARIABLE, UNDECIDED, VERIFIED, BoxDecider,
                                    Region, decide_box, det_regions_by_shape, region_share)
from dipc_plus.accuracy.polyhedral import PolyRegion
from dipc_plus.accuracy.box_reduction import gammas_of, x_interval
from dipc_plus.accuracy.result import AccuracyResult
from dipc_plus.accuracy.union_regions import UnionRegion
from dipc_plus.accuracy.report import REFUTED, env_json, env_text, fmt_q
from dipc_plus.accuracy.sweep import (DEFAULT_DIGITS, DEFAULT_KAPPA_MAX, CandidatePool, KappaStar, candidates,
                                      kappa_star_of)
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.distances import INF
from dipc_plus.decision.certified import CertificationError
from dipc_plus.exact.expoly import ExpFrac

@dataclass
class PieceRatio:
    """One corner sentence's ratio beta/P_err, shaped as an InputReport for `sweep.candidates`:
    `input` is the corner's base point (a + s on a homogeneous piece, where the variable is
    x = eps*d; the fixed corner otherwise), `alpha` the d beta is taken at."""
    program: object
    input: dict
    alpha: Fraction
    gamma: Fraction
    beta: ExpFrac
    p_error: ExpFrac
    kind: str
    condition: str
    det: dict
    pieces: str                # "d in (d0, d1]" or "d = alpha"
    dd_exact: bool = True      # the sentence's point has dd = d (False: dd >= d, a lower bound only)

    @property
    def variable(self) -> str:
        return "x = eps*d" if self.kind == HOMOGENEOUS else "eps"

    def place_line(self, where: str) -> str:
        """Where kappa* is reached, as the sweep's text says it (`where`: the candidate's place in eps)."""
        homogeneous = self.kind == HOMOGENEOUS
        return (f"  on the region {self.condition} (det = {env_text(self.program, self.det)}), {self.pieces}, "
                f"{'v(1)' if homogeneous else 'corner'} {env_text(self.program, self.input)} "
                f"({self.kind}, in {self.variable}): {where.replace('eps', 'x' if homogeneous else 'eps')}")

    def to_json(self) -> dict:
        return {"region": self.condition, "det": env_json(self.program, self.det), "gamma": fmt_q(self.gamma),
                "piece": self.pieces, "kind": self.kind, "corner": env_json(self.program, self.input),
                "variable": self.variable}


class NotCheap(Exception):
    """A region whose sentence is not one ratio in one variable: kappa* is left to the search."""


def piece_ratios(claim: AccuracyClaim, decider: BoxDecider, two_variable: list | None = None) -> list:
    """Every corner sentence of the box claim as a (PieceRatio, interval of its variable), on box
    regions (the corner path), polyhedral ones (`accuracy.polyhedral`'s worst point) and each convex
    piece of a union's cover (`accuracy.union_regions`; its v(d) has dd >= d, so a lower bound), walked
    as `BoxDecider.along` walks them; NotCheap when a region is decided otherwise (a vertex with
    dd = inf, an unproved precondition).  A piece whose sentence has two variables (d, eps) is appended
    to `two_variable` as (region, path, gamma, d0, d1, a, s) for `bound_two_variable_pieces` (NotCheap
    when no list is given)."""
    program, bounds, I = claim.program, decider.bounds, claim.eps
    boxes, polys, others = det_regions_by_shape(program, list(bounds))
    if others:
        raise NotCheap("a det region is neither a box nor one convex polyhedron")
    if decider.monotone.reals_out:
        raise NotCheap("real outputs: P[error] has a factor in eps alone (no sentence in one variable)")
    gammas, out = [Fraction(g) for g in gammas_of(claim)], []
    for whole in boxes + polys:
        if isinstance(whole, Region) and region_share(bounds, whole) == 0:
            continue                   # the claim applies to no input of the box on this region
        pieces = whole.cover(bounds) if isinstance(whole, UnionRegion) else [whole]
        if isinstance(pieces, str):
            raise NotCheap(pieces)
        exact = not isinstance(whole, UnionRegion)
        for region, g in ((r, g) for r in pieces for g in gammas):
            if g >= 1:
                continue               # every output within distance 1: no error, no ratio
            atoms = decider.monotone.output(region.det)
            corner = worst_point_path(decider, region, atoms)

            for kind, d0, d1, a, s in decider.corner_sentences(corner, atoms, g):   # none: dd <= alpha here
                if kind == TWO_VARIABLE:
                    if two_variable is None:
                        raise NotCheap("a piece whose sentence has two variables (d, eps)")
                    two_variable.append((region, corner, g, d0, d1, a, s))
                    continue
                if a is None:                  # a closure point (the only sentence that may have none)
                    raise NotCheap("no worst point of the polyhedral region at d = alpha")
                homogeneous = kind == HOMOGENEOUS    # in x = eps*d at v(1); else in eps at a, beta at d1
                u, alpha = ({n: a[n] + s[n] for n in a}, Fraction(1)) if homogeneous else (a, d1)
                piece = f"d = {fmt_q(d1)}" if kind == CLOSURE else f"d in ({fmt_q(d0)}, {fmt_q(d1)}]"
                dd_exact = kind == FIXED or (exact and (kind == CLOSURE or dd_is_d(region, a, s)))
                out.append((PieceRatio(program, u, alpha, g, ExpFrac.of(claim.beta_at(alpha, g)),
                                       decider.p_error(region.det, u), kind, region.condition, region.det, piece,
                                       dd_exact), x_interval(I, d0, d1) if homogeneous else I))
            if getattr(corner, "open", []):
                raise NotCheap("the polyhedral worst point is not proved linear in d on part of its region")
    return out


def worst_point_path(decider: BoxDecider, region, atoms):
    """The region's worst point v(d) (`BoxDecider.worst_path`); NotCheap where it is not proved or dd = inf."""
    corner = decider.worst_path(region, atoms)
    if isinstance(corner, str):
        raise NotCheap("a polyhedral region is not proved monotone along its facets" if isinstance(region, PolyRegion)
                       else "a region is not proved monotone")
    if not corner.finite:
        raise NotCheap("a region with dd = inf (decided at a vertex)")
    return corner


def dd_is_d(region, a: dict, s: dict) -> bool:
    """Whether v(d) = a + s*d has dd = d exactly: on a box region always (the corner path); on a
    polyhedral one when some facet's distance (a.v - b)/||a||_1 is d identically (dd is the least of
    them and v(d) lies in S(d), so dd >= d; one facet at distance d makes it equal)."""
    if not isinstance(region, PolyRegion):
        return True
    for coeffs, b, norm in region.facets:
        const = sum((c * a[n] for n, c in coeffs.items()), Fraction(0)) - b
        slope = sum((c * s[n] for n, c in coeffs.items()), Fraction(0))
        if const == 0 and slope == norm:
            return True
    return False


def argmax_ratios(claim: AccuracyClaim, max_states=None) -> list:
    """The argmax worst point's sentences (`accuracy.argmax_box`) as ratios, one per det region:
    beta(1, x)/P_err(x, w(1)) over x = eps*d (w(d) has dd = d, a point of the box), or at a
    numeric alpha beta/P_err(w(alpha)) over eps."""
    box = argmax_box.ArgmaxBox(claim, 1, max_states)
    out = []
    for g in map(Fraction, gammas_of(claim)):
        found = None if g >= 1 else box.sentence(g)
        if found is None:
            continue                   # no error, or the claim applies nowhere in the box
        if claim.alpha == "dd" and not claim.beta_of_alpha_eps(g):
            raise NotCheap("beta is not a function of alpha*eps")
        alpha, u, p_err, X = found
        kind, piece = ((HOMOGENEOUS, f"d in (0, {fmt_q(box.dmax)}]") if claim.alpha == "dd"
                       else (CLOSURE, f"d = {fmt_q(alpha)}"))
        beta = ExpFrac.of(claim.beta_at(alpha, g))
        for i in range(1, len(box.scores) + 1):   # the same ratio on every region (iid noises)
            out.append((PieceRatio(claim.program, u, alpha, g, beta, p_err, kind, box.condition(i),
                                   box.det_of(i), piece), X))
    return out


@dataclass
class RegionStar:
    """kappa* of one det region (and gamma): the least over its pieces' ratios."""
    condition: str
    det: dict
    gamma: Fraction
    star: KappaStar
    box_infimum: bool          # every piece homogeneous: the region's infimum over the box

    def to_json(self, program) -> dict:
        return {"region": self.condition, "det": env_json(program, self.det), "gamma": fmt_q(self.gamma),
                "kappa_star": self.star.text, "box_infimum": self.box_infimum, **self.star.value_json()}

    def line(self, program) -> str:
        """One line of the sweep's table of kappa* per det region."""
        star = self.star
        value = "inf" if star.infinite else fmt_q(star.lo) if star.exact else star.text + "..."
        return (f"{self.condition:<44} det = {env_text(program, self.det):<24} gamma = {fmt_q(self.gamma)}: "
                f"{value}{'' if self.box_infimum else ' (a lower bound)'}")


def box_kappa_star(claim: AccuracyClaim, digits: int = DEFAULT_DIGITS, max_states=None):
    """(KappaStar of the corner sentences, whether it equals the infimum over the box, [RegionStar]),
    or (None, why, [])."""
    two_variable = []
    try:
        ratios = (argmax_ratios(claim, max_states) if argmax_box.selects(claim)
                  else piece_ratios(claim, BoxDecider(claim, 1, max_states), two_variable))
    except NotCheap as why:
        return None, str(why), []
    pool, by_region = CandidatePool(), {}
    for rep, interval in ratios:
        key = (rep.condition, rep.gamma)
        region_pool, kinds, _ = by_region.setdefault(key, (CandidatePool(), set(), rep.det))
        kinds.add(rep.kind if rep.dd_exact else "dd >= d")
        if not rep.p_error.is_zero():
            found = [c for c in candidates(rep, interval) if not c.infinite]
            pool.add(found)
            region_pool.add(found)
    star = kappa_star_of(pool, digits)
    why = bound_two_variable_pieces(claim, two_variable, star, max_states)
    if why:
        return None, why, []
    exact_over_box = star.infinite or (star.at.report.kind == HOMOGENEOUS and star.at.report.dd_exact
                                       and star.ties == 0) or \
        all(rep.kind == HOMOGENEOUS and rep.dd_exact for rep, _ in ratios)
    regions = [RegionStar(cond, det, g, kappa_star_of(region_pool, digits), kinds == {HOMOGENEOUS})
               for (cond, g), (region_pool, kinds, det) in by_region.items()]
    regions.sort(key=lambda r: (r.star.lo, r.star.hi))
    return star, exact_over_box, regions


def bound_two_variable_pieces(claim: AccuracyClaim, pieces: list, star: KappaStar, max_states=None) -> str:
    """Why kappa* of the one-variable sentences (`star`) is not the least over every piece ('' when it is).

    A piece whose sentence has two variables (d, eps) has no ratio in one variable; it does not lower
    kappa* when its sentence holds with beta/K for K the upper end of star's enclosure (the two-variable
    decision of `BoxDecider.two_variables` at kappa = K): then its infimum is >= K >= kappa*."""
    if not pieces:
        return ""
    if star.infinite:
        return "every piece with an error has a sentence in two variables (d, eps): no kappa* to compare it with"
    if star.hi <= 0:
        return ""            # every piece's ratio beta / P[error] is >= 0 >= K: nothing to prove (and beta/0 is undefined)
    decider = BoxDecider(claim, Fraction(star.hi), max_states)
    for region, corner, gamma, d0, d1, a, s in pieces:
        verdict, _, reason, _ = decider.two_variables(region, gamma, corner, d0, d1, a, s)
        if verdict != VERIFIED:
            return (f"a piece of {region.condition} with a sentence in two variables (d, eps), d in "
                    f"({fmt_q(d0)}, {fmt_q(d1)}], is not proved above kappa* <= {fmt_q(Fraction(star.hi))} of the "
                    f"others ({verdict}{': ' + reason if reason else ''})")
    return ""


# --------------------------------------------------------------------------- the search


class UndecidedRun(Exception):
    """A run of the search with an undecided region: the sweep stops and says so instead of guessing."""

    def __init__(self, run: AccuracyResult):
        super().__init__(run.kappa)
        self.run = run


def box_sweep(claim: AccuracyClaim, *, kappa_max: int = DEFAULT_KAPPA_MAX, digits: int = DEFAULT_DIGITS,
              max_states=None, search: str = "auto", options: RunOptions = DEFAULT_OPTIONS) -> SweepResult:
    """best kappa over the box, kappa* of its corner sentences, the counterexample for best + 1.

    search = "auto": confirm floor(kappa*) and refute it + 1 when kappa* is known, else search;
    "always": the doubling/bisection search even when kappa* is known (then cross-checked)."""
    start = time.perf_counter()
    runs: dict = {}
    res = SweepResult(None, kappa_max)

    def at(k: int, stop: bool = True) -> AccuracyResult:
        """The box claim with beta/k (decided once); UndecidedRun when it is undecided and `stop`."""
        if k not in runs:
            runs[k] = decide_box(claim, k, max_states, options=options)
            res.searched.append((k, runs[k].verdict))
        if stop and runs[k].verdict == UNDECIDED:
            raise UndecidedRun(runs[k])
        return runs[k]

    try:
        res.base = at(1, stop=False)
        if _search(res, at, kappa_max, digits, max_states, search, options):
            _check(res)
    except UndecidedRun as stopped:
        res.undecided = stopped.run
    res.seconds = time.perf_counter() - start
    return res


def _search(res: SweepResult, at, kappa_max: int, digits: int, max_states, search: str,
            options: RunOptions) -> bool:
    """Fill in best kappa and its counterexample (True: cross-check them, False: nothing to check)."""
    claim = res.base.claim
    at(1)
    if res.base.verdict == REFUTED:
        res.best_kappa, res.counterexample = 0, res.base.counterexample
        if options.reference:       # kappa* is read off the reductions' sentences
            res.star_note = "kappa* not computed (reference mode: the box reductions are switched off)"
            return False
    res.kappa_star, exact_or_why, res.region_stars = box_kappa_star(claim, digits, max_states)
    if res.kappa_star is None:
        res.star_note = f"kappa* not computed ({exact_or_why}): best kappa from the search only"
    else:
        res.star_is_box_inf = exact_or_why
    if res.best_kappa == 0:
        return True
    if res.base.vacuous:
        res.best_kappa, res.capped = kappa_max, True
        return False
    star = res.kappa_star
    floor = None if star is None else star.floor
    if floor is not None and search == "auto":
        if floor == INF or floor > kappa_max:
            res.best_kappa, res.capped = kappa_max, True
            run = at(kappa_max)
            if run.verdict != VERIFIED:
                raise CertificationError(f"kappa* = {star.text} but the box claim with beta/{run.kappa} is "
                                         f"{run.verdict}")
            return True
        at(int(floor), stop=False), at(int(floor) + 1, stop=False)   # both are made before either may stop
        at(int(floor))
        res.best_kappa, res.counterexample = int(floor), at(int(floor) + 1).counterexample
        return True
    # doubling up to kappa_max, then kappa_max and kappa_max + 1 (as the grid sweep: capped when
    # beta/(kappa_max + 1) holds too), then bisection: verified at lo, refuted at hi (at() stops when undecided)
    doubling = [2 ** j for j in range(1, kappa_max.bit_length())]
    lo, hi = 1, None
    for k in doubling + [kappa_max, kappa_max + 1]:
        if at(k).verdict == REFUTED:
            hi = k
            break
        lo = k
    if hi is None:
        res.best_kappa, res.capped = kappa_max, True
        return True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if at(mid).verdict == VERIFIED else (lo, mid)
    res.best_kappa, res.counterexample = lo, at(hi).counterexample
    return True


def _check(res: SweepResult) -> None:
    """The cross-checks: floor(kappa*) is the search's best kappa, the counterexample is a point of the box."""
    star = res.kappa_star
    if star is not None and star.floor is not None and not res.capped:
        if star.floor == INF or star.floor != res.best_kappa:
            raise CertificationError(f"kappa* = {star.text} over the corner sentences, but the search's best "
                                     f"kappa is {res.best_kappa}")
    cex = res.counterexample
    if cex is not None:
        bounds = res.base.claim.points.bounds
        if cex.kappa != res.best_kappa + 1 or any(not bounds[n][0] <= cex.input[n] <= bounds[n][1] for n in bounds):
            raise CertificationError(f"the counterexample {cex.input} for beta/{cex.kappa} is not a point of the box "
                                     f"refuting beta/{res.best_kappa + 1}")


"""Accuracy claims over every real input of a box, by the corner reduction (issue 28).

A grid verdict says nothing between its points.  Where monotonicity, box-shaped det
regions and a non-increasing beta are proved, the worst input at each distance d is one
corner v(d), so the claim reduces to finitely many sentences the exact procedures decide;
what cannot be reduced is reported undecided, never guessed.
Design: docs/design/box_accuracy.md.
"""
from __future__ import annotations

import functools
import itertools
import time
from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.accuracy.box_reduction import (NOT_APPLICABLE, SEARCH, UNDECIDED, VERIFIED, beta_alpha_check,
                                           beta_bound, closure_verdict, first_refuted, gammas_of, homogeneous_sentence,
                                           recheck, refuse_paper, search, within_one)
from dipc_plus.accuracy.result import BOX, AccuracyResult, RegionResult
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.report import REFUTED, Counterexample, fmt_q
from dipc_plus.accuracy.monotone import Monotonicity, NotReducible
from dipc_plus.accuracy.polyhedral import PolyRegion, WorstPath, linear_piece, monotone_functionals, polyhedron_of
from dipc_plus.accuracy.union_regions import UnionRegion, union_region
from dipc_plus.claims import noise_free
from dipc_plus.claims.box_dd import Box
from dipc_plus.claims.accuracy_claim import AccuracyClaim
from dipc_plus.claims.distances import INF, LinfInput, LinfOutput, NumericSparseInput, ZeroOneOutput
from dipc_plus.decision.certified import CertificationError
from dipc_plus.decision.decide import decide
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.linear import LinForm
from dipc_plus.execution.accelerators import switched_off
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.semantics.distribution import output_distribution



# --------------------------------------------------------------------------- the preconditions


def claim_checks(claim: AccuracyClaim, boundary: bool = False) -> list:
    """The claim-wide preconditions, each a named check: (name, what was proved); NotReducible if not."""
    checks = []
    refuse_paper(boundary, NotReducible)
    numeric = isinstance(claim.input_distance, NumericSparseInput)
    if not isinstance(claim.input_distance, LinfInput) and not numeric:
        raise NotReducible("box-region", f"the input distance is {claim.input_distance.name}, not L-inf: dd is "
                           "not the distance to the nearest facet of a box region", file=claim.file,
                           hint='box claims need input_distance = "linf"')
    wanted = LinfOutput if numeric else ZeroOneOutput
    if not isinstance(claim.output_distance, wanted):
        raise NotReducible("output-distance", f"the output distance is {claim.output_distance.name}; the corner "
                           "reduction reads P[error] as 1 - P[out = det(u)] (real outputs within gamma with "
                           "numeric-sparse inputs)", file=claim.file,
                           hint='box claims need output_distance = "zero-one" ("linf" with "numeric-sparse")')
    if claim.det != "noise-free" or claim.dd_over != "reals":
        raise NotReducible("box-region", "det must be the noise-free program with dd over the reals",
                           file=claim.file)
    checks.append(("box-region", "input distance numeric-sparse: every finite facet at the threshold and the "
                   "released values inputs above it, so dd is the distance to the nearest facet (checked per "
                   "region), dd over the reals" if numeric else "input distance L-inf, dd over the reals"))
    if claim.alpha == "dd":
        checks.append(beta_alpha_check(claim, NotReducible))
    return checks


# --------------------------------------------------------------------------- det regions


@dataclass
class Region:
    """A det region that is one path's box: `box` bounds its inputs, each end open or closed."""
    det: dict
    condition: str
    box: Box

    def limits(self, name, blo, bhi) -> list:
        """The d past which no value of [blo, bhi] lies d inside the region's ends along `name`."""
        lo, hi = self.box.ends(name)
        return (([] if lo is None else [bhi - lo]) + ([] if hi is None else [hi - blo])
                + ([] if lo is None or hi is None else [(hi - lo) / 2]))

    def inside(self, name, blo, bhi, d=Fraction(0)) -> tuple:
        """(lo, hi): the values of [blo, bhi] at least d inside the region's ends along `name` (none if lo > hi)."""
        lo, hi = self.box.ends(name)
        return (blo if lo is None else max(blo, lo + d)), (bhi if hi is None else min(bhi, hi - d))


def det_regions_by_shape(program, names: list) -> tuple[list, list, list]:
    """(box-shaped regions, polyhedral regions: one path (`accuracy.polyhedral.PolyRegion`) or a union of
    several paths with one det (`accuracy.union_regions.UnionRegion`), [(det, condition, why)] the others:
    equalities between inputs, unions whose complement is not read by facets)."""
    by_output: dict = {}
    for path in noise_free.paths(program, {}, names):
        by_output.setdefault(tuple(sorted((k, repr(v)) for k, v in path.outputs.items())), []).append(path)
    boxes, polys, others = [], [], []
    for key, group in by_output.items():
        det = {n: group[0].outputs[n] for n, _ in program.outputs}
        text = " or ".join(" and ".join(_show(c) for c in p.condition) or "every input" for p in group)
        parts = [box_of(det, text, p.condition) for p in group]
        if len(group) > 1:
            # the paths are disjoint, so when every one is a box their shares add up to the union's
            region = union_region(det, text, [p.condition for k, g in by_output.items() if k != key for p in g],
                                  parts if all(isinstance(r, Region) for r in parts) else None)
            why = f"det = this output on {len(group)} noise-free paths: "
        else:
            region = parts[0] if isinstance(parts[0], Region) else polyhedron_of(det, text, group[0].condition)
            why = f"{parts[0]}: "   # why the path is not a box, then why not a polyhedron
        if isinstance(region, str):
            others.append((det, text, why + region))
        else:
            (boxes if isinstance(region, Region) else polys).append(region)
    return boxes, polys, others


def box_of(det: dict, text: str, condition) -> Region | str:
    """The region of one path as a box (bounds per input), or why it is not one."""
    box = Box()
    for c in condition:
        if not box.add(c):   # a condition on no input is true (no bound) or false (an empty box)
            return f"the condition '{_show(c)}' compares several inputs (the region is not a box)"
    return Region(det, text, box)


def region_share(bounds: dict, region) -> Fraction | None:
    """The region's share of the box's volume (None when not computed: a polyhedron that is not a box).

    Share 0 means the claim says nothing on the region in the box: no input of both has dd > 0.  An
    input u of both with dd(u) = r > 0 has its L-inf ball of radius r inside the region (det is this
    output only there), and that ball meets the box in a set of positive volume in the box's coordinates
    of positive width, so the share would be positive.  The claim (dd(u) > alpha >= 0, Definition 2)
    covers none of these inputs, whatever the program does on the region (monotone or not)."""
    if isinstance(region, Region):
        return share_of(bounds, region)
    if isinstance(region, UnionRegion) and region.boxes is not None:
        return sum((share_of(bounds, r) for r in region.boxes), Fraction(0))
    return None


def _show(c) -> str:
    if len(c.coeffs) == 1 and c.coeffs[0][1] == 1:
        return f"{c.coeffs[0][0]} {c.op} {fmt_q(c.rhs)}"
    return f"{' + '.join(f'{fmt_q(a)}*{v}' for v, a in c.coeffs)} {c.op} {fmt_q(c.rhs)}"


def share_of(bounds: dict, region: Region) -> Fraction:
    """The volume of box ∩ region over the box's, on the coordinates where the box has width; a
    coordinate of width 0 counts 1 when its one value is in the region (open ends excluded) and 0
    otherwise, so the disjoint paths of a union never count one input twice."""
    if region.box.empty:
        return Fraction(0)
    share = Fraction(1)
    for n, (blo, bhi) in bounds.items():
        if bhi == blo:
            share *= 1 if region.box.admits(n, blo) else 0
            continue
        a, b = region.inside(n, blo, bhi)
        share *= max(Fraction(0), b - a) / (bhi - blo)
    return share


def union_verdict(found: list, several: bool):
    """One verdict from those of the pieces of a region's cover [(verdict, method, reason, piece)]
    (none refuted): verified when every piece is (or does not apply), else undecided naming the open
    pieces; no piece meets the box with dd > 0: share 0."""
    if not found:
        return MISSES_BOX
    open_ = [f"{piece_text(p) + ': ' if several else ''}{reason}" for v, _, reason, p in found if v == UNDECIDED]
    if open_:
        method = "union cover" if several else next(m for v, m, _, _ in found if v == UNDECIDED)
        return UNDECIDED, method, "; ".join(open_), None
    verified = sorted({m for v, m, _, _ in found if v == VERIFIED})
    if not verified:
        return found[0][:3] + (None,)
    prefix = f"union cover of {len(found)} convex pieces: " if several else ""
    return VERIFIED, prefix + ", ".join(verified), "", None


def piece_text(piece: PolyRegion) -> str:
    """The piece of a union's cover at distance d from the complement, in words."""
    facets = [" + ".join(f"{fmt_q(a)}*{n}" for n, a in sorted(c.items())) + f" >= {fmt_q(b)} + {fmt_q(norm)}*d"
              for c, b, norm in piece.facets]
    return "piece " + (" and ".join(facets) or "(every input)")


FIXED, HOMOGENEOUS, TWO_VARIABLE, CLOSURE = "fixed", "homogeneous", "two-variable", "closure point"
OPEN = "open"   # a span where the worst point is not proved linear in d (`along` searches it)
MISSES_BOX = (NOT_APPLICABLE, "share 0 of the box", "every input of the box in this region has dd = 0", None)


# --------------------------------------------------------------------------- corners


class CornerPath:
    """v(d) for one region: per coordinate the end of [L_j(d), U_j(d)] where P[out = w] is least."""

    def __init__(self, bounds: dict, region: Region, directions: dict):
        self.bounds, self.region, self.directions = bounds, region, directions
        limits = [d for n, (blo, bhi) in bounds.items() for d in region.limits(n, blo, bhi)]
        self.finite = bool(limits)
        self.dmax = min(limits) if limits else INF
        kinks = set()
        for n, (blo, bhi) in bounds.items():
            lo, hi = region.box.ends(n)
            if lo is not None:
                kinks.add(blo - lo)
            if hi is not None:
                kinks.add(hi - bhi)
        if self.finite:
            self.breaks = [Fraction(0)] + sorted(k for k in kinks if 0 < k < self.dmax) + [self.dmax]

    def at(self, d) -> dict:
        """v(d) (d = INF only on a path that is not finite: the region has no end, v is the box's corner)."""
        inside = {n: self.region.inside(n, blo, bhi, d) for n, (blo, bhi) in self.bounds.items()}
        return {n: high if self.directions[n] < 0 else low for n, (low, high) in inside.items()}

    def pieces(self):
        """[(d0, d1, a, s)]: v(d) = a + s*d for d in (d0, d1] (linear between the path's breaks)."""
        return [linear_piece(d0, d1, self.at(d0), self.at(d1)) for d0, d1 in zip(self.breaks, self.breaks[1:])]


# --------------------------------------------------------------------------- the decider


class BoxDecider:
    def __init__(self, claim: AccuracyClaim, kappa: int = 1, max_states: int | None = None, boundary: bool = False,
                 options: RunOptions = DEFAULT_OPTIONS):
        """In reference mode (`options`) no proved direction is used: a box region is decided by both of
        its ends (`accuracy.box_two_ends`, one varying input), and every region the reductions would
        decide goes to the certified branch-and-bound (`region`)."""
        self.claim, self.kappa, self.options = claim, kappa, options
        self.program = claim.program
        self.bounds = claim.points.bounds
        self.checks = claim_checks(claim, boundary)
        self.monotone = Monotonicity(self.program, isinstance(claim.input_distance, NumericSparseInput))
        self.checks.append(("program-shape", "straight-line Laplace program: every path's event is an "
                            "intersection of half-spaces in the noises shifted by q"))
        # the re-checks, in the run's mode; its max_states (the default for None) bounds p_error's chains too
        self.checker = AccuracyChecker(claim, max_states=max_states, options=options)
        self.reference = not options.allows("corner-reduction")
        self.two_ends = None
        if self.reference:
            from dipc_plus.accuracy import box_two_ends
            if box_two_ends.applies(claim):
                self.two_ends = box_two_ends.TwoEnds(self)

    def run(self) -> AccuracyResult:
        start = time.perf_counter()
        result = AccuracyResult(self.claim, kappa=self.kappa, inputs_kind=BOX, checks=self.checks)
        boxes, polys, others = det_regions_by_shape(self.program, list(self.bounds))
        self.finite_dets = [{n: det[n] for n in self.monotone.finite}
                            for det in [b.det for b in boxes + polys] + [o[0] for o in others]]
        gammas = gammas_of(self.claim)
        for det, text, why in others:
            for g in gammas:
                result.regions.append(RegionResult(det, text, None, Fraction(g), UNDECIDED, "none",
                                                   f"check 'box-region': {why}"))
        for region in boxes + polys:
            share = region_share(self.bounds, region)
            for g in gammas:
                t = time.perf_counter()
                # share 0: no input of the box has dd > 0 (see `region_share`)
                verdict, method, reason, cex = (MISSES_BOX if share == 0 else self.region(region, Fraction(g)))
                result.regions.append(RegionResult(region.det, region.condition, share, Fraction(g), verdict,
                                                   method, reason, time.perf_counter() - t))
                if cex is not None:
                    result.found = cex
                    result.seconds = time.perf_counter() - start
                    return result
        if not self.reference and not any("check 'monotone'" in r.reason for r in result.regions):
            self.checks.append(("monotone", "P[out = det] monotone in every input on every region decided, "
                                "from one sign per input in the half-spaces of the paths to it"))
            if polys:
                self.checks.append(("monotone along the facets", "on each region that is a polyhedron, "
                                    "P[out = det] is non-decreasing in every input part c.q of the half-spaces "
                                    "of its paths (no c occurs with -c; else non-increasing in those of the other "
                                    "outputs' paths); its worst point at distance d minimises each c.q over the "
                                    "region shrunk by d (exact LPs); dd = the least (a.q - b)/||a||_1 over its "
                                    "facets; a union of paths with one det is covered by convex pieces at distance "
                                    "d from its complement (the other outputs' paths), each with its worst point"))
        result.seconds = time.perf_counter() - start
        return result

    def region(self, region: Region, gamma: Fraction):
        """(verdict, method, reason, counterexample or None) on one det region: by its worst point where
        monotonicity is proved, else (or where that leaves it open) by the certified branch-and-bound
        over (input, eps) of `accuracy.region_bnb`, a general prover that runs in reference mode too."""
        found = self.region_by_shape(region, gamma)
        if found[0] != UNDECIDED or not self.bnb_applies():
            return found
        from dipc_plus.accuracy.region_bnb import RegionBnB
        try:
            verdict, method, reason, cex = RegionBnB(self, region, gamma).decide()
        except UserError as exc:          # the symbolic engine does not apply to this program
            return found[:2] + (f"{found[2]}; no closed form in (input, eps): {exc.message}", None)
        if verdict == UNDECIDED:
            return found[:2] + (f"{found[2]}; {reason}", None)
        return verdict, method, reason, cex

    @functools.cached_property
    def symbolic_paths(self):
        """The program's symbolic paths (`semantics.symbolic_chain`), walked once when a piece needs them."""
        from dipc_plus.semantics.symbolic_chain import symbolic_paths
        return symbolic_paths(self.program)

    def bnb_applies(self) -> bool:
        """The branch-and-bound reads P_err as 1 - P[out = det] with finite outputs: L-inf inputs (with them
        `claim_checks` proved zero-one outputs, and `Monotonicity` refused real outputs)."""
        return isinstance(self.claim.input_distance, LinfInput)

    def region_by_shape(self, region: Region, gamma: Fraction):
        """(verdict, method, reason, counterexample or None) on one det region by a shape argument."""
        if (trivial := within_one(self.claim, gamma)) is not None:
            return trivial
        if isinstance(region, (PolyRegion, UnionRegion)):
            return self.polyhedral(region, self.monotone.output(region.det), gamma)
        if self.two_ends is not None:
            return self.two_ends.region(region, gamma)
        if self.reference:          # no corner without a proved direction: the branch-and-bound decides
            return UNDECIDED, "none", switched_off("corner-reduction"), None
        atoms = self.monotone.output(region.det)
        why = self.real_output_checks(region, atoms)
        path = why or self.worst_path(region, atoms)
        if isinstance(path, str):
            return UNDECIDED, "none", path, None
        return self.along(region, path, atoms, gamma)

    def worst_path(self, region, atoms):
        """The region's worst point v(d): a `CornerPath` on a box region, a `polyhedral.WorstPath` on a
        convex polyhedron; or why monotonicity is not proved (the failed check, in words)."""
        if isinstance(region, PolyRegion):
            functionals = monotone_functionals(self.monotone, region.det)
            if isinstance(functionals, str):
                return f"check 'monotone': {functionals}"
            return WorstPath(self.bounds, region, functionals)
        directions = {n: atoms.direction(n) for n in self.bounds}
        for n, k in directions.items():
            if k is None:
                return (f"check 'monotone': {n} has both signs in the half-spaces of the paths to this output "
                        "(P[out = det] not proved monotone in it)")
        return self.corner_path(region, directions)

    def corner_path(self, region: Region, directions: dict) -> CornerPath:
        """The corner path of these directions (`accuracy.box_two_ends` asks for both ends of a region:
        it cannot import this module, which imports it)."""
        return CornerPath(self.bounds, region, directions)

    def polyhedral(self, region, atoms, gamma: Fraction):
        """A region that is a convex polyhedron (`accuracy.polyhedral`) or a union of paths with one det
        (`accuracy.union_regions`, each convex piece of its cover in turn): the worst-point path, then the
        same sentences as a corner path."""
        if not self.options.allows("polyhedral-worst-point"):
            return UNDECIDED, "none", switched_off("polyhedral-worst-point"), None
        if self.monotone.reals_out or isinstance(self.claim.input_distance, NumericSparseInput):
            return UNDECIDED, "none", ("check 'box-region': a region that is not a box, with real outputs or "
                                       "the numeric-sparse distance"), None
        functionals = monotone_functionals(self.monotone, region.det)
        if isinstance(functionals, str):
            return UNDECIDED, "none", f"check 'monotone': {functionals}", None
        pieces = region.cover(self.bounds) if isinstance(region, UnionRegion) else [region]
        if isinstance(pieces, str):
            return UNDECIDED, "none", f"check 'box-region': {pieces}", None
        found = []
        for piece in pieces:
            path = WorstPath(self.bounds, piece, functionals)
            if path.finite and path.dmax <= 0:
                continue
            verdict, method, reason, cex = self.along(piece, path, atoms, gamma)
            if cex is not None:
                return verdict, method, reason, cex
            found.append((verdict, method, reason, piece))
        return union_verdict(found, len(pieces) > 1)

    def corner_sentences(self, corner, atoms, gamma: Fraction) -> list:
        """The sentences (kind, d0, d1, a, s) a finite worst-point path reduces the claim to, the same for
        deciding them (`along`) and for reading them as ratios (`accuracy.box_sweep`): none when dd <= alpha
        on the path; for a numeric alpha one CLOSURE sentence at d0 = d1 = alpha, a = the closure point
        v(alpha) (None: no worst point there); else one per piece of the path: FIXED (v(d) = a, one
        sentence at d1), HOMOGENEOUS (one sentence in x = eps*d) or TWO_VARIABLE (one in (d, eps))."""
        low = Fraction(0) if self.claim.alpha == "dd" else Fraction(self.claim.alpha)
        if corner.dmax <= low:
            return []
        if self.claim.alpha != "dd":
            return [(CLOSURE, low, low, getattr(corner, "worst", corner.at)(low), None)]
        homogeneous_beta = self.claim.beta_of_alpha_eps(gamma)
        return [(FIXED if not any(s.values()) else HOMOGENEOUS if homogeneous_beta and self.vanishes(atoms, a)
                 and not self.monotone.reals_out else TWO_VARIABLE, d0, d1, a, s) for d0, d1, a, s in corner.pieces()]

    def along(self, region, corner, atoms, gamma: Fraction):
        """(verdict, method, reason, counterexample or None) from the worst-point path `corner`
        (a `CornerPath`, or a `polyhedral.WorstPath`)."""
        if not corner.finite:   # det is this output everywhere: dd = inf at every input
            cex = self.recheck(corner.at(INF))
            if cex is not None:
                return REFUTED, "monotone vertex", "", cex
            return VERIFIED, "monotone vertex (dd = inf)", "", None
        sentences = self.corner_sentences(corner, atoms, gamma)
        if not sentences:
            return NOT_APPLICABLE, "dd <= alpha in the box", "", None
        if sentences[0][0] == CLOSURE:
            return self.numeric_alpha(region, corner, gamma, *sentences[0][2:4])
        methods, undecided = set(), []
        pieces = sentences + [(OPEN, d0, d1, None, None) for d0, d1 in getattr(corner, "open", [])]
        for kind, d0, d1, a, s in pieces:
            verdict, method, reason, cex = self.piece_verdict(kind, region, corner, gamma, d0, d1, a, s)
            if verdict == UNDECIDED:    # a piece left open is searched for a counterexample at once
                cex = self.search(corner, d0, d1)
            if cex is not None:
                return REFUTED, method, "", cex
            if verdict == VERIFIED:
                methods.add(method)
            else:
                undecided.append(reason)
        if undecided:
            return UNDECIDED, "corner", "; ".join(undecided), None
        return VERIFIED, ", ".join(sorted(methods)), "", None

    def piece_verdict(self, kind, region, corner, gamma: Fraction, d0, d1, a, s):
        """(verdict, method, reason, counterexample or None) of one piece d in (d0, d1] of `along`; when
        UNDECIDED, `method` names the search `along` runs next and `reason` says what stays open if it
        finds nothing."""
        if kind == FIXED:   # v(d) = a on the piece: beta(d) is least at d1, one sentence at a
            cex = self.point_sentence(region.det, a, d1, gamma)
            return (VERIFIED if cex is None else REFUTED), "corner (fixed)", "", cex
        if kind == HOMOGENEOUS:
            p_err = self.p_error(region.det, {n: a[n] + s[n] for n in a}, gamma)
            cex = homogeneous_sentence(self.claim, p_err, gamma, self.kappa, d0, d1, corner.at, self.checker,
                                       f"the corner sentence fails on the region {region.condition} but no point "
                                       "of its corner path re-checks")
            return (VERIFIED if cex is None else REFUTED), "corner (homogeneous)", "", cex
        span, searched = f"d in ({fmt_q(d0)}, {fmt_q(d1)}]", f"no counterexample at {len(SEARCH)} rational d"
        if kind == OPEN:
            return UNDECIDED, "worst-point search", f"{span}: the worst point is not proved linear in d; {searched}", None
        verdict, method, reason, cex = self.two_variables(region, gamma, corner, d0, d1, a, s)
        if verdict != UNDECIDED:
            return verdict, method, reason, cex
        why = ("beta is not a function of alpha*eps" if not self.claim.beta_of_alpha_eps(gamma) else
               "the half-spaces do not vanish at the corner's base point")
        return UNDECIDED, "corner search", f"{span}: a sentence in (d, eps) remains ({why}); {reason}; {searched}", None

    def two_variables(self, region, gamma, corner, d0, d1, a, s):
        """The piece's sentence in (d, eps) by `accuracy.box_bnb` (exact closed forms on the cells
        the corner path crosses, then the two-variable procedure)."""
        from dipc_plus.accuracy.box_bnb import decide_piece
        try:
            return decide_piece(self, region, gamma, corner, d0, d1, a, s)
        except UserError as exc:          # the symbolic engine does not apply to this program
            return UNDECIDED, "none", f"no closed form in (d, eps): {exc.message}", None

    def real_output_checks(self, region, atoms) -> str | None:
        """The per-region checks real outputs and the numeric-sparse distance need (None: proved)."""
        if self.monotone.reals_out:
            det = {n: v if isinstance(v, LinForm) else LinForm.constant(v) for n, v in region.det.items()
                   if n in self.monotone.reals_out}
            why = atoms.real_outputs_independent(det)
            if why:
                return f"check 'monotone': {why}"
        if isinstance(self.claim.input_distance, NumericSparseInput):
            why = self.numeric_sparse_facets(region)
            if why:
                return f"check 'box-region': {why}"
        return None

    def numeric_sparse_facets(self, region) -> str | None:
        """Why dd under the numeric-sparse distance is not the distance to R_w's nearest facet, or None.

        It is when (1) every finite facet of R_w is at the threshold T, so moving one input across
        its facet never leaves it >= T on both sides with another value; (2) every real output of
        det on R_w reads only inputs with R_w's lower end T (>= T on R_w), so two inputs of R_w with
        different det are infinitely far; (3) no other region has the same finite outputs, so an
        input across a facet has another det.  (2) and (3) give dd >= the L-inf distance to the
        complement, (1) gives <=."""
        dist = self.claim.input_distance
        T = dist.threshold
        for n in self.bounds:
            for end in region.box.ends(n):
                if end is not None and (end != T or n not in dist.reals):
                    return f"the facet {n} = {fmt_q(end)} of this region is not at the threshold {fmt_q(T)}"
        for name, v in region.det.items():
            if isinstance(v, LinForm):
                for n, _ in v.coeffs:
                    if region.box.ends(n)[0] != T:
                        return f"det's {name} = {v} reads {n}, which is not >= the threshold on this region"
        key = {n: region.det[n] for n in self.monotone.finite}
        if sum(1 for det in self.finite_dets if det == key) != 1:
            return "another det region has the same finite outputs"
        return None

    @staticmethod
    def vanishes(atoms, a: dict) -> bool:
        return all(const + sum((c * a[n] for n, c in coefs), Fraction(0)) == 0 for coefs, const in atoms.parts)

    def p_error(self, det: dict, u: dict, gamma=Fraction(0)) -> ExpFrac:
        """1 - P[P(u) in B(det(u), gamma)] at the input u (det's real outputs read at u)."""
        dist = output_distribution(self.program, u, max_states=self.checker.max_states)
        det_u = {n: v.value(u) if isinstance(v, LinForm) else v for n, v in det.items()}
        return ExpFrac.of(1) - ExpFrac.of(self.claim.ball_probability(dist, u, det_u, Fraction(gamma)))

    def at_point(self, det: dict, u: dict, alpha, gamma) -> bool:
        """for every eps of the claim: P_err(u) <= beta(alpha, gamma)/kappa (one sentence)."""
        p_err = self.p_error(det, u, gamma)
        return decide(beta_bound(self.claim, alpha, gamma, self.kappa) - p_err, ">=", self.claim.eps).holds

    def point_sentence(self, det: dict, u: dict, alpha, gamma) -> Counterexample | None:
        """None when `at_point` holds at the corner point u, else the per-point counterexample there (a
        failed sentence is never counted as proved: CertificationError when u does not re-check)."""
        if self.at_point(det, u, alpha, gamma):
            return None
        cex = self.recheck(u)
        if cex is None:
            raise CertificationError(f"the corner {u} fails its sentence but does not re-check")
        return cex

    def numeric_alpha(self, region, corner, gamma, alpha, closure):
        """alpha a number: every q with dd(q) > alpha has P_err(q) <= P_err(v(alpha)) (S(d) shrinks with d),
        so one sentence at the closure point v(alpha) (None: no worst point there) proves the region."""
        holds = closure is not None and self.at_point(region.det, closure, alpha, gamma)
        return closure_verdict(holds, lambda: self.search(corner, alpha, corner.dmax), "corner (closure point)",
                               "corner search", "v")

    def search(self, corner, d0, d1):
        return search(corner.at, d0, d1, self.checker, self.kappa)

    def recheck(self, u: dict) -> Counterexample | None:
        return recheck(self.checker, u, self.kappa)


def decide_box(claim: AccuracyClaim, kappa: int = 1, max_states: int | None = None,
               boundary: bool = False, options: RunOptions = DEFAULT_OPTIONS) -> AccuracyResult:
    """The box claim decided by the corner reduction (see the module doc), or by the argmax
    worst point when the program is an argmax of noisy reads (`accuracy.argmax_box`); in
    reference mode (`options`) by neither: `reference_box`."""
    from dipc_plus.accuracy import argmax_box
    argmax = argmax_box.selects(claim)
    needed = "argmax-worst-point" if argmax else "corner-reduction"
    if not options.allows(needed):
        return reference_box(claim, kappa, max_states, boundary, options, needed)
    if argmax:
        return argmax_box.ArgmaxBox(claim, kappa, max_states, boundary).run()
    return BoxDecider(claim, kappa, max_states, boundary, options).run()


REFERENCE_METHOD = "per-point check at the box's vertices and centre (reference mode)"
REFERENCE_BNB_METHOD = "certified branch-and-bound per det region (reference mode)"
REFERENCE_VERTICES = 64     # above, the centre alone is searched


def reference_box(claim: AccuracyClaim, kappa: int, max_states: int | None, boundary: bool, options: RunOptions,
                  needed: str) -> AccuracyResult:
    """A box claim without its reductions: the `BoxDecider` in reference mode (both ends of a region
    with one varying input, `accuracy.box_two_ends`; the certified branch-and-bound of
    `accuracy.region_bnb` on every other region); where that leaves the box undecided, or the program
    is not one the symbolic sentences read, the general refuter runs (the per-point check at rational
    points of the box, each a real input, re-checked as a grid claim's).  What neither decides is
    UNDECIDED, naming the reduction switched off.  Never a different verdict."""
    from dipc_plus.accuracy import box_two_ends
    try:
        decided = BoxDecider(claim, kappa, max_states, boundary, options).run()
    except NotReducible:       # not a straight-line program the symbolic sentences read
        return vertex_search(claim, kappa, max_states, boundary, options, needed)
    decided.method = box_two_ends.METHOD if box_two_ends.applies(claim) else REFERENCE_BNB_METHOD
    if decided.verdict != UNDECIDED:
        return decided
    if needed != "corner-reduction":
        decided.method_note = f"; {switched_off(needed)}"
    searched = vertex_search(claim, kappa, max_states, boundary, options, needed)
    return decided if searched.verdict == UNDECIDED else searched


def vertex_search(claim: AccuracyClaim, kappa: int, max_states: int | None, boundary: bool, options: RunOptions,
                  needed: str) -> AccuracyResult:
    """The general refuter alone: the per-point check at the box's centre and (up to REFERENCE_VERTICES)
    vertices; UNDECIDED over the whole box when none refutes."""
    start = time.perf_counter()
    if needed == "corner-reduction":
        checks = claim_checks(claim, boundary)      # the same refusals as the default mode
    else:
        refuse_paper(boundary, NotReducible)
        checks = []
    result = AccuracyResult(claim, kappa=kappa, inputs_kind=BOX, checks=checks, method=REFERENCE_METHOD)
    checker = AccuracyChecker(claim, max_states=max_states, options=options)
    bounds = claim.points.bounds
    points = [{n: (lo + hi) / 2 for n, (lo, hi) in bounds.items()}]     # the centre, then the vertices
    if 2 ** len(bounds) <= REFERENCE_VERTICES:
        points += [dict(zip(bounds, corner)) for corner in itertools.product(*bounds.values())]
    result.found = first_refuted(points, checker, kappa)
    if result.found is None:
        why = f"{switched_off(needed)}; no counterexample at {len(points)} rational point(s) of the box"
        result.regions = [RegionResult({}, "the whole box", Fraction(1), Fraction(g), UNDECIDED, "none", why)
                          for g in gammas_of(claim)]
    result.seconds = time.perf_counter() - start
    return result

"""Reference-mode accuracy boxes of one varying input: both ends of the shrunk region, no monotonicity.

Why: `--reference` switches the corner reduction off (its worst corner rests on proved
monotonicity), which left every box claim undecided unless a vertex refuted it.  When only one
input of the box has positive width, no shape argument is needed: on a box-shaped det region
[lo, hi] the inputs at distance dd = d are exactly lo + d and hi - d (while d is below the
region's limits in the fixed inputs), so the claim is the sentences on these two paths, which
the general provers decide (one-variable certified decision, the two-variable branch-and-bound
of `accuracy.box_bnb`).  Where an end is clipped by the box the sentence there is at a d below
the point's dd, which the claim implies (beta is non-increasing in alpha), so it is still sound.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.accuracy.box_reduction import NOT_APPLICABLE, UNDECIDED, VERIFIED

METHOD = "both ends of the region, certified decision (reference mode)"


def varying_inputs(claim) -> list:
    """The inputs of the claim's box with positive width."""
    return [n for n, (lo, hi) in claim.points.bounds.items() if hi > lo]


def applies(claim) -> bool:
    """One varying input, alpha = dd (a numeric alpha's closure point is a monotonicity argument)."""
    return len(varying_inputs(claim)) == 1 and claim.alpha == "dd"


class TwoEnds:
    """The rule of an `accuracy.box.BoxDecider` (`decider`) in reference mode: the corner decider's
    sentences on the two ends of each box region; no direction is proved."""

    def __init__(self, decider):
        self.decider = decider
        self.bounds, self.monotone = decider.bounds, decider.monotone
        (self.varying,) = varying_inputs(decider.claim)

    def region(self, region, gamma: Fraction):
        """(verdict, method, reason, counterexample or None) on one box-shaped det region (gamma < 1 or
        an output distance other than zero-one: `BoxDecider.region_by_shape` answers gamma >= 1 first)."""
        if self.monotone.reals_out:
            return UNDECIDED, "none", "reference mode: both ends are decided for zero-one outputs only", None
        atoms = self.monotone.output(region.det)
        why = self.decider.real_output_checks(region, atoms)
        if why:
            return UNDECIDED, "none", why, None
        room = self.fixed_room(region)
        if room is not None and room <= 0:
            return NOT_APPLICABLE, "dd <= alpha in the box", "", None
        why = self.plateau(region, room)
        if why:
            return UNDECIDED, "none", why, None
        methods = []
        for direction in (1, -1):
            directions = {n: 1 for n in self.bounds} | {self.varying: direction}
            verdict, method, reason, cex = self.decider.along(region, self.decider.corner_path(region, directions),
                                                              atoms, gamma)
            if verdict != VERIFIED:     # refuted, undecided, or no input of the region is in the claim
                return verdict, method, reason, cex
            methods.append(method)
        return VERIFIED, f"both ends: {', '.join(sorted(set(methods)))}", "", None

    def fixed_room(self, region):
        """The distance from the fixed inputs to the region's facets across them (None: no such facet):
        the least of `Region.limits` at each fixed value c (its (hi - lo)/2 is never below c - lo or
        hi - c, so it does not change the least)."""
        room = [d for n, (c, _) in self.bounds.items() if n != self.varying for d in region.limits(n, c, c)]
        return min(room) if room else None

    def plateau(self, region, room) -> str | None:
        """Why the two ends are not every input at some dd (None: they are).  A fixed input's facet
        at distance F makes every varying value with room >= F have dd = F; an unbounded region has
        dd = inf everywhere: a whole interval of inputs either way, which two paths do not cover."""
        x = self.varying
        own = region.limits(x, *self.bounds[x])
        if not own:
            return "reference mode: dd is not finite along the varying input, so the two ends do not cover the region"
        if room is not None and room <= min(own):
            return ("reference mode: a fixed input's facet is as near as the varying input's, so inputs "
                    "between the two ends share a dd")
        return None

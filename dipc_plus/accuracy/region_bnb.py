"""A det region of a box claim decided by a certified branch-and-bound over (input, eps), no monotonicity.

Why: the corner reduction and the polyhedral worst point (`accuracy.box`, `accuracy.polyhedral`)
rest on P[out = det] being proved monotone along the region; where an input occurs with both
signs on the paths (the middle level of a three-level output) or the route leaves a sentence
open, the region stayed undecided.  This is the general fallback.  The sentence on a region R is

    for every u in R ∩ box with dd(u) > alpha and every eps of the claim:
        P_err(u, eps) <= beta(dd(u), eps)/kappa        (beta(alpha, eps) for a numeric alpha).

P_err = 1 - P[out = det(R)] is an exact closed form in (u, eps) on each cell of the symbolic
engine (`accuracy.box_bnb.correct_pieces`: the cells partition the box).  On a sub-box U of the
box and an eps interval E, every cell that may meet U gives an arb enclosure of its closed form
over U x E (outward rounding); their least lower bound, with beta enclosed over the dd range of
U, bounds F = beta/kappa - P_err from below on U x E.  dd's range on U is exact: dd is the least
facet slack (a.u - b)/||a||_1 of the region (for a union of paths, the least over the other
outputs' paths of their largest facet violation: `accuracy.union_regions`), each linear.  A
sub-box whose dd is <= alpha everywhere is outside the claim; one whose lower bound is >= 0 is
proved; the others are split (best first) within a budget of sub-boxes.  At each one split, the
centre (rational u with dd(u) > alpha, rational eps) is evaluated on its own cell; a certified
F < 0 there is re-checked by the per-point engine, which prints the counterexample.

eps in a bounded interval is compact (eps = 0 is included in the closed hull: every closed form
is continuous there).  An unbounded eps is cut at TAIL_START; on eps >= TAIL_START each term
c eps^n e^(eps g(u)) is enclosed in [0, sup] when g < 0 on U, its largest value on the tail
(a constant term stays itself); a term that does not decay leaves its sub-box open.  What stays
open is UNDECIDED with its sub-boxes listed, never a guess.
"""
from __future__ import annotations

import heapq
import math
from fractions import Fraction

from flint import arb

from dipc_plus.accuracy.box_bnb import NotBuilt, beta_in_d, correct_pieces
from dipc_plus.accuracy.box_reduction import REFUTED, UNDECIDED, VERIFIED
from dipc_plus.accuracy.polyhedral import PolyRegion
from dipc_plus.accuracy.union_regions import UnionRegion
from dipc_plus.decision.box_enclosure import cell_may_meet, linear_range, tail_factor
from dipc_plus.decision.certified import CertificationError, hull, lower_bound, q_ball, working_precision
from dipc_plus.exact.cells import box_of
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.piecewise import Piece
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.execution import limits

METHOD = "certified branch-and-bound over (input, eps)"
TAIL_START = Fraction(8)    # an unbounded eps: [lo, max(TAIL_START, 2 lo)] compact, the rest a tail
PRECISION = 128
SHOWN = 4                   # open sub-boxes named in the reason


class DdRange:
    """dd on the region from its facets: exact values at a point, exact ranges on a sub-box."""

    def __init__(self, region, bounds: dict):
        self.names = list(bounds)
        self.union = isinstance(region, UnionRegion)
        if self.union:
            # dist(u, Q_j) = max(0, max_l (b_l - a_l.u)/||a_l||_1): slack -a.u + b
            self.groups = [[({n: -a for n, a in c.items()}, -b, norm) for c, b, norm in facets]
                           for facets in region.complement]
        else:
            facets = region.facets if isinstance(region, PolyRegion) else box_facets(region, bounds)
            self.groups = [[f] for f in facets]
        self.finite = bool(self.groups)

    def slack_range(self, facet, box: list) -> tuple[Fraction, Fraction]:
        coeffs, b, norm = facet
        lo = hi = -b
        for n, (a0, a1) in zip(self.names, box):
            a = coeffs.get(n, 0)
            lo, hi = lo + min(a * a0, a * a1), hi + max(a * a0, a * a1)
        return lo / norm, hi / norm

    def on(self, box: list) -> tuple[Fraction, Fraction]:
        """(lo, hi) with lo <= dd(u) <= hi for every u of the sub-box in the region (lo may be < 0)."""
        floor = [(Fraction(0), Fraction(0))] if self.union else []    # a distance to a path is never < 0
        ranges = [[self.slack_range(f, box) for f in group] + floor for group in self.groups]
        return min(max(r[0] for r in rs) for rs in ranges), min(max(r[1] for r in rs) for rs in ranges)

    def at(self, u: list) -> Fraction:
        """dd(u) exactly (<= 0 outside the region; > 0 puts u inside it)."""
        return self.on([(x, x) for x in u])[0]


def box_facets(region, bounds: dict) -> list:
    """A box region's finite facets as slacks ({input: +-1}, b, 1)."""
    out = []
    for n in bounds:
        lo, hi = region.box.ends(n)
        if lo is not None:
            out.append(({n: Fraction(1)}, lo, Fraction(1)))
        if hi is not None:
            out.append(({n: Fraction(-1)}, -hi, Fraction(1)))
    return out


class RegionBnB:
    """The branch-and-bound of one region at one gamma (see the module doc)."""

    def __init__(self, decider, region, gamma: Fraction):
        self.decider, self.region, self.gamma = decider, region, gamma
        self.claim = decider.claim
        self.names = list(decider.bounds)
        self.dd = DdRange(region, decider.bounds)
        alpha = self.claim.alpha
        self.alpha = None if alpha == "dd" else Fraction(alpha)
        self.low = Fraction(0) if self.alpha is None else self.alpha
        I = self.claim.eps
        self.e_lo = I.lo
        self.tail = I.hi is None
        self.e_hi = max(TAIL_START, 2 * I.lo) if self.tail else I.hi
        self.boxes = 0
        self.budget = limits.get("region_boxes")     # sub-boxes examined before the region is left undecided

    def decide(self):
        """(verdict, method, reason, counterexample or None)."""
        if not self.dd.finite:
            return UNDECIDED, "none", "dd = inf on this region (no facet)", None
        try:
            self.beta = beta_in_d(self.claim, self.gamma, self.decider.kappa)
            self.pieces = self.cell_pieces()
        except NotBuilt as exc:
            return UNDECIDED, "none", f"{METHOD}: {exc}", None
        self.relevant = self.inputs_read()
        start = [self.start_range(n) for n in self.names]
        heap, opened = [], []

        def push(item):          # a sub-box not proved (F's lower bound < 0) waits its turn, least first
            low = self.lower(*item)
            if low is not None and low < 0:
                heapq.heappush(heap, (low, self.boxes, item))
        for item in [(start, self.e_lo, self.e_hi)] + ([(start, self.e_hi, None)] if self.tail else []):
            push(item)
        while heap and self.boxes < self.budget:
            _, _, (box, e0, e1) = heapq.heappop(heap)
            cex = self.try_point(box, e0, e1)
            if cex is not None:
                return REFUTED, METHOD, "", cex
            halves = self.split(box, e0, e1)
            if halves is None:
                opened.append((box, e0, e1))
                continue
            for item in halves:
                push(item)
        left = opened + [item for _, _, item in sorted(heap)]
        if not left:
            return VERIFIED, f"{METHOD} ({self.boxes} sub-boxes)", "", None
        shown = "; ".join(self.text(*item) for item in left[:SHOWN])
        more = f"; and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
        return UNDECIDED, METHOD, (f"{METHOD}: {len(left)} sub-boxes open after {self.boxes} "
                                   f"(budget {self.budget}, --limit region_boxes=N): {shown}{more}"), None

    # ---------------------------------------------------------------- the closed forms

    def cell_pieces(self) -> list:
        """[Piece]: P[out = det] on the cells of the box (one zero piece when det is never output)."""
        bounds = [self.decider.bounds[n] for n in self.names]
        paths = self.decider.symbolic_paths     # its real inputs are the box's, in order (`claims.box.read_box`)
        key = tuple(self.region.det[n] for n in paths.output_names)
        if key not in paths.paths:
            return [Piece(box_of(bounds), SymbolicForm(len(self.names), {}))]
        return correct_pieces(paths, key, self.region.det, self.gamma, bounds)

    def inputs_read(self) -> set:
        """The indices of the inputs F depends on (dd's facets, the cells, the closed forms): only these
        are split (F is constant along the others)."""
        read = {i for i, n in enumerate(self.names) for group in self.dd.groups for c, _, _ in group if c.get(n)}
        for pc in self.pieces:
            read |= {i for h, _ in pc.cell.constraints for i, a in enumerate(h[:-1]) if a}
            for lv, _, powers in pc.form.terms:
                read |= {i for i, (a, k) in enumerate(zip(lv, powers)) if a or k}
        return read

    def start_range(self, n):
        """The box's range of input n, within the region's ends on a box region (never empty: `BoxDecider.run`
        sends a region here only when its share of the box is positive, and share 0 is every empty range)."""
        bounds = self.decider.bounds[n]
        return self.region.inside(n, *bounds) if hasattr(self.region, "box") else bounds

    def form_ball(self, form: SymbolicForm, box: list, e0, e1) -> arb | None:
        """An enclosure of the form over the sub-box and eps in [e0, e1] (e1 None: eps >= e0)."""
        Q = [hull(a, b) for a, b in box]

        def terms():
            for (lv, le, powers), P in form.terms.items():
                g_lo, g_hi = linear_range(lv, le, box)
                mono = math.prod((x ** k for x, k in zip(Q, powers)), start=arb(1))
                for k, c in enumerate(P.coeffs()):
                    if c:
                        yield arb(c) * mono, k + sum(powers), g_lo, g_hi
        return eps_sum(terms(), e0, e1)

    def beta_ball(self, d_lo, d_hi, e0, e1) -> arb | None:
        D = hull(d_lo, d_hi)
        return eps_sum(((q_ball(c) * D ** j, i, A + min(B * d_lo, B * d_hi), A + max(B * d_lo, B * d_hi))
                        for (i, j, A, B), c in self.beta.terms.items()), e0, e1)

    def lower(self, box: list, e0, e1) -> Fraction | None:
        """A lower bound of F on the sub-box x [e0, e1]; None: no input of it is in the claim (dd <= alpha)."""
        self.boxes += 1
        d_lo, d_hi = self.dd.on(box)
        if d_hi <= self.low:
            return None
        if self.alpha is not None:
            d_lo = d_hi = self.alpha
        with working_precision(PRECISION):
            beta = self.beta_ball(max(d_lo, Fraction(0)), d_hi, e0, e1)
            if beta is None:
                return Fraction(-1)
            lows = []
            for pc in self.pieces:
                if not cell_may_meet(pc.cell, box):
                    continue
                p = self.form_ball(pc.form, box, e0, e1)
                if p is None:
                    return Fraction(-1)
                f = beta - 1 + p
                if not f.is_finite():
                    return Fraction(-1)
                lows.append(lower_bound(f))
        if not lows:
            raise CertificationError(f"no cell of the symbolic engine meets the sub-box {box}")
        return min(lows)

    # ---------------------------------------------------------------- refuting and splitting

    def try_point(self, box: list, e0, e1):
        """The per-point counterexample at the sub-box's centre, when F < 0 is certified there."""
        u = [(a + b) / 2 for a, b in box]
        d = self.dd.at(u)
        if d <= self.low:
            return None
        eps = 2 * e0 if e1 is None else (e0 + e1) / 2
        if eps <= 0 or not self.claim.eps.contains(eps):
            return None
        owners = [pc for pc in self.pieces if pc.cell.contains(u)]
        if len(owners) != 1:
            return None
        alpha = d if self.alpha is None else self.alpha
        with working_precision(PRECISION):
            beta = self.beta_ball(alpha, alpha, eps, eps)
            value = beta - 1 + self.form_ball(owners[0].form, [(x, x) for x in u], eps, eps)
        if not value < 0:
            return None
        point = dict(zip(self.names, u))
        cex = self.decider.recheck(point)
        if cex is None:
            raise CertificationError(f"F < 0 certified at {point}, eps = {fmt_q(eps)} but the per-point path "
                                     "does not refute it")
        return cex

    def split(self, box: list, e0, e1):
        """The two halves along the widest coordinate (relative to the box; eps on its compact part)."""
        widths = [(b - a) / (hi - lo) if hi > lo and i in self.relevant else Fraction(0)
                  for i, ((a, b), (lo, hi)) in enumerate(zip(box, (self.decider.bounds[n] for n in self.names)))]
        e_width = Fraction(0) if e1 is None or self.e_hi == self.e_lo else (e1 - e0) / (self.e_hi - self.e_lo)
        best = max(range(len(widths)), key=lambda i: widths[i]) if widths else None
        if e_width > (widths[best] if best is not None else 0):
            mid = (e0 + e1) / 2
            return [(box, e0, mid), (box, mid, e1)]
        if best is None or widths[best] < Fraction(1, 2 ** 16):
            return None
        a, b = box[best]
        mid = (a + b) / 2
        return [(box[:best] + [(a, mid)] + box[best + 1:], e0, e1),
                (box[:best] + [(mid, b)] + box[best + 1:], e0, e1)]

    def text(self, box: list, e0, e1) -> str:
        parts = [f"{n} in [{fmt_q(a)}, {fmt_q(b)}]" for n, (a, b) in zip(self.names, box)]
        parts.append(f"eps >= {fmt_q(e0)}" if e1 is None else f"eps in [{fmt_q(e0)}, {fmt_q(e1)}]")
        return ", ".join(parts)


def eps_sum(terms, e0, e1) -> arb | None:
    """An enclosure of the sum of c * eps^power * e^(eps*g) over `terms` (c, power, g_lo, g_hi), g in
    [g_lo, g_hi] and eps in [e0, e1], or on the tail eps >= e0 when e1 is None (None: a term does not
    decay there)."""
    E = None if e1 is None else hull(e0, e1)
    total = arb(0)
    for c, power, g_lo, g_hi in terms:
        factor = tail_factor(power, g_lo, g_hi, e0) if E is None else E ** power * (E * hull(g_lo, g_hi)).exp()
        if factor is None:
            return None
        total += c * factor
    return total

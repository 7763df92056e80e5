"""Box privacy for finite outputs by a certified branch-and-bound over (u, d = u' - u, eps) (issue 38, method 3).

Why: the coupling, density-ratio and worst-neighbour bounds each need a shape (the online class,
no input-only comparison, monotone outputs); this is the general fallback.  For every finite
output o, every u of the box, every offset d of the adjacency set with u' = u + d in the box and
every eps of the claim:

    G = f e^(k eps) P[o | u'] - P[o | u] >= 0        (the budget is ln f + k eps).

P[o | .] is an exact closed form on each cell of the symbolic engine (`SymbolicDistribution`):
sum c eps^n q^a e^(eps g(q)).  So G is a sum of such terms over (u, d), every exponent linear.
G = 0 at eps = 0 whenever the coefficient sum S0 of its eps-free terms is 0 (at eps = 0 no input
matters), so we bound H = G/eps instead: a term with n >= 1 loses one eps, and the eps-free ones
sum to S0/eps + sum c g phi(eps g), phi(x) = (e^x - 1)/x (increasing, so enclosed from its ends).
On a sub-box U x D x [e0, e1] every pair of cells that may meet U and U + D gives an arb
enclosure (outward rounding) of H; their least lower bound >= 0 proves the sub-box.  An unbounded
eps is cut at TAIL_START; on eps >= T, G is divided by one of its own terms eps^n* e^(eps h*) (the
pivot), so every other term becomes eps^(n - n*) e^(eps (h - h*)) with h - h* linear in (u, d):
enclosed when it decays there (`tail_factor`), else the pivot is no good; the best pivot's bound
is kept.  Sub-boxes whose u' leaves the box (or whose d lies outside the l1 ball) are dropped.

Unclosed sub-boxes are split (best first, widest relative side) within the `pair_boxes` limit; at each split
the centre (u, d, eps) rational is evaluated, and a certified G < 0 there is re-checked by the
per-pair exact engine (`check_dp` on {u, u'}), whose counterexample is the refutation.  What stays
open is UNDECIDED with its sub-boxes listed, never a guess.

Enclosures: the zeroth-order one above; near eps = 0 the exact series of G/eps in eps
(`decision.first_order`: its first-order cancellation is exact); elsewhere the mean-value form in
(u, d, eps) (the same module).  The best of them is kept.  In the portfolio
(`box.PORTFOLIO`) it runs last, after the searches for a counterexample, within
the `pair_boxes` limit (a few seconds on a claim it cannot close).
"""
from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from dipc_plus.decision.box_enclosure import cell_may_meet, linear_range, tail_factor
from dipc_plus.decision.certified import CertificationError, hull, lower_bound, q_ball, upper_bound, working_precision
from dipc_plus.decision.first_order import MEAN_VALUE, SERIES, FirstOrderForm
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.exact.convert import fmt_q
from dipc_plus.privacy.dp.density_ratio import BOUNDED
from dipc_plus.semantics import ir
from dipc_plus.semantics.symbolic_chain import symbolic_paths
from dipc_plus.semantics.symbolic_distribution import SymbolicDistribution

METHOD = "certified branch-and-bound over (u, u' - u, eps)"
TAIL_START = Fraction(8)    # an unbounded eps: [lo, max(TAIL_START, 2 lo)] compact, the rest a tail
PRECISION = 128
NARROWEST = Fraction(1, 2 ** 12)   # a side (relative to its start) not split further
SHOWN = 4


class NotApplicable(Exception):
    """The claim is outside this prover's whitelist (the reason is the message)."""


@dataclass
class Term:
    """c eps^n prod(x_i^a_i) e^(eps (g.(u, d) + g0)), x = u (side 0) or u' = u + d (side 1)."""
    c: Fraction
    n: int
    g: tuple          # coefficients over (u_1..u_p, d_1..d_p)
    g0: Fraction
    powers: tuple
    side: int
    lv: tuple = ()    # the exponent's coefficients over x alone


@dataclass
class PairBnB:
    """The outcome: verdict ('verified' / 'refuted' / 'undecided' / '' when not applicable)."""
    verdict: str = ""
    reason: str = ""
    boxes: int = 0
    refutation: object = None     # the per-pair PairCheck that refuted the claim
    open_boxes: list = field(default_factory=list)

    @property
    def method(self) -> str:
        return f"{METHOD} ({self.boxes} sub-boxes)"

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "reason": self.reason, "sub_boxes": self.boxes,
                "open": list(self.open_boxes)}


def phi_ball(x: arb) -> arb:
    """(e^x - 1)/x (1 at 0) over the ball x: increasing, so the hull of its values at the ends."""
    def at(t: Fraction) -> arb:
        if t == 0:
            return arb(1)
        b = q_ball(t)
        return b.expm1() / b
    lo, hi = lower_bound(x), upper_bound(x)
    return hull(lower_bound(at(lo)), upper_bound(at(hi)))


def piece_terms(form, side: int, p: int, scale: Fraction, shift: Fraction) -> list:
    """A cell's closed form (in v = eps q) as Terms in (u, d), times scale e^(shift eps)."""
    out = []
    for (lv, le, powers), P in form.terms.items():
        g = tuple(lv) + (tuple(lv) if side else (Fraction(0),) * p)
        for k, c in enumerate(P.coeffs()):
            if c:
                out.append(Term(scale * Fraction(int(c.p), int(c.q)), k + sum(powers), g,
                                Fraction(le) + shift, tuple(powers), side, tuple(lv)))
    return out


def tightened(box: list, cell) -> list | None:
    """The box shrunk by one pass of each of the cell's constraints h.(q, 1) op 0 (on its closure),
    or None when no point of the box satisfies one of them."""
    box = list(box)
    for h, op in cell.constraints:
        for sign in ((1, -1) if op == "==" else (1,)):
            coeffs, const = [sign * a for a in h[:-1]], sign * h[-1]
            lo, _ = linear_range(coeffs, const, box)
            if lo > 0:
                return None
            for i, a in enumerate(coeffs):
                if not a:
                    continue
                a0, a1 = box[i]
                rest = lo - min(a * a0, a * a1)       # the least of the other terms
                bound = Fraction(-rest, 1) / a        # a x_i <= -rest
                box[i] = (a0, min(a1, bound)) if a > 0 else (max(a0, bound), a1)
                if box[i][0] > box[i][1]:
                    return None
    return box


def cached(cache: dict, owners: tuple, extra, build):
    """build() once per (owners, extra): the owners' ids are the key, and the owners are kept beside the
    value so that an id reused by a new object is not taken for the old one."""
    key = (*map(id, owners), extra)
    hit = cache.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], owners)):
        hit = cache[key] = (owners, build())
    return hit[1]


def pivot_key(pivot) -> tuple | None:
    return None if pivot is None else (pivot.g, pivot.g0, pivot.n)


def relative(t: Term, pivot) -> tuple:
    """t's exponent minus the pivot's (none: 0), (coefficients over (u, d), constant): linear in (u, d)."""
    if pivot is None:
        return t.g, t.g0
    return tuple(x - y for x, y in zip(t.g, pivot.g)), t.g0 - pivot.g0


class PairSearch:
    """The branch-and-bound of one claim (see the module doc)."""

    def __init__(self, claim):
        self.claim = claim
        check_whitelist(claim)
        program = claim.program
        try:
            paths = symbolic_paths(program)
        except UserError as exc:
            raise NotApplicable(f"the symbolic engine does not take the program: {exc.message}") from None
        self.names = list(paths.real_inputs)
        if sorted(self.names) != sorted(claim.box_bounds):
            raise NotApplicable("the symbolic engine's inputs are not the box's")
        self.p = len(self.names)
        self.bounds = [tuple(Fraction(x) for x in claim.box_bounds[n]) for n in self.names]
        ends = [x for b in self.bounds for x in b]
        scale = math.lcm(1, *(x.denominator for x in ends)) * max([1, *(math.ceil(abs(x)) for x in ends)])
        if scale > limits.get("box_scale"):
            # the enclosures' exponents grow with the inputs (e^(eps q)): past the exact checks' own bound
            # a sub-box costs minutes (a box [0, 10^9] kept one claim busy for them)
            raise NotApplicable(f"the box's bounds are too large for its enclosures (common denominator times "
                                f"largest size {limits.clip(str(scale), 30)} > box_scale {limits.get('box_scale')})")
        self.sd = SymbolicDistribution(paths, self.bounds)
        self.k, self.f = claim.budget.k, claim.budget.factor
        I = claim.eps.interval
        self.e_lo, self.tail = I.lo, I.hi is None
        self.e_hi = max(TAIL_START, 2 * I.lo) if self.tail else I.hi
        self.B = claim.adjacency.bound
        self.boxes = 0
        self.budget = limits.get("pair_boxes")     # sub-boxes examined (all outputs together) before it gives up
        self.forms: dict = {}
        self.pair_terms: dict = {}
        unit = [[Fraction(int(i == j)) for j in range(2 * self.p)] for i in range(self.p)]
        self.readers = [unit, [[Fraction(int(j % self.p == i)) for j in range(2 * self.p)] for i in range(self.p)]]

    # ---------------------------------------------------------------- the search

    def decide(self) -> PairBnB:
        heap, order = [], itertools.count()
        try:
            outputs = {o: self.sd.pieces(o) for o in self.sd.outputs()}
        except UserError as exc:
            return PairBnB("undecided", f"{METHOD}: {exc.message}")

        def push(o, items) -> None:
            """Each sub-box that is not proved (its lower bound below 0) onto the heap, lowest first."""
            for item in items:
                low = self.lower(outputs[o], *item)
                if low is not None and low < 0:
                    heapq.heappush(heap, (low, next(order), o, item))
        for o, pieces in outputs.items():
            push(o, self.starts(pieces))
        opened = []
        while heap and self.boxes < self.budget:
            low, _, o, item = heapq.heappop(heap)
            r = self.try_centre(outputs[o], *item)
            if r is not None:
                return PairBnB("refuted", "", self.boxes, r)
            halves = self.split(*item)
            if halves is None:
                opened.append((o, item))
            else:
                push(o, halves)
        left = opened + [(o, item) for _, _, o, item in sorted(heap)]
        if not left:
            return PairBnB("verified", "", self.boxes)
        texts = [self.text(o, *item) for o, item in left]
        more = f"; and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
        return PairBnB("undecided", f"{METHOD}: {len(left)} sub-boxes open after {self.boxes} (budget "
                       f"{self.budget}, --limit pair_boxes=N): {'; '.join(texts[:SHOWN])}{more}", self.boxes, None, texts)

    def starts(self, pieces) -> list:
        """The first sub-boxes (U, D, e0, e1): the box, the adjacency's offsets (only in the inputs the
        closed forms read: P does not depend on the others, so moving them only spends the budget)."""
        read = self.inputs_read(pieces)
        U = [b if i in read else (b[0], b[0]) for i, b in enumerate(self.bounds)]   # P is constant along the others
        zero = (Fraction(0), Fraction(0))
        spans = [(lo - hi, hi - lo) for lo, hi in self.bounds]
        move = [(max(-self.B, a), min(self.B, b)) for a, b in spans]
        if self.claim.adjacency.kind == "one-position":
            Ds = [[move[i] if j == i else zero for j in range(self.p)] for i in sorted(read)]
        else:
            Ds = [[move[i] if i in read else zero for i in range(self.p)]] if read else []
        eps = [(self.e_lo, self.e_hi)] + ([(self.e_hi, None)] if self.tail else [])
        return [(U, D, e0, e1) for D in Ds for e0, e1 in eps]

    def inputs_read(self, pieces) -> set:
        """The inputs P[o | .] depends on: those its closed forms or its inner cuts read (the box's own
        facets are constraints of every cell and split nothing)."""
        read = set()
        for pc in pieces:
            for lv, _, powers in pc.form.terms:
                read |= {i for i, (a, k) in enumerate(zip(lv, powers)) if a or k}
            for h, _ in pc.cell.constraints:
                if sum(1 for a in h[:-1] if a) > 1 or not self.box_facet(h):
                    read |= {i for i, a in enumerate(h[:-1]) if a}
        return read

    def box_facet(self, h) -> bool:
        """Is h.(q, 1) <= 0 one of the box's own facets (q_i <= hi or -q_i <= -lo)?"""
        (i, a), = [(i, a) for i, a in enumerate(h[:-1]) if a]
        lo, hi = self.bounds[i]
        return Fraction(-h[-1], a) in (lo, hi)

    def partner_box(self, U, D):
        """U + D clipped to the box, or None when no u' of the sub-box stays in it."""
        out = []
        for (a, b), (c, d), (lo, hi) in zip(U, D, self.bounds):
            x, y = max(a + c, lo), min(b + d, hi)
            if x > y:
                return None
            out.append((x, y))
        return out

    def outside_ball(self, D) -> bool:
        if self.claim.adjacency.kind != "l1":
            return False
        least = sum((min(abs(a), abs(b)) if a * b > 0 else Fraction(0)) for a, b in D)
        return least > self.B

    # ---------------------------------------------------------------- the enclosures

    def pairs_of_cells(self, pieces, U, V):
        firsts = [pc for pc in pieces if cell_may_meet(pc.cell, U)]
        seconds = [pc for pc in pieces if cell_may_meet(pc.cell, V)]
        if not firsts or not seconds:
            raise CertificationError("no cell of the symbolic engine meets a sub-box of the box")
        return firsts, seconds

    def terms(self, first, second) -> list:
        """G's terms on a pair of cells, equal functions merged (their coefficients added exactly);
        built once per pair (the enclosures' forms are cached on the list)."""
        def build() -> list:
            merged: dict = {}
            for t in (piece_terms(first.form, 0, self.p, Fraction(-1), Fraction(0)) +
                      piece_terms(second.form, 1, self.p, self.f, self.k)):
                key = (t.g, t.g0, t.n, t.powers, t.side if any(t.powers) else 0)
                old = merged.get(key)
                merged[key] = t if old is None else dataclasses.replace(old, c=old.c + t.c)
            return [t for t in merged.values() if t.c]
        return cached(self.pair_terms, (first, second), None, build)

    def lower(self, pieces, U, D, e0, e1) -> Fraction | None:
        """A lower bound of H = G/eps (or of G over its pivot on a tail) on the sub-box; None when
        no pair of it is in the claim (u' leaves the box, d outside the ball)."""
        self.boxes += 1
        V = self.partner_box(U, D)
        if V is None or self.outside_ball(D):
            return None
        firsts, seconds = self.pairs_of_cells(pieces, U, V)
        least = None
        with working_precision(PRECISION):
            for a in firsts:
                Ua = tightened(U, a.cell)
                for b in seconds:
                    Vb = None if Ua is None else tightened(V, b.cell)
                    if Vb is None:
                        continue        # no pair of the sub-box has u in a and u' in b
                    terms = self.terms(a, b)
                    value = self.best_lower(terms, Ua, D, Vb, e0, e1)
                    least = value if least is None else min(least, value)
                    if least < 0:
                        return least
        return least

    def monomial(self, t: Term, U, V) -> arb:
        out = arb(1)
        for (a, b), k in zip(V if t.side else U, t.powers):
            if k:
                out *= hull(a, b) ** k
        return out

    def best_lower(self, terms, U, D, V, e0, e1) -> Fraction:
        """max over pivots (each distinct exponent of a positive term, and none) of `pivot_lower`."""
        best, tried = None, set()
        for pivot in [None, *terms]:
            key = pivot_key(pivot)
            if (pivot is not None and pivot.c <= 0) or key in tried or (pivot is None and e1 is None):
                continue
            tried.add(key)
            value = self.pivot_lower(terms, pivot, U, D, V, e0, e1)
            best = value if best is None else max(best, value)
            if best >= 0:
                break
        return Fraction(-1) if best is None else best

    def exponent_range(self, t: Term, pivot, U, D, V) -> tuple:
        """The range of h - h* over the sub-box: over (u, d) jointly, intersected with the difference
        of the two exponents' ranges on their own (cell-tightened) boxes."""
        lo, hi = linear_range(*relative(t, pivot), U + D)
        a_lo, a_hi = linear_range(t.lv, t.g0, V if t.side else U)
        b_lo, b_hi = (Fraction(0), Fraction(0)) if pivot is None else \
            linear_range(pivot.lv, pivot.g0, V if pivot.side else U)
        return max(lo, a_lo - b_hi), min(hi, a_hi - b_lo)

    def pivot_lower(self, terms, pivot, U, D, V, e0, e1) -> Fraction:
        """The best lower bound of G over the pivot: the zeroth-order one (`zeroth_lower`), then, on a
        compact eps range and while it is below 0, the exact series near eps = 0 and the mean-value form."""
        low = self.zeroth_lower(terms, pivot, U, D, V, e0, e1)
        Dt = None if e1 is None else self.offsets_between(U, D, V)
        if Dt is None:
            return low
        for kind in (SERIES, MEAN_VALUE) if e0 == 0 else (MEAN_VALUE,):
            if low >= 0:
                break
            better = self.first_order_lower(kind, terms, pivot, list(U) + Dt, e0, e1)
            if better is not None and better > low:
                low = better
        return low

    def offsets_between(self, U, D, V) -> list | None:
        """D narrowed to the offsets that reach V from U (None when none does)."""
        Dt = [(max(c, y0 - a1), min(d, y1 - a0)) for (c, d), (a0, a1), (y0, y1) in zip(D, U, V)]
        return None if any(a > b for a, b in Dt) else Dt

    def first_order_lower(self, kind: str, terms, pivot, Z, e0, e1) -> Fraction | None:
        """A lower bound of G / e^(eps h*) (divided by eps too when e0 = 0) on Z x [e0, e1], Z = U x D'
        with D' the offsets that reach V from U, by the `decision.first_order` form of that kind (cached
        per list of terms, pivot, kind and e0 = 0); None when it gives nothing."""
        def build() -> FirstOrderForm:
            rows = [(t.c, t.n, t.powers, t.side, relative(t, pivot)) for t in terms]
            return FirstOrderForm(kind, rows, 2 * self.p, self.readers, by_eps=e0 == 0)
        return cached(self.forms, (terms,), (pivot_key(pivot), kind, e0 == 0), build).lower(Z, e0, e1)

    def zeroth_lower(self, terms, pivot, U, D, V, e0, e1) -> Fraction:
        """A lower bound of G / e^(eps h*) over the sub-box, h* the pivot's exponent (0 for None); the
        exponents' differences h - h* are linear in (u, d), so their ranges are exact and a large
        common factor cancels.  Divided further by eps (e0 = 0: the eps-free terms through phi and
        their coefficient sum S0) or by eps^n* (the tail eps >= e0, e1 None)."""
        pn = 0 if pivot is None else pivot.n
        E = None if e1 is None else hull(e0, e1)
        s0 = Fraction(0)
        total = arb(0)
        for t in terms:
            g_lo, g_hi = self.exponent_range(t, pivot, U, D, V)
            if E is None:
                factor = tail_factor(t.n - pn, g_lo, g_hi, e0)
                if factor is None:
                    return Fraction(-1)
            elif e0 > 0:
                factor = E ** t.n * (E * hull(g_lo, g_hi)).exp()
            elif t.n == 0:            # (e^(eps g) - 1)/eps = g phi(eps g); the 1's sum to S0/eps
                s0 += t.c
                G = hull(g_lo, g_hi)
                factor = G * phi_ball(E * G)
            else:
                factor = E ** (t.n - 1) * (E * hull(g_lo, g_hi)).exp()
            total += q_ball(t.c) * self.monomial(t, U, V) * factor
        if not total.is_finite():
            return Fraction(-1)
        low = lower_bound(total)
        if s0 > 0:
            low += s0 / e1
        elif s0 < 0:
            return Fraction(-1)       # e0 = 0: G/eps is unbounded below near eps = 0
        return low

    # ---------------------------------------------------------------- refuting and splitting

    def try_centre(self, pieces, U, D, e0, e1):
        """The per-pair refutation at the sub-box's centre, when G < 0 is certified there."""
        u = [(a + b) / 2 for a, b in U]
        d = [(a + b) / 2 for a, b in D]
        if self.claim.adjacency.kind == "l1" and sum(abs(x) for x in d) > self.B:
            return None
        w = [x + y for x, y in zip(u, d)]
        if not any(d) or not all(lo <= x <= hi for x, (lo, hi) in zip(w, self.bounds)):
            return None
        eps = 2 * e0 if e1 is None else (e0 + e1) / 2
        if eps <= 0 or not self.claim.eps.interval.contains(eps):
            return None
        P = [pc for pc in pieces if pc.cell.contains(u)]
        Q = [pc for pc in pieces if pc.cell.contains(w)]
        if len(P) != 1 or len(Q) != 1:
            return None
        with working_precision(PRECISION):
            E = q_ball(eps)
            value = arb(0)
            for t in self.terms(P[0], Q[0]):
                x = w if t.side else u
                mono = arb(1)
                for xi, k in zip(x, t.powers):
                    mono *= q_ball(xi) ** k
                g = sum((a * y for a, y in zip(t.g, u + d)), t.g0)
                value += q_ball(t.c) * mono * E ** t.n * (E * q_ball(g)).exp()
        if not value < 0:
            return None
        first, second = dict(zip(self.names, u)), dict(zip(self.names, w))
        from dipc_plus.privacy.dp.check import check_dp       # the per-pair exact check of {u, u'} (both orders)
        r = check_dp(dataclasses.replace(self.claim, explicit_points=[first, second], grid=None, inputs_kind="list"))
        r = None if r.verified else r
        if r is None and not self.claim.events:
            raise CertificationError(f"G < 0 certified at {first}, {second}, eps = {fmt_q(eps)} but the "
                                     "per-pair engine does not refute the pair")
        return r

    def split(self, U, D, e0, e1):
        """The two halves along the widest side relative to its start (eps on its compact part)."""
        sides = []
        for i, ((a, b), (lo, hi)) in enumerate(zip(U, self.bounds)):
            if b > a:
                sides.append(((b - a) / (hi - lo), "u", i))
        for i, (a, b) in enumerate(D):
            if b > a:
                sides.append(((b - a) / (2 * self.B), "d", i))
        if e1 is not None and e1 > e0:
            sides.append(((e1 - e0) / (self.e_hi - self.e_lo), "e", 0))
        if not sides:
            return None
        width, kind, i = max(sides, key=lambda s: s[0])
        if width < NARROWEST:
            return None
        if kind == "e":
            mid = (e0 + e1) / 2
            return [(U, D, e0, mid), (U, D, mid, e1)]
        box = U if kind == "u" else D
        a, b = box[i]
        mid = (a + b) / 2
        halves = [box[:i] + [(a, mid)] + box[i + 1:], box[:i] + [(mid, b)] + box[i + 1:]]
        return [(h, D, e0, e1) if kind == "u" else (U, h, e0, e1) for h in halves]

    def text(self, o, U, D, e0, e1) -> str:
        parts = [f"{n} in [{fmt_q(a)}, {fmt_q(b)}]" for n, (a, b) in zip(self.names, U)]
        parts += [f"{n}' - {n} in [{fmt_q(a)}, {fmt_q(b)}]" for n, (a, b) in zip(self.names, D) if a or b]
        parts.append(f"eps >= {fmt_q(e0)}" if e1 is None else f"eps in [{fmt_q(e0)}, {fmt_q(e1)}]")
        return f"out = {self.sd.output_text(o)}: " + ", ".join(parts)


def check_whitelist(claim) -> None:
    """NotApplicable unless the claim is pure eps-DP on finite outputs of a box, at an eps interval,
    under an adjacency whose offsets form a box or an l1 ball."""
    if claim.adjacency.kind not in BOUNDED:
        raise NotApplicable(f"adjacency {claim.adjacency.kind} (it takes {', '.join(BOUNDED)})")
    if not claim.delta_is_zero:
        raise NotApplicable("delta > 0 (it decides pure eps-DP)")
    if claim.eps.is_log_point or claim.eps.interval is None:
        raise NotApplicable("eps is one point ln r (it takes an interval of eps)")
    if claim.budget.factor < 1 or claim.budget.k < 0:
        raise NotApplicable("the budget is below 0 somewhere (a factor below 1 or a negative multiple of eps)")
    if getattr(claim, "every_output_value", False) or any(isinstance(t, ir.RealT)
                                                         for _, t in claim.program.outputs):
        raise NotApplicable("a real output (it takes finite outputs)")


def pair_bnb_for(claim) -> PairBnB:
    """The branch-and-bound's outcome on a box claim (verdict '' with a reason when it does not apply)."""
    try:
        search = PairSearch(claim)
    except NotApplicable as exc:
        return PairBnB("", f"{METHOD} does not apply: {exc}")
    return search.decide()

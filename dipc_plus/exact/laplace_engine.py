"""Exact P[linear constraints on independent Laplace noises], for every eps at once.

With U_j = eps N_j the densities are eps-free, so the probability is an integral over a
polyhedron whose right-hand sides are rational multiples of eps; it is computed by
bucket (variable) elimination in sample coordinates, and `probability_on_cell` runs the
same elimination with the real inputs kept as symbols.  Exact (no floating point) because
verdicts rest on it.  Design: docs/design/exact_engines.md.

Examples.  N ~ Lap(eps): P[N > 1] = e^(-eps)/2; two of them, P[N_0 - N_1 > 1] =
e^(-eps)(2 + eps)/4 (by hand); and P[N < q] with the input q kept as a symbol on q >= 0,
1 - e^(-eps q)/2, read at q = 2:

>>> from dipc_plus.exact.linear import LinForm, Noise, atom
>>> lap = Noise("lap", Fraction(1))
>>> print(probability((atom(LinForm.make({0: 1}), ">", LinForm.constant(1)),), (lap,)))
1/2*e^(-eps)
>>> print(probability((atom(LinForm.make({0: 1}), ">", LinForm.make({1: 1}, 1)),), (lap, lap)))
1/2*e^(-eps) + 1/4*eps*e^(-eps)
>>> below_q = atom(LinForm.make({0: 1}), "<", LinForm.make({1: 1}))     # noise 0, input 1
>>> form = probability_on_cell((below_q,), (lap,), Cell(1, [((-1, 0), "<=")]))
>>> print(form.at([Fraction(2)]))
1 - 1/2*e^(-2*eps)
>>> clear_caches()          # memos only: the values above stay the same
"""
from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from itertools import groupby
from math import lcm
from operator import add

from dipc_plus.exact.binding_bounds import binding_cases, by_sign
from dipc_plus.exact.cells import Cell, CellPoint, substituted
from dipc_plus.exact.exp_terms import Rescale, TermSpace, add_all_into, clear_term_caches
from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.exact.linear import atom_row, engine_rates
from dipc_plus.exact.memo import remember
from dipc_plus.exact.open_regions import (breakpoint, clear_region_caches, constraint, primitive,
                                          simplify_region)
from dipc_plus.exact.symbolic_terms import SymbolicForm

__all__ = ["probability", "probability_on_cell", "clear_caches"]

_CACHE_LIMIT = 500_000


# --------------------------------------------------------------------------- factors
#
# A factor: dict region -> terms (exp_terms: key -> fmpq_poly in eps); regions and
# their constraints are those of open_regions (primitive int tuples over (u, eps)).


class _Problem:
    """Per-call context: number of noises, their rates on the grid, the term space, and per
    noise the sample coordinate's mean: the sign constraints of its kink and the exponent
    shift e^(s a_x m_x) each side of it contributes.

    With a `cell`, the coordinates are (u_0..u_{n-1}, v_0..v_{p-1}, eps): the p inputs
    v_i = eps q_i are never integrated, a mean is a linear form in (v, eps) (a tuple of
    Fractions), a constraint left without u is resolved by the cell and a breakpoint is a
    `CellPoint` the cell orders.  Without one (p = 0) a mean is (m_x,), the eps coefficient."""

    def __init__(self, rates, D: int, means, cell: Cell | None = None):
        self.n = n = len(rates)
        self.p = p = 0 if cell is None else cell.p
        self.cell = cell
        self.rate_d = [int(r * D) for r in rates]            # a_j on the grid
        self.terms = TermSpace.of(tuple(self.rate_d) + (0,) * p, D)
        self.one = self.terms.one
        self.zero_key = self.terms.zero_key
        # side s of the kink: s (w_x - m_x) > 0, i.e. -s w_x + s m_x < 0 (m_x over (v, eps)),
        # where the density's factor e^(s a_x m_x) adds `offset` (None: nothing) to a term's key
        self.sides = []
        for x, m in enumerate(means):
            den = lcm(*(c.denominator for c in m))
            row = [0] * n + [int(c * den) for c in m]         # den (m_x - w_x)
            row[x] = -den
            a_m = [self.rate_d[x] * c for c in m]             # D makes them whole
            assert all(c.denominator == 1 for c in a_m)
            self.sides.append([(s, constraint([s * c for c in row]),
                                tuple([0] * n + [s * int(c) for c in a_m] + [0] * (n + p)) if any(a_m) else None)
                               for s in (1, -1)])

    def is_unit(self, T: dict) -> bool:
        """Are the terms T the constant 1 (the terms of a constraint's indicator)?"""
        return len(T) == 1 and T.get(self.zero_key) is self.one

    def multiply(self, F: dict, G: dict) -> dict:
        out: dict = {}
        for S1, T1 in F.items():
            unit1 = self.is_unit(T1)
            for S2, T2 in G.items():
                S = simplify_region(S1 | S2)
                if S is None:
                    continue
                if unit1:
                    prod = dict(T2)
                elif self.is_unit(T2):
                    prod = dict(T1)
                else:
                    prod = self.terms.multiply(T1, T2)
                if not prod:
                    continue
                if S in out:
                    add_all_into(out[S], prod)
                else:
                    out[S] = prod
        return {S: T for S, T in out.items() if T}

    def canonical(self, F: dict, scope) -> dict:
        """Factors of at most one variable as a partition into intervals (fewer, disjoint pieces):
        the terms summed per cell between consecutive breakpoints, adjacent cells with equal
        terms merged into one interval, empty cells left out.

        `scope` contains every variable F depends on.
        """
        if len(scope) > 1:
            return F
        if not scope:
            acc: dict = {}
            for S, T in F.items():
                assert not S
                add_all_into(acc, T)
            return {frozenset(): acc} if acc else {}
        (v,) = scope
        pieces, pts = self._intervals(F, v)
        out, first = {}, 0
        for acc, run in groupby(_cell_sums(pieces, pts), key=lambda acc: acc or {}):
            end = first + sum(1 for _ in run)      # the run is cells first .. end - 1
            if acc:
                S = []
                if first > 0:                      # u_v > lo
                    S.append(self.bound_constraint(pts[first - 1], v, -1))
                if end <= len(pts):                # u_v < hi
                    S.append(self.bound_constraint(pts[end - 1], v, 1))
                out[frozenset(S)] = acc
            first = end
        return out

    def _intervals(self, F: dict, v: int) -> tuple[list, list]:
        """Each region of a factor of u_v alone as an interval (lo, hi, terms), None unbounded, and
        the distinct breakpoints of all of them in increasing order."""
        pieces = []
        points = []
        bound_of = breakpoint if self.cell is None else self.cell_breakpoint
        for S, T in F.items():
            lo = hi = None        # None: unbounded
            for c in S:
                upper, b = bound_of(c, v)
                if upper:
                    if hi is None or b < hi:
                        hi = b
                elif lo is None or b > lo:
                    lo = b
            pieces.append((lo, hi, T))
            if lo is not None:
                points.append(lo)
            if hi is not None:
                points.append(hi)
        points.sort()
        return pieces, [b for i, b in enumerate(points) if i == 0 or b != points[i - 1]]

    def bound_constraint(self, b, v: int, side: int) -> tuple:
        """u_v < b (side 1) or u_v > b (side -1) as the constraint side (d u_v - t) < 0, b = t / d:
        a `CellPoint` on a cell, else a rational p/q read as t = (p,) (p eps), d = q."""
        d, t = (int(b.q), (int(b.p),)) if self.cell is None else (b.d, b.t)
        vec = [0] * (self.n + self.p + 1)
        vec[v] = side * d
        for k, c in enumerate(t):
            vec[self.n + k] = -side * c
        return constraint(vec)

    def cell_breakpoint(self, c: tuple, v: int) -> tuple:
        """(is an upper bound, b) for a constraint c on u_v alone: u_v < b or u_v > b, b a
        linear form in (v, eps) the cell orders."""
        s = 1 if c[v] > 0 else -1           # s c_v u_v < -s (c without u)
        return s > 0, CellPoint(tuple(-s * x for x in c[self.n:]), s * c[v], self.cell)

    # -- integration -----------------------------------------------------------
    def integrate(self, F: dict, x: int) -> dict:
        """Integrate U_x (with its density) out of factor F.

        Bounds stay as the constraints that give them: c with c_x < 0 is the
        lower bound x > -(c without x)/c_x, c_x > 0 the upper bound x < -(...)/c_x.
        """
        aD = self.rate_d[x]
        space = self.terms
        px = space.power_index(x)
        out: dict = {}
        for S0, T0 in F.items():
            # per term: the exponent of x (on the grid), the power of x, the rest of the key
            split = [(e[x], e[px], space.without(e, x), p) for e, p in T0.items()]
            for s, sign_c, offset in self.sides[x]:
                S = simplify_region(S0 | {sign_c})
                if S is None:
                    continue
                lowers, uppers, rest = by_sign(S, lambda c: c[x])
                # b (x-coefficient incl. the density on this side, on the grid) per term
                # the density on side s is (a/2) e^(-s a w_x) e^(s a m_x eps): its eps factor
                # joins the rest of each term's key
                sided = []
                for ex, k, e_rest, p in split:
                    bD = ex - s * aD
                    if not uppers and bD >= 0:
                        raise AssertionError("divergent term at +infinity")
                    if not lowers and bD <= 0:
                        raise AssertionError("divergent term at -infinity")
                    sided.append((bD, k, e_rest if offset is None else tuple(map(add, e_rest, offset)), p))
                upper_values = {U: space.at_bound(sided, U, x, 1) for U in uppers}
                lower_values = {L: space.at_bound(sided, L, x, -1) for L in lowers}
                for L, U, rows in binding_cases(lowers, uppers, lambda a, b, strict: _below(a, b, x)):
                    region = self._case_region(rest, rows)
                    if region is None:
                        continue
                    acc = out.setdefault(region, {})
                    for values in (upper_values.get(U), lower_values.get(L)):
                        if values is not None:
                            add_all_into(acc, values)
        return {S: T for S, T in out.items() if T}

    def _case_region(self, rest, rows):
        """The region of rest and the rows of one case of the binding bounds (`binding_cases`)."""
        cons = set(rest)
        symbolic = self.cell is not None
        for vec in rows:
            c = constraint(vec)
            if c is False:
                return None
            if c is not True:
                if symbolic and not any(c[:self.n]):     # decided by the cell (or NeedSplit from it)
                    if self.cell.sign(c[self.n:]) >= 0:
                        return None                   # it fails on the cell: an empty region
                    continue                          # it holds on the cell: dropped
                cons.add(c)
        return simplify_region(frozenset(cons))


def _below(P: tuple, Q: tuple, x: int) -> list:
    """The row "the bound on u_x that constraint P gives < the one Q gives": P says u_x < -P'/P_x
    (or >, by the sign of P_x), so multiplying by P_x Q_x gives sign(P_x Q_x) (P_x Q - Q_x P) < 0."""
    s = 1 if (P[x] > 0) == (Q[x] > 0) else -1
    return [s * (P[x] * q - Q[x] * p) for p, q in zip(P, Q)]


def _cell_sums(pieces: list, pts: list) -> list:
    """The summed terms of the pieces covering each cell between breakpoints (cell k lies between
    pts[k-1] and pts[k], -inf and inf at the ends), None for a cell no piece covers."""
    ncells = len(pts) + 1
    accs = [None] * ncells
    for lo, hi, T in pieces:
        # breakpoints are fmpq, which hash slowly: positions by bisection
        for k in range(0 if lo is None else bisect_left(pts, lo) + 1,
                       ncells if hi is None else bisect_left(pts, hi) + 1):
            acc = accs[k]
            if acc is None:
                accs[k] = dict(T)
            else:
                add_all_into(acc, T)
    return accs


# --------------------------------------------------------------------------- elimination


def elimination_order(constraints, n: int) -> list:
    """Greedy minimum degree on the interaction graph (leaves and star tips first)."""
    adj = {j: set() for j in range(n)}
    for c in constraints:
        vs = [j for j in range(n) if c[j]]
        for i in vs:
            adj[i].update(v for v in vs if v != i)
    used = {j for c in constraints for j in range(n) if c[j]}
    count = {j: sum(1 for c in constraints if c[j]) for j in used}
    order = []
    remaining = set(used)
    while remaining:
        # fewest neighbours; among those, the variable in fewest atoms (fewest bounds to split on)
        x = min(remaining, key=lambda j: (len(adj[j] & remaining), count[j], j))
        nbrs = adj[x] & remaining
        for i in nbrs:
            adj[i].update(nbrs - {i})
        remaining.discard(x)
        order.append(x)
    return order


def probability(atoms: tuple, noises: tuple) -> ExpPoly:
    """P[all atoms hold] for noise i ~ Lap(noises[i].rate * eps, 0), exactly, for every eps > 0."""
    return probability_on_cell(atoms, noises).at(())


def probability_on_cell(atoms: tuple, noises: tuple, cell: Cell | None = None) -> SymbolicForm:
    """P[all atoms hold] as one closed form in (v, eps), valid on the whole cell (over no
    input without one), every noise integrated out.

    Atom coefficients with ids 0..n-1 are the noises (n = len(noises)), ids n..n+p-1 the
    inputs q_0..q_{p-1} of the cell.  An atom of inputs alone must hold or fail on the
    whole cell, and a comparison the engine meets must have one sign on the cell's
    relative interior; otherwise `cells.NeedSplit` is raised for the driver to split.
    On an equality cell the tied inputs are first written in terms of the free ones
    (`Cell.eliminations`): the engine then sees no two bounds that tie on the cell
    without being the same, and the form, in the free inputs only, is canonical there."""
    n, p = len(noises), 0 if cell is None else cell.p
    rates = engine_rates(noises, "lap")
    constraints = _noise_constraints(atoms, n, cell)
    if not constraints:
        return SymbolicForm(p, {}) if constraints is None else SymbolicForm.one(p)
    means = sample_means(constraints, n)
    shifted = shift_to_samples(constraints, means, n)
    # the coarsest exponent grid 1/D that holds every rate and every a_j m_j, refined
    # whenever the elimination asks for it (`Rescale`)
    D = lcm(*(r.denominator for r in rates)) * lcm(*(c.denominator for m in means for c in m))
    while True:
        try:
            return SymbolicForm.from_engine(_eliminate(shifted, rates, D, means, cell), n, p, D)
        except Rescale as grow:
            D *= grow.factor


def _noise_constraints(atoms, n: int, cell: Cell | None = None) -> set | None:
    """The atoms as the engine's strict constraints over (u, [v,] eps), or None when the
    probability is 0 (an atom fails, an equality of continuous noises, an empty region).
    An atom without noise is decided by `holds_constant`, or on a `cell` by `Cell.decide`."""
    p = 0 if cell is None else cell.p
    tied = () if cell is None else cell.eliminations()
    constraints = set()
    for at in atoms:       # at.op is one of linear.OPS: `atom` checks it when it builds the Atom
        vec = atom_row(at, n + p)
        vec[n:] = substituted(vec[n:], tied)    # an equality cell: tied inputs by the free ones
        if not any(vec[:n]):      # no noise; on a cell the probability jumps where it changes truth
            if not (at.holds_constant() if cell is None else cell.decide(primitive(vec[n:]), at.op)):
                return None
        elif at.op == "==":
            return None           # a hyperplane: measure zero for continuous noise
        elif at.op != "!=":       # != holds almost surely
            constraints.add(constraint(vec))
    if constraints and simplify_region(frozenset(constraints)) is None:
        return None
    return constraints


# --------------------------------------------------------------------------- sample coordinates


def sample_means(constraints, n: int) -> list:
    """A mean m_j per noise that zeroes the offset of as many difference constraints as a
    spanning forest allows: a constraint g (u_i - u_j) + k.(v, eps) < 0 becomes g (w_i - w_j) < 0
    when m_i - m_j = k/g.  A mean is a tuple of Fractions over the coordinates after the noises
    ((v_0, .., v_{p-1}, eps); (eps,) alone without a cell).  Any choice is exact (W_j = U_j +
    m_j.(v, eps) is a translation); this one makes a comparison of two samples cut the plane of W
    through the origin, so the comparisons of samples with the same offset share their breakpoints.
    Each tree is rooted at its noise in the most difference constraints, whose mean is 0."""
    edges: dict = {j: [] for j in range(n)}
    width = None
    for c in sorted(constraints):
        width = len(c) - n
        nz = [j for j in range(n) if c[j]]
        if len(nz) == 2 and c[nz[0]] == -c[nz[1]]:
            i, j = nz
            offset = tuple(Fraction(x, c[i]) for x in c[n:])   # m_i - m_j must be this
            edges[i].append((j, tuple(-x for x in offset)))     # m_j = m_i - offset
            edges[j].append((i, offset))
    zero = (Fraction(0),) * (width or 1)
    means: list = [None] * n
    for root in sorted(range(n), key=lambda j: (-len(edges[j]), j)):
        if means[root] is not None:
            continue
        means[root] = zero
        stack = [root]
        while stack:
            i = stack.pop()
            for j, delta in edges[i]:
                if means[j] is None:
                    means[j] = tuple(a + b for a, b in zip(means[i], delta))
                    stack.append(j)
    return means


def shift_to_samples(constraints, means: list, n: int) -> set:
    """Each constraint c.(u, rest) < 0 rewritten over W_j = U_j + m_j.(rest) (primitive
    tuples), `means` as by `sample_means`."""
    den = lcm(*(c.denominator for m in means for c in m))
    ints = [[int(c * den) for c in m] for m in means]      # den * m_j
    out = set()
    for c in constraints:
        vec = [den * v for v in c[:n]]
        for k in range(len(c) - n):
            vec.append(den * c[n + k] - sum(c[j] * ints[j][k] for j in range(n) if c[j]))
        new = constraint(vec)
        assert new is not True and new is not False   # the u-part is unchanged and nonzero
        out.add(new)
    return out


_LEAF_CACHE: dict = {}


def clear_caches() -> None:
    """Forget every memoised region and integral (for cold timings; results never depend on it)."""
    clear_region_caches()
    clear_term_caches()
    _LEAF_CACHE.clear()


def _eliminate(constraints: set, rates: list, D: int, means: list, cell: Cell | None = None):
    """The integral's terms on the grid 1/D, every noise integrated out."""
    prob = _Problem(rates, D, means, cell)
    n = prob.n
    # factors with their scopes (a superset of the variables they depend on)
    factors = [({frozenset([c]): {prob.zero_key: prob.one}}, frozenset(j for j in range(n) if c[j]))
               for c in sorted(constraints)]
    for x in elimination_order(constraints, n):
        bucket = [fs for fs in factors if x in fs[1]]
        others = [fs for fs in factors if x not in fs[1]]
        bucket.sort(key=lambda fs: len(fs[0]))
        prod, scope = bucket[0]
        for f, fscope in bucket[1:]:
            scope = scope | fscope
            prod = prob.canonical(prob.multiply(prod, f), scope)
        scope = scope - {x}
        if len(bucket) == 1 and len(prod) == 1 and all(len(S) == 1 and prob.is_unit(T) for S, T in prod.items()):
            # a single atom: the same integral recurs across problems (a leaf of a star)
            (region,) = prod
            key = (D, prob.rate_d[x], x, prob.sides[x][0][1], next(iter(region)), cell)
            new = _LEAF_CACHE.get(key)
            if new is None:
                new = remember(_LEAF_CACHE, _CACHE_LIMIT, key, prob.canonical(prob.integrate(prod, x), scope))
        else:
            new = prob.canonical(prob.integrate(prod, x), scope)
        factors = others + [(new, scope)]
    result = {frozenset(): {prob.zero_key: prob.one}}
    for f, _ in factors:
        result = prob.canonical(prob.multiply(result, f), ())
    return result.get(frozenset(), {})

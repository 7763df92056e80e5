"""Open polyhedra in (u, eps) with integer constraints: the regions of the Laplace engine.

The engine splits integrals into cases, and each case is a region: a set of
strict inequalities ``c_0 u_0 + ... + c_{n-1} u_{n-1} + c_eps eps < 0``.  A
constraint is the primitive integer tuple (c_0, ..., c_{n-1}, c_eps) (gcd 1):
positive scaling is the only freedom, so that tuple is canonical, hashes as
plain ints and needs no fractions.  A region is a frozenset of constraints.

Boundaries have measure zero, so a region is kept only if it has interior, and
then its irredundant description is canonical: equal regions get equal keys,
which lets the engine add up the pieces of one region.  Feasibility and
redundancy are decided exactly (eps > 0 reduces every comparison of right hand
sides to comparing rationals, done here by cross-multiplying integers): by
interval arithmetic for one-variable constraints, by shortest paths for
difference constraints, and otherwise by the exact simplex of `lp`, whose
interior point certifies most facets by ray shooting.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd, inf, lcm

from flint import fmpq

from dipc_plus.exact import lp
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.memo import remember

__all__ = ["constraint", "simplify_region", "region_is_feasible", "breakpoint", "clear_region_caches",
           "is_difference", "primitive"]

_CACHE_LIMIT = 500_000
_SIMPLIFY_CACHE: dict = {}
_BREAKPOINTS: dict = {}
_MISSING = object()


def primitive(h) -> tuple:
    """h (ints or Fractions, not all zero) scaled by a positive number to coprime integers: the
    one canonical form of a linear row, in the engine's regions, the cells and the atoms.

    >>> from fractions import Fraction
    >>> primitive((2, -4, 6)), primitive((Fraction(1, 2), Fraction(1, 3)))
    ((1, -2, 3), (3, 2))
    """
    if any(type(c) is not int for c in h):
        h = [c if type(c) is Fraction else Fraction(c) for c in h]
        den = lcm(*(c.denominator for c in h))
        h = [c.numerator * (den // c.denominator) for c in h]
    g = gcd(*h)
    return tuple(c // g for c in h) if g > 1 else tuple(h)


def constraint(vec):
    """``vec.(u, eps) < 0`` for rationals `vec`: True/False if no variable is left, else the
    primitive tuple.

    2u - 4 eps < 0 is u - 2 eps < 0; with no u left, -eps < 0 is True and 3 eps < 0 False:

    >>> constraint((2, 0, -4)), constraint((0, 0, -1)), constraint((0, 0, 3))
    ((1, 0, -2), True, False)
    """
    if not any(vec[:-1]):
        return vec[-1] < 0
    return primitive(vec)


def simplify_region(region: frozenset):
    """The irredundant description of an open region, or None if it has no interior.

    u < eps, u < 2 eps, u > 0: the middle one is redundant.

    >>> sorted(simplify_region(frozenset({(1, -1), (1, -2), (-1, 0)})))
    [(-1, 0), (1, -1)]
    """
    hit = _SIMPLIFY_CACHE.get(region, _MISSING)
    if hit is not _MISSING:
        return hit
    return remember(_SIMPLIFY_CACHE, _CACHE_LIMIT, region, _simplify(region))


def region_is_feasible(region) -> bool:
    """Does the open region (all its constraints < 0), eps > 0, have a point?

    u < 0 and u > 0 is empty; 0 < u < eps is not:

    >>> region_is_feasible({(1, 0), (-1, 0)}), region_is_feasible({(1, -1), (-1, 0)})
    (False, True)
    """
    return simplify_region(frozenset(region)) is not None


def breakpoint(c: tuple, v: int) -> tuple:
    """(is an upper bound, b) for a one-variable constraint c on u_v: u_v < b eps or u_v > b eps.

    u < eps is an upper bound at 1 eps; -2u + 3 eps < 0 a lower bound at 3/2 eps:

    >>> breakpoint((1, -1), 0), breakpoint((-2, 3), 0)
    ((True, 1), (False, 3/2))
    """
    found = _BREAKPOINTS.get(c)
    if found is None:
        found = remember(_BREAKPOINTS, _CACHE_LIMIT, c, (c[v] > 0, fmpq(-c[-1], c[v])))
    return found


def clear_region_caches() -> None:
    """Forget every memoised region (for cold timings; results never depend on it).

    >>> region = frozenset({(1, -1), (1, -2), (-1, 0)})
    >>> before = simplify_region(region)
    >>> clear_region_caches()
    >>> simplify_region(region) == before
    True
    """
    _SIMPLIFY_CACHE.clear()
    _BREAKPOINTS.clear()


def _simplify(region: frozenset):
    if not region:
        return region
    # the tightest constraint per direction d: c = g*(d, off) with g > 0, offset off = c_eps/g
    tight: dict = {}
    for c in region:
        g = gcd(*c[:-1])
        d = tuple(v // g for v in c[:-1]) if g != 1 else c[:-1]
        old = tight.get(d)
        if old is None or c[-1] * old[1] > old[0] * g:
            tight[d] = (c[-1], g, c)
    # opposite directions must leave an open gap: off + off' < 0
    for d, (num, g, _) in tight.items():
        other = tight.get(tuple(-v for v in d))
        if other is not None and num * other[1] + other[0] * g >= 0:
            return None
    directions = list(tight)
    cons = [tight[d][2] for d in directions]
    if all(sum(1 for v in d if v) == 1 for d in directions):
        kept = cons  # one-variable bounds: the gap test above decided feasibility
    elif all(is_difference(d) for d in directions):
        kept = _difference_simplify(cons)
    else:
        kept = _lp_simplify(cons)
    return None if kept is None else frozenset(kept)


def is_difference(d) -> bool:
    """Coefficients of +-x_i or of x_i - x_j, up to a positive factor (difference constraints).

    >>> is_difference((2, -2, 0)), is_difference((0, -3)), is_difference((1, 1))
    (True, True, False)
    """
    nz = [v for v in d if v]
    return len(nz) == 1 or (len(nz) == 2 and nz[0] == -nz[1])


def _difference_simplify(cons: list):
    """Difference constraints u_a - u_b < w (u_z = 0 for one-variable bounds), one per direction.

    Feasible iff every cycle has positive weight; an edge is redundant iff another
    path from b to a weighs at most w, i.e. D[b][k] + D[k][a] <= w for some k other
    than a, b (with all cycles positive, such shortest paths avoid the edge, and
    removing all redundant edges at once keeps the region).  Weights -c_eps/g are
    put on the common denominator of the g's, so the shortest paths add integers.
    """
    nodes = {None: 0}
    edges = []
    den = 1
    for c in cons:
        pos = neg = None
        g = 0
        for j, v in enumerate(c[:-1]):
            if v > 0:
                pos, g = j, v
            elif v < 0:
                neg, g = j, -v
        den = lcm(den, g)
        a = nodes.setdefault(pos, len(nodes))
        b = nodes.setdefault(neg, len(nodes))
        edges.append((b, a, c[-1], g))
    V = len(nodes)
    D = [[inf] * V for _ in range(V)]
    iw = []
    for b, a, num, g in edges:
        wi = -num * (den // g)
        iw.append(wi)
        if wi < D[b][a]:
            D[b][a] = wi
    for k in range(V):
        Dk = D[k]
        for i in range(V):
            dik = D[i][k]
            if dik == inf:
                continue
            Di = D[i]
            for j in range(V):
                s = dik + Dk[j]
                if s < Di[j]:
                    Di[j] = s
    for i in range(V):
        if D[i][i] <= 0:
            return None
    kept = []
    for (b, a, _, _), wi, c in zip(edges, iw, cons):
        if not any(D[b][k] + D[k][a] <= wi for k in range(V) if k != a and k != b):
            kept.append(c)
    return kept


def _lp_simplify(cons: list):
    """General constraints, one per direction: exact simplex for feasibility and redundancy.

    An interior point z comes with the feasibility answer.  Shooting a ray from z
    along each constraint's normal, the constraint hit first, if it is hit alone,
    defines a facet (near the hit point it is the only active constraint), so it
    is kept without an LP; only the others get the LP redundancy test.  (Scaling a
    row scales its slack and its dot products alike, so integer rows find the same
    facets as rows normalised by their direction.)
    """
    z = _lp_interior_point(cons)
    if z is None:
        return None
    m = len(cons)
    nv = len(z)
    slack = [-(sum(c[j] * z[j] for j in range(nv)) + c[-1]) for c in cons]   # > 0
    facet = [False] * m
    for i in range(m):
        ai = cons[i]
        best, hits = None, []
        for j in range(m):
            dot = sum(cons[j][v] * ai[v] for v in range(nv))
            if dot > 0:
                lam = slack[j] / dot
                if best is None or lam < best:
                    best, hits = lam, [j]
                elif lam == best:
                    hits.append(j)
        if len(hits) == 1:
            facet[hits[0]] = True
    kept = list(range(m))
    for i in range(m):
        if facet[i]:
            continue
        others = [cons[j] for j in kept if j != i]
        flipped = tuple(-v for v in cons[i])
        if _lp_interior_point(others + [flipped]) is None:
            kept.remove(i)
    return [cons[i] for i in kept]


def _lp_interior_point(cons):
    """A point (as fmpq) of the open set {u : A u + d < 0} (eps = 1), or None if it is empty.

    Each row of `cons` is (a_0, ..., a_{n-1}, d); the exact LP of `lp` decides it.
    """
    point = lp.row_point([(c, "<") for c in cons], len(cons[0]) - 1)
    return None if point is None else [to_fmpq(x) for x in point]   # lp speaks Fraction; the ray shooting fmpq

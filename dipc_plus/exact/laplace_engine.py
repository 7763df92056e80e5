"""Exact P[linear constraints on independent Laplace noises], for every eps at once.

Noise j is N_j ~ Lap(a_j eps, 0), density (a_j eps/2) e^(-a_j eps |x|).  With
U_j = eps N_j the density becomes the eps-free (a_j/2) e^(-a_j |u|) and an atom
``sum c_j N_j + k < 0`` becomes ``sum c_j U_j + k eps < 0``: the probability is
the integral of an eps-free piecewise exponential over a polyhedron whose right
hand sides are rational multiples of eps.  Every case split therefore compares
rational multiples of eps, which for eps > 0 is decided by comparing rationals.

The integral is computed by bucket (variable) elimination:

* a *factor* is a piecewise function of a few U's: a map from a region (a set of
  strict linear inequalities ``c.(u, eps) < 0``, kept irredundant, so equal
  regions have equal keys) to a sum of terms  P(u, eps) e^(l.(u, eps)),
  P a polynomial (python-flint fmpq_mpoly), l rational;
* to eliminate U_x, the factors mentioning it are multiplied (regions
  intersected, empty intersections pruned by an exact feasibility test), its
  density's kink at 0 is split off, and per piece x runs over
  (max of lower bounds, min of upper bounds): one case per choice of the bounds
  that are the max and the min, each case adding linear constraints on the
  remaining variables; x^k e^(b x) is integrated in closed form and the bounds,
  linear forms in the remaining U's and eps, are substituted;
* the elimination order is greedy minimum degree, ties broken by the fewest
  atoms (leaves first; for prefix sums the last noise first), so a star, chain
  or tree only ever produces factors of one variable.  Those are rewritten
  as a partition of the line into intervals between breakpoints, which keeps the
  number of pieces linear in the number of breakpoints.

Regions and their exact simplification live in `open_regions` (integer
constraints, canonical irredundant descriptions).  No floating point anywhere.

Exactness of the term-wise integration: every term is the density evaluated at
a point of the current orthant, so the coefficient of x in its exponent has the
sign that makes an unbounded side converge; a zero coefficient on an unbounded
side would be a bug and raises.
"""
from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from math import lcm, factorial

from flint import fmpq, fmpq_mpoly_ctx, fmpq_poly

from dipc_plus.exact.expoly import ExpPoly
from dipc_plus.exact.open_regions import (breakpoint, clear_region_caches, constraint,
                                          simplify_region)

__all__ = ["probability", "clear_caches"]

_CACHE_LIMIT = 500_000


# --------------------------------------------------------------------------- terms
#
# Exponents live on a grid: with D a common denominator (a multiple of every
# rate's denominator), an exponent vector l over (u_0..u_{n-1}, eps) is stored
# as the tuple of ints D*l, so term keys hash and add as plain int tuples (no
# Fraction in the inner loops).  Substituting a bound -c/c_x for u_x can leave
# the grid when |c_x| > 1; then the whole computation restarts with D*|c_x|
# (`_Rescale`).  D does not change any value, only its representation.
#
# Terms: dict  scaled exponent tuple -> fmpq_mpoly in (u_0, ..., u_{n-1}, eps).
# A factor: dict region -> terms.


class _Rescale(Exception):
    """An exponent is not a multiple of 1/D: retry with D multiplied by `factor`."""

    def __init__(self, factor: int):
        super().__init__(factor)
        self.factor = factor


def _add_into(acc: dict, key, poly):
    old = acc.get(key)
    if old is None:
        acc[key] = poly
    else:
        s = old + poly
        if s.is_zero():
            del acc[key]
        else:
            acc[key] = s


def _mul_terms(t1: dict, t2: dict) -> dict:
    out: dict = {}
    for e1, p1 in t1.items():
        for e2, p2 in t2.items():
            _add_into(out, tuple(map(_iadd, e1, e2)), p1 * p2)
    return out


def _iadd(a: int, b: int) -> int:
    return a + b


class _Problem:
    """Per-call context: number of noises, their rates, the grid D, the polynomial ring."""

    def __init__(self, rates, D: int):
        self.n = len(rates)
        self.rates = rates
        self.D = D
        self.rate_d = [int(r * D) for r in rates]            # a_j on the grid
        self.half_rate = [fmpq(r.numerator, 2 * r.denominator) for r in rates]
        names = tuple(f"u{j}" for j in range(self.n)) + ("eps",)
        self.ctx = fmpq_mpoly_ctx.get(names, "lex")
        self.gens = self.ctx.gens()
        self.one = self.ctx.from_dict({(0,) * (self.n + 1): 1})
        self.zero_exp = (0,) * (self.n + 1)
        self._bound_cache: dict = {}
        self._coef_cache: dict = {}

    def bound_poly(self, c: tuple, x: int):
        """The bound of u_x given by constraint c, -(c without x)/c_x, as a polynomial."""
        key = (c, x)
        p = self._bound_cache.get(key)
        if p is None:
            cx = c[x]
            p = self.ctx.from_dict({})
            for j, cj in enumerate(c):
                if cj and j != x:
                    p += self.gens[j] * fmpq(-cj, cx)
            self._bound_cache[key] = p
        return p

    def shifted_key(self, e_rest: tuple, bD: int, c: tuple, x: int) -> tuple:
        """The scaled exponent e_rest + b * (-c/c_x) (u_x dropped), b = bD/D."""
        cx = c[x]
        if cx == 1 or cx == -1:
            m = -bD * cx
            key = [e + m * cj for e, cj in zip(e_rest, c)]
        else:
            key = []
            for e, cj in zip(e_rest, c):
                q, r = divmod(-bD * cj, cx)
                if r:
                    raise _Rescale(abs(cx))
                key.append(e + q)
        key[x] = 0
        return tuple(key)

    def coefficients(self, bD: int, k: int) -> list:
        """[(-1)^(k-i) k!/(i! b^(k-i+1)) for i = 0..k]: y^k e^(by) integrates to e^(by) sum_i coef_i y^i."""
        key = (bD, k)
        found = self._coef_cache.get(key)
        if found is None:
            bq = fmpq(bD, self.D)
            found = [fmpq((-1) ** (k - i) * factorial(k), factorial(i)) / bq ** (k - i + 1)
                     for i in range(k + 1)]
            self._coef_cache[key] = found
        return found

    # -- factors ---------------------------------------------------------------
    def atom_factor(self, c: tuple) -> dict:
        return {frozenset([c]): {self.zero_exp: self.one}}

    def is_atom_factor(self, F: dict) -> bool:
        for S, T in F.items():
            if len(S) != 1 or len(T) != 1 or T.get(self.zero_exp) is not self.one:
                return False
        return True

    def multiply(self, F: dict, G: dict) -> dict:
        out: dict = {}
        one, zero = self.one, self.zero_exp
        for S1, T1 in F.items():
            unit1 = len(T1) == 1 and T1.get(zero) is one
            for S2, T2 in G.items():
                S = simplify_region(S1 | S2)
                if S is None:
                    continue
                if unit1:
                    prod = dict(T2)
                elif len(T2) == 1 and T2.get(zero) is one:
                    prod = dict(T1)
                else:
                    prod = _mul_terms(T1, T2)
                if not prod:
                    continue
                if S in out:
                    acc = out[S]
                    for e, p in prod.items():
                        _add_into(acc, e, p)
                else:
                    out[S] = prod
        return {S: T for S, T in out.items() if T}

    def canonical(self, F: dict, scope) -> dict:
        """Factors of at most one variable as a partition into intervals (fewer, disjoint pieces).

        `scope` contains every variable F depends on.
        """
        if len(scope) > 1:
            return F
        if not scope:
            acc: dict = {}
            for S, T in F.items():
                assert not S
                for e, p in T.items():
                    _add_into(acc, e, p)
            return {frozenset(): acc} if acc else {}
        (v,) = scope
        pieces = []
        points = []
        for S, T in F.items():
            lo = hi = None        # None: unbounded
            for c in S:
                upper, b = breakpoint(c, v)
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
        pts = [b for i, b in enumerate(points) if i == 0 or b != points[i - 1]]
        ncells = len(pts) + 1          # cell k lies between pts[k-1] and pts[k] (-inf, inf at the ends)
        accs = [None] * ncells
        for lo, hi, T in pieces:
            # breakpoints are fmpq, which hash slowly: positions by bisection
            for k in range(0 if lo is None else bisect_left(pts, lo) + 1,
                           ncells if hi is None else bisect_left(pts, hi) + 1):
                acc = accs[k]
                if acc is None:
                    accs[k] = dict(T)
                else:
                    for e, p in T.items():
                        _add_into(acc, e, p)
        cells = []   # (first cell, last cell, terms), adjacent equal cells merged
        for k, acc in enumerate(accs):
            acc = acc or {}
            if cells and cells[-1][2] == acc:
                cells[-1] = (cells[-1][0], k, acc)
            else:
                cells.append((k, k, acc))
        out = {}
        n1 = self.n + 1
        for first, last, acc in cells:
            if not acc:
                continue
            S = []
            if first > 0:                  # u_v > lo:  -q u_v + p eps < 0 for lo = p/q
                lo = pts[first - 1]
                vec = [0] * n1
                vec[v], vec[-1] = -int(lo.q), int(lo.p)
                S.append(tuple(vec))
            if last < ncells - 1:          # u_v < hi:  q u_v - p eps < 0
                hi = pts[last]
                vec = [0] * n1
                vec[v], vec[-1] = int(hi.q), -int(hi.p)
                S.append(tuple(vec))
            out[frozenset(S)] = acc
        return out

    # -- integration -----------------------------------------------------------
    def integrate(self, F: dict, x: int) -> dict:
        """Integrate U_x (with its density) out of factor F.

        Bounds stay as the constraints that give them: c with c_x < 0 is the
        lower bound x > -(c without x)/c_x, c_x > 0 the upper bound x < -(...)/c_x.
        """
        aD = self.rate_d[x]
        half_a = self.half_rate[x]
        out: dict = {}
        n = self.n
        for S0, T0 in F.items():
            for s in (1, -1):
                sign_c = [0] * (n + 1)
                sign_c[x] = -s
                S = simplify_region(S0 | {tuple(sign_c)})
                if S is None:
                    continue
                lowers, uppers, rest = [], [], []
                for c in S:
                    cx = c[x]
                    if cx == 0:
                        rest.append(c)
                    elif cx > 0:
                        uppers.append(c)
                    else:
                        lowers.append(c)
                # integrand in x: per exponent, b (x-coefficient incl. density, on the grid),
                # the exponent without x, and the polynomials by power of x
                split = []
                for e, p in T0.items():
                    bD = e[x] - s * aD
                    if not uppers and bD >= 0:
                        raise AssertionError("divergent term at +infinity")
                    if not lowers and bD <= 0:
                        raise AssertionError("divergent term at -infinity")
                    e_rest = e[:x] + (0,) + e[x + 1:]
                    split.append((bD, e_rest, self._by_power(p, x)))
                upper_values = [self._antiderivative(split, U, x, half_a) for U in uppers]
                lower_values = [self._antiderivative(split, L, x, -half_a) for L in lowers]
                for L, lv in (zip(lowers, lower_values) if lowers else ((None, None),)):
                    for U, uv in (zip(uppers, upper_values) if uppers else ((None, None),)):
                        region = self._case_region(rest, lowers, uppers, L, U, x)
                        if region is None:
                            continue
                        acc = out.get(region)
                        if acc is None:
                            acc = out[region] = {}
                        for values in (uv, lv):
                            if values is not None:
                                for key, poly in values:
                                    _add_into(acc, key, poly)
        return {S: T for S, T in out.items() if T}

    def _case_region(self, rest, lowers, uppers, L, U, x):
        """rest and: L is the largest lower bound, U the smallest upper bound, L < U."""
        cons = set(rest)
        new = []
        if L is not None:
            aL = -L[x]
            for L2 in lowers:
                if L2 is not L:   # L2 < L:  |L_x| L2 - |L2_x| L < 0
                    a2 = -L2[x]
                    new.append([aL * p - a2 * q for p, q in zip(L2, L)])
        if U is not None:
            aU = U[x]
            for U2 in uppers:
                if U2 is not U:   # U < U2:  U_x U2 - U2_x U < 0
                    a2 = U2[x]
                    new.append([aU * p - a2 * q for p, q in zip(U2, U)])
        if L is not None and U is not None:   # L < U:  U_x L + |L_x| U < 0
            new.append([aU * p + aL * q for p, q in zip(L, U)])
        for vec in new:
            c = constraint(vec)
            if c is False:
                return None
            if c is not True:
                cons.add(c)
        return simplify_region(frozenset(cons))

    def _by_power(self, p, x) -> dict:
        """{k: coefficient polynomial of x^k} for p."""
        if p.degrees()[x] == 0:
            return {0: p}
        groups: dict = {}
        for mono, c in p.to_dict().items():
            k = mono[x]
            groups.setdefault(k, {})[mono[:x] + (0,) + mono[x + 1:]] = c
        return {k: self.ctx.from_dict(d) for k, d in groups.items()}

    def _antiderivative(self, split, c, x, scale) -> list:
        """[(key, poly)]: scale * sum_k parts[k] * A_k(B) per term, A_k the antiderivative of
        y^k e^(b y) and B the bound of u_x that constraint c gives."""
        Bpoly = self.bound_poly(c, x)
        powers = [self.one, Bpoly]
        values = []
        for bD, e_rest, parts in split:
            kmax = max(parts)
            while len(powers) < kmax + 2:
                powers.append(powers[-1] * Bpoly)
            total = None
            if bD == 0:
                key = e_rest
                for k, pk in parts.items():
                    term = pk * powers[k + 1] * (scale / (k + 1))
                    total = term if total is None else total + term
            else:
                key = self.shifted_key(e_rest, bD, c, x)
                for k, pk in parts.items():
                    coefs = self.coefficients(bD, k)
                    q = coefs[0] * self.one if k == 0 else None
                    if q is None:
                        q = powers[0] * coefs[0]
                        for i in range(1, k + 1):
                            q += powers[i] * coefs[i]
                    term = pk * q * scale
                    total = term if total is None else total + term
            if total is not None and not total.is_zero():
                values.append((key, total))
        return values

    def to_exppoly(self, F: dict) -> ExpPoly:
        out: dict = {}
        for S, T in F.items():
            assert not S
            for e, p in T.items():
                assert not any(e[:-1])
                coeffs: dict = {}
                for mono, c in p.to_dict().items():
                    assert not any(mono[:-1])
                    coeffs[mono[-1]] = c
                poly = fmpq_poly([coeffs.get(i, 0) for i in range(max(coeffs) + 1)])
                q = Fraction(e[-1], self.D)
                out[q] = out[q] + poly if q in out else poly
        return ExpPoly(out)


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
    n = len(noises)
    for nz in noises:
        if nz.kind != "lap":
            raise ValueError(f"the Laplace engine got a {nz.kind!r} noise")
    rates = [Fraction(nz.rate) for nz in noises]
    for r in rates:
        if r <= 0:
            raise ValueError(f"Laplace rate {r} is not positive")
    constraints = set()
    for at in atoms:
        coeffs = dict(at.form.coeffs)
        if at.op not in ("<", "<=", "==", "!="):
            raise ValueError(f"unknown comparison {at.op!r}")
        if not coeffs:
            if not at.holds_constant():
                return ExpPoly.ZERO
            continue
        if at.op == "==":
            return ExpPoly.ZERO   # a hyperplane: measure zero for continuous noise
        if at.op == "!=":
            continue              # holds almost surely
        vec = [Fraction(0)] * (n + 1)
        for i, c in coeffs.items():
            vec[i] = Fraction(c)
        vec[-1] = Fraction(at.form.const)
        c = constraint(_on_common_denominator(vec))
        if c is False:
            return ExpPoly.ZERO
        if c is not True:
            constraints.add(c)
    if not constraints:
        return ExpPoly.ONE
    if simplify_region(frozenset(constraints)) is None:
        return ExpPoly.ZERO
    D = 1
    for r in rates:
        D = lcm(D, r.denominator)
    while True:
        try:
            return _eliminate(constraints, rates, D)
        except _Rescale as grow:
            D *= grow.factor


def _on_common_denominator(vec: list) -> list:
    """The integers den * vec (den > 0 the lcm of the denominators): the same constraint."""
    den = lcm(*(v.denominator for v in vec))
    return [v.numerator * (den // v.denominator) for v in vec]


_LEAF_CACHE: dict = {}


def clear_caches() -> None:
    """Forget every memoised region and integral (for cold timings; results never depend on it)."""
    clear_region_caches()
    _LEAF_CACHE.clear()


def _eliminate(constraints: set, rates: list, D: int) -> ExpPoly:
    prob = _Problem(rates, D)
    n = prob.n
    # factors with their scopes (a superset of the variables they depend on)
    factors = [(prob.atom_factor(c), frozenset(j for j in range(n) if c[j])) for c in sorted(constraints)]
    for x in elimination_order(constraints, n):
        bucket = [fs for fs in factors if x in fs[1]]
        others = [fs for fs in factors if x not in fs[1]]
        bucket.sort(key=lambda fs: len(fs[0]))
        prod, scope = bucket[0]
        for f, fscope in bucket[1:]:
            scope = scope | fscope
            prod = prob.canonical(prob.multiply(prod, f), scope)
        scope = scope - {x}
        if len(bucket) == 1 and len(prod) == 1 and prob.is_atom_factor(prod):
            # a single atom: the same integral recurs across problems (a leaf of a star)
            (region,) = prod
            key = (D, prob.rate_d[x], x, next(iter(region)))
            new = _LEAF_CACHE.get(key)
            if new is None:
                new = prob.canonical(prob.integrate(prod, x), scope)
                if len(_LEAF_CACHE) > _CACHE_LIMIT:
                    _LEAF_CACHE.clear()
                _LEAF_CACHE[key] = new
        else:
            new = prob.canonical(prob.integrate(prod, x), scope)
        factors = others + [(new, scope)]
    result = {frozenset(): {prob.zero_exp: prob.one}}
    for f, _ in factors:
        result = prob.canonical(prob.multiply(result, f), ())
    return prob.to_exppoly(result)

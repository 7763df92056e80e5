"""Det regions that are convex polyhedra (inputs compared with each other or sums): dd and the worst point.

Why: the corner reduction (`accuracy.box`) needs det regions that are boxes; a noise-free
program that compares q1 with q2 (or q1 + q2 with a constant) has a half-space for a region,
and its box claims stayed undecided.  This module gives what the same argument needs on a
region R = {q : a_k.q >= b_k for every k} that is one noise-free path (so det = w exactly on R):

- dd(q) for q in R is the L-inf distance to the complement, a union of the open half-spaces
  {a_k.q < b_k}, so dd(q) = min_k (a_k.q - b_k)/||a_k||_1 (the L-inf distance to a half-space is
  its violation over the dual norm).  Every input of the box with dd >= d lies in the polytope
  S(d) = box ∩ {a_k.q - b_k >= d*||a_k||_1}; S(d) shrinks as d grows.
- Monotone along the facets: every path to w is an intersection of half-spaces
  {noise part + c.q + const > 0} (`accuracy.monotone`), and each grows with t = c.q.  When no
  input part c occurs with its opposite -c (up to a positive factor), P[out = w] is a function
  of the t_k = c_k.q that is non-decreasing in each.  So a point v(d) of S(d) that minimises
  every c_k.q over S(d) at once is a worst point: P_err(q) <= P_err(v(dd(q))) for q in R.
- v(d) by exact LPs: m_k(d) = min c_k.q over S(d), then a point of S(d) with c_k.v = m_k(d) for
  every k (None when the minima are not attained together: nothing is proved then).  Each m_k is
  convex and piecewise linear in d (a parametric right-hand side), so m_k(mid) equal to the mean of
  m_k at the ends proves m_k linear on [d0, d1]; where all are, the segment between worst points
  at d0 and d1 is a worst point at every d between (it lies in S(d) by convexity, and its c_k.v is
  the chord, which is m_k).  Pieces are found by bisection; what bisection does not prove linear
  is left open, never guessed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.accuracy.monotone import OutputAtoms
from dipc_plus.exact import lp
from dipc_plus.semantics.values import freeze_env

_D = "__dd_d__"       # the LP variable for d when dmax is computed (no input has this name)
MAX_DEPTH = 8         # bisection levels when looking for the linear pieces of v(d)


@dataclass
class PolyRegion:
    """One det region that is a convex polyhedron: the facets a.q >= b (with ||a||_1) of one path.
    Not an `exact.cells.Cell`: its facets are named, closed and carry the norm the L-inf distance reads."""
    det: dict
    condition: str
    facets: list              # of (coefficients {input: a}, b, ||a||_1)


def facets_of(condition) -> list:
    """[(a, b, ||a||_1)] with the path = {a.q >= b for each} (an equality gives two); constants skipped."""
    facets = []
    for c in condition:
        if not c.coeffs:
            continue
        coeffs = dict(c.coeffs)
        norm = sum(abs(a) for a in coeffs.values())
        if c.op in (">", ">=", "=="):
            facets.append((coeffs, c.rhs, norm))
        if c.op in ("<", "<=", "=="):
            facets.append(({n: -a for n, a in coeffs.items()}, -c.rhs, norm))
    return facets


def polyhedron_of(det: dict, text: str, condition) -> PolyRegion | str:
    """The region of one noise-free path as facets a.q >= b, or why it is not one (an equality)."""
    if any(c.coeffs and c.op == "==" for c in condition):
        return "an equality between inputs (a region of volume 0)"
    return PolyRegion(det, text, facets_of(condition))


def order_functionals(atoms) -> list | str:
    """[c_k as {input: coef}]: P[out = w] is non-decreasing in each c_k.q; or why not proved."""
    seen = set()
    for coefs, _ in atoms.parts:
        norm = sum(abs(c) for _, c in coefs)
        if norm:
            seen.add(tuple(sorted((n, c / norm) for n, c in coefs)))
    for c in seen:
        if tuple(sorted((n, -x) for n, x in c)) in seen:
            text = " + ".join(f"{x}*{n}" for n, x in c)
            return (f"the input part {text} occurs with both signs in the half-spaces of the paths to this "
                    "output (P[out = det] not proved monotone in it)")
    return [dict(c) for c in sorted(seen)]


def monotone_functionals(monotone, det: dict) -> list | str:
    """[c_k]: P[out = det] is non-decreasing in each c_k.q, from the paths to det, or else from the
    paths to every other output: when their input parts have one sign each, P[out != det] (their
    disjoint union, each an intersection of half-spaces) is non-decreasing in each c.q, so
    P[out = det] = 1 - P[out != det] is non-decreasing in each -c.q.  Or why neither is proved."""
    own = order_functionals(monotone.output(det))
    if not isinstance(own, str):
        return own
    mine = freeze_env({n: det[n] for n in monotone.finite})
    rest = OutputAtoms()
    for key, atoms in monotone.by_output.items():
        if key != mine:
            rest.parts |= atoms.parts
    other = order_functionals(rest)
    if isinstance(other, str):
        return own
    return [{n: -x for n, x in c.items()} for c in other]


def linear_piece(d0, d1, v0: dict, v1: dict) -> tuple:
    """(d0, d1, a, s) with v(d) = a + s*d the segment from v0 at d0 to v1 at d1: a piece of a worst-point
    path (`WorstPath`, `accuracy.box.CornerPath`) where the worst point is proved linear in d."""
    s = {n: (v1[n] - v0[n]) / (d1 - d0) for n in v0}
    return d0, d1, {n: v0[n] - s[n] * d0 for n in v0}, s


class WorstPath:
    """v(d), the worst point of S(d) for one polyhedral region (see the module doc), with the
    interface of `accuracy.box.CornerPath`: `finite`, `dmax`, `at(d)`, `pieces()`."""

    def __init__(self, bounds: dict, region: PolyRegion, functionals: list):
        self.bounds, self.region, self.functionals = bounds, region, functionals
        self.names = list(bounds)
        self.finite = bool(region.facets)
        self.open: list = []             # (d0, d1) where no linear piece was proved
        if self.finite:
            best = lp.maximize({_D: 1}, self.polytope(None), self.names + [_D])
            self.dmax = best.value if best.status == "optimal" else Fraction(0)

    def polytope(self, d) -> list:
        """S(d) as constraints (d None: d is the LP variable _D)."""
        cons = []
        for n, (lo, hi) in self.bounds.items():
            cons += [lp.Constraint.make({n: 1}, ">=", lo), lp.Constraint.make({n: 1}, "<=", hi)]
        for coeffs, b, norm in self.region.facets:
            if d is None:
                cons.append(lp.Constraint.make({**coeffs, _D: -norm}, ">=", b))
            else:
                cons.append(lp.Constraint.make(coeffs, ">=", b + d * norm))
        return cons

    def minima(self, d) -> list:
        """[m_k(d)]: the least c_k.q over S(d)."""
        cons = self.polytope(d)
        return [lp.minimize(c, cons, self.names).value for c in self.functionals]

    def worst(self, d) -> dict | None:
        """A point of S(d) minimising every c_k.q at once, or None when no such point exists."""
        cons = self.polytope(d)
        cons += [lp.Constraint.make(c, "<=", m) for c, m in zip(self.functionals, self.minima(d))]
        res = lp.minimize({}, cons, self.names)
        if res.status != "optimal":
            return None
        return {n: Fraction(res.point[n]) for n in self.names}

    def at(self, d) -> dict:
        """The worst point at d, or (where there is none) a point of S(d) minimising the sum of the c_k.q:
        a point to re-check for a counterexample, nothing more."""
        found = self.worst(d)
        if found is not None:
            return found
        total: dict = {}
        for c in self.functionals:
            for n, x in c.items():
                total[n] = total.get(n, 0) + x
        res = lp.minimize(total, self.polytope(d), self.names)
        return {n: Fraction(res.point[n]) for n in self.names}

    def pieces(self):
        """[(d0, d1, a, s)]: v(d) = a + s*d is a worst point for d in [d0, d1]; the d ranges not proved
        linear within MAX_DEPTH bisections go to `self.open`."""
        out, self.open = [], []
        self._split(Fraction(0), self.dmax, self.minima(Fraction(0)), self.minima(self.dmax), 0, out)
        return out

    def _split(self, d0, d1, m0, m1, depth, out) -> None:
        mid = (d0 + d1) / 2
        m_mid = self.minima(mid)
        if all(2 * x == y + z for x, y, z in zip(m_mid, m0, m1)):
            v0, v1 = self.worst(d0), self.worst(d1)
            if v0 is not None and v1 is not None:
                out.append(linear_piece(d0, d1, v0, v1))
                return
        if depth >= MAX_DEPTH:
            self.open.append((d0, d1))
            return
        self._split(d0, mid, m0, m_mid, depth + 1, out)
        self._split(mid, d1, m_mid, m1, depth + 1, out)

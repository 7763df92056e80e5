"""The L-inf distance from an input to one polyhedral region, by an exact LP.

The general route of the real-space distance to disagreement (`disagreement.RealSpace.lp_dd`):
any region of affine constraints, for programs whose regions are not boxes and not a
recognised argmax.  Also the cheap per-constraint lower bound that lets the search skip
regions that cannot be nearer than one already measured.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.distances import INF
from dipc_plus.exact import lp

_S = ("__dd_s__",)  # the LP variable bounding the distance (a name no input has)


def linf_to_region(u: Mapping, region: list, reals, at_least: Fraction = Fraction(0)) -> tuple:
    """(value, attained, witness point) of max(at_least, min ||w - u||_inf) over the region,
    w ranging over the `reals` inputs; `at_least` is the distance the finite inputs already put
    between u and the region.

    The LP is written in y_i = w_i - u_i + s, so every variable is >= 0:
    minimise s subject to y_i <= 2s, s >= at_least and the region's constraints in y and s.
    """
    if not reals:  # nothing can move: the region is all or nothing
        ok = all(c.holds({}) for c in region)
        return (at_least, True, {}) if ok else (INF, False, None)
    ys = {name: ("__dd_y__", name) for name in reals}
    cons = []
    for c in region:
        coeffs = {**{ys[n]: a for n, a in c.coeffs}, _S: -sum((a for _, a in c.coeffs), Fraction(0))}
        cons.append(lp.Constraint.make(coeffs, c.op, c.rhs - c.lhs_value(u)))
    for name in reals:
        cons.append(lp.Constraint.make({ys[name]: 1, _S: -2}, "<=", 0))
    if at_least > 0:
        cons.append(lp.Constraint.make({_S: 1}, ">=", at_least))
    variables = list(ys.values()) + [_S]
    res = lp.minimize({_S: 1}, cons, variables, nonneg=variables)
    if res.status == "infeasible":
        return INF, False, None
    p = res.point     # back from y to w
    return res.value, res.attained, None if p is None else {n: p[ys[n]] - p[_S] + Fraction(u[n]) for n in reals}


def constraint_bound(u: Mapping, region: list, bound):
    """max(bound, the farthest single constraint of the region from u): a lower bound on the
    L-inf distance from u to the region (to a half-space it is the violation over the 1-norm),
    INF when a constant constraint fails."""
    for c in region:
        norm = sum(abs(a) for _, a in c.coeffs)
        if norm == 0:
            if not c.holds({}):
                return INF
            continue
        excess = c.lhs_value(u) - c.rhs
        if c.op in ("<", "<="):
            viol = excess
        elif c.op in (">", ">="):
            viol = -excess
        else:
            viol = abs(excess)
        if viol > 0:
            bound = max(bound, viol / norm)
    return bound

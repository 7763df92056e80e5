"""The exact LP (dipc_plus.exact.lp) against two independent references:

* brute-force vertex enumeration in exact arithmetic on small bounded problems
  (value, feasibility of the open system, attainment of the infimum — the last
  two decided by the centroid of the relevant vertices, which lies in the
  relative interior: a strict constraint can hold there iff it holds somewhere);
* scipy.optimize.linprog (HiGHS, floating point) on larger random problems.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from dipc_plus.exact.lp import INF, Constraint, feasible, interior_point, maximize, minimize

C = Constraint.make


def _solve_square(rows, rhs):
    """Exact Gaussian elimination; None if singular."""
    n = len(rows)
    a = [list(map(Fraction, r)) + [Fraction(b)] for r, b in zip(rows, rhs)]
    for col in range(n):
        piv = next((r for r in range(col, n) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def _vertices(constraints, names):
    closed = [c.closed() for c in constraints]
    found = set()
    for combo in itertools.combinations(closed, len(names)):
        rows = [[c.as_dict().get(v, 0) for v in names] for c in combo]
        sol = _solve_square(rows, [c.rhs for c in combo])
        if sol is None:
            continue
        point = dict(zip(names, sol))
        if all(c.holds(point) for c in closed):
            found.add(tuple(sol))
    return [dict(zip(names, v)) for v in found]


def _centroid(points, names):
    return {v: sum(p[v] for p in points) / len(points) for v in names}


def _random_problem(rng, n, k, box=4, strict_share=0.4):
    names = [f"x{i}" for i in range(n)]
    cons = []
    for v in names:  # a bounding box keeps the brute force finite
        cons.append(C({v: 1}, "<=", rng.randint(0, box)))
        cons.append(C({v: 1}, ">=", -rng.randint(0, box)))
    for _ in range(k):
        coeffs = {v: rng.randint(-3, 3) for v in names}
        if not any(coeffs.values()):
            continue
        op = rng.choice(["<", ">"] if rng.random() < strict_share else ["<=", ">=", "<=", ">=", "=="])
        cons.append(C(coeffs, op, rng.randint(-4, 4)))
    objective = {v: rng.randint(-3, 3) for v in names}
    return names, cons, objective


@pytest.mark.parametrize("seed", range(150))
def test_against_vertex_enumeration(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 2, 2, 3])
    names, cons, objective = _random_problem(rng, n, rng.randint(1, 4))
    res = minimize(objective, cons, names)
    verts = _vertices(cons, names)
    strict = [c for c in cons if c.is_strict()]
    if not verts:
        assert res.status == "infeasible"
        return
    centre = _centroid(verts, names)
    open_nonempty = all(c.holds(centre) for c in strict)
    assert (res.status != "infeasible") == open_nonempty
    assert feasible(cons) == open_nonempty
    if not open_nonempty:
        assert interior_point(cons) is None
        return
    value = lambda p: sum(Fraction(c) * p[v] for v, c in objective.items())  # noqa: E731
    best = min(value(p) for p in verts)
    assert res.status == "optimal" and res.value == best
    face = [p for p in verts if value(p) == best]
    attained = all(c.holds(_centroid(face, names)) for c in strict)
    assert res.attained == attained
    # what the solver returns is checked exactly, not trusted
    assert all(c.holds(res.interior) for c in cons)
    assert value(res.point) == best
    if res.attained:
        assert all(c.holds(res.point) for c in cons)
    else:
        assert all(c.closed().holds(res.point) for c in cons)


@pytest.mark.parametrize("seed", range(40))
def test_against_scipy(seed):
    linprog = pytest.importorskip("scipy.optimize").linprog
    rng = random.Random(1000 + seed)
    n = rng.randint(3, 8)
    names, cons, objective = _random_problem(rng, n, rng.randint(2, 12), box=6, strict_share=0.0)
    res = minimize(objective, cons, names)
    A_ub, b_ub, A_eq, b_eq = [], [], [], []
    for c in cons:
        row = [float(c.as_dict().get(v, 0)) for v in names]
        if c.op == "<=":
            A_ub.append(row), b_ub.append(float(c.rhs))
        elif c.op == ">=":
            A_ub.append([-x for x in row]), b_ub.append(-float(c.rhs))
        else:
            A_eq.append(row), b_eq.append(float(c.rhs))
    ref = linprog([float(objective[v]) for v in names], A_ub=A_ub or None, b_ub=b_ub or None,
                  A_eq=A_eq or None, b_eq=b_eq or None, bounds=[(None, None)] * n, method="highs")
    if ref.status == 2:
        assert res.status == "infeasible"
    else:
        assert ref.status == 0 and res.status == "optimal"
        assert abs(float(res.value) - ref.fun) < 1e-7  # a cross-check of a float solver, not a verdict
        assert all(c.holds(res.point) for c in cons)


def test_open_interval_infimum_not_attained():
    # min s  s.t.  s >= |x - 1|,  x < 0: the infimum 1 is approached as x -> 0, never reached
    cons = [C({"s": 1, "x": -1}, ">=", -1), C({"s": 1, "x": 1}, ">=", 1), C({"x": 1}, "<", 0)]
    res = minimize({"s": 1}, cons)
    assert res.value == 1 and not res.attained
    assert res.point["x"] == 0 and res.interior["x"] < 0
    closed = [c.closed() for c in cons]
    assert minimize({"s": 1}, closed).attained


def test_strict_and_closed_contradiction_is_infeasible():
    assert minimize({"x": 1}, [C({"x": 1}, "<", 0), C({"x": 1}, ">=", 0)]).status == "infeasible"
    assert not feasible([C({"x": 1, "y": 1}, "<", 1), C({"x": 1, "y": 1}, ">", 1)])
    assert feasible([C({"x": 1, "y": 1}, "<=", 1), C({"x": 1, "y": 1}, ">=", 1), C({"x": 1}, ">", 5)])


def test_unbounded_and_maximize():
    assert minimize({"x": 1}, [C({"x": 1}, "<", 0)]).value == -INF
    res = maximize({"x": 1, "y": 1}, [C({"x": 1}, "<=", 3), C({"x": 1, "y": 2}, "<=", 4),
                                      C({"y": 1}, ">=", -5), C({"x": 1}, ">=", -5)])
    assert res.value == Fraction(7, 2) and res.point == {"x": 3, "y": Fraction(1, 2)}
    assert maximize({"x": 1}, [C({"x": 1}, ">=", 0)]).value == INF


def test_degenerate_problem_terminates():
    # Many constraints through one vertex: Bland's rule must not cycle.
    cons = [C({"x": a, "y": b}, "<=", 0) for a, b in [(1, 1), (2, 1), (1, 2), (3, 1), (1, 3), (1, 0), (0, 1)]]
    res = minimize({"x": -1, "y": -1}, cons)
    assert res.value == 0 and res.attained


def test_constraint_helpers():
    c = C({"x": 2, "y": 0}, ">", 1)
    assert c.variables() == {"x"} and c.holds({"x": 1}) and not c.holds({"x": Fraction(1, 2)})
    assert c.closed().op == ">=" and c.closed().holds({"x": Fraction(1, 2)})
    with pytest.raises(ValueError):
        C({"x": 1}, "=<", 0)


@pytest.mark.parametrize("seed", range(40))
def test_nonneg_variables_equal_explicit_bounds(seed):
    """Declaring variables nonneg (one column each) = adding x >= 0 constraints."""
    rng = random.Random(5000 + seed)
    n = rng.randint(1, 4)
    names, cons, objective = _random_problem(rng, n, rng.randint(1, 5))
    cons = [c for c in cons if not (c.op == ">=" and len(c.coeffs) == 1)]  # drop the lower box
    nonneg = names[: rng.randint(1, n)]
    a = minimize(objective, cons, names, nonneg=nonneg)
    b = minimize(objective, cons + [C({v: 1}, ">=", 0) for v in nonneg], names)
    assert (a.status, a.value, a.attained) == (b.status, b.value, b.attained)
    if a.point is not None:
        assert all(a.point[v] >= 0 for v in nonneg) and all(c.closed().holds(a.point) for c in cons)

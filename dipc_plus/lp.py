"""A small exact linear-programming solver over the rationals.

Distance to disagreement is an infimum of an L-inf distance over polyhedra whose
faces may be open (``q < T``): the exact value, and whether some input attains
it, decide whether an accuracy claim applies at an input.  Floating-point LP
could put a boundary input on the wrong side, so this module solves LPs exactly
with `fractions.Fraction`: a dense two-phase simplex with Bland's rule (which
cannot cycle), sized for dozens of variables and constraints.

Strict inequalities are handled exactly, without epsilons:

* the open system  {a.x < b, c.x <= d, e.x = f}  is non-empty iff the LP
  ``max t  s.t.  a.x + t <= b, c.x <= d, e.x = f, t <= 1`` has optimum t > 0;
* the infimum of an objective over a non-empty open system equals its minimum
  over the closure (drop strictness);
* the infimum is attained iff the open system plus ``objective <= value`` is
  non-empty (checked the same way).

Variables are free (any sign) unless constrained.  Variables are named by any
hashable key (strings such as ``"q[1]"`` in practice).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Hashable, Iterable, Mapping

INF = float("inf")

_OPS = ("<", "<=", "==", ">=", ">")


@dataclass(frozen=True)
class Constraint:
    """sum coeffs[v] * v  op  rhs, with op one of < <= == >= >."""
    coeffs: tuple  # of (variable, Fraction), no zero coefficient, sorted by str(variable)
    op: str
    rhs: Fraction

    @staticmethod
    def make(coeffs: Mapping, op: str, rhs=0) -> "Constraint":
        if op == "=":
            op = "=="
        if op not in _OPS:
            raise ValueError(f"unknown constraint operator {op!r}")
        items = tuple(sorted(((v, Fraction(c)) for v, c in coeffs.items() if c != 0),
                             key=lambda vc: str(vc[0])))
        return Constraint(items, op, Fraction(rhs))

    def as_dict(self) -> dict:
        return dict(self.coeffs)

    def variables(self) -> set:
        return {v for v, _ in self.coeffs}

    def lhs_value(self, point: Mapping) -> Fraction:
        return sum((c * Fraction(point.get(v, 0)) for v, c in self.coeffs), Fraction(0))

    def holds(self, point: Mapping) -> bool:
        """Exact truth of the constraint at a point (missing variables read as 0)."""
        lhs, rhs = self.lhs_value(point), self.rhs
        return {"<": lhs < rhs, "<=": lhs <= rhs, "==": lhs == rhs,
                ">=": lhs >= rhs, ">": lhs > rhs}[self.op]

    def is_strict(self) -> bool:
        return self.op in ("<", ">")

    def closed(self) -> "Constraint":
        """The same constraint with < relaxed to <= (its closure)."""
        return Constraint(self.coeffs, {"<": "<=", ">": ">="}.get(self.op, self.op), self.rhs)

    def __str__(self) -> str:
        terms = " + ".join(f"{c}*{v}" for v, c in self.coeffs) or "0"
        return f"{terms} {self.op} {self.rhs}"


@dataclass
class LPResult:
    """Outcome of `minimize`.

    status: 'optimal' (a finite infimum), 'infeasible' (value = +inf) or
    'unbounded' (value = -inf).  `attained` says whether some feasible point has
    objective = value; `point` is then such a point, otherwise (optimal but not
    attained) a point of the closure with objective = value, and `interior` a
    point satisfying every constraint (strict ones strictly).
    """
    status: str
    value: object  # Fraction, or float +/-inf
    attained: bool
    point: dict | None = None
    interior: dict | None = None

    def is_feasible(self) -> bool:
        return self.status != "infeasible"


# --------------------------------------------------------------------------- simplex core


class _Tableau:
    """Dense simplex tableau for  min c.y  s.t.  A y = b, y >= 0  (b >= 0)."""

    def __init__(self, rows: list[list[Fraction]], rhs: list[Fraction], ncols: int):
        self.rows = rows
        self.rhs = rhs
        self.ncols = ncols
        self.basis: list[int] = []

    def pivot(self, r: int, col: int) -> None:
        row = self.rows[r]
        p = row[col]
        if p != 1:
            inv = 1 / p
            self.rows[r] = row = [x * inv for x in row]
            self.rhs[r] = self.rhs[r] * inv
        for i, other in enumerate(self.rows):
            if i != r:
                f = other[col]
                if f != 0:
                    self.rows[i] = [a - f * b for a, b in zip(other, row)]
                    self.rhs[i] = self.rhs[i] - f * self.rhs[r]
        self.basis[r] = col

    def reduced_costs(self, cost: list[Fraction]) -> list[Fraction]:
        red = list(cost)
        for i, bcol in enumerate(self.basis):
            cb = cost[bcol]
            if cb != 0:
                row = self.rows[i]
                red = [a - cb * b for a, b in zip(red, row)]
        return red

    def run(self, cost: list[Fraction], allowed: set[int] | None = None) -> str:
        """Minimise cost.y from the current basic feasible solution; Bland's rule."""
        while True:
            red = self.reduced_costs(cost)
            entering = next((j for j in range(self.ncols)
                             if red[j] < 0 and (allowed is None or j in allowed)
                             and j not in self.basis), None)
            if entering is None:
                return "optimal"
            best = None
            for i, row in enumerate(self.rows):
                a = row[entering]
                if a > 0:
                    ratio = self.rhs[i] / a
                    key = (ratio, self.basis[i])  # Bland: smallest ratio, then smallest index
                    if best is None or key < best[0]:
                        best = (key, i)
            if best is None:
                return "unbounded"
            self.pivot(best[1], entering)

    def solution(self) -> list[Fraction]:
        y = [Fraction(0)] * self.ncols
        for i, bcol in enumerate(self.basis):
            y[bcol] = self.rhs[i]
        return y


def _solve_closed(objective: Mapping, constraints: list[Constraint], variables: list):
    """min objective over the closed system.  Returns (status, value, point)."""
    index = {v: k for k, v in enumerate(variables)}
    n = len(variables)
    # columns: x+ (n), x- (n), one slack per inequality, then artificials
    ineq = [k for k, c in enumerate(constraints) if c.op != "=="]
    slack_col = {k: 2 * n + j for j, k in enumerate(ineq)}
    nstruct = 2 * n + len(ineq)
    rows, rhs = [], []
    for k, c in enumerate(constraints):
        row = [Fraction(0)] * nstruct
        for v, a in c.coeffs:
            row[index[v]] += a
            row[n + index[v]] -= a
        if c.op in ("<", "<="):
            row[slack_col[k]] = Fraction(1)
        elif c.op in (">", ">="):
            row[slack_col[k]] = Fraction(-1)
        b = c.rhs
        if b < 0:
            row = [-a for a in row]
            b = -b
        rows.append(row)
        rhs.append(b)
    m = len(rows)
    ncols = nstruct + m
    full = [row + [Fraction(1) if j == i else Fraction(0) for j in range(m)] for i, row in enumerate(rows)]
    tab = _Tableau(full, list(rhs), ncols)
    tab.basis = [nstruct + i for i in range(m)]
    # Phase I: minimise the sum of artificials.
    phase1 = [Fraction(0)] * nstruct + [Fraction(1)] * m
    tab.run(phase1)
    if sum(tab.rhs[i] for i, b in enumerate(tab.basis) if b >= nstruct) > 0:
        return "infeasible", INF, None
    # Drive artificials out of the basis (they are at value 0); drop redundant rows.
    i = 0
    while i < len(tab.rows):
        if tab.basis[i] >= nstruct:
            col = next((j for j in range(nstruct) if tab.rows[i][j] != 0), None)
            if col is None:
                del tab.rows[i], tab.rhs[i], tab.basis[i]
                continue
            tab.pivot(i, col)
        i += 1
    cost = [Fraction(0)] * ncols
    for v, a in objective.items():
        if a != 0:
            cost[index[v]] += Fraction(a)
            cost[n + index[v]] -= Fraction(a)
    status = tab.run(cost, allowed=set(range(nstruct)))
    y = tab.solution()
    point = {v: y[index[v]] - y[n + index[v]] for v in variables}
    if status == "unbounded":
        return "unbounded", -INF, point
    value = sum((Fraction(a) * point[v] for v, a in objective.items()), Fraction(0))
    return "optimal", value, point


# --------------------------------------------------------------------------- public API


def _variables_of(objective: Mapping, constraints: Iterable[Constraint], extra=()) -> list:
    seen: dict = {}
    for v in extra:
        seen.setdefault(v, None)
    for v in objective:
        seen.setdefault(v, None)
    for c in constraints:
        for v, _ in c.coeffs:
            seen.setdefault(v, None)
    return list(seen)


_SLACK = ("__lp_strict_slack__",)  # a variable name no caller uses


def interior_point(constraints: list[Constraint], variables: list | None = None) -> dict | None:
    """A point satisfying every constraint (strict ones strictly), or None if there is none."""
    constraints = list(constraints)
    variables = variables if variables is not None else _variables_of({}, constraints)
    for c in constraints:  # constant constraints decide themselves
        if not c.coeffs and not c.holds({}):
            return None
    strict = [c for c in constraints if c.is_strict()]
    if not strict:
        status, _, point = _solve_closed({}, constraints, variables)
        return None if status == "infeasible" else point
    t = _SLACK
    system = []
    for c in constraints:
        if c.op == "<":
            system.append(Constraint.make({**c.as_dict(), t: 1}, "<=", c.rhs))
        elif c.op == ">":
            system.append(Constraint.make({**c.as_dict(), t: -1}, ">=", c.rhs))
        else:
            system.append(c)
    system.append(Constraint.make({t: 1}, "<=", 1))
    status, value, point = _solve_closed({t: -1}, system, list(variables) + [t])
    if status == "infeasible" or point[t] <= 0:
        return None
    point.pop(t)
    return point


def feasible(constraints: list[Constraint]) -> bool:
    """Whether the system (strict inequalities strict) has a solution."""
    return interior_point(constraints) is not None


def minimize(objective: Mapping, constraints: list[Constraint], variables: list | None = None) -> LPResult:
    """inf { objective.x : x satisfies constraints }, exactly.

    `objective` maps variables to coefficients (a constant term is not part of
    it: add it yourself).  Every variable is free.  See `LPResult`.
    """
    constraints = list(constraints)
    variables = _variables_of(objective, constraints, variables or ())
    inner = interior_point(constraints, variables)
    if inner is None:
        return LPResult("infeasible", INF, False)
    for v in variables:
        inner.setdefault(v, Fraction(0))
    closed = [c.closed() for c in constraints]
    status, value, point = _solve_closed(objective, closed, variables)
    if status == "unbounded":
        return LPResult("unbounded", -INF, False, None, inner)
    if not any(c.is_strict() for c in constraints):
        return LPResult("optimal", value, True, point, inner)
    if all(c.holds(point) for c in constraints):
        return LPResult("optimal", value, True, point, inner)
    at_value = constraints + [Constraint.make(objective, "<=", value)]
    witness = interior_point(at_value, variables)
    if witness is not None:
        for v in variables:
            witness.setdefault(v, Fraction(0))
        return LPResult("optimal", value, True, witness, inner)
    return LPResult("optimal", value, False, point, inner)


def maximize(objective: Mapping, constraints: list[Constraint], variables: list | None = None) -> LPResult:
    """sup objective.x (value +inf when unbounded, -inf when infeasible)."""
    res = minimize({v: -Fraction(c) for v, c in objective.items()}, constraints, variables)
    if res.status == "optimal":
        res.value = -res.value
    elif res.status == "unbounded":
        res.value = INF
    else:
        res.value = -INF
    return res

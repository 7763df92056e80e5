"""A small exact linear-programming solver over the rationals.

Distance to disagreement is an infimum of an L-inf distance over polyhedra whose
faces may be open (``q < T``): the exact value, and whether some input attains
it, decide whether an accuracy claim applies at an input.  Floating-point LP
could put a boundary input on the wrong side, so this module solves LPs exactly
(python-flint `fmpq` inside, `Fraction` at the interface): a two-phase simplex
with Bland's rule (which cannot cycle), sized for dozens of variables and
constraints.

Strict inequalities are handled exactly, without epsilons:

* the open system  {a.x < b, c.x <= d, e.x = f}  is non-empty iff the LP
  ``max t  s.t.  a.x + t <= b, c.x <= d, e.x = f, t <= 1`` has optimum t > 0;
* the infimum of an objective over a non-empty open system equals its minimum
  over the closure (drop strictness);
* the infimum is attained iff the open system plus ``objective <= value`` is
  non-empty (checked the same way).

Variables are free (any sign) unless declared `nonneg` (then they are not
split into two columns).  Variables are named by any hashable key (strings such
as ``"q[1]"`` in practice).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

from flint import fmpq

from dipc_plus.exact.convert import to_fmpq, to_fraction
from dipc_plus.exact.linear import LinForm, holds

INF = float("inf")

_OPS = ("<", "<=", "==", ">=", ">")


@dataclass(frozen=True)
class Constraint:
    """sum coeffs[v] * v  op  rhs, with op one of < <= == >= >.

    An LP row rather than a `LinForm`: one row mixes variables of several kinds (input names,
    the LP's own tuples), kept in str order because that order fixes the simplex's columns and
    so the points it returns; `of` reads a LinForm.

    >>> c = Constraint.make({"x": 1}, "<", 1)
    >>> str(c), c.holds({"x": Fraction(1, 2)}), c.holds({"x": 1}), str(c.closed())
    ('1*x < 1', True, False, '1*x <= 1')
    """
    coeffs: tuple  # of (variable, Fraction), no zero coefficient, sorted by str(variable)
    op: str
    rhs: Fraction

    @staticmethod
    def make(coeffs: Mapping, op: str, rhs=0) -> "Constraint":
        if op not in _OPS:
            raise ValueError(f"unknown constraint operator {op!r}")
        items = tuple(sorted(((v, Fraction(c)) for v, c in coeffs.items() if c != 0),
                             key=lambda vc: str(vc[0])))
        return Constraint(items, op, Fraction(rhs))

    @staticmethod
    def of(form: LinForm, op: str) -> "Constraint":
        """``form op 0``: the affine form's keys become the LP's variables.

        >>> str(Constraint.of(LinForm.make({"x": 2}, -1), "<"))
        '2*x < 1'
        """
        return Constraint.make(form.as_dict(), op, -form.const)

    @staticmethod
    def row(h, op: str) -> "Constraint":
        """``h.(x, 1) op 0`` over the variables 0..len(h)-2: the integer rows of cells and regions.

        >>> str(Constraint.row((2, 0, -3), "<"))
        '2*0 < 3'
        """
        return Constraint.make({i: c for i, c in enumerate(h[:-1]) if c}, op, -h[-1])

    def as_dict(self) -> dict:
        return dict(self.coeffs)

    def variables(self) -> set:
        return {v for v, _ in self.coeffs}

    def lhs_value(self, point: Mapping) -> Fraction:
        return sum((c * Fraction(point.get(v, 0)) for v, c in self.coeffs), Fraction(0))

    def holds(self, point: Mapping) -> bool:
        """Exact truth of the constraint at a point (missing variables read as 0)."""
        return holds(self.lhs_value(point) - self.rhs, self.op)

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

    min x + y over x >= 0, y >= 1 is 1, attained at (0, 1):

    >>> r = minimize({"x": 1, "y": 1}, [Constraint.make({"x": 1}, ">=", 0), Constraint.make({"y": 1}, ">=", 1)])
    >>> r.status, r.value, r.attained, r.point
    ('optimal', Fraction(1, 1), True, {'x': Fraction(0, 1), 'y': Fraction(1, 1)})
    """
    status: str
    value: object  # Fraction, or float +/-inf
    attained: bool
    point: dict | None = None
    interior: dict | None = None


# --------------------------------------------------------------------------- simplex core


class _Tableau:
    """Dense simplex tableau for  min c.y  s.t.  A y = b, y >= 0  (b >= 0), in fmpq.

    Each row holds its right-hand side as the last entry.  Objective rows
    (reduced costs, last entry = -objective value) are pivoted with the rows,
    and a pivot only touches the pivot row's nonzero columns.
    """

    def __init__(self, rows: list[list], ncols: int):
        self.rows = rows
        self.ncols = ncols
        self.basis: list[int] = []
        self.objectives: list[list] = []

    def add_objective(self, cost: list) -> list:
        """Reduce a cost vector by the current basis and keep it pivoted from now on."""
        red = list(cost) + [_ZERO]
        for i, bcol in enumerate(self.basis):
            cb = red[bcol]
            if cb != 0:
                for j, a in enumerate(self.rows[i]):
                    if a != 0:
                        red[j] -= cb * a
        self.objectives.append(red)
        return red

    def pivot(self, r: int, col: int) -> None:
        row = self.rows[r]
        p = row[col]
        if p != 1:
            inv = 1 / p
            row = [x * inv if x != 0 else x for x in row]
            self.rows[r] = row
        nz = [j for j, x in enumerate(row) if x != 0]
        for other in itertools.chain(self.rows, self.objectives):
            if other is row:
                continue
            f = other[col]
            if f != 0:
                for j in nz:
                    other[j] -= f * row[j]
        self.basis[r] = col

    def run(self, red: list, allowed: int) -> str:
        """Minimise from the current basic feasible solution over columns < allowed; Bland's rule."""
        while True:
            basic = set(self.basis)
            entering = next((j for j in range(allowed) if red[j] < 0 and j not in basic), None)
            if entering is None:
                return "optimal"
            best = None
            for i, row in enumerate(self.rows):
                a = row[entering]
                if a > 0:
                    key = (row[-1] / a, self.basis[i])  # smallest ratio, then smallest index
                    if best is None or key < best[0]:
                        best = (key, i)
            if best is None:
                return "unbounded"
            self.pivot(best[1], entering)

    def solution(self) -> list:
        y = [_ZERO] * self.ncols
        for i, bcol in enumerate(self.basis):
            y[bcol] = self.rows[i][-1]
        return y


_ZERO = fmpq(0)
_ONE = fmpq(1)


def _solve_closed(objective: Mapping, constraints: list[Constraint], variables: list,
                  nonneg=frozenset()):
    """min objective over the closed system (variables in `nonneg` are >= 0, the others
    free).  Returns (status, value, point)."""
    # columns: x+ for every variable, x- for the free ones, one slack per inequality,
    # then one artificial per row
    plus = {v: k for k, v in enumerate(variables)}
    minus = {v: len(plus) + k for k, v in enumerate(v for v in variables if v not in nonneg)}
    slack_col = {k: len(plus) + len(minus) + j for j, k in enumerate(
        k for k, c in enumerate(constraints) if c.op != "==")}
    nstruct = len(plus) + len(minus) + len(slack_col)
    m = len(constraints)
    ncols = nstruct + m

    def dense(coeffs, width: int) -> list:
        """The coefficients over the columns (a free variable's x- column gets the negated one)."""
        row = [_ZERO] * width
        for v, a in coeffs:
            row[plus[v]] += to_fmpq(a)
            if v in minus:
                row[minus[v]] -= to_fmpq(a)
        return row

    rows = []
    for k, c in enumerate(constraints):
        row = dense(c.coeffs, ncols + 1)
        if k in slack_col:
            row[slack_col[k]] = _ONE if c.op in ("<", "<=") else -_ONE
        b = to_fmpq(c.rhs)
        if b < 0:
            row, b = [-a for a in row], -b
        row[nstruct + k], row[-1] = _ONE, b
        rows.append(row)
    tab = _Tableau(rows, ncols)
    tab.basis = [nstruct + i for i in range(m)]
    # Phase I: minimise the sum of artificials.
    phase1 = tab.add_objective([_ZERO] * nstruct + [_ONE] * m)
    tab.run(phase1, ncols)
    if -phase1[-1] > 0:
        return "infeasible", INF, None
    tab.objectives.clear()
    # Drive artificials out of the basis (they are at value 0); drop redundant rows.
    i = 0
    while i < len(tab.rows):
        if tab.basis[i] >= nstruct:
            col = next((j for j in range(nstruct) if tab.rows[i][j] != 0), None)
            if col is None:
                del tab.rows[i], tab.basis[i]
                continue
            tab.pivot(i, col)
        i += 1
    status = tab.run(tab.add_objective(dense(objective.items(), ncols)), nstruct)
    y = tab.solution()
    point = {v: to_fraction(y[plus[v]] - (y[minus[v]] if v in minus else 0)) for v in variables}
    if status == "unbounded":
        return "unbounded", -INF, point
    value = sum((Fraction(a) * point[v] for v, a in objective.items()), Fraction(0))
    return "optimal", value, point


# --------------------------------------------------------------------------- public API


def _variables_of(objective: Mapping, constraints: Iterable[Constraint], extra=()) -> list:
    """Every variable once, in the order first met (it fixes the simplex's columns)."""
    return list(dict.fromkeys(itertools.chain(extra, objective, (v for c in constraints for v, _ in c.coeffs))))


_SLACK = ("__lp_strict_slack__",)  # a variable name no caller uses


def interior_point(constraints: list[Constraint], variables: list | None = None,
                   nonneg=frozenset()) -> dict | None:
    """A point satisfying every constraint (strict ones strictly), or None if there is none.

    Variables in `nonneg` are constrained to be >= 0 (not strictly).

    >>> interior_point([Constraint.make({"x": 1}, ">", 0), Constraint.make({"x": 1}, "<", 1)])
    {'x': Fraction(1, 2)}
    """
    constraints = list(constraints)
    variables = variables if variables is not None else _variables_of({}, constraints)
    strict = [c for c in constraints if c.is_strict()]
    if not strict:
        status, _, point = _solve_closed({}, constraints, variables, nonneg)
        return None if status == "infeasible" else point
    t = _SLACK
    system = [Constraint.make({**c.as_dict(), t: 1 if c.op == "<" else -1}, c.closed().op, c.rhs)
              if c.is_strict() else c for c in constraints]
    system.append(Constraint.make({t: 1}, "<=", 1))
    status, value, point = _solve_closed({t: -1}, system, list(variables) + [t], nonneg)
    if status == "infeasible" or point[t] <= 0:
        return None
    point.pop(t)
    return point


def row_point(rows, width: int) -> list | None:
    """A point [x_0, ..., x_{width-1}] (Fractions) of the integer rows (h, op), each h.(x, 1) op 0 (strict
    ones strictly), or None: the one LP question of the cells and of the engine's open regions.

    0 < x_0 < 1/2, written 2 x_0 - 1 < 0 and -x_0 < 0:

    >>> row_point([((2, -1), "<"), ((-1, 0), "<")], 1)
    [Fraction(1, 3)]
    """
    point = interior_point([Constraint.row(h, op) for h, op in rows], list(range(width)))
    return None if point is None else [point[i] for i in range(width)]


def feasible(constraints: list[Constraint]) -> bool:
    """Whether the system (strict inequalities strict) has a solution.

    x < 0 and x >= 0 has no solution, although its closure has x = 0:

    >>> feasible([Constraint.make({"x": 1}, "<", 0), Constraint.make({"x": 1}, ">=", 0)])
    False
    """
    return interior_point(constraints) is not None


def minimize(objective: Mapping, constraints: list[Constraint], variables: list | None = None,
             nonneg=frozenset()) -> LPResult:
    """inf { objective.x : x satisfies constraints }, exactly.

    `objective` maps variables to coefficients (a constant term is not part of
    it: add it yourself).  Variables are free, except those in `nonneg`, which
    are >= 0.  See `LPResult`.

    min y subject to y >= x and x <= 1 is unbounded (x and y are free):

    >>> minimize({"y": 1}, [Constraint.make({"x": 1}, "<=", 1), Constraint.make({"x": 1, "y": -1}, "<=", 0)]).status
    'unbounded'
    """
    nonneg = frozenset(nonneg)
    constraints = list(constraints)
    variables = _variables_of(objective, constraints, variables or ())
    # With strict constraints, first decide whether the open system is empty at all
    # (its closure may not be: x < 0 and x >= 0); that one LP settles most empty cases.
    # A constant constraint needs no test of its own: the LP of its row decides it.
    strict = any(c.is_strict() for c in constraints)
    inner = interior_point(constraints, variables, nonneg) if strict else None
    if strict and inner is None:
        return LPResult("infeasible", INF, False)
    status, value, point = _solve_closed(objective, [c.closed() for c in constraints], variables, nonneg)
    if status == "infeasible":
        return LPResult("infeasible", INF, False)
    # the LP points carry every variable (they come from `variables`), so none needs filling in
    interior = inner if inner is not None else dict(point)
    if status == "unbounded":
        return LPResult("unbounded", -INF, False, None, interior)
    if inner is None or all(c.holds(point) for c in constraints):
        return LPResult("optimal", value, True, point, interior)
    witness = interior_point(constraints + [Constraint.make(objective, "<=", value)], variables, nonneg)
    return LPResult("optimal", value, witness is not None, point if witness is None else witness, interior)


def maximize(objective: Mapping, constraints: list[Constraint], variables: list | None = None,
             nonneg=frozenset()) -> LPResult:
    """sup objective.x (value +inf when unbounded, -inf when infeasible).

    sup x over 0 <= x < 1 is 1, not attained:

    >>> r = maximize({"x": 1}, [Constraint.make({"x": 1}, "<", 1), Constraint.make({"x": 1}, ">=", 0)])
    >>> r.status, r.value, r.attained
    ('optimal', Fraction(1, 1), False)
    """
    res = minimize({v: -Fraction(c) for v, c in objective.items()}, constraints, variables, nonneg)
    res.value = -res.value      # also swaps the infinities: unbounded is +inf, infeasible -inf
    return res

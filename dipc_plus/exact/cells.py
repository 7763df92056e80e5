"""Cells of input space: where one closed form in the real inputs q holds.

With the real inputs kept as symbols v_i = eps q_i, a probability is one closed
form per polyhedral piece of q-space.  A `Cell` is such a piece: a conjunction of
integer linear constraints ``h.(q, 1) op 0`` with op one of ``<``, ``<=``, ``==``
(the homogeneous form over (v, eps) is the same tuple, since eps > 0).

The engine asks a cell about a linear form h it meets; the cell answers by exact
LPs (`lp`) or raises `NeedSplit(h)`, and the driver (`piecewise`) splits:

* `sign(h)` is for forms met inside an integral (case and breakpoint comparisons).
  The probability is continuous in q there, so the answer is about the cell's
  relative interior, and a closed form found on it extends to its closed faces;
  a split is ``h <= 0`` / ``h > 0``.
* `decide(h, op)` is for an atom of inputs alone (no noise), whose truth makes the
  probability jump: it must hold or fail on every point of the cell, boundaries
  included; a split is ``h < 0`` / ``h == 0`` / ``h > 0`` (the equality cell).

The pieces a driver makes from the box therefore partition it: every point lies
in exactly one cell (`contains`).  A cell is normalised on creation so that its
relative interior (every ``<=`` read as ``<``) is non-empty: a ``<=`` forced to
equality by the others becomes ``==``.
"""
from __future__ import annotations

import random
from fractions import Fraction

from dipc_plus.exact import lp
from dipc_plus.exact.linear import holds
from dipc_plus.exact.open_regions import is_difference, primitive, region_is_feasible

__all__ = ["Cell", "CellPoint", "NeedSplit", "box", "primitive", "substituted"]

_OPS = ("<", "<=", "==")
_UNKNOWN = object()


class NeedSplit(Exception):
    """The cell cannot decide the sign of h (an integer tuple over (q, 1)); `jump` says
    whether the probability jumps across h = 0 (then the equality cell is a piece too).

    On [-1, 1] the sign of q0 varies, so the cell asks to be split on it:

    >>> try:
    ...     box(1).sign((1, 0))
    ... except NeedSplit as split:
    ...     print(split.h, split.jump)
    (1, 0) False
    """

    def __init__(self, h: tuple, jump: bool = False):
        super().__init__(h, jump)
        self.h = h
        self.jump = jump


class Cell:
    """A conjunction of constraints ``h.(q, 1) op 0`` over p inputs (h primitive integer tuples).
    The one polyhedron the symbolic engine splits: indexed inputs, normalised so each cell is a piece
    of a partition; the accuracy deciders' named regions (`accuracy.polyhedral`) read facets instead.

    q0 + 2 > 0 everywhere on the box [-1, 1]:

    >>> c = box(1)
    >>> c, c.sign((1, 2)), c.contains([Fraction(1, 2)]), c.contains([2])
    (Cell(-1*q0 <= 1 and q0 <= 1), 1, True, False)
    >>> [str(x) for x in c.interior_point()]
    ['0']
    """

    def __init__(self, p: int, constraints, known: dict | None = None):
        self.p = p
        self.constraints = tuple(sorted(set(constraints)))
        for h, op in self.constraints:
            if len(h) != p + 1 or op not in _OPS:
                raise ValueError(f"bad cell constraint {h} {op}")
        # signs already decided (a child inherits its parent's: a subset keeps them)
        self._signs: dict = dict(known) if known else {}
        self._hash = hash((p, self.constraints))
        self._inside = _UNKNOWN     # a relative-interior point (None: there is none), found once
        self._bounds = None     # per input, bounds (lo, hi) from the one-input constraints
        self._witnesses: list = []   # points of the relative interior met so far
        self._differences = all(op != "==" and is_difference(c[:-1]) for c, op in self.constraints)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, Cell) and (self.p, self.constraints) == (other.p, other.constraints)

    def __repr__(self):
        return f"Cell({self.describe()})"

    def describe(self) -> str:
        """The constraints as inequalities on q (q0, q1, ...)."""
        parts = []
        for h, op in self.constraints:
            lhs = " + ".join(f"{c}*q{i}" if c != 1 else f"q{i}" for i, c in enumerate(h[:-1]) if c)
            parts.append(f"{lhs} {op} {-h[-1]}")
        return " and ".join(parts) or "true"

    # -- exact LP questions ------------------------------------------------------
    def _system(self, relative_interior: bool) -> list:
        return [(h, "<" if relative_interior and op == "<=" else op) for h, op in self.constraints]

    def _feasible_with(self, h: tuple, op: str, relative_interior: bool) -> bool:
        if relative_interior and self._differences and op in ("<", ">") and is_difference(h[:-1]):
            # an open system of difference constraints: shortest paths (open_regions), no LP
            return region_is_feasible([c for c, _ in self.constraints] + [h if op == "<" else _neg(h)])
        pt = lp.row_point(self._system(relative_interior) + [(h, op)], self.p)
        if pt is not None and relative_interior:   # a witness: later questions may be settled by it without an LP
            self._witnesses.append(pt)
        return pt is not None

    def is_empty(self) -> bool:
        return lp.row_point(self.constraints, self.p) is None

    def interior_point(self) -> list | None:
        """A point of the relative interior (Fractions), or None if it is empty: found once, and kept
        as the first witness of `sign`."""
        if self._inside is _UNKNOWN:
            self._inside = lp.row_point(self._system(True), self.p)
            if self._inside is not None:
                self._witnesses.append(self._inside)
        return self._inside

    def sign(self, h: tuple) -> int:
        """-1 / +1 if h.(q, 1) < 0 / > 0 on the whole relative interior, 0 if h vanishes on it;
        otherwise raise NeedSplit(h).  (On a relatively open convex set a linear form that is
        <= 0 everywhere and not identically 0 there is < 0 everywhere: two LPs suffice.)"""
        if not any(h[:-1]):
            return (h[-1] > 0) - (h[-1] < 0)
        found = self._signs.get(h)
        if found is None:
            found = self._signs[h] = self._sign(h)
        return found

    def _sign(self, h: tuple) -> int:
        lo, hi = self._range_on_bounds(h)
        if hi is not None and hi < 0:
            return -1
        if lo is not None and lo > 0:
            return 1
        if self._differences and is_difference(h[:-1]):   # two shortest-path tests, no LP
            neg = self._feasible_with(h, "<", True)
            pos = self._feasible_with(h, ">", True)
            if neg and pos:
                raise NeedSplit(h)
            return -1 if neg else (1 if pos else 0)
        # the signs at known inside points: two different ones split at once; otherwise
        # the one seen is the only candidate and one LP looks for the other
        if self.interior_point() is None:
            raise ValueError(f"the cell {self.describe()} is empty")
        at = 0
        for z in self._witnesses:
            value = sum((c * x for c, x in zip(h, z)), Fraction(h[-1]))
            if value:
                if at and (value > 0) != (at > 0):
                    raise NeedSplit(h)
                at = value
        # the sign seen (0: zero inside, and h is not constant) holds unless the other side is reached
        if self._feasible_with(h, ">" if at < 0 else "<", True):
            raise NeedSplit(h)
        return (at > 0) - (at < 0)

    def _range_on_bounds(self, h: tuple) -> tuple:
        """(min, max) of h.(q, 1) over the bounding box of the cell's one-input constraints
        (None where unbounded): a cheap sufficient test before any LP."""
        if self._bounds is None:
            bounds = [[None, None] for _ in range(self.p)]
            for c, op in self.constraints:
                nz = [i for i in range(self.p) if c[i]]
                if len(nz) == 1:
                    (i,) = nz
                    b = Fraction(-c[-1], c[i])          # c_i q_i + c_eps op 0
                    sides = (0, 1) if op == "==" else ((1,) if c[i] > 0 else (0,))
                    for side in sides:
                        old = bounds[i][side]
                        if old is None or (b < old if side else b > old):
                            bounds[i][side] = b
            self._bounds = bounds
        lo = hi = Fraction(h[-1])
        for i, c in enumerate(h[:-1]):
            if not c:
                continue
            a, b = self._bounds[i]
            small, large = (a, b) if c > 0 else (b, a)
            lo = None if lo is None or small is None else lo + c * small
            hi = None if hi is None or large is None else hi + c * large
        return lo, hi

    def decide(self, h: tuple, op: str) -> bool:
        """Does ``h.(q, 1) op 0`` (op in < <= == !=) hold on every point of the cell (True), on
        none (False)?  Otherwise NeedSplit(h, jump=True)."""
        if any(h[:-1]):
            key = ("closed", h)
            s = self._signs.get(key)
            if s is None:
                signs = [s for s, o in ((-1, "<"), (0, "=="), (1, ">")) if self._feasible_with(h, o, False)]
                if len(signs) != 1:
                    raise NeedSplit(h, jump=True)
                s = self._signs[key] = signs[0]   # only decided signs are kept (children inherit them)
        else:
            s = (h[-1] > 0) - (h[-1] < 0)
        return holds(s, op)

    def eliminations(self) -> list:
        """[(k, expr)]: the cell's equalities solved as q_k = expr.(q, 1), each expr over the
        inputs no equality solves for (Gaussian elimination, Fractions)."""
        solved: list = []
        for h, op in self.constraints:
            if op != "==":
                continue
            row = substituted([Fraction(c) for c in h], solved)      # the pivots found so far
            k = next((i for i in range(self.p) if row[i]), None)
            if k is None:
                continue                    # implied by the others
            expr = tuple(Fraction(0) if i == k else -row[i] / row[k] for i in range(self.p + 1))
            solved = [(j, tuple(substituted(e, [(k, expr)]))) for j, e in solved]     # expr[k] is 0
            solved.append((k, expr))
        return solved

    # -- splitting ---------------------------------------------------------------
    def children(self, split: NeedSplit) -> list:
        """The non-empty pieces of the cell on the sides of split.h (and on it, for a jump)."""
        h = split.h
        neg = _neg(h)
        if split.jump:
            sides = [(h, "<"), (h, "=="), (neg, "<")]
        else:
            sides = [(h, "<="), (neg, "<")]
        out = []
        for c in sides:
            child = Cell(self.p, self.constraints + (c,), self._signs).normalised()
            if child is not None:
                out.append(child)
        return out

    def normalised(self):
        """The same point set with a non-empty relative interior (None if the cell is empty):
        each ``<=`` that the others force to equality becomes ``==``."""
        differences_open = self._differences and region_is_feasible([c for c, _ in self.constraints])
        if differences_open or (not self._differences and self.interior_point() is not None):
            return self
        if self.is_empty():
            return None
        cell = self
        while cell.interior_point() is None:
            for k, (h, op) in enumerate(cell.constraints):
                if op == "<=" and not cell._feasible_with(h, "<", False):
                    cons = list(cell.constraints)
                    cons[k] = (h, "==")
                    cell = Cell(cell.p, cons, cell._signs)
                    break
            else:
                raise AssertionError("an empty relative interior with no forced equality")
        return cell

    # -- points ------------------------------------------------------------------
    def contains(self, q) -> bool:
        """Exact membership of the point q (rationals)."""
        for h, op in self.constraints:
            if not holds(sum(Fraction(c) * Fraction(x) for c, x in zip(h, q)) + h[-1], op):
                return False
        return True

    def sample(self, rng: random.Random, k: int) -> list:
        """k random rational points of the relative interior: the LP's interior point z moved
        toward vertices of the closure (z + t (vertex - z), 0 <= t < 1, stays inside)."""
        z = self.interior_point()
        closed = [lp.Constraint.row(h, op).closed() for h, op in self.constraints]
        points = [z]
        while len(points) < k:
            objective = {i: rng.randint(-5, 5) for i in range(self.p)}
            res = lp.minimize(objective, closed, list(range(self.p)))
            t = Fraction(rng.randint(0, 15), 16)
            if res.status != "optimal" or res.point is None:
                vertex = z
            else:
                vertex = [Fraction(res.point.get(i, 0)) for i in range(self.p)]
            points.append([a + t * (b - a) for a, b in zip(z, vertex)])
        return points


def substituted(row: list, solved: list) -> list:
    """The row h over (q, 1) with each solved input q_k = expr.(q, 1) of `solved` replaced
    (`Cell.eliminations`), so that it reads only the free inputs.

    On the cell q0 - q1 + 1 = 0 (solved as q0 = q1 - 1), the form q0 + q1 is 2 q1 - 1:

    >>> tied = Cell(2, [((1, -1, 1), "==")]).eliminations()
    >>> [str(c) for c in substituted([1, 1, 0], tied)]
    ['0', '2', '-1']
    """
    for k, expr in solved:
        ck = row[k]
        if ck:
            row = list(row)
            row[k] = 0
            row = [a + ck * b for a, b in zip(row, expr)]
    return row


class CellPoint:
    """A point b = t / d of a line whose position depends on the inputs (t integers over
    (q, 1), d > 0), such as a breakpoint of the Laplace engine's one-variable factors:
    comparisons ask the cell for the sign of the difference (NeedSplit when it varies),
    so code written to sort and bisect rationals orders these unchanged.

    On the box [-1, 1], q0/2 lies below 1 but is not ordered against 0:

    >>> half_q, one = CellPoint((1, 0), 2, box(1)), CellPoint((0, 1), 1, box(1))
    >>> half_q < one, half_q > one
    (True, False)
    """

    __slots__ = ("t", "d", "cell")

    def __init__(self, t: tuple, d: int, cell: Cell):
        self.t, self.d, self.cell = t, d, cell

    def _sign(self, other: "CellPoint") -> int:
        d1, d2 = self.d, other.d
        h = tuple(a * d2 - b * d1 for a, b in zip(self.t, other.t))   # (b1 - b2) d1 d2
        return self.cell.sign(primitive(h)) if any(h) else 0

    def __lt__(self, other):
        return self._sign(other) < 0

    def __gt__(self, other):
        return self._sign(other) > 0

    def __eq__(self, other):
        return self._sign(other) == 0

    __hash__ = None


def _neg(h: tuple) -> tuple:
    return tuple(-c for c in h)


def box(p: int, lo=-1, hi=1) -> Cell:
    """The closed box [lo, hi]^p as a cell.

    >>> box(2, 0, 1).describe()
    '-1*q0 <= 0 and -1*q1 <= 0 and q1 <= 1 and q0 <= 1'
    """
    return box_of([(lo, hi)] * p)


def box_of(bounds: list) -> Cell:
    """The closed box prod [lo_i, hi_i], from [(lo, hi)] per coordinate, as a cell (lo = hi fixes
    the coordinate).

    >>> box_of([(0, 1), (2, 2)]).describe()
    '-1*q0 <= 0 and -1*q1 <= -2 and q1 <= 2 and q0 <= 1'
    """
    p = len(bounds)
    cons = []
    for i, (lo, hi) in enumerate(bounds):
        for side, end in ((1, hi), (-1, lo)):     # q_i <= hi, -q_i <= -lo
            row = [0] * (p + 1)
            row[i], row[-1] = side, -side * end
            cons.append((primitive(row), "<="))
    return Cell(p, cons)

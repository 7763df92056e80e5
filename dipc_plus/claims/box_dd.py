"""Distance to disagreement in closed form when every region is a box.

In Sparse, AboveThreshold and NumericSparse every constraint of a disagreement region
bounds one input, so the region is a box: the L-inf distance from u to it is its largest
per-coordinate gap, and whether some input of the box attains it is read off which bounds
are active (open or closed).  This gives the LP's value and attainment 10-15x faster on
the paper's grids (`disagreement.RealSpace.box_dd` uses it; tests compare it with the LP).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from math import floor, lcm
from typing import Mapping

from dipc_plus.claims.dd_result import Disagreement
from dipc_plus.claims.distances import INF, linf_gap
from dipc_plus.exact import lp
from dipc_plus.exact.convert import common_denominator, scaled_integers

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}


@dataclass(eq=False)
class Box:
    """Per variable: lower and upper bounds, each (value, closed) or None: the box of inputs with open
    or closed ends (a disagreement region here, a box-shaped det region in `accuracy.box`).

    >>> b = Box()
    >>> b.add_bound("q", Fraction(0), ">"); b.add_bound("q", Fraction(1), "<=")
    >>> b.ends("q"), b.admits("q", 0), b.admits("q", 1)
    ((Fraction(0, 1), Fraction(1, 1)), False, True)
    """

    lo: dict = field(default_factory=dict)
    hi: dict = field(default_factory=dict)
    empty: bool = False
    # A box is not changed once it is measured (`split_boxes` changes copies), so `nearest_box`'s
    # views of it below are remembered on it, for the same `names` every time.
    _views: dict = field(default_factory=dict, init=False, repr=False)

    def _remembered(self, key, compute):
        if key not in self._views:
            self._views[key] = compute()
        return self._views[key]

    def denominator(self, names) -> int:
        """The least common denominator of the bounds on `names`."""
        return self._remembered("denominator", lambda: common_denominator(
            b[0] for bounds in (self.lo, self.hi) for n, b in bounds.items() if n in names))

    def is_empty(self, names) -> bool:
        """Whether no value of `names` is within their bounds (or a constant constraint failed)."""
        return self._remembered("empty", lambda: self.empty or any(
            lo is not None and hi is not None and (lo[0] > hi[0] or (lo[0] == hi[0] and not (lo[1] and hi[1])))
            for lo, hi in map(self.interval, names)))

    def scaled(self, names, scale: int) -> list:
        """[(lo, lo closed, hi, hi closed)] per name, the bounds times `scale` (a multiple of
        `denominator`) as integers, None where unbounded, remembered per scale."""
        def end(bound):
            return (None, False) if bound is None else (int(bound[0] * scale), bound[1])
        return self._remembered(scale, lambda: [(*end(lo), *end(hi)) for lo, hi in map(self.interval, names)])

    def copy(self) -> "Box":
        return Box(dict(self.lo), dict(self.hi), self.empty)

    def add(self, c: lp.Constraint) -> bool:
        """Intersect with one constraint; False if it bounds more than one variable."""
        if not c.coeffs:
            if not c.holds({}):
                self.empty = True
            return True
        if len(c.coeffs) != 1:
            return False
        (name, a), = c.coeffs
        self.add_bound(name, c.rhs / a, c.op if a > 0 else _FLIP[c.op])
        return True

    def add_bound(self, name, x: Fraction, op: str) -> None:
        """Intersect with  name op x."""
        if op in (">", ">=", "=="):
            self._tighten(self.lo, name, x, op != ">", lower=True)
        if op in ("<", "<=", "=="):
            self._tighten(self.hi, name, x, op != "<", lower=False)

    @staticmethod
    def _tighten(bounds: dict, name, x: Fraction, closed: bool, lower: bool) -> None:
        old = bounds.get(name)
        if old is None or (x > old[0] if lower else x < old[0]) or (x == old[0] and not closed):
            bounds[name] = (x, closed)

    def interval(self, name) -> tuple:
        return self.lo.get(name), self.hi.get(name)

    def ends(self, name) -> tuple:
        """(lower end, upper end) of `name` as numbers, None where unbounded."""
        return tuple(None if end is None else end[0] for end in self.interval(name))

    def admits(self, name, x: Fraction) -> bool:
        """Whether `name` = x is within the bounds of `name` (an open end excludes its value)."""
        lo, hi = self.interval(name)
        return ((lo is None or x > lo[0] or (x == lo[0] and lo[1]))
                and (hi is None or x < hi[0] or (x == hi[0] and hi[1])))



def _box_coordinates(point: list, bounds: list, limit) -> list | None:
    """[(distance, whether the nearest point is in the box)] per coordinate, for bounds as `Box.scaled`
    gives them (or unscaled), or None as soon as one exceeds `limit`: a box farther than one
    already found in a single coordinate cannot replace it."""
    coords = []
    for x, (lo, lo_closed, hi, hi_closed) in zip(point, bounds):
        if lo is not None and x < lo:
            d = (lo - x, lo_closed)
        elif hi is not None and x > hi:
            d = (x - hi, hi_closed)
        else:   # inside, or on an open end
            d = (0, not ((lo is not None and x == lo and not lo_closed) or
                         (hi is not None and x == hi and not hi_closed)))
        if limit is not None and d[0] > limit:
            return None
        coords.append(d)
    return coords


def pick(u_n: Fraction, lo, hi, value: Fraction) -> Fraction:
    """A point of the interval within `value` of u_n (it exists: the box attains `value`): u_n's
    nearest point of the closure, moved inward from an open end by half the room left."""
    target = clamp(u_n, lo, hi)
    at_lo = lo is not None and target == lo[0]
    end = lo if at_lo else hi if hi is not None and target == hi[0] else None
    if end is None or end[1]:   # strictly inside, or on a closed end
        return target
    room = value - abs(target - u_n)  # > 0 here, and the interval is not a point
    width = (hi[0] - lo[0]) if lo is not None and hi is not None else room
    return target + (1 if at_lo else -1) * min(room, width) / 2


def clamp(x: Fraction, lo, hi) -> Fraction:
    """x moved into the closure of an interval given as (bound, included) ends, None unbounded."""
    x = max(x, lo[0]) if lo is not None else x
    return min(x, hi[0]) if hi is not None else x


def boxes_of(regions) -> list | None:
    """[(fixed, box)] of the (fixed, constraints) regions, or None as soon as one is no box."""
    boxes = []
    for fixed, region in regions:
        box = Box()
        if not all(box.add(c) for c in region):
            return None
        boxes.append((fixed, box))
    return boxes


def finite_splits(above: list, T: Fraction, u: Mapping) -> list:
    """The constraints of each way the NumericSparse distance stays finite: every input in `above`
    (>= T at u) moved below T, or left exactly where it is (one list per way)."""
    return [[lp.Constraint.make({n: 1}, "<", T) if below else lp.Constraint.make({n: 1}, "==", Fraction(u[n]))
             for n, below in zip(above, choice)]
            for choice in itertools.product((True, False), repeat=len(above))]


def split_boxes(boxes: list, splits: list) -> list:
    """Each box intersected with each split of `finite_splits` (the boxes themselves when the one
    split is empty)."""
    if splits == [[]]:
        return boxes
    units = []
    for fixed, base in boxes:
        for extra in splits:
            box = base.copy()
            for c in extra:
                box.add(c)
            units.append((fixed, box))
    return units


def nearest_box(u: Mapping, units: list, reals) -> Disagreement:
    """dd(u) over the (fixed, box) units: the box nearest to u in the distance (an attained value
    preferred on a tie), witnessed by a point of it within the value when attained, else by the
    point of its closure nearest to u; infinite when every box is empty or infinitely far."""
    at = {n: Fraction(u[n]) for n in reals}
    # distances measured in integers: u and every bound over their common denominator
    scale = lcm(common_denominator(at.values()), *(box.denominator(reals) for _, box in units))
    point = scaled_integers(at.values(), scale)
    best = None  # (value, attained, fixed, box)
    for fixed, box in units:
        if box.is_empty(reals):
            continue
        gap = linf_gap(u, fixed)
        if gap == INF:
            continue
        coords = _box_coordinates(point, box.scaled(reals, scale),
                                  None if best is None else floor(best[0] * scale))
        if coords is None:
            continue
        scaled = max((d for d, _ in coords), default=0)
        attained = all(d < scaled or included for d, included in coords)
        value = Fraction(scaled, scale)
        if gap > value:
            value, attained = gap, True
        if best is None or value < best[0] or (value == best[0] and attained and not best[1]):
            best = (value, attained, fixed, box)
    if best is None:
        return Disagreement(INF, False)
    value, attained, fixed, box = best
    witness = {n: pick(at[n], *box.interval(n), value) if attained else clamp(at[n], *box.interval(n))
               for n in reals}
    return Disagreement(value, attained, {**u, **fixed, **witness})

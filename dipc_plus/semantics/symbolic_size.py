"""How many cells `prob --symbolic` must at least split a box into, known before it splits any.

Why: the splitting driver (`exact.piecewise`) counts cells as it makes them, but each one
costs an exact integration, so a program that needs 40,320 cells (Sparse c = 1, m = 7)
ran for many minutes before the count reached the `cells` limit.  This module gives a
lower bound from the program's comparisons alone, so such a box is refused at once.

The bound comes from stars of comparisons.  A path's atoms form a star when one noise
(the hub, Sparse's threshold) is compared with k other noises (the leaves, the noisy
queries), each leaf in one comparison and nothing else in the path.  The engine integrates
the leaves first (they have one neighbour: `laplace_engine.elimination_order`), which leaves
a factor of the hub with a kink where each comparison's boundary meets its leaf's kink,
at -(h.q + c)/a for the comparison a*hub + b*leaf + h.q + c; the hub's own kink is at 0.
Integrating the hub sorts these breakpoints, and a final cell is one where that sort never
asked to split: the breakpoints' order is fixed on it.  So breakpoints that can take every
order on an open part of the box force one cell per order.  We count those we can be
sure of: breakpoints that each move with a different single input and whose ranges over
the box share an open interval, plus a constant breakpoint inside it (j of them: j! cells).
Anything else (several components, comparisons of inputs alone, a noise in two
comparisons) counts as 1: the bound stays a lower bound, possibly a weak one.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import factorial

from dipc_plus.exact.constraints import components

__all__ = ["CellBound", "cells_at_least"]


@dataclass(frozen=True)
class CellBound:
    """At least `count` cells, because `breakpoints` breakpoints (the hub's kinks, described by
    `names`) take every order on the box; `noises`: the noises one cell integrates.  A count of
    cells made before any is split, not a cell."""
    count: int
    breakpoints: int
    names: tuple
    noises: int

    def text(self) -> str:
        inputs = [n for n in self.names if n != CONSTANT]
        shown = ", ".join(inputs[:4]) + (", ..." if len(inputs) > 4 else "")
        if CONSTANT in self.names:
            shown += " and a constant"
        count = f"{self.count:,}" if self.breakpoints <= 30 else f"{self.breakpoints}!"
        return (f"at least {count} cells: the {self.breakpoints}! orders of the breakpoints "
                f"{shown} that its comparisons meet (each cell integrates {self.noises} noises)")


CONSTANT = "a constant"
NONE = CellBound(1, 0, (), 0)


def cells_at_least(paths, bounds: list) -> dict:
    """{output value: CellBound} for a `symbolic_chain.SymbolicPaths` over the box `bounds`
    ([(lo, hi)] per real input): the largest bound of any of the output's paths."""
    out = {}
    for output, atom_sets in paths.paths.items():
        best = NONE
        for atoms in atom_sets:
            found = _star_bound(atoms, paths.input_ids, paths.real_inputs, bounds)
            if found.count > best.count:
                best = found
        out[output] = best
    return out


def _star_bound(atoms, input_ids: dict, names: list, bounds: list) -> CellBound:
    """The bound of one path's atom set (NONE unless it is one star, see the module docstring)."""
    ignore = frozenset(input_ids)
    atoms = list(atoms)
    if len(atoms) < 2 or any(not (a.noises() - ignore) for a in atoms):
        return NONE
    comps = components(atoms, ignore)
    if len(comps) != 1:
        return NONE
    per_atom = [sorted(a.noises() - ignore) for a in atoms]
    if any(len(ids) != 2 for ids in per_atom):
        return NONE
    shared = set(per_atom[0]).intersection(*per_atom[1:])
    if len(shared) != 1:
        return NONE
    (hub,) = shared
    leaves = [i for ids in per_atom for i in ids if i != hub]
    if len(set(leaves)) != len(leaves):     # a leaf in two comparisons
        return NONE
    constants = {Fraction(0): CONSTANT}   # the hub's own kink
    ranges = []                             # (input index, lo, hi, name) of moving breakpoints
    for a in atoms:
        coeffs = dict(a.form.coeffs)
        moving = [(input_ids[i], c) for i, c in coeffs.items() if i in input_ids]
        scale = -Fraction(coeffs[hub])
        if not moving:
            constants.setdefault(Fraction(a.form.const) / scale, CONSTANT)
        elif len(moving) == 1:
            ((k, c),) = moving
            lo, hi = bounds[k]
            ends = sorted(((c * lo + a.form.const) / scale, (c * hi + a.form.const) / scale))
            if ends[0] < ends[1]:
                ranges.append((k, ends[0], ends[1], names[k]))
    best_depth, best_names = 1, ()
    for t, inside in _candidates(constants, ranges):
        chosen = {}
        for k, lo, hi, name in ranges:
            if lo < t < hi:
                chosen.setdefault(k, name)
        depth = len(chosen) + (1 if inside else 0)
        if depth > best_depth:
            best_depth = depth
            best_names = tuple(chosen[k] for k in sorted(chosen)) + ((inside,) if inside else ())
    if best_depth < 2:
        return NONE
    return CellBound(factorial(min(best_depth, 3000)), best_depth,   # capped: still a lower bound
                     best_names, len(leaves) + 1)


def _candidates(constants: dict, ranges: list):
    """Points where the number of breakpoint ranges around them can be largest: each constant
    (with its name), and the middle of each gap between consecutive ends (None: no constant)."""
    for t, name in constants.items():
        yield t, name
    ends = sorted({x for _, lo, hi, _ in ranges for x in (lo, hi)} | set(constants))
    for a, b in zip(ends, ends[1:]):
        yield (a + b) / 2, None

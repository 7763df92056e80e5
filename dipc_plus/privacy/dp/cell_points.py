"""Rational points strictly inside the cells of a box's input-only comparisons, and their
neighbours, for the refutation of a box privacy claim (issue 38, method 4).

Why: the lattice search looks at multiples of 1, 1/2 and 1/4 only, so a mechanism whose behaviour
changes on an interval such as (1/3, 2/5) is never run inside it and looks private.  The input-only
comparisons `f(u) op 0` (listed by the density-ratio walk) cut each coordinate at thresholds; a
point at each threshold and at the midpoint of each piece between consecutive thresholds (and the
box's ends) meets every cell the cuts of one coordinate make, and its neighbours at the adjacency
bound (clipped to the box) are the pairs that leave the cell furthest.  These are candidates only:
every pair among them is checked exactly and a counterexample re-checked as on a lattice.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.privacy.dp.density_ratio import BOUNDED, input_only_comparisons

MAX_FREE_ENDS = 4     # a comparison over more inputs: thresholds with the others at their lower and upper ends only


def coordinate_cuts(forms: list, box: dict) -> dict:
    """{input: sorted thresholds strictly inside its box side}: for each comparison `f op 0` and each
    input j it reads, the value of u_j where f = 0 with the other inputs it reads at the box's ends
    (each combination while they are at most MAX_FREE_ENDS, else all low and all high)."""
    cuts: dict = {n: set() for n in box}
    for f in forms:
        if f.const is None:
            continue
        for j, c in f.u:
            others = [(n, k) for n, k in f.u if n != j]
            ends = (itertools.product((0, 1), repeat=len(others)) if len(others) <= MAX_FREE_ENDS
                    else [(0,) * len(others), (1,) * len(others)])
            for e in ends:
                t = -(f.const + sum((k * box[n][side] for (n, k), side in zip(others, e)), Fraction(0))) / c
                lo, hi = box[j]
                if lo < t < hi:
                    cuts[j].add(t)
    return {n: sorted(ts) for n, ts in cuts.items()}


def coordinate_values(lo: Fraction, hi: Fraction, cuts: list) -> list[Fraction]:
    """The thresholds and the midpoints of the pieces they cut [lo, hi] into (the box's midpoint
    when nothing cuts it)."""
    ends = [lo, *cuts, hi]
    mids = [(a + b) / 2 for a, b in zip(ends, ends[1:])]
    return sorted(set(mids) | set(cuts))


def neighbours(u: dict, box: dict, kind: str, bound: Fraction) -> list[dict]:
    """u moved by the bound up and down in each coordinate (and, for linf, in all of them at once),
    clipped to the box: the neighbours that leave u's cell furthest."""
    moves = [{n: s} for n in u for s in (1, -1)]
    if kind == "linf" and len(u) > 1:
        moves += [{n: s for n in u} for s in (1, -1)]
    out = []
    for mv in moves:
        w = dict(u)
        for n, s in mv.items():
            w[n] = min(max(u[n] + s * bound, box[n][0]), box[n][1])
        if w != u:
            out.append(w)
    return out


def cell_points(claim, most: int) -> tuple[list[dict], int]:
    """(at most `most` input points: the cell points of the box, each followed by its neighbours;
    the number of thresholds found).  [] when no input-only comparison cuts the box."""
    box = claim.box_bounds
    cuts = coordinate_cuts(input_only_comparisons(claim.program, box), box)
    found = sum(len(ts) for ts in cuts.values())
    if not found:
        return [], 0
    names = list(box)
    values = [coordinate_values(box[n][0], box[n][1], cuts[n]) for n in names]
    cells = math.prod(len(v) for v in values)
    if cells > limits.get("cells"):
        raise UserError(f"the search for a counterexample inside the cells of the box stopped at the limit on cells: "
                        f"the {found} threshold(s) of its input-only comparisons cut it into {cells} cells and "
                        f"threshold points, more than {limits.get('cells')}", file=claim.file,
                        hint="give a smaller box, or " + limits.hint("cells"))
    points: list[dict] = []
    seen: set = set()

    def add(p: dict) -> bool:
        key = tuple(p[n] for n in names)
        if key not in seen:
            if len(points) >= most:
                return False
            seen.add(key)
            points.append(p)
        return True

    adj = claim.adjacency
    bound = adj.bound if adj.kind in BOUNDED else max(hi - lo for lo, hi in box.values())
    for combo in itertools.product(*values):
        u = dict(zip(names, combo))
        if not add(u) or not all(add(w) for w in neighbours(u, box, adj.kind, bound)):
            break
    return points, found

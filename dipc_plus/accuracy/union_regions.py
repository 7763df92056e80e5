"""Det regions that are unions of several noise-free paths with one det: dd and the cover by convex pieces.

Why: a det such as [q1 >= 0 or q2 >= 0] takes one output on several paths, and its region
R = P_1 ∪ ... ∪ P_k is not convex.  dd(q) is the L-inf distance to the complement of the UNION,
not of one path: a point deep in R but on the border between two paths is far from every other
output.  The complement is the union of the other outputs' paths Q_j, so

    dd(q) = min_j dist(q, Q_j),

and for a path Q_j = {a_l.q >= b_l} that is a box (every constraint on one input) or one
half-space (or one hyperplane), dist(q, Q_j) = max(0, max_l (b_l - a_l.q)/||a_l||_1) exactly (the
L-inf distance decouples by coordinate on a box; to a half-space it is the violation over the dual
norm).  Paths of other shapes (several constraints mixing inputs) are refused: there the maximum
is only a lower bound, and a lower bound on dd would leave inputs uncovered.  Every Q_j is non-empty
(`noise_free.paths` prunes the empty ones exactly), which the formula needs too.

Then {q in box: dd(q) >= d} = box ∩ ∩_j ∪_l {a_jl.q <= b_jl - d*||a_jl||_1}, the union over one
facet choice per Q_j of the convex polytopes S_σ(d) = box ∩ {-a_jl.q >= -b_jl + d*||a_jl||_1}.
Each S_σ is the S(d) of a `polyhedral.PolyRegion` whose facets are the chosen ones turned round, so
its worst point v_σ(d) is found as for a convex region; every input of the box with dd >= d lies in
some S_σ(d), so P_err(q) <= max_σ P_err(v_σ(dd(q))), and each v_σ(d) has dd >= d (a failure there
is a real counterexample).  The region is decided when every piece is.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.accuracy.polyhedral import PolyRegion, WorstPath, facets_of

MAX_PIECES = 64       # facet choices (convex pieces of the cover) decided before the region is left undecided


@dataclass
class UnionRegion:
    """One det region made of several noise-free paths: per path to another output, its facets
    [(a, b, ||a||_1)] with that path = {a.q >= b for each}; `cover` gives the convex pieces.
    Not one polyhedron (it is not convex): its convex pieces are `PolyRegion`s."""
    det: dict
    condition: str
    complement: list          # per path to another output: its facets
    boxes: list | None        # the paths as `box.Region`s when every one is a box (else None): the share

    def cover(self, bounds: dict) -> list | str:
        """[PolyRegion]: the pieces S_σ(d) (one facet of each other path, turned round) that meet the box at
        some d > 0, found one path at a time, dropping a partial choice as soon as it misses (exact LPs);
        or why not (more than MAX_PIECES pieces)."""
        partial = [{}]
        for facets in self.complement:
            grown = []
            for chosen in partial:
                for coeffs, b, norm in facets:
                    key = (tuple(sorted((n, -a) for n, a in coeffs.items())), -b)
                    turned = {**chosen, key: ({n: -a for n, a in coeffs.items()}, -b, norm)}
                    if turned not in grown and reaches_inside(bounds, list(turned.values())):
                        grown.append(turned)
            if len(grown) > MAX_PIECES:
                return f"the cover of the union has more than {MAX_PIECES} convex pieces in the box"
            partial = grown
        return [PolyRegion(self.det, self.condition, list(chosen.values())) for chosen in partial]


def reaches_inside(bounds: dict, facets: list) -> bool:
    """Whether box ∩ {a.q >= b + d*||a||_1 for each facet} (at least one) is non-empty for some d > 0."""
    path = WorstPath(bounds, PolyRegion({}, "", facets), [])
    return path.dmax > 0


def outward_facets(condition) -> list | str:
    """[(a, b, ||a||_1)] with Q = {a.q >= b for each}, for a path Q whose L-inf distance is the largest
    facet violation (a box, or one half-space or hyperplane); else why not."""
    mixed = [c for c in condition if len(c.coeffs) > 1]
    if mixed and len([c for c in condition if c.coeffs]) > 1:
        return ("another output's path has several constraints and one mixes inputs: its L-inf distance "
                "is not proved to be the largest facet violation")
    return facets_of(condition)


def union_region(det: dict, text: str, complement: list, boxes: list | None) -> UnionRegion | str:
    """The union region from the conditions of every path to another output, or why its dd is not read
    by facets."""
    per_path = []
    for condition in complement:
        facets = outward_facets(condition)
        if isinstance(facets, str):
            return facets
        per_path.append(facets)
    return UnionRegion(det, text, per_path, boxes)

"""Which claimed inputs are neighbours: the adjacency relation of a DP claim.

Why it exists: the relation (Hamming, one position by at most b, L-inf, L1, or an
explicit list of pairs) is used by the reader, by the pair enumeration and by the
min filters; it lives here once.  Value equality and hashing of input environments
(Booleans never equal numbers) come from `semantics.values`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from dipc_plus.exact.convert import fmt_q
from dipc_plus.claims.distances import value_gap
from dipc_plus.semantics.values import freeze_env, values_equal

ADJACENCIES = ("hamming", "one-position", "linf", "l1", "pairs")
_DESCRIPTIONS = {   # kind -> the relation in words, for every kind but "pairs"
    "hamming": "Hamming distance 1 (one input position changes)",
    "one-position": "one input position changes by at most {bound}",
    "linf": "L-inf distance at most {bound}",
    "l1": "L1 distance at most {bound}",
}

@dataclass
class Adjacency:
    """Which inputs are neighbours (never an input with itself)."""
    kind: str                     # one of ADJACENCIES
    bound: Fraction = Fraction(1)
    pairs: list = field(default_factory=list)   # explicit (u, u') for kind 'pairs'
    _pair_set: set = field(default_factory=set, repr=False)

    def set_pairs(self, pairs: list) -> None:
        """The explicit pairs of kind 'pairs' (each used in both orders)."""
        self.pairs = list(pairs)
        self._pair_set = {(freeze_env(u), freeze_env(w)) for u, w in pairs} | \
                         {(freeze_env(w), freeze_env(u)) for u, w in pairs}

    @property
    def single_coordinate(self) -> bool:
        """Neighbours differ in exactly one input position."""
        return self.kind in ("hamming", "one-position")

    def coordinate_ok(self, a, b) -> bool:
        """May one position change from a to b (for the per-position relations)?"""
        if values_equal(a, b):
            return True
        if self.kind == "hamming":
            return True
        return value_gap(a, b) <= self.bound

    def adjacent(self, u: Mapping, w: Mapping) -> bool:
        if self.kind == "pairs":
            return (freeze_env(u), freeze_env(w)) in self._pair_set
        diff = [k for k in u if not values_equal(u[k], w[k])]
        if not diff:
            return False
        if self.kind == "hamming":
            return len(diff) == 1
        if self.kind == "one-position":
            return len(diff) == 1 and self.coordinate_ok(u[diff[0]], w[diff[0]])
        ds = [value_gap(u[k], w[k]) for k in diff]   # INF for symbols or Booleans that differ
        if self.kind == "linf":
            return max(ds) <= self.bound
        return sum(ds) <= self.bound  # l1

    def describe(self) -> str:
        if self.kind == "pairs":
            return f"{len(self.pairs)} explicit pair(s)"
        return _DESCRIPTIONS[self.kind].format(bound=fmt_q(self.bound))





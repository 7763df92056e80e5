"""The answer of a distance-to-disagreement computation, shared by every route to it.

The real-space search (`disagreement`), its closed forms (`box_dd`, `argmax_dd`), the LP
(`lp_dd`) and the grid (`grid_dd`) all return a `Disagreement`, and compare det outputs
the same way (`outputs_equal`; as keys, `semantics.values.freeze_env`), so they live below
all of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from dipc_plus.claims.distances import INF
from dipc_plus.semantics.evaluate import values_equal


@dataclass
class Disagreement:
    """dd(u) and how it is reached.

    value     Fraction, or INF when no input disagrees at finite distance
    attained  some input w with det(w) != det(u) has d(u, w) == value
    witness   such a w when attained; otherwise a point of the closure of the
              disagreement region at distance value (it may itself agree with u)
    output    det(witness) when attained
    """
    value: object
    attained: bool
    witness: dict | None = None
    output: dict | None = None

    def __str__(self) -> str:
        if self.value == INF:
            return "infinity"
        return f"{self.value}" + ("" if self.attained else " (infimum, not attained)")


def outputs_equal(a: Mapping, b: Mapping) -> bool:
    return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)

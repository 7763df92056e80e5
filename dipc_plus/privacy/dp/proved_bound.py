"""What a bound-proving method of box privacy reports: applies or why not, and the proved k.

Why its own module: the density-ratio bound and the worst neighbour answer alike (a loss bound
k*eps, proved or refused with a reason) and refuse the same claim shapes; the box's report,
JSON and reasons read both through this one shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.exact.convert import fmt_q
from dipc_plus.privacy.display import eps_multiple

# the adjacencies whose pairs all have |q[i] - q'[i]| <= bound at every position (each ball lies
# inside the linf ball of its bound): what the bounds on a loss per unit moved need
BOUNDED = ("linf", "l1", "one-position")


@dataclass
class ProvedBound:
    """A method's answer: applies (k <= the budget), why not, and k (a multiple of eps)."""
    applies: bool
    reason: str = ""
    k: Fraction | None = None

    title = ""      # the method in words, as the verdict names it
    name = ""       # the bound, as an undecided verdict's reasons name it

    @property
    def method(self) -> str:
        return self.title + ("" if self.k is None else f": loss <= {eps_multiple(self.k)}")

    def json_head(self) -> dict:
        return {"applies": self.applies, "reason": self.reason, "k": None if self.k is None else fmt_q(self.k)}


def shape_refusal(claim) -> str | None:
    """Why a bound on the loss per unit moved cannot prove the claim (a budget other than k*eps
    with delta = 0, an adjacency that does not bound each input's change), or None."""
    budget, adj = claim.budget, claim.adjacency
    if budget.factor != 1 or not claim.delta_is_zero:
        return f"the budget {budget} is not k*eps with delta = 0"
    if adj.kind not in BOUNDED:
        return f"the adjacency \"{adj.kind}\" does not bound the change of each input"
    return None

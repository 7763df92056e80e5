"""The coupling bound of the online class at one m, applied to one eps-DP claim.

Why its own module: two routes use it.  A box claim (`privacy.dp.box`) is verified by it for
every pair of real inputs of the box, and a claim on every value of a real output
(`privacy.dp.real_output_check`) bounds by it the intervals of output values whose density
ratio the exact proofs did not settle.  The Lemma of docs/design/every_length.md section 2 is
stated per m, for every pair of real inputs with |q - q'| <= B and every set of outputs
(released real values included, since each coupled run keeps its outputs), so the game's
value d at the claim's m (`online.bound.coupling_bound` at that length) times B bounds the loss.  A .dip
program's loop is read by `online_shape`; any other program (a Python function, translated at
one m) from its lowered body at that m (`online.shape.shape_at_length`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.claims.privacy_types import DPClaim
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q
from dipc_plus.execution.accelerators import switched_off
from dipc_plus.execution.options import DEFAULT_OPTIONS, RunOptions
from dipc_plus.privacy.dp.density_ratio import BOUNDED
from dipc_plus.privacy.online.bound import coupling_bound
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import online_shape, shape_at_length

EVERY_M = "cannot decide privacy for every m: "   # the recogniser's prefix, not this claim's question


@dataclass
class Coupling:
    """What the coupling bound says about the claim: d*B and the claimed k, or why it does not apply."""
    applies: bool
    reason: str = ""               # why the bound proves nothing here (empty when it proves the claim)
    d: Fraction | None = None      # the game's value at the claim's m (times eps, per unit of |q - q'|)
    bound: Fraction | None = None  # d * B, the loss bound for the claim's adjacency
    k: Fraction | None = None      # the claimed budget k (budget k*eps)
    length: int | None = None      # the claim's m
    size_param: str = "m"
    input_name: str = "q"
    where: str = ""                # file:line of the recogniser's refusal


def coupling_for(claim: DPClaim, options: RunOptions = DEFAULT_OPTIONS) -> Coupling:
    """The coupling bound at the claim's m, after the claim's shape (budget k*eps, delta = 0, an
    adjacency in BOUNDED with bound B) and the recogniser have been checked; each refusal is the reason
    (in reference mode, `options`, it never applies)."""
    budget, adj = claim.budget, claim.adjacency
    if not options.allows("coupling-bound"):
        return Coupling(False, switched_off("coupling-bound"), k=budget.k)
    if budget.factor != 1 or not claim.delta_is_zero:
        return Coupling(False, f"the budget {budget}" + ("" if claim.delta_is_zero else f" with delta = "
                        f"{claim.delta_text}") + " is not k*eps (the bound proves (k*eps)-DP with delta = 0)")
    if adj.kind not in BOUNDED:
        return Coupling(False, f"the adjacency is \"{adj.kind}\"; the bound pays for |q[i] - q'[i]| <= B at "
                        "every position (adjacency = \"linf\", or \"l1\" / \"one-position\", whose pairs are "
                        "among those)", k=budget.k)
    program = claim.program
    try:
        auto = recognise(online_shape(program.source, dict(program.params)) if str(program.source).endswith(".dip")
                         else shape_at_length(program))
    except UserError as exc:
        why = exc.message[len(EVERY_M):] if exc.message.startswith(EVERY_M) else exc.message
        where = f"{exc.file}:{exc.line}" if exc.line else (exc.file or "")
        return Coupling(False, f"the program is not in the online class ({why}" +
                        (f", at {where})" if where else ")"), k=budget.k, where=where)
    if auto.integer_draw and adj.bound.denominator != 1:
        return Coupling(False, f"the program draws discrete Laplace noise ({auto.integer_draw}), whose shift cost "
                        f"holds for integer shifts only, and the bound {fmt_q(adj.bound)} is not an integer",
                        k=budget.k)
    m = int(program.params.get(auto.size_param, len(program.input_names())))
    d = coupling_bound(auto, m).d
    if d is None:
        return Coupling(False, f"the game's value at {auto.size_param} = {m} is infinite (a noise-free comparison "
                        "no mode pays for)", k=budget.k, length=m, size_param=auto.size_param)
    bound = d * adj.bound
    above = "" if bound <= budget.k else (f"d*B = {fmt_q(bound)} is above the claimed {fmt_q(budget.k)}, and d "
                                          "is only an upper bound on the loss")
    return Coupling(not above, above, d, bound, budget.k, m, auto.size_param, auto.input_name)

"""The one check that a `choose` draw's weights define a distribution at every eps > 0.

Why: docs/language.md makes a user distribution's weights unnormalised (they may add up to 1/2 or
3/2; the draw divides by their total), so the only things that can go wrong are a weight below 0
and a total of 0.  The sampler sees these at its one eps; every exact route speaks for all
eps > 0, so it must refuse a weight that is negative at SOME eps > 0 (certified
`decide(w >= 0 on (0, inf))`) and a total that is 0 at some eps > 0 (`decide(total > 0)`), or it
would print negative probabilities, or a distribution where the program has none.  The chain
(`dtmc`) checks the weights at the draw's arguments; a route that never evaluates the draw (the
density-ratio walk of box privacy) checks every argument the draw may receive
(`check_choose_arguments`); the sampler checks its one eps (`check_weights_at`).  All three
refuse with the same messages, at the weight written in the distribution (the total: at the
distribution) and naming the draw's line.  Each outcome row's weight is checked on its own, before
equal outcomes add up (docs/language.md: "every weight must be >= 0").
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics import evaluate, ir
from dipc_plus.semantics.values import show_value

MAX_ARGUMENT_TUPLES = 4096   # argument tuples checked for a draw whose arguments are not known
HINT_NEGATIVE = "weights must be non-negative"
HINT_ZERO = "at least one outcome needs a positive weight"


def exact_exp(x):
    """exp(x) for a weight exponent x linear in eps: x = c*eps gives e^(c eps)."""
    f = ExpFrac.of(x)
    if not f.is_poly():
        raise UserError("exp(...) in a weight needs an argument linear in eps (like -2*rate)",
                        hint="write exp(c*rate) or exp(c*eps) with a rational c")
    p = f.num
    if p.is_zero():
        return ExpFrac(ExpPoly.ONE)
    monos = list(p.monomials())
    if len(monos) == 1 and monos[0][1] == 1 and monos[0][2] == 0:
        return ExpFrac(ExpPoly.exp(monos[0][0]))
    raise UserError(f"exp({p}) in a weight is not exp(c*eps) for a rational c",
                    hint="exact probabilities need exponents that are rational multiples of eps")


def checked_weights(dist: ir.Choose, env: Mapping[str, object], program: ir.Program, pos: ir.Pos,
                    where: str = "") -> list[tuple[object, ExpFrac]]:
    """(outcome, exact weight) of the draw at `env`, equal outcomes added up, refused unless every
    written weight (each outcome row, before equal outcomes add up: `{ 0: -1; 0: 2 }` has a
    negative weight) is >= 0 and their total > 0 at every eps > 0.  A refusal points at the weight
    (the total: at the distribution) and names the draw at `pos`; `where` is added to it (e.g. the
    arguments checked)."""
    from dipc_plus.decision.certified import UndefinedError
    definition = program.distributions[dist.dist]
    rows = exact_rows(dist, env, program, pos)
    for k, (value, weight) in enumerate(rows):
        try:
            _refuse(weight, ">=", negative_message(dist, value, pos), where, HINT_NEGATIVE, definition.weight_at(k))
        except UndefinedError as exc:   # "f is undefined inside (0, inf): its denominator ... vanishes at ..."
            raise UserError.at(definition.weight_at(k), f"a weight of distribution '{dist.dist}' (outcome "
                               f"{show_value(value)}) is undefined{at_the_draw(pos)}{where}: "
                               f"{exc.message.split(': ', 1)[-1]}",
                               hint="a weight's denominator must not be 0 at any eps > 0") from None
    total = sum((w for _, w in rows), ExpFrac(ExpPoly.ZERO))
    _refuse(total, ">", zero_message(dist, pos), where, HINT_ZERO, definition.pos)
    return evaluate.add_equal_outcomes(rows)


def negative_message(dist: ir.Choose, value, pos: ir.Pos) -> str:
    return f"distribution '{dist.dist}' has a negative weight (outcome {show_value(value)}){at_the_draw(pos)}"


def zero_message(dist: ir.Choose, pos: ir.Pos) -> str:
    return f"all weights of distribution '{dist.dist}' are zero{at_the_draw(pos)}"


def at_the_draw(pos: ir.Pos) -> str:
    """' at the draw on line 7': the refusal is shown at the weight, and the draw matters too."""
    return f" at the draw on line {pos.line}" if pos.line else " at this draw"


def exact_rows(dist: ir.Choose, env: Mapping[str, object], program: ir.Program,
               pos: ir.Pos) -> list[tuple[object, ExpFrac]]:
    """(outcome, weight as an exact function of eps) of each outcome row of the draw at `env`, unchecked."""
    eps = ExpFrac(ExpPoly.eps())
    return [(v, ExpFrac.of(w)) for v, w in evaluate.choose_rows(dist, env, program, eps, exact_exp, ExpFrac, pos)]


def check_weights_at(dist: ir.Choose, env: Mapping[str, object], program: ir.Program, pos: ir.Pos,
                     eps: Fraction) -> None:
    """The sampler's check at its one rational eps, by certified signs of the exact weights (each
    row, as `checked_weights`): float weights round (e^eps - e^(eps/2) e^(eps/2), exactly 0, is
    -4.4e-16 in floats at eps = 1)."""
    from dipc_plus.decision.certified import sign_at   # the certified evaluation only for programs with choose
    definition = program.distributions[dist.dist]
    rows = exact_rows(dist, env, program, pos)
    for k, (value, weight) in enumerate(rows):
        if sign_at(weight, eps) < 0:
            raise UserError.at(definition.weight_at(k), negative_message(dist, value, pos), hint=HINT_NEGATIVE)
    if sign_at(sum((w for _, w in rows), ExpFrac(ExpPoly.ZERO)), eps) <= 0:
        raise UserError.at(definition.pos, zero_message(dist, pos), hint=HINT_ZERO)


def check_choose_arguments(dist: ir.Choose, env: Mapping[str, object], program: ir.Program, pos: ir.Pos,
                           checked: set | None = None) -> None:
    """Check the draw for every argument tuple it may receive: an argument that evaluates at `env`
    (the values known on a path) is that value, any other ranges over its parameter's domain.
    `checked` holds the (distribution, rate, arguments) already checked, for a walk that reaches
    the draw on many paths."""
    checked = set() if checked is None else checked
    definition = program.distributions[dist.dist]
    choices, unknown = [], []
    for arg, (name, typ) in zip(dist.args, definition.params):
        try:
            choices.append((evaluate.eval_expr(arg, env, program, pos),))
        except (UserError, KeyError, TypeError, ValueError, ZeroDivisionError):
            choices.append(evaluate.domain_values(typ))
            unknown.append(name)
    count = math.prod(len(values) for values in choices)
    if count > MAX_ARGUMENT_TUPLES:
        raise ResourceLimit.at(pos, f"distribution '{dist.dist}' may receive {count} argument tuples here, more "
                                    f"than the {MAX_ARGUMENT_TUPLES} whose weights are checked",
                               hint="give the distribution fewer or smaller parameters")
    for values in itertools.product(*choices):
        if (dist.dist, dist.rate, values) in checked:
            continue
        checked.add((dist.dist, dist.rate, values))
        call = ir.Choose(dist.rate, dist.dist, tuple(ir.Const(v) for v in values))
        shown = ", ".join(f"{name} = {show_value(v)}" for (name, _), v in zip(definition.params, values)
                          if name in unknown)
        checked_weights(call, {}, program, pos, f" (for {shown}, which this draw may receive)" if shown else "")


def _refuse(f: ExpFrac, relation: str, message: str, where: str, hint: str, pos: ir.Pos) -> None:
    verdict = _decided(f, relation)
    if verdict:
        return
    constant = f.num.is_constant() and f.den.is_constant()
    at = ""
    if not constant:
        at = f" at eps = {verdict.witness if verdict.witness is not None else verdict.failing_regions[0].root.short()}"
    raise UserError.at(pos, message + at + where, hint=hint)


@lru_cache(maxsize=4096)
def _decided(f: ExpFrac, relation: str):
    from dipc_plus.decision.decide import decide   # the certified decision only for programs with choose
    return decide(f, relation, "(0, inf)")

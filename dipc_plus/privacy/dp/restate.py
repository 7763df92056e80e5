"""A stated eps-DP counterexample checked again at its own pair, output and eps.

Why it exists: a counterexample read back from a file (a part of a sharded run, for `dipc merge`) is
untrusted data.  Its pair must be a pair of the claim (both inputs claimed, and neighbours), and the
per-pair check that made it (`check.pair_failure` at the stated output, or over every set of outputs
when delta != 0, then `check.counterexample`) must refute the claim at that
pair and give this very counterexample - the same exact re-check every printed counterexample had.
"""
from __future__ import annotations

import json

from dipc_plus.privacy.display import user_env
from dipc_plus.privacy.dp.check import DPWork, counterexample, pair_failure
from dipc_plus.privacy.dp.hockey_stick import output_keys
from dipc_plus.privacy.dp.plan import lift_witness
from dipc_plus.semantics.values import freeze_env, values_equal

__all__ = ["why_not_a_counterexample"]


def why_not_a_counterexample(work: DPWork, u: dict, w: dict, stated: dict) -> tuple[str, str] | None:
    """None when `stated` (a counterexample's JSON at the flat inputs u, w) is the counterexample the
    claim gives at that pair; else (the field at fault, why)."""
    claim = work.claim
    for key, env in (("input", u), ("neighbour", w)):
        if not claimed_input(claim, env):
            return key, "is not one of the claim's inputs"
    if not claim.adjacency.adjacent(u, w):
        return "neighbour", f"is not a neighbour of the input ({claim.adjacency.describe()})"
    units = _units_changed(work, u, w)
    if len(units) != 1:
        return "neighbour", ("differs from the input only in inputs no output reads" if not units else
                             "differs from the input in more than one independent component")
    unit = units[0]
    uk, wk = ({n: x[n] for n in unit.inputs} for x in (u, w))
    P, Q = unit.table(uk), unit.table(wk)
    outputs = None                 # delta != 0: every set of outputs
    if "outputs" in stated and claim.delta_is_zero:
        return "outputs", "is a set of outputs, but the claim has delta = 0 (one output is compared)"
    if "outputs" not in stated:
        if not claim.delta_is_zero:
            return "output", "is one output, but the claim has delta != 0 (sets of outputs are compared)"
        outputs = [_output_key(work, unit, uk, wk, P, Q, stated.get("output"))]
        if outputs[0] is None:
            return "output", "is not an output of the program at this pair"
    bad = pair_failure(claim, P, Q, work.checker, outputs)[1]
    if bad is None:
        return (("outputs", "the claim holds at this input and neighbour for every set of outputs when checked again here")
                if outputs is None else
                ("output", "the claim holds at this input, neighbour and output when checked again here"))
    given = counterexample(work, unit, uk, wk, *bad).to_json()
    for key in sorted(set(given) | set(stated)):
        if _json(given.get(key)) != _json(stated.get(key)):
            return key, "is not what the claim gives at this pair when checked again here"
    return None


def claimed_input(claim, env: dict) -> bool:
    """Is `env` (flat) one of the claim's inputs: on its grid, or in its list?"""
    if claim.grid is not None:
        return set(env) == set(claim.grid) and all(any(values_equal(env[n], g) for g in values)
                                                   for n, values in claim.grid.items())
    points = claim.explicit_points
    if isinstance(points, list):
        return freeze_env(env) in {freeze_env(p) for p in points}
    return False


def _units_changed(work: DPWork, u: dict, w: dict) -> list:
    """The units whose inputs the pair changes (a counterexample's pair changes exactly one: the whole
    program, or one component)."""
    return [unit for unit in work.plan.units if any(not values_equal(u[n], w[n]) for n in unit.inputs)]


def _output_key(work: DPWork, unit, uk: dict, wk: dict, P: dict, Q: dict, stated):
    """The unit's output whose whole output (completed as a counterexample completes it) is `stated`."""
    program = work.claim.program
    for v in output_keys(P, Q):
        whole = lift_witness(work.claim, work.plan, unit, uk, wk, v)[2]
        if _json(user_env(program, whole)) == _json(stated):
            return v
    return None


def _json(value) -> str:
    return json.dumps(value, sort_keys=True)

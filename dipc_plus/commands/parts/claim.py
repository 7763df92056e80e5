"""The parts of a sharded run against their claim, when its files are here with the run's digests.

Why it exists: the schema (`parts.schema`) checks what a part says of itself; only the claim knows
which inputs (or pairs) the run had and what its counterexample is.  The check is rebuilt as a worker
rebuilds it, the parts' items must be the claim's, and the merged counterexample is re-checked exactly,
once, through the normal check of its one input or pair: an accuracy counterexample by the per-point
path at its input (`accuracy.box_reduction.recheck`), a privacy one by the per-pair check at its
pair, output and eps (`privacy.dp.restate`).  Either must give this very counterexample.
"""
from __future__ import annotations

import json
from fractions import Fraction

from dipc_plus.commands.parts.schema import CHANGED, input_keys, part_error
from dipc_plus.errors import UserError
from dipc_plus.execution.limits import clip

__all__ = ["check_against_claim"]

CLAIM_HINT = "every part must be made from this claim, unchanged"


def check_against_claim(ordered: list[tuple[str, dict]], merged: dict) -> str | None:
    """The parts (in index order) and their `merged` run against their claim.  Returns why they could
    not be checked (None: checked)."""
    from dipc_plus.execution.executor import file_digest
    path0, first = ordered[0]
    files = first["part"]["files"]
    for name, digest in files.items():
        try:
            if file_digest(name) != digest:
                return f"{clip(name, 80)} here differs from the run's"
        except OSError:
            return f"{clip(name, 80)} is not here"
    options = first["part"]["options"]    # its types: `parts.schema.OPTIONS`
    claim_path, params, *rest = options["args"]
    if claim_path not in files:
        raise part_error(path0, "\"part.options\" does not name the claim of the run")
    built = (claim_path, tuple((name, Fraction(value)) for name, value in params), *rest)
    cex = merged.get("counterexample")
    holder = next((path for path, out in ordered if out.get("counterexample") is not None), None)
    against = _accuracy_against_claim if first["part"]["command"] == "accuracy" else _privacy_against_claim
    against(ordered, built, cex, holder, options)
    return None


def _bound(path: str, program, values: dict, what: str) -> dict:
    """The flat input `values` (JSON) of the program, or the refusal of the part that holds them."""
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.semantics.inputs import bind_inputs
    try:
        return bind_inputs(program, {k: to_user_value(v) for k, v in values.items()})
    except UserError as err:
        raise part_error(path, f"{what} is not an input of the program: {err.message}") from None


def _accuracy_against_claim(ordered: list[tuple[str, dict]], built: tuple, cex, holder: str, options: dict) -> None:
    from dipc_plus.accuracy import box_reduction
    from dipc_plus.accuracy.checker import build_checker
    check = build_checker(*built)   # a claim without [accuracy]: the refusal every entry point gives
    _check_claim_inputs(ordered, check.program, check.claim)
    if cex is None:
        return
    again = box_reduction.recheck(check, _bound(holder, check.program, cex["input"], "\"counterexample.input\""),
                                  options["kappa"])
    if again is None:
        raise UserError("this part's counterexample does not refute the claim: the claim holds at its input "
                        "when checked again here", file=holder, hint=CHANGED)
    if json.loads(json.dumps(again.to_json())) != cex:
        raise UserError("this part's counterexample is not the one the claim gives at its input when checked "
                        "again here (a field was changed)", file=holder, hint=CHANGED)


def _privacy_against_claim(ordered: list[tuple[str, dict]], built: tuple, cex, holder: str, options: dict) -> None:
    from dipc_plus.privacy.dp import restate
    from dipc_plus.privacy.dp.check import build_dp_work
    work = build_dp_work(*built)
    _check_claim_pairs(ordered, work)
    if cex is None:
        return
    u, w = (_bound(holder, work.claim.program, cex[key], f"\"counterexample.{key}\"") for key in ("input", "neighbour"))
    why = restate.why_not_a_counterexample(work, u, w, cex)
    if why is not None:
        raise UserError(f"this part's counterexample does not re-check: \"counterexample.{clip(why[0], 30)}\" "
                        f"{why[1]}", file=holder, hint=CHANGED)


def _check_claim_pairs(ordered: list[tuple[str, dict]], work) -> None:
    """A privacy run's parts cover the claim's items, and each part checked the pairs its items hold."""
    from dipc_plus.privacy.dp.point_filter import filter_pairs
    items, stated = work.items(), ordered[0][1]["part"]["total_items"]
    if stated != len(items):
        raise part_error(ordered[0][0], f"the parts cover {stated} pairs but the claim has {len(items)}", CLAIM_HINT)
    for path, out in ordered:
        a, b = out["part"]["items"]
        # an item is one pair, or a unit the point filter checks whole (eps = ln r on a grid)
        held = sum(1 if i is not None else filter_pairs(work.plan.units[k]) for k, i in items[a:b])
        pairs = out["pairs_checked"]
        if pairs > held or (pairs != held and out["verdict"] == "verified"):
            raise part_error(path, f"it checked {pairs} pairs of the {held} its items {a}..{b} hold and says "
                                   f"{out['verdict']}", CLAIM_HINT)


def _check_claim_inputs(ordered: list[tuple[str, dict]], program, acc) -> None:
    """An accuracy run's scope is the scope of the inputs it reports, and a run over the claim's inputs
    (not --input) reports exactly those, in order."""
    from dipc_plus.accuracy.report import env_json
    from dipc_plus.claims.scope import inputs_scope
    path0, first = ordered[0]
    flats = [_bound(path, program, json.loads(key), "a report's input")
             for path, out in ordered for key in input_keys(out["reports"])]
    stated, eps = first.get("scope"), str(acc.eps)
    if not any(inputs_scope(program, points=flats, kind=kind, eps=eps).to_json() == stated for kind in ("grid", "list")):
        raise part_error(path0, "the parts' \"scope\" is not the scope of the inputs they report", CLAIM_HINT)
    kind = "grid" if acc.inputs_kind == "grid" else "list"
    if stated != inputs_scope(program, points=list(acc.points), kind=kind, eps=eps).to_json():
        return   # a run on other inputs than the claim's (--input): its scope says which
    expected = [json.dumps(env_json(program, u), sort_keys=True) for u in acc.points]
    if len(expected) != first["part"]["total_items"]:
        raise part_error(path0, f"the parts cover {first['part']['total_items']} inputs but the claim has "
                                f"{len(expected)}", CLAIM_HINT)
    for path, out in ordered:
        a, b = out["part"]["items"]
        if input_keys(out["reports"]) != expected[a:b]:
            raise part_error(path, f"its reports are not the claim's inputs {a}..{b}", CLAIM_HINT)

"""The counterexample of a part of a sharded run, re-checked exactly before `dipc merge` prints it.

Why it exists: a part is untrusted data, and its counterexample is what a refuted merge shows as
proof.  Its fields are checked by the schema of a part (`commands.parts.schema`); when the claim and
program files of the run are here with the run's digests, an accuracy counterexample is also
re-checked exactly: the per-point path is run again at its input (`accuracy.box_reduction.recheck`,
the path every accuracy counterexample comes from), and it must give this very counterexample; a
privacy counterexample is checked again at its pair, output and eps by the per-pair check
(`privacy.dp.restate`), and it too must give this very counterexample.
"""
from __future__ import annotations

import json

from dipc_plus.errors import UserError
from dipc_plus.execution.limits import clip

__all__ = ["recheck_accuracy_counterexamples", "recheck_privacy_counterexamples"]

_HINT = "the part was changed or cut: run that part again"


def _refuse(path: str, where: str, message: str) -> UserError:
    return UserError(f"this part is not what `dipc ... --shard` writes: \"{where}\" {message}", file=path, hint=_HINT)


def recheck_accuracy_counterexamples(parts: list[tuple[str, dict]], args: list, params: dict, kappa) -> None:
    """Each part's counterexample recomputed by the per-point path at its input, from the claim file
    here (the caller checked its digest): it must be refuted there with this very counterexample."""
    refuted = [(path, out) for path, out in parts if out.get("counterexample") is not None]
    if not refuted:
        return
    from dipc_plus.accuracy.box_reduction import recheck
    from dipc_plus.accuracy.checker import build_checker
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.semantics.inputs import bind_inputs
    checker = build_checker(args[0], tuple(params.items()), *args[2:])   # types: `parts.schema.OPTIONS`
    for path, out in refuted:
        stated = out["counterexample"]
        try:
            u = bind_inputs(checker.program, {k: to_user_value(v) for k, v in stated["input"].items()})
        except UserError as err:
            raise _refuse(path, "counterexample.input", f"is not an input of the program: {err.message}") from None
        again = recheck(checker, u, kappa)
        if again is None:
            raise UserError("this part's counterexample does not refute the claim: the claim holds at its input "
                            "when checked again here", file=path, hint=_HINT)
        if json.loads(json.dumps(again.to_json())) != stated:
            raise UserError("this part's counterexample is not the one the claim gives at its input when checked "
                            "again here (a field was changed)", file=path, hint=_HINT)


def recheck_privacy_counterexamples(parts: list[tuple[str, dict]], work) -> None:
    """Each part's privacy counterexample names an input and a neighbour of the program here, and
    is the counterexample the claim gives at that pair when checked again exactly
    (`privacy.dp.restate`, from the claim file here: the caller checked its digest)."""
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.privacy.dp.restate import why_not_a_counterexample
    from dipc_plus.semantics.inputs import bind_inputs
    for path, out in parts:
        cex = out.get("counterexample")
        if cex is None:
            continue
        pair = []
        for key in ("input", "neighbour"):
            try:
                pair.append(bind_inputs(work.claim.program, {k: to_user_value(v) for k, v in cex[key].items()}))
            except UserError as err:
                raise _refuse(path, f"counterexample.{key}", f"is not an input of the program: {err.message}") from None
        why = why_not_a_counterexample(work, pair[0], pair[1], cex)
        if why is not None:
            raise UserError(f"this part's counterexample does not re-check: \"counterexample.{clip(why[0], 30)}\" "
                            f"{why[1]}", file=path, hint=_HINT)

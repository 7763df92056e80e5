"""The merged counterexample of a sharded run, re-checked exactly before `dipc merge` prints it.

Why it exists: a part is untrusted data, and the merged counterexample is what a refuted merge shows
as proof.  Its fields are checked by the schema of a part (`commands.parts.schema`); when the claim
and program files of the run are here with the run's digests, it is checked again through the normal
check of its one input or pair, rebuilt as a worker rebuilds it: an accuracy counterexample by the
per-point path at its input (`accuracy.box_reduction.recheck`), a privacy one by the per-pair check at
its pair, output and eps (`privacy.dp.restate`).  Either must give this very counterexample.
"""
from __future__ import annotations

import json

from dipc_plus.errors import UserError
from dipc_plus.execution.limits import clip

__all__ = ["recheck_counterexample"]

_HINT = "the part was changed or cut: run that part again"


def recheck_counterexample(path: str, command: str, check, stated: dict, kappa) -> None:
    """Refuse (naming the part at `path`) unless `stated` is the counterexample the claim gives at its
    input (accuracy: `check` an AccuracyChecker, at `kappa`) or pair (privacy: `check` a DPWork)."""
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.semantics.inputs import bind_inputs
    program = check.program if command == "accuracy" else check.claim.program
    envs = []
    for key in ("input",) if command == "accuracy" else ("input", "neighbour"):
        try:
            envs.append(bind_inputs(program, {k: to_user_value(v) for k, v in stated[key].items()}))
        except UserError as err:
            raise UserError(f"this part is not what `dipc ... --shard` writes: \"counterexample.{key}\" is not an "
                            f"input of the program: {err.message}", file=path, hint=_HINT) from None
    if command == "accuracy":
        from dipc_plus.accuracy.box_reduction import recheck
        again = recheck(check, envs[0], kappa)
        if again is None:
            raise UserError("this part's counterexample does not refute the claim: the claim holds at its input "
                            "when checked again here", file=path, hint=_HINT)
        if json.loads(json.dumps(again.to_json())) != stated:
            raise UserError("this part's counterexample is not the one the claim gives at its input when checked "
                            "again here (a field was changed)", file=path, hint=_HINT)
        return
    from dipc_plus.privacy.dp.restate import why_not_a_counterexample
    why = why_not_a_counterexample(check, envs[0], envs[1], stated)
    if why is not None:
        raise UserError(f"this part's counterexample does not re-check: \"counterexample.{clip(why[0], 30)}\" "
                        f"{why[1]}", file=path, hint=_HINT)

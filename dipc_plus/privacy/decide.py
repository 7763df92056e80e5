"""The one decision entry for privacy claims: which route decides a claim is said here, once.

Why it exists: `dipc privacy` and the API's `check_privacy` (and `dipc privacy-loss` and
`privacy_loss`) each chose the route - a box, every number of queries m, every value of a real
output, a Pufferfish claim, or the eps-DP pairs of a grid or list - and built its workers' source.
Both front ends now call `decide_privacy` / `decide_loss` with one `RunOptions` and print the
`PrivacyResult` it returns (`report()`, `to_json()`).
"""
from __future__ import annotations

import os
from typing import Any

from dipc_plus.errors import UserError
from dipc_plus.execution.executor import Source
from dipc_plus.execution.options import RunOptions
from dipc_plus.privacy.result import PrivacyResult
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES


def privacy_route(claim, every_length: bool) -> str:
    """The scope that decides `claim`: "box", "every length", "every value", "pufferfish" or "pairs"."""
    if getattr(claim, "inputs_kind", "") == "box":
        return "box"
    if every_length or claim.every_length:
        return "every length"
    if getattr(claim, "every_output_value", False):
        return "every value"
    return "pufferfish" if claim.kind == "pufferfish" else "pairs"


def claim_source(build, claim, params: dict, *more) -> Source:
    """How a worker rebuilds a check: `build` of the claim file at these parameters (and `more`)."""
    return Source.of(build, (os.path.abspath(claim.file), tuple(params.items()), *more),
                     (claim.file, claim.program.source))


# the routes decided as a whole (no pairs to deal out to --shard parts), as a refusal names them
_WHOLE = {"every length": "--every-length", "pufferfish": "a Pufferfish claim",
          "every value": "a claim on every value of a real output (one with no events)"}


def decide_privacy(claim, options: RunOptions, params: dict, *, every_length: bool = False,
                   structure: bool | None = None, executor: Any = None) -> PrivacyResult:
    """Decide a DP or Pufferfish claim (read at `params`) on its scope, under `options`.
    `structure=False` turns off components, kernels and symmetry (so does reference mode);
    `executor` defaults to the options' one."""
    route = privacy_route(claim, every_length)
    executor = executor if executor is not None else options.run_on()
    max_states = options.max_states or DEFAULT_MAX_STATES
    if route == "box":
        from dipc_plus.privacy.dp.box import decide_box_privacy
        if options.shard is not None or every_length:
            raise UserError(f"{'--shard' if options.shard is not None else '--every-length'} does not apply to a box "
                            "claim: it is decided as a whole, at its own m", file=claim.file,
                            hint="leave it out, or give the claim a grid")
        return PrivacyResult(claim, route, decide_box_privacy(claim, max_states=max_states, options=options,
                                                        progress=options.progress))
    if options.shard is not None and route in _WHOLE:
        raise UserError(f"--shard splits the pairs of a DP claim; {_WHOLE[route]} is one decision that cannot be "
                        "cut into parts", file=claim.file, hint="leave out --shard")
    if route == "every length":
        from dipc_plus.privacy.online.every_length import decide_every_length
        return PrivacyResult(claim, route, decide_every_length(claim, claim.file, params or {}, executor=executor,
                                                              progress=options.progress))
    if route == "every value":
        from dipc_plus.privacy.dp.real_output_check import check_real_outputs
        return PrivacyResult(claim, route, check_real_outputs(claim, options))
    if route == "pufferfish":
        from dipc_plus.privacy.pufferfish.check import build_pufferfish_work, check_pufferfish
        source = claim_source(build_pufferfish_work, claim, params)
        return PrivacyResult(claim, route, check_pufferfish(claim, executor=executor, source=source,
                                                      progress=options.progress), source)
    from dipc_plus.privacy.dp.check import build_dp_work, check_dp
    structure = False if options.reference else structure
    source = claim_source(build_dp_work, claim, params, structure, max_states)
    return PrivacyResult(claim, route, check_dp(claim, structure=structure, max_states=max_states, executor=executor,
                                          source=source, shard=options.shard, progress=options.progress,
                                          options=options), source)


def decide_loss(claim, options: RunOptions, params: dict, *, structure: bool | None = None, attack: bool = False,
                executor: Any = None) -> PrivacyResult:
    """The tight loss of a DP claim (its part a `LossResult`), or a Pufferfish claim's likelihood ratios
    (a `PufferfishLoss`, and with `attack` the Bayes-optimal adversary per scenario in `attacks`)."""
    executor = executor if executor is not None else options.run_on()
    if claim.kind == "pufferfish":
        from dipc_plus.privacy.pufferfish.check import build_pufferfish_work
        from dipc_plus.privacy.pufferfish.loss import pufferfish_loss
        source = claim_source(build_pufferfish_work, claim, params)
        result = pufferfish_loss(claim, executor=executor, source=source, progress=options.progress)
        if not attack:
            return PrivacyResult(claim, "pufferfish", result, source)
        from dipc_plus.privacy.pufferfish.attack import scenario_attacks
        return PrivacyResult(claim, "pufferfish", result, source, scenario_attacks(claim, tables=result.tables))
    if attack:
        raise UserError("--attack needs a Pufferfish claim (its scenarios are the adversary's priors)",
                        hint="see docs/claims.md, 'Pufferfish claims'")
    from dipc_plus.privacy.loss.tight import build_loss_work, privacy_loss
    structure = False if options.reference else structure
    max_states = options.max_states or DEFAULT_MAX_STATES
    source = claim_source(build_loss_work, claim, params, structure, max_states)
    return PrivacyResult(claim, "pairs", privacy_loss(claim, structure=structure, max_states=max_states,
                                                      executor=executor, source=source, progress=options.progress,
                                                      options=options), source)

"""The four checks of the notebook API, each the twin of one `dipc` command.

    dipc_plus.check_accuracy("theories/sparse.toml", c=1, input={"q": [-1, -1, 1]}, kappa=7)
    dipc_plus.sweep("theories/sparse.toml", c=1)
    dipc_plus.check_privacy("theories/svt_lyu_alg4_privacy.toml")
    dipc_plus.privacy_loss("theories/svt_lyu_alg4_privacy.toml")

A claim is the path of a theories/*.toml file; keyword arguments that are not
options override the claim's (and its program's) parameters, as `--set` does.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.api.results import AccuracyReport, LossReport, PrivacyReport, SweepReport
from dipc_plus.commands.common import check_same_program
from dipc_plus.errors import UserError
from dipc_plus.semantics import inputs as inputs_mod
from dipc_plus.semantics.distribution import to_input_value
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES


def _params(params: dict) -> dict:
    out = {}
    for name, value in params.items():
        v = to_input_value(value)
        if not isinstance(v, Fraction):
            raise UserError(f"parameter {name}: a parameter must be a number, not {value!r}",
                            hint=f"write e.g. {name}=4 or {name}=Fraction(1, 2)")
        out[name] = v
    return out


def _checker(claim, program, dd_over, paper, max_states, params):
    from dipc_plus.accuracy.check import AccuracyChecker
    from dipc_plus.claims.claim_file import load_claim
    if max_states <= 0:
        raise UserError("max_states must be positive", hint="use e.g. max_states=200000")
    loaded = load_claim(str(claim), _params(params))
    if loaded.accuracy is None:
        raise UserError("the claim file has no [accuracy] table", file=str(claim),
                        hint="add an [accuracy] table (see docs/claims.md)")
    check_same_program(None if program is None else str(program), loaded.program_path, str(claim))
    return AccuracyChecker(loaded, dd_over=dd_over, boundary=paper, max_states=max_states)


def _points(checker, input):
    if input is None:
        return None
    given = {k: to_input_value(v) for k, v in dict(input).items()}
    return [inputs_mod.bind_inputs(checker.program, given)]


def check_accuracy(claim, *, program=None, input=None, kappa: int = 1, paper: bool = False, dd_over=None,
                   first: bool = False, jobs: int = 1, max_states: int = DEFAULT_MAX_STATES,
                   **params) -> AccuracyReport:
    """`dipc accuracy`: decide the claim's [accuracy] table for every eps, at `input` or every input."""
    if kappa < 1:
        raise UserError(f"kappa must be a positive integer, not {kappa}", hint="use e.g. kappa=7")
    checker = _checker(claim, program, dd_over, paper, max_states, params)
    points = _points(checker, input)
    result = checker.run(points, kappa, progress=False, stop_at_first=first, jobs=jobs)
    return AccuracyReport(result, checker, points)


def sweep(claim, *, program=None, input=None, kappa_max: int | None = None, digits: int | None = None,
          paper: bool = False, dd_over=None, jobs: int = 1, max_states: int = DEFAULT_MAX_STATES,
          **params) -> SweepReport:
    """`dipc sweep`: the largest kappa with beta/kappa still valid, kappa*, the counterexample for kappa+1."""
    from dipc_plus.accuracy.sweep import DEFAULT_DIGITS, DEFAULT_KAPPA_MAX, sweep as run_sweep
    kappa_max = DEFAULT_KAPPA_MAX if kappa_max is None else kappa_max
    digits = DEFAULT_DIGITS if digits is None else digits
    if kappa_max < 1 or not 1 <= digits <= 60:
        raise UserError("kappa_max must be >= 1 and digits between 1 and 60", hint="e.g. kappa_max=100, digits=10")
    checker = _checker(claim, program, dd_over, paper, max_states, params)
    points = _points(checker, input)
    result = run_sweep(checker, kappa_max=kappa_max, digits=digits, points=points, progress=False, jobs=jobs)
    return SweepReport(result, checker, points)


def _privacy_claim(claim, program, max_states, params):
    from dipc_plus.privacy.claim_reader import load_privacy_claim
    if max_states <= 0:
        raise UserError("max_states must be positive", hint="use e.g. max_states=200000")
    loaded = load_privacy_claim(str(claim), _params(params))
    check_same_program(None if program is None else str(program), loaded.program.source, str(claim))
    return loaded


def check_privacy(claim, *, program=None, structure: bool | None = None, max_states: int = DEFAULT_MAX_STATES,
                  **params) -> PrivacyReport:
    """`dipc privacy`: decide the claim's [privacy] table (DP or Pufferfish) for every eps."""
    loaded = _privacy_claim(claim, program, max_states, params)
    if loaded.kind == "pufferfish":
        from dipc_plus.privacy.pufferfish import check_pufferfish
        return PrivacyReport(check_pufferfish(loaded))
    from dipc_plus.privacy.dp_check import check_dp
    return PrivacyReport(check_dp(loaded, structure=structure, max_states=max_states))


def privacy_loss(claim, *, program=None, structure: bool | None = None, max_states: int = DEFAULT_MAX_STATES,
                 **params) -> LossReport:
    """`dipc privacy-loss`: the exact tight privacy loss L(eps) over the claim's neighbouring inputs."""
    loaded = _privacy_claim(claim, program, max_states, params)
    if loaded.kind == "pufferfish":
        from dipc_plus.privacy.pufferfish import pufferfish_loss
        return LossReport(pufferfish_loss(loaded))
    from dipc_plus.privacy.loss import privacy_loss as run_loss
    return LossReport(run_loss(loaded, structure=structure, max_states=max_states))

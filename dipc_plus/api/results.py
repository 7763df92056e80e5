"""The result objects of the notebook API: readable, tabular, serialisable, plottable.

Why it exists: each wraps the verdict object the deciding stage returns and gives
it the four faces a notebook needs -- `repr` (the command's text report),
`_repr_html_` (a summary table), `.to_json()` (the command's `--json`, same
keys and values) and `.plot()` (a matplotlib Figure, not written anywhere and
not attached to pyplot, so nothing global is switched).
"""
from __future__ import annotations

import html
import json

from dipc_plus.errors import UserError


def _table(title: str, rows: list[tuple[str, object]], detail: str = "") -> str:
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                    f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in rows)
    pre = f"<pre>{html.escape(detail)}</pre>" if detail else ""
    return f"<div><b>{html.escape(title)}</b><table>{cells}</table>{pre}</div>"


class _Report:
    """Common faces: `verdict`, `verified`, `repr`, `to_json`, `to_json_text`."""
    result: object

    @property
    def verdict(self) -> str:
        return self.result.verdict

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"

    @property
    def program(self):
        return self.result.claim.program

    def to_json(self) -> dict:
        """The command's --json object (docs/json.md)."""
        from dipc_plus.commands.common import conventional_json
        return conventional_json(self._json(), self.program)

    def _json(self) -> dict:
        return self.result.to_json()

    def to_json_text(self) -> str:
        """Exactly what the command prints with --json."""
        return json.dumps(self.to_json(), indent=2)

    def __repr__(self) -> str:
        return self.text()


class AccuracyReport(_Report):
    """`check_accuracy`: the verdict over every (input, gamma) the claim names."""

    def __init__(self, result, checker, points):
        self.result, self.checker, self.points = result, checker, points

    @property
    def counterexample(self):
        return self.result.counterexample

    def text(self) -> str:
        from dipc_plus.commands.accuracy import text_report
        return text_report(self.result, verbose=self.points is not None)

    def _repr_html_(self) -> str:
        r = self.result
        rows = [("claim", r.claim.describe()), ("verdict", r.verdict),
                ("inputs checked", r.inputs), ("obligations (applicable)", f"{r.n_obligations} ({r.n_applicable})"),
                ("refuted", r.n_refuted)]
        detail = r.counterexample.describe() if r.counterexample is not None else ""
        return _table(f"accuracy of {r.claim.program.name}", rows, detail)

    def plot_input(self, input=None):
        """The input a plot shows: the one given, else the counterexample's, else the first applicable."""
        if input is not None:
            from dipc_plus.semantics import inputs as inputs_mod
            from dipc_plus.semantics.distribution import to_input_value
            return inputs_mod.bind_inputs(self.checker.program, {k: to_input_value(v) for k, v in dict(input).items()})
        if self.counterexample is not None:
            return self.counterexample.input
        applicable = self.result.applicable or self.result.reports
        if not applicable:
            raise UserError("nothing to plot: no input was checked")
        return applicable[0].input

    def plot(self, input=None, *, log: bool | None = None, eps_max: float | None = None, simulate: int = 0):
        """P[error] and beta/kappa against eps at one input (a matplotlib Figure)."""
        from dipc_plus.accuracy.plot import figure, plot_data
        data = plot_data(self.checker, self.plot_input(input), kappa=self.result.kappa, eps_max=eps_max,
                         simulate=simulate)
        return figure(data, log=log)


class SweepReport(_Report):
    """`sweep`: best kappa, kappa* and the counterexample for best kappa + 1."""

    def __init__(self, result, checker, points):
        self.result, self.checker, self.points = result, checker, points

    @property
    def best_kappa(self) -> int:
        return self.result.best_kappa

    @property
    def kappa_star(self):
        return self.result.kappa_star

    @property
    def counterexample(self):
        return self.result.counterexample

    @property
    def program(self):
        return self.result.accuracy.claim.program

    def _json(self) -> dict:
        return self.result.to_json(full=False)

    def text(self) -> str:
        from dipc_plus.accuracy.sweep import sweep_text
        return sweep_text(self.result)

    def _repr_html_(self) -> str:
        r = self.result
        rows = [("claim", r.accuracy.claim.describe()), ("the claim itself", r.verdict),
                ("best kappa", (">= " if r.capped else "") + str(r.best_kappa)),
                ("kappa* (least beta/P[error])", r.kappa_star.text)]
        detail = r.counterexample.describe() if r.counterexample is not None else ""
        return _table(f"sweep of {r.accuracy.claim.program.name}", rows, detail)

    def plot(self, *, log: bool | None = None, eps_max: float | None = None):
        """At the input where kappa* is reached, P[error] beside beta/(best kappa + 1): the failure drawn."""
        from dipc_plus.accuracy.plot import figure, plot_data
        r = self.result
        if r.kappa_star.infinite or r.kappa_star.at is None:
            raise UserError("nothing to plot: P[error] is 0 wherever the claim applies")
        kappa = r.best_kappa if r.capped else r.best_kappa + 1
        data = plot_data(self.checker, r.kappa_star.at.report.input, kappa=max(kappa, 1), eps_max=eps_max)
        return figure(data, log=log)


class PrivacyReport(_Report):
    """`check_privacy`: a DP or Pufferfish verdict with its re-checked counterexample."""

    def __init__(self, result):
        self.result = result

    @property
    def claim(self):
        return self.result.claim

    @property
    def counterexample(self):
        return getattr(self.result, "counterexample", None)

    def text(self) -> str:
        if hasattr(self.result, "report"):
            return self.result.report()
        from dipc_plus.commands.privacy import text_report
        return text_report(self.result)

    def _repr_html_(self) -> str:
        rows = [("claim", self.claim.describe()), ("verdict", self.verdict)]
        detail = self.text() if self.counterexample is not None else ""
        return _table(f"privacy of {self.claim.program.name}", rows, detail)

    def plot(self):
        """The tight privacy loss L(eps) beside the claimed budget (DP claims; computes the loss)."""
        if self.claim.kind != "dp":
            raise UserError("plot() draws the privacy loss of a DP claim",
                            hint="for a Pufferfish claim use privacy_loss(claim) and its attack")
        from dipc_plus.privacy.loss import privacy_loss
        return LossReport(privacy_loss(self.claim)).plot()


class LossReport(_Report):
    """`privacy_loss`: the exact tight loss L(eps), sup L(eps)/eps, the attaining pair and output."""

    def __init__(self, result):
        self.result = result

    @property
    def claim(self):
        return self.result.claim

    @property
    def verdict(self) -> str:
        return "computed"

    def text(self) -> str:
        if hasattr(self.result, "report"):
            return self.result.report()
        from dipc_plus.commands.privacy_loss import text_report
        return text_report(self.result)

    def _repr_html_(self) -> str:
        rows = [("claim", self.claim.describe())]
        if hasattr(self.result, "loss_text"):
            rows.append(("tight loss L(eps)", self.result.loss_text()))
            if getattr(self.result, "sup", None) is not None:
                rows.append(("sup L(eps)/eps", self.result.sup.text()))
        return _table(f"privacy loss of {self.claim.program.name}", rows, self.text())

    def plot(self):
        """L(eps) beside the claimed budget (a matplotlib Figure)."""
        if self.claim.kind != "dp":
            raise UserError("plot() draws the loss of a DP claim",
                            hint="a Pufferfish claim's picture is its attack (dipc privacy-loss --attack --plot)")
        from dipc_plus.privacy.loss_plot import loss_figure
        return loss_figure(self.result)

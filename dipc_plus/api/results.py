"""The result objects of the Python API: readable, tabular, serialisable, plottable.

Why it exists: each wraps the verdict object the deciding stage returns (``.result``)
and gives it the faces a library user expects -- a one-line `repr`, the command's
text report as `str` (``print(report)``), `_repr_html_` (a summary table in
Jupyter), `.to_json()` (the command's ``--json``: same keys and values), the
counterexample as a `views` object with inputs grouped by array, and `.plot()` (a
matplotlib Figure that Jupyter shows inline, made without pyplot).
"""
from __future__ import annotations

import json
from typing import Any

from dipc_plus.api.errors import TEXT_NAMES
from dipc_plus.api.views import Counterexample, KappaStar, PrivacyCounterexample, Tabled, ValueCounterexample, shown
from dipc_plus.commands.common import conventional_json, strict_json, strict_reason
from dipc_plus.errors import UserError
from dipc_plus.execution.options import DEFAULT_OPTIONS
from dipc_plus.privacy.loss.plot import loss_figure     # matplotlib loads when it draws


class ReportText(str):
    """A report's text: a `str`, which can also be called as ``report.text()`` (the method it was before
    it became a property), with the arguments the report's `render_text` takes (``verbose=True``).

    >>> t = ReportText("VERIFIED", lambda verbose=False: "VERIFIED (every input)" if verbose else "VERIFIED")
    >>> t, t(), t(verbose=True), isinstance(t, str)
    ('VERIFIED', 'VERIFIED', 'VERIFIED (every input)', True)
    """

    render: Any

    def __new__(cls, text: str, render: Any = None) -> "ReportText":
        made = super().__new__(cls, text)
        made.render = render
        return made

    def __call__(self, *args: Any, **kwargs: Any) -> "ReportText":
        if not (args or kwargs) or self.render is None:
            return self
        return ReportText(self.render(*args, **kwargs), self.render)


class Report(Tabled):
    """What every result has: `verdict`, `verified`, `vacuous`, `strict_reason`, `to_json`, `text`;
    `bool(report)` is the verdict (True only when verified: ``if check_privacy(claim): ...``).

    Every check returns one; the tight loss of randomized response (3/4 truth) is ln 3:

    >>> import dipc_plus
    >>> r = dipc_plus.privacy_loss(dipc_plus.example("theories/randomized_response_coin_privacy.toml"))
    >>> r.verdict, r.verified, r.vacuous, bool(r)
    ('verified', True, False, True)
    >>> r.summary()
    'privacy loss of randomized_response_coin: L(eps) = ln(3); budget ln(3) holds'
    >>> r.text.splitlines()[0] == str(r).splitlines()[0]
    True

    A subclass says its text in `render_text`; `text` and `str` read it from there, and names what
    it checked in `checked` (the summary's and the HTML table's first words).
    """

    options = DEFAULT_OPTIONS    # the run's RunOptions (api.checks sets it)
    checked = ""
    html_scope = ""      # the HTML table's title after the program's name

    def __init__(self, result: Any):
        self.result = result     # the core result (AccuracyResult, SweepResult, PrivacyResult): it owns text and JSON

    @property
    def strict_applies(self) -> bool:
        """strict=True refuses a vacuous verdict (a privacy box or every-value route: never)."""
        return True

    @property
    def mode(self) -> str:
        """``'reference'`` for a run of the general provers only, else ``'default'``."""
        return "reference" if self.options.reference else "default"

    @property
    def decided(self) -> Any:
        """The core result whose vacuity and scope `strict` reads (a sweep's: the claim itself)."""
        return self.result

    @property
    def verdict(self) -> str:
        """``'verified'`` or ``'refuted'`` (an every-length privacy check may also say
        ``'not private for any constant'`` or ``'undecided'``)."""
        return str(self.decided.verdict)

    @property
    def verified(self) -> bool | None:
        """True when the claim holds on the verdict's scope (proven, not estimated), False when it
        is refuted, None when it is undecided (a box claim neither proved nor refuted), as the
        accuracy box reports say."""
        return None if self.verdict == "undecided" else self.verdict == "verified"

    @property
    def vacuous(self) -> bool:
        """Verified with nothing compared (no input where the claim applies, no neighbouring pair)."""
        return bool(getattr(self.decided, "vacuous", False))

    @property
    def strict_reason(self) -> str | None:
        """Why a verified verdict would fail ``strict=True`` (vacuous, or real outputs checked only on
        named events), else None."""
        return strict_reason(self.decided, self.verdict)

    @property
    def claim(self) -> Any:
        return self.decided.claim

    @property
    def program(self) -> Any:
        return self.claim.program

    @property
    def html_title(self) -> str:
        return f"{self.checked} of {self.program.name}{self.html_scope}"

    def html_rows(self) -> list[tuple[str, object]]:
        return [("claim", self.claim.describe()), ("verdict", self.verdict)]

    def to_json(self) -> dict:
        """The command's ``--json`` object (docs/json.md)."""
        out = conventional_json(self.raw_json(), self.program)
        if str(out.get("claim")) in TEXT_NAMES:    # a claim given as text: named as the user named it
            out["claim"] = TEXT_NAMES[str(out["claim"])]
        return out

    def raw_json(self) -> dict:
        """The result's JSON with the run's "mode" where the command puts it (RunOptions.mode_json)."""
        return {**self.result.to_json(), **self.options.mode_json()}

    def to_json_text(self) -> str:
        """Exactly what the command prints with ``--json``."""
        return json.dumps(self.to_json(), indent=2)

    @property
    def text(self) -> ReportText:
        """The command's text report, as `print(report)` prints it (a str; ``report.text()`` works too)."""
        return ReportText(self.render_text(), self.render_text)

    def render_text(self) -> str:
        """The command's text report (the result says it)."""
        return str(self.result.report())

    def summary(self) -> str:
        """One line: what was checked and the verdict."""
        raise NotImplementedError

    def __bool__(self) -> bool:
        """The verdict: True only when the claim is verified (refuted, undecided or a Pufferfish loss
        with no budget are False)."""
        return self.verified is True

    def __str__(self) -> str:
        return str(self.render_text())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.summary()}>"


class AccuracyReport(Report):
    """`check_accuracy`: the verdict over every (input, gamma) the claim names.

    `counterexample` is a `Counterexample` (or None); `plot()` draws P[error] against beta/kappa.

    The shipped Laplace claim (theories/laplace.toml) with one output (k = 1): the mechanism misses
    its output by more than gamma with probability e^(-gamma eps), exactly the claimed beta, so
    beta/2 (kappa = 2) is refuted (e^-1 = 0.367879 > 0.18394 at eps = 1, gamma = 1):

    >>> import dipc_plus
    >>> laplace = dipc_plus.example("theories/laplace.toml")
    >>> report = dipc_plus.check_accuracy(laplace, params={"k": 1}, kappa=2)
    >>> report
    <AccuracyReport accuracy of laplace, beta/2: 3 input(s), 9 applicable: refuted at q=[-1], eps = 1>
    >>> print(report.counterexample.error_probability, "|", report.counterexample.bound)
    e^(-eps) | 1/2*e^(-eps)
    """

    checked = "accuracy"

    def __init__(self, result: Any, checker: Any, points: list | None):
        self.result, self.checker, self.points = result, checker, points

    @property
    def counterexample(self) -> Counterexample | None:
        raw = self.result.counterexample
        return None if raw is None else Counterexample(raw)

    @property
    def kappa(self) -> int:
        return int(self.result.kappa)

    def raw_json(self) -> dict:
        """As the command: "strict" after the result (a box claim's answer has none), then "mode"."""
        if self.result.on_a_box:
            return super().raw_json()
        return {**self.result.to_json(), "strict": strict_json(self.result, self.options), **self.options.mode_json()}

    def render_text(self, verbose: bool | None = None) -> str:
        """The command's text report (``verbose``: every input's line; default: when the inputs were given)."""
        return str(self.result.report(verbose=self.points is not None if verbose is None else verbose))

    def scope(self) -> str:
        """What was checked, as the summary says it after the claim."""
        return f": {self.result.tally.inputs} input(s), {self.result.tally.applicable} applicable"

    def summary(self) -> str:
        kappa = "" if self.kappa == 1 else f", beta/{self.kappa}"
        head = f"{self.checked} of {self.program.name}{kappa}{self.scope()}: "
        cex = self.counterexample
        if cex is not None:
            return head + f"refuted at {cex.failure_text()}"
        if self.verdict == "undecided":
            return head + f"undecided on a share {self.result.undecided_share()} of the box"
        return head + ("verified (vacuously)" if self.vacuous else "verified")

    def html_rows(self) -> list[tuple[str, object]]:
        t = self.result.tally
        return [*super().html_rows(), ("inputs checked", t.inputs),
                ("obligations (applicable)", f"{t.obligations} ({t.applicable})"), ("refuted", t.refuted)]

    def html_detail(self) -> str:
        """The text under the HTML table: the counterexample described (or nothing)."""
        raw = self.result.counterexample
        return "" if raw is None else raw.describe()

    def plot_input(self, input: dict | None = None) -> dict:
        """The input a plot shows: the one given, else the counterexample's, else the first applicable."""
        if input is not None:
            from dipc_plus.semantics.distribution import bind
            return bind(self.checker.program, input)
        if self.result.counterexample is not None:
            return dict(self.result.counterexample.input)
        applicable = self.result.applicable or self.result.reports
        if not applicable:
            raise UserError("nothing to plot: no input was checked")
        return dict(applicable[0].input)

    def plot(self, input: dict | None = None, *, log: bool | None = None, eps_max: float | None = None,
             simulate: int = 0, points: int = 400, seed: int = 0) -> Any:
        """P[error] and beta/kappa against eps at one input (a matplotlib Figure, shown inline in Jupyter).

        Parameters
        ----------
        input : mapping, optional
            The input to draw (default: the counterexample's, else the first where the claim applies).
        log : bool, optional
            A log probability axis (default: chosen from the values).
        eps_max : float, optional
            The right end of the eps axis.
        simulate : int
            Also mark Monte Carlo estimates from this many runs per eps (0: none; ``dipc plot --simulate``).
        points : int
            Values of eps at which the curves are drawn.
        seed : int
            The random seed of the Monte Carlo marks.
        """
        return accuracy_figure(self.checker, self.plot_input(input), self.result.kappa, log, eps_max=eps_max,
                               simulate=simulate, points=points, seed=seed)


class SweepReport(Report):
    """`sweep`: the best kappa, kappa* and the counterexample for best kappa + 1.

    `verified` is the verdict of the claim itself (kappa = 1).

    The claim above (P[error] = e^(-gamma eps) = beta) holds with equality, so beta/kappa fails
    for every kappa > 1: the best kappa is 1 and kappa* = 1:

    >>> import dipc_plus
    >>> s = dipc_plus.sweep(dipc_plus.example("theories/laplace.toml"), params={"k": 1})
    >>> s.verified, s.best_kappa, s.kappa_star.text[:5]
    (True, 1, '1.000')
    """

    checked = "sweep"

    def __init__(self, result: Any, checker: Any, reports: bool = False):
        self.result, self.checker, self.reports = result, checker, reports

    @property
    def decided(self) -> Any:
        return self.result.base

    @property
    def best_kappa(self) -> int | None:
        """The largest integer kappa such that (alpha, beta/kappa, gamma) holds (a lower bound when `capped`;
        None: a box sweep undecided at some kappa)."""
        return None if self.result.best_kappa is None else int(self.result.best_kappa)

    @property
    def capped(self) -> bool:
        """True when the search stopped at kappa_max (best kappa is then 'at least')."""
        return bool(self.result.capped)

    @property
    def kappa_star(self) -> KappaStar | None:
        """kappa* (None: a box sweep that did not compute it)."""
        star = self.result.kappa_star
        return None if star is None else KappaStar(star, self.program)

    counterexample = AccuracyReport.counterexample     # beta/(best kappa + 1) refuted, as an accuracy check says it
    html_detail = AccuracyReport.html_detail

    def raw_json(self) -> dict:
        """As the command: the sweep, "mode", then "strict" (read on the claim itself)."""
        return {**self.result.to_json(full=self.reports), **self.options.mode_json(),
                "strict": strict_json(self.result.base, self.options)}

    def best_and_star(self) -> tuple[str, str]:
        """The best kappa and kappa* as the summary and the HTML table say them."""
        r = self.result
        best = "undecided" if r.best_kappa is None else (">= " if r.capped else "") + str(r.best_kappa)
        return best, "not computed" if r.kappa_star is None else r.kappa_star.text

    def summary(self) -> str:
        if self.result.best_kappa is None:
            return f"{self.html_title}: undecided at beta/{self.result.undecided.kappa}"
        best, star = self.best_and_star()
        return f"{self.html_title}: best kappa {best}, kappa* = {star}; the claim itself {self.verdict}"

    def html_rows(self) -> list[tuple[str, object]]:
        best, star = self.best_and_star()
        return [("claim", self.claim.describe()), ("the claim itself", self.verdict), ("best kappa", best),
                ("kappa* (least beta/P[error])", star)]

    def plot(self, *, log: bool | None = None, eps_max: float | None = None, points: int = 400) -> Any:
        """At the input where kappa* is reached, P[error] beside beta/(best kappa + 1): the failure drawn
        (a matplotlib Figure, shown inline in Jupyter)."""
        r = self.result
        if r.kappa_star.infinite or r.kappa_star.at is None:
            raise UserError("nothing to plot: P[error] is 0 wherever the claim applies")
        kappa = r.best_kappa if r.capped else r.best_kappa + 1
        return accuracy_figure(self.checker, r.kappa_star.at.report.input, max(kappa, 1), log, eps_max=eps_max,
                               points=points)


class PrivacyReport(Report):
    """`check_privacy`: a DP or Pufferfish verdict (or the every-length verdict) with its re-checked
    counterexample (`counterexample`, a `PrivacyCounterexample`).

    The shipped Laplace claim (theories/laplace_privacy.toml) with noise for sensitivity 1/2 (rate
    2 eps) on queries at distance 1 is not eps-DP: P[out <= -1] is 1/2 at q = -1 and e^(-2 eps)/2
    at q = 0.

    >>> import dipc_plus
    >>> laplace = dipc_plus.example("theories/laplace_privacy.toml")
    >>> p = dipc_plus.check_privacy(laplace, params={"sens": "1/2"})
    >>> p
    <PrivacyReport privacy of laplace: refuted at q=[-1] vs q=[0], out=[(-inf, -1]], eps = 1>
    >>> print(p.counterexample.probability, "|", p.counterexample.neighbour_probability)
    1/2 | 1/2*e^(-2*eps)
    """

    checked = "privacy"

    @property
    def every_length(self) -> bool:
        """True when the verdict is about every number of queries m (``every_length=True``)."""
        return self.result.route == "every length"

    @property
    def counterexample(self) -> PrivacyCounterexample | ValueCounterexample | None:
        """The re-checked counterexample: a `PrivacyCounterexample` (an output or a set of outputs), or
        a `ValueCounterexample` when the claim is decided on every value of a real output."""
        raw = self.result.counterexample
        if not hasattr(raw, "neighbour"):     # none, or a Pufferfish one (secrets, not a neighbouring pair)
            return None
        return ValueCounterexample(raw, self.program) if hasattr(raw, "density_ratio") else PrivacyCounterexample(raw)

    @property
    def strict_applies(self) -> bool:
        return self.result.strict_applies

    def raw_json(self) -> dict:
        """As the command: "mode", then a box or every-value verdict's "exit" (which no strict=... changes),
        or "strict" where strict=True may qualify a verified verdict."""
        from dipc_plus.commands.privacy import exit_code
        out = self.result.to_json(self.options.mode_json())
        if self.result.route in ("box", "every value"):
            out["exit"] = exit_code(self.result, self.options)
        elif self.result.strict_applies:
            out["strict"] = strict_json(self.result, self.options)
        return out

    def summary(self) -> str:
        scope = " for every m" if self.every_length else ""
        cex = self.counterexample
        where = f" at {cex.failure_text()}" if cex is not None else " (vacuously)" if self.vacuous else ""
        return f"{self.html_title}{scope}: {self.verdict}{where}"

    def html_detail(self) -> str:
        return self.text if self.verdict != "verified" else ""

    def plot(self) -> Any:
        """The tight privacy loss L(eps) beside the claimed budget (DP claims; computes the loss)."""
        if self.claim.kind != "dp":
            raise UserError("plot() draws the privacy loss of a DP claim",
                            hint="for a Pufferfish claim use privacy_loss(claim) and its attack")
        from dipc_plus.privacy.loss.tight import privacy_loss
        return shown(loss_figure(privacy_loss(self.claim)))


class LossReport(Report):
    """`privacy_loss`: the exact tight loss L(eps), sup L(eps)/eps, the attaining pair and output.

    `verified` is True when the claimed budget holds (L(eps) <= budget for every eps of the claim,
    decided exactly); for a Pufferfish claim, which states no budget here, it is None.

    The same mechanism's tight loss is 2 eps (the ratio e^(2 eps) of the two probabilities above):

    >>> import dipc_plus
    >>> laplace = dipc_plus.example("theories/laplace_privacy.toml")
    >>> loss = dipc_plus.privacy_loss(laplace, params={"sens": "1/2"})
    >>> loss.loss, loss.verified
    ('2*eps', False)
    """

    checked = "privacy loss"

    @property
    def attack(self) -> list | None:
        """The Bayes-optimal adversaries per scenario (a Pufferfish claim with ``attack=True``), else None."""
        return self.result.attacks

    @property
    def verified(self) -> bool | None:
        return None if self.verdict == "computed" else self.verdict == "verified"

    budget_holds = verified

    @property
    def loss(self) -> str:
        """The tight loss as text: a closed form in eps, ``ln(r)``, piecewise, or ``inf``."""
        fn = getattr(self.result.part, "loss_text", None)
        return str(fn()) if fn is not None else "(Pufferfish: see the rows)"

    def raw_json(self) -> dict:
        return self.result.to_json(self.options.mode_json())   # "mode" before the attack, as the command

    def summary(self) -> str:
        if self.budget_holds is None:
            return f"Pufferfish loss of {self.claim.program.name}: {len(self.result.part.rows)} ratio(s)"
        sup = getattr(self.result.part, "sup", None)
        extra = f", sup L(eps)/eps = {sup.text()}" if sup is not None else ""
        return (f"{self.html_title}: L(eps) = {self.loss}{extra}; budget "
                f"{self.claim.budget} {'holds' if self.budget_holds else 'fails'}")

    def html_rows(self) -> list[tuple[str, object]]:
        rows: list[tuple[str, object]] = [("claim", self.claim.describe())]
        if hasattr(self.result.part, "loss_text"):
            sup = getattr(self.result.part, "sup", None)
            rows += [("tight loss L(eps)", self.loss), *([("sup L(eps)/eps", sup.text())] if sup is not None else []),
                     ("budget holds", self.budget_holds)]
        return rows

    def html_detail(self) -> str:
        return self.text

    def plot(self) -> Any:
        """L(eps) beside the claimed budget (a matplotlib Figure, shown inline in Jupyter)."""
        if self.claim.kind != "dp":
            raise UserError("plot() draws the loss of a DP claim",
                            hint="a Pufferfish claim's picture is its attack (dipc privacy-loss --attack --plot)")
        return shown(loss_figure(self.result.part))


def accuracy_figure(checker: Any, input: dict, kappa: int, log: bool | None, **drawing: Any) -> Any:
    """P[error] and beta/kappa against eps at one input, as a Figure Jupyter shows inline.

    >>> import dipc_plus
    >>> r = dipc_plus.check_accuracy(dipc_plus.example("theories/laplace.toml"), params={"k": 1})
    >>> type(accuracy_figure(r.checker, {"q[1]": 0}, 1, None, points=20)).__name__
    'PlotFigure'
    """
    from dipc_plus.accuracy.plot import figure, plot_data
    return shown(figure(plot_data(checker, input, kappa=kappa, **drawing), log=log))

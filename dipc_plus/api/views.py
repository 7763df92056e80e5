"""The values a library user holds: counterexamples, kappa*, samples and figures that print cleanly.

Why it exists: the deciding stages return dataclasses made for the machinery (flat
input names such as ``'q[1]'``, the whole program inside, arb balls); printed as
they are they show internals.  The views here keep the exact objects (``.raw``)
and present what a user reads: inputs grouped by array as in the JSON
(``{'q': [-1, 0, 1]}``, integers as ``int``, other rationals as ``Fraction``), a
short `repr` whose numbers are printed outward (a lower end of the larger side, an
upper end of the smaller side, so the printed inequality is certified), an HTML
table for Jupyter, and the command's JSON.  `shown` makes a matplotlib Figure
display itself in a notebook without switching pyplot on.
"""
from __future__ import annotations

import html
from fractions import Fraction
from functools import cache, cached_property
from typing import Any, Mapping

from dipc_plus.accuracy.report import beta_over
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.decimals import arb_bounds, decimal_down, decimal_up
from dipc_plus.privacy.display import eps_point_text
from dipc_plus.semantics.samples import SampleResult as Samples     # numpy loads on first use (execution.lazy)
from dipc_plus.semantics.values import group_arrays, plain_number, show_env


def grouped(program: Any, flat: Mapping[str, Any]) -> dict[str, Any]:
    """{'q[1]': -1, 'q[2]': 0, 'c': 1} -> {'q': [-1, 0], 'c': 1}: arrays back together, as the JSON has them.

    >>> import dipc_plus
    >>> lap = dipc_plus.load(dipc_plus.example("programs/laplace.dip"), params={"k": 2})
    >>> grouped(lap.ir, {"q[1]": Fraction(-1), "q[2]": Fraction(1, 2), "c": Fraction(1)})
    {'q': [-1, Fraction(1, 2)], 'c': 1}
    """
    return group_arrays(program, flat, plain_number)


def env_repr(env: Mapping[str, Any], list_sep: str = ", ") -> str:
    """{'q': [-1, Fraction(1, 2)]} as ``q=[-1, 1/2]``, Booleans ``true``/``false``: the reports' form
    (`semantics.values.show_env`), for reading; the dict itself is `.input`.  Privacy reports write
    ", " inside arrays, accuracy reports "," (`list_sep`).

    >>> env_repr({"q": [-1, Fraction(1, 2)], "b": True}), env_repr({"q": [0, 1]}, ","), env_repr({})
    ('q=[-1, 1/2], b=true', 'q=[0,1]', '(no inputs)')
    """
    return show_env(env, braces=False, list_sep=list_sep, empty="(no inputs)")


def outward_text(ball: Any, digits: int = 6, *, upper: bool = False) -> str:
    """A decimal <= every point of a certified ball (or an exact rational), or >= every point with
    `upper`: what a printed inequality between two balls needs to stay certified.

    >>> from flint import arb
    >>> outward_text(arb(1) / 3), outward_text(arb(1) / 3, upper=True), outward_text(Fraction(2, 3), 3, upper=True)
    ('0.333333', '0.333334', '0.667')
    """
    lo, hi = (Fraction(ball), Fraction(ball)) if isinstance(ball, (int, Fraction)) else arb_bounds(ball)
    return decimal_up(hi, digits) if upper else decimal_down(lo, digits)


def html_table(title: str, rows: list[tuple[str, object]], detail: str = "") -> str:
    """A small two-column table (what Jupyter shows for a result).

    >>> html_table("t", [("a", 1)])
    "<div><b>t</b><table><tr><th style='text-align:left'>a</th><td style='text-align:left'>1</td></tr></table></div>"
    """
    cells = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                    f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in rows)
    pre = f"<pre>{html.escape(detail)}</pre>" if detail else ""
    return f"<div><b>{html.escape(title)}</b><table>{cells}</table>{pre}</div>"


class Tabled:
    """Shown in Jupyter as one two-column table: a subclass says `html_title`, `html_rows()` and, if it
    has text to show under the table, `html_detail()`.

    >>> class Verdict(Tabled):
    ...     html_title = "t"
    ...     def html_rows(self): return [("verdict", "verified")]
    >>> Verdict()._repr_html_() == html_table("t", [("verdict", "verified")])
    True
    """

    @property
    def html_title(self) -> str:
        """The table's title: a subclass names it by a class attribute or a property."""
        return ""

    def html_rows(self) -> list[tuple[str, object]]:
        return []

    def html_detail(self) -> str:
        return ""

    def _repr_html_(self) -> str:
        return html_table(self.html_title, self.html_rows(), self.html_detail())


class RawView:
    """A face of one object of the deciding stage (`raw`) that reads it rather than copying it: the
    fields named in `SAME` and `RENAMED` straight through, those in `GROUPED` grouped by array, those in
    `PLAIN` as a user writes them (`plain_number`: 3 rather than Fraction(3, 1)), those in `SHOWN` as the
    object's JSON says them.  Subclasses add only what they derive.

    >>> from types import SimpleNamespace as NS
    >>> class Pair(RawView):
    ...     SAME, RENAMED, PLAIN = ("eps",), {"probability": "p"}, ("gamma",)
    >>> pair = Pair(NS(eps=Fraction(1, 2), p="e^(-eps)", gamma=Fraction(2), program=None))
    >>> pair.eps, pair.probability, pair.gamma
    (Fraction(1, 2), 'e^(-eps)', 2)
    """

    SAME: tuple[str, ...] = ()
    RENAMED: Mapping[str, str] = {}
    GROUPED: tuple[str, ...] = ()
    PLAIN: tuple[str, ...] = ()
    SHOWN: tuple[str, ...] = ()

    def __init__(self, raw: Any, program: Any = None):
        self.raw = raw
        self._program = raw.program if program is None else program

    def __getattr__(self, name: str) -> Any:
        cls = type(self)
        if name in cls.SAME or name in cls.RENAMED:
            return getattr(self.raw, cls.RENAMED.get(name, name))
        if name in cls.GROUPED:
            value = getattr(self.raw, name)
            return None if value is None else grouped(self._program, value)
        if name in cls.PLAIN:
            return plain_number(getattr(self.raw, name))
        if name in cls.SHOWN:
            return self.shown_json[name]
        raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")

    @cached_property
    def shown_json(self) -> dict:
        """The raw object's JSON, read once (the `SHOWN` fields come from it)."""
        return self.raw.to_json()

    def to_json(self) -> dict:
        """The object as the command's JSON has it."""
        return dict(self.raw.to_json())


class Counterexample(RawView, Tabled):
    """An input and a rational eps where an accuracy claim fails: P[error] > beta/kappa, re-checked
    by an independent certified evaluation.

    Attributes: `input` (grouped by array), `eps`, `alpha`, `gamma`, `kappa` (exact values);
    `error_probability` and `bound` (closed forms in eps); `error_ball` and `bound_ball` (the
    certified arb balls at `eps`); `raw` (the checker's own object).

    The shipped Laplace claim with one output (k = 1) at beta/2: P[|error| > 1] = e^(-eps) against
    e^(-eps)/2 (e^-1 = 0.3678794):

    >>> import dipc_plus
    >>> laplace = dipc_plus.example("theories/laplace.toml")
    >>> dipc_plus.check_accuracy(laplace, params={"k": 1}, kappa=2).counterexample
    Counterexample(input={'q': [-1]}, eps=1: P[error] >= 0.367879 > 0.18394 >= beta/2)
    """

    SAME = ("eps", "kappa", "error_probability", "bound", "error_ball", "bound_ball")
    GROUPED, PLAIN = ("input",), ("alpha", "gamma")
    html_title = "accuracy counterexample (re-checked)"

    def failure_text(self) -> str:
        """Where the claim fails, as a report's summary says it."""
        return f"{env_repr(self.input, ',')}, eps = {self.raw.eps}"

    def __str__(self) -> str:
        return str(self.raw.describe())

    def __repr__(self) -> str:
        return (f"Counterexample(input={self.input!r}, eps={fmt_q(self.eps)}: P[error] >= "
                f"{outward_text(self.error_ball)} > {outward_text(self.bound_ball, upper=True)} >= "
                f"{beta_over(self.kappa)})")

    def html_rows(self) -> list[tuple[str, object]]:
        def enclosed(form: Any, ball: Any) -> str:
            return f"{form}  in [{outward_text(ball, 12)}, {outward_text(ball, 12, upper=True)}]"
        return [("input", env_repr(self.input, ",")), ("eps", fmt_q(self.eps)),
                ("alpha, gamma", f"{fmt_q(self.raw.alpha)}, {fmt_q(self.raw.gamma)}"),
                ("P[error]", enclosed(self.error_probability, self.error_ball)),
                (beta_over(self.kappa), enclosed(self.bound, self.bound_ball))]


class NeighbourPairView(RawView, Tabled):
    """What both privacy counterexamples read: the neighbouring pair grouped by array and the two
    exact probabilities; a subclass names the output (`output_text`) and the eps it shows.

    >>> import dipc_plus
    >>> p = dipc_plus.check_privacy(dipc_plus.example("theories/laplace_privacy.toml"), params={"sens": "1/2"})
    >>> isinstance(p.counterexample, NeighbourPairView), p.counterexample.failure_text()
    (True, 'q=[-1] vs q=[0], out=[(-inf, -1]], eps = 1')
    """

    RENAMED = {"probability": "p", "neighbour_probability": "q"}
    GROUPED: tuple[str, ...] = ("input", "neighbour")
    EVENT = "..."       # how the HTML rows name the event whose probabilities they give

    def failure_text(self) -> str:
        """Where the claim fails, as a report's summary says it."""
        return f"{env_repr(self.input)} vs {env_repr(self.neighbour)}, {self.output_text()}, eps = {self.eps_text()}"

    def eps_text(self) -> str:
        """The eps where it fails: a rational, or ``ln(r)`` for a point eps = ln r."""
        return eps_point_text(self.raw.eps)

    def html_rows(self) -> list[tuple[str, object]]:
        return [("input", env_repr(self.input)), ("neighbour", env_repr(self.neighbour)), *self.output_rows(),
                (f"P[P(input) {self.EVENT}]", str(self.probability)),
                (f"P[P(neighbour) {self.EVENT}]", str(self.neighbour_probability)), *self.ratio_rows()]

    def ratio_rows(self) -> list[tuple[str, object]]:
        return []


class PrivacyCounterexample(NeighbourPairView):
    """A neighbouring pair, an output (or set of outputs) and an eps where a DP claim fails, re-checked.

    Attributes: `input`, `neighbour` and `output` grouped by array (`output` is None when the claim
    has a delta and the failure is on a set of outputs: then `outputs` lists them and `output_set`
    describes them); `eps` (a Fraction, or the text ``ln(r)`` of a point eps = ln r);
    `probability` and `neighbour_probability` (closed forms); `raw` (the checker's object).

    Rate 2 eps Laplace noise (the shipped claim with sens = 1/2) against an eps budget: 1/2 > e *
    e^(-2)/2 = 0.18394 at eps = 1:

    >>> import dipc_plus
    >>> laplace = dipc_plus.example("theories/laplace_privacy.toml")
    >>> dipc_plus.check_privacy(laplace, params={"sens": "1/2"}).counterexample
    PrivacyCounterexample(input={'q': [-1]}, neighbour={'q': [0]}, output={'out': ['(-inf, -1]']}, eps=1: P >= 0.5 > 0.18394 >= e^budget P')
    """

    SAME, GROUPED = ("output_set",), ("input", "neighbour", "output")
    html_title = "privacy counterexample (re-checked)"

    @property
    def outputs(self) -> list[dict[str, Any]] | None:
        return None if self.raw.outputs is None else [grouped(self._program, o) for o in self.raw.outputs]

    @property
    def eps(self) -> Fraction | str:
        return self.raw.eps if isinstance(self.raw.eps, Fraction) else self.eps_text()

    def output_text(self, key: str = "") -> str:
        """The output (``out=[...]``, or ``output={...}`` with `key`), or the set of outputs of a delta claim."""
        if self.output is None:
            return f"outputs in {{{self.output_set}}}"
        return f"{key}={self.output!r}" if key else env_repr(self.output)

    def __repr__(self) -> str:
        return (f"PrivacyCounterexample(input={self.input!r}, neighbour={self.neighbour!r}, "
                f"{self.output_text('output')}, eps={self.eps_text()}: P >= {outward_text(self.raw.p_at)} > "
                f"{outward_text(self.raw.bound_at, upper=True)} >= e^budget P')")

    def output_rows(self) -> list[tuple[str, object]]:
        shown = ("output", env_repr(self.output)) if self.output is not None else ("outputs", self.output_set)
        return [shown, ("eps", self.eps_text())]


class ValueCounterexample(NeighbourPairView):
    """A neighbouring pair, an outcome with the released value(s) w, and an eps where an eps-DP claim
    decided on every output value fails: the density ratio f_u(w) / f_u'(w) is certified above
    e^budget, and the event "outcome, value(s) in a small box around w" re-checked by the per-point
    chain breaks the claim too.

    Attributes: `input`, `neighbour` (grouped by array), `output` (the outcome as text, with
    ``val[i]=w``), `w` (a Fraction, a list of them, or None for a mass), `eps`, `event` (the
    re-checked box as text), `probability` and `neighbour_probability` (its exact closed forms),
    `density_ratio` and `event_ratio` (arb balls), `raw` (the checker's object).

    Lyu et al.'s Algorithm 3 (c = 1, m = 3) releases the noisy query above the threshold; its loss
    is m/2*eps, so eps-DP fails at w = -1/2 of the released value:

    >>> import dipc_plus
    >>> r = dipc_plus.check_privacy(dipc_plus.example("theories/svt_lyu_alg3_c1_m3_privacy_values.toml"))
    >>> c = r.counterexample
    >>> c.input, c.neighbour, c.output, c.w, c.event
    ({'q': [0, 0, 0]}, {'q': [1, 1, 1]}, '(bot, bot, num, val[1]=0, val[2]=0, val[3]=w)', Fraction(-1, 2), '(-3/4, -1/4]')
    """

    SAME, SHOWN = ("w", "eps", "density_ratio", "event_ratio"), ("output", "event")
    html_title, EVENT = "privacy counterexample on every output value (re-checked)", "in event"

    def output_text(self) -> str:
        return str(self.output)

    def __repr__(self) -> str:
        w = self.shown_json["w"]
        w = ", ".join(w) if isinstance(w, list) else w
        return (f"ValueCounterexample(input={self.input!r}, neighbour={self.neighbour!r}, output={self.output}, "
                f"w={w}, eps={self.eps_text()}: P[value(s) in {self.event}] ratio {self.shown_json['event_ratio']} "
                "> e^budget)")

    def output_rows(self) -> list[tuple[str, object]]:
        return [("output", self.output), ("eps", self.eps_text()), ("event", self.event or "-")]

    def ratio_rows(self) -> list[tuple[str, object]]:
        return [("event ratio", self.shown_json["event_ratio"])]


class KappaStar(RawView):
    """kappa* = inf over the claim's inputs and eps of beta/P[error], certified: `text` (truncated to
    `digits` significant digits), the enclosure [`lo`, `hi`], `exact` (lo == hi is the exact value),
    `infinite` (P[error] is 0 wherever the claim applies), `input` where it is reached (grouped).

    Examples
    --------
    >>> import dipc_plus
    >>> k = dipc_plus.sweep(dipc_plus.example("theories/sparse.toml"), params={"c": 1}).kappa_star
    >>> k
    KappaStar(6.37584..., at input={'q': [-1, -1, 1]} (critical))
    >>> print(k._repr_latex_())
    $\\kappa^* = 6.37584\\ldots$
    """

    SAME = ("text", "lo", "hi", "digits", "exact", "infinite")

    @property
    def input(self) -> dict[str, Any] | None:
        return None if self.raw.at is None else grouped(self._program, self.raw.at.report.input)

    @property
    def where(self) -> str | None:
        return None if self.raw.at is None else self.raw.at.kind

    def __float__(self) -> float:
        """The nearest float to the enclosure's midpoint (``inf`` when infinite): for arithmetic and plots;
        the certified value is [`lo`, `hi`].

        >>> import dipc_plus
        >>> k = dipc_plus.sweep(dipc_plus.example("theories/sparse.toml"), params={"c": 1}).kappa_star
        >>> float(k.lo) <= float(k) <= float(k.hi), round(float(k), 4)
        (True, 6.3758)
        """
        if self.infinite:
            return float("inf")
        return float((Fraction(self.lo) + Fraction(self.hi)) / 2)

    def __str__(self) -> str:
        return self.text

    def _repr_latex_(self) -> str:
        if self.infinite:
            return r"$\kappa^* = \infty$"
        value = fmt_q(self.lo) if self.exact else self.text + r"\ldots"
        return rf"$\kappa^* = {value}$"

    def __repr__(self) -> str:
        if self.infinite:
            return "KappaStar(inf)"
        at = "" if self.input is None else f", at input={self.input!r} ({self.where})"
        return f"KappaStar({self.text}{'' if self.exact else '...'}{at})"


class SampleResult(Tabled, Samples):
    """Outputs of n Monte Carlo runs at one rational eps (`column`, `distribution`, `probability`,
    `summary`, `within`, as `dipc_plus.semantics.samples.SampleResult`), with a readable repr and an
    HTML table of the outputs' frequencies.

    >>> import dipc_plus
    >>> lap = dipc_plus.load(dipc_plus.example("programs/laplace.dip"), params={"k": 1})
    >>> type(lap.simulate(1, 10, input={"q": [0]}, seed=1)) is SampleResult
    True
    """

    @property
    def html_title(self) -> str:
        return f"{self.program.name}: {self.n} runs at eps = {fmt_q(self.eps)}, {self.inputs_text()}"

    def inputs_text(self) -> str:
        return env_repr(grouped(self.program, self.inputs))

    def html_rows(self, limit: int = 6) -> list[tuple[str, object]]:
        rows: list[tuple[str, object]] = []
        for name in self.discrete_names():     # each output's `limit` most frequent values
            for (value,), count in list(self.distribution([name]).items())[:limit]:
                rows.append((f"{name}={value}", f"{count} / {self.n}"))
        for name in self.real_names():
            s = self.summary(name)
            rows.append((name, f"mean {s.mean:.4g}, std {s.std:.4g} over {s.count} runs (Monte Carlo estimates)"))
        return rows

    def __repr__(self) -> str:
        return f"<SampleResult {self.program.name}: {self.n} runs at eps={fmt_q(self.eps)}, {self.inputs_text()}>"


def sample_result(raw: Any) -> SampleResult:
    """The sampler's SampleResult, as an object of the API's `SampleResult` (same data and methods,
    with a readable repr and an HTML table of the outputs' frequencies).

    >>> import dipc_plus
    >>> lap = dipc_plus.load(dipc_plus.example("programs/laplace.dip"), params={"k": 2})
    >>> lap.simulate(1, 100, input={"q": [0, 1]}, seed=7)
    <SampleResult laplace: 100 runs at eps=1, q=[0, 1]>
    """
    raw.__class__ = SampleResult    # a subclass adding display methods and no state (as `shown` does)
    return raw


@cache
def figure_class() -> type:
    """The API's PlotFigure class (``dipc_plus.PlotFigure``), made on first use: matplotlib loads only
    when a plot is drawn.  Every `.plot()` returns one: a matplotlib Figure that Jupyter shows inline.

    >>> from matplotlib.figure import Figure
    >>> issubclass(figure_class(), Figure), figure_class().__name__, figure_class() is figure_class()
    (True, 'PlotFigure', True)
    """
    from matplotlib.figure import Figure

    class PlotFigure(Figure):
        """A matplotlib Figure that Jupyter shows inline (PNG) when it is a cell's value."""

        def _repr_png_(self) -> bytes:
            from io import BytesIO
            buf = BytesIO()
            self.savefig(buf, format="png", bbox_inches="tight")
            return buf.getvalue()

    PlotFigure.__module__ = __name__
    PlotFigure.__qualname__ = "PlotFigure"
    return PlotFigure


def shown(fig: Any) -> Any:
    """`fig` (a matplotlib Figure) made to display itself in Jupyter as a PNG (`_repr_png_`),
    without pyplot or an inline backend; it stays a Figure (savefig, axes, ...).

    >>> from matplotlib.figure import Figure
    >>> fig = shown(Figure())
    >>> isinstance(fig, Figure), type(fig).__name__, callable(fig._repr_png_)
    (True, 'PlotFigure', True)
    """
    cls = figure_class()
    if type(fig).__name__ == "Figure" and type(fig).__module__ == "matplotlib.figure":
        fig.__class__ = cls   # a subclass adding one method and no state
    return fig

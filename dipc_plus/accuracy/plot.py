"""Pictures of an accuracy claim at one input: P[error] against eps beside beta.

The top panel draws P[error](eps) = 1 - P[P(u) in B(det(u), u, gamma)] and the
bound beta(eps)/kappa for each gamma of the claim, shades where the error is
above the bound, and marks the certified counterexample (the simplest rational
eps where the claim fails).  The bottom panel draws beta/P[error]: the claim
holds exactly where it stays >= kappa, and its infimum at this input (computed
exactly, `sweep.candidates`) is marked.  Optional Monte Carlo estimates with
99% Wilson intervals show the sampler agreeing with the closed forms.

Curves are evaluated with arb and converted to floats for drawing only; every
number printed on the figure comes from the certified computations.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from dipc_plus.execution.lazy import lazy_import

np = lazy_import("numpy")

from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.report import InputReport, beta_over, env_text, fmt_q
from dipc_plus.exact.decimals import arb_bounds, decimal_down, decimal_up
from dipc_plus.exact.convert import to_fmpq
from dipc_plus.exact.expoly import ExpFrac

COLORS = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf"]
FAIL = "#d62728"
_LEGEND = {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0}   # right of the axes


@dataclass
class Curve:
    report: InputReport
    p_error: np.ndarray
    bound: np.ndarray
    ratio_inf: object = None     # sweep.KappaStar at this input and gamma (None if not applicable)
    simulated: list = field(default_factory=list)  # (eps, estimate, low, high)

    def ratio(self, kappa: int) -> np.ndarray:
        """beta/P[error] at each eps drawn (nan where P[error] is 0), what the bottom panel draws and scales to."""
        return np.divide(self.bound * kappa, self.p_error, out=np.full(len(self.p_error), math.nan),
                         where=self.p_error > 0)


@dataclass
class PlotData:
    eps: np.ndarray
    curves: list
    title: str
    kappa: int


def _values(f, xs: np.ndarray) -> np.ndarray:
    """Float values of an exact closed form (via 64-bit arb balls, for drawing only)."""
    f = ExpFrac.of(f)
    balls = (f.arb_value(to_fmpq(Fraction(float(x))), 64) for x in xs)
    return np.array([float(ball.mid()) if ball.is_finite() else math.nan for ball in balls], dtype=float)


def _auto_eps_max(reports: list[InputReport], interval, stars: list) -> float:
    """Wide enough to show the counterexample, the ratio's minimum and the decay of P[error]."""
    if interval.hi is not None:
        return float(interval.hi)
    marks = [3.0 * float(r.counterexample.eps) for r in reports if r.counterexample is not None]
    marks += [4.0 * float(star.at.root.ball(64).mid()) for star in stars
              if star is not None and star.at is not None and star.at.kind == "critical"]
    for r in reports:  # let the bound come down into the chart: 1.5x where it first drops below 1
        if r.applies and r.bound is not None:
            xs = np.geomspace(0.05, 400, 160)
            below = np.nonzero(_values(r.bound, xs) < 1)[0]
            if len(below) and below[0] > 0:
                marks.append(1.5 * float(xs[below[0]]))
    if not marks:  # where P[error] has fallen to 2% of its largest value
        for r in reports:
            if r.applies and not r.p_error.is_zero():
                xs = np.geomspace(0.05, 400, 120)
                ys = _values(r.p_error, xs)
                peak = np.nanmax(ys)
                small = np.nonzero((ys < 0.02 * peak) & (xs > xs[np.nanargmax(ys)]))[0]
                marks.append(float(xs[small[0]]) if len(small) else 400.0)
    return float(min(max(marks + [2.0]), 400.0))


def plot_data(checker: AccuracyChecker, u: Mapping, *, kappa: int = 1, eps_max: float | None = None,
              points: int = 400, simulate: int = 0, seed: int = 0) -> PlotData:
    """Everything the figure shows, computed (exactly where it matters) but not drawn."""
    from dipc_plus.accuracy.sweep import kappa_star
    reports = checker.check_input(u, kappa)
    claim = checker.claim
    stars = [kappa_star([r], claim.eps, digits=6) if r.applies and not r.p_error.is_zero() else None
             for r in reports]
    lo = float(claim.eps.lo)
    hi = eps_max if eps_max is not None else _auto_eps_max(reports, claim.eps, stars)
    if hi <= lo:
        from dipc_plus.errors import UserError
        raise UserError(f"--eps-max {hi} is not above the start of the eps interval {claim.eps}",
                        hint="give a larger --eps-max")
    start = lo if lo > 0 else hi / (20 * points)
    xs = np.linspace(start, hi, points)
    curves = []
    for r, star in zip(reports, stars):
        if not r.applies:
            curves.append(Curve(r, np.full(points, math.nan), np.full(points, math.nan)))
            continue
        c = Curve(r, _values(r.p_error, xs), _values(r.bound, xs), star)
        if simulate:
            from dipc_plus.accuracy.simulate import simulate_error
            for k, x in enumerate(np.linspace(start, hi, 9)[1:]):
                e = Fraction(x).limit_denominator(1000)
                freq = simulate_error(claim, r.input, r.det, r.gamma, e, simulate, seed=seed + k)
                ci = freq.interval(0.99)
                c.simulated.append((float(e), freq.estimate, float(ci.low), float(ci.high)))
        curves.append(c)
    program = checker.program
    params = ", ".join(f"{k}={fmt_q(v)}" for k, v in program.params.items())
    alpha = "dd(u)" if claim.alpha == "dd" else fmt_q(claim.alpha)
    import textwrap
    head = f"{program.name}" + (f" ({params})" if params else "") + f" at {env_text(program, u)}"
    claim_line = (f"claim: ({alpha}, beta, gamma)-accuracy with beta = {claim.beta}"
                  + ("" if kappa == 1 else f", drawn as beta/{kappa}")
                  + f"; d = {claim.input_distance.name}, d' = {claim.output_distance.name}")
    title = "\n".join([head] + textwrap.wrap(claim_line, 110))
    return PlotData(xs, curves, title, kappa)


def failure_hidden_on_linear(data: PlotData, share: float = 0.02) -> bool:
    """True when a linear probability axis [0, 1] would flatten what matters: where P[error] is
    above the bound it is above it by less than `share` of the axis everywhere (the shading and
    the two curves merge), or (no failure) P[error] never reaches `share`.  The log scale then
    separates them (a factor between the curves is a visible distance on it)."""
    curves = [c for c in data.curves if c.report.applies]
    failing = [c for c in curves if (c.p_error > c.bound).any()]
    if failing:
        return all(float(np.nanmax((c.p_error - c.bound)[c.p_error > c.bound])) < share for c in failing)
    finite = [c for c in curves if np.isfinite(c.p_error).any()]
    return bool(finite) and all(float(np.nanmax(c.p_error)) < share for c in finite)


def figure(data: PlotData, *, log: bool | None = None):
    """The figure as a matplotlib Figure (not attached to pyplot: nothing global is touched).

    log=None chooses the logarithmic probability axis when the failure (or the whole
    error curve) would be invisible on the linear one (`failure_hidden_on_linear`)."""
    from matplotlib.figure import Figure

    if log is None:
        log = failure_hidden_on_linear(data)
    fig = Figure(figsize=(11, 7.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
    above_one = [draw_curve(top, bottom, data, i, c, beta_over(data.kappa)) for i, c in enumerate(data.curves)]
    scale_probability_axis(top, data, log, any(above_one))
    top.set_ylabel("probability")
    top.set_title(data.title, fontsize=10)
    top.grid(alpha=0.3)
    top.legend(**_LEGEND)
    xs = data.eps
    bottom.axhline(data.kappa, color="black", lw=1)
    bottom.text(xs[-1], data.kappa, f"  kappa = {data.kappa}: the claim holds where the ratio is above",
                va="bottom", ha="right", fontsize=8)
    scale_ratio_axis(bottom, data)
    bottom.set_xlabel("eps")
    bottom.set_ylabel("beta / P[error]")
    bottom.grid(alpha=0.3)
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(**_LEGEND)
    bottom.set_xlim(0, xs[-1])
    return fig


def draw_curve(top, bottom, data: PlotData, i: int, c: Curve, beta_name: str) -> bool:
    """One gamma's curves: P[error] and the bound on top (failure shaded, Monte Carlo estimates,
    the counterexample marked), beta/P[error] and its infimum below.  True when the bound
    goes above 1 somewhere (the linear axis then says it leaves the chart)."""
    color = COLORS[i % len(COLORS)]
    xs = data.eps
    r = c.report
    tag = f"gamma = {fmt_q(r.gamma)}" + (f", alpha = {fmt_q(r.alpha)}" if r.applies else "")
    if not r.applies:
        top.plot([], [], " ", label=f"{tag}: dd(u) = {r.dd} does not exceed alpha, nothing claimed")
        return False
    top.plot(xs, c.p_error, color=color, lw=2, label=f"P[error]  ({tag}; {r.verdict})")
    top.plot(xs, c.bound, color=color, lw=1.5, ls="--", label=f"{beta_name}  ({tag})")
    above = c.p_error > c.bound
    if above.any():
        top.fill_between(xs, c.bound, c.p_error, where=above, color=FAIL, alpha=0.18, lw=0,
                         label="P[error] above the bound" if i == 0 else None)
    for e, est, low, high in c.simulated:
        top.errorbar([e], [est], yerr=[[est - low], [high - est]], fmt="o", ms=4, color=color, capsize=3,
                     label="Monte Carlo, 99% interval" if e == c.simulated[0][0] else None)
    if r.counterexample is not None:
        mark_counterexample(top, r.counterexample, beta_name)
    bottom.plot(xs, c.ratio(data.kappa), color=color, lw=2, label=f"beta / P[error]  ({tag})")
    star = c.ratio_inf
    if star is not None and not star.infinite and star.at is not None:
        mark_ratio_inf(bottom, star, color)
    return bool(np.nanmax(c.bound) > 1)


def mark_counterexample(top, cex, beta_name: str) -> None:
    """The certified counterexample on the top panel: its eps, P[error] and the bound there
    (the balls' midpoints for drawing; the label prints their certified ends, rounded outward)."""
    e = float(cex.eps)
    pe = float(cex.error_ball.mid())
    b = float(cex.bound_ball.mid())
    top.axvline(e, color=FAIL, ls=":", lw=1)
    top.plot([e], [pe], marker="X", ms=11, color=FAIL, zorder=5)
    top.plot([e], [b], marker="o", ms=6, mfc="white", color=FAIL, zorder=5)
    # the label is a certified statement: the error's lower end rounded down, the bound's upper end up
    top.annotate(f"counterexample eps = {fmt_q(cex.eps)}\nP[error] >= {decimal_down(arb_bounds(cex.error_ball)[0], 6)}"
                 f" > {decimal_up(arb_bounds(cex.bound_ball)[1], 6)} >= {beta_name}",
                 xy=(e, pe), xytext=(12, 12), textcoords="offset points", fontsize=9, color=FAIL,
                 bbox=dict(boxstyle="round,pad=0.3", fc="white", ec=FAIL, alpha=0.9),
                 arrowprops=dict(arrowstyle="-", color=FAIL, lw=0.8))


def mark_ratio_inf(bottom, star, color) -> None:
    """The infimum of beta/P[error] at this input (`sweep.KappaStar`) on the bottom panel: a line
    at its value, and a marker where it is attained (a critical point or an end of the interval)."""
    at = star.at
    if at.kind in ("critical", "end"):
        ex = float(at.root.ball(64).mid()) if at.kind == "critical" else float(at.eps)
        bottom.plot([ex], [float(star.lo)], marker="v", ms=9, color=color, zorder=5)
        where = f"at eps ~ {ex:.4g}" if at.kind == "critical" else f"at eps = {fmt_q(at.eps)}"
    else:
        where = at.where().replace("approached as ", "as ")
    bottom.axhline(float(star.lo), color=color, lw=0.8, ls=":",
                   label=f"inf at this input = {fmt_q(star.lo) if star.exact else star.text}  ({where})")


def scale_probability_axis(top, data: PlotData, log: bool, any_above_one: bool) -> None:
    """The top panel's probability axis: logarithmic from the smallest error drawn to just above
    1, or linear [0, 1] with a note when the bound leaves the chart."""
    if log:
        top.set_yscale("log")
        shown = [c.p_error[np.isfinite(c.p_error) & (c.p_error > 0)] for c in data.curves if c.report.applies]
        shown = [v for v in shown if len(v)]
        if shown:  # from the smallest error drawn up to just above 1 (a bound above 1 is trivially met)
            top.set_ylim(max(min(float(v.min()) for v in shown) / 3, 1e-300), 1.5)
    else:
        top.set_ylim(0, 1.02)
        if any_above_one:
            top.text(0.99, 0.99, "the bound is above 1 (trivially met) where it leaves the chart",
                     transform=top.transAxes, ha="right", va="top", fontsize=8, color="0.35")


def scale_ratio_axis(bottom, data: PlotData) -> None:
    """The bottom panel's range: the ratio's minimum and kappa on the chart, the top cut at a few
    times them (the ratio grows without bound where P[error] goes to 0)."""
    ratios = [r[np.isfinite(r)] for r in (c.ratio(data.kappa) for c in data.curves if c.report.applies)]
    ratios = [r for r in ratios if len(r)]
    if ratios:
        least = min(float(r.min()) for r in ratios)  # the ratio's minimum must be on the chart
        low = min(least, data.kappa)
        high = min(max(float(r.max()) for r in ratios), 3 * max(least, data.kappa))
        high = max(high, 1.25 * max(least, data.kappa))
        bottom.set_ylim(max(0.0, low - 0.15 * (high - low)), high)


def plot_claim(checker: AccuracyChecker, u: Mapping, path: str, *, kappa: int = 1, eps_max: float | None = None,
               log: bool | None = None, simulate: int = 0, seed: int = 0, dpi: int = 150) -> PlotData:
    """Compute and write the figure (PNG, PDF or SVG by the file's extension) with matplotlib's Agg
    canvas (headless, without switching pyplot's backend); returns the data drawn (for tests and notebooks)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    data = plot_data(checker, u, kappa=kappa, eps_max=eps_max, simulate=simulate, seed=seed)
    fig = figure(data, log=log)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=dpi)
    return data

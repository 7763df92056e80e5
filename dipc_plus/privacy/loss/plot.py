"""The picture of a tight privacy loss: L(eps) beside the claimed budget.

Why it exists: `dipc privacy-loss --plot` and the notebook API draw the same figure,
in the style of the accuracy plots (a Figure not attached to pyplot, legend
outside the data, a title naming the program, its parameters, the adjacency and
the inputs).  Curves are the exact closed forms evaluated in floating point for
drawing only; no verdict is read from the picture.
"""
from __future__ import annotations

import math
import textwrap

from dipc_plus.errors import UserError


def loss_curve(result, points: int = 400):
    """(eps values, L(eps) values, budget values) to draw; a UserError when there is no curve."""
    claim = result.claim
    interval = claim.eps.interval
    if result.infinite is not None or result.point_ratio is not None or interval is None:
        raise UserError("nothing to plot: the loss is infinite or claimed at a single eps",
                        hint="plot a claim with an eps interval")
    lo = float(interval.lo) if interval.lo > 0 else 0.01
    hi = float(interval.hi) if interval.hi is not None else max(5.0, 4 * lo)
    xs = [lo + (hi - lo) * i / points for i in range(points + 1)]
    if result.constant is not None:
        ys = [math.log(result.constant)] * len(xs)
    else:
        ys = [math.log(max(pc.candidate.ratio(x) for pc in result.pieces)) for x in xs]
    b = claim.budget
    budget = [float(b.k) * x + math.log(b.factor) for x in xs]
    return xs, ys, budget


def title(result) -> str:
    claim = result.claim
    program = claim.program
    params = ", ".join(f"{k}={v}" for k, v in program.params.items())
    head = f"{program.name}" + (f" ({params})" if params else "") + ": tight privacy loss L(eps)"
    scope = (f"neighbours: {claim.adjacency.describe()}; {claim.npoints} input(s)"
             + (f" ({_inputs_text(claim)})" if _inputs_text(claim) else ""))
    return "\n".join([head] + textwrap.wrap(scope, 100))


def _inputs_text(claim, limit: int = 6) -> str:
    """The claimed inputs in a few words: the grid's values per input, or the first points."""
    grid = getattr(claim, "grid", None)
    if grid:
        parts = []
        for name, values in grid.items():
            shown = ", ".join(str(v) for v in values[:limit]) + (", ..." if len(values) > limit else "")
            parts.append(f"{name} in {{{shown}}}")
        return "; ".join(parts)
    points = getattr(claim, "explicit_points", None) or []
    shown = ["(" + ", ".join(f"{k}={v}" for k, v in p.items()) + ")" for p in points[:3]]
    return ", ".join(shown) + (", ..." if len(points) > 3 else "")


TITLE_WIDTH = 90     # characters of a title line that fit over the axes at fontsize 10
LONG_LABEL = 40      # a legend label longer than this puts the legend below the axes


def styled_figure(title: str, ylabel: str, draw):
    """A matplotlib Figure in the style of every privacy plot (nothing global touched: not attached to
    pyplot; eps across, legend outside the data); `draw(ax)` puts the curves on its axes."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(10, 5), layout="constrained")
    ax = fig.subplots()
    draw(ax)
    ax.set_xlabel("eps")
    ax.set_ylabel(ylabel)
    ax.set_title("\n".join(textwrap.fill(line, TITLE_WIDTH) for line in title.splitlines()), fontsize=10)
    ax.grid(alpha=0.3)
    if max((len(label) for label in ax.get_legend_handles_labels()[1]), default=0) > LONG_LABEL:
        # long labels (the attack's scenarios) go below the data: beside it they squeeze the axes
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), borderaxespad=0)
    else:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


def loss_figure(result):
    """L(eps) and the claimed budget as a matplotlib Figure (nothing global touched)."""
    xs, ys, budget = loss_curve(result)
    claim = result.claim

    def draw(ax):
        ax.plot(xs, ys, color="#1f77b4", lw=2, label="tight loss L(eps)")
        ax.plot(xs, budget, color="#1f77b4", lw=1.5, ls="--", label=f"claimed budget {claim.budget}")
        above = [y > b for y, b in zip(ys, budget)]
        if any(above):
            ax.fill_between(xs, budget, ys, where=above, color="#d62728", alpha=0.18, lw=0,
                            label="loss above the budget")
        ax.set_xlim(0, xs[-1])

    return styled_figure(title(result), "privacy loss", draw)

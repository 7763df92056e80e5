"""The privacy plots keep their title inside the figure and their legend off the data, also with the
attack's long scenario labels (the attack figure's title was cut off on the left and its legend, beside
the axes, took half the width)."""
from __future__ import annotations

from fractions import Fraction

from matplotlib.backends.backend_agg import FigureCanvasAgg

from dipc_plus.privacy.loss.plot import styled_figure


def _layout(label: str, title: str):
    def draw(ax):
        ax.plot([0, 1, 2], [0, 1, 0], label=label)
    fig = styled_figure(title, "advantage", draw)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    return (fig.bbox, ax.title.get_window_extent(renderer), ax.get_legend().get_window_extent(renderer),
            ax.get_window_extent(renderer))


LONG_TITLE = ("truncated_geometric: Bayes-optimal attack per scenario (success minus the best guess "
              "without the output)")
LONG_LABEL = "non-contagious (Ex. 4.5, FAIER's conditioning): present or absent? (p = 1/2)"


def test_a_long_title_stays_inside_the_figure():
    figure, title, _, _ = _layout(LONG_LABEL, LONG_TITLE)
    assert figure.x0 <= title.x0 and title.x1 <= figure.x1


def test_long_labels_go_below_the_data_and_leave_the_axes_most_of_the_width():
    figure, _, legend, axes = _layout(LONG_LABEL, LONG_TITLE)
    assert legend.y1 <= axes.y0                       # below the axes: no data covered
    assert axes.width > Fraction(3, 4) * figure.width


def test_short_labels_stay_beside_the_data():
    _, _, legend, axes = _layout("tight loss L(eps)", "laplace: tight privacy loss L(eps)")
    assert legend.x0 >= axes.x1

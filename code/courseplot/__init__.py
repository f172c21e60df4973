"""One look for every plot of the course, and what a plot cell's checks compare.

    >>> import courseplot
    >>> courseplot.use_style()            # the deck's colours and fonts (course.mplstyle)
    >>> courseplot.plot_data(fig)         # what the figure shows, as plain data

In a lecture kernel `courseplot.setup_kernel()` runs once before the first cell: every figure a cell
shows becomes a display with SVG (slides), PDF (handout) and the plot's data (the output check).
Nothing here imports matplotlib until a cell does.
"""
from __future__ import annotations

from .mime import PLOT_MIME, STYLE_MIME
from .kernel import cell_figsize, setup_kernel
from .style import STYLE_FILE, finish, use_style

__all__ = ["PLOT_MIME", "STYLE_FILE", "STYLE_MIME", "cell_figsize", "finish", "plot_data", "plot_style",
           "setup_kernel", "use_style"]


def plot_data(fig) -> dict:
    """The data a figure shows (see courseplot.data)."""
    from .data import plot_data as extract

    return extract(fig)


def plot_style(fig) -> dict:
    """How a figure's series are drawn (see courseplot.data.plot_style)."""
    from .data import plot_style as looks

    return looks(fig)

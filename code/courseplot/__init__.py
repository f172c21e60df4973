"""One look for every plot of the course, and what a plot cell's checks compare.

    >>> import courseplot
    >>> courseplot.use_style()            # the deck's colours and fonts (done once per kernel)
    >>> courseplot.plot_data(fig)         # what the figure shows, as plain data

In a lecture kernel `courseplot.setup_kernel()` runs once before the first cell: every figure a cell
shows becomes a display with SVG (slides), PDF (handout) and the plot's data (the output check).
"""
from __future__ import annotations

from .data import PLOT_MIME, plot_data
from .style import STYLE, use_style
from .kernel import cell_figsize, setup_kernel

__all__ = ["PLOT_MIME", "STYLE", "cell_figsize", "plot_data", "setup_kernel", "use_style"]

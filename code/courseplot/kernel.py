"""Figures in a lecture kernel: SVG for the slides, PDF for the handout, the plot's data for the check.

matplotlib's inline backend (MPLBACKEND=module://matplotlib_inline.backend_inline) shows every figure
a cell made when the cell ends or calls plt.show(); a figure as the cell's last expression shows as
its result. Both go through IPython's display formatters, which this module sets once per kernel.
"""
from __future__ import annotations

import io

from .data import PLOT_MIME, plot_data
from .style import STYLE, use_style

# No date, no producer version: the same figure gives the same bytes on every run and machine.
_SAVE = {"svg": {"metadata": {"Date": None, "Creator": None}},
         "pdf": {"metadata": {"CreationDate": None, "Creator": None, "Producer": None}}}


def figure_bytes(fig, fmt: str) -> bytes:
    """The figure as `fmt` (svg, pdf, png), trimmed to its content like the inline backend does."""
    buffer = io.BytesIO()
    fig.canvas.print_figure(buffer, format=fmt, bbox_inches="tight", facecolor=fig.get_facecolor(),
                            **_SAVE.get(fmt, {}))
    return buffer.getvalue()


def cell_figsize(width: float | None = None, height: float | None = None) -> None:
    """A cell's `#| fig-width` / `#| fig-height` (inches); no arguments restore the course default."""
    import matplotlib as mpl

    default_w, default_h = STYLE["figure.figsize"]
    mpl.rcParams["figure.figsize"] = (width or default_w, height or default_h)


def setup_kernel() -> None:
    """Style plus display formatters; run once, before a lecture's first cell."""
    # Importing the backend now (pyplot would on the first figure) lets it register its PNG
    # formatter first, so ours below replace it rather than the other way round.
    import matplotlib_inline.backend_inline  # noqa: F401
    import matplotlib.pyplot as plt
    from IPython import get_ipython
    from IPython.core.formatters import JSONFormatter
    from matplotlib.figure import Figure
    from traitlets import Unicode

    use_style()
    shell = get_ipython()
    if shell is None:
        return

    class PlotDataFormatter(JSONFormatter):
        format_type = Unicode(PLOT_MIME)

    formatters = shell.display_formatter.formatters
    for mime in ("image/png", "image/jpeg", "image/svg+xml", "application/pdf", PLOT_MIME):
        if mime in formatters:
            formatters[mime].pop(Figure, None)
    formatters["image/svg+xml"].for_type(Figure, lambda fig: figure_bytes(fig, "svg").decode("utf-8"))
    formatters["application/pdf"].for_type(Figure, lambda fig: figure_bytes(fig, "pdf"))
    formatters[PLOT_MIME] = PlotDataFormatter(parent=shell.display_formatter)
    formatters[PLOT_MIME].for_type(Figure, lambda fig: _shown(fig, plt))


def _shown(fig, plt) -> dict:
    """The plot data of a figure being displayed. Displayed once is enough: a figure that is the
    cell's result would otherwise show a second time when the backend flushes the cell's figures."""
    data = plot_data(fig)
    plt.close(fig)
    return data

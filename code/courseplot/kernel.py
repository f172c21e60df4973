"""Figures in a lecture kernel: SVG for the slides, PDF for the handout, the plot's data for the check.

matplotlib's inline backend (MPLBACKEND=module://matplotlib_inline.backend_inline) shows every figure
a cell made when the cell ends or calls plt.show(); a figure as the cell's last expression shows as
its result. Both go through IPython's display formatters. `setup_kernel()` arranges all of it
without importing matplotlib (a lecture that draws nothing pays nothing): the style file is loaded
by matplotlib's own import, and the formats take effect when the backend starts.
"""
from __future__ import annotations

import io
import os
import re
import sys

from .mime import PLOT_MIME, STYLE_MIME
from .style import STYLE_FILE, use_style

FORMATS = {"svg", "pdf"}
# No producer name in the files, and a fixed date (matplotlib reads SOURCE_DATE_EPOCH for both SVG
# and PDF): the same figure gives the same bytes on every run.
PRINT_KWARGS = {"bbox_inches": "tight", "metadata": {"Creator": None}}
_saved_figsize = []


def figure_bytes(fig, fmt: str) -> bytes:
    """The figure as `fmt` (svg, pdf, png), trimmed to its content like the inline backend does."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    buffer = io.BytesIO()
    fig.canvas.print_figure(buffer, format=fmt, facecolor=fig.get_facecolor(), **PRINT_KWARGS)
    return buffer.getvalue()


def cell_figsize(width: float | None = None, height: float | None = None) -> None:
    """A cell's `#| fig-width` / `#| fig-height` (inches); no arguments restore the size before."""
    import matplotlib as mpl

    if width is None and height is None:
        if _saved_figsize:
            mpl.rcParams["figure.figsize"] = _saved_figsize.pop()
        return
    default_w, default_h = mpl.rcParams["figure.figsize"]
    _saved_figsize.append((default_w, default_h))
    mpl.rcParams["figure.figsize"] = (width or default_w, height or default_h)


FIG_OPTION = re.compile(r"^#\|\s*fig-(width|height):\s*([0-9.]+)\s*$", re.M)


def _size_from_options(info) -> None:
    """A cell that carries its `#| fig-width` / `#| fig-height` lines (the executed notebook's cells do)
    gets that figure size in any kernel, so nbval or Quarto re-running the notebook draws the same
    figure bytes as the lecture's own kernel (which sets the size from the options it read)."""
    found = dict(FIG_OPTION.findall(getattr(info, "raw_cell", "") or ""))
    _sized_by_options.append(bool(found))
    if found:
        cell_figsize(float(found["width"]) if "width" in found else None,
                     float(found["height"]) if "height" in found else None)


def _restore_size(result=None) -> None:
    if _sized_by_options and _sized_by_options.pop():
        cell_figsize()


_sized_by_options = []


def _shown(fig) -> dict:
    """The plot data of a figure being displayed. Displayed once is enough: a figure that is the
    cell's result would otherwise show a second time when the backend flushes the cell's figures."""
    import matplotlib.pyplot as plt

    from .data import plot_data

    data = plot_data(fig)
    plt.close(fig)
    return data


def _looks(fig) -> dict:
    """How the displayed figure's series are drawn (after the course style finished it)."""
    from .data import plot_style
    from .style import finish

    finish(fig)
    return plot_style(fig)


def setup_kernel() -> None:
    """Style, figure formats and plot data for every figure this kernel shows; run once, first."""
    from IPython import get_ipython
    from IPython.core.formatters import JSONFormatter
    from traitlets import Unicode

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    if "matplotlib" in sys.modules:
        use_style()
    else:
        os.environ["MATPLOTLIBRC"] = str(STYLE_FILE)  # read by `import matplotlib`
    shell = get_ipython()
    if shell is None:
        return

    class PlotDataFormatter(JSONFormatter):
        format_type = Unicode(PLOT_MIME)

    class PlotStyleFormatter(JSONFormatter):
        format_type = Unicode(STYLE_MIME)

    if _size_from_options not in shell.events.callbacks["pre_run_cell"]:
        shell.events.register("pre_run_cell", _size_from_options)
        shell.events.register("post_run_cell", _restore_size)
    formatters = shell.display_formatter.formatters
    # The look first: the data formatter closes the figure.
    formatters[STYLE_MIME] = PlotStyleFormatter(parent=shell.display_formatter)
    formatters[STYLE_MIME].for_type_by_name("matplotlib.figure", "FigureBase", _looks)
    formatters[PLOT_MIME] = PlotDataFormatter(parent=shell.display_formatter)
    # Registered for Figure's base class: the backend, when it starts, removes every formatter's
    # entry for Figure itself.
    formatters[PLOT_MIME].for_type_by_name("matplotlib.figure", "FigureBase", _shown)
    if "matplotlib_inline.backend_inline" in sys.modules:  # the backend already runs: set it now
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats(*FORMATS, **PRINT_KWARGS)
    else:  # read by the backend when it starts
        shell.config.InlineBackend.figure_formats = set(FORMATS)
        shell.config.InlineBackend.print_figure_kwargs = dict(PRINT_KWARGS)

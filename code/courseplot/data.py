"""What a figure shows, as plain data: the output check compares this, never the pixels.

Per axes: title, axis labels, limits and scales, category tick labels, legend texts, and every
artist that carries data:
lines (x, y), bars (left edge, width, height; histograms are bars), scatter points (x, y), texts
(string and position) and images (shape, min, max). Numbers are rounded to 6 significant digits, the
precision a reader can see, so the data is the same text on every run.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.category import StrCategoryFormatter
from matplotlib.image import AxesImage
from matplotlib.ticker import FixedFormatter

from .mime import PLOT_MIME, STYLE_MIME  # noqa: F401  (re-exported)
DIGITS = 6


def _num(value: Any) -> float | int | str | None:
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    rounded = float(f"{value:.{DIGITS}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def _nums(values: Any) -> list:
    return [_num(v) for v in np.asarray(values, dtype=float).ravel()]


def _series_label(artist, kind: str, index: int) -> str:
    label = artist.get_label() or ""
    # matplotlib names unlabelled artists `_child3`, `_line0`: a position says more.
    return label if label and not label.startswith("_") else f"{kind} {index}"


def _axes_data(ax) -> dict:
    data: dict[str, Any] = {}
    for key, text in (("title", ax.get_title()), ("title-left", ax.get_title("left")),
                      ("title-right", ax.get_title("right")), ("xlabel", ax.get_xlabel()),
                      ("ylabel", ax.get_ylabel())):
        if text:
            data[key] = text
    data["xlim"] = _nums(ax.get_xlim())
    data["ylim"] = _nums(ax.get_ylim())
    for axis in ("x", "y"):
        scale = getattr(ax, f"get_{axis}scale")()
        if scale != "linear":
            data[f"{axis}scale"] = scale
    for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        # Named categories (bar names) or labels the author fixed are what the reader sees; numeric
        # tick labels only restate the limits.
        # (The course style may wrap the formatter to write its digits in Bengali: look inside.)
        formatter = getattr(axis.get_major_formatter(), "inner", axis.get_major_formatter())
        if isinstance(formatter, (StrCategoryFormatter, FixedFormatter)):
            data[f"{axis_name}ticks"] = [t.get_text() for t in axis.get_ticklabels()]
    legend = ax.get_legend()
    if legend is not None:
        data["legend"] = [t.get_text() for t in legend.get_texts()]
    series = []
    for i, line in enumerate(ax.get_lines(), 1):
        x, y = line.get_data(orig=False)
        series.append({"kind": "line", "label": _series_label(line, "line", i), "x": _nums(x), "y": _nums(y)})
    bars_seen = set()
    for i, container in enumerate(c for c in ax.containers if isinstance(c, BarContainer)):
        patches = list(container.patches)
        bars_seen.update(map(id, patches))
        series.append({"kind": "bars", "label": _series_label(container, "bars", i + 1),
                       "x": _nums([p.get_x() for p in patches]), "width": _nums([p.get_width() for p in patches]),
                       "y": _nums([p.get_y() for p in patches]), "height": _nums([p.get_height() for p in patches])})
    for i, collection in enumerate((c for c in ax.collections if isinstance(c, PathCollection)), 1):
        offsets = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)
        series.append({"kind": "points", "label": _series_label(collection, "points", i),
                       "x": _nums(offsets[:, 0]), "y": _nums(offsets[:, 1])})
    for i, image in enumerate((im for im in ax.images if isinstance(im, AxesImage)), 1):
        array = np.asarray(image.get_array(), dtype=float)
        series.append({"kind": "image", "label": _series_label(image, "image", i), "shape": list(array.shape),
                       "min": _num(np.nanmin(array)), "max": _num(np.nanmax(array))})
    if series:
        data["series"] = series
    # An annotation (bar_label, annotate) is placed by the point it annotates.
    texts = [{"text": t.get_text(), "xy": _nums(getattr(t, "xy", None) or t.get_position())}
             for t in ax.texts if t.get_text()]
    if texts:
        data["texts"] = texts
    return data


def plot_data(fig: Figure) -> dict:
    """The data a figure shows (see the module docstring), ready for JSON."""
    data: dict[str, Any] = {}
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    if suptitle:
        data["suptitle"] = suptitle
    # Colour bars are axes too, but they only restate an image's range.
    data["axes"] = [_axes_data(ax) for ax in fig.axes if not hasattr(ax, "_colorbar")]
    return data


# ---- what tells the series apart -----------------------------------------------------------------

def _grey(color) -> float:
    """The lightness a greyscale print gives a colour (ITU-R BT.601 luma, 0 black .. 1 white)."""
    from matplotlib.colors import to_rgba

    r, g, b, a = to_rgba(color)
    return round((0.299 * r + 0.587 * g + 0.114 * b) * a + (1 - a), 3)


def _dashes(line) -> str:
    style = line.get_linestyle()
    if style in ("None", "", " ", "none"):
        return "none"
    offset, pattern = line._unscaled_dash_pattern
    return "solid" if not pattern else "dash " + " ".join(f"{x:g}" for x in pattern)


def _marker(name) -> str:
    return "none" if name in (None, "None", "", " ", "none") else str(name)


def plot_style(fig: Figure) -> dict:
    """How each series of each axes is drawn: what a greyscale print keeps of it (line dashes,
    marker, whether the marker is hollow, grey level, hatch). Series as in plot_data."""
    from matplotlib.colors import to_hex

    axes = []
    for ax in fig.axes:
        if hasattr(ax, "_colorbar"):
            continue
        series = []
        for i, line in enumerate(ax.get_lines(), 1):
            reference = line.get_transform() != ax.transData
            face = line.get_markerfacecolor()
            series.append({"kind": "reference line" if reference else "line",
                           "label": _series_label(line, "line", i), "points": len(line.get_xdata()),
                           "dashes": _dashes(line), "marker": _marker(line.get_marker()),
                           "hollow": str(face).lower() == "none", "color": to_hex(line.get_color()),
                           "grey": _grey(line.get_color())})
        for i, container in enumerate((c for c in ax.containers if isinstance(c, BarContainer)), 1):
            patches = list(container.patches)
            series.append({"kind": "bars", "label": _series_label(container, "bars", i),
                           "greys": [_grey(p.get_facecolor()) for p in patches],
                           "hatch": patches[0].get_hatch() or "" if patches else ""})
        for i, collection in enumerate((c for c in ax.collections if isinstance(c, PathCollection)), 1):
            faces = collection.get_facecolors()
            series.append({"kind": "points", "label": _series_label(collection, "points", i),
                           "marker": "path %d" % len(collection.get_paths()[0].vertices) if collection.get_paths() else "none",
                           "hollow": len(faces) == 0 or float(faces[0][3]) == 0.0,
                           "grey": _grey(faces[0]) if len(faces) else _grey(collection.get_edgecolors()[0])})
        axes.append({"series": series})
    return {"axes": axes}

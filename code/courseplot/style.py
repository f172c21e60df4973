"""The course's plot style: the deck's colours (_extensions/lecture/theme.css), the deck's fonts,
sizes readable from the back of a classroom, and output that is byte-identical run to run."""
from __future__ import annotations

import matplotlib as mpl
from cycler import cycler

INK = "#1d3557"  # headings in the deck
ACCENT = "#2c6fbb"  # the deck's accent
TEXT = "#1b1b1b"
SOFT = "#f3f5f8"
# Series colours: the deck's accent, then the theme's code colours (number, string, keyword, error).
SERIES = [ACCENT, "#b25500", "#2e7d32", "#7b1fa2", "#b3261e", INK]

STYLE: dict[str, object] = {
    # The deck writes Bengali in Noto Sans Bengali; Debian's has no Latin letters, so Latin comes
    # from Noto Sans, the same family, and symbols such as √ from DejaVu Sans (the handout's code
    # font). matplotlib falls back glyph by glyph and shapes with libraqm.
    "font.family": ["Noto Sans", "Noto Sans Bengali", "DejaVu Sans"],
    "font.size": 17,
    "axes.titlesize": 19,
    "axes.titleweight": "bold",
    "axes.titlecolor": INK,
    "axes.labelsize": 17,
    "axes.labelcolor": TEXT,
    "xtick.labelsize": 15,
    "ytick.labelsize": 15,
    "legend.fontsize": 15,
    "legend.frameon": False,
    "text.color": TEXT,
    "axes.edgecolor": "#555555",
    "axes.linewidth": 1.2,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#d5dbe3",
    "grid.linewidth": 0.9,
    "axes.axisbelow": True,
    "axes.prop_cycle": cycler(color=SERIES),
    "lines.linewidth": 3.0,
    "lines.markersize": 8,
    "patch.edgecolor": "white",
    "figure.figsize": (9.0, 4.5),  # inches, as Quarto's fig-width / fig-height
    # Titles and labels fit inside the figure size instead of growing it: fig-width means what it says.
    "figure.constrained_layout.use": True,
    "figure.facecolor": "white",
    "figure.dpi": 100,
    "savefig.facecolor": "white",
    "savefig.dpi": 200,  # a PNG, when one is asked for, is 2x sharp
    "axes.unicode_minus": True,
    # Deterministic files: fixed SVG ids, text as paths (no font needed to view the SVG, and the
    # shaped Bengali glyphs travel with it), TrueType embedded in the PDF.
    "svg.hashsalt": "courseplot",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
}


def use_style() -> None:
    """Apply the course style to matplotlib's current settings."""
    mpl.rcParams.update(STYLE)

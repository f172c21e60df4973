"""The course's plot style lives in course.mplstyle; this applies it, and finishes every figure
pyplot makes (the style's `figure.hooks`) with what a style file cannot say:

- series stay apart without colour: two lines of one axes that would share a line style get
  distinct markers (the style's cycle already gives each line its own line style and colour);
- one set of numerals per figure: when any text of the figure writes Bengali digits, the tick
  labels do too;
- log axes label their ticks as plain numbers (1, 10, 100, 0.01), not powers whose small
  exponents print below 8 pt.

All of it happens when the figure is drawn, so it sees the finished plot; none of it changes the
plot's data (courseplot.data), only how it looks.
"""
from __future__ import annotations

import re
from pathlib import Path

STYLE_FILE = Path(__file__).with_name("course.mplstyle")
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
HAS_BENGALI_DIGIT = re.compile("[০-৯]")
# Markers for lines that share a line style, in order; hollow ones are left to the author.
MARKERS = ("o", "s", "^", "D", "v", "P")
# Markers on a long line: about this many along it (at every point they would merge into a band).
MARKS_PER_LINE = 12


def use_style() -> None:
    """Apply the course style to matplotlib's current settings."""
    import matplotlib.style

    matplotlib.style.use(str(STYLE_FILE))


def prepare_figure(fig) -> None:
    """`figure.hooks` entry: finish the figure each time it is drawn (see the module docstring)."""
    draw = fig.draw

    def finishing_draw(renderer):
        finish(fig)
        return draw(renderer)

    fig.draw = finishing_draw


def finish(fig) -> None:
    """Line styles apart, one set of numerals, plain log ticks (see the module docstring)."""
    bengali = _writes_bengali_digits(fig)
    for ax in fig.axes:
        _separate_lines(ax)
        for axis in (ax.xaxis, ax.yaxis):
            _plain_log_ticks(axis)
            if bengali:
                _bengali_ticks(axis)


def _separate_lines(ax) -> None:
    lines = [line for line in ax.get_lines() if _shows_a_series(line)]
    by_style: dict = {}
    for line in lines:
        by_style.setdefault(_dash_key(line), []).append(line)
    free = [m for m in MARKERS if m not in {line.get_marker() for line in lines}]
    for same in by_style.values():
        # Lines of one dash pattern need markers that differ ("no marker" is one of them).
        seen = set()
        for line in same:
            marker = _marker_key(line)
            if marker in seen and free:
                line.set_marker(free.pop(0))
                marker = _marker_key(line)
            seen.add(marker)
    for line in lines:
        if _marker_key(line) != "none" and line.get_markevery() is None:
            n = len(line.get_xdata())
            if n > 2 * MARKS_PER_LINE:
                line.set_markevery(max(1, n // MARKS_PER_LINE))


def _marker_key(line) -> str:
    marker = line.get_marker()
    return "none" if marker in (None, "None", "", " ", "none") else str(marker)


def _shows_a_series(line) -> bool:
    """A data line, not a reference line (axhline/axvline are drawn partly in axes coordinates)."""
    return line.get_transform() == line.axes.transData and len(line.get_xdata()) > 1


def _dash_key(line):
    if line.get_linestyle() in ("None", "", " ", "none"):
        return "none"
    return tuple(line._unscaled_dash_pattern[1] or ())


def _texts(fig):
    texts = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        texts += [ax.get_title(loc) for loc in ("left", "center", "right")]
        texts += [ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += [t.get_text() for t in legend.get_texts()]
        for axis in (ax.xaxis, ax.yaxis):
            from matplotlib.ticker import FixedFormatter
            if isinstance(axis.get_major_formatter(), FixedFormatter):
                texts += list(axis.get_major_formatter().seq)
    if getattr(fig, "_suptitle", None):
        texts.append(fig._suptitle.get_text())
    return texts


def _writes_bengali_digits(fig) -> bool:
    return any(HAS_BENGALI_DIGIT.search(t or "") for t in _texts(fig))


def _plain_log_ticks(axis) -> None:
    from matplotlib.ticker import LogFormatter

    for get, set_ in ((axis.get_major_formatter, axis.set_major_formatter),
                      (axis.get_minor_formatter, axis.set_minor_formatter)):
        formatter = get()
        if isinstance(formatter, LogFormatter) and not isinstance(formatter, PlainLogFormatter):
            set_(PlainLogFormatter(formatter))


def _bengali_ticks(axis) -> None:
    for get, set_ in ((axis.get_major_formatter, axis.set_major_formatter),
                      (axis.get_minor_formatter, axis.set_minor_formatter)):
        formatter = get()
        if not isinstance(formatter, BengaliDigits):
            set_(BengaliDigits(formatter))


def _plain_number(value: float) -> str:
    """1, 10, 0.01; thousands grouped as the course writes them (2,35,146)."""
    if value >= 1 and float(value).is_integer():
        digits = str(int(value))
        head, tail = digits[:-3], digits[-3:]
        groups = []
        while len(head) > 2:
            groups.insert(0, head[-2:])
            head = head[:-2]
        return ",".join(([head] if head else []) + groups + [tail])
    return f"{value:.6g}"


def _make_formatters():
    from matplotlib.ticker import Formatter

    class Wrapping(Formatter):
        """A formatter that rewrites another's labels; the other places the ticks."""

        def __init__(self, inner):
            self.inner = inner

        def set_axis(self, axis):
            super().set_axis(axis)
            self.inner.set_axis(axis)

        def set_locs(self, locs):
            self.inner.set_locs(locs)

        def format_data_short(self, value):
            return self.inner.format_data_short(value)

    class PlainLog(Wrapping):
        """A log axis's own choice of which ticks get a label, each written as a plain number."""

        def __call__(self, x, pos=None):
            return _plain_number(x) if self.inner(x, pos) else ""

    class Bengali(Wrapping):
        """Another formatter's labels in Bengali digits."""

        def format_ticks(self, values):
            return [label.translate(BN_DIGITS) for label in self.inner.format_ticks(values)]

        def __call__(self, x, pos=None):
            return self.inner(x, pos).translate(BN_DIGITS)

        def get_offset(self):
            return self.inner.get_offset().translate(BN_DIGITS)

    return PlainLog, Bengali


class _Lazy:
    """The formatter classes, made on first use: importing courseplot imports no matplotlib."""

    def __init__(self, index):
        self.index = index

    def __instancecheck__(self, obj):
        return isinstance(obj, _make_formatters_cached()[self.index])

    def __call__(self, *args):
        return _make_formatters_cached()[self.index](*args)


_made = []


def _make_formatters_cached():
    if not _made:
        _made.extend(_make_formatters())
    return _made


PlainLogFormatter = _Lazy(0)
BengaliDigits = _Lazy(1)

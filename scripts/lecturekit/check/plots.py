"""A plot's expectation is the data it shows, never its pixels.

The kernel adds the figure's data to its display bundle (`application/vnd.lecture.plot+json`, made by
code/courseplot/data.py). Here it becomes text, one line per thing a reader sees, each line named by
its axes and series, so the existing comparison (numbers within the cell's `#| tolerance:`) applies
and a diff names the series that changed:

    axes 1 title: ক্ষতি কমছে
    axes 1 xlim: -0.15 3.15
    axes 1 line 'প্রশিক্ষণ' x[0:4]: 0 1 2 3
    axes 1 line 'প্রশিক্ষণ' y[0:4]: 4.0 2.5 1.5 1.2

Fonts, anti-aliasing and the SVG/PDF bytes are not part of it, so they never fail a check.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

PLOT_MIME = "application/vnd.lecture.plot+json"
CHUNK = 10  # numbers per line: a long series diffs as the part that changed
SERIES_FIELDS = ("x", "y", "width", "height")


def _num(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _numbers(values: Iterable[Any]) -> str:
    return " ".join(_num(v) for v in values)


def _series_lines(prefix: str, series: dict[str, Any]) -> list[str]:
    name = f"{prefix} {series['kind']} '{series['label']}'"
    if series["kind"] == "image":
        return [f"{name} shape: {_numbers(series['shape'])}", f"{name} range: {_num(series['min'])} {_num(series['max'])}"]
    lines = []
    for field in SERIES_FIELDS:
        values = series.get(field)
        if values is None:
            continue
        if not values:
            lines.append(f"{name} {field}: (empty)")
        for start in range(0, len(values), CHUNK):
            part = values[start:start + CHUNK]
            lines.append(f"{name} {field}[{start}:{start + len(part)}]: {_numbers(part)}")
    return lines


def plot_text(data: dict[str, Any]) -> str:
    """The plot data as the text stored in tests/expected/ (see the module docstring)."""
    lines = []
    if data.get("suptitle"):
        lines.append(f"suptitle: {data['suptitle']}")
    for i, axes in enumerate(data.get("axes", []), 1):
        prefix = f"axes {i}"
        for key in ("title", "title-left", "title-right", "xlabel", "ylabel", "xscale", "yscale"):
            if axes.get(key):
                lines.append(f"{prefix} {key}: {axes[key]}")
        for key in ("xlim", "ylim"):
            lines.append(f"{prefix} {key}: {_numbers(axes[key])}")
        for key in ("xticks", "yticks"):
            if key in axes:
                lines.append(f"{prefix} {key}: " + " | ".join(axes[key]))
        if "legend" in axes:
            lines.append(f"{prefix} legend: " + " | ".join(axes["legend"]))
        for series in axes.get("series", []):
            lines.extend(_series_lines(prefix, series))
        for text in axes.get("texts", []):
            lines.append(f"{prefix} text at {_numbers(text['xy'])}: {text['text']}")
    return "\n".join(lines) + "\n"


def _line_name(line: str) -> str:
    """`axes 1 line 'train' y[0:10]: …` -> `axes 1 line 'train' y`."""
    key = line.split(":", 1)[0] if ": " in line else line
    return key.split("[", 1)[0] if key.endswith("]") else key


def changed_parts(expected_items: list[dict[str, Any]], got_items: list[dict[str, Any]],
                  texts_match: Callable[[str, str], bool]) -> list[str]:
    """Names of the plot parts (series, titles, limits) whose lines differ, in order."""
    def lines(items: list[dict[str, Any]]) -> dict[str, str]:
        found: dict[str, str] = {}
        for n, item in enumerate(i for i in items if "figure-data" in i):
            for line in item["figure-data"].splitlines():
                key = f"figure {n + 1} {line.split(':', 1)[0]}"
                found[key] = line
        return found

    before, after = lines(expected_items), lines(got_items)
    changed = []
    for key in list(before) + [k for k in after if k not in before]:
        old, new = before.get(key), after.get(key)
        if old is None or new is None or not texts_match(old, new):
            name = _line_name(key)
            if name not in changed:
                changed.append(name)
    return changed

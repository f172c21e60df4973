"""Executed outputs -> the comparable items stored in tests/expected/.

A cell's outputs become a list of one-key items, in order:
  stdout / stderr   the stream's text (consecutive writes merged; within one run of writes, all of
                    stdout before all of stderr, since the kernel may interleave the two differently)
  result / display  the text/plain of an execute_result / display_data
  figure-dot        a figure with DOT source (text/vnd.graphviz): the source, never the pixels
  figure-data       a matplotlib figure: the data it shows (check/plots.py), never the pixels
  figure            a figure without such data (PNG, SVG, PDF): its text/plain
  error + message   a raised exception: its type (ename) and its message (evalue); not the traceback

Normalisers (NORMALISERS, by name), applied to every text before it is stored or compared (and to
nothing else):
  1. strip-colour: ANSI colour and cursor codes are removed.
  2. hide-addresses: memory addresses (0x and 8-16 hex digits, as in `<object at 0x7f3a2c1b4d90>`) become `0x…`.
  3. hide-folders: the project folder becomes `<project>`; a site-packages folder becomes `<site-packages>`.
  4. hide-temporary-paths: temporary paths (`/tmp/tmpab12cd_x`, as made by the tempfile module) become `<tmp>`.
  5. drop-trailing-spaces: spaces at the ends of lines are dropped (invisible on a slide, and stripped by editors).
Numbers are not normalised: they are compared exactly unless the cell declares `#| tolerance:`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from lecturekit.ansi import strip_ansi
from .plots import PLOT_MIME, plot_text

# One comparable item: {"stdout": text}, {"result": text}, {"figure-data": text} …, or for a raised
# exception {"error": ename, "message": evalue}.
Item = dict[str, str]
# Where the project lies (hide-folders replaces it); None: nothing to hide.
Root = str | os.PathLike[str] | None

ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{8,16}\b")
SITE_PACKAGES = re.compile(r"[^\s\"'(),]*/(?:site|dist)-packages/")
TEMP_PATH = re.compile(r"(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/T)/tmp[a-z0-9_]{8}\b")
TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)


def strip_colour(text: str, project_root: Root = None) -> str:
    return strip_ansi(text)


def hide_addresses(text: str, project_root: Root = None) -> str:
    return ADDRESS.sub("0x…", text)


def hide_folders(text: str, project_root: Root = None) -> str:
    if project_root:
        text = text.replace(str(project_root), "<project>")
    return SITE_PACKAGES.sub("<site-packages>/", text)


def hide_temporary_paths(text: str, project_root: Root = None) -> str:
    return TEMP_PATH.sub("<tmp>", text)


def drop_trailing_spaces(text: str, project_root: Root = None) -> str:
    return TRAILING_SPACE.sub("", text)


# The registry: every normaliser, by name, in the order they apply (the module docstring's list).
NORMALISERS: dict[str, Callable[[str, Root], str]] = {
    "strip-colour": strip_colour,
    "hide-addresses": hide_addresses,
    "hide-folders": hide_folders,
    "hide-temporary-paths": hide_temporary_paths,
    "drop-trailing-spaces": drop_trailing_spaces,
}


def normalise(text: str, project_root: Root = None) -> str:
    """Apply the documented normalisers to one text."""
    for normaliser in NORMALISERS.values():
        text = normaliser(text, project_root)
    return text


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _data_item(output_type: str, data: dict[str, Any]) -> Item:
    if "text/vnd.graphviz" in data:
        return {"figure-dot": _text(data["text/vnd.graphviz"])}
    if PLOT_MIME in data:
        return {"figure-data": plot_text(data[PLOT_MIME])}
    if any(m.startswith("image/") or m == "application/pdf" for m in data):
        return {"figure": _text(data.get("text/plain", ""))}
    if "text/plain" in data:
        return {("result" if output_type == "execute_result" else "display"): _text(data["text/plain"])}
    return {"display": "<" + ", ".join(sorted(data)) + ">"}


def output_items(outputs: list[dict[str, Any]], project_root: Root = None) -> list[Item]:
    """A code cell's nbformat outputs -> normalised items (see the module docstring)."""
    items: list[Item] = []
    streams: dict[str, str] = {}

    def flush() -> None:
        for name in ("stdout", "stderr"):
            if streams.get(name):
                items.append({name: streams[name]})
        streams.clear()

    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            streams[out.get("name", "stdout")] = streams.get(out.get("name", "stdout"), "") + _text(out.get("text", ""))
            continue
        flush()
        if kind in ("execute_result", "display_data"):
            items.append(_data_item(kind, out.get("data", {})))
        elif kind == "error":
            items.append({"error": out.get("ename", ""), "message": _text(out.get("evalue", ""))})
    flush()
    return [{k: (normalise(v, project_root) if k != "error" else v) for k, v in item.items()} for item in items]


def item_kind(item: Item) -> str:
    return "error" if "error" in item else next(iter(item))


def item_text(item: Item) -> str:
    return item["message"] if "error" in item else item[item_kind(item)]


def as_lines(items: list[Item] | None) -> list[str]:
    """Items as the lines a diff shows: a `[kind]` line, then the text."""
    lines: list[str] = []
    for item in items or []:
        kind = item_kind(item)
        lines.append(f"[error {item['error']}]" if kind == "error" else f"[{kind}]")
        text = item_text(item)
        lines.extend(text[:-1].split("\n") if text.endswith("\n") else text.split("\n"))
    return lines

"""Executed notebook -> pandoc markdown, in the cell structure Quarto itself produces.

Quarto turns a Jupyter cell into `::: {.cell}` holding a `.cell-code` block and `.cell-output-*`
divs. We emit the same structure, so the shared Lua filters see one shape under both renderers.
Outputs are shown as text (never as HTML), so whatever a cell prints cannot run in the slides.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from lecturekit.ansi import strip_ansi
from lecturekit.fsutil import write_if_changed
from lecturekit.write.figures import CellFigure, cell_figures, figure_bytes
from lecturekit.write.formats import Format

MIME_SUFFIX = {"image/svg+xml": ".svg", "image/png": ".png", "application/pdf": ".pdf"}

def _fence(text: str, info: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}\n"


def _attr_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _text_output(kind: str, text: str, classes: str = "") -> str:
    # `class-output` (Quarto's option) classes the printed text, e.g. `python` for printed source.
    info = "{" + " ".join("." + c for c in classes.split()) + "}" if classes and kind != "error" else ""
    return f"::: {{.cell-output .cell-output-{kind}}}\n" + _fence(strip_ansi(text), info) + ":::\n"


def join_parts(parts: Iterable[str]) -> str:
    """The document from its cells' markdown: a blank line between blocks."""
    return "\n\n".join(p.rstrip("\n") for p in parts if p.strip()) + "\n"


class MarkdownEmitter:
    """Emit one format's markdown; figure files land in `figures_dir` (figures/<lecture>/), linked
    relative to `markdown_dir`, where the markdown is written (pandoc and Typst resolve from there).
    Which of a cell's figure renderings goes in is the format's choice (`Format.figure_mimes`)."""

    def __init__(self, fmt: Format, figures_dir: Path, echo_default: bool = True, markdown_dir: Path | None = None):
        self.fmt = fmt
        self.figures_dir = Path(figures_dir)
        self.markdown_dir = Path(markdown_dir) if markdown_dir else self.figures_dir.parent
        self.echo_default = echo_default

    def emit(self, nb: NotebookNode) -> str:
        return join_parts(text for _cell, text in self.parts(nb))

    def parts(self, nb: NotebookNode) -> list[tuple[NotebookNode, str]]:
        """Each cell with its markdown ("" for a cell that shows nothing), in order."""
        parts: list[tuple[NotebookNode, str]] = []
        for cell, figures in zip(nb.cells, cell_figures(nb)):
            if cell.cell_type == "raw":
                parts.append((cell, cell.source + "\n"))
            elif cell.cell_type == "markdown":
                parts.append((cell, cell.source))
            else:
                self._names = {f.output_index: f for f in figures}
                parts.append((cell, self._code_cell(cell)))
        return parts

    def _code_cell(self, cell: NotebookNode) -> str:
        meta = cell.metadata.get("lecture", {})
        options = meta.get("options", {})
        if options.get("include") is False:
            return ""
        label: str | None = options.get("label")
        code = "\n".join(line for line in cell.source.split("\n") if not line.startswith("#|")).strip("\n")
        out: list[str] = []
        if options.get("echo", self.echo_default):
            attrs = [".python", ".cell-code"]
            if "code-line-numbers" in options:
                attrs.append(f'code-line-numbers="{_attr_value(str(options["code-line-numbers"]))}"')
            out.append(_fence(code, "{" + " ".join(attrs) + "}"))
        if options.get("output", True):
            out.extend(self._outputs(cell.outputs, options, label))
        if not out:
            # Nothing to show (hidden code, no output): no empty block either, as in Quarto's
            # products, where it would add a block's spacing to the page.
            return ""
        head = "::: {.cell" + (f" cell-label=\"{_attr_value(label)}\"" if label else "") + "}\n"
        return head + "\n".join(out) + ":::\n"

    def _outputs(self, outputs: list[dict[str, Any]], options: dict[str, Any], label: str | None) -> list[str]:
        rendered: list[str | tuple[str, list[str]]] = []
        stream: tuple[str, list[str]] | None = None
        for index, output in enumerate(outputs):
            kind = output.get("output_type")
            if kind == "stream":
                # Consecutive writes to one stream read as one block, as in a terminal.
                if stream and stream[0] == output["name"]:
                    stream[1].append(output["text"])
                    continue
                stream = (output["name"], [output["text"]])
                rendered.append(stream)
                continue
            stream = None
            if kind == "error":
                rendered.append(_text_output("error", f"{output['ename']}: {output['evalue']}"))
            elif kind in ("execute_result", "display_data"):
                rendered.append(self._display(output.get("data", {}), options, self._names.get(index)))
        classes = options.get("class-output", "")
        return [_text_output(item[0], "".join(item[1]), classes if item[0] == "stdout" else "")
                if isinstance(item, tuple) else item for item in rendered if item]

    def _display(self, data: dict[str, Any], options: dict[str, Any], figure: CellFigure | None) -> str:
        for mime in self.fmt.figure_mimes:
            if mime in data and figure:
                return self._figure(mime, data[mime], data.get("text/plain", ""), options, figure)
        if "text/plain" in data:
            return _text_output("display", data["text/plain"])
        return ""

    def _figure(self, mime: str, payload: str | list[str], alt: str, options: dict[str, Any],
                figure: CellFigure) -> str:
        path = self.figures_dir / f"{figure.name}{MIME_SUFFIX[mime]}"
        write_if_changed(path, figure_bytes(mime, payload))
        link = Path(os.path.relpath(path, self.markdown_dir)).as_posix()
        label: str = options.get("label") or ""
        first = figure.position == 1
        # The cell's caption and id go with its first figure (ids are unique; @fig- points there);
        # further figures of the cell are images with the same alt text.
        caption = options.get("fig-cap", "") if first else ""
        # matplotlib's text/plain (`<Figure size …>`) describes nothing; modtree's is a description.
        alt = options.get("fig-alt") or ("" if alt.startswith("<Figure") else alt) or options.get("fig-cap", "")
        ident = f"#{label} " if label.startswith("fig-") and first else ""
        return (f"![{caption}]({link}){{{ident}fig-alt=\"{_attr_value(alt)}\"}}\n")

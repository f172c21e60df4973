"""figures/<lecture>/: every figure a lecture's cells show, as files a reviewer sees change.

Names come from the cell: its label (`fig-loss`, then `fig-loss-2` … for more figures in one cell);
an unlabelled cell is named by its section file and its place there (`03-linear-cell4`), so two
unlabelled cells never share a file. Each figure is written in every format the cell produced (SVG
for the slides, PDF for the handout), only when its bytes changed, so an unchanged re-render leaves
the files (and git) alone. `.generated` lists what the render wrote: a figure whose cell went away is
removed, and a hand-drawn figure (never listed) is never touched.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lecturekit.errors import LectureError
from lecturekit.fsutil import write_if_changed

FIGURES_DIR = "figures"
MANIFEST = ".generated"
FIGURE_MIMES = {"image/svg+xml": ".svg", "application/pdf": ".pdf", "image/png": ".png"}


@dataclass(frozen=True)
class CellFigure:
    """One figure output of one cell."""
    name: str  # file name without suffix
    data: dict[str, Any]  # its display bundle
    output_index: int  # position among the cell's outputs
    position: int  # 1 for the cell's first figure, 2 for its second …


def is_figure(output: dict[str, Any]) -> bool:
    return output.get("output_type") in ("display_data", "execute_result") and any(
        mime in output.get("data", {}) for mime in FIGURE_MIMES)


def figure_bytes(mime: str, payload: str | list[str]) -> bytes:
    text = payload if isinstance(payload, str) else "".join(payload)
    return text.encode("utf-8") if mime == "image/svg+xml" else base64.b64decode(text)


def _section_stem(file: str | None) -> str:
    return Path(file or "lecture").stem.lstrip("_") or "lecture"


def cell_figures(nb: Any) -> list[list[CellFigure]]:
    """For every cell of the executed notebook (in order), its figures with their file names."""
    per_file: dict[str, int] = {}
    names: dict[str, str] = {}  # name -> where it came from, to refuse a clash
    result = []
    for cell in nb.cells:
        figures: list[CellFigure] = []
        if cell.cell_type == "code":
            meta = cell.metadata.get("lecture", {})
            file = meta.get("file")
            per_file[file] = per_file.get(file, 0) + 1
            base = meta.get("label") or f"{_section_stem(file)}-cell{per_file[file]}"
            for index, output in enumerate(cell.get("outputs", [])):
                if not is_figure(output):
                    continue
                name = base if not figures else f"{base}-{len(figures) + 1}"
                where = f"{file}:{meta.get('line')}"
                if name in names:
                    raise LectureError(f"figure name '{name}' is also the name of a figure at {names[name]}; "
                                       "give this cell another label", file, meta.get("line"), meta.get("label"))
                names[name] = where
                figures.append(CellFigure(name, dict(output.get("data", {})), index, len(figures) + 1))
        result.append(figures)
    return result


def lecture_figures_dir(project_root: Path, lecture_name: str) -> Path:
    return Path(project_root) / FIGURES_DIR / lecture_name


def _plain_name(name: str) -> bool:
    """One file name inside the folder: no separator, no '..', not hidden."""
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".") and "\0" not in name


def write_figures(nb: Any, project_root: Path, lecture_name: str) -> list[Path]:
    """Write every figure of the notebook to figures/<lecture>/; return the files that changed.

    Only files named in `.generated` are ever overwritten or removed: a hand-drawn figure with a
    cell's name is an error, not lost, and nothing is written outside the folder."""
    folder = lecture_figures_dir(project_root, lecture_name)
    manifest = folder / MANIFEST
    try:
        before = manifest.read_text(encoding="utf-8").split() if manifest.exists() else []
    except (OSError, UnicodeDecodeError):
        before = []
    writes = []
    for figures in cell_figures(nb):
        for figure in figures:
            for mime, suffix in FIGURE_MIMES.items():
                if mime not in figure.data:
                    continue
                name = f"{figure.name}{suffix}"
                if not _plain_name(name):
                    raise LectureError(f"figure name '{name}' is not a plain file name; give the cell a label "
                                       "of ASCII letters, digits, '-' and '_'", *figures_where(nb, figure))
                path = folder / name
                data = figure_bytes(mime, figure.data[mime])
                if name not in before and path.exists() and path.read_bytes() != data:
                    raise LectureError(f"{path} was not written by a render (a hand-drawn figure?) and a cell's "
                                       f"figure has its name; give the cell another label",
                                       *figures_where(nb, figure))
                writes.append((path, data))
    wanted, changed = [], []
    for path, data in writes:
        wanted.append(path.name)
        if write_if_changed(path, data):
            changed.append(path)
    for stale in set(before) - set(wanted):
        if _plain_name(stale):  # a tampered list never reaches outside the folder
            (folder / stale).unlink(missing_ok=True)
    if wanted or before:
        write_if_changed(manifest, "".join(f"{name}\n" for name in sorted(wanted)).encode("utf-8"))
    return changed


def figures_where(nb: Any, figure: CellFigure) -> tuple[str | None, int | None, str | None]:
    """(file, line, label) of the cell a figure came from, for messages."""
    for cell, figures in zip(nb.cells, cell_figures(nb)):
        if figure in figures:
            meta = cell.metadata.get("lecture", {})
            return meta.get("file"), meta.get("line"), meta.get("label")
    return None, None, None

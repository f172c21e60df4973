"""Every file an option names lies inside the project, and none is a URL.

Quarto, pandoc and Typst read the files that options name (a stylesheet or an include embedded in the
deck, a template, a bibliography, a highlighting theme …), and pandoc's `--embed-resources` fetches a
URL. So an option that names a file, wherever it is set (a lecture's front matter, `_quarto.yml`, at
the top or under `format:`), is a path, relative, and inside the project with links followed, from
every folder a renderer resolves it from: the project (scripts/render), the lecture's folder (Quarto's
render of a source), `_build/<lecture>/` (Quarto's render of the executed notebook); the project's
npm packages (`node_modules`, which may be a link to a shared folder) count as inside. A plain name
(`serif`, `idiomatic`, `lecture`) is a renderer's own theme, style or extension, no path. The render
reads nothing outside the project and makes no network request. (Images and attributes that load
files are the markdown's: read/markup.py.)
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lecturekit.errors import LectureError
from lecturekit.read.markup import LOADS, url_scheme

# Quarto's options that name files (any format, the top level, `project:`).
FILE_OPTIONS = frozenset({
    "css", "include-in-header", "include-before-body", "include-after-body", "include-before", "include-after",
    "template", "template-partials", "reference-doc", "bibliography", "csl", "citation-abbreviations",
    "metadata-files", "filters", "shortcodes", "image", "logo", "resource-path", "resources",
    "syntax-definitions", "syntax-highlighting", "highlight-style", "theme", "highlightjs-theme", "brand",
    "output-dir", "lib-dir", "preview-image", "cover-image", "favicon",
})
# Options named relative to the rendered document's folder, whichever file sets them.
DOCUMENT_RELATIVE = frozenset({("html-math-method", "url")})
# A renderer's own theme, style, extension or filter, named without a path.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_+-]*")


def _files(value: Any) -> Iterator[str]:
    """The file names an option's value holds: a string, a list of them, `{path: …}` entries."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _files(item)
    elif isinstance(value, dict) and isinstance(value.get("path"), str):
        yield value["path"]


def path_problem(named: str, bases: list[Path], root: Path) -> str | None:
    """Why a file an option names may not be used, or None."""
    if NAME.fullmatch(named):
        return None
    if url_scheme(named) or named.strip().startswith("//"):
        return (f"{named} is a URL: a render reads only the project's files and makes no network request "
                "(save the file in the project and name it by its path)")
    if Path(named).is_absolute() or named.startswith("~"):
        return (f"{named} is named by an absolute path; name it relative to the file that sets it (the project "
                "must render wherever it lies)")
    # The project, and its npm packages wherever scripts/setup put them (a shared node_modules may be a link).
    inside = (root.resolve(), (root / "node_modules").resolve())
    for base in bases:
        target = (base / named).resolve()
        if not any(target.is_relative_to(folder) for folder in inside):
            return f"{named} is outside the project ({inside[0]}); options may only name files inside it"
    return None


def _walk(value: Any, key_path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(key path, value) of every option that names files, at any depth."""
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        path = key_path + (str(key),)
        name = str(key).lower()
        if name in FILE_OPTIONS or name.removeprefix("data-") in LOADS or tuple(path[-2:]) in DOCUMENT_RELATIVE:
            yield path, item
        elif isinstance(item, dict):
            yield from _walk(item, path)


def check_option_paths(options: dict[str, Any], lines: dict[tuple[str, ...], int], file: Path, root: Path,
                       bases: list[Path], document_bases: list[Path]) -> None:
    """A LectureError at the line of the first option (of a front matter or _quarto.yml) that names a
    file outside the project or a URL. `bases`: the folders it is resolved from; `document_bases`:
    the rendered documents' folders (for options named relative to them)."""
    for key_path, value in _walk(options, ()):
        folders = document_bases if tuple(key_path[-2:]) in DOCUMENT_RELATIVE else bases
        for named in _files(value):
            problem = path_problem(named, folders, root)
            if problem:
                line = next((lines[key_path[:n]] for n in range(len(key_path), 0, -1) if key_path[:n] in lines), None)
                raise LectureError(f"'{': '.join(key_path)}': {problem}", file, line)

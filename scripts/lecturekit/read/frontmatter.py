"""A lecture's front matter: split from the source (YAML, errors at their line), checked (known keys,
no inline expressions), and as the products and the course page see it: only `title` is
required.

Every other key has a default, so `lectures/10-training/index.qmd` with nothing but a title renders:
the episode number comes from the folder's `NN-` prefix and the course name from the project. Keys
the author wrote always win; a key without a sensible default (`episodes`, `module`, `subtitle` …)
stays absent and the templates leave its part out.
"""
from __future__ import annotations

import re
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import yaml

from lecturekit import schema, yamlio
from lecturekit.errors import LectureError
from lecturekit.read.claims import INLINE_EXPR
from lecturekit.yamlio import KeyPath, key_lines, yaml_error_line, yaml_error_text

# The front matter as YAML gave it.
Meta = dict[str, Any]

COURSE = "বাংলায় PyTorch"
EPISODE_PREFIX = re.compile(r"^(\d+)(?:[-_]|$)")


def episode_from_folder(folder: str | Path) -> int | None:
    """`10-training` -> 10; a folder without a number prefix has no episode number."""
    match = EPISODE_PREFIX.match(Path(folder).name)
    return int(match.group(1)) if match else None


def with_defaults(meta: Meta, folder: str | Path) -> Meta:
    """The front matter with `title`, `course` and `episode` filled in where the author left them out."""
    full = dict(meta or {})
    full.setdefault("title", Path(folder).name)
    full.setdefault("course", COURSE)
    episode = episode_from_folder(folder)
    if full.get("episode") is None and episode is not None:
        full["episode"] = episode
    return full


# The front matter's keys and what each may hold: schemas/front-matter.yaml (Quarto keeps any key
# as metadata, so a typo would otherwise vanish without a word; `episode` is written into the
# handout's Typst code, so it is a whole number).
FRONT_MATTER_SCHEMA = "front-matter"


def front_matter_lines(text: str) -> dict[KeyPath, int]:
    """key_lines of a .qmd's front matter, as lines of the .qmd."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), len(lines))
    return key_lines("\n".join(lines[1:end]), first_line=2)


def check_front_matter(meta: Meta, meta_lines: dict[KeyPath, int], index: Path) -> None:
    """The front matter against its schema, each error at its line: an unknown key (Quarto would keep
    a mistyped key as metadata nobody reads), a value of the wrong type or range. `format:` is the
    write stage's: write/formats.py checks its names and options."""
    schema.check(meta, FRONT_MATTER_SCHEMA, index, meta_lines, what="front-matter key", line=2)
    _check_meta_text(meta, (), meta_lines, index)


def meta_texts(value: object, key_path: KeyPath, meta_lines: dict[KeyPath, int]) -> Iterator[tuple[str, str, int | None]]:
    """(key path as 'a: b', text, line in index.qmd) of every string in the front matter, each
    line by its key."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from meta_texts(item, key_path + (str(key),), meta_lines)
    elif isinstance(value, list):
        for item in value:
            yield from meta_texts(item, key_path, meta_lines)
    elif isinstance(value, str):
        yield ": ".join(key_path), value, next((meta_lines[key_path[:n]] for n in range(len(key_path), 0, -1)
                                                if key_path[:n] in meta_lines), None)


def _check_meta_text(value: object, key_path: KeyPath, meta_lines: dict[KeyPath, int], index: Path) -> None:
    """Front-matter text goes into both products as it is: an inline `{python}` there would run
    under Quarto only. (What pandoc parses of it is judged with the prose: read/markup.py.)"""
    for name, text, line in meta_texts(value, key_path, meta_lines):
        if INLINE_EXPR.search(text):
            raise LectureError(f"'{name}' holds an inline `{{python}}` expression; the front matter is not "
                               "executed (write the value, or put the sentence in the prose)", index, line)


def split_front_matter(text: str, path: Path) -> tuple[Meta, str, int]:
    """Return (metadata, body, first body line number)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            try:
                meta = yamlio.load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError as err:
                raise LectureError(f"malformed YAML front matter: {yaml_error_text(err)}",
                                   path, yaml_error_line(err) + 2) from None
            if not isinstance(meta, dict):
                raise LectureError("front matter must be a YAML mapping", path, 2)
            return meta, "\n".join(lines[i + 1:]), i + 2
    raise LectureError("front matter opened with '---' is never closed", path, 1)

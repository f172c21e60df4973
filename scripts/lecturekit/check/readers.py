"""Which prose reads a cell's results: inline expressions and claims that use a name it assigned.

Names a cell assigns come from `ast`: assignment targets (and the variable under `x.attr = …` or
`x[i] = …`), `for`/`with`/`except … as` targets, function and class definitions; not imports (a
module does not hold the cell's results). An expression reads the names it loads, less those its
own comprehensions and lambdas bind. Reading goes on through the following prose until a later
cell rebinds the name without reading it (from then on the prose reads that cell's value).
"""
from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from lecturekit.execute.record import CellRun, ClaimResult, ProseRun

MAGIC = re.compile(r"^\s*[%!?]")


@dataclass(frozen=True)
class InlineReader:
    """An inline expression that reads a cell's results, where it stands and what it printed."""
    expr: str
    value: str
    file: str
    line: int


# A claim that reads a cell's results is the record's ClaimResult, its line that of its sentence.
Reader = InlineReader | ClaimResult


def _tree(code: str) -> ast.Module | None:
    code = "\n".join("" if MAGIC.match(line) else line for line in code.split("\n"))
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def assigned_names(code: str) -> set[str]:
    tree = _tree(code)
    names: set[str] = set()
    if tree is None:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            root = _root_name(node)
            if root:
                names.add(root)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def read_names(code: str, mode: Literal["exec", "eval"] = "exec") -> set[str]:
    try:
        tree = ast.parse(code, mode=mode)
    except SyntaxError:
        return set()
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if mode == "exec":
        return loaded
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in ast.walk(n.args)
              if isinstance(a, ast.arg)}
    return loaded - local


_SOURCES: dict[str, list[str]] = {}


def forget_sources() -> None:
    _SOURCES.clear()


def source_line(file: str, start: int, needle: str, occurrence: int = 0) -> int:
    """The line, at or after `start`, of `file` that holds `needle` (a markdown run's recorded line is
    where the run starts, which can be blank lines before its text); `occurrence` counts earlier
    appearances of the same needle in the run to skip (one line can hold it twice)."""
    if file not in _SOURCES:
        try:
            _SOURCES[file] = Path(file).read_text(encoding="utf-8").split("\n")
        except OSError:
            _SOURCES[file] = []
    lines = _SOURCES[file]
    seen = 0
    for i in range(max(start - 1, 0), len(lines)):
        seen += lines[i].count(needle)
        if seen > occurrence:
            return i + 1
    return start


def prose_readers(runs: Sequence[CellRun | ProseRun], cell: CellRun,
                  project_root: str | os.PathLike[str]) -> list[Reader]:
    """Inline expressions and claims after `cell` (one of `runs`, the lecture in order) that read its names."""
    position = next(i for i, run in enumerate(runs) if run is cell)
    live = assigned_names(cell.code)
    found: list[Reader] = []
    for prose in runs[position + 1:]:
        if not live:
            break
        if isinstance(prose, CellRun):
            rebound = assigned_names(prose.code) - read_names(prose.code)
            live -= rebound
            continue
        source = os.path.join(project_root, prose.file)
        # Every occurrence counts: the same expression in the slide and in the handout text is
        # two places the prose shows the value.
        occurrences: dict[str, int] = {}
        for inline in prose.inline:
            nth = occurrences.get(inline.expr, 0)
            occurrences[inline.expr] = nth + 1
            if read_names(inline.expr, "eval") & live:
                found.append(InlineReader(inline.expr, inline.value, prose.file,
                                          source_line(source, prose.line, f"{{python}} {inline.expr}`", nth)))
        for claim in prose.claims:
            if read_names(claim.expr, "eval") & live:
                found.append(replace(claim, file=prose.file, line=claim_line(source, claim.sentence, claim.line)))
    return found


def claim_line(file: str, sentence: str, line: int) -> int:
    """The source line of a claim's sentence (its recorded line is its check expression's)."""
    return source_line(file, line, "[" + sentence.split("\n")[0])

"""The upgrade report: run a lecture under a second interpreter (another venv, e.g. with the next
PyTorch) and list, per cell, whether its output differs from this environment's, and whether it
still matches tests/expected there (so "0 differ" is never followed by a failing check).

This environment's run comes from the render cache when it is valid. The other one is executed
through the same executor (`python=`) and cached under its own versions; when both environments
report the same versions the cache key cannot tell them apart, so the other one then runs uncached.
Each side is labelled with what its own kernel reported (versions with the build variant, CPU
capability, BLAS), never with this process's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from wcwidth import wcswidth

from lecturekit import inputs
from lecturekit.read import qmd
from lecturekit.execute.build import ExecutedLecture, execute_lecture, run_kernel
from lecturekit.execute.notebook import executed_notebook
from lecturekit.execute.record import ClaimResult, Environment
from .compare import items_match, short_diff, tolerance_of
from .expectations import Expectations
from .normalise import Item
from .readers import Reader, prose_readers
from .records import Versions
from .report import reader_lines, versions_text
from .run import CellCheck, cell_name, check_execution, expected_path, failed_claims, fresh_seconds, observed

if TYPE_CHECKING:
    from lecturekit.project import Project

# Exit status when the other interpreter cannot run a lecture at all (not 1: "outputs differ").
UNUSABLE = 3


class UnusablePython(Exception):
    """The interpreter given to --compare-python cannot run the lectures; the message is one line."""


@dataclass
class Row:
    name: str
    where: str
    heading: str
    differs: bool
    short: str
    here: list[Item] | None
    there: list[Item] | None
    readers: list[Reader] = field(default_factory=list)  # prose that shows what this cell computed
    expected: str = "ok"  # the other environment's output against tests/expected: ok / drift / ...


@dataclass
class Comparison:
    name: str
    python: str
    here_versions: Versions
    there_versions: Versions
    here_python: str = sys.executable
    rows: list[Row] = field(default_factory=list)
    claims_failed_there: list[ClaimResult] = field(default_factory=list)
    expected_failed_there: list[CellCheck] = field(default_factory=list)  # the other run vs tests/expected
    timing_text: str = ""

    @property
    def differing(self) -> list[Row]:
        return [r for r in self.rows if r.differs]

    @property
    def failed(self) -> bool:
        return bool(self.differing or self.claims_failed_there or self.expected_failed_there)

    @property
    def summary(self) -> str:
        return (f"{len(self.differing)} of {len(self.rows)} cells with output differ; "
                f"{len(self.expected_failed_there)} differ from tests/expected under the other environment; "
                f"{len(self.claims_failed_there)} claim(s) fail under the other environment")


def usable_python(python: str, cwd: str | None = None) -> str:
    """The interpreter's absolute path (symlinks kept: a venv's python is a link to the base one),
    or UnusablePython saying in one line what is wrong with it."""
    given = python
    path = Path(os.path.abspath(os.path.join(cwd or os.getcwd(), os.path.expanduser(python))))
    if not path.exists():
        raise UnusablePython(f"--compare-python {given}: no such file ({path})")
    if path.is_dir():
        raise UnusablePython(f"--compare-python {given}: is a directory, not an interpreter "
                             f"(give the venv's bin/python)")
    if not os.access(path, os.X_OK):
        raise UnusablePython(f"--compare-python {given}: is not executable")
    try:
        versions = inputs.versions(str(path))
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError, ValueError):
        raise UnusablePython(f"--compare-python {given}: is not a Python 3 interpreter "
                             "(it could not run the version probe)") from None
    if not versions.get("ipykernel"):
        raise UnusablePython(f"--compare-python {given}: Python {versions.get('python')} there has no ipykernel "
                             f"(install it: {given} -m pip install ipykernel)")
    if not versions.get("torch"):
        raise UnusablePython(f"--compare-python {given}: Python {versions.get('python')} there has no torch "
                             "(install the version to compare, the CPU build)")
    return str(path)


def _execute_other(project: Project, lecture_dir: Path, python: str, *, fresh: bool,
                   progress: Callable[[str], None] | None) -> ExecutedLecture:
    here, there = inputs.versions(), inputs.versions(python)
    if here != there:
        executed = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, python=python, write=False)
        assert executed is not None  # only a cached_only execution can be None
        return executed
    started = time.perf_counter()
    lecture = qmd.read_lecture(lecture_dir / "index.qmd")
    ran = run_kernel(project, lecture, python, progress, run_dir="run-other")
    execution = replace(ran, environment=Environment({**there, **ran.environment.versions}))
    nb = executed_notebook(lecture, execution, project.root)
    return ExecutedLecture(lecture, nb, False, time.perf_counter() - started, execution.timings)


def _against_expectations(project: Project, execution: ExecutedLecture,
                           expected_dir: Path | None = None) -> list[CellCheck]:
    """The other run's cells against tests/expected: the check an upgrade would face, with the same
    baseline as `scripts/check` (the files and code digests it last confirmed), so a cause names
    only the files that changed since; nothing is recorded."""
    name = execution.lecture.name
    store = Expectations(expected_path(project, name, expected_dir), name)
    if not store.exists:
        return []
    return check_execution(project, execution, expected_dir=expected_dir, update=False, expectations=store).problems


def compare_environments(project: Project, lecture_dir: Path, python: str, *, fresh: bool = False,
                         progress: Callable[[str], None] | None = None,
                         expected_dir: Path | None = None) -> Comparison:
    """`python` must have passed usable_python()."""
    mine = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    assert mine is not None  # only a cached_only execution can be None
    other = _execute_other(project, lecture_dir, python, fresh=fresh, progress=progress)
    there = other.record
    comp = Comparison(mine.lecture.name, python, mine.record.environment.versions, there.environment.versions)
    comp.expected_failed_there = _against_expectations(project, other, expected_dir)
    verdict = {r.label: r.status for r in comp.expected_failed_there}
    for index, (a, b) in enumerate(zip(mine.record.cells, there.cells), 1):
        here_items, there_items = observed(a, project.root), observed(b, project.root)
        if here_items is None or (not here_items and not there_items):
            continue
        tolerance = tolerance_of(a.options, (a.file, a.line, a.label))
        # Both runs are of the same sources: a cell's output is hidden in both or in neither.
        there_items = there_items or []
        differs = not items_match(here_items, there_items, tolerance)
        comp.rows.append(Row(cell_name(a, index), a.where, a.heading, differs,
                             short_diff(here_items, there_items) if differs else "", here_items, there_items,
                             readers=prose_readers(there.runs, b, project.root) if differs else [],
                             expected=verdict.get(a.label or "", "ok")))
    comp.claims_failed_there, _ = failed_claims(there.runs, project.root)
    how = "from cache" if mine.from_cache else "executed"
    comp.timing_text = (f"this environment: {mine.seconds:.1f} s ({how}); other: {other.seconds:.1f} s "
                        f"({'from cache' if other.from_cache else 'executed'}, fresh run "
                        f"{fresh_seconds(other.timings):.1f} s)")
    return comp


def display_width(text: str) -> int:
    """Columns a terminal gives `text` (Bengali vowel signs and virama take none)."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def pad(text: str, width: int) -> str:
    return text + " " * max(width - display_width(text), 0)


def environment_texts(comp: Comparison) -> list[str]:
    """What each side ran under: this environment, then the other."""
    return [f"this environment ({comp.here_python}): {versions_text(comp.here_versions)}",
            f"other ({comp.python}): {versions_text(comp.there_versions)}"]


def environment_lines(comp: Comparison) -> list[str]:
    return [f"[{comp.name}] {text}" for text in environment_texts(comp)]


def table(comp: Comparison) -> str:
    """The text table: label, file:line, section, differs, vs tests/expected, short diff; then the
    prose that reads each differing cell."""
    head = ("cell", "file:line", "section", "differs", "tests/expected there", "short diff")
    rows = [(r.name, r.where, r.heading, "yes" if r.differs else "no", r.expected, r.short) for r in comp.rows]
    widths = [max(display_width(str(x[i])) for x in [head] + rows) for i in range(5)]

    def fmt(row: tuple[str, ...]) -> str:
        return ("  ".join(pad(str(v), w) for v, w in zip(row[:5], widths)) + "  " + row[5]).rstrip()
    lines = environment_lines(comp) + [f"[{comp.name}] {comp.timing_text}", "", fmt(head),
                                       fmt(tuple("-" * w for w in widths) + ("-" * 10,))]
    lines += [fmt(row) for row in rows]
    lines += ["", f"[{comp.name}] {comp.summary}"]
    for row in comp.differing:
        if row.readers:
            lines.append(f"prose that reads {row.name} (values under the other environment):")
            lines += reader_lines(row.readers, "    ")
    for r in comp.expected_failed_there:
        lines.append(f"EXPECTED  {r.label} ({r.cell.where if r.cell else ''}): {r.message} under the other environment"
                     + (f"; {r.cause}" if r.cause else ""))
    for c in comp.claims_failed_there:
        lines.append(f"CLAIM  {c.file}:{c.line}  “{c.sentence}” check=\"{c.expr}\" "
                     "fails under the other environment")
    return "\n".join(lines)

"""The upgrade report: run a lecture under a second interpreter (another venv, e.g. with the next
PyTorch) and list, per cell, whether its output differs from this environment's, and whether it
still matches tests/expected there (so "0 differ" is never followed by a failing check).

This environment's run comes from the render cache when it is valid. The other one is executed
through the same executor (`python=`) and cached under its own versions; when both environments
report the same versions the cache key cannot tell them apart, so the other one then runs uncached.
Each side is labelled with what its own kernel reported (versions with the build variant, CPU
capability, BLAS), never with this process's.
"""
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from wcwidth import wcswidth

from lecturekit.execute import cache
from lecturekit.read import qmd
from lecturekit.execute.build import ExecutedLecture, execute_lecture
from lecturekit.execute.kernel import DEFAULT_TIMEOUT, LectureExecutor
from lecturekit.execute.notebook import executed_notebook
from lecturekit.execute.record import Environment
from .cause import code_digests
from .compare import items_match, short_diff, tolerance_of
from .expectations import Expectations
from .readers import prose_readers
from .report import versions_text
from .run import Checked, compare_all, expected_path, failed_claims, fresh_seconds, read_execution

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
    here: list | None
    there: list | None
    readers: list = field(default_factory=list)  # prose that shows what this cell computed
    expected: str = "ok"  # the other environment's output against tests/expected: ok / drift / ...


@dataclass
class Comparison:
    name: str
    python: str
    here_versions: dict
    there_versions: dict
    here_python: str = sys.executable
    rows: list = field(default_factory=list)
    claims_failed_there: list = field(default_factory=list)
    expected_failed_there: list = field(default_factory=list)  # CellCheck of the other run vs tests/expected
    timing_text: str = ""

    @property
    def differing(self):
        return [r for r in self.rows if r.differs]

    @property
    def failed(self):
        return bool(self.differing or self.claims_failed_there or self.expected_failed_there)

    @property
    def summary(self):
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
        versions = cache.environment_versions(str(path))
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


def _execute_other(project, lecture_dir, python, *, fresh, progress):
    here, there = cache.environment_versions(), cache.environment_versions(python)
    if here != there:
        return execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, python=python, write=False)
    started = time.perf_counter()
    lecture = qmd.read_lecture(lecture_dir / "index.qmd")
    executor = LectureExecutor(lecture, code_dir=project.code_dir, workdir=project.build_dir / lecture.name / "run-other",
                               timeout=project.setting("timeout", DEFAULT_TIMEOUT), python=python, progress=progress)
    ran = executor.run()
    execution = replace(ran, environment=Environment({**there, **ran.environment.versions}))
    nb = executed_notebook(lecture, execution, project.root)
    return ExecutedLecture(lecture, nb, False, time.perf_counter() - started, execution.timings)


def _against_expectations(project, execution, cells, entries, expected_dir=None):
    """The other run's cells against tests/expected: the check an upgrade would face."""
    name = execution.lecture.name
    store = Expectations(expected_path(project, name, expected_dir), name)
    if not store.exists:
        return []
    digests = code_digests(cells, project.code_dir)
    for cell in cells:
        cell.digests = digests.get(cell.label)
    checked = Checked(name=name, expectations=store, versions=execution.record.environment.versions,
                      from_cache=execution.from_cache, seconds=0.0, fresh_seconds=0.0, cells=cells, entries=entries)
    compare_all(checked, project.root)
    return checked.problems


def compare_environments(project, lecture_dir, python, *, fresh=False, progress=None, expected_dir=None):
    """`python` must have passed usable_python()."""
    mine = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    other = _execute_other(project, lecture_dir, python, fresh=fresh, progress=progress)
    here_cells, _ = read_execution(mine, project.root)
    there_cells, there_entries = read_execution(other, project.root)
    comp = Comparison(mine.lecture.name, python, mine.record.environment.versions,
                      other.record.environment.versions)
    comp.expected_failed_there = _against_expectations(project, other, there_cells, there_entries, expected_dir)
    verdict = {r.label: r.status for r in comp.expected_failed_there}
    for a, b in zip(here_cells, there_cells):
        if a.items is None or (not a.items and not b.items):
            continue
        tolerance = tolerance_of(a.options, (a.file, a.line, a.label))
        differs = not items_match(a.items, b.items, tolerance)
        comp.rows.append(Row(a.name, a.where, a.heading, differs, short_diff(a.items, b.items) if differs else "",
                             a.items, b.items,
                             readers=prose_readers(there_entries, b.position, project.root) if differs else [],
                             expected=verdict.get(a.label, "ok")))
    comp.claims_failed_there, _ = failed_claims(there_entries, project.root)
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


def environment_lines(comp):
    return [f"[{comp.name}] this environment ({comp.here_python}): {versions_text(comp.here_versions)}",
            f"[{comp.name}] other ({comp.python}): {versions_text(comp.there_versions)}"]


def table(comp):
    """The text table: label, file:line, section, differs, vs tests/expected, short diff; then the
    prose that reads each differing cell."""
    from .report import reader_lines
    head = ("cell", "file:line", "section", "differs", "tests/expected there", "short diff")
    rows = [(r.name, r.where, r.heading, "yes" if r.differs else "no", r.expected, r.short) for r in comp.rows]
    widths = [max(display_width(str(x[i])) for x in [head] + rows) for i in range(5)]

    def fmt(row):
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
        lines.append(f"CLAIM  {c['file']}:{c['line']}  “{c['sentence']}” check=\"{c['expr']}\" "
                     "fails under the other environment")
    return "\n".join(lines)

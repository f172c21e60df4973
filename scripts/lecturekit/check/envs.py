"""The upgrade report: run a lecture under a second interpreter (another venv, e.g. with the next
PyTorch) and list, per cell, whether its output differs from this environment's.

This environment's run comes from the render cache when it is valid. The other one is executed
through the same executor (`python=`) and cached under its own versions; when both environments
report the same versions the cache key cannot tell them apart, so the other one then runs uncached.
"""
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import cache, qmd
from ..build import Execution, execute_lecture
from ..execute import DEFAULT_TIMEOUT, LectureExecutor
from ..notebook import executed_notebook
from .compare import items_match, short_diff, tolerance_of
from .report import versions_text
from .run import fresh_seconds, read_execution, failed_claims


@dataclass
class Row:
    name: str
    where: str
    heading: str
    differs: bool
    short: str
    here: list | None
    there: list | None


@dataclass
class Comparison:
    name: str
    python: str
    here_versions: dict
    there_versions: dict
    rows: list = field(default_factory=list)
    claims_failed_there: list = field(default_factory=list)
    timing_text: str = ""

    @property
    def differing(self):
        return [r for r in self.rows if r.differs]

    @property
    def summary(self):
        return (f"{len(self.differing)} of {len(self.rows)} cells with output differ; "
                f"{len(self.claims_failed_there)} claim(s) fail under the other environment")


def _execute_other(project, lecture_dir, python, *, fresh, progress):
    here, there = cache.environment_versions(), cache.environment_versions(python)
    if here != there:
        return execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, python=python, write=False)
    started = time.perf_counter()
    lecture = qmd.read_lecture(lecture_dir / "index.qmd")
    executor = LectureExecutor(lecture, code_dir=project.code_dir, workdir=project.build_dir / lecture.name / "run-other",
                               timeout=project.setting("timeout", DEFAULT_TIMEOUT), python=python, progress=progress)
    results = executor.run()
    results["versions"] = there
    nb = executed_notebook(lecture, results, project.root)
    return Execution(lecture, nb, False, time.perf_counter() - started, results.get("timings", {}))


def compare_environments(project, lecture_dir, python, *, fresh=False, progress=None):
    python = str(Path(python))
    mine = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    other = _execute_other(project, lecture_dir, python, fresh=fresh, progress=progress)
    here_cells, _ = read_execution(mine, project.root)
    there_cells, there_entries = read_execution(other, project.root)
    comp = Comparison(mine.lecture.name, python, mine.notebook.metadata["lecture"]["versions"],
                      other.notebook.metadata["lecture"]["versions"])
    for a, b in zip(here_cells, there_cells):
        if a.items is None or (not a.items and not b.items):
            continue
        tolerance = tolerance_of(a.options, (a.file, a.line, a.label))
        differs = not items_match(a.items, b.items, tolerance)
        comp.rows.append(Row(a.name, a.where, a.heading, differs, short_diff(a.items, b.items) if differs else "",
                             a.items, b.items))
    comp.claims_failed_there, _ = failed_claims(there_entries, project.root)
    how = "from cache" if mine.from_cache else "executed"
    comp.timing_text = (f"this environment: {mine.seconds:.1f} s ({how}); other: {other.seconds:.1f} s "
                        f"({'from cache' if other.from_cache else 'executed'}, fresh run "
                        f"{fresh_seconds(other.timings):.1f} s)")
    return comp


def table(comp):
    """The text table: label, file:line, heading, differs, short diff."""
    head = ("cell", "file:line", "section", "differs", "short diff")
    rows = [(r.name, r.where, r.heading, "yes" if r.differs else "no", r.short) for r in comp.rows]
    widths = [max(len(str(x[i])) for x in [head] + rows) for i in range(4)]
    fmt = lambda row: "  ".join(str(v).ljust(w) for v, w in zip(row[:4], widths)) + "  " + row[4]
    lines = [f"[{comp.name}] this environment: {versions_text(comp.here_versions)}",
             f"[{comp.name}] other ({comp.python}): {versions_text(comp.there_versions)}",
             f"[{comp.name}] {comp.timing_text}", "", fmt(head).rstrip(), fmt(tuple("-" * w for w in widths) + ("-" * 10,)).rstrip()]
    lines += [fmt(row).rstrip() for row in rows]
    lines += ["", f"[{comp.name}] {comp.summary}"]
    for c in comp.claims_failed_there:
        lines.append(f"CLAIM  {c['file']}:{c['line']}  “{c['sentence']}” check=\"{c['expr']}\" "
                     "fails under the other environment")
    return "\n".join(lines)

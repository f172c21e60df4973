"""The execute stage: a lecture's sources -> its executed notebook, from the cache when it is valid.

It reads and executes; it writes nothing but the notebook. The products and the figures are the
write stage's, which the caller runs next (course/build/builder.py), and a format option nobody can write
is the write stage's to refuse, before this stage starts a kernel."""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lecturekit import inputs
from lecturekit.execute import cache
from lecturekit.read import qmd
from lecturekit.execute.record import CellRun, Environment, Execution, ProseRun
from lecturekit.execute.notebook import executed_notebook, write_notebook

if TYPE_CHECKING:
    from lecturekit.project import Project


@dataclass
class ExecutedLecture:
    """What one lecture's execute stage produced and what it cost."""
    lecture: qmd.Lecture
    notebook: Any  # nbformat's NotebookNode
    from_cache: bool
    seconds: float
    timings: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def record(self) -> Execution:
        """The typed execution record, as the executed notebook carries it (read once)."""
        return Execution.from_notebook(self.notebook)


def relative_paths(execution: Execution, root: Path) -> Execution:
    """Tracebacks and places name files by their path inside the project, not where the project lies
    today: the executed notebook (and so the products) of a copied project stay the same bytes."""
    prefix = str(root.resolve()) + os.sep

    def strip(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(prefix, "")
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    def output(out: dict[str, Any]) -> dict[str, Any]:
        if out.get("output_type") != "error":
            return out
        return {**out, "evalue": strip(out["evalue"]), "traceback": strip(out["traceback"])}

    runs: list[CellRun | ProseRun] = []
    for run in execution.runs:
        if isinstance(run, CellRun):
            runs.append(replace(run, file=os.path.relpath(run.file, root), outputs=[output(o) for o in run.outputs]))
        else:
            runs.append(replace(run, file=os.path.relpath(run.file, root), claims=[
                replace(c, file=os.path.relpath(c.file, root), error=strip(c.error)) for c in run.claims]))
    return replace(execution, runs=runs)


def run_kernel(project: Project, lecture: qmd.Lecture, python: Path | str | None,
               progress: Callable[[str], None] | None, run_dir: str = "run") -> Execution:
    """One execution of `lecture` in a fresh kernel of `python`, with the project's timeout and
    output limit, its places relative to the project. Nothing is stored: the caller decides."""
    # The Jupyter client is imported only when a kernel starts: a render with everything cached
    # (most renders of a course) does without it, and its import is a third of the kit's start.
    from lecturekit.execute.kernel import DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, LectureExecutor
    executor = LectureExecutor(lecture, code_dir=project.code_dir,
                               workdir=project.build_dir / lecture.name / run_dir,
                               timeout=project.setting("timeout", DEFAULT_TIMEOUT), python=python,
                               progress=progress,
                               max_output=project.setting("max-output", DEFAULT_MAX_OUTPUT))
    return relative_paths(executor.run(), project.root)


def _execute(project: Project, lecture: qmd.Lecture, key: str, versions: dict[str, Any], store: cache.ExecutionCache,
             python: Path | str | None, progress: Callable[[str], None] | None) -> Execution:
    ran = run_kernel(project, lecture, python, progress)
    # The record names what the outputs came from: versions, and what the kernel itself found
    # (CPU capability, BLAS, threads, the output-changing environment); its key and its time.
    execution = replace(ran, environment=Environment({**versions, **ran.environment.versions}, key,
                                                     int(time.time())))
    store.store(lecture.name, key, execution)
    return execution


@dataclass
class Lookup:
    """What the execute stage knows of a lecture before any kernel starts: the lecture as read, its
    cache key, and the valid cached execution (None: it must execute). A course's plan makes one per
    lecture and hands it to the worker, which reads and keys nothing again."""
    lecture: qmd.Lecture
    key: str
    versions: dict[str, Any]
    cached: Execution | None
    seconds: float


def look_up(project: Project, lecture_dir: Path, *, fresh: bool = False, python: Path | str | None = None,
            versions: dict[str, Any] | None = None) -> Lookup:
    """Read the lecture, key it, and load its cached execution (none with `fresh`)."""
    started = time.perf_counter()
    lecture = qmd.read_lecture(lecture_dir / "index.qmd", project.root)
    versions = versions or inputs.versions(python)
    key = cache.execution_key(lecture, project.code_dir, versions)
    cached = None if fresh else cache.ExecutionCache(project.build_dir / "cache").load(lecture.name, key, lecture)
    return Lookup(lecture, key, versions, cached, time.perf_counter() - started)


def complete(project: Project, found: Lookup, *, fresh: bool = False,
             progress: Callable[[str], None] | None = None, python: Path | str | None = None,
             write: bool = False) -> ExecutedLecture:
    """Execute what `found` did not find in the cache, then assemble the executed notebook (once)."""
    started = time.perf_counter()
    lecture, execution = found.lecture, found.cached
    if execution is None:
        store = cache.ExecutionCache(project.build_dir / "cache")
        # A check and a render of one lecture at once: one executes, the other then reads its entry.
        with project.lecture_lock(lecture.name):
            execution = None if fresh else store.load(lecture.name, found.key, lecture)
            from_cache = execution is not None
            if execution is None:
                execution = _execute(project, lecture, found.key, found.versions, store, python, progress)
    else:
        from_cache = True
    nb = executed_notebook(lecture, execution, project.root)
    if write:
        write_notebook(nb, project.notebook_path(lecture.name))
    return ExecutedLecture(lecture, nb, from_cache, found.seconds + time.perf_counter() - started,
                           execution.timings)


def execute_lecture(project: Project, lecture_dir: Path, *, fresh: bool = False,
                    progress: Callable[[str], None] | None = None, python: Path | str | None = None,
                    write: bool = False, versions: dict[str, Any] | None = None,
                    cached_only: bool = False) -> ExecutedLecture | None:
    """Read, then execute (or reuse the cached execution), then assemble the executed notebook.

    `write`: also write the notebook to its place in _build/ (figures and products are the write stage's);
    `versions`: the environment's versions when the caller already has them (one probe for a course);
    `cached_only`: return None instead of starting a kernel when the cache has no valid entry."""
    found = look_up(project, lecture_dir, fresh=fresh, python=python, versions=versions)
    if found.cached is None and cached_only:
        return None
    return complete(project, found, fresh=fresh, progress=progress, python=python, write=write)

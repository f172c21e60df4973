"""A course of many lectures: only the work that has to happen, as much of it at once as the cores allow.

For each lecture, cheaply and in this process: is its execution cached (the key covers its code, the
course code and the library versions), and are its products' inputs unchanged since they were written
(the executed notebook, the lecture folder, the theme, filters and writer)? A lecture with nothing to
do costs a read and a few hashes. The others go to worker processes, at most `jobs` at a time: each
executes its lecture in its own kernel (when the cache has no valid entry) and writes the products
whose inputs changed, both formats at once.

Every product's inputs are recorded in `_build/<lecture>/products.json` (course/build/products.py), the
record `quarto render` keeps too: a product either path wrote is current for the other; one that was
deleted or touched since is written again.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lecturekit import inputs
from lecturekit.course.site import course_page
from lecturekit.execute.build import ExecutedLecture, Lookup, complete, look_up
from lecturekit.errors import LectureError
from lecturekit.write.figures import write_figures
from lecturekit.execute.notebook import notebook_bytes, write_notebook
from lecturekit.project import Project, check_lecture_name
from lecturekit.course.build.products import Manifest, product_inputs, theme_digest
from lecturekit.write.formats import FORMATS, Format, check_format_options
from lecturekit.write.writers import LectureWriter

WRITER = "scripts/render"  # this path, as products.json names it


@dataclass
class LectureResult:
    """What building one lecture did and what it cost (plain data: it crosses process boundaries)."""
    name: str
    executed: bool = False
    execute_seconds: float = 0.0
    execution_timings: dict[str, Any] = field(default_factory=dict)
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    write_seconds: float = 0.0
    writer_timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    products: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    check: list[str] = field(default_factory=list)  # what the output check said (check/gate.py)


def check_outputs(project: Project, execution: ExecutedLecture, result: LectureResult, accept: bool,
                  expectations: Any = True) -> bool:
    """The outputs against tests/expected/ before anything is written; False stops the lecture.
    `expectations`: as read before the cells ran (check/gate.py: expectations_before)."""
    from lecturekit.check.gate import gate
    verdict = gate(project, execution, accept=accept, expectations=expectations)
    result.check = verdict.notes
    if not verdict.ok:
        result.error = verdict.report
    return verdict.ok


def write_products(project: Project, execution: ExecutedLecture, formats: list[Format], theme: str,
                   result: LectureResult, *, force: bool = False,
                   inputs: dict[str, str] | None = None) -> LectureResult:
    """Write the formats whose inputs changed (all with `force`), concurrently; update the manifest.
    `inputs`: each format's product inputs when the plan has computed them already."""
    name = execution.lecture.name
    data = notebook_bytes(execution.notebook)
    write_notebook(execution.notebook, project.notebook_path(name), data)
    write_figures(execution.notebook, project.root, name)
    manifest = Manifest(project, name)
    if inputs is None or not all(fmt.name in inputs for fmt in formats):
        inputs = {fmt.name: product_inputs(theme, data, execution.lecture.root, fmt.name, fmt.course_links)
                  for fmt in formats}
    todo = [fmt for fmt in formats if force or not manifest.fresh(fmt.name, inputs[fmt.name])]
    result.skipped = [fmt.name for fmt in formats if fmt not in todo]
    if not todo:
        return result
    started = time.perf_counter()
    writer = LectureWriter(project, execution)
    # Both formats at once (pandoc and Typst are child processes), swapped in together.
    products = writer.write_all(todo)
    for fmt in todo:
        manifest.record(fmt.name, fmt.product, inputs[fmt.name], WRITER)
    manifest.save()
    result.written = [fmt.name for fmt in todo]
    result.products = [str(p) for p in products]
    result.write_seconds = time.perf_counter() - started
    result.writer_timings = dict(writer.timings)
    result.warnings = list(writer.warnings)
    return result


def _worker_build(*args: Any, **kwargs: Any) -> LectureResult:
    """build_lecture in a worker process. Ctrl-C stops the kernel and children (build_lecture's
    own cleanup), then the worker leaves at once instead of taking the next lecture."""
    try:
        return build_lecture(*args, **kwargs)
    except KeyboardInterrupt:
        os._exit(130)


def _interrupt_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Ctrl-C reached this process: pass it on (the terminal may not have) and start nothing new.
    concurrent.futures offers no public way to signal its workers, hence its private fields."""
    for future in list(pool._pending_work_items.values()):
        future.future.cancel()
    for process in list((pool._processes or {}).values()):
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGINT)


@dataclass
class Plan:
    """What the course build decided for one lecture, and what it read to decide it: the worker
    builds from this, reading and keying nothing again."""
    lecture_dir: Path
    name: str
    execute: bool  # no valid cache entry (or --fresh)
    write: list[str]  # formats whose products are stale
    error: str | None = None
    seconds: float = 0.0
    check: list[str] = field(default_factory=list)
    found: Lookup | None = None  # the lecture as read, its key and cache entry (None: it could not be read)
    executed: ExecutedLecture | None = None  # its cached execution, assembled (None: it must execute)
    inputs: dict[str, str] = field(default_factory=dict)  # each format's product inputs, when known


def plan(project: Project, lecture_dirs: Iterable[Path], format_names: list[str], *, versions: dict[str, Any],
         theme: str, fresh: bool = False, execute_only: bool = False, force: bool = False,
         accept: bool = False) -> list[Plan]:
    """Per lecture: must it execute, and which products are stale? Each lecture is read, keyed and
    (when cached) assembled here, once. No kernel is started here."""
    plans = []
    formats = [FORMATS[n] for n in format_names]
    lecture_dirs = list(lecture_dirs)
    read: dict[Path, Lookup | LectureError] = {}
    for lecture_dir in lecture_dirs:
        try:
            check_lecture_name(lecture_dir)
            read[lecture_dir] = look_up(project, lecture_dir, fresh=fresh, versions=versions)
        except LectureError as err:
            read[lecture_dir] = err
    # What each lecture's page links to (its neighbours' titles), from the front matters just read:
    # an input of its products, written before they are decided.
    course_page.write_page_links(project, lecture_dirs, {d.name: f.lecture.meta for d, f in read.items() if isinstance(f, Lookup)})
    for lecture_dir in lecture_dirs:
        try:
            found = read[lecture_dir]
            if isinstance(found, LectureError):
                raise found
            # A format option nobody can write fails now, not after a kernel has run.
            check_format_options(project, found.lecture)
            execution = None if found.cached is None else complete(project, found)
        except LectureError as err:
            plans.append(Plan(lecture_dir, lecture_dir.name, False, [], str(err)))
            continue
        if execution is None:
            plans.append(Plan(lecture_dir, found.lecture.name, True, list(format_names), found=found))
            continue
        name = execution.lecture.name
        data = notebook_bytes(execution.notebook)
        stale: list[str] = []
        inputs: dict[str, str] = {}
        if execute_only:
            try:
                if project.notebook_path(name).read_bytes() != data:
                    stale = ["notebook"]
            except OSError:
                stale = ["notebook"]
        else:
            manifest = Manifest(project, name)
            inputs = {fmt.name: product_inputs(theme, data, execution.lecture.root, fmt.name, fmt.course_links)
                      for fmt in formats}
            stale = [fmt.name for fmt in formats if force or not manifest.fresh(fmt.name, inputs[fmt.name])]
        checked = None
        if not stale:  # nothing to write: the output check still runs (tests/expected may have changed)
            checked = LectureResult(name)
            check_outputs(project, execution, checked, accept)
        plans.append(Plan(lecture_dir, name, False, stale, checked.error if checked else None,
                          seconds=execution.seconds, check=checked.check if checked else [],
                          found=found, executed=execution if stale else None, inputs=inputs))
    return plans


def build_lecture(root: Path, planned: Plan, format_names: list[str], *, fresh: bool = False,
                  execute_only: bool = False, force: bool = False,
                  progress: Callable[[str], None] | None = None, theme: str | None = None,
                  accept: bool = False) -> LectureResult:
    """Execute (unless the plan found it cached) and write one lecture, from what the plan read and
    decided: nothing is read or keyed again. Runs in a worker process or in this one."""
    started = time.perf_counter()
    project = Project(Path(root))
    result = LectureResult(planned.name)
    try:
        # One render at a time per lecture (a second one waits, then finds the execution cached).
        with project.lecture_lock(result.name, progress=progress_to_stderr):
            execution = planned.executed
            expected: Any = True
            if execution is None:
                if planned.found is None:
                    raise LectureError("nothing planned to build", planned.lecture_dir)
                from lecturekit.check.gate import expectations_before
                expected = expectations_before(project, planned.name)  # before a cell can write them
                execution = complete(project, planned.found, fresh=fresh, progress=progress)
            result.name = execution.lecture.name
            result.executed = not execution.from_cache
            result.execute_seconds = execution.seconds
            result.execution_timings = execution.timings if result.executed else {}
            checked = check_outputs(project, execution, result, accept, expected)  # changed outputs: nothing written
            if checked and execute_only:
                write_notebook(execution.notebook, project.notebook_path(result.name))
                write_figures(execution.notebook, project.root, result.name)
            elif checked:
                write_products(project, execution, [FORMATS[n] for n in format_names],
                               theme or theme_digest(project), result, force=force,
                               inputs=planned.inputs or None)
    except LectureError as err:
        result.error = str(err)
    except OSError as err:  # the machine, not the lecture: a read-only folder, a full disk
        result.error = str(LectureError.from_os_error(err))
    result.seconds = time.perf_counter() - started
    return result


def default_jobs() -> int:
    return os.cpu_count() or 1


def build_course(project: Project, lecture_dirs: Iterable[Path], format_names: list[str] | None = None, *,
                 jobs: int | None = None, fresh: bool = False, execute_only: bool = False, force: bool = False,
                 progress: Callable[[str], None] | None = None, accept: bool = False,
                 on_result: Callable[[LectureResult], None] | None = None) -> tuple[list[Plan], list[LectureResult]]:
    """Bring the lectures' products up to date; return (plans, results), results in lecture order."""
    format_names = list(format_names or FORMATS)
    jobs = max(1, jobs or default_jobs())
    project.sweep_leftovers()
    versions = inputs.versions()
    theme = theme_digest(project)
    with inputs.read_once():  # the plan keys and checks every lecture: code/ is listed once
        plans = plan(project, lecture_dirs, format_names, versions=versions, theme=theme, fresh=fresh,
                     execute_only=execute_only, force=force, accept=accept)
    results: dict[str, LectureResult] = {}
    for p in plans:
        if p.error:
            results[p.name] = LectureResult(p.name, error=p.error, check=p.check)
        elif not p.execute and not p.write:
            results[p.name] = LectureResult(p.name, skipped=[] if execute_only else list(format_names),
                                            execute_seconds=p.seconds, check=p.check)
    todo = [p for p in plans if p.name not in results]
    # Assets every lecture shares are prepared once, before the workers start.
    if todo and not execute_only:
        for name in format_names:
            FORMATS[name].shared_assets(project)
    kwargs: dict[str, Any] = dict(fresh=fresh, execute_only=execute_only, force=force, theme=theme, accept=accept)

    def done(result: LectureResult) -> None:
        results[result.name] = result
        if on_result:
            on_result(result)

    if len(todo) <= 1 or jobs == 1:
        for p in todo:
            done(build_lecture(project.root, p, format_names, progress=progress, **kwargs))
    else:
        # Executions first (they take longest), then the lectures that only need writing.
        todo.sort(key=lambda p: not p.execute)
        # fork: the workers start with every module already imported. No thread runs here yet.
        context = multiprocessing.get_context("fork")
        try:
            with cf.ProcessPoolExecutor(min(jobs, len(todo)), mp_context=context) as pool:
                futures = [pool.submit(_worker_build, project.root, p, format_names,
                                       progress=progress, **kwargs) for p in todo]
                try:
                    for future in cf.as_completed(futures):
                        done(future.result())
                except KeyboardInterrupt:
                    _interrupt_workers(pool)
                    raise
        except KeyboardInterrupt:
            # The workers are gone. The first to leave marked the pool broken, and concurrent.futures
            # then terminated the others (SIGTERM) mid-cleanup: what they left (a kernel's run
            # folder, a file aside) goes with them.
            project.sweep_leftovers()
            raise
    return plans, [results[p.name] for p in plans]


def summary_lines(result: LectureResult, root: Path | None = None) -> list[str]:
    """What the render prints for one lecture: its execution, then each format."""
    if result.error:
        return [*result.check, f"[{result.name}] FAILED"]
    how = "executed" if result.executed else "cache hit, no kernel started"
    lines = [f"[{result.name}] execute: {result.execute_seconds:.2f} s ({how})", *result.check]
    if result.executed:
        t = result.execution_timings
        lines.append(f"[{result.name}]   kernel start {t.get('kernel_start', 0.0):.2f} s, "
                     f"{len(t.get('cells', {}))} cells {sum(t.get('cells', {}).values()):.2f} s, "
                     f"inline expressions {t.get('inline', 0.0):.2f} s")
    t = result.writer_timings
    for name, product in zip(result.written, result.products):
        finish = FORMATS[name].finish
        seconds = sum(v for k, v in t.items() if k.endswith(f" {name}") or (finish and k == finish.name))
        shown = os.path.relpath(product, root) if root else product
        lines.append(f"[{result.name}] {name}: {seconds:.2f} s -> {shown}")
    for name in result.skipped:
        lines.append(f"[{result.name}] {name}: up to date (inputs unchanged)")
    return lines


def progress_to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

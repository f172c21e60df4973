"""`scripts/render`: every lecture (or the named ones) -> _output/<lecture>/slides.html + handout.pdf.

Stages: read -> execute once (or reuse the cache) -> write each format. Only what changed is redone: a
lecture whose execution is cached starts no kernel, and a product whose inputs (executed notebook,
lecture folder, theme, filters) are unchanged is not written again. Lectures that need executing
run in parallel, one kernel each, at most `--jobs` at a time; a lecture's two formats are written at
the same time. Then the course index `_output/index.html` and each lecture's `code.zip`.
`--execute-only` stops after the executed notebooks, which is what `quarto render` runs as its
pre-render step. Either way each lecture's outputs are checked against tests/expected/ as soon as it
has executed (check/gate.py): a changed output stops that lecture, exit status 1; `--accept` accepts first.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from lecturekit.course.build import stamp
from lecturekit.errors import LectureError, run_command
from lecturekit.project import Project
from lecturekit.write.formats import FORMATS

if TYPE_CHECKING:
    from lecturekit.course.build.builder import LectureResult


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/render", description=__doc__.split("\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture folder names (default: all)")
    parser.add_argument("--to", choices=sorted(FORMATS), action="append",
                        help="only this format (repeatable; default: all)")
    parser.add_argument("--fresh", action="store_true", help="ignore the execution cache")
    parser.add_argument("--force", action="store_true",
                        help="write the products even when their inputs are unchanged")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help=f"lectures executed at the same time (default: the core count, "
                             f"{os.cpu_count() or 1} here)")
    parser.add_argument("--execute-only", action="store_true",
                        help="write the executed notebooks and stop (Quarto's pre-render step)")
    parser.add_argument("--no-index", action="store_true", help="skip the course index and code zips")
    parser.add_argument("--timings", metavar="FILE", help="write each lecture's stage timings as JSON")
    parser.add_argument("--accept", action="store_true",
                        help="accept every changed output into tests/expected/, then render "
                             "(also LECTUREKIT_ACCEPT=1, for quarto render's pre-render)")
    parser.add_argument("--quiet", action="store_true", help="no per-cell progress lines")
    return parser.parse_args(argv)


def render(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    project = Project.find()
    lecture_dirs = project.lectures(args.lectures)
    format_names = args.to or list(FORMATS)
    # A full render of every format leaves stamps (course/build/stamp.py), computed before anything is read.
    stamping = not args.execute_only and set(format_names) == set(FORMATS)
    inputs = stamp.inputs_of(project, [d.name for d in project.lectures()], FORMATS) if stamping else {}
    accept = args.accept or os.environ.get("LECTUREKIT_ACCEPT") == "1"
    # A lecture whose stamp holds is current as it is: nothing it is made from changed, and what its
    # last render left is as it left it. It is not read, keyed or checked again (its notes are said).
    products = [FORMATS[name].product for name in format_names]
    settled = {} if not stamping or args.force or args.fresh or accept else {
        d.name: notes for d in lecture_dirs if (notes := stamp.settled(project, d.name, inputs[d.name], products)) is not None}
    for name, notes in settled.items():
        for line in notes:
            say(line)
        say(f"[{name}] up to date (nothing it is made from changed)")
    lecture_dirs = [d for d in lecture_dirs if d.name not in settled]
    if not lecture_dirs and (args.no_index or (stamping and stamp.course_settled(project, inputs))):
        say(f"{len(settled)} lecture(s): 0 executed, 0 written, {len(settled)} ok, 0 failed; "
            f"{time.perf_counter() - started:.2f} s")
        if args.timings:
            with open(args.timings, "w", encoding="utf-8") as fh:
                json.dump({"lectures": [], "site_seconds": 0.0, "seconds": time.perf_counter() - started}, fh, indent=1)
        return 0
    return build(args, project, lecture_dirs, format_names, inputs, settled, accept, started)


def build(args: argparse.Namespace, project: Project, lecture_dirs: list[Path], format_names: list[str],
          inputs: dict[str, str], settled: dict[str, list[str]], accept: bool, started: float) -> int:
    """The lectures whose stamp does not hold, then the course page."""
    # The builder (the executor, the writers, Jinja2) is imported only when there is work: a render
    # whose every stamp holds is Python's start and one digest of the inputs.
    from lecturekit.course.build import builder as course
    from lecturekit.course.site import course_page
    stamping = bool(inputs)

    def report(result: LectureResult) -> None:
        for line in course.summary_lines(result, project.root):
            say(line)
        for warning in result.warnings:
            say(f"[{result.name}] pandoc: {warning}")

    plans, results = course.build_course(
        project, lecture_dirs, format_names, jobs=args.jobs, fresh=args.fresh,
        execute_only=args.execute_only, force=args.force,
        accept=accept,
        progress=None if args.quiet else course.progress_to_stderr, on_result=report)
    failed = [r for r in results if r.error]
    for plan, result in zip(plans, results):
        if plan.error or (not plan.execute and not plan.write):  # not built here: not reported yet
            report(result)
    site_seconds, site_error = 0.0, None
    course_current = not lecture_dirs and stamping and stamp.course_settled(project, inputs)
    if not args.execute_only and not args.no_index and not course_current:
        site_started = time.perf_counter()
        try:
            page, _zips, unreadable = course_page.build_site(project, errors={r.name: r.error for r in failed if r.error})
        except OSError as err:  # the machine (a read-only or full _output): said once, with the path
            site_error, unreadable = f"course page: {LectureError.from_os_error(err)}", {}
        for name, message in unreadable.items():
            if name not in {r.name for r in results}:  # a lecture outside this render: said, not failed
                say(f"[{name}] course page: listed as failed: {message.splitlines()[0]}")
        for result in results:  # built, but its code zip refused (a link in its code): this render's failure
            if not result.error and result.name in unreadable:
                result.error = unreadable[result.name]
        failed = [r for r in results if r.error]
        site_seconds = time.perf_counter() - site_started
    if stamping:
        record_stamps(project, inputs, results, format_names,
                      whole_course=not args.no_index and not site_error and not args.lectures)
    executed = sum(r.executed for r in results)
    written = sum(bool(r.written) for r in results)
    say(f"{len(results) + len(settled)} lecture(s): {executed} executed, {written} written, "
        f"{len(results) + len(settled) - len(failed)} ok, {len(failed)} failed; {time.perf_counter() - started:.2f} s")
    if args.timings:
        with open(args.timings, "w", encoding="utf-8") as fh:
            json.dump({"lectures": [asdict(r) for r in results], "site_seconds": site_seconds,
                       "seconds": time.perf_counter() - started}, fh, indent=1)
    for result in failed:
        print(f"error: {result.error}", file=sys.stderr)
    if site_error:
        print(f"error: {site_error}", file=sys.stderr)
    return 1 if failed or site_error else 0


def record_stamps(project: Project, inputs: dict[str, str], results: list[LectureResult],
                  format_names: list[str], *, whole_course: bool) -> None:
    """Every lecture left current gets its stamp (what Quarto's pre-render reads to skip it); the
    course page's, when it was written for every lecture and none failed."""
    products = [FORMATS[name].product for name in format_names]
    failed = [r.name for r in results if r.error]
    if failed:
        stamp.forget(project, failed)
    for result in results:
        if not result.error and set(result.written) | set(result.skipped) == set(format_names) \
                and result.name in inputs:
            stamp.record(project, result.name, inputs[result.name], products, result.check)
    if whole_course and not failed and all(stamp.settled(project, name, digest, products) is not None
                                     for name, digest in inputs.items()):
        stamp.record_course(project, inputs)


def main(argv: list[str] | None = None) -> int:
    return run_command(lambda: render(argv), interrupted="interrupted; previous products left as they were") or 0


if __name__ == "__main__":
    sys.exit(main())

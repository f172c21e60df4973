"""`scripts/check`: compare every lecture's (or the named ones') outputs with tests/expected/.

  scripts/check [LECTURE ...]              check, from the render cache when it is valid
  scripts/check --fresh                    execute again first
  scripts/check LECTURE --accept           record every changed output and rewrite every entry
                                           (versions, digests, prose values; creates the file the first time)
  scripts/check --accept LABEL ...         record only these cells' outputs
  scripts/check --compare-python PATH      the upgrade report: this environment vs another interpreter
  scripts/check --markdown FILE            the report in Markdown too, appended to FILE (a CI job summary)

Exit status 0 when every output and prose value is as expected and every claim holds (one line per
lecture; it modifies no tracked file: only --accept writes tests/expected/), 1 otherwise; with
--compare-python, 3 when that interpreter cannot run the lectures (missing, a directory, no
ipykernel, no torch), 1 when an output differs between the two or from tests/expected there.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lecturekit.check.accept import accept, unknown_labels
from lecturekit.check.envs import UNUSABLE, Comparison, UnusablePython, compare_environments, table, usable_python
from lecturekit.check.html_report import write_check_report, write_compare_report
from lecturekit.check.markdown_report import markdown_report
from lecturekit.check.report import lecture_report, summary
from lecturekit.check.run import Checked, check_lecture
from lecturekit.errors import LectureError, run_command
from lecturekit.inputs import read_once
from lecturekit.project import Project

USAGE = __doc__ or ""  # the help text: this module's docstring


@dataclass
class Options:
    """The command line, parsed."""
    lectures: list[str]
    fresh: bool
    accept: list[str] | None  # None: not accepting; []: every changed cell; else these labels
    compare_python: str | None
    expected: str | None
    html: str | None
    markdown: str | None
    quiet: bool


def parse_args(argv: Sequence[str]) -> Options:
    parser = argparse.ArgumentParser(prog="scripts/check", description=USAGE.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(USAGE.split("\n")[2:]))
    parser.add_argument("lectures", nargs="*", help="lecture folder names (default: all)")
    parser.add_argument("--fresh", action="store_true", help="ignore the execution cache")
    parser.add_argument("--accept", nargs="*", metavar="LABEL", default=None,
                        help="record the new outputs: of every changed cell, or of the labelled ones")
    parser.add_argument("--compare-python", metavar="PYTHON",
                        help="another environment's interpreter: report which cells' outputs differ there")
    parser.add_argument("--expected", metavar="DIR", help="expectations folder (default: tests/expected)")
    parser.add_argument("--html", metavar="FILE", help="HTML report (default: _output/check-report.html, "
                                                        "or _output/compare-report.html)")
    parser.add_argument("--markdown", metavar="FILE", help="append the report in Markdown to FILE "
                                                           "(e.g. $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--quiet", action="store_true", help="no per-cell progress lines")
    return Options(**vars(parser.parse_args(argv)))


def _split_accept(args: Options, project: Project) -> None:
    """`scripts/check --accept 09-nn-module` names a lecture, not a label."""
    if not args.accept:
        return
    names = {p.name for p in project.lectures()}
    args.lectures += [a for a in args.accept if a in names]
    args.accept = [a for a in args.accept if a not in names]


def _rel(project: Project, path: str | os.PathLike[str]) -> str:
    return os.path.relpath(path, project.root)


def run_compare(args: Options, project: Project, say: Callable[[str], None]) -> int:
    assert args.compare_python is not None
    # Relative to where the command was typed (scripts/check changes to the project folder first).
    try:
        python = usable_python(args.compare_python, os.environ.get("LECTUREKIT_CWD") or os.getcwd())
    except UnusablePython as err:
        print(f"error: {err}", file=sys.stderr)
        return UNUSABLE
    expected_dir = Path(args.expected).resolve() if args.expected else None
    comparisons: list[Comparison] = []
    for lecture_dir in project.lectures(args.lectures):
        comp = compare_environments(project, lecture_dir, python, fresh=args.fresh,
                                    progress=None if args.quiet else say, expected_dir=expected_dir)
        print(table(comp))
        comparisons.append(comp)
    path = write_compare_report(args.html or project.output_dir / "compare-report.html", comparisons)
    print(f"HTML report: {_rel(project, path)}")
    return 1 if any(c.failed for c in comparisons) else 0


def run_check(args: Options, project: Project, say: Callable[[str], None]) -> int:
    expected_dir = Path(args.expected).resolve() if args.expected else None
    checkeds: list[Checked] = []
    failed: list[LectureError] = []  # lectures that could not be checked: each its own error, the others go on
    with read_once():  # code/ is listed once for every lecture checked
        for lecture_dir in project.lectures(args.lectures):
            try:
                checkeds.append(check_lecture(project, lecture_dir, fresh=args.fresh,
                                              progress=None if args.quiet else say, expected_dir=expected_dir))
            except LectureError as err:
                say(f"[{lecture_dir.name}] FAILED")
                failed.append(err)
    if args.accept is not None:
        if args.accept:
            unknown_labels(checkeds, args.accept)
        for checked in checkeds:
            changed = accept(checked, project.root, args.accept or None)
            print(f"[{checked.name}] accepted {len(changed)}: {' '.join(changed) or '(no output changed)'}; "
                  f"every entry rewritten -> {_rel(project, checked.expectations.path)}")
    for checked in checkeds:
        report = lecture_report(checked)
        print(report + ("\n" if "\n" in report else ""))
    path = write_check_report(args.html or project.output_dir / "check-report.html", checkeds)
    if args.markdown:
        with open(os.path.join(os.environ.get("LECTUREKIT_CWD") or os.getcwd(), args.markdown), "a",
                  encoding="utf-8") as out:
            out.write(markdown_report(checkeds))
    text = summary(checkeds)
    if text:
        print(f"HTML report: {_rel(project, path)}")
        print(text)
    if failed:
        say(f"{len(checkeds) + len(failed)} lecture(s): {len(failed)} could not be checked")
    for refused in failed:
        say(f"error: {refused}")
    return 1 if failed or any(c.failed for c in checkeds) else 0


def main(argv: Sequence[str] | None = None) -> int | None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    def say(message: str) -> None:  # progress on stderr (the Jupyter client is imported only to execute)
        print(message, file=sys.stderr, flush=True)

    def body() -> int:
        project = Project.find()
        _split_accept(args, project)
        if args.compare_python:
            if args.accept is not None:
                raise LectureError("--accept and --compare-python do not go together")
            return run_compare(args, project, say)
        return run_check(args, project, say)
    return run_command(body)


if __name__ == "__main__":
    sys.exit(main())

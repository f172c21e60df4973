"""The check inside a render: right after a lecture executes (or comes from the cache), its outputs
are compared with tests/expected/ in memory, before anything is written.

  as expected        the render goes on (a value within a tolerance is printed as a warning;
                     the recorded digests and prose are refreshed)
  a new cell         its output is recorded in the expectations file, and the render says so
  anything changed   the lecture is not written (its old products stay), the render exits 1 with
                     the check's report, ending with the command that accepts
  accept=True        (`scripts/render --accept`, `LECTUREKIT_ACCEPT=1 quarto render`) every change
                     is accepted first, then the lecture is written

A lecture without an expectations file is not checked (the render says how to record one): a new
lecture renders before its author has looked at its outputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lecturekit.errors import LectureError
from lecturekit.execute.build import ExecutedLecture
from .expectations import Expectations
from .accept import accept as accept_all
from .report import lecture_report
from .run import check_execution, expected_path, record_new

if TYPE_CHECKING:
    from lecturekit.project import Project


@dataclass
class Verdict:
    ok: bool
    notes: list[str] = field(default_factory=list)  # lines to print when ok
    report: str = ""  # the failure report when not ok


def accept_command(name: str) -> str:
    return (f"If the new outputs are right, accept them: scripts/check {name} --accept "
            f"(or accept and render in one step: scripts/render {name} --accept)")


def expectations_before(project: Project, name: str) -> Expectations | None:
    """The lecture's expectations as they are before its cells run (None: it has none yet), so that
    a cell writing to tests/expected/ cannot decide what it is compared with. A damaged file is
    the lecture's LectureError, at its line."""
    path = expected_path(project, name)
    return Expectations(path, name) if path.exists() else None


def gate(project: Project, execution: ExecutedLecture, *, accept: bool = False,
         expectations: Expectations | None | bool = True) -> Verdict:
    """`expectations`: as expectations_before read them before the cells ran (True: read them now,
    the execution came from the cache)."""
    name = execution.lecture.name
    try:
        store = expectations_before(project, name) if expectations is True else expectations or None
    except LectureError as err:  # a damaged expectations file: this lecture's error, in one line
        return Verdict(False, [], str(err))
    if expectations is not True:
        # Read before the cells ran: a cell that wrote to the file must not decide what the next
        # render (from the cache) compares with. Its bytes are put back as they were.
        path = expected_path(project, name)
        written = store.changed_on_disk() if store else path.exists()
        if written:
            if store:
                store.put_back()
            else:
                path.unlink()
            return Verdict(False, [], f"[{name}] a cell of the lecture wrote to tests/expected/{name}.yaml while "
                                      "it ran; the file is put back as it was before the cells ran (a cell must "
                                      "not change its own expectations: accept with scripts/check --accept)")
    if store is None:
        return Verdict(True, [f"[{name}] outputs not checked: no tests/expected/{name}.yaml yet; after looking "
                              f"at them, record them: scripts/check {name} --accept"])
    checked = check_execution(project, execution, expectations=store)
    notes: list[str] = []
    if accept and checked.failed:
        taken = accept_all(checked, project.root)
        notes.append(f"[{name}] accepted {len(taken)}: {' '.join(taken) or '(prose values)'}; "
                     f"every entry of tests/expected/{name}.yaml rewritten")
    recorded = record_new(checked, project.root)
    if recorded:
        notes.append(f"[{name}] new cells without an expectation, outputs recorded in "
                     f"tests/expected/{name}.yaml: {' '.join(recorded)}")
    if checked.failed:
        report = lecture_report(checked)
        return Verdict(False, notes, f"[{name}] outputs changed: not rendered, the previous products kept\n"
                                     f"{report}\n{accept_command(name)}")
    for result in checked.warnings:
        where = result.cell.where if result.cell else ""
        notes.append(f"[{name}] warning: {result.label} ({where}) changed within its tolerance: "
                     + " ".join(line for line in result.within if not line.startswith("@@")))
    for change in checked.prose_machine:
        notes.append(f"[{name}] warning: {change.where} `{{python}} {change.expr}` reads {change.old} → {change.new} "
                     f"on this machine (no file changed)")
    if checked.refreshed:
        notes.append(f"[{name}] outputs as expected; file digests and prose values refreshed in "
                     f"tests/expected/{name}.yaml")
    else:
        notes.append(f"[{name}] outputs as expected ({sum(not r.failed for r in checked.results)} cells, "
                     f"{checked.inline_values} prose values)")
    return Verdict(True, notes)

"""Check one lecture: execute it (or reuse the render cache), then compare every cell with its
expectation, every prose value with its record, find the prose that reads each drifted cell, and
collect the claims that fail. A check that passes records the file and code digests it confirmed in
_build/ (confirmed.py); only --accept writes tests/expected/.

The cells checked are the execution record's (`CellRun`): what the check adds to a cell (its outputs
as comparable items, its code digests) is computed from it, not kept in a cell type of its own."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit.errors import LectureError
from lecturekit.execute.record import CellRun, ClaimResult, Execution, ProseRun
from lecturekit.execute.build import ExecutedLecture, execute_lecture
from .cause import changed_files, code_digests, explain, project_files
from .compare import items_match, texts_match, tolerance_of, unified_diff, within_tolerance
from . import confirmed as confirmations
from . import prose as prose_values
from .plots import changed_parts
from .expectations import Expectations, entry_for
from .normalise import Item, output_items
from . import readers
from .readers import Reader, claim_line, prose_readers
from .records import CodeDigests, Entry, Versions

if TYPE_CHECKING:
    from lecturekit.project import Project

OK = "ok"
FAILED = ("drift", "missing", "stale", "unlabelled", "no-longer-raises", "raised-differently")


def cell_name(cell: CellRun, index: int) -> str:
    """The cell's label, or `#n` for the n-th code cell of the lecture (1-based) when it has none."""
    return cell.label or f"#{index}"


def observed(cell: CellRun, project_root: Path | str | None) -> list[Item] | None:
    """The cell's outputs as comparable items; None when its output is hidden (not checked)."""
    return None if cell.hidden else output_items(cell.outputs, project_root)


@dataclass
class CellCheck:
    cell: CellRun | None  # None for an expectation whose cell is gone
    label: str
    status: str
    expected: list[Item] | None = None
    got: list[Item] | None = None
    message: str = ""
    diff: list[str] = field(default_factory=list)
    readers: list[Reader] = field(default_factory=list)
    expected_versions: Versions | None = None
    cause: str = ""  # what changed since the expectation was recorded (environment, code, neither)
    within: list[str] = field(default_factory=list)  # diff lines of a match that needed the tolerance

    @property
    def failed(self) -> bool:
        return self.status != OK


@dataclass
class Checked:
    """What checking one lecture found."""
    name: str
    expectations: Expectations
    record: Execution  # the execution checked: its runs are the lecture in order
    from_cache: bool
    seconds: float
    fresh_seconds: float
    digests: dict[str, CodeDigests] = field(default_factory=dict)  # label -> cause.code_digests
    results: list[CellCheck] = field(default_factory=list)  # every checked cell or stale entry
    claims_failed: list[ClaimResult] = field(default_factory=list)  # each at its sentence's line
    claims_total: int = 0
    files: dict[str, str] = field(default_factory=dict)  # cause.project_files now
    prose: list[prose_values.Value] = field(default_factory=list)  # prose.current_values now
    prose_changes: list[prose_values.ProseChange] = field(default_factory=list)
    prose_machine: list[prose_values.ProseChange] = field(default_factory=list)  # only another CPU explains: warnings
    prose_new: list[prose_values.Value] = field(default_factory=list)  # values without a record yet
    refreshed: bool = False  # the confirmed digests recorded in _build/ after a passing check
    confirmed: confirmations.Confirmed | None = None  # what the last passing check confirmed (the baseline)

    @property
    def cells(self) -> list[CellRun]:
        return self.record.cells

    @property
    def versions(self) -> Versions:
        return self.record.environment.versions

    @property
    def problems(self) -> list[CellCheck]:
        return [r for r in self.results if r.failed]

    @property
    def warnings(self) -> list[CellCheck]:
        return [r for r in self.results if r.within]

    @property
    def has_warnings(self) -> bool:
        return bool(self.warnings or self.prose_machine)

    @property
    def failed(self) -> bool:
        return bool(self.problems or self.claims_failed or self.prose_changes)

    @property
    def changed_files(self) -> list[str] | None:
        """Files changed since the outputs were last confirmed (by a passing check, else by the
        accept that recorded them); None when none were recorded."""
        baseline = self.confirmed.files if self.confirmed else self.expectations.files
        return changed_files(baseline, self.files) if baseline else None

    def baseline_entry(self, label: str) -> Entry | None:
        """The stored entry, with the code digests of the last passing check when there was one."""
        entry = self.expectations.get(label)
        if entry is not None and self.confirmed and label in self.confirmed.code:
            return {**entry, "code": self.confirmed.code[label]}
        return entry

    @property
    def document_order(self) -> list[str]:
        return [c.label for c in self.cells if c.label]

    @property
    def inline_values(self) -> int:
        """How many inline expressions the prose printed."""
        return sum(isinstance(v, prose_values.ProseValue) for v in self.prose)


def expected_path(project: Project, lecture_name: str, expected_dir: Path | None = None) -> Path:
    return (expected_dir or project.root / "tests" / "expected") / f"{lecture_name}.yaml"


def fresh_seconds(timings: dict[str, Any]) -> float:
    """How long the (possibly cached) execution took: kernel start plus every cell."""
    return float(timings.get("kernel_start", 0.0)) + sum(float(s) for s in timings.get("cells", {}).values())


def failed_claims(runs: Sequence[CellRun | ProseRun], project_root: Path | str) -> tuple[list[ClaimResult], int]:
    """The claims that do not hold, each at its sentence's source line, and how many claims there are."""
    failed: list[ClaimResult] = []
    total = 0
    for run in runs:
        if not isinstance(run, ProseRun):
            continue
        for claim in run.claims:
            total += 1
            if not claim.ok:
                failed.append(replace(claim, line=claim_line(os.path.join(project_root, claim.file),
                                                             claim.sentence, claim.line)))
    return failed, total


def compare_cell(cell: CellRun, items: list[Item], entry: Entry | None, lecture_name: str,
                 versions: Versions | None = None, files: list[str] | None = None,
                 digests: CodeDigests | None = None) -> CellCheck:
    """One labelled cell (its outputs as `items`) against its stored entry -> CellCheck."""
    label = cell.label or ""
    tolerance = tolerance_of(cell.options, (cell.file, cell.line, cell.label))
    if entry is None:
        return CellCheck(cell, label, "missing", got=items,
                         message=f"no expected output recorded; if this output is right, run: "
                                 f"scripts/check {lecture_name} --accept {label}",
                         diff=unified_diff([], items))
    expected = entry.get("outputs") or []
    result = CellCheck(cell, label, OK, expected=expected, got=items,
                       expected_versions=entry.get("versions"))
    if items_match(expected, items, tolerance):
        result.within = within_tolerance(expected, items, tolerance)
        return result
    result.diff = unified_diff(expected, items)
    was = next((i["error"] for i in expected if "error" in i), None)
    now = next((i["error"] for i in items if "error" in i), None)
    if was and not now:
        result.status = "no-longer-raises"
        result.message = f"this cell used to raise {was} (it is marked 'error: true'); now it raises nothing"
    elif was and now and was != now:
        result.status = "raised-differently"
        result.message = f"this cell used to raise {was}; now it raises {now}"
    else:
        result.status = "drift"
        result.message = "output differs from the expectation" + (
            f" (beyond the declared tolerance rel {tolerance.rel:g}, abs {tolerance.abs:g})" if tolerance else "")
        changed = changed_parts(expected, items, lambda a, b: texts_match(a, b, tolerance))
        if changed:
            result.message += "; plotted data changed: " + ", ".join(changed)
    result.cause = explain(entry, digests, versions or {}, files, cell.where)
    return result


def compare_all(checked: Checked, project_root: Path) -> Checked:
    """Fill checked.results from its cells and expectations (no execution)."""
    store = checked.expectations
    cells = checked.cells
    results: list[CellCheck] = []
    seen: set[str] = set()
    for index, cell in enumerate(cells, 1):
        if cell.label:
            seen.add(cell.label)
        items = observed(cell, project_root)
        if items is None or (not items and not (cell.label and store.get(cell.label))):
            continue
        if not cell.label:
            results.append(CellCheck(cell, cell_name(cell, index), "unlabelled", got=items,
                                     message="this cell produces output but has no label; "
                                             "add '#| label: …' so its output can be checked"))
            continue
        result = compare_cell(cell, items, checked.baseline_entry(cell.label), checked.name, checked.versions,
                              checked.changed_files, checked.digests.get(cell.label))
        if result.status in ("drift", "no-longer-raises", "raised-differently"):
            result.readers = prose_readers(checked.record.runs, cell, project_root)
        results.append(result)
    by_label = {c.label: c for c in reversed(cells) if c.label}  # the first cell of a label, as next() found
    for label in store.labels():
        found = by_label.get(label)
        entry = store.get(label)
        if entry is not None and (label not in seen or (found and found.hidden)):
            results.append(CellCheck(found, label, "stale", expected=entry.get("outputs"), got=[],
                                     message=("the lecture has no cell with this label any more"
                                              if found is None else "this cell's output is hidden now")
                                     + "; --accept removes its expectation",
                                     diff=unified_diff(entry.get("outputs") or [], [])))
    checked.results = results
    checked.prose_changes, checked.prose_new = prose_values.changes(store.prose, checked.prose, project_root)
    checked.prose_machine = []
    if checked.prose_changes and not checked.problems and machine_only(checked):
        checked.prose_machine, checked.prose_changes = checked.prose_changes, []
    return checked


# What another machine changes: the CPU, its kernels, BLAS and threads (not the versions).
MACHINE_KEYS = ("cpu", "cpu_capability", "torch_threads", "torch_blas", "numpy_blas", "numpy_blas_core", "env")


def machine_only(checked: Checked) -> bool:
    """True when no file changed since the expectations were recorded, the versions are the same and
    the machine is not: a prose value that then differs is the arithmetic of another CPU (a lecture
    may print "on this computer" counts in its prose), reported as a warning, old → new."""
    from .cause import environment_changes
    if checked.changed_files != []:  # None: no digests recorded, nothing can be ruled out
        return False
    recorded = next((e.get("versions") for e in checked.expectations.entries.values() if e.get("versions")), None)
    if not recorded:
        return False
    if environment_changes({k: v for k, v in recorded.items() if k in ("python", "torch", "numpy")},
                           checked.versions):
        return False
    return bool(environment_changes({k: v for k, v in recorded.items() if k in MACHINE_KEYS}, checked.versions))


def fresh_entry(checked: Checked, label: str, outputs: list[Item]) -> Entry:
    """An entry for `outputs` under this run's versions, with the code digests of the cell labelled
    `label` (none when the lecture has no such cell)."""
    return entry_for(outputs, checked.versions, checked.digests.get(label))


def rewrite(checked: Checked, outputs: dict[str, list[Item]], project_root: Path, *, versions: bool = True) -> None:
    """Write the whole expectations file: `outputs` (label -> items) in document order, each entry with
    this run's digests (and versions, or the ones it was recorded under), the files and the prose."""
    store = checked.expectations
    entries: dict[str, Entry] = {}
    order = checked.document_order
    for label in [*order, *[l for l in outputs if l not in order]]:
        if label not in outputs:
            continue
        entry = fresh_entry(checked, label, outputs[label])
        old = store.get(label)
        if not versions and old:
            entry["versions"] = old.get("versions") or entry["versions"]
        entries[label] = entry
    store.rewrite(entries, checked.files, prose_values.records(checked.prose))
    compare_all(checked, project_root)


def refresh(checked: Checked, build_dir: Path) -> bool:
    """After a passing check: record the file and code digests it confirmed in _build/ (the
    baseline of a later report's "why") when they differ from the last ones. The expectations
    file is left as it is."""
    store = checked.expectations
    if checked.failed or checked.prose_machine or not store.exists:
        return False
    now = confirmations.Confirmed(dict(checked.files), {
        label: digests for label, digests in checked.digests.items() if store.get(label) is not None})
    recorded: dict[str, CodeDigests] = {}
    for label in store.labels():
        entry = store.get(label)
        if entry is not None and "code" in entry:
            recorded[label] = entry["code"]
    baseline = checked.confirmed or confirmations.Confirmed(dict(store.files), recorded)
    if now == baseline:
        return False
    confirmations.save(build_dir, checked.name, store.path, now)
    checked.confirmed = now
    checked.refreshed = True
    return True


def check_lecture(project: Project, lecture_dir: Path, *, fresh: bool = False,
                  progress: Callable[[str], None] | None = None, expected_dir: Path | None = None,
                  update: bool = True) -> Checked:
    """Execute (or load from the cache) and compare one lecture."""
    started = time.perf_counter()
    # Read before the cells run: a cell may write to tests/expected/ (it is code), and must not
    # be able to decide what it is compared with.
    name = lecture_dir.name
    store = Expectations(expected_path(project, name, expected_dir), name)
    execution = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    assert execution is not None  # only a cached_only execution can be None
    if store.changed_on_disk():
        store.put_back()
        raise LectureError(f"a cell of the lecture wrote to this file while it ran; it is put back as it was "
                           f"before the cells ran (accept with scripts/check {name} --accept)", store.path)
    return check_execution(project, execution, expected_dir=expected_dir, started=started, update=update,
                           expectations=store)


def check_execution(project: Project, execution: ExecutedLecture, *, expected_dir: Path | None = None,
                    started: float | None = None, update: bool = True,
                    expectations: Expectations | None = None) -> Checked:
    """Compare one executed lecture (in memory) with its expectations; `update`: record the confirmed
    digests in _build/ when it passes. `expectations`: the file as read before the lecture's cells
    ran (read now when not given: the execution came from the cache, or nothing ran since)."""
    started = time.perf_counter() if started is None else started
    readers.forget_sources()
    record = execution.record
    name = execution.lecture.name
    store = expectations or Expectations(expected_path(project, name, expected_dir), name)
    checked = Checked(name=name, expectations=store,
                      record=record, from_cache=execution.from_cache, seconds=0.0,
                      fresh_seconds=fresh_seconds(execution.timings),
                      digests=code_digests(record.cells, project.code_dir),
                      files=project_files(project.root, project.code_dir, execution.lecture.root),
                      prose=prose_values.current_values(record.runs, project.root),
                      confirmed=confirmations.load(project.build_dir, name, store.path))
    compare_all(checked, project.root)
    checked.claims_failed, checked.claims_total = failed_claims(record.runs, project.root)
    if update:
        refresh(checked, project.build_dir)
    checked.seconds = time.perf_counter() - started
    return checked

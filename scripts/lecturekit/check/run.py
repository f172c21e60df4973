"""Check one lecture: execute it (or reuse the render cache), then compare every cell with its
expectation, every prose value with its record, find the prose that reads each drifted cell, and
collect the claims that fail. A check that passes refreshes the recorded digests and prose."""
import os
import time
from dataclasses import dataclass, field

from lecturekit.execute.record import ProseRun
from lecturekit.execute.build import execute_lecture
from .cause import changed_files, code_digests, explain, project_files
from .compare import items_match, texts_match, tolerance_of, unified_diff, within_tolerance
from . import prose as prose_values
from .plots import changed_parts
from .expectations import Expectations
from .normalise import output_items
from . import readers
from .readers import claim_line, prose_readers

OK = "ok"
FAILED = ("drift", "missing", "stale", "unlabelled", "no-longer-raises", "raised-differently")


@dataclass
class Cell:
    """One executed code cell as the check sees it."""
    index: int  # 1-based among the lecture's code cells
    label: str | None
    file: str
    line: int
    heading: str
    options: dict
    code: str
    raised: bool
    items: list | None  # None: output hidden (output: false / include: false), not checked
    position: int  # index into Checked.entries
    digests: dict | None = None  # cause.code_digests: this cell's code, and everything before it

    @property
    def name(self):
        return self.label or f"#{self.index}"

    @property
    def where(self):
        return f"{self.file}:{self.line}"


@dataclass
class CellCheck:
    cell: Cell | None  # None for an expectation whose cell is gone
    label: str
    status: str
    expected: list | None = None
    got: list | None = None
    message: str = ""
    diff: list = field(default_factory=list)
    readers: list = field(default_factory=list)
    expected_versions: dict | None = None
    cause: str = ""  # what changed since the expectation was recorded (environment, code, neither)
    within: list = field(default_factory=list)  # diff lines of a match that needed the tolerance

    @property
    def failed(self):
        return self.status != OK


@dataclass
class Checked:
    """What checking one lecture found."""
    name: str
    expectations: Expectations
    versions: dict
    from_cache: bool
    seconds: float
    fresh_seconds: float
    cells: list  # every code cell (Cell)
    entries: list  # the lecture in order, for readers: ("code", code) / ("markdown", block, meta)
    results: list = field(default_factory=list)  # CellCheck for every checked cell or stale entry
    claims_failed: list = field(default_factory=list)
    claims_total: int = 0
    files: dict = field(default_factory=dict)  # cause.project_files now
    prose: list = field(default_factory=list)  # prose.current_values now
    prose_changes: list = field(default_factory=list)  # prose.ProseChange
    prose_machine: list = field(default_factory=list)  # prose changes only another CPU explains: warnings
    prose_new: list = field(default_factory=list)  # values without a record yet
    recorded: list = field(default_factory=list)  # labels recorded by this run (new cells, see record_new)
    refreshed: bool = False  # digests and prose written back after a passing check

    @property
    def problems(self):
        return [r for r in self.results if r.failed]

    @property
    def warnings(self):
        return [r for r in self.results if r.within]

    @property
    def has_warnings(self):
        return bool(self.warnings or self.prose_machine)

    @property
    def failed(self):
        return bool(self.problems or self.claims_failed or self.prose_changes)

    @property
    def changed_files(self):
        """Files changed since the expectations were last confirmed; None when none were recorded."""
        return changed_files(self.expectations.files, self.files) if self.expectations.files else None

    @property
    def document_order(self):
        return [c.label for c in self.cells if c.label]


def expected_path(project, lecture_name, expected_dir=None):
    return (expected_dir or project.root / "tests" / "expected") / f"{lecture_name}.yaml"


def fresh_seconds(timings):
    """How long the (possibly cached) execution took: kernel start plus every cell."""
    return float(timings.get("kernel_start", 0.0)) + sum(float(s) for s in timings.get("cells", {}).values())


def read_execution(execution, project_root):
    """The execution record (the executed notebook's metadata) -> Cells, and the lecture in order for
    the prose readers: ("code", code) and ("markdown", ProseRun)."""
    cells, entries, index = [], [], 0
    for run in execution.record.runs:
        if isinstance(run, ProseRun):
            entries.append(("markdown", run))
            continue
        index += 1
        cells.append(Cell(index=index, label=run.label, file=run.file, line=run.line, heading=run.heading,
                          options=run.options, code=run.code, raised=run.raised,
                          items=None if run.hidden else output_items(run.outputs, project_root),
                          position=len(entries)))
        entries.append(("code", run.code))
    return cells, entries


def failed_claims(entries, project_root):
    failed, total = [], 0
    for entry in entries:
        if entry[0] != "markdown":
            continue
        for claim in entry[1].claims:
            total += 1
            if not claim.ok:
                failed.append({**claim.as_dict(),
                               "line": claim_line(os.path.join(project_root, claim.file), claim.sentence, claim.line)})
    return failed, total


def compare_cell(cell, entry, lecture_name, versions=None, files=None):
    """One cell against its stored entry -> CellCheck."""
    tolerance = tolerance_of(cell.options, (cell.file, cell.line, cell.label))
    if entry is None:
        return CellCheck(cell, cell.label, "missing", got=cell.items,
                         message=f"no expected output recorded; if this output is right, run: "
                                 f"scripts/check {lecture_name} --accept {cell.label}",
                         diff=unified_diff([], cell.items))
    expected = entry.get("outputs") or []
    result = CellCheck(cell, cell.label, OK, expected=expected, got=cell.items,
                       expected_versions=entry.get("versions"))
    if items_match(expected, cell.items, tolerance):
        result.within = within_tolerance(expected, cell.items, tolerance)
        return result
    result.diff = unified_diff(expected, cell.items)
    was = next((i["error"] for i in expected if "error" in i), None)
    now = next((i["error"] for i in cell.items if "error" in i), None)
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
        changed = changed_parts(expected, cell.items, lambda a, b: texts_match(a, b, tolerance))
        if changed:
            result.message += "; plotted data changed: " + ", ".join(changed)
    result.cause = explain(entry, cell.digests, versions or {}, files, cell.where)
    return result


def compare_all(checked, project_root):
    """Fill checked.results from its cells and expectations (no execution)."""
    store = checked.expectations
    results, seen = [], set()
    for cell in checked.cells:
        if cell.label:
            seen.add(cell.label)
        if cell.items is None or (not cell.items and not (cell.label and store.get(cell.label))):
            continue
        if not cell.label:
            results.append(CellCheck(cell, cell.name, "unlabelled", got=cell.items,
                                     message="this cell produces output but has no label; "
                                             "add '#| label: …' so its output can be checked"))
            continue
        result = compare_cell(cell, store.get(cell.label), checked.name, checked.versions, checked.changed_files)
        if result.status in ("drift", "no-longer-raises", "raised-differently"):
            result.readers = prose_readers(checked.entries, cell.position, project_root)
        results.append(result)
    for label in store.labels():
        cell = next((c for c in checked.cells if c.label == label), None)
        if label not in seen or (cell and cell.items is None):
            entry = store.get(label)
            results.append(CellCheck(cell, label, "stale", expected=entry.get("outputs"), got=[],
                                     message=("the lecture has no cell with this label any more"
                                              if cell is None else "this cell's output is hidden now")
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


def machine_only(checked):
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


def fresh_entry(checked, cell, outputs):
    from .expectations import entry_for
    return entry_for(outputs, checked.versions, cell.digests if cell else None)


def rewrite(checked, outputs: dict, project_root, *, versions=True):
    """Write the whole expectations file: `outputs` (label -> items) in document order, each entry with
    this run's digests (and versions, or the ones it was recorded under), the files and the prose."""
    store = checked.expectations
    entries = {}
    cells = {c.label: c for c in checked.cells if c.label}
    for label in [*checked.document_order, *[l for l in outputs if l not in cells]]:
        if label not in outputs:
            continue
        entry = fresh_entry(checked, cells.get(label), outputs[label])
        if not versions and store.get(label):
            entry["versions"] = store.get(label).get("versions") or entry["versions"]
        entries[label] = entry
    store.rewrite(entries, checked.files, prose_values.records(checked.prose))
    compare_all(checked, project_root)


def stored_outputs(checked):
    return {label: checked.expectations.get(label).get("outputs") or [] for label in checked.expectations.labels()}


def refresh(checked, project_root):
    """After a passing check: bring the recorded digests and prose up to date (versions stay those
    the outputs were accepted under). Writes only when something differs."""
    store = checked.expectations
    if checked.failed or checked.prose_machine or not store.exists:
        return False
    stale = store.files != checked.files or store.prose != prose_values.records(checked.prose)
    for cell in checked.cells:
        entry = store.get(cell.label) if cell.label else None
        if entry is not None and cell.digests and entry.get("code") != cell.digests:
            stale = True
    if stale:
        rewrite(checked, stored_outputs(checked), project_root, versions=False)
        checked.refreshed = True
    return stale


def record_new(checked, project_root):
    """Record the outputs of cells that have no expectation yet (a render does this; the check
    reports them as MISSING). Returns the labels recorded."""
    new = [r for r in checked.results if r.status == "missing"]
    if not new:
        return []
    outputs = stored_outputs(checked)
    outputs.update({r.label: r.got for r in new})
    store = checked.expectations
    entries = {}
    cells = {c.label: c for c in checked.cells if c.label}
    for label in [*checked.document_order, *[l for l in outputs if l not in cells]]:
        if label in outputs:
            entries[label] = (store.get(label) if store.get(label) and label not in {r.label for r in new}
                              else fresh_entry(checked, cells.get(label), outputs[label]))
    store.rewrite(entries, store.files or checked.files, store.prose or prose_values.records(checked.prose))
    compare_all(checked, project_root)
    checked.recorded = [r.label for r in new]
    return checked.recorded


def check_lecture(project, lecture_dir, *, fresh=False, progress=None, expected_dir=None, update=True):
    """Execute (or load from the cache) and compare one lecture."""
    started = time.perf_counter()
    execution = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    return check_execution(project, execution, expected_dir=expected_dir, started=started, update=update)


def check_execution(project, execution, *, expected_dir=None, started=None, update=True):
    """Compare one executed lecture (in memory) with its expectations; `update`: refresh the recorded
    digests and prose when it passes."""
    started = time.perf_counter() if started is None else started
    readers.forget_sources()
    cells, entries = read_execution(execution, project.root)
    digests = code_digests(cells, project.code_dir)
    for cell in cells:
        cell.digests = digests.get(cell.label)
    name = execution.lecture.name
    checked = Checked(name=name, expectations=Expectations(expected_path(project, name, expected_dir), name),
                      versions=execution.record.environment.versions,
                      from_cache=execution.from_cache, seconds=0.0,
                      fresh_seconds=fresh_seconds(execution.timings), cells=cells, entries=entries,
                      files=project_files(project.root, project.code_dir, execution.lecture.root),
                      prose=prose_values.current_values(execution.record.runs, project.root))
    compare_all(checked, project.root)
    checked.claims_failed, checked.claims_total = failed_claims(entries, project.root)
    if update:
        refresh(checked, project.root)
    checked.seconds = time.perf_counter() - started
    return checked

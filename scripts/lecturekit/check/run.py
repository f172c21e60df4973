"""Check one lecture: execute it (or reuse the render cache), then compare every cell with its
expectation, find the prose that reads each drifted cell, and collect the claims that fail."""
import os
import time
from dataclasses import dataclass, field

from lecturekit.execute.record import ProseRun
from lecturekit.execute.build import execute_lecture
from .cause import code_digests, explain
from .compare import items_match, texts_match, tolerance_of, unified_diff
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

    @property
    def problems(self):
        return [r for r in self.results if r.failed]

    @property
    def failed(self):
        return bool(self.problems or self.claims_failed)

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


def compare_cell(cell, entry, lecture_name, versions=None):
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
            f" (beyond the declared tolerance {cell.options['tolerance']})" if tolerance else "")
        changed = changed_parts(expected, cell.items, lambda a, b: texts_match(a, b, tolerance))
        if changed:
            result.message += "; plotted data changed: " + ", ".join(changed)
    result.cause = explain(entry, cell.digests, versions or {})
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
        result = compare_cell(cell, store.get(cell.label), checked.name, checked.versions)
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
    return checked


def check_lecture(project, lecture_dir, *, fresh=False, progress=None, expected_dir=None):
    """Execute (or load from the cache) and compare one lecture."""
    started = time.perf_counter()
    readers.forget_sources()
    execution = execute_lecture(project, lecture_dir, fresh=fresh, progress=progress, write=False)
    cells, entries = read_execution(execution, project.root)
    digests = code_digests(cells, project.code_dir)
    for cell in cells:
        cell.digests = digests.get(cell.label)
    name = execution.lecture.name
    checked = Checked(name=name, expectations=Expectations(expected_path(project, name, expected_dir), name),
                      versions=execution.record.environment.versions,
                      from_cache=execution.from_cache, seconds=0.0,
                      fresh_seconds=fresh_seconds(execution.timings), cells=cells, entries=entries)
    compare_all(checked, project.root)
    checked.claims_failed, checked.claims_total = failed_claims(entries, project.root)
    checked.seconds = time.perf_counter() - started
    return checked

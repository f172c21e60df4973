"""The execution cache: one lecture's execution record (`Execution.to_json()`), keyed by everything that
could change it.

Quarto's `freeze` looks only at the source; we also key on the course code, the library versions
(with the build variant: 2.13.0+cpu is not 2.13.0+cu128), the CPU's instruction set and every
environment variable that can change an output (kernelenv.output_env), so a PyTorch upgrade can never
show stale outputs and a run under `ATEN_CPU_CAPABILITY=default` never answers for a plain one. Prose is not in the key: fixing a typo in a
sentence re-renders without starting a kernel. The digests of the files, versions and CPU are
lecturekit.inputs', as every other record's.
"""
import errno
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lecturekit import inputs, schema
from lecturekit.execute import kernelenv
from lecturekit.execute.record import CellRun, Execution, ProseRun, RecordShapeError
from lecturekit.fsutil import UnsafeFile, read_untrusted_file, write_atomic
from lecturekit.read import qmd

CACHE_FORMAT = 5  # bump when the layout of a cache entry changes (5: the record with its digest)
# An entry larger than this is refused unread: a cell's output is bounded (kernel.py, 500 kB per
# cell), lecture 07's whole entry is 1.2 MB, and a file of many megabytes is no entry the kit wrote.
MAX_ENTRY_BYTES = 64_000_000

# The versions the executor keys on (lecturekit.inputs.versions), by the name scripts/bench times.
environment_versions = inputs.versions


def execution_key(lecture: qmd.Lecture, code_dir: Path, versions: dict[str, Any],
                  env: dict[str, str] | None = None) -> str:
    """Hash of what the kernel sees: the code, its inputs, course code, library versions, the CPU and
    the output-changing environment (`env`: default this process's, as the kernel will inherit it)."""
    h = hashlib.sha256()

    def feed(obj: object) -> None:
        h.update(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\0")

    feed({"format": CACHE_FORMAT, "versions": versions, "machine": inputs.machine(),
          "env": kernelenv.output_env(env)})
    for block in lecture.blocks:
        if isinstance(block, qmd.Cell):
            feed(["cell", block.code, block.options])
        else:
            # Claims' sentences are prose; only their expressions run in the kernel.
            feed(["inline", [i.expr for i in block.inline], [c.expr for c in block.claims]])
    # code/ is the project's (project.Project.code_dir): a link out of the project is not read.
    project_root = Path(code_dir).parent
    feed(["code", inputs.tree(code_dir, project_root)])
    # Data files next to the lecture can be read by cells; the prose (.qmd) is not part of the key.
    feed(["lecture-files", [(name, digest) for name, digest in inputs.tree(lecture.root, project_root)
                            if not name.endswith(".qmd")]])
    return h.hexdigest()


def discard(path: Path | str, problem: str, remove: bool = True) -> None:
    """Drop a damaged state file with one line saying which and why; the caller rebuilds it."""
    print(f"warning: {path}: discarded a damaged cache entry ({problem}); it is built again",
          file=sys.stderr, flush=True)
    if remove:
        try:
            Path(path).unlink(missing_ok=True)
        except OSError:
            pass


def _digest(record: Any) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def misfit(lecture: qmd.Lecture, execution: Execution) -> str | None:
    """What in a stored execution does not fit the lecture it is keyed for (None: it fits): one run
    per block, in order, each cell with the block's code and options, each prose run with a value
    for every inline expression and a result for every claim. The key covers the code, so only a
    damaged entry can fail this; assembled as it is, it would lose outputs or values."""
    if len(execution.runs) != len(lecture.blocks):
        return (f"{len(execution.cells)} cells and {len(execution.prose)} prose runs for a lecture of "
                f"{len(lecture.cells)} cells and {len(lecture.blocks) - len(lecture.cells)} prose runs")
    for block, run in zip(lecture.blocks, execution.runs):
        if isinstance(block, qmd.Cell):
            if not isinstance(run, CellRun) or run.code != block.code or run.options != block.options:
                return f"its run for the cell at line {block.line} is not that cell's"
        elif not isinstance(run, ProseRun) or len(run.inline) != len(block.inline) \
                or len(run.claims) != len(block.claims):
            return f"its run for the prose at line {block.line} lacks values or claims"
    return None


class DamagedEntry(ValueError):
    """A cache entry the kit does not use: why, in one line; `removable`: the path is the entry itself
    (not a file reached through a linked folder, which removing would follow)."""

    def __init__(self, why: str, removable: bool = True) -> None:
        super().__init__(why)
        self.removable = removable


@dataclass(frozen=True)
class VerifiedEntry:
    """A cache entry's bytes as read, once, and the execution record verified from them."""
    execution: Execution
    data: bytes
    mtime_ns: int


def read_entry(path: Path, folder: Path | None = None) -> VerifiedEntry:
    """The cache entry at `path`, read through the one reader of files from elsewhere (fsutil: no
    link, pipe or oversize file; with `folder`, no linked folder below it) and verified: the entry
    against schemas/cache-entry.yaml, the record against its digest and schemas/execution.yaml, and
    its file name against the record's key. DamagedEntry says why not; FileNotFoundError when there
    is none. The bytes verified are the bytes a caller may copy (a products folder's entry placed)."""
    try:
        found = read_untrusted_file(path, MAX_ENTRY_BYTES, folder)
    except UnsafeFile as err:
        raise DamagedEntry(err.why, removable=err.errno != errno.ENOTDIR) from None
    try:
        stored = json.loads(found.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise DamagedEntry(str(err).split("\n")[0][:120]) from None
    problem = schema.misfit(stored, "cache-entry")
    if problem:
        raise DamagedEntry(f"not a cache entry: {problem}")
    if stored["sha256"] != _digest(stored["record"]):
        raise DamagedEntry("what it holds does not match its digest")
    try:
        execution = Execution.from_json(stored["record"])
    except RecordShapeError as err:
        raise DamagedEntry(str(err)) from None
    if Path(path).name != f"{(execution.environment.key or '')[:32]}.json":
        raise DamagedEntry("its record is keyed for another entry")
    return VerifiedEntry(execution, found.data, found.mtime_ns)


class ExecutionCache:
    """One JSON file per lecture and key: the execution record and its digest. Writes are atomic, so
    a crash never leaves half an entry; an entry whose digest does not match what it holds (an
    output, a figure edited in place) or that does not fit its lecture is discarded and rebuilt,
    so no product is written from an entry that was not verified."""

    KEEP = 8

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    def _path(self, lecture_name: str, key: str) -> Path:
        return self.folder / lecture_name / f"{key[:32]}.json"

    def load(self, lecture_name: str, key: str, lecture: qmd.Lecture | None = None) -> Execution | None:
        """The execution record stored for key, or None. An entry that is no regular file of the
        folder (a link, a pipe), does not parse, does not fit its schema, does not match its digest
        or does not fit `lecture` (a bad byte, a crash of another tool, an edit by hand, a file from
        another machine) is discarded with one warning, so the lecture executes again instead of
        failing, hanging, or showing what it did not produce, on every render."""
        path = self._path(lecture_name, key)
        try:
            execution = read_entry(path, self.folder).execution
        except FileNotFoundError:
            return None
        except DamagedEntry as err:
            discard(path, str(err), remove=err.removable)
            return None
        except OSError as err:
            discard(path, f"cannot read it: {err.strerror}", remove=False)
            return None
        if execution.environment.key != key:
            return None
        problem = misfit(lecture, execution) if lecture is not None else None
        if problem:
            discard(path, f"it does not fit the lecture: {problem}")
            return None
        return execution

    def store(self, lecture_name: str, key: str, execution: Execution) -> None:
        path = self._path(lecture_name, key)
        record = execution.to_json()
        write_atomic(path, json.dumps({"sha256": _digest(record), "record": record}, ensure_ascii=False).encode("utf-8"))
        # Keep a few recent entries (two environments compared in turn, the CPU-capability runs of the
        # tests), drop the rest.
        entries = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[self.KEEP:]:
            old.unlink(missing_ok=True)

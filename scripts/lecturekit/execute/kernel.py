"""Execute a lecture once, in one Jupyter kernel, in document order.

`LectureExecutor` owns the kernel's whole life (start, every cell and inline expression, shutdown),
the way nbclient's NotebookClient does for a notebook. It returns plain results (outputs per cell,
values per inline expression, truth per claim) that the cache stores and notebook.py applies.
"""
import os
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from lecturekit.execute import kernel_side, kernelenv
from lecturekit.execute.kernel_side import KERNEL_MODULE
from lecturekit.execute.record import CellRun, ClaimResult, Environment, Execution, InlineValue, ProseRun
from lecturekit.read import qmd
from lecturekit.ansi import strip_ansi
from lecturekit.errors import LectureError

DEFAULT_TIMEOUT = 120  # seconds per cell, unless the cell or _quarto.yml says otherwise
# Bytes of output one cell may produce (`lecturekit: max-output:` in _quarto.yml). No slide or page
# shows more than a few kilobytes; the largest figure of lecture 09 is 80 kB. Typst's time grows
# faster than the text: 0.5 MB of printed lines take it 7 s, 3 MB 214 s, 20 MB a quarter of an hour.
DEFAULT_MAX_OUTPUT = 500_000

_CLAIM_CODE = "print(__import__('json').dumps(bool({expr})), end='')"

# kernel_side.py, the kit's code that runs in the kernel and in the kernel's parent (the nanny).
_KERNEL_SIDE = Path(kernel_side.__file__)
_KERNEL_SIDE_NAME = "lecturekit/execute/kernel_side.py"  # as tracebacks name it: no machine's path


def _kernel_side_source() -> str:
    return _KERNEL_SIDE.read_text(encoding="utf-8")


def _install_kernel_side() -> str:
    """kernel_side.py made a module of the kernel (KERNEL_MODULE in sys.modules): no name in the
    cells' namespace, nothing imported from the kit's environment."""
    module = f"__import__('sys').modules[{KERNEL_MODULE!r}]"
    return (f"{module} = __import__('types').ModuleType({KERNEL_MODULE!r})\n"
            f"exec(compile({_kernel_side_source()!r}, {_KERNEL_SIDE_NAME!r}, 'exec'), {module}.__dict__)\n")


def _kernel_call(function: Callable[..., None], args: str = "") -> str:
    """The code that calls one function of kernel_side.py in the kernel (after the install)."""
    assert getattr(kernel_side, function.__name__) is function
    return f"__import__({KERNEL_MODULE!r}).{function.__name__}({args})"


def _nanny_code() -> str:
    """The kernel's parent process (kernel_side.nanny), as `python -c` runs it: stdlib only."""
    return f"{_kernel_side_source()}\n{kernel_side.nanny.__name__}(sys.argv[1:])\n"


RUN_DIR_PREFIX = "lecturekit-"  # the kernel's private folder under the system's temporary folder


def _size(content: dict[str, Any]) -> int:
    """Bytes of one output message as it would be stored: text, every mime type's data and the
    metadata (which nbclient keeps with the output: a cell can put megabytes there)."""
    return len(content.get("text", "").encode()) + sum(
        len(str(value).encode()) for value in (content.get("data") or {}).values()) + (
        len(json.dumps(content["metadata"], default=str)) if content.get("metadata") else 0)


class _BoundedClient(NotebookClient):
    """nbclient, keeping at most `max_output` bytes of a cell's outputs (text, data of every mime
    type, metadata, updates of a display). Past that the rest is dropped, the wait for the cell
    stops and `overflow` is set.

    It also keeps the outputs shown with a `display_id` by their id, so that `update(...)` of such
    a display (in its cell or a later one) replaces that output, as in Jupyter. nbclient's own map
    of displays is by cell index in its own notebook, where our cells are not (one slot serves
    every cell in turn): its update would be lost or fail with an IndexError. So nbclient gets each
    message of a display without the id (`process_message`, its public hook), and the ids are kept here."""

    max_output = DEFAULT_MAX_OUTPUT
    received = 0
    overflow = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.displays: dict[str, list[tuple[list[Any], int]]] = {}  # display id -> (outputs, index)

    def start_cell(self) -> None:
        self.received, self.overflow = 0, False

    def rebind(self, old: list[Any], new: list[Any]) -> None:
        """A cell's outputs were copied into its record: later updates go to the copies."""
        for places in self.displays.values():
            places[:] = [(new if outputs is old else outputs, index) for outputs, index in places]

    def _bounded(self, content: dict[str, Any]) -> bool:
        self.received += _size(content)
        return self.received <= self.max_output

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        content = msg.get("content") or {}
        display_id = (content.get("transient") or {}).get("display_id")
        if not display_id:
            return super().process_message(msg, cell, cell_index)
        if msg.get("msg_type") == "update_display_data":
            self._update_display(display_id, content)
            return None
        # A new display with an id goes to nbclient without the id (nbclient's own display map is
        # by cell index, see above); where it lands is recorded here.
        out = super().process_message({**msg, "content": {**content, "transient": {}}}, cell, cell_index)
        if out is not None and cell.outputs and cell.outputs[-1] is out:
            self.displays.setdefault(display_id, []).append((cell.outputs, len(cell.outputs) - 1))
        return out

    def output(self, outs: list[Any], msg: dict[str, Any], display_id: str | None, cell_index: int) -> Any:
        if self._bounded(msg.get("content", {})):
            return super().output(outs, msg, display_id, cell_index)
        self._overflowed()
        return None

    def _update_display(self, display_id: str, content: dict[str, Any]) -> None:
        if not self._bounded(content):
            self._overflowed()
            return
        data, metadata = json.loads(json.dumps([content.get("data") or {}, content.get("metadata") or {}]))
        for outputs, index in self.displays.get(display_id, []):
            if index < len(outputs):
                outputs[index]["data"], outputs[index]["metadata"] = data, metadata

    def _overflowed(self) -> None:
        if not self.overflow:
            self.overflow = True
            # Stop waiting for the cell at once: the render fails and the kernel is shut down
            # (killed) anyway. An interrupt instead could reach the kernel after the cell ended,
            # leaving nbclient waiting for the reply until the time limit and the kernel printing
            # "KeyboardInterrupt caught in kernel".
            reply = getattr(self, "task_poll_for_reply", None)
            if reply is not None and not reply.done():
                reply.cancel()


def _traceback(outputs: list[Any]) -> str | None:
    for out in outputs:
        if out.get("output_type") == "error":
            return strip_ansi("\n".join(out.get("traceback", []))) or f"{out['ename']}: {out['evalue']}"
    return None


def _stdout(outputs: list[Any]) -> str:
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout")


class LectureExecutor:
    """Run every cell and inline expression of one lecture in one kernel."""

    def __init__(self, lecture: qmd.Lecture, *, code_dir: Path | str, workdir: Path | str,
                 timeout: float = DEFAULT_TIMEOUT, kernel_name: str = "python3", python: Path | str | None = None,
                 progress: Callable[[str], None] | None = None, max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        self.lecture = lecture
        self.code_dir = Path(code_dir)
        self.workdir = Path(workdir)
        self.timeout = timeout
        self.max_output = max_output
        self.kernel_name = kernel_name
        self.python = python  # another environment's interpreter, e.g. for an upgrade report
        self.progress = progress or (lambda message: None)
        self.timings: dict[str, Any] = {"kernel_start": 0.0, "cells": {}}

    def run(self) -> Execution:
        """Execute; return the execution record: every run in document order, what the kernel found
        (its environment's versions are the fingerprint: CPU capability, BLAS, threads, the
        output-changing variables) and the timings."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        # nbclient stores each executed cell at its index; one slot serves every cell in turn.
        scratch = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
        # IPC sockets: the kernel is local, and TCP would make ipykernel warn on every start.
        # Connection files and sockets of this run only, in a private folder: another render (or
        # check) of the same lecture may run a kernel at the same time, and a socket's path must
        # stay under the system's 107 bytes however deep the project lies.
        # The pid in its name lets a later render remove it when this one was killed (kill -9).
        sockets = Path(tempfile.mkdtemp(prefix=f"{RUN_DIR_PREFIX}{os.getpid()}-"))
        km = AsyncKernelManager(kernel_name=self.kernel_name, transport="ipc",
                                connection_file=str(sockets / "kernel.json"), ip=str(sockets / "kernel"))
        assert km.kernel_spec is not None  # the kernel name is installed
        if self.python:
            km.kernel_spec.argv = [str(self.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        argv = list(km.kernel_spec.argv)
        if argv and argv[0] in ("python", f"python{sys.version_info[0]}", "python%i.%i" % sys.version_info[:2]):
            argv[0] = sys.executable  # as jupyter_client reads a kernel spec's plain `python`
        km.kernel_spec.argv = [sys.executable, "-c", _nanny_code(), *argv]
        client = _BoundedClient(scratch, km=km, kernel_name=self.kernel_name, timeout=self.timeout,
                                allow_errors=True, record_timing=False,
                                resources={"metadata": {"path": str(self.workdir)}})
        client.max_output = self.max_output
        runs: list[CellRun | ProseRun] = []
        fingerprint: dict[str, Any] = {}
        # The kernel's own environment (passed to the launcher; this process's stays as it is).
        env = kernelenv.kernel_env(code_dir=self.code_dir.resolve())
        started = time.perf_counter()
        try:
            with client.setup_kernel(env=env):
                self.timings["kernel_start"] = time.perf_counter() - started
                self._quiet(client, _install_kernel_side())
                self._quiet(client, _kernel_call(kernel_side.escape_unencodable_messages))
                self._quiet(client, _kernel_call(kernel_side.setup_plot))
                self._run_blocks(client, runs)
                fingerprint = {**self._fingerprint(client), "env": kernelenv.output_env()}
        finally:
            # A kernel manager we pass in is ours to stop; nbclient only stops kernels it made.
            if km.has_kernel:
                run_sync(km.shutdown_kernel)(now=True)
            shutil.rmtree(sockets, ignore_errors=True)
        return Execution(self.lecture.name, Environment(fingerprint), runs, self.timings)

    def _fingerprint(self, client: _BoundedClient) -> dict[str, Any]:
        executed = self._execute(client, _kernel_call(kernel_side.fingerprint), (self.lecture.index, 1), None, self.timeout, history=False)
        try:
            found: dict[str, Any] = json.loads(_stdout(executed.outputs))
            return found
        except json.JSONDecodeError:
            return {}

    def _run_blocks(self, client: _BoundedClient, runs: list[CellRun | ProseRun]) -> None:
        cells = self.lecture.cells
        index = 0
        self.timings["inline"] = 0.0
        for block in self.lecture.blocks:
            if isinstance(block, qmd.Markdown):
                started = time.perf_counter()
                batched = self._batch(client, block)
                if batched is None:  # something raised: one at a time, for the exact error
                    batched = ([self._inline(client, block, inline) for inline in block.inline],
                               [self._claim(client, block, claim) for claim in block.claims])
                runs.append(ProseRun(str(block.file), block.line,
                                     [InlineValue(i.expr, v) for i, v in zip(block.inline, batched[0])],
                                     [ClaimResult(**c) for c in batched[1]]))
                self.timings["inline"] += time.perf_counter() - started
                continue
            index += 1
            ran = self._cell(client, block, index, len(cells))
            runs.append(CellRun(str(block.file), block.line, block.label, block.heading, block.options, block.code,
                                ran["outputs"], ran["execution_count"], ran["seconds"], ran.get("raised", False)))

    def _quiet(self, client: _BoundedClient, source: str) -> None:
        """Set-up code that is no cell: no output, no execution count; it must not fail."""
        assert client.kc is not None  # inside setup_kernel
        # execute_interactive: the client's own method (its class declares it only on the blocking one).
        reply = run_sync(client.kc.execute_interactive)(  # type: ignore[attr-defined]
            source, silent=True, store_history=False, timeout=self.timeout, output_hook=lambda msg: None)
        if reply["content"]["status"] != "ok":
            raise LectureError(f"kernel set-up failed: {reply['content'].get('ename')}: "
                               f"{reply['content'].get('evalue')}", self.lecture.index)

    def _execute(self, client: _BoundedClient, source: str, where: tuple[Path, int], label: str | None,
                 timeout: float, history: bool = True) -> Any:
        """Execute one piece of code; return its outputs. Kernel failures become LectureErrors."""
        cell = nbformat.v4.new_code_cell(source)
        client.timeout = timeout  # type: ignore[assignment]  # nbclient declares int; seconds may be fractional
        client.start_cell()
        try:
            client.execute_cell(cell, 0, store_history=history)
        except CellTimeoutError:
            raise LectureError(f"cell ran past its time limit of {timeout} s (set '#| timeout:' to allow more)",
                               *where, label) from None
        except DeadKernelError as err:
            if not client.overflow:  # the bound stops the wait the same way a dead kernel does
                raise LectureError(f"the kernel died while running this cell ({err})", *where, label) from None
        if client.overflow:
            raise LectureError(f"cell output passed the limit of {self.max_output:,} bytes and the cell was "
                               f"stopped; print a summary instead (the limit is 'lecturekit: max-output:' "
                               f"in _quarto.yml)", *where, label)
        return cell

    def _cell(self, client: _BoundedClient, cell: qmd.Cell, index: int, total: int) -> dict[str, Any]:
        where = (cell.file, cell.line)
        label = cell.label or f"#{index}"
        if not cell.options.get("eval", True):
            return {"outputs": [], "execution_count": None, "seconds": 0.0}
        self.progress(f"[{self.lecture.name}] cell {index}/{total} {label} ({Path(cell.file).name}:{cell.line})")
        sized = "fig-width" in cell.options or "fig-height" in cell.options
        if sized:
            size = f"{cell.options.get('fig-width')!r}, {cell.options.get('fig-height')!r}"
            self._quiet(client, _kernel_call(kernel_side.cell_figsize, size))
        started = time.perf_counter()
        executed = self._execute(client, cell.code, where, cell.label, cell.options.get("timeout", self.timeout))
        seconds = time.perf_counter() - started
        if sized:
            self._quiet(client, _kernel_call(kernel_side.cell_figsize, "None, None"))
        self.timings["cells"][label] = seconds
        outputs = [dict(o) for o in executed.outputs]
        traceback = _traceback(outputs)
        expects_error = cell.options.get("error", False)
        if traceback and not expects_error:
            raise LectureError("cell raised an exception (add '#| error: true' if that is the point)",
                               *where, cell.label, detail=traceback)
        recorded = json.loads(json.dumps(outputs))
        client.rebind(executed.outputs, recorded)
        return {"outputs": recorded, "execution_count": executed.get("execution_count"),
                "seconds": round(seconds, 4), "raised": bool(traceback)}

    def _batch(self, client: _BoundedClient, block: qmd.Markdown) -> tuple[list[str], list[dict[str, Any]]] | None:
        """A markdown block's inline expressions and claims in one request (one round trip instead
        of one per expression); each still prints exactly what it would print on its own.
        None when an expression raises, so the caller can name it."""
        exprs = [inline.expr for inline in block.inline]
        claims = block.claims
        if not exprs and not claims:
            return [], []
        items = [f"lambda: print({expr}, end='')" for expr in exprs]
        items += ["lambda: " + _CLAIM_CODE.format(expr=claim.expr) for claim in claims]
        # The callables are made at the top level, so names resolve as in the cells.
        source = _kernel_call(kernel_side.print_each, "[\n    " + ",\n    ".join(items) + "]")
        # A time-out or a dead kernel is final; only an expression that raised is retried alone.
        executed = self._execute(client, source, (block.file, block.line), None, self.timeout)
        if _traceback(executed.outputs):
            return None
        try:
            printed = json.loads(_stdout(executed.outputs))
        except json.JSONDecodeError:
            return None
        values = printed[:len(exprs)]
        found = []
        for claim, text in zip(claims, printed[len(exprs):]):
            try:
                value = json.loads(text or "null")
            except json.JSONDecodeError:
                return None
            found.append({"sentence": claim.sentence, "expr": claim.expr, "file": str(block.file), "line": claim.line,
                          "ok": value is True, "error": None})
        return values, found

    def _inline(self, client: _BoundedClient, block: qmd.Markdown, inline: qmd.Inline) -> str:
        expr, line = inline.expr, inline.line
        executed = self._execute(client, f"print({expr}, end='')", (block.file, line), None, self.timeout)
        traceback = _traceback(executed.outputs)
        if traceback:
            raise LectureError(f"inline expression `{{python}} {expr}` raised", block.file, line, detail=traceback)
        return _stdout(executed.outputs)

    def _claim(self, client: _BoundedClient, block: qmd.Markdown, claim: qmd.Claim) -> dict[str, Any]:
        sentence, expr, line = claim.sentence, claim.expr, claim.line
        executed = self._execute(client, _CLAIM_CODE.format(expr=expr), (block.file, line), None, self.timeout)
        traceback = _traceback(executed.outputs)
        value = None if traceback else json.loads(_stdout(executed.outputs) or "null")
        return {"sentence": sentence, "expr": expr, "file": str(block.file), "line": line,
                "ok": value is True, "error": traceback}


def progress_printer(stream: IO[str] | None = None) -> Callable[[str], None]:
    out = stream or sys.stderr

    def show(message: str) -> None:
        print(message, file=out, flush=True)
    return show

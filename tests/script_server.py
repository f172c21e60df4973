"""Student scripts run as `python script.py` runs them, without each paying for `import torch` again.

A fresh interpreter spends most of a short script's CPU importing torch and numpy. The server is one
interpreter, started with a student's environment, that imports the third-party libraries the
scripts import (never the course's own code/: the scripts find it through their `_setup_path`, as a
student's do) and runs no torch operation (thread pools are made at the first one, in each script's
own process). For each script it forks a child that becomes what `python script.py` would be:

- fds 0, 1, 2 are /dev/null and two files, so C-level writes are caught as a pipe would catch them
  (the interpreter's sys.stdout, made at the server's start on /dev/null, is block-buffered as a
  script's captured stdout is, and holds nothing: the server reads requests with os.read on fd 0
  and answers on a pipe of its own, which the child closes);
- the working folder is the script's, sys.argv is [script, *args], sys.path[0] the script's folder
  (symbolic links resolved, as the interpreter does) and the rest of sys.path what it is at startup
  less the course's code/ (the project's venv adds it through lecture-code.pth, for Quarto's kernel;
  a student's Python has no such entry, and the script's `_setup_path` must find the package);
- the script runs in a `__main__` module made as the interpreter makes it; an uncaught exception
  prints the traceback from the script's own frames and exits 1, SystemExit exits as the
  interpreter exits (it propagates out of the server's loop), and the interpreter's own shutdown
  (threads joined, atexit, __main__ cleared, files flushed) ends the child as it ends a fresh one;
- what a fresh interpreter seeds from the OS is seeded again: Python's `random` reseeds itself after
  a fork, numpy's global generator is reseeded here; torch's default generator starts from its
  fixed seed in both (the server draws nothing from it).

The server answers each request when its child exits, with the child's exit status; its CPU is the
server's children's (tests/budget.py counts the server and what it reaped). test_scripts proves a
forked run equal to a fresh interpreter's, on a real script and on one that tries each path above.

Run as a program it is the server (stdlib only until it imports what it was told to); imported, it
is the client, `ScriptServer`.
"""
from __future__ import annotations

import ast
import builtins
import gc
import importlib.machinery
import json
import locale
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
import types
from concurrent.futures import Future
from pathlib import Path


# ---- the server (the child of the test process) -------------------------------------------------

def _preload(modules: list, code_dir: str) -> list:
    """Import `modules`; refuse when that imported anything of code/: each script imports the
    course's code itself (its import-time work is the script's), found as a fresh interpreter finds it."""
    import importlib
    for name in modules:
        importlib.import_module(name)
    code = os.path.realpath(code_dir) + os.sep
    of_code = sorted(name for name, module in list(sys.modules.items())
                     if os.path.realpath(getattr(module, "__file__", None) or "/").startswith(code))
    if of_code:
        raise SystemExit(f"script server: importing {modules} imported the course's code: {of_code}")
    return sorted(modules)


def _become_script(request: dict, startup_path: list) -> None:
    """In the forked child: be `python script args…` run from request["cwd"]. Never returns: the
    script's end raises SystemExit, which leaves through the server's loop to the interpreter."""
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    script = request["script"]
    sys.argv = [script, *request["args"]]
    sys.path[:] = [os.path.dirname(os.path.realpath(script)), *startup_path[1:]]
    if "numpy.random" in sys.modules:  # its global generator, seeded from the OS in a fresh interpreter
        sys.modules["numpy.random"].seed()
    # A __main__ of its own, as the interpreter makes it, kept in sys.modules until the shutdown
    # clears it (runpy.run_path would drop it at once: what it holds would be finalised otherwise).
    main = types.ModuleType("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins, __file__=script, __cached__=None,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", script))
    sys.modules["__main__"] = main
    try:
        with open(script, "rb") as source:
            code = compile(source.read(), script, "exec")
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as error:  # what the interpreter prints: the frames from the script's on
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename != script:
            trace = trace.tb_next
        sys.excepthook(type(error), error.with_traceback(trace), trace)  # it prints error's own
        raise SystemExit(1) from None
    raise SystemExit(0)


def serve(modules: list, code_dir: str, answers: int) -> None:
    """Requests (JSON lines on fd 0) in, answers (JSON lines on fd `answers`) out as each child
    exits; ends when fd 0 closes and every child has exited."""
    code = os.path.realpath(code_dir)
    sys.path[:] = [entry for entry in sys.path if os.path.realpath(entry) != code]  # a student's
    startup_path = list(sys.path)
    loaded = _preload(modules, code_dir)
    os.write(answers, (json.dumps({"ready": loaded}) + "\n").encode())
    children: dict = {}  # pidfd -> (request id, pid, deadline)
    pending, reading = b"", True
    while reading or children:
        deadlines = [deadline for _id, _pid, deadline in children.values()]
        wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        ready, _, _ = select.select(([0] if reading else []) + list(children), [], [], wait)
        if 0 in ready:
            chunk = os.read(0, 65536)
            reading = bool(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in filter(None, lines):
                request = json.loads(line)
                # What exists now is never collected in the server: a child's collections and
                # shutdown then skip it, instead of touching (and so copying) every page of torch's.
                gc.freeze()
                pid = os.fork()
                if pid == 0:
                    for fd in [answers, *children]:
                        os.close(fd)
                    _become_script(request, startup_path)
                children[os.pidfd_open(pid)] = (request["id"], pid, time.monotonic() + request["timeout"])
        now = time.monotonic()
        for pidfd, (request_id, pid, deadline) in list(children.items()):
            timed_out = pidfd not in ready and now >= deadline
            if timed_out:
                os.kill(pid, 9)
            if pidfd in ready or timed_out:
                _pid, status, usage = os.wait4(pid, 0)
                os.close(pidfd)
                del children[pidfd]
                answer = {"id": request_id, "returncode": os.waitstatus_to_exitcode(status),
                          "timed_out": timed_out, "cpu": usage.ru_utime + usage.ru_stime}
                os.write(answers, (json.dumps(answer) + "\n").encode())


# ---- the client (in the test process) ------------------------------------------------------------

def third_party_imports(scripts, code_dir: Path) -> list:
    """The top-level modules the scripts import at module level that are neither the standard
    library's nor the course's (a package or module in code/, or a helper beside the script)."""
    names = set()
    for script in scripts:
        for node in ast.parse(Path(script).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.partition(".")[0])
    local = {p.stem for folder in {Path(s).parent for s in scripts} | {Path(code_dir)} for p in folder.iterdir()}
    return sorted(names - set(sys.stdlib_module_names) - local - {"__future__"})


class ScriptServer:
    """The client: `run(script, cwd, args)` → a CompletedProcess as `subprocess.run([python, script,
    *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=…)` returns it (raising
    TimeoutExpired likewise). Thread-safe; the server starts at the first run; `close()` ends it."""

    def __init__(self, python: str, env: dict, modules: list, code_dir: Path):
        self.python, self.env, self.modules, self.code_dir = python, env, modules, Path(code_dir)
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._answers: dict = {}
        self._next_id = 0
        self.loaded: list = []

    def _start(self) -> subprocess.Popen:
        readable, writable = os.pipe()
        try:
            process = subprocess.Popen(
                [self.python, __file__, json.dumps(self.modules), str(self.code_dir), str(writable)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, pass_fds=(writable,), env=self.env,
                cwd=tempfile.gettempdir())
        finally:
            os.close(writable)
        answers = os.fdopen(readable, "rb")
        first = answers.readline()
        if not first:
            raise RuntimeError(f"the script server ended at its start (exit {process.wait()})")
        self.loaded = json.loads(first)["ready"]
        threading.Thread(target=self._read_answers, args=(process, answers), daemon=True).start()
        return process

    def _read_answers(self, process: subprocess.Popen, answers) -> None:
        try:
            for line in answers:
                answer = json.loads(line)
                with self._lock:
                    future = self._answers.pop(answer["id"])
                future.set_result(answer)
            failure = RuntimeError(f"the script server ended (exit {process.wait()})")
        except Exception as error:  # an answer it cannot read: nothing after it can be trusted
            failure = RuntimeError(f"the script server's answer is unreadable: {error!r}")
        with self._lock:  # whoever still waits hears why
            waiting, self._answers = list(self._answers.values()), {}
        for future in waiting:
            future.set_exception(failure)

    def run(self, script: Path, cwd: Path, args=(), *, timeout: float = 300) -> subprocess.CompletedProcess:
        command = [self.python, str(script), *args]
        with tempfile.TemporaryDirectory() as outputs:
            request = {"script": str(script), "cwd": str(cwd), "args": list(args), "timeout": timeout,
                       "stdout": os.path.join(outputs, "stdout"), "stderr": os.path.join(outputs, "stderr")}
            with self._lock:
                if self._process is None:
                    self._process = self._start()
                request["id"], self._next_id = self._next_id, self._next_id + 1
                future: Future = Future()
                self._answers[request["id"]] = future
                self._process.stdin.write((json.dumps(request) + "\n").encode())
                self._process.stdin.flush()
            answer = future.result()
            stdout, stderr = (_as_text(Path(request[name]).read_bytes()) for name in ("stdout", "stderr"))
        if answer["timed_out"]:
            raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
        return subprocess.CompletedProcess(command, answer["returncode"], stdout, stderr)

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            process.stdin.close()
            process.wait()


def _as_text(data: bytes) -> str:
    """What subprocess's text mode makes of captured bytes: the locale's encoding, newlines as \\n."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]))

"""CPU time and memory of a process and every process under it, read through psutil: what the test
suite's cost summary (tests/budget.py), the tests that run work side by side and `scripts/bench` count.

A process's CPU is user + system time of the process itself, of its reaped children (the kernel adds
a child's times to its parent's when the parent waits for it) and of every live descendant, with
their reaped children in turn: nothing is counted twice, and a descendant that ended between two
readings still counts, in the process that reaped it.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil  # type: ignore[import-untyped]

# How often a running command's tree is read (about a millisecond of CPU each time).
INTERVAL = 0.1


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:  # the root has ended
        return []


def _cpu(process: psutil.Process) -> float:
    try:
        t = process.cpu_times()
    except psutil.Error:  # ended since it was listed: its times are its parent's once reaped
        return 0.0
    return float(t.user + t.system + t.children_user + t.children_system)


def _rss(process: psutil.Process) -> int:
    try:
        return int(process.memory_info().rss)
    except psutil.Error:
        return 0


def tree_cpu(pid: int | None = None) -> float:
    """CPU seconds used so far by a process (default: this one), its reaped children and its live
    descendants."""
    return sum(map(_cpu, _tree(psutil.Process(pid))))


@dataclass
class Measured:
    """One command run to its end: its output, wall time, CPU time (the process and every process
    under it) and peak memory."""
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    cpu_seconds: float
    # The largest resident memory seen: the tree's sum at a reading, or a single process's own peak
    # (ru_maxrss), which catches what lived between two readings.
    peak_rss: int

    def completed(self) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(self.command, self.returncode, self.stdout, self.stderr)


def run(command: Sequence[str | Path], *, cwd: Path | str | None = None, env: dict[str, str] | None = None,
        timeout: float | None = None, interval: float = INTERVAL) -> Measured:
    """Run `command` to its end (killed after `timeout` seconds), its output captured as text, and
    measure it. Its CPU is the rusage the command's own wait returns (the process and every
    descendant reaped within its tree: other commands run beside it are not in it), or, when
    larger, the last reading of its tree while it ran (a descendant it left running and did not
    wait for)."""
    args = [str(part) for part in command]
    cpu = peak = 0.0
    stop = threading.Event()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(args, stdout=out, stderr=err, cwd=cwd, env=env)
        root = psutil.Process(process.pid)

        def sample() -> None:
            nonlocal cpu, peak
            while not stop.is_set():
                tree = _tree(root)
                if tree:
                    cpu = max(cpu, sum(map(_cpu, tree)))
                    peak = max(peak, sum(map(_rss, tree)))
                stop.wait(interval)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        timer = threading.Timer(timeout, process.kill) if timeout else None
        if timer:
            timer.start()
        try:
            # Reaped here, not by Popen: its wait4 returns the rusage of this command's tree alone.
            _pid, status, usage = os.wait4(process.pid, 0)
        finally:
            stop.set()
            if timer:
                timer.cancel()
        seconds = time.perf_counter() - started
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(args, process.returncode, out.read().decode("utf-8", "replace"),
                        err.read().decode("utf-8", "replace"), seconds,
                        max(cpu, usage.ru_utime + usage.ru_stime),
                        int(max(peak, usage.ru_maxrss * 1024)))  # ru_maxrss: KB on Linux

"""The process meter (`lecturekit.meter`) that the cost summary, the side-by-side executions and
scripts/bench count with: a process tree's CPU, descendants alive and reaped, and of one command
among others run beside it. Each process burns a known amount of CPU and reports its own."""
import os
import subprocess
import sys
import threading
import time

from lecturekit import meter

# Burns `seconds` of its own CPU, prints how much it used (user + system), then sleeps `rest`.
BURN = ("import sys, time\nstart = time.process_time()\nwhile time.process_time() - start < float(sys.argv[1]):\n"
        "    pass\nprint(time.process_time(), flush=True)\ntime.sleep(float(sys.argv[2]))\n")
# Runs BURN as its child (`seconds` of CPU) and waits for it, then waits for the file `go`, and
# prints both processes' own CPU.
PARENT = ("import os, subprocess, sys, time\n"
          "child = subprocess.run([sys.executable, '-c', sys.argv[1], sys.argv[2], '0'], capture_output=True,"
          " text=True, check=True)\n"
          "while not os.path.exists(sys.argv[3]):\n    time.sleep(0.05)\n"
          "print(float(child.stdout) + time.process_time())\n")
# Interpreter start-ups and waiting: what a measurement may hold beyond the burns.
SLACK = 0.5
# A live process's times are read in clock ticks (/proc/<pid>/stat): a tick each may be missing.
TICK = 1 / os.sysconf("SC_CLK_TCK")


def burn(seconds: float, rest: float = 0.0) -> list[str]:
    return [sys.executable, "-c", BURN, str(seconds), str(rest)]


def test_a_command_counts_its_descendants_and_not_the_command_beside_it(tmp_path):
    """The command's own CPU and its reaped child's are in its measurement; another command,
    measured in another thread and ended while the first still ran, is not."""
    go = tmp_path / "go"
    measured = {}
    light = threading.Thread(target=lambda: measured.setdefault(
        "light", meter.run([sys.executable, "-c", PARENT, BURN, "0.4", str(go)])))
    light.start()
    heavy = meter.run(burn(1.0))
    go.touch()  # the heavy command has ended and been reaped: now the light one may end
    light.join()
    light = measured["light"]
    own = float(light.stdout)  # the parent's and its child's own CPU, as they report it
    assert light.returncode == 0 and own >= 0.4, light.stderr
    assert own <= light.cpu_seconds <= own + SLACK, (own, light.cpu_seconds)
    assert heavy.cpu_seconds >= 1.0
    assert light.seconds > 0 and light.peak_rss > 2**20


def test_the_tree_counts_live_descendants_and_keeps_them_once_reaped():
    """tree_cpu (the cost summary's reading): a child still running is counted with its CPU so far,
    and the same CPU stays counted after it is reaped (in this process's children's times)."""
    before = meter.tree_cpu()
    child = subprocess.Popen(burn(0.6, rest=30), stdout=subprocess.PIPE, text=True)
    try:
        used = float(child.stdout.readline())  # burned, now asleep and alive
        alive = meter.tree_cpu() - before
        assert child.poll() is None
        assert used - 2 * TICK <= alive <= used + SLACK, (used, alive)
    finally:
        child.kill()
        child.wait()
    assert meter.tree_cpu() - before >= used - 2 * TICK

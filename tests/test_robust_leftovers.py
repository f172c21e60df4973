"""What a killed render leaves behind: no child keeps running, and the next render removes its
files aside and its kernel's folder. The products are replaced together or not at all."""
import contextlib
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from helpers import RENDER, processes_under, start_slow_handout
from test_bad_input import products
from test_pipeline import GOOD


def dead_pid():
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def left_running_after_kill(run, root):
    """kill -9 of the render `run`; what still runs under `root` 3 s later (then killed, so that
    it does not run on for the rest of the suite)."""
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 3
    while processes_under(root) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes_under(root)
    for pid, _cmd in left:
        with contextlib.suppress(OSError):
            os.kill(int(pid), signal.SIGKILL)
    return left


def test_the_next_render_removes_what_killed_renders_left(copy):  # noqa: F811
    out = copy.root / "_output" / "demo"
    gone, alive = dead_pid(), os.getpid()
    stale = [out / f".slides.html.{gone}.tmp", out / f".handout.pdf.{gone}.tmp",
             copy.root / "_build" / "cache" / "demo" / f".x.json.{gone}.1234.tmp",
             copy.root / "figures" / "demo" / f".fig-a.svg.{gone}.99.tmp", out / f".slides.html.{gone}.old.tmp"]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * 1000)
    running = out / f".slides.html.{alive}.tmp"  # a render that is still running keeps its file
    running.write_bytes(b"y")
    run_dir = Path(tempfile.gettempdir()) / f"lecturekit-{gone}-abc"
    run_dir.mkdir()
    (run_dir / "kernel.json").write_text("{}")
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert [p for p in stale if p.exists()] == []
    assert not run_dir.exists()
    assert running.exists()
    running.unlink()


def test_a_failing_second_rename_keeps_the_old_slides(copy):  # noqa: F811
    """The handout cannot be renamed into place (a folder took its name): the slides, already
    renamed, get their old bytes back."""
    slides_before = copy.slides.read_bytes()
    copy.handout.unlink()
    copy.handout.mkdir()
    copy.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"))
    result = copy.render()
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "handout.pdf" in result.stderr.splitlines()[-1], result.stderr
    assert copy.slides.read_bytes() == slides_before
    assert not list(copy.slides.parent.glob(".*.tmp"))


def test_a_killed_render_leaves_no_typst_running(copy):  # noqa: F811
    """kill -9 of the render while Typst compiles a long handout: Typst ends with it."""
    run, typst_busy = start_slow_handout(copy, GOOD)
    deadline = time.monotonic() + 120
    while not typst_busy():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, "Typst never started"
        time.sleep(0.05)
    assert left_running_after_kill(run, copy.root) == []
    # The next render removes the files the killed one left aside.
    copy.write(GOOD)
    assert copy.render().returncode == 0
    assert not list((copy.root / "_output" / "demo").glob(".*.tmp"))
    assert not list(Path(tempfile.gettempdir()).glob(f"lecturekit-{run.pid}-*"))


def test_a_killed_render_leaves_no_kernel_running(copy):  # noqa: F811
    """kill -9 of the render while a cell runs: its kernel (in a session of its own, which no
    terminal's Ctrl-C reaches) ends with it."""
    copy.write(GOOD + '\n```{python}\n#| label: slow\nimport time\nfor _ in range(600):\n    time.sleep(0.1)\n```\n')
    run = subprocess.Popen([RENDER, "--fresh"], cwd=copy.root, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while "cell 2/2 slow" not in run.stderr.readline():
        assert run.poll() is None and time.monotonic() < deadline, "the slow cell never started"
    assert [cmd for _pid, cmd in processes_under(copy.root) if "ipykernel" in cmd], "no kernel seen running"
    assert left_running_after_kill(run, copy.root) == []


def test_a_typst_error_names_the_lecture_line(copy):  # noqa: F811
    """A picture that is no picture: Typst fails on a line of _build/demo/demo.typ; the message
    names the line of the lecture that put it there."""
    before = products(copy)
    figures = copy.root / "figures" / "demo"
    figures.mkdir(parents=True, exist_ok=True)
    (figures / "broken-photo.png").write_text("not a png at all\n")
    copy.write(GOOD + "\n## ছবি {#sec-photo}\n\nএকটি লাইন।\n\n![ভাঙা ছবি](../../figures/demo/broken-photo.png)\n\n"
               "শেষ লাইন।\n")
    index = copy.lecture / "index.qmd"
    result = copy.render()
    assert result.returncode == 1, result.stderr
    line = next(n for n, text in enumerate(index.read_text(encoding="utf-8").split("\n"), 1) if "broken-photo" in text)
    assert f"index.qmd:{line}: typst could not compile the handout" in result.stderr, result.stderr
    assert products(copy) == before

"""The kernel stage under faults: output past the limit (every part of it) fails at once, with the right
words; what a cell sends is kept (display updates, text that cannot be encoded); a cell that kills
its parent is named."""
import subprocess
import time

import pytest

from helpers import RENDER, start_render

from test_bad_input import products
from test_pipeline import GOOD, line_of


@pytest.mark.parametrize("code", [
    'print("x" * 600_000)',
    'import sys\nsys.stdout.write("z" * 520_000)',
    # An interrupt that lands where it cannot stop the cell (here: ignored) must not matter.
    'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("x" * 600_000)\ntime.sleep(60)',
], ids=["print", "write", "interrupt-ignored"])
def test_output_just_past_the_limit_fails_at_once(copy, code):  # noqa: F811
    before = products(copy)
    copy.write(GOOD + f"\n```{{python}}\n#| label: big\n#| timeout: 40\n{code}\n```\n")
    index = copy.lecture / "index.qmd"
    # Timed from the cell's start (its progress line), not from the command's: the kernel's start is
    # the machine's load, not this guarantee.
    run = start_render(copy, quiet=False)
    seen = []
    for line in run.stderr:
        seen.append(line)
        if "cell 2/2 big" in line:
            break
    started = time.monotonic()
    rest = run.stderr.read()
    run.wait(timeout=120)
    seconds = time.monotonic() - started
    stderr = "".join(seen) + rest
    print(f"failed {seconds:.1f} s after the cell started")
    assert run.returncode == 1, stderr
    assert "output passed the limit" in stderr, stderr
    # The render's own words (the kernel's logger may note the interrupt that stopped it, as it goes).
    ours = "\n".join(line for line in stderr.splitlines() if not line.startswith("[IPKernelApp]"))
    assert "time limit" not in ours and "KeyboardInterrupt" not in ours, stderr
    assert f"index.qmd:{line_of(index, '```{python}', 2)}:" in stderr
    # well inside the cell's 40 s limit (the sleeping cell would otherwise end by it)
    assert seconds < 20, seconds
    assert products(copy) == before


@pytest.mark.parametrize("group", [True, False], ids=["terminal", "kill-INT"])
def test_ctrl_c_in_a_cell_that_ignores_it_leaves_no_traceback(copy, group):  # noqa: F811
    from helpers import processes_under, start_render
    from test_bad_input import interrupt_when
    before = products(copy)
    copy.write(GOOD + "\n```{python}\n#| label: deaf\nimport signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
               "for _ in range(600):\n    time.sleep(0.1)\n```\n")
    run = start_render(copy, quiet=False, start_new_session=True)
    seen = []

    def cell_started():
        line = run.stderr.readline()
        seen.append(line)
        return "cell 2/2 deaf" in line
    seconds = interrupt_when(copy, run, cell_started, "a cell that ignores SIGINT", group=group)
    err = "".join(seen) + run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert run.returncode == 130, err
    assert "Traceback" not in err and "Task exception" not in err and "asyncio" not in err, err
    assert seconds < 3, seconds
    assert processes_under(copy.root) == []
    assert products(copy) == before


# ---- what a cell sends is kept, bounded and never replaced by the kernel's own traceback ----------

UNUSUAL_OUTPUT = r'''
```{python}
#| label: shown
from IPython.display import display
handle = display("এক", display_id=True)
handle.update("দুই")
```

```{python}
#| label: later
handle.update("তিন")
print("before")
print("x\ud800y")
print("after")
display({"text/plain": "d\ud800e"}, raw=True)
"r\udfffs"
```

```{python}
#| label: raised
#| error: true
raise ValueError("bad \ud800 text")
```
'''


def test_display_updates_and_lone_surrogates_are_kept(copy):  # noqa: F811
    """`display(..., display_id=True).update(...)` replaces its output, in its cell and from a later
    one (nbclient's own bookkeeping raised IndexError or lost it); a lone surrogate is printed as its
    escape, and the kernel's own traceback (with the machine's paths) never reaches the deck."""
    import json
    copy.write(GOOD + UNUSUAL_OUTPUT)
    result = copy.render()
    assert result.returncode == 0, result.stderr
    notebook = json.loads((copy.root / "_build" / "demo" / "demo.ipynb").read_text(encoding="utf-8"))
    def text(output):  # the notebook on disk holds multi-line text as a list of lines
        value = output.get("text") or output.get("data", {}).get("text/plain") or output.get("evalue", "")
        return "".join(value) if isinstance(value, list) else value
    def texts_of(outputs):  # printed text as one (the kernel may send it in one piece or several)
        printed = "".join(text(o) for o in outputs if o["output_type"] == "stream")
        return ([printed] if printed else []) + [text(o) for o in outputs if o["output_type"] != "stream"]
    texts = {c["metadata"]["lecture"]["label"]: texts_of(c["outputs"]) for c in notebook["cells"]
             if c["cell_type"] == "code"}
    assert texts["shown"] == ["'তিন'"], texts
    assert texts["later"] == ["before\nx\\ud800y\nafter\n", "d\\ud800e", "'r\\udfffs'"], texts
    assert texts["raised"] == ["bad \\ud800 text"], texts
    slides = copy.slides.read_text(encoding="utf-8")
    assert "x\\ud800y" in slides and "তিন" in slides
    for leak in ("Traceback", "tornado", "ZMQStream", "site-packages", str(copy.root)):
        assert leak not in slides, leak


@pytest.mark.parametrize("kill", [
    "os.kill(os.getppid(), signal.SIGKILL)",
    "os.kill(os.getppid(), signal.SIGTERM)",
    "os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)",
    "os._exit(3)",
], ids=["kill parent", "terminate parent", "kill parent's group", "exit"])
def test_a_cell_that_kills_its_parent_is_named(copy, kill):  # noqa: F811
    """The kernel's parent is a small process of its own: a cell that kills it takes the kernel down,
    and the render names the cell, instead of ending without a word."""
    from helpers import processes_under
    before = products(copy)
    copy.write(GOOD + f"\n```{{python}}\n#| label: fatal\nimport os, signal, time\n{kill}\ntime.sleep(30)\n```\n")
    index = copy.lecture / "index.qmd"
    started = time.monotonic()
    # In a session of its own: were the render killed, its process group would take pytest along.
    result = subprocess.run([RENDER, "--quiet"], cwd=copy.root, capture_output=True, text=True, timeout=120,
                            start_new_session=True)
    seconds = time.monotonic() - started
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert f"index.qmd:{line_of(index, '```{python}', 2)}: [cell fatal] the kernel died" in result.stderr, result.stderr
    assert seconds < 60, seconds
    assert products(copy) == before
    assert processes_under(copy.root) == []


@pytest.mark.parametrize("code", [
    'from IPython.display import display\ndisplay({"text/plain": "x"}, raw=True, metadata={"x": "y" * 30_000_000})',
    'class Big:\n    def _repr_mimebundle_(self, include=None, exclude=None):\n'
    '        return {"text/plain": "big"}, {"text/plain": {"pad": "z" * 600_000}}\nBig()',
    'from IPython.display import display\nh = display("small", display_id=True)\nh.update({"text/plain": "w" * 600_000}, raw=True)',
    'from IPython.display import display\ndisplay({"text/plain": "a", "text/html": "<b>b</b>" * 80_000}, raw=True)',
], ids=["display metadata", "result metadata", "display update", "a second mime type"])
def test_every_part_of_an_output_is_bounded(copy, code):  # noqa: F811
    """Data of every mime type, metadata and display updates count towards the cell's bound: none
    may slip a 30 MB notebook and cache entry past it."""
    before = products(copy)
    copy.write(GOOD + f"\n```{{python}}\n#| label: big\n#| timeout: 60\n{code}\n```\n")
    index = copy.lecture / "index.qmd"
    started = time.monotonic()
    result = copy.render()
    seconds = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert "output passed the limit" in result.stderr, result.stderr
    assert f"index.qmd:{line_of(index, '```{python}', 2)}:" in result.stderr
    assert seconds < 45, seconds
    assert products(copy) == before
    assert all(entry.stat().st_size < 1_000_000 for entry in (copy.root / "_build" / "cache").rglob("*.json"))

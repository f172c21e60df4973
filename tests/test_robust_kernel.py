"""The kernel stage under faults: output just past the limit fails at once, with the right words."""
import time

import pytest

from test_bad_input import copy, products, rendered_mini  # noqa: F401  (fixtures)
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
    started = time.monotonic()
    result = copy.render()
    seconds = time.monotonic() - started
    print(f"failed after {seconds:.1f} s")
    assert result.returncode == 1, result.stderr
    assert "output passed the limit" in result.stderr, result.stderr
    assert "time limit" not in result.stderr and "KeyboardInterrupt" not in result.stderr, result.stderr
    assert f"index.qmd:{line_of(index, '```{python}', 2)}:" in result.stderr
    assert seconds < 30, seconds
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

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

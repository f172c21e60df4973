"""`scripts/bench` runs: on a tiny lecture (one torch-free cell, one inline value) it measures every
row, ours and, when Quarto is here, Quarto's, and writes the JSON and the table. Not a timed test:
it asserts the shape of what the bench wrote and that every measured time is a positive number."""
import json
import math
import re
import subprocess

import pytest

from helpers import BIN, ROOT
from lecturekit.cli.bench import ROWS, find_quarto
from lecturekit.course.scaffold.projects import ProjectBuilder

TINY = """\
# গুনতি {#sec-count}

দুই আর তিনের যোগফল `{python} 2 + 3`।

এখানে কেবল কথা, কোনো হিসাব নেই।

```{python}
#| label: squares
print([i * i for i in range(4)])
```
"""

OURS = {"cold", "warm", "no_change", "prose_edit", "check_cached", "check_fresh", "floor"}
QUARTO = {"cold", "warm", "no_change", "prose_edit", "quarto_executes"}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    source = ProjectBuilder(tmp / "source", ROOT)
    source.add_lecture("01-tiny", TINY, front={"title": "ছোট পর্ব", "course": "বাংলায় PyTorch", "episode": 1,
                                              "episodes": 91, "module": 1})
    out = tmp / "out"
    run = subprocess.run([str(BIN / "lecture-bench"), "--source", str(source.root), "--lecture", "01-tiny",
                          "--skip-scale", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((out / "bench.json").read_text(encoding="utf-8")), (out / "bench.md").read_text(encoding="utf-8")


def positive(value):
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def test_our_renderer_is_measured_row_by_row(bench):
    numbers, _table = bench
    assert list(numbers["lectures"]) == ["01-tiny"]
    ours = numbers["lectures"]["01-tiny"]["ours"]
    assert OURS <= set(ours), sorted(ours)
    assert all(positive(ours[key]) for key in OURS), ours
    # The floor is part of the cold render, and the cell that ran is in it.
    assert ours["floor"] < ours["cold"] and "squares" in ours["cells"]
    assert ours["prose_edit_executed"] is False  # a sentence more is not a reason to execute again
    assert all(positive(ours["stages"][key]) for key in ("startup", "kernel_start", "execute", "write", "inside_cli"))
    assert numbers["machine"]["cores"] >= 1 and len(numbers["machine"]["load_average_start"]) == 3


def test_the_preview_is_measured_edit_by_edit(bench):
    """scripts/preview: every prose edit reached the browser, from the cache, with the server's time
    and CPU time."""
    numbers, _table = bench
    preview = numbers["lectures"]["01-tiny"]["preview"]
    assert len(preview["prose_visible"]) == 5 and all(positive(v) for v in preview["prose_visible"]), preview
    assert preview["deck_from_cache"] is True
    assert preview["deck_seconds"] and all(positive(v) for v in preview["deck_seconds"])
    # Each prose edit rewrote only the slides of the part it is in, and what was served at the end
    # equals a full render's slides.
    assert preview["spliced"] == 5, preview
    assert all(positive(stages["splice"]) for stages in preview["deck_stages"]), preview["deck_stages"]
    assert all(positive(v) for v in preview["deck_cpu_seconds"]), preview
    assert preview["same_as_full_render"] is True


def test_quarto_is_measured_beside_it_when_present(bench):
    numbers, _table = bench
    entry = numbers["lectures"]["01-tiny"]
    if find_quarto() is None:  # no Quarto: the JSON says so, and there is no Quarto column to check
        assert numbers["quarto"] is None and "quarto" not in entry
        return
    assert numbers["quarto"] == find_quarto()
    assert QUARTO <= set(entry["quarto"]), sorted(entry["quarto"])
    assert all(positive(entry["quarto"][key]) for key in QUARTO), entry["quarto"]


def test_the_table_has_a_row_per_measurement(bench):
    numbers, table = bench
    assert "| measurement | `scripts/render` | `quarto render` |" in table
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| measurement")]
    assert [row.split(" | ")[0][2:] for row in rows] == [label for _key, label in ROWS]
    # Ours measured on every row but Quarto's own execution (with or without a Quarto here).
    assert [key for (key, _label), row in zip(ROWS, rows) if not row.split(" | ")[1].endswith(" s")] == \
        ["quarto_executes"], rows
    cold = next(line for line in rows if line.startswith("| cold"))
    assert f"{numbers['lectures']['01-tiny']['ours']['cold']:.1f} s" in cold


def test_the_scale_rows_their_growth_and_plot(tmp_path):
    """The course-size part of the bench, from rows as bench_scale records them (no render here): a
    table row per size and worker count, the cost of each lecture more between sizes, and a plot that
    is the same file for the same numbers."""
    from lecturekit.cli.bench import growth, scale_plot, scale_table

    def row(count, jobs, no_change):
        return {"count": count, "jobs": jobs, "cold": 3.0 * count / jobs, "no_change": no_change,
                "no_change_cpu": no_change / 2,
                "no_change_runs": [no_change - 0.1, no_change, no_change + 0.2], "one_changed": 4.0, "prose": 3.0,
                "load_before": [2.0, 2.0, 2.0], "load_after": [3.0, 2.0, 2.0]}

    rows = [row(10, 1, 2.0), row(30, 1, 3.0), row(91, 1, 6.05), row(10, 2, 2.0), row(30, 2, 2.5), row(91, 2, 5.55)]
    lines = scale_table(rows)
    assert sum(line.startswith("| 91 | 2 | 136.5 s | 5.55 s (3 runs) |") for line in lines) == 1
    assert len([line for line in lines if re.match(r"\| \d+ \| \d \|", line)]) == 6
    steps = growth(rows)
    assert steps["jobs 1: 10 → 30"]["no_change"] == pytest.approx(0.05)
    assert steps["jobs 1: 30 → 91"]["no_change"] == pytest.approx(0.05)
    assert steps["jobs 1: 30 → 91"]["no_change_cpu"] == pytest.approx(0.025)
    assert steps["jobs 2: 30 → 91"]["cold"] == pytest.approx(1.5)
    first, second = scale_plot(rows, tmp_path / "a.svg"), scale_plot(rows, tmp_path / "b.svg")
    assert first.read_bytes() == second.read_bytes() and b"<svg" in first.read_bytes()
    assert b"no change: run again" in first.read_bytes()

"""The executed notebook passes the check Jupyter users know: `pytest --nbval` re-runs it in a plain
kernel and compares every output, figure bytes included.

A small lecture with what used to fail nbval: an intended error (tagged `raises-exception`) and a
figure sized by `#| fig-width` / `#| fig-height` (courseplot reads the cell's own option lines, so
a kernel that knows nothing of the kit draws the same PDF and SVG bytes).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lecturekit.cli.render import main as render_main
from lecturekit.course.scaffold.projects import ProjectBuilder

ROOT = Path(__file__).resolve().parents[1]

LECTURE = '''
    # ছবি আর ভুল {#sec-a}

    ```{python}
    #| echo: false
    import courseplot
    courseplot.setup_kernel()
    ```

    ```{python}
    #| label: bad-key
    #| error: true
    {"a": 1}["b"]
    ```

    ```{python}
    #| label: fig-wide
    #| fig-width: 9
    #| fig-height: 2
    #| fig-cap: "চওড়া ছবি"
    import matplotlib.pyplot as plt
    plt.plot([1, 2, 3], [2, 1, 3], label="ক্ষতি")
    plt.title("ধাপে ধাপে ক্ষতি")
    plt.legend()
    plt.show()
    ```

    ```{python}
    #| label: total
    print(sum(range(10)))
    ```
    '''


def test_the_executed_notebook_passes_nbval(tmp_path, monkeypatch, capsys):
    project = ProjectBuilder(tmp_path / "proj", ROOT)
    project.add_package("courseplot", {p.name: p.read_text(encoding="utf-8")
                                       for p in (ROOT / "code" / "courseplot").iterdir() if p.is_file()})
    project.add_lecture("01-nb", "\n{{< include _01.qmd >}}\n", front={"title": "নোটবুক"},
                        sections={"_01.qmd": textwrap.dedent(LECTURE).lstrip("\n")})
    monkeypatch.chdir(project.root)
    assert render_main(["--quiet", "--execute-only", "01-nb"]) == 0, capsys.readouterr()
    notebook = project.root / "_build" / "01-nb" / "01-nb.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    tagged = [c for c in cells if "raises-exception" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and "bad-key" in "".join(tagged[0]["source"])
    assert any("application/pdf" in o.get("data", {}) for c in cells for o in c.get("outputs", []))
    # A plain kernel: no kit environment (hash seed, threads), only the course code importable.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONHASHSEED", "MPLBACKEND", "OMP_", "MKL_"))}
    env["PYTHONPATH"] = str(project.root / "code")
    run = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-q", "-p", "no:cacheprovider",
                          notebook.name], cwd=notebook.parent, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "4 passed" in run.stdout or "5 passed" in run.stdout, run.stdout[-2000:]

    # The same notebook without the tag fails nbval on the error cell: the tag is what makes it pass.
    for cell in cells:
        cell.get("metadata", {}).pop("tags", None)
    untagged = notebook.parent / "untagged.ipynb"
    untagged.write_text(json.dumps({**json.loads(notebook.read_text(encoding="utf-8")), "cells": cells}),
                        encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-q", "-p", "no:cacheprovider",
                          untagged.name], cwd=notebook.parent, env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "1 failed" in run.stdout, run.stdout[-2000:]

"""`quarto preview` of the course itself (a copy of it, with its execution cache): at the root it
serves the deck of every lecture, and `quarto preview lectures/<lecture>/index.qmd` serves that
lecture's deck. Quarto's render before the preview executes no cell, so the lecture filter must not
judge it as a product (a `@fig-` reference names a cell's figure); the full renders still refuse a
reference to no figure: `scripts/render` and `quarto render` both fail on one.

Real Quarto ($QUARTO, or `quarto` on PATH; without one these tests are skipped, as test_quarto.py's)."""
import html
import re
import shutil
import urllib.request
from pathlib import Path

import pytest
import yaml

from helpers import NO_QUARTO, ROOT, run_render
from test_quarto import QUARTO, quarto, quarto_preview, small_quarto_project

pytestmark = pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)

COPIED = ["_quarto.yml", "_extensions", "code", "lectures", "scripts", "tests/expected", "pyproject.toml",
          "requirements.lock", "package.json", "package-lock.json"]
LINKED = [".venv", "node_modules"]


def project_copy(folder: Path) -> Path:
    """The project's sources, settings and scripts, with the venv and npm packages linked and the
    execution cache copied (so Quarto's pre-render starts no kernel when ours is current)."""
    for name in COPIED:
        source, target = ROOT / name, folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, target)
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    if (ROOT / "_build" / "cache").exists():
        shutil.copytree(ROOT / "_build" / "cache", folder / "_build" / "cache")
    return folder


LECTURE_NAMES = [p.parent.name for p in sorted((ROOT / "lectures").glob("*/index.qmd"))]


def lecture_title(project: Path, name: str) -> str:
    text = (project / "lectures" / name / "index.qmd").read_text(encoding="utf-8")
    return str(yaml.safe_load(text.split("---", 2)[1])["title"])


def get(url: str, timeout: float = 120) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8")


def served_title(url: str) -> str:
    status, page = get(url)
    assert status == 200, url
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found, f"{url}: no title in\n{page[:500]}"
    return html.unescape(found.group(1)).strip()


def test_quarto_preview_serves_every_lecture_of_the_course(tmp_path):
    """The course as it is (its lectures refer to their cells' figures): `quarto preview` at the
    root serves every lecture's deck; `quarto preview` of one lecture's source serves its deck."""
    assert len(LECTURE_NAMES) >= 2, LECTURE_NAMES
    (tmp_path / "course").mkdir()
    project = project_copy(tmp_path / "course")
    titles = {name: lecture_title(project, name) for name in LECTURE_NAMES}
    with quarto_preview(project, ready="") as (url, log_path):
        for name in LECTURE_NAMES:
            assert served_title(f"{url}{name}/slides.html") == titles[name], log_path.read_text()[-3000:]
        log = log_path.read_text(encoding="utf-8")
    assert "refers to no figure" not in log and "Error" not in log, log[-3000:]
    named = LECTURE_NAMES[-1]
    with quarto_preview(project, f"lectures/{named}/index.qmd", ready="") as (url, log_path):
        assert served_title(f"{url}{named}/slides.html") == titles[named], log_path.read_text()[-3000:]
    # Nothing of Quarto's throwaway render is left beside the sources or in its settings.
    assert "quarto-preview" not in (project / "_build" / "quarto-render.yml").read_text(encoding="utf-8")


def dangling_project(builder, body: str) -> Path:
    project = small_quarto_project(builder, ["01-one"])
    builder.add_lecture("01-one", body, front={"title": "লেকচার ১", "course": "বাংলায় PyTorch", "episode": 1,
                                               "episodes": 91, "module": 1})
    return project


FIGURE_CELL = """
    ## একটি স্লাইড {#sec-one}

    রেখাটি দেখুন @fig-REF।

    ```{python}
    #| label: fig-LABEL
    #| fig-cap: "একটি ছবি"
    DRAW
    ```
    """


@pytest.mark.parametrize("case", ["no such label", "a cell that draws nothing"])
def test_a_reference_to_no_figure_fails_both_full_renders(project_builder, case):
    """`@fig-x` naming no cell (the reader refuses it) and `@fig-x` naming a cell that drew no
    figure (the lecture filter refuses it): `scripts/render` fails with the reference named, and so
    does `quarto render` at the root (the preview's empty render is `quarto preview`'s only)."""
    label, draw = ("plot", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()") \
        if case == "no such label" else ("quiet", "print(1)")
    body = FIGURE_CELL.replace("REF", "quiet").replace("LABEL", label).replace("DRAW", draw.replace("\n", "\n    "))
    project = dangling_project(project_builder, body)
    ours = run_render(project)
    assert ours.returncode != 0 and "@fig-quiet refers to no figure" in ours.stderr, ours.stderr[-2000:]
    theirs = quarto(project)
    log = theirs.stdout + theirs.stderr
    assert theirs.returncode != 0 and "fig-quiet" in log, log[-3000:]
    if case == "no such label":
        assert "@fig-quiet refers to no figure" in log, log[-3000:]
    assert not list((project / "_output").glob("01-one/*")), log[-3000:]

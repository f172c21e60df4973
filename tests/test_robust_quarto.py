"""Bad input under `quarto render` (the real Quarto CLI), on a small throwaway project.

Quarto reads every source of the project (includes expanded, every front matter parsed) before it
runs the pre-render step; a malformed front matter or a missing include there ends in Quarto's
JavaScript stack trace without a file name. The extension engine `_extensions/lecture/readable.js`
checks the lectures first (lecturekit.course.readable): the author gets one line, `file:line: what
is wrong (the fix)`, exit 1, and `_output/` is left as it was, for a project render and for a
render of one (good) source alike. An image beside a lecture's source is in both of Quarto's
products, and Quarto's copy of it is not left in `_output/`.
"""
import base64
import hashlib
import shutil

import pytest

from helpers import ROOT
from test_quarto import QUARTO, quarto
from test_robust_read import line_of, pdf_image_sizes, red_png

pytestmark = pytest.mark.skipif(QUARTO is None, reason="no Quarto CLI: set $QUARTO or put quarto on PATH")

GOOD = """
## একটি স্লাইড {#sec-one}

প্রথম বাক্য।

```{python}
#| label: answer
print(6 * 7)
```
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """One good lecture, rendered once by Quarto; each test adds what it needs and takes it away."""
    from lecturekit.course.scaffold import ProjectBuilder
    builder = ProjectBuilder(tmp_path_factory.mktemp("quarto-robust") / "project", ROOT)
    shutil.copytree(ROOT / "scripts", builder.root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, builder.root / name)
    (builder.root / ".venv").symlink_to(ROOT / ".venv")
    builder.add_lecture("01-good", GOOD, front={"title": "ভালো লেকচার", "episode": 1})
    first = quarto(builder.root)
    assert first.returncode == 0, (first.stdout + first.stderr)[-3000:]
    return builder


def output_digests(builder):
    return {p.relative_to(builder.root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((builder.root / "_output").rglob("*")) if p.is_file()}


BROKEN = {
    # case: (index.qmd front matter, its body, section files, the file and the text of the line to
    # blame, what the message says)
    "malformed front matter": ('---\ntitle: "খোলা উদ্ধৃতি\nepisode: 2\n---\n', GOOD, {},
                               ("index.qmd", 'title: "খোলা'), "close the quote opened on this line"),
    "missing include": ({"title": "ভাঙা"}, GOOD + "\n{{< include _missing.qmd >}}\n", {},
                        ("index.qmd", "_missing.qmd"), "file not found: lectures/02-broken/_missing.qmd"),
    "missing include in a section": ({"title": "ভাঙা"}, "{{< include _01.qmd >}}\n",
                                     {"_01.qmd": GOOD + "\n{{< include _gone.qmd >}}\n"}, ("_01.qmd", "_gone"),
                                     "file not found: lectures/02-broken/_gone.qmd"),
    "malformed section front matter": ({"title": "ভাঙা"}, "{{< include _01.qmd >}}\n",
                                       {"_01.qmd": "---\ntitle: a: b\n---\n" + GOOD}, ("_01.qmd", "title: a: b"),
                                       "quote the value: it holds ': '"),
}


@pytest.fixture
def broken(course, request):
    front, body, sections, blame, says = BROKEN[request.param]
    folder = course.add_lecture("02-broken", body, front=front, sections=sections)
    file, needle = blame
    yield (file, line_of(folder / file, needle)), says
    shutil.rmtree(folder)


@pytest.mark.parametrize("broken", sorted(BROKEN), indirect=True)
@pytest.mark.parametrize("target", ["project", "a good source"])
def test_quarto_names_the_line_of_a_lecture_it_cannot_read(course, broken, target):
    (file, line), says = broken
    before = output_digests(course)
    run = quarto(course.root, *(["lectures/01-good/index.qmd"] if target != "project" else []))
    log = (run.stdout + run.stderr).strip()
    assert run.returncode == 1, log
    assert "Stack trace" not in log and " at " not in log, log
    # One line: where, what, and the fix.
    assert log.splitlines() == [log], log
    assert log.startswith(f"error: lectures/02-broken/{file}:{line}: "), log
    assert says in log, log
    assert output_digests(course) == before


def test_an_image_beside_the_lecture_is_in_quartos_products(course):
    folder = course.add_lecture("03-pic", "## ছবি {#sec-pic}\n\nপাশের ছবি:\n\n![লাল](pic.png)\n",
                                front={"title": "ছবি", "episode": 3})
    picture = red_png(40, 20)
    (folder / "pic.png").write_bytes(picture)
    try:
        run = quarto(course.root)
        assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
        deck = course.output("03-pic", "slides.html").read_text(encoding="utf-8")
        assert base64.b64encode(picture).decode() in deck
        assert pdf_image_sizes(course.output("03-pic", "handout.pdf")) == [(40, 20)]
        # Quarto copied the image to _output/lectures/03-pic/pic.png; it is no product.
        assert sorted(output_digests(course)) == ["_output/01-good/handout.pdf", "_output/01-good/slides.html",
                                                  "_output/03-pic/handout.pdf", "_output/03-pic/slides.html",
                                                  "_output/index.html"]
    finally:
        shutil.rmtree(folder)

"""Bad input under `quarto render` (the real Quarto CLI), on a small throwaway project.

Quarto reads every source of the project (includes expanded, every front matter parsed) before it
runs the pre-render step; a malformed front matter or a missing include there would end the whole
render in Quarto's JavaScript stack trace without a file name. The extension engine
`_extensions/lecture/readable.js` claims the files of each lecture lecturekit.course.quarto.readable finds
unreadable, so Quarto leaves them alone: the good lectures are rendered, the broken one is listed
with its error (file:line) on the course page and in the summary, exit 1, as scripts/render does.
A render that names the broken source gets one line, `file:line: what is wrong (the fix)`, exit 1,
`_output/` as it was. An image beside a lecture's source is in both of Quarto's products, and
Quarto's copy of it is not left in `_output/`.
"""
import base64
import hashlib
import html
import re
import shutil

import pytest

from helpers import NO_QUARTO, ROOT
from test_quarto import QUARTO, quarto
from test_bad_input import line_of, pdf_image_sizes, red_png

pytestmark = pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)

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
    from lecturekit.course.scaffold.projects import ProjectBuilder
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
    "not UTF-8": ({"title": "ভাঙা"}, GOOD + "\nলাতিন caf\udce9\n", {}, ("index.qmd", "caf"), "not UTF-8"),
    "missing include": ({"title": "ভাঙা"}, GOOD + "\n{{< include _missing.qmd >}}\n", {},
                        ("index.qmd", "_missing.qmd"), "file not found: lectures/02-broken/_missing.qmd"),
    "missing include in a section": ({"title": "ভাঙা"}, "{{< include _01.qmd >}}\n",
                                     {"_01.qmd": GOOD + "\n{{< include _gone.qmd >}}\n"}, ("_01.qmd", "_gone"),
                                     "file not found: lectures/02-broken/_gone.qmd"),
    "malformed section front matter": ({"title": "ভাঙা"}, "{{< include _01.qmd >}}\n",
                                       {"_01.qmd": "---\ntitle: a: b\n---\n" + GOOD}, ("_01.qmd", "title: a: b"),
                                       "quote the value: it holds ': '"),
    "bad cell option": ({"title": "ভাঙা"}, GOOD.replace("#| label: answer", "#| label: answer\n#| fig-width: wide"),
                        {}, ("index.qmd", "fig-width"), "'fig-width' has the wrong type"),
}


def write_lecture(course, front, body, sections):
    """The broken lecture; a body with a lone surrogate is written as the byte it stands for."""
    folder = course.add_lecture("02-broken", body.replace("\udce9", "e"), front=front, sections=sections)
    if "\udce9" in body:
        index = folder / "index.qmd"
        index.write_bytes(index.read_bytes().replace(b"cafe", b"caf\xe9"))
    return folder


def line_in(path, needle):
    return next(n for n, text in enumerate(path.read_bytes().split(b"\n"), 1) if needle.encode() in text)


@pytest.fixture
def broken(course, request):
    front, body, sections, blame, says = BROKEN[request.param]
    folder = write_lecture(course, front, body, sections)
    file, needle = blame
    yield (file, line_in(folder / file, needle)), says
    shutil.rmtree(folder)


def failed_item(page, lecture):
    return re.search(rf'<li id="{re.escape(lecture)}">.*?</li>', page, re.S).group(0)


@pytest.mark.parametrize("broken", sorted(BROKEN), indirect=True)
def test_quarto_renders_the_good_lectures_beside_a_broken_one(course, broken):
    """The project render: the good lecture is rendered, the broken one is listed with its error
    (file:line) on the course page and in the summary, exit 1, as scripts/render does."""
    (file, line), says = broken
    artifacts = ROOT / "tests" / "artifacts"
    for product in ("slides.html", "handout.pdf"):
        course.output("01-good", product).unlink()  # so the good lecture must be rendered again
    run = quarto(course.root)
    log = (run.stdout + run.stderr).strip()
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "quarto-broken-lecture.log").write_text(log, encoding="utf-8")
    assert run.returncode == 1, log[-3000:]
    assert "Stack trace" not in log and "Traceback" not in log, log[-3000:]
    where = f"lectures/02-broken/{file}:{line}: "
    assert f"error: {where}" in log and says in log, log[-3000:]
    assert "quarto: 2 lecture(s): 1 ok, 1 failed" in log, log[-3000:]
    for product in ("slides.html", "handout.pdf"):
        assert course.output("01-good", product).stat().st_size > 0
        assert not course.output("02-broken", product).exists()
    page = (course.root / "_output" / "index.html").read_text(encoding="utf-8")
    item = html.unescape(failed_item(page, "02-broken"))
    assert 'class="failed"' in item and where in item, item
    assert str(course.root) not in page
    assert not (course.root / "_output" / "_build").exists() and not (course.root / "_output" / "lectures").exists()


@pytest.mark.parametrize("broken", ["malformed front matter", "missing include in a section"], indirect=True)
def test_quarto_names_the_line_of_the_broken_source_it_is_asked_for(course, broken):
    """`quarto render lectures/02-broken/index.qmd`: one line, where and what, exit 1, _output/ untouched."""
    (file, line), says = broken
    before = output_digests(course)
    run = quarto(course.root, "lectures/02-broken/index.qmd")
    log = (run.stdout + run.stderr).strip()
    assert run.returncode == 1, log
    assert log.splitlines() == [log], log
    assert log.startswith(f"error: lectures/02-broken/{file}:{line}: ") and says in log, log
    assert output_digests(course) == before


def test_quarto_renders_one_good_source_beside_a_broken_lecture(course):
    """A draft of the good lecture is not stopped by the broken one, which the course page lists."""
    front, body, sections, _blame, _says = BROKEN["malformed front matter"]
    folder = write_lecture(course, front, body, sections)
    try:
        run = quarto(course.root, "lectures/01-good/index.qmd")
        log = (run.stdout + run.stderr).strip()
        assert run.returncode == 0, log[-3000:]
        assert "Stack trace" not in log, log[-3000:]
        assert "[02-broken] course page: listed as failed: lectures/02-broken/index.qmd:2: " in log, log[-3000:]
        assert course.output("01-good", "draft/slides.html").exists()
    finally:
        shutil.rmtree(folder)
        shutil.rmtree(course.root / "_output" / "01-good" / "draft", ignore_errors=True)


def test_an_image_beside_the_lecture_is_in_quartos_products(course):
    folder = course.add_lecture("03-pic", "## ছবি {#sec-pic}\n\nপাশের ছবি:\n\n![লাল](pic.png)\n",
                                front={"title": "ছবি", "episode": 3})
    picture = red_png(40, 20)
    (folder / "pic.png").write_bytes(picture)
    try:
        run = quarto(course.root)
        assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
        for product in ("slides.html", "index.html"):  # the deck and the page embed it
            assert base64.b64encode(picture).decode() in course.output("03-pic", product).read_text(encoding="utf-8")
        assert pdf_image_sizes(course.output("03-pic", "handout.pdf")) == [(40, 20)]
        # Each lecture's three products, the course page and the pages' shared assets; no copy of
        # the image (nor of anything else Quarto left beside its inputs).
        products = sorted(p for p in output_digests(course) if not p.startswith("_output/assets/"))
        assert products == [f"_output/{name}/{product}" for name in ("01-good", "03-pic")
                            for product in ("handout.pdf", "index.html", "slides.html")] + ["_output/index.html"]
        assert not list((course.root / "_build" / "03-pic").glob("*.png"))
    finally:
        shutil.rmtree(folder)


def test_quarto_without_the_venv_says_how_to_set_it_up(course):
    """A clone where scripts/setup has not run: one line naming what is missing and the command
    that makes it, not Quarto's stack trace (a broken lecture there could not be checked)."""
    front, body, sections, _blame, _says = BROKEN["malformed front matter"]
    folder = write_lecture(course, front, body, sections)
    venv = course.root / ".venv"
    venv.rename(course.root / "venv-away")
    try:
        before = output_digests(course)
        run = quarto(course.root)
        log = (run.stdout + run.stderr).strip()
        assert run.returncode == 1, log
        assert log.splitlines() == [log], log
        assert log.startswith("error: .venv/bin/python not found") and "run scripts/setup" in log, log
        assert output_digests(course) == before
    finally:
        (course.root / "venv-away").rename(venv)
        shutil.rmtree(folder)


@pytest.mark.parametrize("name", ["92-k: v", "91-x #y"])
def test_quarto_lists_a_lecture_folder_outside_the_pattern_as_failed(course, name):
    """A folder name outside the documented pattern: never written into Quarto's render list (a
    `: ` there broke every later render), refused by name on the course page and in the summary."""
    from lecturekit.project import LECTURE_NAME_RULE
    folder = course.add_lecture(name, GOOD, front={"title": "নাম", "episode": 9})
    try:
        run = quarto(course.root)
        log = (run.stdout + run.stderr).strip()
        assert run.returncode == 1, log[-3000:]
        assert "Stack trace" not in log and "Traceback" not in log, log[-3000:]
        assert f"lecture folder name '{name}'" in log and LECTURE_NAME_RULE in log, log[-3000:]
        assert "quarto: 2 lecture(s): 1 ok, 1 failed" in log, log[-3000:]
        assert name not in (course.root / "_build" / "quarto-render.yml").read_text(encoding="utf-8")
        page = html.unescape((course.root / "_output" / "index.html").read_text(encoding="utf-8"))
        assert f"lecture folder name '{name}'" in page
        again = quarto(course.root)  # the next render is not broken by what this one wrote
        assert again.returncode == 1 and "Stack trace" not in again.stdout + again.stderr
    finally:
        shutil.rmtree(folder)

"""A course with a broken lecture, and lecture folder names: the good lectures always build.

A lecture that cannot be read (malformed front matter, bytes that are not UTF-8, a folder name
outside the pattern) is listed as failed with its error, in the summary and on the course page; the
other lectures are rendered and the render exits 1. A render of another, named lecture is not
stopped by it.
"""
import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import FRONT, RENDER, run_render
from lecturekit.project import LECTURE_NAME_RULE

BODY = "# হিসাব {#sec-count}\n\n```{python}\n#| label: work\nprint(6 * 7)\n```\n"


@pytest.fixture
def course(mini):
    shutil.rmtree(mini.lecture)
    mini.add_lecture("01-good", BODY, front=FRONT)
    mini.add_lecture("02-second", BODY, front=FRONT.replace("episode: 1", "episode: 2"))
    return mini


def break_front_matter(mini, name):
    folder = mini.add_lecture(name, BODY, front='---\ntitle: "খোলা উদ্ধৃতি\nepisode: 3\n---\n')
    return folder / "index.qmd"


def test_one_broken_lecture_never_stops_the_others(course):
    broken = break_front_matter(course, "03-broken")
    result = run_render(course.root, "--quiet")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    for name in ("01-good", "02-second"):
        assert course.output(name, "slides.html").exists() and course.output(name, "handout.pdf").exists()
    assert "[03-broken] FAILED" in result.stderr
    assert "3 lecture(s):" in result.stderr and "2 ok, 1 failed" in result.stderr, result.stderr
    assert f"{broken}:2: malformed YAML front matter" in result.stderr, result.stderr
    page = (course.root / "_output" / "index.html").read_text(encoding="utf-8")
    assert 'id="03-broken"' in page and "malformed YAML front matter" in page
    assert "lectures/03-broken/index.qmd:2" in page  # named inside the project, not where it lies
    assert str(course.root) not in page
    said, error = failure_texts(page, "03-broken")
    assert "malformed YAML front matter" in error and "lectures/03-broken/index.qmd:2" in error
    # What the page says around the error is for Bangla readers: no English word in it.
    assert re.search("[\u0980-\u09ff]", said) and not re.search("[A-Za-z]", said), said
    assert "২টি পর্ব তৈরি" in page  # the broken one is listed, not counted as made


def failure_texts(page, lecture):
    """A lecture's `.failed` note on the course page: (the words around the error, the error)."""
    item = re.search(rf'<li id="{re.escape(lecture)}">.*?</li>', page, re.S).group(0)
    note = re.search(r'<span class="failed">(.*)</span>', item, re.S).group(1)
    error = re.search(r"<code[^>]*>(.*?)</code>", note, re.S)
    said = re.sub(r"<[^>]+>", " ", note.replace(error.group(0), " "))
    return " ".join(html.unescape(said).split()), html.unescape(error.group(1))


def test_a_named_lecture_renders_beside_a_broken_one(course):
    broken = break_front_matter(course, "03-broken")
    result = run_render(course.root, "--quiet", "01-good")
    assert result.returncode == 0, result.stderr
    assert course.output("01-good", "slides.html").exists()
    assert "1 lecture(s):" in result.stderr
    # The course page is rebuilt, and says which lecture it could not read.
    assert "[03-broken] course page:" in result.stderr and f"{broken}:2" in result.stderr, result.stderr
    page = (course.root / "_output" / "index.html").read_text(encoding="utf-8")
    assert 'id="01-good"' in page and 'id="03-broken"' in page


def test_non_utf8_lecture_is_listed_failed(course):
    folder = course.add_lecture("03-latin", BODY, front=FRONT)
    (folder / "index.qmd").write_bytes((folder / "index.qmd").read_bytes() + b"caf\xe9\n")
    result = run_render(course.root, "--quiet")
    assert result.returncode == 1
    assert "[03-latin] FAILED" in result.stderr and "not UTF-8" in result.stderr, result.stderr
    assert course.output("01-good", "handout.pdf").exists()


@pytest.mark.parametrize("name", ["92-k: v", "91-x #y", "95-a#b", "Caps", "_hidden", "é-accent"])
def test_lecture_folder_names_outside_the_pattern_are_refused(course, name):
    course.add_lecture(name, BODY, front=FRONT)
    result = run_render(course.root, "--quiet", "--execute-only")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"lecture folder name '{name}'" in result.stderr and LECTURE_NAME_RULE in result.stderr, result.stderr
    assert (course.root / "_build" / "01-good" / "01-good.ipynb").exists()
    assert not (course.root / "_build" / name).exists()


@pytest.mark.parametrize("linked", ["folder", "index.qmd", "a pipe inside"])
def test_a_lecture_linked_from_outside_is_refused_unread(course, tmp_path_factory, linked):
    """`lectures/03-evil` (or its index.qmd) is a symbolic link to a folder outside the project.
    The source there is a FIFO: anything that opened it would hang the render. A FIFO inside the
    project is refused before it is opened."""
    outside = tmp_path_factory.mktemp("outside")
    os.mkfifo(outside / "index.qmd")
    evil = course.lectures_dir / "03-evil"
    if linked == "folder":
        evil.symlink_to(outside)
    else:
        evil.mkdir()
        if linked == "index.qmd":
            (evil / "index.qmd").symlink_to(outside / "index.qmd")
        else:
            os.mkfifo(evil / "index.qmd")
    result = subprocess.run([RENDER, "--quiet"], cwd=course.root, capture_output=True, text=True, timeout=90)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    says = "is not a regular file (a pipe or a device)" if linked == "a pipe inside" else \
        "a symbolic link leads this lecture out of the project"
    assert "[03-evil] FAILED" in result.stderr and says in result.stderr, result.stderr
    assert course.output("01-good", "slides.html").exists() and not course.output("03-evil", "slides.html").exists()


# A symbolic link in a lecture's code: (where under code/, "file" or "folder"). The zip every student
# downloads would hold what it points at; each is refused by name, under both render paths.
CODE_LINKS = {
    "a script": ("scripts/01-good/secret.py", "file"),
    "the lecture's scripts folder": ("scripts/01-good", "folder"),
    "a file of a package a script imports": ("lessonpkg/secret.txt", "file"),
    "a folder of that package": ("lessonpkg/data", "folder"),
    "a package a script imports": ("linkedpkg", "folder"),
}


def link_into_code(course, outside, where):
    """code/scripts/01-good/run.py importing code/lessonpkg (and linkedpkg, when there is one), and a
    link at `where` to a secret outside the project; the path of the link, relative to the project."""
    secret = "# SECRET-KEY-BYTES\n"
    for name in ("secret.py", "secret.txt", "__init__.py"):
        (outside / name).write_text(secret, encoding="utf-8")
    (outside / "run.py").write_text("import lessonpkg\n", encoding="utf-8")
    code = course.root / "code"
    (code / "scripts" / "01-good").mkdir(parents=True)
    (code / "scripts" / "01-good" / "run.py").write_text("import lessonpkg\nimport linkedpkg\n", encoding="utf-8")
    (code / "lessonpkg").mkdir()
    (code / "lessonpkg" / "__init__.py").write_text("X = 1\n", encoding="utf-8")
    path, kind = CODE_LINKS[where]
    if (code / path).is_dir():
        shutil.rmtree(code / path)
    (code / path).symlink_to(outside if kind == "folder" else outside / Path(path).name)
    return f"code/{path}"


@pytest.mark.parametrize("where", sorted(CODE_LINKS))
def test_a_link_in_a_lectures_code_is_refused_by_name(course, tmp_path_factory, where, capsys):
    """The course page's step (scripts/render's and Quarto's post-render's): the lecture's zip is not
    written (an earlier one is removed: it may hold the target), one line names the link relative to
    the project, the other lecture's page is made; its own page does not link a zip."""
    from lecturekit.course.quarto import post_render
    from lecturekit.course.site import code_zip, course_page
    from lecturekit.project import Project
    shown = link_into_code(course, tmp_path_factory.mktemp("outside"), where)
    project = Project(course.root)
    zip_file = course.root / "_output" / "01-good" / "code.zip"
    zip_file.parent.mkdir(parents=True)
    zip_file.write_bytes(b"an earlier zip")
    _page, zips, unreadable = course_page.build_site(project)
    assert list(unreadable) == ["01-good"] and zips == [], unreadable
    assert unreadable["01-good"].startswith(f"{shown}: a symbolic link"), unreadable
    assert not zip_file.exists() and (course.root / "_output" / "index.html").exists()
    assert not code_zip.has_code_zip(project, course.lectures_dir / "01-good")
    # Quarto's render of the project: the lecture is this render's, so the render fails, as scripts/render's.
    status, failed = post_render.report_failures(project, rendered=["01-good", "02-second"])
    assert status == 1 and list(failed) == ["01-good"], failed
    said = capsys.readouterr().err.splitlines()
    assert any(line.startswith(f"error: {shown}: a symbolic link") for line in said), said
    # A render of another source (a draft): the lecture is only said to be listed as failed.
    status, failed = post_render.report_failures(project)
    line = f"quarto: [01-good] course page: listed as failed: {shown}: a symbolic link"
    assert status == 0 and not failed
    assert any(said.startswith(line) for said in capsys.readouterr().err.splitlines())


def test_scripts_render_fails_a_lecture_whose_code_holds_a_link(course, tmp_path_factory):
    shown = link_into_code(course, tmp_path_factory.mktemp("outside"), "a script")
    result = run_render(course.root, "01-good", "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"error: {shown}: a symbolic link in the lecture's code" in result.stderr, result.stderr
    assert "1 lecture(s): 1 executed, 1 written, 0 ok, 1 failed" in result.stderr, result.stderr
    assert not course.output("01-good", "code.zip").exists() and course.output("01-good", "slides.html").exists()

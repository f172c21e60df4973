"""A lecture is a folder: an author adds `lectures/NN-name/` (front matter with only a title), its
scripts under `code/scripts/NN-name/`, and nothing else; render, check --accept and check then work,
its code.zip holds its own scripts, and the course page lists it. The project is a throwaway copy
of the real one (its code, lecture 09 and its expectations)."""
import re
import subprocess
import zipfile

from helpers import ROOT, pdf_text, run_check, run_render
from lecturekit.course.scaffold.projects import ProjectBuilder

NAME = "10-new-topic"
INDEX = """\
    ---
    title: "নতুন বিষয়"
    ---

    # শুরু {#sec-start}

    ## প্রথম হিসাব {#sec-first}

    ```{python}
    #| label: first-sum
    from bazarghar import bn
    print(sum(range(5)), bn(12345))
    ```
    """
SCRIPT = "from bazarghar import bn\n\nprint(bn(12345))\n"


def test_title_only_lecture_renders_checks_zips_and_is_listed(tmp_path):
    project = ProjectBuilder(tmp_path / "project", ROOT)
    project.copy_code()
    project.copy_lecture("09-nn-module")
    before = project.snapshot()

    # What the author writes: the lecture folder and its scripts, nothing else.
    project.add_lecture(NAME, INDEX)
    project.add_scripts(NAME, {"01_sum.py": SCRIPT})

    rendered = run_render(project.root, "--quiet", NAME)
    assert rendered.returncode == 0, rendered.stderr
    slides, handout = project.output(NAME, "slides.html"), project.output(NAME, "handout.pdf")
    assert "নতুন বিষয়" in slides.read_text(encoding="utf-8")
    cover = subprocess.run(["pdftotext", "-raw", "-f", "1", "-l", "1", str(handout), "-"],
                           capture_output=True, text=True, check=True).stdout
    # Defaults: the episode number from the folder's prefix, the course's name.
    assert "নতুন বিষয়" in cover and "পর্ব ১০" in cover and "বাংলায় PyTorch" in cover, cover
    assert "none" not in cover
    assert "10 ১২,৩৪৫" in pdf_text(handout)

    # No expectations yet: the check says how to record them, then passes once they are accepted.
    first = run_check(project.root, NAME)
    assert first.returncode == 1 and f"scripts/check {NAME} --accept" in first.stdout + first.stderr
    accepted = run_check(project.root, NAME, "--accept")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    again = run_check(project.root, NAME)
    assert again.returncode == 0, again.stdout + again.stderr
    expected = (project.root / "tests" / "expected" / f"{NAME}.yaml").read_text(encoding="utf-8")
    assert "first-sum" in expected

    # Its own scripts and the package they import; none of lecture 09's scripts.
    with zipfile.ZipFile(project.output(NAME, "code.zip")) as zf:
        names = zf.namelist()
    assert [n for n in names if "/scripts/" in n] == [f"{NAME}/scripts/01_sum.py"], names
    assert f"{NAME}/bazarghar/__init__.py" in names
    assert not [n for n in names if "module_tour" in n]

    # The course page lists it with its three products, next to lecture 09.
    page = (project.root / "_output" / "index.html").read_text(encoding="utf-8")
    for product in ("slides.html", "handout.pdf", "code.zip"):
        assert f'href="{NAME}/{product}"' in page
    assert "নতুন বিষয়" in page and "পর্ব ১০" in page and 'id="09-nn-module"' in page

    # Only the author's files (and the accepted expectations) are new; nothing else changed.
    after = project.snapshot()
    assert {k: v for k, v in after.items() if k in before} == before
    added = sorted(set(after) - set(before))
    assert added == [f"code/scripts/{NAME}/01_sum.py", f"lectures/{NAME}/index.qmd",
                     f"tests/expected/{NAME}.yaml"], added


def test_a_lecture_without_scripts_has_no_zip_and_front_matter_may_declare_them(tmp_path):
    project = ProjectBuilder(tmp_path / "project", ROOT)
    project.add_package("minipkg", {"__init__.py": "ANSWER = 42\n"})
    project.add_scripts("01-first", {"01_first.py": "import minipkg\n"})
    project.add_package("shared", {"tool.py": "from minipkg import ANSWER\n"})
    body = "# অংশ {#sec-a}\n\nলেখা।\n"
    project.add_lecture("01-first", body, front={"title": "প্রথম"})
    project.add_lecture("02-second", body, front={"title": "দ্বিতীয়"})
    project.add_lecture("03-third", body, front={"title": "তৃতীয়", "code": ["shared/tool.py"]})
    result = run_render(project.root, "--quiet")
    assert result.returncode == 0, result.stderr
    assert not project.output("02-second", "code.zip").exists()
    with zipfile.ZipFile(project.output("03-third", "code.zip")) as zf:
        assert zf.namelist() == ["03-third/minipkg/__init__.py", "03-third/shared/tool.py"]
    page = (project.root / "_output" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'id="02-second".*?পর্ব ০২', page)
    assert 'href="02-second/code.zip"' not in page and 'href="01-first/code.zip"' in page
    # Scripts removed: the zip goes too, and the page stops listing it.
    import shutil
    shutil.rmtree(project.code_dir / "scripts" / "01-first")
    assert run_render(project.root, "--quiet").returncode == 0
    assert not project.output("01-first", "code.zip").exists()
    assert 'href="01-first/code.zip"' not in (project.root / "_output" / "index.html").read_text(encoding="utf-8")


# ---- fast: the defaults and the code a lecture zips, without rendering ----------------------------

def test_front_matter_defaults():
    from lecturekit.read.frontmatter import COURSE, episode_from_folder, with_defaults
    assert episode_from_folder("10-training") == 10 and episode_from_folder("091_last") == 91
    assert episode_from_folder("demo") is None and episode_from_folder("v2-notes") is None
    assert with_defaults({"title": "ক"}, "/x/lectures/10-training") == {"title": "ক", "course": COURSE, "episode": 10}
    # What the author wrote wins; no number prefix, no episode.
    written = {"title": "ক", "course": "অন্য কোর্স", "episode": 3, "module": 1}
    assert with_defaults(written, "10-training") == written
    assert "episode" not in with_defaults({"title": "ক"}, "demo")
    assert with_defaults({}, "12-loops")["title"] == "12-loops"


def test_lecture_code_is_its_own_folder_or_its_declaration(project_builder):
    from lecturekit.project import Project
    from lecturekit.course.site.code_zip import lecture_code_files
    p = project_builder
    p.add_package("pkg", {"__init__.py": "from helper import X\n"})
    p.add_package("helper", {"__init__.py": "X = 1\n"})
    p.add_package("unused", {"__init__.py": ""})
    p.add_scripts("01-a", {"01_a.py": "import pkg\n", "notes.txt": "not a script"})
    p.add_scripts("02-b", {"01_b.py": "print(1)\n"})
    project = Project(p.root)
    names = lambda lecture, meta=None: [n for n, _ in lecture_code_files(project, p.lectures_dir / lecture, meta)]  # noqa: E731
    # Its scripts and, transitively, the course packages they import; nothing of another lecture.
    assert names("01-a") == ["helper/__init__.py", "pkg/__init__.py", "scripts/01_a.py"]
    assert names("02-b") == ["scripts/01_b.py"]
    assert names("03-none") == []  # no folder of its own: no code (never another lecture's)
    assert names("03-none", {"code": "scripts/02-b/01_b.py"}) == ["scripts/02-b/01_b.py"]
    assert names("03-none", {"code": ["scripts/01-a"]}) == ["helper/__init__.py", "pkg/__init__.py",
                                                            "scripts/01-a/01_a.py"]


def test_the_builder_snapshot_sees_sources_only(project_builder):
    p = project_builder
    p.add_lecture("01-a", "# ক {#sec-a}\n", front={"title": "ক"})
    before = p.snapshot()
    assert "lectures/01-a/index.qmd" in before and "_quarto.yml" in before
    assert not [k for k in before if k.startswith(("node_modules/", "_build/", "_output/"))]
    (p.root / "_output").mkdir()
    (p.root / "_output" / "x.html").write_text("x")
    assert p.snapshot() == before
    (p.lectures_dir / "01-a" / "index.qmd").write_text("changed")
    assert p.snapshot() != before

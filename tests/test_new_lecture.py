"""A lecture is a folder: an author adds `lectures/NN-name/` (front matter with only a title), its
scripts under `code/scripts/NN-name/`, and nothing else; render, check --accept and check then work,
its code.zip holds its own scripts, and the course page lists it. The project is a throwaway copy
of the real one (its code, lecture 09 and its expectations)."""
import re
import subprocess
import zipfile

from conftest import ROOT, pdf_text, run_check, run_render
from lecturekit.scaffold import ProjectBuilder

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

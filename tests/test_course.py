"""A course of several lectures: parallel executions, only stale work redone, the index and code zips."""
import concurrent.futures as cf
import html.parser
import json
import shutil
import sys
import textwrap
import time
import zipfile

import pytest

from helpers import FRONT, ROOT, run_render
from lecturekit.project import Project
from lecturekit.write.formats import handout_fonts

LECTURE = textwrap.dedent("""\
    # হিসাব {{#sec-count}}

    ```{{python}}
    #| label: work
    from minipkg import ANSWER
    {code}
    ```

    উত্তর `{{python}} ANSWER`।
    """)


def add_lecture(mini, name, code="print(ANSWER)", episode=1, title=None):
    front = FRONT.replace("episode: 1", f"episode: {episode}")
    if title:
        front = front.replace('title: "পরীক্ষার লেকচার"', f'title: "{title}"')
    return mini.add_lecture(name, LECTURE.format(code=code), front=front)


@pytest.fixture
def course(mini):
    """Three small lectures (the mini project's own demo lecture removed), each with its script."""
    shutil.rmtree(mini.lecture)
    for i in (1, 2, 3):
        add_lecture(mini, f"0{i}-part", code=f"print(ANSWER + {i})", episode=i, title=f"পর্ব নম্বর {i}")
        mini.add_scripts(f"0{i}-part", {f"0{i}_answer.py": f"from minipkg import ANSWER\n\nprint(ANSWER + {i - 1})\n"})
    return mini


def render(mini, *args):
    result = run_render(mini.root, "--quiet", *args)
    assert result.returncode == 0, result.stderr
    return result


def executed(result):
    """Lecture names the render says it executed."""
    return sorted(line.split("]")[0].strip("[") for line in result.stderr.splitlines()
                  if "execute:" in line and "(executed" in line)


def products(mini):
    out = mini.root / "_output"
    return sorted(p for p in out.rglob("*") if p.is_file())


def test_executions_overlap_with_two_jobs(mini):
    shutil.rmtree(mini.lecture)
    for name in ("a", "b"):
        add_lecture(mini, name, code="import time\nstarted = time.time()\ntime.sleep(2)\n"
                                     "print(started, time.time())")
    started = time.perf_counter()
    result = render(mini, "--execute-only", "--jobs", "2")
    wall = time.perf_counter() - started
    assert executed(result) == ["a", "b"]
    spans = []
    for name in ("a", "b"):
        nb = json.loads((mini.root / "_build" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
        code = [c for c in nb["cells"] if c["cell_type"] == "code"][0]
        spans.append([float(x) for x in "".join(code["outputs"][0]["text"]).split()])
    # Both sleeps ran at the same time: each began before the other ended.
    assert max(s for s, _ in spans) < min(e for _, e in spans), spans
    print(f"two 2 s lectures with --jobs 2: {wall:.2f} s (with interpreter start-up)")


def test_no_change_rebuild_starts_no_kernel_and_rewrites_nothing(course, tmp_path):
    render(course)
    before = {p: p.stat().st_mtime_ns for p in products(course)}
    assert {p.name for p in before} >= {"slides.html", "handout.pdf", "code.zip", "index.html"}
    # A kernelspec that cannot start: a kernel started now would fail the render.
    broken = tmp_path / "jupyter" / "kernels" / "python3"
    broken.mkdir(parents=True)
    (broken / "kernel.json").write_text('{"argv": ["/bin/false"], "display_name": "x", "language": "python"}')
    result = run_render(course.root, "--quiet", env={"JUPYTER_PATH": str(tmp_path / "jupyter")})
    assert result.returncode == 0, result.stderr
    assert executed(result) == []
    assert result.stderr.count("up to date (nothing it is made from changed)") == 3  # three lectures, each by its stamp
    assert {p: p.stat().st_mtime_ns for p in products(course)} == before


def test_one_changed_lecture_is_the_only_one_executed_and_written(course):
    render(course)
    slides = {n: (course.root / "_output" / n / "slides.html").stat().st_mtime_ns for n in ("01-part", "03-part")}
    add_lecture(course, "02-part", code="print(ANSWER * 2)", episode=2)
    result = render(course)
    assert executed(result) == ["02-part"]
    assert "84" in (course.root / "_output" / "02-part" / "slides.html").read_text(encoding="utf-8")
    assert {n: (course.root / "_output" / n / "slides.html").stat().st_mtime_ns for n in slides} == slides

    # Prose only: no kernel, and only that lecture's products are written again.
    index = course.root / "lectures" / "03-part" / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8").replace("উত্তর", "ফলাফল"), encoding="utf-8")
    result = render(course)
    assert executed(result) == []
    written = [line for line in result.stderr.splitlines() if " s -> " in line]
    assert written and all(line.startswith("[03-part]") for line in written), written
    assert "ফলাফল" in (course.root / "_output" / "03-part" / "slides.html").read_text(encoding="utf-8")


def test_changed_course_code_executes_every_lecture(course):
    render(course)
    (course.root / "code" / "minipkg" / "__init__.py").write_text("ANSWER = 50\n")
    result = render(course)
    assert executed(result) == ["01-part", "02-part", "03-part"]
    assert "51" in (course.root / "_output" / "01-part" / "slides.html").read_text(encoding="utf-8")


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.external = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a":
            self.hrefs.append(attrs["href"])
        for key in ("src", "href"):
            if str(attrs.get(key, "")).startswith(("http:", "https:", "//")):
                self.external.append(attrs[key])


def test_index_lists_every_lecture_with_working_links(course):
    render(course)
    page = course.root / "_output" / "index.html"
    text = page.read_text(encoding="utf-8")
    assert '<html lang="bn">' in text
    for i in (1, 2, 3):
        assert f"পর্ব নম্বর {i}" in text and f"পর্ব ০{'০১২৩'[i]}" in text
    links = Links()
    links.feed(text)
    assert links.external == [] and "url(http" not in text  # offline: nothing fetched from outside
    assert 'href="assets/page.css"' in text and (page.parent / "assets" / "fonts").is_dir()  # the course font
    links.hrefs = [href for href in links.hrefs if not href.startswith("#")]  # the skip link
    assert len(links.hrefs) == 12
    for name in ("01-part", "02-part", "03-part"):
        for product in ("index.html", "slides.html", "handout.pdf", "code.zip"):
            assert f"{name}/{product}" in links.hrefs
    for href in links.hrefs:
        assert not href.startswith("/") and (page.parent / href).is_file(), href


def test_code_zip_is_deterministic_and_holds_the_scripts(course, tmp_path):
    render(course)
    zip_path = course.root / "_output" / "01-part" / "code.zip"
    first = zip_path.read_bytes()
    with zipfile.ZipFile(zip_path) as zf:
        names = zf.namelist()
        assert names == sorted(names)
        assert names == ["01-part/minipkg/__init__.py", "01-part/scripts/01_answer.py"]  # no other lecture's
        assert zf.read("01-part/scripts/01_answer.py") == b"from minipkg import ANSWER\n\nprint(ANSWER + 0)\n"
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    # A second build from scratch, minutes later, gives the same bytes.
    shutil.rmtree(course.root / "_output")
    time.sleep(1.1)
    render(course)
    assert zip_path.read_bytes() == first
    # The scripts run from the unpacked zip.
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(tmp_path / "unpacked")
    import subprocess, sys
    ran = subprocess.run([sys.executable, "scripts/01_answer.py"], cwd=tmp_path / "unpacked" / "01-part",
                         capture_output=True, text=True, env={"PYTHONPATH": "."})
    assert ran.stdout.strip() == "42", ran.stderr


def test_handout_fonts_survive_concurrent_renders_and_stale_links(mini):
    """Parallel workers (or two renders at once) link the same fonts; none may fail on the other's link."""
    project = Project(mini.root)
    folder = project.build_dir / "fonts"
    folder.mkdir(parents=True)
    (folder / "NotoSans-Bold.ttf").symlink_to("/nonexistent/NotoSans-Bold.ttf")  # another machine's
    with cf.ThreadPoolExecutor(8) as pool:
        folders = set(pool.map(lambda _: handout_fonts(project), range(32)))
    assert folders == {folder}
    links = sorted(folder.iterdir())
    assert links and all(link.is_symlink() and link.resolve().is_file() for link in links), links
    assert not [link for link in links if link.name.startswith(".")]

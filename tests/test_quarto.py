"""`quarto render` (the real Quarto CLI) gives the same deck and handout as scripts/render.

Quarto is found in $QUARTO or on PATH (CI: .ci/run exports the kit beside the clone); without one the
tests are skipped with that reason, or fail where a Quarto is expected (helpers.REQUIRE_QUARTO).
Quarto renders throwaway projects, never the working tree.

- From the executed notebooks (`quarto render` at the root of a small project, our execute step as
  pre-render), on test_quarto_draft's lecture with every construct of the real lectures (that test
  fails naming a construct a real lecture adds): what the Quarto path can get wrong is how a
  construct reaches Quarto and our filters, proved once here rather than on every real lecture,
  whose own products the per-lecture tests (test_slides, test_handout …) check. The deck's slides
  match ours one to one (ids, titles, notes, quiz options, figures and captions, callouts, answers) and, slide by slide with every step shown, in content (visible text, figures'
  alt text, code and output blocks: an error as its last line) and layout (nothing past the slide,
  measured as the layout audit measures ours); the deck passes the audit's contrast check and has
  no copy buttons and no MathJax; the steppers highlight the same lines with the same explanation at every step,
  the deck makes no network request, and the handout has our headings, pages, fonts, cover, figure
  captions and appendix, with no markdown left as text. Quarto's log has no warning.
- Only what changed: a second `quarto render` with nothing changed writes nothing; after a prose
  edit in one of two small lectures, only that lecture's products are written again.
- From the sources, Quarto executing the cells itself: tests/test_quarto_draft.py, on one small
  lecture that uses every construct of the real ones.
- `quarto preview` (the project, and one lecture's source) serves our deck, executed by our
  executor, and a saved prose edit shows in Chromium without reloading by hand; Quarto starts no
  kernel and writes nothing into `_output/<lecture>/`.
"""
import contextlib
import os
import re
import shutil
import signal
import subprocess
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from helpers import NO_QUARTO, copy_project, find_quarto, run_render
from lecturekit.course.scaffold.courses import quarto_ready
from quarto_products import deck_profile, handout_profile, slide_contents
from test_deck_audit import AUDIT
from test_slides import STEP_REPORT

ROOT = Path(__file__).resolve().parents[1]
CONSTRUCTS = "03-draft"  # test_quarto_draft.NAME: the lecture of every construct
# What Quarto prints when something is wrong: "WARN:", "WARNING:", "ERROR:" (its log levels) and
# pandoc's "[WARNING]". The kernel's own start-up notice ("[IPKernelApp] WARNING | Kernel is running
# over TCP without encryption", ipykernel 7) is not Quarto's and says nothing about our sources.
QUARTO_WARNING = re.compile(r"^(?:\x1b\[[0-9;]*m)*(?:WARN(?:ING)?\b|ERROR\b|\[WARNING\]|\[ERROR\])", re.M)


QUARTO = find_quarto()
pytestmark = pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)


def quarto(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    return subprocess.run([QUARTO, "render", *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=1800)


def warnings_in(log: str) -> list[str]:
    return [line for line in log.splitlines() if QUARTO_WARNING.search(line)]


@pytest.fixture(scope="module")
def constructs(tmp_path_factory):
    """test_quarto_draft's project: a lecture with every construct of the real lectures (that test
    fails naming a construct a real lecture adds) and a second small one, rendered by scripts/render:
    (the project, its _output/). What the Quarto path can get wrong is how a construct reaches
    Quarto and our filters, so the comparison runs on it once, not on every real lecture."""
    from test_quarto_draft import construct_project
    project = construct_project(tmp_path_factory.mktemp("constructs") / "project")
    ours = run_render(project, "--quiet")
    assert ours.returncode == 0, ours.stderr[-3000:]
    return project, project / "_output"


@pytest.fixture(scope="module")
def rendered(constructs):
    """Our products of the construct project: the reference every comparison below is made with."""
    return constructs[1]


@pytest.fixture(scope="module")
def from_notebooks(constructs, tmp_path_factory):
    """`quarto render` at the root of a copy of the construct project: its sources and execution
    cache (so Quarto's pre-render starts no kernel), not its products."""
    source, _ours = constructs
    project = tmp_path_factory.mktemp("quarto-project") / "project"
    copy_project(source, project, built=False)
    shutil.copytree(source / "_build" / "cache", project / "_build" / "cache")
    run = quarto(project)
    log = run.stdout + run.stderr
    (ROOT / "tests" / "artifacts").mkdir(parents=True, exist_ok=True)
    (ROOT / "tests" / "artifacts" / "quarto-render.log").write_text(log, encoding="utf-8")
    assert run.returncode == 0, log[-4000:]
    return project, log


@pytest.fixture(scope="module", params=[CONSTRUCTS])
def lecture(request) -> str:
    """The lecture of every construct: one `quarto render` makes the project, it is compared."""
    return request.param


@pytest.fixture(scope="module")
def ours(browser, rendered, lecture):
    return (deck_profile(browser, rendered / lecture / "slides.html"),
            handout_profile(rendered / lecture / "handout.pdf"))


@pytest.fixture(scope="module")
def theirs(browser, from_notebooks, lecture):
    project, _log = from_notebooks
    return (deck_profile(browser, project / "_output" / lecture / "slides.html"),
            handout_profile(project / "_output" / lecture / "handout.pdf"))


def test_every_slide_shows_the_same_content_and_fits(browser, rendered, from_notebooks, lecture):
    """Slide by slide, every step shown: the same visible text, figure descriptions, code and
    output blocks, and nothing past the 1280x720 frame, in Quarto's deck as in ours."""
    project, _log = from_notebooks
    mine = slide_contents(browser, rendered / lecture / "slides.html", STEP_REPORT)
    other = slide_contents(browser, project / "_output" / lecture / "slides.html", STEP_REPORT)
    assert [s["id"] for s in other] == [s["id"] for s in mine]
    # Ours is the reference (that each real lecture's slides fit is test_slides.py's proof), and
    # every figure is described; what lies past the frame is compared below with the rest.
    alts = [alt for s in mine for alt in s["alts"]]
    assert alts and all(alts), alts
    different = [(a["id"], key, a[key], b[key]) for a, b in zip(mine, other) for key in a if a[key] != b[key]]
    assert not different, "\n".join(f"{ident} {key}:\n  ours:   {a}\n  Quarto: {b}"
                                     for ident, key, a, b in different[:8])


def test_quartos_deck_passes_the_audit(browser, from_notebooks, lecture):
    """Every code token at AA contrast at every slide's last step (a stepper's other lines too), no
    English copy buttons, no MathJax stylesheet in the notes (the deck uses KaTeX)."""
    project, _log = from_notebooks
    deck = project / "_output" / lecture / "slides.html"
    html = deck.read_text(encoding="utf-8")
    assert "code-copy-button" not in html and "Copy to Clipboard" not in html
    assert "MJX_Assistive_MathML" not in html
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        records = page.evaluate(AUDIT)
    finally:
        context.close()
    low = [(r["id"], c) for r in records for c in r["contrast"]]
    assert not low, low[:5]


def test_products_where_the_readme_says_and_nothing_else_changed(from_notebooks, rendered, lecture):
    project, log = from_notebooks
    assert (project / "_output" / lecture / "slides.html").stat().st_size > 100_000
    assert (project / "_output" / lecture / "handout.pdf").stat().st_size > 50_000
    # The same set of products as scripts/render: the code zip (the same bytes) and the course page.
    assert (project / "_output" / lecture / "code.zip").read_bytes() == (rendered / lecture / "code.zip").read_bytes()
    assert (project / "_output" / "index.html").read_bytes() == (rendered / "index.html").read_bytes()
    assert sorted(p.name for p in (project / "_output" / lecture).iterdir()) == \
        sorted(p.name for p in (rendered / lecture).iterdir())
    # The viewer shows the handout's title (DisplayDocTitle), as in ours.
    assert viewer_preferences(project / "_output" / lecture / "handout.pdf").get("DisplayDocTitle") is True
    # Quarto's own folder layout is gone, and Quarto did not touch the sources' folder or .gitignore.
    assert not (project / "_output" / "_build").exists()
    assert not list((project / "lectures").rglob("*.html")), "Quarto wrote into lectures/"
    assert not (project / ".gitignore").exists() or "quarto" not in (project / ".gitignore").read_text()


def viewer_preferences(pdf: Path) -> dict:
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    with open(pdf, "rb") as f:
        return resolve1(PDFDocument(PDFParser(f)).catalog.get("ViewerPreferences")) or {}


def test_quarto_log_has_no_warning(from_notebooks):
    _project, log = from_notebooks
    assert warnings_in(log) == [], "\n".join(warnings_in(log))


SLIDE_KEYS = ["id", "title", "divider", "notes", "quiz_options", "step_notes", "callouts", "figures",
              "answers", "math"]


def test_slides_match_one_to_one(ours, theirs):
    deck, quarto_deck = ours[0], theirs[0]
    mine = [{k: s[k] for k in SLIDE_KEYS} for s in deck.slides]
    other = [{k: s[k] for k in SLIDE_KEYS} for s in quarto_deck.slides]
    assert len(other) == len(mine), f"Quarto: {len(other)} slides, scripts/render: {len(mine)}"
    different = [(a, b) for a, b in zip(mine, other) if a != b]
    assert not different, "\n".join(f"ours:   {a}\nQuarto: {b}" for a, b in different[:5])
    # The things the lecture is made of are really there (a profile of two empty decks would match).
    assert deck.total("notes") > 10 and deck.total("quiz_options") >= 3 and deck.total("step_notes") >= 3
    assert any(re.match(r"ছবি [০-৯]+\.১ — ", f) for s in deck.slides for f in s["figures"])


def test_deck_is_offline_and_quiet(theirs):
    deck = theirs[0]
    assert deck.requests == [], f"network requests: {deck.requests}"
    assert deck.remote_in_source == [], deck.remote_in_source
    assert deck.console == [], deck.console
    assert "Noto Sans Bengali Web" in deck.fonts, deck.fonts


STEP_STATE = r"""
() => {
  const s = Reveal.getCurrentSlide();
  const code = [...s.querySelectorAll('pre code')].filter(c => c.classList.contains('current-fragment'))[0];
  let lines = null;
  if (code) {
    // reveal.js's highlight plugin (scripts/render) marks table rows; Quarto's marks line spans.
    const rows = [...code.querySelectorAll('tr.highlight-line td.hljs-ln-numbers[data-line-number]')]
      .map(td => +td.getAttribute('data-line-number'));
    const spans = [...code.querySelectorAll(':scope > span')]
      .map((span, i) => span.classList.contains('highlight-line') ? i + 1 : 0).filter(Boolean);
    lines = rows.length ? rows : spans;
  }
  return {lines, steps: [...s.querySelectorAll('.stepper-step.current-fragment')].map(e => e.textContent.trim().slice(0, 2))};
}
"""


def stepping(browser, deck_path):
    """Every stepper slide, stepped through: the highlighted lines and the explanation at each step."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(deck_path.as_uri())
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    found = {}
    try:
        ids = page.evaluate("Reveal.getSlides().filter(s => s.querySelector('.stepper-slide')).map(s => s.id)")
        for ident in ids:
            page.evaluate(f"location.hash = '#/{ident}'")
            page.wait_for_function(f"Reveal.getCurrentSlide() && Reveal.getCurrentSlide().id === '{ident}'")
            count = page.evaluate("Reveal.getCurrentSlide().querySelectorAll('.stepper-step').length")
            states = []
            for k in range(count):
                page.evaluate(f"(() => {{ const i = Reveal.getIndices(); Reveal.slide(i.h, i.v || 0, {k}); }})()")
                states.append(page.evaluate(STEP_STATE))
            found[ident] = states
    finally:
        context.close()
    return found


def test_steppers_highlight_the_same_lines_with_the_same_explanation(browser, rendered, from_notebooks, lecture):
    project, _log = from_notebooks
    mine = stepping(browser, rendered / lecture / "slides.html")
    other = stepping(browser, project / "_output" / lecture / "slides.html")
    assert mine and all(s["lines"] for states in mine.values() for s in states), mine
    assert other == mine


def words(text):
    """The handout's words in reading order, without running headers and page numbers (page breaks
    fall where they fall)."""
    kept = [line for line in text.splitlines()
            if not line.startswith("বাংলায় PyTorch · পর্ব") and not re.fullmatch(r"\s*[০-৯]+\s*", line)]
    return sorted(re.sub(r"\s+", " ", "\n".join(kept)).split())


def letters(text):
    """The handout's text without running headers, page numbers, whitespace and digits."""
    kept = [line for line in text.splitlines()
            if not line.startswith("বাংলায় PyTorch · পর্ব") and not re.fullmatch(r"\s*[০-৯]+\s*", line)]
    return re.sub(r"[\s0-9০-৯\u2060]", "", "".join(kept))


def test_handout_matches(ours, theirs):
    mine, other = ours[1], theirs[1]
    # Every figure described (/Alt), with the same words as ours.
    assert mine.alts and all(mine.alts)
    assert other.alts == mine.alts
    assert other.headings == mine.headings
    assert len(mine.headings) > 15
    assert other.pages == mine.pages
    # Page by page the same text (pdftotext ends each page with a form feed): the same page breaks.
    by_page = lambda text: [re.sub(r"\s", "", page) for page in text.split("\f")]  # noqa: E731
    differ = [n for n, (a, b) in enumerate(zip(by_page(other.text), by_page(mine.text)), 1) if a != b]
    assert not differ, f"pages whose text differs between Quarto's handout and ours: {differ}"
    assert other.fonts == mine.fonts
    # Markdown left as text: a fence, a class or id attribute, Quarto's English captions. (A
    # lecture may print `{...}` itself: an attribute starts with a letter.)
    for marker in (r":::", r"\{\.[A-Za-z]", r"\{#[A-Za-z]", r"\bFigure\b", r"\bTable\b"):
        assert not re.search(marker, other.text), f"'{marker}' printed in Quarto's handout"
    # Cover: render date and versions.
    assert "রেন্ডার:" in other.first_page and "PyTorch" in other.first_page, other.first_page
    # Figures: the same numbered captions, and the same words (the PDF figure's Bengali legend
    # included; the SVG one would come out as other glyphs).
    assert re.findall(r"ছবি [০-৯]+\.[০-৯]+", other.text) == re.findall(r"ছবি [০-৯]+\.[০-৯]+", mine.text)
    assert words(other.text) == words(mine.text)
    # Answers: in the appendix only, with the same entries.
    assert mine.after("উত্তরমালা") and other.after("উত্তরমালা")
    assert [h for h in other.headings if "অনুশীলনী" in h[1] or "আলোচনার" in h[1]] == \
        [h for h in mine.headings if "অনুশীলনী" in h[1] or "আলোচনার" in h[1]]


def test_quiz_answers_in_quartos_deck(browser, from_notebooks, lecture):
    """The quiz answers by click in Quarto's deck too, offline (slides.html is shared)."""
    project, _log = from_notebooks
    context = browser.new_context(viewport={"width": 1280, "height": 720}, offline=True)
    page = context.new_page()
    try:
        page.goto((project / "_output" / lecture / "slides.html").as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        ident = page.evaluate("Reveal.getSlides().find(s => s.querySelector('.quiz')).id")
        page.evaluate(f"location.hash = '#/{ident}'")
        page.wait_for_function(f"Reveal.getCurrentSlide().id === '{ident}'")
        page.click(f"#{ident} .quiz-option[data-correct='false']")
        look = f"""(() => {{ const q = document.querySelector('#{ident} .quiz');
            return {{feedback: q.querySelector('.quiz-feedback').className,
                     right: q.querySelectorAll('.quiz-option.right').length,
                     explained: q.querySelector('.quiz-explain').classList.contains('visible')}}; }})()"""
        state = page.evaluate(look)
        # A wrong vote gives nothing away; the right one shows the explanation (the next step).
        page.click(f"#{ident} .quiz-option[data-correct='true']")
        page.wait_for_function(f"document.querySelector('#{ident} .quiz-explain').classList.contains('visible')")
        after = page.evaluate(look)
    finally:
        context.close()
    assert "is-wrong" in state["feedback"] and state["right"] == 0 and not state["explained"], state
    assert "is-right" in after["feedback"] and after["right"] == 1, after


def test_quartos_deck_walks_linear_with_a_slide_menu(browser, from_notebooks, lecture):
    """The same navigation as our deck: → walks into each part's slides (navigation-mode: linear),
    and Quarto's own slide menu is there, offline."""
    project, _log = from_notebooks
    context = browser.new_context(viewport={"width": 1280, "height": 720}, offline=True)
    page = context.new_page()
    try:
        page.goto((project / "_output" / lecture / "slides.html").as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        assert page.evaluate("Reveal.getConfig().navigationMode") == "linear"
        seen = []
        for _ in range(4):
            page.keyboard.press("ArrowRight")
            seen.append(page.evaluate("Reveal.getIndices().v || 0"))
        assert max(seen) > 0, f"→ never entered a part's slides: {seen}"
        page.wait_for_function("!!document.querySelector('.slide-menu-button')")
        page.keyboard.press("m")
        page.wait_for_function("document.querySelectorAll('.slide-menu-items li').length > 10")
    finally:
        context.close()

def test_nothing_changed_renders_nothing(from_notebooks):
    """A second `quarto render` with nothing changed: pre-render hands Quarto no notebook, and no
    product is written again. (Runs after the comparisons: it reuses their render.)"""
    project, _log = from_notebooks
    products = sorted((project / "_output").rglob("*.*"))
    before = {p: p.stat().st_mtime_ns for p in products}
    run = quarto(project)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-3000:]
    assert "quarto: nothing to render" in log, log[-3000:]
    assert {p: p.stat().st_mtime_ns for p in products} == before
    assert sorted((project / "_output").rglob("*.*")) == products


def small_quarto_project(builder, names, sections=False):
    """Small lectures (one cell reading a course package), with the scripts Quarto's pre- and
    post-render run and the project's venv. `sections`: the slide lives in a section file."""
    builder.add_package("minipkg", {"__init__.py": "ANSWER = 42\n"})
    quarto_ready(builder.root, ROOT)
    slide = """
        ## একটি স্লাইড {#sec-one}

        প্রথম বাক্য।

        ```{python}
        #| label: answer
        from minipkg import ANSWER
        print(ANSWER)
        ```

        ::: {.notes}
        পড়ে শোনান।
        :::
        """
    for number, name in enumerate(names, 1):
        front = {"title": f"লেকচার {number}", "course": "বাংলায় PyTorch", "episode": number, "episodes": 91,
                 "module": 1}
        if sections:
            builder.add_lecture(name, "{{< include _01-part.qmd >}}\n", front=front, sections={"_01-part.qmd": slide})
        else:
            builder.add_lecture(name, slide, front=front)
    return builder.root


def test_a_prose_edit_renders_that_lecture_only(project_builder):
    """Two small lectures rendered by Quarto; a sentence changes in one: the next `quarto render`
    writes that lecture's page, slides and handout again, and leaves the other's as they were."""
    project = small_quarto_project(project_builder, ["01-one", "02-two"])
    first = quarto(project)
    assert first.returncode == 0, (first.stdout + first.stderr)[-3000:]
    products = {p: p.stat().st_mtime_ns for p in (project / "_output").glob("0*/*")}
    assert len(products) == 6  # page, slides and handout of each (no scripts: no code zip)
    index = project / "lectures" / "01-one" / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8").replace("প্রথম বাক্য।", "বদলানো বাক্য।"), encoding="utf-8")
    second = quarto(project)
    log = second.stdout + second.stderr
    assert second.returncode == 0, log[-3000:]
    changed = sorted(str(p.relative_to(project)) for p, mtime in products.items() if p.stat().st_mtime_ns != mtime)
    assert changed == ["_output/01-one/handout.pdf", "_output/01-one/index.html", "_output/01-one/slides.html"], changed
    assert "02-two" not in "".join(line for line in log.splitlines() if "_build/" in line), log[-3000:]
    assert "বদলানো বাক্য" in (project / "_output" / "01-one" / "slides.html").read_text(encoding="utf-8")


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def quarto_preview(project: Path, *args: str, ready: str = "01-one/slides.html"):
    """`quarto preview [ARGS] --no-browser --port N` running in `project`, once it serves the page
    `ready`: (url, log path)."""
    port = free_port()
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    log_path = project / f"quarto-preview-{port}.log"
    with open(log_path, "w", encoding="utf-8") as log:
        # A session of its own: stopping it stops Quarto and the preview server it started.
        process = subprocess.Popen([QUARTO, "preview", *args, "--no-browser", "--port", str(port)], cwd=project,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}/"
            deadline = time.time() + 300
            while True:
                try:
                    urllib.request.urlopen(url + ready, timeout=5).close()
                    break
                except OSError:
                    assert process.poll() is None, log_path.read_text(encoding="utf-8")[-3000:]
                    assert time.time() < deadline, "quarto preview did not serve: " + log_path.read_text()[-3000:]
                    time.sleep(0.3)
            yield url, log_path
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    (ROOT / "tests" / "artifacts").mkdir(parents=True, exist_ok=True)
    shutil.copy(log_path, ROOT / "tests" / "artifacts" / ("quarto-preview" + ("-file" if args else "") + ".log"))


def test_quarto_preview_serves_our_execution_and_reloads(project_builder, browser):
    """`quarto preview` of the project and of one lecture's source: the deck is served, a saved
    prose edit is on screen without reloading by hand, the cells run in our executor only (never
    a kernel of Quarto's), and `_output/` gets no product from it."""
    project = small_quarto_project(project_builder, ["01-one"], sections=True)
    section = project / "lectures" / "01-one" / "_01-part.qmd"
    for form, args in (("project", ()), ("lecture", ("lectures/01-one/index.qmd",))):
        with quarto_preview(project, *args) as (url, log_path):
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            try:
                page.goto(url)  # where Quarto opens the browser: the lecture's deck (or a list of decks)
                visible = "() => window.Reveal && Reveal.isReady && Reveal.isReady() && document.body.innerText.includes(%r)"
                before, after = ("প্রথম বাক্য।", "বদলানো বাক্য।") if form == "project" else ("বদলানো বাক্য।", "আবার বদলানো বাক্য।")
                page.wait_for_function(visible % before, timeout=60_000)
                assert "42" in page.inner_text("section#sec-one")
                page.wait_for_function("() => !!window.LiveReload", timeout=30_000)
                time.sleep(1)
                section.write_text(section.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
                page.wait_for_function(visible % after, timeout=60_000)
            finally:
                context.close()
            log = log_path.read_text(encoding="utf-8")
        builds = re.findall(r"deck written in [0-9.]+ s \((.+?)\)", log)
        # The prose edit came from the cache; the project's first deck executed in our executor.
        assert builds[-1] == "from the cache", log[-3000:]
        assert builds[0] == ("executed" if form == "project" else "from the cache"), log[-3000:]
        assert "Starting python3 kernel" not in log and "quarto_ipynb'" not in log, log[-3000:]
        assert not (project / "_output" / "01-one").exists(), form
        assert not list((project / "lectures").rglob("*.html")), form
        assert "quarto-preview" not in (project / "_build" / "quarto-render.yml").read_text(encoding="utf-8")
        # Stopping Quarto stops the server it started.
        deadline = time.time() + 10
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
            except OSError:
                break
            assert time.time() < deadline, f"the preview server outlived quarto preview ({form})"
            time.sleep(0.3)


# Pixels that differ by more than this (of 255, greyscale) count as a visible difference; the rest is
# anti-aliasing. A slide may differ in at most MAX_DIFFERENT_PIXELS of them (a glyph's edge here and there).
VISIBLE_LEVEL = 40
MAX_DIFFERENT_PIXELS = 150


def last_step_screenshots(browser, deck: Path) -> dict:
    """Every content slide of the deck at its last step, as a PIL image, by slide id."""
    from PIL import Image
    import io
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    shots = {}
    try:
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important; }")
        for index in range(page.evaluate("Reveal.getSlides().length")):
            ident = page.evaluate(f"""() => {{ const s = Reveal.getSlides()[{index}]; const at = Reveal.getIndices(s);
              const steps = [...s.querySelectorAll('.fragment')].map(f => +(f.getAttribute('data-fragment-index') || 0));
              Reveal.slide(at.h, at.v, steps.length ? Math.max(...steps) : -1); return s.id; }}""")
            if ident and ident != "title-slide":
                page.wait_for_timeout(50)
                shots[ident] = Image.open(io.BytesIO(page.screenshot())).convert("L")
    finally:
        context.close()
    return shots


def test_both_engines_draw_the_same_slides(project_builder, browser):
    """A small lecture with prose, a list, a code cell and its output, a callout and a stepper, rendered
    by `quarto render` and by scripts/render: every content slide at its last step looks the same, pixel
    for pixel up to anti-aliasing (theme, fonts, spacing, code panels, line numbers, a wrapped code line,
    the stepper's band, the slide menu button and number). The code has no token the two highlighters
    (pandoc's under Quarto, highlight.js in ours) class differently."""
    from PIL import ImageChops
    from helpers import run_render
    project = small_quarto_project(project_builder, ["01-one"])
    index = project / "lectures" / "01-one" / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8") + textwrap.dedent("""

        ## ধাপে ধাপে {#sec-steps}

        ::: {#stp-steps .stepper}
        ```{python}
        #| label: steps
        #| code-line-numbers: "|1|2"
        total = 1 + 2  # a line long enough to wrap in the stepper's code column, under its first character
        print(total)
        ```

        1. **যোগ।** দুটি সংখ্যা যোগ হয়।
        2. **ছাপা।** ফল ছাপা হয়।
        :::

        ::: {.notes}
        ধাপে ধাপে বলুন।
        :::

        ## তালিকা আর বাক্স {#sec-list}

        - প্রথম কথা
        - দ্বিতীয় কথা

        ::: {.callout-note}
        একটি ছোট নোট।
        :::

        ::: {.notes}
        তালিকা পড়ুন।
        :::
        """), encoding="utf-8")
    theirs = quarto(project)
    assert theirs.returncode == 0, (theirs.stdout + theirs.stderr)[-3000:]
    quarto_deck = project / "_output" / "01-one" / "slides.html"
    quarto_shots = last_step_screenshots(browser, quarto_deck)
    ours = run_render(project, "--quiet")
    assert ours.returncode == 0, ours.stderr[-3000:]
    our_shots = last_step_screenshots(browser, project / "_output" / "01-one" / "slides.html")
    assert sorted(quarto_shots) == sorted(our_shots) and "sec-steps" in our_shots, (sorted(quarto_shots), sorted(our_shots))
    different = {}
    for ident, mine in our_shots.items():
        diff = ImageChops.difference(mine, quarto_shots[ident]).point(lambda v: 255 if v > VISIBLE_LEVEL else 0)
        count = diff.histogram()[255]
        if count > MAX_DIFFERENT_PIXELS:
            different[ident] = (count, diff.getbbox())
            ARTIFACTS = ROOT / "tests" / "artifacts"
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            mine.save(ARTIFACTS / f"engines-{ident}-ours.png")
            quarto_shots[ident].save(ARTIFACTS / f"engines-{ident}-quarto.png")
    assert not different, f"slides that look different (pixels, where; tests/artifacts/engines-*): {different}"

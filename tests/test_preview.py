"""`scripts/preview`: a real browser (system Chromium) on the preview server of a small lecture sees
a saved prose edit without reloading by hand, with no kernel started and `_output/` untouched; a
code edit executes the lecture again and the new output shows. The time from save to the new text
on screen is printed (scripts/bench measures it; this test does not time)."""
import os
import re
import textwrap
import time
import urllib.request

import pytest

from helpers import ROOT
from lecturekit.course.scaffold.browser import preview_server, seconds_to_screen, wait_for_text

FRONT_OTHER = """\
---
title: "আরেকটি লেকচার"
course: "বাংলায় PyTorch"
episode: 2
episodes: 91
module: 1
---
"""

SECTION = """\
    # অংশ এক {#sec-one}

    ## প্রথম স্লাইড {#sec-first}

    এখানে প্রথম বাক্যটি আছে।

    ```{python}
    #| label: first-cell
    print(6 * 7)
    ```

    ::: {.notes}
    স্লাইডটি পড়ে শোনান।
    :::
    """


# Three parts, a figure and a quiz in each of the first two: the middle part's numbers depend on
# the parts before it, and its text refers to figures before and after it.
PARTS = {
    "_00-start.qmd": """\
        # শুরু {#sec-start}

        ## প্রথম রেখা {#sec-plot-one}

        ```{python}
        #| label: fig-one
        #| fig-cap: "ওঠানামার রেখা"
        import matplotlib.pyplot as plt
        plt.plot([1, 2, 3], [3, 1, 2])
        plt.show()
        ```

        ## প্রথম যাচাই {#sec-quiz-one}

        ::: {.quiz}
        রেখাটি কি ওঠানামা করে?

        - [x] হ্যাঁ
        - [ ] না

        ::: {.explain}
        তিনটি বিন্দুই তা দেখায়।
        :::
        :::
        """,
    "_01-middle.qmd": """\
        # মাঝখান {#sec-middle-part}

        ## মাঝের স্লাইড {#sec-middle}

        মাঝের বাক্যটি এখানে। আগের রেখা @fig-one, পরের রেখা @fig-three।

        ```{python}
        #| label: fig-two
        #| fig-cap: "নামার রেখা"
        plt.plot([1, 2], [2, 1])
        plt.show()
        ```

        ## মাঝের যাচাই {#sec-quiz-two}

        ::: {.quiz}
        দ্বিতীয় রেখাটি কোন দিকে যায়?

        - [ ] ওপরে
        - [x] নিচে

        ::: {.explain}
        দুই থেকে এক।
        :::
        :::
        """,
    "_02-end.qmd": """\
        # শেষ {#sec-end}

        ## শেষ রেখা {#sec-plot-three}

        ```{python}
        #| label: fig-three
        #| fig-cap: "ওঠার রেখা"
        plt.plot([1, 2], [1, 2])
        plt.show()
        ```
        """,
}


def running(project, *args):
    """scripts/preview in `project`, the tests' and the bench's way (scaffold.browser): (port, log)."""
    return preview_server(project.root, *args, env={**os.environ, "PYTHONPATH": str(ROOT / "scripts")})


@pytest.fixture
def server(mini):
    mini.write("{{< include _00-one.qmd >}}\n", sections={"_00-one.qmd": SECTION})
    with running(mini, "demo") as (port, log):
        yield mini, f"http://127.0.0.1:{port}/demo/slides.html", log


def wait_for_log(log, pattern, count=1, timeout=60):
    deadline = time.time() + timeout
    while len(re.findall(pattern, log.read_text(encoding="utf-8"))) < count:
        assert time.time() < deadline, log.read_text(encoding="utf-8")
        time.sleep(0.05)


def test_a_saved_edit_reloads_the_deck(server, browser):
    project, url, log = server
    section = project.lecture / "_00-one.qmd"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(url + "#/sec-first")
        wait_for_text(page, "এখানে প্রথম বাক্যটি আছে।", 30_000)
        assert "42" in page.inner_text("section#sec-first")

        # Prose: the new sentence shows, the deck came from the cache (no kernel), _output untouched.
        seconds = seconds_to_screen(page, lambda: section.write_text(
            section.read_text(encoding="utf-8").replace("প্রথম বাক্যটি", "বদলানো বাক্যটি"), encoding="utf-8"),
            "এখানে বদলানো বাক্যটি আছে।")
        print(f"prose edit visible after {seconds:.2f} s")
        assert re.findall(r"deck written in [0-9.]+ s \((.+?)\)", log.read_text(encoding="utf-8")) == \
            ["executed", "from the cache"]
        assert not (project.root / "_output").exists()

        # Code: the lecture executes again, and its new output shows.
        time.sleep(1)
        section.write_text(section.read_text(encoding="utf-8").replace("print(6 * 7)", "print(6 * 9)"),
                           encoding="utf-8")
        page.wait_for_function("() => window.Reveal && Reveal.isReady && Reveal.isReady() && "
                               "document.querySelector('section#sec-first').innerText.includes('54')",
                               timeout=120_000)
        assert re.findall(r"deck written in [0-9.]+ s \((.+?)\)", log.read_text(encoding="utf-8"))[-1] == "executed"
    finally:
        context.close()


def test_a_bad_edit_is_reported_and_the_last_deck_stays(server, browser):
    project, url, log = server
    section = project.lecture / "_00-one.qmd"
    section.write_text(section.read_text(encoding="utf-8").replace("::: {.notes}", "::: {.notes"),
                       encoding="utf-8")
    deadline = time.time() + 60
    while "error:" not in log.read_text(encoding="utf-8"):
        assert time.time() < deadline, log.read_text(encoding="utf-8")
        time.sleep(0.2)
    assert "_00-one.qmd" in log.read_text(encoding="utf-8").split("error:", 1)[1]
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(url)
        wait_for_text(page, "এখানে প্রথম বাক্যটি আছে।", 30_000)
    finally:
        context.close()


def test_a_save_read_halfway_is_read_again(server, browser):
    """An editor's save truncates, then writes; both can fall within one tick of the file-system
    clock. The deck built from the truncated file is rebuilt once the rest is written, though the
    file's time did not change again (livereload alone compares times only)."""
    project, url, log = server
    section = project.lecture / "_00-one.qmd"
    full = section.read_text(encoding="utf-8").replace("প্রথম বাক্যটি", "পুরো বাক্যটি")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(url)
        wait_for_text(page, "এখানে প্রথম বাক্যটি আছে।", 30_000)
        page.wait_for_function("() => !!window.LiveReload", timeout=30_000)
        time.sleep(1)
        builds = log.read_text(encoding="utf-8").count("deck written")
        section.write_text("", encoding="utf-8")  # the truncate, caught by a rebuild
        truncated = section.stat().st_mtime_ns
        deadline = time.time() + 60
        while log.read_text(encoding="utf-8").count("deck written") == builds:
            assert time.time() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.05)
        section.write_text(full, encoding="utf-8")  # the write, within the same tick
        os.utime(section, ns=(truncated, truncated))
        wait_for_text(page, "এখানে পুরো বাক্যটি আছে।", 30_000)
    finally:
        context.close()


def test_a_prose_edit_in_a_middle_part_rewrites_its_slides_in_place(mini, browser):
    """A prose edit in the middle section file: the server rewrites only that section's slides
    (the log says so), the open page replaces them without reloading and stays on the slide shown,
    the figure, quiz and part numbers and the references to figures before and after are a full
    render's, and the served deck's slides equal a full render's, slide by slide; what the page
    shows of them equals a page loaded afresh. An edit that adds a numbered thing writes the whole
    deck again."""
    from lecturekit.course.preview.server import full_slides, served_slides
    from lecturekit.project import Project
    mini.write("".join(f"{{{{< include {name} >}}}}\n\n" for name in PARTS), sections=PARTS)
    middle = mini.lecture / "_01-middle.qmd"
    with running(mini, "demo") as (port, log):
        url = f"http://127.0.0.1:{port}/demo/slides.html"
        wait_for_log(log, r"sections read in")
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page, fresh = context.new_page(), context.new_page()
        try:
            page.goto(url + "#/sec-middle")
            wait_for_text(page, "মাঝের বাক্যটি এখানে।", 30_000)
            page.evaluate("window.notReloaded = true")
            at = page.evaluate("Reveal.getIndices()")

            seconds_to_screen(page, lambda: middle.write_text(
                middle.read_text(encoding="utf-8").replace("বাক্যটি এখানে", "বাক্যটি বদলেছে"), encoding="utf-8"),
                "মাঝের বাক্যটি বদলেছে।")
            assert re.findall(r"deck written in .*", log.read_text(encoding="utf-8"))[-1].endswith(
                "; the slides of _01-middle.qmd only"), log.read_text(encoding="utf-8")
            assert page.evaluate("window.notReloaded === true"), "the page was reloaded"
            assert page.evaluate("Reveal.getIndices()") == at
            shown = page.inner_text("section#sec-middle")
            assert "আগের রেখা ছবি ১.১, পরের রেখা ছবি ১.৩" in shown
            assert "ছবি ১.২ — নামার রেখা" in shown
            assert page.get_attribute("section#sec-quiz-two .quiz", "data-quiz") == "2"
            assert page.inner_text("section#sec-middle-part .part-number") == "অংশ ১"

            project = Project(mini.root)
            assert served_slides(project, mini.lecture) == full_slides(project, mini.lecture)
            fresh.goto(url + "#/sec-middle")
            wait_for_text(fresh, "মাঝের বাক্যটি বদলেছে।", 30_000)
            for slide in ("sec-middle", "sec-quiz-two", "sec-middle-part"):
                script = f"document.getElementById({slide!r}).innerHTML"
                assert page.evaluate(script) == fresh.evaluate(script), slide

            # A second quiz in the middle part renumbers what follows: the whole deck is written.
            # The save may be seen half written (a deck without this part: the page then leaves
            # its slide), so the words are looked for in the whole deck, shown or not.
            quiz = textwrap.dedent(PARTS["_01-middle.qmd"]).split("## মাঝের যাচাই {#sec-quiz-two}")[1]
            seconds_to_screen(page, lambda: middle.write_text(
                middle.read_text(encoding="utf-8") + quiz.replace("দ্বিতীয় রেখাটি", "রেখাটি আবার"), encoding="utf-8"),
                "রেখাটি আবার কোন দিকে যায়?", shown=False)
            written = re.findall(r"deck written in .*", log.read_text(encoding="utf-8"))
            assert "every slide: a numbered thing" in written[-1], "\n".join(written)
            assert served_slides(project, mini.lecture) == full_slides(project, mini.lecture)
        finally:
            context.close()


def test_without_a_lecture_every_deck_is_built_when_opened(mini):
    """`scripts/preview` with no lecture starts without building a deck, lists every lecture, and
    builds a lecture's deck when it is opened, that one only."""
    mini.write("{{< include _00-one.qmd >}}\n", sections={"_00-one.qmd": SECTION})
    mini.add_lecture("other", "# আরেকটি {#sec-other}\n\n## স্লাইড {#sec-other-slide}\n\nআরেকটি বাক্য।\n",
                     front=FRONT_OTHER)
    with running(mini) as (port, log):
        assert "deck written" not in log.read_text(encoding="utf-8")
        index = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read().decode()
        assert "demo/slides.html" in index and "other/slides.html" in index
        deck = urllib.request.urlopen(f"http://127.0.0.1:{port}/other/slides.html", timeout=120).read().decode()
        assert "আরেকটি বাক্য।" in deck
        written = re.findall(r"\[(\w+)\] deck written", log.read_text(encoding="utf-8"))
        assert written == ["other"]

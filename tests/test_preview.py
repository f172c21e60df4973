"""`scripts/preview`: a real browser (system Chromium) on the preview server of a small lecture sees
a saved prose edit without reloading by hand, with no kernel started and `_output/` untouched; a
code edit executes the lecture again and the new output shows. The time from save to the new text
on screen is printed (scripts/bench measures it; this test does not time)."""
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from helpers import ROOT

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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(mini):
    mini.write("{{< include _00-one.qmd >}}\n", sections={"_00-one.qmd": SECTION})
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts")}
    log = open(mini.root / "preview.log", "w+", encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "lecturekit.cli.preview", "demo", "--port", str(port)],
                               cwd=mini.root, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 300
        while "Serving on" not in (mini.root / "preview.log").read_text(encoding="utf-8"):
            assert process.poll() is None, (mini.root / "preview.log").read_text(encoding="utf-8")
            assert time.time() < deadline, "the preview server did not start"
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/demo/slides.html"
        while True:  # livereload says "Serving on" just before it listens
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except OSError:
                assert time.time() < deadline and process.poll() is None, "the preview server did not answer"
                time.sleep(0.2)
        yield mini, url, mini.root / "preview.log"
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def wait_for_text(page, text, timeout_ms):
    page.wait_for_function(
        f"() => window.Reveal && Reveal.isReady && Reveal.isReady() && document.body.innerText.includes({text!r})",
        timeout=timeout_ms)


def test_a_saved_edit_reloads_the_deck(server, browser):
    project, url, log = server
    section = project.lecture / "_00-one.qmd"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(url + "#/sec-first")
        wait_for_text(page, "এখানে প্রথম বাক্যটি আছে।", 30_000)
        assert "42" in page.inner_text("section#sec-first")
        # livereload's client is connected before the edit (it reconnects once it has loaded).
        page.wait_for_function("() => !!window.LiveReload", timeout=30_000)
        time.sleep(1)

        # Prose: the new sentence shows, the deck came from the cache (no kernel), _output untouched.
        saved = time.perf_counter()
        section.write_text(section.read_text(encoding="utf-8").replace("প্রথম বাক্যটি", "বদলানো বাক্যটি"),
                           encoding="utf-8")
        wait_for_text(page, "এখানে বদলানো বাক্যটি আছে।", 60_000)
        print(f"prose edit visible after {time.perf_counter() - saved:.2f} s")
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

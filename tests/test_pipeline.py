"""The pipeline end to end: sources -> one execution -> slides + handout, the cache, and bad input."""
import re
import time

import pytest

from helpers import every_lecture, pdf_text

GOOD = """
# প্রথম অংশ {#sec-one}

## একটি স্লাইড {#sec-slide}

বাজারের হিসাব খাতায় ওঠে।

```{python}
#| label: answer
from minipkg import ANSWER
print("উত্তর", ANSWER)
```

উত্তর হলো `{python} ANSWER`।
"""


def line_of(path, needle, nth=1):
    """Line number of the nth line containing needle."""
    hits = [n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if needle in line]
    assert len(hits) >= nth, f"{needle!r} not in {path}"
    return hits[nth - 1]


def test_render_writes_both_products_with_timings(mini):
    mini.write(GOOD)
    result = mini.render()
    assert result.returncode == 0, result.stderr
    assert mini.slides.stat().st_size > 100_000 and mini.handout.read_bytes().startswith(b"%PDF")
    log = result.stderr
    assert re.search(r"execute: [\d.]+ s \(executed\)", log)
    assert re.search(r"revealjs: [\d.]+ s", log) and re.search(r"typst: [\d.]+ s", log)
    text = pdf_text(mini.handout)
    assert "বাজারের হিসাব খাতায় ওঠে।" in text
    assert "উত্তর হলো 42।" in text


def test_second_render_starts_no_kernel(mini, tmp_path):
    mini.write(GOOD)
    started = time.perf_counter()
    assert mini.render().returncode == 0
    first = time.perf_counter() - started
    # A kernelspec that cannot start: if the second render started a kernel, it would fail.
    broken = tmp_path / "jupyter" / "kernels" / "python3"
    broken.mkdir(parents=True)
    (broken / "kernel.json").write_text('{"argv": ["/bin/false"], "display_name": "broken", "language": "python"}')
    started = time.perf_counter()
    # --force: read, keyed and written again (not skipped whole on its stamp), so the cache is what spares the kernel.
    again = mini.render("--force", env={"JUPYTER_PATH": str(tmp_path / "jupyter")})
    second = time.perf_counter() - started
    assert again.returncode == 0, again.stderr
    assert "cache hit, no kernel started" in again.stderr
    print(f"first render {first:.2f} s, second {second:.2f} s")
    assert second < first

    # Prose is not part of the execution key: a typo fix re-renders without a kernel too.
    mini.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"))
    fixed = mini.render(env={"JUPYTER_PATH": str(tmp_path / "jupyter")})
    assert fixed.returncode == 0 and "cache hit" in fixed.stderr
    assert "বাজারের হিসাব খাতায় লেখা হয়।" in pdf_text(mini.handout)


def test_course_code_change_invalidates_the_cache(mini):
    mini.write(GOOD)
    assert mini.render().returncode == 0
    (mini.root / "code" / "minipkg" / "__init__.py").write_text("ANSWER = 43\n")
    result = mini.render()
    assert "(executed)" in result.stderr
    assert "উত্তর হলো 43।" in pdf_text(mini.handout)


def test_cell_output_is_text_not_markup(mini, browser):
    mini.write("""
        # অংশ {#sec-a}

        ## স্লাইড {#sec-b}

        ```{python}
        #| label: xss
        print("<script>alert(1)</script>")
        ```
        """)
    assert mini.render().returncode == 0
    html = mini.slides.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" not in html
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(mini.slides.as_uri() + "#/sec-b")
    page.wait_for_timeout(500)
    assert "<script>alert(1)</script>" in page.inner_text(".reveal .slides section.present")
    assert dialogs == []
    page.close()
    assert "<script>alert(1)</script>" in pdf_text(mini.handout)


# Each bad input: the lecture body, extra section files, the text on (or next to) the failing line
# (with which occurrence), the file it is in, and what the message must say.
BAD_INPUTS = {
    "cell raises": (GOOD + '\n```{python}\n#| label: boom\nfor_sure = 1 / 0\n```\n', {},
                    "label: boom", "index.qmd", ["[cell boom]", "ZeroDivisionError", "Traceback"]),
    "time limit": (GOOD + '\n```{python}\n#| label: slow\n#| timeout: 2\nimport time; time.sleep(60)\n```\n', {},
                   "label: slow", "index.qmd", ["[cell slow]", "time limit of 2 s"]),
    "kernel dies": (GOOD + '\n```{python}\n#| label: crash\nimport os; os._exit(1)\n```\n', {},
                    "label: crash", "index.qmd", ["[cell crash]", "kernel died"]),
    "unclosed fence": (GOOD + '\n```{python}\n#| label: open\nx = 1\n', {},
                       "label: open", "index.qmd", ["never closed"]),
    "duplicate label": (GOOD + '\n```{python}\n#| label: answer\nprint(2)\n```\n', {},
                        ("label: answer", 2), "index.qmd", ["duplicate cell label 'answer'"]),
    "missing include": (GOOD + "\n{{< include _nowhere.qmd >}}\n", {},
                        "_nowhere.qmd", "index.qmd", ["file not found", "_nowhere.qmd"]),
    "error in an included section": (GOOD + "\n{{< include _part.qmd >}}\n",
                                     {"_part.qmd": "## অংশ {#sec-part}\n\n```{python}\n#| label: bad-part\nint('x')\n```\n"},
                                     "label: bad-part", "_part.qmd", ["[cell bad-part]", "ValueError"]),
    "unknown cell option": (GOOD + '\n```{python}\n#| label: odd\n#| fig-dpi: 300\nprint(1)\n```\n', {},
                            "label: odd", "index.qmd", ["'fig-dpi' is outside the supported subset"]),
    "heading without id": (GOOD + "\n## শিরোনাম\n", {}, "## শিরোনাম", "index.qmd", ["explicit id"]),
    "unsupported shortcode": (GOOD + "\n{{< pagebreak >}}\n", {}, "pagebreak", "index.qmd",
                              ["only the {{< include >}} shortcode"]),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_named_and_old_products_survive(mini, case):
    mini.write(GOOD)
    assert mini.render().returncode == 0
    old_slides, old_handout = mini.slides.read_bytes(), mini.handout.read_bytes()

    body, sections, needle, where, expected = BAD_INPUTS[case]
    mini.write(body, sections)
    result = mini.render()
    assert result.returncode == 1
    message = result.stderr
    path = mini.lecture / where
    line = line_of(path, *needle) if isinstance(needle, tuple) else line_of(path, needle)
    assert f"{where}:" in message, message
    numbers = [int(n) for n in re.findall(re.escape(where) + r":(\d+)", message)]
    assert numbers and abs(numbers[0] - line) <= 1, (numbers, line, message)
    for text in expected:
        assert text in message, message
    assert mini.slides.read_bytes() == old_slides
    assert mini.handout.read_bytes() == old_handout


def test_malformed_front_matter_names_file_and_line(mini):
    mini.write(GOOD)
    assert mini.render().returncode == 0
    old = mini.handout.read_bytes()
    mini.write(GOOD, front='---\ntitle: "ঠিক আছে"\ncourse: [খোলা থেকে গেল\n---\n')
    result = mini.render()
    assert result.returncode == 1
    assert re.search(r"index\.qmd:[34]: malformed YAML front matter", result.stderr), result.stderr
    assert mini.handout.read_bytes() == old


def test_handout_is_byte_identical_for_the_same_execution(mini):
    mini.write(GOOD)
    assert mini.render().returncode == 0
    first = mini.handout.read_bytes()
    assert mini.render().returncode == 0
    assert mini.handout.read_bytes() == first


# ---- the real lectures --------------------------------------------------------------------------

@every_lecture
def test_slides_work_offline_with_bengali(rendered, browser, lecture):
    deck = lecture.product(rendered, "slides.html")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests, problems = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(deck.as_uri())
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    outside = [u for u in requests if not u.startswith(("file:", "data:"))]
    assert outside == []
    assert problems == []
    # The first section's divider: its Bengali heading is shown, drawn with the Bengali web font.
    source = "\n".join(p.read_text(encoding="utf-8") for p in lecture.sources)
    first = re.search(r"^# (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", source, re.M)
    page.goto(deck.as_uri() + f"#/{first['id']}")
    page.wait_for_function(f"Reveal.getCurrentSlide() && Reveal.getCurrentSlide().id === {first['id']!r}")
    heading = page.locator("section.present h1")
    shown = heading.inner_text()
    assert heading.is_visible() and re.search("[\u0980-\u09ff]", shown), shown
    word = re.findall("[\u0980-\u09ff]+", shown)[0]
    assert page.evaluate(f"document.fonts.check('30px \"Noto Sans Bengali Web\"', {word!r})")
    page.close()


@every_lecture
def test_handout_has_bengali_prose_verbatim(rendered, lecture):
    text = pdf_text(lecture.product(rendered, "handout.pdf"))
    source = "\n".join(p.read_text(encoding="utf-8") for p in lecture.sources)
    # A plain Bengali sentence from the source (no inline code or markup in it) comes out verbatim.
    sentences = [s.strip() for s in re.split(r"(?<=।)\s", source)
                 if s.strip().endswith("।") and not re.search(r"[`*_\[\]{}#:|]", s) and len(s.strip()) > 25]
    assert sentences, "no plain Bengali sentence found in the source"
    assert any(s in text.replace("\n", " ") for s in sentences), sentences[:3]

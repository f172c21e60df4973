"""What a lecture names stays inside the project, and every refusal names the right line.

Read-stage checks run on the reader directly (no kernel); one render per case proves that nothing
is written outside the project before the error.
"""
import base64
import io
import os
import re
import subprocess
import textwrap
from pathlib import Path

import nbformat
import pytest

from helpers import FRONT
from lecturekit.errors import LectureError
from lecturekit.read.qmd import read_lecture
from lecturekit.write.figures import write_figures


@pytest.fixture
def lecture(project_builder):
    def write(body, front=FRONT):
        folder = project_builder.add_lecture("01-demo", body, front=front)
        return folder / "index.qmd"
    write.project = project_builder
    return write


def refused(index, project_root, line, *texts):
    with pytest.raises(LectureError) as caught:
        read_lecture(index, project_root)
    err = caught.value
    message = str(err)
    assert Path(err.file).name == index.name and err.line == line, message
    for text in texts:
        assert text in message, message
    return message


def line_of(path, needle):
    return next(n for n, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if needle in text)


CELL = "# এক {{#sec-one}}\n\n```{{python}}\n#| echo: true\n#| eval: true\n#| {option}\nprint(1)\n```\n"


@pytest.mark.parametrize("label", ["fig-../../../../x", "fig-a/b", "fig-a b", "../x", ".hidden", "fig-ক"])
def test_labels_that_are_not_plain_names_are_refused_at_their_line(lecture, label):
    index = lecture(CELL.format(option=f"label: \"{label}\""))
    refused(index, lecture.project.root, line_of(index, "#| label:"), f"cell label '{label}'", "ASCII letters")


def test_a_wrongly_typed_option_is_blamed_on_its_own_line(lecture):
    index = lecture(CELL.format(option="fig-width: wide"))
    refused(index, lecture.project.root, line_of(index, "fig-width"), "'fig-width' has the wrong type")
    index = lecture(CELL.format(option="fig-height: true"))
    refused(index, lecture.project.root, line_of(index, "fig-height"), "'fig-height' has the wrong type")
    index = lecture(CELL.format(option="colour: red"))
    refused(index, lecture.project.root, line_of(index, "colour"), "'colour' is outside")


def test_a_reference_to_no_figure_is_named_at_its_line(lecture):
    index = lecture(CELL.format(option="label: fig-tree") + "\nদেখুন @fig-tree-এ, আর @fig-a/b।\n")
    refused(index, lecture.project.root, line_of(index, "@fig-a/b"), "@fig-a/b refers to no figure", "fig-tree")
    ok = lecture(CELL.format(option="label: fig-tree") + "\nদেখুন @fig-tree-এ আর @fig-tree। `@fig-nope` কোড।\n")
    read_lecture(ok, lecture.project.root)


def test_images_outside_the_project_are_refused(lecture, tmp_path):
    outside = tmp_path / "secret.svg"
    outside.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    index = lecture(f"# এক {{#sec-one}}\n\nছবি:\n\n![গোপন]({outside})\n")
    refused(index, lecture.project.root, line_of(index, "![গোপন]"), "absolute path")
    # An absolute path inside the project: refused too (the project renders wherever it lies).
    inside = index.parent / "inside.svg"
    inside.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    for named in (inside, f"file://{inside}"):
        index = lecture(f"# এক {{#sec-one}}\n\nছবি:\n\n![ভেতরে]({named})\n")
        refused(index, lecture.project.root, line_of(index, "![ভেতরে]"), "absolute path", "relative to this file")
    # A symlink inside the lecture folder that points outside.
    (index.parent / "linked.svg").symlink_to(outside)
    index = lecture("# এক {#sec-one}\n\n![লিংক](linked.svg){fig-alt=\"x\"}\n")
    refused(index, lecture.project.root, line_of(index, "![লিংক]"), "outside the project")
    # Without suffix: the formats pick linked.svg / linked.pdf, each must be inside.
    index = lecture("# এক {#sec-one}\n\n![লিংক](linked)\n")
    refused(index, lecture.project.root, line_of(index, "![লিংক]"), "outside the project")
    index = lecture("# এক {#sec-one}\n\n![ভেতরে](../../figures/01-demo/drawn)\n\n`![কোড](/etc/x.svg)`\n")
    read_lecture(index, lecture.project.root)


@pytest.mark.parametrize("html", ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "<!-- note -->",
                                  "<b>মোটা</b>"])
def test_raw_html_in_prose_is_refused_at_its_line(lecture, html):
    index = lecture(f"# এক {{#sec-one}}\n\nপ্রথম লাইন।\nদ্বিতীয় {html} লাইন।\n")
    refused(index, lecture.project.root, line_of(index, "দ্বিতীয়"), "raw HTML")


def test_absolute_paths_are_refused_even_inside_the_project(lecture):
    """A project renders wherever it lies: an include or a `file:` cell named by an absolute path
    is refused at its line, also when the path is inside the project."""
    folder = lecture.project.lectures_dir / "01-demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "_part.qmd").write_text("দ্বিতীয় অংশ।\n", encoding="utf-8")
    (folder / "code.py").write_text("print(1)\n", encoding="utf-8")
    index = lecture(f"# এক {{#sec-one}}\n\n{{{{< include {folder / '_part.qmd'} >}}}}\n")
    refused(index, lecture.project.root, line_of(index, "include"), "absolute path")
    index = lecture(f"# এক {{#sec-one}}\n\n```{{python}}\n#| file: {folder / 'code.py'}\n```\n")
    refused(index, lecture.project.root, line_of(index, "```{python}"), "absolute path")
    ok = lecture("# এক {#sec-one}\n\n{{< include _part.qmd >}}\n\n```{python}\n#| file: code.py\n```\n")
    read_lecture(ok, lecture.project.root)


RUNS_OR_READS_OUTSIDE = {
    # case: (body after the heading, the line to blame (a text on it), what the message says)
    "raw inline html": ("একটি `<img src=x onerror=alert(1)>`{=html} লাইন।", "একটি", "raw HTML"),
    "raw inline typst": ('একটি `#panic("x")`{=typst} লাইন।', "একটি", "raw inline"),
    "span handler": ('[ছুঁয়ে দেখুন]{onmouseover="alert(1)"} লাইন।', "ছুঁয়ে", "attribute 'onmouseover'"),
    "heading handler": ('## দুই {#sec-two onclick="alert(1)"}', "## দুই", "attribute 'onclick'"),
    "code span handler": ('কোড `x`{onclick="alert(1)"} লাইন।', "কোড", "attribute 'onclick'"),
    "link handler": ('[পাতা](https://example.org/a_(b)){onmouseover="alert(1)"} লাইন।', "পাতা",
                     "attribute 'onmouseover'"),
    "image handler": ('![ছবি](x.svg){onerror="alert(1)"}', "ছবি", "attribute 'onerror'"),
    "code block handler": ('```{.python onclick="alert(1)"}\nx = 1\n```', ".python", "attribute 'onclick'"),
    "div handler": ('::: {onclick="alert(1)"}\nভেতরে।\n:::', ":::", "attribute 'onclick'"),
    "setext heading handler": ('দুই {onclick="alert(1)"}\n---------', "দুই", "attribute 'onclick'"),
    "reference handler": ('[পাতা][r]\n\n[r]: https://example.org "t" {onfocus="alert(1)"}', "[r]:",
                          "attribute 'onfocus'"),
    "script link": ("[চাপুন](javascript:alert(1)) লাইন।", "চাপুন", "javascript: link"),
    "script autolink": ("<javascript:alert(1)> লাইন।", "javascript", "javascript: link"),
    "script reference": ("[চাপুন][r]\n\n[r]: javascript:alert(1)", "[r]:", "javascript: link"),
    "reference image outside": ("![ছবি][r]\n\n[r]: ../../../../../../../../etc/hostname", "[r]:",
                                "outside the project"),
    "caption image": ('```{python}\n#| label: fig-p\n#| fig-cap: "![](/etc/x.svg) ছবি"\nprint(1)\n```',
                      "fig-cap", "absolute path"),
    "caption html": ('```{python}\n#| label: fig-p\n#| fig-cap: "<script>alert(1)</script>"\nprint(1)\n```',
                     "fig-cap", "raw HTML '<script>alert(1)</script>' in 'fig-cap'"),
}


@pytest.mark.parametrize("case", sorted(RUNS_OR_READS_OUTSIDE))
def test_what_would_run_in_the_deck_or_read_outside_is_refused_at_its_line(lecture, case):
    body, needle, says = RUNS_OR_READS_OUTSIDE[case]
    index = lecture(f"# এক {{#sec-one}}\n\nপ্রথম লাইন।\n\n{body}\n")
    refused(index, lecture.project.root, line_of(index, needle), says)


def test_an_image_in_the_title_stays_inside_the_project(lecture):
    front = FRONT.replace('title: "পরীক্ষার লেকচার"', 'title: "![](../../../../etc/x.svg) শিরোনাম"')
    index = lecture("# এক {#sec-one}\n", front=front)
    refused(index, lecture.project.root, line_of(index, "title:"), "outside the project")


def test_attributes_and_links_that_run_nothing_are_accepted(lecture):
    index = lecture('# এক {#sec-one}\n\n[লাল]{.mark} আর [পাতা](https://pytorch.org), [উপরে](#sec-one); '
                    '`{"on": 1}` কোডে; `x`{.python}।\n\n[r]: https://pytorch.org\n')
    read_lecture(index, lecture.project.root)


def test_prose_that_only_looks_like_html_is_accepted(lecture):
    index = lecture("# এক {#sec-one}\n\nযদি x < 5 আর y > 2 হয়; `<script>` কোডে; <https://pytorch.org> লিংক।\n\n"
                    "```html\n<b>code block</b>\n```\n")
    read_lecture(index, lecture.project.root)


@pytest.mark.parametrize("key,value", [("title", "শিরোনাম <script>alert(1)</script>"),
                                       ("title", "`{python} 6*7` নম্বর"), ("subtitle", "<img src=x onerror=alert(1)>")])
def test_front_matter_raw_html_and_inline_python_are_refused(lecture, key, value):
    front = FRONT.replace("---\n", f"---\n{key}: '{value}'\n", 1) if key != "title" else \
        FRONT.replace('title: "পরীক্ষার লেকচার"', f"title: '{value}'")
    index = lecture("# এক {#sec-one}\n", front=front)
    refused(index, lecture.project.root, line_of(index, f"{key}:"), f"'{key}'")


# ---- the figure bookkeeping -------------------------------------------------------------------

def notebook_with_figure(label, file="index.qmd"):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("plot()")
    cell.metadata["lecture"] = {"file": file, "line": 3, "label": label}
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg/>"})]
    nb.cells = [cell]
    return nb


def test_figures_never_escape_or_remove_what_a_render_did_not_write(tmp_path):
    root = tmp_path / "project"
    (root / "figures" / "demo").mkdir(parents=True)
    with pytest.raises(LectureError, match="not a plain file name"):
        write_figures(notebook_with_figure("fig-../../../../x"), root, "demo")
    assert not list(tmp_path.rglob("x.svg"))
    # A hand-drawn figure with a cell's name: refused, its bytes kept.
    hand = root / "figures" / "demo" / "fig-hand.svg"
    hand.write_text("<svg>hand</svg>")
    with pytest.raises(LectureError, match="not written by a render") as caught:
        write_figures(notebook_with_figure("fig-hand"), root, "demo")
    assert caught.value.line == 3 and caught.value.label == "fig-hand"
    assert hand.read_text() == "<svg>hand</svg>"
    # A tampered .generated never removes anything outside the folder or not listed.
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (root / "figures" / "demo" / ".generated").write_text("../../../victim.txt\n.generated\nfig-hand.svg\n")
    hand.unlink()
    write_figures(notebook_with_figure("fig-new"), root, "demo")
    assert victim.read_text() == "keep"
    assert (root / "figures" / "demo" / "fig-new.svg").exists()


def test_a_label_that_escapes_writes_nothing_outside_the_project(mini, tmp_path):
    mini.write("# এক {#sec-one}\n\n```{python}\n#| label: fig-../../../../../x\nimport matplotlib.pyplot as plt\n"
               "plt.plot([1, 2])\nplt.show()\n```\n")
    result = mini.render()
    index = mini.lecture / "index.qmd"
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"index.qmd:{line_of(index, '#| label')}: cell label" in result.stderr, result.stderr
    # figures/demo/fig-../../../../../x.svg would be the project's parent folder's x.svg.
    written = [*tmp_path.parent.glob("x.*"), *tmp_path.rglob("x.*")]
    assert [p for p in written if p.suffix in (".svg", ".pdf", ".png")] == []


# ---- images beside the lecture ------------------------------------------------------------------

def red_png(width, height):
    from PIL import Image
    data = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(data, "PNG")
    return data.getvalue()


def pdf_image_sizes(pdf):
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    return sorted((int(row.split()[3]), int(row.split()[4])) for row in listing.splitlines()[2:])


def test_images_beside_the_lecture_are_in_both_products(mini):
    """`![](pic.png)` names a file beside the source that names it; the products are written from
    the executed notebook in _build/<lecture>/, and still show it (slides and handout)."""
    pictures = {"pic.png": red_png(40, 20), "img/wide.png": red_png(60, 10)}
    for name, data in pictures.items():
        (mini.lecture / name).parent.mkdir(parents=True, exist_ok=True)
        (mini.lecture / name).write_bytes(data)
    mini.write("# ছবি {#sec-pic}\n\nপাশের ছবি:\n\n![লাল](pic.png)\n\n![চওড়া](img/wide.png)\n\n"
               "কোডে যেমন লেখা: `![লাল](pic.png)`\n")
    result = mini.render()
    assert result.returncode == 0, result.stderr
    deck = mini.slides.read_text(encoding="utf-8")
    for data in pictures.values():
        assert base64.b64encode(data).decode() in deck
    assert pdf_image_sizes(mini.handout) == [(40, 20), (60, 10)]
    # Only the link changed; the code span reads as the author wrote it.
    assert "`![লাল](pic.png)`" in (mini.root / "_build" / "demo" / "demo.ipynb").read_text(encoding="utf-8")


# Attribute blocks pandoc does not read as attributes, or keys it writes as data-*: allowed.
NOT_A_HANDLER = {
    "literal braces in prose": "লিখুন {one=1} বা {onclick=1}, যেমন আছে তেমন।",
    "a key that is no event": '[এক]{one=1} আর `x`{one="1"}',
    "after a space": "শব্দ {onclick=1}",
    "handler text in a value": '[এক]{title="onclick=alert(1)"}',
    "a heading's key that is no event": "## তিন {#sec-three one=1}",
    "not lower case": "[এক]{onClick=1}",
    "a code block's key that is no event": '```{.python one="1"}\nx = {"onclick": 1}\n```',
}


@pytest.mark.parametrize("case", sorted(NOT_A_HANDLER))
def test_text_that_is_no_event_handler_is_allowed(lecture, case):
    index = lecture(f"# এক {{#sec-one}}\n\n{NOT_A_HANDLER[case]}\n")
    read_lecture(index, lecture.project.root)


def pandoc_handlers(markdown):
    """The event-handler attributes in pandoc's HTML for this markdown."""
    import pypandoc
    from lecturekit.read.events import EVENT_HANDLERS
    run = subprocess.run([pypandoc.get_pandoc_path(), "-f", "markdown", "-t", "html5"], input=markdown,
                         capture_output=True, text=True, check=True)
    return [name for name in re.findall(r"\s(on[a-zA-Z]+)=", run.stdout) if name in EVENT_HANDLERS], run.stdout


@pytest.mark.parametrize("case", sorted(NOT_A_HANDLER))
def test_pandoc_writes_no_handler_for_what_is_allowed(case):
    handlers, html = pandoc_handlers(NOT_A_HANDLER[case] + "\n")
    assert handlers == [], html


@pytest.mark.parametrize("case", sorted(c for c in RUNS_OR_READS_OUTSIDE if "handler" in c))
def test_pandoc_writes_the_handler_that_is_refused(case):
    body, _needle, says = RUNS_OR_READS_OUTSIDE[case]
    handlers, html = pandoc_handlers(body + "\n")
    assert handlers and f"attribute '{handlers[0]}'" == says, html


def test_the_event_handlers_are_those_chromium_runs(browser):
    """The set the rule refuses holds every `on…` handler Chromium knows (a newer browser with a
    new event fails here, not in a deck)."""
    from lecturekit.read.events import EVENT_HANDLERS
    page = browser.new_page()
    try:
        names = page.evaluate("""() => {
          const found = new Set();
          for (const start of [HTMLElement.prototype, SVGElement.prototype, Document.prototype, window,
                               HTMLBodyElement.prototype, HTMLMediaElement.prototype])
            for (let o = start; o; o = Object.getPrototypeOf(o))
              for (const key of Object.getOwnPropertyNames(o)) if (/^on[a-z]+$/.test(key)) found.add(key);
          return [...found];
        }""")
    finally:
        page.close()
    assert "onclick" in names and set(names) <= EVENT_HANDLERS, sorted(set(names) - EVENT_HANDLERS)

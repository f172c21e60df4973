"""Nothing in a lecture's source, front matter, options or output runs script in the deck, reads a file
outside the project or reaches the network, and no message sends a terminal sequence.

The decision is taken once, when a lecture is read: read/markup.py on pandoc's AST (raw HTML, links,
attributes, math), read/resources.py on every file an option names. The read-stage cases call the
reader (no kernel). One fixture project holds every hostile case as a lecture of its own, beside a
lecture whose cells print, display and raise hostile text; it is rendered once by scripts/render and
once by the real Quarto (the project, and one hostile source alone), and each path must name every
refused lecture's file:line. The decks that are written are walked in Chromium: no dialog, no
request. A loopback HTTP server, which every URL in the project points at, counts requests: none.
"""
import http.server
import json
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import NO_QUARTO, ROOT, run_render
from lecturekit.ansi import strip_ansi, terminal_text
from lecturekit.errors import LectureError, run_command
from lecturekit.read.qmd import read_lecture
from lecturekit.write.formats import check_format_options

# Every URL in the fixtures points here; the server must never be asked anything.
PORT = "PORT"


@dataclass(frozen=True)
class Case:
    """A lecture with one hostile construct: where the error must point, and what it must say."""
    body: str = ""  # after a heading and a first sentence
    front: dict = field(default_factory=dict)  # front-matter keys besides title and episode
    sections: dict = field(default_factory=dict)  # section files, included at the end of the body
    file: str = "index.qmd"  # the file the error names
    needle: str = ""  # a text on the line it names
    says: str = ""  # a text of its message
    links: dict = field(default_factory=dict)  # {name in the lecture folder: target} symbolic links
    line_ends: str = "\n"  # how the body's lines end


HEAD = "## এক {#sec-one}\n\nপ্রথম লাইন।\n\n"
HTML = "raw HTML"
RUNS = "would run in the deck"
URL = "is a URL"
OUT = "outside the project"

CASES = {
    # Raw HTML, however it is spelled or split.
    "tag split over lines": Case('একটি <img src=""\nonerror=alert(1)> লাইন।', needle="<img", says=HTML),
    "svg slash onload": Case("একটি <svg/onload=alert(1)> লাইন।", needle="<svg", says=HTML),
    "details ontoggle": Case("<details/open/ontoggle=alert(1)>", needle="<details", says=HTML),
    "upper-case tag": Case("একটি <IMG SRC=x ONERROR=alert(1)> লাইন।", needle="<IMG", says=HTML),
    "comment": Case("একটি <!-- লুকানো --> লাইন।", needle="<!--", says=HTML),
    "processing instruction": Case("একটি <?x alert(1) ?> লাইন।", needle="<?x", says=HTML),
    "raw attribute inline": Case("একটি `<b>x</b>`{=html} লাইন।", needle="{=html}", says=HTML),
    "raw html5 block": Case("```{=html5}\n<script>alert(1)</script>\n```", needle="{=html5}", says=HTML),
    "raw revealjs block": Case("```{=revealjs}\n<script>alert(1)</script>\n```", needle="{=revealjs}", says=HTML),
    "raw typst block": Case('```{=typst}\n#panic("x")\n```', needle="{=typst}", says="a raw block ({=typst})"),
    "html in a table cell": Case("| ক | খ |\n|---|---|\n| <img src=x onerror=alert(1)> | ২ |", needle="<img",
                                 says=HTML),
    "html in a footnote": Case("একটি লাইন[^1]।\n\n[^1]: <svg onload=alert(1)>", needle="[^1]:", says=HTML),
    "html in a definition": Case("শব্দ\n:   <b>মানে</b>", needle="<b>", says=HTML),
    "html in image alt": Case("![<img src=x onerror=alert(1)>](pic.png)", needle="![", says=HTML),
    "html in speaker notes": Case("::: {.notes}\n<script>alert(1)</script>\n:::", needle="<script>", says=HTML),
    "html in a quiz option": Case("::: {.quiz}\nকোনটি?\n\n- [ ] <svg onload=alert(1)>\n- [x] দুই\n\n"
                                  "::: {.explain}\nকারণ।\n:::\n:::", needle="- [ ] <svg", says=HTML),
    "html in a callout title": Case('::: {.callout-note title="<img src=x onerror=alert(1)>"}\nভেতরে।\n:::',
                                    needle="callout-note", says="the 'title' attribute"),
    "yaml block in the body": Case('---\nsubtitle: "<svg onload=alert(1)>"\n---', needle="subtitle", says=HTML),
    "html in a section file": Case("{{< include _01.qmd >}}", sections={"_01.qmd": "দ্বিতীয় <svg/onload=alert(1)>\n"},
                                   file="_01.qmd", needle="দ্বিতীয়", says=HTML),
    # Links a browser would run, however pandoc got them.
    "entity-encoded destination": Case("[চাপুন](&#106;avascript:alert(1))", needle="চাপুন", says="javascript: link"),
    "entity colon": Case("[চাপুন](&#x6A;avascript&colon;alert(1))", needle="চাপুন", says="javascript: link"),
    "destination on the next line": Case("[চাপুন](\njavascript:alert(1))", needle="javascript", says="javascript: link"),
    "reference on the next line": Case("[চাপুন][r]\n\n[r]:\n  javascript:alert(1)", needle="javascript",
                                       says="javascript: link"),
    "upper-case scheme": Case("[চাপুন](JaVaScRiPt:alert(1))", needle="চাপুন", says="javascript: link"),
    "leading control character": Case("[চাপুন](<\x01javascript:alert(1)>)", needle="চাপুন", says="javascript: link"),
    "script autolink": Case("<javascript:alert(1)>", needle="javascript", says="javascript: link"),
    "data url": Case("[চাপুন](data:text/html,<script>alert(1)</script>)", needle="চাপুন", says="data: link"),
    "vbscript url": Case("[চাপুন](vbscript:msgbox(1))", needle="চাপুন", says="vbscript: link"),
    "href attribute": Case('[চাপুন]{href="javascript:alert(1)"}', needle="চাপুন", says="javascript:"),
    # Attributes that run or load.
    "onclick on a span": Case('[চাপুন]{onclick="alert(1)"}', needle="চাপুন", says="attribute 'onclick'"),
    "handler on a heading": Case('## দুই {#sec-two onmouseover="alert(1)"}', needle="দুই", says="'onmouseover'"),
    "handler on a div": Case('::: {ontoggle="alert(1)"}\nভেতরে।\n:::', needle="ontoggle", says="'ontoggle'"),
    "frame behind a slide": Case('## দুই {#sec-two background-iframe="https://example.org"}', needle="দুই",
                                 says="'background-iframe'"),
    "style that loads": Case(f'[লাল]{{style="background:url(http://127.0.0.1:{PORT}/s.png)"}}', needle="লাল",
                             says="'style="),
    # Files and the network.
    "remote image": Case(f"![ছবি](http://127.0.0.1:{PORT}/remote.png)", needle="![ছবি]", says=URL),
    "scheme-relative image": Case(f"![ছবি](//127.0.0.1:{PORT}/remote.png)", needle="![ছবি]", says=URL),
    "remote slide background": Case(f'## দুই {{#sec-two background-image="http://127.0.0.1:{PORT}/bg.png"}}',
                                    needle="দুই", says=URL),
    "slide background outside": Case('## দুই {#sec-two background-image="../../../outside.png"}', needle="দুই",
                                     says=OUT),
    "image through a link": Case("![ছবি](linked.svg)", links={"linked.svg": "../../../outside.svg"},
                                 needle="![ছবি]", says=OUT),
    # The front matter: every string that reaches the deck.
    "subtitle": Case(front={"subtitle": "শিরোনাম <svg/onload=alert(1)>"}, needle="subtitle:", says=HTML),
    "title": Case(front={"title": "<details/open/ontoggle=alert(1)>"}, needle="title:", says=HTML),
    "author link": Case(front={"author": "[লেখক](&#106;avascript:alert(1))"}, needle="author:", says="javascript:"),
    "description image": Case(front={"description": f"![](http://127.0.0.1:{PORT}/d.png)"}, needle="description:",
                              says=URL),
    # Cell options read as markdown.
    "figure caption": Case("```{python}\n#| label: fig-p\n#| fig-cap: \"<img src=x onerror=alert(1)>\"\nprint(1)\n```",
                           needle="fig-cap", says="'fig-cap'"),
    "figure alt text": Case("```{python}\n#| label: fig-p\n#| fig-alt: \"<svg onload=alert(1)>\"\nprint(1)\n```",
                            needle="fig-alt", says="'fig-alt'"),
    "unwritable math": Case("সূত্র $\\textcolor{red}{x}$ এখানে।", needle="সূত্র", says="\\textcolor"),
    # Line ends pandoc and the reader would read differently.
    "carriage returns alone": Case("একটি <svg/onload=alert(1)> লাইন।\n", line_ends="\r", needle="## এক",
                                   says="lone carriage return"),
    # Options naming files: outside the project, absolute, URLs (pandoc would fetch them).
    "header include outside": Case(front={"format": {"revealjs": {"include-in-header": "../../../outside.html"}}},
                                   needle="include-in-header", says=OUT),
    "stylesheet url": Case(front={"format": {"revealjs": {"css": f"http://127.0.0.1:{PORT}/x.css"}}}, needle="css:",
                           says=URL),
    "stylesheet through a link": Case(front={"format": {"revealjs": {"css": "style.css"}}},
                                      links={"style.css": "../../../outside.css"}, needle="css:", says=OUT),
    "theme path": Case(front={"format": {"revealjs": {"theme": "../../../../outside"}}}, needle="theme:", says=OUT),
    "handout include absolute": Case(front={"format": {"typst": {"include-in-header": "/etc/hostname"}}},
                                     needle="include-in-header", says="absolute path"),
    "template partial outside": Case(front={"format": {"typst": {"template-partials": ["../../../x.typ"]}}},
                                     needle="template-partials", says=OUT),
    "highlighting theme outside": Case(front={"format": {"typst": {"syntax-highlighting": "../../../x.theme"}}},
                                       needle="syntax-highlighting", says=OUT),
    "math from a url": Case(front={"format": {"revealjs": {"html-math-method": {
        "method": "katex", "url": f"http://127.0.0.1:{PORT}/katex/"}}}}, needle="url:", says=URL),
    "bibliography url": Case(front={"bibliography": f"http://127.0.0.1:{PORT}/refs.bib"}, needle="bibliography:",
                             says=URL),
    "style outside": Case(front={"csl": "../../../x.csl"}, needle="csl:", says=OUT),
    "metadata outside": Case(front={"metadata-files": ["../../../x.yml"]}, needle="metadata-files", says=OUT),
    "filter outside": Case(front={"filters": ["../../../x.lua"]}, needle="filters:", says=OUT),
}


def lecture_name(case):
    return "50-" + "-".join(case.split()).replace("'", "")


def write_case(builder, case, port, episode=50):
    """The case as `lectures/<name>/`; returns (the file the error names, its line)."""
    spec = CASES[case]
    name = lecture_name(case)
    body = HEAD + spec.body.replace(PORT, str(port)) + "\n"
    if spec.sections:
        body += "".join(f"\n{{{{< include {file} >}}}}\n" for file in spec.sections if file not in body)
    front = {"title": case, "episode": episode}
    front.update(json.loads(json.dumps(spec.front).replace(PORT, str(port))))
    folder = builder.add_lecture(name, "", front=front, sections=spec.sections)
    index = folder / "index.qmd"
    index.write_bytes(index.read_bytes() + body.replace("\n", spec.line_ends).encode("utf-8"))
    for link, target in spec.links.items():
        (folder / link).symlink_to(target)
    blamed = folder / spec.file
    line = next(n for n, text in enumerate(blamed.read_bytes().split(b"\n"), 1)
                if spec.needle.encode("utf-8") in text)
    return blamed, line


@pytest.fixture
def outside(tmp_path):
    """Files beside the project, which cases name (the project is tmp_path/project)."""
    for name in ("outside.html", "outside.css", "outside.svg", "outside.png", "x.typ", "x.theme", "x.csl", "x.yml",
                 "x.lua"):
        (tmp_path / name).write_text("<script>alert('outside')</script>\n", encoding="utf-8")
    return tmp_path


def read(index, root):
    """The lecture read and its options checked, as a render does before it executes anything."""
    from lecturekit.project import Project
    check_format_options(Project(root), read_lecture(index, root))


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_would_run_read_outside_or_fetch_is_refused_at_its_line(project_builder, outside, case):
    index, line = write_case(project_builder, case, port=9)
    with pytest.raises(LectureError) as caught:
        read(index.parent / "index.qmd", project_builder.root)
    err = caught.value
    assert (Path(err.file).name, err.line) == (index.name, line), str(err)
    assert CASES[case].says in err.message, str(err)


ALLOWED = {
    "looks like html": "x < 5 আর y > 2; `<script>alert(1)</script>` কোডে; \\<svg onload=alert(1)\\> লেখা; "
                       "&lt;img src=x onerror=alert(1)&gt; লেখা।",
    "links": "[পাতা](https://pytorch.org), [ঠিকানা](mailto:a@example.org), [উপরে](#sec-one), <https://pytorch.org>।",
    "link text that names a scheme": "[javascript:alert(1)](https://example.org) লেখা।",
    "a scheme that is no scheme": "[চাপুন](java%3Ascript:alert(1)) আর [চাপুন](<java\tscript:alert(1)>)।",
    "braces that are text": "লিখুন {onclick=1} বা [এক]{one=1} বা [এক]{onClick=1}।",
    "attributes that run nothing": '[লাল]{.mark style="color: red"} আর ## নয়',
    "a callout title that is text": '::: {.callout-note title="x < y, `<b>`"}\nভেতরে।\n:::',
    "math": "$x^2 + \\frac{1}{2}$ আর $$\\sum_i x_i$$",
    "a slide background inside": '## দুই {#sec-two background-image="pic.png"}',
    "an image inside": "![ছবি](pic.png)",
    "a code block": "```html\n<script>alert(1)</script>\n```",
}


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_what_only_looks_hostile_is_read(project_builder, case):
    folder = project_builder.add_lecture("01-fine", HEAD + ALLOWED[case] + "\n", front={"title": "ঠিক", "episode": 1})
    (folder / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    read(folder / "index.qmd", project_builder.root)


def test_quarto_settings_are_judged_too(project_builder):
    """A string of _quarto.yml reaches every deck Quarto writes; a file it names is read by every render."""
    folder = project_builder.add_lecture("01-fine", HEAD, front={"title": "ঠিক", "episode": 1})
    config = project_builder.root / "_quarto.yml"
    original = config.read_text(encoding="utf-8")
    for added, says in (('description: "<svg/onload=alert(1)>"\n', HTML),
                        ("bibliography: ../outside.bib\n", OUT)):
        config.write_text(original + added, encoding="utf-8")
        with pytest.raises(LectureError) as caught:
            read(folder / "index.qmd", project_builder.root)
        line = original.count("\n") + 1
        assert (Path(caught.value.file).name, caught.value.line) == ("_quarto.yml", line), str(caught.value)
        assert says in caught.value.message, str(caught.value)
    config.write_text(original + "format:\n  revealjs:\n    include-after-body: ../outside.html\n", encoding="utf-8")
    with pytest.raises(LectureError, match="outside the project"):
        read(folder / "index.qmd", project_builder.root)


def test_a_passing_verdict_is_remembered_and_links_are_checked_again(project_builder, tmp_path):
    """The judged markdown's verdict is kept (`_build/markup/`): no pandoc on the next read. The files it
    names are checked at every read: a link pointed outside since is refused."""
    folder = project_builder.add_lecture("01-fine", HEAD + "![ছবি](pic.svg)\n", front={"title": "ঠিক", "episode": 1})
    (folder / "pic.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    read(folder / "index.qmd", project_builder.root)
    assert (project_builder.root / "_build" / "markup" / "01-fine.json").is_file()
    (tmp_path / "secret.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (folder / "pic.svg").unlink()
    (folder / "pic.svg").symlink_to(tmp_path / "secret.svg")
    with pytest.raises(LectureError, match="outside the project"):
        read(folder / "index.qmd", project_builder.root)


# ---- messages ---------------------------------------------------------------------------------------

SEQUENCES = {
    "OSC 52 clipboard": "\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "OSC 0 title, ST": "\x1b]0;pwned\x1b\\",
    "OSC 8 hyperlink": "\x1b]8;;http://127.0.0.1/\x1b\\link\x1b]8;;\x1b\\",
    "DCS": "\x1bP1$qm\x1b\\",
    "APC": "\x1b_apc\x1b\\",
    "PM": "\x1b^pm\x1b\\",
    "SOS": "\x1bXsos\x1b\\",
    "CSI colour": "\x1b[31m",
    "CSI screen": "\x1b[?1049h\x1b[2J",
    "C1 CSI": "\x9b31m",
    "C1 OSC": "\x9d0;pwned\x07",
    "C1 DCS": "\x90data\x9c",
    "unterminated OSC": "\x1b]52;c;ZWNobyBwd25lZA==",
    "bell, backspace, CR, NUL": "\x07\x08\r\x00",
}


def control_characters(text):
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_messages_carry_no_terminal_sequence(name, capsys):
    sequence = SEQUENCES[name]
    text = terminal_text(f"before {sequence}\nafter")  # an unterminated string ends with its line
    assert text.startswith("before ") and text.endswith("\nafter") and not control_characters(text), repr(text)
    assert "pwned" not in text and "ZWNob" not in text
    assert not control_characters(str(LectureError(f"raised {sequence}", "x.qmd", 3, detail=sequence)))

    def body():
        print(f"printed {sequence} text")
        raise LectureError(f"raised {sequence}", "x.qmd", 3)
    assert run_command(body) == 1
    out, err = capsys.readouterr()
    assert "printed" in out and "x.qmd:3: raised" in err, (out, err)
    assert not control_characters(out + err), repr(out + err)


def test_output_text_loses_sequences_but_keeps_its_text():
    assert strip_ansi("\x1b[1;31mError\x1b[0m: x\n") == "Error: x\n"
    assert strip_ansi("a\x1b]52;c;ZXZpbA==\x07b\x9b2Jc") == "abc"


# ---- both renderers, one fixture project --------------------------------------------------------------

class Counter(http.server.BaseHTTPRequestHandler):
    asked: list = []

    def do_GET(self):  # noqa: N802 (the standard library's name)
        self.asked.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(b"\x89PNG\r\n\x1a\n")

    do_HEAD = do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def loopback():
    """A local HTTP server every URL of the fixtures points at; `.asked`: what it was asked."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counter)
    server.asked = Counter.asked = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


SHOWN = f"""
# \\<img src=x onerror=window.pwned=1\\> অংশ {{#sec-part}}

## \\<img src=x onerror=window.pwned=2\\> দেখানো {{#sec-shown}}

যা HTML-এর মতো দেখায়: x < 5, `<script>alert('code')</script>`, \\<svg onload=alert('escaped')\\>,
&lt;img src=x onerror=alert('entity')&gt;; [পাতা](http://127.0.0.1:{PORT}/linked), [চাপুন](java%3Ascript:alert(1))।

::: {{.callout-note title="x < y আর `<b>`"}}
[এক]{{onClick="alert('case')"}} আর [দুই]{{one="alert('data')"}}।
:::

```{{python}}
esc, bel = chr(27), chr(7)
print("<script>alert('print')</script>", esc + "]52;c;" + "ZXZp" + "bA==" + bel)
```

```{{python}}
from IPython.display import HTML, Javascript, Markdown, SVG, display
display(HTML("<img src=x onerror=alert('html')>"))
display(Markdown("<svg onload=alert('markdown')>"))
display(Javascript("alert('javascript')"))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="alert(1)">'
            '<script>alert(2)</script><rect width="20" height="20"/></svg>'))
value = "<img src=x onerror=alert('inline')>"
```

মান: `{{python}} value`।

```{{python}}
#| error: true
raise ValueError("<img src=x onerror=alert('error')>")
```
"""

# A cell that raises with terminal sequences in its message (built when it runs: the traceback quotes
# the code): the lecture fails, and its message is printed without them.
RAISES = """
## ভুল {#sec-raise}

```{python}
esc, bel = chr(27), chr(7)
clipboard = esc + "]52;c;" + "ZWNo" + "byBw" + bel
title = esc + "]0;" + "pw" + "ned" + bel
dcs = esc + "P1$qm" + esc + chr(92)
raise ValueError("clipboard " + clipboard + " title " + title + " dcs " + dcs + " end")
```
"""


# Front-matter text that a template writes into an attribute (the page's description, the deck's
# keywords): a quote, as markdown reads it, would end the attribute and send the reader elsewhere.
ATTRIBUTE_FRONT = {"title-en": f'0;url=http://127.0.0.1:{PORT}/title-en\\" http-equiv=\\"refresh',
                   "keywords": [f'0;url=http://127.0.0.1:{PORT}/keywords\\" http-equiv=\\"refresh']}


def attributes_kept(product):
    """The meta elements of a product that name or set something: a value pasted from the front matter
    stays in its attribute (no http-equiv but the policy), its text whole."""
    import html.parser

    class Metas(html.parser.HTMLParser):
        found = []

        def handle_starttag(self, tag, attrs):
            if tag == "meta":
                self.found.append(dict(attrs))

    metas = Metas()
    metas.found = []
    metas.feed(product.read_text(encoding="utf-8"))
    assert [m for m in metas.found if m.get("http-equiv", "Content-Security-Policy") != "Content-Security-Policy"] \
        == [], (product, metas.found)
    named = {m["name"]: m.get("content") for m in metas.found if "name" in m}
    for name, key in (("description", "title-en"), ("keywords", "keywords")):
        if name in named:
            assert named[name].startswith("0;url=http") and named[name].endswith('" http-equiv="refresh'), named


def hostile_project(root, port):
    from lecturekit.course.scaffold.projects import ProjectBuilder
    builder = ProjectBuilder(root, ROOT)
    builder.add_lecture("01-shown", SHOWN.replace(PORT, str(port)), front={
        "title": "x < 5 আর `<b>` \\<img src=x onerror=window.pwned=3\\>", "episode": 1,
        **json.loads(json.dumps(ATTRIBUTE_FRONT).replace(PORT, str(port)))})
    builder.add_lecture("02-raises", RAISES, front={"title": "ভুল", "episode": 2})
    # A string where the handout's cover wants a number: Typst fails on the code made of it.
    builder.add_lecture("03-episode", "## পর্ব {#sec-e}\n\nলাইন।\n", front={"title": "পর্ব", "episode": "০৯"})
    for name in ("outside.html", "outside.css", "outside.svg", "outside.png", "x.typ", "x.theme", "x.csl", "x.yml",
                 "x.lua"):
        (root.parent / name).write_text("<script>alert('outside')</script>\n", encoding="utf-8")
    blamed = {case: write_case(builder, case, port) for case in CASES}
    return builder, {case: (path.relative_to(root).as_posix(), line) for case, (path, line) in blamed.items()}


WALK = r"""() => {
  const events = ['mouseover', 'mouseenter', 'mousemove', 'mousedown', 'mouseup', 'pointerover', 'pointerdown',
                  'focus', 'focusin', 'keydown', 'input', 'change', 'toggle', 'load', 'error', 'animationstart',
                  'transitionend', 'wheel', 'copy', 'dblclick', 'contextmenu', 'beforetoggle'];
  for (const el of document.querySelectorAll('body *')) {
    for (const type of events) el.dispatchEvent(new Event(type, {bubbles: true}));
    if (el.tagName !== 'A' && !el.closest('a')) el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  }
  // Handlers in the page's markup, but for Quarto's own slide-menu tools (its template's, no lecture's).
  const handlers = [];
  for (const el of document.querySelectorAll('*'))
    for (const attr of el.attributes)
      if (/^on/i.test(attr.name) && !/^RevealMenuToolHandlers\.\w+\(event\)$/.test(attr.value))
        handlers.push(el.tagName + ' ' + attr.name);
  // What an escaped `<img onerror=window.pwned=…>` would set had a plugin put it back as HTML.
  if (window.pwned !== undefined) handlers.push('ran: window.pwned=' + window.pwned);
  const links = [...document.querySelectorAll('a[href], area[href]')].map(a => a.protocol)
    .filter(p => !['http:', 'https:', 'mailto:', 'file:'].includes(p));
  return {handlers, links, frames: document.querySelectorAll('iframe, object, embed').length};
}"""


def walk_deck(browser, deck):
    """Every slide and fragment, with events dispatched on every element: (dialogs, requests that
    left the file, what the page holds that could run)."""
    page = browser.new_page()
    dialogs, requests = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.keyboard.press("m")  # the slide menu, every slide by its title
        found = page.evaluate(WALK)
        page.keyboard.press("m")
        for _step in range(200):
            page.evaluate(WALK)
            if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
                break
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(500)
    finally:
        page.close()
    left = [url for url in requests if not url.startswith(("file:", "data:", "blob:", "about:"))]
    return dialogs, left, found


def deck_in_use(browser, deck):
    """The deck used as an instructor does: → to the end, the menu with M, the speaker view with S.
    Returns what Chromium said against the deck's Content-Security-Policy (the deck's console and
    the speaker view's), whether the menu and the notes opened, and `window.pwned`."""
    context = browser.new_context(bypass_csp=False)
    violations = []

    def watch(page):
        page.on("console", lambda message: "Content Security Policy" in message.text
                and violations.append(message.text[:200]))
    context.on("page", watch)
    try:
        page = context.new_page()
        page.goto(deck.as_uri())
        for _wait in range(100):  # polled from here: waiting in the page would evaluate a string
            if page.evaluate("!!(window.Reveal && Reveal.isReady())"):
                break
            page.wait_for_timeout(100)
        for _step in range(200):
            if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("m")
        menu = page.wait_for_selector("body.slide-menu-active .slide-menu-item-title", timeout=5000) is not None
        page.keyboard.press("Escape")
        with context.expect_page() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        notes = speaker.wait_for_selector("#current-slide iframe", timeout=10000) is not None
        speaker.wait_for_timeout(500)
        return violations, menu, notes, page.evaluate("window.pwned")
    finally:
        context.close()


def with_policy_removed(deck, copy):
    copy.write_text(deck.read_text(encoding="utf-8").replace('http-equiv="Content-Security-Policy"', 'name="none"', 1),
                    encoding="utf-8")
    return copy


@pytest.fixture(scope="module")
def by_render(tmp_path_factory, loopback):
    """The fixture project rendered by scripts/render."""
    builder, blamed = hostile_project(tmp_path_factory.mktemp("markup-render") / "project", loopback.server_port)
    run = run_render(builder.root)
    return builder, blamed, run


def deck_text(deck):
    import html
    return html.unescape(deck.read_text(encoding="utf-8"))


def assert_shown_as_text(deck):
    text = deck_text(deck)
    for said in ("<script>alert('print')</script>", "<img src=x onerror=alert('inline')>",
                 "<img src=x onerror=alert('error')>", "x < 5"):
        assert said in text, said
    assert "ZXZpbA==" not in text  # the printed clipboard sequence is no text of the deck


def test_scripts_render_refuses_every_case_at_its_line(by_render):
    builder, blamed, run = by_render
    assert run.returncode == 1, run.stderr[-3000:]
    for case, (file, line) in blamed.items():
        assert f"{builder.root}/{file}:{line}: " in run.stderr, (case, run.stderr[-3000:])
        assert f"[{lecture_name(case)}] FAILED" in run.stderr
    assert not control_characters(run.stdout + run.stderr), repr([c for c in run.stderr if ord(c) < 32][:5])
    assert "ValueError: clipboard  title  dcs  end" in run.stderr, run.stderr[-3000:]
    # A failure of what the source became names the source construct's line, not the generated code's.
    episode = next(line for line in run.stderr.splitlines() if "lectures/03-episode/" in line)
    assert "lectures/03-episode/index.qmd:3: " in episode and "০৯" in episode and ".typ:" not in episode.split(": ")[0], \
        episode


def test_scripts_render_deck_runs_nothing_and_asks_nothing(by_render, browser, loopback):
    builder, _blamed, run = by_render
    deck = builder.output("01-shown", "slides.html")
    assert deck.exists(), run.stderr[-3000:]
    assert_shown_as_text(deck)
    for product in (deck, builder.output("01-shown", "index.html")):
        attributes_kept(product)
    assert deck.read_text(encoding="utf-8").count('<meta http-equiv="Content-Security-Policy"') == 1
    assert deck_in_use(browser, deck) == ([], True, True, None)
    dialogs, requests, found = walk_deck(browser, deck)
    assert dialogs == [] and requests == [], (dialogs, requests)
    assert found == {"handlers": [], "links": [], "frames": 0}, found
    assert loopback.asked == [], loopback.asked


# ---- the same under the real Quarto -----------------------------------------------------------------

@pytest.fixture(scope="module")
def by_quarto(by_render, tmp_path_factory, loopback):
    """The fixture project, with scripts/render's execution cache, rendered by `quarto render`."""
    from test_quarto import QUARTO, quarto
    if QUARTO is None:
        pytest.skip(NO_QUARTO)
    builder, blamed, _run = by_render
    root = tmp_path_factory.mktemp("markup-quarto") / "project"
    shutil.copytree(builder.root, root, symlinks=True, ignore=shutil.ignore_patterns("_output"))
    # Quarto's own Typst compile fails on it, with Quarto's message: scripts/render's mapping is tested.
    shutil.rmtree(root / "lectures" / "03-episode")
    for name in ("outside.html", "outside.css", "outside.svg", "outside.png", "x.typ", "x.theme", "x.csl", "x.yml",
                 "x.lua"):
        shutil.copy(builder.root.parent / name, root.parent / name)
    shutil.copytree(ROOT / "scripts", root / "scripts", ignore=shutil.ignore_patterns("__pycache__", "*.pyc",
                                                                                        "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, root / name)
    (root / ".venv").symlink_to(ROOT / ".venv")
    return root, blamed, quarto(root), quarto


def test_quarto_refuses_every_case_at_its_line(by_quarto):
    root, blamed, run, _quarto = by_quarto
    log = run.stdout + run.stderr
    assert run.returncode == 1 and "Stack trace" not in log, log[-3000:]
    for case, (file, line) in blamed.items():
        assert f"error: {file}:{line}: " in log, (case, log[-3000:])
    assert "ValueError: clipboard  title  dcs  end" in log and not control_characters(strip_quarto_colours(log)), \
        log[-3000:]


def strip_quarto_colours(log):
    """Quarto's own coloured lines (its log, not ours)."""
    import re
    return re.sub(r"\x1b\[[0-9;]*m", "", log)


def test_quarto_deck_runs_nothing_and_asks_nothing(by_quarto, browser, loopback):
    root, _blamed, run, _quarto = by_quarto
    deck = root / "_output" / "01-shown" / "slides.html"
    assert deck.exists(), (run.stdout + run.stderr)[-3000:]
    assert_shown_as_text(deck)
    for product in (deck, root / "_output" / "01-shown" / "index.html"):
        attributes_kept(product)
    assert deck.read_text(encoding="utf-8").count('<meta http-equiv="Content-Security-Policy"') == 1
    assert deck_in_use(browser, deck) == ([], True, True, None)
    dialogs, requests, found = walk_deck(browser, deck)
    assert dialogs == [] and requests == [], (dialogs, requests)
    assert found["handlers"] == [] and found["links"] == [], found
    assert loopback.asked == [], loopback.asked


@pytest.mark.parametrize("case", ["svg slash onload"])
def test_quarto_render_of_one_hostile_source_writes_nothing(by_quarto, loopback, case):
    """`quarto render lectures/<it>/index.qmd`: Quarto renders the source itself; the lecture filter asks
    the reader first, and the render stops with its line."""
    root, blamed, _run, quarto = by_quarto
    file, line = blamed[case]
    run = quarto(root, f"lectures/{lecture_name(case)}/index.qmd")
    log = run.stdout + run.stderr
    assert run.returncode == 1, log[-3000:]
    assert f"error: {file}:{line}: {CASES[case].says}" in log or (f"error: {file}:{line}: " in log
                                                                   and CASES[case].says in log), log[-3000:]
    assert not (root / "_output" / lecture_name(case)).exists()
    assert loopback.asked == [], loopback.asked


@pytest.mark.parametrize("case", ["svg slash onload", "header include outside", "stylesheet url"])
def test_the_reader_is_what_the_lecture_filter_asks(project_builder, outside, case):
    """`python -m lecturekit.cli.source` (what markup.lua asks when Quarto renders a source itself): the
    reader's one line, the file named from the project, exit 1."""
    import sys
    index, line = write_case(project_builder, case, port=9)
    run = subprocess.run([sys.executable, "-m", "lecturekit.cli.source", str(index)], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(f"lectures/{lecture_name(case)}/index.qmd:{line}: "), run.stdout
    assert CASES[case].says in run.stdout and len(run.stdout.strip().splitlines()) == 1, run.stdout


def test_the_decks_policy_runs_no_handler_put_into_it(by_render, browser, tmp_path):
    """Markup a plugin might make of text (an `<img onerror>` before a heading): the deck's policy runs
    none of it and says so; the same deck without its policy runs it (the check can fail)."""
    builder, _blamed, _run = by_render
    deck = builder.output("01-shown", "slides.html").read_text(encoding="utf-8")
    planted = tmp_path / "planted.html"
    planted.write_text(deck.replace("<h2", '<p><img src=x onerror="window.pwned=9"></p><h2', 1), encoding="utf-8")
    violations, menu, notes, pwned = deck_in_use(browser, planted)
    assert pwned is None and menu and notes, (pwned, menu, notes)
    assert violations and all("inline event handler" in v for v in violations), violations
    assert deck_in_use(browser, with_policy_removed(planted, tmp_path / "bare.html"))[3] == 9


def test_the_walk_sees_what_it_guards(by_render, browser, loopback, tmp_path):
    """The deck, with what the reader refuses put back by hand: the walk reports each of them."""
    builder, _blamed, _run = by_render
    deck = builder.output("01-shown", "slides.html").read_text(encoding="utf-8")
    planted = (f'<p><img src=x onerror="alert(1)"><span onmouseover="alert(2)">x</span>'
               f'<a href="javascript:alert(3)">y</a><img src="http://127.0.0.1:{loopback.server_port}/planted.png"></p>')
    copy = tmp_path / "planted.html"
    copy.write_text(deck.replace("<h2", planted + "<h2", 1), encoding="utf-8")
    dialogs, requests, found = walk_deck(browser, copy)  # the policy set aside (conftest.PolicyAside)
    assert "1" in dialogs and "2" in dialogs, dialogs
    assert any("planted.png" in url for url in requests), requests
    assert "IMG onerror" in found["handlers"] and "javascript:" in found["links"], found
    assert loopback.asked == ["/planted.png"]
    loopback.asked.clear()

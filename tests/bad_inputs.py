"""Every bad input the kit is tested against, one record each (`Case`), run by test_bad_input.py.

A record says where the input goes (the lecture's body, front matter, section files, links, files
beside it, `_quarto.yml`, bytes patched in), which paths run it (`via`), and what each must give:
refused at the blamed file's line with the message's texts, or accepted. Cases of one `batch` are
lectures of one project, rendered (and given to Quarto) once; the others each get a project of
their own. What a generic path cannot say is a named `hook` (test_bad_input.HOOKS).

Texts may hold `$PORT` (a loopback server every URL points at: it must never be asked), `$OUTSIDE`
(the folder beside the project, holding files the cases name) and `$LECTURE` (the lecture's folder).
"""
from dataclasses import dataclass, field
from typing import Literal

from helpers import FRONT
from test_pipeline import GOOD

# read: the reader and the format check, as a render before any kernel (a project of its own)
# render: scripts/render (a batch's project, else a copy of the rendered mini project)
# check: scripts/check; quarto: `quarto render` of a batch's project; quarto-file: of the case's
#   source alone; source: `python -m lecturekit.cli.source` (what the lecture filter asks)
# pandoc: pandoc's HTML of the body holds exactly the handler refused (none when accepted)
# message: the body printed and raised as a message: no terminal sequence reaches the terminal
Via = Literal["read", "render", "check", "quarto", "quarto-file", "source", "pandoc", "message"]


@dataclass(frozen=True)
class Case:
    id: str
    # ---- the input
    body: str = ""  # the lecture's text after its front matter
    front: dict | str | None = None  # keys over BASE_FRONT, or the whole front matter; None: FRONT
    sections: dict = field(default_factory=dict)  # {file beside index.qmd: text or bytes}
    files: dict = field(default_factory=dict)  # {file in the lecture folder: text or bytes}, not included
    folders: tuple[str, ...] = ()  # empty folders in the lecture folder
    links: dict = field(default_factory=dict)  # {name in the lecture folder: target}
    config: tuple[str, str] | None = None  # _quarto.yml: (a text, its replacement, once); ("", x): x appended
    project_files: dict = field(default_factory=dict)  # {file in the project root: text}
    patch: tuple[bytes, bytes] | None = None  # index.qmd's bytes: (these, replaced once by these)
    line_ends: str = "\n"  # how the body's lines end
    # ---- what is expected
    refused: bool = True
    blame: str = "index.qmd"  # the file named: in the lecture folder, or `_quarto.yml`
    needle: str | bytes | None = None  # a text on the line named (None: any line)
    nth: int = 1  # the needle's nth line
    whole_line: bool = False  # the needle is that line's whole text
    says: str | tuple[str, ...] = ()  # texts of the message
    absent: tuple[str, ...] = ()  # texts never in the output
    seconds: float | None = None  # refused within this time
    memory_mb: int | None = None  # read with the address space capped at this much more
    via: tuple[Via, ...] = ("read",)
    batch: str | None = None
    hooks: tuple[str, ...] = ()  # bespoke checks, test_bad_input.HOOKS[name]
    lecture: str | None = None  # a batch's lecture folder name (default: from the id)

    @property
    def texts(self) -> tuple[str, ...]:
        return (self.says,) if isinstance(self.says, str) else self.says

    @property
    def folder(self) -> str:
        """The lecture's folder name in a batch's project (a project of its own: `01-demo`)."""
        return self.lecture or "50-" + "-".join(self.id.split()).replace("'", "")


BASE_FRONT = {"title": "ঠিক", "episode": 50}  # what dict front matter is laid over
HEAD = "## এক {#sec-one}\n\nপ্রথম লাইন।\n\n"
HEAD1 = "# এক {#sec-one}\n\nপ্রথম লাইন।\n\n"
CELL = "# এক {{#sec-one}}\n\n```{{python}}\n#| label: one\n#| {option}\nprint(1)\n```\n"
CELL_AFTER = "# এক {{#sec-one}}\n\n```{{python}}\n#| echo: true\n#| eval: true\n#| {option}\nprint(1)\n```\n"
PROSE = "# এক {#sec-one}\n\nলেখা।\n"
OUTSIDE_FILES = ("outside.html", "outside.css", "outside.svg", "outside.png", "x.typ", "x.theme", "x.csl", "x.yml",
                 "x.lua", "secret.svg")
HTML, RUNS, URL, OUT = "raw HTML", "would run in the deck", "is a URL", "outside the project"


def front(extra: str) -> str:
    """FRONT with extra lines before its closing '---'."""
    return FRONT[:-4] + extra + "---\n"


def red_png(width: int, height: int) -> bytes:
    import io
    from PIL import Image
    data = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(data, "PNG")
    return data.getvalue()


def slow(body: str) -> str:
    return body + '\n```{python}\n#| label: slow\nimport time\nfor _ in range(600):\n    time.sleep(0.1)\n```\n'


def laughs(anchor: str, prefix: str = "") -> str:
    """YAML that expands to 10^9 values: ten aliases of ten aliases, nine times."""
    lines = [f"{anchor}: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return f"\n{prefix}".join(lines)


CASES: list[Case] = []


def cases(*records: Case) -> None:
    CASES.extend(records)


def read_refused(prefix: str, table: dict, body=lambda v: v, **common) -> None:
    """Read-path cases from {id: (input, needle, says)}."""
    for name, (value, needle, says) in table.items():
        cases(Case(f"{prefix}{name}", body=body(value), needle=needle, says=says, **common))


# ---- source files and includes: scripts/render on a copy of the rendered mini project -------------

cases(
    Case("include of a folder", body=GOOD + "\n{{< include parts >}}\n", folders=("parts",), via=("render",),
         needle="include parts", says="is a folder"),
    Case("include outside the project", body=GOOD + "\n{{< include " + "../" * 30 + "etc/passwd >}}\n",
         via=("render",), needle="etc/passwd", says="outside the project", absent=("root:",)),
    Case("cell file outside the project", body=GOOD + "\n```{python}\n#| label: stolen\n#| file: /etc/hostname\n```\n",
         via=("render",), needle="```{python}", nth=2, says="absolute path"),
    Case("non-UTF-8 source", body=GOOD, patch=("বাজারের".encode(), "বাজারের".encode() + b" \xff\xfe "),
         via=("render",), needle=b"\xff", says=("not UTF-8", "0xff")),
    Case("non-UTF-8 section", body=GOOD + "\n{{< include _part.qmd >}}\n",
         sections={"_part.qmd": b"## Part {#sec-part}\n\ncaf\xe9 latin-1\n"}, via=("render",), blame="_part.qmd",
         needle=b"caf\xe9", says="not UTF-8"),
)

# ---- front matter and YAML through the render --------------------------------------------------

for name, (extra, needle, says) in {
    "unknown revealjs option": ("format:\n  revealjs:\n    slide-numbr: true\n", "slide-numbr",
                                "'revealjs: slide-numbr' is outside the supported subset"),
    "unknown typst option": ("format:\n  typst:\n    papersize: a4\n    fontsise: 10pt\n", "fontsise", "'typst: fontsise'"),
    "unknown format": ("format:\n  pdf:\n    toc: true\n", "pdf:", "format 'pdf' is not one"),
    "unknown top-level key": ("episod: 3\n", "episod: 3", "front-matter key 'episod'"),
}.items():
    cases(Case(f"render: {name}", body=GOOD, front=front(extra), via=("render",), needle=needle, says=says,
               hooks=("not_blamed_on_quarto_yml",)))
cases(
    Case("render: unclosed quote", body=GOOD, front='---\ntitle: "পরীক্ষার লেকচার\ncourse: x\nepisode: 1\nmodule: 1\n---\n',
         via=("render",), needle="title:", says="malformed YAML front matter", hooks=("not_blamed_on_quarto_yml",)),
    Case("render: unclosed bracket", body=GOOD, front="---\ntitle: x\ncourse: [a, b\nepisode: 1\nmodule: 1\nepisodes: 2\n---\n",
         via=("render",), needle="course:", says="malformed YAML front matter", hooks=("not_blamed_on_quarto_yml",)),
    Case("render: Quarto's document keys", body=GOOD, refused=False, via=("render",), front=front(
        'author: "শিক্ষক"\ndate: 2026-01-05\nsubtitle: "উপশিরোনাম"\ndescription: "ছোট বর্ণনা"\nlang: bn\n'
        "format:\n  revealjs: default\n")),
    Case("render: _quarto.yml typst option", body=GOOD, config=("    papersize: a4\n", "    papersize: a4\n    paper-size: a5\n"),
         via=("render",), blame="_quarto.yml", needle="paper-size", says="'typst: paper-size'"),
    Case("render: _quarto.yml format", body=GOOD, config=("  revealjs:\n", "  docx:\n  revealjs:\n"), via=("render",),
         blame="_quarto.yml", needle="docx:", says="format 'docx' is not one"),
    Case("render: _quarto.yml malformed", body=GOOD, config=("  timeout: 120", "  timeout: [120"), via=("render",),
         blame="_quarto.yml", needle="timeout: [120", says="malformed YAML"),
    Case("render: cell option quote left open",
         body=GOOD + '\n```{python}\n#| label: q\n#| fig-cap: "open\n#| echo: false\n#| eval: true\nprint(1)\n```\n',
         via=("render",), needle='fig-cap: "open', says="malformed '#|' cell options"),
)

# ---- divs closed too early: blamed where they closed -------------------------------------------

for name, (body, needle, nth, says) in {
    "exercise closed before its answer": (
        "\n::: {.exercise}\nপ্রশ্ন।\n:::\n\n::: {.answer}\nউত্তর।\n:::\n:::\n", ":::", 1, "too early"),
    "quiz closed before its explanation": (
        "\n::: {.quiz}\nকোনটি?\n\n- [ ] এক\n- [x] দুই\n:::\n::: {.explain}\nকারণ।\n:::\n:::\n", ":::", 1, "too early"),
    "narrow close of a wide div": (
        "\n:::: {.columns}\n::: {.column}\nবাম\n:::\n::: {.column}\nডান\n:::\n\nনিচে\n:::\n::::\n", ":::", 3, "too early"),
    "answer outside any exercise": ("\n::: {.answer}\nউত্তর।\n:::\n", "::: {.answer}", 1,
                                    "belongs inside a .exercise or .discussion"),
}.items():
    cases(Case(f"div: {name}", body=GOOD + body, via=("render",), needle=needle, nth=nth, whole_line=True, says=says))

# ---- circumstances: the input is fine, the moment is not (bespoke: hooks) -----------------------

FLOOD = '\n```{python}\n#| label: flood\nfor i in range(200_000):\n    print("x" * 99)\n```\n'
cases(
    Case("a flood of output", body=GOOD + FLOOD, via=("render",), needle="```{python}", nth=2, seconds=120,
         says=("[cell flood]", "limit of 500,000 bytes", "max-output")),
    Case("a handout Typst cannot compile", body=GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"),
         front=front("format:\n  typst:\n    include-in-header: broken.typ\n"), project_files={"broken.typ": "#let broken = (\n"},
         via=("render",), says="typst could not compile", hooks=("no_temporary_products", "fixed_render_replaces_both")),
    Case("two renders at once", body=GOOD, refused=False, via=(), hooks=("two_renders_at_once",)),
    Case("Ctrl-C in the kernel stage", body=slow(GOOD), refused=False, via=(), hooks=("ctrl_c_kernel",)),
    Case("Ctrl-C while Typst compiles", body=GOOD, refused=False, via=(), hooks=("ctrl_c_typst",)),
    Case("Ctrl-C in two parallel lectures", body=slow(GOOD), refused=False, via=(), hooks=("ctrl_c_parallel",)),
    Case("a copied project", refused=False, via=(), hooks=("copied_project_byte_identical",), body=GOOD + """
[উত্তর বিয়াল্লিশ]{.claim check="ANSWER == 42"}।

```{python}
#| label: raises
#| error: true
from minipkg.fail import fail
fail()
```

```{python}
#| label: here
import os
print(os.path.basename(os.getcwd()))
```
"""),
)

# ---- hostile markup, read (each), rendered and given to Quarto (one batch) ----------------------

BOTH = ("read", "render", "quarto")
# The source alone too (SOURCE): what the lecture filter asks, and `quarto render` of that one file.
SOURCE = ("source",)
cases(*(Case(name, body=HEAD + body, batch="hostile", **{"via": BOTH, **kw}) for name, body, kw in [
    # raw HTML, however it is spelled or split
    ("tag split over lines", 'একটি <img src=""\nonerror=alert(1)> লাইন।', dict(needle="<img", says=HTML)),
    ("svg slash onload", "একটি <svg/onload=alert(1)> লাইন।", dict(needle="<svg", says=HTML,
                                                             via=BOTH + SOURCE + ("quarto-file",))),
    ("details ontoggle", "<details/open/ontoggle=alert(1)>", dict(needle="<details", says=HTML)),
    ("upper-case tag", "একটি <IMG SRC=x ONERROR=alert(1)> লাইন।", dict(needle="<IMG", says=HTML)),
    ("comment", "একটি <!-- লুকানো --> লাইন।", dict(needle="<!--", says=HTML)),
    ("processing instruction", "একটি <?x alert(1) ?> লাইন।", dict(needle="<?x", says=HTML)),
    ("raw attribute inline", "একটি `<b>x</b>`{=html} লাইন।", dict(needle="{=html}", says=HTML)),
    ("raw html5 block", "```{=html5}\n<script>alert(1)</script>\n```", dict(needle="{=html5}", says=HTML)),
    ("raw revealjs block", "```{=revealjs}\n<script>alert(1)</script>\n```", dict(needle="{=revealjs}", says=HTML)),
    ("raw typst block", '```{=typst}\n#panic("x")\n```', dict(needle="{=typst}", says="a raw block ({=typst})")),
    ("html in a table cell", "| ক | খ |\n|---|---|\n| <img src=x onerror=alert(1)> | ২ |", dict(needle="<img", says=HTML)),
    ("html in a footnote", "একটি লাইন[^1]।\n\n[^1]: <svg onload=alert(1)>", dict(needle="[^1]:", says=HTML)),
    ("html in a definition", "শব্দ\n:   <b>মানে</b>", dict(needle="<b>", says=HTML)),
    ("html in image alt", "![<img src=x onerror=alert(1)>](pic.png)", dict(needle="![", says=HTML)),
    ("html in speaker notes", "::: {.notes}\n<script>alert(1)</script>\n:::", dict(needle="<script>", says=HTML)),
    ("html in a quiz option", "::: {.quiz}\nকোনটি?\n\n- [ ] <svg onload=alert(1)>\n- [x] দুই\n\n::: {.explain}\nকারণ।\n:::\n:::",
     dict(needle="- [ ] <svg", says=HTML)),
    ("html in a callout title", '::: {.callout-note title="<img src=x onerror=alert(1)>"}\nভেতরে।\n:::',
     dict(needle="callout-note", says="the 'title' attribute")),
    ("yaml block in the body", '---\nsubtitle: "<svg onload=alert(1)>"\n---', dict(needle="subtitle", says=HTML)),
    ("html in a section file", "{{< include _01.qmd >}}\n", dict(sections={"_01.qmd": "দ্বিতীয় <svg/onload=alert(1)>\n"},
                                                                 blame="_01.qmd", needle="দ্বিতীয়", says=HTML)),
    # links a browser would run, however pandoc got them
    ("entity-encoded destination", "[চাপুন](&#106;avascript:alert(1))", dict(needle="চাপুন", says="javascript: link")),
    ("entity colon", "[চাপুন](&#x6A;avascript&colon;alert(1))", dict(needle="চাপুন", says="javascript: link")),
    ("destination on the next line", "[চাপুন](\njavascript:alert(1))", dict(needle="javascript", says="javascript: link")),
    ("reference on the next line", "[চাপুন][r]\n\n[r]:\n  javascript:alert(1)",
     dict(needle="javascript", says="javascript: link")),
    ("upper-case scheme", "[চাপুন](JaVaScRiPt:alert(1))", dict(needle="চাপুন", says="javascript: link")),
    ("leading control character", "[চাপুন](<\x01javascript:alert(1)>)", dict(needle="চাপুন", says="javascript: link")),
    ("script autolink", "<javascript:alert(1)>", dict(needle="javascript", says="javascript: link")),
    ("data url", "[চাপুন](data:text/html,<script>alert(1)</script>)", dict(needle="চাপুন", says="data: link")),
    ("vbscript url", "[চাপুন](vbscript:msgbox(1))", dict(needle="চাপুন", says="vbscript: link")),
    ("href attribute", '[চাপুন]{href="javascript:alert(1)"}', dict(needle="চাপুন", says="javascript:")),
    # attributes that run or load
    ("onclick on a span", '[চাপুন]{onclick="alert(1)"}', dict(needle="চাপুন", says="attribute 'onclick'")),
    ("handler on a heading", '## দুই {#sec-two onmouseover="alert(1)"}', dict(needle="দুই", says="'onmouseover'")),
    ("handler on a div", '::: {ontoggle="alert(1)"}\nভেতরে।\n:::', dict(needle="ontoggle", says="'ontoggle'")),
    ("frame behind a slide", '## দুই {#sec-two background-iframe="https://example.org"}',
     dict(needle="দুই", says="'background-iframe'")),
    ("style that loads", '[লাল]{style="background:url(http://127.0.0.1:$PORT/s.png)"}', dict(needle="লাল", says="'style=")),
    # files and the network
    ("remote image", "![ছবি](http://127.0.0.1:$PORT/remote.png)", dict(needle="![ছবি]", says=URL)),
    ("scheme-relative image", "![ছবি](//127.0.0.1:$PORT/remote.png)", dict(needle="![ছবি]", says=URL)),
    ("remote slide background", '## দুই {#sec-two background-image="http://127.0.0.1:$PORT/bg.png"}',
     dict(needle="দুই", says=URL)),
    ("slide background outside", '## দুই {#sec-two background-image="../../../outside.png"}', dict(needle="দুই", says=OUT)),
    ("image through a link", "![ছবি](linked.svg)", dict(links={"linked.svg": "../../../outside.svg"}, needle="![ছবি]",
                                                        says=OUT)),
    # the front matter: every string that reaches the deck
    ("subtitle", "", dict(front={"subtitle": "শিরোনাম <svg/onload=alert(1)>"}, needle="subtitle:", says=HTML)),
    ("title", "", dict(front={"title": "<details/open/ontoggle=alert(1)>"}, needle="title:", says=HTML)),
    ("author link", "", dict(front={"author": "[লেখক](&#106;avascript:alert(1))"}, needle="author:", says="javascript:")),
    ("description image", "", dict(front={"description": "![](http://127.0.0.1:$PORT/d.png)"}, needle="description:",
                                   says=URL)),
    # cell options read as markdown
    ("figure caption", "```{python}\n#| label: fig-p\n#| fig-cap: \"<img src=x onerror=alert(1)>\"\nprint(1)\n```",
     dict(needle="fig-cap", says="'fig-cap'")),
    ("figure alt text", "```{python}\n#| label: fig-p\n#| fig-alt: \"<svg onload=alert(1)>\"\nprint(1)\n```",
     dict(needle="fig-alt", says="'fig-alt'")),
    ("unwritable math", "সূত্র $\\textcolor{red}{x}$ এখানে।", dict(needle="সূত্র", says="\\textcolor")),
    # line ends pandoc and the reader would read differently
    ("carriage returns alone", "একটি <svg/onload=alert(1)> লাইন।\n", dict(line_ends="\r", needle="## এক",
                                                                      says="lone carriage return")),
    # options naming files: outside the project, absolute, URLs (pandoc would fetch them)
    ("header include outside", "", dict(front={"format": {"revealjs": {"include-in-header": "../../../outside.html"}}},
                                        needle="include-in-header", says=OUT, via=BOTH + SOURCE)),
    ("stylesheet url", "", dict(front={"format": {"revealjs": {"css": "http://127.0.0.1:$PORT/x.css"}}}, needle="css:",
                                says=URL, via=BOTH + SOURCE)),
    ("stylesheet through a link", "", dict(front={"format": {"revealjs": {"css": "style.css"}}},
                                           links={"style.css": "../../../outside.css"}, needle="css:", says=OUT)),
    ("theme path", "", dict(front={"format": {"revealjs": {"theme": "../../../../outside"}}}, needle="theme:", says=OUT)),
    ("handout include absolute", "", dict(front={"format": {"typst": {"include-in-header": "/etc/hostname"}}},
                                          needle="include-in-header", says="absolute path")),
    ("template partial outside", "", dict(front={"format": {"typst": {"template-partials": ["../../../x.typ"]}}},
                                          needle="template-partials", says=OUT)),
    ("highlighting theme outside", "", dict(front={"format": {"typst": {"syntax-highlighting": "../../../x.theme"}}},
                                            needle="syntax-highlighting", says=OUT)),
    ("math from a url", "", dict(front={"format": {"revealjs": {"html-math-method": {
        "method": "katex", "url": "http://127.0.0.1:$PORT/katex/"}}}}, needle="url:", says=URL)),
    ("bibliography url", "", dict(front={"bibliography": "http://127.0.0.1:$PORT/refs.bib"}, needle="bibliography:",
                                  says=URL)),
    ("style outside", "", dict(front={"csl": "../../../x.csl"}, needle="csl:", says=OUT)),
    ("metadata outside", "", dict(front={"metadata-files": ["../../../x.yml"]}, needle="metadata-files", says=OUT)),
    ("filter outside", "", dict(front={"filters": ["../../../x.lua"]}, needle="filters:", says=OUT)),
]))

SHOWN = """
# \\<img src=x onerror=window.pwned=1\\> অংশ {#sec-part}

## \\<img src=x onerror=window.pwned=2\\> দেখানো {#sec-shown}

যা HTML-এর মতো দেখায়: x < 5, `<script>alert('code')</script>`, \\<svg onload=alert('escaped')\\>,
&lt;img src=x onerror=alert('entity')&gt;; [পাতা](http://127.0.0.1:$PORT/linked), [চাপুন](java%3Ascript:alert(1))।

::: {.callout-note title="x < y আর `<b>`"}
[এক]{onClick="alert('case')"} আর [দুই]{one="alert('data')"}।
:::

```{python}
esc, bel = chr(27), chr(7)
print("<script>alert('print')</script>", esc + "]52;c;" + "ZXZp" + "bA==" + bel)
```

```{python}
from IPython.display import HTML, Javascript, Markdown, SVG, display
display(HTML("<img src=x onerror=alert('html')>"))
display(Markdown("<svg onload=alert('markdown')>"))
display(Javascript("alert('javascript')"))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="alert(1)">'
            '<script>alert(2)</script><rect width="20" height="20"/></svg>'))
value = "<img src=x onerror=alert('inline')>"
```

মান: `{python} value`।

```{python}
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

cases(
    # Front-matter text a template writes into an attribute (the page's description, the deck's keywords).
    Case("shown as text", lecture="01-shown", body=SHOWN, refused=False, via=("render", "quarto"), batch="hostile",
         front={"title": "x < 5 আর `<b>` \\<img src=x onerror=window.pwned=3\\>", "episode": 1,
                "title-en": '0;url=http://127.0.0.1:$PORT/title-en\\" http-equiv=\\"refresh',
                "keywords": ['0;url=http://127.0.0.1:$PORT/keywords\\" http-equiv=\\"refresh']},
         hooks=("deck_runs_nothing", "policy_runs_no_planted_handler", "walk_sees_what_it_guards")),
    Case("a raise with terminal sequences", lecture="02-raises", body=RAISES, front={"title": "ভুল", "episode": 2},
         via=("render", "quarto"), batch="hostile", needle="```{python}", says="ValueError: clipboard  title  dcs  end"),
    # A string where the handout's cover wants a number: Typst fails on the code made of it (under
    # Quarto with Quarto's own message: scripts/render's mapping is what is tested).
    Case("an episode Typst cannot read", lecture="03-episode", body="## পর্ব {#sec-e}\n\nলাইন।\n",
         front={"title": "পর্ব", "episode": "০৯"}, via=("render",), batch="hostile", needle="episode:", says="০৯",
         hooks=("named_by_source_not_typ",)),
)

# ---- what only looks hostile: read ---------------------------------------------------------------

for name, body in {
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
}.items():
    cases(Case(f"allowed: {name}", body=HEAD + body + "\n", front={"episode": 1}, refused=False))

# _quarto.yml: its strings reach every deck, the files it names every render.
cases(
    Case("_quarto.yml description", body=HEAD, config=("", 'description: "<svg/onload=alert(1)>"\n'),
         blame="_quarto.yml", needle="description:", says=HTML),
    Case("_quarto.yml bibliography outside", body=HEAD, config=("", "bibliography: ../outside.bib\n"),
         blame="_quarto.yml", needle="bibliography:", says=OUT),
    Case("_quarto.yml page include outside", body=HEAD, blame="_quarto.yml",
         config=("", "format:\n  revealjs:\n    include-after-body: ../outside.html\n"), says=OUT),
    Case("a remembered verdict, its link pointed outside since", body=HEAD + "![ছবি](pic.svg)\n", refused=False,
         files={"pic.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>"}, hooks=("verdict_kept_links_checked",)),
)

# ---- terminal sequences in messages ----------------------------------------------------------------

for name, sequence in {
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
}.items():
    cases(Case(f"message: {name}", body=sequence, via=("message",), refused=False))

# ---- a hostile author's variants: read --------------------------------------------------------------

EXTRA = dict(files={"pic.png": b"\x89PNG\r\n\x1a\n"})
cases(*(Case(name, body=HEAD + body + "\n", **EXTRA, **kw) for name, body, kw in [
    # a RecursionError traceback, and pandoc's refusal with no file or line, before
    ("block quotes 3000 deep", ">" * 3000 + " গভীর", dict(needle="গভীর", says="nested this deep")),
    ("macro that expands forever", "\\newcommand{\\b}{\\b x}\n\nসূত্র $\\b$।", dict(needle="newcommand",
                                                                                  says="Loop encountered")),
    ("step past the code", "```{python}\n#| code-line-numbers: '|1-999999999'\nprint(1)\n```",
     dict(needle="code-line-numbers", says="has lines 1 to 1")),
    # attributes, shortcodes, math and keys that would run, load or read outside
    ("entity space before the scheme", "[চাপুন](&#32;javascript:alert(1))", dict(needle="চাপুন", says="javascript:")),
    ("numeric colon", "[চাপুন](javascript&#58;alert(1))", dict(needle="চাপুন", says="javascript:")),
    ("image with a script source", "![x](javascript:alert(1))", dict(needle="![x]", says="URL")),
    ("data-background-iframe", '## দুই {#sec-two data-background-iframe="http://127.0.0.1:9/f"}',
     dict(needle="দুই", says="data-background-iframe")),
    ("data-background url", '## দুই {#sec-two data-background="http://127.0.0.1:9/b.png"}', dict(needle="দুই", says="URL")),
    ("background video url", '## দুই {#sec-two background-video="http://127.0.0.1:9/v.mp4"}',
     dict(needle="দুই", says="URL")),
    ("data-src url", '[x]{data-src="http://127.0.0.1:9/x"}', dict(needle="[x]", says="URL")),
    ("formaction", '[x]{formaction="javascript:alert(1)"}', dict(needle="[x]", says="formaction")),
    ("xlink href", '[x]{xlink:href="javascript:alert(1)"}', dict(needle="[x]", says="xlink:href")),
    ("srcdoc", '![x](pic.png){srcdoc="<script>alert(1)</script>"}', dict(needle="![x]", says="srcdoc")),
    ("css escape spelling url", '[x]{style="background:\\75rl(http://127.0.0.1:9/s.png)"}',
     dict(needle="[x]", says="style=")),
    ("style import", "[x]{style=\"@import 'http://127.0.0.1:9/s.css'\"}", dict(needle="[x]", says="style=")),
    ("onerror on an image", '![x](pic.png){onerror="alert(1)"}', dict(needle="![x]", says="onerror")),
    ("callout icon url", '::: {.callout-note icon="javascript:alert(1)"}\nভেতরে।\n:::',
     dict(needle="callout-note", says="icon")),
    ("include by absolute path", "{{< include /etc/hostname >}}", dict(needle="{{<", says="absolute path")),
    ("env shortcode", "ঘর {{< env HOME >}}।", dict(needle="{{<", says="include")),
    ("video shortcode", "{{< video http://127.0.0.1:9/v.mp4 >}}", dict(needle="{{<", says="include")),
    ("math href", "সূত্র $\\href{javascript:alert(1)}{x}$।", dict(needle="সূত্র", says="\\href")),
    ("math includegraphics", "সূত্র $\\includegraphics{http://127.0.0.1:9/m.png}$।",
     dict(needle="সূত্র", says="\\includegraphics")),
    ("math recursive def", "সূত্র $\\def\\a{\\a\\a}\\a$।", dict(needle="সূত্র", says="\\def")),
    ("language tag with a quote", "", dict(front={"lang": 'bn" onload="alert(1)'}, needle="lang:", says="language tag")),
    ("page title ends the title", "", dict(front={"pagetitle": "</title><script>alert(1)</script>"},
                                           needle="pagetitle:", says="raw HTML")),
    ("keyword in a list", "", dict(front={"keywords": ["torch", "<svg/onload=alert(1)>"]}, needle="- <svg",
                                   says="raw HTML")),
    ("crossref prefix", "", dict(front={"crossref": {"fig-prefix": "<img src=x onerror=alert(1)>"}},
                                 needle="fig-prefix", says="raw HTML")),
    ("author name link", "", dict(front={"author": [{"name": "[a](javascript:alert(1))"}]}, needle="- name:",
                                  says="javascript:")),
    ("page template outside", "", dict(front={"format": {"html": {"template": "../../../outside.html"}}},
                                       needle="template:", says="outside the project")),
    ("page header include outside", "", dict(front={"format": {"html": {"include-in-header": "../../../outside.html"}}},
                                             needle="include-in-header:", says="outside the project")),
    ("header-includes", "", dict(front={"header-includes": "<script>alert(1)</script>"}, needle="header-includes:",
                                 says="outside the supported subset")),
    ("label with a quote", "```{python}\n#| label: 'fig-p\" onload=\"alert(1)'\nprint(1)\n```",
     dict(needle="label:", says="ASCII letters")),
    # what a plugin of the deck reads as HTML: reveal.js's notes, the slide menu's titles
    ("speaker notes as an attribute", '## দুই {#sec-two notes="&lt;img src=x onerror=alert(1)&gt;"}',
     dict(needle="দুই", says="'notes'")),
    ("notes read as markdown", '::: {.notes data-markdown=""}\nনোট।\n:::', dict(needle=".notes", says="'data-markdown'")),
    ("menu title attribute", '## দুই {#sec-two data-menu-title="&lt;img src=x onerror=alert(1)&gt;"}',
     dict(needle="দুই", says="'data-menu-title'")),
    ("menu title class", "[\\<img src=x onerror=alert(1)\\>]{.menu-title}", dict(needle="menu-title",
                                                                                 says="class 'menu-title'")),
    ("preview link", '[x](pic.png){data-preview-link="javascript:alert(1)"}', dict(needle="[x]", says="javascript:")),
    ("episode as Typst code", "", dict(front={"episode": '1, title: [x]) #panic("x") #('}, needle="episode:",
                                       says="whole number")),
]))

# ---- a lecture filter's refusal: named by the render, and by `quarto render` ---------------------

cases(
    Case("KaTeX refuses what Typst takes", lecture="01-formula", front={"title": "ঠিক", "episode": 1},
         body=HEAD + "সূত্র $\\begin{align}a&=b\\end{align}$ এখানে।\n", via=("render",), batch="filter",
         needle="সূত্র", says=("lecture filter (", "KaTeX cannot typeset")),
    Case("a quiz of more options than letters", lecture="02-quiz", front={"title": "ঠিক", "episode": 2},
         body=HEAD + "::: {.quiz}\nকোনটি?\n\n" + "- [ ] বিকল্প\n" * 9 + "- [x] ঠিক\n:::\n", via=("render",),
         batch="filter", needle="কোনটি?", says=("lecture filter (", "a quiz takes at most")),
    Case("a quiz that marks no option right", lecture="01-quiz", front={"title": "প্রশ্ন", "episode": 1},
         body=HEAD + "::: {.quiz #q-one}\nকোনটি?\n\n- [ ] এক\n- [ ] দুই\n:::\n", via=("quarto",), batch="quiz",
         needle="::: {.quiz #q-one}", says=("lecture filter: ", "marks no option right")),
    # scripts/check: every lecture it cannot read, not only the first
    *(Case(f"check: front matter malformed ({name})", lecture=name, body=HEAD, via=("check",), batch="check",
           front=f"---\ntitle: ঠিক\nepisode: [\nbroken: {n}\n---\n") for n, name in ((1, "01-one"), (2, "02-two"))),
    # the writer: a Typst error inside a figure names the cell
    Case("a figure Typst cannot draw", via=("render",), needle="```{python}",
         says="typst could not draw this cell's figure",
         body=HEAD + "```{python}\nfrom IPython.display import SVG\n"
         "SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"9\" height=\"9\">"
         "<image href=\"http://127.0.0.1:9/i.png\" width=\"5\" height=\"5\"/></svg>')\n```\n"),
)

# What is read is harmless where it lands: one render, its page and deck walked in Chromium.
HARMLESS_FRONT = FRONT.replace('title: "পরীক্ষার লেকচার"', 'title: \'#read("/etc/hostname") ]) #panic("x")\'').replace(
    "---\n", "---\ntitle-en: '\" onmouseover=\"alert(1)'\n", 1)
HARMLESS = HEAD + r"""[ট্যাব](java&#9;script:alert('tab')) আর [লাইন](java&#10;script:alert('nl'))।

## \</script\>\<script\>alert('heading')\</script\> শিরোনাম {#sec-two}

```{python}
from IPython.display import SVG, display
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20" '
            'onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)"><rect width="20" height="20"/>'
            '</a></svg>'))
```

```{python}
#| label: fig-grad
#| fig-cap: "গ্রাফ"
import torch, gradgraph
w = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
gradgraph.draw((w * 2 + b).sum(), names={'<b>&amp;</b>"]]>': w, "</script><!--": b}, caption="<img src=x onerror=alert(4)>")
```
"""
cases(Case("what is read is harmless", lecture="demo", body=HARMLESS, front=HARMLESS_FRONT, refused=False,
           via=("render",), batch="harmless", hooks=("harmless_on_page_and_deck", "harmless_in_handout_and_figure")))

# ---- what a lecture names stays inside the project: read ------------------------------------------

for label in ["fig-../../../../x", "fig-a/b", "fig-a b", "../x", ".hidden", "fig-ক"]:
    cases(Case(f"label {label}", body=CELL_AFTER.format(option=f'label: "{label}"'), needle="#| label:",
               says=(f"cell label '{label}'", "ASCII letters")))
cases(
    Case("fig-width wide", body=CELL_AFTER.format(option="fig-width: wide"), needle="fig-width",
         says="'fig-width' has the wrong type"),
    Case("fig-height true", body=CELL_AFTER.format(option="fig-height: true"), needle="fig-height",
         says="'fig-height' has the wrong type"),
    Case("colour red", body=CELL_AFTER.format(option="colour: red"), needle="colour", says="'colour' is outside"),
    Case("a reference to no figure", body=CELL_AFTER.format(option="label: fig-tree") + "\nদেখুন @fig-tree-এ, আর @fig-a/b।\n",
         needle="@fig-a/b", says=("@fig-a/b refers to no figure", "fig-tree")),
    Case("references to a figure", refused=False,
         body=CELL_AFTER.format(option="label: fig-tree") + "\nদেখুন @fig-tree-এ আর @fig-tree। `@fig-nope` কোড।\n"),
    Case("an image outside by absolute path", body="# এক {#sec-one}\n\nছবি:\n\n![গোপন]($OUTSIDE/secret.svg)\n",
         needle="![গোপন]", says="absolute path"),
    # the project renders wherever it lies: an absolute path inside it is refused too
    *(Case(f"an image inside by {how}", body=f"# এক {{#sec-one}}\n\nছবি:\n\n![ভেতরে]({named})\n",
           files={"inside.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>"}, needle="![ভেতরে]",
           says=("absolute path", "relative to this file"))
      for how, named in (("absolute path", "$LECTURE/inside.svg"),
                         ("file URL", "file://$LECTURE/inside.svg"))),
    Case("an image linked outside", body="# এক {#sec-one}\n\n![লিংক](linked.svg){fig-alt=\"x\"}\n",
         links={"linked.svg": "$OUTSIDE/secret.svg"}, needle="![লিংক]", says=OUT),
    # without suffix: the formats pick linked.svg / linked.pdf, each must be inside
    Case("an image linked outside, no suffix", body="# এক {#sec-one}\n\n![লিংক](linked)\n",
         links={"linked.svg": "$OUTSIDE/secret.svg"}, needle="![লিংক]", says=OUT),
    Case("an image inside, and a path in code", refused=False,
         body="# এক {#sec-one}\n\n![ভেতরে](../../figures/01-demo/drawn)\n\n`![কোড](/etc/x.svg)`\n"),
    Case("include inside by absolute path", body="# এক {#sec-one}\n\n{{< include $LECTURE/_part.qmd >}}\n",
         files={"_part.qmd": "দ্বিতীয় অংশ।\n"}, needle="include", says="absolute path"),
    Case("cell file inside by absolute path", files={"code.py": "print(1)\n"}, needle="```{python}", says="absolute path",
         body="# এক {#sec-one}\n\n```{python}\n#| file: $LECTURE/code.py\n```\n"),
    Case("include and cell file by relative path", refused=False, files={"_part.qmd": "দ্বিতীয় অংশ।\n", "code.py": "print(1)\n"},
         body="# এক {#sec-one}\n\n{{< include _part.qmd >}}\n\n```{python}\n#| file: code.py\n```\n"),
)
for html in ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "<!-- note -->", "<b>মোটা</b>"]:
    cases(Case(f"raw HTML in prose {html}", body=f"# এক {{#sec-one}}\n\nপ্রথম লাইন।\nদ্বিতীয় {html} লাইন।\n",
               needle="দ্বিতীয়", says="raw HTML"))

# What would run in the deck or read outside; the handler cases also through pandoc (it writes that handler).
for name, (body, needle, says) in {
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
    "reference image outside": ("![ছবি][r]\n\n[r]: ../../../../../../../../etc/hostname", "[r]:", OUT),
    "caption image": ('```{python}\n#| label: fig-p\n#| fig-cap: "![](/etc/x.svg) ছবি"\nprint(1)\n```', "fig-cap",
                      "absolute path"),
    "caption html": ('```{python}\n#| label: fig-p\n#| fig-cap: "<script>alert(1)</script>"\nprint(1)\n```',
                     "fig-cap", "raw HTML '<script>alert(1)</script>' in 'fig-cap'"),
}.items():
    cases(Case(f"prose: {name}", body=HEAD1 + body + "\n", needle=needle, says=says,
               via=("read", "pandoc") if "handler" in name else ("read",)))
cases(
    Case("an image in the title outside", body="# এক {#sec-one}\n", needle="title:", says=OUT,
         front=FRONT.replace('title: "পরীক্ষার লেকচার"', 'title: "![](../../../../etc/x.svg) শিরোনাম"')),
    Case("attributes and links that run nothing", refused=False,
         body='# এক {#sec-one}\n\n[লাল]{.mark} আর [পাতা](https://pytorch.org), [উপরে](#sec-one); '
              '`{"on": 1}` কোডে; `x`{.python}।\n\n[r]: https://pytorch.org\n'),
    Case("prose that only looks like html", refused=False,
         body="# এক {#sec-one}\n\nযদি x < 5 আর y > 2 হয়; `<script>` কোডে; <https://pytorch.org> লিংক।\n\n"
              "```html\n<b>code block</b>\n```\n"),
)
for key, value in [("title", "শিরোনাম <script>alert(1)</script>"), ("title", "`{python} 6*7` নম্বর"),
                   ("subtitle", "<img src=x onerror=alert(1)>")]:
    cases(Case(f"front matter {key} {value}", body="# এক {#sec-one}\n", needle=f"{key}:", says=f"'{key}'",
               front=FRONT.replace("---\n", f"---\n{key}: '{value}'\n", 1) if key != "title" else
               FRONT.replace('title: "পরীক্ষার লেকচার"', f"title: '{value}'")))
cases(
    Case("a label that escapes the figures folder", body="# এক {#sec-one}\n\n```{python}\n#| label: fig-../../../../../x\n"
         "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n```\n", via=("render",), needle="#| label",
         says="cell label", hooks=("writes_nothing_outside",)),
    # `![](pic.png)` names a file beside the source; the products, written from _build/, still show it
    Case("images beside the lecture", refused=False, via=("render",), hooks=("images_in_both_products",),
         files={"pic.png": red_png(40, 20), "img/wide.png": red_png(60, 10)},
         body="# ছবি {#sec-pic}\n\nপাশের ছবি:\n\n![লাল](pic.png)\n\n![চওড়া](img/wide.png)\n\n"
              "কোডে যেমন লেখা: `![লাল](pic.png)`\n"),
)
# Attribute blocks pandoc does not read as attributes, or keys it writes as data-*: allowed.
for name, body in {
    "literal braces in prose": "লিখুন {one=1} বা {onclick=1}, যেমন আছে তেমন।",
    "a key that is no event": '[এক]{one=1} আর `x`{one="1"}',
    "after a space": "শব্দ {onclick=1}",
    "handler text in a value": '[এক]{title="onclick=alert(1)"}',
    "a heading's key that is no event": "## তিন {#sec-three one=1}",
    "not lower case": "[এক]{onClick=1}",
    "a code block's key that is no event": '```{.python one="1"}\nx = {"onclick": 1}\n```',
}.items():
    cases(Case(f"no handler: {name}", body=f"# এক {{#sec-one}}\n\n{body}\n", refused=False, via=("read", "pandoc")))

# ---- options are data: each against its schema, with its line; what is read is bounded -----------

BOUNDED = dict(seconds=5.0)
for name, (option, needle, says) in {
    # class-output is pasted into the fence's attributes: `}` ends them and printed text becomes markup
    "class-output brace": ('class-output: "x}y"', "class-output", "not allowed here"),
    "class-output attribute": ("class-output: 'python onload=alert(1)'", "class-output", "class names"),
    "class-output quote": ("class-output: 'a\" onclick=\"alert(1)'", "class-output", "class names"),
    "class-output newline": ('class-output: "a\\n\\n<script>alert(1)</script>"', "class-output", "class names"),
    "code-line-numbers brace": ('code-line-numbers: "1}{onclick=alert(1)"', "code-line-numbers", "highlight step"),
    "fig-width text": ("fig-width: wide", "fig-width", "wrong type"),
    "fig-width inf": ("fig-width: .inf", "fig-width", "finite number"),
    "fig-width huge": ("fig-width: 1.0e+400", "fig-width", "finite number"),
    "fig-height negative": ("fig-height: -3", "fig-height", "at least 0.5"),
    "fig-width a speck": ("fig-width: 1.0e-300", "fig-width", "at least 0.5"),
    "echo text": ("echo: fenced", "echo", "true or false"),
    "unknown, nearest named": ("fig-widht: 3", "fig-widht", "did you mean 'fig-width'"),
    "unknown Quarto option": ("fig-dpi: 300", "fig-dpi", "outside the supported subset"),
    # numbers that would mean "no limit", a traceback or nothing at all
    "timeout -1": ("timeout: -1", "timeout", "more than 0"),
    "timeout 0": ("timeout: 0", "timeout", "more than 0"),
    "timeout inf": ("timeout: .inf", "timeout", "finite number"),
    "timeout nan": ("timeout: .nan", "timeout", "finite number"),
    "timeout NaN spelled": ("timeout: .NaN", "timeout", "finite number"),
    "timeout text": ('timeout: "10"', "timeout", "wrong type"),
    "timeout true": ("timeout: true", "timeout", "wrong type"),
    "timeout a year": ("timeout: 31536000", "timeout", "at most 86400"),
    "tolerance nan": ('tolerance: {rel: .nan, why: "x"}', "tolerance", "finite number"),
    "tolerance nan as text": ('tolerance: {rel: "nan", why: "x"}', "tolerance", "finite number"),
    "tolerance inf abs": ('tolerance: {abs: .inf, why: "x"}', "tolerance", "finite number"),
    "tolerance negative": ('tolerance: {rel: -1.0e-6, why: "x"}', "tolerance", "at least 0"),
    "tolerance without why": ("tolerance: {rel: 1.0e-6}", "tolerance", "needs 'why'"),
    "tolerance a number": ("tolerance: 1.0e-6", "tolerance", "wrong type"),
    "tolerance unknown key": ('tolerance: {relative: 0.1, why: "x"}', "tolerance", "did you mean 'rel'"),
}.items():
    cases(Case(f"cell option: {name}", body=CELL.format(option=option), needle=needle, says=says, **BOUNDED))
cases(
    Case("front matter that fits", refused=False, body=PROSE, front=front(
        "code: [scripts/01-demo, bazar/model.py]\nauthor: [{name: ক, affiliation: খ}]\ndate: 2026-01-05\n"
        "format:\n  revealjs:\n    theme: serif\n    menu: {side: right}\n  typst:\n    margin: {x: 2cm}\n")),
    Case("numbers in range", refused=False, hooks=("read_as_numbers",), body=CELL.format(
        option='tolerance: {rel: 1e-6, abs: "2e-8", why: "AVX2 sums in another order"}\n'
               '#| timeout: 2.5\n#| fig-width: 4\n#| class-output: python extra\n#| code-line-numbers: "|1|1-1,1"')),
)
for name, (extra, needle, says) in {
    # reveal.js settings are pasted into Reveal.initialize({...}) as JavaScript
    "transition script": ("format:\n  revealjs:\n    transition: \"none', x: alert(1), y: '\"\n", "transition:",
                          "it takes one of: none, fade"),
    "slide-number script": ("format:\n  revealjs:\n    slide-number: \"c/t'+alert(1)+'\"\n", "slide-number:",
                            "it takes one of"),
    "controls bare word": ("format:\n  revealjs:\n    controls: auto\n", "controls:", "true or false"),
    "width text": ("format:\n  revealjs:\n    width: \"100, x: alert(1)\"\n", "width:", "finite number"),
    "width inf": ("format:\n  revealjs:\n    width: .inf\n", "width:", "finite number"),
    "margin nan": ("format:\n  revealjs:\n    margin: .nan\n", "margin:", "finite number"),
    "menu option script": ("format:\n  revealjs:\n    menu:\n      side: \"left\\u0022});alert(1);//\"\n", "side:",
                           "it takes one of: left, right"),
    "menu unknown option": ("format:\n  revealjs:\n    menu:\n      sidee: left\n", "sidee:", "did you mean 'side'"),
    "theme path": ("format:\n  revealjs:\n    theme: ../../../etc/x\n", "theme:", "theme"),
    "css outside": ("format:\n  revealjs:\n    css: ../../secret.css\n", "css:", "outside the project"),
    "unknown revealjs option": ("format:\n  revealjs:\n    trasition: fade\n", "trasition:",
                                "'revealjs: trasition' is outside the supported subset (did you mean 'transition'?"),
    # typst settings reach Typst code
    "mainfont code": ("format:\n  typst:\n    mainfont: 'x\"); #panic(\"x'\n", "mainfont:", "a font family"),
    "fontsize code": ("format:\n  typst:\n    fontsize: \"11pt) #x\"\n", "fontsize:", "a length"),
    "toc-depth big": ("format:\n  typst:\n    toc-depth: 99\n", "toc-depth:", "at most 6"),
    # front-matter keys written into the handout's Typst code as numbers (replacing the fixture's own)
    "episode Bengali digits": ('episode: "০৯"\n', "episode:", "whole number"),
    "episode code": ('episode: "1, title: [x]) #panic(\\"x\\")"\n', "episode:", "whole number"),
    "episodes inf": ("episodes: .inf\n", "episodes:", "whole number"),
    "module fraction": ("module: 1.5\n", "module:", "whole number"),
    "lang attribute": ("lang: 'bn\" onload=\"alert(1)'\n", "lang:", "language tag"),
    "unknown key, nearest named": ("titel: x\n", "titel:", "did you mean 'title'"),
    # the lecture's downloadable code, zipped for students: under code/
    "code outside": ("code: ../../../etc\n", "code:", "outside the project"),
    "code absolute": ("code:\n  - scripts/a.py\n  - /etc/passwd\n", "/etc/passwd", "outside the project"),
}.items():
    text = front(extra)
    if text.count("episode:") > 1:
        text = FRONT.replace("episode: 1\n", "")[:-4] + extra + "---\n"
    cases(Case(f"front matter: {name}", body=PROSE, front=text, needle=needle, says=says, **BOUNDED))
for name, (old, new, needle, says) in {
    "timeout -1": ("  timeout: 120", "  timeout: -1", "timeout:", "more than 0"),
    "timeout inf": ("  timeout: 120", "  timeout: .inf", "timeout:", "finite number"),
    "timeout nan": ("  timeout: 120", "  timeout: .nan", "timeout:", "finite number"),
    "max-output text": ("  timeout: 120", "  timeout: 120\n  max-output: lots", "max-output:", "whole number"),
    "max-output none": ("  timeout: 120", "  timeout: 120\n  max-output: 0", "max-output:", "at least 1000"),
    "setting misspelt": ("  timeout: 120", "  timout: 120", "timout:", "did you mean 'timeout'"),
    "key misspelt": ("lecturekit:", "lecturkit:", "lecturkit:", "did you mean 'lecturekit'"),
    "format option script": ("    transition: none", "    transition: \"none'});alert(1);({x:'\"", "transition:",
                             "it takes one of"),
    "format option misspelt": ("    transition: none", "    transiton: none", "transiton:",
                               "'revealjs: transiton' is outside the supported subset (did you mean 'transition'?"),
    "alias bomb": ("lecturekit:\n  timeout: 120",
                   "lecturekit:\n  timeout: 120\nlang: &a [x, x, x, x, x, x, x, x, x]\ntitle: &b [*a, *a, *a, *a, *a]",
                   "lang: &a", "anchors and aliases"),
}.items():
    cases(Case(f"_quarto.yml: {name}", body=PROSE, config=(old, new), blame="_quarto.yml", needle=needle, says=says,
               **BOUNDED))


def fan(prefix: str, depth: int, width: int) -> dict:
    """Section files each including the next `width` times, `depth` deep."""
    files = {f"_{prefix}{i}.qmd": f"{{{{< include _{prefix}{i + 1}.qmd >}}}}\n" * width for i in range(depth)}
    return {**files, f"_{prefix}{depth}.qmd": "লেখা।\n"}


cases(
    # each file includes the next twice: 2^30 reads without a bound
    Case("includes that fan out", body="# এক {#sec-one}\n\n{{< include _p0.qmd >}}\n", sections=fan("p", 30, 2),
         blame="_p7.qmd", needle="include", says="nested more than", seconds=3),
    # depth 3, each file including the next 20 times: 8,000 reads; the total is bounded
    Case("a wide fan of shallow includes", body="# এক {#sec-one}\n\n{{< include _w0.qmd >}}\n", sections=fan("w", 3, 20),
         blame="_w2.qmd", says="more than 200 includes", seconds=3),
    Case("a thousand nested includes", body="# এক {#sec-one}\n\n{{< include _n0.qmd >}}\n", sections=fan("n", 1000, 1),
         blame="_n7.qmd", needle="include", says="nested more than 8 deep", absent=("Recursion",), seconds=3),
    Case("a big section", body="# এক {#sec-one}\n\n{{< include _big.qmd >}}\n", sections={"_big.qmd": "লেখা।\n" * 300_000},
         needle="_big.qmd", says="more than a source may", **BOUNDED),
    Case("a big cell file", body="# এক {#sec-one}\n\n```{python}\n#| label: big\n#| file: big.py\n```\n",
         files={"big.py": "x = 1\n" * 400_000}, needle="```{python}", says="more than a source may", **BOUNDED),
    Case("YAML aliases in a cell option", needle="bomb: &l0", says="anchors and aliases", memory_mb=600, **BOUNDED,
         body=CELL.format(option="tolerance:\n#|   rel: 0.1\n#|   why: x\n#|   " + laughs("bomb", "#| "))),
    Case("YAML aliases in the front matter", body=PROSE, front=front(laughs("keywords") + "\n"), needle="keywords: &l0",
         says="anchors and aliases", memory_mb=600, **BOUNDED),
    # `[[[[…]]]]` a thousand deep ended the loader in a RecursionError
    Case("YAML nested deep in a cell option", body=CELL.format(option="tolerance: " + "[" * 900 + "]" * 900),
         needle="tolerance: [[", says="nested more than 32 deep", **BOUNDED),
    Case("YAML nested deep in the front matter", body=PROSE, front=front("keywords: " + "{a: " * 40 + "x" + "}" * 40 + "\n"),
         needle="keywords:", says="nested more than 32 deep", **BOUNDED),
    Case("a value that only looks like an alias", refused=False, body=CELL.format(option='fig-cap: "দাম *বেশি* & কম"'),
         front=front('subtitle: "a & b * c"\n')),
    # a byte-order mark loses nothing at the start of a file, and is refused inside one
    Case("a byte-order mark at the start", refused=False, body="# এক {#sec-one}\n\n{{< include _a.qmd >}}\n",
         sections={"_a.qmd": "## দুই {#sec-two}\n\nলেখা।\n"}, hooks=("byte_order_mark_loses_nothing",)),
    Case("a byte-order mark inside a file", body="# এক {#sec-one}\n\nলেখা।\n\n\ufeff## দুই {#sec-two}\n\nলেখা।\n",
         needle="দুই", says="byte-order mark", **BOUNDED),
)

# Through the command: one line each, no traceback, the others still listed.
OPTIONS_BATCH = dict(via=("render",), batch="options", seconds=60, front=FRONT,
                     absent=("Traceback (most recent call last)", "RecursionError"))
cases(
    Case("render: class-output brace", lecture="01-class", body=CELL.format(option='class-output: "x}y"'),
         needle="class-output", says="class-output", **OPTIONS_BATCH),
    Case("render: timeout -1", lecture="02-timeout", body=CELL.format(option="timeout: -1"), needle="timeout",
         says="timeout", **OPTIONS_BATCH),
    Case("render: transition", lecture="03-transition", body=PROSE, needle="transition",
         says="transition", **{**OPTIONS_BATCH, "front": front("format:\n  revealjs:\n    transition: \"x'\"\n")}),
    Case("render: aliases", lecture="04-laughs", body=CELL.format(option="tolerance: &a [x, x]\n#| file: *a"),
         needle="tolerance: &a", says="anchors and aliases", **OPTIONS_BATCH),
    Case("render: includes that fan out", lecture="05-fan", body="# এক {#sec-one}\n\n{{< include _p0.qmd >}}\n",
         sections=fan("p", 30, 2), blame="_p7.qmd", needle="include", says="nested more than", **OPTIONS_BATCH),
)

# Under `quarto render`: a lecture that sets one format's option still gets every product.
THEMED = "\n## একটি স্লাইড {#sec-one}\n\nপ্রথম বাক্য।\n\n```{python}\n#| label: answer\nprint(6 * 7)\n```\n"
cases(
    Case("quarto: one revealjs option", lecture="01-themed", body=THEMED, refused=False, via=("quarto",), batch="themed",
         front="---\ntitle: থিম\nformat:\n  revealjs:\n    theme: dracula\n---\n", hooks=("theme_applied",)),
    Case("quarto: one typst option", lecture="02-papered", body=THEMED, refused=False, via=("quarto",), batch="themed",
         front="---\ntitle: কাগজ\nformat:\n  typst:\n    papersize: a5\n---\n"),
)

assert len({case.id for case in CASES}) == len(CASES), [c.id for c in CASES if [d.id for d in CASES].count(c.id) > 1]

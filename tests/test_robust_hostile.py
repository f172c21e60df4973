"""A hostile author's variants past test_robust_markup's cases: refused at their file:line, or shown
to be harmless in the deck, the web page, the handout's Typst and the search index.

- the reader: markup nested hundreds deep and a macro that expands forever are the lecture's error
  at their line (not a RecursionError traceback, not a message without a place); attributes,
  shortcodes, math commands, front-matter keys and cell options that would run, load or read
  outside are refused at theirs;
- the lecture filters: a refusal stops `quarto render` with exit 1 and `error: file:line:` of the
  lecture's source (Quarto's filter chain would only print it and go on into a traceback);
- the writer: JSON pasted into a <script> cannot end it; a damaged shared menu file is written
  again; a Typst error inside a figure names the cell that made it;
- `scripts/check` reports every lecture it cannot check, not only the first;
- what is read is harmless where it lands: a scheme split by a tab, Typst markup in the title, a
  heading that spells `</script>`, an SVG output with handlers, gradgraph names with markup — one
  small render, its page and deck walked in Chromium (no dialog, no request).
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import FRONT, NO_QUARTO, ROOT, MiniProject, run_check, run_render
from lecturekit.errors import LectureError
from lecturekit.write.formats import reveal_menu, script_json
from test_robust_markup import WALK, Case, read, walk_deck

HEAD = "## এক {#sec-one}\n\nপ্রথম লাইন।\n\n"
NESTED = "deeper than the reader follows"


def write(builder, case):
    """The case as lectures/50-case/; returns (index.qmd, the line its needle is on)."""
    folder = builder.add_lecture("50-case", "", front={"title": "ঠিক", "episode": 50, **case.front})
    index = folder / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8") + HEAD + case.body + "\n", encoding="utf-8")
    (folder / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    line = next(n for n, text in enumerate(index.read_text(encoding="utf-8").split("\n"), 1)
                if case.needle in text and not text.startswith("title:"))
    return index, line


# Each refused at the line that holds it (the needle), its message saying why (says).
REFUSED = {
    # found a bug: a RecursionError traceback, and pandoc's refusal with no file or line
    "block quotes 3000 deep": Case(">" * 3000 + " গভীর", needle="গভীর", says="nested this deep"),
    "macro that expands forever": Case("\\newcommand{\\b}{\\b x}\n\nসূত্র $\\b$।", needle="newcommand",
                                       says="Loop encountered"),
    "step past the code": Case("```{python}\n#| code-line-numbers: '|1-999999999'\nprint(1)\n```",
                               needle="code-line-numbers", says="has lines 1 to 1"),
    # held: attributes, shortcodes, math and keys that would run, load or read outside
    "entity space before the scheme": Case("[চাপুন](&#32;javascript:alert(1))", needle="চাপুন", says="javascript:"),
    "numeric colon": Case("[চাপুন](javascript&#58;alert(1))", needle="চাপুন", says="javascript:"),
    "image with a script source": Case("![x](javascript:alert(1))", needle="![x]", says="URL"),
    "data-background-iframe": Case('## দুই {#sec-two data-background-iframe="http://127.0.0.1:9/f"}', needle="দুই",
                                   says="data-background-iframe"),
    "data-background url": Case('## দুই {#sec-two data-background="http://127.0.0.1:9/b.png"}', needle="দুই",
                                says="URL"),
    "background video url": Case('## দুই {#sec-two background-video="http://127.0.0.1:9/v.mp4"}', needle="দুই",
                                 says="URL"),
    "data-src url": Case('[x]{data-src="http://127.0.0.1:9/x"}', needle="[x]", says="URL"),
    "formaction": Case('[x]{formaction="javascript:alert(1)"}', needle="[x]", says="formaction"),
    "xlink href": Case('[x]{xlink:href="javascript:alert(1)"}', needle="[x]", says="xlink:href"),
    "srcdoc": Case('![x](pic.png){srcdoc="<script>alert(1)</script>"}', needle="![x]", says="srcdoc"),
    "css escape spelling url": Case('[x]{style="background:\\75rl(http://127.0.0.1:9/s.png)"}', needle="[x]",
                                    says="style="),
    "style import": Case("[x]{style=\"@import 'http://127.0.0.1:9/s.css'\"}", needle="[x]", says="style="),
    "onerror on an image": Case('![x](pic.png){onerror="alert(1)"}', needle="![x]", says="onerror"),
    "callout icon url": Case('::: {.callout-note icon="javascript:alert(1)"}\nভেতরে।\n:::', needle="callout-note",
                             says="icon"),
    "include by absolute path": Case("{{< include /etc/hostname >}}", needle="{{<", says="absolute path"),
    "env shortcode": Case("ঘর {{< env HOME >}}।", needle="{{<", says="include"),
    "video shortcode": Case("{{< video http://127.0.0.1:9/v.mp4 >}}", needle="{{<", says="include"),
    "math href": Case("সূত্র $\\href{javascript:alert(1)}{x}$।", needle="সূত্র", says="\\href"),
    "math includegraphics": Case("সূত্র $\\includegraphics{http://127.0.0.1:9/m.png}$।", needle="সূত্র",
                                 says="\\includegraphics"),
    "math recursive def": Case("সূত্র $\\def\\a{\\a\\a}\\a$।", needle="সূত্র", says="\\def"),
    "language tag with a quote": Case(front={"lang": 'bn" onload="alert(1)'}, needle="lang:", says="language tag"),
    "page title ends the title": Case(front={"pagetitle": "</title><script>alert(1)</script>"}, needle="pagetitle:",
                                      says="raw HTML"),
    "keyword in a list": Case(front={"keywords": ["torch", "<svg/onload=alert(1)>"]}, needle="- <svg",
                              says="raw HTML"),
    "crossref prefix": Case(front={"crossref": {"fig-prefix": "<img src=x onerror=alert(1)>"}}, needle="fig-prefix",
                            says="raw HTML"),
    "author name link": Case(front={"author": [{"name": "[a](javascript:alert(1))"}]}, needle="- name:",
                             says="javascript:"),
    "page template outside": Case(front={"format": {"html": {"template": "../../../outside.html"}}},
                                  needle="template:", says="outside the project"),
    "page header include outside": Case(front={"format": {"html": {"include-in-header": "../../../outside.html"}}},
                                        needle="include-in-header:", says="outside the project"),
    "header-includes": Case(front={"header-includes": "<script>alert(1)</script>"}, needle="header-includes:",
                            says="outside the supported subset"),
    "label with a quote": Case("```{python}\n#| label: 'fig-p\" onload=\"alert(1)'\nprint(1)\n```", needle="label:",
                               says="ASCII letters"),
    # what a plugin of the deck reads as HTML: reveal.js's notes, the slide menu's titles
    "speaker notes as an attribute": Case('## দুই {#sec-two notes="&lt;img src=x onerror=alert(1)&gt;"}',
                                          needle="দুই", says="'notes'"),
    "notes read as markdown": Case('::: {.notes data-markdown=""}\nনোট।\n:::', needle=".notes", says="'data-markdown'"),
    "menu title attribute": Case('## দুই {#sec-two data-menu-title="&lt;img src=x onerror=alert(1)&gt;"}',
                                 needle="দুই", says="'data-menu-title'"),
    "menu title class": Case("[\\<img src=x onerror=alert(1)\\>]{.menu-title}", needle="menu-title",
                             says="class 'menu-title'"),
    "preview link": Case('[x](pic.png){data-preview-link="javascript:alert(1)"}', needle="[x]", says="javascript:"),
    "episode as Typst code": Case(front={"episode": '1, title: [x]) #panic("x") #('}, needle="episode:",
                                  says="whole number"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_hostile_variant_is_refused_at_its_line(project_builder, case):
    spec = REFUSED[case]
    index, line = write(project_builder, spec)
    (project_builder.root.parent / "outside.html").write_text("<script>alert(1)</script>", encoding="utf-8")
    with pytest.raises(LectureError) as caught:
        read(index, project_builder.root)
    err = caught.value
    assert (Path(err.file).name if err.file else None, err.line) == ("index.qmd", line), str(err)
    assert spec.says in str(err), str(err)


def test_json_in_a_script_element_cannot_end_it():
    value = {"side": "</script><script>alert(1)</script><!--", "x": "a\u2028b\u2029c & d"}
    text = script_json(value)
    assert json.loads(text) == value
    assert not re.search("[<>&\u2028\u2029]", text), text


def test_a_damaged_menu_file_is_written_again(project_builder):
    root = project_builder.root
    [_flag, path] = reveal_menu(True, root)
    whole = Path(path).read_bytes()
    Path(path).write_bytes(whole[:100])  # a render killed while writing, a full disk
    assert reveal_menu(True, root) == [_flag, path]
    assert Path(path).read_bytes() == whole


def test_check_reports_every_lecture_it_cannot_check(project_builder):
    for name in ("01-one", "02-two"):
        folder = project_builder.add_lecture(name, HEAD, front={"title": "ঠিক", "episode": int(name[:2])})
        index = folder / "index.qmd"
        index.write_text(index.read_text(encoding="utf-8").replace("episode:", "episode: [\nbroken:", 1),
                         encoding="utf-8")
    result = run_check(project_builder.root, "--quiet")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    for name in ("01-one", "02-two"):
        assert re.search(rf"error: \S*lectures/{name}/index\.qmd:\d+: ", out), out


def test_a_typst_error_inside_a_figure_names_the_cell(mini):
    mini.write(HEAD + "```{python}\nfrom IPython.display import SVG\n"
               "SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"9\" height=\"9\">"
               "<image href=\"http://127.0.0.1:9/i.png\" width=\"5\" height=\"5\"/></svg>')\n```\n")
    result = mini.render()
    line = next(n for n, text in enumerate((mini.lecture / "index.qmd").read_text(encoding="utf-8").split("\n"), 1)
                if text.startswith("```{python}"))
    assert result.returncode == 1
    assert re.search(rf"error: \S*lectures/demo/index\.qmd:{line}: typst could not draw this cell's figure", result.stderr), \
        result.stderr


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


@pytest.fixture(scope="module")
def harmless(tmp_path_factory):
    mini = MiniProject(tmp_path_factory.mktemp("hostile") / "project")
    mini.write(HARMLESS, front=HARMLESS_FRONT)
    result = mini.render()
    assert result.returncode == 0, result.stderr
    return mini


def test_what_is_read_runs_nothing_on_the_page_or_the_deck(harmless, browser):
    dialogs, requests, found = walk_deck(browser, harmless.slides)
    assert dialogs == [] and requests == [] and found == {"handlers": [], "links": [], "frames": 0}, found
    page = browser.new_page()
    dialogs, requests = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(harmless.output("demo", "index.html").as_uri())
        found = page.evaluate(WALK)
        page.fill("#search-box", "heading")  # the search lists the heading as text
        page.wait_for_selector(".search-results li")
        hits = page.inner_text(".search-results")
        page.wait_for_timeout(300)
    finally:
        page.close()
    assert dialogs == [] and found == {"handlers": [], "links": [], "frames": 0}, (dialogs, found)
    assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
    assert "</script>" in hits and "alert(" in hits, hits


def test_what_is_read_is_text_in_the_handout_and_the_figure(harmless):
    typ = (harmless.root / "_build" / "demo" / "demo.typ").read_text(encoding="utf-8")
    title = next(line for line in typ.split("\n") if line.strip().startswith("title:"))
    assert '\\#read("/etc/hostname") \\]) \\#panic' in title, title  # escaped: text, not Typst code
    svg = (harmless.root / "figures" / "demo" / "fig-grad.svg").read_text(encoding="utf-8")
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;&quot;]]&gt;" in svg and "<script" not in svg and "<img" not in svg
    for name in ("slides.html", "index.html"):
        html = harmless.output("demo", name).read_text(encoding="utf-8")
        assert 'href="java%20script:' in html  # a tab or newline in the scheme is no scheme any more


def test_a_filter_refusal_stops_quarto_at_the_lecture_line(tmp_path):
    from test_quarto import QUARTO, quarto
    if QUARTO is None:
        pytest.skip(NO_QUARTO)
    from lecturekit.course.scaffold.projects import ProjectBuilder
    builder = ProjectBuilder(tmp_path / "project", ROOT)
    shutil.copytree(ROOT / "scripts", builder.root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, builder.root / name)
    (builder.root / ".venv").symlink_to(ROOT / ".venv")
    folder = builder.add_lecture("01-quiz", HEAD + "::: {.quiz #q-one}\nকোনটি?\n\n- [ ] এক\n- [ ] দুই\n:::\n",
                                 front={"title": "প্রশ্ন", "episode": 1})
    line = (folder / "index.qmd").read_text(encoding="utf-8").split("\n").index("::: {.quiz #q-one}") + 1
    result = quarto(builder.root)
    log = result.stdout + result.stderr
    assert result.returncode != 0, log[-3000:]
    assert f"error: lectures/01-quiz/index.qmd:{line}: lecture filter: " in log, log[-3000:]
    assert "marks no option right" in log and "stack traceback" not in log, log[-3000:]
    assert not (builder.root / "_output" / "01-quiz").exists()


def test_a_filter_refusal_without_an_id_names_the_line_of_what_it_quotes(project_builder):
    """The page's KaTeX refusing a formula the handout takes, a quiz with more options than letters:
    the line of the formula, of the question."""
    cases = {"01-formula": ("সূত্র $\\begin{align}a&=b\\end{align}$ এখানে।", "সূত্র", "KaTeX cannot typeset"),
             "02-quiz": ("::: {.quiz}\nকোনটি?\n\n" + "- [ ] বিকল্প\n" * 9 + "- [x] ঠিক\n:::", "কোনটি?",
                         "a quiz takes at most")}
    lines = {}
    for name, (body, needle, _says) in cases.items():
        folder = project_builder.add_lecture(name, HEAD + body + "\n", front={"title": "ঠিক", "episode": int(name[:2])})
        lines[name] = next(n for n, text in enumerate((folder / "index.qmd").read_text(encoding="utf-8").split("\n"), 1)
                           if text.startswith(needle))
    result = run_render(project_builder.root, "--quiet")
    assert result.returncode == 1, result.stderr
    for name, (_body, _needle, says) in cases.items():
        assert re.search(rf"error: \S*lectures/{name}/index\.qmd:{lines[name]}: lecture filter \(\w+\): .*{says}",
                         result.stderr), result.stderr


# ---- every value a template writes into an attribute -------------------------------------------------

TEMPLATE_ATTRIBUTE = re.compile(r'="([^"]*\$[^"]*)"')
TEMPLATE_VARIABLE = re.compile(r"\$([A-Za-z][\w.-]*)\$")
# What the templates may write into an attribute besides the front matter the lecture filter escapes
# (filters/attributes.lua: ATTRIBUTE_META), and why it cannot end the attribute.
ATTRIBUTE_VALUES = {
    "lang": "the front-matter schema's language-tag pattern (letters, digits, hyphens)",
    "author-meta": "pandoc writes it escaped for an attribute",
    "date-meta": "pandoc writes it only for a date it could read, as YYYY-MM-DD",
    "it.value": "title-slide-attributes: the front-matter schema has no such key; the filter writes it",
    "dir": "no front-matter key (the schema refuses it)",
    "page-root": "formats/html.lua: ../ or empty", "it.href": "course/site/pages.py: a lecture folder's product",
    "page-links.previous.href": "course/site/pages.py: ../<lecture folder>/", "page-links.next.href": "the same",
    "revealjs-url": "the kit's node_modules path", "theme": "the schema's theme names", "css": "a path the reader checked",
    "highlightjs-theme": "the schema's pattern", "idprefix": "not set by the kit", "quarto-version": "Quarto's",
    "reveal-jsscripts": "Quarto's plugin paths", "sep": "template syntax", "endfor": "template syntax",
}


def test_every_template_attribute_value_is_escaped_or_fixed():
    """Each `$variable$` inside an attribute of the page's and the decks' templates (ours, pandoc's
    revealjs, Quarto's) is a front-matter value the lecture filter writes escaped, or a value listed
    above with the reason it cannot hold a quote; a new one fails here until it is one of them."""
    import pypandoc
    from test_quarto import QUARTO
    lua = (ROOT / "_extensions" / "lecture" / "filters" / "attributes.lua").read_text(encoding="utf-8")
    escaped = set(re.findall(r'"([\w-]+)"', re.search(r"local ATTRIBUTE_META = \{([^}]*)\}", lua).group(1)))
    assert escaped == {"title-en", "keywords"}, escaped
    templates = {"page.html": (ROOT / "_extensions" / "lecture" / "page" / "page.html").read_text(encoding="utf-8"),
                 "pandoc -D revealjs": subprocess.run([pypandoc.get_pandoc_path(), "-D", "revealjs"],
                                                      capture_output=True, text=True, check=True).stdout}
    if QUARTO:
        share = Path(QUARTO).resolve().parents[1] / "share" / "formats" / "revealjs" / "pandoc"
        templates.update({f"quarto {path.name}": path.read_text(encoding="utf-8") for path in share.glob("*.html")})
    found = {(name, variable) for name, text in templates.items() for value in TEMPLATE_ATTRIBUTE.findall(text)
             for variable in TEMPLATE_VARIABLE.findall(value)}
    assert ("page.html", "title-en") in found and ("pandoc -D revealjs", "keywords") in found, sorted(found)
    # page-words: words.json, the project's own text (formats/html.lua)
    words = set(json.loads((ROOT / "_extensions" / "lecture" / "words.json").read_text(encoding="utf-8"))["page_words"])
    unknown = [(name, variable) for name, variable in sorted(found)
               if variable not in escaped and variable not in ATTRIBUTE_VALUES
               and not (variable.startswith("page-words.") and variable.split(".", 1)[1] in words)]
    assert unknown == [], unknown


def test_the_course_page_escapes_every_value():
    """The course page (Jinja2): every value escaped for HTML and attributes, none marked safe."""
    from lecturekit.course.site.course_page import TEMPLATES, _templates
    assert _templates().autoescape is True
    template = (TEMPLATES / "course.html.j2").read_text(encoding="utf-8")
    assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup\(", template)

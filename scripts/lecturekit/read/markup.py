"""What a lecture's markdown may put into its products, decided on what pandoc parsed.

The reader hands pandoc the lecture as the products are made from it: the prose runs in order (a cell
stands as an empty code block), and every string the products read as markdown (the front matter's,
`_quarto.yml`'s, each cell's `fig-cap` and `fig-alt`). `judge` walks pandoc's AST, every node of the
body and the metadata, and refuses:

- every raw inline and raw block: HTML tags and comments (`<svg/onload=…>`, a tag split over lines),
  `` `…`{=html} ``, ```` ```{=revealjs} ````, a raw block of any format. HTML would run in the deck,
  and any raw text reaches one product only;
- a link whose destination, as pandoc decoded it (entities, a destination on the next line, a
  reference definition anywhere), is a URL a browser would run or leave the deck for: its scheme,
  read as a browser reads it (WHATWG: leading C0 controls and spaces dropped, tabs and newlines
  removed, case ignored), must be none (a path or `#anchor`), http, https or mailto;
- an image, or a slide background or other attribute that loads a file, that is not a file inside the
  project: a URL would be fetched by pandoc's `--embed-resources` during the render (or by the
  browser when the deck is shown), so the render and the deck never use the network;
- an attribute that would run or load something in the deck: an event handler where pandoc writes it
  (events.py), a frame (`background-iframe`, `srcdoc`), a `style` that loads (`url(`, `@import`, a
  CSS escape);
- and the values Quarto reads as markdown (a callout's `title`, a div's `fig-cap` …) by the same rules.

Both renderers read every lecture through this stage before anything is written (scripts/render, and
`quarto render`'s pre-render step; a `quarto render` of one source asks `python -m
lecturekit.cli.source` from the lecture filter), so this module is the one place the decision is
made. An error names the file and line of the construct: strings by their key or option line, the
body by the first line at which pandoc's reading of the lecture holds the construct.
"""
from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from lecturekit import inputs
from lecturekit.errors import LectureError
from lecturekit.pandoc import PandocError, pandoc_binary, run_pandoc
from lecturekit.read.events import EVENT_HANDLERS
from lecturekit.read.frontmatter import meta_texts
from lecturekit.read.scanner import Cell, Markdown
from lecturekit.yamlio import key_lines


class Lecture(Protocol):
    """What the judge reads of read/qmd.py's Lecture (which reads this module)."""
    root: Path
    index: Path
    meta: dict[str, Any]
    meta_lines: dict[tuple[str, ...], int]
    blocks: list[Markdown | Cell]

# Schemes a link may have: none (a path or an anchor), the web, mail.
LINK_SCHEMES = frozenset({"", "http", "https", "mailto"})
# Raw formats pandoc's HTML writers (reveal.js among them) pass through as they are.
HTML_FORMATS = frozenset({"html", "html4", "html5", "revealjs", "s5", "slidy", "slideous", "dzslides",
                          "epub", "epub2", "epub3", "chunkedhtml"})
# Attributes whose value is a file the page loads (pandoc writes `background-image` on a slide as
# reveal.js's `data-background-image`): a file inside the project, never a URL.
LOADS = frozenset({"src", "srcset", "poster", "data", "background", "background-image", "background-video",
                   "preview-image", "preview-video", "icon", "manifest", "xlink:href"})
# Attributes whose value is a URL the page navigates to: the link rule.
NAVIGATES = frozenset({"href", "action", "formaction", "cite", "longdesc", "ping", "preview-link"})
# Attributes that put another page (and its script) into the deck.
FRAMES = frozenset({"background-iframe", "srcdoc"})
# Attributes and classes a plugin of the deck reads and puts back as HTML: reveal.js's speaker notes
# (`data-notes`, notes as `data-markdown`), the slide menu's titles (`data-menu-title`, `.menu-title`;
# the lecture filter gives every slide its title as text, filters/attributes.lua).
PLUGIN_MARKUP = frozenset({"notes", "markdown", "menu-title"})
# CSS that loads something or hides what it does (an escape can spell `url(`).
STYLE_LOADS = re.compile(r"url\s*\(|image-set|@import|expression|\\|&|/\*", re.I)
# Attribute values Quarto (or a lecture filter) reads as markdown: judged as markdown too.
MARKDOWN_ATTRIBUTES = frozenset({"title", "subtitle", "caption", "fig-cap", "tbl-cap", "lst-cap", "fig-scap",
                                 "fig-alt", "tbl-alt"})
# Where the judged strings travel through pandoc: list items of one metadata key.
STRINGS_KEY = "lecturekit-judged-strings"
# How deep markdown inside attribute values inside markdown is followed.
MAX_DEPTH = 4


@dataclass(frozen=True)
class Named:
    """A string the products read as markdown, and where it is written."""
    text: str
    file: Path
    line: int | None
    where: str  # in a message: "'title'", "'fig-cap'"


@dataclass(frozen=True)
class Finding:
    """Something pandoc parsed that the products must not get."""
    message: str  # "{where}" stands for the place: prose, 'title', …
    needles: tuple[str, ...]  # texts on the source line that holds it, best first (to find it in a paragraph)
    string: int | None  # the judged string it is in, or None: the body


@dataclass
class Verdict:
    """What the judge found, and the files the markdown names (images, backgrounds): those are
    checked against the file system at every read (a link may have changed since)."""
    findings: list[Finding] = field(default_factory=list)
    files: list[tuple[str, int | None]] = field(default_factory=list)  # (target, string index or None)


# ---- URLs, as a browser reads them -----------------------------------------------------------------

_C0_OR_SPACE = "".join(map(chr, range(0x21)))


def url_scheme(url: str) -> str:
    """The scheme a browser sees in `url`, lower case ("" for a path or an anchor). WHATWG URL parsing
    drops leading and trailing C0 controls and spaces and removes every tab and newline first;
    urlsplit then reads the scheme as the standard does (letters, digits, `+-.`)."""
    cleaned = re.sub(r"[\t\n\r]", "", url.strip(_C0_OR_SPACE))
    try:
        return urlsplit(cleaned).scheme.lower()
    except ValueError:  # e.g. an unbalanced '[' in the host: no browser would load it either
        return "invalid"


def _link_problem(url: str) -> str | None:
    scheme = url_scheme(url)
    if scheme in LINK_SCHEMES:
        return None
    if scheme in ("javascript", "vbscript", "data", "blob", "filesystem"):
        return f"a {scheme}: link in {{where}} would run in the deck; link to a page (https://…) or a file of the project"
    return (f"a {scheme}: link in {{where}} leaves the deck for what the browser runs or opens itself; "
            "link to a page (https://…), an address (mailto:) or a file of the project")


def _file_problem(target: str) -> str | None:
    """A file the deck loads must be named as a path (inside the project: checked by `check_files`)."""
    cleaned = re.sub(r"[\t\n\r]", "", target.strip(_C0_OR_SPACE))
    scheme = url_scheme(target)
    if scheme == "file":
        return None  # an absolute path, refused by the file check with its own words
    if scheme or cleaned.startswith(("//", "\\\\", "/\\", "\\/")):
        return (f"{{what}} {target[:60]} in {{where}} is a URL: a render would fetch it (and the deck would "
                "need the network); save the file in the project and name it by its path")
    return None


# ---- what of a cell's output the products show ----------------------------------------------------

# Text and pictures. A cell's markup (text/html, text/markdown, text/latex, JavaScript, widgets) would
# be read as markup by Quarto, which renders the executed notebook: it stays out of the notebook, so
# both renderers show the output's text (scripts/render's writer reads only these) and a printed or
# displayed `<script>` is text in the deck.
SHOWN_MIMES = frozenset({"text/plain", "image/svg+xml", "image/png", "image/jpeg", "image/gif", "application/pdf",
                         "text/vnd.graphviz"})
# The course's own figure data (courseplot, the checks read it; no renderer shows it).
COURSE_MIMES = "application/vnd.lecture."


def shown_output(output: dict[str, Any]) -> dict[str, Any]:
    """A cell's output as the products may get it: display data of the shown types only."""
    data = output.get("data")
    if not isinstance(data, dict):
        return output
    kept = {mime: value for mime, value in data.items() if mime in SHOWN_MIMES or mime.startswith(COURSE_MIMES)}
    if len(kept) == len(data):
        return output
    metadata = output.get("metadata")
    return {**output, "data": kept,
            **({"metadata": {k: v for k, v in metadata.items() if k not in data or k in kept}}
               if isinstance(metadata, dict) else {})}


# ---- the judge ------------------------------------------------------------------------------------

def _is_attr(value: Any) -> bool:
    """Pandoc's Attr: [identifier, [classes], [[key, value], …]]."""
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and isinstance(value[1], list) and isinstance(value[2], list)
            and all(isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
                    for pair in value[2]))


class _Walk:
    """One pass over a pandoc JSON AST, collecting findings, the files it names and the attribute
    values to read as markdown."""

    def __init__(self) -> None:
        self.verdict = Verdict()
        self.markdown: list[tuple[str, str, int | None]] = []  # (attribute, its value, string)
        self.math: list[tuple[Any, int | None]] = []  # (Math node, string)

    def find(self, message: str, needle: str | tuple[str, ...], string: int | None) -> None:
        self.verdict.findings.append(Finding(message, needle if isinstance(needle, tuple) else (needle,), string))

    def node(self, value: Any, string: int | None) -> None:
        if isinstance(value, dict):
            kind = value.get("t")
            content = value.get("c")
            if kind in ("RawInline", "RawBlock") and isinstance(content, list) and len(content) == 2:
                self.raw(kind, str(content[0]), str(content[1]), string)
            elif kind in ("Link", "Image") and isinstance(content, list) and len(content) == 3:
                self.target(kind, content[2][0], string)
            elif kind == "Math":
                self.math.append((value, string))
            for item in value.values():
                self.node(item, string)
        elif isinstance(value, list):
            if _is_attr(value):
                self.attributes(value[2], string)
                if "menu-title" in value[1]:
                    self.find("class 'menu-title' in {where} would put its text into the slide menu as HTML; "
                              "the menu shows each slide's heading", "menu-title", string)
            for item in value:
                self.node(item, string)

    def raw(self, kind: str, fmt: str, text: str, string: int | None) -> None:
        shown = " ".join(text.split())[:40]
        needle = (f"{{={fmt}}}", text.strip().split("\n")[0][:40] or fmt)
        if fmt.lower() in HTML_FORMATS:
            self.find(f"raw HTML '{shown}' in {{where}} is outside the supported subset: the deck would run it "
                      "(write markdown; to show the characters, put them in `code`)", needle, string)
        else:
            what = "inline" if kind == "RawInline" else "block"
            self.find(f"a raw {what} ({{={fmt}}}) '{shown}' in {{where}} is outside the supported subset: it "
                      "reaches one product only (write markdown)", needle, string)

    def target(self, kind: str, url: str, string: int | None) -> None:
        if kind == "Link":
            problem = _link_problem(url)
            if problem:
                self.find(problem, url.strip(_C0_OR_SPACE)[:20] or "](", string)
            return
        problem = _file_problem(url)
        if problem:
            self.find(problem.replace("{what}", "image"), url[:20], string)
        else:
            self.verdict.files.append((url, string))

    def attributes(self, pairs: list[list[str]], string: int | None) -> None:
        for key, value in pairs:
            name = key.lower().removeprefix("data-")
            if key in EVENT_HANDLERS:
                self.find(f"attribute '{key}' in {{where}} would run in the deck; event handlers are outside "
                          "the supported subset", key, string)
            elif name in PLUGIN_MARKUP:
                self.find(f"attribute '{key}' in {{where}} would be read as HTML by a plugin of the deck "
                          "(speaker notes, slide menu); it is outside the supported subset", key, string)
            elif name in FRAMES:
                self.find(f"attribute '{key}' in {{where}} would put another page, and its script, into the "
                          "deck; it is outside the supported subset", key, string)
            elif name in LOADS:
                problem = _file_problem(value)
                if problem:
                    self.find(problem.replace("{what}", f"attribute '{key}'"), key, string)
                else:
                    self.verdict.files.append((value, string))
            elif name in NAVIGATES:
                problem = _link_problem(value)
                if problem:
                    self.find(problem.replace("link", f"'{key}'", 1), key, string)
            elif name == "style" and STYLE_LOADS.search(value):
                self.find(f"attribute '{key}=\"{value[:40]}\"' in {{where}} would load or hide something in "
                          "the deck (url(), @import, escapes); style with classes (theme.css)", key, string)
            elif key in MARKDOWN_ATTRIBUTES and value.strip():
                self.markdown.append((key, value, string))


def _unwritable_math(math: list[tuple[Any, int | None]], api: Any) -> list[Finding]:
    """The math pandoc cannot write for the handout: its Typst writer keeps such TeX as text, which
    Typst then fails on, naming a line of generated code. Each formula goes to pandoc once, behind a
    marker paragraph; one that comes out as escaped TeX is refused with pandoc's own reason."""
    blocks: list[Any] = []
    for index, (node, _string) in enumerate(math):
        blocks += [{"t": "Para", "c": [{"t": "Str", "c": f"LECTUREKITMATH{index}"}]}, {"t": "Para", "c": [node]}]
    document = json.dumps({"pandoc-api-version": api, "meta": {}, "blocks": blocks})
    run = run_pandoc(["--from=json", "--to=typst"], stdin=document)
    written = re.split(r"LECTUREKITMATH(\d+)", run.stdout)
    reasons = iter(re.findall(r"Could not convert TeX math .*?\n(?:  .*\n)*?  (unexpected[^\n]*)", run.stderr))
    found = []
    for marker, text in zip(written[1::2], written[2::2]):
        if text.strip().startswith("\\$"):
            node, string = math[int(marker)]
            tex = str(node["c"][1])
            reason = next(reasons, "pandoc cannot convert it")
            found.append(Finding(f"math `{' '.join(tex.split())[:60]}` in {{where}} cannot be written for the handout "
                                 f"(pandoc's Typst writer: {reason}); write it with the LaTeX pandoc knows",
                                 (tex.strip().split("\n")[0][:20],), string))
    return found


def pandoc_ast(markdown: str) -> Any:
    """Pandoc's AST of a markdown text (pandoc's `markdown`, as both renderers read it)."""
    try:
        run = run_pandoc(["--from=markdown", "--to=json"], stdin=markdown)
    except PandocError as err:
        raise LectureError(f"pandoc could not read the lecture's markdown: {err.stderr.strip() or err.message}") from None
    return json.loads(run.stdout)


def _document(strings: list[str], body: str) -> str:
    """The strings as items of one metadata list (pandoc reads each as markdown, as it reads a title),
    then the body."""
    head = json.dumps({STRINGS_KEY: strings}, ensure_ascii=True)
    return f"---\n{head}\n---\n\n{body}"


def judge(strings: list[str], body: str, depth: int = 0) -> Verdict:
    """The decision: what in these markdown strings and this body the products must not get."""
    walk = _Walk()
    try:
        ast = pandoc_ast(_document(strings, body))
        walk.node(ast.get("blocks"), None)
        for key, value in (ast.get("meta") or {}).items():
            if key == STRINGS_KEY and isinstance(value, dict) and value.get("t") == "MetaList":
                for index, item in enumerate(value.get("c") or []):
                    walk.node(item, index)
            else:  # a YAML block inside the body: metadata of the whole document
                walk.node(value, None)
    except (LectureError, RecursionError) as err:
        # What pandoc cannot read (a macro that expands forever) or nests past what is followed (block
        # quotes or lists hundreds deep): a finding of the body, placed at the line that brings it.
        message = (err.message if isinstance(err, LectureError) else
                   "markdown nested this deep (block quotes, lists or divs inside one another) is outside the "
                   "supported subset ({where}); nest a few levels at most")
        return Verdict([Finding(message, (), None)])
    verdict = walk.verdict
    if walk.math:
        verdict.findings += _unwritable_math(walk.math, ast.get("pandoc-api-version"))
    if walk.markdown:
        if depth >= MAX_DEPTH:
            verdict.findings.append(Finding("markdown nested in attributes this deep is outside the supported "
                                            "subset ({where})", (walk.markdown[0][0],), walk.markdown[0][2]))
            return verdict
        inner = judge([value for _key, value, _string in walk.markdown], "", depth + 1)
        for finding in inner.findings:
            assert finding.string is not None
            key, _value, string = walk.markdown[finding.string]
            message = finding.message.replace("{where}", f"the '{key}' attribute in {{where}}")
            verdict.findings.append(Finding(message, finding.needles + (key,), string))
        verdict.files += [(target, walk.markdown[i][2]) for target, i in inner.files if i is not None]
    return verdict


# ---- a lecture's markdown, and where each line is written -------------------------------------------

@dataclass
class LectureMarkdown:
    """What a lecture gives pandoc as markdown: the judged strings and the body, each body line with
    the file and line it is written at (None for the lines that stand for a cell)."""
    strings: list[Named] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    origins: list[tuple[Path, int] | None] = field(default_factory=list)

    def add_lines(self, text: str, origin: tuple[Path, int] | None) -> None:
        for offset, line in enumerate(text.split("\n")):
            self.lines.append(line)
            self.origins.append((origin[0], origin[1] + offset) if origin else None)

    @property
    def body(self) -> str:
        return "\n".join(self.lines)


# A cell, as the products have it at this place: a block of its own.
CELL_STANDIN = "\n::: {.cell}\n```\n```\n:::\n"


def lecture_markdown(lecture: Lecture, config: dict[str, Any] | None = None, config_path: Path | None = None,
                     config_lines: dict[tuple[str, ...], int] | None = None) -> LectureMarkdown:
    """The lecture's markdown, as the products are made from it."""
    found = LectureMarkdown()
    if config and config_path:
        for name, text, line in meta_texts(config, (), config_lines or {}):
            found.strings.append(Named(text, config_path, line, f"'{name}'"))
    for name, text, line in meta_texts(lecture.meta, (), lecture.meta_lines):
        found.strings.append(Named(text, lecture.index, line, f"'{name}'"))
    for block in lecture.blocks:
        if isinstance(block, Markdown):
            found.add_lines("", None)
            found.add_lines(block.text.rstrip("\n"), (block.file, block.line))
        elif isinstance(block, Cell):
            found.add_lines(CELL_STANDIN, None)
            texts = {key: block.options[key] for key in ("fig-cap", "fig-alt") if isinstance(block.options.get(key), str)}
            if texts:
                options = _option_text(block)
                lines = key_lines(options, first_line=block.line + 1)
                for key, text in texts.items():
                    found.strings.append(Named(text, block.file, lines.get((key,), block.line), f"'{key}'"))
    return found


def _option_text(cell: Cell) -> str:
    """A cell's `#|` lines as YAML (for the line of each option)."""
    try:
        lines = Path(cell.file).read_text(encoding="utf-8").split("\n")[cell.line:]
    except (OSError, UnicodeDecodeError):
        return ""
    options = []
    for line in lines:
        if not line.startswith("#|"):
            break
        options.append(line[3:] if line[2:3] == " " else line[2:])
    return "\n".join(options)


# ---- the check, with the line of what it found ------------------------------------------------------

def _rules_digest() -> list[str]:
    """The judge's own code and program: a change to the rules judges every lecture again."""
    here = Path(__file__).parent
    return [*(inputs.file(here / name) for name in ("markup.py", "events.py")), inputs.executable(Path(pandoc_binary()))]


def _cached_judge(source: LectureMarkdown, cache: Path | None) -> Verdict:
    """`judge`, remembered for a lecture whose markdown passed (`_build/markup/<lecture>.json`): a
    render that changed no prose runs no pandoc here. Only a passing verdict is kept; the files it
    names are checked at every read."""
    strings = [s.text for s in source.strings]
    key = inputs.data(json.dumps([_rules_digest(), strings, source.body]).encode())
    if cache is not None:
        try:
            kept = json.loads(cache.read_text(encoding="utf-8"))
            if kept["key"] == key:
                return Verdict([], [(str(t), None if i is None else int(i)) for t, i in kept["files"]])
        except (OSError, ValueError, KeyError, TypeError):
            pass  # none yet, or damaged: judged again
    verdict = judge(strings, source.body)
    if cache is not None and not verdict.findings:
        from lecturekit.fsutil import write_atomic
        try:
            write_atomic(cache, json.dumps({"key": key, "files": verdict.files}).encode())
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness
    return verdict


def check_lecture(lecture: Lecture, project_root: Path, config: dict[str, Any] | None = None,
                  config_path: Path | None = None, config_lines: dict[tuple[str, ...], int] | None = None) -> None:
    """A LectureError at the file:line of the first thing in the lecture's markdown that the products
    must not get, or of a file it names outside the project."""
    source = lecture_markdown(lecture, config, config_path, config_lines)
    build = project_root / "_build"
    cache = build / "markup" / f"{lecture.root.name}.json" if (project_root / "_quarto.yml").exists() else None
    verdict = _cached_judge(source, cache)
    if verdict.findings:
        finding = verdict.findings[0]
        file, line, where = _locate(source, finding, lambda v: bool(v.findings))
        raise LectureError(finding.message.replace("{where}", where), file, line)
    folders = _source_folders(lecture)
    for target, string in verdict.files:
        problem = check_file(target, folders, project_root)
        if problem:
            file, line, where = _locate(source, Finding(problem, (target[:20],), string),
                                        lambda v, t=target: any(f == t for f, _ in v.files))
            raise LectureError(problem.replace("{where}", where), file, line)


def _source_folders(lecture: Lecture) -> list[Path]:
    folders = {Path(lecture.index).parent}
    folders.update(Path(getattr(block, "file")).parent for block in lecture.blocks)
    return sorted(folders)


def check_file(target: str, folders: list[Path], project_root: Path) -> str | None:
    """Why a file the markdown names may not be used, or None. It is named relative to the source that
    names it (any of `folders`: the check holds for each), and it and, for a name without suffix, the
    files the formats pick (`.svg`, `.pdf` …) resolve, links followed, inside the project."""
    name = unquote(urlsplit(target).path if url_scheme(target) == "file" else target.split("#")[0].split("?")[0])
    if url_scheme(target) == "file" or Path(name).is_absolute():
        return (f"image {target} is named by an absolute path; name it relative to this file (the project must "
                "render wherever it lies)")
    root = project_root.resolve()
    for folder in folders:
        candidate = folder / name
        found = [candidate]
        if candidate.parent.is_dir():
            found += candidate.parent.glob(glob.escape(candidate.name) + ".*")
        for path in found:
            if not path.resolve().is_relative_to(root):
                return f"image {target} is outside the project ({root}); a lecture may only use files inside it"
    return None


def _locate(source: LectureMarkdown, finding: Finding, holds: Any) -> tuple[Path | None, int | None, str]:
    """(file, line, where) of a finding: a string's own line, or in the body the first line at which
    pandoc's reading of the body so far holds it (`holds(verdict)`), moved up to the line of its
    paragraph that shows it (the text of a heading above its underline, the start of a split tag)."""
    if finding.string is not None:
        named = source.strings[finding.string]
        return named.file, named.line, named.where
    lines = source.lines
    low, high = 1, len(lines)
    if not holds(judge([], "\n".join(lines[:high]))):
        return _origin(source, high - 1) + ("prose",)
    while low < high:  # the first prefix of the body that holds it
        middle = (low + high) // 2
        if holds(judge([], "\n".join(lines[:middle]))):
            high = middle
        else:
            low = middle + 1
    end = high - 1
    for needle in finding.needles:
        for index in range(end, -1, -1):  # up through its paragraph, to the line that shows it
            if needle and needle in lines[index]:
                return _origin(source, index) + ("prose",)
            if not lines[index].strip() or source.origins[index] is None:
                break
    return _origin(source, end) + ("prose",)


def _origin(source: LectureMarkdown, index: int) -> tuple[Path | None, int | None]:
    for i in range(index, -1, -1):
        origin = source.origins[i]
        if origin is not None:
            return origin
    return None, None

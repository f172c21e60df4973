"""The lecture pages' course-level parts. The page itself is a format (write/formats.py's `HTML`,
written by pandoc or Quarto with `_extensions/lecture/formats/html.lua`); what it takes from the rest
of the course is here:

- **Links** (`_build/<lecture>/_metadata.yml`): the course page, the episode's other products and the
  episodes before and after it in the course page's order. Written before a lecture is planned (it
  is an input of the lecture's products: a new neighbour rewrites the page); Quarto reads it as the
  folder's metadata, scripts/render passes it to pandoc (`--metadata-file`).
- **Assets** (`_output/assets/`): the stylesheet, the script, the course fonts, KaTeX's stylesheet
  and fonts, the search library and index; every page links them (one copy for the course).
- **Search**: the sections of every lecture page and the course page's entries, indexed with
  MiniSearch (npm) in node when the course page is written; a page loads the index when a reader
  first searches.
"""
from __future__ import annotations

import html.parser
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from lecturekit import inputs
from lecturekit.errors import LectureError
from lecturekit.fsutil import write_if_changed
from lecturekit.project import check_lecture_name
from lecturekit.read import frontmatter, qmd
from lecturekit.read.frontmatter import Meta
from lecturekit.words import WORDS, bn_digits
from lecturekit.write.formats import FORMATS, HTML

if TYPE_CHECKING:
    from lecturekit.project import Project

LINKS_FILE = "_metadata.yml"  # Quarto's name for a folder's metadata
ZIP_NAME = "code.zip"


def lecture_meta(lecture_dir: Path) -> Meta:
    """The front matter with the defaults the products use (episode from the folder's number …)."""
    index = Path(lecture_dir) / "index.qmd"
    meta, _body, _line = qmd.split_front_matter(qmd.read_source(index), index)
    return frontmatter.with_defaults(meta, lecture_dir)


def course_order(item: tuple[Path, Meta]) -> tuple[Any, Any, str]:
    """The course page's order: by module, then episode (those without either last), then folder."""
    meta = item[1]
    return (meta.get("module") if isinstance(meta.get("module"), int) else 10**6,
            meta.get("episode") if isinstance(meta.get("episode"), (int, float)) else 10**6, item[0].name)


def episode_label(meta: Meta) -> str:
    """"পর্ব ০৯", or empty when the lecture has no episode number."""
    episode = meta.get("episode")
    if episode is None:
        return ""
    return f"{WORDS['episode']} {bn_digits(f'{episode:02d}' if isinstance(episode, int) else episode)}"


# ---- links ------------------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|~^$&:\"'@=%])")


def _text(value: object) -> str:
    """A value as text: pandoc reads metadata as markdown, and a title is shown as written."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(value))


def links_path(project_root: Path, name: str) -> Path:
    return Path(project_root) / "_build" / name / LINKS_FILE


def page_links(lectures: list[tuple[Path, Meta]], folder: Path, has_code: bool) -> dict[str, Any]:
    """What the page of `folder` links to besides itself; `lectures`: every readable lecture."""
    ordered = [item[0].name for item in sorted(lectures, key=course_order)]
    metas = {item[0].name: item[1] for item in lectures}
    links: dict[str, Any] = {}
    products = [{"href": fmt.product, "label": _text(fmt.link_label)} for fmt in FORMATS.values() if fmt is not HTML]
    if has_code:
        products.append({"href": ZIP_NAME, "label": _text(WORDS["code-zip"])})
    links["products"] = products
    at = ordered.index(folder.name) if folder.name in ordered else -1
    for key, step in (("previous", -1), ("next", 1)):
        other = at + step
        if at >= 0 and 0 <= other < len(ordered):
            name = ordered[other]
            meta = metas[name]
            links[key] = {"href": _text(f"../{name}/{HTML.product}"),
                          "label": _text(episode_label(meta) or name),
                          "title": _text(meta.get("title") or name)}
    return {"page-links": links}


def write_page_links(project: Project, lecture_dirs: list[Path], has_code: Callable[[Path, Meta], bool],
                     known: dict[str, Meta] | None = None) -> None:
    """`_build/<lecture>/_metadata.yml` for each of `lecture_dirs`, from every lecture of the project
    (only when its bytes change); `has_code(folder, meta)`: whether the lecture has a code zip;
    `known`: the front matters the caller has read already (the others are read here). A lecture
    whose name or front matter cannot be read gets none and is no one's neighbour: its own render
    reports it."""
    readable: list[tuple[Path, Meta]] = []
    for folder in project.lectures():
        try:
            check_lecture_name(folder)
            meta = (known or {}).get(folder.name)
            readable.append((folder, frontmatter.with_defaults(meta, folder) if meta is not None else lecture_meta(folder)))
        except (LectureError, OSError):
            continue
    names = {folder.name for folder, _meta in readable}
    for folder in lecture_dirs:
        if folder.name not in names:
            continue
        meta = next(meta for other, meta in readable if other.name == folder.name)
        data = page_links(readable, folder, has_code(folder, meta))
        text = ("# The page's links to the rest of the course (scripts/lecturekit/course/site/pages.py writes\n"
                "# this before each render; Quarto reads it as this folder's metadata).\n"
                + yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
        write_if_changed(links_path(project.root, folder.name), text.encode("utf-8"))


# ---- assets -------------------------------------------------------------------------------------------

ASSETS = "assets"  # _output/assets/: one copy for every page of the course
PAGE_FILES = ("page.css", "page.js", "search.js")
# The course fonts (node_modules), as page.css names them in assets/fonts/.
FONTS = (
    "@fontsource-variable/noto-sans-bengali/files/noto-sans-bengali-bengali-wght-normal.woff2",
    "@fontsource-variable/noto-sans-bengali/files/noto-sans-bengali-latin-wght-normal.woff2",
    "@fontsource/noto-sans-mono/files/noto-sans-mono-latin-400-normal.woff2",
)
SEARCH_LIBRARY = "minisearch/dist/umd/index.js"
# KaTeX's stylesheet names each font three times (woff2, woff, ttf); every browser that shows the
# page reads woff2. Its text shows at once in a fallback font while a font loads (font-display).
_KATEX_FONT_FORMATS = re.compile(r'(url\(fonts/[^)]+\.woff2\) format\("woff2"\))(?:,url\([^)]+\) format\("[^"]+"\))+')


def assets_dir(project: Project) -> Path:
    return project.output_dir / ASSETS


def write_assets(project: Project) -> list[Path]:
    """Copy what every page links into `_output/assets/`, each file only when its bytes change;
    returns the files written."""
    target = assets_dir(project)
    page = project.extension_dir / "page"
    modules = project.root / "node_modules"
    files: dict[Path, bytes] = {target / name: (page / name).read_bytes() for name in PAGE_FILES}
    missing = [name for name in (*FONTS, SEARCH_LIBRARY, "katex/dist/katex.min.css") if not (modules / name).exists()]
    if missing:
        raise LectureError(f"the pages need {', '.join(missing)} from package-lock.json: run scripts/setup")
    for name in FONTS:
        files[target / "fonts" / Path(name).name] = (modules / name).read_bytes()
    files[target / "minisearch.js"] = (modules / SEARCH_LIBRARY).read_bytes()
    katex = modules / "katex" / "dist"
    css = _KATEX_FONT_FORMATS.sub(r"\1", (katex / "katex.min.css").read_text(encoding="utf-8"))
    css = css.replace("@font-face{", "@font-face{font-display:swap;")
    files[target / "katex" / "katex.min.css"] = css.encode("utf-8")
    for font in sorted((katex / "fonts").glob("*.woff2")):
        files[target / "katex" / "fonts" / font.name] = font.read_bytes()
    return [path for path, data in files.items() if write_if_changed(path, data)]


# ---- search ----------------------------------------------------------------------------------------------

SEARCH_INDEX = "search-index.js"
DOCUMENTS_FORMAT = 3  # bump when what page_documents reads changes: kept documents are read again
_SKIPPED = {"script", "style", "nav", "button", "details"}  # not the text, or the answers (folded)
_HEADER = {("h1", "title"): "title", ("span", "subtitle"): "subtitle", ("p", "title-en"): "title-en"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Sections(html.parser.HTMLParser):
    """A page's sections (`<section id>` as pandoc writes them), each with its heading and its own
    text (not its sub-sections'), outside navigation, scripts, the print-only answers and the
    typeset formulas' MathML (the formula's text is read once, from its TeX annotation)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[dict[str, Any]] = []
        self.stack: list[tuple[str, bool, dict[str, Any] | None, str | None]] = []  # (tag, skipped, section, header)
        self.heading: dict[str, Any] | None = None
        # The page's titles as the reader sees them (the front matter's are markdown).
        self.shown: dict[str, list[str]] = {"title": [], "subtitle": [], "title-en": []}

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def _section(self) -> dict[str, Any] | None:
        return next((s for _tag, _skip, s, _h in reversed(self.stack) if s is not None), None)

    def _header(self) -> str | None:
        return next((h for _tag, _skip, _s, h in reversed(self.stack) if h is not None), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        skipped = self._skipping() or tag in _SKIPPED or "print-only" in classes or "katex-html" in classes
        section: dict[str, Any] | None = None
        if tag == "section" and found.get("id") and not skipped:
            parent = self._section()
            section = {"id": found["id"], "title": "", "text": [], "part": parent["title"] if parent else ""}
            self.sections.append(section)
        around = self._section()
        if tag in ("h2", "h3", "h4") and not skipped and around is not None and not around["title"]:
            self.heading = around
        header = _HEADER.get((tag, next((c for c in classes if (tag, c) in _HEADER), "")))
        self.stack.append((tag, skipped, section, header))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            top = self.stack.pop()[0]
            if top in ("h2", "h3", "h4"):
                self.heading = None
            if top == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._skipping() or not data.strip():
            return
        if (header := self._header()) is not None:
            self.shown[header].append(data)
        elif self.heading is not None:
            self.heading["title"] += data
        elif (section := self._section()) is not None:
            section["text"].append(data)


def page_documents(page: Path, lecture: str, meta: Meta) -> list[dict[str, str]]:
    """The search documents of one lecture page: the lecture, and each of its sections."""
    parser = _Sections()
    parser.feed(page.read_text(encoding="utf-8"))
    href = f"{lecture}/{HTML.product}"
    episode = episode_label(meta)
    shown = {key: re.sub(r"\s+", " ", "".join(parts)).strip() or str(meta.get(key) or "")
             for key, parts in parser.shown.items()}
    title = shown["title"] or lecture
    documents = [{"id": href, "title": title, "where": " · ".join(x for x in (episode, shown["title-en"]) if x),
                  "text": " ".join(x for x in (shown["subtitle"], shown["title-en"]) if x)}]
    for section in parser.sections:
        text = re.sub(r"\s+", " ", " ".join(section["text"])).strip()
        heading = re.sub(r"\s+", " ", section["title"]).strip()
        if not heading:
            continue
        part = re.sub(r"\s+", " ", section["part"]).strip()
        documents.append({"id": f"{href}#{section['id']}", "title": heading,
                          "where": " · ".join(x for x in (episode, part if part != heading else "", title) if x),
                          "text": text})
    return documents


def _cached_documents(project: Project, page: Path, lecture: str, meta: Meta) -> list[dict[str, str]]:
    """A page's search documents, read again only when the page (its bytes) or its front matter
    changed: a course of 91 pages is not parsed on every render."""
    stamp = [DOCUMENTS_FORMAT, inputs.file(page), json.dumps(meta, sort_keys=True, default=str)]
    cache = project.build_dir / lecture / "search-documents.json"
    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
        if kept["stamp"] == stamp:
            return list(kept["documents"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none yet, or damaged: read the page again
    documents = page_documents(page, lecture, meta)
    write_if_changed(cache, json.dumps({"stamp": stamp, "documents": documents}, ensure_ascii=False).encode("utf-8"))
    return documents


def build_search(project: Project, lectures: list[tuple[Path, Meta]]) -> Path | None:
    """`_output/assets/search-index.js` from every lecture page of the course (MiniSearch, in node);
    rebuilt only when the documents change. None when no page is made yet."""
    documents = []
    for folder, meta in sorted(lectures, key=course_order):
        page = project.output_dir / folder.name / HTML.product
        if page.exists():
            documents += _cached_documents(project, page, folder.name, meta)
    target = assets_dir(project) / SEARCH_INDEX
    if not documents:
        return None
    data = json.dumps(documents, ensure_ascii=False, sort_keys=True).encode("utf-8")
    stamp = project.build_dir / "search-documents.json"
    try:
        if target.exists() and stamp.read_bytes() == data:
            return target
    except OSError:
        pass
    script = project.extension_dir / "page" / "build-search.cjs"
    run = subprocess.run(["node", str(script)], input=data, capture_output=True, timeout=300)
    if run.returncode != 0:
        raise LectureError(f"the search index could not be built (node {script.name}): "
                           f"{run.stderr.decode('utf-8', 'replace').strip()}")
    write_if_changed(target, run.stdout)
    write_if_changed(stamp, data)
    return target

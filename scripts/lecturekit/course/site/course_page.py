"""The course page (`_output/index.html`, the one page students open), written with every lecture's
code zip (code_zip.py), the lecture pages' links and the search across them (pages.py).
"""
from __future__ import annotations

import dataclasses
import functools
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from lecturekit.course.site import pages
from lecturekit.course.site.code_zip import ZIP_NAME, has_code_zip, write_code_zip
from lecturekit.errors import LectureError
from lecturekit.read import frontmatter
from lecturekit.read.frontmatter import Meta
from lecturekit.write.formats import FORMATS
from lecturekit.fsutil import write_if_changed
from lecturekit.words import EPISODES_MADE, OF_TOTAL, PAGE_WORDS, WORDS, bn_digits

if TYPE_CHECKING:
    from lecturekit.project import Project

lecture_meta = pages.lecture_meta


def write_page_links(project: Project, lecture_dirs: list[Path], known: dict[str, Meta] | None = None) -> None:
    """What each lecture's page links to besides itself (course/site/pages.py), its code zip included
    when the lecture has scripts; `known`: front matters already read, by folder name."""
    pages.write_page_links(project, lecture_dirs,
                           lambda folder, meta: has_code_zip(project, folder, meta), known)


TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class Link:
    """One product of a lecture on the course page; no `href` while it is not made yet."""
    label: str
    href: str | None


@dataclass(frozen=True)
class Entry:
    """One lecture's line on the course page."""
    name: str  # the folder name, also the line's id
    episode: str  # "পর্ব ০৯", or empty
    title: str
    title_en: str | None
    links: list[Link]
    error: str | None = None  # why the lecture failed to build, when it did
    unwritten_before: str | None = None  # "পর্ব ১১–১৩": episodes between the previous lecture and this one


@dataclass(frozen=True)
class Module:
    heading: str
    lectures: list[Entry]


def lecture_entry(project: Project, lecture_dir: Path, meta: Meta, error: str | None = None) -> Entry:
    """What the page shows of a lecture: each format's product (linked once it exists, marked as
    not made yet until then), its code zip when it has one, and its error when it failed."""
    name = Path(lecture_dir).name
    out = project.output_dir / name

    def href(product: str) -> str:
        return urllib.parse.quote(f"{name}/{product}")

    links = [Link(fmt.link_label, href(fmt.product) if (out / fmt.product).exists() else None)
             for fmt in FORMATS.values()]
    if (out / ZIP_NAME).exists():
        links.append(Link(WORDS["code-zip"], href(ZIP_NAME)))
    sub = meta.get("title-en")
    return Entry(name=name, episode=pages.episode_label(meta), title=str(meta.get("title") or name),
                 title_en=str(sub) if sub else None, links=links, error=error)


def unwritten(first: int, last: int) -> str:
    """The episodes the course has not written yet, as the page names them: "পর্ব ১১–১৩"."""
    span = bn_digits(f"{first:02d}") if first == last else f"{bn_digits(f'{first:02d}')}–{bn_digits(f'{last:02d}')}"
    return f"{WORDS['episode']} {span}"


def modules(project: Project, lectures: list[tuple[Path, Meta]], errors: dict[str, str] | None = None) -> list[Module]:
    """The lectures grouped by module, in episode order (those without a module last)."""
    groups: dict[Any, list[Entry]] = {}
    previous: int | None = None
    for lecture_dir, meta in sorted(lectures, key=pages.course_order):
        entry = lecture_entry(project, lecture_dir, meta, (errors or {}).get(lecture_dir.name))
        episode = meta.get("episode")
        episode = episode if isinstance(episode, int) and not isinstance(episode, bool) else None
        if previous is not None and episode is not None and episode > previous + 1:
            entry = dataclasses.replace(entry, unwritten_before=unwritten(previous + 1, episode - 1))
        previous = episode if episode is not None else previous
        groups.setdefault(meta.get("module"), []).append(entry)
    return [Module(f"{WORDS['module']} {bn_digits(module)}" if module is not None else WORDS["other-episodes"], entries)
            for module, entries in groups.items()]


@functools.cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def index_html(project: Project, lectures: list[tuple[Path, Meta]], errors: dict[str, str] | None = None) -> str:
    """The page (templates/course.html.j2). `lectures`: [(folder, meta)]; `errors`: {folder name:
    why it failed}."""
    course = next((str(m["course"]) for _d, m in lectures if m.get("course")), frontmatter.COURSE)
    total = next((m["episodes"] for _d, m in lectures if m.get("episodes")), None)
    made = sum(folder.name not in (errors or {}) for folder, _m in lectures)  # a failed one is not made
    count = EPISODES_MADE.format(made=bn_digits(made)) + (OF_TOTAL.format(total=bn_digits(total)) if total else "")
    return _templates().get_template("course.html.j2").render(
        course=course, count=count, modules=modules(project, lectures, errors), words=PAGE_WORDS,
        assets=pages.ASSETS)


def _inside(project: Project, message: str) -> str:
    """An error as the page shows it: files named inside the project, not where it lies."""
    return message.replace(str(project.root.resolve()) + "/", "").replace(str(project.root) + "/", "")


def build_site(project: Project, lecture_dirs: list[Path] | None = None,
               errors: dict[str, str] | None = None) -> tuple[Path, list[Path], dict[str, str]]:
    """Every lecture's code zip, then the index page listing every lecture of the project.

    `errors`: {folder name: message} of lectures this render failed to build. A lecture the page
    cannot read (its front matter, its code) is listed with its error too, never stopping the page.
    Returns (page, zips, {folder name: message} of the lectures the page itself could not read)."""
    from lecturekit.project import check_lecture_name
    errors = dict(errors or {})
    unreadable: dict[str, str] = {}
    lectures: list[tuple[Path, Meta]] = []
    zips: list[Path | None] = []
    for folder in lecture_dirs or project.lectures():
        try:
            check_lecture_name(folder)
            meta = lecture_meta(folder)
            zips.append(write_code_zip(project, folder, meta))
        except (LectureError, OSError) as err:
            unreadable[folder.name] = str(err)
            meta = frontmatter.with_defaults({}, folder)
        lectures.append((folder, meta))
    shown = {name: _inside(project, message.split("\n")[0]) for name, message in {**errors, **unreadable}.items()}
    page = project.output_dir / "index.html"
    write_if_changed(page, index_html(project, lectures, shown).encode("utf-8"))
    # What the course page and the lecture pages share, and the search across them.
    pages.write_assets(project)
    pages.build_search(project, [(folder, meta) for folder, meta in lectures if folder.name not in unreadable])
    return page, [z for z in zips if z], unreadable

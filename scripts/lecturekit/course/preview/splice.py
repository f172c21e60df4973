"""The preview's fast path: a save that changes one section file rewrites only that section's slides.

A lecture's markdown is a run of sections, one per section file (`_NN-*.qmd`, each included by
index.qmd). After a full build, pandoc reads the deck's markdown once more, split at the section
boundaries, into one syntax tree per section (`Sections.read`, when the server is idle). When a save
changes the markdown of one section only, pandoc reads that section alone and writes its slides with
the lecture filters, from a document that holds, around it, the blocks of the other sections that
the filters number (parts, figures, quizzes, exercises, discussions): figure, quiz, part and
question numbers, and `@fig-` references to any figure, come out as in a full render. Those slides
replace theirs, found by id, in the served deck.

It declines (the caller then writes the whole deck) whenever the result could differ from a full
render: more than one section changed (a code edit changes outputs everywhere), the front matter
changed, the edit adds, removes or moves something numbered, a slide or a part, a section does not
start with a slide's heading, an id of the section is used elsewhere too, or the lecture has
footnotes or reference-style links (whose numbers and targets are document-wide).
"""
from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lecturekit.pandoc import PandocError, run_pandoc
from lecturekit.write.emit import join_parts
from lecturekit.write.formats import REVEALJS

if TYPE_CHECKING:
    from lecturekit.write.writers import LectureWriter

# The raw block that marks a section boundary in the split read.
BOUNDARY_FORMAT = "lecture-section"
# Divs the lecture filters number (quiz.lua, answers.lua), and those that decide whether a block is
# in the slides at all (visibility.lua): an edit that moves one of them is a numbering change.
COUNTED_DIVS = {"quiz", "exercise", "discussion"}
VISIBILITY_DIVS = {"content-visible", "content-hidden"}
# A reference-style link or footnote definition: its target is the whole document's.
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)
SECTION_TAG = re.compile(r"<section\b[^>]*>|</section>")
ID_ATTR = re.compile(r'\sid="([^"]*)"')
# After the edited section's blocks, the figures of later sections follow (for `@fig-` references
# to them) behind a slide heading of their own, so none of them lands on the section's last slide.
AFTER = {"t": "Header", "c": [2, ["lecture-preview-after", [], []], []]}


@dataclass(frozen=True)
class Section:
    """A stretch of the lecture's markdown from one source file (None: the front matter)."""
    file: str | None
    markdown: str


def sections_of(writer: LectureWriter) -> list[Section]:
    """The slides' markdown, cut where the source file changes (the full deck's markdown is these
    joined with a blank line)."""
    runs: list[tuple[str | None, list[str]]] = []
    for cell, text in writer.emitter(REVEALJS).parts(writer.execution.notebook):
        file = cell.metadata.get("lecture", {}).get("file")
        if not text.strip():
            continue
        if runs and runs[-1][0] == file:
            runs[-1][1].append(text)
        else:
            runs.append((file, [text]))
    return [Section(file, join_parts(texts)) for file, texts in runs]


def nodes(value: Any) -> Iterator[dict[str, Any]]:
    """Every element of a pandoc JSON tree, depth first, in document order."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            if "t" in item:
                yield item
                content = item.get("c")
                if isinstance(content, list):
                    stack.append(content)


Attr = tuple[str, list[str], list[list[str]]]  # pandoc's (id, classes, key-value pairs)


def _attr(node: dict[str, Any]) -> Attr | None:
    kind, content = node["t"], node.get("c")
    if not isinstance(content, list):
        return None
    found: Attr | None = None
    if kind in ("Div", "Figure", "CodeBlock", "Table", "Span", "Code", "Image", "Link"):
        found = content[0]
    elif kind == "Header":
        found = content[1]
    return found


def numbered(blocks: list[Any]) -> list[tuple[Any, ...]]:
    """What the filters and the slide structure count in these blocks, in order: headings (parts
    and slides), figures, numbered and hiding divs, footnotes, slide breaks."""
    found: list[tuple[Any, ...]] = []
    for node in nodes(blocks):
        kind = node["t"]
        if kind == "Header":
            level, (ident, classes, _kv), _inlines = node["c"]
            found.append(("heading", level, ident, "unnumbered" in classes))
        elif kind == "Figure":
            found.append(("figure", node["c"][0][0]))
        elif kind == "Div":
            ident, classes, pairs = node["c"][0]
            if COUNTED_DIVS & set(classes):
                found.append(("div", ident, tuple(sorted(COUNTED_DIVS & set(classes)))))
            if VISIBILITY_DIVS & set(classes):
                found.append(("visibility", ident, tuple(classes), tuple(map(tuple, pairs))))
        elif kind in ("Note", "HorizontalRule"):
            found.append((kind,))
    return found


def counted(block: Any) -> bool:
    """Whether a block holds something the filters number (a part, a figure, a quiz, a question)."""
    for node in nodes(block):
        kind = node["t"]
        if kind == "Header" and node["c"][0] == 1:
            return True
        if kind == "Figure" and node["c"][0][0].startswith("fig-"):
            return True
        if kind == "Div" and COUNTED_DIVS & set(node["c"][0][1]):
            return True
    return False


def has_figure(block: Any) -> bool:
    return any(n["t"] == "Figure" and n["c"][0][0].startswith("fig-") for n in nodes(block))


def ids(blocks: list[Any]) -> list[str]:
    return [attr[0] for node in nodes(blocks) if (attr := _attr(node)) and attr[0]]


def slide_ids(blocks: list[Any], slide_level: int) -> list[str]:
    """The ids of the slide headings, also those inside a div the filters unwrap (`.content-visible`)."""
    return [n["c"][1][0] for n in nodes(blocks) if n["t"] == "Header" and n["c"][0] <= slide_level]


def _shown_on_slides(div: dict[str, Any]) -> bool:
    """A `.content-visible when-format="revealjs"` div, which visibility.lua unwraps on slides."""
    _ident, classes, pairs = div["c"][0]
    attributes = dict(pairs)
    return classes == ["content-visible"] and "unless-format" not in attributes and \
        bool({"revealjs", "html"} & set(attributes.get("when-format", "").replace(",", " ").split()))


def starts_a_slide(blocks: list[Any], slide_level: int) -> bool:
    """Whether the first block is a slide's heading (or a div that shows one first): nothing of
    these blocks is written onto the slide before them."""
    first = blocks[0] if blocks else None
    while first is not None and first.get("t") == "Div" and _shown_on_slides(first):
        first = first["c"][1][0] if first["c"][1] else None
    return first is not None and first.get("t") == "Header" and first["c"][0] <= slide_level \
        and bool(first["c"][1][0])


def slide_spans(page: str) -> dict[str, tuple[int, int]]:
    """Where each `<section id=…>` element of a deck starts and ends."""
    spans: dict[str, tuple[int, int]] = {}
    stack: list[tuple[int, str | None]] = []
    for tag in SECTION_TAG.finditer(page):
        if tag.group().startswith("</"):
            start, ident = stack.pop()
            if ident:
                spans[ident] = (start, tag.end())
        else:
            found = ID_ATTR.search(tag.group())
            stack.append((tag.start(), html.unescape(found[1]) if found else None))
    return spans


def slides_of(page: str) -> list[str]:
    """A deck's slides in order, each as written: every `<section>` that holds no other."""
    slides: list[tuple[int, str]] = []
    stack: list[tuple[int, bool]] = []  # (where an open section starts, whether it holds another)
    for tag in SECTION_TAG.finditer(page):
        if tag.group().startswith("</"):
            start, nested = stack.pop()
            if not nested:
                slides.append((start, page[start:tag.end()]))
            if stack:
                stack[-1] = (stack[-1][0], True)
        else:
            stack.append((tag.start(), False))
    return [text for _start, text in sorted(slides)]


def pandoc(args: list[str], data: str, cwd: Any) -> str:
    try:
        return run_pandoc(args, stdin=data, cwd=cwd).stdout
    except PandocError as err:
        raise SplitError(err.stderr.strip() or err.message) from None


class SplitError(Exception):
    """pandoc refused the section alone (the full build then says where, as it always does)."""


def body_args(writer: LectureWriter) -> list[str]:
    """The deck's pandoc arguments for its slides alone: JSON in, no page around them (the page's
    head, includes and title slide are the full build's, and stay as they are)."""
    args, skip = [], False
    for arg in writer.pandoc_args(REVEALJS):
        if skip:
            skip = False
        elif arg in ("--include-in-header", "--include-after-body", "--include-before-body", "--css"):
            skip = True
        elif arg == "--standalone" or arg.startswith(("--include-", "--css=", "--template")):
            continue
        elif arg.startswith("--from="):
            args.append("--from=json")
        else:
            args.append(arg)
    return args


def slide_level(writer: LectureWriter) -> int | None:
    args = writer.pandoc_args(REVEALJS)
    for i, arg in enumerate(args):
        if arg == "--slide-level" and i + 1 < len(args):
            return int(args[i + 1])
        if arg.startswith("--slide-level="):
            return int(arg.split("=", 1)[1])
    return None  # pandoc then picks it from the whole document: no section alone can say


@dataclass
class Tree:
    """One section's syntax tree, with what a splice asks of it."""
    blocks: list[Any]
    numbered: list[tuple[Any, ...]]
    ids: set[str]
    counted: list[Any]

    @classmethod
    def of(cls, blocks: list[Any]) -> "Tree":
        return cls(blocks, numbered(blocks), set(ids(blocks)), [b for b in blocks if counted(b)])


class Sections:
    """The served deck's sections, their markdown and syntax trees, and the splice of one of them."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.trees: list[Tree] | None = None
        self.meta: dict[str, Any] = {}
        self.api: list[int] = []
        self.args: list[str] = []
        self.spliced: list[str] = []  # the ids of the slides the last splice rewrote

    def written_whole(self, sections: list[Section], args: list[str]) -> None:
        """The deck was written by a full build from these sections, with these pandoc arguments;
        their trees are read later."""
        self.sections, self.trees, self.args = sections, None, args

    def read(self, writer: LectureWriter) -> None:
        """Read every section in one pandoc run, split at raw-block marks between sections."""
        marks = [f"```{{={BOUNDARY_FORMAT}}}\n{n}\n```\n" for n in range(len(self.sections))]
        text = "\n".join(section.markdown + "\n" + mark for section, mark in zip(self.sections, marks))
        doc = json.loads(pandoc(["--from=markdown", "--to=json"], text, writer.build))
        trees: list[list[Any]] = [[]]
        for block in doc["blocks"]:
            if block.get("t") == "RawBlock" and block["c"][0] == BOUNDARY_FORMAT:
                trees.append([])
            else:
                trees[-1].append(block)
        if len(trees) - 1 != len(self.sections) or trees[-1]:
            return  # a mark was swallowed (an unclosed block): no fast path for this deck
        self.trees, self.meta, self.api = [Tree.of(t) for t in trees[:-1]], doc["meta"], doc["pandoc-api-version"]

    def splice(self, writer: LectureWriter, sections: list[Section], deck: Any) -> tuple[str | None, str]:
        """Write the changed section's slides into the deck; return (None, section file) when done,
        or (why not, "") when the caller must write the whole deck."""
        if self.trees is None:
            return "no earlier deck read", ""
        if writer.pandoc_args(REVEALJS) != self.args:
            return "the settings changed", ""
        if [s.file for s in sections] != [s.file for s in self.sections]:
            return "the sections changed", ""
        changed = [i for i, (new, old) in enumerate(zip(sections, self.sections)) if new.markdown != old.markdown]
        if not changed:
            return "no slide's markdown changed (the filters, theme or a setting may have)", ""
        if len(changed) > 1:
            return f"{len(changed)} sections changed", ""
        k = changed[0]
        section = sections[k]
        if section.file is None:
            return "the front matter changed", ""
        level = slide_level(writer)
        if level is None:
            return "no slide-level", ""
        if any(REFERENCE_DEFINITION.search(s.markdown) for s in sections):
            return "reference-style links or footnotes", ""
        try:
            doc = json.loads(pandoc(["--from=markdown", "--to=json"], section.markdown, writer.build))
        except SplitError as err:
            return f"pandoc: {err}", ""
        tree = Tree.of(doc["blocks"])
        if tree.numbered != self.trees[k].numbered:
            return "a numbered thing, slide or part changed", ""
        if ("Note",) in tree.numbered:
            return "footnotes", ""
        if not starts_a_slide(tree.blocks, level) or \
                (k + 1 < len(self.trees) and not starts_a_slide(self.trees[k + 1].blocks, level)):
            return "a section that does not start with a slide", ""
        headings = slide_ids(tree.blocks, level)
        if len(set(headings)) != len(headings) or any(tree.ids & t.ids for i, t in enumerate(self.trees) if i != k):
            return "an id used twice", ""
        before = [b for t in self.trees[:k] for b in t.counted]
        # Later sections matter only for `@fig-` references to their figures.
        after = [b for t in self.trees[k + 1:] for b in t.counted if has_figure(b)]
        blocks = before + tree.blocks + ([AFTER, *after] if after else [])
        fragment = {"pandoc-api-version": self.api, "meta": self.meta, "blocks": blocks}
        try:
            written = pandoc(body_args(writer), json.dumps(fragment, ensure_ascii=False), writer.build)
        except SplitError as err:
            return f"pandoc: {err}", ""
        page = deck.read_text(encoding="utf-8")
        new, old = slide_spans(written), slide_spans(page)
        # A heading the filters drop (a handout-only part) is on no slide, in both decks alike.
        wanted = [ident for ident in headings if ident in new or ident in old]
        if any(ident not in new or ident not in old for ident in wanted):
            return "a slide not found in the deck", ""
        for ident in sorted(wanted, key=lambda i: old[i][0], reverse=True):
            start, end = old[ident]
            page = page[:start] + written[new[ident][0]:new[ident][1]] + page[end:]
        self.trees[k] = tree
        self.sections = sections
        self.spliced = wanted
        tmp = deck.with_name(f".{deck.name}.tmp")
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(deck)
        return None, section.file


def full_deck(writer: LectureWriter) -> str:
    """The deck as a full build writes it (pandoc on the whole markdown), returned, not written."""
    source = writer.markdown(REVEALJS)
    return pandoc([str(source), *writer.pandoc_args(REVEALJS)], "", writer.build)

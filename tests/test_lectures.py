"""Every lecture as a whole: each section reaches both products, each slide heading is a handout
heading (handout-only pages stay out of the deck), every cell ran as declared. Runs over every
lecture found under lectures/; a lecture's own facts are data, tests/facts/<lecture>.yaml (test_facts.py)."""
import re

import nbformat
import pytest

from helpers import LECTURES, every_lecture, pdf_text

HEADING = re.compile(r"^# (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)
SLIDE = re.compile(r"^## (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)
SECTIONS = [(lecture, path) for lecture in LECTURES for path in lecture.sources if HEADING.search(path.read_text(encoding="utf-8"))]


def handout_text(rendered, lecture):
    return pdf_text(lecture.product(rendered, "handout.pdf"))


def slides_html(rendered, lecture):
    return lecture.product(rendered, "slides.html").read_text(encoding="utf-8")


@every_lecture
def test_every_section_file_is_included(lecture):
    index = (lecture.folder / "index.qmd").read_text(encoding="utf-8")
    for path in lecture.folder.glob("_*.qmd"):
        assert f"{{{{< include {path.name} >}}}}" in index, path.name


@pytest.mark.parametrize("lecture, path", SECTIONS, ids=[f"{lec}/{p.stem}" for lec, p in SECTIONS])
def test_every_section_reaches_slides_and_handout(rendered, lecture, path):
    slides, handout = slides_html(rendered, lecture), handout_text(rendered, lecture)
    for match in HEADING.finditer(path.read_text(encoding="utf-8")):
        text, ident = match["text"], match["id"]
        # A divider slide for the section, followed by at least one content slide of its own.
        assert re.search(rf'<section id="{ident}" class="[^"]*title-slide', slides), ident
        divider = slides.index(f'<section id="{ident}"')
        assert '<section id="' in slides[divider + 10:]
        plain = re.sub(r"`", "", text)
        assert plain in handout.replace("\n", " "), plain


def handout_only_pages(rendered, lecture):
    """Check each `##` page of the sources: a handout heading, and a slide unless the author wrapped
    it in a typst-only div. Returns the ids of the handout-only pages."""
    flat = handout_text(rendered, lecture).replace("\n", " ")
    slides = slides_html(rendered, lecture)
    handout_only = []
    for path in lecture.sources:
        source = path.read_text(encoding="utf-8")
        for match in SLIDE.finditer(source):
            before = source[:match.start()].rstrip().splitlines()[-1]
            words = match["text"].replace("`", "").split("$")[0].split(":")[0].strip()  # math aside
            on_slides = f'<section id="{match["id"]}"' in slides
            if 'content-visible when-format="revealjs"' in before:  # a slide split for the room only
                assert on_slides, match["id"]
                continue
            assert words in flat, match["text"]
            if 'content-visible when-format="typst"' in before:
                handout_only.append(match["id"])
                assert not on_slides, match["id"]
            else:
                assert on_slides, match["id"]
    return handout_only


@every_lecture
def test_every_slide_heading_is_in_the_handout_and_handout_only_pages_stay_out_of_the_deck(rendered, lecture):
    """The deck is condensed, the handout complete."""
    handout_only_pages(rendered, lecture)


@every_lecture
def test_every_cell_executed_and_no_unexpected_error(rendered, lecture):
    nb = nbformat.read(str(lecture.notebook), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "the lecture runs code"
    for cell in code:
        meta = cell.metadata["lecture"]
        raised = any(o.get("output_type") == "error" for o in cell.outputs)
        assert raised == bool(meta["options"].get("error", False)), (meta["label"], meta["file"], meta["line"])

"""Lecture 09 as a whole: every section reaches both products, and the seed's data-independent
results come out of our executed code into the handout."""
import re

import nbformat
import pytest

from conftest import ROOT, pdf_text

LECTURE = ROOT / "lectures" / "09-nn-module"
SECTIONS = sorted(LECTURE.glob("_*.qmd"))
HEADING = re.compile(r"^# (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)


def section_heading(path):
    match = HEADING.search(path.read_text(encoding="utf-8"))
    assert match, f"{path.name} has no level-1 heading with an id"
    return match["text"], match["id"]


@pytest.fixture(scope="module")
def handout_text(rendered):
    return pdf_text(rendered / "09-nn-module" / "handout.pdf")


@pytest.fixture(scope="module")
def slides_html(rendered):
    return (rendered / "09-nn-module" / "slides.html").read_text(encoding="utf-8")


def test_every_section_file_is_included():
    index = (LECTURE / "index.qmd").read_text(encoding="utf-8")
    assert len(SECTIONS) == 13
    for path in SECTIONS:
        assert f"{{{{< include {path.name} >}}}}" in index


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.stem)
def test_section_reaches_slides_and_handout(path, handout_text, slides_html):
    text, ident = section_heading(path)
    # A divider slide for the section, followed by at least one content slide of its own.
    assert re.search(rf'<section id="{ident}" class="[^"]*title-slide', slides_html), ident
    divider = slides_html.index(f'<section id="{ident}"')
    assert '<section id="' in slides_html[divider + 10:]
    plain = re.sub(r"`", "", text)
    assert plain in handout_text.replace("\n", " "), plain


SLIDE = re.compile(r"^## (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)


def test_every_slide_heading_is_in_the_handout_and_handout_only_pages_stay_out_of_the_deck(handout_text,
                                                                                        slides_html):
    """The deck is condensed, the handout complete: each `##` page of the sources is a handout
    heading, and it is a slide unless the author wrapped it in a typst-only div."""
    flat = handout_text.replace("\n", " ")
    handout_only = []
    for path in SECTIONS:
        source = path.read_text(encoding="utf-8")
        for match in SLIDE.finditer(source):
            before = source[:match.start()].rstrip().splitlines()[-1]
            words = match["text"].replace("`", "").split("$")[0].split(":")[0].strip()  # math aside
            assert words in flat, match["text"]
            on_slides = f'<section id="{match["id"]}"' in slides_html
            if 'content-visible when-format="typst"' in before:
                handout_only.append(match["id"])
                assert not on_slides, match["id"]
            else:
                assert on_slides, match["id"]
    assert handout_only, "the lecture has handout-only pages"


def test_every_cell_executed_and_no_unexpected_error(rendered):
    nb = nbformat.read(str(ROOT / "_build" / "09-nn-module" / "09-nn-module.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) >= 60
    for cell in code:
        meta = cell.metadata["lecture"]
        raised = any(o.get("output_type") == "error" for o in cell.outputs)
        assert raised == bool(meta["options"].get("error", False)), (meta["label"], meta["file"], meta["line"])


# The seed's results that do not depend on our synthetic data, as the handout prints them
# (inline expressions in Bengali digits, outputs in western digits).
SEED_RESULTS = {
    "total parameters of DeliveryMLP": ["২০৯", "209"],
    "[784, 256, 128, 10] with bias": ["২,৩৫,১৪৬"],
    "[784, 256, 128, 10] without bias": ["২,৩৪,৭৫২"],
    "[1024, 1024]": ["১০,৪৯,৬০০"],
    "[1024, 64, 1024]": ["১,৩২,১৬০"],
    "bottleneck ratio": ["৭.৯"],
    "max |W| for seed 42": ["0.5702", "০.৫৭০২"],
    "optimizer error": ["optimizer got an empty parameter list"],
    "NumPy dropout p=0.1": ["0.099", "2.0018"],
    "NumPy dropout p=0.5": ["0.501", "1.9956"],
    "NumPy dropout without scaling": ["0.9952"],
    "exercise 1": ["৩,৫২৩"],
    "exercise 4": ["১১৫"],
    "weights_only refusal": ["UnpicklingError"],
}


@pytest.mark.parametrize("what", sorted(SEED_RESULTS))
def test_seed_results_appear_in_the_handout(what, handout_text):
    for needle in SEED_RESULTS[what]:
        assert needle in handout_text, f"{what}: {needle!r} not in the handout"

"""Lecture 09's own facts, on top of the tests every lecture gets (test_lectures.py, test_slides.py,
test_handout.py): its thirteen sections, its handout-only pages, its many cells, the title and cover
it was written with, and the seed's data-independent results coming out of our executed code into
the handout."""
import re
import subprocess

import nbformat
import pytest

from helpers import Lecture, pdf_text
from test_lectures import handout_only_pages

LECTURE = Lecture("09-nn-module")


@pytest.fixture(scope="module")
def handout_text(rendered):
    return pdf_text(LECTURE.product(rendered, "handout.pdf"))


def test_thirteen_sections():
    assert len(LECTURE.sources) == 13


def test_the_lecture_has_handout_only_pages(rendered):
    assert handout_only_pages(rendered, LECTURE)


def test_many_cells_ran(rendered):
    nb = nbformat.read(str(LECTURE.notebook), as_version=4)
    assert len([c for c in nb.cells if c.cell_type == "code"]) >= 60


def test_title_slide_and_cover(rendered):
    html = " ".join(LECTURE.product(rendered, "slides.html").read_text(encoding="utf-8").split())
    for text in ("বাংলায় PyTorch", "পর্ব ০৯ · ৯১-এর মধ্যে · মডিউল ২", "nn.Module দিয়ে model বানানো",
                 "Building Models with nn.Module"):
        assert text in html, text
    cover = subprocess.run(["pdftotext", "-raw", "-f", "1", "-l", "1", str(LECTURE.product(rendered, "handout.pdf")),
                            "-"], capture_output=True, text=True, check=True).stdout
    for part in ("বাংলায় PyTorch", "পর্ব ০৯", "৯১-এর মধ্যে", "মডিউল ২", "nn.Module দিয়ে model বানানো"):
        assert part in cover, part


def test_numbered_figure_table_and_boxes(handout_text):
    assert "ছবি ৯.১" in handout_text and "সারণি ৯.১" in handout_text
    for box in ("মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "প্রশ্ন ১"):
        assert box in handout_text, box


def test_many_outputs_in_the_handout():
    nb = nbformat.read(str(LECTURE.notebook), as_version=4)
    printed = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
               if o.get("output_type") == "stream" and o.get("name") == "stdout" and "".join(o["text"]).strip()]
    assert len(printed) > 20


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


def test_handout_has_the_executed_parameter_total(handout_text):
    import bazarghar
    total = sum(p.numel() for p in bazarghar.DeliveryMLP().parameters())
    assert total == 209
    assert re.search(rf"\b{total}\b", handout_text)


def test_the_construct_tests_find_lecture_09():
    """Lecture 09 uses every construct; the tests of each construct must run on it."""
    from test_handout import WITH_ANSWERS, WITH_FIGURES
    from test_slides import QUIZZES, STEPPERS
    for found in (STEPPERS, QUIZZES, WITH_ANSWERS, WITH_FIGURES):
        assert LECTURE in found

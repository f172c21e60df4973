"""Lecture 07's own facts, on top of the tests every lecture gets (test_lectures.py, test_slides.py,
test_handout.py): its eleven sections, its handout-only pages, the title and cover, torch's own
results coming out of the executed cells into the handout, its figures drawn by tensorfig from the
tensors themselves (and legible on a slide), its code zip, and its place before lecture 09."""
import re
import subprocess
import zipfile

import nbformat
import pytest

from helpers import ROOT, Lecture, pdf_text
from test_lectures import handout_only_pages

LECTURE = Lecture("07-tensors")
FIGURES = ROOT / "figures" / LECTURE.name


@pytest.fixture(scope="module")
def handout_text(rendered):
    return " ".join(pdf_text(LECTURE.product(rendered, "handout.pdf")).split())


@pytest.fixture(scope="module")
def notebook(rendered):
    return nbformat.read(str(LECTURE.notebook), as_version=4)


def test_eleven_sections():
    assert len(LECTURE.sources) == 11


def test_the_lecture_has_handout_only_pages(rendered):
    assert handout_only_pages(rendered, LECTURE)


def test_many_cells_ran(notebook):
    assert len([c for c in notebook.cells if c.cell_type == "code"]) >= 50


def test_title_slide_and_cover(rendered):
    html = " ".join(LECTURE.product(rendered, "slides.html").read_text(encoding="utf-8").split())
    for text in ("বাংলায় PyTorch", "পর্ব ০৭ · ৯১-এর মধ্যে · মডিউল ২", "PyTorch tensor",
                 "shape, dtype, device আর broadcasting"):
        assert text in html, text
    cover = subprocess.run(["pdftotext", "-raw", "-f", "1", "-l", "1", str(LECTURE.product(rendered, "handout.pdf")),
                            "-"], capture_output=True, text=True, check=True).stdout
    for part in ("পর্ব ০৭", "৯১-এর মধ্যে", "মডিউল ২", "PyTorch tensor"):
        assert part in cover, part


def test_numbered_figures_and_boxes(handout_text):
    for n in "১২৩৪৫":
        assert f"ছবি ৭.{n}" in handout_text
    for box in ("মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "অনুশীলনী ৩", "প্রশ্ন ১", "আলোচনার প্রশ্ন ১", "উত্তরমালা"):
        assert box in handout_text, box


# What torch itself says, independent of our synthetic data, as the handout prints it.
TORCH_RESULTS = {
    "transpose stride": ["(1, 3)"],
    "slice offset": ["t[:, 1:] (2, 2) (3, 1) 1 False"],
    "view after transpose": ["view size is not compatible with input tensor's size and stride"],
    "expand vs repeat bytes": ["12 4800"],
    "int8 wraps": ["tensor([-126], dtype=torch.int8)"],
    "uint8 wraps": ["tensor([4], dtype=torch.uint8)"],
    "float16 overflow": ["70000 → inf"],
    "bfloat16 rounding": ["70000 → 70144.0"],
    "numpy refuses grad": ["Can't call numpy() on Tensor that requires grad"],
    "device rule": ["is not on the expected device cpu"],
    "broadcast error": ["must match the size of tensor b (7) at non-singleton dimension 1"],
    "the silent shape": ["(400, 1) (400,) → (400, 400)"],
    "MSELoss warning": ["Using a target size (torch.Size([400])) that is different to the input size"],
    "dtype clash": ["mat1 and mat2 must have the same dtype, but got Double and Float"],
    "integer division": ["torch.float32 torch.int64 tensor([0.5000, 1.5000, 2.5000])"],
    "full takes the fill value's dtype": ["torch.float32 torch.int64 torch.float32 torch.int64"],
    "arange's float step reaches its end": ["tensor([1.0000, 1.1000, 1.2000, 1.3000])"],
    "a write into expand changes the original": ["tensor([5., 2., 3.])"],
    "some writes into expand raise": ["more than one element of the written-to tensor refers to a single memory location"],
    "advanced indexing copies, a 0-d index is a view": ["t[torch.tensor(0)]"],
    "matmul of 1-d and 2-d": ["tensor([10., 34.]) tensor(34.)"],
    "matmul broadcasts the batch": ["torch.Size([4, 2, 2]) torch.Size([4, 5, 2, 7])"],
    "matmul's inner sizes": ["mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"],
    "max along a dim": ["tensor([3, 2, 0, 1, 0, 1, 2]) tensor([3, 2, 0, 1, 0, 1, 2])"],
    "gather takes each row's index": ["torch.Size([7, 2]) True tensor([87, 50, 81, 89, 75, 89, 87])"],
}


@pytest.mark.parametrize("what", sorted(TORCH_RESULTS))
def test_torch_results_appear_in_the_handout(what, handout_text):
    for needle in TORCH_RESULTS[what]:
        assert " ".join(needle.split()) in handout_text, f"{what}: {needle!r} not in the handout"


def graphviz_outputs(notebook):
    """Each figure cell's DOT source, by label."""
    found = {}
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            dot = out.get("data", {}).get("text/vnd.graphviz")
            if dot:
                found[cell.metadata["lecture"]["label"]] = "".join(dot) if isinstance(dot, list) else dot
    return found


def test_every_figure_is_drawn_by_tensorfig_from_the_tensors(notebook):
    dots = graphviz_outputs(notebook)
    assert set(dots) == {"fig-s02-expand", "fig-s03-memory", "fig-s06-rule", "fig-s06-clash", "fig-s06-silent"}
    assert all(d.startswith("digraph tensorfig") for d in dots.values())
    memory = dots["fig-s03-memory"]
    for text in ("stride (3, 1) · offset 0", "stride (1, 3) · offset 0", "stride (3, 1) · offset 1"):
        assert text in memory, text
    assert "stride (0, 1)" in dots["fig-s02-expand"] and "(400, 400) · stride (1, 0)" in dots["fig-s06-silent"]
    assert "মেলে না: মাত্রা −১-এ 4 বনাম 7" in dots["fig-s06-clash"]


def slide_label_px(svg_text):
    """The smallest label of a figure in the slide's own px, once the slide fits the picture into
    its figure box (at most 470 px high, 1150 px wide)."""
    width, height, box_w = (float(v) for v in re.search(
        r'<svg\b[^>]*width="([\d.]+)pt" height="([\d.]+)pt" viewBox="0 0 ([\d.]+)', svg_text).groups())
    fit = min(1.0, 470 / (height * 4 / 3), 1150 / (width * 4 / 3))
    import tensorfig.style as style
    return min(style.TEXT_PT, style.SMALL_PT) * (width / box_w) * 4 / 3 * fit


def test_figures_are_legible_on_the_slides_and_in_print(rendered):
    svgs = sorted(FIGURES.glob("fig-*.svg"))
    assert len(svgs) == 5
    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        assert "<text" not in text, f"{svg.name}: glyphs must be paths"
        assert slide_label_px(text) >= 18, f"{svg.name}: labels under 18 px on the slide"
    for pdf in sorted(FIGURES.glob("fig-*.pdf")):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
        assert "cairo" in info.lower(), pdf.name


def test_continuity_with_lecture_09_and_a_look_ahead_to_08():
    nine = (ROOT / "lectures" / "09-nn-module" / "_00-intro.qmd").read_text(encoding="utf-8")
    assert "পর্ব ০৭-এ tensor" in nine  # 09 recalls this lecture by its four words
    ours = LECTURE.text()
    for word in ("shape", "dtype", "device", "broadcasting"):
        assert word in ours
    assert "পরের পর্বে · পর্ব ০৮, autograd" in ours
    assert "make_orders()" in ours and "DeliveryMLP" in ours  # the same delivery data and model names


def test_listed_before_lecture_09_on_the_course_page(rendered):
    page = (rendered / "index.html").read_text(encoding="utf-8")
    assert 0 <= page.index("07-tensors/slides.html") < page.index("09-nn-module/slides.html")


def test_code_zip_holds_the_scripts_and_the_packages_they_import(rendered):
    with zipfile.ZipFile(LECTURE.product(rendered, "code.zip")) as zf:
        names = zf.namelist()
    scripts = sorted(n for n in names if "/scripts/" in n and n.endswith(".py") and "/_" not in n)
    assert len(scripts) == 9, scripts
    for package in ("bazarghar/__init__.py", "tensorfig/__init__.py", "modtree/figure.py"):
        assert f"07-tensors/{package}" in names, package

"""The handout as printed, measured in the PDF (pdfminer: every glyph with its font and its size on
the page, figures' text included), for every lecture: type sizes for print (body 10.5-11 pt, code
and printed output at least 8.5 pt, nothing smaller outside figures, figure text at least 8 pt at
the size it is printed), every glyph from the handout's own fonts (no fallback to Typst's serif),
no synthesised slant, and page craft: no page of a few orphan lines, no heading or lead-in sentence
at a page foot away from its block, table captions centred and on the page of their table, no
glossary term parted from its meaning, contents page numbers in Bengali digits. The rules that
cannot be seen in the lectures' own text (a code line too long for the page) are checked on a
small document set with handout.typ."""
from __future__ import annotations

import math
import os
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import LECTURES, ROOT

BODY_PT = (10.5, 11.0)
CODE_PT = 8.5
FIGURE_PT = 8.0
# A page before the last with fewer lines than this is a page a reader turns for nothing.
MIN_LINES = 6
BODY_FONTS = ("NotoSans-", "NotoSansBengali-", "DejaVuSans-", "DejaVuSans")
CODE_FONT = "DejaVuSansMono"
MATH_FONT = "NewCMMath"  # Typst's formula font
CAPTION = re.compile(r"^সারণি [০-৯]+\.[০-৯]+")
BENGALI = re.compile("[\u0980-\u09ff]")


# ---- the PDF, glyph by glyph ----------------------------------------------------------------------

@dataclass
class Glyph:
    text: str
    font: str
    size: float  # the em on the page, in pt (font size x the text and figure scale)
    x0: float
    x1: float
    y: float  # baseline height from the page bottom
    slanted: bool  # sheared (a synthesised italic), not rotated


@dataclass
class Line:
    glyphs: list

    @property
    def text(self) -> str:
        # In the order the PDF writes them: logical order (a Bengali vowel sign drawn before its
        # consonant comes after it).
        return "".join(g.text for g in self.glyphs).strip()

    @property
    def size(self) -> float:
        return max(g.size for g in self.glyphs)

    @property
    def bold(self) -> bool:
        return all("Bold" in g.font for g in self.glyphs if g.text.strip())

    @property
    def x0(self) -> float:
        return min(g.x0 for g in self.glyphs)

    @property
    def x1(self) -> float:
        return max(g.x1 for g in self.glyphs)


@dataclass
class Page:
    number: int
    width: float
    height: float
    text: list = field(default_factory=list)  # glyphs outside figures
    figures: list = field(default_factory=list)  # one list of glyphs per figure

    def lines(self, band: float = 1.5) -> list[Line]:
        """Text lines top to bottom, without the running header and the page number."""
        # Baselines between the page number (about 24 pt up) and the running header (about 811 pt).
        body = [g for g in self.text if 0.04 * self.height < g.y < 0.955 * self.height and g.text.strip()]
        lines: list[Line] = []
        for g in sorted(body, key=lambda g: -g.y):
            if lines and abs(lines[-1].glyphs[0].y - g.y) < band:
                lines[-1].glyphs.append(g)
            else:
                lines.append(Line([g]))
        return lines


def read_pdf(pdf: Path) -> list[Page]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTChar, LTContainer, LTFigure

    pages = []
    for number, layout in enumerate(extract_pages(str(pdf), laparams=None), 1):
        page = Page(number, layout.width, layout.height)

        def walk(item, figure):
            if isinstance(item, LTChar):
                a, b, c, d, _e, _f = item.matrix
                # pdfminer's own `size` is the box height, wrong for rotated axis labels: the em is
                # the font size times the length of the text's vertical axis.
                em = item.fontsize * math.hypot(c, d)
                glyph = Glyph(item.get_text(), item.fontname.split("+")[-1], em, item.x0, item.x1,
                              item.matrix[5], abs(b) < 1e-6 and abs(c) > 1e-6)
                (figure if figure is not None else page.text).append(glyph)
            elif isinstance(item, LTFigure) and figure is None:
                glyphs = []
                for child in item:
                    walk(child, glyphs)
                if glyphs:
                    page.figures.append(glyphs)
            elif isinstance(item, LTContainer):
                for child in item:
                    walk(child, figure)

        walk(layout, None)
        pages.append(page)
    return pages


def _keep_font_size():
    """pdfminer keeps a glyph's box, not the font size it was set in: keep that too."""
    from pdfminer.layout import LTChar

    if getattr(LTChar, "_keeps_fontsize", False):
        return
    init = LTChar.__init__

    def keeping(self, matrix, font, fontsize, *args, **kwargs):
        init(self, matrix, font, fontsize, *args, **kwargs)
        self.fontsize = fontsize

    LTChar.__init__ = keeping
    LTChar._keeps_fontsize = True


_keep_font_size()


@pytest.fixture(scope="module", params=LECTURES, ids=str)
def lecture(request):
    return request.param


@pytest.fixture(scope="module")
def handout(rendered, lecture) -> list[Page]:
    return read_pdf(lecture.product(rendered, "handout.pdf"))


def figure_producers(lecture) -> list[str]:
    """The handout's figures in page order, each by the program that drew it (from the figure
    files the handout's Typst source names, in its order)."""
    typ = (ROOT / "_build" / lecture.name / f"{lecture.name}.typ").read_text(encoding="utf-8")
    files = re.findall(r'image\("([^"]+\.pdf)"', typ)
    producers = []
    for name in files:
        info = subprocess.run(["pdfinfo", str((ROOT / "_build" / lecture.name / name).resolve())],
                              capture_output=True, text=True).stdout
        producers.append(re.search(r"Producer:\s*(.*)", info).group(1) if "Producer:" in info else "")
    return producers


# ---- type sizes -----------------------------------------------------------------------------------

def body_glyphs(pages):
    return [g for p in pages[1:] for g in p.text
            if g.font.startswith(BODY_FONTS) and "Regular" in g.font or g.font == "DejaVuSans"]


def test_body_text_is_set_for_print(handout):
    sizes = Counter(round(g.size, 1) for g in body_glyphs(handout))
    body = sizes.most_common(1)[0][0]
    assert BODY_PT[0] <= body <= BODY_PT[1], f"body text at {body} pt; print wants {BODY_PT[0]}-{BODY_PT[1]} pt"


def test_code_and_output_at_least_8_5_pt(handout):
    small = Counter((p.number, round(g.size, 2)) for p in handout for g in p.text
                    if g.font.startswith(CODE_FONT) and g.size < CODE_PT - 0.01)
    assert not small, f"code under {CODE_PT} pt (page, size): {sorted(small)[:10]}"


def test_nothing_outside_figures_below_8_5_pt(handout):
    small = {}
    for page in handout:
        for line in page.lines():
            # A formula's sub- and superscripts are smaller by design.
            tiny = [g for g in line.glyphs if g.size < CODE_PT - 0.01 and not g.font.startswith(MATH_FONT)]
            if tiny:
                small.setdefault(page.number, (round(tiny[0].size, 2), line.text[:40]))
    assert not small, f"text under {CODE_PT} pt: {small}"


def test_figure_text_at_least_8_pt_as_printed(handout, lecture):
    producers = figure_producers(lecture)
    figures = [f for p in handout for f in p.figures]
    assert len(figures) == len(producers), (len(figures), producers)
    small = [(producer, round(min(g.size for g in glyphs), 2),
              "".join(g.text for g in glyphs if g.size < FIGURE_PT)[:30])
             for glyphs, producer in zip(figures, producers)
             if "matplotlib" in producer.lower() and min(g.size for g in glyphs) < FIGURE_PT - 0.01]
    assert not small, f"plot text under {FIGURE_PT} pt on paper: {small}"


# The lectures that draw with the course's Graphviz and tensor-figure packages (a lecture of plots
# alone has no such figure: the test runs on the others, not as a skip).
DRAWN = [lecture for lecture in LECTURES if lecture.has(r"\b(?:modtree|gradgraph|tensorfig)\b")]


@pytest.mark.parametrize("lecture", DRAWN, ids=str, indirect=True)
def test_module_tree_text_at_least_8_pt_as_printed(handout, lecture):
    producers = figure_producers(lecture)
    figures = [f for p in handout for f in p.figures]
    trees = [min(g.size for g in glyphs) for glyphs, producer in zip(figures, producers)
             if "matplotlib" not in producer.lower()]
    assert trees and min(trees) >= FIGURE_PT - 0.01, f"module-tree text down to {min(trees):.2f} pt"


def test_every_glyph_from_the_handouts_fonts(handout):
    """Typst falls back to its own serif (Libertinus) for a character none of the listed fonts
    has; the "→" of the prose must come from the body's sans. Formulas are set in Typst's math font."""
    foreign = Counter((g.font, g.text) for p in handout for g in p.text
                      if not g.font.startswith(("NotoSans", "DejaVuSans", MATH_FONT)))
    assert not foreign, f"glyphs from a font the handout does not list: {foreign.most_common(8)}"


def test_no_synthesised_slant(handout):
    slanted = Counter((p.number, g.font) for p in handout for g in p.text + [x for f in p.figures for x in f]
                      if g.slanted and BENGALI.match(g.text))
    assert not slanted, f"Bengali drawn with a fake slant (page, font): {slanted}"


# ---- page craft -----------------------------------------------------------------------------------

def test_no_page_of_a_few_orphan_lines(handout):
    short = {p.number: len(p.lines()) for p in handout[2:] if len(p.lines()) < MIN_LINES}
    assert not short, f"pages holding only a few lines (page: lines): {short}"


def test_no_heading_or_lead_in_at_a_page_foot(handout):
    """The last line of a page is neither a heading (set larger than the body) nor a sentence
    ending in ':' that announces the block on the next page."""
    stranded = []
    for page in handout[1:-1]:
        lines = page.lines()
        if not lines:
            continue
        last = lines[-1]
        if last.size > BODY_PT[1] + 1 and last.bold:
            stranded.append((page.number, "heading", last.text[:40]))
        elif last.text.endswith(":") and not last.text.startswith(("#", ">>>")) and \
                not any(g.font.startswith(CODE_FONT) for g in last.glyphs[-1:]):
            stranded.append((page.number, "lead-in", last.text[-40:]))
    assert not stranded, f"at a page foot, away from what follows: {stranded}"


def poppler_lines(pdf) -> list[list[tuple[str, float, float]]]:
    """Each page's text lines as poppler reads them (Bengali clusters decoded right, which
    pdfminer does not), with their left and right edges, header and page number left out."""
    import html
    xml = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    for page in re.findall(r"<page (.*?)</page>", xml, re.S):
        height = float(re.search(r'height="([\d.]+)"', page).group(1))
        lines = []
        for attrs, body in re.findall(r"<line (.*?)>(.*?)</line>", page, re.S):
            box = dict(re.findall(r'(\w+)="([\d.]+)"', attrs))
            if not 0.045 * height < float(box["yMin"]) < 0.955 * height:
                continue
            text = " ".join(html.unescape(w) for w in re.findall(r"<word [^>]*>(.*?)</word>", body))
            lines.append((text, float(box["xMin"]), float(box["xMax"])))
        pages.append(lines)
    return pages


@pytest.fixture(scope="module")
def text_lines(rendered, lecture):
    return poppler_lines(lecture.product(rendered, "handout.pdf"))


def test_table_captions_centred_and_with_their_table(text_lines, handout, lecture):
    captions = 0
    for number, lines in enumerate(text_lines, 1):
        for i, (text, x0, x1) in enumerate(lines):
            if CAPTION.match(text):
                captions += 1
                assert i + 1 < len(lines), f"page {number}: {text[:30]} ends the page, its table on the next"
                middle, column = (x0 + x1) / 2, handout[number - 1].width / 2
                assert abs(middle - column) < 6, f"page {number}: caption centred at {middle:.0f}, column at {column:.0f}"
    typ = (ROOT / "_build" / lecture.name / f"{lecture.name}.typ").read_text(encoding="utf-8")
    assert captions == typ.count("kind: table"), f"{captions} table captions found"


def pdf_lines(pdf, page):
    text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-layout", str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[:-1] if lines and re.fullmatch(r"[০-৯]+", lines[-1]) else lines   # drop the footer


def test_contents_page_numbers_are_bengali(rendered, lecture):
    pdf = lecture.product(rendered, "handout.pdf")
    contents = next(lines for lines in (pdf_lines(pdf, n) for n in (2, 3)) if any("সূচিপত্র" in x for x in lines))
    numbers = [m.group(1) for line in contents for m in re.finditer(r"\.\s*\u2060?([0-9০-৯]+)\s*$", line)]
    assert numbers, "no page numbers found in the contents"
    assert all(re.fullmatch(r"[০-৯]+", n) for n in numbers), numbers[:10]


def test_glossary_terms_stay_with_their_meaning(text_lines, lecture):
    from lecturekit.read.glossary import glossary_path, load
    terms = set(re.findall(r"^([^\s:][^\n]*)\n:\s", lecture.text(), re.M))
    # A glossary drawn from the course glossary: its entries' headings, as the list shows them.
    keys = [key for listed in re.findall(r'\{\.glossary[^}]*terms="([^"]*)"', lecture.text()) for key in listed.split()]
    if keys:
        entries = load(glossary_path(ROOT / "lectures")).entries
        terms |= {entries[key].heading for key in keys}
    assert terms or "glossary" not in lecture.text()
    for number, lines in enumerate(text_lines[:-1], 1):
        if lines and lines[-1][0] in terms:
            pytest.fail(f"page {number} ends with the glossary term {lines[-1][0]!r}, its meaning on the next page")


def formula_tags(pdf: Path) -> list[str | None]:
    """The text alternative (/Alt) of every formula the PDF's structure tree tags, None if it has none."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    from pdfminer.psparser import PSLiteral
    from pdfminer.utils import decode_text
    found = []
    with open(pdf, "rb") as handle:
        document = PDFDocument(PDFParser(handle))
        for xref in document.xrefs:
            for objid in xref.get_objids():
                try:
                    obj = document.getobj(objid)
                except Exception:  # free or broken entries are nothing to read
                    continue
                kind = resolve1(obj.get("S")) if isinstance(obj, dict) else None
                if isinstance(kind, PSLiteral) and kind.name == "Formula":
                    alt = resolve1(obj.get("Alt"))
                    found.append(decode_text(alt).strip() if isinstance(alt, bytes) else None)
    return found


@pytest.mark.parametrize("lecture", [lec for lec in LECTURES if lec.has(r"\$[^$\s`{][^$]*\$")], ids=str)
def test_every_formula_has_a_text_alternative(rendered, lecture):
    alts = formula_tags(lecture.product(rendered, "handout.pdf"))
    assert alts, "no formula tagged in the handout"
    assert all(alts), f"{alts.count(None)} of {len(alts)} formulas without a text alternative"


def test_the_viewer_shows_the_title(rendered, lecture):
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1

    with open(lecture.product(rendered, "handout.pdf"), "rb") as f:
        document = PDFDocument(PDFParser(f))
        preferences = resolve1(document.catalog.get("ViewerPreferences")) or {}
        info = document.info[0] if document.info else {}
    assert preferences.get("DisplayDocTitle") is True, preferences
    assert info.get("Title"), "the viewer would have no title to show"


# ---- rules on a small document --------------------------------------------------------------------

SAMPLE = r"""
#import "/_extensions/lecture/handout.typ": *
#show: handout.with(title: [নমুনা], episode: 9)

= অংশ

নিচের কোড:

```python
x = 1
y = some_function_with_a_long_name(argument_one, argument_two, argument_three, argument_four, argument_five)
z = 3
```

ক → খ, _বাংলা জোর_ আর _emphasis_।

#figure(table(columns: 2, [ক], [খ], [গ], [ঘ]), caption: [ছোট সারণি], kind: table)
"""


@pytest.fixture(scope="module")
def sample_pdf(tmp_path_factory, rendered):
    import typst
    from lecturekit.project import Project
    from lecturekit.write.formats import handout_fonts

    folder = tmp_path_factory.mktemp("sample")
    source = ROOT / "_build" / f"layout-sample-{os.getpid()}.typ"
    source.write_text(SAMPLE, encoding="utf-8")
    try:
        typst.compile(str(source), output=str(folder / "sample.pdf"), root=str(ROOT),
                      font_paths=[str(handout_fonts(Project(ROOT)))], ignore_system_fonts=True)
    finally:
        source.unlink()
    return folder / "sample.pdf"


@pytest.fixture(scope="module")
def sample(sample_pdf):
    return read_pdf(sample_pdf)


def test_a_wrapped_code_line_stays_right_of_the_line_numbers(sample):
    code = [line for page in sample for line in page.lines() if line.glyphs[0].font.startswith(CODE_FONT)]
    starts = [round(line.x0, 1) for line in code]
    assert len(code) == 4, [line.text for line in code]  # three lines, the long one wrapped once
    assert len(set(starts)) == 1, f"code lines start at {starts}: a wrapped line runs under the numbers"
    # …and the numbers sit in the code box, left of the code: the code starts a gutter in.
    margin = min(line.x0 for page in sample for line in page.lines() if not line.glyphs[0].font.startswith(CODE_FONT))
    assert starts[0] - margin >= 2 * CODE_PT, f"code at {starts[0]}, text margin at {margin}: no room for the numbers"


def test_sample_arrow_from_the_body_font_and_caption_centred(sample, sample_pdf):
    glyphs = [g for page in sample for g in page.text]
    assert {g.font for g in glyphs if g.text == "→"} == {"DejaVuSans"}
    caption = next(line for page in poppler_lines(sample_pdf) for line in page if line[0].startswith("সারণি"))
    assert abs((caption[1] + caption[2]) / 2 - sample[-1].width / 2) < 6, caption

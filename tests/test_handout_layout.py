"""The handout's page breaks: no table caption left at the bottom of a page with its table on the
next, no glossary term parted from its meaning, and page numbers in the contents in Bengali digits
like the pages themselves."""
import re
import subprocess

import pytest

CAPTION = re.compile(r"^সারণি ৯\.[০-৯]+")


def page_lines(pdf, page):
    text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-layout", str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[:-1] if lines and re.fullmatch(r"[০-৯]+", lines[-1]) else lines   # drop the footer


@pytest.fixture(scope="module")
def pages(rendered):
    pdf = rendered / "09-nn-module" / "handout.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    count = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    return [page_lines(pdf, n) for n in range(1, count + 1)]


def test_no_caption_stranded_at_a_page_bottom(pages):
    stranded = [(n, lines[-1]) for n, lines in enumerate(pages, 1) if lines and CAPTION.match(lines[-1])]
    assert not stranded, f"a caption ends a page, its table starts the next: {stranded}"


def test_every_table_caption_sits_on_the_page_of_its_table(pages):
    # The caption is the table's first line; the table's header row follows on the same page.
    for n, lines in enumerate(pages, 1):
        for i, line in enumerate(lines):
            if CAPTION.match(line):
                assert i + 1 < len(lines), f"page {n}: {line} is the page's last line"


def test_contents_page_numbers_are_bengali(pages):
    contents = next(lines for lines in pages if any("সূচিপত্র" in line for line in lines))
    numbers = [m.group(1) for line in contents for m in re.finditer(r"\.\s*\u2060?([0-9০-৯]+)\s*$", line)]
    assert numbers, "no page numbers found in the contents"
    assert all(re.fullmatch(r"[০-৯]+", n) for n in numbers), numbers[:10]


def test_glossary_terms_stay_with_their_meaning(pages):
    for n, lines in enumerate(pages, 1):
        if lines and lines[-1] in {"nn.Module", "nn.Parameter", "buffer", "state_dict", "strict",
                                   "weights_only", "safetensors", "লেখার রীতি"}:
            pytest.fail(f"page {n} ends with the glossary term {lines[-1]!r}, its meaning on the next page")

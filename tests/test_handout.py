"""Every lecture's handout as a reader gets it: fonts embedded, the Bengali prose and every output
extractable as written, code that copies without its line numbers, answers only in the appendix, bn
metadata, a sensible length and size. Each test runs over every lecture found under lectures/ (or
every lecture that uses the construct it tests)."""
import json
import re
import subprocess
import zlib
from functools import cache

import pytest

from helpers import every_lecture, lectures_with, pdf_text

BENGALI = re.compile("[\u0980-\u09ff]")
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
WITH_ANSWERS = lectures_with(r"\{\.(?:answer|explain)\b")
WITH_FIGURES = lectures_with(r"#\| label: fig-")


QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


def squash(text):
    return re.sub(r"\s+", "", text.translate(QUOTES))


def without_page_furniture(text):
    """The text without running headers and page numbers, which break into paragraphs and blocks
    that cross a page."""
    return "\n".join(l for l in text.splitlines()
                     if not l.startswith("বাংলায় PyTorch · পর্ব") and not re.fullmatch(r"\s*[০-৯]+\s*", l))


def plain(block):
    """Markdown prose as a reader sees it: inline code, emphasis and claims reduced to their text.
    None when it holds something the handout shows differently (inline expressions, math, refs)."""
    if re.search(r"\{python\}|\$|@fig|!\[|\]\(|<|\\", block):
        return None
    if re.search(r"(?m)^: ", block):  # definition lists are set as term and definition
        return None
    block = re.sub(r"\[([^\[\]]*)\]\{[^}]*\}", r"\1", block)  # [sentence]{.claim check="..."}
    spans = []
    block = re.sub(r"`([^`]*)`", lambda m: spans.append(m.group(1)) or f"\0{len(spans) - 1}\0", block)
    block = re.sub(r"(\*\*|\*)(?=\S)(.+?)(?<=\S)\1", r"\2", block)
    if re.search(r"[`*{}\[\]]", block):
        return None
    block = block.replace("---", "—").replace("--", "–").replace("...", "…")
    return re.sub("\0(\\d+)\0", lambda m: spans[int(m.group(1))], block)


@pytest.fixture
def handout(rendered, lecture):
    return lecture.product(rendered, "handout.pdf")


@cache
def _text(pdf):
    return pdf_text(pdf)


@pytest.fixture
def text(handout):
    return _text(handout)


@every_lecture
def test_fonts_embedded(handout):
    rows = subprocess.run(["pdffonts", str(handout)], capture_output=True, text=True).stdout.splitlines()[2:]
    assert rows
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]
    assert not not_embedded, not_embedded


@every_lecture
def test_size_pages_language_tags(handout):
    info = subprocess.run(["pdfinfo", str(handout)], capture_output=True, text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    size = handout.stat().st_size
    print(f"handout: {pages} pages, {size / 1e6:.2f} MB")
    assert 15 <= pages <= 45, pages  # body 10.5 pt, code 8.5 pt: type for print
    assert size < 2_500_000, size  # 38 pages at print sizes: 2.0 MB for lecture 09
    assert re.search(r"Tagged:\s+yes", info)
    assert catalog_entry(handout, "Lang") in (b"bn", b"\xfe\xff\x00b\x00n"), "document language bn"


def catalog_entry(pdf, key):
    """An entry of the PDF's catalog, as the file holds it (the catalog may lie in an object stream)."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1

    with open(pdf, "rb") as f:
        return resolve1(PDFDocument(PDFParser(f)).catalog.get(key))


def prose_paragraphs(lecture):
    """Plain Bengali prose paragraphs of the sources: no code, math, markup, inline expressions,
    lists, tables, headings, notes or slide-only text."""
    paragraphs = []
    for qmd in lecture.sources:
        source = re.sub(r"```.*?```", "", qmd.read_text(encoding="utf-8"), flags=re.S)
        # Slide-only blocks and speaker notes never reach the handout.
        source = re.sub(r'::: \{\.content-visible when-format="revealjs"\}.*?\n:::\n', "", source, flags=re.S)
        source = re.sub(r"::: \{\.notes\}.*?\n:::\n", "", source, flags=re.S)
        source = re.sub(r"(?m)^:::.*$", "", source)
        for block in re.split(r"\n\s*\n", source):
            block = block.strip()
            if not block or not BENGALI.search(block) or re.match(r"^(#|[-*|>]|\d+\.)", block):
                continue
            text = plain(block)
            if text:
                paragraphs.append((qmd.name, text))
    return paragraphs


@every_lecture
def test_bengali_prose_round_trips(text, lecture):
    paragraphs = prose_paragraphs(lecture)
    assert len(paragraphs) >= 10, "the lecture has plain prose paragraphs"
    flat = squash(without_page_furniture(text))
    missing = [f"{name}: {p[:80]}" for name, p in paragraphs if squash(p) not in flat]
    print(f"plain prose paragraphs found verbatim: {len(paragraphs) - len(missing)}/{len(paragraphs)}")
    assert not missing, "prose not extractable as written:\n" + "\n".join(missing)


def executed_cells(lecture):
    nb = json.loads(lecture.notebook.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        options = cell.get("metadata", {}).get("lecture", {}).get("options", {})
        yield cell, options


@every_lecture
def test_every_output_appears(text, lecture):
    flat = squash(without_page_furniture(text))
    checked, missing = 0, []
    for cell, options in executed_cells(lecture):
        if options.get("output") is False or options.get("include") is False:
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                body = "".join(out["text"])
                body = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", body)
                if not body.strip():
                    continue
                checked += 1
                if squash(body) not in flat:
                    missing.append(f"{options.get('label')}: {body.strip()[:80]}")
    print(f"stdout outputs found: {checked - len(missing)}/{checked}")
    assert checked > 0, "the lecture prints outputs"
    assert not missing, "outputs missing from the handout:\n" + "\n".join(missing)


@every_lecture
def test_code_copies_without_line_numbers_and_runs(handout, text, lecture):
    """Every echoed cell's code is in the text line by line, with nothing between its lines (no
    line numbers); rebuilt with the layout's indentation, each cell that sits on one page compiles."""
    flat = squash(without_page_furniture(text))
    # Columns at the code font's own pitch (DejaVu Sans Mono: 1233/2048 em at the handout's 8.5 pt),
    # not pdftotext's per-block estimate, which shifts a block after a blank line.
    pitch = 1233 / 2048 * 8.5
    layout = subprocess.run(["pdftotext", "-layout", "-fixed", f"{pitch:.3f}", str(handout), "-"],
                            capture_output=True, text=True).stdout
    layout_lines = layout.splitlines()
    one = lambda l: " ".join(l.split())
    checked, broken, compiled = 0, [], 0
    for cell, options in executed_cells(lecture):
        if options.get("echo") is False:
            continue
        code = [l for l in "".join(cell["source"]).split("\n") if not l.startswith("#|")]
        want = [one(l) for l in code if l.strip()]
        if not want:
            continue
        checked += 1
        # Line numbers in the extracted text would sit between the lines and break this.
        if squash("".join(want)) not in flat:
            broken.append(f"{options.get('label')}: {want[0][:60]}")
            continue
        # Indentation from the layout text: the first line's column is the cell's margin.
        for i, line in enumerate(layout_lines):
            if one(line) == want[0]:
                block = [l for l in layout_lines[i:i + len(code) + 8] if l.strip()][:len(want)]
                if [one(l) for l in block] != want:
                    continue
                margin = len(block[0]) - len(block[0].lstrip())
                # pdftotext's columns are estimates: snap indentation to Python's four-space steps.
                indent = lambda l: " " * (4 * round((len(l) - len(l.lstrip()) - margin) / 4))
                source = "\n".join(indent(l) + l.strip() for l in block)
                try:
                    compile(source, options.get("label", "cell"), "exec")
                    compiled += 1
                except SyntaxError as err:
                    broken.append(f"{options.get('label')}: copied code does not compile: {err}")
                break
    print(f"code cells copied intact: {checked - len(broken)}/{checked}, compiled from layout: {compiled}")
    assert not broken, "\n".join(broken)


def answers_and_solutions(lecture):
    """Solution and quiz-explanation texts (plain lines with Bengali) from the sources."""
    texts = []
    for qmd in lecture.sources:
        source = qmd.read_text(encoding="utf-8")
        for block in re.findall(r"::: \{\.(?:answer|explain)\}\n(.*?)\n:::", source, flags=re.S):
            for para in re.split(r"\n\s*\n", block):
                para = para.strip()
                if not BENGALI.search(para) or para.startswith(("-", "|", "#", "```")) or re.match(r"\d+\.", para):
                    continue
                para = plain(para)
                if para and len(para) > 25:
                    texts.append(para)
    return texts


@pytest.mark.parametrize("lecture", WITH_ANSWERS, ids=str)
def test_answers_only_in_the_appendix(text, lecture):
    assert "উত্তরমালা" in text
    heading = [m.start() for m in re.finditer("উত্তরমালা", text)][-1]
    text = without_page_furniture(text)
    heading = [m.start() for m in re.finditer("উত্তরমালা", text)][-1]
    before, after = squash(text[:heading]), squash(text[heading:])
    texts = answers_and_solutions(lecture)
    assert texts, "the lecture has solutions"
    early = [t[:60] for t in texts if squash(t) in before]
    absent = [t[:60] for t in texts if squash(t) not in after]
    print(f"solution paragraphs checked: {len(texts)}")
    assert not early, "solutions before the appendix:\n" + "\n".join(early)
    assert not absent, "solutions missing from the appendix:\n" + "\n".join(absent)


@every_lecture
def test_cover_toc_running_header_numbers(handout, lecture):
    """The cover and running header from the front matter (defaults included)."""
    meta = lecture.meta
    episode = f"পর্ব {meta['episode']:02d}".translate(BN_DIGITS)
    first = pdf_text_page(handout, 1)
    parts = [meta["course"], episode, meta["title"]]
    parts += [f"{meta['episodes']}-এর মধ্যে".translate(BN_DIGITS)] if meta.get("episodes") else []
    parts += [f"মডিউল {meta['module']}".translate(BN_DIGITS)] if meta.get("module") else []
    for part in parts:
        assert part in first, part
    assert re.search(r"PyTorch \d", first), "the cover names the versions the outputs came from"
    assert "সূচিপত্র" in pdf_text_page(handout, 2)
    page5 = pdf_text_page(handout, 5)
    assert f"{meta['course']} · {episode}" in page5 and re.search(r"^৫$", page5, re.M), \
        "running header, Bengali page number"


@pytest.mark.parametrize("lecture", WITH_FIGURES, ids=str)
def test_figures_are_numbered_by_episode(text, lecture):
    assert f"ছবি {lecture.meta['episode']}.1".translate(BN_DIGITS) in text


def pdf_text_page(pdf, n):
    return subprocess.run(["pdftotext", "-raw", "-f", str(n), "-l", str(n), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("lecture", WITH_FIGURES, ids=str)
def test_figures_have_alt_text(handout):
    objects = pdf_objects(handout)
    assert b"/Figure" in objects and b"/Alt" in objects


def pdf_objects(pdf) -> bytes:
    """The PDF's bytes, then every deflated stream inflated: the objects that object streams pack too."""
    raw = pdf.read_bytes()
    chunks = [raw]
    for start in re.finditer(rb"stream\r?\n", raw):
        try:
            chunks.append(zlib.decompress(raw[start.end():raw.find(b"endstream", start.end())]))
        except zlib.error:
            pass
    return b"\n".join(chunks)

"""The handout as a reader gets it: fonts embedded, the Bengali prose and every output extractable
as written, code that copies without its line numbers, answers only in the appendix, bn metadata,
a sensible length and size."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import pdf_text

ROOT = Path(__file__).resolve().parents[1]
LECTURE = ROOT / "lectures" / "09-nn-module"
NOTEBOOK = ROOT / "_build" / "09-nn-module" / "09-nn-module.ipynb"
BENGALI = re.compile("[\u0980-\u09ff]")


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


@pytest.fixture(scope="module")
def handout(rendered):
    return rendered / "09-nn-module" / "handout.pdf"


@pytest.fixture(scope="module")
def text(handout):
    return pdf_text(handout)


def test_fonts_embedded(handout):
    rows = subprocess.run(["pdffonts", str(handout)], capture_output=True, text=True).stdout.splitlines()[2:]
    assert rows
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]
    assert not not_embedded, not_embedded


def test_size_pages_language_tags(handout):
    info = subprocess.run(["pdfinfo", str(handout)], capture_output=True, text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    size = handout.stat().st_size
    print(f"handout: {pages} pages, {size / 1e6:.2f} MB")
    assert 15 <= pages <= 35, pages
    assert size < 2_000_000, size
    assert re.search(r"Tagged:\s+yes", info)
    raw = handout.read_bytes()
    assert re.search(rb"/Lang\s*\((?:\xfe\xff\x00b\x00n|bn)", raw), "document language bn"


def prose_paragraphs():
    """Plain Bengali prose paragraphs of the sources: no code, math, markup, inline expressions,
    lists, tables, headings, notes or slide-only text."""
    paragraphs = []
    for qmd in sorted(LECTURE.glob("_*.qmd")):
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


def test_bengali_prose_round_trips(text):
    paragraphs = prose_paragraphs()
    assert len(paragraphs) >= 10, "the lecture has plain prose paragraphs"
    flat = squash(without_page_furniture(text))
    missing = [f"{name}: {p[:80]}" for name, p in paragraphs if squash(p) not in flat]
    print(f"plain prose paragraphs found verbatim: {len(paragraphs) - len(missing)}/{len(paragraphs)}")
    assert not missing, "prose not extractable as written:\n" + "\n".join(missing)


def executed_cells():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        options = cell.get("metadata", {}).get("lecture", {}).get("options", {})
        yield cell, options


def test_every_output_appears(text):
    flat = squash(without_page_furniture(text))
    checked, missing = 0, []
    for cell, options in executed_cells():
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
    assert checked > 20
    assert not missing, "outputs missing from the handout:\n" + "\n".join(missing)


def test_code_copies_without_line_numbers_and_runs(handout, text):
    """Every echoed cell's code is in the text line by line, with nothing between its lines (no
    line numbers); rebuilt with the layout's indentation, each cell that sits on one page compiles."""
    flat = squash(without_page_furniture(text))
    layout = subprocess.run(["pdftotext", "-layout", str(handout), "-"], capture_output=True, text=True).stdout
    layout_lines = layout.splitlines()
    one = lambda l: " ".join(l.split())
    checked, broken, compiled = 0, [], 0
    for cell, options in executed_cells():
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


def answers_and_solutions():
    """Solution and quiz-explanation texts (plain lines with Bengali) from the sources."""
    texts = []
    for qmd in sorted(LECTURE.glob("_*.qmd")):
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


def test_answers_only_in_the_appendix(text):
    assert "উত্তরমালা" in text
    heading = [m.start() for m in re.finditer("উত্তরমালা", text)][-1]
    text = without_page_furniture(text)
    heading = [m.start() for m in re.finditer("উত্তরমালা", text)][-1]
    before, after = squash(text[:heading]), squash(text[heading:])
    texts = answers_and_solutions()
    assert texts, "the lecture has solutions"
    early = [t[:60] for t in texts if squash(t) in before]
    absent = [t[:60] for t in texts if squash(t) not in after]
    print(f"solution paragraphs checked: {len(texts)}")
    assert not early, "solutions before the appendix:\n" + "\n".join(early)
    assert not absent, "solutions missing from the appendix:\n" + "\n".join(absent)


def test_cover_toc_running_header_numbers(handout, text):
    first = pdf_text_page(handout, 1)
    for part in ("বাংলায় PyTorch", "পর্ব ০৯", "৯১-এর মধ্যে", "মডিউল ২", "nn.Module দিয়ে model বানানো"):
        assert part in first, part
    assert re.search(r"PyTorch \d", first), "the cover names the versions the outputs came from"
    assert "সূচিপত্র" in pdf_text_page(handout, 2)
    page5 = pdf_text_page(handout, 5)
    assert "বাংলায় PyTorch · পর্ব ০৯" in page5 and re.search(r"^৫$", page5, re.M), "running header, Bengali page number"
    assert "ছবি ৯.১" in text and "সারণি ৯.১" in text
    for box in ("মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "প্রশ্ন ১"):
        assert box in text, box


def pdf_text_page(pdf, n):
    return subprocess.run(["pdftotext", "-raw", "-f", str(n), "-l", str(n), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


def test_figures_have_alt_text(handout):
    raw = handout.read_bytes()
    assert b"/Figure" in raw and b"/Alt" in raw

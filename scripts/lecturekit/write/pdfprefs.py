"""The handout's viewer preferences: a PDF viewer shows the document's title (DisplayDocTitle, as
PDF/UA asks), not the file name. Typst has no setting for it, so it is added after the compile as
an incremental update: the compiled bytes stay as they were, and one new version of the catalog
follows them (a few hundred bytes), which every reader honours."""
from __future__ import annotations

import re
from pathlib import Path

from lecturekit.errors import LectureError
from lecturekit.fsutil import write_atomic

_TRAILER = re.compile(rb"trailer\s*(<<.*?>>)\s*startxref\s+(\d+)\s*%%EOF\s*$", re.S)


def display_doc_title(pdf: Path) -> None:
    """Add `/DisplayDocTitle true` to the PDF's viewer preferences (once; nothing if present)."""
    data = pdf.read_bytes()
    if b"/DisplayDocTitle true" in data:
        return
    tail = _TRAILER.search(data[-4096:])
    if not tail:
        raise LectureError("the handout PDF has no classic trailer to update (DisplayDocTitle)", pdf)
    trailer, prev = tail.group(1), int(tail.group(2))
    root = re.search(rb"/Root (\d+) (\d+) R", trailer)
    size_field = re.search(rb"/Size (\d+)", trailer)
    if not root or not size_field:
        raise LectureError("the handout PDF's trailer names no catalog or size (DisplayDocTitle)", pdf)
    number, generation = root.groups()
    catalog = re.search(rb"(?:^|\s)" + number + rb" " + generation + rb" obj\s*(<<.*?>>)\s*endobj", data, re.S)
    if not catalog:
        raise LectureError("the handout PDF's catalog is not a plain object (DisplayDocTitle)", pdf)
    body = catalog.group(1)
    if b"/ViewerPreferences<<" in body:
        body = body.replace(b"/ViewerPreferences<<", b"/ViewerPreferences<</DisplayDocTitle true", 1)
    else:
        body = body[:-2] + b"/ViewerPreferences<</DisplayDocTitle true>>>>"
    keep = b"".join(m.group(0) for m in re.finditer(rb"/(?:Info \d+ \d+ R|ID\s*\[[^\]]*\])", trailer))
    size = size_field.group(1)
    start = len(data) + 1
    update = b"\n" + number + b" " + generation + b" obj\n" + body + b"\nendobj\n"
    xref = len(data) + len(update)
    update += (b"xref\n" + number + b" 1\n" + f"{start:010d} {int(generation):05d} n \n".encode()
               + b"trailer\n<</Size " + size + b"/Root " + number + b" " + generation + b" R" + keep
               + f"/Prev {prev}>>\nstartxref\n{xref}\n%%EOF\n".encode())
    write_atomic(pdf, data + update)  # a full disk leaves the compiled file, and nothing aside

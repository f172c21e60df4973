"""The handout's viewer preferences: a PDF viewer shows the document's title (DisplayDocTitle, as
PDF/UA asks), not the file name. Typst has no setting for it, so pikepdf (qpdf) sets it after the
compile and writes the file again, its objects packed into object streams (about half the size
Typst writes) and its /ID derived from its content: the same compiled bytes give the same file."""
from __future__ import annotations

import io
from pathlib import Path

import pikepdf

from lecturekit.errors import LectureError
from lecturekit.fsutil import write_atomic


def display_doc_title(pdf: Path) -> None:
    """Set `/DisplayDocTitle true` in the PDF's viewer preferences (nothing when it is set)."""
    written = io.BytesIO()
    try:
        with pikepdf.open(pdf) as document:
            preferences = document.Root.get("/ViewerPreferences")
            if preferences is None:
                preferences = document.Root.ViewerPreferences = pikepdf.Dictionary()
            if bool(preferences.get("/DisplayDocTitle", False)):
                return
            preferences.DisplayDocTitle = True
            document.save(written, deterministic_id=True, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    except pikepdf.PdfError as err:
        raise LectureError(f"the handout PDF cannot be read to set its viewer preferences: {err}", pdf) from None
    write_atomic(pdf, written.getvalue())  # a full disk leaves the compiled file, and nothing aside

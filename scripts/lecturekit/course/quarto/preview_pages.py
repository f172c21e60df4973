"""What `quarto preview` leaves behind, and how it is recognised and swept.

`quarto preview` (at the root or of a lecture's source) is served by scripts/preview, which
`_quarto.yml` names as the project's preview server: its decks come from our executor and cache.
Quarto still renders the previewed source once before it starts that server; under `quarto preview`
pre-render turns execution off for that render, and post-render throws its product away
(post_render.discard), leaving a stub page in its place, so no kernel of Quarto's starts and nothing
of it reaches `_output/`.
"""
from __future__ import annotations

from pathlib import Path

from lecturekit.project import Project


PREVIEW_STUB = ('<!doctype html><meta charset="utf-8"><title>quarto preview</title>'
                '<p>Not a product: <code>quarto preview</code> serves this lecture from scripts/preview, '
                'executed through the course\'s executor. The next <code>quarto render</code> removes this page.</p>\n')


def is_preview_page(path: Path) -> bool:
    """What `quarto preview` leaves at a source's side: the page that stands in for the one
    post-render threw away, or the empty file Quarto touches once the server is up."""
    try:
        return path.stat().st_size == 0 or path.read_text(encoding="utf-8") == PREVIEW_STUB
    except (OSError, ValueError):
        return False


# What `quarto preview` of a source renders beside it: the page (the first format) and the deck.
PREVIEW_PAGES = ("page.html", "index.html")


def sweep_preview_pages(project: Project) -> None:
    """The pages a stopped `quarto preview` left in the lecture folders belong to no reader (and a
    file there is a data file of the lecture, an input of its execution)."""
    for name in PREVIEW_PAGES:
        for page in project.lectures_dir.glob(f"*/{name}"):
            if is_preview_page(page):
                page.unlink(missing_ok=True)

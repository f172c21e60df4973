"""`scripts/preview [LECTURE]`: a lecture's deck on a local server that reloads on every save.

Also `quarto preview`'s server (`project: preview: serve:` in `_quarto.yml` starts it with
`--quarto`): it then serves the lecture named on Quarto's command line, or every lecture. A named
lecture is built at start; otherwise each deck is built when it is first opened. How a preview deck
is built and served: course/preview/server.py.
"""
from __future__ import annotations

import argparse
import os
import sys

from lecturekit.course.preview.server import PreviewDeck, serve
from lecturekit.course.quarto.handoff import previewed_lecture
from lecturekit.course.quarto.preview_pages import sweep_preview_pages
from lecturekit.errors import LectureError, run_command
from lecturekit.project import Project


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/preview", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("lecture", nargs="?",
                        help="lecture folder name, built at once (default: every lecture, each built when opened)")
    parser.add_argument("--port", type=int, default=4300)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--quarto", action="store_true",
                        help="started by `quarto preview`: the lecture named on its command line, else all")
    parser.add_argument("--verify", action="store_true",
                        help="after each save that rewrote one section's slides, compare the deck with a full "
                             "render, slide by slide (slower; for tests)")
    return parser.parse_args(argv)


def preview(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    project = Project.find()
    if args.quarto:  # the pages Quarto's render before this server left beside the sources
        sweep_preview_pages(project)
    named = previewed_lecture() if args.quarto else args.lecture
    lectures = project.lectures([named] if named else None)
    if not lectures:
        raise LectureError("no lecture to preview (lectures/<name>/index.qmd)", project.lectures_dir)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    decks = [PreviewDeck(project, lecture, say, quarto=args.quarto, verify=args.verify) for lecture in lectures]
    # A named lecture is built now (its errors said before the server starts); the others when opened.
    if named and not all(deck.build() or deck.path.exists() for deck in decks):
        return 1
    serve(decks, args.host, args.port, parent=os.getppid() if args.quarto else None)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_command(lambda: preview(argv), interrupted="preview stopped") or 0


if __name__ == "__main__":
    sys.exit(main())

"""`scripts/preview [LECTURE]`: a lecture's deck on a local server that reloads on every save.

Also `quarto preview`'s server (`project: preview: serve:` in `_quarto.yml` starts it with
`--quarto`): it then serves the lecture named on Quarto's command line, or every lecture. How a
preview deck is built and served: course/preview.py.
"""
from __future__ import annotations

import argparse
import os
import sys

from lecturekit.course.preview import PreviewDeck, serve
from lecturekit.course.quarto_products import previewed_lecture
from lecturekit.errors import LectureError, run_command
from lecturekit.project import Project


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/preview", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("lecture", nargs="?", help="lecture folder name (default: the first lecture)")
    parser.add_argument("--port", type=int, default=4300)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--quarto", action="store_true",
                        help="started by `quarto preview`: the lecture named on its command line, else all")
    return parser.parse_args(argv)


def preview(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    project = Project.find()
    if args.quarto:
        named = previewed_lecture()
        lectures = project.lectures([named] if named else None)
    else:
        lectures = project.lectures([args.lecture] if args.lecture else None)[:1]
    if not lectures:
        raise LectureError("no lecture to preview (lectures/<name>/index.qmd)", project.lectures_dir)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    decks = [PreviewDeck(project, lecture, say, quarto=args.quarto) for lecture in lectures]
    built = [deck.build() or deck.path.exists() for deck in decks]
    if not all(built):
        return 1
    serve(decks, args.host, args.port, parent=os.getppid() if args.quarto else None)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_command(lambda: preview(argv), interrupted="preview stopped") or 0


if __name__ == "__main__":
    sys.exit(main())

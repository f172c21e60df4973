"""`scripts/render`: every lecture (or the named ones) -> _output/<lecture>/slides.html + handout.pdf.

Stages: read -> execute once (or reuse the cache) -> write each format. `--execute-only` stops after
the executed notebooks, which is what `quarto render` runs as its pre-render step.
"""
import argparse
import sys
import time

from .build import execute_lecture
from .errors import LectureError
from .execute import progress_printer
from .project import Project
from .writers import FORMATS, LectureWriter


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="scripts/render", description=__doc__.split("\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture folder names (default: all)")
    parser.add_argument("--to", choices=sorted(FORMATS), action="append",
                        help="only this format (repeatable; default: all)")
    parser.add_argument("--fresh", action="store_true", help="ignore the execution cache")
    parser.add_argument("--execute-only", action="store_true",
                        help="write the executed notebooks and stop (Quarto's pre-render step)")
    parser.add_argument("--quiet", action="store_true", help="no per-cell progress lines")
    return parser.parse_args(argv)


def render(argv=None):
    args = parse_args(argv)
    say = progress_printer()
    project = Project.find()
    formats = [FORMATS[name] for name in (args.to or FORMATS)]
    for lecture_dir in project.lectures(args.lectures):
        execution = execute_lecture(project, lecture_dir, fresh=args.fresh,
                                    progress=None if args.quiet else say)
        how = "cache hit, no kernel started" if execution.from_cache else "executed"
        say(f"[{lecture_dir.name}] execute: {execution.seconds:.2f} s ({how})")
        if args.execute_only:
            continue
        writer = LectureWriter(project, execution)
        for fmt in formats:
            started = time.perf_counter()
            product = writer.write(fmt)
            say(f"[{lecture_dir.name}] {fmt.name}: {time.perf_counter() - started:.2f} s -> "
                f"{product.relative_to(project.root)}")
        for warning in writer.warnings:
            say(f"[{lecture_dir.name}] pandoc: {warning}")
    return 0


def main(argv=None):
    try:
        return render(argv)
    except LectureError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; previous products left as they were", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

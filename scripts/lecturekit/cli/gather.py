"""`scripts/gather`: lectures' executions carried between machines in products folders (course/build/bundles.py).

  scripts/gather pack [LECTURE ...] --to DIR   these lectures' (default: all) execution cache entries
                                               into the products folder DIR
  scripts/gather unpack DIR [DIR ...]          the products folders' verified entries into this project's cache

Products never cross machines: after `unpack`, `scripts/render` executes only a lecture whose
execution key has no entry (none, when the folders came from renders of this commit on this CPU)
and writes every lecture's products here, from the verified executions.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from lecturekit.course.build import bundles
from lecturekit.errors import LectureError, run_command
from lecturekit.project import Project

USAGE = __doc__ or ""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/gather", description=USAGE.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(USAGE.split("\n")[2:]))
    commands = parser.add_subparsers(dest="command", required=True)
    pack = commands.add_parser("pack", help="lectures of this project into a products folder")
    pack.add_argument("lectures", nargs="*", help="lecture folder names (default: all)")
    pack.add_argument("--to", required=True, metavar="DIR", help="the products folder (made when missing)")
    unpack = commands.add_parser("unpack", help="products folders into this project")
    unpack.add_argument("folders", nargs="+", metavar="DIR", help="products folders")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    here = os.environ.get("LECTUREKIT_CWD") or os.getcwd()  # folders are relative to where it was typed

    def body() -> int:
        project = Project.find()
        if args.command == "pack":
            names = [p.name for p in project.lectures(args.lectures)]
            for moved in bundles.pack(project, names, Path(here, args.to)):
                print(moved.line(f"packed into {args.to}"))
            return 0
        for folder in args.folders:
            if not Path(here, folder).is_dir():
                raise LectureError("no such products folder", Path(here, folder))
        for folder in args.folders:
            for moved in bundles.unpack(project, Path(here, folder)):
                print(moved.line(f"placed from {folder}"))
        return 0
    return run_command(body) or 0


if __name__ == "__main__":
    sys.exit(main())

"""`scripts/modtree MODULE:CLASS -o FILE`: the module-tree figure of any `nn.Module`.

`modtree` is a course package in the project's `code/` folder, not part of the kit (only the kit is
installed). It runs as a lecture's kernel imports it: a Python of this venv with `code/` first on
PYTHONPATH, the single import root of the course packages (execute/kernelenv.py). The project is
the one around the working folder, else the one the kit belongs to; the working folder stays, so
`-o` paths are the caller's.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lecturekit.errors import LectureError
from lecturekit.execute.kernelenv import code_path
from lecturekit.project import Project


def course_project() -> Project:
    try:
        return Project.find()
    except LectureError:
        return Project(Path(__file__).resolve().parents[3])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    env = {**os.environ, "PYTHONPATH": code_path(os.environ, course_project().code_dir)}
    # -P: nothing else before PYTHONPATH (not the working folder), as for the installed command.
    return subprocess.run([sys.executable, "-P", "-m", "modtree", *argv], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())

"""`scripts/gradgraph PACKAGE.MODULE:NAME -o FILE`: the autograd-graph figure of a tensor.

Like `scripts/modtree`, it runs a course package of the project's `code/` folder (`gradgraph`), with
`code/` first on PYTHONPATH as a lecture's kernel has it; the working folder stays, so `-o` paths
are the caller's.
"""
from __future__ import annotations

import os
import subprocess
import sys

from lecturekit.cli.modtree import course_project
from lecturekit.execute.kernelenv import code_path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    env = {**os.environ, "PYTHONPATH": code_path(os.environ, course_project().code_dir)}
    return subprocess.run([sys.executable, "-P", "-m", "gradgraph", *argv], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())

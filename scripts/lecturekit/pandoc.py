"""pandoc, the pinned one (pypandoc-binary's), run the one way every stage runs it: the binary found
once, its output captured, a time limit, and a failure raised as the kit's error with pandoc's own
words (its stderr)."""
from __future__ import annotations

import functools
import importlib.util
import subprocess
from collections.abc import Callable, Sequence
from os import PathLike
from pathlib import Path

from lecturekit.errors import LectureError

# The longest run is a lecture's page (the filters, KaTeX): 16 s of wall time for lecture 09 with
# its three formats written at once on 2 cores at a load average of 15. A run past this limit is
# hung (a Lua filter in a loop), not slow.
TIMEOUT = 300.0

Cwd = str | PathLike[str] | None
# How the command is started: `start_process` below, or a caller's own (the write stage's, which
# can stop every child at once).
Start = Callable[[list[str], Cwd, "str | None", float], subprocess.CompletedProcess[str]]


class PandocError(LectureError):
    """pandoc exited with a failure, or did not finish in time (`returncode` None)."""

    def __init__(self, message: str, stderr: str, returncode: int | None) -> None:
        super().__init__(message, detail=stderr.strip() or None)
        self.stderr = stderr
        self.returncode = returncode


@functools.cache
def pandoc_binary() -> str:
    """pypandoc-binary's pandoc, found without importing pypandoc (a third of a second); pypandoc's
    own search (PATH, its download folder) when the package carries none."""
    spec = importlib.util.find_spec("pypandoc")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        binary = Path(folder) / "files" / "pandoc"
        if binary.is_file():
            return str(binary)
    import pypandoc  # type: ignore[import-untyped]  # (no annotations)
    path: str = pypandoc.get_pandoc_path()
    return path


def start_process(argv: list[str], cwd: Cwd, stdin: str | None, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, encoding="utf-8",
                          errors="replace", timeout=timeout, check=False)


def run_pandoc(args: Sequence[str], *, stdin: str | None = None, cwd: Cwd = None, timeout: float = TIMEOUT,
               start: Start = start_process) -> subprocess.CompletedProcess[str]:
    """pandoc with these arguments, to its end; its output as text. PandocError when it fails."""
    argv = [pandoc_binary(), *args]
    try:
        run = start(argv, cwd, stdin, timeout)
    except subprocess.TimeoutExpired as err:
        said = err.stderr.decode("utf-8", "replace") if isinstance(err.stderr, bytes) else (err.stderr or "")
        raise PandocError(f"pandoc did not finish in {timeout:g} s", said, None) from None
    if run.returncode != 0:
        raise PandocError(f"pandoc exited {run.returncode}", run.stderr, run.returncode)
    return run

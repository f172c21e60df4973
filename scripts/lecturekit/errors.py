"""One error type for everything an author can get wrong, always with a location; and what a command
prints, never with a terminal sequence in it."""
from __future__ import annotations

import sys
from collections.abc import Callable
from os import PathLike
from typing import Any, TextIO, cast

from lecturekit.ansi import terminal_text


class LectureError(Exception):
    """A problem in a lecture source, reported as `file:line: [label] message`."""

    def __init__(self, message: str, file: str | PathLike[str] | None = None, line: int | None = None,
                 label: str | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.label = label
        self.detail = detail  # e.g. a traceback, printed under the headline

    @classmethod
    def from_os_error(cls, err: OSError) -> "LectureError":
        """A fault of the machine (read-only folder, full disk) as one line: the path and the cause."""
        cause = err.strerror or str(err)
        if err.filename2:
            return cls(f"{cause} (to {err.filename2})", err.filename)
        return cls(cause, err.filename)

    def __str__(self) -> str:
        where = str(self.file) if self.file else "<lecture>"
        if self.line:
            where += f":{self.line}"
        head = f"{where}: "
        if self.label:
            head += f"[cell {self.label}] "
        text = head + self.message
        if self.detail:
            text += "\n" + self.detail.rstrip()
        # A message carries text from outside (an exception's, pandoc's, a file name): no terminal
        # sequence of it reaches the author's terminal or the course page.
        return terminal_text(text)


class TerminalStream:
    """A terminal's stream that passes on text without its sequences and control characters: what a
    command prints may quote an output, a warning or a path it did not write."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(terminal_text(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer …
        return getattr(self.stream, name)


def run_command(body: Callable[[], int | None], interrupted: str = "interrupted") -> int | None:
    """Run a command's body: a LectureError becomes one message and exit 1, Ctrl-C exit 130. What it
    prints reaches the terminal without terminal sequences."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, TerminalStream(sys.stdout)), cast(TextIO, TerminalStream(sys.stderr))
    try:
        return _run(body, interrupted)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = streams


def _run(body: Callable[[], int | None], interrupted: str) -> int | None:
    try:
        return body()
    except LectureError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"error: {LectureError.from_os_error(err)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(interrupted, file=sys.stderr)
        return 130

"""One error type for everything an author can get wrong, always with a location."""
from __future__ import annotations

from collections.abc import Callable
from os import PathLike


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
        return text


def run_command(body: Callable[[], int | None], interrupted: str = "interrupted") -> int | None:
    """Run a command's body: a LectureError becomes one message and exit 1, Ctrl-C exit 130."""
    import sys
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

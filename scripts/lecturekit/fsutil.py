"""Files, as the kit reads them: a source's text, or an error that names where it went wrong."""
from pathlib import Path

from lecturekit.errors import LectureError


def read_source(path: Path, parent: Path | None = None, line: int | None = None) -> str:
    """A source file's text. What cannot be read is blamed on the line that names the file
    (an include, a `file:` option); bytes that are not UTF-8 on their own line."""
    path = Path(path)
    where = (parent or path, line)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LectureError(f"file not found: {path}", *where) from None
    except IsADirectoryError:
        raise LectureError(f"{path} is a folder, not a file", *where) from None
    except OSError as err:
        raise LectureError(f"cannot read {path}: {err.strerror}", *where) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad_line = data[:err.start].count(b"\n") + 1
        column = err.start - data.rfind(b"\n", 0, err.start)
        raise LectureError(f"not UTF-8: byte 0x{data[err.start]:02x} at column {column} "
                           "(save the file as UTF-8)", path, bad_line) from None

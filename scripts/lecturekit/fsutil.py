"""Files, as the kit reads and writes them: a source's text, or an error that names where it went wrong;
writes that a reader never sees half done."""
import contextlib
import os
import threading
from pathlib import Path

from lecturekit.errors import LectureError


# A source larger than this is refused before it is read: the largest section of lecture 09 is 33 kB,
# and a source of many megabytes is a mistake (or a log pasted in) that every stage would pay for.
MAX_SOURCE_BYTES = 2_000_000
BOM = "\ufeff"


def read_source(path: Path, parent: Path | None = None, line: int | None = None,
                limit: int = MAX_SOURCE_BYTES) -> str:
    """A source file's text. What cannot be read is blamed on the line that names the file
    (an include, a `file:` option); bytes that are not UTF-8 on their own line. A UTF-8 byte-order
    mark at the start is dropped (editors on Windows write one; left in, the first line would be
    no front matter or heading); one anywhere else is an error at its line (it would turn a heading
    into a paragraph without a word)."""
    path = Path(path)
    where = (parent or path, line)
    if path.exists() and not path.is_file() and not path.is_dir():
        # A pipe or a device would block the render, or never end.
        raise LectureError(f"{path} is not a regular file (a pipe or a device)", *where)
    try:
        if path.is_file() and path.stat().st_size > limit:
            raise LectureError(f"{path} holds {path.stat().st_size:,} bytes, more than a source may "
                               f"({limit:,}); split it into sections", *where)
        data = path.read_bytes()
    except FileNotFoundError:
        raise LectureError(f"file not found: {path}", *where) from None
    except IsADirectoryError:
        raise LectureError(f"{path} is a folder, not a file", *where) from None
    except OSError as err:
        raise LectureError(f"cannot read {path}: {err.strerror}", *where) from None
    try:
        text = data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as err:
        bad_line = data[:err.start].count(b"\n") + 1
        column = err.start - data.rfind(b"\n", 0, err.start)
        raise LectureError(f"not UTF-8: byte 0x{data[err.start]:02x} at column {column} "
                           "(save the file as UTF-8)", path, bad_line) from None
    if BOM in text:
        raise LectureError("a byte-order mark (U+FEFF, invisible) inside the text: it would turn this line's "
                           "heading or front matter into text; delete it", path, text[:text.index(BOM)].count("\n") + 1)
    _check_line_ends(text, path)
    return text


def _check_line_ends(text: str, path: Path) -> None:
    """A carriage return that ends no CRLF: pandoc (and so the products) read a line break there, the
    reader, Quarto and every message's line number none. Refused at its line."""
    lone = text.find("\r")
    while lone != -1 and text.startswith("\r\n", lone):
        lone = text.find("\r", lone + 2)
    if lone != -1:
        raise LectureError("a line ends with a lone carriage return (CR, an old Mac line ending): pandoc would read "
                           "a line break there and the reader none; save the file with LF (or CRLF) line endings",
                           path, text.count("\n", 0, lone) + 1)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write atomically, and not at all when the file already holds these bytes."""
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    # Aside and renamed: the other format's writer may read or write this figure at the same moment.
    write_atomic(path, data)
    return True


def write_atomic(path: Path, data: bytes) -> None:
    """Write aside (`.<name>.<pid>.<thread>.tmp`) and rename: a reader never sees half a file, and a
    failed write (a full disk) leaves neither half a file nor the temporary one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(err, OSError) and err.filename is None:  # a failed write() names no file
            raise OSError(err.errno, err.strerror, str(path)) from None
        raise

"""Files, as the kit reads and writes them: a source's text, or an error that names where it went wrong;
files from elsewhere (cache entries, products folders, manifests) read without following a link or
blocking; writes that a reader never sees half done."""
import contextlib
import errno
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from lecturekit.errors import LectureError


# A source larger than this is refused before it is read: the largest section of lecture 09 is 33 kB,
# and a source of many megabytes is a mistake (or a log pasted in) that every stage would pay for.
MAX_SOURCE_BYTES = 2_000_000
BOM = "\ufeff"


class UnsafeFile(OSError):
    """A file the kit does not read: a symbolic link (its target could be anything on the machine), a
    pipe, socket or device (a read could block forever), a folder, or more bytes than its kind may
    hold. `why` (its strerror) says which, `size` the bytes it holds when that is the cause."""

    def __init__(self, code: int, why: str, path: Path | str, size: int | None = None) -> None:
        super().__init__(code, why, str(path))
        self.why = why
        self.size = size


@dataclass(frozen=True)
class Untrusted:
    """A file's bytes, read once through one descriptor, and its modification time."""
    data: bytes
    mtime_ns: int


_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def _open_inside(path: Path, below: Path) -> int:
    """`path` opened through each folder from `below` down, none of them, nor the file, a link."""
    parts = path.relative_to(below).parts
    folder = os.open(below, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in parts[:-1]:
            try:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR) and \
                        stat.S_ISLNK(os.lstat(name, dir_fd=folder).st_mode):
                    # ENOTDIR, not ELOOP: the file itself is no link, and removing it would follow this one.
                    raise UnsafeFile(errno.ENOTDIR, f"{name}/ is a symbolic link, not a folder", path) from None
                raise
            os.close(folder)
            folder = inner
        return os.open(parts[-1], _READ | os.O_NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)


def read_untrusted_file(path: Path | str, limit: int, below: Path | str | None = None,
                        links: bool = False) -> Untrusted:
    """The one reader of a file the kit did not write in this run. It is opened without blocking
    (O_NONBLOCK: a pipe with no writer opens at once) and without following a symbolic link
    (O_NOFOLLOW; with `below`, no folder between `below` and it may be one either), then judged on
    what was opened (fstat): only a regular file of at most `limit` bytes is read, and no more than
    `limit` bytes of it even when it grows meanwhile. Anything else is an UnsafeFile (an OSError);
    a missing file is FileNotFoundError. `links=True` (sources, whose links read/resources.py judges
    inside the project) follows a link to its file."""
    path = Path(path)
    try:
        if below is not None and not links:
            fd = _open_inside(path, Path(below))
        else:
            fd = os.open(path, _READ | (0 if links else os.O_NOFOLLOW))
    except OSError as err:
        if err.errno == errno.ELOOP and not isinstance(err, UnsafeFile):
            raise UnsafeFile(errno.ELOOP, "a symbolic link (what it points at is not read)", path) from None
        raise
    try:
        found = os.fstat(fd)
        if stat.S_ISDIR(found.st_mode):
            raise UnsafeFile(errno.EISDIR, "a folder, not a file", path)
        if not stat.S_ISREG(found.st_mode):
            raise UnsafeFile(errno.EINVAL, "not a regular file (a pipe, a socket or a device)", path)
        if found.st_size > limit:
            raise UnsafeFile(errno.EFBIG, f"{found.st_size:,} bytes, more than such a file may hold ({limit:,})",
                             path, found.st_size)
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb", closefd=True) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnsafeFile(errno.EFBIG, f"more than {limit:,} bytes, more than such a file may hold", path, len(data))
    return Untrusted(data, found.st_mtime_ns)


def read_untrusted(path: Path | str, limit: int, below: Path | str | None = None) -> bytes:
    """read_untrusted_file's bytes."""
    return read_untrusted_file(path, limit, below).data


def read_source(path: Path, parent: Path | None = None, line: int | None = None,
                limit: int = MAX_SOURCE_BYTES) -> str:
    """A source file's text. What cannot be read is blamed on the line that names the file
    (an include, a `file:` option); bytes that are not UTF-8 on their own line. A UTF-8 byte-order
    mark at the start is dropped (editors on Windows write one; left in, the first line would be
    no front matter or heading); one anywhere else is an error at its line (it would turn a heading
    into a paragraph without a word)."""
    path = Path(path)
    where = (parent or path, line)
    try:
        data = read_untrusted_file(path, limit, links=True).data
    except FileNotFoundError:
        raise LectureError(f"file not found: {path}", *where) from None
    except UnsafeFile as err:
        if err.errno == errno.EISDIR:
            raise LectureError(f"{path} is a folder, not a file", *where) from None
        if err.errno == errno.EFBIG:
            raise LectureError(f"{path} holds {err.size:,} bytes, more than a source may "
                               f"({limit:,}); split it into sections", *where) from None
        # A pipe or a device would block the render, or never end.
        raise LectureError(f"{path} is not a regular file (a pipe or a device)", *where) from None
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
    try:  # through the untrusted reader: a pipe, link or other size there is a file that differs
        if read_untrusted(path, len(data)) == data:
            return False
    except (OSError, UnsafeFile):
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

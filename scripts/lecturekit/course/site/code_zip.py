"""The course index (`_output/index.html`, the one page students open) and each lecture's code zip.

A lecture's code is the front matter's `code:` (a path or a list of paths under `code/`) or else its
own folder `code/scripts/<lecture>/`; a lecture with neither has no zip (never another lecture's
scripts). Every package under `code/` those scripts import, directly or through another such
package, goes in too, so the scripts run as they are. The zip
holds `scripts/` and the packages side by side, as in `code/`. Zips are deterministic (sorted
entries, fixed timestamps and permissions): the same code gives the same bytes. Nothing is rewritten
when its bytes would not change.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING


from lecturekit.course.site import pages
from lecturekit.errors import LectureError
from lecturekit.read import frontmatter
from lecturekit.read.frontmatter import Meta
from lecturekit.fsutil import UnsafeFile, read_untrusted, write_if_changed
from lecturekit.words import WORDS

if TYPE_CHECKING:
    from lecturekit.project import Project

ZIP_NAME = pages.ZIP_NAME
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
MAX_CODE_FILE_BYTES = 20_000_000  # a file of the course code: scripts, packages and their data


def _refuse_link(project: Project, path: Path) -> None:
    """A LectureError naming `path` (relative to the project) when it, or a folder between `code/` and
    it, is a symbolic link."""
    code = project.code_dir
    for step in [path, *Path(path).parents]:
        if step == code or code not in step.parents:
            break
        if step.is_symlink():
            shown = step.relative_to(project.root).as_posix()
            raise LectureError(f"a symbolic link in the lecture's code: code.zip would publish what it points at; "
                               f"put the file itself there, or remove the link", shown)


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imported_top_names(path: Path) -> set[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def lecture_code_files(project: Project, lecture_dir: Path, meta: Meta | None = None) -> list[tuple[str, Path]]:
    """[(name inside the zip, path)] for one lecture, sorted; empty when it has no scripts. A LectureError
    names the first symbolic link among them (or among what a package holds)."""
    code = project.code_dir
    meta = meta or {}
    if meta.get("code"):
        listed = meta["code"] if isinstance(meta["code"], list) else [meta["code"]]
        for entry in listed:
            _refuse_link(project, code / entry)
        scripts = [p for entry in listed for p in
                   (_python_files(code / entry) if (code / entry).is_dir() else [code / entry])]
        arcname: Callable[[Path], str] = lambda p: p.relative_to(code).as_posix()  # noqa: E731
    else:
        folder = code / "scripts" / Path(lecture_dir).name
        _refuse_link(project, folder)
        scripts = sorted(folder.glob("*.py")) if folder.is_dir() else []
        arcname = lambda p: "scripts/" + p.relative_to(folder).as_posix()  # noqa: E731
    if not scripts:
        return []
    for path in scripts:
        _refuse_link(project, path)
    files = {arcname(p): p for p in scripts if p.is_file()}
    packages = {p.name for p in code.iterdir() if p.is_dir() and (p / "__init__.py").exists()} if code.is_dir() else set()
    wanted: set[str] = set()
    queue = list(files.values())
    while queue:
        for name in _imported_top_names(queue.pop()) & packages:
            if name not in wanted:
                _refuse_link(project, code / name)
                wanted.add(name)
                queue.extend(_python_files(code / name))
    for name in wanted:
        for path in sorted((code / name).rglob("*")):
            if "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
                continue
            _refuse_link(project, path)  # a linked folder too: rglob lists it and goes no further
            if path.is_file():
                files[path.relative_to(code).as_posix()] = path
    return sorted(files.items())


def _code_bytes(project: Project, path: Path) -> bytes:
    """A file of the course code, as the zip takes it: read below `code/` without following a link."""
    try:
        return read_untrusted(path, MAX_CODE_FILE_BYTES, below=project.code_dir)
    except UnsafeFile as err:
        raise LectureError(f"{err.why}: code.zip takes only the course code's own files",
                           Path(path).relative_to(project.root).as_posix()) from None


def code_zip_bytes(files: list[tuple[str, bytes]], prefix: str) -> tuple[bytes, str]:
    """A deterministic zip of `files` ([(name, bytes)]): sorted entries under `prefix/`, fixed dates
    and modes; its comment is the digest of its contents, so an unchanged zip is recognised without
    rebuilding it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, data, compresslevel=9)
        zf.comment = files_digest(files).encode()
    return buffer.getvalue(), files_digest(files)


def files_digest(files: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def has_code_zip(project: Project, lecture_dir: Path, meta: Meta | None = None) -> bool:
    """Whether the lecture's page links a code zip: it has scripts, none of them a link."""
    try:
        return bool(lecture_code_files(project, lecture_dir, meta))
    except LectureError:
        return False


def write_code_zip(project: Project, lecture_dir: Path, meta: Meta | None = None) -> Path | None:
    """`_output/<lecture>/code.zip`; None when the lecture has no scripts. Skips unchanged zips. A
    link among its files is a LectureError naming it, and no zip stays published for the lecture."""
    target = project.output_dir / Path(lecture_dir).name / ZIP_NAME
    try:
        files = [(name, _code_bytes(project, path)) for name, path in lecture_code_files(project, lecture_dir, meta)]
    except LectureError:
        target.unlink(missing_ok=True)  # an earlier zip may hold what the link points at
        raise
    if not files:
        target.unlink(missing_ok=True)  # the lecture's scripts were removed: no stale zip stays listed
        return None
    try:
        with zipfile.ZipFile(target) as zf:
            if zf.comment.decode() == files_digest(files):
                return target
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError):
        pass
    data, _ = code_zip_bytes(files, Path(lecture_dir).name)
    write_if_changed(target, data)
    return target


lecture_meta = pages.lecture_meta

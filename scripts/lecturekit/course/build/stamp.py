"""A lecture brought up to date, and the proof that nothing changed since, without reading it.

When a render leaves a lecture current (executed or cached, its outputs checked against
tests/expected/, its notebook, figures and every product written), `_build/<lecture>/stamp.json`
records:

- `inputs`: one digest of everything a render of it reads: the bytes of every file in the lecture
  folder, under code/, of tests/expected/<lecture>.yaml, every lecture's index.qmd (the page links
  its neighbours by title), `_quarto.yml`, `_extensions/`, the npm lock file and the kit's own code (reader, executor, check, writers), the installed packages (every
  `*.dist-info` of the interpreter's site-packages, with its time), the Python version, the CPU
  (model and instruction sets), the kernel's output-changing environment and the formats. It is a
  superset of the execution key's, the check's and the products' inputs, and it is computed when the
  render starts: a file saved during the render makes the next one differ.
- `state`: size and time of each file the render left for it: its execution cache entries, its
  executed notebook, its products manifest, its page's links, its figures, its products.
- `notes`: what the output check said (warnings included), said again when the stamp holds.

When both are the same again, every decision a render would take comes out the same (the key, the
cache entry, the check's verdict, the notebook, each product's inputs): the lecture is not read,
keyed or checked again. A lecture whose stamp differs in any byte is planned in full. `_build/stamp.json`
does the same for the course page, the code zips and the pages' shared assets (from every lecture's inputs).

Both paths write stamps (`scripts/render` after a full render, Quarto's post-render); Quarto's
pre-render reads them, so `quarto render` with nothing changed hands Quarto nothing without
importing the executor. Only hashing: a few milliseconds per lecture.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit.execute.kernelenv import output_env
from lecturekit.fsutil import write_atomic
from lecturekit.read.glossary import glossary_path

if TYPE_CHECKING:
    from lecturekit.project import Project

STAMP = "stamp.json"  # in _build/<lecture>/, and the course's in _build/
FORMAT = 2  # bump when what a stamp covers changes
KIT = Path(__file__).resolve().parents[2]  # scripts/lecturekit
SKIPPED = ("__pycache__",)


def _digest(path: Path, inside: Path) -> bytes:
    """The file's sha256, read only when it is a regular file inside `inside` (a resolved folder): a
    link out of the project is not ours to read, and a pipe would block (opened without waiting,
    judged on what was opened). Anything else gives a marker, and the render that follows refuses
    it with its message."""
    try:
        if not path.resolve().is_relative_to(inside):
            return b"outside\0"
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b"none\0"
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return b"not a regular file\0"
        return hashlib.file_digest(f, "sha256").digest()


def _tree(h: Any, folder: Path, root: Path) -> None:
    """Every file under `folder` (path from `root`, then its bytes' digest) into `h`, in order."""
    inside = root.resolve()
    if not folder.is_dir() or not folder.resolve().is_relative_to(inside):
        h.update(f"{folder.relative_to(root).as_posix()}: none\0".encode())
        return
    for parent, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            if name.endswith(".pyc"):
                continue
            path = Path(parent) / name
            h.update(f"{path.relative_to(root).as_posix()}\0".encode())
            h.update(_digest(path, inside))


def _file(h: Any, path: Path, root: Path) -> None:
    h.update(f"{path.relative_to(root).as_posix()}\0".encode())
    h.update(_digest(path, root.resolve()))


def _installed() -> list[list[Any]]:
    """Every installed distribution of this interpreter (name-version.dist-info) with its time: an
    upgrade, a reinstall or a new package changes it."""
    found: list[list[Any]] = []
    for key in ("purelib", "platlib"):
        folder = Path(sysconfig.get_paths()[key])
        try:
            entries = sorted((e for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info", ".pth"))),
                             key=lambda e: e.name)
        except OSError:
            continue
        found += [[key, e.name, e.stat().st_mtime_ns] for e in entries]
    return found


def _cpu() -> list[str]:
    """The CPU's model and flags lines (what the execution key's `machine` is read from)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.startswith(("model name", "flags"))]
    except OSError:
        return []
    return sorted(set(lines))


def course_inputs(project: Project, formats: Iterable[str]) -> str:
    """What every lecture shares: the project's settings, theme, course code, the kit, the environment."""
    h = hashlib.sha256(f"stamp {FORMAT}\0".encode())
    root = project.root
    for name in ("_quarto.yml", "package-lock.json"):
        _file(h, root / name, root)
    # The course glossary: every lecture's glossary section is drawn from it (read/glossary.py).
    _file(h, glossary_path(project.lectures_dir), root)
    _tree(h, root / "_extensions", root)
    _tree(h, project.code_dir, root)
    _tree(h, KIT, KIT.parent)
    # Which lectures there are and every one's front matter (its index.qmd): a page links its
    # neighbours by title (course/site/pages.py), so a new lecture or another's title rewrites it.
    for folder in project.lectures():
        _file(h, folder / "index.qmd", root)
    h.update(json.dumps({"python": sys.version, "installed": _installed(),
                         "cpu": _cpu(), "env": output_env(), "formats": sorted(formats)}).encode())
    return h.hexdigest()


def lecture_inputs(project: Project, name: str, common: str) -> str:
    h = hashlib.sha256(f"{common}\0{name}\0".encode())
    _tree(h, project.lectures_dir / name, project.root)
    _file(h, project.root / "tests" / "expected" / f"{name}.yaml", project.root)
    return h.hexdigest()


def inputs_of(project: Project, names: Iterable[str], formats: Iterable[str]) -> dict[str, str]:
    """{lecture: the digest of its inputs}."""
    common = course_inputs(project, formats)
    return {name: lecture_inputs(project, name, common) for name in names}


def _stats(paths: Iterable[Path], root: Path) -> dict[str, list[int]]:
    found = {}
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        if path.is_file():
            found[path.relative_to(root).as_posix()] = [stat.st_size, stat.st_mtime_ns]
    return found


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.rglob("*") if p.is_file())
    except OSError:
        return []


def lecture_state(project: Project, name: str, products: Iterable[str]) -> dict[str, list[int]]:
    """Size and time of what a render left for the lecture: cache entries, notebook, figures, products."""
    from lecturekit.write.figures import lecture_figures_dir
    paths = [*_listing(project.build_dir / "cache" / name), project.notebook_path(name),
             project.build_dir / name / "_metadata.yml",  # the page's links (course/site/pages.py's LINKS_FILE)
             project.build_dir / name / "products.json",  # what each product was written from (course/build/products.py)
             *_listing(lecture_figures_dir(project.root, name)),
             *(project.output_dir / name / product for product in products)]
    return _stats(paths, project.root)


def course_state(project: Project, names: Iterable[str]) -> dict[str, list[int]]:
    """The course page, every lecture's code zip and the pages' shared assets and search index
    (`_output/assets/`, course/site/pages.py's ASSETS), as they are."""
    return _stats([project.output_dir / "index.html", *(project.output_dir / n / "code.zip" for n in names),
                   *_listing(project.output_dir / "assets")], project.root)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, or damaged: the lecture is planned in full
        return {}
    return data if isinstance(data, dict) else {}


def _course_path(project: Project) -> Path:
    return project.build_dir / STAMP


def _lecture_path(project: Project, name: str) -> Path:
    return project.build_dir / name / STAMP


def settled(project: Project, name: str, inputs: str, products: Iterable[str]) -> list[str] | None:
    """The check's notes from the lecture's last render when nothing it is made from changed since
    and what that render left is as it left it; None otherwise."""
    stamp = _read(_lecture_path(project, name))
    if stamp.get("inputs") != inputs or stamp.get("state") != lecture_state(project, name, products):
        return None
    notes = stamp.get("notes")
    return [str(n) for n in notes] if isinstance(notes, list) else []


def course_settled(project: Project, inputs: Mapping[str, str]) -> bool:
    stamp = _read(_course_path(project))
    return stamp.get("inputs") == course_digest(inputs) and stamp.get("state") == course_state(project, inputs)


def course_digest(inputs: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(sorted(inputs.items())).encode()).hexdigest()


def record(project: Project, name: str, inputs: str, products: Iterable[str], notes: Iterable[str]) -> None:
    """The lecture is current: executed or cached, checked, its notebook, figures and products written."""
    write_atomic(_lecture_path(project, name), json.dumps(
        {"inputs": inputs, "state": lecture_state(project, name, products), "notes": list(notes)},
        ensure_ascii=False, indent=1).encode("utf-8"))


def record_course(project: Project, inputs: Mapping[str, str]) -> None:
    """The course page and code zips were written (or found current) for these lectures."""
    write_atomic(_course_path(project), json.dumps(
        {"inputs": course_digest(inputs), "state": course_state(project, inputs)}, indent=1).encode("utf-8"))


def forget(project: Project, names: Iterable[str] = ()) -> None:
    """A lecture that failed (and so the course page listing it) is planned in full next time."""
    for name in names:
        _lecture_path(project, name).unlink(missing_ok=True)
    _course_path(project).unlink(missing_ok=True)

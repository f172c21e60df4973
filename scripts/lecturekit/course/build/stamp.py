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
importing the executor. Only hashing (lecturekit.inputs, as every record of validity): a few
milliseconds per lecture.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit import inputs
from lecturekit.execute.kernelenv import output_env
from lecturekit.fsutil import write_atomic
from lecturekit.read.glossary import glossary_path

if TYPE_CHECKING:
    from lecturekit.project import Project

STAMP = "stamp.json"  # in _build/<lecture>/, and the course's in _build/
FORMAT = 3  # bump when what a stamp covers, or how, changes


def _hash(found: list[Any]) -> str:
    return inputs.data(json.dumps(found, ensure_ascii=False).encode("utf-8"))


def course_inputs(project: Project, formats: Iterable[str]) -> str:
    """What every lecture shares: the project's settings, theme, course code, the kit, the environment."""
    root = project.root
    return _hash([f"stamp {FORMAT}",
                  {name: inputs.file(root / name, root) for name in ("_quarto.yml", "package-lock.json")},
                  # The course glossary: every lecture's glossary section is drawn from it (read/glossary.py).
                  inputs.file(glossary_path(project.lectures_dir), root),
                  inputs.tree(root / "_extensions", root), inputs.tree(project.code_dir, root), inputs.kit(),
                  # Which lectures there are and every one's front matter (its index.qmd): a page links its
                  # neighbours by title (course/site/pages.py), so a new lecture or another's title rewrites it.
                  [[folder.name, inputs.file(folder / "index.qmd", root)] for folder in project.lectures()],
                  {"python": sys.version, "installed": inputs.installed(), "machine": inputs.machine(),
                   "env": output_env(), "formats": sorted(formats)}])


def lecture_inputs(project: Project, name: str, common: str) -> str:
    root = project.root
    return _hash([common, name, inputs.tree(project.lectures_dir / name, root),
                  inputs.file(root / "tests" / "expected" / f"{name}.yaml", root)])


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


def course_digest(lectures: Mapping[str, str]) -> str:
    return inputs.data(json.dumps(sorted(lectures.items())).encode())


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

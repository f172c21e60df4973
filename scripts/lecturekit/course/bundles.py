"""Products folders: rendered lectures carried from one machine to another (the CI's jobs, its cache).

A products folder holds any number of lectures, laid out as a project's build and output folders:

  DIR/_build/cache/<lecture>/<key>.json   the lecture's execution cache entries
  DIR/_build/<lecture>/products.json      what each product was written from (its inputs)
  DIR/_output/<lecture>/<product>         the products the manifest names (slides.html, handout.pdf …)

`pack` copies lectures of a project into one. `unpack` places one into a project: the executions
join its cache, the products replace the lecture's, and the manifest is recorded against the files
as placed. A render afterwards finds a placed product up to date exactly when the inputs it computes
itself (the executed notebook, the lecture folder, the theme, the writers' versions) are those the
product was written from, and writes it again otherwise: nothing in the folder is taken on trust but
the bytes of a product written from those inputs.

Only lecture folder names the project has, cache entries named by their key and the products of
known formats are read from a products folder, and only as files (a symbolic link is no file here);
anything else in it is left where it is.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from lecturekit.course.builder import MANIFEST, Manifest
from lecturekit.project import LECTURE_NAME, Project
from lecturekit.write.formats import FORMATS

CACHE = Path("_build") / "cache"
BUILD = Path("_build")
OUTPUT = Path("_output")
ENTRY = re.compile(r"[0-9a-f]{32}\.json")  # execute/cache.py's entry name: the key's first 32 digits


@dataclass
class Moved:
    """What pack or unpack carried for one lecture."""
    name: str
    executions: list[str] = field(default_factory=list)  # cache entry file names
    products: list[str] = field(default_factory=list)  # product file names

    def line(self, verb: str) -> str:
        return (f"[{self.name}] {verb}: {len(self.executions)} execution(s)"
                + (f", {', '.join(self.products)}" if self.products else ", no products"))


def _file(path: Path) -> bool:
    """A regular file of the folder itself: a link could lead anywhere on the machine."""
    return path.is_file() and not path.is_symlink()


def _copy(source: Path, target: Path) -> None:
    """Copy with its times (the cache keeps its newest entries), into place by a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        shutil.copy2(source, aside)
        os.replace(aside, target)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise


def _manifest_entries(path: Path) -> dict[str, dict[str, object]]:
    """A products.json's entries of known formats with their inputs; {} when it is missing or damaged."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {name: entry for name, entry in entries.items()
            if name in FORMATS and isinstance(entry, dict) and isinstance(entry.get("inputs"), str)}


def pack(project: Project, names: list[str], folder: Path) -> list[Moved]:
    """Copy each lecture's execution entries, manifest and the products it names into `folder`."""
    moved = []
    for name in names:
        done = Moved(name)
        entries = project.build_dir / "cache" / name
        for entry in sorted(entries.glob("*.json")) if entries.is_dir() else []:
            if ENTRY.fullmatch(entry.name):
                _copy(entry, folder / CACHE / name / entry.name)
                done.executions.append(entry.name)
        manifest = project.build_dir / name / MANIFEST
        recorded = _manifest_entries(manifest)
        for fmt_name in recorded:
            product = project.output_dir / name / FORMATS[fmt_name].product
            if product.is_file():
                _copy(product, folder / OUTPUT / name / product.name)
                done.products.append(product.name)
        if recorded:
            _copy(manifest, folder / BUILD / name / MANIFEST)
        moved.append(done)
    return moved


def lectures_in(folder: Path) -> list[str]:
    """The lecture names a products folder holds (executions or a manifest), those a project accepts."""
    found = {p.name for p in (folder / CACHE).iterdir() if p.is_dir() and not p.is_symlink()} \
        if (folder / CACHE).is_dir() else set()
    found |= {p.parent.name for p in (folder / BUILD).glob(f"*/{MANIFEST}") if not p.parent.is_symlink()}
    return sorted(name for name in found if LECTURE_NAME.fullmatch(name))


def unpack(project: Project, folder: Path) -> list[Moved]:
    """Place a products folder's lectures into the project (see the module's docstring)."""
    moved = []
    have = {p.name for p in project.lectures()}
    for name in lectures_in(folder):
        if name not in have:  # another project's lecture, or one since removed: not this site's
            continue
        done = Moved(name)
        with project.lecture_lock(name):
            entries = folder / CACHE / name
            for entry in sorted(entries.glob("*.json")) if entries.is_dir() else []:
                if ENTRY.fullmatch(entry.name) and _file(entry):
                    _copy(entry, project.build_dir / "cache" / name / entry.name)
                    done.executions.append(entry.name)
            manifest_file = folder / BUILD / name / MANIFEST
            recorded = _manifest_entries(manifest_file) if _file(manifest_file) else {}
            if recorded:
                manifest = Manifest(project, name)
                for fmt_name, written in recorded.items():
                    fmt = FORMATS[fmt_name]
                    product = folder / OUTPUT / name / fmt.product
                    if _file(product) and not product.parent.is_symlink():
                        _copy(product, project.output_dir / name / fmt.product)
                        manifest.record(fmt, str(written["inputs"]))
                        done.products.append(fmt.product)
                manifest.save()
        moved.append(done)
    return moved

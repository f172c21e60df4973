"""Products folders: lectures' executions carried from one machine to another (the CI's jobs, its cache).

What crosses machines is executions only. A products folder holds any number of lectures' execution
cache entries, laid out as a project's cache:

  DIR/_build/cache/<lecture>/<key>.json   the lecture's execution cache entries

`pack` copies a project's entries into one, `unpack` adds a folder's entries to a project's cache.
Products (slides, handout, page) never cross: the render that follows writes each lecture's products
again where they are published, from an execution it verified, so no byte a folder carries reaches a
product unless it came through a verified execution record (a folder's `slides.html` holding a
`<script>` is no input of anything). An entry is placed only when it is verified as the cache itself
verifies what it loads (execute/cache.py, `read_entry`: read through fsutil's one reader of files from
elsewhere, no link or pipe or oversize file; the entry and its record against their schemas and
digest, its name against its key); any other is named in one warning and left where it is, and its
lecture simply executes where it is missing.

Only lecture folder names the project has and files named as cache entries are read from a folder;
anything else in it (an older folder's `_output/` and `products.json`) is left where it is.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lecturekit.execute.cache import DamagedEntry, ExecutionCache, VerifiedEntry, read_entry
from lecturekit.fsutil import write_atomic
from lecturekit.project import LECTURE_NAME, Project

CACHE = Path("_build") / "cache"
ENTRY = re.compile(r"[0-9a-f]{32}\.json")  # execute/cache.py's entry name: the key's first 32 digits


@dataclass
class Moved:
    """What pack or unpack carried for one lecture."""
    name: str
    executions: list[str] = field(default_factory=list)  # cache entry file names

    def line(self, verb: str) -> str:
        return f"[{self.name}] {verb}: {len(self.executions)} execution(s)"


def _verified(folder: Path, name: str, verb: str) -> list[tuple[str, VerifiedEntry]]:
    """The lecture's entries in the cache folder `folder`, each verified; one warning for each other."""
    entries = folder / name
    if entries.is_symlink() or not entries.is_dir():
        if entries.is_symlink():
            print(f"warning: {entries}: not {verb}: a symbolic link, not a folder", file=sys.stderr, flush=True)
        return []
    found = []
    for path in sorted(entries.iterdir()):
        if not ENTRY.fullmatch(path.name):
            continue
        try:
            found.append((path.name, read_entry(path, folder)))
        except (DamagedEntry, OSError) as err:
            why = err.strerror if isinstance(err, OSError) else str(err)
            print(f"warning: {path}: not {verb}: {why}", file=sys.stderr, flush=True)
    # The newest, as many as the cache keeps of a lecture: a folder of thousands fills no disk.
    newest = sorted(found, key=lambda named: named[1].mtime_ns, reverse=True)[:ExecutionCache.KEEP]
    return sorted(newest, key=lambda named: named[0])


def _place(entry: VerifiedEntry, target: Path) -> None:
    """The verified bytes (never the file read again), with their time: the cache keeps its newest."""
    write_atomic(target, entry.data)
    os.utime(target, ns=(entry.mtime_ns, entry.mtime_ns))


def pack(project: Project, names: list[str], folder: Path) -> list[Moved]:
    """Copy each lecture's verified execution entries into `folder`."""
    moved = []
    for name in names:
        done = Moved(name)
        for file_name, entry in _verified(project.build_dir / "cache", name, "packed"):
            _place(entry, folder / CACHE / name / file_name)
            done.executions.append(file_name)
        moved.append(done)
    return moved


def lectures_in(folder: Path) -> list[str]:
    """The lecture names a products folder holds executions of, those a project accepts."""
    found = {p.name for p in (folder / CACHE).iterdir()} if (folder / CACHE).is_dir() else set()
    return sorted(name for name in found if LECTURE_NAME.fullmatch(name))


def unpack(project: Project, folder: Path) -> list[Moved]:
    """Add a products folder's verified executions of the project's lectures to its cache."""
    moved = []
    have = {p.name for p in project.lectures()}
    for name in lectures_in(folder):
        if name not in have:  # another project's lecture, or one since removed: not this site's
            continue
        done = Moved(name)
        with project.lecture_lock(name):
            for file_name, entry in _verified(folder / CACHE, name, "placed"):
                _place(entry, project.build_dir / "cache" / name / file_name)
                done.executions.append(file_name)
        moved.append(done)
    return moved

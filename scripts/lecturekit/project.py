"""The project: `_quarto.yml`, where lectures live, where builds and products go. Every stage uses it."""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Self

import yaml

from lecturekit import schema, yamlio
from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source
from lecturekit.yamlio import key_lines, yaml_error_line, yaml_error_text


_HELD: set[Path] = set()  # lecture locks this process holds

# A lecture's folder name is its id everywhere: URLs, `_build/quarto-render.yml`, Quarto's render list
# (which skips names starting with `_` or `.`), file names in _build and _output. Only names that are
# safe in all of them are accepted.
LECTURE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
LECTURE_NAME_RULE = "lowercase ASCII letters, digits and hyphens, starting with a letter or digit (e.g. 09-nn-module)"


def check_lecture_name(folder: Path | str) -> None:
    """A LectureError naming the folder when its name is outside the pattern, or when the folder or
    its index.qmd is a symbolic link that leads out of the project (`lectures/<name>/`)."""
    name = Path(folder).name
    index = Path(folder) / "index.qmd"
    if not LECTURE_NAME.fullmatch(name):
        raise LectureError(f"lecture folder name '{name}' is not allowed: use {LECTURE_NAME_RULE}", index)
    project = Path(folder).absolute().parent.parent.resolve()
    if not index.resolve().is_relative_to(project):
        raise LectureError(f"a symbolic link leads this lecture out of the project (to {index.resolve()}); "
                           "a lecture's sources lie inside the project", index)


# Files written aside by a process (`.<name>.<pid>[.<thread>][.old].tmp`): renamed into place or
# removed by it, unless it was killed. The name is matched shortest: `.fig.svg.<pid>.<thread>.tmp` has
# its pid first (greedy, the thread would be taken for it, and a live one spares a dead render's file).
ASIDE = re.compile(r"^\..+?\.(?P<pid>\d+)(?:\.\d+)?(?:\.old)?\.tmp$")
RUN_DIR = re.compile(r"^lecturekit-(?P<pid>\d+)-")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Project:
    root: Path

    @classmethod
    def find(cls, start: str | os.PathLike[str] | None = None) -> Self:
        here = Path(start or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / "_quarto.yml").exists():
                return cls(folder)
        raise LectureError("no _quarto.yml here or in any parent folder", here)

    @property
    def config_path(self) -> Path:
        return self.root / "_quarto.yml"

    @cached_property
    def config(self) -> dict[str, Any]:
        path = self.config_path
        try:
            config = yamlio.load(read_source(path)) or {}
        except yaml.YAMLError as err:
            raise LectureError(f"malformed YAML: {yaml_error_text(err)}", path, yaml_error_line(err) + 1) from None
        if not isinstance(config, dict):
            raise LectureError("_quarto.yml must be a YAML mapping", path, 1)
        # Its keys and our settings against schemas/project.yaml; its `format:` is the write
        # stage's to check (write/formats.py).
        schema.check(config, "project", path, self.config_lines, what="_quarto.yml key", line=1)
        return config

    @cached_property
    def config_lines(self) -> dict[tuple[str, ...], int]:
        """Line of every key of _quarto.yml, by key path, for messages."""
        return key_lines(read_source(self.config_path))

    # Our own settings live under one key that Quarto ignores.
    def setting(self, name: str, default: Any = None) -> Any:
        return (self.config.get("lecturekit") or {}).get(name, default)

    @property
    def lectures_dir(self) -> Path:
        return self.root / "lectures"

    @property
    def code_dir(self) -> Path:
        return self.root / "code"

    @property
    def build_dir(self) -> Path:
        return self.root / "_build"

    @property
    def output_dir(self) -> Path:
        return self.root / (self.config.get("project", {}).get("output-dir") or "_output")

    @property
    def extension_dir(self) -> Path:
        return self.root / "_extensions" / "lecture"

    def lectures(self, names: Iterable[str] | None = None) -> list[Path]:
        """Lecture folders (those with an index.qmd): all, or the named ones (a name or a folder path)."""
        found = sorted(p.parent for p in self.lectures_dir.glob("*/index.qmd"))
        if not names:
            return found
        known = {p.name: p for p in found}
        chosen = []
        for name in names:
            folder = known.get(name) or Path(name).resolve()
            if not (folder / "index.qmd").exists():
                raise LectureError(f"no such lecture: {name} (have: {', '.join(known)})", self.lectures_dir)
            chosen.append(folder)
        return chosen

    def sweep_leftovers(self) -> list[Path]:
        """Remove what killed renders left: files aside in _output, figures/ and _build, and the
        kernels' private folders under the system's temporary folder, of processes that are gone."""
        removed: list[Path] = []
        for folder in (self.output_dir, self.root / "figures", self.build_dir):
            for path in folder.rglob(".*.tmp"):
                match = ASIDE.match(path.name)
                if match and path.is_file() and not pid_alive(int(match["pid"])):
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed.append(path)
        temp = Path(tempfile.gettempdir())
        for path in temp.glob("lecturekit-*"):
            match = RUN_DIR.match(path.name)
            if match and path.is_dir() and not path.is_symlink() and not pid_alive(int(match["pid"])):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        return removed

    def notebook_path(self, lecture_name: str) -> Path:
        """Where the executed notebook goes; `_quarto.yml`'s `render:` lists these paths."""
        return self.build_dir / lecture_name / f"{lecture_name}.ipynb"

    @contextlib.contextmanager
    def lecture_lock(self, lecture_name: str, progress: Callable[[str], None] | None = None) -> Iterator[None]:
        """Only one render at a time builds a lecture: its kernel's run folder, cache entry,
        notebook and products are one lecture's. A second render waits, and then finds the first
        one's execution in the cache. The lock is the kernel's (flock): a killed render frees it."""
        path = (self.build_dir / lecture_name / ".lock").resolve()
        if path in _HELD:  # this process has it already (a render's execute stage inside its build)
            yield
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                say = progress or (lambda message: print(message, file=sys.stderr, flush=True))
                say(f"[{lecture_name}] waiting for another render of {lecture_name} to finish")
                fcntl.flock(handle, fcntl.LOCK_EX)
            _HELD.add(path)
            try:
                yield
            finally:
                _HELD.discard(path)

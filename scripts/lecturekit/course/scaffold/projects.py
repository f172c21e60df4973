"""Throwaway projects, built the same way for the tests and the benchmark.

A `ProjectBuilder` copies the rendering parts of a real project (`_quarto.yml`, `_extensions/`, the
npm lock file; `node_modules/` linked, not copied) into an empty folder, then adds what a test
needs: lectures written on the spot, course packages, a lecture's student scripts, or real
lectures copied with their scripts and expectations. `snapshot()` lists every source file with its
digest, so a test can prove which files a command touched.
"""
import hashlib
import os
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

SOURCE = Path(__file__).resolve().parents[4]
# Folders a render or check writes; everything else in a project is a source an author edits.
GENERATED = ("_build", "_output", "node_modules", ".pytest_cache", "__pycache__")


def _ignore(_dir: str, names: Iterable[str]) -> list[str]:
    return [n for n in names if n in ("__pycache__", ".pytest_cache") or n.endswith(".pyc")]


def front_matter(meta: dict[str, Any] | str | None) -> str:
    """`---` YAML `---` from a dict (or text as given); empty for None."""
    if meta is None:
        return ""
    if isinstance(meta, str):
        return meta if meta.endswith("\n") else meta + "\n"
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n"


class ProjectBuilder:
    """A project in `root` with the source project's settings, theme and filters."""

    def __init__(self, root: Path, source: Path = SOURCE):
        self.root, self.source = Path(root), Path(source)
        self.root.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.source / "_quarto.yml", self.root / "_quarto.yml")
        shutil.copytree(self.source / "_extensions", self.root / "_extensions", ignore=_ignore)
        if (self.source / "package-lock.json").exists():
            shutil.copy(self.source / "package-lock.json", self.root / "package-lock.json")
        (self.root / "node_modules").symlink_to(self.source / "node_modules")
        self.lectures_dir.mkdir(exist_ok=True)

    @property
    def lectures_dir(self) -> Path:
        return self.root / "lectures"

    @property
    def code_dir(self) -> Path:
        return self.root / "code"

    def output(self, lecture: str, product: str = "") -> Path:
        return self.root / "_output" / lecture / product

    # ---- written on the spot ----------------------------------------------------------------------

    def add_lecture(self, name: str, body: str, *, front: dict[str, Any] | str | None = None,
                sections: dict[str, str] | None = None) -> Path:
        """`lectures/<name>/index.qmd` (front matter + dedented body) and its section files."""
        folder = self.lectures_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index.qmd").write_text(front_matter(front) + textwrap.dedent(body), encoding="utf-8")
        for file, text in (sections or {}).items():
            (folder / file).write_text(textwrap.dedent(text), encoding="utf-8")
        return folder

    def add_package(self, name: str, files: dict[str, str]) -> Path:
        """A course package `code/<name>/`: {relative path: text}; `__init__.py` at least."""
        folder = self.code_dir / name
        for file, text in files.items():
            (folder / file).parent.mkdir(parents=True, exist_ok=True)
            (folder / file).write_text(textwrap.dedent(text), encoding="utf-8")
        return folder

    def add_scripts(self, lecture: str, files: dict[str, str]) -> Path:
        """A lecture's student scripts, `code/scripts/<lecture>/`: {file name: text}."""
        return self.add_package(f"scripts/{lecture}", files)

    # ---- copied from the source project -----------------------------------------------------------

    def copy_code(self) -> Path:
        """The source project's whole `code/` (packages and every lecture's scripts)."""
        shutil.copytree(self.source / "code", self.code_dir, ignore=_ignore, dirs_exist_ok=True)
        return self.code_dir

    def copy_lecture(self, name: str, *, expectations: bool = True) -> Path:
        """A real lecture folder and, when it has them, its expectations file."""
        target = self.lectures_dir / name
        shutil.copytree(self.source / "lectures" / name, target, ignore=_ignore)
        expected = self.source / "tests" / "expected" / f"{name}.yaml"
        if expectations and expected.exists():
            (self.root / "tests" / "expected").mkdir(parents=True, exist_ok=True)
            shutil.copy(expected, self.root / "tests" / "expected" / expected.name)
        return target

    # ---- what a command touched ------------------------------------------------------------------

    def snapshot(self) -> dict[str, str]:
        """{relative path: sha256} of every source file (not the build, products or caches)."""
        files = {}
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in GENERATED]
            for name in names:
                path = Path(folder) / name
                files[path.relative_to(self.root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
        return dict(sorted(files.items()))

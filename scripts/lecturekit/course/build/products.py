"""One record of each lecture's products, whichever path wrote them.

`scripts/render` and `quarto render` write the same products (`_output/<lecture>/index.html`,
`slides.html`, `handout.pdf`) from the same executed notebook. `_build/<lecture>/products.json` holds, per format,
the digest of what its product was written from (the executed notebook, the lecture folder, its
figures, `_quarto.yml`, `_extensions/`, the npm lock file, the writer code and the pandoc/Typst
versions), the product's size and time as written, and which path wrote it. A product is up to
date when its inputs are and the file on disk is the one recorded: after either path wrote it, the
other finds it current; a product that was touched or deleted since is written again.

This module imports nothing heavy: Quarto's post-render step records here without an executor.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit import schema
from lecturekit.fsutil import UnsafeFile, read_untrusted, write_atomic

if TYPE_CHECKING:
    from lecturekit.project import Project

MANIFEST = "products.json"
MAX_MANIFEST_BYTES = 1_000_000  # a few hundred bytes per format
# The write stage's own code: a change to it changes every product.
WRITER_MODULES = ("emit.py", "formats.py", "writers.py", "pdfprefs.py")
WRITERS = ("scripts/render", "quarto")  # who wrote a product (said in the record, not in its inputs)


def file_digests(folder: Path) -> list[tuple[str, str]]:
    """(relative path, sha256) of every file under folder, in order (as the execution cache lists them)."""
    from lecturekit.execute.cache import file_digests as digests
    return digests(folder)


def _version(package: str) -> str | None:
    import importlib.metadata
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def theme_digest(project: Project) -> str:
    """What every lecture's products depend on besides the lecture itself."""
    from lecturekit.write.formats import FORMATS
    h = hashlib.sha256()
    h.update((project.root / "_quarto.yml").read_bytes())
    h.update(json.dumps(file_digests(project.root / "_extensions")).encode())
    for name in ("package-lock.json",):
        path = project.root / name
        if path.exists():
            h.update(hashlib.sha256(path.read_bytes()).digest())
    here = Path(__file__).parents[2] / "write"
    for module in WRITER_MODULES:
        h.update((here / module).read_bytes())
    engines = ["pypandoc-binary"] + [package for f in FORMATS.values() if f.finish for package in f.finish.packages]
    h.update(json.dumps([_version(name) for name in engines]).encode())
    return h.hexdigest()


def product_inputs(theme: str, nb_bytes: bytes, lecture_root: Path, fmt_name: str, links: bool = False) -> str:
    """The hash a product is written from: executed notebook, the lecture folder, theme, format;
    `links`: and the lecture's links to the rest of the course (the page shows them). The same for
    both paths: which one writes the product is not an input of it."""
    from lecturekit.course.site.pages import links_path
    from lecturekit.write.figures import lecture_figures_dir
    h = hashlib.sha256()
    h.update(f"{theme}\0{fmt_name}\0".encode())
    h.update(hashlib.sha256(nb_bytes).digest())
    h.update(json.dumps(file_digests(lecture_root)).encode())
    # A hand-drawn figure lives in figures/<lecture>/, outside the lecture folder.
    figures = lecture_figures_dir(Path(lecture_root).parent.parent, Path(lecture_root).name)
    if figures.is_dir():
        h.update(json.dumps(file_digests(figures)).encode())
    # What the lecture's page links to besides itself (course/site/pages.py): a new neighbour rewrites it.
    path = links_path(Path(lecture_root).parent.parent, Path(lecture_root).name)
    if links and path.exists():
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _damaged(path: Path, problem: str) -> None:
    print(f"warning: {path}: discarded a damaged products manifest ({problem}); every product it "
          "recorded is written again", file=sys.stderr, flush=True)


class Manifest:
    """`_build/<lecture>/products.json`: per format, the inputs its product was written from, the
    product (size, time) and its writer."""

    def __init__(self, project: Project, name: str):
        self.path = project.build_dir / name / MANIFEST
        self.output = project.output_dir / name
        self.entries: dict[str, dict[str, Any]] = {}
        try:
            data = read_untrusted(self.path, MAX_MANIFEST_BYTES)
        except FileNotFoundError:
            return
        except UnsafeFile as err:  # a link or a pipe goes (unlinked: never what a link points at)
            _damaged(self.path, err.why)
            self.path.unlink(missing_ok=True)
            return
        except OSError as err:
            _damaged(self.path, f"cannot read it: {err.strerror}")
            return
        try:
            entries = json.loads(data.decode("utf-8"))
            problem = schema.misfit(entries, "products-manifest")
        except (UnicodeDecodeError, ValueError) as err:
            problem = str(err).split("\n")[0][:120]
        if problem:
            # Every product is written again and the file rebuilt.
            _damaged(self.path, problem)
            self.path.unlink(missing_ok=True)
            return
        self.entries = entries

    def _stat(self, product: str) -> list[int] | None:
        try:
            stat = (self.output / product).stat()
        except OSError:
            return None
        return [stat.st_size, stat.st_mtime_ns]

    def fresh(self, fmt_name: str, inputs: str) -> bool:
        """The product of this format was written from `inputs` and is on disk as written."""
        entry = self.entries.get(fmt_name)
        if not entry or entry.get("inputs") != inputs:
            return False
        stat = self._stat(entry["product"])
        return stat is not None and stat == entry.get("stat")

    def record(self, fmt_name: str, product: str, inputs: str, by: str) -> None:
        self.entries[fmt_name] = {"inputs": inputs, "product": product, "stat": self._stat(product), "by": by}

    def forget(self, fmt_name: str) -> None:
        self.entries.pop(fmt_name, None)

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.entries, indent=1, sort_keys=True).encode("utf-8"))

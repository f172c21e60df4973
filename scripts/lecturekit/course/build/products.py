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

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit import inputs, schema
from lecturekit.fsutil import UnsafeFile, read_untrusted, write_atomic

if TYPE_CHECKING:
    from lecturekit.project import Project

MANIFEST = "products.json"
MAX_MANIFEST_BYTES = 1_000_000  # a few hundred bytes per format
# The write stage's own code: a change to it changes every product.
WRITER_MODULES = ("emit.py", "formats.py", "writers.py", "pdfprefs.py")
WRITERS = ("scripts/render", "quarto")  # who wrote a product (said in the record, not in its inputs)


def theme_digest(project: Project) -> str:
    """What every lecture's products depend on besides the lecture itself."""
    from lecturekit.write.formats import FORMATS
    root = project.root
    engines = ["pypandoc-binary"] + [package for f in FORMATS.values() if f.finish for package in f.finish.packages]
    return _hash([inputs.file(root / "_quarto.yml", root), inputs.tree(root / "_extensions", root),
                  inputs.file(root / "package-lock.json", root),
                  [inputs.file(inputs.KIT / "write" / module) for module in WRITER_MODULES],
                  [inputs.version(name) for name in engines]])


def product_inputs(theme: str, nb_bytes: bytes, lecture_root: Path, fmt_name: str, links: bool = False) -> str:
    """The hash a product is written from: executed notebook, the lecture folder, theme, format;
    `links`: and the lecture's links to the rest of the course (the page shows them). The same for
    both paths: which one writes the product is not an input of it."""
    from lecturekit.course.site.pages import links_path
    from lecturekit.write.figures import lecture_figures_dir
    root = Path(lecture_root).parent.parent
    found: list[Any] = [theme, fmt_name, inputs.data(nb_bytes), inputs.tree(lecture_root, root)]
    # A hand-drawn figure lives in figures/<lecture>/, outside the lecture folder.
    found.append(inputs.tree(lecture_figures_dir(root, Path(lecture_root).name), root))
    # What the lecture's page links to besides itself (course/site/pages.py): a new neighbour rewrites it.
    if links:
        found.append(inputs.file(links_path(root, Path(lecture_root).name), root))
    return _hash(found)


def _hash(found: list[Any]) -> str:
    return inputs.data(json.dumps(found, ensure_ascii=False).encode("utf-8"))


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

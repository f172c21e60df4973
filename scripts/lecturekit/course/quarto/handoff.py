"""What passes between Quarto and its pre- and post-render steps (the steps: cli/quarto.py).

Quarto tells its scripts little: the files it is about to render or has written (in the environment
or a file), and neither the command nor, for a preview, the file named (read from the parent
process's command line). Pre-render hands post-render what it planned in `_build/` state files:
`quarto-pending.json` (the products it listed and their digests) and `quarto-failed.json` (the
lectures it could not build). Each product Quarto writes has our name (`PRODUCT_NAMES`).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lecturekit import schema
from lecturekit.write.formats import FORMATS, HTML, REVEALJS, TYPST



# Quarto renders every format `_quarto.yml` lists, each the record of the same name: its product.
FORMAT_PRODUCTS = {name: fmt.product for name, fmt in FORMATS.items()}
# What Quarto names each product beside its input `x.ipynb` or `x.qmd` -> ours: the deck is x.html,
# the handout x.pdf, and the page `page.html` (_quarto.yml's output-file: the deck has x.html).
PRODUCT_NAMES = {".html": REVEALJS.product, ".pdf": TYPST.product}
PAGE_NAMES = {"page.html": HTML.product}
DRAFT = "draft"  # _output/<lecture>/draft/: what Quarto wrote executing a source itself


def quarto_arguments() -> list[str]:
    """The arguments of the `quarto` command that started this process. Quarto starts its pre- and
    post-render scripts and a preview's serve command as its own children, and tells them neither
    the command (render or preview) nor, for a preview, the file named: they are read from the
    parent process's command line (`deno ... quarto.js preview lectures/09-nn-module/index.qmd`)."""
    parent = os.getppid()
    try:
        args = Path(f"/proc/{parent}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:  # no /proc (macOS): ps says the same, split at spaces
        import subprocess
        run = subprocess.run(["ps", "-o", "args=", "-p", str(parent)], capture_output=True, text=True)
        args = run.stdout.split()
    for number, arg in enumerate(args):
        if arg.endswith("quarto.js"):
            return [a for a in args[number + 1:] if a]
    return []


def in_quarto_preview() -> bool:
    return quarto_arguments()[:1] == ["preview"]


def lecture_of(path: str) -> str | None:
    """`lectures/09-nn-module/index.qmd` (or the folder, or a section file) -> `09-nn-module`."""
    match = re.search(r"(?:^|[/\\])lectures[/\\]([^/\\]+)", path)
    return match.group(1) if match else None


def previewed_lecture() -> str | None:
    """The lecture `quarto preview <file>` names; None for `quarto preview` of the project."""
    args = quarto_arguments()
    if args[:1] != ["preview"]:
        return None
    return next((lecture_of(a) for a in args[1:] if not a.startswith("-") and lecture_of(a)), None)


def _quarto_files(kind: str, environ: Mapping[str, str]) -> list[str]:
    """The files Quarto names in QUARTO_PROJECT_<kind>_FILES, relative to the project (a long list
    goes in the file QUARTO_USE_FILE_FOR_PROJECT_<kind>_FILES names instead)."""
    listing = environ.get(f"QUARTO_PROJECT_{kind}_FILES")
    spill = environ.get(f"QUARTO_USE_FILE_FOR_PROJECT_{kind}_FILES")
    if listing is None and spill:
        listing = Path(spill).read_text(encoding="utf-8")
    return [line for line in (listing or "").splitlines() if line.strip()]


def output_files(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The files Quarto just wrote."""
    return _quarto_files("OUTPUT", environ)


def input_files(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The files Quarto is about to render."""
    return _quarto_files("INPUT", environ)


RENDER_LIST = Path("_build") / "quarto-render.yml"
EXCLUSION_MARK = "# render-all-exclusion"
WRITER = "quarto"  # this path, as products.json names it


# A state file larger than this is refused unread: the pending list of a course of 91 lectures holds
# some hundreds of digests (tens of kB), and one of megabytes is no state file of ours.
MAX_STATE_BYTES = 16_000_000


def read_state(path: Path, kind: str, what: str) -> dict[str, Any]:
    """A state file of ours checked against schemas/<kind>.yaml; {} when there is none or it is damaged
    (bytes, JSON, shape, a link or a pipe), said in one warning and removed (schema.read_state): what
    it recorded is made again."""
    found = schema.read_state(path, kind, MAX_STATE_BYTES, what)
    return found if isinstance(found, dict) else {}


PENDING = "quarto-pending.json"  # in _build/: what pre-render handed Quarto, for post-render to record


FAILED = "quarto-failed.json"  # in _build/: {lecture: error} of the lectures pre-render could not build



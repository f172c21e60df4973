"""What passes between Quarto and its pre- and post-render steps (the steps: cli/quarto.py).

Quarto tells its scripts little: the files it is about to render or has written (in the environment
or a file), and neither the command nor, for a preview, the file named (read from the parent
process's command line). Pre-render hands post-render what it planned in `_build/` state files:
`quarto-pending.json` (the products it listed and their digests) and `quarto-failed.json` (the
lectures it could not build). Each product Quarto writes has our name (`PRODUCT_NAMES`).
"""
from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


def output_files(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The files Quarto just wrote, relative to the project (it passes them in the environment or,
    for long lists, in a file)."""
    listing = environ.get("QUARTO_PROJECT_OUTPUT_FILES")
    spill = environ.get("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES")
    if listing is None and spill:
        listing = Path(spill).read_text(encoding="utf-8")
    return [line for line in (listing or "").splitlines() if line.strip()]


RENDER_LIST = Path("_build") / "quarto-render.yml"
EXCLUSION_MARK = "# render-all-exclusion"
WRITER = "quarto"  # this path, as products.json names it


def read_state(path: Path, what: str, kind: type = dict) -> dict[str, Any]:
    """{name: `kind`} from a state file of ours; a file that is damaged (bytes, JSON, shape) is
    discarded with one warning, and what it recorded is made again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):  # ValueError: not UTF-8, not JSON
        data = None
    if isinstance(data, dict) and all(isinstance(value, kind) for value in data.values()):
        return data
    print(f"warning: {path}: damaged {what}, discarded (what it recorded is made again)", file=sys.stderr)
    return {}


PENDING = "quarto-pending.json"  # in _build/: what pre-render handed Quarto, for post-render to record


def input_files() -> str:
    inputs = os.environ.get("QUARTO_PROJECT_INPUT_FILES")
    spill = os.environ.get("QUARTO_USE_FILE_FOR_PROJECT_INPUT_FILES")
    if inputs is None and spill:
        inputs = Path(spill).read_text(encoding="utf-8")
    return inputs or ""


FAILED = "quarto-failed.json"  # in _build/: {lecture: error} of the lectures pre-render could not build



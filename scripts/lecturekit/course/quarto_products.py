"""Quarto's post-render step: move Quarto's products to where scripts/render writes them.

Quarto mirrors the input's folder under the output directory: the executed notebook
`_build/<lecture>/<lecture>.ipynb` becomes `_output/_build/<lecture>/<lecture>.html` and `.pdf`, and
`quarto render lectures/<lecture>/index.qmd` writes `_output/lectures/<lecture>/index.*`. Authors
look for `_output/<lecture>/slides.html` and `handout.pdf`, so every product goes there.
"""
import os
import shutil
import sys
from pathlib import Path

PRODUCT_NAMES = {".html": "slides.html", ".pdf": "handout.pdf"}
SOURCE_FOLDERS = ("_build", "lectures")  # the folders Quarto renders lectures from


def output_files(environ=os.environ):
    """The files Quarto just wrote, relative to the project (it passes them in the environment or,
    for long lists, in a file)."""
    listing = environ.get("QUARTO_PROJECT_OUTPUT_FILES")
    spill = environ.get("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES")
    if listing is None and spill:
        listing = Path(spill).read_text(encoding="utf-8")
    return [line for line in (listing or "").splitlines() if line.strip()]


def parts_of(product: Path, output_dir: Path) -> tuple:
    try:
        return product.relative_to(output_dir).parts
    except ValueError:
        return ()


def destination(product: Path, output_dir: Path) -> Path | None:
    """`_output/_build/<lecture>/x.html` or `_output/lectures/<lecture>/x.pdf` -> `_output/<lecture>/...`."""
    parts = parts_of(product, output_dir)
    if len(parts) != 3 or parts[0] not in SOURCE_FOLDERS or product.suffix not in PRODUCT_NAMES:
        return None
    return output_dir / parts[1] / PRODUCT_NAMES[product.suffix]


def place(project: Path, output_dir: Path, files: list[str]) -> list[Path]:
    placed = []
    for name in files:
        product = (project / name).resolve()
        output_dir = output_dir.resolve()
        target = destination(product, output_dir)
        if target is None or not product.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(product, target)
        placed.append(target)
        # What Quarto left beside the product (figure copies for Typst) belongs to no reader, nor
        # does the executed notebook it kept beside a source (keep-ipynb, for the handout's figures).
        folder = product.parent
        shutil.rmtree(folder / f"{product.stem}_files", ignore_errors=True)
        if parts_of(product, output_dir)[0] == "lectures":
            (project / "lectures" / target.parent.name / f"{product.stem}.quarto_ipynb").unlink(missing_ok=True)
        for empty in (folder, folder.parent):
            try:
                empty.rmdir()
            except OSError:
                break
    return placed


RENDER_LIST = Path("_build") / "quarto-render.yml"
EXCLUSION_MARK = "# render-all-exclusion"


def keep_sources_in_project(project: Path) -> None:
    """scripts/execute left the sources out of this project render; put them back, so that
    `quarto render lectures/<lecture>/index.qmd` is again a file of the project (with its settings
    and filters) and not a standalone document."""
    path = project / RENDER_LIST
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return
    kept = [line for line in lines if EXCLUSION_MARK not in line]
    if kept != lines:
        path.write_text("".join(kept), encoding="utf-8")


def main() -> int:
    project = Path.cwd()
    output_dir = project / os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", "_output")
    for target in place(project, output_dir, output_files()):
        print(f"quarto: {os.path.relpath(target, project)}", file=sys.stderr)
    keep_sources_in_project(project)
    return 0


if __name__ == "__main__":
    sys.exit(main())

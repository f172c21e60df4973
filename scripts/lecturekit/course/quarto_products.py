"""What Quarto's pre- and post-render steps decide (the steps themselves: cli/quarto.py).

Pre-render: execute every lecture through our executor and cache (scripts/render --execute-only),
then hand Quarto only the lectures whose products are stale: `_build/quarto-render.yml` lists their
executed notebooks. A product is current when `_build/<lecture>/quarto-products.json` records the
inputs it was written from (the executed notebook, the lecture folder, theme, filters, writer) and
the product on disk is the one recorded (size and time): scripts/render writing the same file
makes it stale for Quarto, as Quarto writing it makes it stale for scripts/render.

Post-render: Quarto mirrors the input's folder under the output directory: the executed notebook
`_build/<lecture>/<lecture>.ipynb` becomes `_output/_build/<lecture>/<lecture>.html` and `.pdf`, and
`quarto render lectures/<lecture>/index.qmd` writes `_output/lectures/<lecture>/index.*`. Authors
look for `_output/<lecture>/slides.html` and `handout.pdf`, so every product goes there. Then the
course page and each lecture's `code.zip`, as scripts/render writes them.

`quarto render lectures/<lecture>/index.qmd` is Quarto executing the source itself (a draft): its
products go to `_output/<lecture>/draft/`, beside and never over the checked ones.

`quarto preview` (at the root or of a lecture's source) is served by scripts/preview, which
`_quarto.yml` names as the project's preview server: its decks come from our executor and cache.
Quarto still renders the previewed source once before it starts that server; under `quarto preview`
pre-render turns execution off for that render, and post-render throws its product away, so no
kernel of Quarto's starts and nothing of it reaches `_output/`.
"""
import contextlib
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lecturekit.fsutil import write_atomic
from lecturekit.project import Project
from lecturekit.write.pdfprefs import display_doc_title

PRODUCT_NAMES = {".html": "slides.html", ".pdf": "handout.pdf"}
# The lecture's page (format html) is `page.html` (_quarto.yml's output-file: the deck has <input>.html).
PAGE_NAMES = {"page.html": "index.html"}
SOURCE_FOLDERS = ("_build", "lectures")  # the folders Quarto renders lectures from
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


def parts_of(product: Path, output_dir: Path) -> tuple[str, ...]:
    try:
        return product.relative_to(output_dir).parts
    except ValueError:
        return ()


def destination(product: Path, output_dir: Path) -> Path | None:
    """`_output/_build/<lecture>/x.html` or `_output/lectures/<lecture>/x.pdf` -> `_output/<lecture>/...`."""
    parts = parts_of(product, output_dir)
    if len(parts) != 3 or parts[0] not in SOURCE_FOLDERS or product.suffix not in PRODUCT_NAMES:
        return None
    name = PAGE_NAMES.get(product.name, PRODUCT_NAMES[product.suffix])
    if parts[0] == "lectures":  # Quarto executed the source: a draft, never over the checked products
        return output_dir / parts[1] / DRAFT / name
    return output_dir / parts[1] / name


def place(project: Path, output_dir: Path, files: list[str]) -> list[tuple[Path, str]]:
    """Move each product; return (where it went, the folder Quarto rendered it from)."""
    placed = []
    for name in files:
        product = (project / name).resolve()
        output_dir = output_dir.resolve()
        target = destination(product, output_dir)
        if target is None or not product.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if product.suffix == ".html":
            strip_mathjax_notes_style(product)
        source = parts_of(product, output_dir)[0]
        os.replace(product, target)
        if target.suffix == ".pdf":
            # The viewer shows the handout's title, as scripts/render's handout does (Typst has no
            # setting for it).
            display_doc_title(target)
        placed.append((target, source))
        # What Quarto left beside the product (figure copies for Typst) belongs to no reader, nor
        # does the executed notebook it kept beside a source (keep-ipynb, for the handout's figures).
        folder = product.parent
        shutil.rmtree(folder / f"{product.stem}_files", ignore_errors=True)
        if source == "lectures":
            (project / "lectures" / parts_of(target, output_dir)[0] / f"{product.stem}.quarto_ipynb").unlink(missing_ok=True)
        for empty in (folder, folder.parent):
            try:
                empty.rmdir()
            except OSError:
                break
    return placed


def remove_resource_copies(project: Path, output_dir: Path) -> None:
    """Quarto copies each image a lecture's prose names to the same path under the output folder
    (`_output/lectures/<lecture>/pic.png`); the deck embeds it and the handout holds it, so the
    copy is no reader's file. A file there identical to the project's file at that path is one."""
    for path in sorted(output_dir.rglob("*"), reverse=True):
        original = project / path.relative_to(output_dir)
        if path.is_file() and not path.is_symlink() and original.is_file() and \
                path.stat().st_size == original.stat().st_size and path.read_bytes() == original.read_bytes():
            path.unlink()
        elif path.is_dir() and original.is_dir():
            with contextlib.suppress(OSError):
                path.rmdir()  # only when empty


# Quarto's revealjs post-processor appends a MathJax stylesheet to every speaker-notes aside; the
# deck uses KaTeX, and the notes window would show the rule among the notes' text nodes.
MATHJAX_NOTES_STYLE = re.compile(r'<style type="text/css">\s*span\.MJX_Assistive_MathML \{[^}]*\}\s*</style>\s*')


def strip_mathjax_notes_style(deck: Path) -> None:
    html = deck.read_text(encoding="utf-8")
    kept = MATHJAX_NOTES_STYLE.sub("", html)
    if kept != html:
        deck.write_text(kept, encoding="utf-8")


RENDER_LIST = Path("_build") / "quarto-render.yml"
EXCLUSION_MARK = "# render-all-exclusion"
MANIFEST = "quarto-products.json"
FORMAT_PRODUCTS = {"html": "index.html", "revealjs": "slides.html", "typst": "handout.pdf"}


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


class QuartoManifest:
    """`_build/<lecture>/quarto-products.json`: per product, the inputs Quarto wrote it from and
    the file it wrote (size, time)."""

    def __init__(self, project: Project, name: str):
        self.path = project.build_dir / name / MANIFEST
        self.output = project.output_dir / name
        self.entries: dict[str, dict[str, Any]] = read_state(self.path, "products manifest")

    def _stat(self, product: str) -> list[int] | None:
        try:
            stat = (self.output / product).stat()
        except OSError:
            return None
        return [stat.st_size, stat.st_mtime_ns]

    def fresh(self, inputs: dict[str, str]) -> bool:
        return all(self.entries.get(product, {}).get("inputs") == digest
                   and self._stat(product) == self.entries[product].get("stat")
                   for product, digest in inputs.items())

    def record(self, product: str, digest: str | None) -> None:
        """`digest` None: the product is not from the executed notebook (Quarto executed the source)."""
        if digest is None:
            self.entries.pop(product, None)
        else:
            self.entries[product] = {"inputs": digest, "stat": self._stat(product)}

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.entries, indent=1, sort_keys=True).encode("utf-8"))


def product_digests(project: Project, name: str, theme: str) -> dict[str, str] | None:
    """{product: digest of what it is written from}; None when the lecture has no executed notebook."""
    from lecturekit.course.builder import product_inputs
    try:
        notebook = project.notebook_path(name).read_bytes()
    except OSError:
        return None
    from lecturekit.write.formats import FORMATS
    return {product: product_inputs(theme, notebook, project.lectures_dir / name, f"quarto {fmt}", FORMATS[fmt].course_links)
            for fmt, product in FORMAT_PRODUCTS.items()}


def stale_lectures(project: Project) -> tuple[dict[str, dict[str, str]], list[str]]:
    """({lecture: its products' digests} for the lectures Quarto must render, the current ones)."""
    from lecturekit.course.builder import theme_digest
    theme = theme_digest(project)
    stale, current = {}, []
    for folder in project.lectures():
        digests = product_digests(project, folder.name, theme)
        if digests is None:
            continue
        if QuartoManifest(project, folder.name).fresh(digests):
            current.append(folder.name)
        else:
            stale[folder.name] = digests
    return stale, current


def write_render_list(project: Project, lectures: list[str]) -> None:
    """`_build/quarto-render.yml`, which `_quarto.yml` reads through `metadata-files` (Quarto reads
    the project again after pre-render): the executed notebooks to render, the sources left out."""
    lines = ["# Written by scripts/execute for one `quarto render` of the project: render these executed",
             "# notebooks (the lectures whose products changed), not the sources (scripts/quarto-post-render",
             "# drops the exclusion again, so that `quarto render lectures/<lecture>/index.qmd` stays a",
             "# render inside the project).",
             "project:",
             "  render:"]
    lines += [f"    - {project.notebook_path(name).relative_to(project.root).as_posix()}" for name in lectures]
    lines.append(f'    - "!lectures/"  {EXCLUSION_MARK}')
    write_atomic(project.root / RENDER_LIST, ("\n".join(lines) + "\n").encode("utf-8"))


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
    if not any(line.startswith("    - ") for line in kept):
        # An empty `render:` is null, which Quarto rejects when it next reads the project.
        kept = [line.replace("  render:", "  render: []") if line.rstrip() == "  render:" else line for line in kept]
    if kept != lines:
        write_atomic(path, "".join(kept).encode("utf-8"))


PENDING = "quarto-pending.json"  # in _build/: what pre-render handed Quarto, for post-render to record


def record(project: Project, placed: list[tuple[Path, str]]) -> None:
    """Note what each placed product was written from: the executed notebook pre-render listed.
    The digests come from pre-render, so this step imports no executor. (A draft, in
    `_output/<lecture>/draft/`, replaces no checked product: nothing to note.)"""
    pending = read_state(project.build_dir / PENDING, "list of pending products")
    checked = [target for target, source in placed if source == "_build"]
    for name in sorted({target.parent.name for target in checked}):
        manifest = QuartoManifest(project, name)
        for target in checked:
            if target.parent.name == name:
                manifest.record(target.name, pending.get(name, {}).get(target.name))
        manifest.save()


def input_files() -> str:
    inputs = os.environ.get("QUARTO_PROJECT_INPUT_FILES")
    spill = os.environ.get("QUARTO_USE_FILE_FOR_PROJECT_INPUT_FILES")
    if inputs is None and spill:
        inputs = Path(spill).read_text(encoding="utf-8")
    return inputs or ""


PREVIEW_MARK = "# quarto-preview"


def preview_settings(project: Project, on: bool) -> None:
    """Under `quarto preview`, `execute: enabled: false` in `_build/quarto-render.yml` (which Quarto
    reads again after pre-render): its render of the previewed source starts no kernel."""
    path = project.root / RENDER_LIST
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        lines = []
    kept = [line for line in lines if PREVIEW_MARK not in line]
    if not any(line.strip() and not line.lstrip().startswith("#") for line in kept):
        kept = ["project:\n", "  render: []\n"]  # Quarto rejects an empty metadata file
    if on:
        kept += [f"execute:  {PREVIEW_MARK}\n", f"  enabled: false  {PREVIEW_MARK}\n"]
    if kept != lines:
        write_atomic(path, "".join(kept).encode("utf-8"))


def draft_warning(sources: list[str]) -> str:
    names = sorted({name for s in sources if (name := lecture_of(s))})
    return (f"WARNING: draft mode: Quarto executes {', '.join(sources)} in its own kernel, once per format. "
            f"Its outputs are not checked against tests/expected/ and a cell's fig-width/fig-height is "
            f"ignored; the products go to {', '.join(f'_output/{n}/{DRAFT}/' for n in names)}. The checked "
            f"products: `quarto render` at the project root, or scripts/render {' '.join(names)} "
            f"(docs/quarto.md).")


FAILED = "quarto-failed.json"  # in _build/: {lecture: error} of the lectures pre-render could not build


def failed_lectures(timings: Path) -> dict[str, str]:
    """{lecture: its error} from the record `scripts/render --timings` wrote ({} without one)."""
    try:
        lectures = json.loads(timings.read_text(encoding="utf-8"))["lectures"]
        timings.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {entry["name"]: entry["error"] for entry in lectures if isinstance(entry, dict) and entry.get("error")}


def save_failures(project: Project, failed: dict[str, str]) -> None:
    """What pre-render could not build (a lecture that does not read, a cell that fails, an output that
    changed): left out of Quarto's render list, for post-render to report. The other lectures go on."""
    write_atomic(project.build_dir / FAILED, json.dumps(failed, ensure_ascii=False, indent=1).encode("utf-8"))
    if failed:
        print(f"quarto: left out of this render, the others go on: {', '.join(sorted(failed))}", file=sys.stderr)


def report_failures(project: Project) -> int:
    """The course page, with every failed lecture listed and its error; then the summary, as
    scripts/render ends: each failure's `error:` line, exit 1 when a lecture failed."""
    from lecturekit.course import site
    path = project.build_dir / FAILED

    def inside(error: str) -> str:
        return error.replace(f"{project.root.resolve()}/", "").replace(f"{project.root}/", "")
    failed = {name: inside(error) for name, error in read_state(path, "list of failed lectures", str).items()}
    path.unlink(missing_ok=True)
    _page, _zips, unreadable = site.build_site(project, errors=failed)
    for name, message in unreadable.items():
        if name not in failed:  # a lecture outside this render: said, not failed
            print(f"quarto: [{name}] course page: listed as failed: {inside(message.splitlines()[0])}",
                  file=sys.stderr)
    if failed:
        total = len(project.lectures())
        print(f"quarto: {total} lecture(s): {total - len(failed)} ok, {len(failed)} failed", file=sys.stderr)
        for error in failed.values():
            print(f"error: {error}", file=sys.stderr)
    return 1 if failed else 0


PREVIEW_STUB = ('<!doctype html><meta charset="utf-8"><title>quarto preview</title>'
                '<p>Not a product: <code>quarto preview</code> serves this lecture from scripts/preview, '
                'executed through the course\'s executor. The next <code>quarto render</code> removes this page.</p>\n')


def discard(project: Path, files: list[str]) -> None:
    """Under `quarto preview`: what Quarto rendered without executing is nobody's product. Quarto
    goes on only if the page it rendered exists, so a page saying so stands in its place (in its
    mirror folder, `_output/lectures/`, never `_output/<lecture>/`); the next render sweeps it."""
    for name in files:
        product = project / name
        shutil.rmtree(product.parent / f"{product.stem}_files", ignore_errors=True)
        for source in (project / "lectures").glob(f"*/{product.stem}.quarto_ipynb"):
            source.unlink(missing_ok=True)
        if product.suffix == ".html" and product.exists():
            product.write_text(PREVIEW_STUB, encoding="utf-8")
        else:
            product.unlink(missing_ok=True)


def sweep_mirrors(output_dir: Path) -> None:
    """Quarto's mirrored folders (`_output/_build/`, `_output/lectures/`) once their products are
    placed: what is left there (a preview's touched page) belongs to no reader."""
    for folder in SOURCE_FOLDERS:
        shutil.rmtree(output_dir / folder, ignore_errors=True)

"""What Quarto's pre- and post-render steps decide (the steps themselves: cli/quarto.py).

Pre-render: the lectures whose stamp holds (course/stamp.py: nothing they are made from changed
since their last render, by either path) are not read; every other lecture is executed through our
executor and cache and checked (scripts/render --execute-only); then Quarto gets only the lectures
whose products are stale: `_build/quarto-render.yml` lists their executed notebooks. A product is
current when `_build/<lecture>/products.json` (course/products.py) records the inputs it was
written from (the executed notebook, the lecture folder, theme, filters, writer) and the product on
disk is the one recorded (size and time), whichever path wrote it.

Post-render: Quarto writes each product beside its input (the project has no `output-dir`: with
one, Quarto walks the whole project folder to list resource files on every project read): the
executed notebook `_build/<lecture>/<lecture>.ipynb` gives `_build/<lecture>/<lecture>.html` and
`.pdf`, and `quarto render lectures/<lecture>/index.qmd` gives `lectures/<lecture>/index.*`;
the page is `page.html` there (one folder holds both HTML formats). Authors look for
`_output/<lecture>/index.html`, `slides.html` and `handout.pdf`, so every product goes there,
noted in products.json. Then the course page and each lecture's `code.zip`, as scripts/render
writes them (not when nothing was rendered and nothing they are made from changed), and the stamps
of the lectures left current.

`quarto render lectures/<lecture>/index.qmd` is Quarto executing the source itself (a draft): its
products go to `_output/<lecture>/draft/`, beside and never over the checked ones.

`quarto preview` (at the root or of a lecture's source) is served by scripts/preview, which
`_quarto.yml` names as the project's preview server: its decks come from our executor and cache.
Quarto still renders the previewed source once before it starts that server; under `quarto preview`
pre-render turns execution off for that render, and post-render throws its product away, so no
kernel of Quarto's starts and nothing of it reaches `_output/`.
"""
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lecturekit.course.products import Manifest, product_inputs, theme_digest
from lecturekit.fsutil import write_atomic
from lecturekit.project import Project
from lecturekit.write.formats import FORMATS, HTML, REVEALJS, TYPST
from lecturekit.write.policy import with_policy

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


def destination(product: Path, project: Path, output_dir: Path) -> Path | None:
    """`_build/<lecture>/<lecture>.html`, `_build/<lecture>/page.html` or `lectures/<lecture>/index.pdf`
    (Quarto writes each product beside its input) -> `_output/<lecture>/slides.html`,
    `_output/<lecture>/index.html` or `_output/<lecture>/draft/handout.pdf`."""
    try:
        parts = product.relative_to(project).parts
    except ValueError:
        return None
    if len(parts) != 3 or product.suffix not in PRODUCT_NAMES:
        return None
    name = PAGE_NAMES.get(product.name, PRODUCT_NAMES[product.suffix])
    if parts[0] == "_build" and (product.stem == parts[1] or product.name in PAGE_NAMES):
        return output_dir / parts[1] / name
    if parts[0] == "lectures":  # Quarto executed the source: a draft, never over the checked products
        return output_dir / parts[1] / DRAFT / name
    return None


def place(project: Path, output_dir: Path, files: list[str]) -> list[tuple[Path, str]]:
    """Move each product; return (where it went, the folder Quarto rendered it from)."""
    placed = []
    project = project.resolve()
    output_dir = output_dir.resolve()
    for name in files:
        product = (project / name).resolve()
        target = destination(product, project, output_dir)
        if target is None or not product.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if product.suffix == ".html":
            strip_mathjax_notes_style(product)
        if target.name == REVEALJS.product:
            # The deck runs only its own scripts, as scripts/render's (write/policy.py).
            product.write_text(with_policy(product.read_text(encoding="utf-8")), encoding="utf-8")
        source = product.relative_to(project).parts[0]
        os.replace(product, target)
        if target.suffix == ".pdf":
            from lecturekit.write.pdfprefs import display_doc_title
            # The viewer shows the handout's title, as scripts/render's handout does (Typst has no
            # setting for it).
            display_doc_title(target)
        placed.append((target, source))
        # What Quarto left beside the product (figure copies for Typst) belongs to no reader, nor
        # does the executed notebook it kept beside a source (keep-ipynb, for the handout's figures).
        shutil.rmtree(product.parent / f"{product.stem}_files", ignore_errors=True)
        (product.parent / f"{product.stem}.quarto_ipynb").unlink(missing_ok=True)
    return placed


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


def product_digests(project: Project, name: str, theme: str) -> dict[str, str] | None:
    """{format: digest of what its product is written from}; None when the lecture has no executed notebook."""
    try:
        notebook = project.notebook_path(name).read_bytes()
    except OSError:
        return None
    return {fmt: product_inputs(theme, notebook, project.lectures_dir / name, fmt, FORMATS[fmt].course_links)
            for fmt in FORMAT_PRODUCTS}


def product_states(project: Project, names: list[str] | None = None) -> dict[str, tuple[dict[str, str], bool]]:
    """{lecture: (its products' digests, whether products.json says every one is current,
    whichever path wrote it)} for the lectures with an executed notebook."""
    theme = theme_digest(project)
    states = {}
    for folder in project.lectures(names):
        digests = product_digests(project, folder.name, theme)
        if digests is not None:
            manifest = Manifest(project, folder.name)
            states[folder.name] = (digests, all(manifest.fresh(fmt, digest) for fmt, digest in digests.items()))
    return states


def stale_lectures(project: Project, names: list[str] | None = None) -> tuple[dict[str, dict[str, str]], list[str]]:
    """({lecture: its products' digests} for the lectures Quarto must render, the current ones)."""
    states = product_states(project, names)
    return ({name: digests for name, (digests, fresh) in states.items() if not fresh},
            [name for name, (_digests, fresh) in states.items() if fresh])


def prepare_assets(project: Project) -> None:
    """KaTeX with its woff2 fonts only, where `_quarto.yml` points Quarto (`_build/katex/`): the
    assets scripts/render's deck embeds, so Quarto's embeds no font format a browser never loads."""
    from lecturekit.write.formats import woff2_katex
    woff2_katex(project)


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


def record(project: Project, placed: list[tuple[Path, str]], pending: dict[str, Any] | None = None) -> None:
    """Note in products.json what each placed product was written from: the executed notebook
    pre-render listed. The digests come from pre-render, so this step imports no executor. (A
    draft, in `_output/<lecture>/draft/`, replaces no checked product: nothing to note.)"""
    if pending is None:
        pending = read_state(project.build_dir / PENDING, "list of pending products")
    listed = pending.get("render", {})
    formats = {product: fmt for fmt, product in FORMAT_PRODUCTS.items()}
    checked = [target for target, source in placed if source == "_build"]
    for name in sorted({target.parent.name for target in checked}):
        manifest = Manifest(project, name)
        digests = listed.get(name) if isinstance(listed.get(name), dict) else {}
        for target in checked:
            if target.parent.name == name and target.name in formats:
                fmt = formats[target.name]
                digest = digests.get(fmt)
                if isinstance(digest, str):
                    manifest.record(fmt, target.name, digest, WRITER)
                else:  # not from the notebook pre-render listed: not known to be current
                    manifest.forget(fmt)
        manifest.save()


def record_stamps(project: Project, pending: dict[str, Any], failed: Mapping[str, str], products: list[str]) -> None:
    """After the products are placed: a stamp for every lecture pre-render planned that is now
    current (each product as products.json recorded it), and the course's when none failed."""
    from lecturekit.course import stamp
    inputs = pending.get("inputs", {})
    if failed:
        stamp.forget(project, failed)
    planned = {**pending.get("current", {}), **pending.get("render", {})}
    notes = pending.get("notes", {})
    for name, digests in planned.items():
        if name in failed or not isinstance(inputs.get(name), str) or not isinstance(digests, dict):
            continue
        manifest = Manifest(project, name)
        if digests and all(isinstance(d, str) and manifest.fresh(fmt, d) for fmt, d in digests.items()):
            said = notes.get(name)
            stamp.record(project, name, inputs[name], products, said if isinstance(said, list) else [])
    settled = pending.get("course", {}).get("settled") is True
    if inputs and not failed and not settled and all(
            isinstance(digest, str) and stamp.settled(project, name, digest, products) is not None
            for name, digest in inputs.items()):
        stamp.record_course(project, inputs)


def input_files() -> str:
    inputs = os.environ.get("QUARTO_PROJECT_INPUT_FILES")
    spill = os.environ.get("QUARTO_USE_FILE_FOR_PROJECT_INPUT_FILES")
    if inputs is None and spill:
        inputs = Path(spill).read_text(encoding="utf-8")
    return inputs or ""


PREVIEW_MARK = "# quarto-preview"
# Quarto's render before a preview renders an empty document (the filter says why).
PREVIEW_FILTER = "_extensions/lecture/preview-render.lua"


def preview_settings(project: Project, on: bool) -> None:
    """Under `quarto preview`, in `_build/quarto-render.yml` (which Quarto reads again after
    pre-render), for its render of the previewed sources: `execute: enabled: false` (no kernel
    starts) and a first filter that empties the document (an unexecuted source has no figure for
    a `@fig-` reference; the page is thrown away)."""
    path = project.root / RENDER_LIST
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        lines = []
    kept = [line for line in lines if PREVIEW_MARK not in line]
    if not any(line.strip() and not line.lstrip().startswith("#") for line in kept):
        kept = ["project:\n", "  render: []\n"]  # Quarto rejects an empty metadata file
    if on:
        kept += [f"execute:  {PREVIEW_MARK}\n", f"  enabled: false  {PREVIEW_MARK}\n",
                 f"filters:  {PREVIEW_MARK}\n", f"  - path: {PREVIEW_FILTER}  {PREVIEW_MARK}\n",
                 f"    at: pre-ast  {PREVIEW_MARK}\n"]
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


def execution_record(timings: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """({lecture: its error}, {lecture: what its output check said}) from the record
    `scripts/render --timings` wrote (nothing without one)."""
    try:
        lectures = json.loads(timings.read_text(encoding="utf-8"))["lectures"]
        timings.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        return {}, {}
    entries = [entry for entry in lectures if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    failed = {entry["name"]: entry["error"] for entry in entries if entry.get("error")}
    notes = {entry["name"]: [str(line) for line in entry.get("check") or []] for entry in entries}
    return failed, notes


def save_failures(project: Project, failed: dict[str, str]) -> None:
    """What pre-render could not build (a lecture that does not read, a cell that fails, an output that
    changed): left out of Quarto's render list, for post-render to report. The other lectures go on."""
    write_atomic(project.build_dir / FAILED, json.dumps(failed, ensure_ascii=False, indent=1).encode("utf-8"))
    if failed:
        print(f"quarto: left out of this render, the others go on: {', '.join(sorted(failed))}", file=sys.stderr)


def report_failures(project: Project, site: bool = True) -> tuple[int, dict[str, str]]:
    """The course page (`site`: unless nothing it is made from changed), with every failed lecture
    listed and its error; then the summary, as scripts/render ends: each failure's `error:` line;
    (exit status, the failed lectures)."""
    path = project.build_dir / FAILED

    def inside(error: str) -> str:
        return error.replace(f"{project.root.resolve()}/", "").replace(f"{project.root}/", "")
    failed = {name: inside(error) for name, error in read_state(path, "list of failed lectures", str).items()}
    path.unlink(missing_ok=True)
    if site or failed:
        from lecturekit.course import site as course_site
        _page, _zips, unreadable = course_site.build_site(project, errors=failed)
        for name, message in unreadable.items():
            if name not in failed:  # a lecture outside this render: said, not failed
                print(f"quarto: [{name}] course page: listed as failed: {inside(message.splitlines()[0])}",
                      file=sys.stderr)
    if failed:
        total = len(project.lectures())
        print(f"quarto: {total} lecture(s): {total - len(failed)} ok, {len(failed)} failed", file=sys.stderr)
        for error in failed.values():
            print(f"error: {error}", file=sys.stderr)
    return (1 if failed else 0), failed


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


def is_preview_page(path: Path) -> bool:
    """What `quarto preview` leaves at a source's side: the page that stands in for the one
    post-render threw away, or the empty file Quarto touches once the server is up."""
    try:
        return path.stat().st_size == 0 or path.read_text(encoding="utf-8") == PREVIEW_STUB
    except (OSError, ValueError):
        return False


# What `quarto preview` of a source renders beside it: the page (the first format) and the deck.
PREVIEW_PAGES = ("page.html", "index.html")


def sweep_preview_pages(project: Project) -> None:
    """The pages a stopped `quarto preview` left in the lecture folders belong to no reader (and a
    file there is a data file of the lecture, an input of its execution)."""
    for name in PREVIEW_PAGES:
        for page in project.lectures_dir.glob(f"*/{name}"):
            if is_preview_page(page):
                page.unlink(missing_ok=True)

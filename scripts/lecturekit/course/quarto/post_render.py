"""Quarto's post-render: every product where authors look for it, and the records that say so.

Quarto writes each product beside its input (the project has no `output-dir`: with one, Quarto walks
the whole project folder to list resource files on every project read): the executed notebook
`_build/<lecture>/<lecture>.ipynb` gives `_build/<lecture>/<lecture>.html` and `.pdf`, and
`quarto render lectures/<lecture>/index.qmd` gives `lectures/<lecture>/index.*`; the page is
`page.html` there (one folder holds both HTML formats). Authors look for
`_output/<lecture>/index.html`, `slides.html` and `handout.pdf`, so every product goes there, noted
in products.json. Then the course page and each lecture's `code.zip`, as scripts/render writes them
(not when nothing was rendered and nothing they are made from changed), and the stamps of the
lectures left current.

`quarto render lectures/<lecture>/index.qmd` is Quarto executing the source itself (a draft): its
products go to `_output/<lecture>/draft/`, beside and never over the checked ones.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from lecturekit.course.build.products import Manifest
from lecturekit.course.quarto.handoff import (DRAFT, FAILED, FORMAT_PRODUCTS, PAGE_NAMES, PENDING, PRODUCT_NAMES,
                                              RENDER_LIST, EXCLUSION_MARK, WRITER, read_state)
from lecturekit.course.quarto.preview_pages import PREVIEW_STUB
from lecturekit.fsutil import write_atomic
from lecturekit.project import Project
from lecturekit.write.formats import HTML, REVEALJS
from lecturekit.write.policy import with_policy


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
    from lecturekit.course.build import stamp
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


def report_failures(project: Project, site: bool = True, rendered: Collection[str] = ()) -> tuple[int, dict[str, str]]:
    """The course page (`site`: unless nothing it is made from changed), with every failed lecture
    listed and its error; then the summary, as scripts/render ends: each failure's `error:` line;
    (exit status, the failed lectures). `rendered`: the lectures of this render (a render of the
    project: all of them); one whose page step fails (a link in its code) fails the render, as in
    scripts/render, while any other is only said."""
    path = project.build_dir / FAILED

    def inside(error: str) -> str:
        return error.replace(f"{project.root.resolve()}/", "").replace(f"{project.root}/", "")
    failed = {name: inside(error) for name, error in read_state(path, "list of failed lectures", str).items()}
    path.unlink(missing_ok=True)
    if site or failed:
        from lecturekit.course.site import course_page
        _page, _zips, unreadable = course_page.build_site(project, errors=failed)
        for name, message in unreadable.items():
            if name in failed:
                continue
            if name in rendered:
                failed[name] = inside(message)
            else:  # a lecture outside this render (a draft's neighbour): said, not failed
                print(f"quarto: [{name}] course page: listed as failed: {inside(message.splitlines()[0])}",
                      file=sys.stderr)
    if failed:
        total = len(project.lectures())
        print(f"quarto: {total} lecture(s): {total - len(failed)} ok, {len(failed)} failed", file=sys.stderr)
        for error in failed.values():
            print(f"error: {error}", file=sys.stderr)
    return (1 if failed else 0), failed


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



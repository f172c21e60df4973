"""Quarto's pre-render: which lectures Quarto renders, and how.

The lectures whose stamp holds (build/stamp.py: nothing they are made from changed since their
last render, by either path) are not read; every other lecture is executed through our executor and
cache and checked (scripts/render --execute-only); then Quarto gets only the lectures whose products
are stale: `_build/quarto-render.yml` lists their executed notebooks. A product is current when
`_build/<lecture>/products.json` (build/products.py) records the inputs it was written from (the
executed notebook, the lecture folder, theme, filters, writer) and the product on disk is the one
recorded (size and time), whichever path wrote it.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from lecturekit.course.build.products import Manifest, product_inputs, theme_digest
from lecturekit.course.quarto.handoff import DRAFT, EXCLUSION_MARK, FAILED, FORMAT_PRODUCTS, RENDER_LIST, lecture_of
from lecturekit.fsutil import write_atomic
from lecturekit.project import Project
from lecturekit.write.formats import FORMATS


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



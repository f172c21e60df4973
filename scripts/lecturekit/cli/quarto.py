"""Quarto's pre- and post-render steps, as `_quarto.yml` names them (scripts/execute,
scripts/quarto-post-render): `python -m lecturekit.cli.quarto pre-render|post-render`.

Pre-render executes every lecture through our executor and cache (the render command with
`--execute-only`), then lists in `_build/quarto-render.yml` the executed notebooks of the lectures
whose products are stale; a lecture that fails is left out, for post-render to report. Post-render
moves Quarto's products to `_output/<lecture>/`, notes what they were written from, writes the
course page and code zips, and lists the failed lectures (exit 1 when one failed). What each step
decides lives in course/quarto_products.py; this module only runs them in order.
"""
from __future__ import annotations

import json
import os
import sys

from lecturekit.cli import render
from lecturekit.course import quarto_products as quarto
from lecturekit.errors import run_command
from lecturekit.fsutil import write_atomic
from lecturekit.project import Project


def pre_render(argv: list[str]) -> int:
    """Execute through our executor and cache, then list the lectures Quarto has to render."""
    project = Project.find()
    (project.build_dir / quarto.FAILED).unlink(missing_ok=True)  # a render of named sources fails none here
    if quarto.in_quarto_preview():
        quarto.preview_settings(project, True)
        print("quarto preview: scripts/preview serves the decks, from our executor and cache; "
              "Quarto's own render of the source before it executes no cell and is thrown away",
              file=sys.stderr)
        return 0
    quarto.preview_settings(project, False)  # left by a preview that was stopped mid-render
    if os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") and not os.environ.get("QUARTO_PROJECT_RENDER_ALL"):
        # Quarto renders named files: only the executed notebooks among them need our executor.
        inputs = quarto.input_files()
        sources = [line for line in inputs.splitlines() if quarto.lecture_of(line) and line.endswith(".qmd")]
        if sources:
            print(quarto.draft_warning(sources), file=sys.stderr)
        if "_build/" not in inputs:
            return 0
    # A lecture that fails (does not read, a cell raises, an output changed) is left out of
    # Quarto's render list and reported by post-render; the others go on.
    timings = project.build_dir / "quarto-execute.json"
    status = render.main(["--execute-only", "--quiet", "--timings", str(timings), *argv])
    failed = quarto.failed_lectures(timings)
    if status and not failed:
        return status
    quarto.save_failures(project, failed)
    stale, current = quarto.stale_lectures(project)
    stale = {name: digests for name, digests in stale.items() if name not in failed}
    current = [name for name in current if name not in failed]
    # What post-render records for each product it places: the digests decided here.
    write_atomic(project.build_dir / quarto.PENDING,
                 json.dumps(stale, indent=1, sort_keys=True).encode("utf-8"))
    quarto.write_render_list(project, list(stale))
    if current:
        print(f"quarto: {len(current)} lecture(s) unchanged since Quarto wrote them: {', '.join(current)}",
              file=sys.stderr)
    if not stale:
        print("quarto: nothing to render", file=sys.stderr)
    return 0


def post_render() -> int:
    """Quarto's products to `_output/<lecture>/`, then the course page and code zips."""
    project = Project.find()
    output_dir = project.root / os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", "_output")
    if quarto.in_quarto_preview():
        quarto.discard(project.root, quarto.output_files())
        quarto.preview_settings(project, False)
        quarto.keep_sources_in_project(project.root)
        return 0
    placed = quarto.place(project.root, output_dir, quarto.output_files())
    for target, source in placed:
        print(f"quarto: {os.path.relpath(target, project.root)}{' (draft)' if source == 'lectures' else ''}",
              file=sys.stderr)
    quarto.remove_resource_copies(project.root, output_dir)
    quarto.record(project, placed)
    quarto.sweep_mirrors(output_dir)
    quarto.keep_sources_in_project(project.root)
    return quarto.report_failures(project)


STEPS = ("pre-render", "post-render")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["pre-render"]:
        return run_command(lambda: pre_render(argv[1:])) or 0
    if argv[:1] == ["post-render"]:
        return run_command(post_render) or 0
    print(f"usage: python -m lecturekit.cli.quarto {{{','.join(STEPS)}}} [render options]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

"""Quarto's pre- and post-render steps, as `_quarto.yml` names them (scripts/execute,
scripts/quarto-post-render): `python -m lecturekit.cli.quarto pre-render|post-render`.

Pre-render skips the lectures whose stamp holds (course/build/stamp.py) and executes the others through
our executor and cache (the render command with `--execute-only`), then lists in
`_build/quarto-render.yml` the executed notebooks of the lectures whose products are stale; a
lecture that fails is left out, for post-render to report. Post-render moves Quarto's products to
`_output/<lecture>/`, notes what they were written from, writes the course page and code zips
(unless nothing changed), stamps the lectures left current, and lists the failed lectures (exit 1
when one failed). What each step decides lives in course/quarto/ (pre_render.py, post_render.py); this module only runs
them in order.
"""
from __future__ import annotations

import json
import os
import sys

# The modules are aliased: this module's own steps are `pre_render` and `post_render`.
from lecturekit.course.quarto import handoff, preview_pages
from lecturekit.course.quarto import post_render as post
from lecturekit.course.quarto import pre_render as pre
from lecturekit.course.build import stamp
from lecturekit.errors import run_command
from lecturekit.fsutil import write_atomic
from lecturekit.project import Project

PRODUCTS = list(handoff.FORMAT_PRODUCTS.values())


def pre_render(argv: list[str]) -> int:
    """Execute through our executor and cache, then list the lectures Quarto has to render. A
    lecture whose stamp holds (nothing it is made from changed since its last render, by either
    path) is not read again: with every stamp holding, Quarto gets no file and no executor is imported."""
    project = Project.find()
    (project.build_dir / handoff.FAILED).unlink(missing_ok=True)  # a render of named sources fails none here
    (project.build_dir / handoff.PENDING).unlink(missing_ok=True)  # nor notes a product or a stamp
    if handoff.in_quarto_preview():
        pre.prepare_assets(project)
        pre.preview_settings(project, True)
        print("quarto preview: scripts/preview serves the decks, from our executor and cache; "
              "Quarto's own render of the source before it executes no cell and is thrown away",
              file=sys.stderr)
        return 0
    pre.preview_settings(project, False)  # left by a preview that was stopped mid-render
    if os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") and not os.environ.get("QUARTO_PROJECT_RENDER_ALL"):
        # Quarto renders named files: only the executed notebooks among them need our executor.
        inputs = handoff.input_files()
        sources = [line for line in inputs if handoff.lecture_of(line) and line.endswith(".qmd")]
        if sources:
            print(pre.draft_warning(sources), file=sys.stderr)
        if not any("_build/" in line for line in inputs):
            pre.prepare_assets(project)
            return 0
    names = [folder.name for folder in project.lectures()]
    # Computed before anything is read: a file saved during this render makes the next one differ.
    digests = stamp.inputs_of(project, names, handoff.FORMAT_PRODUCTS)
    accept = os.environ.get("LECTUREKIT_ACCEPT") == "1"
    settled = {} if accept or argv else {
        name: notes for name in names if (notes := stamp.settled(project, name, digests[name], PRODUCTS)) is not None}
    for name, notes in settled.items():
        for line in notes:
            print(line, file=sys.stderr)
    todo = [name for name in names if name not in settled]
    failed: dict[str, str] = {}
    checked: dict[str, list[str]] = {}
    if todo or argv:
        # A lecture that fails (does not read, a cell raises, an output changed) is left out of
        # Quarto's render list and reported by post-render; the others go on.
        from lecturekit.cli import render
        timings = project.build_dir / "quarto-execute.json"
        status = render.main(["--execute-only", "--quiet", "--timings", str(timings), *(argv or todo)])
        failed, checked = pre.execution_record(timings)
        if status and not failed:
            return status
    pre.save_failures(project, failed)
    states = pre.product_states(project, [n for n in todo if n not in failed]) if todo else {}
    stale = {name: digests for name, (digests, fresh) in states.items() if not fresh}
    current = {name: digests for name, (digests, fresh) in states.items() if fresh}
    # What post-render records for each product it places (the digests decided here), and the
    # stamps it writes once the lectures are current.
    pending = {"render": stale, "current": current, "inputs": digests, "notes": checked,
               "course": {"settled": not todo and not failed and stamp.course_settled(project, digests)}}
    write_atomic(project.build_dir / handoff.PENDING, json.dumps(pending, indent=1, sort_keys=True).encode("utf-8"))
    if stale:
        pre.prepare_assets(project)
    pre.write_render_list(project, list(stale))
    unchanged = sorted([*settled, *current])
    if unchanged:
        print(f"quarto: {len(unchanged)} lecture(s) current, whichever path wrote them: {', '.join(unchanged)}",
              file=sys.stderr)
    if not stale:
        print("quarto: nothing to render", file=sys.stderr)
    return 0


def post_render() -> int:
    """Quarto's products to `_output/<lecture>/`, then the course page and code zips (not when
    nothing changed), then the stamps of the lectures left current."""
    project = Project.find()
    if handoff.in_quarto_preview():
        post.discard(project.root, handoff.output_files())
        pre.preview_settings(project, False)
        post.keep_sources_in_project(project.root)
        return 0
    placed = post.place(project.root, project.output_dir, handoff.output_files())
    for target, source in placed:
        print(f"quarto: {os.path.relpath(target, project.root)}{' (draft)' if source == 'lectures' else ''}",
              file=sys.stderr)
    pending = handoff.read_state(project.build_dir / handoff.PENDING, "quarto-pending", "list of pending products")
    post.record(project, placed, pending)
    preview_pages.sweep_preview_pages(project)
    post.keep_sources_in_project(project.root)
    course_settled = not placed and pending.get("course", {}).get("settled") is True
    status, failed = post.report_failures(project, site=not course_settled, rendered=list(pending.get("inputs", {})))
    post.record_stamps(project, pending, failed, PRODUCTS)
    return status


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

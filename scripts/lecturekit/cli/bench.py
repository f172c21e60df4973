"""`scripts/bench`: what a render costs, ours and `quarto render` side by side, and how a course's build grows.

  scripts/bench                          every lecture, ours and Quarto's, + courses of 10 and 30 lectures
  scripts/bench --lecture 09-nn-module   only that lecture (repeatable)
  scripts/bench --source DIR             lectures, code and expectations from another project
  scripts/bench --scale 10 30 91         the course sizes to build (91: the whole course; minutes on 2 cores)
  scripts/bench --scale-jobs 1 2         the worker counts each course is built with (default: 1 and 2)
  scripts/bench --repeat 5               runs of each no-change render (the median is the number)
  scripts/bench --skip-lecture           only the course table;  --skip-scale: only the lectures
  scripts/bench --skip-quarto            no `quarto render` column (it runs when $QUARTO or a quarto on PATH exists)
  scripts/bench --skip-preview           no scripts/preview measurement;  --preview-only: only it
  scripts/bench --authors-day --before main   the author's day, before beside after (below)

Per lecture, for `scripts/render` and for `quarto render` (whose pre-render is our execute step):
cold (nothing cached), warm (execution cached, products written again), no change (run again),
prose edit (a sentence added: the execution stays cached), and for ours check-from-cache and a fresh
check; and scripts/preview: from saving a prose edit to the new words in Chromium, with the
server's own time to rewrite the deck.

`--authors-day`: the whole project as an author has it, ours (`scripts/render`) beside
`quarto render`: nothing changed, a prose edit in one lecture, and nothing changed right after the
other path rendered, `--runs` times each (medians; wall and CPU time, the load average). Each revision
(`--before REV`, and this checkout's HEAD) is measured in a fresh clone of its own, set up by its
scripts/setup (a real .venv and node_modules inside it, as Quarto then walks them), with the
execution cache copied in; the revisions take turns, so both see the same load. The first commands
in each clone are reported apart (first-use caches). The floor is what the lecture's own code costs: the kernel's start plus every cell's execution
time; the rest of a cold render is the renderer's overhead.

Everything runs in throwaway copies of the project (built by `lecturekit.course.scaffold`, as the
tests build theirs), so the benchmark neither reads nor disturbs `_build/` and `_output/`; commands
are measured by `lecturekit.meter` and the preview is driven the tests' way (`scaffold.browser`).
It measures; it asserts nothing. It writes every number as JSON and the side-by-side table as Markdown (`--out`).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lecturekit import meter
from lecturekit.course.scaffold.browser import launch_chromium, preview_server, seconds_to_screen
from lecturekit.course.scaffold.courses import (add_prose, find_quarto, lecture_project, prose_edit, quarto_ready,
                                                synthetic_course, write_synthetic)
from lecturekit.fsutil import write_atomic

ROOT = Path(__file__).resolve().parents[3]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("--lecture", action="append", metavar="NAME",
                        help="a lecture to measure (repeatable; default: every lecture of the source project)")
    parser.add_argument("--source", type=Path, default=ROOT, metavar="DIR",
                        help="the project whose lectures, code and expectations are measured (default: this one)")
    parser.add_argument("--scale", type=int, nargs="+", default=[10, 30], metavar="N",
                        help="synthetic course sizes (default: 10 30)")
    parser.add_argument("--jobs", type=int, default=None, help="render --jobs (default: the core count)")
    parser.add_argument("--scale-jobs", type=int, nargs="+", default=[1, 2], metavar="N",
                        help="render --jobs for the synthetic courses, each built once per count (default: 1 2)")
    parser.add_argument("--repeat", type=int, default=5, metavar="N",
                        help="runs of each synthetic course's no-change render; the median is reported (default: 5)")
    parser.add_argument("--skip-lecture", action="store_true", help="no single-lecture measurements")
    parser.add_argument("--skip-scale", action="store_true", help="no synthetic-course measurements")
    parser.add_argument("--skip-quarto", action="store_true", help="no `quarto render` measurements")
    parser.add_argument("--skip-preview", action="store_true", help="no scripts/preview measurement")
    parser.add_argument("--preview-only", action="store_true",
                        help="per lecture only the scripts/preview measurement (no courses either)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="where bench.json and bench.md go (default: _build/bench/ of this project)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects (paths printed)")
    parser.add_argument("--authors-day", action="store_true",
                        help="only the author's day: the whole project, ours beside quarto render, in fresh clones")
    parser.add_argument("--before", metavar="REV", default=None,
                        help="with --authors-day: also this revision, measured beside this checkout's HEAD")
    parser.add_argument("--runs", type=int, default=5, metavar="N", help="with --authors-day: runs of each row")
    args = parser.parse_args(argv)
    args.source = args.source.resolve()
    args.out = (args.out or ROOT / "_build" / "bench").resolve()
    return args


# ---- running the CLIs, measured ------------------------------------------------------------------

def measured(command: list[str], cwd: Path, env: dict[str, str] | None = None,
             ok: tuple[int, ...] = (0,)) -> meter.Measured:
    """One command run: wall time, CPU time and peak memory (lecturekit.meter); a failure stops the bench."""
    run = meter.run(command, cwd=cwd, env=env)
    if run.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(command)} failed in {cwd}:\n{run.stderr[-3000:]}")
    return run


def render(project: Path, *args: str) -> meter.Measured:
    return measured([sys.executable, "-m", "lecturekit.cli.render", "--quiet", *args], project)


def check(project: Path, *args: str) -> meter.Measured:
    # A check exits 1 when an output drifted: still a measurement, so only a crash stops the bench.
    return measured([sys.executable, "-m", "lecturekit.cli.check", "--quiet", *args], project, ok=(0, 1))


def mb(n: float) -> str:
    return f"{n / 2**20:.0f} MB"


# ---- one lecture, our renderer -------------------------------------------------------------------

def time_python(code: str, cwd: Path, repeat: int = 3) -> float:
    """Best of a few runs of `python -c code`: start-up costs."""
    best: float | None = None
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        best = seconds if best is None else min(best, seconds)
    assert best is not None
    return best


def embedding_seconds(project: Path, lecture: str) -> tuple[float, dict[str, float]]:
    """pandoc's reveal.js run with and without --embed-resources: what embedding costs."""
    from lecturekit.pandoc import run_pandoc
    from lecturekit.project import Project
    from lecturekit.execute.build import execute_lecture
    from lecturekit.write.formats import REVEALJS
    from lecturekit.write.writers import LectureWriter
    proj = Project(project)
    execution = execute_lecture(proj, proj.lectures_dir / lecture, write=False, cached_only=True)
    if execution is None:
        raise SystemExit(f"bench: {lecture} has no valid cache entry after its render")
    writer = LectureWriter(proj, execution)
    source = writer.markdown(REVEALJS)
    args = writer.pandoc_args(REVEALJS)
    times = {}
    for name, extra in (("embedded", args), ("linked", [a for a in args if a != "--embed-resources"])):
        started = time.perf_counter()
        run_pandoc([str(source), *extra, "-o", os.devnull], cwd=writer.build)
        times[name] = time.perf_counter() - started
    return times["embedded"] - times["linked"], times


def bench_ours(args: argparse.Namespace, tmp: Path, lecture: str) -> dict[str, Any]:
    """cold, warm, no change, prose edit, checks, the floor and the stages of the cold render."""
    project = lecture_project(tmp / f"ours-{lecture}", args.source, lecture)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    print(f"== scripts/render {lecture} (a copy in {project}) ==", flush=True)
    cold = render(project, lecture, "--fresh", "--timings", str(tmp / "cold.json"), *jobs)
    timing = json.loads((tmp / "cold.json").read_text())
    result = timing["lectures"][0]
    warm = render(project, lecture, "--force", "--timings", str(tmp / "warm.json"), *jobs)
    unchanged = render(project, lecture, *jobs)
    check_cached = check(project, lecture)
    check_fresh = check(project, lecture, "--fresh")
    add_prose(project, lecture)
    prose = render(project, lecture, "--timings", str(tmp / "prose.json"), *jobs)
    prose_executed = json.loads((tmp / "prose.json").read_text())["lectures"][0]["executed"]

    t = result["execution_timings"]
    cells = t.get("cells", {})
    kernel = t.get("kernel_start", 0.0)
    floor = kernel + sum(cells.values())
    w = result["writer_timings"]
    warm_w = json.loads((tmp / "warm.json").read_text())["lectures"][0]["writer_timings"]
    embed, embed_runs = embedding_seconds(project, lecture)
    torch_label, torch_cell = _first_torch_cell(project, lecture, cells)
    import_torch = max(time_python("import torch", project, repeat=2) - time_python("pass", project, repeat=2), 0.0)
    startup = time_python("import lecturekit.cli.render, lecturekit.course.build.builder", project)
    versions_probe = max(time_python("from lecturekit.execute import cache; cache.environment_versions()", project)
                         - time_python("from lecturekit.execute import cache", project), 0.0)
    stages = {
        "startup": startup, "versions_probe": versions_probe, "kernel_start": kernel,
        "cells": sum(cells.values()), "first_torch_cell": torch_cell, "import_torch": import_torch,
        "inline": t.get("inline", 0.0), "execute": result["execute_seconds"],
        "write": result["write_seconds"], "writer_sum": sum(w.values()), "embedding": embed,
        "site": timing["site_seconds"], "inside_cli": timing["seconds"],
    }
    print(f"  cold {cold.seconds:.1f} s (floor {floor:.1f} s, peak {mb(cold.peak_rss)}), warm {warm.seconds:.1f} s, "
          f"no change {unchanged.seconds:.1f} s, prose edit {prose.seconds:.1f} s, check {check_cached.seconds:.1f} s; "
          f"first torch cell: {torch_label}", flush=True)
    return {
        "cold": cold.seconds, "warm": warm.seconds, "no_change": unchanged.seconds, "prose_edit": prose.seconds,
        "prose_edit_executed": prose_executed, "check_cached": check_cached.seconds,
        "check_fresh": check_fresh.seconds, "floor": floor,
        "overhead": cold.seconds - floor, "peak_cold": cold.peak_rss, "cells": cells, "stages": stages,
        "writer": w, "warm_writer": warm_w, "embedding_runs": embed_runs,
    }


def _first_torch_cell(project: Path, lecture: str, cells: dict[str, float]) -> tuple[str, float]:
    from lecturekit.read import qmd
    parsed = qmd.read_lecture(project / "lectures" / lecture / "index.qmd")
    for index, cell in enumerate(parsed.cells, 1):
        if "import torch" in cell.code:
            label = cell.label or f"#{index}"
            return label, cells.get(label, 0.0)
    return "-", 0.0


# ---- one lecture, scripts/preview ----------------------------------------------------------------

PREVIEW_EDITS = 5  # prose edits saved one after another; the table shows their median


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def bench_preview(args: argparse.Namespace, tmp: Path, lecture: str) -> dict[str, Any]:
    """scripts/preview on a copy of the lecture whose execution is cached: each prose edit is timed
    from the save to its words in Chromium's reloaded page (no reload by hand), beside the
    server's own time for the deck."""
    import re
    from playwright.sync_api import sync_playwright
    from lecturekit.course.preview.server import full_slides, served_slides
    from lecturekit.project import Project
    project = lecture_project(tmp / f"preview-{lecture}", args.source, lecture)
    print(f"== scripts/preview {lecture} (a copy in {project}) ==", flush=True)
    if (args.source / "_build" / "cache").is_dir():  # an author previews after a render: a warm cache
        shutil.copytree(args.source / "_build" / "cache", project / "_build" / "cache")
    render(project, lecture, "--execute-only")
    lecture_dir = project / "lectures" / lecture
    visible = []

    def in_the_deck(line: str) -> bool:
        """Once in the deck and once in the sources: the deck shows this very line (a sentence the
        handout has too, in a block of its own, would never change it)."""
        words = " ".join(line.split())
        return deck_text.count(words) == 1 and sources.count(words) == 1

    with preview_server(project, lecture, timeout=600) as (port, log_path), sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"http://127.0.0.1:{port}/{lecture}/slides.html")
        for n in range(PREVIEW_EDITS):
            deck_text = " ".join(page.evaluate("document.body.textContent").split())
            sources = " ".join(" ".join(f.read_text(encoding="utf-8").split()) for f in lecture_dir.glob("*.qmd"))
            words = f"(সম্পাদনা {n + 1})"
            source, text = prose_edit(project, lecture, f" {words}", in_the_deck, middle=True)
            # Saved whole, as an editor saves (a half-written file read by the watcher is another
            # lecture, and would execute); the words may land on a slide not shown.
            visible.append(seconds_to_screen(page, lambda: write_atomic(source, text.encode("utf-8")), words,
                                             shown=False, timeout_ms=120_000, pause=1.5))
            print(f"  edit {n + 1} ({source.name}): on screen after {visible[-1]:.2f} s", flush=True)
        browser.close()
        load = os.getloadavg()[0]
        # What the browser was shown, against a full render of the same sources.
        time.sleep(0.5)
        same = served_slides(Project(project), lecture_dir) == full_slides(Project(project), lecture_dir)
    log_text = log_path.read_text(encoding="utf-8")
    builds = [(float(s), how) for s, how in re.findall(r"deck written in ([0-9.]+) s \((.+?)\)", log_text)][1:]
    stages = [dict((k, float(v)) for k, v in re.findall(r"(\w+) ([0-9.]+) s", m))
              for m in re.findall(r"deck written in [0-9.]+ s \(.+?\): (.*)", log_text)][1:]
    deck = [seconds for seconds, _how in builds]
    cpu = [stage.get("cpu", float("nan")) for stage in stages]
    spliced = len(re.findall(r"deck written in .*; the slides of .* only", log_text))
    print(f"  prose edit on screen: median {median(visible):.2f} s ({', '.join(f'{v:.2f}' for v in visible)}); "
          f"deck rewritten in median {median(deck) if deck else float('nan'):.2f} s, "
          f"CPU median {median(cpu) if cpu else float('nan'):.2f} s; load average {load:.1f}; "
          f"from the cache: {all(how == 'from the cache' for _s, how in builds)}; "
          f"{spliced} of {len(deck)} only the edited section's slides; "
          f"served slides equal a full render's: {same}", flush=True)
    return {"prose_visible": visible, "prose_visible_median": median(visible), "deck_seconds": deck,
            "deck_cpu_seconds": cpu, "load_average": load, "spliced": spliced, "same_as_full_render": same,
            "deck_from_cache": all(how == "from the cache" for _s, how in builds), "deck_stages": stages}


# ---- one lecture, quarto render ------------------------------------------------------------------

def quarto_project(folder: Path, source: Path, lecture: str) -> Path:
    """A lecture project Quarto can render (scaffold.courses.quarto_ready: this checkout's scripts and venv)."""
    return quarto_ready(lecture_project(folder, source, lecture), ROOT)


def quarto_render(quarto: str, project: Path, *args: str) -> meter.Measured:
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    return measured([quarto, "render", *args], project, env=env)


def bench_quarto(args: argparse.Namespace, tmp: Path, quarto: str, lecture: str) -> dict[str, Any]:
    """The same runs through `quarto render` (pre-render executes into the same cache), and Quarto
    executing the source itself."""
    print(f"== quarto render {lecture} ({quarto}) ==", flush=True)
    project = quarto_project(tmp / f"quarto-{lecture}", args.source, lecture)
    cold = quarto_render(quarto, project)
    for product in (project / "_output" / lecture).glob("*.*"):  # written again: the execution is cached
        product.unlink()
    warm = quarto_render(quarto, project)
    unchanged = quarto_render(quarto, project)
    add_prose(project, lecture)
    prose = quarto_render(quarto, project)
    source = quarto_project(tmp / f"quarto-source-{lecture}", args.source, lecture)
    executing = quarto_render(quarto, source, f"lectures/{lecture}/index.qmd")
    print(f"  cold {cold.seconds:.1f} s, warm {warm.seconds:.1f} s, no change {unchanged.seconds:.1f} s, "
          f"prose edit {prose.seconds:.1f} s, Quarto executing {executing.seconds:.1f} s", flush=True)
    return {"cold": cold.seconds, "warm": warm.seconds, "no_change": unchanged.seconds,
            "prose_edit": prose.seconds, "quarto_executes": executing.seconds, "peak_cold": cold.peak_rss}


# ---- the author's day: the whole project, in fresh clones, before and after ----------------------

DAY_ROWS = [  # (key, what it is)
    ("nothing", "nothing changed"),
    ("prose", "a prose edit in {lecture}"),
    ("after_other", "nothing changed, right after the other path rendered"),
]
PRODUCT_GLOB = "*/*.*"  # _output/<lecture>/slides.html, handout.pdf, code.zip


class Clone:
    """A fresh clone of one revision of this project, set up as an author sets one up."""

    def __init__(self, folder: Path, label: str, rev: str, quarto: str | None) -> None:
        self.root, self.label, self.quarto = folder, label, quarto
        self.sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True, capture_output=True,
                                  text=True).stdout.strip()
        self.first: dict[str, Any] = {}
        self.runs: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def command(self, which: str, *args: str) -> dict[str, Any]:
        """One command as the author types it: wall and CPU seconds (every process it started), the
        load average when it started, and how many products it wrote."""
        env = {**os.environ, "QUARTO_PYTHON": str(self.root / ".venv" / "bin" / "python")}
        command = [str(self.root / "scripts" / "render")] if which == "ours" else [str(self.quarto), "render"]
        before = {p: p.stat().st_mtime_ns for p in (self.root / "_output").glob(PRODUCT_GLOB)}
        load = os.getloadavg()[0]
        run = measured([*command, *args], self.root, env=env)
        after = {p: p.stat().st_mtime_ns for p in (self.root / "_output").glob(PRODUCT_GLOB)}
        written = sorted(p.relative_to(self.root).as_posix() for p, t in after.items() if before.get(p) != t)
        return {"seconds": run.seconds, "cpu": run.cpu_seconds,
                "load": load, "written": written}

    def measure(self, row: str, which: str) -> dict[str, Any]:
        result = self.command(which)
        self.runs.setdefault(row, {}).setdefault(which, []).append(result)
        print(f"  [{self.label}] {row}, {which}: {result['seconds']:.1f} s (CPU {result['cpu']:.1f} s, load "
              f"{result['load']:.1f}), {len(result['written'])} product(s) written", flush=True)
        return result


def make_clone(args: argparse.Namespace, tmp: Path, label: str, rev: str, quarto: str) -> Clone:
    clone = Clone(tmp / f"clone-{label}", label, rev, quarto)
    print(f"== {label}: a fresh clone of {rev} ({clone.sha[:9]}) in {clone.root} ==", flush=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone.root)], check=True)
    subprocess.run(["git", "-C", str(clone.root), "checkout", "-q", clone.sha], check=True)
    started = time.perf_counter()
    subprocess.run([str(clone.root / "scripts" / "setup")], cwd=clone.root, check=True)
    clone.first["setup"] = time.perf_counter() - started
    if (args.source / "_build" / "cache").is_dir():  # executed before, by this checkout: no kernel starts
        shutil.copytree(args.source / "_build" / "cache", clone.root / "_build" / "cache")
    # First use: the kit's and the venv's bytecode are compiled, Quarto's scratch folder is made.
    python = [str(clone.root / ".venv" / "bin" / "python"), "-c", "import lecturekit.cli.render, lecturekit.cli.quarto"]
    for which in ("import_first", "import_second"):
        started = time.perf_counter()
        subprocess.run(python, cwd=clone.root, check=True, capture_output=True)
        clone.first[which] = time.perf_counter() - started
    clone.first["ours_first"] = clone.command("ours")
    clone.first["quarto_first"] = clone.command("quarto")
    clone.first["ours_second"] = clone.command("ours")
    clone.first["quarto_second"] = clone.command("quarto")
    print(f"  setup {clone.first['setup']:.0f} s; first scripts/render {clone.first['ours_first']['seconds']:.1f} s, "
          f"first quarto render {clone.first['quarto_first']['seconds']:.1f} s, then "
          f"{clone.first['ours_second']['seconds']:.1f} s and {clone.first['quarto_second']['seconds']:.1f} s", flush=True)
    return clone


def day_cycle(clone: Clone, lecture: str, n: int) -> None:
    """Each row once, ours and quarto, in an order where each run finds what its row says: a
    prose edit (each path its own edit), the same path again (nothing changed), the other path
    right after it rendered, and that path again (nothing changed)."""
    add_prose(clone.root, lecture, f" (সম্পাদনা {n}ক)")
    clone.measure("prose", "ours")
    clone.measure("nothing", "ours")
    clone.measure("after_other", "quarto")
    clone.measure("nothing", "quarto")
    add_prose(clone.root, lecture, f" (সম্পাদনা {n}খ)")
    clone.measure("prose", "quarto")
    clone.measure("after_other", "ours")


def day_summary(clone: Clone) -> dict[str, Any]:
    rows = {}
    for row, paths in clone.runs.items():
        rows[row] = {which: {"seconds": median([r["seconds"] for r in runs]), "cpu": median([r["cpu"] for r in runs]),
                             "all_seconds": [r["seconds"] for r in runs], "load": [r["load"] for r in runs],
                             "written": median([len(r["written"]) for r in runs])}
                     for which, runs in paths.items()}
    return {"rev": clone.sha, "first": clone.first, "rows": rows, "runs": clone.runs}


def _day_cell(m: dict[str, Any] | None) -> str:
    return f"{m['seconds']:.1f} s ({m['cpu']:.1f} s CPU; {m['written']:g} written)" if m else "–"


def day_table(day: dict[str, Any], lecture: str) -> str:
    """Markdown: per row, ours and quarto for each revision, medians (CPU seconds in brackets)."""
    labels = list(day["revisions"])
    head = "| what |" + "".join(f" {label}: ours | {label}: quarto | {label}: quarto ÷ ours |" for label in labels)
    lines = [head, "|---|" + "--:|--:|--:|" * len(labels)]
    for key, what in DAY_ROWS:
        cells = []
        for label in labels:
            row = day["revisions"][label]["rows"].get(key, {})
            ours, quarto = row.get("ours"), row.get("quarto")
            ratio = f"{quarto['seconds'] / ours['seconds']:.2f}×" if ours and quarto else "–"
            cells += [_day_cell(ours), _day_cell(quarto), ratio]
        lines.append(f"| {what.format(lecture=lecture)} | " + " | ".join(cells) + " |")
    loads = [r["load"] for label in labels for rows in day["revisions"][label]["runs"].values()
             for runs in rows.values() for r in runs]
    lines += ["", f"Medians of {day['runs']} runs each; load average at the start of each run "
                  f"{min(loads):.1f}–{max(loads):.1f} (median {median(loads):.1f}) on {os.cpu_count()} cores."]
    for label in labels:
        first = day["revisions"][label]["first"]
        lines.append(f"{label} ({day['revisions'][label]['rev'][:9]}), fresh clone: setup {first['setup']:.0f} s; "
                     f"importing the kit's commands {first['import_first']:.1f} s the first time (bytecode "
                     f"compiled), {first['import_second']:.1f} s the second; "
                     f"first scripts/render (every product written) {first['ours_first']['seconds']:.1f} s "
                     f"({first['ours_first']['cpu']:.1f} s CPU), then the first quarto render "
                     f"{first['quarto_first']['seconds']:.1f} s ({first['quarto_first']['cpu']:.1f} s CPU, "
                     f"{len(first['quarto_first']['written'])} product(s) written); each once more, right after "
                     f"the other: {first['ours_second']['seconds']:.1f} s and {first['quarto_second']['seconds']:.1f} s.")
    return "\n".join(lines)


def authors_day(args: argparse.Namespace, tmp: Path, quarto: str) -> dict[str, Any]:
    lectures = [p.parent.name for p in sorted((args.source / "lectures").glob("*/index.qmd"))]
    lecture = (args.lecture or ["09-nn-module" if "09-nn-module" in lectures else lectures[0]])[0]
    revisions = [("before", args.before)] if args.before else []
    revisions.append(("after" if args.before else "this", "HEAD"))
    clones = [make_clone(args, tmp, label, rev, quarto) for label, rev in revisions]
    day: dict[str, Any] = {"lecture": lecture, "runs": 0}
    for n in range(1, args.runs + 1):
        for clone in clones:  # the revisions take turns: the same load for both
            print(f"== run {n} of {args.runs}: {clone.label} ==", flush=True)
            day_cycle(clone, lecture, n)
        day.update(runs=n, revisions={c.label: day_summary(c) for c in clones})
        day["table"] = day_table(day, lecture)
        save_day(args, day)  # after every run: a stopped bench keeps what it measured
    return day


def save_day(args: argparse.Namespace, day: dict[str, Any]) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "authors-day.json").write_text(json.dumps(
        {"machine": {**machine(), "load_average_end": list(os.getloadavg())}, "authors_day": day},
        indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "authors-day.md").write_text(day["table"] + "\n", encoding="utf-8")


# ---- the side-by-side table ----------------------------------------------------------------------

ROWS = [  # (key, what it is)
    ("cold", "cold: nothing cached, execute + both products"),
    ("warm", "warm: execution cached, both products written"),
    ("no_change", "no change: run again"),
    ("prose_edit", "prose edit: words added to a sentence"),
    ("check_cached", "check from the cache"),
    ("check_fresh", "check, executing again"),
    ("quarto_executes", "Quarto executes the source itself"),
    ("floor", "floor: kernel start + cells' own time"),
    ("preview_visible", "scripts/preview: prose edit saved → on screen (median)"),
    ("preview_deck", "scripts/preview: deck rewritten (median, server's own time)"),
    ("preview_cpu", "scripts/preview: deck rewritten, CPU (median, server and pandoc)"),
]


def table(numbers: dict[str, Any]) -> str:
    """Markdown: one block per lecture, a row per measurement, ours and Quarto's side by side."""
    lines = []
    for lecture, both in numbers.get("lectures", {}).items():
        ours, quarto = both.get("ours") or {}, both.get("quarto") or {}
        lines += [f"**{lecture}**", "", "| measurement | `scripts/render` | `quarto render` |", "|---|--:|--:|"]
        for key, label in ROWS:
            if key == "floor":
                value = ours.get("floor")
                mine = theirs = f"{value:.1f} s" if value is not None else "–"
            elif key.startswith("preview_"):
                preview = both.get("preview") or {}
                value = preview.get({"preview_visible": "prose_visible_median",
                                     "preview_cpu": "deck_cpu_seconds"}.get(key, "deck_seconds"))
                if isinstance(value, list):
                    value = median(value) if value else None
                mine, theirs = (f"{value:.2f} s" if value is not None else "–"), "–"
            else:
                mine = f"{ours[key]:.1f} s" if key in ours else "–"
                theirs = f"{quarto[key]:.1f} s" if key in quarto else "–"
            lines.append(f"| {label} | {mine} | {theirs} |")
        lines.append("")
    if numbers.get("scale"):
        lines += scale_table(numbers["scale"])
    return "\n".join(lines)


# ---- scale ---------------------------------------------------------------------------------------

def scale_table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown: one row per course size and worker count; the no-change column is a median."""
    lines = ["**Synthetic courses** (3-cell lectures, no torch, expectations recorded; `scripts/render --jobs N`)", "",
             "| lectures | workers | cold | no change (median) | no change, CPU (median) | one lecture's code "
             "changed | one prose fix | load average (1 min) |", "|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for row in rows:
        lines.append(f"| {row['count']} | {row['jobs']} | {row['cold']:.1f} s | {row['no_change']:.2f} s "
                     f"({len(row['no_change_runs'])} runs) | {row.get('no_change_cpu', float('nan')):.2f} s | "
                     f"{row['one_changed']:.1f} s | {row['prose']:.1f} s | "
                     f"{row['load_before'][0]:.1f} → {row['load_after'][0]:.1f} |")
    return lines + [""]


def growth(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per worker count: what each lecture more costs, between consecutive course sizes (no change and
    cold). A render that reads something once per lecture per lecture shows a larger step between the
    larger sizes; one that grows with the lectures keeps the steps alike."""
    found: dict[str, dict[str, float]] = {}
    for jobs in sorted({row["jobs"] for row in rows}):
        mine = sorted((row for row in rows if row["jobs"] == jobs), key=lambda row: row["count"])
        for a, b in zip(mine, mine[1:]):
            span = b["count"] - a["count"]
            found[f"jobs {jobs}: {a['count']} → {b['count']}"] = {
                key: (b[key] - a[key]) / span for key in ("no_change", "no_change_cpu", "cold") if key in a and key in b}
    return found


def scale_plot(rows: list[dict[str, Any]], path: Path) -> Path:
    """Cold and no-change render time against the number of lectures, one line per worker count (and
    the no-change render's CPU time, which the machine's load does not change), with the smallest
    course's CPU time scaled linearly beside it. SVG without a date: the same
    numbers give the same file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "lecturekit-scale"
    fig, (cold_ax, same_ax) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    for jobs in sorted({row["jobs"] for row in rows}):
        mine = sorted((row for row in rows if row["jobs"] == jobs), key=lambda row: row["count"])
        counts = [row["count"] for row in mine]
        cold_ax.plot(counts, [row["cold"] for row in mine], marker="o", label=f"{jobs} worker{'s' * (jobs > 1)}")
        same_ax.errorbar(counts, [row["no_change"] for row in mine],
                         yerr=[[row["no_change"] - min(row["no_change_runs"]) for row in mine],
                               [max(row["no_change_runs"]) - row["no_change"] for row in mine]],
                         marker="o", capsize=3, label=f"{jobs} worker{'s' * (jobs > 1)} (median, min–max)")
        if all("no_change_cpu" in row for row in mine):
            same_ax.plot(counts, [row["no_change_cpu"] for row in mine], linestyle="--", marker=".",
                         color=same_ax.lines[-1].get_color(), label=f"{jobs} worker{'s' * (jobs > 1)}: CPU time (median)")
        if jobs == min(row["jobs"] for row in rows) and mine:
            # What growing with the number of lectures allows: the smallest course's CPU time (the
            # measure the load leaves alone), scaled by the lectures.
            first = mine[0]
            base = first.get("no_change_cpu", first["no_change"])
            same_ax.plot(counts, [base * n / first["count"] for n in counts], linestyle=":", color="grey",
                         label=f"CPU time, linear from {first['count']} lectures")
    cold_ax.set(title="cold: nothing cached", xlabel="lectures", ylabel="seconds")
    same_ax.set(title="no change: run again", xlabel="lectures", ylabel="seconds")
    same_ax.axhline(10, color="firebrick", linewidth=0.8, linestyle="--", label="10 s")
    for ax in (cold_ax, same_ax):
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    # The measured runs, the 10 s line and, above them, the legend in view.
    same_ax.set_ylim(top=max(15.0, 1.8 * max(max(row["no_change_runs"]) for row in rows)))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    return path


def bench_scale(args: argparse.Namespace, tmp: Path, numbers: dict[str, Any]) -> None:
    """Each course size built once per worker count from nothing: cold, then (expectations recorded,
    as a course has them) no change `--repeat` times, one lecture's code changed (accepted), one prose fix."""
    print(f"== synthetic courses (3-cell lectures, no torch) of {args.scale} lectures, "
          f"--jobs {args.scale_jobs} ==", flush=True)
    rows: list[dict[str, Any]] = []
    numbers["scale"] = rows
    for count in args.scale:
        for jobs in args.scale_jobs:
            builder = synthetic_course(tmp / f"course-{count}-{jobs}", count)
            project = builder.root
            workers = ("--jobs", str(jobs))
            load_before = list(os.getloadavg())
            cold = render(project, *workers)
            check(project, "--accept")  # the expectations a course keeps (not timed)
            same = [render(project, *workers) for _ in range(args.repeat)]
            write_synthetic(builder, 1, width=9)  # one lecture's code changed: it executes again
            one = render(project, *workers, "--accept")
            index = project / "lectures" / "02-synthetic" / "index.qmd"
            if index.exists():
                index.write_text(index.read_text(encoding="utf-8").replace("ছোট একটি", "একটি ছোট"), encoding="utf-8")
            prose = render(project, *workers)
            runs = [run.seconds for run in same]
            cpu = [run.cpu_seconds for run in same]
            rows.append({"count": count, "jobs": jobs, "cold": cold.seconds, "cold_peak": cold.peak_rss,
                         "no_change": median(runs), "no_change_runs": runs, "cold_cpu": cold.cpu_seconds,
                         "no_change_cpu": median(cpu), "no_change_cpu_runs": cpu,
                         "no_change_peak": max(run.peak_rss for run in same), "one_changed": one.seconds,
                         "prose": prose.seconds, "load_before": load_before, "load_after": list(os.getloadavg())})
            print(f"  {count} lectures, {jobs} worker(s): cold {cold.seconds:.1f} s ({mb(cold.peak_rss)}), no change "
                  f"{median(runs):.2f} s (median of {len(runs)}: {', '.join(f'{r:.2f}' for r in runs)}; "
                  f"CPU {median(cpu):.2f} s), "
                  f"one changed {one.seconds:.1f} s, one prose fix {prose.seconds:.1f} s; "
                  f"load {load_before[0]:.1f} → {rows[-1]['load_after'][0]:.1f}", flush=True)
            if not args.keep:
                shutil.rmtree(project, ignore_errors=True)
            numbers["growth_per_lecture"] = growth(rows)
            save(args, numbers)
    if rows:
        numbers["scale_plot"] = str(scale_plot(rows, args.out / "scale.svg"))


def machine() -> dict[str, Any]:
    """What the numbers were measured on. The load average says whether the cores were shared."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    return {"cores": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "load_average_start": list(os.getloadavg()),
            # Without it, every command compiles the kit again (about 1 s here): say which was measured.
            "bytecode_cache": not os.environ.get("PYTHONDONTWRITEBYTECODE")}


def save(args: argparse.Namespace, numbers: dict[str, Any]) -> str:
    """bench.json and bench.md as far as measured: after every lecture, so a stopped run keeps its numbers."""
    numbers["machine"]["load_average_end"] = list(os.getloadavg())
    text = table(numbers)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench.json").write_text(json.dumps(numbers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "bench.md").write_text(text + "\n", encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    numbers: dict[str, Any] = {"machine": machine(), "lectures": {}}
    quarto = None if args.skip_quarto else find_quarto()
    if not args.skip_quarto and quarto is None:
        print("bench: no Quarto (set $QUARTO or put quarto on PATH): our renderer only", file=sys.stderr)
    numbers["quarto"] = quarto
    tmp = Path(tempfile.mkdtemp(prefix="lecturekit-bench-"))
    lectures = args.lecture or [p.parent.name for p in sorted((args.source / "lectures").glob("*/index.qmd"))]
    if args.authors_day:
        if quarto is None:
            raise SystemExit("bench: --authors-day needs Quarto (set $QUARTO or put quarto on PATH)")
        try:
            day = authors_day(args, tmp, quarto)
        finally:
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
        print("\n" + day["table"])
        print(f"bench: {args.out / 'authors-day.json'} and {args.out / 'authors-day.md'}")
        return 0
    try:
        if not args.skip_lecture:
            for lecture in lectures:
                entry = numbers["lectures"][lecture] = {} if args.preview_only else \
                    {"ours": bench_ours(args, tmp, lecture)}
                save(args, numbers)
                if not args.skip_preview or args.preview_only:
                    entry["preview"] = bench_preview(args, tmp, lecture)
                    save(args, numbers)
                if quarto and not args.preview_only:
                    entry["quarto"] = bench_quarto(args, tmp, quarto, lecture)
                    save(args, numbers)
        if not args.skip_scale and not args.preview_only:
            bench_scale(args, tmp, numbers)
    finally:
        if args.keep:
            print(f"projects kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    text = save(args, numbers)
    print("\n" + text)
    print(f"bench: {args.out / 'bench.json'} and {args.out / 'bench.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

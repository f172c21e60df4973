"""`scripts/bench`: where a render's time goes, and how a course's build cost grows with its size.

  scripts/bench                     every lecture (cold, warm, no-change, checks, stages) + courses of 10 and 30
  scripts/bench --lecture 09-nn-module   only that lecture (repeatable)
  scripts/bench --scale 10 30 91    the course sizes to build (91: the whole course; ~2-3 minutes on 2 cores)
  scripts/bench --skip-lecture      only the course table;  --skip-scale: only the lectures
  scripts/bench --skip-quarto       no `quarto render` timings (they run when $QUARTO or a quarto on PATH exists)
  scripts/bench --skip-preview      no `scripts/preview` timings (a prose edit to the rebuilt deck)

Everything runs in throwaway copies of the project (the working tree's lectures, code, theme and
expectations, built by `scaffold.ProjectBuilder` as the tests build theirs), so the benchmark neither reads nor disturbs `_build/` and `_output/`. It measures and
prints; it asserts nothing. The floor of a render is what the lecture's own code costs: the kernel's
start plus every cell's execution time. The rest is the renderer's overhead.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from lecturekit.course.scaffold import ProjectBuilder

ROOT = Path(__file__).resolve().parents[3]

try:
    import psutil
except ImportError:  # peak memory then comes from getrusage alone
    psutil = None


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("--lecture", action="append", metavar="NAME",
                        help="a lecture to measure (repeatable; default: every lecture under lectures/)")
    parser.add_argument("--scale", type=int, nargs="+", default=[10, 30], metavar="N",
                        help="synthetic course sizes (default: 10 30)")
    parser.add_argument("--jobs", type=int, default=None, help="render --jobs (default: the core count)")
    parser.add_argument("--skip-lecture", action="store_true", help="no single-lecture measurements")
    parser.add_argument("--skip-scale", action="store_true", help="no synthetic-course measurements")
    parser.add_argument("--skip-quarto", action="store_true", help="no `quarto render` measurements")
    parser.add_argument("--skip-preview", action="store_true", help="no `scripts/preview` measurements")
    parser.add_argument("--json", metavar="FILE", help="also write every number as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects (paths printed)")
    return parser.parse_args(argv)


# ---- running the CLIs, measured ------------------------------------------------------------------

class Run:
    """One CLI run: wall time, peak memory (whole process tree, sampled) and the largest process."""

    def __init__(self, args, cwd):
        self.args, self.cwd = args, cwd
        self.seconds = self.peak_tree = self.peak_single = 0
        self.returncode, self.stderr = None, ""

    def __call__(self):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *self.args], cwd=self.cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sampler = threading.Thread(target=self._sample, args=(proc,), daemon=True)
        sampler.start()
        out, err = proc.communicate()
        self.seconds = time.perf_counter() - started
        sampler.join()
        self.returncode, self.stdout, self.stderr = proc.returncode, out, err
        # ru_maxrss of children: the largest single descendant (KB on Linux); only a new maximum shows.
        self.peak_single = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) * 1024
        if self.returncode != 0:
            raise SystemExit(f"bench: {' '.join(self.args)} failed in {self.cwd}:\n{err[-3000:]}")
        return self

    def _sample(self, proc):
        if psutil is None:
            return
        try:
            root = psutil.Process(proc.pid)
        except psutil.Error:
            return
        while proc.poll() is None:
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                break
            self.peak_tree = max(self.peak_tree, total)
            time.sleep(0.05)

    @property
    def peak(self):
        return self.peak_tree or self.peak_single


def render(project, *args):
    return Run(["-m", "lecturekit.course.render", "--quiet", *args], project)()


def mb(n):
    return f"{n / 2**20:.0f} MB"


# ---- throwaway projects --------------------------------------------------------------------------

def lecture_project(folder, lecture):
    """A copy of the course code and one real lecture with its expectations."""
    project = ProjectBuilder(folder, ROOT)
    project.copy_code()
    project.copy_lecture(lecture)
    return project.root


SYNTHETIC = textwrap.dedent("""\
    ---
    title: "কৃত্রিম পর্ব {n}"
    title-en: "Synthetic lecture {n}"
    course: "বাংলায় PyTorch"
    episode: {n}
    episodes: 91
    module: {module}
    ---

    # হিসাব {{#sec-count}}

    ```{{python}}
    #| label: setup
    from minipkg import ANSWER, square
    ```

    ছোট একটি হিসাব: উত্তর `{{python}} ANSWER`।

    ```{{python}}
    #| label: squares
    print([square(i) for i in range({width})])
    ```

    ## আরও {{#sec-more}}

    ::: {{.notes}}
    বক্তার নোট।
    :::

    ```{{python}}
    #| label: total
    print(sum(square(i) for i in range({width})) + {n})
    ```
    """)


def synthetic_course(folder, count):
    """`count` copies of a small lecture (three cells, no torch), each with its own script, and a tiny
    course package."""
    project = ProjectBuilder(folder, ROOT)
    project.add_package("minipkg", {"__init__.py": "ANSWER = 42\n\n\ndef square(x):\n    return x * x\n"})
    for n in range(1, count + 1):
        write_synthetic(project, n)
    return project


def write_synthetic(project, n, width=8):
    name = f"{n:02d}-synthetic"
    project.add_lecture(name, SYNTHETIC.format(n=n, module=(n - 1) // 10 + 1, width=width))
    project.add_scripts(name, {"01_squares.py": "from minipkg import square\n\nprint([square(i) for i in range(5)])\n"})


# ---- one real lecture ----------------------------------------------------------------------------------

def time_python(code, cwd, repeat=3):
    """Best of a few runs of `python -c code`: start-up costs."""
    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        best = seconds if best is None else min(best, seconds)
    return best


def embedding_seconds(project, lecture):
    """pandoc's reveal.js run with and without --embed-resources: what embedding costs."""
    from lecturekit.course.project import Project
    from lecturekit.write.formats import REVEALJS
    from lecturekit.write.writers import LectureWriter
    import pypandoc
    from lecturekit.execute.build import execute_lecture
    proj = Project(project)
    execution = execute_lecture(proj, proj.lectures_dir / lecture, write=False, cached_only=True)
    writer = LectureWriter(proj, execution)
    source = writer.markdown(REVEALJS)
    args = writer.pandoc_args(REVEALJS)
    times = {}
    for name, extra in (("embedded", args), ("linked", [a for a in args if a != "--embed-resources"])):
        started = time.perf_counter()
        subprocess.run([pypandoc.get_pandoc_path(), str(source), *extra, "-o", os.devnull], cwd=writer.build,
                       check=True, capture_output=True)
        times[name] = time.perf_counter() - started
    return times["embedded"] - times["linked"], times


def bench_lecture(args, tmp, numbers, lecture):
    project = lecture_project(tmp / lecture, lecture)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    print(f"== lecture {lecture} (a copy in {project}) ==", flush=True)
    cold = render(project, lecture, "--fresh", "--timings", str(tmp / "cold.json"), *jobs)
    timing = json.loads((tmp / "cold.json").read_text())
    result = timing["lectures"][0]
    warm = render(project, lecture, "--force", "--timings", str(tmp / "warm.json"), *jobs)
    unchanged = render(project, lecture, *jobs)
    check_cached = _check(Run(["-m", "lecturekit.check", lecture, "--quiet"], project))
    check_fresh = _check(Run(["-m", "lecturekit.check", lecture, "--quiet", "--fresh"], project))

    t = result["execution_timings"]
    cells = t.get("cells", {})
    kernel = t.get("kernel_start", 0.0)
    floor = kernel + sum(cells.values())
    overhead = cold.seconds - floor
    w = result["writer_timings"]
    warm_w = json.loads((tmp / "warm.json").read_text())["lectures"][0]["writer_timings"]
    embed, embed_runs = embedding_seconds(project, lecture)
    torch_label, torch_cell = _first_torch_cell(project, lecture, cells)
    import_torch = time_python("import torch", project, repeat=2) - time_python("pass", project, repeat=2)
    startup = time_python("import lecturekit.course.render, lecturekit.course.builder", project)
    versions_probe = time_python("from lecturekit import cache; cache.environment_versions()", project) - \
        time_python("from lecturekit import cache", project)

    print(f"cold render (execute + both products, --fresh)  {cold.seconds:6.2f} s   peak {mb(cold.peak)}")
    print(f"warm render (cache valid, both products written) {warm.seconds:6.2f} s   "
          f"= {100 * warm.seconds / cold.seconds:.0f} % of cold")
    print(f"no-change render (cache valid, products current) {unchanged.seconds:6.2f} s   "
          f"= {100 * unchanged.seconds / cold.seconds:.0f} % of cold")
    print(f"check from cache                                 {check_cached.seconds:6.2f} s")
    print(f"fresh check (executes again)                     {check_fresh.seconds:6.2f} s")
    print()
    print(f"floor = kernel start + cells' own time           {floor:6.2f} s")
    print(f"overhead = cold - floor                          {overhead:6.2f} s")
    print(f"ratio cold / floor                               {cold.seconds / floor:6.2f}")
    print()
    print("stages of the cold render (seconds):")
    rows = [
        ("python start-up + imports (render CLI)", startup),
        ("environment versions probe", versions_probe),
        ("kernel start", kernel),
        (f"cells: {len(cells)}, own time", sum(cells.values())),
        (f"  first cell importing torch ({torch_label})", torch_cell),
        ("  import torch alone, fresh interpreter", import_torch),
        ("inline expressions + claims (batched per block)", t.get("inline", 0.0)),
        ("execute stage total", result["execute_seconds"]),
        ("markdown emit revealjs / typst", f"{w.get('emit revealjs', 0):.2f} / {w.get('emit typst', 0):.2f}"),
        ("pandoc revealjs", w.get("pandoc revealjs", 0.0)),
        ("  of which embedding resources", embed),
        ("pandoc typst", w.get("pandoc typst", 0.0)),
        ("typst compile", w.get("typst", 0.0)),
        ("write stage (both formats at once), wall", result["write_seconds"]),
        ("  sum of the formats' stages (sequential would cost)", sum(w.values())),
        ("index page + code zips", timing["site_seconds"]),
        ("whole render, inside the CLI", timing["seconds"]),
    ]
    for label, value in rows:
        print(f"  {label:<56} {value if isinstance(value, str) else f'{value:.2f}':>8}")
    print("  cells' own time, document order:")
    items = [f"{label[:22]:<22} {sec:5.2f}" for label, sec in cells.items()]
    for i in range(0, len(items), 3):
        print("    " + "   ".join(items[i:i + 3]))
    numbers.setdefault("lectures", {})[lecture] = {
        "cold": cold.seconds, "warm": warm.seconds, "no_change": unchanged.seconds,
        "check_cached": check_cached.seconds, "check_fresh": check_fresh.seconds, "floor": floor,
        "overhead": overhead, "ratio": cold.seconds / floor, "kernel_start": kernel, "cells": cells,
        "inline": t.get("inline", 0.0), "writer": w, "warm_writer": warm_w, "embedding": embed,
        "embedding_runs": embed_runs, "import_torch": import_torch, "startup": startup,
        "peak_cold": cold.peak, "site": timing["site_seconds"],
    }
    print(flush=True)


def _check(run):
    # scripts/check exits 1 when an output drifted: still a measurement, so only a crash stops us.
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, *run.args], cwd=run.cwd, capture_output=True, text=True)
    run.seconds = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench: check failed:\n{proc.stderr[-3000:]}")
    return run


def _first_torch_cell(project, lecture, cells):
    from lecturekit.read import qmd
    parsed = qmd.read_lecture(project / "lectures" / lecture / "index.qmd")
    for index, cell in enumerate(parsed.cells, 1):
        if "import torch" in cell.code:
            label = cell.label or f"#{index}"
            return label, cells.get(label, 0.0)
    return "-", 0.0


# ---- quarto render --------------------------------------------------------------------------------

def find_quarto():
    found = os.environ.get("QUARTO") or shutil.which("quarto")
    return found if found and Path(found).exists() else None


def quarto_project(folder, lecture):
    """A lecture project Quarto can render: also the scripts its pre-render and post-render run, and
    the settings scripts/setup checks (the venv is linked, as the npm packages are)."""
    lecture_project(folder, lecture)
    shutil.copytree(ROOT / "scripts", folder / "scripts", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, folder / name)
    (folder / ".venv").symlink_to(ROOT / ".venv")
    return folder


def time_quarto(quarto, project, *args):
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    started = time.perf_counter()
    proc = subprocess.run([quarto, "render", *args], cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"bench: quarto render {' '.join(args)} failed in {project}:\n{proc.stderr[-3000:]}")
    return seconds


def bench_quarto(args, tmp, numbers, lecture):
    quarto = find_quarto()
    if quarto is None:
        print("== quarto render: skipped (no Quarto: set $QUARTO or put quarto on PATH) ==\n", flush=True)
        return
    print(f"== quarto render of {lecture} ({quarto}) ==", flush=True)
    ours = numbers.get("lectures", {}).get(lecture)
    if ours is None:  # --skip-lecture: scripts/render's own cold and warm runs, for the ratios
        project = lecture_project(tmp / f"ours-{lecture}", lecture)
        ours = {"cold": render(project, lecture, "--fresh").seconds,
                "warm": render(project, lecture, "--force").seconds}
    project = quarto_project(tmp / f"quarto-{lecture}", lecture)
    # 1. From our executed notebooks: pre-render executes (cold); then nothing changed and one prose
    # sentence changed (pre-render hands Quarto only the changed lecture), medians of 3, beside
    # scripts/render doing the same in the same project.
    cold = time_quarto(quarto, project)
    nothing = statistics.median(time_quarto(quarto, project) for _ in range(3))
    prose = statistics.median(edit_prose(project, lecture, n) or time_quarto(quarto, project) for n in range(3))
    render(project)  # our products, then the same two cases for scripts/render
    ours_nothing = statistics.median(render(project).seconds for _ in range(3))
    ours_prose = statistics.median(edit_prose(project, lecture, n + 3) or render(project).seconds for n in range(3))
    # 2. Quarto executing the source itself (once per format, in its own kernel).
    source = quarto_project(tmp / f"quarto-source-{lecture}", lecture)
    executing = time_quarto(quarto, source, f"lectures/{lecture}/index.qmd")
    rows = [
        ("quarto render, pre-render executes (cold)", cold, ours["cold"], "scripts/render --fresh"),
        ("quarto render, nothing changed (median of 3)", nothing, ours_nothing, "scripts/render, same"),
        ("quarto render, one prose sentence (median of 3)", prose, ours_prose, "scripts/render, same"),
        (f"quarto render lectures/{lecture}/index.qmd (Quarto executes)", executing, ours["cold"],
         "scripts/render --fresh"),
    ]
    for label, seconds, base, base_label in rows:
        print(f"{label:<62} {seconds:6.2f} s   = {seconds / base:4.1f} x {base_label} ({base:.2f} s)")
    numbers.setdefault("quarto", {})[lecture] = {
        "cold": cold, "nothing_changed": nothing, "prose_edit": prose, "ours_nothing_changed": ours_nothing,
        "ours_prose_edit": ours_prose, "source": executing, "ratio_cold": cold / ours["cold"],
        "ratio_source": executing / ours["cold"]}
    print(flush=True)


def edit_prose(project, lecture, n):
    """Change one prose sentence of the lecture: a paragraph at the end of its first section file."""
    folder = Path(project) / "lectures" / lecture
    section = (sorted(folder.glob("_*.qmd")) or [folder / "index.qmd"])[0]
    text = section.read_text(encoding="utf-8")
    section.write_text(text + f"\n\nসম্পাদনার পরীক্ষা {n}।\n", encoding="utf-8")


# ---- scripts/preview -------------------------------------------------------------------------------

def bench_preview(args, tmp, numbers, lecture):
    """From a saved prose edit to the new deck in place (no kernel, no handout), medians of 3; the
    browser's reload adds its page load (tests/test_preview.py prints that end to end)."""
    from lecturekit.course.preview import PreviewDeck
    from lecturekit.course.project import Project
    print(f"== scripts/preview of {lecture} ==", flush=True)
    folder = lecture_project(tmp / f"preview-{lecture}", lecture)
    render(folder, lecture, "--execute-only")
    project = Project(Path(folder))
    deck = PreviewDeck(project, project.lectures_dir / lecture, say=lambda line: None)
    deck.build()

    def rebuild(n):
        edit_prose(folder, lecture, n)
        started = time.perf_counter()
        deck.build()
        return time.perf_counter() - started

    seconds = statistics.median(rebuild(n) for n in range(3))
    print(f"{'prose edit -> deck rebuilt (median of 3)':<62} {seconds:6.2f} s\n", flush=True)
    numbers.setdefault("preview", {})[lecture] = {"prose_edit": seconds}


# ---- scale ---------------------------------------------------------------------------------------

def bench_scale(args, tmp, numbers):
    jobs = args.jobs or os.cpu_count() or 1
    print(f"== synthetic courses (3-cell lectures, no torch), --jobs {jobs} ==", flush=True)
    header = (f"{'lectures':>8}  {'cold build':>16}  {'per lecture':>11}  {'no change':>16}  "
              f"{'one changed':>16}  {'one prose fix':>16}")
    print(header)
    rows = []
    for count in args.scale:
        builder = synthetic_course(tmp / f"course-{count}", count)
        project = builder.root
        cold = render(project, "--jobs", str(jobs))
        same = render(project, "--jobs", str(jobs))
        write_synthetic(builder, 1, width=9)  # one lecture's code changed: it executes again
        one = render(project, "--jobs", str(jobs))
        index = project / "lectures" / "02-synthetic" / "index.qmd"
        index.write_text(index.read_text(encoding="utf-8").replace("ছোট একটি", "একটি ছোট"), encoding="utf-8")
        prose = render(project, "--jobs", str(jobs))
        row = {"count": count, "cold": cold.seconds, "cold_peak": cold.peak, "no_change": same.seconds,
               "no_change_peak": same.peak, "one_changed": one.seconds, "one_changed_peak": one.peak,
               "prose": prose.seconds, "prose_peak": prose.peak}
        rows.append(row)
        cell = lambda s, m: f"{s:6.2f} s {mb(m):>7}"  # noqa: E731
        print(f"{count:>8}  {cell(cold.seconds, cold.peak)}  {cold.seconds / count:9.2f} s  "
              f"{cell(same.seconds, same.peak)}  {cell(one.seconds, one.peak)}  {cell(prose.seconds, prose.peak)}",
              flush=True)
        if not args.keep:
            shutil.rmtree(project, ignore_errors=True)
    numbers["scale"] = rows
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        span = b["count"] - a["count"]
        growth = {k: (b[k] - a[k]) / span for k in ("cold", "no_change", "one_changed")}
        print(f"growth per extra lecture: cold {growth['cold']:.2f} s, no change {growth['no_change'] * 1000:.0f} ms, "
              f"one changed {growth['one_changed'] * 1000:.0f} ms")
        if max(r["count"] for r in rows) < 91:
            est = {k: b[k] + growth[k] * (91 - b["count"]) for k in growth}
            print(f"estimate for 91 lectures (linear from the rows above; measure with --scale 91): "
                  f"cold {est['cold']:.0f} s, no change {est['no_change']:.1f} s, "
                  f"one changed {est['one_changed']:.1f} s")
            numbers["estimate_91"] = est
    print("(peak: the memory of the whole process tree, sampled: renderer, workers, kernels, pandoc, Typst)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    numbers = {"cores": os.cpu_count()}
    tmp = Path(tempfile.mkdtemp(prefix="lecturekit-bench-"))
    lectures = args.lecture or [p.parent.name for p in sorted((ROOT / "lectures").glob("*/index.qmd"))]
    try:
        if not args.skip_lecture:
            for lecture in lectures:
                bench_lecture(args, tmp, numbers, lecture)
        if not args.skip_quarto:
            for lecture in lectures:
                bench_quarto(args, tmp, numbers, lecture)
        if not args.skip_preview:
            for lecture in lectures:
                bench_preview(args, tmp, numbers, lecture)
        if not args.skip_scale:
            bench_scale(args, tmp, numbers)
    finally:
        if args.keep:
            print(f"projects kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

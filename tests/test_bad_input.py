"""Bad input: every case of bad_inputs.CASES, run by each path it names.

- read: the reader and the format check (no kernel) refuse it with one LectureError at the blamed
  file:line, saying the case's texts (within its time, its memory), or read it;
- render: scripts/render on a copy of the rendered mini project: exit 1, `file:line:` and the texts,
  no traceback, the previous products untouched (or exit 0);
- a batch: its cases are lectures of one project, rendered (and checked, or given to the real
  Quarto) once; every refused lecture is named at its line, the others are written; no traceback,
  no terminal sequence in the log, the loopback server never asked;
- source, quarto-file: the source alone, as the lecture filter asks and as `quarto render` of that
  file does; pandoc: its HTML holds exactly the handler refused; message: a message naming it
  carries no terminal sequence.

What a path cannot say is a hook (HOOKS): the decks walked in Chromium, Ctrl-C in each stage, two
renders at once, a copied project. Below the table: the parts the table's paths rely on (the
template attributes, the menu file, the figure bookkeeping, the event-handler set, the schemas).
"""
import html.parser
import http.server
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from bad_inputs import BASE_FRONT, CASES, OUTSIDE_FILES, Case, red_png
from helpers import FRONT, NO_QUARTO, RENDER, ROOT, ProjectBuilder, processes_under, run_check, start_render, \
    start_slow_handout
from lecturekit import schema
from lecturekit.ansi import strip_ansi, terminal_text
from lecturekit.errors import LectureError, run_command
from lecturekit.project import Project
from lecturekit.read.events import EVENT_HANDLERS
from lecturekit.read.qmd import read_lecture
from lecturekit.write.figures import write_figures
from lecturekit.write.formats import FORMATS, check_format_options, reveal_menu, script_json
from test_pipeline import line_of
from test_quarto import QUARTO, quarto

__all__ = ["line_of", "pdf_image_sizes", "products", "red_png"]  # what other modules take from here


def ids(cases):
    return [case.id for case in cases]


def on(path):
    return [case for case in CASES if path in case.via and not (case.batch and path in ("render", "check", "quarto"))]


# ---- planting a case -----------------------------------------------------------------------------

def plant(case: Case, project: ProjectBuilder, name: str, port: int) -> Path:
    """The case as lectures/<name>/ of `project` (files beside the project for it to name); returns
    the lecture folder."""
    folder = project.lectures_dir / name
    tokens = {"$PORT": str(port), "$OUTSIDE": str(project.root.parent), "$LECTURE": str(folder)}

    def fill(text):
        for token, value in tokens.items():
            text = text.replace(token, value)
        return text
    for outside in OUTSIDE_FILES:
        (project.root.parent / outside).write_text("<script>alert('outside')</script>\n", encoding="utf-8")
    front = case.front
    if isinstance(front, dict):
        front = json.loads(fill(json.dumps({**BASE_FRONT, **front}, ensure_ascii=False)))
    project.add_lecture(name, "", front=fill(front) if isinstance(front, str) else front if front else FRONT)
    index = folder / "index.qmd"
    index.write_bytes(index.read_bytes() + fill(case.body).replace("\n", case.line_ends).encode("utf-8"))
    for file, data in {**case.sections, **case.files}.items():
        (folder / file).parent.mkdir(parents=True, exist_ok=True)
        (folder / file).write_bytes(data if isinstance(data, bytes) else fill(data).encode("utf-8"))
    for empty in case.folders:
        (folder / empty).mkdir()
    for link, target in case.links.items():
        (folder / link).symlink_to(fill(target))
    for file, text in case.project_files.items():
        (project.root / file).write_text(text, encoding="utf-8")
    if case.config:
        config = project.root / "_quarto.yml"
        text, replacement = case.config
        source = config.read_text(encoding="utf-8")
        assert text in source, text
        config.write_text(source.replace(text, replacement, 1) if text else source + replacement, encoding="utf-8")
    if case.patch:
        data = index.read_bytes()
        assert case.patch[0] in data, case.patch
        index.write_bytes(data.replace(*case.patch, 1))
    return folder


def blamed(case: Case, folder: Path, root: Path) -> tuple[Path, int | None]:
    """The file the case's error must name, and the line (None: any)."""
    path = root / "_quarto.yml" if case.blame == "_quarto.yml" else folder / case.blame
    if case.needle is None:
        return path, None
    needle = case.needle.encode("utf-8") if isinstance(case.needle, str) else case.needle
    hits = [n for n, text in enumerate(path.read_bytes().split(b"\n"), 1)
            if (text == needle if case.whole_line else needle in text)]
    assert len(hits) >= case.nth, (case.needle, path)
    return path, hits[case.nth - 1]


def naming(log: str, rel: str, line: int | None) -> list[str]:
    """The messages in `log` that name rel:line: each its line and the detail lines below it (up to
    the next message or progress line)."""
    pattern = re.compile(rf"(?:^|[\s/]){re.escape(rel)}:{line if line else r'[0-9]+'}: ")
    found, lines = [], log.splitlines()
    for n, text in enumerate(lines):
        if pattern.search(text):
            end = next((m for m in range(n + 1, len(lines)) if re.match(r"(error|warning): |\[", lines[m])),
                       len(lines))
            found.append("\n".join(lines[n:end]))
    return found


def control_characters(text):
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]


def products(mini):
    return mini.slides.read_bytes(), mini.handout.read_bytes()


# ---- hooks: what a path cannot say ------------------------------------------------------------------

HOOKS: dict[str, tuple[tuple, object]] = {}


def hook(*paths):
    """A bespoke check, run after the named paths' own (no path: the hook is the case's whole run).
    It takes (case, ctx): ctx.root, ctx.folder, ctx.result, ctx.via, ctx.fixture(name)."""
    def register(function):
        HOOKS[function.__name__] = (paths, function)
        return function
    return register


def run_hooks(case, ctx):
    for name in case.hooks:
        paths, function = HOOKS[name]
        if ctx.via in paths or (not paths and ctx.via is None):
            function(case, ctx)


def context(request, via, **known):
    return SimpleNamespace(via=via, fixture=request.getfixturevalue, **known)


# ---- loopback: every URL of the cases points here, and nothing may ask it ---------------------------

class Counter(http.server.BaseHTTPRequestHandler):
    asked: list = []

    def do_GET(self):  # noqa: N802 (the standard library's name)
        self.asked.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(b"\x89PNG\r\n\x1a\n")

    do_HEAD = do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def loopback():
    """A local HTTP server every URL of the cases points at; `.asked`: what it was asked."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counter)
    server.asked = Counter.asked = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


# ---- read -----------------------------------------------------------------------------------------

def read(index, root):
    """The lecture read and its options checked, as a render does before it executes anything."""
    check_format_options(Project(root), read_lecture(index, root))


def _alarm(signum, frame):
    raise TimeoutError("still reading: nothing bounded it")


def bounded(call, seconds, megabytes):
    """call() with its time (stopped at four times `seconds`) and address space (`megabytes` more
    than now: a billion laughs would not fit) bounded."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    limits = resource.getrlimit(resource.RLIMIT_AS)
    if seconds:
        signal.setitimer(signal.ITIMER_REAL, seconds * 4)
    if megabytes:
        used = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + megabytes * 2**20, limits[1]))
    try:
        call()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limits)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("case", on("read"), ids=ids(on("read")))
def test_read(case, project_builder, loopback, request):
    folder = plant(case, project_builder, "01-demo", loopback.server_port)
    index, root = folder / "index.qmd", project_builder.root

    def call():
        read(index, root)
    if not case.refused:
        call()
    else:
        started = time.monotonic()
        with pytest.raises(LectureError) as caught:
            bounded(call, case.seconds, case.memory_mb)
        took, err, message = time.monotonic() - started, caught.value, str(caught.value)
        path, line = blamed(case, folder, root)
        assert (Path(err.file).name if err.file else None) == path.name, message
        assert err.line == line if line else err.line, (line, message)
        assert "\n" not in message, message
        for text in case.texts:
            assert text in err.message, message
        for text in case.absent:
            assert text not in message, message
        assert took < (case.seconds or float("inf")), f"{took:.1f} s: {message}"
    run_hooks(case, context(request, "read", root=root, folder=folder))


@hook("read")
def verdict_kept_links_checked(case, ctx):
    """The judged markdown's verdict is kept (`_build/markup/`): no pandoc on the next read. The files
    it names are checked at every read: a link pointed outside since is refused."""
    assert (ctx.root / "_build" / "markup" / f"{ctx.folder.name}.json").is_file()
    (ctx.folder / "pic.svg").unlink()
    (ctx.folder / "pic.svg").symlink_to(ctx.root.parent / "secret.svg")
    with pytest.raises(LectureError, match="outside the project"):
        read(ctx.folder / "index.qmd", ctx.root)


@hook("read")
def read_as_numbers(case, ctx):
    """1e-6 (which YAML 1.1 leaves a string) is the number; a fractional timeout is fine."""
    cell = read_lecture(ctx.folder / "index.qmd", ctx.root).cells[0]
    assert cell.options["tolerance"] == {"rel": 1e-6, "abs": 2e-8, "why": "AVX2 sums in another order"}
    assert cell.options["timeout"] == 2.5


@hook("read")
def byte_order_mark_loses_nothing(case, ctx):
    index = ctx.folder / "index.qmd"
    for path in (index, ctx.folder / "_a.qmd"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    lecture = read_lecture(index, ctx.root)
    assert lecture.meta["title"] == "পরীক্ষার লেকচার"
    section = next(b for b in lecture.blocks if str(b.file).endswith("_a.qmd"))
    assert section.text.startswith("## দুই {#sec-two}"), section.text[:20]
    assert "\ufeff" not in "".join(getattr(b, "text", "") for b in lecture.blocks)


# ---- the source alone, pandoc, messages ------------------------------------------------------------

@pytest.mark.parametrize("case", on("source"), ids=ids(on("source")))
def test_source(case, project_builder, loopback):
    """`python -m lecturekit.cli.source` (what markup.lua asks when Quarto renders a source itself): the
    reader's one line, the file named from the project, exit 1."""
    folder = plant(case, project_builder, "01-demo", loopback.server_port)
    _path, line = blamed(case, folder, project_builder.root)
    run = subprocess.run([sys.executable, "-m", "lecturekit.cli.source", str(folder / "index.qmd")],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith(f"lectures/01-demo/{case.blame}:{line}: "), run.stdout
    assert all(text in run.stdout for text in case.texts) and len(run.stdout.strip().splitlines()) == 1, run.stdout


def pandoc_handlers(markdown):
    """The event-handler attributes in pandoc's HTML for this markdown."""
    import pypandoc
    run = subprocess.run([pypandoc.get_pandoc_path(), "-f", "markdown", "-t", "html5"], input=markdown,
                         capture_output=True, text=True, check=True)
    return [name for name in re.findall(r"\s(on[a-zA-Z]+)=", run.stdout) if name in EVENT_HANDLERS], run.stdout


@pytest.mark.parametrize("case", on("pandoc"), ids=ids(on("pandoc")))
def test_pandoc_writes_exactly_the_handler_refused(case):
    handlers, html = pandoc_handlers(case.body)
    if case.refused:
        assert handlers and (f"attribute '{handlers[0]}'",) == case.texts, html
    else:
        assert handlers == [], html


@pytest.mark.parametrize("case", on("message"), ids=ids(on("message")))
def test_messages_carry_no_terminal_sequence(case, capsys):
    sequence = case.body
    text = terminal_text(f"before {sequence}\nafter")  # an unterminated string ends with its line
    assert text.startswith("before ") and text.endswith("\nafter") and not control_characters(text), repr(text)
    assert "pwned" not in text and "ZWNob" not in text
    assert not control_characters(str(LectureError(f"raised {sequence}", "x.qmd", 3, detail=sequence)))

    def body():
        print(f"printed {sequence} text")
        raise LectureError(f"raised {sequence}", "x.qmd", 3)
    assert run_command(body) == 1
    out, err = capsys.readouterr()
    assert "printed" in out and "x.qmd:3: raised" in err, (out, err)
    assert not control_characters(out + err), repr(out + err)


# ---- render: a copy of the rendered mini project ----------------------------------------------------

def render(project, *args, seconds=None, **popen):
    """scripts/render --quiet in `project`, stopped (and failed) after `seconds`."""
    run = start_render(project, *args, start_new_session=True, **popen)
    try:
        out, err = run.communicate(timeout=seconds or 900)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError(f"the render was still busy after {seconds} s")
    return subprocess.CompletedProcess(run.args, run.returncode, out, err)


@pytest.mark.parametrize("case", on("render"), ids=ids(on("render")))
def test_render(case, copy, loopback, request):
    before = products(copy)
    folder = plant(case, copy, "demo", loopback.server_port)
    result = render(copy, seconds=case.seconds)
    message = result.stderr
    if case.refused:
        assert result.returncode == 1, message
        assert "Traceback (most recent call last)" not in message, message
        path, line = blamed(case, folder, copy.root)
        if case.needle is not None:
            assert f"{path.name}:{line}:" in message, (line, message)
        for text in case.texts:
            assert text in message, message
        for text in case.absent:
            assert text not in message, message
        assert products(copy) == before
    else:
        assert result.returncode == 0, message
    run_hooks(case, context(request, "render", root=copy.root, folder=folder, result=result, project=copy))


@hook("render")
def not_blamed_on_quarto_yml(case, ctx):
    assert "_quarto.yml" not in ctx.result.stderr.split("\n")[-2]


@hook("render")
def no_temporary_products(case, ctx):
    """The handout failed after the slides were made: neither replaced, no half-written file left."""
    assert not list((ctx.root / "_output" / "demo").glob(".*.tmp"))


@hook("render")
def fixed_render_replaces_both(case, ctx):
    ctx.project.write(case.body)
    assert ctx.project.render().returncode == 0
    assert "খাতায় লেখা হয়" in ctx.project.slides.read_text(encoding="utf-8")


@hook("render")
def writes_nothing_outside(case, ctx):
    # figures/demo/fig-../../../../../x.svg would be a folder above the project's x.svg.
    written = [*ctx.root.parent.parent.glob("x.*"), *ctx.root.parent.rglob("x.*")]
    assert [p for p in written if p.suffix in (".svg", ".pdf", ".png")] == []


def pdf_image_sizes(pdf):
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    return sorted((int(row.split()[3]), int(row.split()[4])) for row in listing.splitlines()[2:])


@hook("render")
def images_in_both_products(case, ctx):
    import base64
    deck = ctx.project.slides.read_text(encoding="utf-8")
    for data in case.files.values():
        assert base64.b64encode(data).decode() in deck
    assert pdf_image_sizes(ctx.project.handout) == [(40, 20), (60, 10)]
    # Only the link changed; the code span reads as the author wrote it.
    assert "`![লাল](pic.png)`" in (ctx.root / "_build" / "demo" / "demo.ipynb").read_text(encoding="utf-8")


# ---- circumstances: the case is its hook ----------------------------------------------------------

ALONE = [case for case in CASES if not case.via]


@pytest.mark.parametrize("case", ALONE, ids=ids(ALONE))
def test_circumstance(case, request):
    run_hooks(case, context(request, None))


@hook()
def two_renders_at_once(case, ctx):
    """Both runs share _build/demo/: the second waits for the first and then finds its execution in
    the cache (no 'Kernel didn't respond')."""
    mini = ctx.fixture("mini")
    mini.write(case.body)
    runs = [start_render(mini), start_render(mini)]
    outcomes = [run.communicate(timeout=300) for run in runs]
    for run, (_out, err) in zip(runs, outcomes):
        assert run.returncode == 0, err
        assert "Invalid Signature" not in err and "didn't respond" not in err
    logs = [err for _out, err in outcomes]
    assert sum("waiting for another render of demo" in log for log in logs) == 1, logs
    assert sum("(executed)" in log for log in logs) == 1, logs
    assert mini.handout.read_bytes().startswith(b"%PDF") and b"</html>" in mini.slides.read_bytes()
    assert list((mini.root / "_build" / "demo" / "run").glob("kernel*")) == []


def interrupt_when(mini, run, ready, what, group=True):
    """Ctrl-C (SIGINT to the render's process group, as a terminal sends it; with group=False to
    the render alone, as `kill -INT` does) once ready() holds; return the seconds until it exited."""
    deadline = time.monotonic() + 120
    while not ready():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, f"never reached {what}"
        time.sleep(0.05)
    time.sleep(0.3)  # well inside the stage
    sent = time.monotonic()
    if group:
        os.killpg(run.pid, signal.SIGINT)
    else:
        os.kill(run.pid, signal.SIGINT)
    try:
        run.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError(f"Ctrl-C in {what} did not stop the render within 10 s")
    return time.monotonic() - sent


@hook()
def ctrl_c_kernel(case, ctx):
    copy = ctx.fixture("copy")
    before = products(copy)
    copy.write(case.body)
    run = start_render(copy, quiet=False, start_new_session=True)
    seen = []

    def cell_started():
        # Progress lines arrive on stderr; the slow cell is the second one.
        line = run.stderr.readline()
        seen.append(line)
        return "cell 2/2 slow" in line
    seconds = interrupt_when(copy, run, cell_started, "the kernel stage")
    err = "".join(seen) + run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130 and "interrupted" in err, err
    assert "Traceback" not in err, err
    assert processes_under(copy.root) == []
    assert products(copy) == before
    assert (copy.root / "_build" / "demo").exists()


@hook()
def ctrl_c_typst(case, ctx):
    """A handout that takes Typst a long time (3 MB of output, allowed here): Ctrl-C while it compiles."""
    copy = ctx.fixture("copy")
    before = products(copy)
    run, typst_busy = start_slow_handout(copy, case.body)
    seconds = interrupt_when(copy, run, typst_busy, "Typst")
    err = run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130, err
    assert processes_under(copy.root) == []
    assert products(copy) == before
    assert not list((copy.root / "_output" / "demo").glob(".*.tmp"))


@hook()
def ctrl_c_parallel(case, ctx):
    """Two lectures executing in worker processes: SIGINT to the render alone stops both kernels
    and both workers (a terminal's Ctrl-C reaches them all; `kill -INT` does not)."""
    mini = ctx.fixture("mini")
    mini.write(case.body)
    shutil.copytree(mini.lecture, mini.root / "lectures" / "other")
    temp = mini.root.parent / "tmp"  # the kernels' run folders go here, away from other renders'
    temp.mkdir()
    run = start_render(mini, "--jobs", "2", quiet=False, start_new_session=True,
                       env={**os.environ, "TMPDIR": str(temp)})
    seen, running = [], []

    def both_slow():
        seen.append(run.stderr.readline())
        both = sum("cell 2/2 slow" in line for line in seen) == 2
        if both:
            running.extend(temp.glob("lecturekit-*"))
        return both
    seconds = interrupt_when(mini, run, both_slow, "two kernel stages", group=False)
    err = "".join(seen) + run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130, err
    assert processes_under(mini.root) == []
    assert len(running) == 2, running  # each kernel had its run folder there
    assert sorted(p.name for p in temp.iterdir()) == [], "kernel run folders left after Ctrl-C"


@hook()
def copied_project_byte_identical(case, ctx):
    """Nothing written depends on where the project lies: a copy (cache included) in another folder
    gives the same executed notebook, slides and handout, byte for byte."""
    mini = ctx.fixture("mini")
    (mini.root / "code" / "minipkg" / "fail.py").write_text("def fail():\n    raise ValueError('না')\n")
    mini.write(case.body)
    assert mini.render().returncode == 0
    copied = ctx.fixture("tmp_path_factory").mktemp("elsewhere") / "course"
    shutil.copytree(mini.root, copied, symlinks=True)
    result = subprocess.run([RENDER, "--quiet", "--force"], cwd=copied, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "cache hit" in result.stderr
    notebook = Path("_build") / "demo" / "demo.ipynb"
    text = (copied / notebook).read_text(encoding="utf-8")
    for folder in (mini.root, copied):
        assert str(folder) not in text, [line for line in text.split("\n") if str(folder) in line][:5]
    for name in (notebook, Path("_output") / "demo" / "slides.html", Path("_output") / "demo" / "handout.pdf"):
        assert (copied / name).read_bytes() == (mini.root / name).read_bytes(), name


# ---- batches: one project, one render (and one check, one `quarto render`) ---------------------------

BATCHED = [pytest.param(case, via, id=f"{case.id}-{via}",
                        marks=[pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)] if via == "quarto" else [])
           for case in CASES if case.batch for via in case.via if via in ("render", "check", "quarto")]


@dataclass
class BatchRun:
    via: str
    root: Path
    result: subprocess.CompletedProcess
    members: list
    whole_checked: bool = False

    @property
    def log(self):
        return self.result.stdout + self.result.stderr

    def check_whole(self):
        """What holds for the run as a whole (checked once, for its first case): exit 1 when a case
        is refused (else 0), no trace of Quarto's, no terminal sequence, the render's count of failed."""
        if self.whole_checked:
            return
        log, refused = self.log, [member for member in self.members if member.refused]
        assert self.result.returncode == (1 if refused else 0), log[-3000:]
        if self.via == "quarto":  # Quarto's own traces: of its JavaScript, of a Lua filter
            assert "Stack trace" not in log and "stack traceback" not in log, log[-3000:]
        assert not control_characters(re.sub(r"\x1b\[[0-9;]*m", "", log) if self.via == "quarto" else log), \
            repr([c for c in log if ord(c) < 32][:5])
        if self.via == "render" and refused:
            assert f"{len(refused)} failed" in self.result.stderr, self.result.stderr[-3000:]
        self.whole_checked = True

    def output(self, case, product):
        return self.root / "_output" / case.folder / product


def with_the_kit(root):
    """What `quarto render` of a project needs besides it: the kit's scripts, its venv."""
    shutil.copytree(ROOT / "scripts", root / "scripts", ignore=shutil.ignore_patterns("__pycache__", "*.pyc",
                                                                                        "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, root / name)
    (root / ".venv").symlink_to(ROOT / ".venv")


@pytest.fixture(scope="module")
def batches(tmp_path_factory, loopback):
    """run(batch, via): the batch's cases that take that path, as lectures of one project, run once."""
    runs = {}

    def run(batch, via):
        if (batch, via) in runs:
            return runs[batch, via]
        if via == "quarto" and QUARTO is None:
            pytest.skip(NO_QUARTO)
        members = [case for case in CASES if case.batch == batch and via in case.via]
        rendered = runs.get((batch, "render")) if via == "quarto" else None
        if rendered is None and via == "quarto" and any("render" in case.via for case in members):
            rendered = run(batch, "render")
        root = tmp_path_factory.mktemp(f"{batch}-{via}") / "project"
        if rendered:  # Quarto starts from scripts/render's execution cache
            shutil.copytree(rendered.root, root, symlinks=True, ignore=shutil.ignore_patterns("_output"))
            for gone in rendered.members:
                if gone not in members:
                    shutil.rmtree(root / "lectures" / gone.folder)
            for outside in OUTSIDE_FILES:
                shutil.copy(rendered.root.parent / outside, root.parent / outside)
        else:
            builder = ProjectBuilder(root, ROOT)
            for case in members:
                plant(case, builder, case.folder, loopback.server_port)
        started = time.monotonic()
        seconds = min((case.seconds for case in members if case.seconds), default=None)
        if via == "render":
            result = render(SimpleNamespace(root=root), seconds=seconds)
            result.args = time.monotonic() - started  # what the cases' `seconds` bound
        elif via == "check":
            result = run_check(root, "--quiet")
        else:
            with_the_kit(root)
            result = quarto(root)
        runs[batch, via] = BatchRun(via, root, result, members)
        return runs[batch, via]
    return run


@pytest.mark.parametrize("case,via", BATCHED)
def test_batch(case, via, batches, loopback, request):
    batch = batches(case.batch, via)
    batch.check_whole()
    log, folder = batch.log, batch.root / "lectures" / case.folder
    for text in case.absent:
        assert text not in log, log[-3000:]
    if case.seconds and via == "render":
        assert batch.result.args < case.seconds, batch.result.args
    if case.refused:
        path, line = blamed(case, folder, batch.root)
        rel = path.relative_to(batch.root).as_posix()
        start = {"render": f"error: {batch.root}/{rel}:", "quarto": f"error: {rel}:", "check": "error: "}[via]
        messages = [message for message in naming(log, rel, line) if message.startswith(start)]
        assert any(all(text in message for text in case.texts) for message in messages), (case.id, log[-3000:])
        if via == "render":
            assert f"[{case.folder}] FAILED" in log, log[-3000:]
    else:
        assert not naming(log, f"lectures/{case.folder}/index.qmd", None), log[-3000:]
        assert batch.output(case, "slides.html").is_file(), log[-3000:]
        if via == "quarto":
            assert batch.output(case, "handout.pdf").is_file(), log[-3000:]
    assert loopback.asked == [], loopback.asked
    run_hooks(case, context(request, via, root=batch.root, folder=folder, result=batch.result, batch=batch))


QUARTO_FILE = on("quarto-file")


@pytest.mark.parametrize("case", QUARTO_FILE, ids=ids(QUARTO_FILE))
def test_quarto_render_of_the_source_alone(case, batches, loopback):
    """`quarto render lectures/<it>/index.qmd`: Quarto renders the source itself; the lecture filter asks
    the reader first, and the render stops with its line."""
    batch = batches(case.batch, "quarto")
    path, line = blamed(case, batch.root / "lectures" / case.folder, batch.root)
    run = quarto(batch.root, f"lectures/{case.folder}/index.qmd")
    log = run.stdout + run.stderr
    assert run.returncode == 1, log[-3000:]
    rel = path.relative_to(batch.root).as_posix()
    assert any(message.startswith(f"error: {rel}:{line}: ") and all(text in message for text in case.texts)
               for message in naming(log, rel, line)), log[-3000:]
    assert not (batch.root / "_output" / case.folder).exists()
    assert loopback.asked == [], loopback.asked


@hook("render")
def named_by_source_not_typ(case, ctx):
    """A failure of what the source became names the source construct's line, not the generated code's."""
    line = next(text for text in ctx.result.stderr.splitlines() if f"lectures/{case.folder}/" in text)
    assert ".typ:" not in line.split(": ")[0], line


@hook("quarto")
def theme_applied(case, ctx):
    assert "282a36" in ctx.batch.output(case, "slides.html").read_text(encoding="utf-8")  # dracula's background


# ---- the decks, walked in Chromium ------------------------------------------------------------------

WALK = r"""() => {
  const events = ['mouseover', 'mouseenter', 'mousemove', 'mousedown', 'mouseup', 'pointerover', 'pointerdown',
                  'focus', 'focusin', 'keydown', 'input', 'change', 'toggle', 'load', 'error', 'animationstart',
                  'transitionend', 'wheel', 'copy', 'dblclick', 'contextmenu', 'beforetoggle'];
  for (const el of document.querySelectorAll('body *')) {
    for (const type of events) el.dispatchEvent(new Event(type, {bubbles: true}));
    if (el.tagName !== 'A' && !el.closest('a')) el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  }
  // Handlers in the page's markup, but for Quarto's own slide-menu tools (its template's, no lecture's).
  const handlers = [];
  for (const el of document.querySelectorAll('*'))
    for (const attr of el.attributes)
      if (/^on/i.test(attr.name) && !/^RevealMenuToolHandlers\.\w+\(event\)$/.test(attr.value))
        handlers.push(el.tagName + ' ' + attr.name);
  // What an escaped `<img onerror=window.pwned=…>` would set had a plugin put it back as HTML.
  if (window.pwned !== undefined) handlers.push('ran: window.pwned=' + window.pwned);
  const links = [...document.querySelectorAll('a[href], area[href]')].map(a => a.protocol)
    .filter(p => !['http:', 'https:', 'mailto:', 'file:'].includes(p));
  return {handlers, links, frames: document.querySelectorAll('iframe, object, embed').length};
}"""


def walk_deck(browser, deck):
    """Every slide and fragment, with events dispatched on every element: (dialogs, requests that
    left the file, what the page holds that could run)."""
    page = browser.new_page()
    dialogs, requests = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.keyboard.press("m")  # the slide menu, every slide by its title
        found = page.evaluate(WALK)
        page.keyboard.press("m")
        for _step in range(200):
            page.evaluate(WALK)
            if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
                break
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(500)
    finally:
        page.close()
    left = [url for url in requests if not url.startswith(("file:", "data:", "blob:", "about:"))]
    return dialogs, left, found


def deck_in_use(browser, deck):
    """The deck used as an instructor does: → to the end, the menu with M, the speaker view with S.
    Returns what Chromium said against the deck's Content-Security-Policy (the deck's console and
    the speaker view's), whether the menu and the notes opened, and `window.pwned`."""
    context = browser.new_context(bypass_csp=False)
    violations = []

    def watch(page):
        page.on("console", lambda message: "Content Security Policy" in message.text
                and violations.append(message.text[:200]))
    context.on("page", watch)
    try:
        page = context.new_page()
        page.goto(deck.as_uri())
        for _wait in range(100):  # polled from here: waiting in the page would evaluate a string
            if page.evaluate("!!(window.Reveal && Reveal.isReady())"):
                break
            page.wait_for_timeout(100)
        for _step in range(200):
            if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("m")
        menu = page.wait_for_selector("body.slide-menu-active .slide-menu-item-title", timeout=5000) is not None
        page.keyboard.press("Escape")
        with context.expect_page() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        notes = speaker.wait_for_selector("#current-slide iframe", timeout=10000) is not None
        speaker.wait_for_timeout(500)
        return violations, menu, notes, page.evaluate("window.pwned")
    finally:
        context.close()


def attributes_kept(product):
    """The meta elements of a product that name or set something: a value pasted from the front matter
    stays in its attribute (no http-equiv but the policy), its text whole."""
    class Metas(html.parser.HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            if tag == "meta":
                self.found.append(dict(attrs))

    metas = Metas()
    metas.found = []
    metas.feed(product.read_text(encoding="utf-8"))
    assert [m for m in metas.found if m.get("http-equiv", "Content-Security-Policy") != "Content-Security-Policy"] \
        == [], (product, metas.found)
    named = {m["name"]: m.get("content") for m in metas.found if "name" in m}
    for name in ("description", "keywords"):
        if name in named:
            assert named[name].startswith("0;url=http") and named[name].endswith('" http-equiv="refresh'), named


@hook("render", "quarto")
def deck_runs_nothing(case, ctx):
    """What looks like HTML is text in the deck; the deck under its policy, used as an instructor does,
    and walked with every event dispatched: no dialog, no request, nothing that could run."""
    import html as entities
    browser, loopback = ctx.fixture("browser"), ctx.fixture("loopback")
    deck = ctx.batch.output(case, "slides.html")
    text = entities.unescape(deck.read_text(encoding="utf-8"))
    for said in ("<script>alert('print')</script>", "<img src=x onerror=alert('inline')>",
                 "<img src=x onerror=alert('error')>", "x < 5"):
        assert said in text, said
    assert "ZXZpbA==" not in text  # the printed clipboard sequence is no text of the deck
    for product in (deck, ctx.batch.output(case, "index.html")):
        attributes_kept(product)
    assert deck.read_text(encoding="utf-8").count('<meta http-equiv="Content-Security-Policy"') == 1
    assert deck_in_use(browser, deck) == ([], True, True, None)
    dialogs, requests, found = walk_deck(browser, deck)
    assert dialogs == [] and requests == [], (dialogs, requests)
    if ctx.via == "render":
        assert found == {"handlers": [], "links": [], "frames": 0}, found
    else:
        assert found["handlers"] == [] and found["links"] == [], found
    assert loopback.asked == [], loopback.asked


@hook("render")
def policy_runs_no_planted_handler(case, ctx):
    """Markup a plugin might make of text (an `<img onerror>` before a heading): the deck's policy runs
    none of it and says so; the same deck without its policy runs it (the check can fail)."""
    browser, tmp_path = ctx.fixture("browser"), ctx.fixture("tmp_path")
    deck = ctx.batch.output(case, "slides.html").read_text(encoding="utf-8")
    planted = tmp_path / "planted.html"
    planted.write_text(deck.replace("<h2", '<p><img src=x onerror="window.pwned=9"></p><h2', 1), encoding="utf-8")
    violations, menu, notes, pwned = deck_in_use(browser, planted)
    assert pwned is None and menu and notes, (pwned, menu, notes)
    assert violations and all("inline event handler" in v for v in violations), violations
    bare = tmp_path / "bare.html"
    bare.write_text(planted.read_text(encoding="utf-8").replace('http-equiv="Content-Security-Policy"', 'name="none"', 1),
                    encoding="utf-8")
    assert deck_in_use(browser, bare)[3] == 9


@hook("render")
def walk_sees_what_it_guards(case, ctx):
    """The deck, with what the reader refuses put back by hand: the walk reports each of them."""
    browser, loopback, tmp_path = ctx.fixture("browser"), ctx.fixture("loopback"), ctx.fixture("tmp_path")
    deck = ctx.batch.output(case, "slides.html").read_text(encoding="utf-8")
    planted = (f'<p><img src=x onerror="alert(1)"><span onmouseover="alert(2)">x</span>'
               f'<a href="javascript:alert(3)">y</a><img src="http://127.0.0.1:{loopback.server_port}/planted.png"></p>')
    copy = tmp_path / "walked.html"
    copy.write_text(deck.replace("<h2", planted + "<h2", 1), encoding="utf-8")
    dialogs, requests, found = walk_deck(browser, copy)  # the policy set aside (conftest.PolicyAside)
    assert "1" in dialogs and "2" in dialogs, dialogs
    assert any("planted.png" in url for url in requests), requests
    assert "IMG onerror" in found["handlers"] and "javascript:" in found["links"], found
    assert loopback.asked == ["/planted.png"]
    loopback.asked.clear()


@hook("render")
def harmless_on_page_and_deck(case, ctx):
    browser = ctx.fixture("browser")
    dialogs, requests, found = walk_deck(browser, ctx.batch.output(case, "slides.html"))
    assert dialogs == [] and requests == [] and found == {"handlers": [], "links": [], "frames": 0}, found
    page = browser.new_page()
    dialogs, requests = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(ctx.batch.output(case, "index.html").as_uri())
        found = page.evaluate(WALK)
        page.fill("#search-box", "heading")  # the search lists the heading as text
        page.wait_for_selector(".search-results li")
        hits = page.inner_text(".search-results")
        page.wait_for_timeout(300)
    finally:
        page.close()
    assert dialogs == [] and found == {"handlers": [], "links": [], "frames": 0}, (dialogs, found)
    assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
    assert "</script>" in hits and "alert(" in hits, hits


@hook("render")
def harmless_in_handout_and_figure(case, ctx):
    typ = (ctx.root / "_build" / case.folder / f"{case.folder}.typ").read_text(encoding="utf-8")
    title = next(line for line in typ.split("\n") if line.strip().startswith("title:"))
    assert '\\#read("/etc/hostname") \\]) \\#panic' in title, title  # escaped: text, not Typst code
    svg = (ctx.root / "figures" / case.folder / "fig-grad.svg").read_text(encoding="utf-8")
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;&quot;]]&gt;" in svg and "<script" not in svg and "<img" not in svg
    for name in ("slides.html", "index.html"):
        page = ctx.batch.output(case, name).read_text(encoding="utf-8")
        assert 'href="java%20script:' in page  # a tab or newline in the scheme is no scheme any more


# ---- the parts the paths rely on ----------------------------------------------------------------------

def test_output_text_loses_sequences_but_keeps_its_text():
    assert strip_ansi("\x1b[1;31mError\x1b[0m: x\n") == "Error: x\n"
    assert strip_ansi("a\x1b]52;c;ZXZpbA==\x07b\x9b2Jc") == "abc"


def test_json_in_a_script_element_cannot_end_it():
    value = {"side": "</script><script>alert(1)</script><!--", "x": "a\u2028b\u2029c & d"}
    text = script_json(value)
    assert json.loads(text) == value
    assert not re.search("[<>&\u2028\u2029]", text), text


def test_a_damaged_menu_file_is_written_again(project_builder):
    root = project_builder.root
    [_flag, path] = reveal_menu(True, root)
    whole = Path(path).read_bytes()
    Path(path).write_bytes(whole[:100])  # a render killed while writing, a full disk
    assert reveal_menu(True, root) == [_flag, path]
    assert Path(path).read_bytes() == whole


TEMPLATE_ATTRIBUTE = re.compile(r'="([^"]*\$[^"]*)"')
TEMPLATE_VARIABLE = re.compile(r"\$([A-Za-z][\w.-]*)\$")
# What the templates may write into an attribute besides the front matter the lecture filter escapes
# (filters/attributes.lua: ATTRIBUTE_META), and why it cannot end the attribute.
ATTRIBUTE_VALUES = {
    "lang": "the front-matter schema's language-tag pattern (letters, digits, hyphens)",
    "author-meta": "pandoc writes it escaped for an attribute",
    "date-meta": "pandoc writes it only for a date it could read, as YYYY-MM-DD",
    "it.value": "title-slide-attributes: the front-matter schema has no such key; the filter writes it",
    "dir": "no front-matter key (the schema refuses it)",
    "page-root": "formats/html.lua: ../ or empty", "it.href": "course/site/pages.py: a lecture folder's product",
    "page-links.previous.href": "course/site/pages.py: ../<lecture folder>/", "page-links.next.href": "the same",
    "revealjs-url": "the kit's node_modules path", "theme": "the schema's theme names", "css": "a path the reader checked",
    "highlightjs-theme": "the schema's pattern", "idprefix": "not set by the kit", "quarto-version": "Quarto's",
    "reveal-jsscripts": "Quarto's plugin paths", "sep": "template syntax", "endfor": "template syntax",
}


def test_every_template_attribute_value_is_escaped_or_fixed():
    """Each `$variable$` inside an attribute of the page's and the decks' templates (ours, pandoc's
    revealjs, Quarto's) is a front-matter value the lecture filter writes escaped, or a value listed
    above with the reason it cannot hold a quote; a new one fails here until it is one of them."""
    import pypandoc
    lua = (ROOT / "_extensions" / "lecture" / "filters" / "attributes.lua").read_text(encoding="utf-8")
    escaped = set(re.findall(r'"([\w-]+)"', re.search(r"local ATTRIBUTE_META = \{([^}]*)\}", lua).group(1)))
    assert escaped == {"title-en", "keywords"}, escaped
    templates = {"page.html": (ROOT / "_extensions" / "lecture" / "page" / "page.html").read_text(encoding="utf-8"),
                 "pandoc -D revealjs": subprocess.run([pypandoc.get_pandoc_path(), "-D", "revealjs"],
                                                      capture_output=True, text=True, check=True).stdout}
    if QUARTO:
        share = Path(QUARTO).resolve().parents[1] / "share" / "formats" / "revealjs" / "pandoc"
        templates.update({f"quarto {path.name}": path.read_text(encoding="utf-8") for path in share.glob("*.html")})
    found = {(name, variable) for name, text in templates.items() for value in TEMPLATE_ATTRIBUTE.findall(text)
             for variable in TEMPLATE_VARIABLE.findall(value)}
    assert ("page.html", "title-en") in found and ("pandoc -D revealjs", "keywords") in found, sorted(found)
    # page-words: words.json, the project's own text (formats/html.lua)
    words = set(json.loads((ROOT / "_extensions" / "lecture" / "words.json").read_text(encoding="utf-8"))["page_words"])
    unknown = [(name, variable) for name, variable in sorted(found)
               if variable not in escaped and variable not in ATTRIBUTE_VALUES
               and not (variable.startswith("page-words.") and variable.split(".", 1)[1] in words)]
    assert unknown == [], unknown


def test_the_course_page_escapes_every_value():
    """The course page (Jinja2): every value escaped for HTML and attributes, none marked safe."""
    from lecturekit.course.site.course_page import TEMPLATES, _templates
    assert _templates().autoescape is True
    template = (TEMPLATES / "course.html.j2").read_text(encoding="utf-8")
    assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup\(", template)


def test_the_event_handlers_are_those_chromium_runs(browser):
    """The set the rule refuses holds every `on…` handler Chromium knows (a newer browser with a
    new event fails here, not in a deck)."""
    page = browser.new_page()
    try:
        names = page.evaluate("""() => {
          const found = new Set();
          for (const start of [HTMLElement.prototype, SVGElement.prototype, Document.prototype, window,
                               HTMLBodyElement.prototype, HTMLMediaElement.prototype])
            for (let o = start; o; o = Object.getPrototypeOf(o))
              for (const key of Object.getOwnPropertyNames(o)) if (/^on[a-z]+$/.test(key)) found.add(key);
          return [...found];
        }""")
    finally:
        page.close()
    assert "onclick" in names and set(names) <= EVENT_HANDLERS, sorted(set(names) - EVENT_HANDLERS)


def notebook_with_figure(label, file="index.qmd"):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("plot()")
    cell.metadata["lecture"] = {"file": file, "line": 3, "label": label}
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg/>"})]
    nb.cells = [cell]
    return nb


def test_figures_never_escape_or_remove_what_a_render_did_not_write(tmp_path):
    root = tmp_path / "project"
    (root / "figures" / "demo").mkdir(parents=True)
    with pytest.raises(LectureError, match="not a plain file name"):
        write_figures(notebook_with_figure("fig-../../../../x"), root, "demo")
    assert not list(tmp_path.rglob("x.svg"))
    # A hand-drawn figure with a cell's name: refused, its bytes kept.
    hand = root / "figures" / "demo" / "fig-hand.svg"
    hand.write_text("<svg>hand</svg>")
    with pytest.raises(LectureError, match="not written by a render") as caught:
        write_figures(notebook_with_figure("fig-hand"), root, "demo")
    assert caught.value.line == 3 and caught.value.label == "fig-hand"
    assert hand.read_text() == "<svg>hand</svg>"
    # A tampered .generated never removes anything outside the folder or not listed.
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (root / "figures" / "demo" / ".generated").write_text("../../../victim.txt\n.generated\nfig-hand.svg\n")
    hand.unlink()
    write_figures(notebook_with_figure("fig-new"), root, "demo")
    assert victim.read_text() == "keep"
    assert (root / "figures" / "demo" / "fig-new.svg").exists()


def test_the_real_project_and_lectures_fit_their_schemas():
    project = Project(ROOT)
    assert project.setting("timeout") == 120
    lectures = project.lectures()
    assert lectures
    for folder in lectures:
        check_format_options(project, read_lecture(folder / "index.qmd", ROOT))


def test_every_format_has_a_schema_of_exactly_its_options():
    """A format's options reach pandoc's template: each format record has its schema, naming exactly
    the options the record converts (a new format or option needs its schema)."""
    for fmt in FORMATS.values():
        assert schema.has(f"format-{fmt.name}"), fmt.name
        assert set(schema.load(f"format-{fmt.name}")["properties"]) == set(fmt.options), fmt.name


def test_the_cell_options_schema_is_the_documented_subset():
    documented = ROOT.joinpath("docs", "authoring.md").read_text(encoding="utf-8")
    line = next(l for l in documented.splitlines() if l.startswith("| `#|` cell options"))
    for option in schema.load("cell-options")["properties"]:
        assert f"{option}" in line, option

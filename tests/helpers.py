"""What the tests share besides fixtures: the real project and its lectures, the kit's commands, a
small throwaway project (`MiniProject`), the PDF's text, the student scripts' runs. `from helpers
import …` (conftest.py holds the fixtures only)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import pytest

from lecturekit import meter
from lecturekit.course.scaffold.courses import find_quarto  # noqa: F401  (the tests import it from here)
from lecturekit.course.scaffold.projects import ProjectBuilder
from lecturekit.read.frontmatter import with_defaults
from lecturekit.read.qmd import split_front_matter

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
# The kit's commands, installed into the venv by scripts/setup (pyproject.toml [project.scripts]).
BIN = Path(PYTHON).parent
RENDER, CHECK = str(BIN / "lecture-render"), str(BIN / "lecture-check")

# The real Quarto CLI, for the tests that run it: $QUARTO, else `quarto` on PATH. Without one they
# skip with NO_QUARTO as their reason, except where a Quarto is expected: with REQUIRE_QUARTO set
# (the workflow's suite job, .ci/run) conftest.py reports that skip as a failure.
NO_QUARTO = "no Quarto CLI: set $QUARTO or put quarto on PATH (.ci/run uses ../shared/quarto/bin/quarto)"
REQUIRE_QUARTO = "LECTUREKIT_REQUIRE_QUARTO"


FRONT = textwrap.dedent("""\
    ---
    title: "পরীক্ষার লেকচার"
    course: "বাংলায় PyTorch"
    episode: 1
    episodes: 91
    module: 1
    ---
    """)


def run_render(project, *args, env=None):
    """Run the render CLI in `project`; return the CompletedProcess."""
    return subprocess.run([RENDER, *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=600)


def run_measured(args, *, env=None, cwd=None, timeout=None) -> tuple[subprocess.CompletedProcess, float]:
    """subprocess.run (text output captured), and the CPU seconds the process and the processes under
    it used (`lecturekit.meter.run`): what one of several processes run side by side cost."""
    measured = meter.run(args, env=env, cwd=cwd, timeout=timeout)
    return measured.completed(), measured.cpu_seconds


def run_check(project, *args, env=None):
    """Run the check CLI in `project`; return the CompletedProcess."""
    return subprocess.run([CHECK, *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=600)


# ---- the real lectures: every generic slide/handout test runs over each of them -----------------

@dataclass(frozen=True)
class Lecture:
    """One lecture of the real project, and where its build and products are."""
    name: str

    def __str__(self):
        return self.name

    @property
    def folder(self) -> Path:
        return ROOT / "lectures" / self.name

    @property
    def sources(self) -> list:
        """Its section files (`_*.qmd`), or its index when it has none."""
        return sorted(self.folder.glob("_*.qmd")) or [self.folder / "index.qmd"]

    @cached_property
    def meta(self) -> dict:
        """The front matter as the products use it (defaults filled in)."""
        index = self.folder / "index.qmd"
        meta, _body, _line = split_front_matter(index.read_text(encoding="utf-8"), index)
        return with_defaults(meta, self.folder)

    def text(self) -> str:
        return "\n".join(p.read_text(encoding="utf-8") for p in [self.folder / "index.qmd", *self.sources])

    def has(self, pattern: str) -> bool:
        return re.search(pattern, self.text(), re.M) is not None

    def product(self, rendered: Path, name: str) -> Path:
        return rendered / self.name / name

    @property
    def notebook(self) -> Path:
        return ROOT / "_build" / self.name / f"{self.name}.ipynb"


LECTURES = [Lecture(p.parent.name) for p in sorted((ROOT / "lectures").glob("*/index.qmd"))]


def lectures_with(pattern: str) -> list:
    """The lectures whose sources use a construct (a quiz, a stepper …): a test of that construct
    runs on each of them, and on none that lacks it (no vacuous pass)."""
    return [lecture for lecture in LECTURES if lecture.has(pattern)]


every_lecture = pytest.mark.parametrize("lecture", LECTURES, ids=str)


# ---- throwaway projects ---------------------------------------------------------------------------

class MiniProject(ProjectBuilder):
    """A copy of the project's rendering parts with one small lecture of our own (`demo`)."""

    def __init__(self, root):
        super().__init__(root, ROOT)
        self.add_package("minipkg", {"__init__.py": "ANSWER = 41 + 1\n"})
        self.lecture = self.lectures_dir / "demo"
        self.lecture.mkdir(parents=True)

    def copied_to(self, root):
        """A copy of this project (cache and products included, links kept) at `root`."""
        import shutil
        shutil.copytree(self.root, root, symlinks=True)
        copy = MiniProject.__new__(MiniProject)
        copy.root, copy.source, copy.lecture = Path(root), self.source, Path(root) / "lectures" / "demo"
        return copy

    def write(self, body, sections=None, front=FRONT):
        self.add_lecture("demo", body, front=front, sections=sections)

    def render(self, *args, env=None):
        return run_render(self.root, "--quiet", *args, env=env)

    @property
    def slides(self):
        return self.output("demo", "slides.html")

    @property
    def handout(self):
        return self.output("demo", "handout.pdf")


def pdf_text(pdf):
    """Text in content order (-raw): how a reader's copy and paste sees it."""
    return subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def start_render(mini, *args, quiet=True, **popen):
    """The render CLI started in the background (the same command as run_render)."""
    return subprocess.Popen([RENDER, *(["--quiet"] if quiet else []), *args], cwd=mini.root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def processes_under(folder):
    """Processes working in folder or naming a path in it: kernels (their working folder is
    _build/<lecture>/run), pandoc and Typst children."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if str(folder) in cmdline or cwd.startswith(str(folder)):
            found.append((proc.name, cmdline))
    return found


def start_slow_handout(mini, body):
    """A render of `body` plus 30 000 printed lines (allowed here), which keep Typst busy for
    seconds, started in a session of its own. Returns (the process, typst_busy): typst_busy() holds
    once pandoc has written the new .typ and the Typst child compiles it."""
    config = mini.root / "_quarto.yml"
    config.write_text(config.read_text(encoding="utf-8") + "  max-output: 5000000\n", encoding="utf-8")
    mini.write(body + '\n```{python}\n#| label: long\nfor i in range(30_000):\n    print("y" * 99)\n```\n')
    typ = mini.root / "_build" / "demo" / "demo.typ"
    old = typ.stat().st_mtime_ns if typ.exists() else None
    run = start_render(mini, start_new_session=True)

    def typst_busy():
        return typ.exists() and typ.stat().st_mtime_ns != old and any(
            "typst.compile" in cmd for _pid, cmd in processes_under(mini.root))
    return run, typst_busy


# ---- the student scripts: each run once per test session ------------------------------------------

# Every script a student downloads: code/scripts/<lecture>/NN_name.py (helpers such as _setup_path.py
# are imported by them, not run).
STUDENT_SCRIPTS = sorted(p for p in (ROOT / "code" / "scripts").rglob("*.py") if not p.name.startswith("_"))


def script_id(script: Path) -> str:
    """`<lecture>/<script>`: the test id names the lecture (the cost summary adds per lecture)."""
    return f"{script.parent.name}/{script.name}"


@dataclass(frozen=True)
class ScriptRun:
    script: Path  # the project's code/scripts/<lecture>/NN_name.py (what ran may be its zip's copy)
    returncode: int
    stdout: str
    stderr: str
    left: list  # files the script left in the folder it ran from
    written: dict = field(default_factory=dict)  # each left file's size and first bytes: {name: {bytes, head}}


def student_env() -> dict:
    """A student's shell: only the system's PATH, and a home."""
    return {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", str(ROOT))}


def run_student_script(script: Path, cwd: Path, *args: str, server=None) -> ScriptRun:
    """The script as a student runs it: `python path/to/NN_name.py`, from an empty folder, with nothing
    on PYTHONPATH and only the system's PATH (the script's own `_setup_path` finds the course
    package). No hash seed, thread count or backend is set: a student's shell sets none. With a
    `server` (script_server.ScriptServer, started with the same environment) the same run is a fork
    of an interpreter that has imported torch already, and without the code/ entry that the
    project venv's lecture-code.pth gives a fresh interpreter and a student's Python has not
    (test_scripts proves the two runs equal but for that entry)."""
    if server is not None:
        done = server.run(script, cwd, args, timeout=300)
    else:
        done = subprocess.run([PYTHON, str(script), *args], cwd=cwd, env=student_env(), capture_output=True,
                              text=True, timeout=300)
    left = sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*"))
    written = {str(p.relative_to(cwd)): {"bytes": p.stat().st_size, "head": p.read_bytes()[:16].hex()}
               for p in cwd.rglob("*") if p.is_file() and not p.is_symlink()}
    return ScriptRun(script, done.returncode, done.stdout, done.stderr, left, written)


class LectureCodeZips:
    """Each lecture's code zip (`<output>/<lecture>/code.zip`, as the course page publishes it),
    unpacked once into a folder of its own (`unpack_into(lecture)`): the scripts where a student has
    them, `<lecture>/scripts/` beside the packages they import, and no code/ anywhere above."""

    def __init__(self, output: Path, unpack_into):
        self.output, self.unpack_into = Path(output), unpack_into
        self._unpacked: dict = {}

    def zip_of(self, script: Path) -> Path:
        from lecturekit.course.site.code_zip import ZIP_NAME
        return self.output / script.parent.name / ZIP_NAME

    def copy_of(self, script: Path) -> Path:
        """The zip's copy of the project's `code/scripts/<lecture>/NN_name.py`."""
        lecture = script.parent.name
        if lecture not in self._unpacked:
            folder = self.unpack_into(lecture)
            with zipfile.ZipFile(self.zip_of(script)) as zf:
                zf.extractall(folder)
            self._unpacked[lecture] = folder
        copy = self._unpacked[lecture] / lecture / "scripts" / script.name
        assert copy.is_file(), f"{self.zip_of(script)} holds no {lecture}/scripts/{script.name}: a student has no such script"
        return copy


def script_server():
    """A script_server.ScriptServer for the student scripts: a student's environment, and the
    third-party libraries they import (torch, numpy) imported once, code/ never."""
    from script_server import ScriptServer, third_party_imports
    code = ROOT / "code"
    return ScriptServer(PYTHON, student_env(), third_party_imports(STUDENT_SCRIPTS, code), code)


def installed_distributions(python: str = PYTHON) -> list:
    """name==version of every distribution the interpreter has (its site-packages): what a script can
    import besides code/."""
    probe = ("import importlib.metadata as m, json; print(json.dumps(sorted({(d.metadata['Name'] or '', "
             "d.version) for d in m.distributions()})))")
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True, env=student_env())
    return json.loads(out.stdout)


class ScriptRunCache:
    """Student-script runs kept under _build/script-runs/ (beside the execution cache), keyed like an
    execution by everything that can change what the script prints: the script and every file of
    code/ (the packages it imports, its `_setup_path`), the bytes of the lecture's code zip it runs
    from (with `zips`, a LectureCodeZips), the interpreter's version and every installed
    distribution, the CPU (execute/cache.py's `machine`) and the environment and arguments it runs
    with. A prose edit leaves the key as it is; any of these changes it and the script runs again.
    An entry whose digest does not match what it holds is run again."""

    FORMAT = 3  # 3: a run is of the script in its lecture's code zip, without code/ on sys.path
    KEEP = 2  # entries per script

    def __init__(self, folder: Path, code_dir: Path, zips: LectureCodeZips | None = None):
        self.folder, self.code_dir, self.zips = Path(folder), Path(code_dir), zips
        self._zip_digests: dict = {}

    @cached_property
    def _inputs(self) -> dict:
        from lecturekit import inputs
        return {"format": self.FORMAT, "python": sys.version, "distributions": installed_distributions(),
                "machine": inputs.machine(), "env": student_env(),
                "code": inputs.tree(self.code_dir, self.code_dir.parent)}

    def _zip_digest(self, script: Path) -> str | None:
        if self.zips is None:
            return None
        path = self.zips.zip_of(script)
        if path not in self._zip_digests:
            self._zip_digests[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._zip_digests[path]

    def key(self, script: Path, args: tuple = ()) -> str:
        inputs = {**self._inputs, "script": script.relative_to(self.code_dir).as_posix(), "args": list(args),
                  "zip": self._zip_digest(script)}
        return hashlib.sha256(json.dumps(inputs, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def _path(self, script: Path, key: str) -> Path:
        return self.folder / script.parent.name / f"{script.stem}-{key[:32]}.json"

    @staticmethod
    def _digest(record: dict) -> str:
        return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def load(self, script: Path, args: tuple = ()) -> ScriptRun | None:
        path = self._path(script, self.key(script, args))
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            record = stored["record"]
            if stored["sha256"] != self._digest(record):
                raise ValueError("what it holds does not match its digest")
            return ScriptRun(script, int(record["returncode"]), str(record["stdout"]), str(record["stderr"]),
                             [str(name) for name in record["left"]],
                             {str(name): {"bytes": int(file["bytes"]), "head": str(file["head"])}
                              for name, file in record["written"].items()})
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as err:
            print(f"warning: {path}: discarded a damaged script run ({err}); it runs again", file=sys.stderr)
            return None

    def store(self, run: ScriptRun, args: tuple = ()) -> None:
        from lecturekit.fsutil import write_atomic
        record = {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr, "left": run.left,
                  "written": run.written}
        path = self._path(run.script, self.key(run.script, args))
        write_atomic(path, json.dumps({"sha256": self._digest(record), "record": record},
                                      ensure_ascii=False).encode("utf-8"))
        older = sorted(path.parent.glob(f"{run.script.stem}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in older[self.KEEP:]:
            old.unlink(missing_ok=True)


class ScriptRuns:
    """Each student script run once per test session, its output shared by every test that reads it
    (test_bazarghar: it runs and leaves nothing behind; test_scripts: its lines agree with the
    lecture's; test_facts: it prints what the lecture's facts say), and kept across sessions in
    a ScriptRunCache: a session where nothing it depends on changed runs it not at all. The first
    test that needs a script runs every selected script of that lecture not in the cache, one at a
    time (forked by `server` when given: run_student_script). With `zips` (LectureCodeZips) what
    runs is the script's copy in its lecture's unpacked code zip, as a student has it; else the
    script where it is."""

    def __init__(self, selected, folder_for, cache: ScriptRunCache | None = None, server=None,
                 zips: LectureCodeZips | None = None):
        self.selected = sorted(set(selected))
        self.folder_for = folder_for  # script -> an empty folder to run it from
        self.cache = cache
        self.server = server
        self.zips = zips
        self.runs: dict = {}

    def _run(self, script: Path, args: tuple = ()) -> ScriptRun:
        copy = self.zips.copy_of(script) if self.zips is not None else script
        run = run_student_script(copy, self.folder_for(script), *args, server=self.server)
        return replace(run, script=script)

    def of(self, script: Path, args: tuple = ()) -> ScriptRun:
        """The script's run (`python NN_name.py *args`); a run with arguments is its own run."""
        if args:
            return self._with_args(script, tuple(args))
        if script not in self.runs:
            batch = [s for s in self.selected if s.parent == script.parent and s not in self.runs]
            batch = batch if script in batch else [script, *batch]
            if self.cache is not None:
                for cached in filter(None, map(self.cache.load, batch)):
                    self.runs[cached.script] = cached
                batch = [s for s in batch if s not in self.runs]
            # One at a time: two torch scripts side by side on two cores each start a thread per
            # core, and their threads spin waiting for each other (three times the CPU, and slower).
            for run in map(self._run, batch):
                self.runs[run.script] = run
                if self.cache is not None and run.returncode == 0:  # a failure is never kept
                    self.cache.store(run)
        return self.runs[script]

    def _with_args(self, script: Path, args: tuple) -> ScriptRun:
        if (script, args) not in self.runs:
            run = self.cache.load(script, args) if self.cache is not None else None
            if run is None:
                run = self._run(script, args)
                if self.cache is not None and run.returncode == 0:
                    self.cache.store(run, args)
            self.runs[(script, args)] = run
        return self.runs[(script, args)]


def copy_project(source: Path, target: Path, *, built: bool = True) -> Path:
    """A copy of a throwaway project (links kept as links); `built=False`: its sources only, as a
    fresh checkout has them (no _build/, no _output/)."""
    import shutil
    skip = shutil.ignore_patterns() if built else shutil.ignore_patterns("_build", "_output")
    shutil.copytree(source, target, symlinks=True, ignore=skip)
    return target


def run_kit(command, project, *args, env=None):
    """Run one of the kit's console scripts (`lecture-plan`, `lecture-gather` …) in `project`."""
    return subprocess.run([str(BIN / command), *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=600)


def add_format_schema(monkeypatch, folder, name: str, properties: str = "{}") -> None:
    """Every format has its options' schema (schemas/format-<name>.yaml): a format a test adds gets
    one, in a copy of the project's schemas under `folder`."""
    import shutil
    from lecturekit import schema
    schemas = Path(folder) / "schemas"
    if not schemas.exists():
        shutil.copytree(schema.SCHEMAS, schemas)
    (schemas / f"format-{name}.yaml").write_text(
        f"type: object\nadditionalProperties: false\nproperties: {properties}\n", encoding="utf-8")
    monkeypatch.setattr(schema, "SCHEMAS", schemas)

"""What the tests share besides fixtures: the real project and its lectures, the kit's commands, a
small throwaway project (`MiniProject`), the PDF's text. `from helpers import …` (conftest.py holds
the fixtures only)."""
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest

from lecturekit.course.scaffold import ProjectBuilder
from lecturekit.read.frontmatter import with_defaults
from lecturekit.read.qmd import split_front_matter

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
# The kit's commands, installed into the venv by scripts/setup (pyproject.toml [project.scripts]).
BIN = Path(PYTHON).parent
RENDER, CHECK = str(BIN / "lecture-render"), str(BIN / "lecture-check")

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

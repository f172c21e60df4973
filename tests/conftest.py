"""Shared fixtures: the real project, and small throwaway projects for pipeline tests."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

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
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts"), **(env or {})}
    return subprocess.run([PYTHON, "-m", "lecturekit.render", *args], cwd=project, env=full_env,
                          capture_output=True, text=True, timeout=600)


class MiniProject:
    """A copy of the project's rendering parts with one small lecture of our own."""

    def __init__(self, root):
        self.root = root
        shutil.copy(ROOT / "_quarto.yml", root / "_quarto.yml")
        shutil.copytree(ROOT / "_extensions", root / "_extensions")
        (root / "node_modules").symlink_to(ROOT / "node_modules")
        (root / "code" / "minipkg").mkdir(parents=True)
        (root / "code" / "minipkg" / "__init__.py").write_text("ANSWER = 41 + 1\n")
        self.lecture = root / "lectures" / "demo"
        self.lecture.mkdir(parents=True)

    def write(self, body, sections=None, front=FRONT):
        (self.lecture / "index.qmd").write_text(front + textwrap.dedent(body), encoding="utf-8")
        for name, text in (sections or {}).items():
            (self.lecture / name).write_text(textwrap.dedent(text), encoding="utf-8")

    def render(self, *args, env=None):
        return run_render(self.root, "--quiet", *args, env=env)

    @property
    def slides(self):
        return self.root / "_output" / "demo" / "slides.html"

    @property
    def handout(self):
        return self.root / "_output" / "demo" / "handout.pdf"


@pytest.fixture
def mini(tmp_path):
    return MiniProject(tmp_path)


@pytest.fixture(scope="session")
def rendered():
    """The real lecture(s), rendered once per test session (from the cache when it is valid)."""
    result = run_render(ROOT, "--quiet")
    assert result.returncode == 0, result.stderr
    return ROOT / "_output"


def pdf_text(pdf):
    """Text in content order (-raw): how a reader's copy and paste sees it."""
    return subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()

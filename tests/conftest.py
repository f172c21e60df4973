"""Shared fixtures: the real project rendered once, its lectures, throwaway projects built by
lecturekit's `ProjectBuilder` (the same builder the benchmark uses), a browser. What the tests share
besides fixtures is in helpers.py."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A venv copied from another checkout would run that checkout's kit: scripts/setup re-installs it.
try:
    import lecturekit
except ModuleNotFoundError:
    pytest.exit("the kit is not installed in this venv: run scripts/setup", returncode=4)
if Path(lecturekit.__file__).resolve().parents[2] != ROOT:
    pytest.exit(f"this venv's lecturekit is {Path(lecturekit.__file__).parent}, not this checkout's: "
                "run scripts/setup", returncode=4)

from helpers import MiniProject, ProjectBuilder, run_render  # noqa: E402


@pytest.fixture
def mini(tmp_path):
    return MiniProject(tmp_path)


@pytest.fixture
def project_builder(tmp_path):
    """An empty throwaway project (settings, theme, filters); add lectures, packages, scripts."""
    return ProjectBuilder(tmp_path / "project", ROOT)


@pytest.fixture(scope="session")
def rendered():
    """The real lecture(s), rendered once per test session (from the cache when it is valid)."""
    result = run_render(ROOT, "--quiet")
    assert result.returncode == 0, result.stderr
    return ROOT / "_output"


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory):
    """A generated course of three small lectures (the benchmark's: no torch), rendered once and its
    outputs recorded in tests/expected/. Copy it (helpers.copy_project) before changing it."""
    from helpers import BIN
    import subprocess
    from lecturekit.cli.bench import synthetic_course
    course = synthetic_course(tmp_path_factory.mktemp("generated") / "course", 3)
    result = run_render(course.root, "--quiet")
    assert result.returncode == 0, result.stderr
    accepted = subprocess.run([str(BIN / "lecture-check"), "--quiet", "--accept"], cwd=course.root,
                              capture_output=True, text=True, timeout=600)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    return course.root

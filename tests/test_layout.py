"""The kit's shape: one sub-package a stage, console scripts that resolve, the stdlib-only pins.

Fast, no kernel: what a moved module or a stale entry point would break before any render.
"""
import importlib
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import lecturekit
from lecturekit.course.build.builder import theme_digest
from lecturekit.project import Project

ROOT = Path(__file__).resolve().parents[1]
KIT = Path(lecturekit.__file__).parent
STAGES = {"read", "execute", "check", "write", "course", "cli"}


def test_the_package_folders_are_its_stages():
    packages = {p.parent.name for p in KIT.glob("*/__init__.py")}
    assert packages == STAGES
    # Nothing of a stage lies loose at the top: only the ground floor every stage shares, as the
    # import contract (pyproject.toml [tool.importlinter]) places it below the stages.
    contract = next(c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
                    if c["id"] == "stages")
    layers = [name.strip() for layer in contract["layers"] for name in layer.replace("|", ":").split(":")]
    ground = layers[layers.index("read") + 1:]
    assert {p.stem for p in KIT.glob("*.py")} - {"__init__"} == set(ground)
    assert {"errors", "words", "project"} <= set(ground)


def test_every_console_script_resolves_to_a_function():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert {"lecture-render", "lecture-check", "lecture-execute", "lecture-bench", "lecture-modtree"} <= set(scripts)
    for name, target in scripts.items():
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), name


def test_every_module_of_the_kit_imports():
    for path in sorted(KIT.rglob("*.py")):
        name = ".".join(path.relative_to(KIT.parent).with_suffix("").parts)
        if not name.endswith("__main__"):
            importlib.import_module(name.removesuffix(".__init__"))


def test_pins_runs_with_the_stdlib_alone():
    # scripts/setup runs it with the system Python before the venv exists: no site-packages (-S).
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "scripts")}
    out = subprocess.run(["/usr/bin/python3", "-S", "-m", "lecturekit.cli.pins", "--help"],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "install" in out.stdout


def test_python_m_check_runs_the_command_from_cli():
    out = subprocess.run([os.sys.executable, "-m", "lecturekit.cli.check", "--help"], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "--accept" in out.stdout


# ---- what a product is keyed by --------------------------------------------------------------------

TYPST_PATH = re.compile(r'(?:#import|#include|\bread|\bimage|\bjson|\byaml|\bcsv|\btoml)\s*\(?\s*"([^"]+)"')


def test_every_file_the_handout_typst_reads_is_keyed():
    """A product is rewritten when its key changes; the key (course.builder.theme_digest) holds every
    file under _extensions/. So every file the Typst side imports, includes or reads must live there:
    one outside would change the handout without a re-render."""
    outside = []
    for typ in (ROOT / "_extensions").rglob("*.typ"):
        for target in TYPST_PATH.findall(typ.read_text(encoding="utf-8")):
            path = (ROOT / target.lstrip("/")) if target.startswith("/") else (typ.parent / target)
            if "$" in target or target.startswith(("<svg", "data:")):
                continue  # a template variable or inline bytes, not a file
            if (ROOT / "_extensions") not in path.resolve().parents:
                outside.append(f"{typ.relative_to(ROOT)}: {target}")
    assert not outside, f"read from outside _extensions/, so not in the products' key: {outside}"


def test_a_change_to_a_file_the_handout_imports_changes_the_key(tmp_path):
    shutil.copytree(ROOT / "_extensions", tmp_path / "_extensions")
    shutil.copy(ROOT / "_quarto.yml", tmp_path / "_quarto.yml")
    project = Project(tmp_path)
    handout = tmp_path / "_extensions" / "lecture" / "handout.typ"
    part = tmp_path / "_extensions" / "lecture" / "parts" / "boxes.typ"
    part.parent.mkdir()
    part.write_text("#let gap = 4pt\n", encoding="utf-8")
    handout.write_text('#import "parts/boxes.typ": gap\n' + handout.read_text(encoding="utf-8"), encoding="utf-8")
    before = theme_digest(project)
    assert theme_digest(project) == before  # the key is stable
    part.write_text("#let gap = 6pt\n", encoding="utf-8")  # only the imported file changes
    assert theme_digest(project) != before


def test_a_render_or_check_imports_the_jupyter_client_only_to_execute():
    """A course's no-change render starts no kernel: the client's import (a third of the kit's
    start) waits until one starts."""
    probe = ("import sys, lecturekit.cli.render, lecturekit.cli.check, lecturekit.cli.plan, lecturekit.course.build.builder; "
             "print(sorted(m for m in ('jupyter_client', 'nbclient', 'zmq') if m in sys.modules))")
    out = subprocess.run([os.sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


CONFLICT_MARK = re.compile(rb"^(?:<<<<<<< |>>>>>>> |=======$)", re.M)


def test_no_tracked_file_holds_a_merge_conflict_mark():
    """A merge left half-done reads as text to every reader (docs, YAML, Lua): no tracked file holds
    git's conflict marks at a line's start."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    marked = []
    for name in filter(None, listed.decode("utf-8").split("\0")):
        path = ROOT / name
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 5_000_000:
            if CONFLICT_MARK.search(path.read_bytes()):
                marked.append(name)
    assert marked == [], marked

"""The stages depend one way: import-linter's contracts in pyproject.toml ([tool.importlinter]) hold
for the kit, and each of them fails when the kit is broken the way it guards against (a copy of the
kit with one import added, checked by the same contracts)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT

LINT = str(Path(sys.executable).parent / "lint-imports")


def lint(kit_parent: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """lint-imports with pyproject.toml's contracts, on the `lecturekit` found in `kit_parent`."""
    env = {**os.environ, "PYTHONPATH": str(kit_parent)}
    return subprocess.run([LINT, "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_kit_keeps_every_contract(tmp_path):
    run = lint(ROOT / "scripts", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and "3 kept, 0 broken" in run.stdout, run.stdout


# (file of the kit, a line added to it, what lint-imports must then say)
MUTATIONS = {
    "read imports write": ("read/qmd.py", "from lecturekit.write import formats",
                           "lecturekit.read.qmd -> lecturekit.write.formats"),
    "execute imports write": ("execute/build.py", "from lecturekit.write.figures import write_figures",
                              "lecturekit.execute.build -> lecturekit.write.figures"),
    "check imports write": ("check/normalise.py", "from lecturekit.write.emit import MarkdownEmitter",
                            "lecturekit.check.normalise -> lecturekit.write.emit"),
    "the ground floor imports a stage": ("project.py", "from lecturekit.read import qmd",
                                         "lecturekit.project -> lecturekit.read.qmd"),
    "an upward import inside a function": ("execute/kernel.py", "def _f():\n    from lecturekit.course.site import course_page",
                                           "lecturekit.execute.kernel -> lecturekit.course.site.course_page"),
    "the course page imports the build": ("course/site/pages.py", "from lecturekit.course.build import stamp",
                                          "lecturekit.course.site.pages -> lecturekit.course.build.stamp"),
    "the build imports Quarto's steps": ("course/build/builder.py", "from lecturekit.course.quarto import handoff",
                                         "lecturekit.course.build.builder -> lecturekit.course.quarto.handoff"),
    "a cycle inside a stage": ("write/formats.py", "from lecturekit.write import writers",
                               "No cycles are allowed in lecturekit.write"),
    "a module without a layer": ("helpers.py", "X = 1", "lecturekit.helpers"),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_a_broken_contract_is_named(tmp_path, case):
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "scripts" / "lecturekit", kit / "lecturekit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    file, line, expected = MUTATIONS[case]
    path = kit / "lecturekit" / file
    path.write_text((path.read_text(encoding="utf-8") if path.exists() else "") + f"\n{line}\n", encoding="utf-8")
    run = lint(kit, tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "BROKEN" in run.stdout and expected in run.stdout, run.stdout


def test_tests_share_helpers_through_helpers_py_not_conftest():
    """conftest.py is pytest's (fixtures); a test importing from it would load it a second time
    under another name. Shared names live in tests/helpers.py."""
    tests = Path(__file__).resolve().parent
    offenders = [p.name for p in tests.glob("*.py")
                 if re.search(r"^\s*(from conftest import|import conftest)", p.read_text(encoding="utf-8"), re.M)]
    assert offenders == []

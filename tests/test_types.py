"""`mypy --strict` holds on the whole kit (pyproject.toml's [tool.mypy] `files`), and fails on a
copy of them with one untyped function or one wrong type added."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT


def mypy(project: Path) -> subprocess.CompletedProcess:
    """mypy with the configuration (and so the module list) of `project`'s pyproject.toml."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(project / "pyproject.toml")],
                          cwd=project, capture_output=True, text=True, timeout=300)


def test_the_listed_modules_are_strictly_typed():
    run = mypy(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found"), run.stdout


MUTATIONS = {  # a line added to a listed module, and what mypy says of it
    "an untyped function": ("def echo(value):\n    return value", "Function is missing a type annotation"),
    "a wrong type": ("def lines() -> int:\n    return 'many'", "Incompatible return value type"),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_a_type_error_is_named(tmp_path, case):
    shutil.copytree(ROOT / "scripts" / "lecturekit", tmp_path / "scripts" / "lecturekit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    code, expected = MUTATIONS[case]
    module = tmp_path / "scripts" / "lecturekit" / "ansi.py"
    module.write_text(module.read_text(encoding="utf-8") + f"\n\n{code}\n", encoding="utf-8")
    run = mypy(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "scripts/lecturekit/ansi.py:" in run.stdout and expected in run.stdout, run.stdout

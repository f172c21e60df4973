"""The scripts students download print what the handout shows. Every script under code/scripts (found
recursively, wherever it sits) runs on its own; each printed line that reports the same quantity as a
line of lecture 09's executed outputs (same words, same count of numbers, values within rounding)
must print it identically — a script that rounds 3.0125 to 3.013 while the handout shows 3.012 fails."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "code" / "scripts").rglob("*.py") if not p.name.startswith("_"))
NOTEBOOK = ROOT / "_build" / "09-nn-module" / "09-nn-module.ipynb"
NUMBER = re.compile(r"[-+]?\d+(?:,\d{2,3})*(?:\.\d+)?(?:e[-+]?\d+)?")


def skeleton(line: str) -> str:
    """The line's words with every number masked: what quantity it reports, not its value."""
    masked = NUMBER.sub(" # ", line)
    return " ".join(re.findall(r"#|[^\W\d]\w*", masked))


def numbers(line: str) -> list[str]:
    return NUMBER.findall(line)


def same_quantity(a: list[str], b: list[str]) -> bool:
    """Numbers that agree up to rounding: each pair within a unit or two of the coarser last digit."""
    if len(a) != len(b) or not a:
        return False
    for x, y in zip(a, b):
        fx, fy = float(x.replace(",", "")), float(y.replace(",", ""))
        decimals = min(len(x.partition(".")[2]), len(y.partition(".")[2]))
        if "e" in x.lower() or "e" in y.lower():
            if abs(fx - fy) > 0.05 * max(abs(fx), abs(fy)):
                return False
        elif abs(fx - fy) > 2 * 10 ** -decimals:
            return False
    return True


@pytest.fixture(scope="module")
def executed_lines(rendered):
    """Every line lecture 09's cells printed, by skeleton."""
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    by_skeleton: dict[str, list[str]] = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            for line in text.splitlines():
                if numbers(line) and skeleton(line):
                    by_skeleton.setdefault(skeleton(line), []).append(line.rstrip())
    assert by_skeleton, "the executed notebook printed nothing"
    return by_skeleton


def run_script(script: Path) -> list[str]:
    # From the script's own folder, with nothing on PYTHONPATH: as a student runs it.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT), "PYTHONHASHSEED": "0"}
    result = subprocess.run([sys.executable, script.name], cwd=script.parent, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{script.relative_to(ROOT)} failed:\n{result.stderr[-2000:]}"
    return [line.rstrip() for line in result.stdout.splitlines()]


def test_scripts_are_found():
    assert len(SCRIPTS) >= 8, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_prints_what_the_handout_shows(script, executed_lines):
    printed = run_script(script)
    assert printed, f"{script.name} printed nothing"
    disagree = []
    for line in printed:
        shown = executed_lines.get(skeleton(line), [])
        if not numbers(line) or not shown or line in shown:
            continue
        close = [s for s in shown if same_quantity(numbers(line), numbers(s))]
        if close and all(numbers(line) != numbers(s) for s in close):
            disagree.append(f"script: {line.strip()}\nlecture: {close[0].strip()}")
    assert not disagree, f"{script.name} prints the lecture's numbers differently:\n" + "\n".join(disagree)


def test_the_check_catches_a_rounding_difference():
    """The comparison itself: the same buffer rounded two ways is a disagreement."""
    script, lecture = "buffer x_mean [6.21  3.013 0.317]", "buffer x_mean [6.21  3.012 0.318]"
    assert skeleton(script) == skeleton(lecture)
    assert same_quantity(numbers(script), numbers(lecture)) and numbers(script) != numbers(lecture)
    assert not same_quantity(numbers("মোট 234,752 ≈ 917.0 KiB"), numbers("মোট 209 ≈ 0.8 KiB"))

"""The scripts students download print what the handout shows. Every script under code/scripts (found
recursively, wherever it sits) runs on its own; each printed line that reports the same quantity as a
line of any lecture's executed outputs (same words, same count of numbers, values within rounding)
must print it identically — a script that rounds 3.0125 to 3.013 while the handout shows 3.012 fails.
Each script runs once per session (helpers.ScriptRuns), its run shared with test_bazarghar and the
lecture's own test."""
import json
import re

import pytest

from helpers import LECTURES, STUDENT_SCRIPTS as SCRIPTS, script_id

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
    """Every line the lectures' cells printed, by skeleton."""
    by_skeleton: dict[str, list[str]] = {}
    cells = [cell for lecture in LECTURES
             for cell in json.loads(lecture.notebook.read_text(encoding="utf-8"))["cells"]]
    for cell in cells:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            for line in text.splitlines():
                if numbers(line) and skeleton(line):
                    by_skeleton.setdefault(skeleton(line), []).append(line.rstrip())
    assert by_skeleton, "the executed notebook printed nothing"
    return by_skeleton


def test_scripts_are_found():
    assert len(SCRIPTS) >= 8, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_script_prints_what_the_handout_shows(script, executed_lines, script_runs):
    run = script_runs.of(script)
    assert run.returncode == 0, f"{script_id(script)} failed:\n{run.stderr[-2000:]}"
    printed = [line.rstrip() for line in run.stdout.splitlines()]
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

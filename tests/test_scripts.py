"""The scripts students download print what the handout shows. Every script under code/scripts (found
recursively, wherever it sits) runs on its own; each printed line that reports the same quantity as a
line of any lecture's executed outputs (same words, same count of numbers, values within rounding)
must print it identically — a script that rounds 3.0125 to 3.013 while the handout shows 3.012 fails.
Each script runs once per session (helpers.ScriptRuns), its run shared with test_bazarghar and the
lecture's facts (test_facts.py)."""
import json
import re
import tempfile
from pathlib import Path

import pytest

from helpers import LECTURES, STUDENT_SCRIPTS as SCRIPTS, ScriptRunCache, ScriptRuns, script_id

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
def executed_lines(rendered, rendered_lectures):
    """Every line the lectures' cells printed, by skeleton (the lectures this run rendered: all of
    them, or `scripts/test --lecture`'s own)."""
    by_skeleton: dict[str, list[str]] = {}
    cells = [cell for lecture in LECTURES if lecture.name in rendered_lectures
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
    assert run.stdout.strip(), f"{script.name} printed nothing"
    disagree = disagreements(run.stdout, executed_lines)
    assert not disagree, f"{script.name} prints the lecture's numbers differently:\n" + "\n".join(disagree)


def disagreements(stdout: str, executed_lines: dict) -> list[str]:
    """The printed lines that report a quantity the lectures show, rounded otherwise."""
    disagree = []
    for line in (line.rstrip() for line in stdout.splitlines()):
        shown = executed_lines.get(skeleton(line), [])
        if not numbers(line) or not shown or line in shown:
            continue
        close = [s for s in shown if same_quantity(numbers(line), numbers(s))]
        if close and all(numbers(line) != numbers(s) for s in close):
            disagree.append(f"script: {line.strip()}\nlecture: {close[0].strip()}")
    return disagree


def test_the_check_catches_a_rounding_difference():
    """The comparison itself: the same buffer rounded two ways is a disagreement."""
    script, lecture = "buffer x_mean [6.21  3.013 0.317]", "buffer x_mean [6.21  3.012 0.318]"
    assert skeleton(script) == skeleton(lecture)
    assert same_quantity(numbers(script), numbers(lecture)) and numbers(script) != numbers(lecture)
    assert not same_quantity(numbers("মোট 234,752 ≈ 917.0 KiB"), numbers("মোট 209 ≈ 0.8 KiB"))


def test_a_script_runs_again_exactly_when_what_it_depends_on_changes(tmp_path, capsys):
    """The run cache (helpers.ScriptRunCache) on a small code/: a second session reads the run (the
    script prints a fresh token each time it really runs); an edit of a package under code/ or of
    the script, or another set of installed packages, runs it again; a damaged entry is run again; a
    failure is never kept; and a kept run whose numbers disagree with the lecture's still fails."""
    code, store = tmp_path / "code", tmp_path / "_build" / "script-runs"
    package = code / "shoppkg" / "__init__.py"
    package.parent.mkdir(parents=True)
    package.write_text("PRICE = 3.012\n", encoding="utf-8")
    script = code / "scripts" / "01-demo" / "01_price.py"
    script.parent.mkdir(parents=True)
    script.write_text("import sys, uuid\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).parents[2]))\n"
                      "import shoppkg\nprint('price', shoppkg.PRICE)\nprint('token', uuid.uuid4().hex)\n",
                      encoding="utf-8")

    def session():
        """What a new pytest session reads: a new ScriptRuns over the same cache folder."""
        return ScriptRuns([script], lambda _script: Path(tempfile.mkdtemp(dir=tmp_path)),
                          ScriptRunCache(store, code)).of(script)

    first = session()
    assert first.returncode == 0 and "price 3.012" in first.stdout, first.stderr
    assert session().stdout == first.stdout  # kept: not run again
    # Another length too: Python would take a same-sized edit within the second for its cached bytecode.
    package.write_text("PRICE = 3.0131\n", encoding="utf-8")
    edited = session()
    assert "price 3.0131" in edited.stdout and edited.stdout != first.stdout  # code/ changed: run again
    assert session().stdout == edited.stdout
    script.write_text(script.read_text(encoding="utf-8") + "print('more')\n", encoding="utf-8")
    again = session()
    assert again.stdout.endswith("more\n") and again.stdout != edited.stdout  # the script changed
    cache = ScriptRunCache(store, code)
    key = cache.key(script)
    cache.__dict__["_inputs"] = {**cache._inputs, "distributions": [["torch", "0.0.1"]]}
    assert cache.key(script) != key  # another interpreter's packages (an upgrade): another key
    # A damaged entry (its output edited in place) runs again, with a warning naming it.
    entry = ScriptRunCache(store, code)._path(script, key)
    entry.write_text(entry.read_text(encoding="utf-8").replace("3.0131", "3.0141"), encoding="utf-8")
    repaired = session()
    assert "price 3.0131" in repaired.stdout and repaired.stdout != again.stdout
    assert f"{entry}: discarded a damaged script run" in capsys.readouterr().err
    # A kept run is checked like a fresh one: numbers rounded otherwise than the lecture's fail.
    kept = session()
    assert kept.stdout == repaired.stdout
    assert disagreements(kept.stdout, {skeleton("price 3.012"): ["price 3.012"]})
    # A failing run is never kept.
    package.write_text("raise SystemExit(3)\n", encoding="utf-8")
    assert session().returncode == 3
    assert ScriptRunCache(store, code).load(script) is None

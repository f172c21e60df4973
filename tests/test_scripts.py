"""The scripts students download print what the handout shows. Every script under code/scripts (found
recursively, wherever it sits) runs on its own; each printed line that reports the same quantity as a
line of any lecture's executed outputs (same words, same count of numbers, values within rounding)
must print it identically — a script that rounds 3.0125 to 3.013 while the handout shows 3.012 fails.
Each script runs once per session (helpers.ScriptRuns), its run shared with test_bazarghar and the
lecture's facts (test_facts.py)."""
import ast
import json
import os
import re
import tempfile
from pathlib import Path

import pytest

from helpers import LECTURES, STUDENT_SCRIPTS as SCRIPTS, LectureCodeZips, ScriptRunCache, ScriptRuns, script_id

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


def test_a_script_runs_from_its_lectures_code_zip(tmp_path):
    """With the lecture's code zip (helpers.LectureCodeZips) what runs is the zip's copy of the
    script, importing the zip's package, not code/'s; a zip with other bytes runs it again (the
    cache's key holds them); a zip without the script fails naming it."""
    from lecturekit.course.site.code_zip import code_zip_bytes
    code, output, store = tmp_path / "code", tmp_path / "_output", tmp_path / "_build" / "script-runs"
    finder = "next(p for p in Path(__file__).resolve().parents if (p / 'shoppkg').is_dir())"
    script_text = f"import sys\nfrom pathlib import Path\nsys.path.insert(0, str({finder}))\n" \
                  "import shoppkg\nprint('price', shoppkg.PRICE)\n"
    (code / "shoppkg").mkdir(parents=True)
    (code / "shoppkg" / "__init__.py").write_text("PRICE = 3.012\n", encoding="utf-8")
    script = code / "scripts" / "01-demo" / "01_price.py"
    script.parent.mkdir(parents=True)
    script.write_text(script_text, encoding="utf-8")
    zip_path = output / "01-demo" / "code.zip"
    zip_path.parent.mkdir(parents=True)

    def publish(files):
        zip_path.write_bytes(code_zip_bytes(sorted(files.items()), "01-demo")[0])

    def session():
        zips = LectureCodeZips(output, lambda lecture: Path(tempfile.mkdtemp(dir=tmp_path)))
        return ScriptRuns([script], lambda _script: Path(tempfile.mkdtemp(dir=tmp_path)),
                          ScriptRunCache(store, code, zips), zips=zips).of(script)

    publish({"scripts/01_price.py": script_text.encode(), "shoppkg/__init__.py": b"PRICE = 4.5\n"})
    first = session()
    assert (first.returncode, first.stdout, first.script) == (0, "price 4.5\n", script), first.stderr
    publish({"scripts/01_price.py": script_text.encode(), "shoppkg/__init__.py": b"PRICE = 4.75\n"})
    assert session().stdout == "price 4.75\n"  # code/ as it was, the zip another: run again
    publish({"shoppkg/__init__.py": b"PRICE = 4.75\n"})
    with pytest.raises(AssertionError, match="holds no 01-demo/scripts/01_price.py"):
        session()


# ---- the script server's fork is a fresh interpreter's run -----------------------------------------

# A script that shows what `python script.py` sets up, and each way it can end (its first argument).
PROBE = '''\
"""The probe."""
import atexit, os, pickle, random, sys, threading
from pathlib import Path
import numpy

class Basket:
    pass

def sell(what):
    raise ValueError(f"no {what} in stock")

print("globals", sorted(globals()), __loader__.__class__.__name__, __spec__, __cached__)
print("argv", sys.argv[1:], sys.argv[0] == __file__, __name__)
print("cwd", os.getcwd())
print("path", sys.path)
print("course modules", sorted(m for m, mod in list(sys.modules.items())
                               if str(getattr(mod, "__file__", None) or "").startswith(sys.argv[2])))
print("stdin", repr(sys.stdin.read()), "stdout", sys.stdout.line_buffering, sys.stdout.encoding)
print("threads", threading.active_count(), "pickled", pickle.loads(pickle.dumps(Basket())).__class__.__module__)
print("seeds", random.random(), numpy.random.random(), file=open("seeds.txt", "w"))
sys.stdout.flush()
os.write(1, "C-level স্টক\\n".encode())
os.write(2, b"C-level warning\\n")
print("to stderr", file=sys.stderr)
Path("left.txt").write_text("x")
unflushed = open("unflushed.txt", "w")
unflushed.write("written when the interpreter shuts down")
atexit.register(print, "atexit ran")
print("no newline at the end", end="")
mode = sys.argv[1]
if mode == "raise":
    sell("rice")
if mode == "exit3":
    sys.exit(3)
if mode == "exitmsg":
    sys.exit("out of stock")
'''


@pytest.fixture(scope="module")
def server():
    """A script server like the suite's (helpers.script_server), here also holding numpy's global
    generator before it forks (which a fork would copy unless reseeded)."""
    from helpers import PYTHON, ROOT, student_env
    from script_server import ScriptServer, third_party_imports
    modules = sorted({*third_party_imports(SCRIPTS, ROOT / "code"), "numpy.random"})
    started = ScriptServer(PYTHON, student_env(), modules, ROOT / "code")
    yield started
    started.close()


def path_apart(stdout: str) -> tuple[list, str]:
    """The probe's `path` line read back as the list it printed, and the rest of its stdout."""
    lines = stdout.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("path "))
    return ast.literal_eval(lines[at].removeprefix("path ")), "".join(lines[:at] + lines[at + 1:])


def both_runs(script, tmp_path, server, *args):
    """The script run by a fresh interpreter and by the server, each from the same empty folder (set
    aside after the first), with the files each left read back."""
    from helpers import run_student_script
    runs = []
    folder = tmp_path / "run"
    for name, through in (("fresh", None), ("forked", server)):
        folder.mkdir()
        run = run_student_script(script, folder, *args, server=through)
        files = {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()}
        folder.rename(tmp_path / name)
        runs.append((run, files))
    return runs


@pytest.mark.parametrize("mode", ["ok", "raise", "exit3", "exitmsg"])
def test_a_forked_run_is_a_fresh_interpreters_run(mode, tmp_path, server):
    """The probe, each way it can end: the same exit status, stdout and stderr (the traceback, the
    exit message, C-level writes, the atexit print), the same sys.argv, sys.path (but for the
    venv's code/ entry), __main__, working folder, stdin and buffering, no course module imported
    before the script's own import, the same files left (one written only by the interpreter's
    shutdown); and random generators seeded anew."""
    script = tmp_path / "scripts" / "probe.py"
    script.parent.mkdir()
    script.write_text(PROBE, encoding="utf-8")
    from helpers import ROOT, run_student_script
    args = (mode, str(ROOT / "code"))
    (fresh, fresh_files), (forked, forked_files) = both_runs(script, tmp_path, server, *args)
    assert "argv" in fresh.stdout and fresh.returncode == {"ok": 0, "raise": 1, "exit3": 3, "exitmsg": 1}[mode]
    # The fresh interpreter is the project venv's, whose lecture-code.pth puts code/ on sys.path (for
    # Quarto's kernel); a student's Python has no such entry, and the forked run has none either:
    # that one entry apart, the same sys.path.
    (fresh_path, fresh_rest), (forked_path, forked_rest) = path_apart(fresh.stdout), path_apart(forked.stdout)
    of_code = [entry for entry in fresh_path if os.path.realpath(entry) == os.path.realpath(ROOT / "code")]
    assert of_code, f"the fresh interpreter's sys.path has no code/ (the venv's lecture-code.pth): {fresh_path}"
    assert forked_path == [entry for entry in fresh_path if entry not in of_code]
    assert (forked.returncode, forked_rest, forked.stderr, forked.left) == \
        (fresh.returncode, fresh_rest, fresh.stderr, fresh.left)
    seeds, _ = forked_files.pop("seeds.txt").split()[1:], fresh_files.pop("seeds.txt")
    assert forked_files == fresh_files and "unflushed.txt" in fresh_files
    # Each forked run draws other numbers, Python's and numpy's, as each fresh interpreter does.
    again = tmp_path / "run"
    again.mkdir()
    run_student_script(script, again, *args, server=server)
    python_draw, numpy_draw = (again / "seeds.txt").read_text(encoding="utf-8").split()[1:]
    assert python_draw != seeds[0] and numpy_draw != seeds[1]


def test_a_syntax_error_is_reported_as_the_interpreter_reports_it(tmp_path, server):
    script = tmp_path / "scripts" / "broken.py"
    script.parent.mkdir()
    script.write_text("print('never')\ndef sell(:\n", encoding="utf-8")
    (fresh, _), (forked, _) = both_runs(script, tmp_path, server)
    assert fresh.returncode == 1 and "SyntaxError" in fresh.stderr
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_a_real_script_forked_prints_what_a_fresh_interpreter_prints(tmp_path, server):
    """One student script as a student runs it (`python script.py` from an empty folder, a fresh
    interpreter) and forked by the server: the same run, to the byte. This one trains with torch
    and starts DataLoader worker processes (forked in turn from the forked script)."""
    script = next(s for s in SCRIPTS if s.name == "15_loader_rng.py")
    (fresh, _), (forked, _) = both_runs(script, tmp_path, server)
    assert fresh.returncode == 0 and fresh.stdout.strip(), fresh.stderr
    assert forked == fresh  # exit status, stdout, stderr, the files left and what they hold

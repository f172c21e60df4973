"""`scripts/plan` on a generated course: the lectures whose execution key has no entry in the cache it
is given, the render's own key, read as the render reads it.

One lecture's code, one lecture's prose and the torch version change: the code change is planned
(and is exactly what the render then executes), the prose change is not, and a torch the
interpreter reports differently (a dist-info earlier on its path: what an upgrade changes, read where
the key reads it) plans every lecture."""
import json
import os
import re
import subprocess

import pytest

from helpers import BIN, copy_project, run_kit, run_render

NAMES = ["01-synthetic", "02-synthetic", "03-synthetic"]


def plan(project, *args, env=None, ok=True):
    run = run_kit("lecture-plan", project, *args, env=env)
    if not ok:
        return run
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("\n") == 1, run.stdout  # one line: a CI output takes it as it is
    return json.loads(run.stdout)


def planned(found):
    return [entry["name"] for entry in found["execute"]]


@pytest.fixture
def course(generated_course, tmp_path):
    """A copy of the rendered course, with its cache, products and expectations."""
    return copy_project(generated_course, tmp_path / "course")


def fake_torch(folder, version):
    """An installed torch as the interpreter reports it (importlib.metadata), first on its path."""
    info = folder / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n", encoding="utf-8")
    return folder


def test_after_a_render_nothing_is_planned_and_every_key_names_its_entry(course):
    found = plan(course)
    assert found["count"] == 0 and found["execute"] == [] and found["total"] == 3
    assert [entry["name"] for entry in found["lectures"]] == NAMES
    for entry in found["lectures"]:
        assert re.fullmatch(r"[0-9a-f]{64}", entry["key"]) and entry["execute"] is False
        assert entry["cache-key"] == f"execution-{entry['name']}-{entry['key']}"
        # The key is the render's: its cache entry is stored under it.
        assert (course / "_build" / "cache" / entry["name"] / f"{entry['key'][:32]}.json").is_file()
    assert found["cache"] == "_build/cache" and found["versions"]["torch"] and found["machine"]["cpu"]


def test_code_prose_and_torch_changes(course, tmp_path):
    before = {entry["name"]: entry["key"] for entry in plan(course)["lectures"]}
    one = course / "lectures" / "01-synthetic" / "index.qmd"
    one.write_text(one.read_text(encoding="utf-8").replace("range(8)", "range(9)"), encoding="utf-8")
    two = course / "lectures" / "02-synthetic" / "index.qmd"
    two.write_text(two.read_text(encoding="utf-8").replace("ছোট একটি", "একটি ছোট"), encoding="utf-8")

    found = plan(course)
    assert planned(found) == ["01-synthetic"], found["execute"]
    keys = {entry["name"]: entry["key"] for entry in found["lectures"]}
    assert keys["01-synthetic"] != before["01-synthetic"]
    assert keys["02-synthetic"] == before["02-synthetic"]  # prose is not in the key

    # Another torch, as the interpreter that runs the kernels reports it: every lecture re-executes.
    upgraded = plan(course, env={"PYTHONPATH": str(fake_torch(tmp_path / "site", "9.1.0+cpu"))})
    assert upgraded["versions"]["torch"] == "9.1.0+cpu"
    assert planned(upgraded) == NAMES
    assert all(entry["key"] != keys[entry["name"]] for entry in upgraded["execute"])

    # What the plan said is what the render does: it executes exactly the planned lecture (whose new
    # output the author accepts), and the prose change only rewrites its products from the cache.
    timings = tmp_path / "timings.json"
    run = run_render(course, "--quiet", "--accept", "--timings", str(timings))
    assert run.returncode == 0, run.stderr
    results = {r["name"]: r for r in json.loads(timings.read_text())["lectures"]}
    assert [name for name in NAMES if results[name]["executed"]] == ["01-synthetic"]
    assert results["02-synthetic"]["written"] and not results["03-synthetic"]["written"]
    assert plan(course)["count"] == 0


def test_a_change_under_code_plans_every_lecture(course):
    package = course / "code" / "minipkg" / "__init__.py"
    package.write_text(package.read_text(encoding="utf-8") + "\n# a comment is a change too\n", encoding="utf-8")
    assert planned(plan(course)) == NAMES


def test_the_cache_it_is_given(course, tmp_path):
    packed = run_kit("lecture-gather", course, "pack", "--to", str(tmp_path / "products"))
    assert packed.returncode == 0, packed.stderr
    given = tmp_path / "products" / "_build" / "cache"
    assert plan(course, "--cache", str(given))["count"] == 0
    # Relative to where the command is run; an empty or missing folder plans everything.
    assert plan(course, "--cache", "products/_build/cache", env={"LECTUREKIT_CWD": str(tmp_path)})["count"] == 0
    assert planned(plan(course, "--cache", str(tmp_path / "nothing"))) == NAMES
    # A damaged entry is no entry (as a render would discard it, with its warning).
    entry = next((given / "02-synthetic").glob("*.json"))
    entry.write_bytes(entry.read_bytes()[:-20])
    run = plan(course, "--cache", str(given), ok=False)
    assert run.returncode == 0 and "discarded a damaged cache entry" in run.stderr
    assert planned(json.loads(run.stdout)) == ["02-synthetic"]
    # Named lectures only.
    only = plan(course, "03-synthetic", "--cache", str(tmp_path / "nothing"))
    assert planned(only) == ["03-synthetic"] and only["total"] == 1


def test_what_is_no_entry_in_the_cache_it_is_given_is_discarded_at_once(course, tmp_path):
    """A folder given with --cache comes from elsewhere: a named pipe where an entry should be (a read
    would wait for a writer forever), an entry that is a link (here to a valid entry: what a link
    points at is never read) and a lecture's folder that is a link are no entries. Each is named in
    one warning and its lecture planned, at once; the entry a linked folder leads to stays."""
    assert run_kit("lecture-gather", course, "pack", "--to", str(tmp_path / "products")).returncode == 0
    given = tmp_path / "products" / "_build" / "cache"
    pipe = next((given / "01-synthetic").glob("*.json"))
    pipe.unlink()
    os.mkfifo(pipe)
    link = next((given / "02-synthetic").glob("*.json"))
    link.rename(tmp_path / "elsewhere.json")
    link.symlink_to(tmp_path / "elsewhere.json")
    (given / "03-synthetic").rename(tmp_path / "03-elsewhere")
    (given / "03-synthetic").symlink_to(tmp_path / "03-elsewhere")
    run = subprocess.run([str(BIN / "lecture-plan"), "--cache", str(given)], cwd=course,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert planned(json.loads(run.stdout)) == NAMES
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 3, run.stderr
    for warning, why in zip(warnings, ["not a regular file", "a symbolic link", "03-synthetic/ is a symbolic link"]):
        assert "discarded a damaged cache entry" in warning and why in warning, warning
    assert "Traceback" not in run.stderr
    assert list((tmp_path / "03-elsewhere").glob("*.json")), "removed through the linked folder"


def test_a_lecture_that_cannot_be_read_is_planned_with_its_error_and_a_bad_name_stops_the_plan(course):
    index = course / "lectures" / "03-synthetic" / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8").replace("title:", "title: [unclosed", 1), encoding="utf-8")
    run = plan(course, ok=False)
    assert run.returncode == 0, run.stderr
    broken = json.loads(run.stdout)["execute"]
    assert [entry["name"] for entry in broken] == ["03-synthetic"]
    assert broken[0]["key"] is None and broken[0]["cache-key"] == "execution-03-synthetic-unreadable"
    assert "lectures/03-synthetic/index.qmd" in broken[0]["error"] and "cannot be read" in run.stderr

    bad = course / "lectures" / "$(touch x)"
    bad.mkdir()
    (bad / "index.qmd").write_text("---\ntitle: x\n---\n", encoding="utf-8")
    run = plan(course, ok=False)
    assert run.returncode == 1 and run.stdout == ""
    assert "lecture folder name '$(touch x)' is not allowed" in run.stderr

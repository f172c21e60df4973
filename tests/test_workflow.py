"""The course's GitHub Actions workflow (`.github/`, docs/ci.md): it lints clean under actionlint (with
ShellCheck on its scripts) and zizmor, each linter fails a workflow broken the way it guards against,
and the commands its jobs run do what the jobs rely on: the plan's fields, products folders packed
by one job and unpacked by another into the site, the check's Markdown summary.

GitHub Actions cannot run here: what runs there is proven by its linters and by these commands."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers import BIN, ROOT, copy_project, run_check, run_kit, run_render
from lecturekit.check.markdown_report import code, fenced

WORKFLOW = ROOT / ".github" / "workflows" / "course.yml"
NAMES = ["01-synthetic", "02-synthetic", "03-synthetic"]


def lint(repo: Path) -> dict[str, subprocess.CompletedProcess]:
    """Both linters on a repository's `.github/`, ShellCheck on PATH for actionlint."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return {
        "actionlint": subprocess.run([str(BIN / "actionlint"), "-verbose", "-no-color", ".github/workflows/course.yml"],
                                     cwd=repo, env=env, capture_output=True, text=True, timeout=120),
        "zizmor": subprocess.run([str(BIN / "zizmor"), "--offline", "--no-progress", "--color", "never", ".github"],
                                 cwd=repo, env=env, capture_output=True, text=True, timeout=120),
    }


def test_the_workflow_lints_clean():
    found = lint(ROOT)
    actionlint, zizmor = found["actionlint"], found["zizmor"]
    assert actionlint.returncode == 0, actionlint.stdout + actionlint.stderr
    assert "Linting .github/workflows/course.yml" in actionlint.stderr  # it read the workflow …
    assert 'Rule "shellcheck" was disabled' not in actionlint.stderr  # … with ShellCheck on its scripts
    assert zizmor.returncode == 0, zizmor.stdout + zizmor.stderr
    assert "No findings to report" in zizmor.stdout
    for audited in (".github/workflows/course.yml", ".github/actions/setup/action.yml"):
        assert f"completed {audited}" in zizmor.stderr, zizmor.stderr


# (what is broken, the text replaced, its replacement, the linter that must fail, what it must name)
BREAKAGES = [
    ("an action by tag", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2",
     "actions/checkout@v4", "zizmor", "unpinned-uses"),
    ("a pull request's title in a script", 'scripts/plan --cache course-cache/_build/cache > plan.json',
     'echo "${{ github.event.pull_request.title }}" > plan.json', "zizmor", "template-injection"),
    ("every permission for a job", "    permissions:\n      contents: read\n", "    permissions: write-all\n",
     "zizmor", "excessive-permissions"),
    ("credentials left in the checkout", "        with:\n          persist-credentials: false\n", "",
     "zizmor", "artipacked"),
    ("a trigger that runs a fork's code with secrets", "  pull_request:\n", "  pull_request_target:\n",
     "zizmor", "dangerous-triggers"),
    ("an output that does not exist", "fromJSON(needs.plan.outputs.plan).execute",
     "fromJSON(needs.plan.outputs.plans).execute", "actionlint", 'property "plans" is not defined'),
    ("a runner that does not exist", "runs-on: ubuntu-24.04", "runs-on: ubuntu-24.4", "actionlint", "ubuntu-24.4"),
    ("an unquoted variable", 'scripts/render "$LECTURE" --no-index', "scripts/render $LECTURE --no-index",
     "actionlint", "SC2086"),
]


@pytest.mark.parametrize("what, old, new, linter, named", BREAKAGES, ids=[b[0] for b in BREAKAGES])
def test_a_broken_workflow_fails_its_linter(tmp_path, what, old, new, linter, named):
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / ".github", repo / ".github")
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text, f"the workflow no longer has {old!r}: update this breakage"
    (repo / ".github" / "workflows" / "course.yml").write_text(text.replace(old, new, 1), encoding="utf-8")
    run = lint(repo)[linter]
    assert run.returncode != 0, f"{linter} passed a workflow with {what}:\n{run.stdout}{run.stderr}"
    assert named in run.stdout + run.stderr, run.stdout + run.stderr


def test_every_action_is_pinned_by_commit_and_every_job_has_its_own_permissions():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    action = yaml.safe_load((ROOT / ".github" / "actions" / "setup" / "action.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]] + action["runs"]["steps"]
    for uses in (step["uses"] for step in steps if "uses" in step):
        assert uses.startswith("$/") or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses
    assert workflow["permissions"] == {}
    assert all("permissions" in job for job in workflow["jobs"].values())
    writes = {name: job["permissions"] for name, job in workflow["jobs"].items()
              if "write" in job["permissions"].values()}
    assert writes == {"deploy": {"pages": "write", "id-token": "write"}}


def test_the_workflow_reads_what_the_plan_prints(generated_course):
    """Every plan field and command the workflow names exists, as the workflow spells it."""
    text = WORKFLOW.read_text(encoding="utf-8")
    for command in sorted(set(re.findall(r"scripts/([a-z-]+)", text))):
        assert os.access(ROOT / "scripts" / command, os.X_OK), command
    run = run_kit("lecture-plan", generated_course, "--cache", "/nonexistent")
    found = json.loads(run.stdout)
    for field in set(re.findall(r"fromJSON\(needs\.plan\.outputs\.plan\)\.(\w+)", text)):
        assert field in found, field
    assert found["count"] == 3 and all("name" in entry for entry in found["execute"])  # matrix.name
    # jq's path in the lecture job: the one lecture's cache key.
    for path in re.findall(r"jq -r '([^']+)'", text):
        assert path == '.lectures[0]["cache-key"]' and found["lectures"][0]["cache-key"].startswith("execution-")


def test_products_folders_are_gathered_into_the_site(generated_course, tmp_path):
    """Two lecture jobs (their executions restored by key) render and pack their lectures; the site
    job unpacks both, and its render executes nothing and writes every lecture's products itself
    (the same bytes as the jobs wrote); a prose edit there rewrites that lecture's products only; the
    course packed again (the next build's cache) leaves its plan nothing to execute."""
    jobs = {"a": ["01-synthetic", "02-synthetic"], "b": ["03-synthetic"]}
    for job, names in jobs.items():
        project = copy_project(generated_course, tmp_path / job, built=False)  # a fresh checkout
        for name in names:  # actions/cache restoring the lecture's execution by its key
            shutil.copytree(generated_course / "_build" / "cache" / name, project / "_build" / "cache" / name)
        run = run_render(project, *names, "--no-index", "--quiet")
        assert run.returncode == 0, run.stderr
        packed = run_kit("lecture-gather", project, "pack", *names, "--to", str(tmp_path / f"products-{job}"))
        assert packed.returncode == 0, packed.stderr
        assert packed.stdout.count(": 1 execution(s)") == len(names), packed.stdout

    site = copy_project(generated_course, tmp_path / "site", built=False)
    placed = run_kit("lecture-gather", site, "unpack", str(tmp_path / "products-a"), str(tmp_path / "products-b"))
    assert placed.returncode == 0, placed.stderr
    assert all(f"[{name}] placed" in placed.stdout for name in NAMES), placed.stdout

    def render_site(project):
        timings = tmp_path / "timings.json"
        run = run_render(project, "--quiet", "--timings", str(timings))
        assert run.returncode == 0, run.stderr
        return {r["name"]: r for r in json.loads(timings.read_text())["lectures"]}

    results = render_site(site)
    assert not any(r["executed"] for r in results.values()) and all(r["written"] for r in results.values()), results
    page = (site / "_output" / "index.html").read_text(encoding="utf-8")
    for name in NAMES:
        assert f'href="{name}/slides.html"' in page and f'href="{name}/handout.pdf"' in page
    assert (site / "_output" / "03-synthetic" / "slides.html").read_bytes() == \
        (tmp_path / "b" / "_output" / "03-synthetic" / "slides.html").read_bytes()

    two = site / "lectures" / "02-synthetic" / "index.qmd"
    two.write_text(two.read_text(encoding="utf-8").replace("ছোট একটি", "একটি ছোট"), encoding="utf-8")
    results = render_site(site)
    assert [name for name in NAMES if results[name]["written"]] == ["02-synthetic"]
    assert not any(r["executed"] for r in results.values())

    packed = run_kit("lecture-gather", site, "pack", "--to", str(tmp_path / "course-cache"))
    assert packed.returncode == 0, packed.stderr
    later = copy_project(site, tmp_path / "later", built=False)
    plan = run_kit("lecture-plan", later, "--cache", str(tmp_path / "course-cache" / "_build" / "cache"))
    assert plan.returncode == 0 and json.loads(plan.stdout)["count"] == 0, plan.stderr


def test_unpack_takes_only_verified_executions(generated_course, tmp_path):
    """What crosses machines is executions: a folder's products and their manifest are never placed
    (a `slides.html` holding a script, recorded as written from this very execution, never reaches
    the site: its render writes the deck itself); an entry that is a link, a pipe, or a record outside
    its schema (with a valid digest) is named in one warning and not placed; names outside the lecture
    rule, files that are no cache entry and a lecture the project does not have stay where they are."""
    folder = tmp_path / "products"
    assert run_kit("lecture-gather", generated_course, "pack", "01-synthetic", "02-synthetic", "03-synthetic",
                   "--to", str(folder)).returncode == 0
    # What an older products folder carried, planted: the deck, the manifest recording it as current.
    for name in ("_build/01-synthetic/products.json", "_output/01-synthetic/slides.html"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(generated_course / name, folder / name)
    planted = folder / "_output" / "01-synthetic" / "slides.html"
    planted.write_text(planted.read_text(encoding="utf-8").replace("</body>", "<script>alert(1)</script></body>"))
    cache = folder / "_build" / "cache"
    (cache / "..evil").mkdir()
    (cache / "01-synthetic" / "notes.txt").write_text("x")
    (cache / "99-elsewhere").mkdir()
    two = next((cache / "02-synthetic").glob("*.json"))  # a record outside its schema, its digest valid
    stored = json.loads(two.read_text(encoding="utf-8"))
    stored["record"]["environment"]["executed_at"] = "yesterday"
    from lecturekit.execute.cache import _digest
    two.write_text(json.dumps({"sha256": _digest(stored["record"]), "record": stored["record"]}))
    three = next((cache / "03-synthetic").glob("*.json"))
    three.unlink()
    os.mkfifo(three)
    link = cache / "01-synthetic" / ("0" * 32 + ".json")  # to a valid entry: what a link points at is not read
    link.symlink_to(generated_course / "_build" / "cache" / "02-synthetic" / two.name)
    site = copy_project(generated_course, tmp_path / "site", built=False)
    run = subprocess.run([str(BIN / "lecture-gather"), "unpack", str(folder)], cwd=site,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines() == [f"[{name}] placed from {folder}: {n} execution(s)"
                                               for name, n in zip(NAMES, (1, 0, 0))]
    warnings = run.stderr.strip().splitlines()
    assert len(warnings) == 3, run.stderr
    assert link.name in warnings[0] and "not placed: a symbolic link" in warnings[0], warnings
    assert two.name in warnings[1] and "not placed: not an execution record: at environment/executed_at" in warnings[1]
    assert three.name in warnings[2] and "not placed: not a regular file" in warnings[2], warnings
    assert sorted(p.name for p in (site / "_build" / "cache").iterdir()) == ["01-synthetic"]
    assert [p.suffix for p in (site / "_build" / "cache" / "01-synthetic").iterdir()] == [".json"]
    assert not (site / "_output").exists() and not (site / "_build" / "01-synthetic" / "products.json").exists()
    render = run_render(site, "01-synthetic", "--quiet")
    assert render.returncode == 0, render.stderr
    assert "<script>alert(1)</script>" not in (site / "_output" / "01-synthetic" / "slides.html").read_text()
    missing = run_kit("lecture-gather", site, "unpack", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and "no such products folder" in missing.stderr


def test_the_check_posts_what_changed_as_markdown(generated_course, tmp_path):
    """A pull request that changes the course code: the summary names the file and shows each change
    old → new (a prose value, an output's diff), and the accept command."""
    course = copy_project(generated_course, tmp_path / "course")
    package = course / "code" / "minipkg" / "__init__.py"
    package.write_text("ANSWER = 43\n\n\ndef square(x):\n    return x * x + 1\n", encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step's summary\n", encoding="utf-8")
    run = run_check(course, "01-synthetic", "03-synthetic", "--quiet", "--markdown", str(summary))
    assert run.returncode == 1, run.stdout + run.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step's summary\n## Outputs against tests/expected/")  # appended
    assert re.search(r"\| `01-synthetic` \| 0 of 2 \| 0 of 1 \| 0 of 0 \| \*\*changed\*\* \|", text), text
    assert "| DRIFT `আরও › total` | `lectures/01-synthetic/index.qmd:30` |" in text
    assert "Files changed since the outputs were recorded: `code/minipkg/__init__.py`" in text
    assert "| PROSE `{python} ANSWER` | `lectures/01-synthetic/index.qmd:17` | `42` → `43` |" in text
    assert "-[0, 1, 4, 9, 16, 25, 36, 49]\n+[1, 2, 5, 10, 17, 26, 37, 50]" in text  # the output's diff
    assert "scripts/check 01-synthetic 03-synthetic --accept" in text


def test_markdown_shows_any_text_as_code():
    assert code("a | b") == "`a \\| b`"
    assert code("`x`") == "`` `x` ``"
    assert code("<script>alert(1)</script>\nnext") == "`<script>alert(1)</script> next`"
    block = fenced("````\nraw ``` inside")
    assert block[0] == "`````text" and block[-1] == "`````"


def test_the_commands_a_job_types_run_from_anywhere(tmp_path):
    """`scripts/plan` and `scripts/gather` as a job types them: set up, then the project's command,
    a folder given relative to where it was typed."""
    run = subprocess.run([str(ROOT / "scripts" / "plan"), "--cache", "nothing-here"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("\n") == 1, run.stdout  # the setup says nothing on stdout: `> plan.json` is the plan
    found = json.loads(run.stdout)
    assert found["cache"] == str(tmp_path / "nothing-here")
    assert planned_names(found) == sorted(p.parent.name for p in (ROOT / "lectures").glob("*/index.qmd"))
    run = subprocess.run([str(ROOT / "scripts" / "gather"), "unpack", "nothing-here"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1 and f"{tmp_path / 'nothing-here'}: no such products folder" in run.stderr


def planned_names(found):
    return [entry["name"] for entry in found["execute"]]

"""The course's GitHub Actions workflow (`.github/`, docs/ci.md): it lints clean under actionlint (with
ShellCheck on its scripts) and zizmor, each linter fails a workflow broken the way it guards against,
and the commands its jobs run do what the jobs rely on: the plan's fields, products folders packed
by one job and unpacked by another into the site, the check's Markdown summary.

The workflow itself runs here on a real engine, nektos/act: its jobs on this machine, on a generated
course, its remote actions replaced by stand-ins (tests/act/). A pull request, the push to main and a
prose edit run plan → lecture (the matrix) → check / site → deploy, and what each job hands on is
asserted; a workflow broken where only a run can tell (a `uses:` GitHub cannot resolve, a job's
`needs`, a matrix or an output nobody sets) fails its run."""
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from helpers import (BIN, NO_QUARTO, REQUIRE_QUARTO, ROOT, copy_project, find_quarto, run_check, run_kit,
                     run_render)
from lecturekit.check.markdown_report import code, fenced

WORKFLOW = ROOT / ".github" / "workflows" / "course.yml"
NAMES = ["01-synthetic", "02-synthetic", "03-synthetic"]
# A remote action pinned by its commit: owner, repository, its folder (when not the root), commit.
REMOTE = re.compile(r"([\w.-]+)/([\w.-]+)(/[\w./-]+)?@([0-9a-f]{40})")


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
    ("an unquoted variable", 'scripts/render "$LECTURE" --execute-only', "scripts/render $LECTURE --execute-only",
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
    """A remote action by its commit; the local action by its path in the repository (GitHub's forms
    of `uses:` are `{owner}/{repo}[/{path}]@{ref}`, `./{path}` and `docker://{image}`), after the
    checkout that puts it in the workspace."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    action = yaml.safe_load((ROOT / ".github" / "actions" / "setup" / "action.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]] + action["runs"]["steps"]
    for uses in (step["uses"] for step in steps if "uses" in step):
        assert uses == "./.github/actions/setup" or REMOTE.fullmatch(uses), uses
    for name, job in workflow["jobs"].items():
        uses = [step.get("uses", "").partition("@")[0] for step in job["steps"]]
        if "./.github/actions/setup" in uses:
            assert uses.index("actions/checkout") < uses.index("./.github/actions/setup"), name
    assert workflow["permissions"] == {}
    assert all("permissions" in job for job in workflow["jobs"].values())
    writes = {name: job["permissions"] for name, job in workflow["jobs"].items()
              if "write" in job["permissions"].values()}
    assert writes == {"deploy": {"pages": "write", "id-token": "write"}}


def test_a_missing_quarto_fails_where_quarto_is_expected(tmp_path):
    """The job that runs the Quarto tests (the suite: no lecture's shard holds one) installs Quarto
    and sets REQUIRE_QUARTO, as .ci/run does; under it a Quarto test without a Quarto fails, naming
    what is missing, whether its mark skipped it (setup) or the test itself (call); without it both
    are skipped."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    [suite] = [job for job in workflow["jobs"].values()
               if any("scripts/test --fixed" in step.get("run", "") for step in job["steps"])]
    assert suite["env"][REQUIRE_QUARTO] == "1"
    assert any(step.get("uses", "").startswith("quarto-dev/quarto-actions/setup@") for step in suite["steps"])
    assert re.search(rf"^export {REQUIRE_QUARTO}=1$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)

    path = [folder for folder in os.environ["PATH"].split(os.pathsep) if not shutil.which("quarto", path=folder)]
    without = {name: value for name, value in os.environ.items() if name not in ("QUARTO", REQUIRE_QUARTO)}
    without["PATH"] = os.pathsep.join(path)
    tests = ["tests/test_bad_input.py::test_batch[quarto: one revealjs option-quarto]",
             "tests/test_bad_input.py::test_quarto_render_of_the_source_alone[svg slash onload]"]

    def run_tests(env):
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfEs", *tests],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)

    required = run_tests({**without, REQUIRE_QUARTO: "1"})
    assert required.returncode == 1, required.stdout + required.stderr
    assert "1 failed, 1 error" in required.stdout, required.stdout
    message = f"{REQUIRE_QUARTO} is set: this run needs the Quarto CLI and found none (no `quarto` on PATH)"
    # The message in each test's section, and again in the summary lines (whole under CI, cut to the
    # terminal's width elsewhere).
    assert re.search(rf"^ERROR {re.escape(tests[0])}", required.stdout, re.M), required.stdout
    assert re.search(rf"^FAILED {re.escape(tests[1])}", required.stdout, re.M), required.stdout
    assert required.stdout.count(message) >= 2, required.stdout
    skipped = run_tests(without)
    assert skipped.returncode == 0 and "2 skipped" in skipped.stdout, skipped.stdout + skipped.stderr
    assert skipped.stdout.count(NO_QUARTO) == 2, skipped.stdout


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


# ---- the workflow run by a real engine: nektos/act -------------------------------------------------
#
# act runs the workflow's jobs on this machine (`-P ubuntu-24.04=-self-hosted`, each job in a
# workspace of its own) from a test copy without the `container:` lines (there is no Docker here),
# on a git repository of the generated course with this project's scripts and `.github/`. Every
# remote action is replaced by its stand-in under tests/act/ (`--local-repository`): a checkout that
# lays out the commit's files, caches and artifacts kept in folders of the test, a Pages deploy that
# copies the site, a Quarto setup that puts this machine's Quarto on the job's PATH. act runs with no network at all (a network namespace of its own), so nothing it
# does can need one. Its JSON log says which jobs ran and how they ended, every output each step set
# and the job summaries.

ACT = BIN / "act"
STANDINS = ROOT / "tests" / "act"
RUNNER = "ubuntu-24.04"
QUARTO = find_quarto()  # what the Quarto setup's stand-in installs


def remote_actions() -> set[tuple[str, str, str]]:
    """(owner, repository, commit) of every remote action the workflow and its local actions use."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    for action in (ROOT / ".github" / "actions").glob("*/action.yml"):
        steps += yaml.safe_load(action.read_text(encoding="utf-8"))["runs"]["steps"]
    found = (REMOTE.fullmatch(step.get("uses", "")) for step in steps)
    return {(match[1], match[2], match[4]) for match in found if match}


def on_this_machine(text: str) -> str:
    """The workflow as act runs it here: the jobs on the host, not in `debian:12`."""
    jobs = yaml.safe_load(text)["jobs"]
    containers = sum("container" in job for job in jobs.values())
    assert containers and text.count("    container: debian:12\n") == containers, "update on_this_machine"
    assert all(job["runs-on"] == RUNNER for job in jobs.values()), f"act maps {RUNNER} to this machine"
    return text.replace("    container: debian:12\n", "")


def git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *identity, *args],
                          cwd=repo, check=True, capture_output=True, text=True).stdout


def workflow_repository(generated_course: Path, folder: Path) -> Path:
    """A git repository (branch main) of the generated course with this project's scripts and
    `.github/` (the workflow as act runs it here). Its venv and npm packages are links to this
    checkout's: what `scripts/setup` finds installed, so each job's setup installs nothing."""
    repo = copy_project(generated_course, folder, built=False)
    shutil.copytree(ROOT / "scripts", repo / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json", ".gitignore"):
        shutil.copy(ROOT / name, repo / name)
    (repo / ".venv").symlink_to(ROOT / ".venv")
    shutil.copytree(ROOT / ".github", repo / ".github")
    (repo / ".github" / "workflows" / "course.yml").write_text(
        on_this_machine(WORKFLOW.read_text(encoding="utf-8")), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the course")
    return repo


@dataclass
class ActRun:
    """One act run: its exit code, its JSON log (and all it printed), the folder its stand-ins wrote
    (artifacts/, apt-get.log, quarto.log, deployed/), the caches' folder and the keys it held after the run, and
    the commit that ran."""
    returncode: int
    log: list[dict]
    text: str
    folder: Path
    caches: Path
    keys: list[str]
    commit: str

    def results(self) -> dict[str, str]:
        """{job: result} of every job that ran; a matrix job as `job/name`."""
        return {instance(line): line["jobResult"] for line in self.log if "jobResult" in line}

    def outputs(self) -> dict[str, dict[tuple[str, str], str]]:
        """{job: {(step id, output): value}} of what the workflow's own steps set (not the steps
        inside an action)."""
        found: dict[str, dict[tuple[str, str], str]] = {}
        for line in self.log:
            if line.get("command") == "set-output" and len(line.get("stepID", [])) == 1:
                found.setdefault(instance(line), {})[(line["stepID"][0], line["name"])] = line["arg"]
        return found

    def printed(self, job: str, step: str) -> str:
        """What a step printed."""
        return "".join(line["msg"] for line in self.log
                       if line.get("raw_output") and instance(line) == job and line.get("step") == step)

    def summary(self, job: str) -> str:
        return "".join(line["content"] for line in self.log
                       if line.get("command") == "summary" and instance(line) == job)

    @property
    def artifacts(self) -> Path:
        return self.folder / "artifacts"


def instance(line: dict) -> str:
    name = line.get("matrix", {}).get("name")
    return f"{line['jobID']}/{name}" if name else line["jobID"]


def act(repo: Path, event: str, folder: Path, caches: Path, workflow: Path | None = None) -> ActRun:
    """act runs `workflow` (default: the repository's) for `event` (`pull_request`, or `push` to
    main) with the stand-ins; their caches are kept in `caches` across runs."""
    folder.mkdir(parents=True)
    payload = {"pull_request": {"pull_request": {"number": 1, "head": {"ref": "topic"}, "base": {"ref": "main"}}},
               "push": {"ref": "refs/heads/main"}}[event]
    (folder / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    (folder / "home").mkdir()
    replaced = [f"--local-repository={owner}/{name}@{commit}={STANDINS / name}"
                for owner, name, commit in sorted(remote_actions())]
    standins = {"STANDIN_REPOSITORY": repo, "STANDIN_RUN": folder, "STANDIN_CACHES": caches,
                "STANDIN_QUARTO": os.path.abspath(QUARTO) if QUARTO else "",
                "PATH": f"{STANDINS / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    # No network at all: a network namespace of its own (as root; else in a user namespace).
    offline = ["unshare", "--net"] if os.geteuid() == 0 else ["unshare", "--user", "--map-current-user", "--net"]
    args = [*offline, str(ACT), event, "--eventpath", str(folder / "event.json"),
            "--workflows", str(workflow or repo / ".github" / "workflows" / "course.yml"),
            "--platform", f"{RUNNER}=-self-hosted", "--action-offline-mode", "--pull=false",
            "--no-cache-server", "--no-skip-checkout", "--action-cache-path", str(folder / "act"),
            "--json", *replaced, *(f"--env={name}={value}" for name, value in standins.items())]
    # HOME of its own: no ~/.actrc of whoever runs the suite changes the run.
    run = subprocess.run(args, cwd=repo, env={**os.environ, "HOME": str(folder / "home")},
                         capture_output=True, text=True, timeout=600)
    log = []
    for line in run.stdout.splitlines():
        try:
            log.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return ActRun(run.returncode, log, run.stdout + run.stderr, folder, caches,
                  sorted(p.name for p in caches.iterdir()), git(repo, "rev-parse", "HEAD").strip())


def unset_outputs(workflow: dict, run: ActRun) -> list[str]:
    """Every output the workflow reads (`steps.<id>.outputs.<name>` in a job, `needs.<job>.outputs.<name>`)
    that no step of the run set, in each job (each matrix instance) that ran: an output nobody sets
    reads as '' and passes an `if:` silently."""
    unset = []
    outputs = run.outputs()
    for job_id, job in workflow["jobs"].items():
        text = json.dumps(job)
        for needed, name in sorted(set(re.findall(r"needs\.([\w-]+)\.outputs\.([\w-]+)", text))):
            if name not in workflow["jobs"].get(needed, {}).get("outputs", {}):
                unset.append(f"{job_id}: needs.{needed}.outputs.{name}: {needed} has no such output")
        read = sorted(set(re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", text)))
        for ran in (name for name in run.results() if name.split("/")[0] == job_id):
            unset += [f"{ran}: steps.{step}.outputs.{name} was never set"
                      for step, name in read if (step, name) not in outputs.get(ran, {})]
    return unset


@pytest.fixture(scope="module")
def course_runs(generated_course, tmp_path_factory):
    """The workflow run by act three times on one repository, its caches kept between the runs: a
    pull request, the push of that commit to main, then a pull request that edits one lecture's prose.
    The suite job installs Quarto: the stand-in's is this machine's, without which there is no run."""
    if QUARTO is None:
        pytest.skip(NO_QUARTO)
    folder = tmp_path_factory.mktemp("act")
    repo = workflow_repository(generated_course, folder / "repo")
    caches = folder / "caches"
    caches.mkdir()
    runs = {"pull request": act(repo, "pull_request", folder / "pull-request", caches),
            "main": act(repo, "push", folder / "main", caches)}
    lecture = repo / "lectures" / "02-synthetic" / "index.qmd"
    lecture.write_text(lecture.read_text(encoding="utf-8").replace("ছোট একটি", "একটি ছোট"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a prose edit")
    runs["prose edit"] = act(repo, "pull_request", folder / "prose-edit", caches)
    return runs


RENDER_STEP = {"lecture": "Execute and check it",
               "site": "Write every product from the executions, and the course page"}


def shards():
    """A `tests` job per lecture of the plan (its shard of the suite; the generated course has no
    tests/, so its step is skipped there) and the one `suite` job."""
    return {f"tests/{name}": "success" for name in NAMES}


def test_a_pull_request_plans_executes_checks_and_writes_the_site(course_runs):
    """plan → one lecture job per lecture (the matrix) → check and site: what each job hands on."""
    run = course_runs["pull request"]
    assert run.returncode == 0, run.text[-6000:]
    lectures = {f"lecture/{name}": "success" for name in NAMES}
    assert run.results() == {"plan": "success", **lectures, **shards(), "suite": "success", "check": "success",
                             "site": "success"}  # no deploy
    outputs = run.outputs()
    plan = json.loads(outputs["plan"][("plan", "plan")])
    assert plan["count"] == 3 and planned_names(plan) == NAMES  # nothing cached yet: every lecture
    for entry in plan["execute"]:
        name, key = entry["name"], entry["key"]
        job = outputs[f"lecture/{name}"]
        # The key on the lecture's runner is the planner's (one machine here), restored: none yet.
        assert job[("key", "cache-key")] == entry["cache-key"] and job[("restore", "cache-hit")] == "false"
        assert "1 executed" in run.printed(f"lecture/{name}", RENDER_STEP["lecture"])
        products = run.artifacts / f"products-{name}"
        [execution] = (products / "_build" / "cache" / name).glob("*.json")
        assert key.startswith(execution.stem)  # the entry of the key planned (named by its first digits)
        assert entry["cache-key"] in run.keys  # and saved under it
        assert (run.caches / entry["cache-key"] / "0" / execution.name).read_bytes() == execution.read_bytes()
        assert not (products / "_output").exists()  # executions alone cross machines
    assert not [key for key in run.keys if key.startswith("course-")]  # a pull request saves no course
    for name in NAMES:  # the check, from the lecture jobs' executions: the job summary
        assert re.search(rf"\| `{name}` \| 2 of 2 \| 1 of 1 \| 0 of 0 \| as recorded \|", run.summary("check"))
    # The site: the lecture jobs' executions, placed; its render executes nothing and writes every product.
    assert "3 lecture(s): 0 executed, 3 written, 3 ok" in run.printed("site", RENDER_STEP["site"])
    site = run.artifacts / "github-pages"
    page = (site / "index.html").read_text(encoding="utf-8")
    for name in NAMES:
        assert f'href="{name}/slides.html"' in page and f'href="{name}/handout.pdf"' in page
        assert (site / name / "slides.html").is_file() and (site / name / "handout.pdf").is_file()
    # Every job set up its environment through the local action (its first step: Debian's packages).
    installs = [line for line in (run.folder / "apt-get.log").read_text().splitlines() if " install " in line]
    assert len(installs) == len(run.results())
    # The suite job alone installed Quarto, of the version the workflow asks (the stand-in fails on
    # another), and has it on PATH for the Quarto tests.
    version = subprocess.run([QUARTO, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert (run.folder / "quarto.log").read_text().splitlines() == [f"suite: Quarto {version} from {os.path.abspath(QUARTO)}"]
    assert run.printed("suite", "The Quarto the suite runs").strip() == version


def test_main_restores_the_executions_saves_the_course_and_deploys(course_runs):
    run = course_runs["main"]
    assert run.returncode == 0, run.text[-6000:]
    lectures = {f"lecture/{name}": "success" for name in NAMES}
    assert run.results() == {"plan": "success", **lectures, **shards(), "suite": "success", "site": "success",
                             "deploy": "success"}  # no check
    outputs = run.outputs()
    for name in NAMES:  # the pull request's executions, restored by their keys: no kernel starts
        assert outputs[f"lecture/{name}"][("restore", "cache-hit")] == "true"
        assert "0 executed" in run.printed(f"lecture/{name}", RENDER_STEP["lecture"])
    course = run.caches / f"course-{run.commit}-1"  # the course for the next build (attempt 1) …
    assert course.name in run.keys
    for name in NAMES:  # … a products folder of every lecture: its executions alone
        assert not (course / "0" / "_output").exists()
        assert list((course / "0" / "_build" / "cache" / name).glob("*.json"))
    assert outputs["deploy"][("deployment", "page_url")]
    assert (run.folder / "deployed" / "index.html").read_bytes() == \
        (run.artifacts / "github-pages" / "index.html").read_bytes()


def test_a_prose_edit_executes_nothing_and_writes_its_lecture(course_runs):
    """The plan reads main's course cache: nothing to execute, so no lecture job runs; the check reads
    the executions from that cache; the site writes every product from them, executing nothing."""
    run = course_runs["prose edit"]
    assert run.returncode == 0, run.text[-6000:]
    # Every lecture's shard of the suite runs (a prose edit can break a slide), though none executes.
    assert run.results() == {"plan": "success", **shards(), "suite": "success", "check": "success", "site": "success"}
    assert json.loads(run.outputs()["plan"][("plan", "plan")])["count"] == 0
    for name in NAMES:
        assert re.search(rf"\| `{name}` \| 2 of 2 \| 1 of 1 \| 0 of 0 \| as recorded \|", run.summary("check"))
    rendered = run.printed("site", RENDER_STEP["site"])
    assert "3 lecture(s): 0 executed, 3 written, 3 ok" in rendered, rendered
    assert "একটি ছোট" in (run.artifacts / "github-pages" / "02-synthetic" / "slides.html").read_text(encoding="utf-8")


def test_every_output_the_workflow_reads_is_set(course_runs):
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    for event, run in course_runs.items():
        assert run.results(), event
        assert unset_outputs(workflow, run) == [], event


# (what is broken, the text replaced, its replacement, what the failed run must say)
BROKEN_RUNS = [
    ("a local action GitHub cannot resolve", "uses: ./.github/actions/setup", "uses: $/.github/actions/setup",
     "Expected format {org}/{repo}[/path]@ref"),
    ("a job without the checkout its local action is read from",
     "      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
     "        with:\n          persist-credentials: false\n", "",
     "failed to read 'action.yml' from action './.github/actions/setup'"),
    ("a job that needs a job that does not exist", "    needs: plan\n", "    needs: planned\n",
     "unable to build dependency graph"),
    ("a matrix read from a field the plan does not have", "fromJSON(needs.plan.outputs.plan).execute }}",
     "fromJSON(needs.plan.outputs.plan).lectures_to_execute }}", "Job '${{ matrix.name }}' failed"),
    ("the plan's output written under another name", 'echo "plan=$(cat plan.json)"', 'echo "planned=$(cat plan.json)"',
     "Error while evaluating matrix"),
    ("a condition on an output no step sets", "steps.restore.outputs.cache-hit != 'true'",
     "steps.key.outputs.cache-hit != 'true'", "steps.key.outputs.cache-hit was never set"),
]


@pytest.mark.parametrize("what, old, new, named", BROKEN_RUNS, ids=[b[0] for b in BROKEN_RUNS])
def test_a_broken_workflow_fails_its_run(generated_course, tmp_path, what, old, new, named):
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text, f"the workflow no longer has {old!r}: update this breakage"
    broken = text.replace(old, new, 1)
    repo = workflow_repository(generated_course, tmp_path / "repo")
    (tmp_path / "broken.yml").write_text(on_this_machine(broken), encoding="utf-8")
    (tmp_path / "caches").mkdir()
    run = act(repo, "pull_request", tmp_path / "run", tmp_path / "caches", workflow=tmp_path / "broken.yml")
    failures = "\n".join([run.text] * (run.returncode != 0) + unset_outputs(yaml.safe_load(broken), run))
    assert failures, f"act ran a workflow with {what} to success"
    assert named in failures, failures[-6000:]

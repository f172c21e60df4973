"""Shared fixtures: the real project rendered once, its lectures, throwaway projects built by
lecturekit's `ProjectBuilder` (the same builder the benchmark uses), a browser; each test's CPU cost,
summed per lecture at the end (budget.py). What the tests share besides fixtures is in helpers.py."""
import os
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A venv copied from another checkout would run that checkout's kit: scripts/setup re-installs it.
try:
    import lecturekit
except ModuleNotFoundError:
    pytest.exit("the kit is not installed in this venv: run scripts/setup", returncode=4)
if Path(lecturekit.__file__).resolve().parents[2] != ROOT:
    pytest.exit(f"this venv's lecturekit is {Path(lecturekit.__file__).parent}, not this checkout's: "
                "run scripts/setup", returncode=4)

from budget import LEDGER  # noqa: E402
from helpers import (NO_QUARTO, REQUIRE_QUARTO, LectureCodeZips, MiniProject, ProjectBuilder,  # noqa: E402
                     ScriptRunCache, ScriptRuns, run_render, script_server)

# A suite started with SIGINT ignored (nohup, a background job of a shell without job control)
# would pass that on to every render it starts, and the Ctrl-C tests would find renders that cannot
# be stopped: the renders start as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# ---- scopes: each test is fixed or one lecture's, by the rule tests/budget.py charges by -----------

def pytest_addoption(parser):
    group = parser.getgroup("scopes", "the suite's scopes (docs/testing.md)")
    group.addoption("--lecture", action="append", default=[], metavar="NAME",
                    help="run only this lecture's tests, rendering only it (repeatable)")
    group.addoption("--fixed", action="store_true", help="run only the fixed tests (the kit's)")


def pytest_configure(config):
    config.addinivalue_line("markers", "lecture(name): a test of one lecture's products (its scope)")
    config.addinivalue_line("markers", "fixed: a test of the kit, run once whatever the lectures")
    unknown = sorted(set(config.getoption("lecture")) - set(LEDGER.lectures))
    if unknown:
        raise pytest.UsageError(f"--lecture {', '.join(unknown)}: no such lecture under lectures/ "
                                f"(there are {', '.join(sorted(LEDGER.lectures))})")


def scope_of(item) -> str | None:
    """The lecture a test belongs to, or None when it is fixed (its `lecture`/`fixed` marker)."""
    marker = item.get_closest_marker("lecture")
    return marker.args[0] if marker else None


def pytest_collection_modifyitems(config, items):
    for item in items:
        lecture = LEDGER.lecture_of(item)
        item.add_marker(pytest.mark.lecture(lecture) if lecture else pytest.mark.fixed)
    lectures, fixed = set(config.getoption("lecture")), config.getoption("fixed")
    if not (lectures or fixed):
        return
    keep = [item for item in items if (scope := scope_of(item)) in lectures or (fixed and scope is None)]
    if len(keep) < len(items):
        kept = set(keep)
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = keep


def selected_lectures(config) -> list[str]:
    """The lectures this run renders: the `--lecture` ones alone, else all (`--fixed` or the whole
    suite: the fixed tests read the whole course, its page and every lecture's products)."""
    lectures = config.getoption("lecture")
    return [] if config.getoption("fixed") or not lectures else sorted(lectures)


# ---- Quarto where it is expected: a test that needs one fails without it, instead of skipping ----

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """With $LECTUREKIT_REQUIRE_QUARTO set (the workflow's suite job, .ci/run), a test skipped for
    want of Quarto (its reason NO_QUARTO, whether a mark, a fixture or the test itself skipped) is
    reported failed: there a Quarto that is not found is a broken setup, not a test that does not
    apply. Unset (a machine without Quarto), the skip stays a skip."""
    report = yield
    if report.skipped and os.environ.get(REQUIRE_QUARTO) and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if reason.removeprefix("Skipped: ") == NO_QUARTO:
            report.outcome = "failed"
            where = f"$QUARTO={os.environ['QUARTO']!r}" if os.environ.get("QUARTO") else "no `quarto` on PATH"
            report.longrepr = f"{REQUIRE_QUARTO} is set: this run needs the Quarto CLI and found none ({where}): {NO_QUARTO}"
    return report


# ---- the time budget: every test's CPU cost, summed per lecture at the end (tests/budget.py) -----

@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    with LEDGER.measure(item, "setup"):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with LEDGER.measure(item, "call"):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    with LEDGER.measure(item, "teardown"):
        return (yield)


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    if LEDGER.costs:
        terminalreporter.write_sep("=", "cost per lecture (the time budget, docs/testing.md)")
        LEDGER.report(terminalreporter.write_line, ROOT / "tests" / "artifacts" / "cost.json",
                      top=None if terminalreporter.verbosity > 0 else 12)


@pytest.fixture
def mini(tmp_path):
    return MiniProject(tmp_path)


@pytest.fixture
def project_builder(tmp_path):
    """An empty throwaway project (settings, theme, filters); add lectures, packages, scripts."""
    return ProjectBuilder(tmp_path / "project", ROOT)


@pytest.fixture(scope="session")
def rendered(pytestconfig):
    """The real lecture(s), rendered once per test session (from the cache when it is valid); with
    `--lecture NAME` only that lecture."""
    result = run_render(ROOT, "--quiet", *selected_lectures(pytestconfig))
    assert result.returncode == 0, result.stderr
    return ROOT / "_output"


class PolicyAside:
    """Playwright's browser whose pages and contexts set the products' Content-Security-Policy aside
    unless a test asks for it (`bypass_csp=False`): the policies forbid evaluating strings, which is
    how Playwright waits for a condition. The tests of the policies keep it."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        return self._browser.new_context(**{"bypass_csp": True, **options})

    def new_page(self, **options):
        return self._browser.new_page(**{"bypass_csp": True, **options})

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def rendered_mini(tmp_path_factory):
    """One throwaway project rendered once per run; each test gets its own copy (`copy`: cache and
    products included)."""
    from test_pipeline import GOOD
    mini = MiniProject(tmp_path_factory.mktemp("rendered"))
    mini.write(GOOD)
    result = mini.render()
    assert result.returncode == 0, result.stderr
    return mini


@pytest.fixture
def copy(rendered_mini, tmp_path):
    """A copy of `rendered_mini` of the test's own."""
    return rendered_mini.copied_to(tmp_path / "project")


@pytest.fixture(scope="session")
def rendered_lectures(pytestconfig) -> list[str]:
    """The names of the lectures `rendered` renders: the `--lecture` ones, else every lecture."""
    return selected_lectures(pytestconfig) or list(LEDGER.lectures)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    from lecturekit.course.scaffold.browser import launch_chromium
    with sync_playwright() as p:
        b = launch_chromium(p)
        yield PolicyAside(b)
        b.close()


@pytest.fixture(scope="session")
def script_runs(request, rendered, tmp_path_factory):
    """Each student script (`helpers.STUDENT_SCRIPTS`) run once per session, for every test that
    reads its run: `script_runs.of(path)`, and not at all when _build/script-runs/ holds its run
    under the same key. Only the scripts some selected test needs are run, each forked by a script
    server that imported their libraries once (started at the first run). What runs is the script
    as a student has it: its copy in the lecture's rendered code zip, unpacked outside the project."""
    def script_of(item):
        callspec = getattr(item, "callspec", None)
        return callspec.params.get("script") if callspec and "script_runs" in item.fixturenames else None
    selected = [script for script in map(script_of, request.session.items) if isinstance(script, Path)]
    server = script_server()
    zips = LectureCodeZips(rendered, lambda lecture: tmp_path_factory.mktemp(f"zip-{lecture}"))
    yield ScriptRuns(selected, lambda script: tmp_path_factory.mktemp(f"run-{script.stem}"),
                     ScriptRunCache(ROOT / "_build" / "script-runs", ROOT / "code", zips), server, zips)
    server.close()


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory):
    """A generated course of three small lectures (the benchmark's: no torch), rendered once and its
    outputs recorded in tests/expected/. Copy it (helpers.copy_project) before changing it."""
    from helpers import BIN
    import subprocess
    from lecturekit.course.scaffold.courses import synthetic_course
    course = synthetic_course(tmp_path_factory.mktemp("generated") / "course", 3)
    result = run_render(course.root, "--quiet")
    assert result.returncode == 0, result.stderr
    accepted = subprocess.run([str(BIN / "lecture-check"), "--quiet", "--accept"], cwd=course.root,
                              capture_output=True, text=True, timeout=600)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    return course.root

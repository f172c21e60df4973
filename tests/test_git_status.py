"""An author's `git status` shows what the author changed, and nothing a render or a check wrote.

A small lecture in a git-tracked throwaway project (the project's settings, scripts and filters,
the venv and npm packages linked), its outputs accepted, rendered by both paths and committed. Then,
one step after another, nothing edited, a prose edit, and a code edit that keeps every output (a
comment in the course package, a renamed variable in a cell): each time `scripts/render`,
`scripts/check` and `quarto render` run (in both orders), and `git status` lists exactly the files
the author edited. Before, a passing check or render after any edit rewrote tests/expected/<lecture>.yaml
(its file digests); only `--accept` writes it now, and the digests a passing check confirmed go to
_build/ (check/confirmed.py). The report's "why" still names only what changed since then.
"""
import os
import shutil
import subprocess

import pytest

from helpers import NO_QUARTO, ROOT
from test_quarto import QUARTO

pytestmark = pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)

NAME = "01-count"
SECTION = f"lectures/{NAME}/_01-count.qmd"
PACKAGE = "code/minipkg/__init__.py"
BODY = """\
## গোনা {#sec-count}

```{python}
#| label: count
from minipkg import ANSWER, square
values = [square(i) for i in range(4)]
print(values, ANSWER)
```

একটি ছোট হিসাব: উত্তর `{python} ANSWER`। [উত্তর ৪০-এর বেশি।]{.claim check="ANSWER > 40"}
"""


def sh(project, *command, ok=(0,)):
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    run = subprocess.run(list(command), cwd=project, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode in ok, f"{' '.join(command)} -> {run.returncode}\n{(run.stdout + run.stderr)[-4000:]}"
    return run.stdout + run.stderr


def status(project):
    """`git status`: every path that differs from the last commit, tracked or not (ignored aside)."""
    return sorted(line[3:] for line in sh(project, "git", "status", "--porcelain=v1", "-uall").splitlines())


def both_paths(project, quarto_first):
    """Both renders and the check, as an author runs them; the log of each."""
    ours = lambda: sh(project, "scripts/render")  # noqa: E731
    theirs = lambda: sh(project, QUARTO, "render")  # noqa: E731
    first, second = (theirs, ours) if quarto_first else (ours, theirs)
    return first(), second(), sh(project, "scripts/check")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from lecturekit.course.scaffold.projects import ProjectBuilder
    builder = ProjectBuilder(tmp_path_factory.mktemp("git-status") / "project", ROOT)
    shutil.copytree(ROOT / "scripts", builder.root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json", ".gitignore"):
        shutil.copy(ROOT / name, builder.root / name)
    (builder.root / ".venv").symlink_to(ROOT / ".venv")
    builder.add_package("minipkg", {"__init__.py": "ANSWER = 42\n\n\ndef square(x):\n    return x * x\n"})
    builder.add_lecture(NAME, "{{< include _01-count.qmd >}}\n",
                        front={"title": "গোনা", "course": "বাংলায় PyTorch", "episode": 1, "episodes": 91, "module": 1},
                        sections={"_01-count.qmd": BODY})
    root = builder.root
    sh(root, "git", "init", "-q")
    sh(root, "scripts/check", NAME, "--accept")
    sh(root, "scripts/render")
    sh(root, QUARTO, "render")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-q", "-m", "the lecture, its expectations, its rendered state")
    assert status(root) == []
    return root


def test_nothing_edited_leaves_git_status_clean(project):
    ours, theirs, check = both_paths(project, quarto_first=False)
    assert "quarto: nothing to render" in theirs, theirs[-3000:]
    assert f"[{NAME}] OK" in check, check
    assert status(project) == []


def test_a_prose_edit_shows_only_the_edited_file(project):
    section = project / SECTION
    section.write_text(section.read_text(encoding="utf-8").replace("একটি ছোট হিসাব", "একটি খুব ছোট হিসাব"),
                       encoding="utf-8")
    theirs, ours, check = both_paths(project, quarto_first=True)
    assert "একটি খুব ছোট হিসাব" in (project / "_output" / NAME / "slides.html").read_text(encoding="utf-8")
    assert "0 written" in ours, ours  # Quarto's products were current for scripts/render
    assert status(project) == [SECTION]


def test_a_code_edit_with_the_same_outputs_shows_only_the_edited_files(project):
    package = project / PACKAGE
    package.write_text("# The course's tiny package.\n" + package.read_text(encoding="utf-8"), encoding="utf-8")
    section = project / SECTION
    section.write_text(section.read_text(encoding="utf-8").replace("values", "squares"), encoding="utf-8")
    ours, theirs, check = both_paths(project, quarto_first=False)
    assert "(executed)" in ours and "quarto: nothing to render" in theirs, ours + theirs
    assert f"[{NAME}] OK" in check, check
    assert status(project) == sorted([PACKAGE, SECTION])
    # The digests this passing check confirmed are the baseline of the next report's "why": a real
    # drift now names the file changed since, not the ones confirmed above.
    package.write_text(package.read_text(encoding="utf-8").replace("ANSWER = 42", "ANSWER = 43"), encoding="utf-8")
    check = sh(project, "scripts/check", ok=(1,))
    assert "why: the code changed (files: code/minipkg/__init__.py)" in check, check
    assert "_01-count.qmd)" not in check.split("why:")[1].split("\n")[0], check
    assert status(project) == sorted([PACKAGE, SECTION])

"""The kit's commands, installed into the venv as console scripts (pyproject.toml [project.scripts]);
`scripts/render`, `scripts/check` … are the thin commands that run them."""
import sys
from pathlib import Path

from lecturekit.errors import LectureError
from lecturekit.project import Project


def render(argv: list[str] | None = None) -> int:
    """`lecture-render`: every lecture (or the named ones) to slides and handout."""
    from lecturekit.course.render import main
    return main(argv)


def execute(argv: list[str] | None = None) -> int:
    """`lecture-execute`: only the executed notebooks (Quarto's pre-render step)."""
    from lecturekit.course.render import main
    return main(["--execute-only", *(sys.argv[1:] if argv is None else argv)])


def check(argv: list[str] | None = None) -> int:
    """`lecture-check`: outputs against tests/expected/, and the claims."""
    from lecturekit.cli.check import main
    return main(argv)


def bench(argv: list[str] | None = None) -> int:
    """`lecture-bench`: where a render's time goes, and how a course's build grows."""
    from lecturekit.cli.bench import main
    return main(argv)


def modtree(argv: list[str] | None = None) -> int:
    """`lecture-modtree`: the course's module-tree drawer. `modtree` is a course package, not part of
    the kit: it is imported from the project's code/ folder, first on the path, as a lecture's kernel
    imports it (the project found from the working folder, else the one the kit belongs to)."""
    try:
        project = Project.find()
    except LectureError:
        project = Project(Path(__file__).resolve().parents[3])
    sys.path.insert(0, str(project.code_dir))
    from modtree.__main__ import main
    return main(sys.argv[1:] if argv is None else argv)

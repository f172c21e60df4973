"""The kit's commands, installed into the venv as console scripts (pyproject.toml [project.scripts]);
`scripts/render`, `scripts/check` … are the thin commands that run them. Each command is a module of
cli/, imported only when it runs (a command starts no faster than its imports)."""
import sys


def render(argv: list[str] | None = None) -> int:
    """`lecture-render`: every lecture (or the named ones) to slides and handout."""
    from lecturekit.cli.render import main
    return main(argv)


def execute(argv: list[str] | None = None) -> int:
    """`lecture-execute`: only the executed notebooks (Quarto's pre-render step)."""
    from lecturekit.cli.render import main
    return main(["--execute-only", *(sys.argv[1:] if argv is None else argv)])


def check(argv: list[str] | None = None) -> int:
    """`lecture-check`: outputs against tests/expected/, and the claims."""
    from lecturekit.cli.check import main
    return main(argv) or 0


def bench(argv: list[str] | None = None) -> int:
    """`lecture-bench`: where a render's time goes, and how a course's build grows."""
    from lecturekit.cli.bench import main
    return main(argv)


def modtree(argv: list[str] | None = None) -> int:
    """`lecture-modtree`: the course's module-tree drawer (`code/modtree`)."""
    from lecturekit.cli.modtree import main
    return main(argv)


def plan(argv: list[str] | None = None) -> int:
    """`lecture-plan`: the lectures whose execution key has no entry in a cache, as JSON."""
    from lecturekit.cli.plan import main
    return main(argv)


def gather(argv: list[str] | None = None) -> int:
    """`lecture-gather`: products folders packed from rendered lectures, and placed into a project."""
    from lecturekit.cli.gather import main
    return main(argv)


def gradgraph(argv: list[str] | None = None) -> int:
    """`lecture-gradgraph`: the course's autograd-graph drawer (`code/gradgraph`)."""
    from lecturekit.cli.gradgraph import main
    return main(argv)

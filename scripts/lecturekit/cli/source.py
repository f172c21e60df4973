"""`python -m lecturekit.cli.source <lectures/<name>/index.qmd>`: a lecture source read, and its format
options checked, as scripts/render does before it executes anything; one `file:line: message` line on
stdout (files named from the project folder) and exit 1 when it is refused.

The lecture filter asks it when Quarto renders a lecture source itself (`quarto render
lectures/<name>/index.qmd`, which the pre-render step leaves to Quarto): what the reader refuses
(read/markup.py, read/resources.py, the supported subset) is refused there too, and no product is
written from it.
"""
import sys
from pathlib import Path

from lecturekit.ansi import terminal_text
from lecturekit.errors import LectureError
from lecturekit.project import Project
from lecturekit.read.qmd import read_lecture
from lecturekit.write.formats import check_format_options


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m lecturekit.cli.source lectures/<name>/index.qmd", file=sys.stderr)
        return 2
    index = Path(args[0]).resolve()
    root = None
    try:
        project = Project.find(index.parent)
        root = project.root
        check_format_options(project, read_lecture(index, project.root))
    except LectureError as err:
        said = str(err).split("\n")[0]
        print(terminal_text(said.replace(f"{root}/", "") if root else said))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

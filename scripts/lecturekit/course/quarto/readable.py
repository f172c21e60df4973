"""Every lecture's sources read as scripts/render reads them, before Quarto reads them.

`quarto render` (and `quarto preview`, and the render of one source) first reads every source the
project's `render:` lists, includes expanded and every YAML block parsed, and only then runs the
pre-render step. A malformed front matter, bytes that are not UTF-8 or an include of a missing file
there would end the whole render in Quarto's JavaScript stack trace, without the file's name. The
extension engine `_extensions/lecture/readable.js` runs this check (`--json`) before Quarto parses
any source and claims every file of each lecture named here, so Quarto leaves those unparsed and
renders the others; pre-render and post-render list the broken lecture as failed, with the error
given here (`file:line: what is wrong`), on the course page and in the summary.

It checks only what Quarto's reading needs (the folder name, UTF-8, every front matter, every
include, as scripts/render reads them), a few milliseconds a lecture, since every Quarto command
waits for it; the rest of the supported subset is the pre-render step's to check.
"""
import json
import sys
from pathlib import Path

from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source
from lecturekit.project import Project, check_lecture_name
from lecturekit.read.frontmatter import split_front_matter
from lecturekit.read.scanner import FENCE, INCLUDE


def check_sources(path: Path, project_root: Path, named_at: tuple[Path | None, int | None] = (None, None),
                  chain: tuple[Path, ...] = ()) -> None:
    """A LectureError for the first thing in `path` or its includes that Quarto could not read."""
    text = read_source(path, *named_at)
    _meta, body, first = split_front_matter(text, path)
    fence = None
    for offset, line in enumerate(body.split("\n")):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened["fence"]
        elif fence is not None:
            if line.strip() and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
                fence = None
        elif include := INCLUDE.match(line):
            lineno = first + offset
            if Path(include["path"]).is_absolute():
                raise LectureError(f"{include['path']} is named by an absolute path; name it relative to this "
                                   "file (the project must render wherever it lies)", path, lineno)
            target = (path.parent / include["path"]).resolve()
            if not target.is_relative_to(project_root):
                raise LectureError(f"{include['path']} is outside the project; a lecture may only use files "
                                   "inside it", path, lineno)
            if target in chain:
                raise LectureError(f"include cycle through {include['path']}", path, lineno)
            check_sources(target, project_root, (path, lineno), chain + (target,))


def unreadable(project: Project) -> dict[str, str]:
    """{lecture folder name: its error, files named from the project folder}."""
    found = {}
    root = project.root.resolve()
    for folder in project.lectures():
        try:
            check_lecture_name(folder)
            index = folder / "index.qmd"
            check_sources(index, root, chain=(index.resolve(),))
        except LectureError as err:
            found[folder.name] = str(err).split("\n")[0].replace(f"{root}/", "").replace(f"{project.root}/", "")
    return found


def main(argv: list[str] | None = None) -> int:
    """`--json`: {lecture folder from the project root: its error} on stdout, exit 0 (the engine
    claims those lectures' files); otherwise one `error:` line for each, exit 1 when there is one."""
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    try:
        project = Project.find()
    except LectureError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    broken = unreadable(project)
    if as_json:
        folder = project.lectures_dir.relative_to(project.root).as_posix()
        print(json.dumps({f"{folder}/{name}": message for name, message in broken.items()}, ensure_ascii=False))
        return 0
    for message in broken.values():
        print(f"error: {message}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

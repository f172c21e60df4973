"""Read a lecture's Quarto sources into blocks: front matter, markdown runs and python cells.

The reader's parts, by job: frontmatter.py (split, check, defaults), scanner.py (the body into
blocks, includes followed, the subset enforced), claims.py (inline expressions and claims in prose).

Only the Quarto subset listed in the README is accepted. Anything else is a LectureError that
names the file and line, so an author never gets silently different output from the two renderers.
"""
from dataclasses import dataclass, field
from pathlib import Path

from lecturekit.fsutil import read_source
from lecturekit.project import Project
from lecturekit.read.claims import CODE_SPAN, Claim, Inline, replace_inline  # noqa: F401  (the stages' names for them)
from lecturekit.read import markup
from lecturekit.read.resources import check_option_paths
from lecturekit.read.frontmatter import Meta, check_front_matter, front_matter_lines, split_front_matter
from lecturekit.read.scanner import Block, Cell, Markdown, Scanner, blank_code_spans, check_labels  # noqa: F401
from lecturekit.yamlio import KeyPath

__all__ = ["Block", "Cell", "Claim", "Inline", "Lecture", "Markdown", "read_lecture", "read_source",
           "replace_inline", "split_front_matter"]


@dataclass
class Lecture:
    root: Path  # the lecture folder
    index: Path  # the .qmd that includes the sections
    meta: Meta
    blocks: list[Block] = field(default_factory=list)
    meta_lines: dict[KeyPath, int] = field(default_factory=dict)  # key path -> line in index.qmd

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def cells(self) -> list[Cell]:
        return [b for b in self.blocks if isinstance(b, Cell)]


def read_lecture(index: Path, project_root: Path | None = None) -> Lecture:
    """Parse `index` (front matter + includes) into one flat list of blocks.

    `project_root`: includes and `file:` cells may not reach outside it (default: the nearest
    folder above the lecture with a `_quarto.yml`, else the lecture folder)."""
    index = Path(index)
    text = read_source(index)
    meta, body, first = split_front_matter(text, index)
    lecture = Lecture(root=index.parent, index=index, meta=meta, meta_lines=front_matter_lines(text))
    check_front_matter(lecture.meta, lecture.meta_lines, lecture.index)
    root = Path(project_root).resolve() if project_root else _project_root(index.parent)
    scanner = Scanner(lecture.blocks, root)
    scanner.scan(body, index, first, chain=(index.resolve(),))
    check_labels(lecture.blocks)
    # What pandoc parses of it (prose, front matter, _quarto.yml's strings, captions) is judged once,
    # for both renderers: read/markup.py.
    # Every file an option names lies inside the project: resolved from the project, the lecture's folder
    # (Quarto's render of the source) and the executed notebook's (Quarto's render of it).
    rendered_from = [lecture.root.resolve(), root / "_build" / lecture.name]
    check_option_paths(lecture.meta, lecture.meta_lines, index, root, [root, *rendered_from], rendered_from)
    if (root / "_quarto.yml").is_file():
        project = Project(root)
        check_option_paths(project.config, project.config_lines, project.config_path, root, [root], rendered_from)
        markup.check_lecture(lecture, root, project.config, project.config_path, project.config_lines)
    else:
        markup.check_lecture(lecture, root)
    return lecture


def _project_root(folder: Path) -> Path:
    folder = Path(folder).resolve()
    return next((f for f in (folder, *folder.parents) if (f / "_quarto.yml").exists()), folder)

"""Assemble the executed notebook: the single execution record both products and the checks read.

It is self-contained the way `quarto render` needs it: the front matter in a first raw cell, includes
resolved, inline expressions replaced by their values, cell options kept as `#|` lines.
"""
import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4.rwbase import split_lines
import yaml

from lecturekit.execute.record import (CellRun, ClaimResult, Environment, Execution, InlineValue, ProseRun,
                                       option_lines)
from lecturekit.fsutil import write_if_changed
from lecturekit.project import Project
from lecturekit.read import frontmatter, markup, qmd
from lecturekit.read.scanner import IMAGE, prose_lines
from lecturekit.words import bengali_date


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|~^$&:\"'@=%])")


def _as_text(value: str) -> str:
    """An inline value is text: escape what markdown (or HTML) would otherwise interpret."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", value)


def _claims(block: qmd.Markdown, ran: list[ClaimResult], project_root: Path) -> list[ClaimResult]:
    """Claim results with today's sentence and line: a cached execution may predate a prose edit."""
    return [ClaimResult(claim.sentence, claim.expr, os.path.relpath(block.file, project_root), claim.line,
                        result.ok, result.error)
            for claim, result in zip(block.claims, ran)]


URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def relinked_images(block: qmd.Markdown, notebook_dir: Path) -> str:
    """The prose run's text with each image path that is relative to its source file made relative
    to the notebook: both renderers read the notebook from _build/<lecture>/, where a `pic.png`
    beside the lecture's sources is not. Code blocks and code spans are left as they are."""
    lines = block.text.split("\n")
    base = Path(block.file).resolve().parent
    for lineno, masked in prose_lines(block):
        at = lineno - block.line
        for match in reversed(list(IMAGE.finditer(masked))):
            target = match["path"]
            if URL.match(target) or target.startswith(("/", "#")):
                continue  # a URL or an anchor (an absolute path was refused when the lecture was read)
            relative = Path(os.path.relpath(base / target, notebook_dir)).as_posix()
            lines[at] = lines[at][:match.start("path")] + relative + lines[at][match.end("path"):]
    return "\n".join(lines)


VERSION_NAMES = (("python", "Python"), ("torch", "PyTorch"), ("numpy", "NumPy"))


def provenance(environment: Environment) -> dict[str, str]:
    """What the handout's cover says about the outputs: when they were made and by which versions.
    It goes into the front matter, so `quarto render` of the notebook shows it too."""
    meta: dict[str, str] = {}
    versions = environment.versions or {}
    text = " · ".join(f"{name} {versions[key]}" for key, name in VERSION_NAMES if versions.get(key))
    if text:
        meta["versions"] = text
    if environment.executed_at:
        meta["render-date"] = bengali_date(environment.executed_at)
    return meta


def every_format(meta: dict[str, Any], project: Project) -> dict[str, Any]:
    """The front matter with every format of _quarto.yml listed when it lists some. Quarto renders
    only the formats a document names: a lecture that sets one revealjs option (`format: revealjs:
    theme: …`) would get no handout from `quarto render`, with exit 0 and no word. Each format it
    leaves out is listed as `default` (_quarto.yml's options for it, as Quarto merges them), in
    _quarto.yml's order: Quarto finishes a document's formats in reverse order, and the page's
    finishing step (listed first) must come after the deck's."""
    formats = meta.get("format")
    if formats is None or not project.config_path.exists():
        return meta
    project_formats = project.config.get("format")
    if not isinstance(project_formats, dict):
        return meta
    own = dict(formats) if isinstance(formats, dict) else {str(formats): "default"}
    listed = {name: own.get(name, "default") for name in project_formats}
    return {**meta, "format": listed | own}


def _cell(cell_type: str, source: str, **fields: Any) -> Any:
    """A notebook cell as nbformat.v4.new_*_cell makes it, without its schema validation per cell
    (a third of the time a preview's rebuild spends reading a lecture): the cells are ours."""
    return nbformat.from_dict({"id": "", "cell_type": cell_type, "metadata": {}, "source": source, **fields})


def executed_notebook(lecture: qmd.Lecture, execution: Execution, project_root: Path) -> Any:
    """Build the executed notebook from the parsed lecture and its execution record. Places, code and
    sentences are today's lecture's (a cached execution may predate a prose edit); outputs, values
    and results are the record's."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    # Defaults filled here reach both renderers (Quarto reads this raw cell as the front matter).
    env = execution.environment
    meta = {**frontmatter.with_defaults(lecture.meta, lecture.root), **provenance(env)}
    meta = every_format(meta, Project(Path(project_root)))
    front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    nb.cells.append(nbformat.v4.new_raw_cell(f"---\n{front}---"))
    record = Execution(lecture.name, Environment(env.versions, env.key, env.executed_at))
    prose, cells = iter(execution.prose), iter(execution.cells)
    notebook_dir = Project(Path(project_root)).notebook_path(lecture.name).parent.resolve()
    for block in lecture.blocks:
        file = os.path.relpath(block.file, project_root)
        if isinstance(block, qmd.Markdown):
            said = next(prose)
            values = [i.value for i in said.inline]
            run: ProseRun | CellRun = ProseRun(file, block.line, [InlineValue(i.expr, v) for i, v in zip(block.inline, values)],
                           _claims(block, said.claims, project_root))
            text = relinked_images(block, notebook_dir)
            cell = _cell("markdown", qmd.replace_inline(text, [_as_text(v) for v in values]))
        else:
            ran = next(cells)
            run = CellRun(file, block.line, block.label, block.heading, block.options, block.code,
                          ran.outputs, ran.execution_count, ran.seconds, ran.raised)
            cell = _cell("code", option_lines(block.options) + block.code, execution_count=None, outputs=[])
            # Only what the products show: a cell's HTML or markdown would be markup under Quarto.
            cell.outputs = [nbformat.from_dict(markup.shown_output(o)) for o in ran.outputs]
            cell.execution_count = ran.execution_count
            if block.options.get("error") and ran.raised:
                # What Jupyter tools (nbval, Jupyter Book) read: this cell is meant to raise.
                cell.metadata["tags"] = ["raises-exception"]
        record.runs.append(run)
        cell.metadata["lecture"] = run.metadata()
        nb.cells.append(cell)
    nb.metadata["lecture"] = record.metadata()
    # nbformat gives new cells random ids; positional ids make the same execution the same bytes.
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{index}"
    return nb


def notebook_bytes(nb: Any) -> bytes:
    """The notebook as written: nbformat's v4 layout (sorted keys, indent 1, multi-line text as lists
    of lines), without its schema validation, which would cost more than everything else a no-change
    rebuild does. Lists of lines matter: Quarto splits a one-string `source` into lines and joins
    them back without newlines."""
    on_disk = split_lines(copy.deepcopy(nb))
    return (json.dumps(on_disk, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_notebook(nb: Any, path: Path | str, data: bytes | None = None) -> None:
    """Write atomically (a reader never sees half a notebook), and not at all when unchanged."""
    path = Path(path)
    data = notebook_bytes(nb) if data is None else data
    write_if_changed(path, data)

"""Assemble the executed notebook: the single execution record both products and the checks read.

It is self-contained the way `quarto render` needs it: the front matter in a first raw cell, includes
resolved, inline expressions replaced by their values, cell options kept as `#|` lines.
"""
import copy
import json
import os
import re
from pathlib import Path

import nbformat
from nbformat.v4.rwbase import split_lines
import yaml

from . import frontmatter, qmd


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|~^$&:\"'@=%])")


def _as_text(value):
    """An inline value is text: escape what markdown (or HTML) would otherwise interpret."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", value)


def _option_lines(options):
    # `file:` is already resolved into the code; Quarto must not load it a second time.
    kept = {k: v for k, v in options.items() if k != "file"}
    if not kept:
        return ""
    text = yaml.safe_dump(kept, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return "".join(f"#| {line}\n" for line in text.splitlines())


def _current_claims(block, ran, project_root):
    """Claim results with today's sentence and line: a cached execution may predate a prose edit."""
    current = []
    for (sentence, expr), result in zip(qmd.claim_expressions(block.text), ran):
        current.append({**result, "sentence": sentence, "file": os.path.relpath(block.file, project_root),
                        "line": block.line_of(expr)})
    return current


VERSION_NAMES = (("python", "Python"), ("torch", "PyTorch"), ("numpy", "NumPy"))


def provenance(results):
    """What the handout's cover says about the outputs: when they were made and by which versions.
    It goes into the front matter, so `quarto render` of the notebook shows it too."""
    meta = {}
    versions = results.get("versions") or {}
    text = " · ".join(f"{name} {versions[key]}" for key, name in VERSION_NAMES if versions.get(key))
    if text:
        meta["versions"] = text
    if results.get("executed_at"):
        from .writers import bengali_date
        meta["render-date"] = bengali_date(results["executed_at"])
    return meta


def executed_notebook(lecture, results, project_root):
    """Build the executed notebook from the parsed lecture and the execution results."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    # Defaults filled here reach both renderers (Quarto reads this raw cell as the front matter).
    front = yaml.safe_dump({**frontmatter.with_defaults(lecture.meta, lecture.root), **provenance(results)},
                           allow_unicode=True, sort_keys=False, width=1000)
    nb.cells.append(nbformat.v4.new_raw_cell(f"---\n{front}---"))
    md_index = cell_index = 0

    def where(block):
        return {"file": os.path.relpath(block.file, project_root), "line": block.line}

    for block in lecture.blocks:
        if isinstance(block, qmd.Markdown):
            text = qmd.replace_inline(block.text, [_as_text(v) for v in results["inline"][md_index]])
            cell = nbformat.v4.new_markdown_cell(text)
            inline = [{"expr": e, "value": v} for e, v in
                      zip(qmd.inline_expressions(block.text), results["inline"][md_index])]
            cell.metadata["lecture"] = {**where(block), "inline": inline,
                                        "claims": _current_claims(block, results["claims"][md_index], project_root)}
            md_index += 1
        else:
            ran = results["cells"][cell_index]
            cell_index += 1
            cell = nbformat.v4.new_code_cell(_option_lines(block.options) + block.code)
            cell.outputs = [nbformat.from_dict(o) for o in ran["outputs"]]
            cell.execution_count = ran["execution_count"]
            cell.metadata["lecture"] = {**where(block), "label": block.label, "heading": block.heading,
                                        "options": block.options, "seconds": ran["seconds"],
                                        "raised": ran.get("raised", False)}
        nb.cells.append(cell)
    nb.metadata["lecture"] = {"name": lecture.name, "versions": results.get("versions", {}),
                              "key": results.get("key"),
                              "executed_at": results.get("executed_at")}
    # nbformat gives new cells random ids; positional ids make the same execution the same bytes.
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{index}"
    return nb


def notebook_bytes(nb):
    """The notebook as written: nbformat's v4 layout (sorted keys, indent 1, multi-line text as lists
    of lines), without its schema validation, which would cost more than everything else a no-change
    rebuild does. Lists of lines matter: Quarto splits a one-string `source` into lines and joins
    them back without newlines."""
    on_disk = split_lines(copy.deepcopy(nb))
    return (json.dumps(on_disk, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_notebook(nb, path, data=None):
    """Write atomically (a reader never sees half a notebook), and not at all when unchanged."""
    path = Path(path)
    data = notebook_bytes(nb) if data is None else data
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)

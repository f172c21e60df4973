"""Which prose reads a cell's results: inline expressions and claims that use a name it assigned.

Names a cell assigns come from `ast`: assignment targets (and the variable under `x.attr = …` or
`x[i] = …`), `for`/`with`/`except … as` targets, function and class definitions; not imports (a
module does not hold the cell's results). An expression reads the names it loads, less those its
own comprehensions and lambdas bind. Reading goes on through the following prose until a later
cell rebinds the name without reading it (from then on the prose reads that cell's value).
"""
import ast
import os
import re
from pathlib import Path

MAGIC = re.compile(r"^\s*[%!?]")


def _tree(code):
    code = "\n".join("" if MAGIC.match(line) else line for line in code.split("\n"))
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def assigned_names(code):
    tree = _tree(code)
    names = set()
    if tree is None:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            root = _root_name(node)
            if root:
                names.add(root)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def read_names(code, mode="exec"):
    try:
        tree = ast.parse(code, mode=mode)
    except SyntaxError:
        return set()
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if mode == "exec":
        return loaded
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in ast.walk(n.args)
              if isinstance(a, ast.arg)}
    return loaded - local


_SOURCES = {}


def forget_sources():
    _SOURCES.clear()


def source_line(file, start, needle, occurrence=0):
    """The line, at or after `start`, of `file` that holds `needle` (a markdown run's recorded line is
    where the run starts, which can be blank lines before its text); `occurrence` counts earlier
    appearances of the same needle in the run to skip (one line can hold it twice)."""
    if file not in _SOURCES:
        try:
            _SOURCES[file] = Path(file).read_text(encoding="utf-8").split("\n")
        except OSError:
            _SOURCES[file] = []
    lines = _SOURCES[file]
    seen = 0
    for i in range(max(start - 1, 0), len(lines)):
        seen += lines[i].count(needle)
        if seen > occurrence:
            return i + 1
    return start


def prose_readers(entries, position, project_root):
    """Inline expressions and claims after entries[position] (a code cell) that read its names.

    `entries` is the lecture in order: ("code", code) and ("markdown", ProseRun).
    Returns dicts {kind: inline|claim, expr, file, line, value | sentence+ok}.
    """
    live = assigned_names(entries[position][1])
    found = []
    for entry in entries[position + 1:]:
        if not live:
            break
        if entry[0] == "code":
            rebound = assigned_names(entry[1]) - read_names(entry[1])
            live -= rebound
            continue
        prose = entry[1]
        source = os.path.join(project_root, prose.file)
        # Every occurrence counts: the same expression in the slide and in the handout text is
        # two places the prose shows the value.
        occurrences = {}
        for inline in prose.inline:
            nth = occurrences.get(inline.expr, 0)
            occurrences[inline.expr] = nth + 1
            if read_names(inline.expr, "eval") & live:
                found.append({"kind": "inline", "expr": inline.expr, "value": inline.value, "file": prose.file,
                              "line": source_line(source, prose.line, f"{{python}} {inline.expr}`", nth)})
        for claim in prose.claims:
            if read_names(claim.expr, "eval") & live:
                found.append({"kind": "claim", "expr": claim.expr, "sentence": claim.sentence,
                              "ok": claim.ok, "error": claim.error, "file": prose.file,
                              "line": claim_line(source, claim.sentence, claim.line)})
    return found


def claim_line(file, sentence, line):
    """The source line of a claim's sentence (its recorded line is its check expression's)."""
    return source_line(file, line, "[" + sentence.split("\n")[0])

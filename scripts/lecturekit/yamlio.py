"""YAML read for people: where every key is, and a parser's error said at the line to look at."""
from __future__ import annotations

from typing import Any, cast

import yaml

KeyPath = tuple[str, ...]

# libyaml's parser when PyYAML has it (the pure-Python one is most of the time a lecture takes to read).
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


MAX_DEPTH = 32  # lists and mappings inside each other; the expectations file needs 4


def load(text: str) -> Any:
    """yaml.safe_load, refusing anchors and aliases (`&name`, `*name`): a few lines of aliases
    expand to billions of values ("billion laughs"), and no option or state file needs them; and
    refusing nesting deeper than MAX_DEPTH (`[[[[…]]]]` ends the loader in a RecursionError).
    A refusal is a yaml.MarkedYAMLError at the anchor's or alias's line, as the parser's own are."""
    depth = 0
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.MarkedYAMLError(None, None, "anchors and aliases (&name, *name) are not supported "
                                       "(write the value out)", cast(yaml.Mark, event.start_mark))
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:  # the loader (and everything after it) recurses once per level
                raise yaml.MarkedYAMLError(None, None, f"lists and mappings nested more than {MAX_DEPTH} deep",
                                           cast(yaml.Mark, event.start_mark))
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    try:
        return yaml.load(text, Loader=LOADER)
    except yaml.YAMLError:
        if LOADER is yaml.SafeLoader:
            raise
    return yaml.load(text, Loader=yaml.SafeLoader)  # the pure-Python parser's error names the place better


def key_lines(text: str, first_line: int = 1) -> dict[KeyPath, int]:
    """Line of every mapping key in a YAML text, by key path: {("format", "typst"): 12, ...}; a
    list's items by their index (`("css", "1")`)."""
    lines: dict[KeyPath, int] = {}
    seen: set[int] = set()  # an alias names a node again: walk each node once

    def walk(node: yaml.Node | None, prefix: KeyPath) -> None:
        if isinstance(node, yaml.MappingNode) and id(node) not in seen:
            seen.add(id(node))
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    path = prefix + (key.value,)
                    lines.setdefault(path, key.start_mark.line + first_line)
                    walk(value, path)
        elif isinstance(node, yaml.SequenceNode) and id(node) not in seen:
            seen.add(id(node))
            for index, item in enumerate(node.value):  # an item by its index: ("outputs", "0", "stdout")
                lines.setdefault(prefix + (str(index),), item.start_mark.line + first_line)
                walk(item, prefix + (str(index),))
    try:
        walk(yaml.compose(text), ())
    except yaml.YAMLError:
        pass
    return lines


def yaml_error_line(err: yaml.YAMLError) -> int:
    """0-based line a YAML error is about. An unclosed quote or bracket is reported by the parser
    where it gave up (often the end of the block); the opening quote/bracket is where to look."""
    context, mark = getattr(err, "context", None) or "", getattr(err, "context_mark", None)
    if mark is not None and ("quoted scalar" in context or "flow" in context):
        return int(mark.line)
    mark = getattr(err, "problem_mark", None) or mark
    return int(mark.line) if mark is not None else 0


# What to do about the parser's commonest complaints (matched in its context and problem).
YAML_FIXES = (
    ("quoted scalar", "close the quote opened on this line"),
    ("flow sequence", "close the '[' opened on this line"),
    ("flow mapping", "close the '{' opened on this line"),
    ("mapping values are not allowed", "quote the value: it holds ': '"),
    ("found character '\\t'", "indent with spaces, not tabs"),
    ("could not find expected ':'", "write 'key: value' on this line, or quote a value that runs on"),
    ("found undefined alias", "quote the value: a leading '*' names an alias"),
    ("anchors and aliases", "quote the value if a leading '&' or '*' is meant as text"),
)


def yaml_error_text(err: yaml.YAMLError) -> str:
    """The parser's complaint and, for the common ones, the fix."""
    problem: Any = getattr(err, "problem", None)
    if not problem:
        return str(err).split("\n")[0]
    context = getattr(err, "context", None)
    text = f"{context}: {problem}" if context else str(problem)
    fix = next((fix for pattern, fix in YAML_FIXES if pattern in text), None)
    return f"{text} ({fix})" if fix else text

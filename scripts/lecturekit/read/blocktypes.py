"""The block types a lecture may use: every div class with a meaning in the subset, in one registry.

A class is Quarto's own (reveal.js and callouts) or the lecture filters' (_extensions/lecture/filters);
the reader refuses any other, and a type that only means something inside another (`inside`) is
refused outside it. A new block type is one entry here and its Lua filter.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class BlockType:
    name: str
    owner: str  # "quarto" (Quarto or reveal.js handles it) or the lecture filter that renders it
    inside: tuple[str, ...] = ()  # must sit inside a div of one of these types


def _types(owner: str, *names: str, inside: tuple[str, ...] = ()) -> list[BlockType]:
    return [BlockType(name, owner, inside) for name in names]


BLOCK_TYPES: dict[str, BlockType] = {t.name: t for t in [
    *_types("quarto", "notes", "fragment", "incremental", "nonincremental", "columns", "content-visible",
            "content-hidden", "smaller", "r-fit-text", "r-stack", "scrollable", "appendix"),
    *_types("quarto", "column", inside=("columns",)),
    *_types("blocks.lua", "callout-note", "callout-tip", "callout-warning", "callout-important",
            "callout-caution", "remember", "glossary"),
    *_types("steppers.lua", "stepper"),
    *_types("quiz.lua", "quiz"),
    *_types("quiz.lua", "explain", inside=("quiz",)),
    *_types("answers.lua", "exercise", "discussion"),
    *_types("answers.lua", "answer", inside=("exercise", "discussion")),
    *_types("claims (check stage)", "claim"),
]}

DIV_CLASSES = frozenset(BLOCK_TYPES)
# Divs that only mean something inside another one.
REQUIRED_PARENT = {t.name: t.inside for t in BLOCK_TYPES.values() if t.inside}

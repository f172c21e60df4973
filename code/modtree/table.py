"""Per-module parameter counts, computed from the live model (torchinfo-like)."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from torch import nn

from .walk import join, walk

HEADINGS = {
    "bn": ("নাম", "ধরন", "নিজের parameter", "মোট parameter", "মোট", "শেখার যোগ্য"),
    "en": ("name", "type", "own parameters", "total parameters", "total", "trainable"),
}


@dataclass(frozen=True)
class Row:
    name: str  # every name the module is registered under, joined by " = "; "" for the model
    type: str
    own: int  # parameters registered on this module itself
    total: int  # parameters in this module and below, each tensor counted once


@dataclass(frozen=True)
class ParameterTable:
    rows: list[Row]
    total: int
    trainable: int
    lang: str = "bn"

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def _cells(self) -> list[tuple[str, str, str, str]]:
        return [(r.name, r.type, f"{r.own:,}", f"{r.total:,}") for r in self.rows]

    def _summary(self) -> str:
        h = HEADINGS[self.lang]
        return f"{h[4]}: {self.total:,}   {h[5]}: {self.trainable:,}"

    def text(self) -> str:
        cells = [HEADINGS[self.lang][:4], *self._cells()]
        widths = [max(_width(row[i]) for row in cells) for i in range(4)]

        def line(row):
            left = [_pad(row[i], widths[i]) for i in range(2)]
            right = [" " * (widths[i] - _width(row[i])) + row[i] for i in range(2, 4)]
            return "  ".join(left + right).rstrip()

        rule = "-" * (sum(widths) + 6)
        return "\n".join([line(cells[0]), rule, *map(line, cells[1:]), rule, self._summary()]) + "\n"

    def markdown(self) -> str:
        h = HEADINGS[self.lang]
        out = [f"| {h[0]} | {h[1]} | {h[2]} | {h[3]} |", "|---|---|--:|--:|"]
        for name, type_name, own, total in self._cells():
            out.append(f"| `{name}` | {type_name} | {own} | {total} |" if name else
                       f"|  | {type_name} | {own} | {total} |")
        return "\n".join(out) + f"\n\n{self._summary()}\n"

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def __str__(self) -> str:
        return self.text()


def parameter_table(model: nn.Module, *, depth: int | None = None, lang: str = "bn") -> ParameterTable:
    """One row per distinct module in named_modules() order, down to `depth` (None: all)."""
    if lang not in HEADINGS:
        raise ValueError(f"lang must be one of {sorted(HEADINGS)}, not {lang!r}")
    root, nodes = walk(model)
    names: dict[int, list[str]] = {}
    levels: dict[int, int] = {}

    def visit(node, path, level, stack):
        names.setdefault(node.index, []).append(path)
        levels.setdefault(node.index, level)
        if node.index not in stack:
            for name, child in node.children:
                visit(child, join(path, name), level + 1, stack | {node.index})

    visit(root, "", 0, frozenset())
    rows = [
        Row(" = ".join(names[n.index]), n.type_name,
            sum(s.numel for s in n.slots if s.kind == "parameter"),
            sum(_numel(p) for p in n.module.parameters()))
        for n in nodes
        if depth is None or levels[n.index] <= depth
    ]
    trainable = sum(_numel(p) for p in model.parameters() if p.requires_grad)
    return ParameterTable(rows, rows[0].total, trainable, lang)


def _numel(tensor) -> int:
    try:
        return int(tensor.numel())
    except (RuntimeError, ValueError):  # uninitialised lazy parameter
        return 0


def _width(text: str) -> int:
    # Bengali vowel signs and virama take no column of their own.
    return sum(0 if unicodedata.category(ch) == "Mn" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))

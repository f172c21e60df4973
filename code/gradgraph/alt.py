"""A plain-text description of the drawing, for screen readers and the notebook's text/plain:
the path of the gradient from each output, one line per node, each node told once."""
from __future__ import annotations

from collections import Counter

from . import style
from .dot import problem_text, shape_text
from .walk import Graph, Node


def describe(graph: Graph, lang: str = "bn") -> str:
    w = style.words(lang)
    functions = sum(len(n.folded) if n.kind == "fold" else 1 for n in graph.nodes if n.kind in ("function", "fold"))
    functions += sum(n.cut[0] for n in graph.nodes if n.kind == "cut")
    leaves = sum(1 for n in graph.nodes if n.kind == "leaf") + sum(n.cut[1] for n in graph.nodes if n.kind == "cut")
    root = ", ".join(f"{r.name or 'output'} {shape_text(r.shape)}" for r in graph.roots)
    lines = [w["alt_title"].format(root=root, functions=functions, leaves=leaves)]
    children = graph.children()
    told: set[int] = set()
    stack: list[tuple[Node, int, int]] = [(r, 0, 1) for r in reversed(graph.roots)]
    while stack:  # depth first, without recursion
        node, depth, count = stack.pop()
        pad = "  " * depth
        times = f" ×{count}" if count > 1 else ""
        if node.index in told:
            lines.append(f"{pad}- {_title(node, w)}{times}: {w['alt_again']}")
            continue
        told.add(node.index)
        lines.append(f"{pad}- {_title(node, w)}{times}")
        if node.kind == "function" and node.saved:
            kept = ", ".join(f"{s.name}{' = ' + s.alias if s.alias else ''} {shape_text(s.shape)}" for s in node.saved)
            lines.append(f"{pad}  {w['alt_saved']}: {kept}")
        stack += [(e.child, depth + 1, e.count) for e in reversed(children[node.index])]
    return "\n".join(lines) + "\n"


def _title(node: Node, w: dict) -> str:
    if node.kind == "output":
        return f"{node.name or 'output'} {shape_text(node.shape)}"
    if node.kind == "leaf":
        if node.name:
            return "AccumulateGrad: " + w["alt_leaf"].format(name=node.name, shape=shape_text(node.shape))
        return "AccumulateGrad: " + w["alt_unnamed_leaf"].format(shape=shape_text(node.shape))
    if node.kind == "none":
        return w["alt_none"]
    if node.kind == "fold":
        types = ", ".join(f"{t} ×{n}" for t, n in sorted(Counter(node.folded).items(), key=lambda i: (-i[1], i[0])))
        return w["alt_fold"].format(count=len(node.folded), types=types)
    if node.kind == "cut":
        return w["alt_cut"].format(functions=node.cut[0], leaves=node.cut[1])
    text = node.type_name
    if node.named:
        text += " → " + ", ".join(f"{n.name} {shape_text(n.shape)}" for n in node.named)
    if node.problem is not None:
        text += " " + problem_text(node, w).replace("\n", "; ")
    return text

"""What gets drawn: one box per module (or per run of identical siblings) and the arrows."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .collapse import Grouper
from .walk import Node, join, walk


@dataclass(eq=False)
class Folded:
    """What a box hides when the drawing stops at --depth."""

    modules: int  # distinct submodules below
    keys: int  # state_dict keys below, for one instance of the box


@dataclass(eq=False)
class Box:
    node: Node
    index: int  # drawing order; becomes the DOT node name
    count: int = 1  # how many identical siblings the box stands for
    container: str | None = None  # type of a list drawn as its run, e.g. "ModuleList"
    names: list[str] = field(default_factory=list)  # local names, e.g. "hidden", "0–5"
    paths: list[str] = field(default_factory=list)  # state_dict prefixes, state_dict order
    folded: Folded | None = None

    def keys(self, slot_name: str) -> list[str]:
        return [join(path, slot_name) for path in self.paths]


@dataclass(eq=False)
class Arrow:
    parent: Box
    child: Box
    name: str


@dataclass(eq=False)
class View:
    root: Box
    boxes: list[Box]
    arrows: list[Arrow]

    def __post_init__(self):
        self._incoming = Counter(arrow.child.index for arrow in self.arrows)

    def incoming(self, box: Box) -> int:
        """How many arrows point at the box: more than one for a shared submodule."""
        return self._incoming[box.index]


# Levels drawn when no depth is asked for: deeper modules fold into their ancestor's box (which
# says how many modules and keys it holds), so a nest thousands of levels deep stays one page.
MAX_DEPTH = 24


def build_view(model, *, depth: int | None = None, min_run: int = 3) -> View:
    root_node, nodes = walk(model)
    if depth is None:
        depth = MAX_DEPTH
    grouper = Grouper(nodes, min_run)
    boxes: dict[int, Box] = {}
    arrows: dict[tuple[int, int, str], Arrow] = {}

    def visit(node, name, path, level, count, container, parent, stack):
        box = boxes.get(node.index)
        if box is None:
            box = boxes[node.index] = Box(node, len(boxes), count, container)
        # Every route is visited, as state_dict() does, so a module registered
        # under two names collects both prefixes (and so does everything below it).
        box.paths.append(path)
        if parent is not None:
            arrows.setdefault((parent.index, box.index, name), Arrow(parent, box, name))
            if name not in box.names:
                box.names.append(name)
        if node.index in stack:  # a cycle; state_dict() would never finish either
            return
        groups = grouper.groups(node)
        if not groups:
            return
        if depth is not None and level >= depth:
            if box.folded is None:
                box.folded = _folded(node)
            return
        stack = stack | {node.index}
        for group in groups:
            child, label, times, holder, child_level = group.node, group.label, group.count, None, level + 1
            # A list holding nothing but one run reads better as that run: layers.0–5.
            inner = grouper.groups(child)
            if (
                times == 1
                and not child.slots
                and len(child.parents) == 1
                and len(inner) == 1
                and inner[0].count > 1
                and (depth is None or child_level < depth)
            ):
                holder, label = child.type_name, f"{label}.{inner[0].label}"
                child, times, child_level = inner[0].node, inner[0].count, level + 2
            visit(child, label, join(path, label), child_level, times, holder, box, stack)

    visit(root_node, "", "", 0, 1, None, None, frozenset())
    ordered = sorted(boxes.values(), key=lambda b: b.index)
    return View(ordered[0], ordered, list(arrows.values()))


def _folded(node: Node) -> Folded:
    below: set[int] = set()
    stack = [child for _, child in node.children]
    while stack:
        current = stack.pop()
        if current.index not in below:
            below.add(current.index)
            stack += [child for _, child in current.children]
    return Folded(len(below), key_count(node) - _own_keys(node))


def _own_keys(node: Node) -> int:
    return sum(1 for s in node.slots if s.persistent)


def key_count(node: Node) -> int:
    """Counted per route, like state_dict(): a shared child counts once per name. Children
    first, without recursion (a nest may be thousands of levels deep)."""
    counts: dict[int, int] = {}
    stack = [(node, False)]
    while stack:
        current, ready = stack.pop()
        if current.index in counts:
            continue
        if not ready:
            stack.append((current, True))
            stack += [(child, False) for _, child in current.children if child.index not in counts]
            continue
        # A module inside itself (a cycle) counts 0 for the inner route, as state_dict() never ends.
        counts[current.index] = _own_keys(current) + sum(counts.get(child.index, 0) for _, child in current.children)
    return counts[node.index]

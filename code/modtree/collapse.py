"""Runs of structurally identical siblings (layers.0, layers.1, ...) drawn as one box."""
from __future__ import annotations

from dataclasses import dataclass

from .walk import Node

DASH = "–"  # en dash: layers.0–5 reads as a range, not as a minus


@dataclass(frozen=True)
class Group:
    """One child as drawn: a single registration, or a run standing for `count` siblings."""

    label: str  # "hidden", "3", or a range such as "0–5"
    node: Node  # the child drawn (for a run: its first member)
    count: int = 1


class Grouper:
    """Groups each node's children; remembers signatures so big models stay linear."""

    def __init__(self, nodes: list[Node], min_run: int):
        self.nodes = nodes
        self.min_run = min_run
        self._signature_ids: dict[tuple, int] = {}
        self._signature: dict[int, int] = {}
        self._private: dict[int, bool] = {}

    def groups(self, node: Node) -> list[Group]:
        kids = node.children
        if not self.min_run or self.min_run < 2:
            return [Group(name, child) for name, child in kids]
        out: list[Group] = []
        i = 0
        while i < len(kids):
            end = i + 1
            if _number(kids[i][0]) is not None and self.private(kids[i][1]):
                while end < len(kids) and self._continues(kids[end - 1], kids[end]):
                    end += 1
            if end - i >= self.min_run:
                first, last = kids[i][0], kids[end - 1][0]
                out.append(Group(f"{first}{DASH}{last}", kids[i][1], end - i))
            else:
                out += [Group(name, child) for name, child in kids[i:end]]
            i = end
        return out

    def _continues(self, previous: tuple[str, Node], current: tuple[str, Node]) -> bool:
        before, now = _number(previous[0]), _number(current[0])
        return (
            now is not None
            and now == before + 1
            and self.private(current[1])
            and self.signature(current[1]) == self.signature(previous[1])
        )

    def signature(self, node: Node) -> int:
        """Equal numbers mean same type, settings, tensor shapes and children, all the way down."""
        known = self._signature.get(node.index)
        if known is not None:
            return known
        try:
            settings = node.module.extra_repr()
        except Exception:  # a broken extra_repr must not stop the drawing
            settings = ""
        own = tuple((s.name, s.kind, s.shape, s.dtype, s.persistent) for s in node.slots)
        kids = tuple((name, self.signature(child)) for name, child in node.children)
        key = (type(node.module).__module__, type(node.module).__qualname__, settings, own, kids)
        number = self._signature_ids.setdefault(key, len(self._signature_ids))
        self._signature[node.index] = number
        return number

    def private(self, node: Node) -> bool:
        """Registered once, and nothing inside it is registered from outside.

        Only such siblings may be merged: a shared one must keep its own box and arrows.
        """
        known = self._private.get(node.index)
        if known is not None:
            return known
        inside: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if current.index not in inside:
                inside.add(current.index)
                stack += [child for _, child in current.children]
        result = len(node.parents) == 1 and all(
            parent.index in inside
            for index in inside - {node.index}
            for parent, _ in self.nodes[index].parents
        )
        self._private[node.index] = result
        return result


def _number(name: str) -> int | None:
    return int(name) if name.isascii() and name.isdigit() else None

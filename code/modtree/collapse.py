"""Runs of structurally identical siblings (layers.0, layers.1, ...) drawn as one box, and runs of
repeated groups (0 Linear, 1 ReLU, 2 Linear, 3 ReLU, ...) as one box per member of the group."""
from __future__ import annotations

from dataclasses import dataclass

from .walk import Node

DASH = "–"  # en dash: layers.0–5 reads as a range, not as a minus
ELLIPSIS = "…"  # 0,2…398: every other one from 0 to 398
MAX_PERIOD = 8  # longest repeated group looked for (a block of Linear, norm, activation, dropout …)


@dataclass(frozen=True)
class Group:
    """One child as drawn: a single registration, or a run standing for `count` siblings."""

    label: str  # "hidden", "3", a range such as "0–5", or every other one: "0,2…398"
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
                i = end
                continue
            period, times = self._repeated_group(kids, i)
            if period:
                for k in range(period):
                    names = [kids[i + k + period * t][0] for t in range(times)]
                    out.append(Group(f"{names[0]},{names[1]}{ELLIPSIS}{names[-1]}", kids[i + k][1], times))
                i += period * times
                continue
            out += [Group(name, child) for name, child in kids[i:end]]
            i = end
        return out

    def _repeated_group(self, kids: list[tuple[str, Node]], start: int) -> tuple[int, int]:
        """(period, repetitions) of the longest run of a repeated group of 2..MAX_PERIOD numbered
        siblings starting at `start` (Linear, ReLU, Linear, ReLU ...), or (0, 0)."""
        if _number(kids[start][0]) is None or not self.private(kids[start][1]):
            return 0, 0
        best = (0, 0)
        for period in range(2, MAX_PERIOD + 1):
            if start + period * self.min_run > len(kids):
                break
            end = start + 1
            while end < len(kids):
                compare = kids[end - period] if end - period >= start else None
                if not self._continues(kids[end - 1], kids[end], compare):
                    break
                end += 1
            times = (end - start) // period
            # A group of one repeated layer is a plain run; a group must hold two kinds.
            kinds = {self.signature(kids[start + k][1]) for k in range(period)} if times else set()
            if times >= self.min_run and len(kinds) > 1 and period * times > best[0] * best[1]:
                best = (period, times)
        return best

    def _continues(self, previous: tuple[str, Node], current: tuple[str, Node],
                   compare: tuple[str, Node] | None | bool = False) -> bool:
        """current follows previous in numbering and matches `compare` (default: previous; None:
        anything, the first period of a group)."""
        before, now = _number(previous[0]), _number(current[0])
        if now is None or before is None or now != before + 1 or not self.private(current[1]):
            return False
        if compare is None:
            return True
        other = previous if compare is False else compare
        return self.signature(current[1]) == self.signature(other[1])

    def signature(self, node: Node) -> int:
        """Equal numbers mean same type, settings, tensor shapes and children, all the way down.
        Computed children first, without recursion (a nest may be thousands of levels deep)."""
        known = self._signature.get(node.index)
        if known is not None:
            return known
        stack = [(node, False)]
        while stack:
            current, ready = stack.pop()
            if current.index in self._signature:
                continue
            if not ready:
                stack.append((current, True))
                stack += [(child, False) for _, child in current.children if child.index not in self._signature]
                continue
            try:
                settings = current.module.extra_repr()
            except Exception:  # a broken extra_repr must not stop the drawing
                settings = ""
            own = tuple((s.name, s.kind, s.shape, s.dtype, s.persistent, s.trainable) for s in current.slots)
            # A module inside itself (a cycle) has no signature yet: -1.
            kids = tuple((name, self._signature.get(child.index, -1)) for name, child in current.children)
            key = (type(current.module).__module__, type(current.module).__qualname__, settings, own, kids)
            self._signature[current.index] = self._signature_ids.setdefault(key, len(self._signature_ids))
        return self._signature[node.index]

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

"""Figures drawn from tensors themselves, with Graphviz: where a tensor's elements live in its
storage (from its shape, stride and storage offset), and how two shapes broadcast.

    >>> import tensorfig
    >>> t = torch.tensor([[11, 12, 13], [21, 22, 23]])
    >>> tensorfig.memory(t, t.T, t[:, 1:], names=["t", "t.T", "t[:, 1:]"])   # shows itself
    >>> tensorfig.broadcast((400, 1), (400,), names=["pred", "y"])
    >>> tensorfig.layout(t.T).positions          # (0, 3, 1, 4, 2, 5)
    >>> tensorfig.broadcast_plan((400, 3), (400,)).conflict   # the column that does not match

A figure is `modtree`'s Figure: its DOT source (deterministic, what the output check compares),
`svg()` for the slides (glyphs as paths), `pdf()` for the handout and a plain-text `alt`.
"""
from __future__ import annotations

from .dot import broadcast_source, memory_source
from .figure import Figure
from .layout import MAX_ELEMENTS, MAX_STORAGE, Layout, layout
from .shapes import Column, Plan, broadcast_plan
from .text import describe_broadcast, describe_memory

__all__ = ["broadcast", "broadcast_plan", "Column", "Figure", "layout", "Layout", "memory", "Plan",
           "MAX_ELEMENTS", "MAX_STORAGE"]


def memory(*tensors, names=None, caption: str | None = None, legend: bool = True) -> Figure:
    """Each tensor as it looks (its values in its shape) beside the storage it reads: one table per
    storage, one row per tensor, in each storage cell the order in which that tensor reads it."""
    if not tensors:
        raise ValueError("memory() needs at least one tensor")
    names = _names(names, len(tensors), "t")
    layouts = [(name, layout(t)) for name, t in zip(names, tensors)]
    return Figure(memory_source(layouts, caption=caption, legend=legend), describe_memory(layouts))


def broadcast(*operands, names=None, caption: str | None = None, legend: bool = True) -> Figure:
    """The shapes of `operands` (tensors or shapes) aligned from the right, column by column: which
    sizes are equal, which 1 (or missing dimension) is stretched, and the result or the column that
    does not match."""
    shapes = [tuple(op.shape) if hasattr(op, "shape") else tuple(op) for op in operands]
    names = _names(names, len(shapes), "x")
    plan = broadcast_plan(*shapes)
    return Figure(broadcast_source(names, plan, caption=caption, legend=legend),
                  describe_broadcast(names, plan))


def _names(names, count: int, stem: str) -> list[str]:
    if names is None:
        return [stem if count == 1 else f"{stem}{i}" for i in range(count)]
    names = [str(n) for n in names]
    if len(names) != count:
        raise ValueError(f"{len(names)} names for {count} operands")
    return names

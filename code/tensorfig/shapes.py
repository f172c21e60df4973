"""Two (or more) shapes broadcast, column by column from the right: a missing dimension counts as 1,
a 1 is stretched to the other size, equal sizes stay; any other pair does not match."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Column:
    """One dimension, counted from the right (-1 is the last)."""
    dim: int
    sizes: tuple[int | None, ...]   # each operand's size here; None when it has no such dimension
    size: int | None                # the result's size; None where the sizes do not match

    @property
    def matches(self) -> bool:
        return self.size is not None

    def stretched(self, k: int) -> bool:
        """Operand k is stretched here: missing or 1 while the result is larger (or missing while 1)."""
        own = self.sizes[k]
        return self.matches and (own is None or (own == 1 and self.size != 1))


@dataclass(frozen=True)
class Plan:
    shapes: tuple[tuple[int, ...], ...]
    columns: tuple[Column, ...]     # leftmost first, as the shapes are written

    @property
    def conflict(self) -> Column | None:
        """The rightmost column whose sizes do not match (where torch reports the error)."""
        bad = [c for c in self.columns if not c.matches]
        return bad[-1] if bad else None

    @property
    def result(self) -> tuple[int, ...] | None:
        return None if self.conflict else tuple(c.size for c in self.columns)  # type: ignore[misc]

    def stretched_stride(self, k: int) -> tuple[int, ...] | None:
        """The stride operand k (a fresh, contiguous tensor) is read with once broadcast to the
        result: what `Tensor.expand` gives, 0 where a size is stretched. Asked of torch on the
        meta device (shapes only, no memory)."""
        if self.conflict is not None or self.result is None:
            return None
        return torch.empty(self.shapes[k], device="meta").expand(self.result).stride()


def contiguous_stride(shape) -> tuple[int, ...]:
    """The stride of a freshly made (contiguous) tensor of this shape."""
    return torch.empty(tuple(shape), device="meta").stride()


def broadcast_plan(*shapes) -> Plan:
    if len(shapes) < 2:
        raise ValueError("broadcasting needs at least two shapes")
    shapes = tuple(tuple(int(n) for n in s) for s in shapes)
    if any(n < 0 for s in shapes for n in s):
        raise ValueError(f"sizes cannot be negative: {shapes}")
    width = max(len(s) for s in shapes)
    columns = []
    for dim in range(-width, 0):
        sizes = tuple(s[dim] if len(s) >= -dim else None for s in shapes)
        present = {n for n in sizes if n is not None and n != 1}
        size = None if len(present) > 1 else (present.pop() if present else 1)
        columns.append(Column(dim, sizes, size))
    plan = Plan(shapes, tuple(columns))
    # The plan must say what torch says: the same result, or an error where torch finds one.
    try:
        torch_result = tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        torch_result = None
    if torch_result != plan.result:
        raise AssertionError(f"broadcast plan {plan.result} differs from torch's {torch_result} for {shapes}")
    return plan

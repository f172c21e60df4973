"""Where each element of a tensor lives, read from the tensor itself: its storage (every value in
storage order), and for each element of the view, in row-major order, the storage cell it reads
(storage offset + Σ index × stride)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import prod

import torch

# What fits a slide and a printed page: a view of at most this many elements, a storage window of at
# most this many cells. Larger tensors are refused with a message, not drawn unreadably small.
MAX_ELEMENTS = 48
MAX_STORAGE = 24


@dataclass(frozen=True)
class Layout:
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    storage: tuple          # every value of the storage, in storage order (Python scalars)
    positions: tuple[int, ...]  # the storage cell of each element, the view read row by row
    contiguous: bool
    storage_key: int        # the storage's address: tensors with one storage share it
    dtype: torch.dtype

    @property
    def values(self) -> tuple:
        """The view's own values, row by row, read through `positions`."""
        return tuple(self.storage[p] for p in self.positions)

    @property
    def visits(self) -> dict[int, list[int]]:
        """storage cell → the orders (1, 2, …) in which the view reads it; a cell read more than
        once (a stride of 0) has several."""
        seen: dict[int, list[int]] = {}
        for order, cell in enumerate(self.positions, start=1):
            seen.setdefault(cell, []).append(order)
        return seen


def layout(t: torch.Tensor) -> Layout:
    """The layout of a strided CPU tensor; a ValueError says why another one cannot be drawn."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"a tensor is needed, not {type(t).__name__}")
    if t.layout != torch.strided:
        raise ValueError(f"only strided tensors have a stride; this one is {t.layout}")
    if t.device.type == "meta":
        raise ValueError("a tensor on the meta device has a shape but no values to draw")
    if t.is_conj() or t.is_neg():
        raise ValueError("resolve the conjugate or negative bit first (t.resolve_conj().resolve_neg())")
    if t.ndim > 3:
        raise ValueError(f"up to 3 dimensions are drawn; this tensor has {t.ndim}")
    if t.numel() == 0:
        raise ValueError("the tensor has no elements to draw")
    if t.numel() > MAX_ELEMENTS:
        raise ValueError(f"{t.numel()} elements are too many to draw legibly (at most {MAX_ELEMENTS})")
    t = t.detach().cpu() if t.device.type != "cpu" else t.detach()
    size = t.untyped_storage().nbytes() // t.element_size()
    with torch.no_grad():
        cells = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (size,), (1,))
    storage = tuple(cells.tolist())
    shape, stride, offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
    positions = tuple(offset + sum(i * s for i, s in zip(index, stride))
                      for index in itertools.product(*(range(n) for n in shape)))
    found = Layout(shape, stride, offset, storage, positions, t.is_contiguous(),
                   t.untyped_storage().data_ptr(), t.dtype)
    # The drawing claims that these cells are what the tensor shows: hold it to that.
    own = t.reshape(-1).tolist() if t.ndim else [t.item()]
    if list(found.values) != own:
        raise ValueError("the tensor's values are not the storage cells its stride names")
    assert len(positions) == prod(shape)
    return found

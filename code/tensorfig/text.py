"""Plain-text descriptions of the figures, for screen readers and the notebook's text/plain."""
from __future__ import annotations

from .layout import Layout
from .shapes import Plan
from .style import bn


def value_text(v) -> str:
    """A storage value as the figure prints it: floats to four significant digits."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def shape_text(shape) -> str:
    dims = [str(int(n)) for n in shape]
    return f"({dims[0]},)" if len(dims) == 1 else "(" + ", ".join(dims) + ")"


def describe_memory(items: list[tuple[str, Layout]]) -> str:
    lines = []
    groups: dict[int, list[tuple[str, Layout]]] = {}
    for name, lay in items:
        groups.setdefault(lay.storage_key, []).append((name, lay))
    for members in groups.values():
        storage = members[0][1].storage
        lines.append(f"একটি storage, {bn(len(storage))}টি ঘর: " + ", ".join(value_text(v) for v in storage) + "।")
        for name, lay in members:
            order = ", ".join(str(p) for p in lay.positions)
            lines.append(f"{name}: আকার {shape_text(lay.shape)}, stride {shape_text(lay.stride)}, "
                         f"offset {lay.offset}; সারি ধরে পড়ে storage-এর ঘর {order}।")
    return "\n".join(lines)


def describe_broadcast(names: list[str], plan: Plan) -> str:
    parts = [f"{name} {shape_text(shape)}" for name, shape in zip(names, plan.shapes)]
    head = " আর ".join(parts) + ", ডান দিক থেকে মেলানো।"
    if plan.conflict is not None:
        sizes = " বনাম ".join("নেই" if n is None else str(n) for n in plan.conflict.sizes)
        return f"{head} মাত্রা {bn(plan.conflict.dim)}-এ {sizes}: মেলে না, broadcasting হয় না।"
    stretched = []
    for column in plan.columns:
        for name, k in zip(names, range(len(names))):
            if column.stretched(k):
                own = "নেই" if column.sizes[k] is None else str(column.sizes[k])
                stretched.append(f"মাত্রা {bn(column.dim)}-এ {name}-এর {own} টেনে {column.size}")
    body = ("; ".join(stretched) + "।") if stretched else "কোনো মাত্রা টানতে হয়নি।"
    return f"{head} {body} ফলের আকার {shape_text(plan.result)}।"

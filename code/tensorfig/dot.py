"""DOT source of the two figures: one HTML-like table per node, every number from a Layout or a
Plan (never typed by hand)."""
from __future__ import annotations

from html import escape

import torch

from . import style
from .layout import MAX_STORAGE, Layout
from .shapes import Plan, contiguous_stride
from .style import WORDS, bn
from .text import shape_text, value_text as _value

HEAD = (
    'graph [pad=0.15, nodesep=0.3, ranksep=0.35, labelloc=b, labeljust=l,'
    f' fontname="{style.TEXT_FONT}", fontsize={style.SMALL_PT}, fontcolor="{style.QUIET}"];\n'
    f'  node [shape=plain, fontname="{style.TEXT_FONT}", fontsize={style.TEXT_PT}, fontcolor="{style.INK}"];'
)
TABLE = (f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4" COLOR="{style.BORDER}">')


def _mono(text, bold: bool = False) -> str:
    inner = escape(str(text))
    inner = f"<B>{inner}</B>" if bold else inner
    return f'<FONT FACE="{style.KEY_FONT}">{inner}</FONT>'


def _quiet(text: str) -> str:
    return f'<FONT COLOR="{style.QUIET}" POINT-SIZE="{style.SMALL_PT}">{escape(text)}</FONT>'


def _graph(nodes: list[str], legend: str | None) -> str:
    lines = ["digraph tensorfig {", "  " + HEAD]
    for i, label in enumerate(nodes):
        lines.append(f"  n{i} [label=<{label}>];")
    for i in range(1, len(nodes)):  # several storages: one under the other
        lines.append(f"  n{i - 1} -> n{i} [style=invis];")
    if legend:
        lines.append(f"  label=<{legend}>;")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- memory -------------------------------------------------------------------------------------

def _window(members: list[Layout]) -> tuple[int, int]:
    """The storage cells drawn: all of them, or (a long storage) the span the tensors read."""
    size = len(members[0].storage)
    if size <= MAX_STORAGE:
        return 0, size - 1
    lo = min(min(m.positions) for m in members)
    hi = max(max(m.positions) for m in members)
    if hi - lo + 1 > MAX_STORAGE:
        raise ValueError(f"the tensors read {hi - lo + 1} storage cells; at most {MAX_STORAGE} are drawn")
    return lo, hi


def _grid(lay: Layout) -> str:
    """The tensor as it looks: its values in its shape (a 3-d tensor as a row of 2-d grids)."""
    values = [_value(v) for v in lay.values]

    def table(rows: list[list[str]]) -> str:
        body = "".join("<TR>" + "".join(f"<TD>{_mono(v)}</TD>" for v in row) + "</TR>" for row in rows)
        return f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="2" COLOR="{style.BORDER}">{body}</TABLE>'

    shape = lay.shape
    if len(shape) == 0:
        return table([values])
    if len(shape) == 1:
        return table([values])
    if len(shape) == 2:
        return table([values[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])])
    block = shape[1] * shape[2]
    labels, grids = [], []
    for i in range(shape[0]):
        part = values[i * block:(i + 1) * block]
        rows = [part[r * shape[2]:(r + 1) * shape[2]] for r in range(shape[1])]
        labels.append(f"<TD>{_quiet(f'[{i}]')}</TD>")  # a cell holds text or a table, not both
        grids.append(f"<TD>{table(rows)}</TD>")
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="4" CELLPADDING="0">'
            f'<TR>{"".join(labels)}</TR><TR>{"".join(grids)}</TR></TABLE>')


def _orders(orders: list[int]) -> str:
    text = ",".join(bn(o) for o in orders[:3])
    if len(orders) > 3:
        text += f"…(×{bn(len(orders))})"
    return f"<B>{text}</B>"


def _storage_table(members: list[tuple[str, Layout]], nbytes: int) -> str:
    first = members[0][1]
    lo, hi = _window([lay for _, lay in members])
    left, right = lo > 0, hi < len(first.storage) - 1
    span = (hi - lo + 1) + left + right
    cells = range(lo, hi + 1)
    dots = "<TD>…</TD>"
    storage = WORDS["storage"].format(cells=bn(len(first.storage)), dtype=str(first.dtype).removeprefix("torch."),
                                      nbytes=bn(nbytes))
    rows = [
        f'<TR><TD ALIGN="LEFT" BGCOLOR="{style.HEAD_FILL}">{escape(WORDS["cell"])}</TD>'
        + (dots if left else "")
        + "".join(f'<TD WIDTH="34" BGCOLOR="{style.HEAD_FILL}">{_mono(k)}</TD>' for k in cells)
        + (dots if right else "")
        + f'<TD BGCOLOR="{style.HEAD_FILL}">{escape(WORDS["looks"])}</TD></TR>',
        f'<TR><TD ALIGN="LEFT">{escape(WORDS["value"])} {_quiet(storage)}</TD>' + (dots if left else "")
        + "".join(f"<TD>{_mono(_value(first.storage[k]), bold=True)}</TD>" for k in cells)
        + (dots if right else "") + '<TD BORDER="0"></TD></TR>',
    ]
    for name, lay in members:
        contiguous = WORDS["contiguous_yes"] if lay.contiguous else WORDS["contiguous_no"]
        stride = shape_text(lay.stride) if lay.stride else "()"
        about = (f"{_mono(name, bold=True)}  {_quiet(contiguous)}<BR/>"
                 f"{_mono(f'shape {shape_text(lay.shape)} · stride {stride} · offset {lay.offset}')}")
        visits = lay.visits
        order_cells = "".join(
            f'<TD BGCOLOR="{style.USED_FILL}">{_orders(visits[k])}</TD>' if k in visits else "<TD></TD>"
            for k in cells)
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT">{about}</TD>' + (dots if left else "") + order_cells
                    + (dots if right else "") + f"<TD>{_grid(lay)}</TD></TR>")
    return TABLE + "".join(rows) + "</TABLE>"


def memory_source(items: list[tuple[str, Layout]], caption: str | None = None, legend: bool = True) -> str:
    groups: dict[int, list[tuple[str, Layout]]] = {}
    for name, lay in items:
        groups.setdefault(lay.storage_key, []).append((name, lay))
    nodes = []
    for members in groups.values():
        lay = members[0][1]
        nbytes = len(lay.storage) * _itemsize(lay)
        nodes.append(_storage_table(members, nbytes))
    notes = [escape(caption)] if caption else []
    if legend:
        notes += [escape(line) for line in WORDS["memory_legend"]]
    return _graph(nodes, '<BR ALIGN="LEFT"/>'.join(notes) + '<BR ALIGN="LEFT"/>' if notes else None)


def _itemsize(lay: Layout) -> int:
    return torch.empty(0, dtype=lay.dtype).element_size()


# ---- broadcasting -------------------------------------------------------------------------------

def broadcast_source(names: list[str], plan: Plan, caption: str | None = None, legend: bool = True) -> str:
    cols = plan.columns
    clash = plan.conflict
    head = (f'<TR><TD ALIGN="LEFT" BGCOLOR="{style.HEAD_FILL}">{escape(WORDS["dim"])}</TD>'
            + "".join(f'<TD BGCOLOR="{style.HEAD_FILL}">{bn(c.dim)}</TD>' for c in cols)
            + f'<TD ALIGN="LEFT" BGCOLOR="{style.HEAD_FILL}">{escape(WORDS["after"])}</TD></TR>')
    rows = [head]
    for k, (name, shape) in enumerate(zip(names, plan.shapes)):
        cells = []
        for c in cols:
            own = c.sizes[k]
            text = _quiet(WORDS["missing"]) if own is None else _mono(own)
            if c.stretched(k):
                cells.append(f'<TD BGCOLOR="{style.USED_FILL}">{text}<BR/>{_mono("→ " + str(c.size), bold=True)}</TD>')
            elif c is clash:
                cells.append(f'<TD BGCOLOR="{style.CLASH_FILL}" BORDER="3">{text}</TD>')
            else:
                cells.append(f"<TD>{text}</TD>")
        stride = plan.stretched_stride(k)
        after = "—" if stride is None else f"{shape_text(plan.result)} · stride {shape_text(stride)}"
        rows.append(f'<TR><TD ALIGN="LEFT">{_mono(name, bold=True)} {_mono(shape_text(shape))}</TD>{"".join(cells)}'
                    f'<TD ALIGN="LEFT">{_mono(after)}</TD></TR>')
    result = []
    for c in cols:
        if c.matches:
            result.append(f"<TD>{_mono(c.size, bold=True)}</TD>")
        else:
            result.append(f'<TD BGCOLOR="{style.CLASH_FILL}" BORDER="3"><B>{escape(WORDS["clash"])}</B></TD>')
    fresh = ("—" if plan.result is None else
             _mono(f"{shape_text(plan.result)} · stride {shape_text(contiguous_stride(plan.result))}")
             + " " + _quiet(WORDS["fresh"]))
    rows.append(f'<TR><TD ALIGN="LEFT"><B>{escape(WORDS["result"])}</B></TD>{"".join(result)}'
                f'<TD ALIGN="LEFT">{fresh}</TD></TR>')
    verdicts = []
    for c in cols:
        if not c.matches:
            word = WORDS["clash"]
        elif any(c.stretched(k) for k in range(len(names))):
            word = WORDS["stretch"]
        else:
            word = WORDS["same"]
        verdicts.append(f"<TD>{_quiet(word)}</TD>")
    rows.append(f'<TR><TD BORDER="0"></TD>{"".join(verdicts)}<TD BORDER="0"></TD></TR>')
    if clash is not None:
        sizes = " বনাম ".join(WORDS["missing"] if n is None else str(n) for n in clash.sizes)
        line = escape(WORDS["clash_line"].format(dim=bn(clash.dim), sizes=sizes))
    else:
        line = escape(WORDS["result_line"].format(shape=shape_text(plan.result)))
    rows.append(f'<TR><TD COLSPAN="{len(cols) + 2}" ALIGN="LEFT" BORDER="0"><B>{line}</B></TD></TR>')
    notes = [escape(caption)] if caption else []
    if legend:
        notes += [escape(line) for line in WORDS["broadcast_legend"]]
    legend_text = '<BR ALIGN="LEFT"/>'.join(notes) + '<BR ALIGN="LEFT"/>' if notes else None
    return _graph([TABLE + "".join(rows) + "</TABLE>"], legend_text)

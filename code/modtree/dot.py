"""DOT source for a View: HTML-like labels, one box per module, keys in red beside tensors."""
from __future__ import annotations

from html import escape

from . import style
from .view import Box, View
from .walk import format_shape


def emit(view: View, *, counts: bool = False, caption: str | None = None,
         legend: bool = True, lang: str = "bn") -> str:
    w = style.words(lang)
    lines = [
        "digraph modtree {",
        '  graph [rankdir=LR, ordering=out, nodesep=0.08, ranksep=0.35, pad=0.15,'
        f' fontname="{style.TEXT_FONT}", fontsize={style.TEXT_PT}, labelloc=b, labeljust=l];',
        f'  node [shape=plain, fontname="{style.TEXT_FONT}", fontsize={style.TEXT_PT}];',
        f'  edge [color="{style.ARROW}", arrowsize=0.6, penwidth=1.1,'
        f' fontname="{style.KEY_FONT}", fontsize={style.QUIET_PT}, fontcolor="{style.QUIET}"];',
    ]
    for box in view.boxes:
        lines.append(f"  n{box.index} [label=<{_box_label(box, w, counts)}>];")
    for arrow in view.arrows:
        # Names sit in the boxes; only a module with several names needs them on its arrows.
        named = view.incoming(arrow.child) > 1
        label = f' [label="{_quote(arrow.name)}"]' if named else ""
        lines.append(f"  n{arrow.parent.index}:h:e -> n{arrow.child.index}:h:w{label};")
    footer = _footer(view, w, caption, legend)
    if footer:
        lines.append(f"  label=<{footer}>;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _box_label(box: Box, w: dict, counts: bool) -> str:
    node = box.node
    fill, border = style.BLUE if node.has_parameters else style.GREY
    # Without parameters the box is dashed as well as grey: a greyscale copy keeps the difference.
    outline = "rounded" if node.has_parameters else "rounded,dashed"
    rows = [f'<TR><TD PORT="h" COLSPAN="2" ALIGN="LEFT">{_header(box)}</TD></TR>']
    if counts and node.has_parameters:  # grey already says "none"
        rows.append(_row(_quiet(_count_text(box, w)), colspan=2))
    for slot in node.slots:
        cell_fill = style.AMBER[0] if slot.kind == "buffer" else style.PARAMETER_FILL
        # A buffer row is amber and ruled with dots below (its mark in greyscale).
        rule = (f' BORDER="1" SIDES="B" STYLE="dotted" COLOR="{style.AMBER[1]}"'
                if slot.kind == "buffer" else "")
        name = _mono(slot.name)
        if not slot.trainable:  # frozen: training leaves it as it is
            name += " " + _quiet(FROZEN, italic=True)
        if not slot.persistent:
            name += " " + _quiet("persistent=False", italic=True)
            keys = _quiet(w["absent"], italic=True)
        else:
            shape = w["extra_state"] if slot.kind == "extra_state" else format_shape(slot.shape)
            keys = '<BR ALIGN="LEFT"/>'.join(_key(key, shape) for key in box.keys(slot.name))
        rows.append(
            f'<TR><TD ALIGN="LEFT"{rule} BGCOLOR="{cell_fill}">{name}</TD>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT"{rule} BGCOLOR="{cell_fill}">{keys}</TD></TR>'
        )
    if box.folded is not None:
        text = w["folded_row"].format(modules=box.folded.modules, keys=box.folded.keys)
        rows.append(_row(_quiet(text, italic=True), colspan=2))
    if node.slots:  # a strip of the box colour keeps the tensor rows inside the rounded corners
        rows.append('<TR><TD COLSPAN="2" HEIGHT="3" CELLPADDING="0"></TD></TR>')
    return (
        f'<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2" STYLE="{outline}"'
        f' COLOR="{border}" BGCOLOR="{fill}">{"".join(rows)}</TABLE>'
    )


# A frozen parameter, in the attribute's own words (the same in both languages, like persistent=False).
FROZEN = "requires_grad=False"


def _header(box: Box) -> str:
    type_name = escape(box.node.type_name)
    if not box.names:  # the model itself
        return f"<B>{type_name}</B>"
    times = f"×{box.count} " if box.count > 1 else ""
    text = f"<B>{_mono(' / '.join(box.names))}</B>  {times}{type_name}"
    if box.container:
        text += " " + _quiet(f"({escape(box.container)})")
    return text


def _count_text(box: Box, w: dict) -> str:
    each = sum(p.numel() for p in box.node.module.parameters())
    if box.count > 1:
        return w["params_run"].format(each=f"{each:,}", total=f"{each * box.count:,}")
    return w["params"].format(total=f"{each:,}")


def _footer(view: View, w: dict, caption: str | None, legend: bool) -> str:
    rows = []
    if caption:
        rows.append(f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="{style.CAPTION_PT}">{escape(caption)}</FONT></TD></TR>')
    if legend:
        # Each entry shows its mark as the tree draws it (fill, outline, rule or the key's own type),
        # so the legend reads in greyscale; two rows keep the figure no wider than the tree.
        rows.append(_legend_row([
            (_swatch(*style.BLUE), w["submodule"]),
            (_swatch(style.PARAMETER_FILL, style.BLUE[1]), w["parameter"]),
            (_swatch(*style.AMBER, rule=True), w["buffer"]),
        ]))
        rows.append(_legend_row([
            (_swatch(*style.GREY, outline="rounded,dashed"), w["empty"]),
            (f'<TD>{_key("a.b", "(n,)")}</TD>', w["key"]),
        ]))
        extra = []
        slots = [s for b in view.boxes for s in b.node.slots]
        if any(not s.persistent for s in slots):
            extra.append(w["not_saved"])
        if any(b.count > 1 for b in view.boxes):
            extra.append(w["run"])
        if any(view.incoming(b) > 1 for b in view.boxes):
            extra.append(w["shared"])
        if any(b.folded is not None for b in view.boxes):
            extra.append(w["folded"])
        if extra:
            # One left-aligned cell: graphviz would spread separate cells across the width.
            pairs = ["      ".join(escape(t) for t in extra[i:i + 2]) for i in range(0, len(extra), 2)]
            rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT">{"<BR/>".join(pairs)}</TD></TR>')
    if not rows:
        return ""
    return f'<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="0">{"".join(rows)}</TABLE>'


def _legend_row(items: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"{swatch}<TD ALIGN=\"LEFT\">{escape(text)}</TD><TD WIDTH=\"14\"></TD>" for swatch, text in items
    )
    return f'<TR><TD ALIGN="LEFT"><TABLE BORDER="0" CELLSPACING="2" CELLPADDING="1"><TR>{cells}</TR></TABLE></TD></TR>'


def _swatch(fill: str, border: str, outline: str = "rounded", rule: bool = False) -> str:
    if rule:  # the buffer rows' dotted rule, under a square swatch
        return (f'<TD BGCOLOR="{fill}" COLOR="{border}" BORDER="1" SIDES="B" STYLE="dotted"'
                ' WIDTH="18" HEIGHT="12" FIXEDSIZE="TRUE"></TD>')
    return (
        f'<TD BGCOLOR="{fill}" COLOR="{border}" BORDER="1" STYLE="{outline}"'
        ' WIDTH="18" HEIGHT="12" FIXEDSIZE="TRUE"></TD>'
    )


def _key(key: str, shape: str) -> str:
    return f'<FONT COLOR="{style.KEY_RED}" FACE="{style.KEY_FONT}">{escape(key)} {escape(shape)}</FONT>'


def _mono(text: str) -> str:
    return f'<FONT FACE="{style.KEY_FONT}">{escape(text)}</FONT>'


def _quiet(text: str, italic: bool = False) -> str:
    body = f"<I>{escape(text)}</I>" if italic else escape(text)
    return f'<FONT COLOR="{style.QUIET}" POINT-SIZE="{style.QUIET_PT}">{body}</FONT>'


def _row(content: str, colspan: int) -> str:
    return f'<TR><TD COLSPAN="{colspan}" ALIGN="LEFT">{content}</TD></TR>'


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')

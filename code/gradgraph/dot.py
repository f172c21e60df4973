"""DOT source for an autograd Graph: HTML-like labels, one box per backward function, arrows the way
the gradient flows."""
from __future__ import annotations

from collections import Counter
from html import escape

from modtree.dot import _mono, _quiet  # the module tree's monospace and quiet text, one family

from . import style
from .walk import Graph, Node

# At most this many identical arrows are drawn side by side (a tensor used twice shows as two
# arrows); more become one arrow labelled ×n.
SIDE_BY_SIDE = 3
# Saved tensors listed per function; the rest are counted.
SAVED_ROWS = 4
DIRECTIONS = {"down": "TB", "left": "RL"}


def shape_text(shape: tuple[int, ...] | None) -> str:
    """(16, 3), (3,) and () exactly as Python prints a tuple."""
    return "(?)" if shape is None else str(tuple(shape))


def emit(graph: Graph, *, direction: str = "down", saved: bool = False, compact: bool = False,
         caption: str | None = None, legend: bool = True, lang: str = "bn") -> str:
    w = style.words(lang)
    # Compact: a leaf on one line (the legend says what amber is), ranks closer: a deep graph on a slide.
    ranksep, nodesep = (0.12, 0.12) if compact else (0.18, 0.16)
    lines = [
        "digraph gradgraph {",
        f'  graph [rankdir={DIRECTIONS[direction]}, nodesep={nodesep}, ranksep={ranksep}, pad=0.15,'
        f' fontname="{style.TEXT_FONT}", fontsize={style.TEXT_PT}, labelloc=b, labeljust=l];',
        f'  node [shape=plain, fontname="{style.TEXT_FONT}", fontsize={style.TEXT_PT}];',
        f'  edge [color="{style.ARROW}", arrowsize=0.6, penwidth=1.1,'
        f' fontname="{style.KEY_FONT}", fontsize={style.QUIET_PT}, fontcolor="{style.QUIET}"];',
    ]
    for node in graph.nodes:
        lines.append(f"  n{node.index} [{_node(node, w, saved, compact)}];")
    if compact:  # tighter boxes too
        lines = [line.replace('CELLPADDING="3"', 'CELLPADDING="2"') for line in lines]
    for edge in graph.edges:
        if edge.child.kind == "none":
            attrs = ['style=dashed', 'arrowhead=tee']
        else:
            attrs = []
        times = edge.count if edge.count <= SIDE_BY_SIDE else 1
        if edge.count > SIDE_BY_SIDE or (edge.child.kind == "none" and edge.count > 1) \
                or (edge.parent.kind == "fold" and edge.count > 1):
            attrs.append(f'label="×{edge.count}"')
            times = 1
        text = f" [{', '.join(attrs)}]" if attrs else ""
        lines += [f"  n{edge.parent.index} -> n{edge.child.index}{text};"] * times
    footer = _footer(graph, w, saved, caption, legend)
    if footer:
        lines.append(f"  label=<{footer}>;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node(node: Node, w: dict, saved: bool, compact: bool) -> str:
    if node.kind == "none":
        return f'shape=plain, label="∅", fontcolor="{style.QUIET}", fontsize={style.TEXT_PT + 2}'
    return f"label=<{_label(node, w, saved, compact)}>"


def _label(node: Node, w: dict, saved: bool, compact: bool = False) -> str:
    if node.kind == "output":
        name = node.name or "output"
        rows = [_row(f"<B>{_mono(name)}</B> {_key(shape_text(node.shape))}")]
        if node.hooks:
            rows.append(_row(_quiet(w["hook"], italic=True)))
        return _table(rows, style.OUTPUT, "rounded", border=style.OUTPUT_BORDER)
    if node.kind == "leaf":
        name = node.name or w["unnamed"]
        rows = [_row(f"<B>{_mono(name)}</B> {_key(shape_text(node.shape))}")]
        if not compact:
            rows.insert(0, _row(_quiet("AccumulateGrad")))
        if node.name and not compact:
            rows.append(_row(_quiet(w["grad_to"].format(name=node.name))))
        if node.hooks:
            rows.append(_row(_quiet(w["hook"], italic=True)))
        return _table(rows, style.LEAF, "", border=style.BORDER)
    if node.kind == "fold":
        kinds = Counter(node.folded)
        rows = [_row(escape(w["fold_title"].format(count=len(node.folded))))]
        rows += [_row(_quiet(f"{escape(t)} ×{n}")) for t, n in sorted(kinds.items(), key=lambda i: (-i[1], i[0]))]
        return _table(rows, style.FOLD, "rounded,dashed", border=style.BORDER)
    if node.kind == "cut":
        functions, leaves = node.cut
        text = w["cut_title"].format(functions=functions, leaves=leaves)
        return _table([_row(escape(text))], style.FOLD, "rounded,dashed", border=style.BORDER)
    # A backward function.
    rows = [_row(f"<B>{escape(node.type_name)}</B>")]
    for named in node.named:
        extra = "".join(" " + _quiet(t, italic=True) for t in
                        ([w["retains"]] if named.retains_grad else []) + ([w["hook"]] if named.hooks else []))
        rows.append(_row(f"{_quiet('→')} {_key(named.name + ' ' + shape_text(named.shape))}{extra}"))
    if saved and node.problem is None:
        for item in node.saved[:SAVED_ROWS]:
            alias = f" = {item.alias}" if item.alias else ""
            rows.append(_row(_mono(f"{item.name}{alias} {shape_text(item.shape)}"), rule=True))
        if len(node.saved) > SAVED_ROWS:
            rows.append(_row(_quiet(w["saved_more"].format(count=len(node.saved) - SAVED_ROWS)), rule=True))
    if node.problem is not None:
        text = "<BR ALIGN=\"LEFT\"/>".join(escape(line) for line in problem_text(node, w).split("\n"))
        # Upright: Noto Sans Bengali has no italic, and a synthesised slant is hard to read.
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="{style.PROBLEM}">{text}</FONT></TD></TR>')
    return _table(rows, style.FUNCTION, "rounded", border=style.BORDER)


def problem_text(node: Node, w: dict) -> str:
    problem = node.problem
    assert problem is not None
    if problem.kind == "inplace":
        what = w["output_of"].format(op=problem.op) if problem.op else w["a_tensor"]
        return (w["inplace"].format(what=what) + "\n"
                + w["versions"].format(now=problem.now, wanted=problem.wanted))
    return w["freed"] if problem.kind == "freed" else w["unusable"]


def _table(rows: list[str], colours: tuple[str, str], outline: str, border: int) -> str:
    fill, line = colours
    style_attr = f' STYLE="{outline}"' if outline else ""
    return (f'<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3"{style_attr}'
            f' COLOR="{line}" BGCOLOR="{fill}">{"".join(rows)}</TABLE>')


def _row(content: str, rule: bool = False) -> str:
    ruled = f' BORDER="1" SIDES="T" STYLE="dotted" COLOR="{style.QUIET}"' if rule else ""
    return f'<TR><TD ALIGN="LEFT"{ruled}>{content}</TD></TR>'


def _footer(graph: Graph, w: dict, saved: bool, caption: str | None, legend: bool) -> str:
    rows = []
    if caption:
        rows.append(f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="{style.CAPTION_PT}">{escape(caption)}</FONT></TD></TR>')
    if legend:
        kinds = {n.kind for n in graph.nodes}
        # Each entry shows its mark as the graph draws it, so the legend reads in greyscale; only
        # the marks this graph uses, two to a row.
        items = [(_swatch(style.OUTPUT, "rounded", style.OUTPUT_BORDER), w["output"]),
                 (_swatch(style.FUNCTION, "rounded", style.BORDER), w["function"])]
        if "leaf" in kinds:
            items.append((_swatch(style.LEAF, "", style.BORDER), w["leaf"]))
        if "none" in kinds:
            items.append((f'<TD><FONT COLOR="{style.QUIET}">- - ⊣ ∅</FONT></TD>', w["none"]))
        if "fold" in kinds or "cut" in kinds:
            items.append((_swatch(style.FOLD, "rounded,dashed", style.BORDER), w["fold"]))
        if saved and any(n.saved for n in graph.nodes):
            items.append(('<TD BORDER="1" SIDES="T" STYLE="dotted" WIDTH="18" HEIGHT="12" FIXEDSIZE="TRUE"'
                          f' COLOR="{style.QUIET}"></TD>', w["saved"]))
        if any(n.problem is not None for n in graph.nodes):
            items.append((f'<TD><FONT COLOR="{style.PROBLEM}">✗</FONT></TD>', w["problem"]))
        # One table, so the swatches of every row line up in columns.
        per_row = 2
        cells = []
        for i in range(0, len(items), per_row):
            row = "".join(f'{swatch}<TD ALIGN="LEFT">{escape(text)}</TD><TD WIDTH="16"></TD>'
                          for swatch, text in items[i:i + per_row])
            cells.append(f"<TR>{row}</TR>")
        rows.append(f'<TR><TD ALIGN="LEFT"><TABLE BORDER="0" CELLSPACING="3" CELLPADDING="1">{"".join(cells)}'
                    '</TABLE></TD></TR>')
        rows.append(f'<TR><TD ALIGN="LEFT">{escape(w["arrows"])}</TD></TR>')
    if not rows:
        return ""
    return f'<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="0">{"".join(rows)}</TABLE>'


def _swatch(colours: tuple[str, str], outline: str, border: int) -> str:
    fill, line = colours
    style_attr = f' STYLE="{outline}"' if outline else ""
    return (f'<TD BGCOLOR="{fill}" COLOR="{line}" BORDER="{border}"{style_attr}'
            ' WIDTH="18" HEIGHT="12" FIXEDSIZE="TRUE"></TD>')


def _key(text: str) -> str:
    return f'<FONT COLOR="{style.KEY_RED}" FACE="{style.KEY_FONT}">{escape(text)}</FONT>'

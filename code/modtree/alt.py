"""A plain-text description of the drawing, for screen readers and the notebook's text/plain."""
from __future__ import annotations

from . import style
from .view import Box, View, key_count
from .walk import format_shape


def describe(view: View, lang: str = "bn") -> str:
    w = style.words(lang)
    keys = key_count(view.root.node)
    lines = [w["alt_title"].format(name=view.root.node.type_name, keys=keys)]
    told: set[int] = set()
    children: dict[int, list] = {}
    for arrow in view.arrows:
        children.setdefault(arrow.parent.index, []).append(arrow)

    def tell(box: Box, name: str, depth: int) -> None:
        pad = "  " * depth
        title = box.node.type_name if not name else f"{name}: {box.node.type_name}"
        if box.count > 1:
            title += f" ({w['alt_run'].format(count=box.count)})"
        if box.container:
            title += f" ({box.container})"
        if box.index in told:
            lines.append(f"{pad}- {title}: {w['alt_again']}")
            return
        told.add(box.index)
        if not box.node.has_parameters:
            title += f" ({w['alt_empty']})"
        lines.append(f"{pad}- {title}")
        for slot in box.node.slots:
            kind = w["alt_buffer"] if slot.kind == "buffer" else w["alt_parameter"]
            if slot.kind == "extra_state":
                kind = "extra state"
            if not slot.persistent:
                lines.append(f"{pad}  - {kind} {slot.name}: {w['alt_not_saved']}")
                continue
            shape = "" if slot.kind == "extra_state" else " " + format_shape(slot.shape)
            found = ", ".join(f"{key}{shape}" for key in box.keys(slot.name))
            frozen = " (frozen, requires_grad=False)" if not slot.trainable else ""
            lines.append(f"{pad}  - {kind} {slot.name}{frozen} → {w['alt_key']} {found}")
        if box.folded is not None:
            lines.append(f"{pad}  - " + w["alt_folded"].format(
                modules=box.folded.modules, keys=box.folded.keys))
        for arrow in children.get(box.index, []):
            tell(arrow.child, arrow.name, depth + 1)

    tell(view.root, "", 0)
    return "\n".join(lines) + "\n"


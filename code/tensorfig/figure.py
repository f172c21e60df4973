"""The figure: modtree's Figure (DOT source, PDF for the handout, alt text), with the slides' SVG
drawn by cairo, every glyph a path. A plain SVG names its fonts, and an <img> on a slide draws
them with whatever fonts the presenting computer has: other widths than Graphviz measured, and
text running out of its cell. Paths look the same everywhere."""
from __future__ import annotations

import re

from modtree.figure import SVG_SCALE
from modtree.figure import Figure as DotFigure

SIZE = re.compile(r'(<svg\b[^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"')


class Figure(DotFigure):
    def svg(self) -> str:
        # Drawn 1.25 times its points, like modtree's trees: 14 pt labels show at 23 px on a
        # 1280x720 slide before the slide scales the picture to fit.
        svg = self._render("svg:cairo").decode("utf-8")
        return SIZE.sub(lambda m: f'{m[1]} width="{float(m[2]) * SVG_SCALE:.0f}pt" '
                                  f'height="{float(m[3]) * SVG_SCALE:.0f}pt"', svg, count=1)

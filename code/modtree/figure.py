"""The drawing as returned to authors and to Jupyter."""
from __future__ import annotations

import base64
import re
from pathlib import Path

from .render import run_dot

SVG_SCALE = 1.25
FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png", ".dot": "dot", ".gv": "dot"}


class Figure:
    """DOT source plus its renderings; each rendering is made once, on first use."""

    def __init__(self, source: str, alt: str):
        self.source = source  # DOT; deterministic, compared by the notebook output checks
        self.alt = alt  # plain-text description for screen readers
        self._rendered: dict[str, bytes] = {}

    def _render(self, fmt: str, *options: str) -> bytes:
        key = " ".join((fmt, *options))
        if key not in self._rendered:
            self._rendered[key] = run_dot(self.source, fmt, *options)
        return self._rendered[key]

    def svg(self) -> str:
        # Drawn larger than its points: on a 1280x720 slide the smallest label (11 pt) shows at
        # 11 x 1.25 x 4/3 = 18 px. The viewBox stays, so nothing inside moves; the PDF keeps its size.
        svg = self._render("svg").decode("utf-8")
        return re.sub(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"',
                      lambda m: f'<svg width="{float(m[1]) * SVG_SCALE:.0f}pt" height="{float(m[2]) * SVG_SCALE:.0f}pt"',
                      svg, count=1)

    def pdf(self) -> bytes:
        return self._render("pdf")

    def png(self, dpi: int = 144) -> bytes:
        return self._render("png", f"-Gdpi={dpi}")

    def save(self, path: str | Path) -> Path:
        """Write the figure; the format comes from the extension (.svg .pdf .png .dot .gv)."""
        path = Path(path)
        fmt = FORMATS.get(path.suffix.lower())
        if fmt is None:
            raise ValueError(f"unknown figure format {path.suffix!r}; use one of {', '.join(FORMATS)}")
        data = {"svg": lambda: self.svg().encode("utf-8"), "pdf": self.pdf,
                "png": self.png, "dot": lambda: self.source.encode("utf-8")}[fmt]()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        makers = {
            "image/svg+xml": self.svg,
            "application/pdf": lambda: base64.b64encode(self.pdf()).decode("ascii"),
            "text/vnd.graphviz": lambda: self.source,
            "text/plain": lambda: self.alt,
        }
        wanted = [m for m in makers if (not include or m in include) and not (exclude and m in exclude)]
        return {mime: makers[mime]() for mime in wanted}

    def __repr__(self) -> str:
        return self.alt

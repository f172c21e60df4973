"""Draw any nn.Module's registration tree with Graphviz, its state_dict keys and shapes on it.

    >>> fig = modtree.draw(model)          # in a notebook the figure shows itself
    >>> fig.source, fig.svg(), fig.pdf(), fig.alt
    >>> print(modtree.parameter_table(model))
"""
from __future__ import annotations

from torch import nn

from .alt import describe
from .dot import emit
from .figure import Figure
from .render import GraphvizNotFoundError
from .table import ParameterTable, Row, parameter_table
from .view import build_view

__all__ = ["draw", "Figure", "GraphvizNotFoundError", "parameter_table", "ParameterTable", "Row"]


def draw(
    model: nn.Module,
    *,
    depth: int | None = None,
    expand: bool = False,
    counts: bool = False,
    caption: str | None = None,
    legend: bool = True,
    lang: str = "bn",
    min_run: int = 3,
) -> Figure:
    """The module tree of `model`, drawn from the live object.

    depth    stop after this many levels below the model (None: draw everything).
    expand   draw every sibling, even long runs of identical layers.
    counts   write each box's parameter count.
    min_run  shortest run of identical numbered siblings drawn as one box.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"draw() needs an nn.Module, not {type(model).__name__}")
    if depth is not None and depth < 0:
        raise ValueError("depth must be 0 or more")
    view = build_view(model, depth=depth, min_run=0 if expand else min_run)
    source = emit(view, counts=counts, caption=caption, legend=legend, lang=lang)
    return Figure(source, describe(view, lang))

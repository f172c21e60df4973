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

__all__ = ["draw", "Figure", "GraphvizNotFoundError", "ModTreeError", "parameter_table", "ParameterTable", "Row",
           "unwrap"]


class ModTreeError(Exception):
    """The model could not be walked (its own code raised): one line naming the model and why."""


def unwrap(model: nn.Module) -> nn.Module:
    """The model itself, not torch.compile's wrapper (an OptimizedModule holding it as `_orig_mod`)."""
    seen = set()
    while type(model).__name__ == "OptimizedModule" and isinstance(getattr(model, "_orig_mod", None), nn.Module) \
            and id(model) not in seen:
        seen.add(id(model))
        model = model._orig_mod
    return model


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
    model = unwrap(model)
    try:
        view = build_view(model, depth=depth, min_run=0 if expand else min_run)
        source = emit(view, counts=counts, caption=caption, legend=legend, lang=lang)
        alt = describe(view, lang)
    except (RecursionError, RuntimeError, AttributeError, TypeError, ValueError, KeyError) as error:
        text = " ".join(str(error).split())[:200]
        raise ModTreeError(f"cannot walk {type(model).__name__}: {type(error).__name__}: {text}") from None
    return Figure(source, alt)

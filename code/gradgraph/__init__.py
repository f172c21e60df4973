"""Draw the autograd graph of a tensor with Graphviz: what backward will visit, walked from
`grad_fn` through `next_functions`, with the leaves' names and shapes.

    >>> fig = gradgraph.draw(loss, names=model)                   # in a notebook the figure shows itself
    >>> fig = gradgraph.draw(y, names={"y": y, "w": w, "x": x}, saved=True)
    >>> fig.source, fig.svg(), fig.pdf(), fig.alt

The figure is the module tree's sibling (`modtree`): the same fonts, the same `Figure` (SVG for
slides, PDF for the handout, DOT compared by the output checks, alt text).
"""
from __future__ import annotations

import torch

from modtree.figure import Figure
from modtree.render import GraphvizNotFoundError

from .alt import describe
from .collapse import cut, fold_chains
from .dot import DIRECTIONS, emit
from .walk import Graph, NothingToDraw, names_from, walk

__all__ = ["draw", "graph", "Figure", "GradGraphError", "GraphvizNotFoundError"]

# Chains longer than this many functions are folded; graphs beyond this many nodes are cut.
LONGEST_CHAIN = 8
MOST_NODES = 120


class GradGraphError(Exception):
    """Nothing to draw, or the graph could not be walked: one line saying why."""


def graph(*roots: torch.Tensor, names: object = None, collapse: int = LONGEST_CHAIN,
          most: int = MOST_NODES) -> Graph:
    """The walked graph (nodes and edges) as it will be drawn."""
    if not roots:
        raise TypeError("draw() needs at least one tensor")
    try:
        walked = walk(list(roots), names_from(names))
    except NothingToDraw as error:
        raise GradGraphError(str(error)) from None
    return cut(fold_chains(walked, collapse), most)


def draw(
    *roots: torch.Tensor,
    names: object = None,
    saved: bool = False,
    direction: str = "down",
    compact: bool = False,
    collapse: int = LONGEST_CHAIN,
    most: int = MOST_NODES,
    caption: str | None = None,
    legend: bool = True,
    lang: str = "bn",
) -> Figure:
    """The autograd graph of `roots` (usually one loss), drawn from the live tensors.

    names      a mapping name → tensor, an nn.Module (its named_parameters) or a list of them: leaves
               are labelled with these names; a named non-leaf labels the function that made it.
    saved      list the tensors each backward function saved (and whose they are, when named).
    direction  "down": the output on top, gradients flowing down; "left": the output on the right,
               gradients flowing left (the forward computation reads left to right).
    compact    a leaf on one line and the ranks closer (a deep graph on a slide).
    collapse   fold chains of more than this many functions (0: never).
    most       draw at most this many nodes; the rest are counted in one box (0: no bound).
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {sorted(DIRECTIONS)}, not {direction!r}")
    walked = graph(*roots, names=names, collapse=collapse, most=most)
    source = emit(walked, direction=direction, saved=saved, compact=compact, caption=caption, legend=legend, lang=lang)
    return Figure(source, describe(walked, lang))

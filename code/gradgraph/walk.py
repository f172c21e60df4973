"""The autograd graph of one or more tensors, walked from `grad_fn` through `next_functions`.

What backward will visit, in the order it is recorded: one Node per backward function (a leaf's
`AccumulateGrad` included, with the leaf's name and shape), one Edge per entry of
`next_functions`, pointing the way the gradient flows (from the output towards the leaves). An
input that gets no gradient (a `None` entry: a tensor without `requires_grad`, a detached one) is
a Node of its own kind, so the figure shows where the gradient stops. Saved tensors are read here
too: one that was changed in place since, or freed by an earlier backward, marks its function.

The walk is a loop, not a recursion, so a chain of many thousands of operations is walked like a
short one. It keeps the functions it met alive for the drawing's lifetime only.
"""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import torch
from torch import nn

SAVED_PREFIX = "_saved_"
# Saved attributes that are sizes and strides of another saved tensor, not tensors themselves.
_SIZE_SUFFIXES = ("_sym_sizes", "_sym_strides", "_sizes", "_strides")
_VERSION = re.compile(r"is at version (\d+); expected version (\d+)")
_OUTPUT_OF = re.compile(r"which is output (\d+) of (\w+)")


class NothingToDraw(ValueError):
    """The tensor has no grad_fn and does not require grad: autograd recorded nothing."""


@dataclass(eq=False)
class Saved:
    """One tensor a backward function keeps for its own use."""

    name: str  # the attribute without its prefix: self, other, result, mat1 …
    shape: tuple[int, ...]
    alias: str | None = None  # the caller's name for the same tensor, when it has one


@dataclass(frozen=True)
class Problem:
    """Why backward could not use a function's saved tensors, read from torch's own message."""

    kind: str  # "inplace": changed in place since it was saved; "freed": an earlier backward freed it
    op: str = ""  # inplace: the operation whose output it was (Sigmoid …), when torch names it
    now: int = 0  # inplace: the tensor's version now, and the version backward needs
    wanted: int = 0
    message: str = ""  # torch's message, on one line


@dataclass(eq=False)
class Named:
    """A tensor the caller named that this function produced (its grad_fn is this function)."""

    name: str
    shape: tuple[int, ...]
    retains_grad: bool = False
    hooks: int = 0


@dataclass(eq=False)
class Node:
    index: int  # walk order; becomes the DOT node name
    kind: str  # "output", "function", "leaf", "none", "fold", "cut"
    type_name: str = ""  # MulBackward0, AccumulateGrad …
    fn: object | None = None  # the autograd node (kept alive while drawn)
    name: str | None = None  # output and leaf: the caller's name for the tensor
    shape: tuple[int, ...] | None = None
    named: list[Named] = field(default_factory=list)  # function: named tensors it produced
    saved: list[Saved] = field(default_factory=list)
    problem: Problem | None = None  # its saved tensors cannot be used by backward
    hooks: int = 0  # leaf: hooks registered on the tensor
    folded: list[str] = field(default_factory=list)  # fold: the type names it stands for
    cut: tuple[int, int] = (0, 0)  # cut: functions and leaves not drawn


@dataclass(eq=False)
class Edge:
    parent: Node
    child: Node
    count: int = 1  # several identical entries of next_functions, drawn as one labelled arrow


@dataclass(eq=False)
class Graph:
    roots: list[Node]
    nodes: list[Node]
    edges: list[Edge]

    def children(self) -> dict[int, list[Edge]]:
        """Each node's outgoing edges, by node index, in next_functions order."""
        out: dict[int, list[Edge]] = {n.index: [] for n in self.nodes}
        for edge in self.edges:
            out[edge.parent.index].append(edge)
        return out

    def parents(self) -> dict[int, list[Edge]]:
        into: dict[int, list[Edge]] = {n.index: [] for n in self.nodes}
        for edge in self.edges:
            into[edge.child.index].append(edge)
        return into


# ---------------------------------------------------------------- names


def names_from(names: object) -> dict[str, torch.Tensor]:
    """The caller's names: a mapping name → tensor, an nn.Module (its named_parameters), or a list
    of those (merged in order; a later name for the same tensor wins)."""
    if names is None:
        return {}
    if isinstance(names, nn.Module):
        return dict(names.named_parameters())
    if isinstance(names, Mapping):
        found = {}
        for key, value in names.items():
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"names[{key!r}] is {type(value).__name__}, not a tensor")
            found[str(key)] = value
        return found
    if isinstance(names, Iterable) and not isinstance(names, (str, bytes)):
        merged: dict[str, torch.Tensor] = {}
        for part in names:
            merged.update(names_from(part))
        return merged
    raise TypeError(f"names must be a mapping of name to tensor or an nn.Module, not {type(names).__name__}")


def _storage_key(t: torch.Tensor) -> tuple | None:
    """What tells a saved tensor is the caller's tensor: the same memory, seen the same way.
    (Unpacking a saved leaf gives a new Python object over the same memory.)"""
    if t.numel() == 0 or t.layout != torch.strided:
        return None
    try:
        return (t.data_ptr(), tuple(t.shape), t.stride(), t.dtype)
    except RuntimeError:
        return None


class Names:
    def __init__(self, named: dict[str, torch.Tensor]):
        self.by_id = {id(t): n for n, t in named.items()}
        self.by_storage = {k: n for n, t in named.items() if (k := _storage_key(t)) is not None}
        self.by_fn: dict[object, list[tuple[str, torch.Tensor]]] = {}
        for name, tensor in named.items():
            if tensor.grad_fn is not None:
                self.by_fn.setdefault(tensor.grad_fn, []).append((name, tensor))

    def of(self, tensor: torch.Tensor) -> str | None:
        return self.by_id.get(id(tensor))

    def alias(self, tensor: torch.Tensor) -> str | None:
        name = self.by_id.get(id(tensor))
        if name is None and (key := _storage_key(tensor)) is not None:
            name = self.by_storage.get(key)
        return name


# ---------------------------------------------------------------- the walk


def _hooks(tensor: torch.Tensor) -> int:
    hooks = getattr(tensor, "_backward_hooks", None)
    return len(hooks) if hooks else 0


def _read_saved(fn: object, names: Names) -> tuple[list[Saved], Problem | None]:
    """The tensors `fn` saved for backward, and the first problem reading them."""
    saved: list[Saved] = []
    attributes = [a for a in dir(fn) if a.startswith(SAVED_PREFIX) and not a.endswith(_SIZE_SUFFIXES)]
    if hasattr(fn, "saved_tensors") and hasattr(fn, "apply"):  # a custom autograd.Function's ctx
        attributes.append("saved_tensors")
    for attribute in attributes:
        label = attribute[len(SAVED_PREFIX):] if attribute.startswith(SAVED_PREFIX) else "saved"
        try:
            value = getattr(fn, attribute)
        except RuntimeError as error:
            return saved, _problem(str(error))
        values = value if isinstance(value, (tuple, list)) else (value,)
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        for i, t in enumerate(tensors):
            name = label if len(tensors) == 1 else f"{label}[{i}]"
            saved.append(Saved(name, tuple(t.shape), names.alias(t)))
    return saved, None


def _problem(message: str) -> Problem:
    text = " ".join(message.split())
    version = _VERSION.search(text)
    if version:
        of = _OUTPUT_OF.search(text)
        return Problem("inplace", of[2] if of else "", int(version[1]), int(version[2]), text)
    if "freed" in text or "second time" in text:
        return Problem("freed", message=text)
    return Problem("unusable", message=text)


def walk(roots: list[torch.Tensor], named: dict[str, torch.Tensor]) -> Graph:
    names = Names(named)
    nodes: list[Node] = []
    edges: list[Edge] = []
    by_fn: dict[object, Node] = {}

    def add(kind: str, **fields: object) -> Node:
        node = Node(len(nodes), kind, **fields)  # type: ignore[arg-type]
        nodes.append(node)
        return node

    def function_node(fn: object) -> tuple[Node, bool]:
        known = by_fn.get(fn)
        if known is not None:
            return known, False
        type_name = type(fn).__name__
        if type_name == "AccumulateGrad":
            leaf = fn.variable  # type: ignore[attr-defined]
            node = add("leaf", type_name=type_name, fn=fn, name=names.of(leaf), shape=tuple(leaf.shape),
                       hooks=_hooks(leaf))
        else:
            saved, problem = _read_saved(fn, names)
            produced = [Named(n, tuple(t.shape), bool(t.retains_grad), _hooks(t)) for n, t in names.by_fn.get(fn, [])]
            node = add("function", type_name=type_name, fn=fn, named=produced, saved=saved, problem=problem)
        by_fn[fn] = node
        return node, True

    root_nodes: list[Node] = []
    queue: deque[Node] = deque()
    for tensor in roots:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"draw() needs tensors, not {type(tensor).__name__}")
        root = add("output", name=names.of(tensor), shape=tuple(tensor.shape), hooks=_hooks(tensor))
        root_nodes.append(root)
        if tensor.grad_fn is None:
            if not tensor.requires_grad:
                raise NothingToDraw(
                    f"the tensor {'' if root.name is None else root.name + ' '}has no grad_fn and does not "
                    "require grad: autograd recorded nothing (made under torch.no_grad() or "
                    "inference_mode, detached, or from tensors that do not require grad)")
            # A leaf itself: the only thing backward does is fill its .grad.
            root.kind = "leaf"
            root.type_name = "AccumulateGrad"
            continue
        first, new = function_node(tensor.grad_fn)
        # The function that made the root is the root's: its name is on the root already.
        first.named = [n for n in first.named if n.name != root.name]
        edges.append(Edge(root, first))
        if new:
            queue.append(first)
    while queue:  # breadth first: the drawing order is the order backward meets the functions
        parent = queue.popleft()
        counted: dict[int, Edge] = {}
        for fn, _slot in parent.fn.next_functions:  # type: ignore[union-attr]
            if fn is None:
                edges.append(Edge(parent, add("none")))
                continue
            child, new = function_node(fn)
            if new:
                queue.append(child)
            if child.index in counted:
                counted[child.index].count += 1
            else:
                counted[child.index] = edge = Edge(parent, child)
                edges.append(edge)
    return Graph(root_nodes, nodes, edges)

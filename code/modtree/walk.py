"""The registration tree of a module: what each module registered, under which name, in order.

Built from the same private dictionaries that ``state_dict()`` walks (``_parameters``,
``_buffers``, ``_modules``), so the keys drawn are the keys ``state_dict()`` lists.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from torch import nn

EXTRA_STATE = "_extra_state"  # the key suffix state_dict() uses for get_extra_state()


@dataclass(eq=False)
class Slot:
    """One registered tensor of one module (or its extra state)."""

    name: str
    kind: str  # "parameter", "buffer" or "extra_state"
    shape: tuple[int, ...] | None  # None: not known (lazy module) or not a tensor
    dtype: str
    persistent: bool  # False: a buffer state_dict() leaves out
    numel: int
    trainable: bool = True  # False: a parameter with requires_grad=False (frozen)


@dataclass(eq=False)
class Node:
    """One module object; a module registered under two names is still one Node."""

    index: int  # pre-order position, the same order as named_modules()
    module: nn.Module
    type_name: str
    slots: list[Slot]
    children: list[tuple[str, Node]] = field(default_factory=list)  # registration order
    parents: list[tuple[Node, str]] = field(default_factory=list)

    _has_parameters: bool | None = field(default=None, repr=False)

    @property
    def has_parameters(self) -> bool:
        """True when this module or anything below it owns a parameter (walked here, not with
        module.parameters(): a model's own named_modules() may be broken, and deep nests would
        exhaust Python's recursion)."""
        if self._has_parameters is None:
            seen, stack, found = set(), [self], False
            while stack and not found:
                node = stack.pop()
                if node.index in seen:
                    continue
                seen.add(node.index)
                found = node._has_parameters or any(s.kind == "parameter" for s in node.slots)
                stack += [child for _, child in node.children]
            self._has_parameters = bool(found)
        return self._has_parameters


def walk(model: nn.Module) -> tuple[Node, list[Node]]:
    """Return the root Node and every Node in pre-order (without recursion: a nest thousands of
    levels deep is walked like a flat one)."""
    by_object: dict[int, Node] = {}  # id() only tells objects apart; it never reaches the output
    order: list[Node] = []

    def make(module: nn.Module) -> Node:
        node = Node(len(order), module, type(module).__name__, _slots(module))
        by_object[id(module)] = node
        order.append(node)
        return node

    root = make(model)
    stack = [(root, iter(list(model._modules.items())))]
    while stack:
        node, pending = stack[-1]
        for name, child in pending:
            if child is None:  # state_dict() skips these too
                continue
            known = by_object.get(id(child))
            child_node = known if known is not None else make(child)
            node.children.append((name, child_node))
            child_node.parents.append((node, name))
            if known is None:
                stack.append((child_node, iter(list(child._modules.items()))))
                break
        else:
            stack.pop()
    return root, order


def _slots(module: nn.Module) -> list[Slot]:
    # state_dict() order: parameters, then buffers, then the extra state.
    slots = [
        Slot(name, "parameter", _shape(p), _dtype(p), True, _numel(p), bool(getattr(p, "requires_grad", True)))
        for name, p in module._parameters.items()
        if p is not None
    ]
    skipped = module._non_persistent_buffers_set
    slots += [
        Slot(name, "buffer", _shape(b), _dtype(b), name not in skipped, _numel(b))
        for name, b in module._buffers.items()
        if b is not None
    ]
    if type(module).get_extra_state is not nn.Module.get_extra_state:
        slots.append(Slot(EXTRA_STATE, "extra_state", None, "", True, 0))
    return slots


def _shape(tensor) -> tuple[int, ...] | None:
    try:
        return tuple(int(d) for d in tensor.shape)
    except (RuntimeError, ValueError):  # uninitialised lazy parameter
        return None


def _dtype(tensor) -> str:
    return str(getattr(tensor, "dtype", ""))


def _numel(tensor) -> int:
    try:
        return int(tensor.numel())
    except (RuntimeError, ValueError):
        return 0


def format_shape(shape: tuple[int, ...] | None) -> str:
    """(16, 3), (3,) and () exactly as Python prints a tuple; (?) when unknown."""
    return "(?)" if shape is None else str(tuple(shape))


def join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name

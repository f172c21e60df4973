"""scripts/gradgraph PACKAGE.MODULE:NAME [-o FIGURE] [--input SHAPE] [--saved] [--direction down|left] …

NAME is a zero-argument function that returns a tensor, or (tensor, names); a tensor; or an
nn.Module (a class, a zero-argument factory or an instance), which is run on a seeded random input
of --input's shape, and whose parameters name the leaves.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import torch
from torch import nn

from . import GradGraphError, draw
from .dot import DIRECTIONS
from modtree.figure import FORMATS
from modtree.render import GraphvizNotFoundError


def _target(spec: str) -> object:
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise LookupError(f"{spec!r} is not an import path; write it as package.module:name")
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as error:
        raise LookupError(f"cannot import {module_name!r}: {error}") from error
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise LookupError(f"{module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    return target


def _shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(part) for part in text.replace("x", ",").split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a shape; write it as 4,3") from None
    if not shape or any(n <= 0 for n in shape):
        raise argparse.ArgumentTypeError(f"{text!r} is not a shape of positive sizes")
    return shape


def load(spec: str, input_shape: tuple[int, ...] | None) -> tuple[torch.Tensor, object]:
    """The tensor to draw from and the names of its leaves."""
    target = _target(spec)
    if isinstance(target, type) and issubclass(target, nn.Module) or isinstance(target, nn.Module):
        model = target if isinstance(target, nn.Module) else target()
        return _run_model(spec, model, input_shape)
    if isinstance(target, torch.Tensor):
        return target, None
    if not callable(target):
        raise LookupError(f"{spec} is neither a tensor, a function nor an nn.Module")
    try:
        made = target()
    except TypeError as error:
        raise LookupError(f"{spec}() needs arguments ({error}); give a zero-argument function") from error
    if isinstance(made, nn.Module):
        return _run_model(spec, made, input_shape)
    if isinstance(made, torch.Tensor):
        return made, None
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.Tensor):
        return made[0], made[1]
    raise LookupError(f"{spec}() returned {type(made).__name__}; return a tensor or (tensor, names)")


def _run_model(spec: str, model: nn.Module, input_shape: tuple[int, ...] | None) -> tuple[torch.Tensor, object]:
    if input_shape is None:
        raise LookupError(f"{spec} is an nn.Module: give the shape of its input, e.g. --input 4,3")
    torch.manual_seed(0)
    output = model(torch.randn(input_shape))
    if not isinstance(output, torch.Tensor):
        raise LookupError(f"{spec} returned {type(output).__name__} from forward, not a tensor")
    return output, [model, {"output": output}]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gradgraph",
        description="Draw the autograd graph of a tensor, walked from grad_fn through next_functions.",
        epilog="example: gradgraph bazarghar:DeliveryMLP --input 4,3 -o figures/delivery-graph.svg",
    )
    parser.add_argument("target", help="package.module:name of a function returning a tensor (or "
                                       "(tensor, names)), a tensor, or an nn.Module class or factory")
    parser.add_argument("-o", "--output", type=Path,
                        help=f"figure file; format from its extension ({' '.join(FORMATS)}); "
                             "without it the DOT source goes to stdout")
    parser.add_argument("--input", type=_shape, help="an nn.Module's input shape, e.g. 4,3 (seeded random)")
    parser.add_argument("--saved", action="store_true", help="list the tensors each function saved")
    parser.add_argument("--direction", choices=sorted(DIRECTIONS), default="down",
                        help="down: output on top; left: output on the right")
    parser.add_argument("--compact", action="store_true", help="leaves on one line, ranks closer")
    parser.add_argument("--collapse", type=int, default=8, help="fold chains longer than this (0: never)")
    parser.add_argument("--most", type=int, default=120, help="draw at most this many nodes (0: all)")
    parser.add_argument("--caption", help="caption under the figure")
    parser.add_argument("--no-legend", action="store_true", help="leave out the legend")
    parser.add_argument("--lang", choices=["bn", "en"], default="bn", help="language of the legend")
    parser.add_argument("--alt", action="store_true", help="print the figure's text description")
    args = parser.parse_args(argv)

    if args.output is not None and args.output.suffix.lower() not in FORMATS:
        parser.error(f"unknown figure format {args.output.suffix!r}; use one of {' '.join(FORMATS)}")
    if args.collapse < 0 or args.most < 0:
        parser.error("--collapse and --most must be 0 or more")
    try:
        root, names = load(args.target, args.input)
    except LookupError as error:
        parser.error(str(error))
    try:
        figure = draw(root, names=names, saved=args.saved, direction=args.direction, compact=args.compact,
                      collapse=args.collapse, most=args.most, caption=args.caption,
                      legend=not args.no_legend, lang=args.lang)
    except (GradGraphError, TypeError) as error:
        print(f"gradgraph: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    if args.alt:
        sys.stdout.write(figure.alt)
    if args.output is None:
        if not args.alt:
            sys.stdout.write(figure.source)
        return 0
    try:
        figure.save(args.output)
    except GraphvizNotFoundError as error:
        print(f"gradgraph: {error}", file=sys.stderr)
        return 1
    print(f"gradgraph: wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

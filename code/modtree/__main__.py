"""scripts/modtree PACKAGE.MODULE:NAME [-o FIGURE] [--depth N] [--expand] [--counts] [--table]"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from torch import nn

from . import ModTreeError, draw, parameter_table, unwrap
from .figure import FORMATS
from .render import GraphvizNotFoundError


def load(spec: str) -> nn.Module:
    """'torch.nn:Transformer' -> Transformer(); a module instance is used as it is."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise LookupError(f"{spec!r} is not an import path; write it as package.module:Name")
    try:
        target = importlib.import_module(module_name)
    except ImportError as error:
        raise LookupError(f"cannot import {module_name!r}: {error}") from error
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise LookupError(f"{module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if isinstance(target, nn.Module):
        return target
    if not callable(target):
        raise LookupError(f"{spec} is neither an nn.Module nor a class or factory")
    try:
        model = target()
    except TypeError as error:
        raise LookupError(f"{spec}() needs arguments ({error}); give a zero-argument factory") from error
    if not isinstance(model, nn.Module):
        raise LookupError(f"{spec}() returned {type(model).__name__}, not an nn.Module")
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="modtree",
        description="Draw a model's module tree with its state_dict keys and shapes.",
        epilog="example: modtree torch.nn:Transformer -o figures/transformer.svg",
    )
    parser.add_argument("model", help="package.module:Name of an nn.Module class or zero-argument factory")
    parser.add_argument("-o", "--output", type=Path,
                        help=f"figure file; format from its extension ({' '.join(FORMATS)}); "
                             "without it the DOT source goes to stdout")
    parser.add_argument("--depth", type=int, help="draw this many levels below the model")
    parser.add_argument("--expand", action="store_true", help="draw every layer of identical runs")
    parser.add_argument("--counts", action="store_true", help="write parameter counts in the boxes")
    parser.add_argument("--table", action="store_true", help="print the per-module parameter table")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--caption", help="caption under the figure")
    parser.add_argument("--no-legend", action="store_true", help="leave out the colour legend")
    parser.add_argument("--lang", choices=["bn", "en"], default="bn", help="language of the legend")
    args = parser.parse_args(argv)

    if args.output is not None and args.output.suffix.lower() not in FORMATS:
        parser.error(f"unknown figure format {args.output.suffix!r}; use one of {' '.join(FORMATS)}")
    if args.depth is not None and args.depth < 0:
        parser.error("--depth must be 0 or more")
    try:
        model = load(args.model)
    except LookupError as error:
        parser.error(str(error))

    try:
        if args.table or args.markdown:
            try:
                table = parameter_table(unwrap(model), depth=args.depth, lang=args.lang)
            except (RecursionError, RuntimeError, AttributeError, TypeError, ValueError, KeyError) as error:
                raise ModTreeError(f"cannot walk {type(model).__name__}: {type(error).__name__}: "
                                   f"{' '.join(str(error).split())[:200]}") from None
            sys.stdout.write(table.markdown() if args.markdown else table.text())
        figure = draw(model, depth=args.depth, expand=args.expand, counts=args.counts,
                      caption=args.caption, legend=not args.no_legend, lang=args.lang)
    except ModTreeError as error:
        print(f"modtree: {error}", file=sys.stderr)
        return 1
    if args.output is None:
        if not (args.table or args.markdown):
            sys.stdout.write(figure.source)
        return 0
    try:
        figure.save(args.output)
    except GraphvizNotFoundError as error:
        print(f"modtree: {error}", file=sys.stderr)
        return 1
    print(f"modtree: wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

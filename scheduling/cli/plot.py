"""``topoalloc plot``: figures from a result store -- each study's own, or the kinds asked for.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._args import UserError, add_subcommand, positive_float, positive_int
from ._common import draw_figures, open_store

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``plot`` to the sub-command parsers ``sub``."""
    p = add_subcommand(sub, "plot", "draw figures from a result store",
                       "  topoalloc plot results/seed002-fig1.sqlite\n"
                       "  topoalloc plot results/compare.sqlite --kind fairness --load 0.4 --out figures/")
    p.add_argument("results", metavar="RESULTS.sqlite", help="a store written by run, sweep, compare or replay")
    p.add_argument("--out", metavar="DIR", help="directory for the figures (default: next to the store)")
    p.add_argument("--study", metavar="NAME", help="only this study (default: every study in the store)")
    p.add_argument("--kind", action="append", choices=("load", "utilization", "fairness"), default=None,
                   help="draw this figure instead of the study's own (repeatable)")
    p.add_argument("--metric", default="mean_turnaround", help="metric for --kind load (default: mean_turnaround)")
    p.add_argument("--load", type=positive_float, default=None,
                   help="load for --kind fairness (default: the highest)")
    p.add_argument("--panels", default="experiment", choices=("experiment", "allocator", "policy", "none"),
                   help="one subplot per ... (default: experiment)")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument("--format", default="png", choices=("png", "svg", "pdf"), help="file format (default: png)")
    p.add_argument("--dpi", type=positive_int, default=110, help="resolution of PNG figures (default: 110)")


def command(args: argparse.Namespace) -> int:
    from ..experiments import PlotSpec

    path = Path(args.results)
    if not path.is_file():
        raise UserError(f"no such result store: {path}")
    specs = None
    if args.kind:
        specs = [PlotSpec(kind=k, metric=args.metric, panels=args.panels, logy=args.logy or k == "fairness",
                          load=args.load) for k in args.kind]
    with open_store(str(path)) as store:
        if not len(store):
            raise UserError(f"{path} holds no results")
        try:
            figs = draw_figures(store, args.out or path.parent, study=args.study, specs=specs, fmt=args.format,
                                dpi=args.dpi)
        except KeyError as exc:
            raise UserError(str(exc.args[0])) from None
    for f in figs:
        print(f"figure: {f}")
    if not figs:
        print(f"topoalloc plot: no figure drawn from {path}", file=sys.stderr)
    return 0 if figs else 1

"""``topoalloc export``: a result store's rows to CSV or Parquet.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._args import UserError, add_subcommand
from ._common import open_store

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``export`` to the sub-command parsers ``sub``."""
    p = add_subcommand(sub, "export", "export a result store to CSV or Parquet",
                       "  topoalloc export results/seed002-fig2.sqlite fig2.csv\n"
                       "  topoalloc export results/seed002-fig2.sqlite fig2.parquet   # needs pyarrow")
    p.add_argument("results", metavar="RESULTS.sqlite")
    p.add_argument("out", metavar="OUT.csv|OUT.parquet")
    p.add_argument("--no-timing", action="store_true",
                   help="leave out the wall-clock columns (wall_time, finished_at; otherwise the last two), so two "
                        "runs of the same command export identical files")


def command(args: argparse.Namespace) -> int:
    if not Path(args.results).is_file():
        raise UserError(f"no such result store: {args.results}")
    with open_store(args.results) as store:
        try:
            n = store.export(args.out, timing=not args.no_timing)
        except (ValueError, ImportError) as exc:
            raise UserError(str(exc)) from None
    print(f"{n} rows written to {args.out}")
    return 0

"""The ``topoalloc`` command line: compare allocators, run experiments from TOML files on local
processes or a Dask cluster, replay traces, draw figures.

Subcommands: ``compare`` (embedded default, no file needed), ``run`` and ``sweep`` (a TOML study),
``replay`` (an SWF trace), ``plot`` (figures from a result store), ``snapshot`` (occupancy pictures
and a schedule of one simulation), ``export`` (CSV/Parquet) and ``list`` (known names).
Every subcommand's ``--help`` shows an example.

One module per sub-command, each with its arguments (``add_parser``) and its command:

=============  =====================================================================================
``compare``    ``topoalloc compare``
``run``        ``topoalloc run`` and ``topoalloc sweep``; :func:`stored_run` reads a run back
``replay``     ``topoalloc replay``
``plot``       ``topoalloc plot``
``snapshot``   ``topoalloc snapshot``
``export``     ``topoalloc export``
``listing``    ``topoalloc list``
``reproduce``  ``topoalloc reproduce`` (its arguments live in :mod:`scheduling.reproduce.cli`)
``_args``      argument types and option groups the sub-commands share
``_common``    tables, stores, executors and figures the sub-commands share
=============  =====================================================================================

>>> build_parser().parse_args(["compare", "--loads", "0.3,0.5"]).loads
[0.3, 0.5]
"""

from __future__ import annotations

import argparse
import sys

from . import compare, export, listing, plot, replay, reproduce, run, snapshot
from ._args import UserError, VersionAction, plain
from ._common import kept_alive, thaw
from .run import StoredRun, stored_run

__all__ = ["main", "build_parser", "stored_run", "StoredRun"]

#: What ``topoalloc --help`` says first (the first paragraphs of this docstring).
_DESCRIPTION = __doc__.split("\n\nOne module per sub-command")[0] + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation tools and tests)."""
    parser = argparse.ArgumentParser(
        prog="topoalloc", description=plain(_DESCRIPTION), formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  topoalloc compare\n  topoalloc run examples/seed002_fig2_cube_buddy_rsr.toml\n"
               "  topoalloc plot results/seed002-fig2.sqlite",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    compare.add_parser(sub)
    run.add_parsers(sub)
    replay.add_parser(sub)
    plot.add_parser(sub)
    snapshot.add_parser(sub)
    export.add_parser(sub)
    listing.add_parser(sub)
    reproduce.add_parser(sub)
    return parser


_COMMANDS = {"compare": compare.command, "run": run.run_command, "sweep": run.sweep_command,
             "replay": replay.command, "plot": plot.command, "snapshot": snapshot.command, "export": export.command,
             "list": listing.command, "reproduce": reproduce.command}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``topoalloc`` console script; returns the exit status."""
    try:
        with kept_alive():  # the modules imported and the parser live until the command ends
            from ..experiments import ConfigError, TaskError, TraceSupportError
            from ..experiments.registry import UnknownAllocatorError

            parser = build_parser()
        args = parser.parse_args(argv)
        try:
            return _COMMANDS[args.command](args)
        except (UserError, ConfigError, UnknownAllocatorError, TraceSupportError) as exc:
            print(f"topoalloc {args.command}: error: {exc}", file=sys.stderr)
            return 2
        except TaskError as exc:
            print(f"topoalloc {args.command}: a simulation failed: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            store = getattr(args, "store", None)
            print(f"\ninterrupted; finished simulations are stored{f' in {store}' if store else ''}: "
                  "run the same command again to resume", file=sys.stderr)
            return 130
    finally:
        thaw()

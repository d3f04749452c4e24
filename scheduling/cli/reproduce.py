"""``topoalloc reproduce``: the papers' claims (:mod:`scheduling.reproduce`), whose arguments and
command live with them (:mod:`scheduling.reproduce.cli`); imported when the parser is built.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._args import add_subcommand

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``reproduce`` to the sub-command parsers ``sub``."""
    from ..reproduce.cli import add_parser as add_reproduce

    add_reproduce(sub, add_subcommand)


def command(args: argparse.Namespace) -> int:
    """Run ``topoalloc reproduce``; see :func:`scheduling.reproduce.cli.command`."""
    from ..reproduce.cli import command as reproduce_command

    return reproduce_command(args)

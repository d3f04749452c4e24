"""Argument types and option groups the sub-commands share: numbers and lists checked with a message
naming the value, ``--constraints`` rules, the run-length, execution and saturation options, and
:class:`UserError`, the error a command prints as one line (exit status 2).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["UserError", "VersionAction", "plain", "csv_list", "float_list", "positive_float", "positive_int",
           "nonneg_int", "RULES_HELP", "constraint_rule", "add_subcommand", "execution_options", "fraction",
           "load_width", "relative_width", "saturation_options", "size_options"]


def _version() -> str:
    from .. import __version__

    return __version__


class VersionAction(argparse.Action):
    """``--version``: prints ``topoalloc <version>`` and exits."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"topoalloc {_version()}\n")
        parser.exit()


def plain(text: str) -> str:
    """Help text without reStructuredText markup (``x`` and :func:`x` print as x)."""
    return re.sub(r"(?::\w+:)?`{1,2}([^`]+)`{1,2}", r"\1", text)


class UserError(Exception):
    """A user error: printed without a traceback, exit status 2."""


def csv_list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
    return items


def float_list(text: str) -> list[float]:
    try:
        vals = [float(t) for t in csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    bad = next((v for v in vals if not 0 < v < math.inf), None)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"loads must be finite numbers > 0, got {bad!r} in {text!r}")
    return vals


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < v < math.inf:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return v


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return v


RULES_HELP = ("threshold:K[:LEVEL[:KIND]] (jobs of at least K nodes: required rack), probability:P[:LEVEL[:KIND]] "
              "(each job with probability P: preferred rack), by-size[:N=LEVEL,...] (default 64=rack,640=block; "
              "larger: none), switches[:N|auto][@T] (Slurm's --switches=N@T; auto: the fewest leaf switches that "
              "hold the job)")


def constraint_rule(text: str) -> dict[str, Any]:
    """A ``--constraints`` rule, as its ``[constraints]`` table."""
    from ..workloads.constraints import parse_rule

    try:
        return parse_rule(text).to_json()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_subcommand(sub: Any, name: str, help: str, example: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, epilog="example:\n" + example,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def execution_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("where the simulations run")
    g.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="local worker processes (default: the number of cores)")
    g.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run on a Dask distributed cluster, e.g. tcp://scheduler:8786 (needs topoalloc[dask])")
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is off anyway when not on a terminal)")


def fraction(what: str) -> Any:
    """An argument type: a number in (0, 1); the error names ``what`` the number is."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not 0 < v < 1:
            raise argparse.ArgumentTypeError(f"expected {what} in (0, 1), got {text!r}")
        return v

    parse.__name__ = what.replace(" ", "_")
    return parse


load_width = fraction("a load width")
relative_width = fraction("a relative half-width")


def saturation_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("saturation load")
    g.add_argument("--saturation", action="store_true",
                   help="also find each configuration's saturation load by bisection (and the utilisation it "
                        "carries there); probes are stored under '<experiment>#saturation'")
    g.add_argument("--saturation-tolerance", type=load_width, default=0.02, metavar="W",
                   help="width of the saturation bracket (default: 0.02)")


def size_options(p: argparse.ArgumentParser, *, defaults: str) -> None:
    g = p.add_argument_group(f"run length and replications (default: {defaults})")
    g.add_argument("--jobs", type=positive_int, default=None, metavar="N", help="completions per simulation")
    g.add_argument("--warmup", type=nonneg_int, default=None, metavar="N",
                   help="first arrivals left out of the statistics")
    g.add_argument("--replications", type=positive_int, default=None, metavar="N",
                   help="independent replications per point (tables and figures show a 95%% interval from 3)")
    g.add_argument("--seed", type=nonneg_int, default=None, metavar="S", help="experiment seed")

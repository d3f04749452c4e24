"""The ``topoalloc`` command line."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import PackageNotFoundError, version

__all__ = ["main"]


def _version() -> str:
    try:
        return version("topoalloc")
    except PackageNotFoundError:  # running from a source tree
        return "0+unknown"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``topoalloc`` console script."""
    parser = argparse.ArgumentParser(prog="topoalloc", description=__doc__)
    parser.add_argument("--version", action="version", version=f"topoalloc {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("compare", help="compare allocators under FCFS with RSR folding")
    args = parser.parse_args(argv)
    if args.command == "compare":
        print("topoalloc compare: the simulator is not built yet; allocators available:")
        import topoalloc

        for name in topoalloc.__all__:
            obj = getattr(topoalloc, name)
            if isinstance(obj, type) and issubclass(obj, topoalloc.Allocator) and obj.recognition:
                print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

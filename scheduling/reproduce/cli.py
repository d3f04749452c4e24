"""``topoalloc reproduce``: run the papers' claims and print what reproduces."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._papers import PAPER_MODULES

__all__ = ["add_parser", "command"]


def add_parser(sub: Any, make: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the ``reproduce`` subcommand to ``sub`` (``make`` is the CLI's subparser factory)."""
    p = make(sub, "reproduce", "run every paper claim the library asserts and print what reproduces",
             "  topoalloc reproduce                    # every paper, reduced size (a few minutes)\n"
             "  topoalloc reproduce --paper 002 --full # one paper at the paper's size\n"
             "  topoalloc reproduce --list             # the claims, without running them\n"
             "  topoalloc reproduce --doc docs/reproductions.md")
    p.add_argument("--paper", choices=list(PAPER_MODULES), default=None, help="only this paper's claims")
    p.add_argument("--claim", action="append", default=None, metavar="ID", help="only this claim (repeatable)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="reduced size, as the tests run them (the default)")
    size.add_argument("--full", action="store_true", help="the papers' sizes (hours on 2 cores)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="claims run in N processes (default: the number of cores)")
    p.add_argument("--list", action="store_true", help="list the claims and the verdicts the library asserts")
    p.add_argument("--out", metavar="FILE.md", help="also write the results as a Markdown table")
    p.add_argument("--doc", metavar="FILE.md", help="write the reproductions document and exit (runs nothing)")


def command(args: argparse.Namespace) -> int:
    """Run ``topoalloc reproduce``; exit status 1 if a claim the library asserts no longer holds."""
    from .claims import Size, UnknownClaimError, claims
    from .report import document, format_results, markdown_table, run_claims, verdict

    if args.workers is not None and args.workers < 1:
        print(f"topoalloc reproduce: error: --workers must be >= 1, got {args.workers}", file=sys.stderr)
        return 2
    if args.doc:
        Path(args.doc).parent.mkdir(parents=True, exist_ok=True)
        Path(args.doc).write_text(document(), encoding="utf-8")
        print(f"wrote {args.doc}")
        return 0
    try:
        selected = claims(args.paper, args.claim)
    except UnknownClaimError as exc:
        print(f"topoalloc reproduce: error: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for c in selected:
            where = "beyond the papers" if c.is_beyond else c.where
            print(f"{c.paper}  {where:<22} {c.id}\n  {c.statement}\n  verdict (full size): {c.verdict}")
        return 0
    size = Size(quick=not args.full)
    print(f"# {len(selected)} claims at {size.name} size; ours = mean ± 95% half-width over replications "
          "(seeds, or windows of a log)"
          + ("; the verdict is the full size's (--full)" if size.quick else ""), flush=True)
    started = time.perf_counter()
    results = []
    for r in run_claims(selected, size, args.workers):
        results.append(r)
        print(format_results(r), flush=True)
    counts: dict[str, int] = {}
    per_paper: dict[str, dict[str, int]] = {}
    for r in results:
        v = verdict(r)
        counts[v] = counts.get(v, 0) + 1
        key = "beyond the papers" if r.claim.is_beyond else r.claim.paper
        mine = per_paper.setdefault(key, {})
        mine[v] = mine.get(v, 0) + 1
    print()
    for key, mine in per_paper.items():
        print(f"{key}: " + ", ".join(f"{n} {v}" for v, n in mine.items()))
    print(", ".join(f"{n} {v}" for v, n in counts.items()) + f" ({time.perf_counter() - started:.0f} s)")
    if args.out:
        Path(args.out).write_text(markdown_table(results), encoding="utf-8")
        print(f"wrote {args.out}")
    return 1 if any(v.startswith("REGRESSION") for v in counts) else 0

"""``topoalloc snapshot``: one configuration simulated, with pictures of the machine's occupancy at
chosen times and of the schedule.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._args import UserError, add_subcommand, nonneg_int, positive_float, positive_int

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``snapshot`` to the sub-command parsers ``sub``."""
    p = add_subcommand(sub, "snapshot", "simulate one configuration; draw occupancy snapshots and the schedule",
                       "  topoalloc snapshot --topology mesh:32x32 --allocator FrameSliding --policy RSR-1 --load 0.4 "
                       "--out occupancy.png --schedule schedule.png\n"
                       "  topoalloc snapshot --topology cube:8 --allocator Buddy --count 8")
    p.add_argument("--topology", default="mesh:32x32", metavar="T", help="default: mesh:32x32")
    p.add_argument("--allocator", default=None,
                   help="default: FirstFit on a mesh, Buddy on a cube, FlatPool on flat, FirstFree on a tree")
    p.add_argument("--policy", default="RSR-1", help="default: RSR-1")
    p.add_argument("--load", type=positive_float, default=0.4, help="offered load (default: 0.4)")
    p.add_argument("--jobs", type=positive_int, default=300, metavar="N", help="completions (default: 300)")
    p.add_argument("--count", type=positive_int, default=6, metavar="K", help="snapshots (default: 6)")
    p.add_argument("--seed", type=nonneg_int, default=0, metavar="S")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="occupancy picture (default: occupancy.png, unless only --schedule is asked for)")
    p.add_argument("--schedule", default=None, metavar="FILE", help="draw the schedule (Downey Fig. 5 style)")
    p.add_argument("--max-jobs", type=positive_int, default=150, metavar="N", help="jobs in the schedule picture")


def command(args: argparse.Namespace) -> int:
    from .. import plots
    from ..experiments import TopologySpec, WorkloadSpec, canonical_allocator, make_allocator, record_occupancy
    from ..experiments import registry as reg
    from ..experiments.parse import canonical_policy

    try:
        topo = TopologySpec.parse(args.topology)
        default = {"mesh": "FirstFit", "cube": "Buddy", "flat": "FlatPool", "tree": "FirstFree"}[topo.kind]
        name = canonical_allocator(args.allocator or default)
    except (ValueError, KeyError) as exc:
        raise UserError(str(exc)) from None
    if reg.allocator_kind(name) != topo.kind:
        raise UserError(f"--allocator: {name} runs on a {reg.allocator_kind(name)} topology, not {topo.label}")
    try:
        canonical_policy(args.policy)
    except (KeyError, ValueError) as exc:
        raise UserError(f"--policy: {exc}") from None
    workload = WorkloadSpec().resolve(topo, name).build(args.load, topo.size)
    horizon = args.jobs / workload.arrival_rate
    times = [horizon * (i + 1) / (args.count + 1) for i in range(args.count)]
    allocator = make_allocator(name, topo.build())
    result, snaps = record_occupancy(allocator, args.policy, workload, times=times, jobs=args.jobs, seed=args.seed)
    title = f"{name} {args.policy} on {topo.label}, load {args.load:g}"
    if args.out is not None or args.schedule is None:  # only what was asked for
        print(plots.save(plots.occupancy_figure(snaps, title=title), args.out or "occupancy.png"))
    if args.schedule:
        print(plots.save(plots.schedule_figure(result, max_jobs=args.max_jobs, title=title), args.schedule))
    return 0

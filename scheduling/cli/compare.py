"""``topoalloc compare``: allocators under FCFS with RSR folding on the embedded default study (no
file needed), with the placement options ``--metrics``, ``--comm`` and ``--runtime-model``.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._args import (
    RULES_HELP,
    UserError,
    add_subcommand,
    constraint_rule,
    csv_list,
    execution_options,
    float_list,
    positive_int,
    relative_width,
    saturation_options,
    size_options,
)
from ._common import (
    draw_figures,
    not_run_lines,
    open_store,
    print_cannot_run,
    print_saturation,
    print_table,
    run_with_table,
    sizes_line,
    store_notes,
    study_time_unit,
    write_out,
)

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    """Add ``compare`` to the sub-command parsers ``sub``."""
    from ..experiments import defaults as d

    p = add_subcommand(sub, "compare",
                       "compare allocators under FCFS with RSR folding (embedded default, no file needed)",
                       "  topoalloc compare\n"
                       "  topoalloc compare --allocators FirstFit,FrameSliding --policies RSR-0,RSR-1,RSR-2 "
                       "--loads 0.2,0.3,0.4 --replications 5 --out compare.csv\n"
                       "  topoalloc compare --topology cube:10 --loads 0.5,0.7 --store compare.sqlite\n"
                       "  topoalloc compare --topology tree:2x10x64:block,rack,host --policies FCFS,EASY "
                       "--constraints by-size")
    p.add_argument("--topology", action="append", default=None, metavar="T",
                   help="mesh:WxH, cube:D, flat:P, tree:AxBx..xN[:names] (counts per level, nodes per leaf switch "
                        "last), fattree:K,N or tree:FILE (a Slurm topology.conf/.yaml or a node-label .csv); repeat "
                        "for several (default: mesh:32x32 and cube:8)")
    p.add_argument("--allocators", type=csv_list, default=None, metavar="A,B",
                   help="allocator names (default: every mesh allocator on the mesh, every cube allocator on "
                        "the cube, every registered tree allocator on a tree; 'topoalloc list' shows them all)")
    p.add_argument("--constraints", default=None, metavar="RULE", type=constraint_rule,
                   help="on a switch tree, attach topology constraints to the jobs by rule: " + RULES_HELP)
    p.add_argument("--policies", type=csv_list, default=None, metavar="P,Q",
                   help=f"policy names (default: {','.join(d.COMPARE_POLICIES)})")
    p.add_argument("--loads", type=float_list, default=None, metavar="L1,L2",
                   help=f"offered loads (default: {','.join(map(str, d.COMPARE_LOADS['mesh']))} on a mesh, "
                        f"{','.join(map(str, d.COMPARE_LOADS['cube']))} on a cube)")
    size_options(p, defaults=f"{d.COMPARE_JOBS} jobs, {d.COMPARE_WARMUP} warm-up, replications until the 95% "
                             f"half-width of the mean turnaround is within {d.COMPARE_TARGET.relative:.0%} of the "
                             f"mean ({d.COMPARE_TARGET.min_runs} to {d.COMPARE_TARGET.max_runs}), seed 0")
    p.add_argument("--target", type=relative_width, default=None, metavar="REL",
                   help=f"relative 95%% half-width of the mean turnaround to replicate each point to (default "
                        f"{d.COMPARE_TARGET.relative:g}); --replications fixes the count instead")
    p.add_argument("--max-replications", type=positive_int, default=None, metavar="N",
                   help=f"the most replications a point runs to reach --target (default "
                        f"{d.COMPARE_TARGET.max_runs}); points that reach it short of the target are marked n!")
    p.add_argument("--metrics", type=csv_list, default=None, metavar="M,N",
                   help="table columns and figures (default: mean_turnaround,utilization,effectiveness; "
                        "e.g. mean_turnaround,mean_hops; see topoalloc list)")
    p.add_argument("--comm", default=None, metavar="F|LOW:HIGH",
                   help="each job's communication fraction: a number in [0, 1], or LOW:HIGH for uniform on it "
                        "(default 0: placement does not change run times)")
    p.add_argument("--runtime-model", default=None, metavar="MODEL",
                   help="placement-dependent run times: dilation, hop-bytes, hop-bytes:nearest-neighbour, or "
                        "contention (dilation plus jobs slowing each other through shared links; needs --comm)")
    p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
    p.add_argument("--store", metavar="FILE.sqlite", help="keep every replication in this SQLite file (resumable)")
    p.add_argument("--plots", metavar="DIR", help="also draw the figures into DIR (needs matplotlib)")
    saturation_options(p)
    execution_options(p)


def command(args: argparse.Namespace) -> int:
    from ..experiments import compare_study

    metrics, comm, model = _placement_options(args)
    study, skipped = compare_study(
        topologies=args.topology, allocators=args.allocators, policies=args.policies, loads=args.loads,
        replications=args.replications, jobs=args.jobs, warmup=args.warmup, seed=args.seed or 0, target=args.target,
        max_replications=args.max_replications, comm=comm, runtime_model=model, constraints=args.constraints,
    )
    with open_store(args.store or ":memory:") as store:
        executor_note = "Dask" if args.dask else f"{args.workers or os.cpu_count()} local workers"
        print(f"topoalloc compare: {', '.join(e.description for e in study.experiments)}")
        tree = any(e.topology.kind == "tree" for e in study.experiments)
        print(f"How: {sizes_line(study)}. Every allocator of a topology runs the same jobs (common random numbers: "
              "sides uniform on 1..W x 1..H on a mesh, dimensions uniform on 0..D-1 on a cube, seed 002 §4.1, "
              "counts uniform on 1..P on a flat machine"
              + (", the kueue#4634 mix on a tree (mostly jobs of one rack or less, a few heroes of a block or the "
                 "machine; scheduling.workloads.HeroMix)" if tree else "")
              + (", topology constraints by the rule " + ", ".join(f"{k}={v}" for k, v in args.constraints.items())
                 if args.constraints else "")
              + "; exponential service with mean 5) at the same offered load, counted on the requested processors. "
              f"± is the 95% confidence half-width over replications; times (t.u.) are in the unit of the service "
              f"times (the mean service time is 5 t.u.); {executor_note}.")
        if skipped:
            print("not run:")
            for name, reason in skipped.items():
                print(f"  {name}: {reason}")
        stats = run_with_table(study, store, args, metrics)
        print()
        not_run = not_run_lines(stats, study.points(), skipped, study)
        summaries = print_table(study, store, experiment_column=False, metrics=metrics, not_run=not_run)
        print_cannot_run(study, stats)
        notes = store_notes(study, store, stats, args.store)
        print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s" + (f"; {notes}" if notes else ""))
        write_out(summaries, args.out, metrics, not_run=not_run, time_unit=study_time_unit(study))
        if args.saturation:
            print_saturation(study, store, args)
        if args.plots:
            specs = None
            if args.metrics:  # one figure per metric asked for, every allocator a curve
                from ..experiments import PlotSpec

                specs = [PlotSpec("utilization") if m in ("utilization", "effectiveness") else
                         PlotSpec("load", m, logy=m in _LOG_METRICS, file=f"compare-{m}.png") for m in metrics]
                specs = list({(s.kind, s.metric if s.kind == "load" else ""): s for s in specs}.values())
            for path in draw_figures(store, args.plots, study="compare", specs=specs):
                print(f"figure: {path}")
    return 0


#: Metrics drawn on a log axis by ``compare --plots`` (times that grow by orders of magnitude).
_LOG_METRICS = frozenset({"mean_turnaround", "mean_wait", "p50_turnaround", "p90_turnaround", "p99_turnaround",
                          "mean_slowdown", "mean_bounded_slowdown"})


def _placement_options(args: argparse.Namespace) -> tuple[tuple[str, ...], Any, Any]:
    """``compare``'s ``--metrics``, ``--comm`` and ``--runtime-model``, checked."""
    from ..experiments import METRICS, Component

    metrics = tuple(args.metrics) if args.metrics else ("mean_turnaround", "utilization", "effectiveness")
    for m in metrics:
        if m not in METRICS:
            raise UserError(f"unknown metric {m!r} for --metrics; choose from {', '.join(METRICS)}")
    comm: Any = 0.0
    if args.comm is not None:
        try:
            parts = [float(x) for x in args.comm.split(":")]
        except ValueError:
            raise UserError(f"--comm must be a number in [0, 1] or LOW:HIGH, got {args.comm!r}") from None
        if len(parts) > 2 or not all(0.0 <= x <= 1.0 for x in parts) or (len(parts) == 2 and parts[0] > parts[1]):
            raise UserError(f"--comm must be a number in [0, 1] or LOW:HIGH with 0 <= LOW <= HIGH <= 1, "
                            f"got {args.comm!r}")
        comm = parts[0] if len(parts) == 1 else Component.of("Uniform", low=parts[0], high=parts[1])
    model = None
    if args.runtime_model is not None:
        name, _, pattern = args.runtime_model.partition(":")
        key = name.lower().replace("_", "-")
        if key not in ("dilation", "hop-bytes", "contention"):
            raise UserError(f"--runtime-model must be dilation, hop-bytes, hop-bytes:PATTERN or contention, "
                            f"got {args.runtime_model!r}")
        if key in ("dilation", "contention") and pattern:
            raise UserError(f"the {key} model takes no pattern, got {args.runtime_model!r}")
        if key == "dilation":
            model = Component("Dilation")
        elif key == "contention":
            model = Component("Contention")
        else:
            model = Component.of("HopBytes", pattern=pattern) if pattern else Component("HopBytes")
        try:
            from ..experiments.schema import WorkloadSpec

            WorkloadSpec(runtime_model=model).make_runtime_model()
        except ValueError as exc:
            raise UserError(f"--runtime-model: {exc}") from None
        if comm == 0.0:
            raise UserError("--runtime-model needs --comm: with no communication, placement changes no run time")
    return metrics, comm, model

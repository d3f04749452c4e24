"""``topoalloc replay``: a trace -- SWF (a path, or a name in ``$TOPOALLOC_TRACES``), a Batsim
workload JSON or a Slurm ``sacct --parsable2`` dump, recognised by content
(:func:`scheduling.formats.load.detect_format`) -- replayed under chosen allocators and policies,
each configuration reported as it finishes (:mod:`scheduling.experiments.replay` prepares the
points); ``--export`` writes each configuration's schedule as Batsim's ``_jobs.csv`` or SWF.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._args import (
    RULES_HELP,
    UserError,
    add_subcommand,
    constraint_rule,
    csv_list,
    execution_options,
    float_list,
    nonneg_int,
    positive_int,
)
from ._common import executor_for, kept_alive, not_run_lines, print_cannot_run, progress_flag, write_out

__all__ = ["add_parser", "command"]

#: The formats ``--export`` writes (:data:`scheduling.formats.EXPORT_FORMATS`).
EXPORT_CHOICES = ("batsim", "swf")


def add_parser(sub: Any) -> None:
    """Add ``replay`` to the sub-command parsers ``sub``."""
    p = add_subcommand(sub, "replay", "replay a trace (SWF, Batsim workload or sacct dump) under chosen allocators "
                       "and policies",
                       "  topoalloc replay NASA-iPSC-1993-3.1-cln --topology cube:7 --allocators Buddy,GrayCode "
                       "--policies FCFS,RSR-1\n"
                       "  topoalloc replay path/to/trace.swf --topology mesh:16x20 --oversize clamp "
                       "--policies FCFS,EASY\n"
                       "  topoalloc replay site.sacct --topology tree:topology.conf --allocators SlurmTree,FirstFree "
                       "--policies Recorded,EASY --export batsim --export-dir schedules")
    p.epilog = (p.epilog or "") + _REPLAY_NOTES
    p.add_argument("trace", metavar="TRACE",
                   help="SWF, Batsim workload JSON or sacct --parsable2 dump, recognised by content (plain or "
                        "gzip): a path, or the name of an SWF trace in $TOPOALLOC_TRACES (the .swf/.swf.gz suffix "
                        "may be left out)")
    p.add_argument("--topology", default=None, metavar="T",
                   help="mesh:WxH, cube:D, flat:P, tree:AxBx..xN[:names], fattree:K,N or tree:FILE (default: flat "
                        "with the trace's MaxProcs, else its largest job); see below for the request a job of n "
                        "processors makes")
    p.add_argument("--constraints", default=None, metavar="RULE", type=constraint_rule,
                   help="on a switch tree, attach topology constraints to the jobs by rule: " + RULES_HELP)
    p.add_argument("--oversize", choices=("skip", "clamp", "error"), default="skip",
                   help="jobs larger than the machine, or than an allocator can grant (a DHC forest's largest "
                        "tree): skip them (counted in the report), clamp them to the machine (to the allocator's "
                        "largest count), or stop with an error before the run (default: skip)")
    p.add_argument("--allocators", type=csv_list, default=None, metavar="A,B",
                   help="default: FlatPool on flat, FirstFit on a mesh, Buddy on a cube, FirstFree on a tree")
    p.add_argument("--policies", type=csv_list, default=["FCFS"], metavar="P,Q", help="default: FCFS")
    p.add_argument("--loads", type=float_list, default=None, metavar="L1,L2",
                   help="rescale the arrivals to these offered loads (default: as recorded)")
    p.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                   help="stop after N completions (default: the whole trace)")
    p.add_argument("--warmup", type=nonneg_int, default=0, metavar="N", help="first arrivals left out")
    p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
    p.add_argument("--store", metavar="FILE.sqlite", help="keep the results in this SQLite file")
    p.add_argument("--export", choices=EXPORT_CHOICES, default=None,
                   help="also write each configuration's schedule into --export-dir: batsim, Batsim's "
                        "NAME_jobs.csv (each job's nodes as an interval set); swf, NAME.swf and its nodes sidecar "
                        "NAME.swf.nodes.csv; NAME is allocator-policy-trace (or -loadL). Each configuration is "
                        "simulated once more for it after the runs, including those resumed from --store (their "
                        "rows are not recomputed)")
    p.add_argument("--export-dir", default=".", metavar="DIR",
                   help="the folder --export writes into, created if missing (default: the current folder)")
    execution_options(p)


def command(args: argparse.Namespace) -> int:
    from ..experiments import (
        Component,
        ResultStore,
        TopologySpec,
        aggregate,
        canonical_allocator,
        format_table,
        read_trace,
        run_points,
        trace_points,
    )
    from ..experiments import registry as reg
    from ..experiments.parse import canonical_policy
    from ..experiments.report import write_summaries
    from ..experiments.runner import backlog_unbounded

    trace = _trace_file(args.trace)
    if args.topology:
        try:
            topo = TopologySpec.parse(args.topology)
        except ValueError as exc:
            raise UserError(f"--topology: {exc}") from None
    else:
        raw = _read_replay_trace(read_trace, trace)
        size = raw.machine_size or max((j.size or 1 for j in raw), default=1)
        topo = TopologySpec("flat", (int(size),))
    if args.constraints is not None and topo.kind != "tree":
        raise UserError(f"--constraints: topology constraints need a switch tree (tree:..., fattree:...), not "
                        f"{topo.label}")
    default_alloc = {"flat": "FlatPool", "mesh": "FirstFit", "cube": "Buddy", "tree": "FirstFree"}[topo.kind]
    allocs = []
    for a in args.allocators or [default_alloc]:
        try:
            name = canonical_allocator(a)
        except reg.UnknownAllocatorError as exc:
            raise UserError(f"--allocators: {exc}") from None
        if reg.allocator_kind(name) != topo.kind:
            raise UserError(f"--allocators: {name} runs on a {reg.allocator_kind(name)} topology, not {topo.label}")
        allocs.append(Component(name))
    pols = []
    for p in args.policies:
        try:
            pols.append(canonical_policy(p))
        except (KeyError, ValueError) as exc:
            raise UserError(f"--policies: {exc}") from None
    with kept_alive():  # the jobs live until the command ends (and in read_trace's cache)
        jobs = _read_replay_trace(read_trace, trace, topo, too_large=args.oversize)
    points = trace_points(trace, topo, allocs, pols, loads=args.loads, jobs=args.jobs, warmup=args.warmup,
                          too_large=args.oversize, constraints=args.constraints)
    fits = _fit_allocators(jobs, topo, allocs, args.oversize)
    print(f"replay on {topo.label}: {jobs.report}")
    for line in fits:
        print(f"  {line}")
    if args.loads:
        print(f"arrivals rescaled to offered loads {', '.join(f'{x:g}' for x in args.loads)} "
              f"(recorded: {jobs.offered_load(topo.size):.3g})")
    metrics: tuple[str, ...] = ("mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_bounded_slowdown")
    if topo.kind == "tree":  # locality on the tree: a recorded schedule's (Recorded, on its nodes) too
        metrics += ("mean_leaf_switches", "mean_hops", "blocked_fraction")
    order = [p.point_id for p in points]
    by_id = {p.point_id: p for p in points}
    with ResultStore(args.store or ":memory:") as store:
        finished: list[dict[str, Any]] = []

        def on_row(row: dict[str, Any]) -> None:  # each configuration as it completes; --out kept current
            finished.append(row)
            p = by_id.get(row["point_id"])
            name = f"{p.allocator.label} {p.policy_label} {'trace' if p.load is None else f'load {p.load:g}'}" \
                if p is not None else row["point_id"]
            print(f"finished {len(finished)}/{len(points)}: {name}: mean turnaround {row['mean_turnaround']:.4g} s, "
                  f"mean wait {row['mean_wait']:.4g} s, utilisation {row['utilization']:.3f} "
                  f"({row['wall_time']:.1f} s)" + (" -- backlog grows without bound" if backlog_unbounded(row) else ""),
                  flush=True)
            if args.out:
                write_summaries(aggregate(finished, metrics, order=order), args.out, metrics, time_unit="s")

        executor = executor_for(args)
        try:
            stats = run_points([(p, 1) for p in points], store, executor, desc=trace.name, progress=progress_flag(args),
                               on_row=on_row)
            rows = store.rows([points[0].experiment])
            summaries = aggregate(rows, metrics, order=order)
            print()
            print(format_table(summaries, metrics, experiment_column=False, not_run=not_run_lines(stats, points),
                               time_unit="s"))
            _print_unbounded(rows, by_id)
            print_cannot_run(None, stats, points)
            print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s; times in seconds (the trace's unit)")
            write_out(summaries, args.out, metrics, not_run=not_run_lines(stats, points), time_unit="s")
            if args.export:
                _export(points, stats, args, trace, executor)
        finally:
            executor.close()
    return 0


def _export(points: Sequence[Any], stats: Any, args: argparse.Namespace, trace: Path, executor: Any) -> None:
    """``--export``: each configuration that ran (now or in the store) simulated once more and its
    schedule written (:func:`~scheduling.experiments.replay.export_task`), one line per file."""
    import time

    from ..experiments.replay import export_task
    from ..formats.schedule_export import export_name

    folder = Path(args.export_dir)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"--export-dir: {folder} is a file, not a folder")
    stem = trace.name
    for suffix in (".gz", ".swf", ".json", ".sacct", ".txt", ".log"):
        stem = stem.removesuffix(suffix)
    workload = export_name(stem) if stem.strip("._-") else "w0"
    tasks = []
    for p in points:
        if p.point_id in stats.cannot_run:
            continue
        task = p.task(0)
        task["export"] = {"format": args.export, "dir": str(folder), "workload_name": workload,
                          "name": export_name(p.allocator.label, p.policy_label,
                                              "trace" if p.load is None else f"load{p.load:g}")}
        tasks.append(task)
    resumed = stats.skipped
    print(f"\n--export {args.export}: simulating the {len(tasks)} configuration{'s' if len(tasks) != 1 else ''} once "
          f"more to write {'their' if len(tasks) != 1 else 'its'} schedule{'s' if len(tasks) != 1 else ''} into "
          f"{folder}" + (f" ({resumed} of them resumed from --store)" if resumed else ""), flush=True)
    t0 = time.perf_counter()
    written: dict[str, list[str]] = {}
    for got in executor.map_unordered(export_task, tasks):
        if "cannot_run" in got:
            print(f"  not exported: {got['cannot_run']}")
            continue
        written[got["point_id"]] = got["paths"]
    for p in points:  # in the table's order
        for path in written.get(p.point_id, []):
            print(f"  wrote {path}")
    print(f"exported {len(written)} schedule{'s' if len(written) != 1 else ''} in {time.perf_counter() - t0:.1f} s")


def _print_unbounded(rows: Sequence[dict[str, Any]], by_id: dict[str, Any]) -> None:
    """Flag the replays whose backlog grew without bound (:func:`~scheduling.experiments.runner.backlog_unbounded`)."""
    from ..experiments.runner import backlog_unbounded
    from ..metrics.summary import SATURATION_GROWTH, SATURATION_Z

    flagged = [r for r in rows if r["point_id"] in by_id and backlog_unbounded(r)]
    if not flagged:
        return
    print(f"\nbacklog grows without bound (the saturation test of synthetic runs: a rise of at least "
          f"{SATURATION_Z:g} sd and at least {SATURATION_GROWTH:g} jobs per arrival): more work than the "
          "configuration carries, so its waits and turnarounds measure the trace's length:")
    for r in flagged:
        p = by_id[r["point_id"]]
        print(f"  {p.allocator.label} {p.policy_label} {'trace' if p.load is None else f'load {p.load:g}'}: "
              f"backlog growth {r['backlog_growth']:.3g} per arrival, rise {r['backlog_rise_sd']:.3g} sd")


_REPLAY_NOTES = """

A job of n processors (the trace's requested processors, else its allocated ones) asks for n
processors on flat:P and n nodes on a tree (with the constraint --constraints attaches), for the
smallest subcube of 2**k >= n processors on cube:D, and for a
near-square w x h submesh on mesh:WxH, w = ceil(sqrt(n)) and h = ceil(n / w) (w >= h, fewer than w
processors wasted; a side longer than the mesh is cut to the mesh and the other side grown to
fit) -- except that an allocator that takes processor counts (the non-contiguous mesh allocators)
is given n itself, so every allocator is offered the trace's own load. The report says, per
allocator, what a count becomes and the processors asked against those granted. Jobs larger than
the machine are skipped and counted in the report, unless --oversize says otherwise.

A Batsim workload's job asks for its res; its run time is its profile's (delay, composed). An sacct
dump's job asks for its NNodes; its run time is End - Start; steps, jobs that never started,
requeued or still running ones are counted in the report, not replayed. On --topology
tree:topology.conf (the site's own file) each job also keeps the nodes its NodeList names, and
--policies Recorded replays the recorded schedule on them: its leaf switches and hops appear beside
the allocators'. --export writes each configuration's schedule (batsim: NAME_jobs.csv; swf: NAME.swf
and NAME.swf.nodes.csv) by simulating it once more after the runs, also when --store resumed it."""


def _fit_allocators(jobs: Any, topo: Any, allocs: Sequence[Any], oversize: str) -> list[str]:
    """Before a replay starts: on a mesh or a cube, one report line per allocator saying what a
    job's processor count becomes on it (:func:`~scheduling.experiments.replay.describe_requests`:
    a near-square submesh for a contiguous mesh allocator, the count itself for one that takes
    counts, a subcube dimension on a cube; on a flat machine or a tree the count is the request of
    every allocator and nothing is said), then the jobs each allocator cannot grant even on the
    empty machine (they fit the machine, not the allocator: a DHC forest's largest tree), handled
    as ``--oversize`` says (:func:`~scheduling.experiments.replay.fit_to_allocator`, the rule the
    runs apply, on the requests the runs give the allocator); one more line per allocator that
    drops or cuts jobs. ``--oversize error`` stops here, naming the first such job."""
    from ..experiments import make_allocator
    from ..experiments.replay import describe_requests, fit_to_allocator, requests_for_allocator

    lines = []
    machine = topo.build()
    for a in allocs:
        try:
            allocator = make_allocator(a.name, machine, a.kwargs)
        except Exception:  # an allocator that cannot be built on this machine: the run reports it, as before
            continue
        if topo.kind in ("mesh", "cube"):  # where a count is not itself the request (flat, tree: it is)
            lines.append(describe_requests(jobs, allocator, a.label))
        given = requests_for_allocator(jobs, allocator)  # what the runs give it (run_task does the same)
        fit = fit_to_allocator(given, allocator, oversize)
        if oversize == "error" and fit.refused:
            bad = next(j for j in given if j.request in set(fit.refused))
            raise UserError(f"--oversize error: job {bad.id} requests {bad.request!r}, which {a.label} cannot grant "
                            f"even on the empty {topo.label}; --oversize skip or clamp replays the others")
        if fit.changed:
            lines.append(fit.describe(a.label))
    return lines


def _trace_file(name: str) -> Path:
    """The trace ``replay`` was given: an existing file, else a trace name in ``$TOPOALLOC_TRACES``."""
    from ..formats.swf_records import SWFError
    from ..formats.trace_files import TraceNotFoundError, trace_path

    path = Path(name)
    if path.is_dir():
        raise UserError(f"{path} is a directory, not an SWF trace file, Batsim workload or sacct dump")
    if path.is_file():
        return path
    try:
        return trace_path(name)
    except (TraceNotFoundError, SWFError) as exc:
        raise UserError(f"no such trace file: {name}, and no trace of that name: {exc}") from None


def _read_replay_trace(read_trace: Any, trace: Path, topo: Any = None, too_large: str = "skip") -> Any:
    """The trace's jobs for ``topo``; a file that cannot be read or has no job is a one-line error."""
    # the Batsim and sacct readers' errors are FileLineErrors: caught without importing those
    # readers, which an SWF replay never needs (about 40 ms of its start-up)
    from ..formats._errors import FileLineError
    from ..formats.load import TraceFormatError
    from ..formats.swf_records import SWFError, SWFReadError

    try:
        jobs = read_trace(trace, topo, too_large=too_large)
    except (SWFReadError, FileLineError, TraceFormatError) as exc:  # their messages name the file
        raise UserError(str(exc)) from None
    except (SWFError, OSError) as exc:
        raise UserError(f"{trace}: {exc}") from None
    if not len(jobs):
        report = jobs.report
        if report.records and set(report.counts) <= {"too large for the machine", "no request on the topology"}:
            raise UserError(f"{trace}: no job of the trace fits {topo.label if topo else 'the machine'} ({report}); "
                            f"--oversize clamp cuts larger jobs to the machine")
        raise UserError(f"{trace}: no job to simulate: {report.no_jobs_reason()}")
    return jobs

"""The ``topoalloc`` command line: compare allocators, run experiments from TOML files on local
processes or a Dask cluster, replay traces, draw figures.

Subcommands: ``compare`` (embedded default, no file needed), ``run`` and ``sweep`` (a TOML study),
``replay`` (an SWF trace), ``plot`` (figures from a result store), ``snapshot`` (occupancy pictures
and a schedule of one simulation), ``export`` (CSV/Parquet) and ``list`` (known names).
Every subcommand's ``--help`` shows an example.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["main", "build_parser", "stored_run", "StoredRun"]


def _version() -> str:
    from . import __version__

    return __version__


class _VersionAction(argparse.Action):
    """``--version``: prints ``topoalloc <version>`` and exits."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"topoalloc {_version()}\n")
        parser.exit()


def _plain(text: str) -> str:
    """Help text without reStructuredText markup (``x`` and :func:`x` print as x)."""
    return re.sub(r"(?::\w+:)?`{1,2}([^`]+)`{1,2}", r"\1", text)


class _Error(Exception):
    """A user error: printed without a traceback, exit status 2."""


def _csv_list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
    return items


def _float_list(text: str) -> list[float]:
    try:
        vals = [float(t) for t in _csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    bad = next((v for v in vals if not 0 < v < math.inf), None)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"loads must be finite numbers > 0, got {bad!r} in {text!r}")
    return vals


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < v < math.inf:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return v


_RULES_HELP = ("threshold:K[:LEVEL[:KIND]] (jobs of at least K nodes: required rack), probability:P[:LEVEL[:KIND]] "
               "(each job with probability P: preferred rack), by-size[:N=LEVEL,...] (default 64=rack,640=block; "
               "larger: none), switches[:N|auto][@T] (Slurm's --switches=N@T; auto: the fewest leaf switches that "
               "hold the job)")


def _rule(text: str) -> dict[str, Any]:
    """A ``--constraints`` rule, as its ``[constraints]`` table."""
    from .workloads.constraints import parse_rule

    try:
        return parse_rule(text).to_json()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _sub(sub: Any, name: str, help: str, example: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, epilog="example:\n" + example,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _execution_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("where the simulations run")
    g.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                   help="local worker processes (default: the number of cores)")
    g.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run on a Dask distributed cluster, e.g. tcp://scheduler:8786 (needs topoalloc[dask])")
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is off anyway when not on a terminal)")


def _fraction(what: str) -> Any:
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


_tolerance = _fraction("a load width")
_relative = _fraction("a relative half-width")


def _saturation_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("saturation load")
    g.add_argument("--saturation", action="store_true",
                   help="also find each configuration's saturation load by bisection (and the utilisation it "
                        "carries there); probes are stored under '<experiment>#saturation'")
    g.add_argument("--saturation-tolerance", type=_tolerance, default=0.02, metavar="W",
                   help="width of the saturation bracket (default: 0.02)")


def _size_options(p: argparse.ArgumentParser, *, defaults: str) -> None:
    g = p.add_argument_group(f"run length and replications (default: {defaults})")
    g.add_argument("--jobs", type=_positive_int, default=None, metavar="N", help="completions per simulation")
    g.add_argument("--warmup", type=_nonneg_int, default=None, metavar="N",
                   help="first arrivals left out of the statistics")
    g.add_argument("--replications", type=_positive_int, default=None, metavar="N",
                   help="independent replications per point (tables and figures show a 95%% interval from 3)")
    g.add_argument("--seed", type=_nonneg_int, default=None, metavar="S", help="experiment seed")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation tools and tests)."""
    parser = argparse.ArgumentParser(
        prog="topoalloc", description=_plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  topoalloc compare\n  topoalloc run examples/seed002_fig2_cube_buddy_rsr.toml\n"
               "  topoalloc plot results/seed002-fig2.sqlite",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from .experiments import defaults as d

    p = _sub(sub, "compare", "compare allocators under FCFS with RSR folding (embedded default, no file needed)",
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
    p.add_argument("--allocators", type=_csv_list, default=None, metavar="A,B",
                   help="allocator names (default: every mesh allocator on the mesh, every cube allocator on "
                        "the cube, every registered tree allocator on a tree; 'topoalloc list' shows them all)")
    p.add_argument("--constraints", default=None, metavar="RULE", type=_rule,
                   help="on a switch tree, attach topology constraints to the jobs by rule: " + _RULES_HELP)
    p.add_argument("--policies", type=_csv_list, default=None, metavar="P,Q",
                   help=f"policy names (default: {','.join(d.COMPARE_POLICIES)})")
    p.add_argument("--loads", type=_float_list, default=None, metavar="L1,L2",
                   help=f"offered loads (default: {','.join(map(str, d.COMPARE_LOADS['mesh']))} on a mesh, "
                        f"{','.join(map(str, d.COMPARE_LOADS['cube']))} on a cube)")
    _size_options(p, defaults=f"{d.COMPARE_JOBS} jobs, {d.COMPARE_WARMUP} warm-up, replications until the 95% "
                              f"half-width of the mean turnaround is within {d.COMPARE_TARGET.relative:.0%} of the "
                              f"mean ({d.COMPARE_TARGET.min_runs} to {d.COMPARE_TARGET.max_runs}), seed 0")
    p.add_argument("--target", type=_relative, default=None, metavar="REL",
                   help=f"relative 95%% half-width of the mean turnaround to replicate each point to (default "
                        f"{d.COMPARE_TARGET.relative:g}); --replications fixes the count instead")
    p.add_argument("--max-replications", type=_positive_int, default=None, metavar="N",
                   help=f"the most replications a point runs to reach --target (default "
                        f"{d.COMPARE_TARGET.max_runs}); points that reach it short of the target are marked n!")
    p.add_argument("--metrics", type=_csv_list, default=None, metavar="M,N",
                   help="table columns and figures (default: mean_turnaround,utilization,effectiveness; "
                        "e.g. mean_turnaround,mean_hops; see topoalloc list)")
    p.add_argument("--comm", default=None, metavar="F|LOW:HIGH",
                   help="each job's communication fraction: a number in [0, 1], or LOW:HIGH for uniform on it "
                        "(default 0: placement does not change run times)")
    p.add_argument("--runtime-model", default=None, metavar="MODEL",
                   help="placement-dependent run times: dilation, hop-bytes or hop-bytes:nearest-neighbour "
                        "(needs --comm)")
    p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
    p.add_argument("--store", metavar="FILE.sqlite", help="keep every replication in this SQLite file (resumable)")
    p.add_argument("--plots", metavar="DIR", help="also draw the figures into DIR (needs matplotlib)")
    _saturation_options(p)
    _execution_options(p)

    for name, what in (("run", "run a TOML experiment: store results, print the table, draw its figures"),
                       ("sweep", "run a TOML experiment's points into its result store (no table, no figures)")):
        p = _sub(sub, name, what,
                 f"  topoalloc {name} examples/seed002_fig2_cube_buddy_rsr.toml\n"
                 f"  topoalloc {name} examples/seed002_fig1_mesh_rsr.toml --jobs 5000 --replications 3 "
                 f"--dask tcp://scheduler:8786")
        p.add_argument("config", metavar="CONFIG.toml", help="experiment description (see examples/)")
        p.add_argument("--loads", type=_float_list, default=None, metavar="L1,L2", help="override the loads")
        _size_options(p, defaults="as in the file")
        p.add_argument("--max-replications", type=_positive_int, default=None, metavar="N",
                       help="the most replications a point with a [target] runs (default: the file's max_runs); "
                            "points that reach it short of the target are marked n!")
        p.add_argument("--store", metavar="FILE.sqlite",
                       help="result store (default: the file's store key, else results/<name>.sqlite)")
        if name == "run":
            p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
            p.add_argument("--plots", metavar="DIR", help="where to draw the figures (default: next to the store)")
            p.add_argument("--no-plots", action="store_true", help="do not draw figures")
            _saturation_options(p)
        _execution_options(p)

    p = _sub(sub, "replay", "replay an SWF trace under chosen allocators and policies",
             "  topoalloc replay NASA-iPSC-1993-3.1-cln --topology cube:7 --allocators Buddy,GrayCode "
             "--policies FCFS,RSR-1\n"
             "  topoalloc replay path/to/trace.swf --topology mesh:16x20 --oversize clamp --policies FCFS,EASY")
    p.epilog += _REPLAY_NOTES
    p.add_argument("trace", metavar="TRACE.swf",
                   help="a Standard Workload Format trace (.swf or .swf.gz, plain or gzip): a path, or the name of "
                        "a trace in $TOPOALLOC_TRACES (the .swf/.swf.gz suffix may be left out)")
    p.add_argument("--topology", default=None, metavar="T",
                   help="mesh:WxH, cube:D, flat:P, tree:AxBx..xN[:names], fattree:K,N or tree:FILE (default: flat "
                        "with the trace's MaxProcs, else its largest job); see below for the request a job of n "
                        "processors makes")
    p.add_argument("--constraints", default=None, metavar="RULE", type=_rule,
                   help="on a switch tree, attach topology constraints to the jobs by rule: " + _RULES_HELP)
    p.add_argument("--oversize", choices=("skip", "clamp", "error"), default="skip",
                   help="jobs larger than the machine, or than an allocator can grant (a DHC forest's largest "
                        "tree): skip them (counted in the report), clamp them to the machine (to the allocator's "
                        "largest count), or stop with an error before the run (default: skip)")
    p.add_argument("--allocators", type=_csv_list, default=None, metavar="A,B",
                   help="default: FlatPool on flat, FirstFit on a mesh, Buddy on a cube, FirstFree on a tree")
    p.add_argument("--policies", type=_csv_list, default=["FCFS"], metavar="P,Q", help="default: FCFS")
    p.add_argument("--loads", type=_float_list, default=None, metavar="L1,L2",
                   help="rescale the arrivals to these offered loads (default: as recorded)")
    p.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                   help="stop after N completions (default: the whole trace)")
    p.add_argument("--warmup", type=_nonneg_int, default=0, metavar="N", help="first arrivals left out")
    p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
    p.add_argument("--store", metavar="FILE.sqlite", help="keep the results in this SQLite file")
    _execution_options(p)

    p = _sub(sub, "plot", "draw figures from a result store",
             "  topoalloc plot results/seed002-fig1.sqlite\n"
             "  topoalloc plot results/compare.sqlite --kind fairness --load 0.4 --out figures/")
    p.add_argument("results", metavar="RESULTS.sqlite", help="a store written by run, sweep, compare or replay")
    p.add_argument("--out", metavar="DIR", help="directory for the figures (default: next to the store)")
    p.add_argument("--study", metavar="NAME", help="only this study (default: every study in the store)")
    p.add_argument("--kind", action="append", choices=("load", "utilization", "fairness"), default=None,
                   help="draw this figure instead of the study's own (repeatable)")
    p.add_argument("--metric", default="mean_turnaround", help="metric for --kind load (default: mean_turnaround)")
    p.add_argument("--load", type=_positive_float, default=None,
                   help="load for --kind fairness (default: the highest)")
    p.add_argument("--panels", default="experiment", choices=("experiment", "allocator", "policy", "none"),
                   help="one subplot per ... (default: experiment)")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument("--format", default="png", choices=("png", "svg", "pdf"), help="file format (default: png)")
    p.add_argument("--dpi", type=_positive_int, default=110, help="resolution of PNG figures (default: 110)")

    p = _sub(sub, "snapshot", "simulate one configuration; draw occupancy snapshots and the schedule",
             "  topoalloc snapshot --topology mesh:32x32 --allocator FrameSliding --policy RSR-1 --load 0.4 "
             "--out occupancy.png --schedule schedule.png\n"
             "  topoalloc snapshot --topology cube:8 --allocator Buddy --count 8")
    p.add_argument("--topology", default="mesh:32x32", metavar="T", help="default: mesh:32x32")
    p.add_argument("--allocator", default=None,
                   help="default: FirstFit on a mesh, Buddy on a cube, FlatPool on flat, FirstFree on a tree")
    p.add_argument("--policy", default="RSR-1", help="default: RSR-1")
    p.add_argument("--load", type=_positive_float, default=0.4, help="offered load (default: 0.4)")
    p.add_argument("--jobs", type=_positive_int, default=300, metavar="N", help="completions (default: 300)")
    p.add_argument("--count", type=_positive_int, default=6, metavar="K", help="snapshots (default: 6)")
    p.add_argument("--seed", type=_nonneg_int, default=0, metavar="S")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="occupancy picture (default: occupancy.png, unless only --schedule is asked for)")
    p.add_argument("--schedule", default=None, metavar="FILE", help="draw the schedule (Downey Fig. 5 style)")
    p.add_argument("--max-jobs", type=_positive_int, default=150, metavar="N", help="jobs in the schedule picture")

    p = _sub(sub, "export", "export a result store to CSV or Parquet",
             "  topoalloc export results/seed002-fig2.sqlite fig2.csv\n"
             "  topoalloc export results/seed002-fig2.sqlite fig2.parquet   # needs pyarrow")
    p.add_argument("results", metavar="RESULTS.sqlite")
    p.add_argument("out", metavar="OUT.csv|OUT.parquet")
    p.add_argument("--no-timing", action="store_true",
                   help="leave out the wall-clock columns (wall_time, finished_at; otherwise the last two), so two "
                        "runs of the same command export identical files")

    _sub(sub, "list", "list the allocators (and which are missing), the policies with what each needs, and the "
                      "workload distributions and models", "  topoalloc list")

    from .reproduce.cli import add_parser as add_reproduce

    add_reproduce(sub, _sub)
    return parser


# -- helpers ----------------------------------------------------------------------------------------
def _executor(args: argparse.Namespace) -> Any:
    from .experiments import make_executor

    try:
        return make_executor(workers=args.workers, dask=args.dask)
    except ImportError as exc:
        raise _Error(str(exc)) from None
    except OSError as exc:
        raise _Error(f"cannot reach the Dask scheduler {args.dask}: {exc}") from None


def _progress(args: argparse.Namespace) -> bool | None:
    return False if getattr(args, "no_progress", False) else None


def _run(study: Any, store: Any, args: argparse.Namespace, metrics: Sequence[str] | None = None) -> Any:
    """Run ``study`` into ``store``; with ``--out`` (``run``, ``compare``) the table of the points
    finished so far is rewritten as rows arrive (at most every :data:`_OUT_EVERY` seconds), so a long
    run that is stopped leaves a current table."""
    import time

    from .experiments import run_study

    on_row = None
    out = getattr(args, "out", None)
    if out:
        last = [time.monotonic()]

        def on_row(row: dict[str, Any]) -> None:
            now = time.monotonic()
            if now - last[0] >= _OUT_EVERY:
                last[0] = now
                _write_table(study, store, out, metrics)

    executor = _executor(args)
    try:
        return run_study(study, store, executor, progress=_progress(args), on_row=on_row)
    finally:
        executor.close()


#: How often (seconds) ``--out`` is rewritten while a ``run`` or ``compare`` is under way.
_OUT_EVERY = 2.0


def _write_table(study: Any, store: Any, path: str, metrics: Sequence[str] | None) -> None:
    """Write the table of ``study``'s finished points to ``path`` (quietly; while it runs)."""
    from .experiments import aggregate
    from .experiments.report import write_summaries
    from .experiments.runner import study_rows

    summaries = aggregate(study_rows(study, store), order=[p.point_id for p in study.points()])
    write_summaries(summaries, path, *(() if metrics is None else (metrics,)), time_unit=_time_unit(study))


def _time_unit(study: Any) -> str | None:
    """The unit of a study's time columns: ``s`` when every experiment replays a trace, ``t.u.`` (the
    workload's service-time unit) when none does, else none written."""
    traces = {bool(e.workload.trace) for e in study.experiments}
    return "s" if traces == {True} else "t.u." if traces == {False} else None


def _unit_note(study: Any) -> str:
    unit = _time_unit(study)
    if unit == "s":
        return "times in seconds (the trace's unit)"
    if unit == "t.u.":
        return "times (t.u.) in the unit of the workload's service times"
    return "times in seconds for trace experiments, in the service times' unit otherwise"


def _sizes_line(study: Any) -> str:
    """How the numbers are obtained: run length, warm-up, replications (or the target), seed."""
    from .experiments.report import METRIC_LABELS

    parts = []
    for e in study.experiments:
        if e.workload.trace:
            reps = "one run per point (a recorded trace replays identically: replications would repeat it, so no " \
                   "interval)"
        elif e.target:
            reps = (f"replications until the 95% half-width of {METRIC_LABELS.get(e.target.metric, e.target.metric)} "
                    f"is within ±{e.target.relative:.0%} of its mean ({e.target.min_runs} to {e.target.max_runs}; "
                    "points with a saturated run stop at the minimum)")
        else:
            reps = f"{e.replications} replications"
        jobs = "every job of the workload" if e.jobs is None else f"{e.jobs} jobs"
        parts.append(f"{jobs} per run (first {e.warmup} discarded), {reps}, seed {e.seed}")
    uniq = list(dict.fromkeys(parts))
    return "; ".join(uniq)


def _print_table(study: Any, store: Any, *, experiment_column: bool | None = None,
                 metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness"),
                 not_run: Sequence[Any] = ()) -> list[Any]:
    """The table of exactly ``study``'s configuration (:func:`~scheduling.experiments.runner.study_rows`),
    with a line for each configuration in ``not_run``."""
    from .experiments import aggregate, format_table
    from .experiments.runner import mark_short_of_target, study_rows

    order = [p.point_id for p in study.points()]
    rows = study_rows(study, store)
    summaries = aggregate(rows, order=order)
    short = mark_short_of_target(summaries, study.plan(), rows)
    if short:
        caps = sorted({e.target.max_runs for e in study.experiments if e.target is not None})
        print(f"precision: {len(short)} of {len(summaries)} points reached the cap of "
              f"{'/'.join(map(str, caps))} replications short of the precision target (marked n!); "
              "their intervals are wider than stated")
    print(format_table(summaries, metrics, experiment_column=experiment_column, not_run=not_run,
                       time_unit=_time_unit(study)))
    return summaries


def _not_run(stats: Any, points: Sequence[Any], skipped: dict[str, str] | None = None,
             study: Any = None) -> list[Any]:
    """The table lines of the configurations that could not run: the allocators ``compare`` left
    out before running (``skipped``, one line each, for every policy and load) and the points
    whose runs reported :data:`~scheduling.experiments.runner.CANNOT_RUN` (``stats.cannot_run``)."""
    from .experiments import registry as reg
    from .experiments.report import NotRun

    rows = []
    for name, reason in (skipped or {}).items():
        kind = reg.allocator_kind(name)
        topo = next((e.topology.label for e in (study.experiments if study is not None else ())
                     if e.topology.kind == kind), kind)
        rows.append(NotRun("", topo, name, "all", "all", reason))
    by_id = {p.point_id: p for p in points}
    for pid, reason in (stats.cannot_run if stats is not None else {}).items():
        p = by_id.get(pid)
        if p is not None:
            rows.append(NotRun(p.experiment, p.topology.label, p.allocator.label, p.policy_label, p.load,
                               reason))
    return rows


def _print_cannot_run(study: Any, stats: Any, points: Sequence[Any] | None = None) -> None:
    """The configurations that could not run (an allocator that cannot place one of the workload's
    jobs even on the empty machine): reported, not fatal."""
    if not stats.cannot_run:
        return
    by_id = {p.point_id: p for p in (points if points is not None else study.points())}
    print("\nnot run (the allocator cannot place a job of the workload even on the empty machine):")
    for pid, reason in stats.cannot_run.items():
        p = by_id.get(pid)
        where = f"{p.allocator.label} {p.policy_label} load {p.load}: " if p is not None else ""
        print(f"  {where}{reason}")


def _store_notes(study: Any, store: Any, stats: Any, path: str | None) -> str:
    """What was reused from the store, and what in it was not used."""
    if not path or path == ":memory:":
        return ""
    total = stats.ran + stats.skipped
    text = f"{stats.skipped} of {total} simulations loaded from {path}"
    unused = store.unused_rows([p.point_id for p in study.points()], [e.name for e in study.experiments])
    if unused:
        text += (f"; {unused} stored rows under the same names belong to other configurations (other jobs, warm-up, "
                 "seed, parameters or simulation semantics) and are not used")
    if store.upgraded_from is not None:
        text += (f"; the file was upgraded from result store schema {store.upgraded_from}: its older rows are kept "
                 "for export but never reused (they were not keyed by the simulation semantics)")
    return text


def _saturation(study: Any, store: Any, args: argparse.Namespace) -> None:
    """``--saturation``: bisect each configuration's saturation load and print the brackets."""
    from .experiments.saturation import format_saturation, saturation_loads

    if not any(load is not None for e in study.experiments for load in e.loads):
        print("\nno saturation load: the points replay recorded traces (no offered load to vary)")
        return
    executor = _executor(args)
    try:
        found = saturation_loads(study, store, executor, tolerance=args.saturation_tolerance,
                                 progress=_progress(args))
    finally:
        executor.close()
    from .experiments.saturation import PROBE_JOBS

    jobs = sorted({max(e.jobs or 0, PROBE_JOBS) for e in study.experiments})
    print(f"\nsaturation load of each configuration (bisection to {args.saturation_tolerance:g}; each probe 2 runs of "
          f"{', '.join(map(str, jobs))} jobs, saturated when the backlog grows through at least one of them; "
          "capacity: the utilisation at the saturated end):")
    print(format_saturation(found))


def _write_out(summaries: Sequence[Any], path: str | None, metrics: Sequence[str] | None = None, *,
               not_run: Sequence[Any] = (), time_unit: str | None = None) -> None:
    if not path:
        return
    from .experiments.report import write_summaries

    if metrics is None:
        write_summaries(summaries, path, not_run=not_run, time_unit=time_unit)
    else:
        write_summaries(summaries, path, metrics, not_run=not_run, time_unit=time_unit)
    print(f"table written to {path}")


def _figures(store: Any, outdir: str | Path, study: str | None = None, specs: Any = None, fmt: str = "png",
             dpi: int = 110) -> list[Path]:
    from .plots import MatplotlibMissingError, study_figures

    try:
        return study_figures(store, outdir, study=study, specs=specs, fmt=fmt, dpi=dpi)
    except MatplotlibMissingError as exc:
        print(f"no figures: {exc}", file=sys.stderr)
        return []


def _store_path(study: Any, given: str | None) -> str:
    if given:
        return given
    if study.store:
        return study.store
    return os.path.join("results", study.name.replace("/", "-") + ".sqlite")


# -- subcommands ------------------------------------------------------------------------------------
def _cmd_compare(args: argparse.Namespace) -> int:
    from .experiments import compare_study

    metrics, comm, model = _placement_options(args)
    study, skipped = compare_study(
        topologies=args.topology, allocators=args.allocators, policies=args.policies, loads=args.loads,
        replications=args.replications, jobs=args.jobs, warmup=args.warmup, seed=args.seed or 0, target=args.target,
        max_replications=args.max_replications, comm=comm, runtime_model=model, constraints=args.constraints,
    )
    with _open_store(args.store or ":memory:") as store:
        executor_note = "Dask" if args.dask else f"{args.workers or os.cpu_count()} local workers"
        print(f"topoalloc compare: {', '.join(e.description for e in study.experiments)}")
        tree = any(e.topology.kind == "tree" for e in study.experiments)
        print(f"How: {_sizes_line(study)}. Every allocator of a topology runs the same jobs (common random numbers: "
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
        stats = _run(study, store, args, metrics)
        print()
        not_run = _not_run(stats, study.points(), skipped, study)
        summaries = _print_table(study, store, experiment_column=False, metrics=metrics, not_run=not_run)
        _print_cannot_run(study, stats)
        notes = _store_notes(study, store, stats, args.store)
        print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s" + (f"; {notes}" if notes else ""))
        _write_out(summaries, args.out, metrics, not_run=not_run, time_unit=_time_unit(study))
        if args.saturation:
            _saturation(study, store, args)
        if args.plots:
            specs = None
            if args.metrics:  # one figure per metric asked for, every allocator a curve
                from .experiments import PlotSpec

                specs = [PlotSpec("utilization") if m in ("utilization", "effectiveness") else
                         PlotSpec("load", m, logy=m in _LOG_METRICS, file=f"compare-{m}.png") for m in metrics]
                specs = list({(s.kind, s.metric if s.kind == "load" else ""): s for s in specs}.values())
            for path in _figures(store, args.plots, study="compare", specs=specs):
                print(f"figure: {path}")
    return 0


#: Metrics drawn on a log axis by ``compare --plots`` (times that grow by orders of magnitude).
_LOG_METRICS = frozenset({"mean_turnaround", "mean_wait", "p50_turnaround", "p90_turnaround", "p99_turnaround",
                          "mean_slowdown", "mean_bounded_slowdown"})


def _placement_options(args: argparse.Namespace) -> tuple[tuple[str, ...], Any, Any]:
    """``compare``'s ``--metrics``, ``--comm`` and ``--runtime-model``, checked."""
    from .experiments import METRICS, Component

    metrics = tuple(args.metrics) if args.metrics else ("mean_turnaround", "utilization", "effectiveness")
    for m in metrics:
        if m not in METRICS:
            raise _Error(f"unknown metric {m!r} for --metrics; choose from {', '.join(METRICS)}")
    comm: Any = 0.0
    if args.comm is not None:
        try:
            parts = [float(x) for x in args.comm.split(":")]
        except ValueError:
            raise _Error(f"--comm must be a number in [0, 1] or LOW:HIGH, got {args.comm!r}") from None
        if len(parts) > 2 or not all(0.0 <= x <= 1.0 for x in parts) or (len(parts) == 2 and parts[0] > parts[1]):
            raise _Error(f"--comm must be a number in [0, 1] or LOW:HIGH with 0 <= LOW <= HIGH <= 1, got {args.comm!r}")
        comm = parts[0] if len(parts) == 1 else Component.of("Uniform", low=parts[0], high=parts[1])
    model = None
    if args.runtime_model is not None:
        name, _, pattern = args.runtime_model.partition(":")
        key = name.lower().replace("_", "-")
        if key not in ("dilation", "hop-bytes"):
            raise _Error(f"--runtime-model must be dilation, hop-bytes or hop-bytes:PATTERN, "
                         f"got {args.runtime_model!r}")
        if key == "dilation" and pattern:
            raise _Error(f"the dilation model takes no pattern, got {args.runtime_model!r}")
        model = Component("Dilation") if key == "dilation" else \
            (Component.of("HopBytes", pattern=pattern) if pattern else Component("HopBytes"))
        try:
            from .experiments.config import WorkloadSpec

            WorkloadSpec(runtime_model=model).make_runtime_model()
        except ValueError as exc:
            raise _Error(f"--runtime-model: {exc}") from None
        if comm == 0.0:
            raise _Error("--runtime-model needs --comm: with no communication, placement changes no run time")
    return metrics, comm, model


def _open_store(path: str) -> Any:
    from .experiments.store import ResultStore, StoreVersionError

    try:
        return ResultStore(path)
    except StoreVersionError as exc:
        raise _Error(str(exc)) from None


def _load(args: argparse.Namespace) -> Any:
    from .experiments import load_study

    study = load_study(args.config)
    return study.with_overrides(jobs=args.jobs, warmup=args.warmup, replications=args.replications,
                                loads=args.loads, seed=args.seed, max_replications=args.max_replications)


def _cmd_run(args: argparse.Namespace) -> int:
    study = _load(args)
    path = _store_path(study, args.store)
    with _open_store(path) as store:
        print(f"{study.name}: {study.description}".rstrip(": "))
        for e in study.experiments:
            if e.description:
                print(f"  {e.name}: {e.description}")
        print(f"{_sizes_line(study)}; ± is the 95% confidence half-width; {_unit_note(study)}")
        metrics = getattr(study, "table", None) or ("mean_turnaround", "utilization", "effectiveness")
        stats = _run(study, store, args, metrics)
        print()
        not_run = _not_run(stats, study.points())
        summaries = _print_table(study, store, metrics=metrics, not_run=not_run)
        _print_cannot_run(study, stats)
        print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s; {_store_notes(study, store, stats, path)}")
        _write_out(summaries, args.out, metrics, not_run=not_run, time_unit=_time_unit(study))
        if args.saturation:
            _saturation(study, store, args)
        if not args.no_plots:
            outdir = args.plots or (str(Path(path).parent) if path != ":memory:" else ".")
            for fig in _figures(store, outdir, study=study.name):
                print(f"figure: {fig}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    study = _load(args)
    path = _store_path(study, args.store)
    with _open_store(path) as store:
        stats = _run(study, store, args)
        print(f"{study.name}: {stats.ran} simulations run in {stats.seconds:.1f} s, {stats.skipped} already stored, "
              f"{len(store)} rows in {path}")
        print(f"next: topoalloc plot {path}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from .experiments import (
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
    from .experiments import registry as reg
    from .experiments.config import canonical_policy
    from .experiments.report import write_summaries
    from .experiments.runner import backlog_unbounded

    trace = _trace_file(args.trace)
    if args.topology:
        try:
            topo = TopologySpec.parse(args.topology)
        except ValueError as exc:
            raise _Error(f"--topology: {exc}") from None
    else:
        raw = _read_replay_trace(read_trace, trace)
        size = raw.machine_size or max((j.size or 1 for j in raw), default=1)
        topo = TopologySpec("flat", (int(size),))
    if args.constraints is not None and topo.kind != "tree":
        raise _Error(f"--constraints: topology constraints need a switch tree (tree:..., fattree:...), not "
                     f"{topo.label}")
    default_alloc = {"flat": "FlatPool", "mesh": "FirstFit", "cube": "Buddy", "tree": "FirstFree"}[topo.kind]
    allocs = []
    for a in args.allocators or [default_alloc]:
        try:
            name = canonical_allocator(a)
        except reg.UnknownAllocatorError as exc:
            raise _Error(f"--allocators: {exc}") from None
        if reg.allocator_kind(name) != topo.kind:
            raise _Error(f"--allocators: {name} runs on a {reg.allocator_kind(name)} topology, not {topo.label}")
        allocs.append(Component(name))
    pols = []
    for p in args.policies:
        try:
            pols.append(canonical_policy(p))
        except (KeyError, ValueError) as exc:
            raise _Error(f"--policies: {exc}") from None
    with _kept():  # the jobs live until the command ends (and in read_trace's cache)
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
    metrics = ("mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_bounded_slowdown")
    if topo.kind == "tree":
        metrics += ("mean_leaf_switches", "blocked_fraction")
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

        executor = _executor(args)
        try:
            stats = run_points([(p, 1) for p in points], store, executor, desc=trace.name, progress=_progress(args),
                               on_row=on_row)
        finally:
            executor.close()
        rows = store.rows([points[0].experiment])
        summaries = aggregate(rows, metrics, order=order)
        print()
        print(format_table(summaries, metrics, experiment_column=False, not_run=_not_run(stats, points),
                           time_unit="s"))
        _print_unbounded(rows, by_id)
        _print_cannot_run(None, stats, points)
        print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s; times in seconds (the trace's unit)")
        _write_out(summaries, args.out, metrics, not_run=_not_run(stats, points), time_unit="s")
    return 0


def _print_unbounded(rows: Sequence[dict[str, Any]], by_id: dict[str, Any]) -> None:
    """Flag the replays whose backlog grew without bound (:func:`~scheduling.experiments.runner.backlog_unbounded`)."""
    from .experiments.runner import backlog_unbounded
    from .metrics.summary import SATURATION_GROWTH, SATURATION_Z

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
the machine are skipped and counted in the report, unless --oversize says otherwise."""


def _fit_allocators(jobs: Any, topo: Any, allocs: Sequence[Any], oversize: str) -> list[str]:
    """Before a replay starts: on a mesh or a cube, one report line per allocator saying what a
    job's processor count becomes on it (:func:`~scheduling.experiments.runner.describe_requests`:
    a near-square submesh for a contiguous mesh allocator, the count itself for one that takes
    counts, a subcube dimension on a cube; on a flat machine or a tree the count is the request of
    every allocator and nothing is said), then the jobs each allocator cannot grant even on the
    empty machine (they fit the machine, not the allocator: a DHC forest's largest tree), handled
    as ``--oversize`` says (:func:`~scheduling.experiments.runner.fit_to_allocator`, the rule the
    runs apply, on the requests the runs give the allocator); one more line per allocator that
    drops or cuts jobs. ``--oversize error`` stops here, naming the first such job."""
    from .experiments import make_allocator
    from .experiments.runner import describe_requests, fit_to_allocator, requests_for_allocator

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
            raise _Error(f"--oversize error: job {bad.id} requests {bad.request!r}, which {a.label} cannot grant "
                         f"even on the empty {topo.label}; --oversize skip or clamp replays the others")
        if fit.changed:
            lines.append(fit.describe(a.label))
    return lines


def _trace_file(name: str) -> Path:
    """The trace ``replay`` was given: an existing file, else a trace name in ``$TOPOALLOC_TRACES``."""
    from .workloads.swf import SWFError, TraceNotFoundError, trace_path

    path = Path(name)
    if path.is_dir():
        raise _Error(f"{path} is a directory, not an SWF trace file")
    if path.is_file():
        return path
    try:
        return trace_path(name)
    except (TraceNotFoundError, SWFError) as exc:
        raise _Error(f"no such trace file: {name}, and no trace of that name: {exc}") from None


_frozen = False  # whether _kept() froze the heap (undone when main() returns)


@contextlib.contextmanager
def _kept() -> Iterator[None]:
    """For objects the block builds that live until the command ends (the modules a command
    imports, a trace's jobs): no garbage collection while they are built, then every object alive
    is moved to the collector's permanent generation (:func:`gc.freeze`), so no later collection
    walks them again -- unless the process froze objects of its own. :func:`main` thaws them when
    the command returns."""
    global _frozen
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _frozen or gc.get_freeze_count() == 0:
            gc.freeze()
            _frozen = True
        if enabled:
            gc.enable()


def _thaw() -> None:
    """Undo :func:`_kept`'s freeze."""
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False


def _read_replay_trace(read_trace: Any, trace: Path, topo: Any = None, too_large: str = "skip") -> Any:
    """The trace's jobs for ``topo``; a file that cannot be read or has no job is a one-line error."""
    from .workloads.swf import SWFError, SWFReadError

    try:
        jobs = read_trace(trace, topo, too_large=too_large)
    except SWFReadError as exc:
        raise _Error(str(exc)) from None
    except (SWFError, OSError) as exc:
        raise _Error(f"{trace}: {exc}") from None
    if not len(jobs):
        report = jobs.report
        if report.records and set(report.counts) <= {"too large for the machine", "no request on the topology"}:
            raise _Error(f"{trace}: no job of the trace fits {topo.label if topo else 'the machine'} ({report}); "
                         f"--oversize clamp cuts larger jobs to the machine")
        raise _Error(f"{trace}: no job to simulate: {report.no_jobs_reason()}")
    return jobs


def _cmd_plot(args: argparse.Namespace) -> int:
    from .experiments import PlotSpec

    path = Path(args.results)
    if not path.is_file():
        raise _Error(f"no such result store: {path}")
    specs = None
    if args.kind:
        specs = [PlotSpec(kind=k, metric=args.metric, panels=args.panels, logy=args.logy or k == "fairness",
                          load=args.load) for k in args.kind]
    with _open_store(str(path)) as store:
        if not len(store):
            raise _Error(f"{path} holds no results")
        try:
            figs = _figures(store, args.out or path.parent, study=args.study, specs=specs, fmt=args.format,
                            dpi=args.dpi)
        except KeyError as exc:
            raise _Error(str(exc.args[0])) from None
    for f in figs:
        print(f"figure: {f}")
    if not figs:
        print(f"topoalloc plot: no figure drawn from {path}", file=sys.stderr)
    return 0 if figs else 1


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from . import plots
    from .experiments import TopologySpec, WorkloadSpec, canonical_allocator, make_allocator, record_occupancy
    from .experiments import registry as reg
    from .experiments.config import canonical_policy

    try:
        topo = TopologySpec.parse(args.topology)
        default = {"mesh": "FirstFit", "cube": "Buddy", "flat": "FlatPool", "tree": "FirstFree"}[topo.kind]
        name = canonical_allocator(args.allocator or default)
    except (ValueError, KeyError) as exc:
        raise _Error(str(exc)) from None
    if reg.allocator_kind(name) != topo.kind:
        raise _Error(f"--allocator: {name} runs on a {reg.allocator_kind(name)} topology, not {topo.label}")
    try:
        canonical_policy(args.policy)
    except (KeyError, ValueError) as exc:
        raise _Error(f"--policy: {exc}") from None
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


def _cmd_export(args: argparse.Namespace) -> int:
    if not Path(args.results).is_file():
        raise _Error(f"no such result store: {args.results}")
    with _open_store(args.results) as store:
        try:
            n = store.export(args.out, timing=not args.no_timing)
        except (ValueError, ImportError) as exc:
            raise _Error(str(exc)) from None
    print(f"{n} rows written to {args.out}")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from topoalloc import registry as allocators

    from . import policies
    from .experiments import registry as reg
    from .workloads.constraints import RULE_SYNTAX

    print("allocators (topology kind):")
    for name in allocators.names():
        entry = allocators.entry(name)
        print(f"  {name:<19} {entry.kind:<5} {entry.help}")
    print("\ntopologies (--topology, or topology = ... in a file), and the allocators of each kind:")
    forms = {"mesh": "mesh:WxH", "cube": "cube:D", "flat": "flat:P",
             "tree": "tree:AxBx..xN[:names], fattree:K,N, tree:FILE (.conf, .yaml, .csv)"}
    for kind in allocators.KINDS:
        print(f"  {forms.get(kind, kind + ':...')}: {', '.join(allocators.names(kind)) or '(none registered)'}")
    print(f"\nconstraint rules on a tree (--constraints, or a [constraints] table): {', '.join(RULE_SYNTAX)}")
    print("\npolicies, by what they need:")
    groups: dict[str, list[Any]] = {policies.ANY_ALLOCATOR: []}
    for fam in policies.families():
        groups.setdefault(fam.needs, []).append(fam)
    for needs, fams in groups.items():
        if fams:
            print(f"  needs {needs}:")
        for fam in fams:
            print(f"    {_policy_pattern(fam):<30} {fam.help}")
    print("\nworkload distributions:")
    for role in ("sizes", "service", "speedup"):
        print(f"  {role}: {', '.join(reg.distribution_names(role))}" + (", auto" if role == "sizes" else ""))
    print("\nworkload models ([workload] model = {name = ..., parameter = ...}):")
    for name, model in reg.WORKLOAD_MODELS.items():
        print(f"  {name:<14} ({', '.join(reg.workload_model_params(name))}) {model.help}")
    return 0


def _policy_pattern(fam: Any) -> str:
    """How ``topoalloc list`` writes a policy family: as its policies name themselves (``DPROP-SM/x``,
    ``AVG-hybrid/x``, as the README writes them) when they put the number after a ``/``, else the
    family's pattern (``RSR-<int>``). Both spellings are accepted as policy names."""
    from . import policies

    if fam.param == "float":
        try:
            if policies.get(f"{fam.name}-0.5").name == f"{fam.name}/0.5":
                return f"{fam.name}/x"
        except Exception:  # a family whose policies cannot be built without more: its pattern
            pass
    return fam.pattern


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from .reproduce.cli import command

    return command(args)


_COMMANDS = {"compare": _cmd_compare, "run": _cmd_run, "sweep": _cmd_sweep, "replay": _cmd_replay,
             "plot": _cmd_plot, "snapshot": _cmd_snapshot, "export": _cmd_export, "list": _cmd_list,
             "reproduce": _cmd_reproduce}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``topoalloc`` console script; returns the exit status."""
    try:
        with _kept():  # the modules imported and the parser live until the command ends
            from .experiments import ConfigError, TaskError, TraceSupportError
            from .experiments.registry import UnknownAllocatorError

            parser = build_parser()
        args = parser.parse_args(argv)
        try:
            return _COMMANDS[args.command](args)
        except (_Error, ConfigError, UnknownAllocatorError, TraceSupportError) as exc:
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
        _thaw()


if __name__ == "__main__":
    sys.exit(main())


@dataclass(frozen=True)
class StoredRun:
    """What ``topoalloc run CONFIG RUN_ARGS`` stored, read back: the study (with the same overrides),
    the store's path, its rows in the study's point order (then replication), the per-point
    summaries with confidence intervals, and the directory the figures went to."""

    study: Any
    path: str
    rows: list[dict[str, Any]]
    summaries: list[Any]
    plots_dir: Path


def stored_run(config: str | os.PathLike, run_args: Sequence[str] = ()) -> StoredRun:
    """Read back the results of ``topoalloc run <config> <run_args>`` (same overrides, same store),
    for scripts that add tables or figures of their own to a run."""
    from .experiments import ResultStore, aggregate, load_study
    from .experiments.runner import study_rows

    args = build_parser().parse_args(["run", str(config), *run_args])
    study = load_study(args.config).with_overrides(
        jobs=args.jobs, warmup=args.warmup, replications=args.replications, loads=args.loads, seed=args.seed,
        max_replications=args.max_replications,
    )
    path = args.store or study.store or os.path.join("results", study.name.replace("/", "-") + ".sqlite")
    ids = [p.point_id for p in study.points()]
    with ResultStore(path) as store:
        rows = study_rows(study, store)
    return StoredRun(study, path, rows, aggregate(rows, order=ids), Path(args.plots or Path(path).parent))

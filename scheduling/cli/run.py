"""``topoalloc run`` and ``topoalloc sweep``: a TOML study (:mod:`scheduling.experiments.parse`)
run into its result store -- ``run`` then prints the table and draws the figures -- and
:func:`stored_run`, which reads back what a ``run`` stored, for scripts that add tables or figures
of their own.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._args import add_subcommand, execution_options, float_list, positive_int, saturation_options, size_options
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
    store_path,
    study_time_unit,
    unit_note,
    write_out,
)

__all__ = ["add_parsers", "run_command", "sweep_command", "stored_run", "StoredRun"]


def add_parsers(sub: Any) -> None:
    """Add ``run`` and ``sweep`` to the sub-command parsers ``sub``."""
    for name, what in (("run", "run a TOML experiment: store results, print the table, draw its figures"),
                       ("sweep", "run a TOML experiment's points into its result store (no table, no figures)")):
        p = add_subcommand(sub, name, what,
                           f"  topoalloc {name} examples/seed002_fig2_cube_buddy_rsr.toml\n"
                           f"  topoalloc {name} examples/seed002_fig1_mesh_rsr.toml --jobs 5000 --replications 3 "
                           f"--dask tcp://scheduler:8786")
        p.add_argument("config", metavar="CONFIG.toml", help="experiment description (see examples/)")
        p.add_argument("--loads", type=float_list, default=None, metavar="L1,L2", help="override the loads")
        size_options(p, defaults="as in the file")
        p.add_argument("--max-replications", type=positive_int, default=None, metavar="N",
                       help="the most replications a point with a [target] runs (default: the file's max_runs); "
                            "points that reach it short of the target are marked n!")
        p.add_argument("--store", metavar="FILE.sqlite",
                       help="result store (default: the file's store key, else results/<name>.sqlite)")
        if name == "run":
            p.add_argument("--out", metavar="FILE", help="also write the table: .csv, or text for any other name")
            p.add_argument("--plots", metavar="DIR", help="where to draw the figures (default: next to the store)")
            p.add_argument("--no-plots", action="store_true", help="do not draw figures")
            saturation_options(p)
        execution_options(p)


def _load(args: argparse.Namespace) -> Any:
    from ..experiments import load_study

    study = load_study(args.config)
    return study.with_overrides(jobs=args.jobs, warmup=args.warmup, replications=args.replications,
                                loads=args.loads, seed=args.seed, max_replications=args.max_replications)


def run_command(args: argparse.Namespace) -> int:
    study = _load(args)
    path = store_path(study, args.store)
    with open_store(path) as store:
        print(f"{study.name}: {study.description}".rstrip(": "))
        for e in study.experiments:
            if e.description:
                print(f"  {e.name}: {e.description}")
        print(f"{sizes_line(study)}; ± is the 95% confidence half-width; {unit_note(study)}")
        metrics = getattr(study, "table", None) or ("mean_turnaround", "utilization", "effectiveness")
        stats = run_with_table(study, store, args, metrics)
        print()
        not_run = not_run_lines(stats, study.points())
        summaries = print_table(study, store, metrics=metrics, not_run=not_run)
        print_cannot_run(study, stats)
        print(f"\n{stats.ran} simulations in {stats.seconds:.1f} s; {store_notes(study, store, stats, path)}")
        write_out(summaries, args.out, metrics, not_run=not_run, time_unit=study_time_unit(study))
        if args.saturation:
            print_saturation(study, store, args)
        if not args.no_plots:
            outdir = args.plots or (str(Path(path).parent) if path != ":memory:" else ".")
            for fig in draw_figures(store, outdir, study=study.name):
                print(f"figure: {fig}")
    return 0


def sweep_command(args: argparse.Namespace) -> int:
    study = _load(args)
    path = store_path(study, args.store)
    with open_store(path) as store:
        stats = run_with_table(study, store, args)
        print(f"{study.name}: {stats.ran} simulations run in {stats.seconds:.1f} s, {stats.skipped} already stored, "
              f"{len(store)} rows in {path}")
        print(f"next: topoalloc plot {path}")
    return 0


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
    from ..experiments import ResultStore, aggregate, load_study
    from ..experiments.runner import study_rows
    from . import build_parser

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

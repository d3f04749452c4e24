"""What the sub-commands share once their arguments are parsed: the executor, running a study
with ``--out`` kept current, the printed table and its notes (run length, time unit, what could not
run, what the store held), saturation searches, figures, the result store, and keeping the objects
a command builds out of the garbage collector's way.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ._args import UserError

__all__ = ["executor_for", "progress_flag", "run_with_table", "OUT_EVERY", "write_table", "study_time_unit",
           "unit_note", "sizes_line", "print_table", "not_run_lines", "print_cannot_run", "store_notes",
           "print_saturation", "write_out", "draw_figures", "store_path", "open_store", "kept_alive", "thaw"]


def executor_for(args: argparse.Namespace) -> Any:
    from ..experiments import make_executor

    try:
        return make_executor(workers=args.workers, dask=args.dask)
    except ImportError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot reach the Dask scheduler {args.dask}: {exc}") from None


def progress_flag(args: argparse.Namespace) -> bool | None:
    return False if getattr(args, "no_progress", False) else None


def run_with_table(study: Any, store: Any, args: argparse.Namespace, metrics: Sequence[str] | None = None) -> Any:
    """Run ``study`` into ``store``; with ``--out`` (``run``, ``compare``) the table of the points
    finished so far is rewritten as rows arrive (at most every :data:`OUT_EVERY` seconds), so a long
    run that is stopped leaves a current table."""
    import time

    from ..experiments import run_study

    on_row = None
    out = getattr(args, "out", None)
    if out:
        last = [time.monotonic()]

        def on_row(row: dict[str, Any]) -> None:
            now = time.monotonic()
            if now - last[0] >= OUT_EVERY:
                last[0] = now
                write_table(study, store, out, metrics)

    executor = executor_for(args)
    try:
        return run_study(study, store, executor, progress=progress_flag(args), on_row=on_row)
    finally:
        executor.close()


#: How often (seconds) ``--out`` is rewritten while a ``run`` or ``compare`` is under way.
OUT_EVERY = 2.0


def write_table(study: Any, store: Any, path: str, metrics: Sequence[str] | None) -> None:
    """Write the table of ``study``'s finished points to ``path`` (quietly; while it runs)."""
    from ..experiments import aggregate
    from ..experiments.report import write_summaries
    from ..experiments.runner import study_rows

    summaries = aggregate(study_rows(study, store), order=[p.point_id for p in study.points()])
    write_summaries(summaries, path, *(() if metrics is None else (metrics,)), time_unit=study_time_unit(study))


def study_time_unit(study: Any) -> str | None:
    """The unit of a study's time columns: ``s`` when every experiment replays a trace, ``t.u.`` (the
    workload's service-time unit) when none does, else none written."""
    traces = {bool(e.workload.trace) for e in study.experiments}
    return "s" if traces == {True} else "t.u." if traces == {False} else None


def unit_note(study: Any) -> str:
    unit = study_time_unit(study)
    if unit == "s":
        return "times in seconds (the trace's unit)"
    if unit == "t.u.":
        return "times (t.u.) in the unit of the workload's service times"
    return "times in seconds for trace experiments, in the service times' unit otherwise"


def sizes_line(study: Any) -> str:
    """How the numbers are obtained: run length, warm-up, replications (or the target), seed."""
    from ..experiments.report import METRIC_LABELS

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


def print_table(study: Any, store: Any, *, experiment_column: bool | None = None,
                metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness"),
                not_run: Sequence[Any] = ()) -> list[Any]:
    """The table of exactly ``study``'s configuration (:func:`~scheduling.experiments.runner.study_rows`),
    with a line for each configuration in ``not_run``."""
    from ..experiments import aggregate, format_table
    from ..experiments.runner import mark_short_of_target, study_rows

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
                       time_unit=study_time_unit(study)))
    return summaries


def not_run_lines(stats: Any, points: Sequence[Any], skipped: dict[str, str] | None = None,
                  study: Any = None) -> list[Any]:
    """The table lines of the configurations that could not run: the allocators ``compare`` left
    out before running (``skipped``, one line each, for every policy and load) and the points
    whose runs reported :data:`~scheduling.experiments.runner.CANNOT_RUN` (``stats.cannot_run``)."""
    from ..experiments import registry as reg
    from ..experiments.report import NotRun

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


def print_cannot_run(study: Any, stats: Any, points: Sequence[Any] | None = None) -> None:
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


def store_notes(study: Any, store: Any, stats: Any, path: str | None) -> str:
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


def print_saturation(study: Any, store: Any, args: argparse.Namespace) -> None:
    """``--saturation``: bisect each configuration's saturation load and print the brackets."""
    from ..experiments.saturation import format_saturation, saturation_loads

    if not any(load is not None for e in study.experiments for load in e.loads):
        print("\nno saturation load: the points replay recorded traces (no offered load to vary)")
        return
    executor = executor_for(args)
    try:
        found = saturation_loads(study, store, executor, tolerance=args.saturation_tolerance,
                                 progress=progress_flag(args))
    finally:
        executor.close()
    from ..experiments.saturation import PROBE_JOBS

    jobs = sorted({max(e.jobs or 0, PROBE_JOBS) for e in study.experiments})
    print(f"\nsaturation load of each configuration (bisection to {args.saturation_tolerance:g}; each probe 2 runs of "
          f"{', '.join(map(str, jobs))} jobs, saturated when the backlog grows through at least one of them; "
          "capacity: the utilisation at the saturated end):")
    print(format_saturation(found))


def write_out(summaries: Sequence[Any], path: str | None, metrics: Sequence[str] | None = None, *,
              not_run: Sequence[Any] = (), time_unit: str | None = None) -> None:
    if not path:
        return
    from ..experiments.report import write_summaries

    if metrics is None:
        write_summaries(summaries, path, not_run=not_run, time_unit=time_unit)
    else:
        write_summaries(summaries, path, metrics, not_run=not_run, time_unit=time_unit)
    print(f"table written to {path}")


def draw_figures(store: Any, outdir: str | Path, study: str | None = None, specs: Any = None, fmt: str = "png",
                 dpi: int = 110) -> list[Path]:
    from ..plots import MatplotlibMissingError, study_figures

    try:
        return study_figures(store, outdir, study=study, specs=specs, fmt=fmt, dpi=dpi)
    except MatplotlibMissingError as exc:
        print(f"no figures: {exc}", file=sys.stderr)
        return []


def store_path(study: Any, given: str | None) -> str:
    if given:
        return given
    if study.store:
        return study.store
    return os.path.join("results", study.name.replace("/", "-") + ".sqlite")


def open_store(path: str) -> Any:
    from ..experiments.store import ResultStore, StoreVersionError

    try:
        return ResultStore(path)
    except StoreVersionError as exc:
        raise UserError(str(exc)) from None


_frozen = False  # whether kept_alive() froze the heap (undone when main() returns)


@contextlib.contextmanager
def kept_alive() -> Iterator[None]:
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


def thaw() -> None:
    """Undo :func:`kept_alive`'s freeze."""
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False

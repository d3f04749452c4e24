"""Replay the Cornell Theory Center SP2 trace under EASY and DHC gang scheduling (seed 004).

F. Wang, M. Papaefthymiou, M. Squillante, "Performance Evaluation of Gang Scheduling for Parallel
and Distributed Multiprogramming": one month (August 1996) of the CTC SP2 workload, jobs of up to
320 processors with nonzero CPU time (§5), on a 320-processor machine (a DHC forest 256 + 64,
§2.6). EASY runs on a flat 320-processor pool; the gang schedulers (vanilla, push-down, migration
from the root and from the leaves) on a ``DHCTree`` with uniform quanta, for context-switch costs
of 1 s and 16 s and several timeplexing cycles. For each run the per-class table of seed 004
Fig. 3 is printed (jobs, service, queueing, sharing, waiting and response times, R/S), then the
normalised response times per class side by side (the data of Figs. 4-9). Push-down uses the
weight-oriented assignment (the paper shows only that one, §6), the others first fit.

    python examples/gang_ctc.py --limit 1000                      # a quick look (about a minute)
    python examples/gang_ctc.py                                   # the month: 24 gang runs, minutes
    python examples/gang_ctc.py --cycles 1000 3000 --costs 1 16 --workers 2 --plot gang_ctc.png
    python examples/gang_ctc.py --variants migrate-leaves --quanta rho

The trace is found with ``scheduling.workloads.trace_path`` (``$TOPOALLOC_TRACES``, default
``../shared/traces``); without the CTC log the closest one present is used (``--trace`` to choose).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from scheduling import simulate
from scheduling.gang_metrics import class_table, format_class_table
from scheduling.policies.gang import VARIANTS, Gang
from scheduling.workloads import TraceNotFoundError, load_swf, trace_path
from topoalloc import DHCTree, FlatPool
from topologies import Flat

CTC = "CTC-SP2-1996-3.1-cln.swf.gz"
FALLBACKS = (CTC, "SDSC-Par-1996-3.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz")
MONTH = 30 * 86400.0


def find_trace(name: str | None):
    """The requested trace, else the first of :data:`FALLBACKS` present."""
    for candidate in ([name] if name else FALLBACKS):
        try:
            return trace_path(candidate)
        except TraceNotFoundError as exc:
            last = exc
    raise SystemExit(f"no trace found: {last}")


def august_1996(path) -> tuple[float, float] | None:
    """August 1996 (US Eastern time) in seconds from the log's start, from its ``UnixStartTime``;
    ``None`` when the log does not cover it."""
    header = load_swf(path, limit=1).header
    if header.unix_start_time is None:
        return None
    try:
        from zoneinfo import ZoneInfo

        tz = ZoneInfo(header.time_zone_string or "US/Eastern")
    except Exception:  # no tz database: EDT
        tz = dt.timezone(dt.timedelta(hours=-4))
    lo = dt.datetime(1996, 8, 1, tzinfo=tz).timestamp() - header.unix_start_time
    hi = dt.datetime(1996, 9, 1, tzinfo=tz).timestamp() - header.unix_start_time
    return (lo, hi) if lo >= 0 else None


def load_jobs(args):
    path = find_trace(args.trace)
    window = tuple(args.window) if args.window else (august_1996(path) if CTC in path.name else None)
    if window is None:
        window = (0.0, MONTH)
    trace = load_swf(path, topology=Flat(args.machine), window=window, limit=args.limit)
    jobs = list(trace)
    if not args.keep_zero_cpu:
        jobs = [j for j in jobs if j.attrs["swf"].average_cpu_time > 0]
    print(f"{path.name}: window {window[0]:.0f}..{window[1]:.0f} s, {len(jobs)} jobs on {args.machine} processors "
          f"(skipped: {trace.report.counts}; no-CPU-time dropped: {len(trace) - len(jobs)})")
    return jobs


def run_one(spec):
    jobs, label, variant, cycle, cost, assignment, quanta, machine = spec
    t0 = time.perf_counter()
    if variant == "EASY":
        result = simulate(FlatPool(Flat(machine)), "EASY", jobs, jobs=None)
    else:
        policy = Gang(variant, cycle=cycle, switch_cost=cost, assignment=assignment, quanta=quanta)
        result = simulate(DHCTree(Flat(machine)), policy, jobs, jobs=None)
    classes = (machine - 1).bit_length() + 1
    return label, variant, cycle, cost, class_table(result, classes), result.unfinished, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--trace", help=f"trace name in the traces directory (default {CTC}, or the closest present)")
    ap.add_argument("--window", nargs=2, type=float, metavar=("START", "END"),
                    help="submit-time window in seconds from the log start (default: August 1996 for CTC)")
    ap.add_argument("--limit", type=int, help="keep only the first N jobs of the window (quick runs)")
    ap.add_argument("--machine", type=int, default=320, help="processors (default 320 = 256 + 64)")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    ap.add_argument("--cycles", nargs="+", type=float, default=[300.0, 1000.0, 3000.0], help="timeplexing cycles T, s")
    ap.add_argument("--costs", nargs="+", type=float, default=[1.0, 16.0], help="context-switch costs, s")
    ap.add_argument("--assignment", choices=("first_fit", "weight"),
                    help="job assignment of vanilla and push-down (default: first fit, push-down weight)")
    ap.add_argument("--quanta", choices=Gang.QUANTA, default="uniform")
    ap.add_argument("--keep-zero-cpu", action="store_true",
                    help="keep jobs without a positive CPU time (§5 keeps nonzero ones; -1 is unknown)")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--tables", choices=("all", "summary"), default="all",
                    help="print every run's Fig. 3 table, or only the summaries")
    ap.add_argument("--plot", help="write the normalised response times per class as a PNG (needs matplotlib)")
    args = ap.parse_args(argv)

    jobs = load_jobs(args)
    specs = [(jobs, "EASY", "EASY", 0.0, 0.0, None, "uniform", args.machine)]
    for variant in args.variants:
        assignment = args.assignment or ("weight" if variant == "pushdown" else "first_fit")
        for cost in args.costs:
            for cycle in args.cycles:
                label = f"Gang-{variant} ({assignment}) T={cycle:g} s, switch {cost:g} s, {args.quanta} quanta"
                specs.append((jobs, label, variant, cycle, cost, assignment, args.quanta, args.machine))
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(run_one, specs))
    else:
        results = [run_one(s) for s in specs]
    for label, _, _, _, rows, unfinished, secs in results:
        if args.tables == "all" or label == "EASY":
            print()
            note = f", {unfinished} unfinished" if unfinished else ""
            print(format_class_table(rows, f"{label}   [{secs:.1f} s{note}]"))
    print(f"\nnormalised response time R/S per class (mean R / mean S), {time.perf_counter() - t0:.0f} s in all")
    easy = results[0][4]
    classes = len(easy)
    head = f"{'scheduler':<34}" + "".join(f"{c:>8}" for c in range(classes)) + f"{'better':>8}"
    for cost in args.costs:
        print(f"\ncontext-switch cost {cost:g} s  ('better': classes where it beats EASY)")
        print(head)
        print(f"{'EASY':<34}" + "".join(f"{r.normalized:>8.2f}" for r in easy))
        for _, variant, cycle, c, rows, _, _ in results[1:]:
            if c != cost:
                continue
            better = sum(1 for r, e in zip(rows, easy, strict=True) if r.jobs and r.normalized < e.normalized)
            print(f"{variant + f' T={cycle:g}':<34}" + "".join(f"{r.normalized:>8.2f}" for r in rows) + f"{better:>8}")
    if args.plot:
        plot(results, args, args.plot)
    return 0


def plot(results, args, path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not importable; no figure written", file=sys.stderr)
        return
    easy = results[0][4]
    classes = len(easy)
    fig, axes = plt.subplots(len(args.costs), classes, figsize=(2.2 * classes, 2.6 * len(args.costs)), squeeze=False)
    for i, cost in enumerate(args.costs):
        for c in range(classes):
            ax = axes[i][c]
            for variant in args.variants:
                pts = [(cy, rows[c].normalized) for _, v, cy, co, rows, _, _ in results[1:]
                       if v == variant and co == cost]
                if pts:
                    xs, ys = zip(*sorted(pts), strict=True)
                    ax.plot(xs, ys, marker="o", label=variant)
            ax.axhline(easy[c].normalized, color="k", linestyle="--", label="EASY")
            ax.set_xscale("log")
            ax.set_title(f"class {c}, switch {cost:g} s", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=6)
    fig.supxlabel("timeplexing cycle T (s)")
    fig.supylabel("mean R / mean S")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())

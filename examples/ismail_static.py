"""Regenerate the figures of Ismail's static space sharing chapters (seed 000, ch. 2-3) as tables.

I. M. Ismail, *Space Sharing Job Scheduling Policies for Parallel Computers*, PhD thesis, Iowa
State 1995: P = 64, the workloads of §2.3.1 / §3.3.1 (``scheduling.workloads.ismail``), 8500 jobs
per run with the first 500 discarded, several independent replications (seeds) per point; every
policy sees the same jobs for a seed (common random numbers). Each value is printed as the mean
over the seeds with its 95% Student-t half-width. A PNG per figure is written to ``--out`` when
matplotlib is importable (``--no-plot`` to skip).

    python examples/ismail_static.py                       # the headline figures 2.9, 3.3, 3.6
    python examples/ismail_static.py --figures all --workers 2
    python examples/ismail_static.py --figures 2.14,3.15 --seeds 5
    python examples/ismail_static.py --quick               # 2000 jobs, 2 seeds: a few minutes

``--list`` shows every figure. Besides the thesis' figures: ``f2`` compares FF_max = f1max and
f2max (§3.3.1 says it changes little) and ``metrics`` prints folding fragmentation and system
efficiency (§1.1, §2.3), which the thesis defines but does not plot.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from scheduling import policies, simulate
from scheduling.metrics import confidence_interval
from scheduling.workloads.ismail import JOBS, WARMUP, ismail_workload, residual_life_ratio, static_metrics
from topoalloc import FlatPool
from topologies import Flat

P = 64
NOFOLD = ("FCFS", "FF", "FFDS", "FFIS")
UNLIMITED = ("FCFSUF", "FF+FIFO", "FFDS+FIFO", "FFIS+FIFO", "EPFP")
LIMITED = ("FFCFS", "FFF", "FSJF", "MFFF", "MFSJF")
L_NOFOLD = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
L_MISP = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2)
L_LINEAR = (0.2, 0.3, 0.5, 0.7, 0.9)
SIZE_BINS = tuple(range(2, P + 2, 8))  # fairness: requests 2-9, 10-17, ..., 58-64
UU = {"sizes": "uniform", "runtimes": "uniform"}
EU = {"sizes": "exponential", "runtimes": "uniform"}  # exponential sizes, uniform run times
UE = {"sizes": "uniform", "runtimes": "exponential"}
EE = {"sizes": "exponential", "runtimes": "exponential"}


@dataclass(frozen=True)
class Figure:
    """One figure: ``series`` are ``(label, policy spec, workload overrides)``; ``kind`` is
    ``"load"`` (x = load), ``"ffmax"`` (x = fixed FF_max, series are loads) or ``"fairness"`` (x =
    request size bin, at ``load``)."""

    title: str
    metric: str
    series: tuple
    xs: tuple = L_MISP
    kind: str = "load"
    load: float = 0.6
    workload: dict = field(default_factory=dict)


def _s(names, **wkw):
    return tuple((n, n, wkw) for n in names)


FIGURES: dict[str, Figure] = {
    "2.1": Figure("S_e, no folding, uniform sizes", "effectiveness", _s(NOFOLD), L_NOFOLD, workload=UU),
    "2.2": Figure("S_e, no folding, exponential sizes", "effectiveness", _s(NOFOLD), L_NOFOLD, workload=EU),
    "2.3": Figure("S_e, unlimited folding, exponential sizes, linear", "effectiveness", _s(UNLIMITED), L_LINEAR,
                  workload={**EU, "speedup": "linear"}),
    "2.4": Figure("S_e, unlimited folding, uniform sizes, MISP", "effectiveness", _s(UNLIMITED), workload=UU),
    "2.5": Figure("S_e, unlimited folding, exponential sizes, MISP", "effectiveness", _s(UNLIMITED), workload=EU),
    "2.6": Figure("S_e, FF policies, uniform sizes, MISP", "effectiveness", _s(("FF", "FF+FIFO")), workload=UU),
    "2.7": Figure("S_e, FCFS policies, uniform sizes, MISP", "effectiveness", _s(("FCFS", "FCFSUF")), workload=UU),
    "2.8": Figure("mean actual folding factor, unlimited folding, uniform, MISP", "mean_folding_factor",
                  _s(UNLIMITED), workload=UU),
    "2.9": Figure("mean response time, no folding, uniform sizes", "mean_turnaround", _s(NOFOLD), L_NOFOLD,
                  workload=UU),
    "2.10": Figure("mean response time, no folding, exponential sizes", "mean_turnaround", _s(NOFOLD), L_NOFOLD,
                   workload=EU),
    "2.11": Figure("mean response time, unlimited folding, uniform, linear", "mean_turnaround", _s(UNLIMITED),
                   L_LINEAR, workload={**UU, "speedup": "linear"}),
    "2.12": Figure("mean response time, unlimited folding, uniform, MISP", "mean_turnaround", _s(UNLIMITED),
                   workload=UU),
    "2.13": Figure("mean response time, unlimited folding, exponential sizes, MISP", "mean_turnaround",
                   _s(UNLIMITED), workload=EU),
    "2.14": Figure("mean response time, FF policies, uniform sizes", "mean_turnaround",
                   (("FF", "FF", {}), ("FF+FIFO MISP", "FF+FIFO", {}),
                    ("FF linear", "FF", {"speedup": "linear"}), ("FF+FIFO linear", "FF+FIFO", {"speedup": "linear"})),
                   (0.2, 0.4, 0.5, 0.6, 0.7, 0.8), workload=UU),
    "2.15": Figure("mean response time, FF policies, exponential sizes", "mean_turnaround",
                   (("FF", "FF", {}), ("FF+FIFO MISP", "FF+FIFO", {}),
                    ("FF linear", "FF", {"speedup": "linear"}), ("FF+FIFO linear", "FF+FIFO", {"speedup": "linear"})),
                   (0.2, 0.4, 0.5, 0.6, 0.7, 0.8), workload=EU),
    "2.16": Figure("fairness, no folding, uniform sizes, L=0.6", "fairness", _s(NOFOLD), SIZE_BINS, "fairness",
                   0.6, UU),
    "2.17": Figure("fairness, no folding, exponential sizes, L=0.6", "fairness", _s(NOFOLD), SIZE_BINS, "fairness",
                   0.6, EU),
    "2.18": Figure("fairness, unlimited folding, uniform, MISP, L=0.6", "fairness", _s(UNLIMITED), SIZE_BINS,
                   "fairness", 0.6, UU),
    "2.19": Figure("fairness, unlimited folding, uniform, MISP, L=0.9", "fairness", _s(UNLIMITED), SIZE_BINS,
                   "fairness", 0.9, UU),
    "2.20": Figure("fairness, unlimited folding, exponential sizes, MISP, L=0.9", "fairness", _s(UNLIMITED),
                   SIZE_BINS, "fairness", 0.9, EU),
    "2.21": Figure("mean response time with FFITD, uniform", "mean_turnaround", _s(NOFOLD + ("FFITD",)), L_NOFOLD,
                   workload=UU),
    "2.22": Figure("known t(n), unlimited folding, MISP, uniform sizes, exponential run times", "mean_turnaround",
                   _s(("FCFSUF", "STDFUF", "SHJFUF", "LOJFUF")), workload=UE),
    "2.23": Figure("known t(n), unlimited folding, MISP, uniform", "mean_turnaround",
                   _s(("FCFSUF", "STDFUF", "SHJFUF", "LOJFUF")), workload=UU),
    "2.24": Figure("known t(n), unlimited folding, linear, uniform", "mean_turnaround",
                   _s(("FCFSUF", "STDFUF", "SHJFUF", "LOJFUF")), L_LINEAR, workload={**UU, "speedup": "linear"}),
    "3.1": Figure("S_e, first-fit variants, MISP, uniform", "effectiveness", _s(("FF", "FF+FIFO", "FFF")),
                  workload=UU),
    "3.2": Figure("S_e, first-fit variants, MISP, exponential sizes", "effectiveness", _s(("FF", "FF+FIFO", "FFF")),
                  workload=EU),
    "3.3": Figure("mean response time, first-fit variants, MISP, uniform", "mean_turnaround",
                  _s(("FF", "FF+FIFO", "FFF")), workload=UU),
    "3.4": Figure("mean response time, first-fit variants, linear, uniform", "mean_turnaround",
                  _s(("FF", "FF+FIFO", "FFF")), L_LINEAR, workload={**UU, "speedup": "linear"}),
    "3.5": Figure("mean response time, first-fit variants, MISP, exponential sizes", "mean_turnaround",
                  _s(("FF", "FF+FIFO", "FFF")), workload=EU),
    "3.6": Figure("limited folding, MISP, uniform run times and sizes", "mean_turnaround", _s(LIMITED), workload=UU),
    "3.7": Figure("limited folding, MISP, uniform run times, exponential sizes", "mean_turnaround", _s(LIMITED),
                  workload=EU),
    "3.8": Figure("limited folding, MISP, exponential run times, uniform sizes", "mean_turnaround", _s(LIMITED),
                  workload=UE),
    "3.9": Figure("limited folding, MISP, exponential run times and sizes", "mean_turnaround", _s(LIMITED),
                  workload=EE),
    "3.10": Figure("limited folding, linear, uniform", "mean_turnaround", _s(("FFF", "MFFF", "MFSJF")), L_LINEAR,
                   workload={**UU, "speedup": "linear"}),
    "3.11": Figure("S_e, FFF vs MFFF, MISP, uniform", "effectiveness", _s(("FFF", "MFFF")), workload=UU),
    "3.12": Figure("S_e, FFF vs MFFF, MISP, exponential run times and sizes", "effectiveness", _s(("FFF", "MFFF")),
                   workload=EE),
    "3.13": Figure("mean actual folding factor, MISP, uniform", "mean_folding_factor", _s(("FFF", "MFFF")),
                   workload=UU),
    "3.14": Figure("mean actual folding factor, MISP, exponential run times, uniform sizes", "mean_folding_factor",
                   _s(("FFF", "MFFF")), workload=UE),
    "3.15": Figure("FFF with a fixed FF_max, MISP, uniform", "mean_turnaround",
                   (("L=0.8", 0.8, {}), ("L=1.2", 1.2, {})), (1, 1.5, 2, 3, 4, 6, 8, 64), "ffmax", workload=UU),
    "3.16": Figure("FFF with a fixed FF_max, MISP, exponential run times, uniform sizes", "mean_turnaround",
                   (("L=0.8", 0.8, {}), ("L=1.2", 1.2, {})), (1, 1.5, 2, 3, 4, 6, 8, 64), "ffmax", workload=UE),
    "3.17": Figure("fairness, limited folding, MISP, uniform, L=0.6", "fairness", _s(LIMITED), SIZE_BINS,
                   "fairness", 0.6, UU),
    "3.18": Figure("fairness, limited folding, MISP, uniform, L=1", "fairness", _s(LIMITED), SIZE_BINS, "fairness",
                   1.0, UU),
    "3.19": Figure("multifolding with known t(n), MISP, uniform", "mean_turnaround",
                   _s(("MFFF", "MFSTDF", "MFSHJF", "MFLOJF")), workload=UU),
    "3.20": Figure("multifolding with known t(n), MISP, exponential run times and sizes", "mean_turnaround",
                   _s(("MFFF", "MFSTDF", "MFSHJF", "MFLOJF")), workload=EE),
    "f2": Figure("FF_max = f1max vs f2max (r from the run-time distribution), MISP, uniform", "mean_turnaround",
                 _s(("FFF", "FFF-f2max", "MFFF", "MFFF-f2max")), workload=UU),
    "metrics": Figure("folding fragmentation / system efficiency, MISP, uniform", "static",
                      _s(("FF", "FF+FIFO", "FFF", "MFFF")), workload=UU),
}
DEFAULT = ("2.9", "3.3", "3.6")


def make_policy(spec: str, service):
    """A registry name; the ``-f2max`` variants get ``r`` from the workload's run times."""
    p = policies.get(spec)
    if spec.endswith("-f2max"):
        p.r = residual_life_ratio(service)
    return p


def run_one(task):
    """One simulation: a summary, per-size-bin turnaround sums, and (if asked) static metrics."""
    spec, load, wkw, seed, jobs, warmup, with_metrics = task
    w = ismail_workload(P=P, load=load, **dict(wkw))
    r = simulate(FlatPool(Flat(P)), make_policy(spec, w.service), w, jobs=jobs, warmup=warmup, seed=seed)
    out = dict(r.summary())
    edges = np.array(SIZE_BINS + (P + 1,), dtype=float)
    idx = np.clip(np.searchsorted(edges, r.requested, side="right") - 1, 0, len(SIZE_BINS) - 1)
    turn = r.end - r.arrival
    out["_bin_sum"] = np.bincount(idx, weights=turn, minlength=len(SIZE_BINS))
    out["_bin_count"] = np.bincount(idx, minlength=len(SIZE_BINS))
    if with_metrics:
        out.update(static_metrics(r, w.take(int(r.id.max()) + 1, seed)))
    return task, out


def tasks_of(fig: Figure, seeds, jobs, warmup):
    metrics = fig.metric == "static"
    for _, spec, extra in fig.series:
        wkw = tuple(sorted({**fig.workload, **extra}.items())) if isinstance(extra, dict) else ()
        if fig.kind == "load":
            points = [(spec, load) for load in fig.xs]
        elif fig.kind == "fairness":
            points = [(spec, fig.load)]
        else:  # ffmax: the series' "spec" is its load
            wkw = tuple(sorted(fig.workload.items()))
            points = [(f"FFF-fixed-{x:g}", spec) for x in fig.xs]
        for pspec, load in points:
            for seed in seeds:
                yield (pspec, load, wkw, seed, jobs, warmup, metrics)


def _fmt(est) -> str:
    if est.n < 2 or np.isnan(est.half_width):
        return f"{est.mean:10.4g}"
    return f"{est.mean:9.4g}±{est.half_width:<7.2g}"


def report(fid: str, fig: Figure, results: dict, seeds, jobs, warmup) -> dict:
    """Print the figure as a table; return ``{label: (xs, means)}`` for plotting."""
    print(f"\nFigure {fid}: {fig.title}  [{fig.metric}; {len(seeds)} seeds x {jobs} jobs, {warmup} warm-up]")
    curves = {}
    if fig.metric == "static":
        cols = ("effectiveness", "folding_fragmentation", "system_efficiency", "program_efficiency",
                "mean_folding_factor", "mean_turnaround")
        print(f"{'policy':>10} {'L':>5} " + " ".join(f"{c[:17]:>17}" for c in cols))
        for label, spec, extra in fig.series:
            wkw = tuple(sorted({**fig.workload, **extra}.items()))
            for load in fig.xs:
                runs = [results[(spec, load, wkw, s, jobs, warmup, True)] for s in seeds]
                vals = [_fmt(confidence_interval([r[c] for r in runs])) for c in cols]
                print(f"{label:>10} {load:5.2f} " + " ".join(f"{v:>17}" for v in vals))
        return curves
    xs = fig.xs
    header = "size bin" if fig.kind == "fairness" else ("FF_max" if fig.kind == "ffmax" else "L")
    labels = [s[0] for s in fig.series]
    print(f"{header:>8} " + " ".join(f"{lab:>17}" for lab in labels))
    table = {}
    for label, spec, extra in fig.series:
        wkw = tuple(sorted({**fig.workload, **extra}.items())) if isinstance(extra, dict) else ()
        means = []
        for x in xs:
            if fig.kind == "load":
                runs = [results[(spec, x, wkw, s, jobs, warmup, False)] for s in seeds]
                est = confidence_interval([r[fig.metric] for r in runs])
            elif fig.kind == "ffmax":
                w2 = tuple(sorted(fig.workload.items()))
                runs = [results[(f"FFF-fixed-{x:g}", spec, w2, s, jobs, warmup, False)] for s in seeds]
                est = confidence_interval([r[fig.metric] for r in runs])
            else:
                runs = [results[(spec, fig.load, wkw, s, jobs, warmup, False)] for s in seeds]
                i = xs.index(x)
                per = [r["_bin_sum"][i] / r["_bin_count"][i] for r in runs if r["_bin_count"][i]]
                est = confidence_interval(per) if per else confidence_interval([float("nan")])
            table[(label, x)] = est
            means.append(est.mean)
        curves[label] = (xs, means)
    for x in xs:
        xl = f"{x}-{min(x + 7, P)}" if fig.kind == "fairness" else f"{x:g}"
        print(f"{xl:>8} " + " ".join(f"{_fmt(table[(lab, x)]):>17}" for lab in labels))
    return curves


def plot(fid: str, fig: Figure, curves: dict, out: str) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if not curves:
        return None
    os.makedirs(out, exist_ok=True)
    f, ax = plt.subplots(figsize=(6, 4))
    for label, (xs, ys) in curves.items():
        ax.plot(xs, ys, marker="o", label=label)
    ax.set_xlabel({"load": "load L", "ffmax": "fixed FF_max", "fairness": "processor request n"}[fig.kind])
    ax.set_ylabel(fig.metric.replace("_", " "))
    if fig.metric == "mean_turnaround":
        ax.set_yscale("log")
    if fig.kind == "ffmax":
        ax.set_xscale("log", base=2)
    ax.set_title(f"Ismail Fig. {fid}: {fig.title}", fontsize=8)
    ax.legend(fontsize=7)
    f.tight_layout()
    path = os.path.join(out, f"ismail_fig_{fid.replace('.', '_')}.png")
    f.savefig(path, dpi=120)
    plt.close(f)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--figures", default=",".join(DEFAULT), help="comma-separated ids, or 'all' (see --list)")
    ap.add_argument("--jobs", type=int, default=JOBS, help=f"jobs per run (default {JOBS})")
    ap.add_argument("--warmup", type=int, default=WARMUP, help=f"jobs discarded per run (default {WARMUP})")
    ap.add_argument("--seeds", type=int, default=3, help="replications per point (default 3)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--quick", action="store_true", help="2000 jobs, 200 warm-up, 2 seeds")
    ap.add_argument("--out", default="ismail_static_figures", help="directory for PNGs")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the figures and exit")
    a = ap.parse_args(argv)
    if a.list:
        for fid, fig in FIGURES.items():
            print(f"{fid:>8}  {fig.title}")
        return 0
    if a.quick:
        a.jobs, a.warmup, a.seeds = 2000, 200, 2
    ids = list(FIGURES) if a.figures == "all" else [s.strip() for s in a.figures.split(",") if s.strip()]
    unknown = [i for i in ids if i not in FIGURES]
    if unknown:
        ap.error(f"unknown figure(s) {', '.join(unknown)}; --list shows them")
    seeds = tuple(range(a.seeds))
    todo = list(dict.fromkeys(t for i in ids for t in tasks_of(FIGURES[i], seeds, a.jobs, a.warmup)))
    print(f"{len(todo)} simulations of {a.jobs} jobs on {a.workers} worker(s)", file=sys.stderr)
    t0 = time.perf_counter()
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as ex:
            results = dict(ex.map(run_one, todo, chunksize=4))
    else:
        results = dict(map(run_one, todo))
    print(f"done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    for fid in ids:
        curves = report(fid, FIGURES[fid], results, seeds, a.jobs, a.warmup)
        if not a.no_plot:
            path = plot(fid, FIGURES[fid], curves, a.out)
            if path:
                print(f"(plot: {path})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

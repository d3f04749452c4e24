"""Ismail's dynamic space sharing (seed 000 chapter 4) at full size: Figs. 4.2–4.15 and Table 4.3.

    python examples/ismail_dynamic.py                 # every figure, 5,500 jobs, first 500 dropped
    python examples/ismail_dynamic.py --quick         # 1,500 jobs, 2 seeds: a quick look
    python examples/ismail_dynamic.py --only 4.4 4.8  # some figures

A 64-processor flat machine (FlatPool); workloads from :func:`scheduling.workloads.ismail_dynamic`;
each point is the mean of independent replications (seeds 1..n, common random numbers across
policies) with its 95% half-width; the paper ran replications until that was within 5%
(``--precision`` adds seeds, up to ``--max-seeds``, until every point is). Tables are printed; PNG
figures are written to ``--out`` when matplotlib is installed.
"""

from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from scheduling import simulate
from scheduling.metrics import confidence_interval
from scheduling.policies import get
from scheduling.workloads import ismail_dynamic
from topoalloc import FlatPool
from topologies import Flat

P = 64
BASIC = ["DEQP", "DPROP", "DFCFS", "DSMJF"]

#: figure -> (title, execution, speedup, C, policies, loads)
FIGURES = {
    "4.2": ("Linear speedup, C=0, uniform sizes and times", "uniform", "linear", 0.0, BASIC,
            [0.2, 0.4, 0.6, 0.8]),
    "4.3": ("Linear speedup, C=1, uniform sizes, exponential times", "exponential", "linear", 1.0, BASIC,
            [0.2, 0.4, 0.6, 0.8]),
    "4.4": ("MISP, C=0, uniform sizes and times", "uniform", "misp", 0.0, BASIC + ["MFFF"],
            [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.5": ("MISP, C=1, uniform sizes and times", "uniform", "misp", 1.0, BASIC + ["MFFF"],
            [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.6": ("MISP, C=0, uniform sizes, exponential times", "exponential", "misp", 0.0, BASIC + ["MFFF"],
            [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.7": ("MISP, C=1, uniform sizes, exponential times", "exponential", "misp", 1.0, BASIC + ["MFFF"],
            [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.8": ("Tables 4.1/4.2 applications, C=0", "applications", "misp", 0.0, BASIC, [0.2, 0.4, 0.6, 0.8]),
    "4.9": ("MISP, C=0.5, times uniform on [1,10]", "short", "misp", 0.5, ["DEQP", "DPROP", "MFFF"],
            [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.12": ("DPROP variants: MISP, uniform sizes and times", "uniform", "misp", 0.0,
             ["DEQP", "DPROP", "DPROP-SM/2", "DPROP-SM/4", "DPROP-SH/4"], [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.13": ("DPROP variants: MISP, uniform sizes, exponential times", "exponential", "misp", 0.0,
             ["DEQP", "DPROP", "DPROP-SM/2", "DPROP-SM/4", "DPROP-SH/4"], [0.2, 0.4, 0.6, 0.8, 1.0]),
    "4.14": ("DPROP variants: Tables 4.1/4.2 applications", "applications", "misp", 0.0,
             ["DEQP", "DPROP", "DPROP-SM/2", "DPROP-SH/4"], [0.2, 0.4, 0.6, 0.8]),
}
#: fairness figures -> (title, execution, policies, loads)
FAIRNESS = {
    "4.10": ("Fairness, C=0, uniform sizes and times", "uniform", ["DEQP", "DPROP"], [0.6, 1.0]),
    "4.11": ("Fairness, C=0, uniform sizes, exponential times", "exponential", ["DEQP", "DPROP"], [0.6, 1.0]),
    "4.15": ("Fairness of DPROP-SM/x, L=1.0, uniform sizes and times", "uniform",
             ["DEQP", "DPROP-SM/1", "DPROP-SM/2", "DPROP-SM/4", "DPROP-SM/8"], [1.0]),
}
BINS = [2, 9, 17, 25, 33, 41, 49, 57, 65]


def _run(task: tuple) -> tuple[tuple, dict]:
    policy, execution, speedup, C, load, seed, jobs, warmup = task
    pol = get(policy)
    if hasattr(pol, "overhead"):
        pol.overhead = C  # the static MFFF has no reconfigurations
    work = ismail_dynamic(execution, load=load, speedup=speedup, machine_size=P)
    r = simulate(FlatPool(Flat(P)), pol, work, jobs=jobs, warmup=warmup, seed=seed)
    s = r.summary()
    s["changes"] = float(r.changes.mean())
    s["unfinished"] = r.unfinished
    f = r.fairness(bins=BINS)
    s["fairness"] = dict(zip(f["size"].tolist(), f["mean_turnaround"].tolist(), strict=True))
    return task, s


def run_grid(points: list[tuple], seeds: list[int], jobs: int, warmup: int, pool) -> dict:
    """points: (policy, execution, speedup, C, load) -> list of per-seed summaries."""
    tasks = [(*pt, seed, jobs, warmup) for pt in points for seed in seeds]
    out: dict = {pt: [] for pt in points}
    for task, s in pool.map(_run, tasks):
        out[task[:5]].append(s)
    return out


def known(policy: str) -> bool:
    try:
        get(policy)
        return True
    except KeyError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1,500 jobs (150 warm-up), 2 seeds")
    ap.add_argument("--only", nargs="*", default=None, help="figure numbers (4.2 .. 4.15, 4.3t for Table 4.3)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--precision", action="store_true", help="add seeds until every half-width is within 5%%")
    ap.add_argument("--max-seeds", type=int, default=20)
    ap.add_argument("--out", default="ismail_dynamic_figures")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    jobs, warmup, nseeds = (1500, 150, 2) if args.quick else (5500, 500, args.seeds)
    wanted = set(args.only) if args.only else set(FIGURES) | set(FAIRNESS) | {"4.3t"}
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        plt = None
    out = Path(args.out)
    if plt is not None:
        out.mkdir(exist_ok=True)

    with ProcessPoolExecutor(max_workers=args.workers or os.cpu_count()) as pool:
        for fig, (title, execution, speedup, C, policies, loads) in FIGURES.items():
            if fig not in wanted:
                continue
            policies = [p for p in policies if known(p)]
            points = [(p, execution, speedup, C, L) for p in policies for L in loads]
            seeds = list(range(1, nseeds + 1))
            res = run_grid(points, seeds, jobs, warmup, pool)
            while args.precision and len(seeds) < args.max_seeds:
                loose = [pt for pt in points
                         if confidence_interval([s["mean_turnaround"] for s in res[pt]]).relative_half_width > 0.05]
                if not loose:
                    break
                extra = [len(seeds) + 1]
                seeds += extra
                for pt, ss in run_grid(loose, extra, jobs, warmup, pool).items():
                    res[pt] += ss
            print(f"\nFigure {fig}: {title} -- mean response time (95% half-width), {jobs} jobs")
            print(f"{'L':>5} " + " ".join(f"{p:>18}" for p in policies))
            for L in loads:
                cells = []
                for p in policies:
                    ss = res[(p, execution, speedup, C, L)]
                    est = confidence_interval([s["mean_turnaround"] for s in ss])
                    flag = "*" if max(s["unfinished"] for s in ss) > 0.05 * jobs else " "
                    cells.append(f"{est.mean:10.1f} ±{est.half_width:5.1f}{flag}")
                print(f"{L:5.2f} " + " ".join(f"{c:>18}" for c in cells))
            print("(* = more than 5% of the jobs unfinished: saturated)")
            if plt is not None:
                fg, ax = plt.subplots(figsize=(5, 4))
                for p in policies:
                    ax.plot(loads, [np.mean([s["mean_turnaround"] for s in res[(p, execution, speedup, C, L)]])
                                    for L in loads], marker="o", label=p)
                ax.set(xlabel="load L", ylabel="mean response time", title=f"Fig. {fig}: {title}")
                ax.title.set_fontsize(8)
                ax.legend(fontsize=7)
                fg.tight_layout()
                fg.savefig(out / f"fig_{fig.replace('.', '_')}.png", dpi=120)
                plt.close(fg)

        if "4.3t" in wanted:
            loads = [0.4, 0.6, 0.8]
            points = [(p, "uniform", "linear", 0.0, L) for p in ["DFCFS", "DSMJF", "DPROP", "DEQP"] for L in loads]
            res = run_grid(points, list(range(1, nseeds + 1)), jobs, warmup, pool)
            print("\nTable 4.3: allocation changes relative to DFCFS (linear speedup, uniform sizes and times)")
            print("           " + " ".join(f"L={L:<6}" for L in loads) + "   (changes per job under DFCFS)")
            base = {L: np.mean([s["changes"] for s in res[("DFCFS", "uniform", "linear", 0.0, L)]]) for L in loads}
            for p in ["DFCFS", "DSMJF", "DPROP", "DEQP"]:
                rel = [np.mean([s["changes"] for s in res[(p, "uniform", "linear", 0.0, L)]]) / base[L] for L in loads]
                print(f"{p:10} " + " ".join(f"{x:8.2f}" for x in rel) +
                      ("   " + " ".join(f"{base[L]:.3f}" for L in loads) if p == "DFCFS" else ""))
            print("paper:     DFCFS 1.00 1.00 1.00 | DSMJF 1.00 1.03 1.02 | DPROP 1.50 1.51 1.28 | DEQP 1.64 1.68 1.44")

        for fig, (title, execution, policies, loads) in FAIRNESS.items():
            if fig not in wanted:
                continue
            points = [(p, execution, "misp", 0.0, L) for p in policies for L in loads]
            res = run_grid(points, list(range(1, nseeds + 1)), jobs, warmup, pool)
            print(f"\nFigure {fig}: {title} -- mean response time by processor request")
            for L in loads:
                print(f"L = {L}")
                print(f"{'request':>10} " + " ".join(f"{p:>12}" for p in policies))
                for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
                    vals = [np.mean([s["fairness"].get(lo, np.nan) for s in res[(p, execution, "misp", 0.0, L)]])
                            for p in policies]
                    print(f"{lo:>4}-{hi - 1:<5} " + " ".join(f"{v:12.1f}" for v in vals))
            if plt is not None:
                fg, axes = plt.subplots(1, len(loads), figsize=(5 * len(loads), 4), squeeze=False)
                for ax, L in zip(axes[0], loads, strict=True):
                    for p in policies:
                        ys = [np.mean([s["fairness"].get(lo, np.nan) for s in res[(p, execution, "misp", 0.0, L)]])
                              for lo in BINS[:-1]]
                        ax.plot(BINS[:-1], ys, marker="o", label=p)
                    ax.set(xlabel="processor request", ylabel="mean response time", title=f"Fig. {fig}, L={L}")
                    ax.legend(fontsize=7)
                fg.tight_layout()
                fg.savefig(out / f"fig_{fig.replace('.', '_')}.png", dpi=120)
                plt.close(fg)
    if plt is not None:
        print(f"\nfigures in {out}/")


if __name__ == "__main__":
    main()

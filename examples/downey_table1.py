"""Downey (seed 001): Table 1 and the §6 comparisons through ``topoalloc run``.

    python examples/downey_table1.py               # Table 1, the stubborn strategies, §6.5 (120 days each)
    python examples/downey_table1.py --figures     # also Figs. 11, 12, 15 (against load) and 13 (against c)
    python examples/downey_table1.py --replications 1   # quicker: 30 days per strategy

A 64-processor machine, Downey's workload model (the ``Downey`` workload model: each day simulated
separately until its last job ends, 30 days pooled per replication, 4 replications = the paper's
120 days; every strategy sees the same days). The tables are TOML files run by the experiments
machinery (results stored in ``results/*.sqlite`` -- re-running resumes):

* ``seed001_table1.toml`` -- Table 1 (greedy PWS, AVG, MAX, SEV, ASP at rho = 0.75), the stubborn
  versions (§6.1) and Simplified SEV / 3/2 AVG (§6.5);
* with ``--figures``: ``seed001_fig11_12.toml`` (utilization, cluster size and turnaround against the
  offered load: Figs. 11, 12, 15) and ``seed001_fig13_hybrid.toml`` (hybrid strategies, Fig. 13).

Arguments other than ``--figures`` go to ``topoalloc run`` (``--replications``, ``--workers``,
``--store``, ``--no-plots``, ...). See :mod:`scheduling.metrics.downey` for how each column is measured.

**Extra output** (below the machinery's tables): the paper's Table 1 rows next to the measured ones,
the stubborn strategies' turnaround as a multiple of ASP's (§6.1's "~2 / 5-8 / 13-17 / 17-21"), and
with ``--figures`` Fig. 13 against the minimum fraction c -- a table, and ``downey_fig13.png`` when
matplotlib is installed -- from the stored hybrid runs.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from scheduling.cli import build_parser, main, stored_run

HERE = Path(__file__).resolve().parent
TABLE = "seed001_table1.toml"
FIGURES = ["seed001_fig11_12.toml", "seed001_fig13_hybrid.toml"]

#: Table 1 of the paper (rho = 0.75, 120 simulated days): load average, utilization, turnaround,
#: queue time, cluster size, its CV, 90th percentile slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
COLUMNS = ("load_average", "system_efficiency", "mean_turnaround", "mean_wait", "mean_cluster_size",
           "cv_cluster_size", "p90_slowdown")
#: §6.1: stubborn turnaround as a multiple of ASP's, over rho = 0.5 .. 1.0.
PAPER_STUBBORN = {"SEV": "~2", "AVG": "5-8", "PWS": "13-17", "MAX": "17-21"}



def fmt_row(name: str, vals: tuple) -> str:
    la, ut, turn, queue, size, cv, p90 = vals
    return f"{name:18} {la:5.2f} {ut:5.2f} {turn:10.0f} {queue:7.0f} {size:5.1f} ({cv:4.2f}) {p90:8.1f}"


def table1(run_args: list[str]) -> None:
    summaries, _ = _stored(TABLE, run_args)
    by = {s.policy: s for s in summaries}
    print("\n# Extra: Table 1 next to the paper's (rho = 0.75; util = efficiency-weighted utilization)")
    print(f"{'strategy':18} {'load':>5} {'util':>5} {'turnaround':>10} {'queue':>7} {'size':>5} {'(CV)':>6} "
          f"{'p90 sd':>8}")
    for name, paper in PAPER_TABLE1.items():
        if name in by:
            print(fmt_row(name, tuple(by[name][c].mean for c in COLUMNS)))
        print(fmt_row("  (paper)", paper))
    asp = by["ASP"]["mean_turnaround"].mean if "ASP" in by else math.nan
    print("\n# Extra: §6.1 -- stubborn turnaround as a multiple of ASP's (paper, over rho = 0.5-1.0)")
    for rule, paper in PAPER_STUBBORN.items():
        s = by.get(f"{rule}-stubborn")
        if s is not None:
            print(f"{rule + '-stubborn':18} {s['mean_turnaround'].mean / asp:6.1f}   (paper {paper})")


def figure13(run_args: list[str], draw: bool) -> None:
    summaries, outdir = _stored(FIGURES[1], run_args)
    curves: dict[str, list[tuple[float, float, float]]] = {}
    for s in summaries:
        rule = s.experiment.split("/")[-1]
        c = 1.0 if s.policy.endswith("-stubborn") else float(s.policy.split("/")[1]) if "/" in s.policy else 0.0
        curves.setdefault(rule, []).append((c, s["system_efficiency"].mean, s["mean_turnaround"].mean))
    print("\n# Extra: Fig. 13 -- utilization / mean turnaround against the minimum fraction c (rho = 0.75)")
    cs = sorted({c for pts in curves.values() for c, _, _ in pts})
    print(f"{'strategy':10}" + "".join(f"{c:>14.1f}" for c in cs))
    for rule, pts in curves.items():
        d = {c: (u, t) for c, u, t in pts}
        print(f"{rule:10}" + "".join(f"{d[c][0]:6.3f}/{d[c][1]:7.0f}" if c in d else f"{'n/a':>14}" for c in cs))
    if not draw:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(1, 2, figsize=(10, 4.2))
    for rule, pts in curves.items():
        pts = sorted(pts)
        ax[0].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=rule)
        ax[1].plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=rule)
    ax[0].set(xlabel="minimum fraction c", ylabel="utilization", title="Fig. 13a (rho = 0.75)")
    ax[1].set(xlabel="minimum fraction c", ylabel="mean turnaround (s)", yscale="log", title="Fig. 13b (rho = 0.75)")
    for a in ax:
        a.legend()
    fig.tight_layout()
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / "downey_fig13.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"figure: {path}")


def run(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--figures", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    own, run_args = ap.parse_known_args(argv)
    if own.help:
        print(__doc__)
        return 0
    for name in [TABLE] + (FIGURES if own.figures else []):
        code = main(["run", str(HERE / name), *run_args])
        if code:
            return code
    table1(run_args)
    if own.figures:
        figure13(run_args, draw=not build_parser().parse_args(["run", "x", *run_args]).no_plots)
    return 0


def _stored(toml: str, run_args: list[str]) -> tuple[list, Path]:
    """Per-point summaries of ``topoalloc run <toml> <run_args>`` and its figure directory."""
    run = stored_run(HERE / toml, run_args)
    return run.summaries, run.plots_dir


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

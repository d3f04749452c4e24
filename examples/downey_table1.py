"""Downey (seed 001): Table 1 and the §6 comparisons at full size.

    python examples/downey_table1.py               # Table 1, stubborn strategies, §6.5 (120 days each)
    python examples/downey_table1.py --figures     # also Fig. 12 (cluster size vs load) and Fig. 13
                                                   # (minimum cluster size c), with a PNG if matplotlib is installed
    python examples/downey_table1.py --days 30     # quicker

A 64-processor machine, offered load rho = 0.75, every strategy on the same simulated days (one
workload seed per day, common random numbers); see :mod:`scheduling.downey_metrics` for how each
column is measured.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from scheduling.downey_metrics import simulate_days, summarize_days

#: Table 1 of the paper (rho = 0.75, 120 simulated days).
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
#: §6.1: stubborn turnaround as a multiple of ASP's, over rho = 0.5 .. 1.0.
PAPER_STUBBORN = {"SEV": "~2", "AVG": "5-8", "PWS": "13-17", "MAX": "17-21"}

HEADER = (f"{'strategy':18} {'load':>5} {'util':>5} {'turnaround':>10} {'queue':>7} {'size':>5} {'(CV)':>6} "
          f"{'p90 sd':>8}")


def row(name: str, s: dict) -> str:
    return (f"{name:18} {s['load_average']:5.2f} {s['utilization']:5.2f} {s['mean_turnaround']:10.0f} "
            f"{s['mean_queue_time']:7.0f} {s['mean_cluster_size']:5.1f} ({s['cv_cluster_size']:4.2f}) "
            f"{s['p90_slowdown']:8.1f}")


def paper_row(v: tuple) -> str:
    return (f"{'  (paper)':18} {v[0]:5.2f} {v[1]:5.2f} {v[2]:10.0f} {v[3]:7.0f} {v[4]:5.1f} ({v[5]:4.2f}) "
            f"{v[6]:8.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--days", type=int, default=120, help="simulated days per strategy (paper: 120)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--load", type=float, default=0.75, help="offered load rho (Table 1: 0.75)")
    ap.add_argument("--figures", action="store_true", help="also sweep load (Fig. 12) and c (Fig. 13)")
    ap.add_argument("--out", default=".", help="directory for downey_figures.png (with --figures)")
    args = ap.parse_args()
    days, seed, load = args.days, args.seed, args.load

    def run(name: str, rho: float = load, n: int = days) -> dict:
        return summarize_days(simulate_days(name, N=64, load=rho, days=n, seed=seed))

    t0 = time.perf_counter()
    print(f"# Downey's workload, N = 64, rho = {load}, {days} simulated days per strategy, seed {seed}\n")
    print("Table 1: greedy strategies")
    print(HEADER)
    greedy = {}
    for name in ("SEV", "AVG", "PWS", "MAX", "ASP"):
        greedy[name] = s = run(name)
        print(row(name, s))
        if load == 0.75:
            print(paper_row(PAPER_TABLE1[name]))
    print(f"jobs per strategy: {greedy['SEV']['jobs']} (paper: ~15000 over 120 days)\n")

    print("§6.1: stubborn strategies (turnaround / ASP's)")
    print(HEADER + f" {'x ASP':>6} {'paper':>6}")
    for rule in ("SEV", "AVG", "PWS", "MAX"):
        s = run(f"{rule}-stubborn")
        ratio = s["mean_turnaround"] / greedy["ASP"]["mean_turnaround"]
        print(row(f"{rule}-stubborn", s) + f" {ratio:6.1f} {PAPER_STUBBORN[rule]:>6}")
    print()

    print("§6.5: variance-insensitive versions (Simplified SEV ~ SEV; 3/2 AVG is the insensitive PWS)")
    print(HEADER)
    for name in ("SEV", "Simplified SEV", "PWS", "3/2 AVG"):
        print(row(name, greedy[name] if name in greedy else run(name)))
    print()

    if args.figures:
        loads = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
        print("Fig. 12: mean cluster size vs offered load (greedy)")
        print(f"{'strategy':10}" + "".join(f"{r:>7.1f}" for r in loads))
        fig12 = {}
        for name in ("SEV", "AVG", "PWS", "MAX", "ASP"):
            fig12[name] = [run(name, r)["mean_cluster_size"] for r in loads]
            print(f"{name:10}" + "".join(f"{v:7.1f}" for v in fig12[name]))
        print()
        cs = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
        print(f"Fig. 13: utilization / mean turnaround vs minimum fraction c (rho = {load})")
        print(f"{'strategy':10}" + "".join(f"{c:>14.1f}" for c in cs))
        fig13 = {}
        for rule in ("SEV", "AVG", "PWS", "MAX"):
            fig13[rule] = [run(f"{rule}-hybrid/{c}") for c in cs]
            print(f"{rule:10}" + "".join(f"{s['utilization']:6.3f}/{s['mean_turnaround']:7.0f}" for s in fig13[rule]))
        print()
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("(matplotlib not installed: no figure)")
        else:
            fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
            for name, ys in fig12.items():
                ax[0].plot(loads, ys, marker="o", label=name)
            ax[0].set(xlabel="offered load ρ", ylabel="mean cluster size", title="Fig. 12 (greedy)")
            for rule, ss in fig13.items():
                ax[1].plot(cs, [s["utilization"] for s in ss], marker="o", label=rule)
                ax[2].plot(cs, [s["mean_turnaround"] for s in ss], marker="o", label=rule)
            ax[1].set(xlabel="minimum fraction c", ylabel="utilization", title=f"Fig. 13a (ρ = {load})")
            ax[2].set(xlabel="minimum fraction c", ylabel="mean turnaround (s)", yscale="log",
                      title=f"Fig. 13b (ρ = {load})")
            for a in ax:
                a.legend()
            fig.tight_layout()
            out = Path(args.out) / "downey_figures.png"
            fig.savefig(out, dpi=110)
            print(f"wrote {out}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()

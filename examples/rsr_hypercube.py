"""Chang & Mohapatra (seed 002), Figs. 2, 4 and 5: RSR-t and limit-k on an 8-cube with buddy.

    python examples/rsr_hypercube.py                 # full size: 50,500 jobs, first 500 discarded
    python examples/rsr_hypercube.py --jobs 10500    # quicker

Fig. 2: mean turnaround vs load for RSR-0..3 (uniform and normal dimensions, exponential service).
Fig. 4: limit-0 vs RSR-7, limit-5 vs RSR-2, limit-6 vs RSR-1. Fig. 5: fairness at load 0.7 (mean
turnaround by requested subcube size). Tables are printed; figures written when matplotlib is
installed (rsr_fig2_*.png, rsr_fig4_*.png, rsr_fig5_*.png in --out).
"""

from __future__ import annotations

import argparse
import functools
import os

from _sweep import plot_curves, print_table, sweep

from scheduling.workloads import CubeDims, CubeDiscreteNormal, Exponential, Synthetic, TruncatedNormal
from topoalloc import Buddy
from topologies import Hypercube


def allocator() -> Buddy:
    return Buddy(Hypercube(8))


def workload(sizes: str, service: str, load: float) -> Synthetic:
    dist = CubeDims(7) if sizes == "uniform" else CubeDiscreteNormal()
    svc = Exponential(5.0) if service == "exponential" else TruncatedNormal(5.0, 2.0)
    return Synthetic(dist, svc, load=load, machine_size=256)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=50_500)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=3, help="replications (seeds 1..N)")
    ap.add_argument("--out", default=".", help="directory for the figures")
    ap.add_argument("--service", choices=["exponential", "normal"], default="exponential")
    args = ap.parse_args()
    seeds = list(range(1, args.seeds + 1))
    loads = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    for sizes in ("uniform", "normal"):
        work = functools.partial(workload, sizes, args.service)
        labels2 = ["FCFS", "RSR-1", "RSR-2", "RSR-3"]
        labels4 = ["Limit-0", "RSR-7", "Limit-5", "RSR-2", "Limit-6", "RSR-1"]
        configs = [(p, allocator, p, work) for p in dict.fromkeys(labels2 + labels4)]
        res = sweep(configs, loads, jobs=args.jobs, warmup=args.warmup, seeds=seeds, fairness_at=0.7)
        print_table(f"Fig. 2 ({sizes} sizes, {args.service} service)", res, labels2, loads)
        print_table(f"Fig. 4 ({sizes} sizes)", res, labels4, loads)
        print_table(f"utilization ({sizes} sizes)", res, labels2, loads, metric="utilization")
        print(f"\nFig. 5 ({sizes} sizes): mean turnaround by requested subcube size at load 0.7")
        print(f"{'size':>6} " + " ".join(f"{p:>9}" for p in labels4))
        for size in [1 << k for k in range(8)]:
            print(f"{size:6d} " + " ".join(f"{res[(p, 0.7)][1].get(size, float('nan')):9.2f}" for p in labels4))
        plot_curves(os.path.join(args.out, f"rsr_fig2_{sizes}.png"), f"8-cube buddy, {sizes} sizes",
                    res, labels2, loads, log=True)
        plot_curves(os.path.join(args.out, f"rsr_fig4_{sizes}.png"), f"RSR vs limit, {sizes} sizes",
                    res, labels4, loads, log=True)


if __name__ == "__main__":
    main()

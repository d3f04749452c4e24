"""Chang & Mohapatra (seed 002), Fig. 1 (a)-(c) and Fig. 3: RSR-t on a 32x32 mesh.

    python examples/rsr_mesh.py                  # full size: 50,500 jobs, first 500 discarded
    python examples/rsr_mesh.py --jobs 10500     # quicker

Fig. 1: mean turnaround vs load for 2D buddy (square jobs, side uniform 1..32), frame sliding and
first fit (sides uniform 1..32 in x and y), each with RSR-0..3. Fig. 3: frame sliding with RSR-t
against first fit without folding. Tables printed; figures written when matplotlib is installed.
"""

from __future__ import annotations

import argparse
import functools
import os

from _sweep import plot_curves, print_table, sweep

from scheduling.workloads import Exponential, MeshSides, Squares, Synthetic
from topoalloc import Buddy2D, FirstFit, FrameSliding
from topologies import Mesh

ALLOCATORS = {"2D buddy": Buddy2D, "frame sliding": FrameSliding, "first fit": FirstFit}


def make(cls) -> object:
    return cls(Mesh(32, 32))


def workload(squares: bool, load: float) -> Synthetic:
    sizes = Squares(32) if squares else MeshSides(32, 32)
    return Synthetic(sizes, Exponential(5.0), load=load, machine_size=1024)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=50_500)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    seeds = list(range(1, args.seeds + 1))
    loads = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
    policies = ["FCFS", "RSR-1", "RSR-2", "RSR-3"]
    configs = []
    for name, cls in ALLOCATORS.items():
        work = functools.partial(workload, cls is Buddy2D)
        for pol in policies:
            configs.append((f"{name} {pol}", functools.partial(make, cls), pol, work))
    res = sweep(configs, loads, jobs=args.jobs, warmup=args.warmup, seeds=seeds)
    for panel, name in zip("abc", ALLOCATORS, strict=True):
        labels = [f"{name} {p}" for p in policies]
        print_table(f"Fig. 1({panel}) {name}", res, labels, loads)
        print_table(f"utilization, {name}", res, labels, loads, metric="utilization")
        plot_curves(os.path.join(args.out, f"rsr_fig1{panel}.png"), f"32x32 mesh, {name}", res, labels, loads,
                    log=True)
    labels3 = ["first fit FCFS"] + [f"frame sliding {p}" for p in policies]
    print_table("Fig. 3 frame sliding with RSR vs first fit", res, labels3, loads)
    plot_curves(os.path.join(args.out, "rsr_fig3.png"), "frame sliding + RSR vs first fit", res, labels3, loads,
                log=True)


if __name__ == "__main__":
    main()

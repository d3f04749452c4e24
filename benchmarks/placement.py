"""What recording placements costs a simulation, measured side by side in one process.

    python benchmarks/placement.py            # 20,500 jobs per run, 5 alternating rounds
    python benchmarks/placement.py --jobs 50500 --rounds 3

The 32x32 FCFS benchmark (seed 002's mesh workload at load 0.4, the first 500 jobs discarded) with
FirstFit (contiguous: closed-form locality columns) and with Hilbert best fit (non-contiguous: the
general measures), each run plain, with ``record_placement=True``, with ``record_contention=True``
and with the Dilation run-time model. The options alternate within each round so the machine's load
affects them alike; the table gives medians and the overhead over the plain run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from scheduling import simulate
from scheduling.models.runtime import Dilation
from scheduling.workloads import Exponential, MeshSides, Synthetic, Uniform

VARIANTS = {
    "plain": {},
    "record_placement": {"record_placement": True},
    "record_contention": {"record_contention": True},
    "Dilation model": {"record_placement": True, "runtime_model": Dilation()},
}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=20_500)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    import topoalloc
    from topologies import Mesh

    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{args.jobs} jobs (500 discarded), medians of {args.rounds} alternating rounds")
    print(f"{'allocator':<16} {'variant':<18} {'seconds':>8} {'overhead':>9}")
    for name in ("FirstFit", "HilbertBestFit"):
        w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.4, machine_size=1024, comm=Uniform(0.5, 1.0))
        jobs = w.take(args.jobs, seed=1)
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        for r in range(args.rounds):
            order = list(VARIANTS) if r % 2 == 0 else list(reversed(VARIANTS))
            for v in order:
                t0 = time.perf_counter()
                simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", jobs, jobs=args.jobs, warmup=500,
                         **VARIANTS[v])
                times[v].append(time.perf_counter() - t0)
        base = statistics.median(times["plain"])
        for v in VARIANTS:
            t = statistics.median(times[v])
            print(f"{name:<16} {v:<18} {t:8.2f} {t / base - 1:+8.0%}", flush=True)


if __name__ == "__main__":
    main()

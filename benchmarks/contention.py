"""What the flow-level contention model costs a simulation, measured side by side in one process.

    python benchmarks/contention.py                 # 5,500 jobs per run, 5 alternating rounds
    python benchmarks/contention.py --jobs 20500 --rounds 3 --load 0.2

Seed 002's mesh workload on the 32x32 mesh under FCFS (sides uniform on [1, 32], exponential
service of mean 5, the first 500 jobs discarded), every job communicating a fraction uniform on
[0.5, 1] of its run, with Random placement (the model's worst case: every job's stencil is routed
pair by pair across the machine, and every running job shares links with the others) and with
FirstFit (contiguous: a job's stencil loads exactly its box's inner links, found without routing,
and shares none). Each allocator runs with no run-time model, with the Dilation model (the
placement's own cost) and with the Contention model (Dilation and the other jobs' traffic); the
variants alternate within each round so the machine's load affects them alike; the table gives
medians and the ratios to the runs without the contention model. The contention model changes
the schedule (jobs run longer), so the runs do not simulate the same events: the ratio is the cost
of asking the question, not of one event. Each run is timed on the wall clock and in the process's
CPU time (``time.process_time``: steadier on a machine other programs load; the runs are single
threaded), with the ratios of both.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from scheduling import simulate
from scheduling.models.contention import Contention
from scheduling.models.runtime import Dilation
from scheduling.workloads import Exponential, MeshSides, Synthetic, Uniform

VARIANTS = {
    "none": lambda: None,
    "Dilation": Dilation,
    "Contention": Contention,
}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=5500)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--load", type=float, default=0.2)
    args = ap.parse_args(argv)
    import topoalloc
    from topologies import Mesh

    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{args.jobs} jobs (500 discarded) at load {args.load}, medians of {args.rounds} alternating rounds")
    print(f"{'allocator':<10} {'model':<11} {'seconds':>8} {'/ none':>7} {'/ Dilation':>10} {'cpu s':>8} "
          f"{'/ none':>7} {'/ Dilation':>10} {'interference':>13}")
    for name in ("Random", "FirstFit"):
        w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=args.load, machine_size=1024,
                      comm=Uniform(0.5, 1.0))
        jobs = w.take(args.jobs, seed=1)
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
        lost = float("nan")
        for r in range(args.rounds):
            order = list(VARIANTS) if r % 2 == 0 else list(reversed(VARIANTS))
            for v in order:
                t0, c0 = time.perf_counter(), time.process_time()
                res = simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", jobs, jobs=args.jobs, warmup=500,
                               runtime_model=VARIANTS[v]())
                times[v].append(time.perf_counter() - t0)
                cpu[v].append(time.process_time() - c0)
                if v == "Contention":
                    lost = res.summary()["interference_fraction"]
        none, dil = statistics.median(times["none"]), statistics.median(times["Dilation"])
        cnone, cdil = statistics.median(cpu["none"]), statistics.median(cpu["Dilation"])
        for v in VARIANTS:
            t, c = statistics.median(times[v]), statistics.median(cpu[v])
            share = f"{lost:12.1%}" if v == "Contention" else ""
            print(f"{name:<10} {v:<11} {t:8.3f} {t / none:6.2f}x {t / dil:9.2f}x {c:8.3f} {c / cnone:6.2f}x "
                  f"{c / cdil:9.2f}x {share:>13}", flush=True)


if __name__ == "__main__":
    main()

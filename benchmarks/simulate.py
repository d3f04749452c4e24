"""Simulation throughput: simulated jobs per second for allocator x policy x load.

    python benchmarks/simulate.py            # every case
    python benchmarks/simulate.py --quick    # fewer jobs
    python benchmarks/simulate.py --target   # only the issue's target run (50,500 jobs, RSR-1, frame sliding)

Each case builds a fresh allocator, a seeded synthetic workload, and times ``simulate`` on one core.
Other modules add cases by appending to ``CASES`` (name, allocator factory, policy, workload factory).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scheduling import simulate
from scheduling.workloads import CubeDims, Exponential, MeshSides, Synthetic, UniformCount
from topologies import Flat, Hypercube, Mesh


@dataclass(frozen=True)
class Case:
    name: str
    allocator: Callable[[], Any]
    policy: str
    workload: Callable[[float], Any]
    loads: tuple[float, ...] = (0.5, 0.8)


def _mesh_workload(load: float) -> Synthetic:
    return Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024)


def _cube_workload(load: float) -> Synthetic:
    return Synthetic(CubeDims(7), Exponential(5.0), load=load, machine_size=256)


def _flat_workload(load: float) -> Synthetic:
    return Synthetic(UniformCount(1, 256), Exponential(5.0), load=load, machine_size=256)


def _mesh(cls_name: str) -> Callable[[], Any]:
    def make() -> Any:
        import topoalloc

        return getattr(topoalloc, cls_name)(Mesh(32, 32))

    return make


def _flatpool() -> Any:
    from topoalloc import FlatPool

    return FlatPool(Flat(256))


def _buddy() -> Any:
    from topoalloc import Buddy

    return Buddy(Hypercube(8))


CASES: list[Case] = [
    Case("FlatPool 256 / FCFS", _flatpool, "FCFS", _flat_workload),
    Case("FrameSliding 32x32 / FCFS", _mesh("FrameSliding"), "FCFS", _mesh_workload),
    Case("FrameSliding 32x32 / RSR-1", _mesh("FrameSliding"), "RSR-1", _mesh_workload),
    Case("FirstFit 32x32 / FCFS", _mesh("FirstFit"), "FCFS", _mesh_workload),
    Case("FirstFit 32x32 / RSR-1", _mesh("FirstFit"), "RSR-1", _mesh_workload),
    Case("Buddy 8-cube / FCFS", _buddy, "FCFS", _cube_workload),
    Case("Buddy 8-cube / RSR-1", _buddy, "RSR-1", _cube_workload),
]



def _downey_workload(load: float) -> Any:
    from scheduling.workloads import Downey

    return Downey(N=64, load=load, days=None)  # seed 001: day/night phases, chained days (endless)


def _flatpool64() -> Any:
    from topoalloc import FlatPool

    return FlatPool(Flat(64))


CASES += [
    Case("FlatPool 64 / Downey SEV", _flatpool64, "SEV", _downey_workload, (0.75,)),
    Case("FlatPool 64 / Downey ASP", _flatpool64, "ASP", _downey_workload, (0.75,)),
]


def _ismail_dynamic_workload(load: float) -> Any:
    from scheduling.workloads import ismail_dynamic

    return ismail_dynamic("uniform", load=load, speedup="misp", machine_size=64)  # seed 000 §4.4.1


# dynamic space sharing (seed 000 ch. 4, seed 003): only the jobs whose processor count changes are resized
CASES += [
    Case(f"FlatPool 64 / {p}", _flatpool64, p, _ismail_dynamic_workload, (0.5, 0.9))
    for p in ("DEQP", "DPROP", "DFCFS", "DSMJF", "DPROP-SM/2", "DPROP-SH/4", "EQUI", "EQUAL-EFF", "OPT-EFF")
]


def run_case(case: Case, load: float, jobs: int, warmup: int) -> tuple[float, dict]:
    alloc = case.allocator()
    work = case.workload(load)
    t0 = time.perf_counter()
    result = simulate(alloc, case.policy, work, jobs=jobs, warmup=warmup, seed=1)
    return time.perf_counter() - t0, result.summary()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5,500 jobs per case instead of 50,500")
    ap.add_argument("--target", action="store_true", help="only FCFS+RSR-1+FrameSliding 32x32 at load 0.7")
    ap.add_argument("--only", default=None, help="run only cases whose name contains this text")
    args = ap.parse_args()
    jobs, warmup = (5_500, 500) if args.quick else (50_500, 500)
    print(f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
          f"{jobs:,} jobs per run ({warmup} warm-up), seed 1")
    if args.target:
        case = Case("FrameSliding 32x32 / RSR-1", _mesh("FrameSliding"), "RSR-1", _mesh_workload)
        secs, s = run_case(case, 0.7, 50_500, 500)
        print(f"target: 50,500 jobs FCFS+RSR-1+FrameSliding 32x32 load 0.7: {secs:.2f} s "
              f"({50_500 / secs:,.0f} jobs/s), mean turnaround {s['mean_turnaround']:.2f}")
        return
    print(f"{'case':34} {'load':>5} {'seconds':>8} {'jobs/s':>10} {'turnaround':>11} {'util':>6}")
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        for load in case.loads:
            secs, s = run_case(case, load, jobs, warmup)
            print(f"{case.name:34} {load:5.2f} {secs:8.2f} {jobs / secs:10,.0f} "
                  f"{s['mean_turnaround']:11.2f} {s['utilization']:6.3f}")


if __name__ == "__main__":
    main()

"""Simulation throughput: simulated jobs per second for allocator x policy x load.

    python benchmarks/simulate.py            # every case
    python benchmarks/simulate.py --quick    # fewer jobs
    python benchmarks/simulate.py --target   # only the issue's target run (50,500 jobs, RSR-1, frame sliding)
    python benchmarks/simulate.py --backfill # FCFS / EASY / Conservative side by side on every allocator
                                             # (--jobs N, --policies EASY,Conservative, --only NAME);
                                             # the "tight" cases set estimates from the run times
    python benchmarks/simulate.py --backfill --instructions   # the same cases in instructions (valgrind)
    python benchmarks/simulate.py --scaling  # Conservative's per-job cost at 4,000 and 40,000 jobs
    python benchmarks/simulate.py --memory HPC2N-2002-2.2-cln:10   # peak memory, whole-trace replay

Each case builds a fresh allocator, a seeded synthetic workload, and times ``simulate`` on one core.
Other modules add cases by appending to ``CASES`` (name, allocator factory, policy, workload factory).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scheduling import simulate
from scheduling.workloads import CubeDims, Exponential, MeshSides, Squares, Synthetic, UniformCount
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


# -- backfilling at the speed of FCFS ----------------------------------------------------------------
#: The trace of the cube / tree / flat backfilling cases (found through TOPOALLOC_TRACES).
BACKFILL_TRACE = "SDSC-SP2-1998-4.2-cln"


def sdsc_pow2_jobs(count: int) -> list:
    """The first ``count`` jobs of SDSC-SP2 (a 128-processor IBM SP2) as a 1,024-processor workload
    with power-of-two sizes: each job's processor count times 8, rounded up to a power of two (so
    1..1,024), with its recorded submit time, run time and requested time (the estimate; about 6%
    of the jobs run past it). Offered load about 0.75 on 1,024 processors. Requests are processor
    counts; :func:`for_topology` turns them into subcube dimensions."""
    from scheduling import Job
    from scheduling.workloads import load_swf, trace_path

    out = []
    for j in load_swf(trace_path(BACKFILL_TRACE), machine_size=128, limit=count).jobs():
        n = 1 << (8 * j.size - 1).bit_length()
        out.append(Job(j.id, j.arrival, n, j.runtime, estimate=j.estimate, size=n))
    return out


def tight_estimates(jobs: list, seed: int = 30) -> list:
    """``jobs`` with estimates set from their run times as users with tight limits set them: a
    third exactly the run time, a tenth run x U(0.9, 1.0) rounded down (they run past their
    estimate by up to about 11%), the rest run x U(1.0, 1.1) rounded up (whole seconds, as SWF
    times are). One seeded ``numpy`` generator, used for nothing else; the same jobs for every
    allocator."""
    import numpy as np

    from scheduling import Job

    rng = np.random.default_rng(seed)
    kind = rng.random(len(jobs))
    factor = np.where(kind < 0.1, rng.uniform(0.9, 1.0, len(jobs)), rng.uniform(1.0, 1.1, len(jobs)))
    out = []
    for j, k, f in zip(jobs, kind.tolist(), factor.tolist(), strict=True):
        if k < 0.1:
            est = float(math.floor(j.runtime * f))
        elif k < 0.1 + 1 / 3:
            est = float(j.runtime)
        else:
            est = float(math.ceil(j.runtime * f))
        out.append(Job(j.id, j.arrival, j.request, j.runtime, estimate=est, size=j.size))
    return out


def for_topology(jobs: list, topology: Any) -> list:
    """``jobs`` with each request made ``topology.request_for(size)``."""
    from scheduling import Job

    return [Job(j.id, j.arrival, topology.request_for(j.size), j.runtime, estimate=j.estimate, size=j.size)
            for j in jobs]


def seed002_jobs(count: int, squares: bool, load: float = 0.6) -> list:
    """Seed 002 §4.1 on a 32x32 mesh: Poisson arrivals at ``load``, exponential service of mean 5,
    sides uniform on 1..32 (squares for the two-dimensional buddy); estimates exact."""
    sizes = Squares(32) if squares else MeshSides(32, 32)
    return Synthetic(sizes, Exponential(5.0), load=load, machine_size=1024).take(count, seed=1)


def _backfill_cases(count: int) -> list[tuple[str, Callable[[], Any], list]]:
    import topoalloc

    cube, flat, mesh = Hypercube(10), Flat(1024), Mesh(32, 32)
    trace = sdsc_pow2_jobs(count)
    on_cube, on_flat = for_topology(trace, cube), for_topology(trace, flat)
    tight = tight_estimates(trace)
    tight_cube, tight_flat = for_topology(tight, cube), for_topology(tight, flat)
    sides, squares = seed002_jobs(count, False), seed002_jobs(count, True)
    return [
        ("Buddy 10-cube / tight", lambda: topoalloc.Buddy(cube), tight_cube),
        ("DHCTree 1024 / tight", lambda: topoalloc.DHCTree(flat), tight_flat),
        ("FlatPool 1024 / tight", lambda: topoalloc.FlatPool(flat), tight_flat),
        ("Buddy 10-cube / trace", lambda: topoalloc.Buddy(cube), on_cube),
        ("GrayCode 10-cube / trace", lambda: topoalloc.GrayCode(cube), on_cube),
        ("FreeList 10-cube / trace", lambda: topoalloc.FreeList(cube), on_cube),
        ("DHCTree 1024 / trace", lambda: topoalloc.DHCTree(flat), on_flat),
        ("FlatPool 1024 / trace", lambda: topoalloc.FlatPool(flat), on_flat),
        ("Buddy2D 32x32 / seed 002", lambda: topoalloc.Buddy2D(mesh), squares),
        ("FrameSliding 32x32 / seed 002", lambda: topoalloc.FrameSliding(mesh), sides),
        ("FirstFit 32x32 / seed 002", lambda: topoalloc.FirstFit(mesh), sides),
        ("BestFit 32x32 / seed 002", lambda: topoalloc.BestFit(mesh), sides),
    ]


def _columns(unit: str, policies: tuple[str, ...]) -> None:
    """The header of a backfilling table: FCFS and each policy in ``unit``, then the ratios."""
    short = {"EASY": "EASY", "Conservative": "Cons."}
    print(f"{'case':32} {'FCFS ' + unit:>8}" + "".join(f" {short.get(p, p) + ' ' + unit:>8}" for p in policies)
          + "".join(f" {short.get(p, p) + '/FCFS':>10}" for p in policies))


def backfill(count: int, repeats: int, only: str | None, policies: tuple[str, ...] = ("EASY", "Conservative")) -> None:
    """FCFS and the backfilling ``policies`` on the same allocator and jobs, timed side by side in
    one process: ``repeats`` rounds, each running FCFS then every policy once (the policies in
    turn first, so neither gains from following the other). The times are CPU seconds of this
    process (``time.process_time``: time spent waiting for a core on a loaded machine is not
    counted), the medians over the rounds; each ratio is the median over the rounds of the
    policy's time over FCFS's in the same round (paired, so a slow spell of the machine moves
    both)."""
    import statistics

    print(f"# backfilling: {count:,} jobs per run, {repeats} rounds (median CPU times, median of each round's "
          f"ratio); trace cases: {BACKFILL_TRACE} "
          f"sizes x8 rounded up to powers of two on 1,024 processors, recorded run times and estimates; "
          f"tight cases: the same jobs, estimates from the run times (tight_estimates: a third exact, a tenth "
          f"overrunning by up to 11%, the rest x U(1.0, 1.1)); seed 002 cases: load 0.6, exact estimates")
    _columns("s", policies)
    for name, make, jobs in _backfill_cases(count):
        if only and only not in name:
            continue
        times: dict[str, list[float]] = {p: [] for p in ("FCFS", *policies)}
        for r in range(repeats):
            order = policies[r % len(policies):] + policies[: r % len(policies)]
            for policy in ("FCFS", *order):
                alloc = make()
                t0 = time.process_time()
                simulate(alloc, policy, jobs, jobs=None)
                times[policy].append(time.process_time() - t0)
        med = {p: statistics.median(ts) for p, ts in times.items()}
        ratio = {p: statistics.median(t / f for t, f in zip(times[p], times["FCFS"], strict=True)) for p in policies}
        print(f"{name:32} {med['FCFS']:8.3f}" + "".join(f" {med[p]:8.3f}" for p in policies)
              + "".join(f" {ratio[p]:10.1f}" for p in policies), flush=True)
    print(f"# {_load()}")


def _load() -> str:
    """The machine's load averages (1, 5, 15 minutes) and cores, to print beside timings."""
    try:
        one, five, fifteen = os.getloadavg()
    except (AttributeError, OSError):
        return "load average unknown"
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} cores"


def _child_simulations(name: str, policy: str, count: int, reps: int) -> None:
    """In a child process: ``reps`` simulations of backfilling case ``name`` under ``policy``,
    after a 30-job run that does the policy's lazy imports (so ``reps = 0`` is the baseline)."""
    make, jobs = {case: (m, j) for case, m, j in _backfill_cases(count)}[name]
    simulate(make(), policy, jobs[:30], jobs=None)
    for _ in range(reps):
        simulate(make(), policy, jobs, jobs=None)


def _instructions(name: str, policy: str, count: int, reps: int) -> int:
    """Instructions a child process executes (valgrind's callgrind), running ``reps``
    simulations of case ``name`` (:func:`_child_simulations`)."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, os.path.abspath(__file__),
           "--child", name, policy, str(reps), "--jobs", str(count)]
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {out.stderr[-500:]}")
    return int(found.group(1))


def backfill_instructions(count: int, only: str | None, policies: tuple[str, ...]) -> None:
    """The cases of :func:`backfill` counted in instructions instead of seconds: for each policy,
    a child process running one simulation minus the same child running none (imports, the
    workload and a 30-job warm-up), under valgrind's callgrind. Unlike seconds, the counts do not
    move with the machine's load (they are the same on every run up to a few million)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (e.g. apt install valgrind)")
    print(f"# backfilling in instructions (millions; callgrind, one simulation minus none): {count:,} jobs per run; "
          f"cases as in --backfill")
    _columns("M", policies)
    for name, _, _ in _backfill_cases(count):
        if only and only not in name:
            continue
        ir = {p: _instructions(name, p, count, 1) - _instructions(name, p, count, 0) for p in ("FCFS", *policies)}
        print(f"{name:32} {ir['FCFS'] / 1e6:8,.0f}" + "".join(f" {ir[p] / 1e6:8,.0f}" for p in policies)
              + "".join(f" {ir[p] / ir['FCFS']:10.1f}" for p in policies), flush=True)


def scaling(sizes: tuple[int, ...], repeats: int) -> None:
    """Time per simulated job of FCFS and Conservative as the run grows, on seed 002's workload
    on Zhu's first fit (32x32, load 0.6, exact estimates): a stationary workload whose queue stays
    bounded, so a per-job cost that grows would be the policy's own state growing with the trace.
    Each size runs FCFS then Conservative ``repeats`` times in this process (medians of CPU
    seconds, ``time.process_time``); the queue column is Conservative's mean and largest queue at
    its decisions."""
    import statistics

    import topoalloc
    from scheduling.policies import Conservative

    mesh = Mesh(32, 32)
    queue: list[int] = []

    class Watched(Conservative):
        def decide(self, now: float) -> list:
            queue.append(len(self._waiting))
            return super().decide(now)

    print(f"# per-job CPU cost: seed 002 on FirstFit 32x32, load 0.6, {repeats} rounds (medians)")
    print(f"{'jobs':>8} {'FCFS us/job':>12} {'Cons. us/job':>13} {'Cons./FCFS':>11} {'queue mean':>11} "
          f"{'queue max':>10}")
    for size in sizes:
        jobs = seed002_jobs(size, False)
        times: dict[str, list[float]] = {"FCFS": [], "Conservative": []}
        for _ in range(repeats):
            for name in times:
                queue.clear()
                policy = Watched() if name == "Conservative" else name
                t0 = time.process_time()
                simulate(topoalloc.FirstFit(mesh), policy, jobs, jobs=None)
                times[name].append(time.process_time() - t0)
        fcfs, cons = (statistics.median(times[k]) for k in ("FCFS", "Conservative"))
        ratio = statistics.median(c / f for c, f in zip(times["Conservative"], times["FCFS"], strict=True))
        print(f"{size:8,} {fcfs / size * 1e6:12.1f} {cons / size * 1e6:13.1f} {ratio:11.1f} "
              f"{sum(queue) / len(queue):11.1f} {max(queue):10}", flush=True)
    print(f"# {_load()}")


def _child_memory(trace: str, dim: int, policy: str, traced: bool) -> None:
    """In a child process: replay the whole shared ``trace`` on the buddy ``dim``-cube (each job of
    n processors a subcube of 2**k >= n) under ``policy``, and print one line: the seconds, the
    process's largest resident set and, if ``traced``, the peak of the memory ``tracemalloc``
    traced during the simulation (-1 otherwise; tracing makes an allocation-heavy policy several
    times slower)."""
    import json
    import resource
    import tracemalloc

    import topoalloc
    from scheduling import Job
    from scheduling.workloads import load_swf, trace_path

    cube = Hypercube(dim)
    jobs = [Job(j.id, j.arrival, cube.request_for(j.size), j.runtime, estimate=j.estimate, size=j.size)
            for j in load_swf(trace_path(trace), machine_size=cube.size).jobs()]
    if traced:
        tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    simulate(topoalloc.Buddy(cube), policy, jobs, jobs=None)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] - before if traced else -1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    print(json.dumps({"jobs": len(jobs), "seconds": seconds, "peak": peak, "rss": rss}))


def memory(trace: str, dim: int, policies: tuple[str, ...], traced: bool) -> None:
    """Peak memory of a whole-trace replay under FCFS and each policy, each in a fresh child
    process: the child's largest resident set (the interpreter, ``numpy`` and the trace's jobs
    included, as a user's process has them) and, with ``traced``, what ``tracemalloc`` saw
    allocated during the simulation alone (its seconds then include the tracing's overhead)."""
    import json

    print(f"# memory: the whole of {trace} on the buddy {dim}-cube ({1 << dim:,} processors), one child per policy")
    print(f"{'policy':14} {'jobs':>8} {'seconds':>8} {'max RSS MB':>11} {'RSS / FCFS':>11} {'traced peak MB':>15} "
          f"{'traced / FCFS':>14}")
    base: dict | None = None
    for policy in ("FCFS", *policies):
        cmd = [sys.executable, os.path.abspath(__file__), "--child-memory", trace, str(dim), policy, str(int(traced))]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        got = json.loads(out.strip().splitlines()[-1])
        base = got if base is None else base
        trace_cols = (f"{got['peak'] / 1e6:15.1f} {got['peak'] / base['peak']:14.2f}" if traced
                      else f"{'-':>15} {'-':>14}")
        print(f"{policy:14} {got['jobs']:8,} {got['seconds']:8.1f} {got['rss'] / 1e6:11.1f} "
              f"{got['rss'] / base['rss']:11.2f} {trace_cols}", flush=True)
    print(f"# {_load()}")


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
    ap.add_argument("--backfill", action="store_true",
                    help="FCFS / EASY / Conservative times and ratios on every allocator (4,000 jobs)")
    ap.add_argument("--repeats", type=int, default=5, help="rounds in --backfill (medians)")
    ap.add_argument("--jobs", type=int, default=None, help="jobs per run in --backfill (default 4,000; --quick 1,000)")
    ap.add_argument("--policies", default="EASY,Conservative", help="backfilling policies timed in --backfill")
    ap.add_argument("--instructions", action="store_true",
                    help="with --backfill: count instructions (valgrind's callgrind) instead of timing")
    ap.add_argument("--scaling", action="store_true",
                    help="per-job cost of FCFS and Conservative at 4,000 and 40,000 jobs (bounded queue)")
    ap.add_argument("--memory", default=None, metavar="TRACE:DIM",
                    help="peak memory of FCFS and --policies replaying the whole shared TRACE on the buddy DIM-cube")
    ap.add_argument("--child", nargs=3, metavar=("CASE", "POLICY", "REPS"), help=argparse.SUPPRESS)
    ap.add_argument("--tracemalloc", action="store_true",
                    help="with --memory: also trace the simulation's allocations (several times slower)")
    ap.add_argument("--child-memory", nargs=4, metavar=("TRACE", "DIM", "POLICY", "TRACED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    count = args.jobs or (1_000 if args.quick else 4_000)
    if args.child:
        _child_simulations(args.child[0], args.child[1], count, int(args.child[2]))
        return
    if args.child_memory:
        _child_memory(args.child_memory[0], int(args.child_memory[1]), args.child_memory[2],
                      args.child_memory[3] == "1")
        return
    if args.scaling:
        scaling((4_000, 40_000) if not args.quick else (1_000, 4_000), min(args.repeats, 3))
        return
    if args.memory:
        trace, _, dim = args.memory.rpartition(":")
        memory(trace, int(dim), tuple(p for p in args.policies.split(",") if p), args.tracemalloc)
        return
    if args.backfill:
        policies = tuple(p for p in args.policies.split(",") if p)
        if args.instructions:
            backfill_instructions(count, args.only, policies)
        else:
            backfill(count, args.repeats, args.only, policies)
        return
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

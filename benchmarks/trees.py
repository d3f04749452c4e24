"""Switch-tree allocators: churn throughput, and FCFS / EASY on a tree against a flat pool, side by side.

    python benchmarks/trees.py                     # both parts, every allocator registered for trees
    python benchmarks/trees.py --only SlurmTree    # allocators whose name contains SlurmTree
    python benchmarks/trees.py --part churn        # only the allocate+release throughput
    python benchmarks/trees.py --part policies --jobs 3000 --rounds 5

**Churn** (the issue's target: >= 20,000 allocate+release pairs per second on a 1,280-node tree at half
occupancy): on ``SwitchTree.uniform((2, 10, 64))`` (2 blocks x 10 racks x 64 nodes), while more than
half the machine is free allocate a random plain count uniform on [1, 80] (1/16 of the machine),
otherwise release a random live grant; pairs/s = successful allocations over the whole time, releases
included. A second line per allocator churns constrained requests (one job in four ``required="rack"``).

**Policies** (targets: FCFS on a tree allocator within 3x FlatPool's time on the same stream; EASY
within 4x FCFS's): one synthetic stream of the kueue#4634 mix (:func:`hero_mix_jobs` below: counts
1-64 nodes for 90% of the jobs, 65-640 for 9%, a hero of 640-1280 for 1%), exponential run times of
mean 100 and estimates 1-3x the run time, at offered load 0.8; FlatPool on ``Flat(1280)`` and every
tree allocator on the tree run the same jobs. Each round runs every configuration once, in turn, so
they see the same machine state; the table gives median wall times over the rounds and the ratios.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import topoalloc
from scheduling import Job, simulate
from topologies import Flat, SwitchTree, TreeRequest

TREE = SwitchTree.uniform((2, 10, 64), names=("block", "rack", "host"))


def churn(alloc, requests: list, seconds: float, seed: int = 0) -> float:
    """Allocate+release pairs per second at about half occupancy."""
    rng = np.random.default_rng(seed)
    picks = rng.random(1 << 16).tolist()
    live: list = []
    half = alloc.size // 2
    i = 0
    while alloc.free > half:
        a = alloc.allocate(requests[i])
        i = (i + 1) & 0xFFFF
        if a is not None:
            live.append(a)
    ok = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(256):
            i = (i + 1) & 0xFFFF
            if alloc.free > half or not live:
                a = alloc.allocate(requests[i])
                if a is not None:
                    live.append(a)
                    ok += 1
            else:
                k = int(picks[i] * len(live))
                live[k], live[-1] = live[-1], live[k]
                alloc.release(live.pop())
    return ok / (time.perf_counter() - t0)


def hero_mix_jobs(n: int, seed: int = 0, load: float = 0.8, size: int = 1280) -> list[Job]:
    """The policies part's stream (see the module docstring)."""
    rng = np.random.default_rng(seed)
    cls = rng.random(n)
    counts = np.where(cls < 0.9, rng.integers(1, 65, n),
                      np.where(cls < 0.99, rng.integers(65, 641, n), rng.integers(640, size + 1, n)))
    run = rng.exponential(100.0, n)
    estimate = run * rng.uniform(1.0, 3.0, n)
    rate = load * size / (counts.mean() * 100.0)
    submit = np.cumsum(rng.exponential(1.0 / rate, n))
    return [Job(i, float(submit[i]), int(counts[i]), float(run[i]), estimate=float(estimate[i])) for i in range(n)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="comma-separated substrings of allocator names")
    p.add_argument("--part", choices=("churn", "policies", "both"), default="both")
    p.add_argument("--seconds", type=float, default=1.0, help="churn time per allocator")
    p.add_argument("--jobs", type=int, default=3000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    only = [s for s in a.only.split(",") if s]
    names = [n for n in topoalloc.names("tree") if not only or any(s.lower() in n.lower() for s in only)]
    print(f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
          f"numpy {np.__version__}; tree {TREE.label} ({TREE.size} nodes)")
    if a.part in ("churn", "both"):
        rng = np.random.default_rng(1)
        plain = rng.integers(1, 81, 1 << 16).tolist()
        racked = [TreeRequest(min(c, 64), required="rack") if j % 4 == 0 else c for j, c in enumerate(plain)]
        print(f"\n{'allocator':<16} {'pairs/s plain':>14} {'pairs/s 1/4 rack':>17}")
        for name in names:
            r1 = churn(topoalloc.get(name, TREE), plain, a.seconds)
            r2 = churn(topoalloc.get(name, TREE), racked, a.seconds)
            print(f"{name:<16} {r1:>14,.0f} {r2:>17,.0f}")
    if a.part in ("policies", "both"):
        jobs = hero_mix_jobs(a.jobs)
        configs = [("FlatPool", "FCFS")] + [(n, pol) for n in names for pol in ("FCFS", "EASY")]
        times: dict[tuple[str, str], list[float]] = {c: [] for c in configs}
        for _ in range(a.rounds):
            for name, pol in configs:
                alloc = topoalloc.get(name, Flat(TREE.size) if name == "FlatPool" else TREE)
                t0 = time.perf_counter()
                simulate(alloc, pol, jobs, jobs=None)
                times[(name, pol)].append(time.perf_counter() - t0)
        med = {c: statistics.median(v) for c, v in times.items()}
        flat = med[("FlatPool", "FCFS")]
        print(f"\n{a.jobs} jobs, median of {a.rounds} rounds; FlatPool FCFS {flat:.3f} s")
        print(f"{'allocator':<16} {'FCFS':>8} {'EASY':>8} {'FCFS/FlatPool':>14} {'EASY/FCFS':>10}")
        for name in names:
            f, e = med[(name, "FCFS")], med[(name, "EASY")]
            print(f"{name:<16} {f:>7.3f}s {e:>7.3f}s {f / flat:>13.2f}x {e / f:>9.2f}x")


if __name__ == "__main__":
    main()

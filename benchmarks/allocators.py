"""Allocator churn at about 50% occupancy: operations per second and the median cost of one allocate.

    python benchmarks/allocators.py                  # every allocator and size
    python benchmarks/allocators.py --only FirstFit  # allocators whose name contains FirstFit
    python benchmarks/allocators.py --only Random,Naive,Paging,MBS,Hilbert,MC1x1  # the non-contiguous ones
    python benchmarks/allocators.py --seconds 0.5    # shorter runs

Allocators are built by registry name (``topoalloc.get``), with default parameters (``Paging``: 1x1
pages in row-major order).

Churn: while more than half the machine is free, allocate a random request; otherwise release a
random live allocation. Mesh requests have sides uniform on [1, side/4]; cube requests dimensions
uniform on [0, dim/2]; flat and DHC requests counts uniform on [1, size/16]. One warm-up pass fills
the machine to 50% untimed, then the churn is timed. "pairs/s" counts allocate+release pairs
(successful allocations over the total time, releases included), measured without per-call timers;
"median alloc" is the median wall time of one allocate call, successful or not, from a second pass.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import topoalloc
from topologies import Flat, Hypercube, Mesh

MESHES = [32, 256, 1024]
CUBES = [8, 12, 16, 20]
MESH_ALLOCATORS = ["Buddy2D", "FrameSliding", "FirstFit", "BestFit"]
#: Non-contiguous mesh allocators (registry names): measured on the 32x32 and 256x256 meshes.
NONCONTIG_ALLOCATORS = ["Random", "Naive", "Paging", "MBS", "HilbertFirstFit", "HilbertBestFit",
                        "HilbertSumOfSquares", "MC1x1"]
NONCONTIG_MESHES = [32, 256]
CUBE_ALLOCATORS = ["Buddy", "GrayCode", "FreeList"]
FLAT_ALLOCATORS = [("FlatPool", 1024), ("DHCTree", 1024), ("DHCTree", 320)]


def requests(topo, rng, n):
    if isinstance(topo, Mesh):
        hi = max(1, topo.width // 4)
        return list(zip(rng.integers(1, hi + 1, n).tolist(), rng.integers(1, hi + 1, n).tolist(), strict=True))
    if isinstance(topo, Hypercube):
        return rng.integers(0, topo.dim // 2 + 1, n).tolist()
    return rng.integers(1, max(1, topo.size // 16) + 1, n).tolist()


def churn(alloc, topo, seconds: float, seed: int = 0) -> dict:
    """Throughput pass (no per-call timers), then a pass timing each allocate call."""
    rng = np.random.default_rng(seed)
    reqs = requests(topo, rng, 1 << 16)
    picks = rng.random(1 << 16).tolist()
    live: list = []
    half = alloc.size // 2
    i = 0
    while alloc.free > half and i < len(reqs):  # warm-up: fill to 50%, untimed
        a = alloc.allocate(reqs[i])
        i += 1
        if a is not None:
            live.append(a)
    allocate, release = alloc.allocate, alloc.release

    def run(timed: bool, budget: float) -> tuple[int, int, int, float, list[int]]:
        nonlocal i
        costs: list[int] = []
        ok = ops = rel = 0
        perf = time.perf_counter_ns
        deadline = time.perf_counter() + budget
        t0 = time.perf_counter()
        while time.perf_counter() < deadline:
            for _ in range(256):
                i = (i + 1) & 0xFFFF
                if alloc.free > half or not live:
                    if timed:
                        s = perf()
                        a = allocate(reqs[i])
                        costs.append(perf() - s)
                    else:
                        a = allocate(reqs[i])
                    if a is not None:
                        live.append(a)
                        ok += 1
                else:
                    j = int(picks[i] * len(live))
                    live[j], live[-1] = live[-1], live[j]
                    release(live.pop())
                    rel += 1
                ops += 1
        return ok, ops, rel, time.perf_counter() - t0, costs

    ok, ops, releases, elapsed, _ = run(False, seconds)
    costs = run(True, seconds / 2)[4]
    return {"ops": ops / elapsed, "pairs": ok / elapsed, "median_us": float(np.median(costs)) / 1000,
            "success": ok / max(1, ops - releases)}


def cases(only: str | None):
    for name in MESH_ALLOCATORS:
        for side in MESHES:
            yield name, Mesh(side, side), f"{side}x{side} mesh"
    for name in NONCONTIG_ALLOCATORS:
        for side in NONCONTIG_MESHES:
            yield name, Mesh(side, side), f"{side}x{side} mesh"
    for name in CUBE_ALLOCATORS:
        for dim in CUBES:
            yield name, Hypercube(dim), f"{dim}-cube"
    for name, size in FLAT_ALLOCATORS:
        yield name, Flat(size), f"{size} processors"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=None,
                    help="run only allocators whose name contains this text (comma-separated: any of them)")
    ap.add_argument("--seconds", type=float, default=1.0, help="timed churn per case")
    args = ap.parse_args()
    print(f"# {platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}, "
          f"{args.seconds:g} s of churn per case at ~50% occupancy")
    print(f"{'allocator':20} {'machine':16} {'ops/s':>10} {'pairs/s':>10} {'median alloc':>13} {'success':>8}")
    for name, topo, label in cases(args.only):
        if args.only and not any(part in name for part in args.only.split(",")):
            continue
        try:
            alloc = topoalloc.get(name, topo)
        except KeyError:
            print(f"{name:20} {label:16} {'(not available)':>10}")
            continue
        r = churn(alloc, topo, args.seconds)
        print(f"{name:20} {label:16} {r['ops']:10,.0f} {r['pairs']:10,.0f} {r['median_us']:10.1f} µs "
              f"{r['success']:8.0%}", flush=True)


if __name__ == "__main__":
    main()

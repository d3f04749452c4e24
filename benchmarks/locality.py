"""Cost of the locality and contention measures (topoalloc.locality) per call.

    python benchmarks/locality.py

Random node sets of 16, 256 and 1,024 nodes on a 32x32 mesh and a 10-cube (1,024 nodes: the whole
machine); the machine-level measures on a half-free machine. Each figure is the median of 7 timed
batches of 50 calls, in microseconds per call.
"""

from __future__ import annotations

import os
import platform
import statistics
import time

import numpy as np

from topoalloc import locality
from topologies import Hypercube, Mesh


def per_call(fn, *args, batch: int = 50, rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn(*args)
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times) * 1e6


def main() -> None:
    rng = np.random.default_rng(1)
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}; microseconds per call (median of 7 x 50)")
    print(f"{'measure':<24} {'machine':<8} {'16':>8} {'256':>8} {'1024':>8}")
    for topo, name in ((Mesh(32, 32), "32x32"), (Hypercube(10), "10-cube")):
        sets = {n: rng.choice(topo.size, n, replace=False) for n in (16, 256, 1024)}
        for label, fn, extra in (("mean_hops", locality.mean_hops, ()), ("components", locality.components, ()),
                                 ("pattern_hops all-to-all", locality.pattern_hops, ("all-to-all",)),
                                 ("pattern_hops neighbour", locality.pattern_hops, ("nearest-neighbour",)),
                                 ("job_links", locality.job_links, ())):
            cells = [per_call(fn, topo, sets[n], *extra) for n in (16, 256, 1024)]
            print(f"{label:<24} {name:<8} " + " ".join(f"{c:8.0f}" for c in cells))
        if isinstance(topo, Mesh):
            cells = [per_call(locality.bbox, topo, sets[n]) for n in (16, 256, 1024)]
            print(f"{'bbox':<24} {name:<8} " + " ".join(f"{c:8.0f}" for c in cells))
        free = rng.random(topo.size) < 0.5
        largest = locality.largest_free_submesh if isinstance(topo, Mesh) else locality.largest_free_subcube
        print(f"{largest.__name__:<24} {name:<8} {per_call(largest, topo, free):26.0f}  (half free)")
        print(f"{'free_fragments':<24} {name:<8} {per_call(locality.free_fragments, topo, free):26.0f}  (half free)")


if __name__ == "__main__":
    main()

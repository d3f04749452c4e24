"""Box allocators and partitions of topoalloc.grid under churn at about 50% occupancy on an 8x8x8 torus,
and the 2D paths of meshes and their allocators against an earlier revision.

    python benchmarks/grid.py                      # the 3D cases
    python benchmarks/grid.py --side 16            # a 16x16x16 torus instead
    python benchmarks/grid.py --base HEAD          # also the 2D cases, this tree against revision HEAD
    python benchmarks/grid.py --skip-3d --base HEAD --compact   # compact_nd on 16x16x16, both trees

Churn, as in ``benchmarks/allocators.py`` and ``benchmarks/grid_noncontig.py``: while more than half
the machine is free, allocate a random request; otherwise release a random live allocation. One
warm-up pass fills the machine to 50% untimed. Request mixes: ``shapes``, boxes with sides uniform on
[1, side/4] (1 to 8 nodes on 8x8x8); ``large``, sides uniform on [1, side/2] (1 to 64 nodes); and, for
the partitions, ``counts`` uniform on [1, size/8]. "pairs/s" counts successful allocations over the
whole time, releases included; "per CPU s" divides them by the process's CPU time (closer to an idle
host on a shared one); "median alloc" is the median wall time of one allocate from a second pass.
The targets (issue 26): 20,000 pairs/s for first fit and the partitions.

``--base REV`` exports revision ``REV`` with ``git archive`` and times, in a fresh process per tree
and round (alternating which goes first), the 2D cases on a 32x32 mesh: churn of the 2D first fit
and best fit, and ``hop_sum``, ``link_traffic`` and ``distances`` of 256 random nodes; the table gives
the median of each tree and the ratio base / this (above 1: this tree is faster). With ``--compact``,
the cases are instead the first ``compact_nd`` call for a size on a 16x16x16 torus (n = 300, 1000, 2000).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from versus import export  # a revision unpacked by git archive (this folder is on sys.path)

ROOT = Path(__file__).resolve().parents[1]


def churn(alloc, reqs: list, seconds: float, seed: int = 0) -> dict:
    """Throughput pass (no per-call timers), then a pass timing each allocate call."""
    rng = np.random.default_rng(seed)
    picks = rng.random(len(reqs)).tolist()
    live: list = []
    half = alloc.size // 2
    i = 0
    while alloc.free > half:  # warm-up: fill to 50%, untimed
        a = alloc.allocate(reqs[i])
        i = (i + 1) % len(reqs)
        if a is not None:
            live.append(a)
    allocate, release = alloc.allocate, alloc.release
    mask = len(reqs) - 1

    def run(timed: bool, budget: float) -> tuple[int, int, int, float, float, list[int]]:
        nonlocal i
        costs: list[int] = []
        ok = ops = rel = 0
        perf = time.perf_counter_ns
        deadline = time.perf_counter() + budget
        t0 = time.perf_counter()
        c0 = time.process_time()
        while time.perf_counter() < deadline:
            for _ in range(64):
                i = (i + 1) & mask
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
        return ok, ops, rel, time.perf_counter() - t0, time.process_time() - c0, costs

    ok, ops, releases, elapsed, cpu, _ = run(False, seconds)
    costs = run(True, seconds / 2)[5]
    return {"pairs": ok / elapsed, "cpu_pairs": ok / max(cpu, 1e-9), "median_us": float(np.median(costs)) / 1000,
            "success": ok / max(1, ops - releases)}


def requests(dims: tuple[int, ...], mix: str, rng: np.random.Generator, n: int) -> list:
    if mix == "counts":
        return rng.integers(1, max(1, int(np.prod(dims)) // 8) + 1, n).tolist()
    hi = max(1, dims[0] // (4 if mix == "shapes" else 2))
    return [tuple(s) for s in rng.integers(1, hi + 1, (n, len(dims))).tolist()]


def three_d(side: int, seconds: float) -> None:
    from topoalloc.grid import BestFit, FirstFit, Partitions
    from topologies import Torus

    topo = Torus(side, side, side)
    cases = [
        ("FirstFit", lambda: FirstFit(topo), ("shapes", "large"), 20_000),
        ("FirstFit permute", lambda: FirstFit(topo, permute=True), ("shapes", "large"), 20_000),
        ("BestFit", lambda: BestFit(topo), ("shapes", "large"), None),
        ("Partitions", lambda: Partitions(topo), ("counts", "shapes", "large"), 20_000),
    ]
    print(f"# {platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}, {topo!r}, "
          f"{seconds:g} s of churn per case at ~50% occupancy")
    print(f"{'allocator':17} {'requests':8} {'pairs/s':>10} {'per CPU s':>10} {'median alloc':>13} {'success':>8} "
          f"{'target':>8}")
    for name, make, mixes, target in cases:
        for mix in mixes:
            reqs = requests(topo.dims, mix, np.random.default_rng(1), 1 << 14)
            r = churn(make(), reqs, seconds)
            mark = "" if target is None else ("ok" if r["pairs"] >= target else "MISSED")
            print(f"{name:17} {mix:8} {r['pairs']:10,.0f} {r['cpu_pairs']:10,.0f} {r['median_us']:10.1f} us "
                  f"{r['success']:8.0%} {target or '-':>8} {mark}", flush=True)


#: The 2D cases timed in both trees: name -> code printing one number (seconds for the case).
TWO_D = {
    "FirstFit 32x32 churn": "ff", "BestFit 32x32 churn": "bf",
    "hop_sum 256 nodes": "hop", "link_traffic 256 nodes": "traffic", "distances 256 pairs": "dist",
}

_CASE = r"""
import sys, time, numpy as np
sys.path.insert(0, {bench!r})
from grid import churn, requests
from topologies import Mesh
from topoalloc.mesh import FirstFit, BestFit
case = {case!r}
m = Mesh(32, 32)
if case.startswith("compact"):
    from topologies.grid import compact_nd
    n = int(case[len("compact"):])
    best = []
    for _ in range(3):
        compact_nd.cache_clear()
        c0 = time.process_time()
        compact_nd(n, (16, 16, 16), (True, True, True), None)
        best.append(time.process_time() - c0)
    print(min(best))
elif case in ("ff", "bf"):
    alloc = (FirstFit if case == "ff" else BestFit)(m)
    r = churn(alloc, requests((32, 32), "shapes", np.random.default_rng(1), 1 << 14), {seconds})
    print(1.0 / r["cpu_pairs"])
else:
    rng = np.random.default_rng(2)
    nodes = rng.choice(1024, 256, replace=False)
    other = rng.choice(1024, 256, replace=True)
    fn = {{"hop": lambda: m.hop_sum(nodes), "traffic": lambda: m.link_traffic(nodes),
          "dist": lambda: m.distances(nodes, other)}}[case]
    best = []
    for _ in range(7):
        c0 = time.process_time()
        for _ in range(300):
            fn()
        best.append((time.process_time() - c0) / 300)
    print(sorted(best)[3])
"""


#: The compact baseline of a 16x16x16 torus (``topologies.grid.compact_nd``, first call for a size):
#: name -> code.
COMPACT = {f"compact_nd 16^3 n={n}": f"compact{n}" for n in (300, 1000, 2000)}


def two_d(base: str, rounds: int, seconds: float, cases: dict[str, str] | None = None,
          title: str = "2D paths") -> None:
    bench = str(ROOT / "benchmarks")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"base": str(export(base, Path(tmp))), "this": str(ROOT)}
        print(f"\n# {title}: {base} against this tree, median of {rounds} rounds (CPU time per pair or call)")
        print(f"{'case':24} {'base':>12} {'this':>12} {'base/this':>10}")
        for label, case in (TWO_D if cases is None else cases).items():
            times: dict[str, list[float]] = {"base": [], "this": []}
            for r in range(rounds):
                order = ("base", "this") if r % 2 == 0 else ("this", "base")
                for tree in order:
                    env = dict(os.environ, PYTHONPATH=trees[tree])
                    out = subprocess.run([sys.executable, "-c", _CASE.format(bench=bench, case=case, seconds=seconds)],
                                         env=env, capture_output=True, text=True, check=True, cwd=tmp)
                    times[tree].append(float(out.stdout.strip().splitlines()[-1]))
            b, t = statistics.median(times["base"]), statistics.median(times["this"])
            print(f"{label:24} {b * 1e6:9.2f} us {t * 1e6:9.2f} us {b / t:10.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", type=int, default=8, help="side of the cubic torus (default 8)")
    ap.add_argument("--seconds", type=float, default=1.0, help="timed churn per case")
    ap.add_argument("--base", default=None, help="also time the 2D paths against this git revision")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the 2D comparison (default 5)")
    ap.add_argument("--skip-3d", action="store_true", help="only the 2D comparison")
    ap.add_argument("--compact", action="store_true",
                    help="with --base, time compact_nd on a 16x16x16 torus in both trees (best of 3 per round) "
                         "instead of the 2D cases")
    args = ap.parse_args()
    if not args.skip_3d:
        three_d(args.side, args.seconds)
    if args.base and args.compact:
        two_d(args.base, args.rounds, args.seconds / 2, COMPACT, "compact_nd on 16x16x16")
    elif args.base:
        two_d(args.base, args.rounds, args.seconds / 2)


if __name__ == "__main__":
    main()

"""MM's approximation bound checked on many random small instances, and how the other locality-seeking
allocators compare with the optimum on the same instances.

    python benchmarks/mm_bound.py                   # 2000 instances per grid, a 3000-step search (a few minutes)
    python benchmarks/mm_bound.py --instances 200 --search 300   # quicker

Bender, Bunde, Demaine, Fekete, Leung, Meijer & Phillips (Algorithmica 50(2), 2008; arXiv
cs/0407058) prove MM a 7/4-approximation of the least average pairwise L1 distance of ``k`` points on
2D grids and a (2 - 1/(2d))-approximation in ``d`` dimensions. An instance here is a grid (no
wrap) with random busy cells, at most 16 free cells and ``k`` from 2 to 8; the optimum is the least
pairwise sum over every ``k``-subset of the free cells (enumerated). Each allocator answers through
its what-if ``place_in`` on the free mask (the choice it would make with exactly those nodes free):
MM, MC1x1 (free processors as centres, no guarantee), best fit along the Hilbert curve, and MBS.
Ratios are pairwise sums over the optimum's (so average distances, as ``k`` is the same).

Then simulated annealing looks for a bad instance for MM on a 6 x 6 grid (moves: flip a cell, move a
free cell, change ``k``; a worse ratio is accepted with probability ``exp(-loss / T)``, ``T`` cooling
from 0.05): the worst instance found is printed.
"""

from __future__ import annotations

import argparse
import itertools
import time
from fractions import Fraction

import numpy as np

from topoalloc.grid.curves import Curve
from topoalloc.grid.mbs import MBS
from topoalloc.grid.mc import MC1x1
from topoalloc.grid.mm import MM
from topologies import Mesh

GRIDS = [(5, 5), (6, 4), (3, 3, 3), (4, 3, 2)]
MAX_FREE = 16


def optimum(coords: np.ndarray, k: int) -> int:
    """The least pairwise L1 sum over every k-subset of ``coords`` ((F, d)), by enumeration."""
    combos = np.array(list(itertools.combinations(range(len(coords)), k)), dtype=np.int64)
    weights = 2 * np.arange(k) - (k - 1)
    total = np.zeros(len(combos), dtype=np.int64)
    for j in range(coords.shape[1]):
        total += np.sort(coords[combos, j], axis=1) @ weights
    return int(total.min())


def pair_sum(coords: np.ndarray) -> int:
    weights = 2 * np.arange(len(coords)) - (len(coords) - 1)
    return int(sum(np.sort(coords[:, j]) @ weights for j in range(coords.shape[1])))


def bound(d: int) -> Fraction:
    return Fraction(7, 4) if d == 2 else 2 - Fraction(1, 2 * d)


def allocators(topo: Mesh) -> dict:
    return {"MM": MM(topo), "MC1x1": MC1x1(topo), "HilbertBestFit": Curve(topo, "hilbert", "best"),
            "MBS": MBS(topo)}


def ratios(topo: Mesh, allocs: dict, free: np.ndarray, k: int) -> dict[str, Fraction]:
    best = optimum(topo.coords_of(np.flatnonzero(free)), k)
    return {name: Fraction(pair_sum(topo.coords_of(a.place_in(k, free))), best) for name, a in allocs.items()}


def random_instance(rng: np.random.Generator, P: int) -> tuple[np.ndarray, int]:
    k = int(rng.integers(2, 9))
    nfree = int(rng.integers(k, min(MAX_FREE, P) + 1))
    free = np.zeros(P, dtype=bool)
    free[rng.choice(P, nfree, replace=False)] = True
    return free, k


def picture(topo: Mesh, free: np.ndarray, chosen: np.ndarray) -> str:
    """A 2D instance as text: '#' busy, '.' free, 'o' free and chosen (y = 0 at the bottom)."""
    W, H = topo.dims
    rows = []
    for y in range(H - 1, -1, -1):
        rows.append(" ".join("o" if y * W + x in chosen else "." if free[y * W + x] else "#" for x in range(W)))
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", type=int, default=2000, help="random instances per grid")
    ap.add_argument("--search", type=int, default=3000, help="steps of the search for a bad MM instance")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(f"# {args.instances} random instances per grid (at most {MAX_FREE} free cells, k in 2..8, no wrap); "
          f"ratio = pairwise sum / optimum")
    print(f"{'grid':10} {'allocator':15} {'worst':>7} {'mean':>7} {'optimal':>8} {'bound':>7}")
    for dims in GRIDS:
        topo = Mesh(*dims)
        allocs = allocators(topo)
        seen: dict[str, list[Fraction]] = {name: [] for name in allocs}
        for _ in range(args.instances):
            free, k = random_instance(rng, topo.size)
            r = ratios(topo, allocs, free, k)
            for name, v in r.items():
                seen[name].append(v)
        b = bound(topo.ndim)
        label = "x".join(map(str, dims))
        for name, vals in seen.items():
            worst = max(vals)
            optimal = sum(v == 1 for v in vals) / len(vals)
            over = " OVER THE BOUND" if name == "MM" and worst > b else ""
            print(f"{label:10} {name:15} {float(worst):7.3f} {float(np.mean([float(v) for v in vals])):7.3f} "
                  f"{optimal:8.0%} {float(b):7.3f}{over}")
    # simulated annealing for a bad MM instance on the 6 x 6 grid
    topo = Mesh(6, 6)
    mm = MM(topo)
    P = topo.size

    def mm_ratio(free: np.ndarray, k: int) -> Fraction:
        best = optimum(topo.coords_of(np.flatnonzero(free)), k)
        return Fraction(pair_sum(topo.coords_of(mm.place_in(k, free))), best)

    found: tuple[Fraction, np.ndarray, int] | None = None
    restarts = max(1, args.search // 500)
    for _ in range(restarts):
        free, k = random_instance(rng, P)
        ratio, heat = mm_ratio(free, k), 0.05
        for _ in range(args.search // restarts):
            cand, ck = free.copy(), k
            u = rng.random()
            if u < 0.1:
                ck = int(np.clip(k + rng.choice([-1, 1]), 2, 8))
            elif u < 0.55:
                cand[int(rng.integers(P))] ^= True
            elif (~cand).any():  # move a free cell elsewhere
                cand[rng.choice(np.flatnonzero(cand))] = False
                cand[rng.choice(np.flatnonzero(~cand))] = True
            if not ck <= cand.sum() <= MAX_FREE + 1:
                continue
            r = mm_ratio(cand, ck)
            if r >= ratio or rng.random() < np.exp(float(r - ratio) / heat):
                ratio, free, k = r, cand, ck
            if found is None or ratio > found[0]:
                found = (ratio, free.copy(), k)
            heat *= 0.995
    assert found is not None
    ratio, free, k = found
    chosen = mm.place_in(k, free)
    best = optimum(topo.coords_of(np.flatnonzero(free)), k)
    print(f"\n# simulated annealing ({restarts} x {args.search // restarts} steps) on the 6x6 grid: worst MM ratio "
          f"found {float(ratio):.3f} ({ratio.numerator}/{ratio.denominator}), k = {k}, MM pairwise sum "
          f"{pair_sum(topo.coords_of(chosen))}, optimum {best}; bound 7/4 = 1.750 ('o': MM's choice)")
    print(picture(topo, free, set(chosen.tolist())))
    print(f"\n# {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()

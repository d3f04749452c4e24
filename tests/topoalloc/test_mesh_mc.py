"""MC1x1 (Mache, Lo & Windisch 1997): the centre of least total shell distance."""

import numpy as np

from topoalloc import MC1x1
from topoalloc.testing import allocator_machine, any_free, meshes
from topologies import Mesh


def _brute_costs(free, n):
    """Cost of every free centre: the sum of the n smallest L-infinity distances to free nodes."""
    H, W = free.shape
    fy, fx = np.nonzero(free)
    costs = {}
    for cy, cx in zip(fy.tolist(), fx.tolist(), strict=True):
        d = np.sort(np.maximum(np.abs(fx - cx), np.abs(fy - cy)))
        costs[cy * W + cx] = int(d[:n].sum())
    return costs


def _least_cost_choice(allocator, free, request, allocation):
    """The grant is the n nearest free nodes of the first centre (in node order) of least cost."""
    n = allocator.request_size(request)
    costs = _brute_costs(free, n)
    best = min(costs.values())
    centre = min(c for c, v in costs.items() if v == best)
    W = allocator.width
    cx, cy = centre % W, centre // W
    x, y = allocation.nodes % W, allocation.nodes // W
    got = int(np.maximum(np.abs(x - cx), np.abs(y - cy)).sum())
    assert got == best, f"{allocation!r}: total distance {got} from centre {centre}, the least is {best}"


def mc_oracle(allocator, free, request):
    return any_free(allocator, free, request)


mc_oracle.check_choice = _least_cost_choice

TestMC1x1Machine = allocator_machine(MC1x1, meshes(max_side=8), oracle=mc_oracle, max_examples=30).TestCase
TestMC1x1LongMachine = allocator_machine(
    MC1x1, meshes(min_side=1, max_side=12), oracle=mc_oracle, max_examples=10, steps=80
).TestCase


def test_centre_costs_match_brute_force_for_the_best_centres():
    rng = np.random.default_rng(3)
    for _ in range(20):
        m = MC1x1(Mesh(9, 7))
        for g in [m.allocate(1) for _ in range(63)]:
            if rng.random() < 0.6:
                m.release(g)
        free = ~m.busy
        for n in (1, 4, 10, int(free.sum())):
            costs = m.centre_costs(n)
            brute = _brute_costs(free, n)
            best = min(brute.values())
            assert costs.min() == best
            finite = np.isfinite(costs.ravel())
            for c in np.flatnonzero(finite):  # every cost it reports is exact
                assert costs.ravel()[c] == brute[int(c)]
            assert all(v > best for c, v in brute.items() if not finite[c])  # it skips only losers


def test_takes_the_nearest_shell_first_then_manhattan_then_ids():
    m = MC1x1(Mesh(5, 5))
    assert m.allocate(1).nodes.tolist() == [0]
    assert m.allocate((3, 3)).nodes.tolist() == [1, 2, 3, 6, 7, 8, 11, 12, 13]  # centre (2, 1): a full ball
    rng = np.random.default_rng(5)
    for _ in range(30):
        m = MC1x1(Mesh(7, 6))
        for g in [m.allocate(1) for _ in range(42)]:
            if rng.random() < 0.5:
                m.release(g)
        free = ~m.busy
        n = int(rng.integers(1, free.sum() + 1))
        centre = int(m.centre_costs(n).argmin())
        cx, cy = centre % 7, centre // 7
        ids = np.flatnonzero(free)
        x, y = ids % 7, ids // 7
        ranked = sorted(zip(np.maximum(abs(x - cx), abs(y - cy)).tolist(), (abs(x - cx) + abs(y - cy)).tolist(),
                            ids.tolist(), strict=True))
        assert m.allocate(n).nodes.tolist() == sorted(i for _, _, i in ranked[:n])

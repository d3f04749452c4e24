import random

import numpy as np
import pytest

from topoalloc import Buddy, FreeList, UnsupportedTopologyError
from topoalloc.testing import allocator_machine, hypercubes, perfect_subcube
from topologies import Flat, Hypercube, RequestTypeError, Subcube

TestFreeListMachine = allocator_machine(FreeList, hypercubes(max_dim=6)).TestCase


def occupy_all_but(allocator, free_nodes):
    grants = [allocator.allocate(0) for _ in range(allocator.size)]
    assert None not in grants
    for g in grants:
        if int(g.nodes[0]) in free_nodes:
            allocator.release(g)


def maximal_free_cubes(free, n):
    """Brute force: every maximal subcube whose nodes are all free."""
    cubes = set()
    for mask in range(1 << n):
        for base in range(1 << n):
            if base & mask == 0 and free[Subcube(base, mask).node_ids()].all():
                cubes.add((base, mask))
    return {
        (b, m)
        for b, m in cubes
        if not any((b, m) != (b2, m2) and m & ~m2 == 0 and (b ^ b2) & ~m2 == 0 for b2, m2 in cubes)
    }


def test_finds_non_buddy_subcube_buddy_misses():
    fl, b = FreeList(Hypercube(4)), Buddy(Hypercube(4))
    star = {1, 3, 9, 11}  # *0*1
    occupy_all_but(fl, star)
    occupy_all_but(b, star)
    assert [c.pattern(4) for c in fl.free_cubes()] == ["*0*1"]
    assert b.allocate(2) is None
    got = fl.allocate(2)
    assert got.placement == Subcube.from_pattern("*0*1") and fl.free == 0


def test_free_list_is_the_set_of_maximal_free_subcubes_under_churn():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 4)
        fl = FreeList(Hypercube(n))
        live = []
        for _ in range(25):
            if live and rng.random() < 0.45:
                fl.release(live.pop(rng.randrange(len(live))))
            else:
                g = fl.allocate(rng.randint(0, n))
                if g is not None:
                    live.append(g)
            free = np.ones(1 << n, dtype=bool)
            for g in live:
                free[g.nodes] = False
            assert {(c.base, c.mask) for c in fl.free_cubes()} == maximal_free_cubes(free, n)


def test_complete_recognition_on_random_free_sets():
    rng = random.Random(3)
    for _ in range(80):
        n = rng.randint(2, 5)
        free = set(rng.sample(range(1 << n), rng.randint(0, 1 << n)))
        fl = FreeList(Hypercube(n))
        occupy_all_but(fl, free)
        mask = np.array([v in free for v in range(1 << n)])
        for k in range(n + 1):
            got = fl.allocate(k)
            assert (got is not None) == perfect_subcube(fl, mask, k)
            if got is not None:
                assert mask[got.nodes].all()
                fl.release(got)


def test_best_fit_takes_the_smallest_sufficient_cube_aligned_first():
    fl = FreeList(Hypercube(4))
    a = fl.allocate(3)
    assert a.placement == Subcube.from_pattern("0***")
    assert fl.allocate(2).placement == Subcube.from_pattern("10**")  # the aligned block of 1***
    assert fl.allocate(0).placement == Subcube.from_pattern("1100")
    fl.release(a)
    assert [c.pattern(4) for c in fl.free_cubes()] == ["0***", "*1*1", "*11*"]
    # a 1-cube goes into the smallest sufficient free cube holding an aligned pair, *11*
    assert fl.allocate(1).placement == Subcube.from_pattern("011*")


def test_release_merges_everything_back():
    fl = FreeList(Hypercube(5))
    grants = [fl.allocate(k) for k in (0, 0, 1, 2, 3, 4)]
    assert None not in grants and fl.free == 0 and fl.free_cubes() == []
    rng = random.Random(1)
    rng.shuffle(grants)
    for g in grants:
        fl.release(g)
    assert fl.free_cubes() == [Subcube(0, 0b11111)]
    assert fl.free_nodes().tolist() == list(range(32))


def test_bad_inputs():
    with pytest.raises(UnsupportedTopologyError):
        FreeList(Flat(16))
    fl = FreeList(Hypercube(3))
    with pytest.raises(RequestTypeError):
        fl.allocate("1")
    assert fl.fold(0) is None and fl.fold(3) == 2


def test_sixteen_cube_churn_is_quick():
    rng = random.Random(0)
    fl = FreeList(Hypercube(16))
    live = []
    for _ in range(600):
        if fl.free > fl.size // 2 or not live:
            g = fl.allocate(rng.randint(0, 8))
            assert g is not None
            live.append(g)
        else:
            fl.release(live.pop(rng.randrange(len(live))))
    occupied = np.zeros(fl.size, dtype=bool)
    for g in live:
        assert not occupied[g.nodes].any()
        occupied[g.nodes] = True
    assert np.array_equal(fl.free_nodes(), np.flatnonzero(~occupied))


def test_place_in_finds_a_subcube_that_is_not_a_buddy_block():
    """Nodes 1, 3, 9, 11 of a 4-cube are the 2-cube *0*1, which no aligned block covers."""
    fl = FreeList(Hypercube(4))
    free = np.zeros(16, dtype=bool)
    free[[1, 3, 9, 11]] = True
    assert fl.place_in(2, free).tolist() == [1, 3, 9, 11]
    free[9] = False
    assert fl.place_in(2, free) is None and fl.place_in(1, free).tolist() in ([1, 3], [3, 11])

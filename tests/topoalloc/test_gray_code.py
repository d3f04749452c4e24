import itertools
import math
import random

import numpy as np
import pytest

from topoalloc import Buddy, FreeList, GrayCode, UnsupportedTopologyError
from topoalloc.hypercube.gray_code import gray_permutations
from topoalloc.testing import allocator_machine, hypercubes, perfect_subcube
from topologies import Flat, Hypercube, RequestSizeError, Subcube

TestGrayCodeMachine = allocator_machine(GrayCode, hypercubes(max_dim=6)).TestCase


def all_codes(topology):
    return GrayCode(topology, codes=math.comb(topology.dim, topology.dim // 2))


# every Gray code in use, first-block choice checked by the gray oracle
TestAllGrayCodesMachine = allocator_machine(all_codes, hypercubes(max_dim=5), max_examples=25).TestCase
# ... and with C(n, n/2) codes recognition is complete
TestAllGrayCodesPerfectMachine = allocator_machine(
    all_codes, hypercubes(max_dim=5), oracle="perfect", max_examples=25
).TestCase


def occupy_all_but(allocator, free_nodes):
    """Fill the cube with 0-cubes, then release those on ``free_nodes``; return the live grants."""
    grants = [allocator.allocate(0) for _ in range(allocator.size)]
    assert None not in grants
    for g in grants:
        if int(g.nodes[0]) in free_nodes:
            allocator.release(g)
    return [g for g in grants if int(g.nodes[0]) not in free_nodes]


def test_orders_are_cyclic_gray_codes_and_blocks_are_subcubes():
    for n in range(7):
        g = all_codes(Hypercube(n))
        assert len(g.orders) == math.comb(n, n // 2) == len(set(g.perms))
        size = 1 << n
        for order in g.orders:
            assert sorted(order.tolist()) == list(range(size))
            steps = order ^ np.roll(order, -1)
            if n >= 1:
                assert all(int(s).bit_count() == 1 for s in steps)  # a Hamiltonian cycle
            for k in range(n + 1):
                starts = range(size) if k == 0 else range(0, size, 1 << (k - 1))
                for s in starts:
                    nodes = order[[(s + j) % size for j in range(1 << k)]]
                    mask = int(np.bitwise_or.reduce(nodes ^ nodes.min()))
                    cube = Subcube(int(nodes.min()), mask)
                    assert cube.dim == k
                    assert np.array_equal(cube.node_ids(), np.sort(nodes))


def test_first_code_is_the_binary_reflected_gray_code():
    g = GrayCode(Hypercube(4))
    i = np.arange(16)
    assert np.array_equal(g.orders[0], i ^ (i >> 1))
    assert g.perms == [(0, 1, 2, 3)] and g.codes == 1


def test_chain_permutations_cover_every_dimension_set():
    for n in range(1, 9):
        perms = list(gray_permutations(n))
        assert len(perms) == math.comb(n, n // 2)
        prefixes = {frozenset(p[:j]) for p in perms for j in range(n + 1)}
        assert len(prefixes) == 1 << n


def test_gray_code_finds_a_half_shifted_block_buddy_misses():
    # 3-cube in Gray order 0 1 3 2 6 7 5 4; positions 1..2 are nodes 1 and 3: the cube 0*1
    g, b = GrayCode(Hypercube(3)), Buddy(Hypercube(3))
    occupy_all_but(g, {1, 3})
    occupy_all_but(b, {1, 3})
    assert b.allocate(1) is None
    got = g.allocate(1)
    assert got.placement == Subcube.from_pattern("0*1") and not got.placement.is_buddy


def test_wrap_around_block():
    # positions 7 and 0 are nodes 4 and 0: the cube *00
    g = GrayCode(Hypercube(3))
    occupy_all_but(g, {0, 4})
    assert g.allocate(1).placement == Subcube.from_pattern("*00")


def test_one_gray_code_misses_what_free_list_and_more_codes_find():
    # nodes 0 and 2 (cube 0*0) are not consecutive in the BRGC of a 3-cube
    one, three, fl = GrayCode(Hypercube(3)), GrayCode(Hypercube(3), codes=3), FreeList(Hypercube(3))
    for a in (one, three, fl):
        occupy_all_but(a, {0, 2})
    assert one.allocate(1) is None
    assert fl.allocate(1).placement == Subcube.from_pattern("0*0")
    assert three.allocate(1).placement == Subcube.from_pattern("0*0")


def test_more_codes_recognise_more():
    rng = random.Random(4)
    n = 4
    counts = {c: 0 for c in (1, 2, math.comb(n, n // 2))}
    for _ in range(60):
        free = set(rng.sample(range(16), rng.randint(4, 10)))
        for codes in counts:
            g = GrayCode(Hypercube(n), codes=codes)
            occupy_all_but(g, free)
            counts[codes] += sum(g.allocate(k) is not None for k in (1, 2))
    c = sorted(counts)
    assert counts[c[0]] < counts[c[1]] < counts[c[2]]


def test_all_codes_give_complete_recognition_exhaustively_on_a_3_cube():
    n = 3
    for bits in range(1 << (1 << n)):
        free = {v for v in range(8) if bits >> v & 1}
        g = all_codes(Hypercube(n))
        occupy_all_but(g, free)
        mask = np.array([v in free for v in range(8)])
        for k in range(n + 1):
            got = g.allocate(k)
            assert (got is not None) == perfect_subcube(g, mask, k), (sorted(free), k)
            if got is not None:
                g.release(got)


def test_first_block_is_taken_and_release_restores():
    g = GrayCode(Hypercube(4))
    a = g.allocate(2)
    assert a.placement == Subcube(0, 0b11)
    b = g.allocate(1)  # positions 4..5: nodes 6 and 7
    assert b.nodes.tolist() == [6, 7]
    g.release(a)
    g.release(b)
    assert g.free == 16 and g.free_nodes().tolist() == list(range(16))
    assert g.allocate(4).nodes.tolist() == list(range(16))
    assert g.allocate(0) is None


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"1\.\.3"):
        GrayCode(Hypercube(3), codes=4)
    for bad in (0, True, 1.0):
        with pytest.raises(ValueError, match="codes"):
            GrayCode(Hypercube(3), codes=bad)
    with pytest.raises(UnsupportedTopologyError):
        GrayCode(Flat(8))
    with pytest.raises(RequestSizeError):
        GrayCode(Hypercube(3)).allocate(4)
    assert repr(GrayCode(Hypercube(2), codes=2)) == "GrayCode(Hypercube(dim=2), codes=2)"
    assert GrayCode(Hypercube(5)).fold(3) == 2


def test_zero_cube_machine():
    g = GrayCode(Hypercube(0))
    a = g.allocate(0)
    assert a.placement == Subcube(0, 0) and g.allocate(0) is None
    g.release(a)
    assert g.free == 1


def test_perms_place_code_bits_on_their_dimensions():
    g = all_codes(Hypercube(4))
    for perm, order in zip(g.perms, g.orders, strict=True):
        for pos, node in itertools.islice(enumerate(order.tolist()), 16):
            gray = pos ^ (pos >> 1)
            assert node == sum(((gray >> j) & 1) << d for j, d in enumerate(perm))

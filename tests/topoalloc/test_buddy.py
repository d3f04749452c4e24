import numpy as np
import pytest

from topoalloc import Buddy, DoubleReleaseError, ForeignAllocationError
from topoalloc.testing import allocator_machine, hypercubes
from topologies import Hypercube, RequestSizeError, RequestTypeError, Subcube

TestBuddyMachine = allocator_machine(Buddy, hypercubes(max_dim=6)).TestCase


def test_least_m_is_taken_not_smallest_block():
    b = Buddy(Hypercube(4))
    a0 = b.allocate(1)  # [0, 1]
    a1 = b.allocate(1)  # [2, 3]
    b.allocate(2)  # [4, 7]
    b.release(a0)
    # free blocks: order-1 at 0, order-3 at 8: a 1-cube goes to m = 0
    assert b.allocate(1).placement == Subcube(0, 0b1)
    b.release(a1)
    assert b.allocate(0).placement == Subcube(2, 0)


def test_release_merges_buddies_back_to_the_whole_cube():
    b = Buddy(Hypercube(5))
    grants = [b.allocate(k) for k in (0, 0, 1, 2, 3, 4)]
    assert None not in grants
    assert b.free == 0 and b.allocate(0) is None
    for g in reversed(grants):
        b.release(g)
    assert b.free_blocks() == [Subcube(0, 0b11111)]
    assert b.allocate(5).nodes.tolist() == list(range(32))


def test_buddy_misses_non_buddy_subcube():
    b = Buddy(Hypercube(2))
    g = [b.allocate(0) for _ in range(4)]  # 00 01 10 11
    b.release(g[0])
    b.release(g[2])  # free: 00 and 10, the non-buddy subcube *0
    assert b.free == 2 and b.allocate(1) is None


def test_errors_name_the_bad_value():
    b = Buddy(Hypercube(3))
    with pytest.raises(RequestSizeError, match="4-cube"):
        b.allocate(4)
    with pytest.raises(RequestSizeError, match="-1"):
        b.allocate(-1)
    with pytest.raises(RequestTypeError, match="2.0"):
        b.allocate(2.0)
    a = b.allocate(1)
    b.release(a)
    with pytest.raises(DoubleReleaseError):
        b.release(a)
    other = Buddy(Hypercube(3)).allocate(1)
    with pytest.raises(ForeignAllocationError):
        b.release(other)


def test_allocation_is_immutable_and_hashable():
    b = Buddy(Hypercube(3))
    a = b.allocate(2)
    with pytest.raises(AttributeError):
        a.request = 3
    with pytest.raises(ValueError):
        a.nodes[0] = 5
    assert {a: 1}[a] == 1
    assert np.array_equal(b.occupancy, np.array([1, 1, 1, 1, 0, 0, 0, 0]))


def test_fold_is_one_dimension_less():
    b = Buddy(Hypercube(8))
    assert b.fold(7) == 6 and b.fold(1) == 0 and b.fold(0) is None

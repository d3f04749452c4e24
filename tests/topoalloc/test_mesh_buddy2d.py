import numpy as np
import pytest

from topoalloc import UnsupportedTopologyError
from topoalloc.mesh import Buddy2D
from topoalloc.testing import allocator_machine, buddy_2d, square_power_of_two_meshes
from topologies import Hypercube, Mesh, RequestSizeError, RequestTypeError, Submesh


def _morton(x, y):
    return sum(((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1) for i in range(16))


class LeastMortonBlock:
    """buddy_2d, plus: the grant is the free aligned s x s block with the least Z-order address."""

    def __call__(self, allocator, free, request):
        return buddy_2d(allocator, free, request)

    def check_choice(self, allocator, free, request, allocation):
        s = 1 << (max(request) - 1).bit_length()
        side = free.shape[0]
        blocks = [
            (_morton(x, y), x, y)
            for y in range(0, side, s)
            for x in range(0, side, s)
            if free[y : y + s, x : x + s].all()
        ]
        assert blocks, f"{allocation!r} granted but no aligned {s}x{s} block was free"
        _, x, y = min(blocks)
        assert allocation.request == (s, s)
        assert allocation.placement == Submesh(x, y, s, s), (allocation, (x, y))


TestBuddy2DMachine = allocator_machine(
    Buddy2D, square_power_of_two_meshes(max_exp=4), oracle=LeastMortonBlock()
).TestCase
TestBuddy2DMachineAutoOracle = allocator_machine(
    Buddy2D, square_power_of_two_meshes(max_exp=3), max_examples=8
).TestCase


def test_request_is_rounded_up_to_a_power_of_two_square():
    b = Buddy2D(Mesh(8, 8))
    a = b.allocate((3, 2))
    assert a.request == (4, 4) and a.placement == Submesh(0, 0, 4, 4)
    assert a.size == 16 and b.free == 48 and b.request_size((3, 2)) == 16
    assert b.allocate((5, 1)) is None and b.free == 48


def test_z_order_placement():
    b = Buddy2D(Mesh(4, 4))
    got = [b.allocate((1, 1)).placement for _ in range(5)]
    assert [(p.x, p.y) for p in got] == [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]
    # the least address among all orders: a 2x2 goes to (0, 2), after the split quadrant at (2, 0)
    assert b.allocate((2, 2)).placement == Submesh(0, 2, 2, 2)


def test_least_address_not_smallest_block():
    b = Buddy2D(Mesh(4, 4))
    a = b.allocate((2, 2))  # (0, 0)
    c = b.allocate((1, 1))  # (2, 0): splits the quadrant at (2, 0)
    b.release(a)
    # free: the 2x2 at (0, 0) (address 0) and 1x1 blocks at addresses 5, 6, 7
    assert b.allocate((1, 1)).placement == Submesh(0, 0, 1, 1)
    b.release(c)  # the four 1x1 blocks at (2, 0) .. (3, 1) merge back into a 2x2
    assert Submesh(2, 0, 2, 2) in b.free_blocks()
    assert b.allocate((1, 1)).placement == Submesh(1, 0, 1, 1)


def test_misses_an_unaligned_free_square():
    b = Buddy2D(Mesh(4, 4))
    cells = {(a.placement.x, a.placement.y): a for a in (b.allocate((1, 1)) for _ in range(16))}
    for xy in [(1, 1), (2, 1), (1, 2), (2, 2)]:
        b.release(cells[xy])
    assert b.free == 4 and b.allocate((2, 2)) is None  # the free 2x2 at (1, 1) is not a buddy block


def test_release_merges_buddies_back_to_the_whole_mesh():
    b = Buddy2D(Mesh(8, 8))
    grants = [b.allocate(r) for r in [(1, 1), (1, 1), (2, 2), (1, 1), (3, 3), (4, 4)]]
    assert None not in grants
    for g in grants:
        b.release(g)
    assert b.free_blocks() == [Submesh(0, 0, 8, 8)]
    assert np.array_equal(b.free_nodes(), np.arange(64))
    assert b.allocate((8, 8)).nodes.tolist() == list(range(64))


@pytest.mark.parametrize("w,h", [(4, 2), (6, 6), (3, 3), (8, 4)])
def test_non_square_or_non_power_of_two_mesh_is_refused(w, h):
    with pytest.raises(UnsupportedTopologyError, match=f"{w}x{h}"):
        Buddy2D(Mesh(w, h))


def test_other_topologies_are_refused():
    with pytest.raises(UnsupportedTopologyError):
        Buddy2D(Hypercube(4))


def test_fold_halves_the_square():
    b = Buddy2D(Mesh(32, 32))
    assert b.fold((3, 2)) == (2, 2)
    assert b.fold((32, 1)) == (16, 16)
    assert b.fold((2, 2)) == (1, 1)
    assert b.fold((1, 1)) is None


def test_bad_requests():
    b = Buddy2D(Mesh(4, 4))
    with pytest.raises(RequestSizeError, match="5"):
        b.allocate((5, 1))
    with pytest.raises(RequestSizeError):
        b.allocate((0, 2))
    with pytest.raises(RequestTypeError):
        b.allocate(4)
    with pytest.raises(RequestTypeError):
        b.allocate((2.0, 2))
    assert b.free == 16


def test_occupancy_is_2d():
    b = Buddy2D(Mesh(4, 4))
    a = b.allocate((2, 2))
    occ = b.occupancy
    assert occ.shape == (4, 4)
    assert (occ[:2, :2] == a.id).all() and occ.sum() == 4 * a.id

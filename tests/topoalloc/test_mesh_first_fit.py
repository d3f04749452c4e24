import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import UnsupportedTopologyError
from topoalloc.mesh import FirstFit
from topoalloc.testing import allocator_machine, meshes, perfect_submesh
from topologies import Hypercube, Mesh, RequestSizeError, RequestTypeError, Submesh


def _free_bases(free, w, h):
    H, W = free.shape
    return [(x, y) for y in range(H - h + 1) for x in range(W - w + 1) if free[y : y + h, x : x + w].all()]


class FirstBase:
    """perfect_submesh, plus: the grant is the first free base in row-major order (y outer), in the
    request's own orientation when one exists."""

    def __call__(self, allocator, free, request):
        return perfect_submesh(allocator, free, request)

    def check_choice(self, allocator, free, request, allocation):
        w, h = request
        shapes = [(w, h)] + ([(h, w)] if allocator.rotate and w != h else [])
        for sw, sh in shapes:
            bases = _free_bases(free, sw, sh)
            if bases:
                assert allocation.request == (sw, sh)
                assert allocation.placement == Submesh(*bases[0], sw, sh), (allocation, bases[:3])
                return
        raise AssertionError(f"{allocation!r} granted with no free placement")


def _rotating(topology):
    return FirstFit(topology, rotate=True)


TestFirstFitMachine = allocator_machine(FirstFit, meshes(max_side=10), oracle=FirstBase()).TestCase
TestFirstFitRotateMachine = allocator_machine(_rotating, meshes(max_side=10), oracle=FirstBase()).TestCase
TestFirstFitMachineAutoOracle = allocator_machine(FirstFit, meshes(max_side=7), max_examples=8).TestCase
TestFirstFitRotateAutoOracle = allocator_machine(
    lambda t: FirstFit(t, rotate=True), meshes(max_side=7), max_examples=8
).TestCase


def test_first_base_in_row_major_order():
    ff = FirstFit(Mesh(5, 4))
    a = ff.allocate((2, 2))
    b = ff.allocate((2, 3))
    c = ff.allocate((1, 4))
    d = ff.allocate((2, 2))
    assert a.placement == Submesh(0, 0, 2, 2)
    assert b.placement == Submesh(2, 0, 2, 3)
    assert c.placement == Submesh(4, 0, 1, 4)
    assert d.placement == Submesh(0, 2, 2, 2)
    assert ff.allocate((1, 3)) is None  # only (2, 3) and (3, 3) are free
    ff.release(b)
    assert ff.allocate((1, 3)).placement == Submesh(2, 0, 1, 3)


def test_finds_any_free_submesh():
    ff = FirstFit(Mesh(4, 4))
    cells = {}
    for _ in range(16):
        g = ff.allocate((1, 1))
        cells[(g.placement.x, g.placement.y)] = g
    for xy in [(1, 1), (2, 1), (1, 2), (2, 2)]:
        ff.release(cells[xy])
    assert ff.allocate((2, 2)).placement == Submesh(1, 1, 2, 2)


def test_rotation():
    ff = FirstFit(Mesh(4, 3), rotate=True)
    a = ff.allocate((3, 2))
    assert a.request == (3, 2) and a.placement == Submesh(0, 0, 3, 2)  # fits as asked: not turned
    b = ff.allocate((3, 1))  # rows 0-1 hold a at x = 0..2, so the first 3x1 base is (0, 2)
    assert b.placement == Submesh(0, 2, 3, 1)
    c = ff.allocate((2, 1))  # only column 3 is free: a 2x1 must turn into 1x2
    assert c.request == (1, 2) and c.placement == Submesh(3, 0, 1, 2)
    # a request only fitting turned is valid with rotate, and refused without
    assert FirstFit(Mesh(4, 2), rotate=True).allocate((1, 4)).placement == Submesh(0, 0, 4, 1)
    with pytest.raises(RequestSizeError):
        FirstFit(Mesh(4, 2)).allocate((1, 4))
    plain = FirstFit(Mesh(4, 3))
    plain.allocate((3, 3))
    assert plain.allocate((2, 1)) is None


def test_fold_halves_the_longer_side_tie_width():
    ff = FirstFit(Mesh(32, 32))
    assert ff.fold((4, 3)) == (2, 3)
    assert ff.fold((7, 2)) == (4, 2)
    assert ff.fold((3, 7)) == (3, 4)
    assert ff.fold((5, 5)) == (3, 5)
    assert ff.fold((1, 1)) is None
    assert FirstFit(Mesh(8, 2), rotate=True).fold((1, 8)) == (1, 4)


def test_bad_requests_and_topologies():
    ff = FirstFit(Mesh(4, 3))
    for bad in [(0, 1), (1, -2), (5, 1), (1, 4)]:
        with pytest.raises(RequestSizeError):
            ff.allocate(bad)
    for bad in [3, "3x3", (1.5, 2), (True, 1), (1, 2, 3), None]:
        with pytest.raises(RequestTypeError):
            ff.allocate(bad)
    assert ff.free == 12
    with pytest.raises(UnsupportedTopologyError):
        FirstFit(Hypercube(3))


@settings(max_examples=60, deadline=None)
@given(
    side=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    grants=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=14),
    drop=st.lists(st.booleans(), max_size=14),
    shape=st.tuples(st.integers(1, 12), st.integers(1, 12)),
)
def test_coverage_and_bitset_agree_with_brute_force(side, grants, drop, shape):
    W, H = side
    ff = FirstFit(Mesh(W, H))
    live = []
    for r, d in zip(grants, drop + [False] * len(grants), strict=False):
        if r[0] <= W and r[1] <= H:
            g = ff.allocate(r)
            if g is not None:
                live.append(g)
        if d and live:
            ff.release(live.pop(0))
    assert ff._free_bits() == ff._free_bits_from_busy()  # the incremental bitset is the busy array
    w, h = shape
    free = ~ff.busy
    bases = _free_bases(free, w, h)
    if w <= W and h <= H:
        cov = ff.coverage(w, h)
        expected = np.ones((H, W), dtype=bool)
        for x, y in bases:
            expected[y, x] = False
        assert np.array_equal(cov, expected)
    assert ff.first_free_base(w, h) == (bases[0] if bases else None)


def test_large_mesh_works():
    ff = FirstFit(Mesh(1024, 1024))
    a = ff.allocate((1000, 3))
    assert a.placement == Submesh(0, 0, 1000, 3)
    assert ff.allocate((25, 1024)) is None
    assert ff.allocate((24, 1024)).placement == Submesh(1000, 0, 24, 1024)
    assert ff.allocate((1, 1024)) is None
    assert ff.allocate((1000, 1021)).placement == Submesh(0, 3, 1000, 1021)
    assert ff.free == 0 and ff.allocate((1, 1)) is None
    ff.release(a)
    assert ff.allocate((1, 1)).placement == Submesh(0, 0, 1, 1)

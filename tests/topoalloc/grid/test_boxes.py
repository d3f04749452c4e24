"""First fit and best fit of boxes on meshes and tori of any dimension (topoalloc.grid.boxes)."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topoalloc
from topoalloc import mesh as mesh2d
from topoalloc.errors import AllocatorParameterError, UnsupportedTopologyError
from topoalloc.grid import BestFit, FirstFit
from topoalloc.testing import allocator_machine, first_box, meshes, meshes_nd, perfect_box, tori
from topologies import Box, Hypercube, Mesh, RequestSizeError, RequestTypeError, Submesh, Torus


def _permuting(cls):
    def make(topology):
        return cls(topology, permute=True)

    make.__name__ = f"{cls.__name__}Permute"
    return make


TestFirstFitMachine = allocator_machine(FirstFit, meshes_nd(max_size=48), oracle=first_box, max_examples=30).TestCase
TestFirstFitTorusMachine = allocator_machine(FirstFit, tori(min_dims=2, max_size=48), oracle=first_box,
                                             max_examples=25).TestCase
TestFirstFitPermuteMachine = allocator_machine(_permuting(FirstFit), meshes_nd(min_dims=2, max_size=48),
                                               oracle=first_box, max_examples=25).TestCase
TestBestFitMachine = allocator_machine(BestFit, meshes_nd(max_size=40), max_examples=25).TestCase
TestBestFitPermuteMachine = allocator_machine(_permuting(BestFit), tori(min_dims=2, max_size=40),
                                              max_examples=15).TestCase


@settings(max_examples=60, deadline=None)
@given(machine=meshes_nd(max_dims=3, max_size=48), data=st.data())
def test_first_fit_finds_a_box_iff_one_exists(machine, data):
    """The oracle test: on a random free mask, first fit places a request iff the brute-force search
    finds a free box of its shape (any order with permute), wrapping boxes included."""
    ff = FirstFit(machine, permute=data.draw(st.booleans(), label="permute"))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    free = rng.random(machine.size) < data.draw(st.sampled_from([0.3, 0.6, 0.9, 1.0]), label="density")
    shape = tuple(data.draw(st.integers(1, L), label="side") for L in machine.dims)
    got = ff.place_in(shape, free)
    assert (got is not None) == perfect_box(ff, free.reshape(machine.shape), shape)
    if got is not None:
        assert free[got].all() and len(got) == np.prod(shape)


def test_on_a_plain_2d_mesh_the_grants_are_those_of_the_2d_allocators():
    """The same random sequence of requests and releases on mesh.FirstFit / mesh.BestFit and on
    grid.FirstFit / grid.BestFit over a 9 x 7 mesh: the same submeshes, as boxes."""
    rng = np.random.default_rng(4)
    for two, nd in ((mesh2d.FirstFit, FirstFit), (mesh2d.BestFit, BestFit)):
        m = Mesh(9, 7)
        a, b = two(m), nd(m)
        live = []
        for _ in range(300):
            if live and rng.random() < 0.4:
                x, y = live.pop(int(rng.integers(len(live))))
                a.release(x)
                b.release(y)
                continue
            req = (int(rng.integers(1, 5)), int(rng.integers(1, 4)))
            x, y = a.allocate(req), b.allocate(req)
            assert (x is None) == (y is None)
            if x is not None:
                p = x.placement
                assert y.placement == Box((p.x, p.y), (p.width, p.height)), (x, y)
                assert np.array_equal(x.nodes, y.nodes)
                live.append((x, y))


def test_boxes_wrap_round_a_torus_and_not_round_a_mesh():
    t, m = FirstFit(Torus(5, 4)), FirstFit(Mesh(5, 4))
    for f in (t, m):
        f.allocate((2, 4))      # x = 0..1
        f.allocate((2, 4))      # x = 2..3
    assert m.allocate((2, 4)) is None                     # only column 4 is free on the mesh
    first = t.allocate((1, 4))
    assert first.placement == Box((4, 0), (1, 4))
    t.release(t.allocations[0])                           # free x = 0..1 again
    t.release(first)                                      # free x = 4: x = 4, 0, 1 is a free ring stretch
    got = t.allocate((3, 4))
    assert got.placement == Box((4, 0), (3, 4))
    assert got.nodes.tolist() == sorted(x + 5 * y for x in (4, 0, 1) for y in range(4))


def test_a_box_as_long_as_a_ring_starts_at_zero():
    ff = FirstFit(Torus(4, 3))
    ff.allocate((1, 1))                                   # (0, 0)
    a = ff.allocate((4, 2))
    assert a.placement == Box((0, 1), (4, 2))             # a full ring along x: origin x = 0 only


def test_3d_first_fit_order_and_permutation():
    """A 4 x 4 x 4 torus: first fit goes by node id (z outermost); with permute a request fits when only
    another order of its sides finds room, and the order tried first is the request's own."""
    ff = FirstFit(Torus(4, 4, 4))
    a = ff.allocate((4, 4, 3))
    assert a.placement == Box((0, 0, 0), (4, 4, 3))
    assert ff.allocate((4, 2, 2)) is None
    pf = FirstFit(Torus(4, 4, 4), permute=True)
    pf.allocate((4, 4, 3))                                # the free slab z = 3 is left
    b = pf.allocate((4, 1, 2))                            # (4, 1, 2) does not fit; its order (4, 2, 1) does
    assert b.request == (4, 2, 1) and b.placement == Box((0, 0, 3), (4, 2, 1))
    assert pf.allocate((4, 2, 2)) is None                 # no order of it has a side of 1 for z
    p2 = FirstFit(Mesh(4, 4, 2), permute=True)
    g = p2.allocate((2, 4, 4))                            # too long along z as asked: the first order that fits
    assert g.request == (4, 4, 2) and g.placement == Box((0, 0, 0), (4, 4, 2))


def test_bad_requests_name_the_value():
    ff = FirstFit(Mesh(4, 4, 4))
    with pytest.raises(RequestTypeError, match=r"\(1, 1, 1, 1\)"):
        ff.allocate((1, 1, 1, 1))                         # more dimensions than the machine
    with pytest.raises(RequestSizeError, match=r"\(2, 0, 1\)"):
        ff.allocate((2, 0, 1))
    with pytest.raises(RequestSizeError, match=r"\(2, -1, 1\)"):
        ff.allocate((2, -1, 1))
    with pytest.raises(RequestSizeError, match=r"\(5, 1, 1\)"):
        ff.allocate((5, 1))
    with pytest.raises(RequestSizeError, match=r"\(5, 2, 1\).*every order"):
        FirstFit(Mesh(4, 4, 4), permute=True).allocate((5, 2))    # no permutation fits
    with pytest.raises(RequestTypeError):
        ff.allocate(8)
    with pytest.raises(RequestTypeError):
        ff.allocate((2.5, 1, 1))


def test_parameters_and_topologies():
    with pytest.raises(UnsupportedTopologyError):
        FirstFit(Hypercube(3))
    with pytest.raises(AllocatorParameterError, match="disagree"):
        FirstFit(Torus(4, 4), permute=True, rotate=False)
    with pytest.raises(AllocatorParameterError, match="permute"):
        BestFit(Torus(4, 4), permute="yes")
    assert FirstFit(Torus(4, 4), rotate=True).permute
    assert repr(BestFit(Torus(3, 3, 3), permute=True)) == "BestFit(Torus(3, 3, 3), permute=True)"


def test_registry_dispatches_by_topology():
    assert type(topoalloc.get("FirstFit", Mesh(8, 8))) is mesh2d.FirstFit
    assert type(topoalloc.get("FirstFit", Torus(8, 8, 8))) is FirstFit
    assert type(topoalloc.get("BestFit", Torus(8, 8))) is BestFit
    assert type(topoalloc.get("BestFit", Mesh(8, 8, 2))) is BestFit
    assert topoalloc.get("FirstFit", Mesh(8, 8), permute=True).rotate
    assert topoalloc.get("FirstFit", Torus(4, 4, 4), rotate=True).permute
    with pytest.raises(UnsupportedTopologyError, match="topoalloc.grid"):
        mesh2d.FirstFit(Torus(8, 8))
    with pytest.raises(UnsupportedTopologyError):
        topoalloc.get("Buddy2D", Torus(8, 8, 8))


def test_best_fit_prefers_the_most_hemmed_in_box():
    """A hand case (the machine tests check every choice against the brute-force BestFitOracle): on
    the 4 x 3 x 2 mesh the first 2 x 2 x 2 goes to the corner (6 of its 8 face cells are outside), and
    a 1 x 1 x 1 then to (0, 2, 0): x = -1, y = 3 and z = -1 are outside, (0, 1, 0) is busy, 4 in all;
    no cell scores more, and (0, 2, 1), also 4, comes later in id order."""
    bf = BestFit(Mesh(4, 3, 2))
    assert bf.allocate((2, 2, 2)).placement == Box((0, 0, 0), (2, 2, 2))
    assert bf.score((0, 2, 0), (1, 1, 1)) == 4 and bf.score((0, 2, 1), (1, 1, 1)) == 4
    assert bf.score((3, 0, 0), (1, 1, 1)) == 3 and bf.score((1, 1, 0), (2, 2, 2)) == 2 + 2 + 4 + 4 + 4
    assert bf.allocate((1, 1, 1)).placement == Box((0, 2, 0), (1, 1, 1))


def test_fold_and_covers():
    ff = FirstFit(Mesh(8, 8, 8))
    assert ff.fold((8, 8, 8)) == (4, 8, 8) and ff.fold((3, 5, 5)) == (3, 3, 5) and ff.fold((1, 1, 1)) is None
    assert ff.covers((2, 2, 2), (2, 3, 2)) and not ff.covers((2, 3, 2), (3, 2, 2))
    pf = FirstFit(Mesh(8, 8, 8), permute=True)
    assert pf.covers((2, 3, 2), (3, 2, 2)) and not pf.covers((2, 3, 3), (4, 4, 1))


@pytest.mark.parametrize("cls", [FirstFit, BestFit])
def test_2d_submeshes_and_boxes_agree_on_the_1d_line(cls):
    """A 1D mesh (a line) takes 1-tuples and counts as a box of one side; on a ring of 5 a 3-long box
    wraps."""
    a = cls(Torus(5))
    a.allocate((2,))
    a.allocate((2,))
    got = a.allocate((1,))
    assert got.placement == Box((4,), (1,))
    a.release(a.allocations[0])
    a.release(got)
    assert a.allocate((3,)).placement == Box((4,), (3,))


def test_submesh_rows_of_the_2d_allocators_unchanged():
    assert mesh2d.FirstFit(Mesh(4, 4)).allocate((2, 2)).placement == Submesh(0, 0, 2, 2)


TestMeshFirstFitStillMachine = allocator_machine(mesh2d.FirstFit, meshes(max_side=6), max_examples=5).TestCase

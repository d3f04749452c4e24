"""The size-class allocator (Fugaku's non-contiguous / torus classes): routing, composition, the
whole allocator surface and bad parameters."""

import numpy as np
import pytest

from topoalloc.errors import AllocatorParameterError
from topoalloc.grid.boxes import FirstFit
from topoalloc.grid.mc import MC1x1
from topoalloc.grid.noncontig import Random
from topoalloc.grid.size_class import FUGAKU_THRESHOLD, SizeClass
from topoalloc.testing import allocator_machine, meshes_nd, tori
from topologies import Box, Mesh, RequestSizeError, RequestTypeError, Torus


def _size_class(threshold, small):
    def make(topology):
        return SizeClass(topology, threshold=threshold, small=small)

    make.__name__ = f"SizeClass{threshold}_{small.__name__}"
    return make


TestSizeClassTorusMachine = allocator_machine(_size_class(5, MC1x1), tori(min_dims=2, max_dims=3, max_size=40),
                                              max_examples=15, steps=30).TestCase
TestSizeClassMeshMachine = allocator_machine(_size_class(3, Random), meshes_nd(min_dims=1, max_dims=3, max_size=40),
                                             max_examples=15, steps=30).TestCase


def _is_box(nodes, topo):
    """Whether ``nodes`` are exactly some (possibly wrapping) box of the machine."""
    for origin in np.ndindex(*topo.dims[::-1]):
        origin = origin[::-1]
        for shape in np.ndindex(*topo.dims[::-1]):
            shape = tuple(s + 1 for s in shape[::-1])
            if np.prod(shape) == len(nodes) and np.array_equal(Box(origin, shape).node_ids(topo.dims), nodes):
                return True
    return False


def test_small_requests_are_non_contiguous_large_ones_are_boxes():
    """Below the threshold the small allocator's choice (here MC1x1: any free nodes, nearest first),
    from it up a box by first fit with permuted axes, both on the nodes free at the time."""
    topo = Torus(4, 4, 3)
    sc = SizeClass(topo, threshold=6, small=MC1x1)
    assert sc.route(5)[0] is sc.small and sc.route(6)[0] is sc.large
    a = sc.allocate(5)
    assert a.nodes.tolist() == MC1x1(topo).place_in(5, np.ones(48, dtype=bool)).tolist()
    b = sc.allocate((2, 3, 1))
    free = np.ones(48, dtype=bool)
    free[a.nodes] = False
    assert b.nodes.tolist() == sorted(FirstFit(topo, permute=True).place_in((2, 3, 1), free).tolist())
    assert _is_box(b.nodes, topo) and not set(a.nodes) & set(b.nodes)
    c = sc.allocate(12)  # a count for the torus class becomes the near-cube (3, 2, 2)
    assert c.request == (3, 2, 2) and len(c.nodes) == 12 and _is_box(c.nodes, topo)
    assert sc.free == 48 - 5 - 6 - 12
    sc.release(b)
    assert sc.free == 48 - 5 - 12 and not sc.busy[b.nodes].any()


def test_a_shape_that_fits_only_permuted_goes_small_as_its_count():
    """A small shape the non-contiguous allocator refuses unturned (on a 4 x 2 x 2 machine, (1, 4, 1))
    is granted as its count; a large one is placed turned by the box allocator (first fit with
    permute)."""
    sc = SizeClass(Mesh(4, 2, 2), threshold=5, small=Random)
    assert sc.validate((1, 4, 1)) == 4
    assert len(sc.allocate((1, 4, 1)).nodes) == 4
    got = sc.allocate((2, 4, 1))  # the granted request is the request; the box is placed turned
    assert got.request == (2, 4, 1) and len(got.nodes) == 8 and _is_box(got.nodes, sc.topology)


def test_a_large_request_waits_for_a_box_a_small_one_does_not():
    """Fugaku's stated direction in miniature: with 8 nodes free but scattered, a count of 4 routed to
    the non-contiguous class is placed at once, the same count routed to the torus class is not."""
    topo = Torus(4, 4, 2)
    small = SizeClass(topo, threshold=5, small=MC1x1)
    large = SizeClass(topo, threshold=1, small=MC1x1)
    free = np.zeros(32, dtype=bool)
    free[[0, 5, 10, 15, 18, 23, 24, 29]] = True  # no two free nodes adjacent along x or y in one plane
    assert small.place_in(4, free) is not None
    assert large.place_in(4, free) is None
    assert small.covers(4, 4) and small.covers(3, (2, 2, 1)) and not small.covers(6, 3)


def test_defaults_follow_fugakus_boundary():
    """The default threshold is Fugaku's (385: groups of up to 384 nodes offer noncont); the default
    classes are MC1x1 and FirstFit with permutation."""
    sc = SizeClass(Torus(8, 8, 8))
    assert FUGAKU_THRESHOLD == 385 and sc.threshold == 385
    assert isinstance(sc.small, MC1x1) and isinstance(sc.large, FirstFit) and sc.large.permute
    assert sc.route(384)[0] is sc.small and sc.route((8, 8, 7))[0] is sc.large


def test_bad_parameters_and_requests_name_the_value():
    """A threshold that is no integer >= 1, a class that is no allocator factory, a factory for another
    machine; and bad requests, refused by the class allocators with the value named."""
    topo = Torus(4, 4, 2)
    for bad in (0, -3, 2.5, "8", True):
        with pytest.raises(AllocatorParameterError, match="threshold"):
            SizeClass(topo, threshold=bad)
    with pytest.raises(AllocatorParameterError, match="small"):
        SizeClass(topo, small=MC1x1(topo))
    with pytest.raises(AllocatorParameterError, match="large"):
        SizeClass(topo, large=lambda t: FirstFit(Torus(4, 4, 4)))
    sc = SizeClass(topo, threshold=8)
    with pytest.raises(RequestSizeError, match="33"):
        sc.allocate(33)
    with pytest.raises(RequestSizeError, match="0"):
        sc.allocate(0)
    with pytest.raises(RequestTypeError, match=r"\(1, 1, 1, 1\)"):
        sc.allocate((1, 1, 1, 1))
    with pytest.raises(RequestTypeError, match="'x'"):
        sc.allocate("x")
    with pytest.raises(RequestSizeError, match=r"\(5, 1, 1\)"):
        sc.allocate((5, 1, 1))

"""Locality and contention measures on meshes of any dimension and on tori."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import locality
from topoalloc.errors import MetricNotApplicableError
from topoalloc.grid import FirstFit, Partitions
from topoalloc.grid.boxes import _box_free, box_bases
from topoalloc.testing import meshes_nd
from topologies import Box, Mesh, Torus

MACHINES = [Mesh(4, 3, 2), Torus(4, 3, 2), Torus(5, 4), Mesh(3, 4, 5, wrap=(True, False, True)), Torus(6),
            Mesh(5), Torus(3, 3, 3), Mesh(4, 4, wrap=(False, True)), Torus(4, 4, weights=(1, 2))]


def _origin_id(m, origin):
    return int(np.dot(origin, np.cumprod((1,) + m.dims[:-1])))


def _brute_largest(m, free):
    """Every box shape and base, cell by cell: the largest volume, then the lowest origin id, then the
    longest along x (then y, ...)."""
    best = (0, 0, ())
    for shape in itertools.product(*[range(1, L + 1) for L in m.dims]):
        vol = int(np.prod(shape))
        if vol < best[0]:
            continue
        for b in box_bases(m.dims, m.ring, shape):
            if _box_free(free, m.dims, b, shape):
                best = max(best, (vol, -_origin_id(m, b), shape))
                break
    return best


@pytest.mark.parametrize("m", MACHINES)
def test_largest_free_box_matches_brute_force(m):
    rng = np.random.default_rng(hash(m.dims) % 1000)
    for _ in range(25):
        free = (rng.random(m.size) < rng.choice([0.5, 0.8, 0.95, 1.0])).reshape(m.shape)
        got = locality.largest_free_box(m, free)
        want = _brute_largest(m, free)
        if got is None:
            assert want[0] == 0
        else:
            assert (got.size, -_origin_id(m, got.origin), got.shape) == want


def test_largest_free_box_golden_cases():
    """Hand cases: a busy row y = 1 on a 4 x 3 x 2 machine leaves a 4 x 1 x 2 slab on the mesh and, round
    the y ring of the torus, the 4 x 2 x 2 box y = 2, 0; on a plain 2D mesh the 2D answer as a box."""
    free = np.ones((2, 3, 4), dtype=bool)
    free[:, 1, :] = False
    assert locality.largest_free_box(Mesh(4, 3, 2), free) == Box((0, 0, 0), (4, 1, 2))
    assert locality.largest_free_box(Torus(4, 3, 2), free) == Box((0, 2, 0), (4, 2, 2))
    flat = np.ones((4, 6), dtype=bool)
    flat[1, 2] = False
    flat[3, :] = False
    assert locality.largest_free_submesh(Mesh(6, 4), flat).shape == (3, 3)
    assert locality.largest_free_box(Mesh(6, 4), flat) == Box((3, 0), (3, 3))
    assert locality.largest_free_box(Torus(3, 3, 3), np.zeros(27, dtype=bool)) is None
    with pytest.raises(MetricNotApplicableError, match="largest_free_box"):
        locality.largest_free_submesh(Torus(4, 4), np.ones(16, dtype=bool))


@settings(max_examples=50, deadline=None)
@given(m=meshes_nd(max_size=40), data=st.data())
def test_components_and_free_fragments_match_networkx(m, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    nodes = rng.choice(m.size, int(rng.integers(1, m.size + 1)), replace=False)
    g = m.to_networkx()
    assert locality.components(m, nodes) == nx.number_connected_components(g.subgraph(nodes.tolist()))
    free = np.zeros(m.size, dtype=bool)
    free[nodes] = True
    assert locality.free_fragments(m, free) == locality.components(m, nodes)


@settings(max_examples=50, deadline=None)
@given(m=meshes_nd(max_size=40), data=st.data())
def test_bbox_is_the_smallest_box_holding_the_nodes(m, data):
    """Per dimension the shortest stretch (wrapping round a ring) covering the nodes' coordinates, by
    trying every stretch."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    nodes = rng.choice(m.size, int(rng.integers(1, m.size + 1)), replace=False)
    coords = m.coords_of(nodes)
    want = []
    for i, (L, ring) in enumerate(zip(m.dims, m.ring, strict=True)):
        used = set(coords[:, i].tolist())
        starts = range(L) if ring else range(1)
        want.append(min(s for s in range(1, L + 1) for o in starts
                        if used <= {(o + k) % L if ring else o + k for k in range(s)}
                        ) if ring else max(used) - min(used) + 1)
    assert locality.bbox(m, nodes) == tuple(want)


def test_bbox_golden_cases():
    """Hand cases: the corners (0, 0), (7, 0), (0, 7) of an 8 x 8 torus fit a 2 x 2 box round the corner;
    on the mesh they need the whole 8 x 8."""
    assert locality.bbox(Torus(8, 8), [0, 7, 56]) == (2, 2)
    assert locality.bbox(Mesh(8, 8), [0, 7, 56]) == (8, 8)
    assert locality.bbox(Mesh(4, 4, 4), [0, 63]) == (4, 4, 4) and locality.bbox(Torus(4, 4, 4), [0, 63]) == (2, 2, 2)


@pytest.mark.parametrize("m", MACHINES + [Torus(8, 8, 8), Mesh(6, 6, weights=(1, 3))])
def test_box_mean_hops_is_the_mean_hops_of_the_box(m):
    rng = np.random.default_rng(1)
    for _ in range(10):
        shape = tuple(int(rng.integers(1, L + 1)) for L in m.dims)
        origin = tuple(int(rng.integers(0, L)) if r else int(rng.integers(0, L - s + 1))
                       for L, r, s in zip(m.dims, m.ring, shape, strict=True))
        nodes = Box(origin, shape).node_ids(m.dims)
        assert locality.box_mean_hops(m, shape) == pytest.approx(locality.mean_hops(m, nodes))


def test_allocation_measures_of_boxes_are_closed_form_and_match_the_general_ones():
    ff = FirstFit(Torus(5, 5, 4))
    ff.allocate((3, 2, 2))
    a = ff.allocate((4, 5, 2))
    ff.release(ff.allocations[0])
    b = ff.allocate((5, 2, 1))
    for g in (a, b):
        hops, pieces = locality.allocation_locality(ff.topology, g)
        assert pieces == 1 == locality.components(ff.topology, g.nodes)
        assert hops == pytest.approx(locality.mean_hops(ff.topology, g.nodes))
    f = locality.fragmentation(ff)
    assert isinstance(f["largest_free"], Box) and f["free"] == ff.free
    assert f["largest_free_size"] == locality.largest_free_box(ff.topology, ff.busy.ravel() == 0).size


def test_contention_on_a_torus():
    """job_links are the links link_traffic loads. On a ring of 6, 0 and 5 talk over the wrap link alone;
    4 and 1 are half way round, so each message goes the positive way (4 -> 5 -> 0 -> 1 and 1 -> 2 -> 3
    -> 4) and the pair loads every link, the wrap link with the other job."""
    t = Torus(6)
    assert locality.job_links(t, [0, 5]).astype(int).tolist() == [0, 0, 0, 0, 0, 1]
    assert locality.link_load(t, [[0, 5], [4, 1]]).tolist() == [1, 1, 1, 1, 1, 2]
    assert locality.link_load(t, [[0, 5], [4, 2]]).tolist() == [0, 0, 1, 1, 0, 1]   # 4 and 2: over 3
    assert locality.max_link_load(t, [[0, 5], [4, 1]]).tolist() == [2, 2]
    t3 = Torus(4, 4, 4)
    jobs = [Partitions(t3).place_in(8, np.ones(64, dtype=bool)), np.arange(56, 64)]
    flow = locality.flow_load(t3, jobs)
    assert flow.sum() == sum(2 * t3.hop_sum(j) for j in jobs)


def test_pattern_hops_and_compact_baseline_in_3d():
    m = Mesh(4, 4, 4)
    nodes = Box((0, 0, 0), (2, 2, 2)).node_ids(m.dims)
    assert locality.pattern_hops(m, nodes) == pytest.approx(2 * m.hop_sum(nodes))
    # nearest neighbour on the 3 x 3 virtual grid of 8 ranks: ranks r and r + 1, r + 3 on the sorted ids
    assert locality.pattern_hops(m, nodes, "nearest-neighbour") > 0
    assert locality.compact_mean_hops(Torus(4, 4, 4), 8) == pytest.approx(locality.box_mean_hops(Torus(4, 4, 4),
                                                                                                   (2, 2, 2)))

"""MM's vectorised search against the rule computed the plain way, on random free masks.

The reference below takes MM's statement (Bender, Bunde, Demaine, Fekete, Leung, Meijer & Phillips,
Algorithmica 50(2), 2008, as ``topoalloc.grid.mm.MM`` words it) literally: candidates are the grid
points whose every coordinate is held by a free node; each takes its ``n`` free nodes nearest by
(distance, id); the pairwise sums are summed pair by pair; the first candidate by id of least sum
wins. It shares no code with the allocator (no neighbour table, no cut counts), so the pieces the
allocator computes differently -- the growing row prefixes of ``NeighbourTable.nearest``, the cut
counts of ``PairSums``, the coordinate bits of the candidate test -- are each checked against it.
"""

import itertools

import numpy as np
import pytest

from topoalloc.grid.mm import MM
from topoalloc.grid.noncontig import PairSums, neighbour_table
from topologies import Mesh, Torus


def _geometry(topo):
    dims = tuple(topo.dims)
    ring = tuple(topo.ring)
    weights = tuple(topo.weights) if topo.weights else (1,) * len(dims)
    coords = np.array(list(itertools.product(*(range(L) for L in reversed(dims)))))[:, ::-1]  # id order, x first
    return dims, ring, weights, coords


def _distances(topo):
    """``(P, P)`` distances from coordinates: per dimension the displacement, the shorter way round a
    ring, times the weight (integer weights here, so exact)."""
    dims, ring, weights, coords = _geometry(topo)
    d = np.abs(coords[:, None, :] - coords[None, :, :])
    L = np.array(dims)
    d = np.where(np.array(ring), np.minimum(d, L - d), d)
    return (d * np.array(weights)).sum(axis=2)


def _reference(topo, dist, free, n):
    """MM's grant stated plainly (see the module docstring); distances are integers here."""
    coords = _geometry(topo)[3]
    ids = np.flatnonzero(free)
    held = np.ones(len(coords), dtype=bool)
    for j in range(coords.shape[1]):
        held &= np.isin(coords[:, j], coords[ids, j])
    cands = np.flatnonzero(held)
    key = dist[np.ix_(cands, ids)] * len(coords) + ids  # by distance, then the lowest id
    near = ids[np.argsort(key, axis=1)[:, :n]]
    costs = dist[near[:, :, None], near[:, None, :]].sum(axis=(1, 2)) // 2
    return np.sort(near[np.flatnonzero(costs == costs.min())[0]])  # the first candidate of least cost


def _masks(P, rng, count):
    """Free masks of every density, uniform and clustered (clusters leave rows whose free nodes are
    far, so the searches need longer prefixes), some mirror-symmetric (ties between candidates)."""
    for i in range(count):
        kind = i % 4
        if kind == 0:
            free = rng.random(P) < rng.uniform(0.03, 1.0)
        elif kind == 1:  # a few blobs of consecutive ids
            free = np.zeros(P, dtype=bool)
            for _ in range(int(rng.integers(1, 4))):
                lo = int(rng.integers(P))
                free[lo: lo + int(rng.integers(1, max(2, P // 6)))] = True
        elif kind == 2:  # symmetric under reversing the ids (a point reflection of the grid)
            half = rng.random(P) < rng.uniform(0.1, 0.7)
            free = half | half[::-1]
        else:
            free = np.ones(P, dtype=bool)
            free[rng.choice(P, int(rng.integers(0, P // 4 + 1)), replace=False)] = False
        if free.any():
            yield free


TOPOLOGIES = {
    "mesh2d": Mesh(7, 6),
    "mesh3d": Mesh(5, 4, 3),
    "torus2d": Torus(6, 5),
    "torus3d": Torus(4, 4, 4),
    "torus8": Torus(8, 8, 8),
    "mixed-wrap": Mesh(6, 5, 4, wrap=(True, False, True)),
    "weighted": Torus(5, 4, 3, weights=(1, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(TOPOLOGIES))
def test_mm_equals_the_rule_on_random_free_masks(name):
    """On random free masks of 2D and 3D meshes and tori (uniform, clustered, symmetric, nearly full;
    odd and even rings, a weighted torus), ``place_in`` for ``n`` of 1, every free node (up to 64), the
    field-width boundaries 15/16 and 31/32, and a random size up to 48 equals the plain reference,
    ties included."""
    topo = TOPOLOGIES[name]
    mm, dist, P = MM(topo), _distances(topo), topo.size
    rng = np.random.default_rng(sum(map(ord, name)))
    count = 12 if P > 300 else 30
    for free in _masks(P, rng, count):
        nfree = int(free.sum())
        sizes = {1, min(nfree, 15), min(nfree, 16), min(nfree, 31), min(nfree, 32),
                 int(rng.integers(1, min(nfree, 48) + 1))}
        if nfree <= 64:
            sizes.add(nfree)
        for n in sorted(sizes):
            got = mm.place_in(n, free)
            assert got.tolist() == _reference(topo, dist, free, n).tolist(), (name, np.flatnonzero(free).tolist(), n)


def test_ties_go_to_the_first_candidate_and_the_lowest_ids():
    """A free 4x4x4 torus looks the same from every node, so every candidate costs the same and the
    first, node 0, wins; its 7 nearest are itself and its six neighbours (ids 1, 3 along x, 4, 12
    along y, 16, 48 along z; worked by hand). For 8 nodes the eighth comes from the 18 nodes at
    distance 2, the lowest id of which is 2."""
    mm = MM(Torus(4, 4, 4))
    assert mm.place_in(7, np.ones(64, dtype=bool)).tolist() == [0, 1, 3, 4, 12, 16, 48]
    assert mm.place_in(8, np.ones(64, dtype=bool)).tolist() == [0, 1, 2, 3, 4, 12, 16, 48]
    centres, costs = mm.candidate_costs(7, np.ones(64, dtype=bool))
    assert len(centres) == 64 and (costs == costs[0]).all()


@pytest.mark.parametrize("dims, ring, weights", [
    ((8, 8, 8), (True, True, True), None), ((7, 6), (False, False), None), ((5, 4, 3), (True, True, True), None),
    ((6, 5, 4), (True, False, True), (1.0, 2.0, 3.0)), ((33, 3), (False, True), None), ((9,), (True,), (0.5,)),
])
def test_pair_sums_by_cuts_equal_the_sums_pair_by_pair(dims, ring, weights):
    """``PairSums`` (cut counts in packed fields) against the sum of distances over every pair, for
    set sizes at the field-width boundaries (1, 2, 3, 4, 7, 8, 31, 32, 63, 64: one field too many and
    the counts would carry into the next) and machines whose cuts take one word or several (a 33 x 3
    mesh with a ring of 3 has 35 cuts), odd and even rings, weights."""
    topo = Mesh(*dims, wrap=ring, weights=weights) if weights else Mesh(*dims, wrap=ring)
    dist = _distances(topo).astype(float)
    P = topo.size
    ps = PairSums(dims, ring, weights)
    rng = np.random.default_rng(P)
    for n in (1, 2, 3, 4, 7, 8, 31, 32, 63, 64):
        if n > P:
            continue
        sets = np.array([rng.choice(P, n, replace=False) for _ in range(20)])
        sets[0] = np.arange(n)  # a run of ids: many nodes on one side of many cuts
        want = np.array([dist[np.ix_(s, s)].sum() / 2 for s in sets])
        assert ps(sets).tolist() == want.tolist(), n
        assert ps.of_columns(np.ascontiguousarray(sets.T)).tolist() == want.tolist(), n


@pytest.mark.parametrize("metric", ["l1", "linf"])
def test_nearest_is_the_first_free_entries_of_each_row(metric):
    """``NeighbourTable.nearest``, both layouts, on every row and on subsets of rows, equals the first
    ``n`` free entries of each full row -- for sparse and clustered masks whose far rows need the
    prefix doubled once or more (and masks with no free node in any first prefix of a subset)."""
    dims, ring = (8, 8, 8), (True, True, True)
    table = neighbour_table(dims, ring, None, metric)
    P = table.size
    rng = np.random.default_rng(7)
    for free in _masks(P, rng, 20):
        nfree = int(free.sum())
        in_order = np.take_along_axis(table.rows, np.argsort(~free[table.rows], axis=1, kind="stable"), axis=1)
        for n in {1, min(nfree, 5), min(nfree, 32), nfree}:
            want = in_order[:, :n]  # each row's free entries first, in row order
            assert table.nearest(None, free, n).tolist() == want.tolist()
            assert table.nearest(None, free, n, columns=True).tolist() == want.T.tolist()
            centres = np.sort(rng.choice(P, 37, replace=False))
            assert table.nearest(centres, free, n, nfree, columns=True).tolist() == want[centres].T.tolist()
    free = np.zeros(P, dtype=bool)
    free[[0, 1]] = True  # the far side of the torus has neither in its first prefixes
    far = np.array([7 * 73, 4 + 4 * 8 + 4 * 64])
    assert table.nearest(far, free, 2).tolist() == [row[free[row]][:2].tolist() for row in table.rows[far]]


def test_table_and_prefixes_are_read_only():
    """The shared table and its prefixes stay read-only for callers (the private copies the searches
    index with are writeable, since ``ndarray.take`` would copy a read-only index array each time)."""
    table = neighbour_table((4, 4, 4), (True, True, True), None, "l1")
    assert not table.rows.flags.writeable and not table.prefix(20).flags.writeable
    with pytest.raises(ValueError):
        table.rows[0, 0] = 1
    assert table.prefix(20).shape == (64, 23) and table.prefix(20).tolist() == table.rows[:, :23].tolist()

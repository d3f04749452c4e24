"""Tori: wrap-around distances, the routing tie rule, wrap links, traffic and the compact baseline."""

import itertools

import numpy as np
import pytest

from topologies import Mesh, Torus


def test_a_torus_is_a_mesh_whose_every_dimension_wraps():
    t = Torus(8, 8, 8)
    assert isinstance(t, Mesh) and isinstance(Mesh(8, 8, 8, wrap=True), Torus)
    assert type(Mesh(8, 8, wrap=(True, True))) is Torus and type(Mesh(8, 8, wrap=(True, False))) is Mesh
    assert Torus(4, 4) == Mesh(4, 4, wrap=True) and hash(Torus(4, 4)) == hash(Mesh(4, 4, wrap=True))
    assert t.wrap == (True, True, True) and t.ring == (True, True, True)
    assert repr(t) == "Torus(8, 8, 8)" and repr(Torus(4, weights=(2,))) == "Torus(4, weights=(2,))"
    assert repr(Mesh(4, 4, wrap=(False, True))) == "Mesh(4, 4, wrap=(False, True))"


def test_distances_take_the_shorter_way_round():
    """Hand counts on an 8 x 8 x 8 torus: (0,0,0) to (7,4,1) is 1 + 4 + 1 hops; on the mesh 7 + 4 + 1."""
    t, m = Torus(8, 8, 8), Mesh(8, 8, 8)
    far = t.node_id(7, 4, 1)
    assert t.distance(0, far) == 6 and m.distance(0, far) == 12
    assert t.distances([0, 0], [far, t.node_id(4, 4, 4)]).tolist() == [6, 12]
    assert Torus(8, 8, weights=(1, 3)).distance(0, Torus(8, 8).node_id(7, 7)) == 1 + 3


def test_small_wrapped_sides_add_no_link():
    """A wrapped side of 2 is one link (the wrap link would double it), of 1 none: they count as lines."""
    t = Torus(2, 3)
    assert t.ring == (False, True) and t.wrap == (True, True)
    assert t.n_links == 3 * 1 + 2 * 3 and Torus(1, 5).n_links == 5
    assert Torus(2, 2).links().tolist() == Mesh(2, 2).links().tolist()


def test_link_numbering_puts_the_wrap_link_last_in_its_line():
    """Torus(3, 2): x links per row 0-1, 1-2, 2-0 (ids y * 3 + x); y is a 2-line: one link per column."""
    assert Torus(3, 2).links().tolist() == [[0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5], [0, 3], [1, 4], [2, 5]]
    assert Torus(4, 4, 4).n_links == 3 * 64


def test_routes_go_the_shorter_way_and_the_positive_way_on_a_tie():
    t = Torus(6)
    assert t.route(1, 5).tolist() == [0, 5]             # 1 -> 0 -> 5: two hops back through the wrap link
    assert t.route(5, 1).tolist() == [5, 0]             # 5 -> 0 -> 1: two hops forward
    assert t.route(0, 3).tolist() == [0, 1, 2]          # half way round: the positive way
    assert t.route(3, 0).tolist() == [3, 4, 5]          # also the positive way: 3 -> 4 -> 5 -> 0
    t2 = Torus(4, 4)
    a, b = t2.node_id(3, 1), t2.node_id(0, 3)
    # x first: 3 -> 0 through the wrap link (x link 3 of row 1), then y 1 -> 3 half way: positive, 1 -> 2 -> 3
    assert t2.route(a, b).tolist() == [1 * 4 + 3, 16 + 1 * 4 + 0, 16 + 2 * 4 + 0]


def test_ring_traffic_counts_both_directions_and_the_tie():
    """A ring of 4 fully used: 8 one-hop messages (one link each) and 4 half-way messages (two links each,
    the positive way): 16 link crossings, 4 per link by symmetry. A ring of 5: no ties."""
    assert Torus(4).link_traffic([0, 1, 2, 3]).tolist() == [4, 4, 4, 4]
    assert Torus(5).link_traffic(range(5)).tolist() == [6, 6, 6, 6, 6]
    assert Torus(4).link_traffic([0, 2]).tolist() == [1, 1, 1, 1]   # 0 -> 2 over links 0, 1; 2 -> 0 over 2, 3


def _exhaustive_least(t, n):
    """The least hop sum of n nodes on a torus, by every n-set holding node 0 (tori are vertex-transitive)."""
    size = t.size
    D = t.distances(np.repeat(np.arange(size), size), np.tile(np.arange(size), size)).reshape(size, size)
    rest = np.array(list(itertools.combinations(range(1, size), n - 1)))
    combos = np.hstack([np.zeros((len(rest), 1), dtype=int), rest])
    total = np.zeros(len(combos))
    for i, j in itertools.combinations(range(n), 2):
        total += D[combos[:, i], combos[:, j]]
    return total.min()


@pytest.mark.parametrize("t", [Torus(4, 4, 4), Torus(3, 3, 3), Torus(5, 5), Torus(4, 4, 4, weights=(1, 1, 2)),
                               Torus(3, 4, 5)])
def test_compact_nodes_on_tori_is_optimal_for_small_counts(t):
    """Against the exhaustive optimum for n <= 5 (n <= 6 on the 27-node torus); a full ring of 5 (15
    hops: 5 nodes x (1 + 1 + 2 + 2) / 2) beats any 5 cells of a plane (16)."""
    for n in range(2, 7 if t.size <= 27 else 6):
        assert t.hop_sum(t.compact_nodes(n)) == pytest.approx(_exhaustive_least(t, n))
    if t == Torus(5, 5):
        assert t.hop_sum(t.compact_nodes(5)) == 15


def test_a_torus_is_more_compact_than_a_mesh_once_rings_close():
    t, m = Torus(4, 4, 4), Mesh(4, 4, 4)
    assert t.hop_sum(t.compact_nodes(64)) < m.hop_sum(m.compact_nodes(64))
    assert t.hop_sum(t.compact_nodes(16)) <= m.hop_sum(m.compact_nodes(16))


def test_networkx_distances_are_the_torus_distances():
    import networkx as nx

    t = Torus(4, 3, 5)
    lengths = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    u, v = np.triu_indices(t.size, 1)
    assert t.distances(u, v).tolist() == [lengths[a][b] for a, b in zip(u.tolist(), v.tolist(), strict=True)]


def test_compact_nodes_on_a_large_torus_are_pinned():
    """The exchange search of ``compact_nd`` keeps its per-axis distance sums incrementally; its
    outputs must stay those of the recount it replaced. Golden digest: the sha256 of the int64 node
    ids for these counts on a 16x16x16 torus, computed with the recounting code (commit ca0b98f)."""
    import hashlib

    from topologies.grid import compact_nd

    outs = [np.asarray(compact_nd(n, (16, 16, 16), (True, True, True), None), dtype=np.int64)
            for n in (1, 8, 27, 64, 100, 300, 1000, 2000)]
    assert [len(o) for o in outs] == [1, 8, 27, 64, 100, 300, 1000, 2000]
    digest = hashlib.sha256(b"".join(o.tobytes() for o in outs)).hexdigest()
    assert digest == "8325587c87032d6c851a6dea05ebf7e27f7907011b0d48593d710a33d602d156"

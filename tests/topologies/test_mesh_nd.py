"""Meshes of any dimension: ids, distances, hop sums, links, routes, traffic, requests, the compact baseline."""

import itertools
import math
import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topologies import Mesh, Network, RequestSizeError, RequestTypeError, TopologyError, Torus
from topologies.grid import ceil_root, request_for_nd


@st.composite
def small_meshes(draw, max_size=36, weights=False):
    nd = draw(st.integers(1, 3))
    dims = []
    for _ in range(nd):
        room = max(1, max_size // max(1, math.prod(dims)))
        dims.append(draw(st.integers(1, min(6, room))))
    wrap = tuple(draw(st.booleans()) for _ in range(nd))
    w = tuple(draw(st.sampled_from([1, 2, 0.5])) for _ in range(nd)) if weights and draw(st.booleans()) else None
    return Mesh(*dims, wrap=wrap, weights=w)


def _brute_distance(m, a, b):
    ca, cb = m.coords(a), m.coords(b)
    total = 0
    for i, L in enumerate(m.dims):
        d = abs(ca[i] - cb[i])
        if m.wrap[i]:
            d = min(d, L - d)
        total += d * (m.weights[i] if m.weights else 1)
    return total


def test_ids_are_row_major_with_x_fastest():
    m = Mesh(4, 3, 2)
    assert m.dims == (4, 3, 2) and m.ndim == 3 and m.size == 24 and m.shape == (2, 3, 4)
    assert m.wrap == (False, False, False) and m.ring == (False, False, False) and m.weights is None
    assert m.node_id(1, 2, 1) == 1 + 4 * (2 + 3 * 1) == 21 and m.coords(21) == (1, 2, 1)
    grid = np.arange(24).reshape(m.shape)
    assert grid[1, 2, 1] == 21  # numpy order: last dimension first
    assert m.ids_of(m.coords_of(np.arange(24))).tolist() == list(range(24))
    with pytest.raises(ValueError, match=r"\(4, 0, 0\)"):
        m.ids_of([[4, 0, 0]])
    with pytest.raises(ValueError, match="24"):
        m.coords_of([24])
    with pytest.raises(ValueError):
        m.node_id(1, 2)


def test_the_2d_mesh_keeps_its_attributes_and_repr():
    m = Mesh(5, 3)
    assert (m.width, m.height, m.shape, m.dims) == (5, 3, (3, 5), (5, 3))
    assert repr(m) == "Mesh(width=5, height=3)" and Mesh(width=5, height=3) == m
    assert Mesh(7).width == 7 and Mesh(7).height == 1
    with pytest.raises(TopologyError, match="use dims"):
        _ = Mesh(2, 2, 2).width


def test_constructor_errors_name_the_value():
    with pytest.raises(TopologyError, match="side 1"):
        Mesh(2, 0, 2)
    with pytest.raises(TopologyError, match="Mesh height"):
        Mesh(2, -1)
    with pytest.raises(TopologyError, match=r"3 flags.*\(True, False\)"):
        Mesh(2, 2, 2, wrap=(True, False))
    with pytest.raises(TopologyError, match="'yes'"):
        Mesh(2, 2, wrap="yes")
    with pytest.raises(TopologyError, match=r"weights.*\(1, 0\)"):
        Mesh(2, 2, weights=(1, 0))
    with pytest.raises(TopologyError, match="2 numbers"):
        Mesh(2, 2, weights=(1, 2, 3))
    with pytest.raises(TopologyError, match="at least one side"):
        Mesh()
    with pytest.raises(TopologyError, match="every dimension"):
        Torus(4, 4, wrap=(True, False))


def test_value_semantics():
    a, b = Mesh(3, 4, 5, wrap=(True, False, True)), Mesh(3, 4, 5, wrap=(True, False, True))
    assert a == b and hash(a) == hash(b) and a != Mesh(3, 4, 5) and Mesh(3, 4) != Mesh(4, 3)
    assert {a: 1}[b] == 1
    for m in (a, Mesh(4, 4), Torus(3, 3, 3, weights=(1, 2, 0.5))):
        again = pickle.loads(pickle.dumps(m))
        assert again == m and type(again) is type(m)
    with pytest.raises(AttributeError):
        a.dims = (1,)
    assert isinstance(a, Network)


@settings(max_examples=60, deadline=None)
@given(m=small_meshes(weights=True), data=st.data())
def test_distances_and_hop_sums_match_brute_force(m, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    k = int(rng.integers(1, m.size + 1))
    nodes = rng.choice(m.size, k, replace=False)
    pairs = list(itertools.combinations(nodes.tolist(), 2))
    want = sum(_brute_distance(m, a, b) for a, b in pairs)
    assert m.hop_sum(nodes) == pytest.approx(want)
    if pairs:
        u, v = np.array(pairs).T
        assert np.allclose(m.distances(u, v), [_brute_distance(m, a, b) for a, b in pairs])
        assert m.distance(int(u[0]), int(v[0])) == pytest.approx(_brute_distance(m, int(u[0]), int(v[0])))


@settings(max_examples=60, deadline=None)
@given(m=small_meshes(), data=st.data())
def test_links_routes_and_traffic_match_brute_force(m, data):
    """links() is the networkx graph's edge set; each route walks links from a to b dimension by
    dimension in distance(a, b) hops; link_traffic is the count of the routes of every ordered pair."""
    links = m.links()
    assert links.shape == (m.n_links, 2) and np.all(links[:, 0] < links[:, 1])
    assert len({tuple(e) for e in links.tolist()}) == m.n_links
    g = m.to_networkx()
    assert sorted(map(tuple, links.tolist())) == sorted(tuple(sorted(e)) for e in g.edges)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    nodes = rng.choice(m.size, int(rng.integers(1, min(m.size, 12) + 1)), replace=False).tolist()
    want = np.zeros(m.n_links, dtype=np.int64)
    lengths = dict(nx.all_pairs_shortest_path_length(g)) if m.size <= 36 else None
    for a, b in itertools.permutations(nodes, 2):
        route = m.route(a, b)
        assert len(route) == m.distance(a, b) == lengths[a][b]
        cur, moved = a, []
        for lid in route.tolist():
            u, v = links[lid]
            assert cur in (u, v)
            nxt = v if cur == u else u
            moved.append(next(i for i in range(m.ndim) if m.coords(cur)[i] != m.coords(nxt)[i]))
            cur = nxt
        assert cur == b and moved == sorted(moved)  # dimension ordered: x first, then y, ...
        np.add.at(want, route, 1)
    assert np.array_equal(m.link_traffic(nodes), want)
    assert m.link_traffic(nodes).sum() == 2 * m.hop_sum(nodes)


def test_hop_sum_counts_and_sorted_paths_agree():
    """hop_sum takes the counts path when the nodes are many next to the sides, the sorted path
    otherwise; both against the pairwise sum on a 3D torus and mesh."""
    rng = np.random.default_rng(3)
    for m in (Torus(9, 7, 5), Mesh(9, 7, 5), Mesh(40, 3, wrap=(True, False))):
        for k in (2, 5, 30, m.size):
            nodes = rng.choice(m.size, k, replace=False)
            u, v = np.triu_indices(k, 1)
            assert m.hop_sum(nodes) == m.distances(nodes[u], nodes[v]).sum()


def test_requests_are_shapes_padded_with_ones():
    m = Mesh(8, 4, 2)
    assert m.validate_request((3,)) == (3, 1, 1) and m.validate_request([2, 4]) == (2, 4, 1)
    assert m.validate_request(np.array([8, 4, 2])) == (8, 4, 2)
    assert m.request_size((2, 3, 2)) == 12
    assert m.validate_request((2, 2, 8), rotate=True) == (2, 2, 8)
    with pytest.raises(RequestTypeError, match=r"\(1, 1, 1, 1\) with 4"):
        m.validate_request((1, 1, 1, 1))
    with pytest.raises(RequestTypeError):
        m.validate_request(())
    with pytest.raises(RequestTypeError):
        m.validate_request(6)
    with pytest.raises(RequestTypeError):
        m.validate_request("2x2")
    with pytest.raises(RequestSizeError, match=r"\(2, 0\)"):
        m.validate_request((2, 0))
    with pytest.raises(RequestSizeError, match=r"\(2, 2, 8\) is larger"):
        m.validate_request((2, 2, 8))
    with pytest.raises(RequestSizeError, match="every order"):
        m.validate_request((5, 5, 1), rotate=True)
    with pytest.raises(RequestTypeError, match="pair"):
        Mesh(6, 6).validate_request((4,))             # a 2D mesh keeps its (width, height) pairs
    assert Torus(6, 6, 6).validate_request((4,)) == (4, 1, 1) and Mesh(6).validate_request((4,)) == (4,)


def test_request_for_is_the_near_cube_and_the_2d_rule_in_2d():
    for dims in [(32, 32), (24, 5), (3, 40), (1, 7)]:
        m = Mesh(*dims)
        for n in range(1, m.size + 1):
            assert request_for_nd(n, dims) == m.request_for(n)
    for dims in [(8, 8, 8), (16, 4, 2), (3, 5, 7), (2, 2, 2, 2)]:
        m = Mesh(*dims)
        for n in range(1, m.size + 1):
            r = m.request_for(n)
            assert math.prod(r) >= n and all(s <= L for s, L in zip(r, dims, strict=True))
    assert Mesh(8, 8, 8).request_for(64) == (4, 4, 4) and Mesh(8, 8, 8).request_for(100) == (5, 5, 4)
    with pytest.raises(RequestSizeError, match="513"):
        Mesh(8, 8, 8).request_for(513)
    assert [ceil_root(n, 3) for n in (1, 8, 9, 27, 28)] == [1, 2, 3, 3, 4]


def _brute_least_hops(m, n):
    size = m.size
    D = m.distances(np.repeat(np.arange(size), size), np.tile(np.arange(size), size)).reshape(size, size)
    combos = np.array(list(itertools.combinations(range(size), n)))
    total = np.zeros(len(combos))
    for i, j in itertools.combinations(range(n), 2):
        total += D[combos[:, i], combos[:, j]]
    return total.min()


@pytest.mark.parametrize("m", [Mesh(3, 3, 3), Mesh(3, 3, 3, weights=(1, 2, 3)), Mesh(5, 5, weights=(1, 3)),
                               Mesh(6, 2, 2)])
def test_compact_nodes_is_optimal_for_small_counts(m):
    """Against every n-subset (the exhaustive optimum) for n <= 6 (n <= 5 beyond 27 nodes)."""
    for n in range(1, 6 if m.size > 27 else 7):
        nodes = m.compact_nodes(n)
        assert len(np.unique(nodes)) == n and np.all(np.diff(nodes) > 0)
        assert m.hop_sum(nodes) == pytest.approx(_brute_least_hops(m, n)) if n > 1 else True


def test_compact_nodes_beats_the_near_cube_and_is_cached():
    m = Mesh(8, 8, 8)
    for n in (7, 20, 50, 100):
        box = m.request_for(n)
        i = np.arange(n)
        cube = (i % box[0]) + 8 * ((i // box[0]) % box[1]) + 64 * (i // (box[0] * box[1]))
        assert m.hop_sum(m.compact_nodes(n)) <= m.hop_sum(cube)
    first = m.compact_nodes(20)
    first[:] = 0
    assert len(np.unique(m.compact_nodes(20))) == 20
    with pytest.raises(RequestSizeError):
        m.compact_nodes(513)
    with pytest.raises(RequestTypeError):
        m.compact_nodes(2.0)


def test_networkx_weights():
    g = Mesh(3, 2, weights=(1, 5)).to_networkx()
    assert g[0][1]["weight"] == 1 and g[0][3]["weight"] == 5
    assert nx.shortest_path_length(g, 0, 5, weight="weight") == Mesh(3, 2, weights=(1, 5)).distance(0, 5) == 7

"""topoalloc.locality against brute force: pairwise distances, networkx components, an explicit
pairwise router for XY and e-cube routing, and exhaustive searches of free submeshes and subcubes."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import FirstFit, MetricNotApplicableError, NodeSetError, locality
from topologies import Flat, Hypercube, Mesh, Network, RequestSizeError, RequestTypeError, Submesh


@st.composite
def node_sets(draw, max_side=7, max_dim=5, min_size=1):
    if draw(st.booleans()):
        topo = Mesh(draw(st.integers(1, max_side)), draw(st.integers(1, max_side)))
    else:
        topo = Hypercube(draw(st.integers(0, max_dim)))
    nodes = draw(st.lists(st.integers(0, topo.size - 1), min_size=min(min_size, topo.size), unique=True,
                          max_size=topo.size))
    return topo, np.array(nodes, dtype=np.int64)


@st.composite
def free_masks(draw, kind):
    if kind == "mesh":
        topo = Mesh(draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    else:
        topo = Hypercube(draw(st.integers(0, 5)))
    bits = draw(st.lists(st.booleans(), min_size=topo.size, max_size=topo.size))
    return topo, np.array(bits, dtype=bool)


# -- per job ------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(node_sets())
def test_mean_hops_is_the_average_pairwise_distance(case):
    topo, nodes = case
    pairs = list(itertools.combinations(nodes.tolist(), 2))
    want = np.mean([topo.distance(a, b) for a, b in pairs]) if pairs else 0.0
    assert locality.mean_hops(topo, nodes) == pytest.approx(want)
    assert locality.mean_hops(topo, nodes[::-1]) == pytest.approx(want)  # any order


@pytest.mark.parametrize("w,h", [(1, 1), (1, 5), (3, 2), (4, 4), (7, 3)])
def test_a_contiguous_submesh_has_one_piece_and_the_closed_form_mean_hops(w, h):
    mesh = Mesh(8, 8)
    nodes = Submesh(1, 2, w, h).node_ids(8)
    n = w * h
    want = 0.0 if n == 1 else (h * (w * w - 1) + w * (h * h - 1)) / (3 * (n - 1))
    assert locality.mean_hops(mesh, nodes) == pytest.approx(want)
    assert locality.components(mesh, nodes) == 1
    assert locality.bbox(mesh, nodes) == (w, h)


@pytest.mark.parametrize("k", range(0, 6))
def test_a_subcube_has_one_piece_and_the_closed_form_mean_hops(k):
    cube = Hypercube(6)
    nodes = np.arange(1 << k) << 1  # free dimensions 1..k: a non-buddy subcube
    want = 0.0 if k == 0 else k * 2 ** (k - 1) / (2**k - 1)
    assert locality.mean_hops(cube, nodes) == pytest.approx(want)
    assert locality.components(cube, nodes) == 1


@settings(max_examples=150, deadline=None)
@given(node_sets())
def test_components_match_networkx(case):
    topo, nodes = case
    g = topo.to_networkx().subgraph(nodes.tolist())
    assert locality.components(topo, nodes) == nx.number_connected_components(g)


@settings(max_examples=60, deadline=None)
@given(node_sets(max_dim=0))
def test_bbox_is_the_smallest_enclosing_submesh(case):
    topo, nodes = case
    if not isinstance(topo, Mesh):
        return
    xs = [topo.coords(v)[0] for v in nodes.tolist()]
    ys = [topo.coords(v)[1] for v in nodes.tolist()]
    assert locality.bbox(topo, nodes) == (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


@pytest.mark.parametrize("topo", [Mesh(6, 6), Mesh(9, 4), Hypercube(5)])
def test_the_compact_placement_is_at_least_as_close_as_any_submesh_or_subcube_of_its_size(topo):
    for n in range(1, topo.size + 1):
        compact = locality.compact_nodes(topo, n)
        assert len(compact) == n and len(set(compact.tolist())) == n
        best = locality.compact_mean_hops(topo, n)
        if isinstance(topo, Mesh):
            for w in range(1, topo.width + 1):
                if n % w == 0 and n // w <= topo.height:
                    assert best <= locality.mean_hops(topo, Submesh(0, 0, w, n // w).node_ids(topo.width)) + 1e-12
        rng = np.random.default_rng(n)
        other = rng.choice(topo.size, n, replace=False)
        assert best <= locality.mean_hops(topo, other) + 1e-12


def _neighbour_pairs(n):
    cols = int(np.ceil(np.sqrt(n)))
    out = []
    for r in range(n):
        for s in (r + 1, r + cols):
            if s < n and (s == r + cols or r % cols != cols - 1):
                out.append((r, s))
    return out


@settings(max_examples=80, deadline=None)
@given(node_sets())
def test_pattern_hops_by_brute_force(case):
    topo, nodes = case
    srt = sorted(nodes.tolist())
    n = len(srt)
    all_pairs = sum(topo.distance(a, b) for a in srt for b in srt if a != b)
    assert locality.pattern_hops(topo, nodes, "all-to-all") == pytest.approx(all_pairs)
    nn = 2 * sum(topo.distance(srt[r], srt[s]) for r, s in _neighbour_pairs(n))
    assert locality.pattern_hops(topo, nodes, "nearest-neighbour") == pytest.approx(nn)


# -- routing and contention ---------------------------------------------------------------------
def _route(topo, s, d):
    """The links of the dimension-ordered route s -> d, as sorted node pairs."""
    out = []
    if isinstance(topo, Mesh):
        W = topo.width
        (xs, ys), (xd, yd) = topo.coords(s), topo.coords(d)
        step = 1 if xd > xs else -1
        for x in range(xs, xd, step):
            a, b = ys * W + x, ys * W + x + step
            out.append((min(a, b), max(a, b)))
        step = 1 if yd > ys else -1
        for y in range(ys, yd, step):
            a, b = y * W + xd, (y + step) * W + xd
            out.append((min(a, b), max(a, b)))
    else:
        cur = s
        for i in range(topo.dim):
            if (cur ^ d) >> i & 1:
                nxt = cur ^ (1 << i)
                out.append((min(cur, nxt), max(cur, nxt)))
                cur = nxt
    return out


@settings(max_examples=120, deadline=None)
@given(node_sets())
def test_job_links_match_an_explicit_router(case):
    topo, nodes = case
    index = {tuple(p): i for i, p in enumerate(locality.links(topo).tolist())}
    want = np.zeros(len(index), dtype=bool)
    for s in nodes.tolist():
        for d in nodes.tolist():
            if s != d:
                for link in _route(topo, s, d):
                    want[index[link]] = True
    assert np.array_equal(locality.job_links(topo, nodes), want)


def test_links_are_the_machine_graph_edges():
    for topo in (Mesh(5, 3), Mesh(1, 4), Mesh(4, 1), Hypercube(4), Hypercube(0)):
        got = {tuple(p) for p in locality.links(topo).tolist()}
        want = {tuple(sorted(e)) for e in topo.to_networkx().edges}
        assert got == want and len(got) == len(locality.links(topo))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_link_load_counts_jobs_per_link(data):
    topo, a = data.draw(node_sets(min_size=1))
    b = np.array(data.draw(st.lists(st.integers(0, topo.size - 1), min_size=1, unique=True, max_size=topo.size)))
    jobs = [a, b]  # may overlap: the measure counts node sets, not a valid allocation
    masks = [locality.job_links(topo, j) for j in jobs]
    load = locality.link_load(topo, jobs)
    assert np.array_equal(load, masks[0].astype(int) + masks[1])
    peak = locality.max_link_load(topo, jobs)
    for m, p in zip(masks, peak, strict=True):
        assert p == (load[m].max() if m.any() else 0)


def test_non_contiguous_jobs_share_links_and_contiguous_ones_do_not():
    mesh = Mesh(4, 4)
    left, right = Submesh(0, 0, 2, 4).node_ids(4), Submesh(2, 0, 2, 4).node_ids(4)
    assert locality.max_link_load(mesh, [left, right]).tolist() == [1, 1]
    interleaved = [np.arange(0, 16, 2), np.arange(1, 16, 2)]  # checkerboard columns
    assert locality.max_link_load(mesh, interleaved).tolist() == [2, 2]


# -- the machine's free space --------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(free_masks("mesh"))
def test_largest_free_submesh_by_exhaustive_search(case):
    topo, free = case
    grid = free.reshape(topo.height, topo.width)
    best = 0
    for x0, x1 in itertools.combinations_with_replacement(range(topo.width), 2):
        for y0, y1 in itertools.combinations_with_replacement(range(topo.height), 2):
            if grid[y0:y1 + 1, x0:x1 + 1].all():
                best = max(best, (x1 - x0 + 1) * (y1 - y0 + 1))
    got = locality.largest_free_submesh(topo, free)
    if best == 0:
        assert got is None
    else:
        assert got.size == best and grid[got.y:got.y_end, got.x:got.x_end].all()  # really free, there


@settings(max_examples=120, deadline=None)
@given(free_masks("cube"))
def test_largest_free_subcube_by_exhaustive_search(case):
    topo, free = case
    best = -1
    for mask in range(1 << topo.dim):
        k = mask.bit_count()
        if k <= best:
            continue
        for base in range(1 << topo.dim):
            if base & mask:
                continue
            members = [base | sub for sub in range(1 << topo.dim) if sub & ~mask == 0]
            if free[members].all():
                best = k
                break
    got = locality.largest_free_subcube(topo, free)
    assert (got is None) if best < 0 else (got.dim == best and free[got.node_ids()].all())


@settings(max_examples=60, deadline=None)
@given(st.one_of(free_masks("mesh"), free_masks("cube")))
def test_free_fragments_match_networkx(case):
    topo, free = case
    g = topo.to_networkx().subgraph(np.flatnonzero(free).tolist())
    assert locality.free_fragments(topo, free) == nx.number_connected_components(g)


def test_fragmentation_of_an_allocator():
    ff = FirstFit(Mesh(8, 8))
    ff.allocate((8, 3))
    ff.allocate((2, 2))
    got = locality.fragmentation(ff)
    assert got["free"] == 64 - 24 - 4
    assert got["largest_free"] == Submesh(2, 3, 6, 5) and got["largest_free_size"] == 30
    assert got["fragments"] == 1


# -- bad input ------------------------------------------------------------------------------------
def test_measures_refuse_topologies_they_do_not_apply_to():
    with pytest.raises(MetricNotApplicableError, match="Flat"):
        locality.mean_hops(Flat(8), [0, 1])
    with pytest.raises(MetricNotApplicableError, match="bbox"):
        locality.bbox(Hypercube(3), [0, 1])
    with pytest.raises(MetricNotApplicableError, match="largest_free_subcube"):
        locality.largest_free_subcube(Mesh(2, 2), [True] * 4)
    assert not locality.applies(Flat(8)) and locality.applies(Mesh(2, 2))


@pytest.mark.parametrize("nodes,match", [([], "empty"), ([1, 1], "node id 1 appears more than once"),
                                         ([0, 64], "node id 64 is outside"), ([-1], "node id -1"),
                                         ([0.5], "integers"), ([True, False], "integers")])
def test_bad_node_sets_are_named(nodes, match):
    with pytest.raises(NodeSetError, match=match):
        locality.mean_hops(Mesh(8, 8), nodes)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="'ring'"):
        locality.pattern_hops(Mesh(4, 4), [0, 1], "ring")
    with pytest.raises(NodeSetError, match="n must be an integer in 1..16"):
        locality.compact_nodes(Mesh(4, 4), 17)
    with pytest.raises(NodeSetError, match="free mask has 3 entries"):
        locality.free_fragments(Mesh(2, 2), [True, False, True])


# -- the Network protocol of Mesh and Hypercube ---------------------------------------------------
def _machines():
    return [Mesh(1, 1), Mesh(1, 4), Mesh(4, 1), Mesh(3, 2), Mesh(5, 4), Hypercube(0), Hypercube(1), Hypercube(3),
            Hypercube(4)]


@pytest.mark.parametrize("topo", _machines(), ids=repr)
def test_mesh_and_cube_are_networks_whose_links_and_routes_are_the_graphs(topo):
    assert isinstance(topo, Network) and locality.applies(topo)
    g = topo.to_networkx()
    ends = topo.links()
    assert ends.shape == (topo.n_links, 2) == (g.number_of_edges(), 2)
    assert {tuple(e) for e in ends.tolist()} == {tuple(sorted(e)) for e in g.edges}
    cap = topo.capacity
    assert cap.shape == (topo.n_links,) and (cap == 1).all() and not cap.flags.writeable
    hops = dict(nx.all_pairs_shortest_path_length(g))
    for a in range(topo.size):
        for b in range(topo.size):
            route = topo.route(a, b)
            assert len(route) == hops[a][b] == topo.distance(a, b)  # a shortest path...
            walk = [a]
            for link in route.tolist():  # ...of consecutive links from a to b
                u, v = ends[link].tolist()
                assert walk[-1] in (u, v)
                walk.append(v if walk[-1] == u else u)
            assert walk[-1] == b
            assert [tuple(ends[i]) for i in route.tolist()] == _route(topo, a, b)  # XY / e-cube order


def test_flat_is_not_a_network():
    assert not isinstance(Flat(8), Network) and not locality.applies(Flat(8))


@settings(max_examples=120, deadline=None)
@given(node_sets())
def test_link_traffic_and_hop_sum_by_brute_force_over_the_ordered_pairs(case):
    topo, nodes = case
    want = np.zeros(topo.n_links, dtype=np.int64)
    for s in nodes.tolist():
        for d in nodes.tolist():
            if s != d:
                np.add.at(want, topo.route(s, d), 1)
    got = topo.link_traffic(nodes)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    pair_sum = sum(topo.distance(a, b) for a, b in itertools.combinations(nodes.tolist(), 2))
    assert topo.hop_sum(nodes) == pair_sum and topo.hop_sum(nodes[::-1]) == pair_sum
    assert got.sum() == 2 * pair_sum
    pairs = np.array(list(itertools.product(nodes.tolist(), repeat=2)), dtype=np.int64).reshape(-1, 2)
    assert topo.distances(pairs[:, 0], pairs[:, 1]).tolist() == [topo.distance(a, b) for a, b in pairs.tolist()]


@pytest.mark.parametrize("topo", [Mesh(6, 6), Mesh(9, 4), Mesh(1, 5), Hypercube(5)], ids=repr)
def test_the_topology_answers_the_compact_baseline(topo):
    for n in range(1, topo.size + 1):
        own = topo.compact_nodes(n)
        assert own.tolist() == locality.compact_nodes(topo, n).tolist() and len(set(own.tolist())) == n
    with pytest.raises(RequestSizeError, match=str(topo.size + 1)):
        topo.compact_nodes(topo.size + 1)
    with pytest.raises(RequestTypeError):
        topo.compact_nodes(2.0)


@pytest.mark.parametrize("topo,bad", [(Mesh(4, 3), 12), (Mesh(4, 3), -1), (Hypercube(3), 8), (Hypercube(3), -3)],
                         ids=repr)
def test_protocol_methods_name_an_id_outside_the_machine(topo, bad):
    for call in (lambda: topo.hop_sum([0, bad]), lambda: topo.hop_sum([bad] + list(range(topo.size - 1))),
                 lambda: topo.link_traffic([0, bad]), lambda: topo.distances([0, 1], [bad, 0]),
                 lambda: topo.route(0, bad)):
        with pytest.raises(ValueError, match=f"node id {bad} is outside"):
            call()
    with pytest.raises(TypeError, match="integers"):
        topo.hop_sum([0.5, 1.0])


def test_hop_sum_takes_both_mesh_paths():
    """Few nodes next to W + H sort their coordinates; many count them: the two agree."""
    mesh = Mesh(40, 3)
    nodes = np.array([0, 41, 119, 7, 80])  # 5 * 4 <= 43: the sorting path
    assert 5 * 4 <= mesh.width + mesh.height
    brute = sum(mesh.distance(a, b) for a, b in itertools.combinations(nodes.tolist(), 2))
    assert mesh.hop_sum(nodes) == brute
    many = np.arange(0, 120, 7)  # 18 * 4 > 43: the counting path
    assert mesh.hop_sum(many) == sum(mesh.distance(a, b) for a, b in itertools.combinations(many.tolist(), 2))


class _Ring:
    """A bidirectional ring of ``size`` nodes, written only to the :class:`~topologies.Network` protocol
    (pair by pair: small machines only): the measures must work on it without knowing its type."""

    def __init__(self, size):
        self.size = size

    def request_for(self, n):
        return n

    def validate_request(self, request):
        return request

    def request_size(self, request):
        return request

    def distance(self, a, b):
        d = abs(a - b)
        return min(d, self.size - d)

    def to_networkx(self):
        return nx.cycle_graph(self.size)

    @property
    def n_links(self):
        return self.size

    @property
    def capacity(self):
        return np.ones(self.size)

    def hop_sum(self, nodes):
        return float(sum(self.distance(a, b) for a, b in itertools.combinations(list(nodes), 2)))

    def links(self):
        i = np.arange(self.size)
        return np.sort(np.stack([i, (i + 1) % self.size], 1), axis=1)

    def route(self, a, b):  # the shorter way round, clockwise on a tie; link i joins i and i + 1
        fwd = (b - a) % self.size
        if fwd <= self.size - fwd:
            return np.array([(a + k) % self.size for k in range(fwd)], dtype=np.int64)
        return np.array([(a - k - 1) % self.size for k in range(self.size - fwd)], dtype=np.int64)

    def link_traffic(self, nodes):
        out = np.zeros(self.size, dtype=np.int64)
        for s in list(nodes):
            for d in list(nodes):
                if s != d:
                    np.add.at(out, self.route(s, d), 1)
        return out

    def compact_nodes(self, n):
        return np.arange(n)


def test_a_new_network_gets_the_measures_without_extending_them():
    ring = _Ring(8)
    assert locality.applies(ring)
    assert locality.mean_hops(ring, [0, 1, 4]) == pytest.approx((1 + 4 + 3) / 3)
    assert locality.job_links(ring, [0, 2]).tolist() == [True, True] + [False] * 6
    assert locality.link_load(ring, [[0, 2], [1, 3]]).tolist() == [1, 2, 1, 0, 0, 0, 0, 0]
    assert locality.max_link_load(ring, [[0, 2], [1, 3], [5]]).tolist() == [2, 2, 0]
    assert locality.busiest_link(ring, [[0, 2], [1, 3]]).tolist() == [4.0, 4.0]
    assert locality.compact_nodes(ring, 3).tolist() == [0, 1, 2]
    assert locality.components(ring, [0, 1, 7, 4]) == 2  # 7-0-1 joined round the ring
    assert locality.pattern_hops(ring, [0, 1, 2, 3], "nearest-neighbour") == 2 * (1 + 1 + 2 + 2)
    with pytest.raises(MetricNotApplicableError, match="bbox"):
        locality.bbox(ring, [0])


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_flow_load_and_busiest_link_on_unit_links_count_messages(data):
    topo, a = data.draw(node_sets())
    b = np.array(data.draw(st.lists(st.integers(0, topo.size - 1), min_size=1, unique=True, max_size=topo.size)))
    traffic = [topo.link_traffic(a), topo.link_traffic(b)]
    flow = locality.flow_load(topo, [a, b])
    assert np.array_equal(flow, traffic[0] + traffic[1])
    for t, peak in zip(traffic, locality.busiest_link(topo, [a, b]), strict=True):
        assert peak == (flow[t > 0].max() if (t > 0).any() else 0.0)


def test_cube_distances_without_numpys_bit_count(monkeypatch):
    """numpy < 2 has no bitwise_count: the bit loop gives the same distances."""
    import topologies.hypercube as hypercube

    cube = Hypercube(5)
    a, b = np.arange(32), np.arange(32)[::-1]
    want = cube.distances(a, b).tolist()
    monkeypatch.setattr(hypercube, "_bitwise_count", None)
    assert cube.distances(a, b).tolist() == want == [cube.distance(u, v) for u, v in zip(a, b, strict=True)]
    assert Hypercube(0).distances([0], [0]).tolist() == [0]

"""topoalloc.locality on switch trees against brute force on small random trees: pairwise distances and
routes (every ordered pair routed by ``SwitchTree.route``), networkx for the graph, and direct counts over
the domains for the free space."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import FirstFree, MetricNotApplicableError, NodeSetError, TopologyError, locality
from topoalloc.locality import per_job
from topoalloc.testing import switch_trees
from topologies import Hypercube, Mesh, SwitchTree


@st.composite
def tree_jobs(draw, jobs=1, max_nodes=24):
    """A small random tree and ``jobs`` non-empty node sets on it (they may overlap: the measures
    take node sets, not a valid allocation)."""
    tree = draw(switch_trees(max_nodes=max_nodes))
    sets = [np.array(draw(st.lists(st.integers(0, tree.size - 1), min_size=1, max_size=tree.size, unique=True)),
                     dtype=np.int64) for _ in range(jobs)]
    return tree, sets


def _traffic(tree, nodes):
    """Per link, the messages of an all-to-all among ``nodes``, by routing every ordered pair."""
    out = np.zeros(tree.n_links, dtype=np.int64)
    for s in nodes.tolist():
        for d in nodes.tolist():
            if s != d:
                np.add.at(out, tree.route(s, d), 1)
    return out


def _lowest_common_depth(tree, nodes):
    """Depth of the lowest common ancestor switch of ``nodes`` in the networkx graph rooted at the root
    switch (the nodes' own level, the last, for one node)."""
    if len(nodes) == 1:
        return len(tree.levels) - 1
    up = nx.DiGraph((v, u) for u, v in tree.links().tolist())  # links are (child, parent): point them down
    root = tree.size  # switch 0's vertex
    top = nodes[0].item()
    for v in nodes[1:].tolist():
        top = nx.lowest_common_ancestor(up, top, v)
    return nx.shortest_path_length(up, root, top)


# -- per job ------------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(tree_jobs())
def test_mean_hops_and_pattern_hops_are_the_pairwise_graph_distances(case):
    tree, (nodes,) = case
    g = tree.to_networkx()
    pairs = list(itertools.combinations(nodes.tolist(), 2))
    dist = [nx.shortest_path_length(g, a, b) for a, b in pairs]
    assert locality.mean_hops(tree, nodes) == pytest.approx(np.mean(dist) if pairs else 0.0)
    assert locality.pattern_hops(tree, nodes, "all-to-all") == pytest.approx(2 * sum(dist))
    srt = sorted(nodes.tolist())
    cols = int(np.ceil(np.sqrt(len(srt))))
    grid = [(r, s) for r in range(len(srt)) for s in (r + 1, r + cols)
            if s < len(srt) and (s == r + cols or r % cols != cols - 1)]
    want = 2 * sum(nx.shortest_path_length(g, srt[r], srt[s]) for r, s in grid)
    assert locality.pattern_hops(tree, nodes, "nearest-neighbour") == pytest.approx(want)


@settings(max_examples=40, deadline=None)
@given(switch_trees(max_nodes=24))
def test_the_vectorised_tree_distances_are_the_trees_own(tree):
    """The climb pattern_hops uses on a tree, against SwitchTree.distance over every ordered pair."""
    s, d = (a.ravel() for a in np.meshgrid(np.arange(tree.size), np.arange(tree.size)))
    got = per_job._tree_distances(tree, s, d)
    assert got.tolist() == [tree.distance(a, b) for a, b in zip(s.tolist(), d.tolist(), strict=True)]


@settings(max_examples=80, deadline=None)
@given(tree_jobs())
def test_leaf_switches_common_level_and_components_by_brute_force(case):
    tree, (nodes,) = case
    g = tree.to_networkx()
    leaves = {next(iter(g.neighbors(v))) for v in nodes.tolist()}  # a node's one neighbour: its leaf switch
    assert locality.leaf_switches(tree, nodes) == len(leaves) == locality.components(tree, nodes)
    assert locality.common_level(tree, nodes) == tree.levels[_lowest_common_depth(tree, nodes)]


@settings(max_examples=60, deadline=None)
@given(tree_jobs(), st.data())
def test_compact_nodes_is_the_trees_own(case, data):
    tree, _ = case
    n = data.draw(st.integers(1, tree.size), label="n")
    got = locality.compact_nodes(tree, n)
    assert got.tolist() == tree.compact_nodes(n).tolist() and len(set(got.tolist())) == n
    assert locality.compact_mean_hops(tree, n) == pytest.approx(locality.mean_hops(tree, got))


@settings(max_examples=30, deadline=None)
@given(switch_trees(max_nodes=12, balanced=True), st.data())
def test_compact_nodes_has_the_least_hop_sum_on_balanced_trees(tree, data):
    n = data.draw(st.integers(1, tree.size), label="n")
    best = min(tree.hop_sum(list(c)) for c in itertools.combinations(range(tree.size), n))
    assert tree.hop_sum(locality.compact_nodes(tree, n)) == best


def test_compact_nodes_golden_case():
    """A 3-rack tree of 4 hosts: 6 nodes fill one rack and half of the next (SwitchTree.compact_nodes's
    documented rule: the smallest subtree holding them, whole children largest first)."""
    t = SwitchTree.uniform((3, 4), names=("rack", "host"))
    assert locality.compact_nodes(t, 6).tolist() == [0, 1, 2, 3, 4, 5]
    assert locality.compact_mean_hops(t, 4) == 2.0  # one rack: every pair 2 hops apart


# -- links and contention --------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(tree_jobs(jobs=3))
def test_job_links_link_load_and_max_link_load_by_routing_every_pair(case):
    tree, jobs = case
    masks = [_traffic(tree, j) > 0 for j in jobs]
    for j, m in zip(jobs, masks, strict=True):
        assert np.array_equal(locality.job_links(tree, j), m)
    load = locality.link_load(tree, jobs)
    assert np.array_equal(load, np.sum(masks, axis=0))
    assert locality.max_link_load(tree, jobs).tolist() == [int(load[m].max()) if m.any() else 0 for m in masks]
    assert np.array_equal(locality.links(tree), tree.links())


@settings(max_examples=60, deadline=None)
@given(tree_jobs(jobs=3))
def test_flow_load_and_busiest_link_by_routing_every_pair(case):
    tree, jobs = case
    traffic = [_traffic(tree, j) for j in jobs]
    flow = np.sum(traffic, axis=0) / tree.capacity
    assert np.allclose(locality.flow_load(tree, jobs), flow)
    want = [flow[t > 0].max() if (t > 0).any() else 0.0 for t in traffic]
    assert np.allclose(locality.busiest_link(tree, jobs), want)


def test_flow_load_counts_an_uplink_bundles_capacity():
    """Hand count on 2 racks x 4 hosts (SwitchTree.link_traffic: ``2 (n - 1)`` messages on a member's node
    link, ``2 c (n - c)`` on an uplink with ``c`` of a job's ``n`` nodes below it). Two 4-node jobs, each
    half in either rack, send 8 messages each over both uplinks: 16 per uplink, and 6 on each node link.
    Non-blocking uplinks (capacity 4) carry them at load 4, so a job's busiest links are its node links
    (6); with oversubscription 4 (capacity 1) the uplinks are, at 16. Job counts (max_link_load) cannot
    tell the two apart."""
    jobs = [[0, 1, 4, 5], [2, 3, 6, 7]]
    for ratio, uplink, peak in ((1, 4.0, 6.0), (4, 16.0, 16.0)):
        t = SwitchTree.uniform((2, 4), names=("rack", "host"), oversubscription=ratio)
        flow = locality.flow_load(t, jobs)
        assert flow[:8].tolist() == [6.0] * 8 and flow[8:].tolist() == [uplink, uplink]
        assert locality.busiest_link(t, jobs).tolist() == [peak, peak]
        assert locality.max_link_load(t, jobs).tolist() == [2, 2]
    inside = [[0, 1], [4, 5]]  # one rack each: no uplink, node links only (2 messages each, capacity 1)
    t = SwitchTree.uniform((2, 4), names=("rack", "host"))
    assert locality.busiest_link(t, inside).tolist() == [2.0, 2.0]
    assert locality.busiest_link(t, []).tolist() == [] and locality.busiest_link(t, [[3]]).tolist() == [0.0]


# -- the machine's free space ------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_free_per_domain_and_free_fragments_by_brute_force(data):
    tree = data.draw(switch_trees(max_nodes=40), label="tree")
    free = np.array(data.draw(st.lists(st.booleans(), min_size=tree.size, max_size=tree.size)), dtype=bool)
    for level in tree.levels:
        first, stop = tree.domains(level)
        want = [int(free[lo:hi].sum()) for lo, hi in zip(first.tolist(), stop.tolist(), strict=True)]
        assert locality.free_per_domain(tree, free, level).tolist() == want
    leaves = {int(tree.leaf_of[v]) for v in np.flatnonzero(free).tolist()}
    assert locality.free_fragments(tree, free) == len(leaves)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_fragmentation_and_allocation_locality_of_a_tree_allocator(data):
    tree = data.draw(switch_trees(max_nodes=40), label="tree")
    ff = FirstFree(tree)
    grants = []
    for n in data.draw(st.lists(st.integers(1, max(1, tree.size // 3)), max_size=5), label="jobs"):
        g = ff.allocate(n)
        if g is not None:
            grants.append(g)
    for g in data.draw(st.lists(st.sampled_from(grants), unique=True), label="released") if grants else []:
        ff.release(g)
        grants.remove(g)
    free = ff.free_mask()
    got = locality.fragmentation(ff)
    assert got["free"] == int(free.sum()) and got["fragments"] == locality.free_fragments(tree, free)
    for level in tree.levels[:-1]:
        first, stop = tree.domains(level)
        per = [int(free[lo:hi].sum()) for lo, hi in zip(first.tolist(), stop.tolist(), strict=True)]
        assert got["largest_free"][level] == max(per)
        assert got["free_domains"][level] == sum(p == hi - lo for p, lo, hi in zip(per, first, stop, strict=True))
    leaf_first = tree.first[tree.leaf_switch_ids]
    leaf_stop = tree.stop[tree.leaf_switch_ids]
    assert got["largest_free_size"] == max(int(free[lo:hi].sum()) for lo, hi in zip(leaf_first, leaf_stop,
                                                                                   strict=True))
    for g in grants:
        hops, pieces = locality.allocation_locality(tree, g)
        assert hops == pytest.approx(locality.mean_hops(tree, g.nodes))
        assert pieces == locality.leaf_switches(tree, g.nodes)
        assert locality.allocation_mean_hops(tree, g) == hops


def test_fragmentation_golden_case():
    """Hand count on 2 blocks x 3 racks x 4 hosts with FirstFree's first 6 nodes taken (FirstFree's
    documented rule: the lowest free ids): rack 0 full, rack 1 half; blocks keep 6 and 12 free."""
    t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    ff = FirstFree(t)
    ff.allocate(6)
    got = locality.fragmentation(ff)
    assert got == {"free": 18, "fragments": 5, "largest_free": {"cluster": 18, "block": 12, "rack": 4},
                   "largest_free_size": 4, "free_domains": {"cluster": 0, "block": 1, "rack": 4}}
    assert locality.free_per_domain(t, ff.free_mask(), "rack").tolist() == [0, 2, 4, 4, 4, 4]


# -- what applies where ------------------------------------------------------------------------------------
def test_tree_measures_refuse_other_machines_and_geometric_ones_refuse_trees():
    t = SwitchTree.uniform((2, 4))
    assert locality.applies(t)
    for call, name in ((lambda: locality.leaf_switches(Mesh(2, 2), [0]), "leaf_switches"),
                       (lambda: locality.common_level(Hypercube(2), [0]), "common_level"),
                       (lambda: locality.free_per_domain(Mesh(2, 2), [True] * 4, "rack"), "free_per_domain"),
                       (lambda: locality.bbox(t, [0]), "bbox"),
                       (lambda: locality.largest_free_submesh(t, [True] * 8), "largest_free_submesh"),
                       (lambda: locality.largest_free_subcube(t, [True] * 8), "largest_free_subcube")):
        with pytest.raises(MetricNotApplicableError, match=name):
            call()


def test_bad_input_on_a_tree_is_named():
    t = SwitchTree.uniform((2, 4), names=("rack", "host"))
    with pytest.raises(TopologyError, match="'shelf'"):
        locality.free_per_domain(t, [True] * 8, "shelf")
    with pytest.raises(NodeSetError, match="free mask has 7 entries"):
        locality.free_per_domain(t, [True] * 7, "rack")
    with pytest.raises(NodeSetError, match="node id 8 is outside"):
        locality.leaf_switches(t, [0, 8])
    with pytest.raises(NodeSetError, match="node id 3 appears more than once"):
        locality.common_level(t, [3, 3])
    with pytest.raises(NodeSetError, match="n must be an integer in 1..8"):
        locality.compact_nodes(t, 9)

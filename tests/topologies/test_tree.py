"""SwitchTree against networkx and brute force; its builders, validation, values; TreeRequest's checks."""

from __future__ import annotations

import itertools
import math
import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import topologies.tree as tree_module
from topoalloc.testing import switch_trees
from topologies import RequestSizeError, RequestTypeError, SwitchTree, TopologyError, TreeRequest

SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk(t: SwitchTree, a: int, route: np.ndarray) -> list[int]:
    """The graph vertices a route visits from node ``a``, each link taken from the end it is at."""
    ends = t.links()
    at = [a]
    for link in route.tolist():
        u, v = ends[link].tolist()
        assert at[-1] in (u, v), f"link {link} ({u}, {v}) does not start at vertex {at[-1]}"
        at.append(v if at[-1] == u else u)
    return at


def _brute_traffic(t: SwitchTree, nodes: list[int]) -> np.ndarray:
    out = np.zeros(t.n_links)
    for a, b in itertools.permutations(nodes, 2):
        out[t.route(a, b)] += 1
    return out


# -- against networkx and brute force on random trees -------------------------------------------------
@SMALL
@given(switch_trees(max_nodes=20))
def test_distance_is_the_graph_shortest_path(t):
    g = t.to_networkx()
    assert g.number_of_nodes() == t.size + t.n_switches and g.number_of_edges() == t.n_links
    assert nx.is_tree(g)
    for a in range(t.size):
        lengths = nx.single_source_shortest_path_length(g, a)
        assert [t.distance(a, b) for b in range(t.size)] == [lengths[b] for b in range(t.size)]


@SMALL
@given(switch_trees(max_nodes=16))
def test_route_is_a_path_of_links_of_the_distance(t):
    g = t.to_networkx()
    ends = t.links()
    assert {frozenset(e) for e in ends.tolist()} == {frozenset(e) for e in g.edges}
    for a, b in itertools.product(range(t.size), repeat=2):
        r = t.route(a, b)
        assert len(r) == t.distance(a, b) and len(set(r.tolist())) == len(r)
        visited = _walk(t, a, r)
        assert visited[-1] == b and len(set(visited)) == len(visited)  # a simple path from a to b


@SMALL
@given(st.data())
def test_link_traffic_and_hop_sum_by_brute_force(data):
    t = data.draw(switch_trees(max_nodes=16), label="tree")
    nodes = data.draw(st.lists(st.integers(0, t.size - 1), min_size=1, max_size=t.size, unique=True), label="nodes")
    traffic = t.link_traffic(nodes)
    assert traffic.tolist() == _brute_traffic(t, nodes).tolist()
    pairs = sum(t.distance(a, b) for a, b in itertools.combinations(nodes, 2))
    assert t.hop_sum(nodes) == pairs and traffic.sum() == 2 * pairs
    assert t.switch_counts(nodes)[0] == len(nodes)


@SMALL
@given(switch_trees(max_nodes=24))
def test_domains_partition_the_nodes_at_every_level(t):
    for d, level in enumerate(t.levels):
        first, stop = t.domains(level)
        assert first[0] == 0 and stop[-1] == t.size
        assert (first[1:] == stop[:-1]).all() and (stop > first).all()
        assert t.domains(d)[0].tolist() == first.tolist()
        if d < len(t.levels) - 1:
            sw = t.domain_switches(level)
            assert t.first[sw].tolist() == first.tolist() and t.stop[sw].tolist() == stop.tolist()
            assert ((t.depth[sw] == d) | (t.is_leaf[sw] & (t.depth[sw] < d))).all()
        else:
            assert (stop - first == 1).all()
    assert len(t.domains(0)[0]) == 1


# -- compact_nodes ------------------------------------------------------------------------------------
def _brute_min_hops(t: SwitchTree, n: int) -> float:
    return min(t.hop_sum(c) for c in itertools.combinations(range(t.size), n))


BALANCED = [counts for depth in (1, 2, 3) for counts in itertools.product(range(1, 7), repeat=depth)
            if 2 <= math.prod(counts) <= 12]


@pytest.mark.parametrize("counts", BALANCED, ids=lambda c: "x".join(map(str, c)))
def test_compact_nodes_is_optimal_on_balanced_trees(counts):
    t = SwitchTree.uniform(counts)
    for n in range(1, t.size + 1):
        got = t.compact_nodes(n)
        assert len(np.unique(got)) == n and got.tolist() == sorted(got.tolist())
        assert t.hop_sum(got) == _brute_min_hops(t, n), (counts, n)


@settings(max_examples=60, deadline=None)
@given(switch_trees(max_levels=4, max_nodes=11, balanced=False))
def test_compact_nodes_is_optimal_on_unbalanced_trees(t):
    for n in range(1, t.size + 1):
        got = t.compact_nodes(n)
        assert len(np.unique(got)) == n
        assert t.hop_sum(got) == _brute_min_hops(t, n), (t.parent.tolist(), n)


def _deep_and_shallow() -> SwitchTree:
    # under the root: a 6-node leaf switch; two switches down to a 2-node leaf switch; a switch over
    # four 1-node leaf switches, three of them one or two levels deeper
    parent = [-1, 0, 0, 2, 3, 0, 5, 6, 5, 8, 8, 5]
    nodes = [0, 6, 0, 0, 2, 0, 0, 1, 0, 1, 1, 1]
    return SwitchTree(parent, nodes)


def test_compact_nodes_prefers_a_shallow_leaf_switch_to_a_small_deep_subtree():
    """The case where the smallest-subtree greedy (the rule before the exact programme) was worst in
    3,000 random unbalanced trees of up to 12 nodes: 2.67 times the least hop sum for n = 3."""
    t = _deep_and_shallow()
    assert t._compact_greedy(3).tolist() != t.compact_nodes(3).tolist()
    assert t.hop_sum(t._compact_greedy(3)) == 16 and t.hop_sum(t.compact_nodes(3)) == 6 == _brute_min_hops(t, 3)
    assert t.compact_nodes(3).tolist() == [0, 1, 2]


def test_compact_nodes_falls_back_to_the_greedy_beyond_its_budget(monkeypatch):
    t = _deep_and_shallow()
    monkeypatch.setattr(tree_module, "COMPACT_EXACT_WORK", 0)
    assert t.compact_nodes(3).tolist() == t._compact_greedy(3).tolist()


def test_compact_nodes_validates_the_count():
    t = SwitchTree.uniform((2, 3))
    with pytest.raises(RequestSizeError, match="got 0"):
        t.compact_nodes(0)
    with pytest.raises(RequestSizeError, match="7"):
        t.compact_nodes(7)
    with pytest.raises(RequestTypeError, match=r"'3' \(str\)"):
        t.compact_nodes("3")


# -- hand-built examples ----------------------------------------------------------------------------
def test_distances_of_an_unbalanced_tree_and_its_virtual_root():
    t = SwitchTree.from_switches({"a": ["a1", "a2"], "a2": ["a21"]},
                                 {"a1": ["x", "y"], "a21": ["z"], "b": ["w"]})
    assert t.virtual_root and t.switch_names == ("", "a", "a1", "a2", "a21", "b")
    assert t.levels == ("root", "level1", "level2", "level3", "node")
    assert t.node_depth.tolist() == [3, 3, 4, 2]
    assert [t.distance(0, b) for b in range(4)] == [0, 2, 5, 5]
    # x's node link, a1's uplink (N + 2 - 1), a's uplink (N + 1 - 1), down b's uplink (N + 5 - 1), w's node link
    assert t.route(0, 3).tolist() == [0, 5, 4, 8, 3]
    assert t.common_level([0, 2]) == "level1" and t.common_level([1, 1]) == "node"
    assert t.leaf_switches_spanned([0, 1, 2]) == 2
    first, stop = t.domains("level2")  # a1 and a2 at depth 2; b is a shallower leaf switch: a domain too
    assert first.tolist() == [0, 2, 3] and stop.tolist() == [2, 3, 4]


def test_route_link_ids_follow_the_numbering():
    """Links 0..N-1 are the node links, N + s - 1 switch s's uplink (SwitchTree's docstring)."""
    t = SwitchTree.uniform((2, 2), names=("rack", "host"))
    assert t.links().tolist() == [[0, 5], [1, 5], [2, 6], [3, 6], [5, 4], [6, 4]]
    assert t.route(0, 3).tolist() == [0, 4, 5, 3]
    assert t.route(1, 0).tolist() == [1, 0]
    assert t.link_traffic([0, 3]).tolist() == [2, 0, 0, 2, 2, 2]


def test_levels_and_names_are_validated():
    t = SwitchTree.uniform((2, 3), names=("rack", "host"))
    assert t.level_depth("rack") == 1 and t.level_depth(2) == 2
    with pytest.raises(TopologyError, match=r"unknown level 'row' \(str\); this tree's levels are cluster, rack, host"):
        t.domains("row")
    with pytest.raises(TopologyError, match=r"unknown level 3"):
        t.level_depth(3)
    with pytest.raises(TopologyError, match=r"'host' is the nodes"):
        t.domain_switches("host")
    with pytest.raises(TopologyError, match=r"3 levels \(root to nodes\) but 2 names were given: \('a', 'b'\)"):
        SwitchTree([-1, 0], [0, 2], levels=("a", "b"))
    with pytest.raises(TopologyError, match=r"distinct non-empty strings, got \('a', 'a', 'b'\)"):
        SwitchTree([-1, 0], [0, 2], levels=("a", "a", "b"))
    with pytest.raises(TopologyError, match=r"switch name 'x' is used twice"):
        SwitchTree([-1, 0, 0], [0, 1, 1], switch_names=("r", "x", "x"))
    with pytest.raises(TopologyError, match=r"node name 'n' is used twice"):
        SwitchTree([-1], [2], node_names=("n", "n"))
    with pytest.raises(TopologyError, match=r"switch 1's parent 2 is not an earlier switch"):
        SwitchTree([-1, 2, 0], [0, 1, 1])
    with pytest.raises(TopologyError, match=r"root switch first"):
        SwitchTree([0], [1])


def test_uniform_trees_and_their_errors():
    t = SwitchTree.uniform((2, 10, 64), names=("block", "rack", "host"))
    assert t.size == 1280 and t.levels == ("cluster", "block", "rack", "host") and t.n_switches == 23
    assert t.switch_names[:3] == ("cluster", "block0", "rack0") and t.node_names[-1] == "host1279"
    assert repr(t) == "SwitchTree.uniform((2, 10, 64), names=('block', 'rack', 'host'))" and t.label == "tree:2x10x64"
    for bad, msg in [(((0, 4),), r"level 1's count must be an integer >= 1, got 0"),
                     (((2, 2.5),), r"level 2's count must be an integer >= 1, got 2.5"),
                     (((),), r"at least one count"),
                     (((2, 4), ("a",)), r"2 levels below the root but 1 names: \('a',\)")]:
        with pytest.raises(TopologyError, match=msg):
            SwitchTree.uniform(*bad)


def test_uniform_capacities_with_oversubscription_and_uplinks():
    t = SwitchTree.uniform((2, 4), names=("rack", "host"), oversubscription=2)
    assert t.capacity.tolist() == [1.0] * 8 + [2.0, 2.0]
    t = SwitchTree.uniform((2, 2, 4), oversubscription=(1, 4))  # per switch level from the top
    assert t.capacity[16:].tolist() == [8.0, 1.0, 1.0, 8.0, 1.0, 1.0]
    t = SwitchTree.uniform((2, 2, 4), uplinks=(3, 2))
    assert t.capacity[16:].tolist() == [3.0, 2.0, 2.0, 3.0, 2.0, 2.0]
    assert math.isinf(t._uplink_cap[0])
    with pytest.raises(TopologyError, match=r"oversubscription needs one value per switch level below the root \(2\), "
                                            r"got \(1, 2, 3\)"):
        SwitchTree.uniform((2, 2, 4), oversubscription=(1, 2, 3))
    with pytest.raises(TopologyError, match=r"oversubscription must be a finite number > 0, got 0"):
        SwitchTree.uniform((2, 4), oversubscription=0)
    with pytest.raises(TopologyError, match=r"uplinks needs one count per switch level below the root \(1\), "
                                            r"got \(1, 1\)"):
        SwitchTree.uniform((2, 4), uplinks=(1, 1))
    with pytest.raises(TopologyError, match=r"uplinks must be an integer >= 1, got 0"):
        SwitchTree.uniform((2, 4), uplinks=(0,))


def test_fat_tree_is_the_aggregated_k_ary_n_tree():
    """Petrini & Vanneschi's k-ary n-tree: k**n nodes, n switch levels; the aggregated bundle above a
    level-l subtree carries its k**l node links (full bisection), divided by the oversubscription."""
    t = SwitchTree.fat_tree(4, 3)
    assert t.size == 64 and t.levels == ("root", "level1", "level2", "node") and t.distance(0, 63) == 6
    caps = t._uplink_cap
    assert set(caps[t.depth == 1].tolist()) == {16.0} and set(caps[t.depth == 2].tolist()) == {4.0}
    t = SwitchTree.fat_tree(2, 3, oversubscription=(2, 4))
    assert set(t._uplink_cap[t.depth == 1].tolist()) == {2.0} and set(t._uplink_cap[t.depth == 2].tolist()) == {0.5}
    with pytest.raises(TopologyError, match=r"fat tree arity k must be an integer >= 2, got 1"):
        SwitchTree.fat_tree(1, 2)
    with pytest.raises(TopologyError, match=r"fat tree levels n must be an integer >= 1, got 0"):
        SwitchTree.fat_tree(2, 0)


@pytest.mark.parametrize("switches, nodes, msg", [
    ({"a": ["b"], "b": ["a"]}, {"c": ["x"]}, r"'a', 'b' form a loop"),
    ({"a": ["b"], "b": ["a"]}, {}, r"loop"),
    ({"a": ["a"]}, {}, r"switch 'a' lists itself"),
    ({"a": ["l"], "b": ["l"]}, {"l": ["x"]}, r"switch 'l' is under two switches \('a' and 'b'\)"),
    ({"a": ["l", "m"]}, {"l": ["x"]}, r"switch 'a' lists switch 'm', which is not defined"),
    ({"a": ["l"], "e": []}, {"l": ["x"]}, r"switch 'e' is empty"),
    ({"a": ["l"]}, {"a": ["y"], "l": ["x"]}, r"switch 'a' has both nodes and switches below it"),
    ({}, {"l": ["x"], "m": ["x"]}, r"node 'x' is under two switches \('l' and 'm'\)"),
    ({"": ["l"]}, {"l": ["x"]}, r"switch names must be non-empty strings, got '' \(str\)"),
])
def test_from_switches_errors_name_the_switch(switches, nodes, msg):
    with pytest.raises(TopologyError, match=msg):
        SwitchTree.from_switches(switches, nodes, source="f.conf")


def test_from_switches_capacities_and_their_errors():
    t = SwitchTree.from_switches({"top": ["l", "m"]}, {"l": ["a", "b"], "m": ["c"]}, uplink_capacity={"l": 0.5})
    assert t.capacity.tolist() == [1.0, 1.0, 1.0, 0.5, 1.0]
    with pytest.raises(TopologyError, match=r"uplink capacity given for unknown switch 'z'"):
        SwitchTree.from_switches({"top": ["l"]}, {"l": ["a"]}, uplink_capacity={"z": 1})
    with pytest.raises(TopologyError, match=r"switch 'l''s uplink capacity must be a finite number > 0, got -1"):
        SwitchTree.from_switches({"top": ["l"]}, {"l": ["a"]}, uplink_capacity={"l": -1})


def test_pickling_and_equality():
    t = SwitchTree.from_switches({"top": ["l", "m"]}, {"l": ["a", "b"], "m": ["c"]}, uplink_capacity={"m": 3},
                                 source="t.conf")
    again = pickle.loads(pickle.dumps(t))
    assert again == t and hash(again) == hash(t) and again.source == "t.conf"
    assert again.capacity.tolist() == t.capacity.tolist() and again.switch_names == t.switch_names
    assert t != SwitchTree.from_switches({"top": ["l", "m"]}, {"l": ["a", "b"], "m": ["c"]})  # other capacity
    assert t != SwitchTree.from_switches({"top": ["l", "m"]}, {"l": ["a", "b"], "m": ["d"]}, uplink_capacity={"m": 3})
    assert SwitchTree.uniform((2, 3)) == SwitchTree.uniform((2, 3)) != SwitchTree.uniform((3, 2))
    assert not t.parent.flags.writeable and not t.capacity.flags.writeable


def test_an_unbalanced_tree_is_not_shown_as_uniform():
    """Leaf switches at one depth but of different sizes (2, 2, 2 and 1, 2, 3) once passed for
    ``uniform((2, 3, 2))``."""
    t = SwitchTree([-1, 0, 1, 1, 1, 0, 5, 5, 5], [0, 0, 2, 2, 2, 0, 1, 2, 3])
    assert t._uniform_counts() is None and t.label == "tree:12-nodes" and "uniform" not in repr(t)
    t = SwitchTree([-1, 0, 1, 1, 0, 4], [0, 0, 3, 3, 0, 6])  # same sizes below, different fan-outs
    assert t._uniform_counts() is None
    assert SwitchTree.uniform((3, 2, 2))._uniform_counts() == (3, 2, 2)


# -- requests ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, msg", [
    ({"count": "4"}, RequestTypeError, r"count must be an integer, got '4' \(str\)"),
    ({"count": 2.0}, RequestTypeError, r"got 2.0"),
    ({"count": True}, RequestTypeError, r"got True \(bool\)"),
    ({"count": 0}, RequestSizeError, r"at least 1 node, got 0"),
    ({"count": 4, "required": ""}, RequestTypeError, r"required must be a level name \(a non-empty string\), got ''"),
    ({"count": 4, "preferred": 3}, RequestTypeError, r"preferred must be a level name .*got 3"),
    ({"count": 4, "switches": 0}, RequestTypeError, r"switches must be an integer >= 1, got 0"),
    ({"count": 4, "wait": 10}, RequestTypeError, r"wait=10 needs switches=N"),
    ({"count": 4, "switches": 1, "wait": -1}, RequestTypeError, r"wait must be a finite number >= 0, got -1"),
    ({"count": 4, "switches": 1, "wait": float("nan")}, RequestTypeError, r"got nan"),
    ({"count": 4, "segment": 0}, RequestTypeError, r"segment must be an integer >= 1, got 0"),
    ({"count": 6, "segment": 4}, RequestTypeError, r"segment 4 does not divide the request's 6 nodes"),
    ({"count": 4, "required": "rack", "switches": 2}, RequestTypeError, r"one constraint, got required and switches"),
])
def test_tree_request_validation_names_the_value(kwargs, error, msg):
    with pytest.raises(error, match=msg):
        TreeRequest(**kwargs)


def test_tree_request_properties():
    r = TreeRequest(8, switches=2, wait=60)
    assert not r.plain and r.level is None and r.relaxed() == TreeRequest(8)
    assert TreeRequest(4).plain and TreeRequest(4, preferred="rack").level == "rack"
    assert TreeRequest(8, segment=4).relaxed() == TreeRequest(8, segment=4)


def test_validate_request_refuses_unknown_and_too_small_levels():
    t = SwitchTree.from_switches({"top": ["r1", "r2"]}, {"r1": list("abcd"), "r2": list("ef")},
                                 levels=("cluster", "rack", "host"))
    assert t.validate_request(3) == 3 and t.validate_request(TreeRequest(4, required="rack")).count == 4
    assert t.validate_request(TreeRequest(6, preferred="rack")).count == 6  # preferred: any size is fine
    with pytest.raises(RequestTypeError, match=r"required='row': unknown level 'row'"):
        t.validate_request(TreeRequest(2, required="row"))
    with pytest.raises(RequestTypeError, match=r"preferred='row'"):
        t.validate_request(TreeRequest(2, preferred="row"))
    with pytest.raises(RequestSizeError, match=r"5 nodes required in one 'rack' domain, but the largest has 4"):
        t.validate_request(TreeRequest(5, required="rack"))
    with pytest.raises(RequestSizeError, match=r"request for 7 nodes is larger than the 6-node tree"):
        t.validate_request(TreeRequest(7))
    with pytest.raises(RequestSizeError, match=r"larger than a 6-node tree"):
        t.validate_request(7)
    with pytest.raises(RequestTypeError, match=r"got '2' \(str\)"):
        t.validate_request("2")
    assert t.request_for(3) == 3 and t.request_size(TreeRequest(5)) == 5
    with pytest.raises(RequestSizeError, match=r"7 nodes do not fit the 6-node tree"):
        t.request_for(7)

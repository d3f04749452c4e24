"""Each topology's networkx graph has the topology's own node ids and links."""

import pytest

from topologies import Flat, Hypercube, Mesh


@pytest.mark.parametrize("topo", [Hypercube(0), Hypercube(1), Hypercube(2), Hypercube(5), Mesh(1, 1), Mesh(4, 3),
                                  Flat(3)])
def test_graph_nodes_are_the_ids_and_edges_are_one_hop(topo):
    g = topo.to_networkx()
    assert sorted(g.nodes) == list(range(topo.size))
    for u, v in g.edges:
        assert topo.distance(u, v) == 1
    if not isinstance(topo, Flat):
        degree_sum = sum(d for _, d in g.degree)
        want = sum(1 for u in range(topo.size) for v in range(topo.size) if topo.distance(u, v) == 1)
        assert degree_sum == want

import numpy as np
import pytest

from topoalloc import DHCTree, TreeNode, TreeWeights, UnsupportedTopologyError
from topoalloc.dhc import forest_sizes
from topoalloc.testing import ORACLES, allocator_machine, flats, tree_partitions
from topologies import Flat, Hypercube, RequestSizeError, RequestTypeError


def first_fit_tree(topology):
    return DHCTree(topology, assignment="first_fit")


def weight_tree(topology):
    return DHCTree(topology, assignment="weight")


# the tree oracle checks recognition and, through check_choice, which partition each rule picks
TestDHCFirstFitMachine = allocator_machine(first_fit_tree, flats(max_size=48)).TestCase
TestDHCWeightMachine = allocator_machine(weight_tree, flats(max_size=48)).TestCase


def test_oracle_registered():
    assert ORACLES[("tree", Flat)] is tree_partitions


def test_forest_of_320_processors():
    t = DHCTree(Flat(320))
    assert forest_sizes(320) == [256, 64]
    assert [(r.tree, r.start, r.stop, r.level) for r in t.roots] == [(0, 0, 256, 8), (1, 256, 320, 6)]
    assert t.max_request == 256
    whole = t.allocate(256)
    assert whole.placement == t.roots[0] and whole.nodes.tolist() == list(range(256))
    small = t.allocate(33)  # a class-6 job: the whole 64-processor tree
    assert small.request == 64 and small.placement == t.roots[1]
    assert t.allocate(1) is None and t.free == 0
    t.release(whole)
    assert t.allocate(200).nodes.tolist() == list(range(256))


def test_request_larger_than_the_largest_tree():
    t = DHCTree(Flat(320))
    with pytest.raises(RequestSizeError, match=r"300 processors.*256"):
        t.allocate(300)
    with pytest.raises(RequestSizeError, match="300"):
        t.request_size(300)
    with pytest.raises(RequestSizeError):
        t.allocate(321)
    with pytest.raises(RequestSizeError):
        t.allocate(0)
    with pytest.raises(RequestTypeError):
        t.allocate(2.5)


def test_sizes_and_fold():
    t = DHCTree(Flat(48))
    assert [t.request_size(p) for p in (1, 2, 3, 5, 17, 32)] == [1, 2, 4, 8, 32, 32]
    assert t.fold(1) is None and t.fold(2) == 1 and t.fold(3) == 2 and t.fold(17) == 16
    a = t.allocate(5)
    assert a.request == 8 and a.size == 8


def test_first_fit_takes_the_leftmost_free_partition():
    t = DHCTree(Flat(24))  # trees of 16 (ids 0..15) and 8 (ids 16..23)
    a = t.allocate(4)
    b = t.allocate(8)
    c = t.allocate(2)
    assert [g.nodes[0] for g in (a, b, c)] == [0, 8, 4]
    assert t.allocate(8).nodes[0] == 16  # the first tree has no free 8-partition left
    t.release(a)
    assert t.allocate(1).nodes[0] == 0
    assert t.allocate(4) is None  # 1..3 and 6..7 free, but no aligned 4-partition


def test_weight_rule_descends_into_the_lighter_branch():
    ff, wt = DHCTree(Flat(16)), DHCTree(Flat(16), assignment="weight")
    for t in (ff, wt):
        t.allocate(4)  # ids 0..3, weight 1 on the left half
    assert ff.allocate(1).nodes[0] == 4
    assert wt.allocate(1).nodes[0] == 8  # the right half is lighter
    # halves now weigh 1 and 1: tie goes left, where 0..3 is taken, so into 4..7
    assert wt.allocate(1).nodes[0] == 4
    # left 2, right 1: right; inside, 8..11 weighs 1 and 12..15 weighs 0
    assert wt.allocate(2).nodes[0] == 12
    w = wt.weights
    assert w.weight(wt.roots[0]) == 4
    assert [w.weight(c) for c in wt.roots[0].children()] == [2, 2]


def test_weight_rule_compares_trees_of_the_forest():
    t = DHCTree(Flat(320), assignment="weight")
    assert t.allocate(1).nodes[0] == 0  # tie between the roots: the first tree
    assert t.allocate(1).nodes[0] == 256  # the 64-tree is lighter
    # only the 256-tree has a free 64-partition; its right half is lighter
    assert t.allocate(64).nodes[0] == 128
    # halves weigh 1 and 1: left, where 0..63 holds a job, so 64..127
    assert t.allocate(64).nodes[0] == 64
    assert t.allocate(128) is None


def test_weight_rule_skips_branches_without_a_free_partition():
    t = DHCTree(Flat(8), assignment="weight")
    big = t.allocate(4)  # 0..3, left weight 1
    for _ in range(4):
        t.allocate(1)  # fill 4..7, right weight 4
    t.release(big)
    # left weighs 0 now; the 2-partition must come from the left
    assert t.allocate(2).nodes.tolist() == [0, 1]
    assert t.allocate(4) is None


def test_shared_weights_across_time_slots():
    shared = TreeWeights(16)
    slot0 = DHCTree(Flat(16), assignment="weight", weights=shared)
    slot1 = DHCTree(Flat(16), assignment="weight", weights=shared)
    assert slot0.allocate(8).nodes[0] == 0
    # slot 1 is empty, but the left half already carries slot 0's job
    assert slot1.allocate(2).nodes[0] == 8
    assert shared.weight(slot0.roots[0]) == 2
    slot0.reset()
    slot1.reset()
    assert shared.weight(slot0.roots[0]) == 0
    with pytest.raises(ValueError, match="TreeWeights"):
        DHCTree(Flat(16), weights=TreeWeights(32))


def test_tree_node_navigation():
    root = TreeNode(tree=0, level=3, index=0, offset=0, height=3)
    left, right = root.children()
    assert (left.start, left.stop, right.start, right.stop) == (0, 4, 4, 8)
    leaf = TreeNode(0, 0, 5, 0, 3)
    assert leaf.children() == () and leaf.node_ids().tolist() == [5] and leaf.contains(5)
    assert leaf.parent() == TreeNode(0, 1, 2, 0, 3) and leaf.parent().parent().parent() == root
    assert root.parent() is None and root.heap_index == 1 and leaf.heap_index == 13
    assert {root: 1}[TreeNode(0, 3, 0, 0, 3)] == 1
    with pytest.raises(AttributeError):
        root.level = 2
    for bad in ((0, 4, 0, 0, 3), (0, 1, 4, 0, 3), (-1, 0, 0, 0, 0)):
        with pytest.raises(ValueError):
            TreeNode(*bad)


def test_bad_construction():
    with pytest.raises(ValueError, match="first_fit, weight"):
        DHCTree(Flat(8), assignment="best_fit")
    with pytest.raises(UnsupportedTopologyError):
        DHCTree(Hypercube(3))


def test_free_nodes_and_occupancy():
    t = DHCTree(Flat(13))  # 8 + 4 + 1
    assert forest_sizes(13) == [8, 4, 1]
    a = t.allocate(3)
    b = t.allocate(1)
    c = t.allocate(4)
    assert [g.nodes[0] for g in (a, b, c)] == [0, 4, 8]
    occ = t.occupancy
    assert occ.shape == (13,) and occ[:5].tolist() == [a.id] * 4 + [b.id]
    assert t.free_nodes().tolist() == [5, 6, 7, 12]
    assert np.array_equal(t.free_nodes(), np.flatnonzero(occ == 0))
    t.reset()
    assert t.free_nodes().tolist() == list(range(13)) and t.free == 13


def test_single_processor_machine():
    t = DHCTree(Flat(1), assignment="weight")
    a = t.allocate(1)
    assert a.placement == TreeNode(0, 0, 0, 0, 0) and t.allocate(1) is None
    with pytest.raises(RequestSizeError):
        t.allocate(2)

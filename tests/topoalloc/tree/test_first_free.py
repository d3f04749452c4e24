"""FirstFree on switch trees: the stateful machine with the constraint oracle, and its rule."""

import numpy as np

from topoalloc.testing import allocator_machine, switch_trees
from topoalloc.tree import FirstFree
from topologies import SwitchTree, TreeRequest

TestFirstFreeMachine = allocator_machine(FirstFree, switch_trees()).TestCase


def test_lowest_free_ids_in_order():
    ff = FirstFree(SwitchTree.uniform((2, 4)))
    a, b = ff.allocate(3), ff.allocate(2)
    ff.release(a)
    assert ff.allocate(4).nodes.tolist() == [0, 1, 2, 5]
    assert b.nodes.tolist() == [3, 4]


def test_required_level_is_a_best_fit_domain():
    t = SwitchTree.uniform((3, 4), names=("rack", "host"))
    ff = FirstFree(t)
    ff.allocate(3)  # rack0 keeps 1 free
    ff.allocate(TreeRequest(2, required="rack"))  # rack1 (rack0 has only one free node)
    got = ff.allocate(TreeRequest(1, required="rack"))
    assert got.nodes.tolist() == [3]  # rack0: fewest free nodes that fit
    assert ff.allocate(TreeRequest(4, required="rack")).nodes.tolist() == [8, 9, 10, 11]
    assert ff.allocate(TreeRequest(3, required="rack")) is None
    assert ff.place_in(TreeRequest(2, required="rack"), np.ones(12, dtype=bool)).tolist() == [0, 1]

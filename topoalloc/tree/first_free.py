"""The first ``n`` free nodes: the baseline every topology-aware tree allocator is measured against."""

from __future__ import annotations

from topologies import SwitchTree

from .base import TreeAllocator

__all__ = ["FirstFree"]


class FirstFree(TreeAllocator):
    """The ``n`` lowest free node ids, wherever they lie in the tree.

    The rule of simulators that model a fat tree but place jobs without regard to it (ExaDigiT
    RAPS, ``raps/resmgr`` -- its default resource manager hands a job the first ``n`` nodes of its
    free list), and the topology-unaware baseline of the topology-aware placements. Constraints
    are honoured by :class:`~topoalloc.tree.TreeAllocator`'s defaults (the lowest free ids inside
    the best-fitting domain). Complexity: O(N) vectorised per allocation.

    >>> from topologies import SwitchTree
    >>> ff = FirstFree(SwitchTree.uniform((2, 4)))
    >>> a = ff.allocate(3); b = ff.allocate(2); a.nodes.tolist(), b.nodes.tolist()
    ([0, 1, 2], [3, 4])
    """

    def __init__(self, topology: SwitchTree) -> None:
        super().__init__(topology)

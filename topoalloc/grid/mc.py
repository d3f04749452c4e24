"""MC1x1 (Mache, Lo & Windisch 1997) on a mesh or torus of any dimension: L-infinity shells around
every free node as a centre."""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Mesh

from .noncontig import GridNoncontiguousAllocator, _coords, check_table, neighbour_table

__all__ = ["MC1x1"]


class MC1x1(GridNoncontiguousAllocator):
    """MC1x1 (Mache, Lo & Windisch, "Minimizing message-passing contention in fragmentation-free
    processor allocation", Proc. 10th Int. Conf. on Parallel and Distributed Computing Systems,
    1997), the variant of their MC allocator whose shell 0 is a single node, as Bender, Bunde,
    Demaine, Fekete, Leung, Meijer & Phillips study it again (Algorithmica 50(2), 2008), here on a
    mesh or torus of any dimension; on a 2D mesh without wrap it makes the same grants as
    :class:`topoalloc.mesh.MC1x1`.

    Every free node is a candidate centre. Around a centre, shell ``r`` holds the nodes at
    L-infinity distance ``r`` (shell 0 is the centre itself; a shell is the surface of a cube of
    side ``2r + 1``, cut by the machine's faces, or wrapped on a ring). A request for ``n``
    processors takes free nodes shell by shell outwards until it has ``n``, at a cost of ``r`` per
    node taken from shell ``r``; the candidate with the least total cost wins and the grant is its
    ``n`` nodes. ``allocate`` fails only when fewer than ``n`` nodes are free. Unlike :class:`MM`
    (whose centres include grid points that are not free nodes), it has no approximation
    guarantee for the pairwise distance.

    Interpretations (as in the 2D allocator, generalised): ties between centres go to the lowest
    node id; within the last shell, the nodes nearest the centre in the machine's hop distance
    are taken first, then the lowest ids (the paper does not order a shell). On a torus the
    shells wrap (displacements the shorter way round a ring); shells count processors, so link
    weights change only the order within a shell.

    Computation: a read-only table lists, for every node, all nodes by (shell, hop distance, tie
    rule) (:class:`~topoalloc.grid.noncontig.NeighbourTable`, shared per geometry; O(P^2) memory,
    a machine beyond :data:`~topoalloc.grid.noncontig.MAX_TABLE_BYTES` is refused). Each free
    centre's grant is the first ``n`` free entries of its row (over a growing row prefix:
    :meth:`~topoalloc.grid.noncontig.NeighbourTable.nearest`) and its cost the sum of their shells,
    from their coordinates. O(F M + F n d) vectorised work per allocate for ``F`` free nodes and
    ``M`` the row prefix holding ``n`` free nodes (about ``1.5 n P / F``), O(n) per release; the
    table is built once per geometry in O(P^2 log P).

    >>> from topologies import Mesh
    >>> m = MC1x1(Mesh(5, 5))
    >>> m.allocate(9).nodes.tolist()   # a 3x3 ball: the first centre of least cost is (1, 1)
    [0, 1, 2, 5, 6, 7, 10, 11, 12]
    >>> m.allocate(5).nodes.tolist()   # centre (3, 1): itself, three neighbours, then (4, 0)
    [3, 4, 8, 9, 13]
    """

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        check_table("MC1x1", topology, self._size)
        self._table = neighbour_table(self.dims, self.ring, self.weights, "linf")
        xyz = _coords(self.dims)
        self._axes = [np.ascontiguousarray(xyz[:, j]) for j in range(self.ndim)]  # each node's coordinates

    def centre_costs(self, n: int, free: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(centres, costs)``: every node marked in ``free`` (default: the free nodes), ascending,
        and its MC1x1 cost for ``n`` processors (the sum of the shells of its ``n`` nearest marked
        nodes)."""
        mask = ~self.busy if free is None else np.asarray(free, dtype=bool).ravel()
        if not 0 < n <= int(mask.sum()):
            raise ValueError(f"{n} nodes asked for, {int(mask.sum())} are marked free")
        centres = np.flatnonzero(mask)
        return centres, self._costs(centres, mask, n)[0]

    def _costs(self, centres: np.ndarray, free: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Each centre's total shell and its ``n`` nodes: the shell of a node is its largest
        displacement from the centre, taken per dimension (the shorter way round a ring)."""
        sel = self._table.nearest(centres, free, n)
        shell = np.zeros(sel.shape, dtype=np.int64)
        for axis, L, ring in zip(self._axes, self.dims, self.ring, strict=True):
            d = np.abs(axis.take(sel) - axis.take(centres)[:, None])
            if ring:
                np.minimum(d, L - d, out=d)
            np.maximum(shell, d, out=shell)
        return shell.sum(axis=1), sel

    def _choose_on(self, free: np.ndarray, n: int) -> np.ndarray:
        costs, sel = self._costs(np.flatnonzero(free), free, n)
        return np.sort(sel[int(costs.argmin())])

    def _clone_state(self, twin: Any) -> None:
        return None

"""MM, the centre-based allocator of Bender, Bunde, Demaine, Fekete, Leung, Meijer & Phillips, with
an approximation guarantee for the average pairwise distance, on a mesh or torus of any dimension."""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Mesh

from .noncontig import GridNoncontiguousAllocator, PairSums, _coords, check_table, neighbour_table

__all__ = ["MM"]


class MM(GridNoncontiguousAllocator):
    """MM (Bender, Bunde, Demaine, Fekete, Leung, Meijer & Phillips, "Communication-aware processor
    allocation for supercomputers: finding point sets of small average distance", Algorithmica
    50(2), 2008; WADS 2005; arXiv cs/0407058): the paper's natural algorithm for choosing ``k``
    free processors of least average pairwise L1 distance, a 7/4-approximation on 2D grids and a
    (2 - 1/(2d))-approximation in ``d`` dimensions, which the paper shows is tight.

    **Rule.** The *candidate centres* are the grid points whose coordinate in every dimension is
    the coordinate, in that dimension, of some free processor (the intersections of the axis-
    parallel lines, planes, ... through the free processors; a candidate may itself be busy or
    hold no processor of the request). For each candidate, take the ``k`` free processors closest
    to it in L1 distance; of these sets, grant the one with the least sum (so least average) of
    pairwise L1 distances. A variant that tries only free processors as centres, as
    :class:`MC1x1` does, has no such guarantee (on small 2D instances it reaches twice the
    optimum; ``benchmarks/mm_bound.py``).

    **Sources of the rule.** The paper's abstract (the bounds) and the rule as the SST scheduler's
    ``NearestAllocator`` builds MM (``sst-elements``, ``src/sst/elements/scheduler/allocators/``:
    centres from ``IntersectionCenterGen``, the grid points of the free processors' coordinates;
    ``L1PointCollector``; ``PairwiseL1DistScorer``), read to understand; the paper's own statement
    of the candidate set and tie rule beyond its abstract could not be retrieved, so the rules
    below are this implementation's, and the bound is checked against them.

    **Interpretations** (the description above leaves them open):

    * *Ties between equally near processors*: the lowest node id. The bound is checked with this
      rule on random small instances against the optimum (``tests/topoalloc/grid/test_mm_bound.py``).
    * *Ties between candidates of equal cost*: the candidate with the lowest node id.
    * *Torus and weights*: distances are the machine's, the shorter way round a ring and each
      dimension's displacement times its link weight, for the nearest processors and the cost
      alike; the candidate set is the same. The paper's guarantee is for L1 distance without
      wrap; on a torus or with weights none is claimed here.
    * When exactly ``k`` processors are free they are the grant (every candidate takes them all).

    **Computation.** A read-only table lists, for every node, all nodes by distance under the tie
    rule (shared by the MM allocators of one geometry; O(P^2) memory, so a machine whose table
    would exceed :data:`~topoalloc.grid.noncontig.MAX_TABLE_BYTES` is refused with
    :class:`~topoalloc.MachineTooLargeError`). The ``k`` nearest free processors of every
    candidate are the first ``k`` free entries of its row, found over a prefix of the rows (long
    enough for ``k`` free processors at the present density, doubled for the rows still short) by
    one gather of free flags, the list of free positions and a binary search per row for where its
    positions start (:meth:`~topoalloc.grid.noncontig.NeighbourTable.nearest`). Each candidate's
    pairwise sum is ``sum_q w_q f_q (k - f_q)`` over the *cuts* ``q`` of the machine (a line of
    ``L`` nodes has ``L - 1``, an even ring ``L / 2``, an odd ring ``L`` counted half), ``f_q`` the
    candidate's nodes on one side of cut ``q``; the counts of every cut are added at once, as bit
    fields of one or a few 64-bit words per node (:class:`~topoalloc.grid.noncontig.PairSums`).
    The candidates are one OR over the free nodes' coordinate bits. No Python loop over
    candidates or nodes. A request for one node costs 0 at every candidate, so it is the first
    candidate's nearest free node, found from that row alone.

    Complexity: O(C M + C k w + C Q) vectorised work per allocate, for ``C <= P`` candidates
    (every node once all coordinates hold a free processor), ``M`` the row prefix that holds ``k``
    free processors (about ``1.5 k P / free``, at most ``P``), ``Q`` cuts (12 on an 8 x 8 x 8
    torus) and ``w`` words of cut fields per node (``Q`` fields of ``log2(k + 1)`` bits: one word
    on that torus for ``k < 32``); O(k) per release.
    The table is built once per geometry in O(P^2 log P).

    >>> from topologies import Mesh
    >>> m = MM(Mesh(5, 5))
    >>> m.allocate(5).nodes.tolist(), m.allocate(4).nodes.tolist()   # pairwise sums 16 and 8
    ([0, 1, 2, 5, 6], [3, 4, 8, 9])
    >>> free = np.zeros(25, dtype=bool); free[[1, 5, 7, 11, 24]] = True   # a ring around busy (1, 1)
    >>> len(m.candidates(free)), 6 in m.candidates(free), m.place_in(4, free).tolist()
    (16, True, [1, 5, 7, 11])
    """

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        check_table("MM", topology, self._size)
        self._table = neighbour_table(self.dims, self.ring, self.weights, "l1")
        self._pair_sums = PairSums(self.dims, self.ring, self.weights)
        self._strides = np.array([1, *np.cumprod(self.dims[:-1])], dtype=np.int64)
        # Each node's coordinates as bits of one word (bit ``sum_{i<j} L_i + x_j`` for dimension j), so
        # that the coordinates held by free nodes are one OR over them; None when they need more than 64.
        offsets = np.concatenate([[0], np.cumsum(self.dims)[:-1]]).astype(np.uint64)
        self._coord_bits: np.ndarray | None = None
        if sum(self.dims) <= 64:
            bits = np.uint64(1) << (_coords(self.dims).astype(np.uint64) + offsets)
            self._coord_bits = np.bitwise_or.reduce(bits, axis=1)
        self._all_bits = np.uint64((1 << min(64, sum(self.dims))) - 1)

    def candidates(self, free: np.ndarray | None = None) -> np.ndarray:
        """The candidate centres, ascending node ids: every grid point whose coordinate in each
        dimension is that of some node marked in ``free`` (default: the free nodes)."""
        got = self._candidates(~self.busy if free is None else np.asarray(free, dtype=bool).ravel())
        return np.arange(self._size) if got is None else got

    def _candidates(self, free: np.ndarray) -> np.ndarray | None:
        """:meth:`candidates`, or ``None`` when every grid point is one. O(P): one OR over the free
        nodes' coordinate bits (or a reduction per dimension when the sides add up to more than 64)."""
        nd = self.ndim
        present: list[np.ndarray]
        if self._coord_bits is not None:
            held = np.bitwise_or.reduce(self._coord_bits[free])
            if held == self._all_bits:
                return None
            bits = (held >> np.arange(sum(self.dims), dtype=np.uint64)) & np.uint64(1) == 1
            present = np.split(bits, np.cumsum(self.dims)[:-1])
        else:
            grid = free.reshape(self.dims[::-1])
            present = [np.asarray(grid.any(axis=tuple(a for a in range(nd) if a != nd - 1 - j))) for j in range(nd)]
            if all(p.all() for p in present):
                return None
        ids = np.zeros(1, dtype=np.int64)
        for j in range(nd - 1, -1, -1):  # the last dimension outermost: ascending ids
            vals = np.flatnonzero(present[j]) * self._strides[j]
            ids = (ids[:, None] + vals[None, :]).ravel()
        return ids

    def candidate_costs(self, n: int, free: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(centres, costs)``: every candidate centre (ascending ids) and the sum of pairwise
        distances of its ``n`` nearest nodes marked in ``free`` (default: the free nodes); MM grants
        the set of the first least cost. ``n`` must not exceed the marked nodes."""
        mask = ~self.busy if free is None else np.asarray(free, dtype=bool).ravel()
        if not 0 < n <= int(mask.sum()):
            raise ValueError(f"{n} nodes asked for, {int(mask.sum())} are marked free")
        cands = self._candidates(mask)
        costs = self._pair_sums.of_columns(self._table.nearest(cands, mask, n, columns=True))
        return (np.arange(self._size) if cands is None else cands), costs

    def _choose_on(self, free: np.ndarray, n: int) -> np.ndarray:
        nfree = int(np.count_nonzero(free))
        if n == nfree:
            return np.flatnonzero(free)
        cands = self._candidates(free)
        if n == 1:  # every candidate's cost is 0: the first candidate's nearest free node
            first = np.zeros(1, dtype=np.int64) if cands is None else cands[:1]
            got: np.ndarray = self._table.nearest(first, free, 1, nfree)[0]
            return got
        sel = self._table.nearest(cands, free, n, nfree, columns=True)
        best = int(self._pair_sums.of_columns(sel).argmin())
        return np.sort(sel[:, best])

    def _clone_state(self, twin: Any) -> None:
        return None

"""A centre-based allocator: MC1x1 (Mache, Lo & Windisch 1997)."""

from __future__ import annotations

import math

import numpy as np

from topologies import Mesh

from .noncontig import NoncontiguousAllocator

__all__ = ["MC1x1"]


class MC1x1(NoncontiguousAllocator):
    """MC1x1 (Mache, Lo & Windisch, "Minimizing message-passing contention in fragmentation-free
    processor allocation", Proc. 10th Int. Conf. on Parallel and Distributed Computing Systems,
    1997): the variant of their MC allocator whose shell 0 is a single node, as studied again by
    Bender, Bunde, Demaine, Fekete, Leung, Meijer & Phillips ("Communication-aware processor
    allocation for supercomputers", WADS 2005 / Algorithmica 2008, §2).

    Every free node is a candidate centre. Around a centre, shell ``r`` is the ring of nodes at
    L-infinity distance ``r`` (shell 0 is the centre itself); a request for ``n`` processors takes
    free nodes shell by shell outwards until it has ``n``, at a cost of ``r`` per node taken from
    shell ``r``. The candidate with the least total cost wins, and the grant is its ``n`` nearest
    free nodes. ``allocate`` fails only when fewer than ``n`` nodes are free (``recognition =
    "any"``).

    Interpretations: ties between centres go to the lowest node id (row-major); within the last
    shell, the nodes nearest the centre in Manhattan distance are taken first, then the lowest ids
    (the paper does not order a shell).

    Computation: with ``C_c(r)`` the free nodes within L-infinity distance ``r`` of centre ``c``,
    the cost of ``c`` is ``sum_{r >= 0} max(0, n - C_c(r))``. A summed-area table of the free mask
    (zero-padded by the largest radius needed) gives ``C_c(r)`` for every centre at once as four
    array slices per radius; radii grow until every candidate still short of ``n`` already costs
    more than the best complete one (its cost can only grow). O(P R)
    vectorised work per allocate for the ``R`` radii examined (about ``sqrt(n P / free) / 2``),
    plus an O(P) selection of the nearest nodes; O(n) per release.

    >>> from topologies import Mesh
    >>> m = MC1x1(Mesh(5, 5))
    >>> m.allocate(9).nodes.tolist()   # a 3x3 ball: the first centre of least cost is (1, 1)
    [0, 1, 2, 5, 6, 7, 10, 11, 12]
    >>> m.allocate(5).nodes.tolist()   # centre (3, 1): itself, three neighbours, then (4, 0)
    [3, 4, 8, 9, 13]
    """

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        H, W = self.height, self.width
        self._maxr = max(W, H) - 1  # a ball of this radius around any node holds the whole mesh
        yy, xx = np.divmod(np.arange(W * H, dtype=np.int64), W)
        self._xy = (xx, yy)

    @staticmethod
    def _sat(free: np.ndarray, pad: int) -> np.ndarray:
        """Summed-area table of ``free`` zero-padded by ``pad`` on every side: ``sat[i, j]`` counts
        the free nodes in padded rows ``< i`` and columns ``< j``."""
        H, W = free.shape
        padded = np.zeros((H + 2 * pad, W + 2 * pad), dtype=np.int32)
        padded[pad: pad + H, pad: pad + W] = free
        sat = np.zeros((H + 2 * pad + 1, W + 2 * pad + 1), dtype=np.int32)
        np.cumsum(padded, axis=0, out=sat[1:, 1:])
        np.cumsum(sat[1:, 1:], axis=1, out=sat[1:, 1:])
        return sat

    def _search(self, n: int) -> tuple[int, int, np.ndarray, np.ndarray]:
        """``(centre, radius, total, short)``: the chosen centre, the radius the search stopped at,
        every centre's cost so far and its shortfall ``max(0, n - C_c(radius))`` (0: complete)."""
        H, W = self.height, self.width
        free = ~self.busy
        nfree = self._free
        if not 0 < n <= nfree:
            raise ValueError(f"{n} nodes asked for, {nfree} are free")
        pad = min(self._maxr, max(1, math.ceil(math.sqrt(n * H * W / nfree))))
        sat = self._sat(free, pad)
        total = self.busy.astype(np.int64) * (2 * n * (self._maxr + 2))  # busy centres never win
        count = np.empty((H, W), dtype=np.int64)
        key = np.empty((H, W), dtype=np.int64)
        r = 0
        while True:
            if r > pad:
                pad = min(self._maxr, 2 * pad)
                sat = self._sat(free, pad)
            a, b = pad - r, pad + r + 1
            np.subtract(sat[b: b + H, b: b + W], sat[a: a + H, b: b + W], out=count)
            count -= sat[b: b + H, a: a + W]
            count += sat[a: a + H, a: a + W]
            np.subtract(n, count, out=count)  # the shortfall at radius r
            np.maximum(count, 0, out=count)
            total += count
            # key 2 * cost + complete: its least entry is odd exactly when a complete candidate costs less
            # than every incomplete one (whose cost can only grow), and it is then the lowest such id
            np.multiply(total, 2, out=key)
            key += count == 0
            c = int(key.argmin())
            if key.flat[c] & 1:
                return c, r, total, count
            r += 1

    def centre_costs(self, n: int) -> np.ndarray:
        """The MC1x1 cost of every node as a centre for ``n`` processors, as a ``(height, width)``
        float array: ``inf`` for busy nodes and for candidates that cost more than the best one (the
        search stops early); exact for every finite entry, so every centre of least cost is finite."""
        _, _, total, short = self._search(n)
        return np.where(~self.busy & (short == 0), total, np.inf)

    def _choose(self, n: int) -> np.ndarray:
        c, r, _, _ = self._search(n)
        W, H = self.width, self.height
        cx, cy = c % W, c // W
        x0, x1, y0, y1 = max(cx - r, 0), min(cx + r + 1, W), max(cy - r, 0), min(cy + r + 1, H)
        ids = self._ids[y0:y1, x0:x1][~self.busy[y0:y1, x0:x1]]  # the free nodes of the ball, ascending
        xx, yy = self._xy
        dx = np.abs(xx[ids] - cx)
        dy = np.abs(yy[ids] - cy)
        key = np.maximum(dx, dy) * (W + H) + dx + dy  # shell first, then Manhattan distance
        if n < len(ids):
            kth = np.partition(key, n - 1)[n - 1]
            inner = ids[key < kth]
            nodes = np.concatenate((inner, ids[key == kth][: n - len(inner)]))  # ties: lowest ids
            nodes.sort()
        else:
            nodes = ids.copy()
        return nodes

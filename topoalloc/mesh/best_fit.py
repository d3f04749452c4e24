"""Zhu's best-fit submesh allocation (Zhu 1992)."""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Mesh, Submesh

from ..base import Allocation
from ._zhu import ZhuAllocator
from .base import Grant

__all__ = ["BestFit", "BestFitOracle"]


class BestFit(ZhuAllocator):
    """Best fit (BF) (Zhu, "Efficient processor allocation strategies for mesh-connected parallel
    computers", JPDC 16, 1992; Chang & Mohapatra, seed 002 §4.3 call it as good as first fit).

    Zhu's BF "tries to schedule the task to a submesh in the smallest region of free processors,
    reserving the larger regions for later tasks". It computes Zhu's coverage array
    (:meth:`~topoalloc.mesh._zhu.ZhuAllocator.coverage`), whose unmarked bases are all the free
    ``w x h`` submeshes (perfect recognition), and picks the candidate that is most hemmed in.

    Criterion implemented (our reading; the original paper was not available to check the exact
    wording): :meth:`score` of the candidate ``w x h`` submesh based at ``(x, y)`` is the number of
    its ``2 (w + h)`` edge-adjacent neighbour positions (the node directly below and above each of
    its columns, left and right of each of its rows; diagonal corners are not neighbours in a mesh)
    that are busy **or outside the mesh** (the mesh boundary counts as busy). The highest score wins;
    ties go to the first base in row-major order from ``(0, 0)`` (``y`` outer, ``x`` inner), the
    first-fit order. (A different reading -- counting the busy neighbours of the *base* in the
    coverage array -- is possible; this class does not implement it.) With ``rotate=True`` an
    ``h x w`` submesh is considered only when no ``w x h`` one is free (the granted request is then
    ``(h, w)``); the two orientations are not scored against each other.

    Complexity: O(k + MN) time and O(MN) space per allocation for ``k`` live allocations (the
    coverage marking, then the scores of every base from row and column prefix sums of the busy
    array, all vectorised); release O(wh). A request with no free submesh at all is refused after
    the bit-parallel first-fit search alone (O(MN (log w + log h) / 64) word operations), without
    scoring.

    ``BestFit.oracle`` is a :class:`BestFitOracle`, which :func:`topoalloc.testing.oracle_for`
    picks up, so ``allocator_machine(BestFit, meshes())`` also checks every choice.

    >>> from topologies import Mesh
    >>> bf = BestFit(Mesh(5, 3))
    >>> a = bf.allocate((2, 2)); a.placement              # the corner (0, 0) touches 4 boundary nodes
    Submesh(x=0, y=0, width=2, height=2)
    >>> bf.score(0, 2, 2, 1), bf.score(2, 0, 1, 1), bf.score(4, 0, 1, 1)
    (5, 2, 2)
    >>> bf.allocate((1, 1)).placement                      # (0, 2): below busy, left and above boundary
    Submesh(x=0, y=2, width=1, height=1)
    """

    oracle: Any = None  # set below, after BestFitOracle is defined

    def __init__(self, topology: Mesh, rotate: bool = False) -> None:
        super().__init__(topology, rotate)

    def clone(self) -> BestFit:
        """A copy of the busy store, the free mask and the live grants (:meth:`Allocator.clone`).
        O(MN)."""
        return self._zhu_clone() if type(self) is BestFit else super().clone()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`~topoalloc.Allocator.allocate_avoiding` (the generic search), answered ``None`` at
        once when no free submesh at all stays off ``avoid`` (perfect recognition: then none of the
        allocator's placements does either)."""
        if self.place_in(request, ~self.busy.ravel() & ~np.asarray(avoid, dtype=bool).ravel()) is None:
            return None
        return super().allocate_avoiding(request, avoid)

    def score(self, x: int, y: int, w: int, h: int) -> int:
        """Busy or off-mesh positions among the ``2 (w + h)`` edge neighbours of the ``w x h``
        submesh based at ``(x, y)`` (which must lie inside the mesh), in the current state, whether
        the submesh itself is free or not. O(w + h)."""
        p = self._pad  # padded coordinates: node (x, y) is p[y + 1, x + 1]; the border is busy
        return int(
            p[y, x + 1 : x + w + 1].sum()
            + p[y + h + 1, x + 1 : x + w + 1].sum()
            + p[y + 1 : y + h + 1, x].sum()
            + p[y + 1 : y + h + 1, x + w + 1].sum()
        )

    def scores(self, w: int, h: int) -> np.ndarray:
        """:meth:`score` of every base ``(x, y)`` with ``x <= width - w``, ``y <= height - h``, as a
        ``(height - h + 1, width - w + 1)`` array (row = y), free or not. O(MN)."""
        p = self._pad.astype(np.int32)
        H, W = self.height, self.width
        ny, nx = H - h + 1, W - w + 1
        rows = np.zeros((H + 2, W + 3), dtype=np.int32)
        np.cumsum(p, axis=1, out=rows[:, 1:])
        run_x = rows[:, w:] - rows[:, :-w]  # run_x[r, c] = p[r, c : c + w].sum()
        cols = np.zeros((H + 3, W + 2), dtype=np.int32)
        np.cumsum(p, axis=0, out=cols[1:, :])
        run_y = cols[h:, :] - cols[:-h, :]  # run_y[r, c] = p[r : r + h, c].sum()
        below = run_x[0:ny, 1 : nx + 1]
        above = run_x[h + 1 : h + 1 + ny, 1 : nx + 1]
        left = run_y[1 : ny + 1, 0:nx]
        right = run_y[1 : ny + 1, w + 1 : w + 1 + nx]
        total: np.ndarray = below + above + left + right
        return total

    def best_base(self, w: int, h: int) -> tuple[int, int] | None:
        """``(x, y)`` of the best free ``w x h`` submesh by the criterion above, or ``None``."""
        if w > self.width or h > self.height:
            return None
        ny, nx = self.height - h + 1, self.width - w + 1
        free = ~self.coverage(w, h)[:ny, :nx]
        ranked = np.where(free, self.scores(w, h), -1)
        i = int(ranked.argmax())  # the first maximum in row-major order
        y, x = divmod(i, nx)
        return None if ranked[y, x] < 0 else (x, y)

    def _place(self, request: tuple[int, int]) -> Grant | None:
        if request[0] * request[1] > self._free:
            return None
        bits = self._free_bits()
        for w, h in self._orientations(request):
            if self._first_in(bits, w, h) is None:
                continue  # no free w x h submesh at all (bit-parallel): no need to score the bases
            base = self.best_base(w, h)
            if base is not None:
                return self._grant(base[0], base[1], w, h)
        return None


def _window_is_free(free: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
    return bool(free[y : y + h, x : x + w].all())


def _neighbour_score(free: np.ndarray, x: int, y: int, w: int, h: int) -> int:
    """Brute-force :meth:`BestFit.score` on a free mask, one neighbour at a time."""
    H, W = free.shape
    n = 0
    for i in range(x, x + w):
        for j in (y - 1, y + h):
            n += not (0 <= j < H) or not free[j, i]
    for j in range(y, y + h):
        for i in (x - 1, x + w):
            n += not (0 <= i < W) or not free[j, i]
    return n


class BestFitOracle:
    """Test oracle for :class:`BestFit` (the ``oracle`` protocol of :mod:`topoalloc.testing`).

    Calling it says whether a placement exists (:func:`topoalloc.testing.perfect_submesh`, imported
    lazily so this module does not need hypothesis). :meth:`check_choice` brute-forces every free
    placement on the free mask taken before the call and asserts that the grant is the one
    :class:`BestFit` promises: the right orientation, the highest neighbour score, and among equal
    scores the first base in row-major order. Meant for small meshes (O((MN)^2) per check).
    """

    def __call__(self, allocator: Any, free: np.ndarray, request: Any) -> bool:
        from topoalloc.testing import perfect_submesh

        return perfect_submesh(allocator, free, allocator.validate(request))

    def check_choice(self, allocator: Any, free: np.ndarray, request: Any, allocation: Any) -> None:
        w, h = allocator.validate(request)
        H, W = free.shape
        shapes = [(w, h)] + ([(h, w)] if getattr(allocator, "rotate", False) and w != h else [])
        for sw, sh in shapes:
            bases = [
                (x, y) for y in range(H - sh + 1) for x in range(W - sw + 1) if _window_is_free(free, x, y, sw, sh)
            ]
            if bases:
                break
        assert bases, f"{allocation!r} granted but no free {w}x{h} submesh existed"
        scored = [(_neighbour_score(free, x, y, sw, sh), x, y) for x, y in bases]
        best = max(s for s, _, _ in scored)
        x, y = next((x, y) for s, x, y in scored if s == best)
        expected = Submesh(x, y, sw, sh)
        got = allocation.placement
        assert allocation.request == (sw, sh) and got == expected, (
            f"best fit for {request!r} chose {got!r} (score "
            f"{_neighbour_score(free, got.x, got.y, got.width, got.height)}), expected {expected!r} "
            f"(score {best})"
        )


BestFit.oracle = BestFitOracle()

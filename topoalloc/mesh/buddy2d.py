"""Two-dimensional buddy allocation (Li & Cheng 1991) on a square power-of-two mesh."""

from __future__ import annotations

import heapq

import numpy as np

from topologies import Mesh, Submesh

from ..base import Allocation
from ..errors import UnsupportedTopologyError
from .base import Grant, MeshAllocator

__all__ = ["Buddy2D"]


def _side(request: tuple[int, int]) -> int:
    """The power of two at or above the longer side of ``request``."""
    return 1 << (max(request) - 1).bit_length()


class Buddy2D(MeshAllocator):
    """Two-dimensional buddy (TDB) allocation (Li & Cheng, JPDC 12, 1991; Chang & Mohapatra,
    seed 002 §2.1.1).

    The mesh must be a square of side ``2^n``; anything else raises
    :class:`~topoalloc.UnsupportedTopologyError`. A request ``(w, h)`` is rounded up to the
    ``s x s`` square with ``s`` the power of two at or above ``max(w, h)``; the granted request is
    ``(s, s)`` and :meth:`request_size` is ``s * s``. Blocks are the aligned squares of a quadtree: a
    square of side ``2^j`` at ``(x, y)`` (both multiples of ``2^j``) splits into its four quadrants,
    and four free buddy quadrants merge back into their parent.

    Placement rule: the free aligned ``s x s`` block with the **least Z-order (Morton) address**,
    where the address of ``(x, y)`` interleaves the bits ``... y1 x1 y0 x0`` (x in the even bits).
    In that order every aligned block of side ``2^j`` is the address range
    ``[m 4^j, (m + 1) 4^j)``, so the scheme is the one-dimensional buddy system on Morton addresses
    with a branching factor of four. Free space is kept as the maximal free blocks in per-order free
    lists (a set per order for membership, a min-heap per order for the least address, stale heap
    entries dropped lazily and the heap rebuilt when stale entries dominate). Every free aligned
    ``s x s`` block lies in exactly one listed block of order ``>= log2 s`` and the least such block
    starts at that listed block's address, so the least address over the lists of orders
    ``log2 s .. n`` is the answer; ``allocate`` returns ``None`` only when no aligned ``s x s``
    block is free.

    Complexity: allocate and release cost O(n log B) for a ``2^n x 2^n`` mesh with ``B`` free
    blocks (at most ``n`` splits or merges, each a few set and heap operations) plus the
    O(s^2) marking of the busy array and the node ids, instead of the
    O(k (M/N)^2) search of the paper's description (§2.1.1). Recognition: aligned buddy squares only.

    Folding (§3.2, §4.1): a fold halves the square, ``(w, h) -> (s/2, s/2)``, a quarter of the
    processors; a ``1 x 1`` request does not fold.

    >>> from topologies import Mesh
    >>> b = Buddy2D(Mesh(8, 8))
    >>> a = b.allocate((3, 2)); c = b.allocate((1, 1)); d = b.allocate((2, 2))
    >>> a.request, a.placement, b.free
    ((4, 4), Submesh(x=0, y=0, width=4, height=4), 43)
    >>> c.placement, d.placement
    (Submesh(x=4, y=0, width=1, height=1), Submesh(x=6, y=0, width=2, height=2))
    >>> b.fold((3, 2)), b.fold((1, 1))
    ((2, 2), None)
    >>> b.release(a); b.release(c); b.release(d); b.free_blocks()
    [Submesh(x=0, y=0, width=8, height=8)]
    """

    recognition = "buddy"

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        side = self.width
        if self.height != side or side & (side - 1):
            raise UnsupportedTopologyError(
                f"Buddy2D needs a square mesh with a power-of-two side, got a {self.width}x{self.height} mesh"
            )
        n = side.bit_length() - 1
        self.order: int = n
        self._sets: list[set[int]] = [set() for _ in range(n + 1)]
        self._heaps: list[list[int]] = [[] for _ in range(n + 1)]
        self._sets[n].add(0)
        self._heaps[n].append(0)

    # -- Morton addresses ---------------------------------------------------------------------
    def _address(self, x: int, y: int) -> int:
        """Z-order address of node ``(x, y)``: x in the even bits, y in the odd bits."""
        a = 0
        for i in range(self.order):
            a |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1)
        return a

    def _coords(self, a: int) -> tuple[int, int]:
        """``(x, y)`` of Z-order address ``a``."""
        x = y = 0
        for i in range(self.order):
            x |= ((a >> (2 * i)) & 1) << i
            y |= ((a >> (2 * i + 1)) & 1) << i
        return x, y

    # -- the public surface -------------------------------------------------------------------
    def request_size(self, request: tuple[int, int]) -> int:
        """``s * s``: the processors of the rounded-up square."""
        s = _side(self.validate(request))
        return s * s

    def fold(self, request: tuple[int, int]) -> tuple[int, int] | None:
        """``(s/2, s/2)`` for the rounded-up side ``s``, or ``None`` when ``s == 1``."""
        s = _side(self.validate(request))
        return (s // 2, s // 2) if s > 1 else None

    def free_blocks(self) -> list[Submesh]:
        """The maximal free buddy squares, by Z-order address."""
        out = []
        for j, s in enumerate(self._sets):
            for a in s:
                x, y = self._coords(a)
                out.append((a, Submesh(x, y, 1 << j, 1 << j)))
        return [sub for _, sub in sorted(out, key=lambda t: t[0])]

    def free_nodes(self) -> np.ndarray:
        """Node ids covered by the free lists (not the busy array), ascending."""
        parts = [b.node_ids(self.width) for b in self.free_blocks()]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

    def clone(self) -> Buddy2D:
        """A copy of the busy array, the free lists and the live grants (:meth:`Allocator.clone`).
        O(MN + B) for ``B`` free blocks."""
        if type(self) is not Buddy2D:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        twin._sets = [set(s) for s in self._sets]
        twin._heaps = [h[:] for h in self._heaps]
        return twin

    # -- free lists ---------------------------------------------------------------------------
    def _push(self, order: int, a: int) -> None:
        self._sets[order].add(a)
        heap = self._heaps[order]
        if len(heap) > 2 * len(self._sets[order]) + 16:  # mostly stale: rebuild (a sorted list is a heap)
            heap[:] = sorted(self._sets[order])
        else:
            heapq.heappush(heap, a)

    def _least_block(self, k: int) -> tuple[int, int] | None:
        """(address, order) of the least-addressed free block of order >= k."""
        best_addr = best_order = -1
        for j in range(k, self.order + 1):
            s = self._sets[j]
            if not s:
                continue
            h = self._heaps[j]
            top = h[0]
            while top not in s:  # drop stale entries
                heapq.heappop(h)
                top = h[0]
            if best_addr < 0 or top < best_addr:
                best_addr, best_order = top, j
        return None if best_addr < 0 else (best_addr, best_order)

    def _least_aligned(self, free: np.ndarray, s: int) -> int | None:
        """The least Z-order address of an aligned ``s x s`` block whose nodes are all marked in the
        ``(height, width)`` mask ``free``, or ``None``."""
        n = self.width // s
        ok = free.reshape(n, s, n, s).all(axis=(1, 3)).ravel()
        if not ok.any():
            return None
        return int(self._block_addresses(s)[ok].min())

    def _block_addresses(self, s: int) -> np.ndarray:
        """Z-order addresses of the aligned ``s x s`` blocks, in row-major block order (cached)."""
        cache = self.__dict__.setdefault("_addresses", {})
        found: np.ndarray | None = cache.get(s)
        if found is None:
            n = self.width // s
            by, bx = np.divmod(np.arange(n * n), n)
            x, y = bx * s, by * s
            found = np.zeros(n * n, dtype=np.int64)
            for i in range(self.order):
                found |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1)
            found.flags.writeable = False
            cache[s] = found
        return found

    def place_in(self, request: tuple[int, int], free: np.ndarray) -> np.ndarray | None:
        """The aligned ``s x s`` block with the least Z-order address whose nodes are all marked in
        ``free`` (the allocator's own rule on that free set; :meth:`Allocator.place_in`). O(MN)."""
        s = _side(self.validate(request))
        found = self._least_aligned(np.asarray(free, dtype=bool).reshape(self.height, self.width), s)
        if found is None:
            return None
        x, y = self._coords(found)
        return self._ids[y : y + s, x : x + s].ravel()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` directly: successive placements are the free aligned
        blocks by increasing Z-order address, so the grant is the least one that touches no avoided
        node. O(MN) plus the split."""
        s = _side(self.validate(request))
        k = s.bit_length() - 1
        a = self._least_aligned(~(self.busy | np.asarray(avoid, dtype=bool).reshape(self.height, self.width)), s)
        if a is None:
            return None
        for j in range(k, self.order + 1):  # the maximal free block holding it
            top = a & ~((1 << (2 * j)) - 1)
            if top in self._sets[j]:
                break
        self._sets[j].discard(top)
        for order in range(j - 1, k - 1, -1):  # split down around it, freeing the other quadrants
            q = 1 << (2 * order)
            mine = top + (a - top) // q * q
            for i in range(4):
                if top + i * q != mine:
                    self._push(order, top + i * q)
            top = mine
        x, y = self._coords(a)
        return self._register(*self._grant(x, y, s, s))

    def _place(self, request: tuple[int, int]) -> Grant | None:
        s = _side(request)
        k = s.bit_length() - 1
        found = self._least_block(k)
        if found is None:
            return None
        a, j = found
        self._sets[j].discard(a)
        # split down to order k: keep the first quadrant, free the other three at each level
        for order in range(j - 1, k - 1, -1):
            q = 1 << (2 * order)
            for i in (1, 2, 3):
                self._push(order, a + i * q)
        x, y = self._coords(a)
        return self._grant(x, y, s, s)

    def _unplace(self, allocation: Allocation) -> int:
        count = super()._unplace(allocation)
        p = allocation.placement
        a = self._address(p.x, p.y)
        order = p.width.bit_length() - 1
        while order < self.order:
            q = 1 << (2 * order)
            parent = a & ~(4 * q - 1)
            s = self._sets[order]
            siblings = [parent + i * q for i in range(4) if parent + i * q != a]
            if not all(b in s for b in siblings):
                break
            for b in siblings:
                s.discard(b)  # their heap entries become stale
            a = parent
            order += 1
        self._push(order, a)
        return count

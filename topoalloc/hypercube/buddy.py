"""Binary buddy subcube allocation on a hypercube."""

from __future__ import annotations

import heapq

import numpy as np

from topologies import Hypercube, Subcube

from ..base import Allocation
from .base import CubeAllocator

__all__ = ["Buddy"]

_subcube = Subcube._unchecked


class Buddy(CubeAllocator):
    """Buddy subcube allocation (Chang & Mohapatra, seed 002 §2.1.2; Knowlton's buddy system).

    A ``k``-cube request takes the aligned block ``[m 2^k, (m+1) 2^k - 1]`` with the **least** ``m``
    whose nodes are all free. Free space is kept as maximal free buddy blocks in per-order free
    lists (a set per order for membership, a min-heap per order for the least address, stale heap
    entries dropped lazily and the heap rebuilt when they outnumber the live ones). Every free
    aligned ``2^k`` block lies in exactly one maximal free block
    of order ``>= k`` and the least such block starts at that block's address, so the least ``m`` is
    the smallest address in the lists of orders ``k..n``.

    Complexity: allocate and release cost O(n log B) for an ``n``-cube with ``B`` free blocks (at most
    ``n - k`` splits, at most ``n - k`` buddy merges, each a set and heap operation), not the
    O(2^n) scan of the paper's description. Recognition: buddy blocks only, so ``*0*1``-style
    subcubes are never found.

    >>> from topologies import Hypercube
    >>> b = Buddy(Hypercube(3))
    >>> a = b.allocate(1); c = b.allocate(2)
    >>> a.placement.pattern(3), c.placement.pattern(3), b.free
    ('00*', '1**', 2)
    >>> b.release(a); b.free
    4
    """

    recognition = "buddy"

    def __init__(self, topology: Hypercube) -> None:
        super().__init__(topology)
        n = self.dim
        self._sets: list[set[int]] = [set() for _ in range(n + 1)]
        self._heaps: list[list[int]] = [[] for _ in range(n + 1)]
        self._orders_from = [tuple(range(k, n + 1)) for k in range(n + 1)]
        self._sets[n].add(0)
        self._heaps[n].append(0)

    def allocate(self, request: int) -> Allocation | None:
        """Place a ``k``-cube request (see the class docstring); ``None`` if no buddy block is free.

        The generic :meth:`Allocator.allocate` with :meth:`_place` inlined: this is the hot path of
        every cube simulation.
        """
        k = request if type(request) is int and 0 <= request <= self.dim else self.validate(request)
        sets = self._sets
        heaps = self._heaps
        best_addr = best_order = -1
        for j in self._orders_from[k]:
            fl = sets[j]
            if fl:
                h = heaps[j]
                top = h[0]
                while top not in fl:  # lazily drop stale entries
                    heapq.heappop(h)
                    top = h[0]
                if best_addr < 0 or top < best_addr:
                    best_addr, best_order = top, j
        if best_addr < 0:
            return None
        addr = best_addr
        sets[best_order].discard(addr)
        push = heapq.heappush
        for order in range(k, best_order):  # split, freeing the upper halves
            buddy = addr + (1 << order)
            sets[order].add(buddy)
            push(heaps[order], buddy)
        aid = self._next_id
        self._next_id = aid + 1
        alloc = Allocation(self._owner, aid, k, _subcube(addr, (1 << k) - 1), None)
        self._live[aid] = alloc
        self._free -= 1 << k
        return alloc

    def _least_block(self, k: int) -> tuple[int, int] | None:
        """(address, order) of the least-addressed free block of order >= k."""
        best_addr = -1
        best_order = -1
        sets = self._sets
        heaps = self._heaps
        for j in self._orders_from[k]:
            s = sets[j]
            if s:
                h = heaps[j]
                top = h[0]
                while top not in s:  # lazily drop stale entries
                    heapq.heappop(h)
                    top = h[0]
                if best_addr < 0 or top < best_addr:
                    best_addr, best_order = top, j
        return None if best_addr < 0 else (best_addr, best_order)

    def _place(self, k: int):
        found = self._least_block(k)
        if found is None:
            return None
        addr, j = found
        sets = self._sets
        sets[j].discard(addr)
        # split: keep [addr, addr + 2^k), free the upper halves at orders k .. j-1
        heaps = self._heaps
        push = heapq.heappush
        for order in range(k, j):
            buddy = addr + (1 << order)
            sets[order].add(buddy)
            push(heaps[order], buddy)
        return k, _subcube(addr, (1 << k) - 1), None, 1 << k

    def _unplace(self, allocation: Allocation) -> int:
        cube = allocation.placement
        addr = cube.base
        k = order = allocation.request
        sets = self._sets
        n = self.dim
        while order < n:
            buddy = addr ^ (1 << order)
            s = sets[order]
            if buddy not in s:
                break
            s.discard(buddy)  # its heap entry becomes stale
            h = self._heaps[order]
            if len(h) > 2 * len(s) + 32:  # keep stale entries from piling up in long runs
                h[:] = sorted(s)
            addr &= ~(1 << order)
            order += 1
        sets[order].add(addr)
        heapq.heappush(self._heaps[order], addr)
        return 1 << k

    def free_nodes(self) -> np.ndarray:
        """Node ids covered by the free lists (for invariant checks), ascending."""
        parts = [c.node_ids() for c in self.free_blocks()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def free_blocks(self) -> list[Subcube]:
        """The maximal free buddy blocks, by address."""
        return sorted(
            (Subcube(a, (1 << j) - 1) for j, s in enumerate(self._sets) for a in s), key=lambda c: c.base
        )

"""Gray-code (GC) subcube allocation on a hypercube, with one or several Gray codes."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from topologies import Hypercube, Subcube

from .._blocks import block_any
from ..base import Allocation
from .base import CubeAllocator

__all__ = ["GrayCode", "gray_permutations"]

# 2, 4 and 8 bytes of True viewed as one unsigned integer
_ONES16, _ONES32, _ONES64 = np.uint16(0x0101), np.uint32(0x01010101), np.uint64(0x0101010101010101)


def gray_permutations(n: int) -> Iterator[tuple[int, ...]]:
    """Dimension orders of the Gray codes :class:`GrayCode` uses, the identity first.

    There are ``C(n, n // 2)`` of them, one per chain of de Bruijn, van Ebbenhorst Tengbergen and
    Kruyswijk's symmetric chain decomposition of the subsets of ``{0..n-1}`` (built recursively:
    a chain ``A_1 < ... < A_m`` of ``{0..e-1}`` gives ``A_1 < ... < A_m < A_m + {e}`` and, if
    ``m > 1``, ``A_1 + {e} < ... < A_{m-1} + {e}``), extended to a maximal chain: the order lists
    the bottom set, then the element each step of the chain adds, then the rest. Every subset of
    dimensions lies on one chain, so it is the set of the first ``|S|`` dimensions of some order.
    Generated depth-first and lazily, so the first few orders of a 20-cube are cheap.

    >>> list(gray_permutations(3))
    [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    """

    def walk(bottom: frozenset[int], adds: tuple[int, ...], e: int) -> Iterator[tuple[int, ...]]:
        if e == n:
            rest = sorted(set(range(n)) - bottom - set(adds))
            yield (*sorted(bottom), *adds, *rest)
            return
        yield from walk(bottom, (*adds, e), e + 1)
        if adds:
            yield from walk(bottom | {e}, adds[:-1], e + 1)

    yield from walk(frozenset(), (), 0)


class GrayCode(CubeAllocator):
    """Gray-code subcube allocation (Chen & Shin, "Processor allocation in an N-cube
    multiprocessor using Gray codes", IEEE TC C-36(12), 1987; summarised in Chang & Mohapatra,
    seed 002 §2.1.2).

    The nodes are listed in binary-reflected Gray code (BRGC) order: position ``i`` holds node
    ``g(i) = i ^ (i >> 1)``. A ``k``-cube request (``k >= 1``) takes ``2^k`` consecutive positions,
    cyclically (the BRGC is a Hamiltonian *cycle*), starting at a multiple of ``2^(k-1)``, whose
    nodes are all free; a ``0``-cube takes any free position. Every such block is a subcube: the
    aligned blocks free the ``k`` low dimensions of the code, the half-shifted ones the ``k - 1``
    low dimensions plus dimension ``k``, and the wrap-around block the ``k - 1`` low ones plus the
    top dimension. So the code recognises ``2^(n-k+1)`` ``k``-cubes, twice the buddy system's
    ``2^(n-k)`` (the count the literature quotes for the GC strategy). The **first** free block,
    by starting position, is taken.

    Multiple Gray codes (Chen & Shin's multiple-GC strategy): ``codes = C`` uses the first ``C``
    orders of :func:`gray_permutations`, the BRGC with its bit ``j`` moved to dimension
    ``perm[j]``; the codes are searched in that order and the first code with a free block wins.
    Code 0 is the plain BRGC. Chen & Shin show that ``C(n, floor(n/2))`` Gray codes give
    complete subcube recognition (seed 002 §2.1.2 lists the multiple GC among the perfect-
    recognition schemes); the paper's own choice of codes could not be retrieved, so the
    codes here come from a symmetric chain decomposition, for which completeness holds by
    construction (every set of ``k`` dimensions is the low-``k`` set of some code, so every
    ``k``-subcube is an aligned block of that code) and is checked against the brute-force
    perfect-recognition oracle in the tests. ``codes`` must lie in ``1..C(n, floor(n/2))``.

    ``orders`` holds each code's node-id sequence and ``perms`` its dimension order (for
    :func:`topoalloc.testing.gray_code_blocks`).

    Literature lookup (``search`` tool): only secondary sources surfaced; they confirm the GC
    strategy's ``2^(n-k+1)`` recognised ``k``-cubes in O(2^n) time (so the cyclic wrap-around block
    belongs to the strategy) but not the paper's construction of the multiple codes.

    Complexity: each code keeps its own free flags in code order, so a search is a vectorised
    ``numpy`` pass over ``2^n`` flags per code tried (flags are compared eight at a time as
    ``uint64`` words), O(C 2^n) worst case; allocate and release then update ``2^k`` flags per
    code. Memory: two ``int64`` arrays and one flag array of ``2^n`` entries per code.

    >>> from topologies import Hypercube
    >>> g = GrayCode(Hypercube(3))
    >>> g.orders[0].tolist()
    [0, 1, 3, 2, 6, 7, 5, 4]
    >>> a = g.allocate(0); b = g.allocate(1)   # positions 0 and 1..2 (a half-shifted block)
    >>> a.placement.pattern(3), b.placement.pattern(3), b.placement.is_buddy
    ('000', '0*1', False)
    >>> g.allocate(2).placement.pattern(3)
    '1**'
    """

    recognition = "gray"

    def __init__(self, topology: Hypercube, codes: int = 1) -> None:
        super().__init__(topology)
        n = self.dim
        most = math.comb(n, n // 2)
        if isinstance(codes, bool) or not isinstance(codes, int) or not 1 <= codes <= most:
            raise ValueError(
                f"codes must be an integer in 1..{most} (C({n}, {n // 2}) Gray codes for a {n}-cube), "
                f"got {codes!r}"
            )
        self.codes = codes
        size = 1 << n
        positions = np.arange(size, dtype=np.int64)
        gray = positions ^ (positions >> 1)
        self.perms: list[tuple[int, ...]] = []
        self.orders: list[np.ndarray] = []
        self._pos: list[np.ndarray] = []
        self._gfree: list[np.ndarray] = []
        for perm in gray_permutations(n):
            if len(self.perms) == codes:
                break
            order = np.zeros(size, dtype=np.int64)
            for j, d in enumerate(perm):
                order |= ((gray >> j) & 1) << d
            order.flags.writeable = False
            inverse = np.empty(size, dtype=np.int64)
            inverse[order] = positions
            self.perms.append(perm)
            self.orders.append(order)
            self._pos.append(inverse)
            self._gfree.append(np.ones(size, dtype=bool))
        self._is_free = np.ones(size, dtype=bool)

    def __repr__(self) -> str:
        return f"GrayCode({self.topology!r}, codes={self.codes})"

    # -- search -------------------------------------------------------------------------------
    @staticmethod
    def _blocks_free(flags: np.ndarray, width: int) -> np.ndarray:
        """Per aligned block of ``width`` (a power of two) flags: are they all set? Eight flags
        at a time are compared as one ``uint64`` word, repeatedly, then two or four as a
        ``uint16`` / ``uint32``."""
        while width >= 8:
            flags = flags.view(np.uint64) == _ONES64
            width >>= 3
        if width == 4:
            flags = flags.view(np.uint32) == _ONES32
        elif width == 2:
            flags = flags.view(np.uint16) == _ONES16
        return flags

    def _first_block(self, flags: np.ndarray, k: int) -> int | None:
        """Starting position of the first free GC block for a ``k``-cube, or ``None``."""
        if k == 0:
            i = int(flags.argmax())
            return i if flags[i] else None
        half = 1 << (k - 1)
        h = self._blocks_free(flags, half)
        if len(h) == 2:  # k == n: the whole cube
            return 0 if h[0] and h[1] else None
        ok = h[:-1] & h[1:]  # halves j and j + 1 both free
        i = int(ok.argmax())
        if ok[i]:
            return i * half
        if h[-1] and h[0]:  # the block wrapping from the last half to the first
            return (len(h) - 1) * half
        return None

    def _search(self, k: int, gfree: list[np.ndarray] | None = None) -> tuple[np.ndarray, int] | None:
        """(code order, starting position) of the first free block, codes in order (on the flags
        ``gfree``, default the allocator's own)."""
        for order, flags in zip(self.orders, self._gfree if gfree is None else gfree, strict=True):
            start = self._first_block(flags, k)
            if start is not None:
                return order, start
        return None

    def _block_nodes(self, order: np.ndarray, start: int, k: int) -> np.ndarray:
        """The node ids (ascending) of the ``k``-block of code ``order`` at position ``start``."""
        size = self._size
        span = np.arange(start, start + (1 << k), dtype=np.int64)
        if start + (1 << k) > size:
            span %= size
        return np.sort(order[span])

    def place_in(self, request: int, free: np.ndarray) -> np.ndarray | None:
        """The first Gray-code block, codes in order, whose nodes are all marked in ``free`` (the
        allocator's own rule on that free set; :meth:`Allocator.place_in`). O(C 2^n)."""
        k = self.validate(request)
        free = np.asarray(free, dtype=bool).ravel()
        found = self._search(k, [free[order] for order in self.orders])
        return None if found is None else self._block_nodes(found[0], found[1], k)

    def allocate_avoiding(self, request: int, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding`: the same sequence of placements, searched on copies
        of the free flags in which each rejected block is marked taken (no grants are made for
        them). O(C 2^n) per rejected block."""
        k = self.validate(request)
        if 1 << k > self._free:
            return None
        if self.codes == 1:
            start = self._first_avoiding(k, np.asarray(avoid, dtype=bool))
            if start is None:
                return None
            nodes = self._block_nodes(self.orders[0], start, k)
            self._mark(nodes, False)
            base = int(nodes[0])
            return self._register(k, Subcube(base, int(np.bitwise_or.reduce(nodes ^ base))), nodes, 1 << k)
        gfree = None
        while True:
            found = self._search(k, gfree)
            if found is None:
                return None
            nodes = self._block_nodes(found[0], found[1], k)
            if not avoid[nodes].any():
                break
            if gfree is None:
                gfree = [f.copy() for f in self._gfree]
            for pos, flags in zip(self._pos, gfree, strict=True):
                flags[pos[nodes]] = False
        self._mark(nodes, False)
        base = int(nodes[0])
        return self._register(k, Subcube(base, int(np.bitwise_or.reduce(nodes ^ base))), nodes, 1 << k)

    def _first_avoiding(self, k: int, avoid: np.ndarray) -> int | None:
        """One code: the position of the first block, in the order successive placements take them
        (each held as taken), that touches no avoided node. For ``k >= 1`` the placements pair up
        the free half-blocks of every run of them from its left end (halves ``j, j + 1``, then
        ``j + 2, j + 3``, ...), then the block wrapping from the last half to the first if both
        are still free."""
        order, flags = self.orders[0], self._gfree[0]
        bad = avoid[order]
        if k == 0:
            ok = flags & ~bad
            i = int(ok.argmax())
            return i if ok[i] else None
        half = 1 << (k - 1)
        h = self._blocks_free(flags, half)
        bad_half = block_any(bad, half)
        count = len(h)
        if count == 2:  # the whole cube
            return 0 if h[0] and h[1] and not (bad_half[0] or bad_half[1]) else None
        idx = np.arange(count)
        run_start = np.maximum.accumulate(np.where(h & ~np.concatenate(([False], h[:-1])), idx, 0))
        even = (idx - run_start) % 2 == 0
        pair = np.zeros(count, dtype=bool)
        pair[:-1] = h[:-1] & h[1:] & even[:-1]
        good = pair.copy()
        good[:-1] &= ~(bad_half[:-1] | bad_half[1:])
        j = int(good.argmax())
        if good[j]:
            return j * half
        last = count - 1
        if h[last] and h[0] and even[last] and not pair[0] and not (bad_half[last] or bad_half[0]):
            return last * half
        return None

    def _place(self, k: int) -> tuple[int, Subcube, np.ndarray, int] | None:
        if 1 << k > self._free:
            return None
        found = self._search(k)
        if found is None:
            return None
        order, start = found
        nodes = self._block_nodes(order, start, k)
        self._mark(nodes, False)
        base = int(nodes[0])
        mask = int(np.bitwise_or.reduce(nodes ^ base))
        return k, Subcube(base, mask), nodes, 1 << k

    def _mark(self, nodes: np.ndarray, value: bool) -> None:
        self._is_free[nodes] = value
        for pos, flags in zip(self._pos, self._gfree, strict=True):
            flags[pos[nodes]] = value

    def _unplace(self, allocation: Allocation) -> int:
        nodes = allocation.nodes
        self._mark(nodes, True)
        return len(nodes)

    def clone(self) -> GrayCode:
        """A copy of the free flags (one array per code) and the live grants
        (:meth:`Allocator.clone`); the codes themselves are shared (read-only). O(C 2^n)."""
        if type(self) is not GrayCode:
            return super().clone()
        twin = self._shallow_clone()
        twin._gfree = [f.copy() for f in self._gfree]
        twin._is_free = self._is_free.copy()
        return twin

    def free_nodes(self) -> np.ndarray:
        """Ids of the nodes the allocator's own flags hold free, ascending."""
        return np.flatnonzero(self._is_free)

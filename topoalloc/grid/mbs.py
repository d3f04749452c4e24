"""The multiple buddy strategy, MBS (Lo, Windisch, Liu & Nitzberg 1997), on a mesh or torus of any
dimension: ``2^d``-ary buddy cubes (octets in 3D, as the SST scheduler's ``OctetMBSAllocator``)."""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from topologies import Box, Mesh

from .noncontig import GridNoncontiguousAllocator, _strides

__all__ = ["MBS", "cube_decomposition"]


def cube_decomposition(dims: tuple[int, ...]) -> list[Box]:
    """The initial blocks of MBS: a box of sides ``dims`` cut into cubes whose sides are powers of two.

    Recursively, a box is tiled with as many cubes of side ``s`` (the largest power of two ``<=``
    its shortest side) as fit from its lowest corner, ``k_i = L_i // s`` along dimension ``i``, and
    the rest of the box is cut into ``d`` slabs that are decomposed the same way: slab ``i`` is the
    part beyond the tiles along dimension ``i``, spanning the whole box along the dimensions below
    ``i`` and the tiles along those above (in 2D: the strip right of the tiles and the full-width
    strip above them, as :func:`topoalloc.mesh.square_decomposition`). Returned largest first, then
    by node id of the lowest corner (the last dimension outermost). A power-of-two cube is one
    block. O(P) at worst.

    >>> [(b.origin, b.shape[0]) for b in cube_decomposition((8, 8, 8))]
    [((0, 0, 0), 8)]
    >>> [(b.origin, b.shape[0]) for b in cube_decomposition((3, 2, 2))]
    [((0, 0, 0), 2), ((2, 0, 0), 1), ((2, 1, 0), 1), ((2, 0, 1), 1), ((2, 1, 1), 1)]
    """
    d = len(dims)
    out: list[tuple[tuple[int, ...], int]] = []
    todo: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((0,) * d, tuple(dims))]
    while todo:
        corner, sides = todo.pop()
        if min(sides) <= 0:
            continue
        s = 1 << (min(sides).bit_length() - 1)
        k = [L // s for L in sides]
        for idx in np.ndindex(*k[::-1]):
            out.append((tuple(c + i * s for c, i in zip(corner, idx[::-1], strict=True)), s))
        for i in range(d):
            origin = list(corner)
            origin[i] += k[i] * s
            part = tuple(sides[j] if j < i else sides[j] - k[j] * s if j == i else k[j] * s for j in range(d))
            todo.append((tuple(origin), part))
    out.sort(key=lambda b: (-b[1], b[0][::-1]))
    return [Box(corner, (s,) * d) for corner, s in out]


def _morton(local: np.ndarray, bits: int) -> np.ndarray:
    """Z-order keys of the ``(m, d)`` local coordinates (bit ``i`` of coordinate ``j`` at ``d i + j``)."""
    m, d = local.shape
    key = np.zeros(m, dtype=np.int64)
    for i in range(bits):
        for j in range(d):
            key |= ((local[:, j] >> i) & 1) << (d * i + j)
    return key


class _FreeBlocks:
    """MBS's free block records: per order ``i`` (blocks of side ``2^i``, ``2^(d i)`` addresses) the
    set of free block addresses and a heap of them (with stale entries) for the least."""

    __slots__ = ("sets", "heaps")

    def __init__(self, orders: int) -> None:
        self.sets: list[set[int]] = [set() for _ in range(orders)]
        self.heaps: list[list[int]] = [[] for _ in range(orders)]

    def copy(self) -> _FreeBlocks:
        twin = _FreeBlocks(0)
        twin.sets = [set(s) for s in self.sets]
        twin.heaps = [list(h) for h in self.heaps]
        return twin

    def push(self, order: int, a: int) -> None:
        s = self.sets[order]
        s.add(a)
        heap = self.heaps[order]
        if len(heap) > 2 * len(s) + 16:  # mostly stale entries: rebuild (a sorted list is a heap)
            heap[:] = sorted(s)
        else:
            heapq.heappush(heap, a)

    def pop_least(self, order: int) -> int:
        s, heap = self.sets[order], self.heaps[order]
        a = heapq.heappop(heap)
        while a not in s:  # stale entry
            a = heapq.heappop(heap)
        s.discard(a)
        return a

    def take(self, n: int, d: int) -> list[tuple[int, int]]:
        """Take blocks for ``n`` nodes (at most the free nodes): ``[(address, order), ...]``."""
        sets = self.sets
        top = len(sets) - 1
        base = d  # log2 of 2^d, the fan-out
        need = [0] * (top + 1)
        rest = n
        for i in range(top, -1, -1):  # base-2^d digits; what lies above the largest order goes to it
            q = rest >> (base * i)
            need[i] = q
            rest -= q << (base * i)
        fan = 1 << d
        taken: list[tuple[int, int]] = []
        for i in range(top, -1, -1):
            want = need[i]
            while want:
                if sets[i]:
                    taken.append((self.pop_least(i), i))
                    want -= 1
                    continue
                j = i + 1
                while j <= top and not sets[j]:
                    j += 1
                if j > top:  # no block of this size or larger: each missing block becomes 2^d smaller ones
                    need[i - 1] += fan * want  # i > 0 here: single free nodes always exist when n <= free
                    break
                a = self.pop_least(j)
                for order in range(j - 1, i - 1, -1):  # split down, keeping the least child
                    q = 1 << (base * order)
                    for c in range(fan - 1, 0, -1):
                        self.push(order, a + c * q)
                taken.append((a, i))
                want -= 1
        return taken

    def give(self, taken: list[tuple[int, int]], root_order: list[int], d: int) -> None:
        """Return blocks and merge buddies upwards, never beyond a root."""
        sets = self.sets
        fan = 1 << d
        for a, order in taken:
            top = root_order[a]
            while order < top:
                q = 1 << (d * order)
                parent = a & ~(fan * q - 1)
                s = sets[order]
                siblings = [parent + c * q for c in range(fan) if parent + c * q != a]
                if not all(b in s for b in siblings):
                    break
                for b in siblings:
                    s.discard(b)  # their heap entries become stale
                a = parent
                order += 1
            self.push(order, a)


class MBS(GridNoncontiguousAllocator):
    """The multiple buddy strategy (MBS) (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor
    allocation algorithms for mesh-connected multicomputers", IEEE TPDS 8(7), 1997, §3), in ``d``
    dimensions with ``2^d``-ary buddy cubes: octets in 3D, as the SST scheduler's
    ``OctetMBSAllocator`` (``sst-elements``, ``src/sst/elements/scheduler/allocators/``, read to
    understand) built them on 3D meshes. On a 2D mesh without wrap it makes the same grants as
    :class:`topoalloc.mesh.MBS`.

    **Initialisation.** The machine is divided into non-overlapping cubes whose sides are powers of
    two (:func:`cube_decomposition`; a ``2^k``-cube machine is one block). These initial blocks are
    the roots of ``2^d``-ary buddy trees: a block of side ``2^i`` splits into its ``2^d`` sub-cubes of
    side ``2^(i-1)`` (buddies) and ``2^d`` free buddies merge back into their parent, never beyond a
    root.

    **Allocation.** A request for ``n`` processors is factored as ``n = sum_i c_i 2^(d i)``, the
    base-``2^d`` digits ``c_i < 2^d``: ``c_i`` blocks of side ``2^i``. From the largest ``i`` down, each
    block is taken from the free block records ``FBR[i]``; if ``FBR[i]`` is empty, the smallest
    larger free block is split buddy-style down to side ``2^i`` (the unused buddies go to the
    records of their sizes); if no larger block exists either, the missing blocks of side ``2^i``
    are each broken into ``2^d`` requests of side ``2^(i-1)``. ``allocate`` fails only when fewer
    than ``n`` nodes are free. **Release** returns each block to ``FBR`` and merges buddies
    upwards.

    Interpretations, as in the 2D allocator: addresses order the blocks (initial blocks largest
    first, then by node id of their corner, each laid out in Z (Morton) order, bit ``i`` of
    coordinate ``j`` at ``d i + j``); the **least-addressed** block of a size is taken, the
    least-addressed block of the smallest non-empty larger size is split, and a split keeps the
    child with the least address. The decomposition of a machine that is not a power-of-two cube
    generalises the 2D one (SST's octet version cuts the remainder slabs slightly differently).
    Blocks do not wrap around a torus (the buddy system is the mesh's; wrap-around only shortens
    the distances between blocks).

    **What-if.** The records are always the maximal free aligned blocks (a release merges every
    complete set of buddies), so the choice depends only on which nodes are free:
    :meth:`place_in` rebuilds those records from the mask (vectorised, one pass per order) and
    runs the same rule on them.

    Complexity: allocation and release are O(b 2^d log B) for a grant of ``b`` blocks with ``B``
    free blocks (set and heap operations per block, at most ``log_{2^d} P`` splits or merges per
    block), plus O(n) vectorised work for the node ids; ``b <= (2^d - 1) log_{2^d} n`` unless the free
    space is fragmented into smaller blocks than the request's digits. Construction and
    :meth:`place_in` O(P log P).

    >>> from topologies import Torus
    >>> m = MBS(Torus(4, 4, 4))
    >>> a = m.allocate(10)            # 10 = 1 * 8 + 2 * 1: a 2x2x2 octet and two single nodes
    >>> [(b.origin, b.shape[0]) for b in m.blocks(a)]
    [((0, 0, 0), 2), ((2, 0, 0), 1), ((3, 0, 0), 1)]
    >>> m.release(a); m.free_blocks()
    [Box(origin=(0, 0, 0), shape=(4, 4, 4))]
    """

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        d, dims = self.ndim, self.dims
        roots = cube_decomposition(dims)
        self.roots: tuple[Box, ...] = tuple(roots)
        P = self._size
        strides = np.array(_strides(dims), dtype=np.int64)
        addr2node = np.empty(P, dtype=np.int64)
        root_order = np.empty(P, dtype=np.int64)  # address -> order of the root holding it
        offset = 0
        starts = []
        for r in roots:
            side = r.shape[0]
            k = side.bit_length() - 1
            m = side ** d
            local = np.stack(np.unravel_index(np.arange(m, dtype=np.int64), (side,) * d)[::-1], axis=1)
            addr2node[offset + _morton(local, k)] = (local + np.array(r.origin)) @ strides
            root_order[offset: offset + m] = k
            starts.append((offset, k))
            offset += m
        self._addr2node = addr2node
        self._addr2node.flags.writeable = False
        self._root_order = root_order
        self._root_order_list: list[int] = root_order.tolist()
        self.max_order: int = max(k for _, k in starts)
        self._records = _FreeBlocks(self.max_order + 1)
        for a, k in starts:
            self._records.push(k, a)
        self._grants: dict[int, list[tuple[int, int]]] = {}  # least node id of a grant -> its blocks

    # -- inspection ---------------------------------------------------------------------------
    def _block(self, a: int, order: int) -> Box:
        side = 1 << order
        node = int(self._addr2node[a])
        corner = []
        for L in self.dims:
            corner.append(node % L)
            node //= L
        return Box(tuple(corner), (side,) * self.ndim)

    def blocks(self, allocation: Any) -> list[Box]:
        """The blocks of a live grant of this allocator, in the order they were taken; a
        ``KeyError`` for anything else."""
        got = self._grants.get(int(allocation.nodes[0])) if len(allocation.nodes) else None
        if got is None or self._live.get(allocation.id) is not allocation:
            raise KeyError(f"{allocation!r} is not a live grant of this MBS allocator")
        return [self._block(a, k) for a, k in got]

    def free_blocks(self) -> list[Box]:
        """The free block records: every maximal free buddy block, by address."""
        return [self._block(a, k) for a, k in sorted((a, k) for k, s in enumerate(self._records.sets) for a in s)]

    # -- allocation ---------------------------------------------------------------------------
    def _nodes(self, taken: list[tuple[int, int]]) -> np.ndarray:
        addr2node, d = self._addr2node, self.ndim
        if len(taken) == 1:
            a, k = taken[0]
            nodes = addr2node[a: a + (1 << (d * k))].copy()
        else:
            nodes = np.concatenate([addr2node[a: a + (1 << (d * k))] for a, k in taken])
        nodes.sort()
        return nodes

    def _choose(self, n: int) -> np.ndarray:
        taken = self._records.take(n, self.ndim)
        nodes = self._nodes(taken)
        self._grants[int(nodes[0])] = taken
        return nodes

    def _give_back(self, nodes: np.ndarray) -> None:
        super()._give_back(nodes)
        self._records.give(self._grants.pop(int(nodes[0])), self._root_order_list, self.ndim)

    def _records_of(self, free: np.ndarray) -> _FreeBlocks:
        """The free block records when exactly the nodes of ``free`` are free: at each order, the
        aligned blocks inside a root of at least that order whose nodes are all free and whose
        parent (if inside the root) is not."""
        d, top = self.ndim, self.max_order
        P = self._size
        unit = 1 << (d * top)
        padded = np.zeros(-(-P // unit) * unit, dtype=bool)
        padded[:P] = free[self._addr2node]
        full: list[np.ndarray] = [padded]
        for _ in range(top):
            full.append(np.asarray(full[-1].reshape(-1, 1 << d).all(axis=1)))
        records = _FreeBlocks(top + 1)
        orders = np.concatenate([self._root_order, np.full(len(padded) - P, -1)])
        for i in range(top + 1):
            size = 1 << (d * i)
            root_at = orders[::size]
            keep = full[i] & (root_at >= i)
            if i < top:
                keep &= (root_at == i) | ~np.repeat(full[i + 1], 1 << d)
            addrs = (np.flatnonzero(keep) * size).tolist()
            records.sets[i] = set(addrs)
            records.heaps[i] = addrs  # ascending: a heap
        return records

    def _choose_on(self, free: np.ndarray, n: int) -> np.ndarray:
        return self._nodes(self._records_of(free).take(n, self.ndim))

    def _clone_state(self, twin: Any) -> None:
        twin._records = self._records.copy()
        twin._grants = dict(self._grants)

"""The multiple buddy strategy, MBS (Lo, Windisch, Liu & Nitzberg, IEEE TPDS 8(7), 1997, §3)."""

from __future__ import annotations

import heapq

import numpy as np

from topologies import Mesh, Submesh

from ..base import Allocation
from .noncontig import NoncontiguousAllocator

__all__ = ["MBS", "square_decomposition"]


def square_decomposition(width: int, height: int) -> list[Submesh]:
    """The initial blocks of MBS: the ``width x height`` mesh cut into power-of-two squares.

    Recursively, a ``w x h`` rectangle is tiled with as many squares of side ``s`` (the largest
    power of two ``<= min(w, h)``) as fit from its lower-left corner, and the strip to the right of
    the tiles and the strip above them (full width) are decomposed the same way. Returned largest
    first, then by ``(y, x)``. A power-of-two square mesh is one block.

    >>> square_decomposition(8, 8)
    [Submesh(x=0, y=0, width=8, height=8)]
    >>> [(b.x, b.y, b.width) for b in square_decomposition(6, 5)]
    [(0, 0, 4), (4, 0, 2), (4, 2, 2), (0, 4, 1), (1, 4, 1), (2, 4, 1), (3, 4, 1), (4, 4, 1), (5, 4, 1)]
    """
    out: list[Submesh] = []
    todo = [(0, 0, width, height)]
    while todo:
        x, y, w, h = todo.pop()
        if w <= 0 or h <= 0:
            continue
        s = 1 << (min(w, h).bit_length() - 1)
        kx, ky = w // s, h // s
        out.extend(Submesh(x + i * s, y + j * s, s, s) for j in range(ky) for i in range(kx))
        todo.append((x + kx * s, y, w - kx * s, ky * s))  # right of the tiles
        todo.append((x, y + ky * s, w, h - ky * s))  # above them
    out.sort(key=lambda b: (-b.width, b.y, b.x))
    return out


def _morton(dx: np.ndarray, dy: np.ndarray, bits: int) -> np.ndarray:
    key = np.zeros_like(dx)
    for i in range(bits):
        key |= ((dx >> i) & 1) << (2 * i) | ((dy >> i) & 1) << (2 * i + 1)
    return key


class MBS(NoncontiguousAllocator):
    """The multiple buddy strategy (MBS) (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor
    allocation algorithms for mesh-connected multicomputers", IEEE TPDS 8(7), 1997, §3).

    **Initialisation.** The mesh is divided into non-overlapping squares whose sides are powers of
    two (:func:`square_decomposition`; a ``2^k x 2^k`` mesh is one block). These initial blocks are
    the roots of buddy quadtrees: a block of side ``2^i`` splits into its four quadrants (buddies)
    and four free buddies merge back into their parent, never beyond a root.

    **Allocation.** A request for ``n`` processors (``w * h`` for ``(w, h)``) is factored as
    ``n = sum_i d_i 4^i``, the base-4 digits ``d_i <= 3``: ``d_i`` blocks of side ``2^i``. From the
    largest ``i`` down, each block is taken from the free block records ``FBR[i]``; if ``FBR[i]`` is
    empty, the smallest larger free block is split buddy-style down to side ``2^i`` (the unused
    buddies go to the records of their sizes); if no larger block exists either, the missing blocks
    of side ``2^i`` are each broken into four requests of side ``2^(i-1)``. ``allocate`` fails only
    when fewer than ``n`` nodes are free (``recognition = "any"``): every free node lies in some
    free block, and single nodes can always be taken. The grant is exactly ``n`` nodes, a union of
    aligned power-of-two squares of the initial blocks (:meth:`blocks`). **Release** returns each
    block to ``FBR`` and merges buddies upwards.

    Interpretations: the paper leaves open which free block of a size is taken and how a
    non-power-of-two mesh is cut. Here addresses order the blocks: initial blocks largest first,
    then by ``(y, x)``, each laid out in Z (Morton) order; a block of side ``2^i`` is the address
    range ``[m 4^i, (m + 1) 4^i)`` (the roots are sorted by size, so every root starts at a
    multiple of its own size) and the **least-addressed** block is taken from ``FBR[i]``, the
    least-addressed block of the smallest non-empty larger size is split, and a split keeps the
    quadrant with the least address (so the blocks a request takes from one split are
    consecutive).

    Complexity: allocation and release are O(b log B) for a grant of ``b`` blocks with ``B`` free
    blocks (set and heap operations per block, at most ``log4 P`` splits or merges per block), plus
    O(n) vectorised work for the node ids; ``b <= 3 log4 n`` unless the free space is fragmented
    into smaller blocks than the request's digits. Construction O(P).

    >>> from topologies import Mesh
    >>> m = MBS(Mesh(8, 8))
    >>> a = m.allocate(5)            # 5 = 1 * 4 + 1 * 1: a 2x2 block and a single node
    >>> [(b.x, b.y, b.width) for b in m.blocks(a)]
    [(0, 0, 2), (2, 0, 1)]
    >>> b = m.allocate((3, 3)); len(b.nodes), [(q.x, q.y, q.width) for q in m.blocks(b)]
    (9, [(0, 2, 2), (2, 2, 2), (3, 0, 1)])
    >>> m.release(a); m.release(b); m.free_blocks()
    [Submesh(x=0, y=0, width=8, height=8)]
    """

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        roots = square_decomposition(self.width, self.height)
        self.roots: tuple[Submesh, ...] = tuple(roots)
        P = self.width * self.height
        addr2node = np.empty(P, dtype=np.int64)
        root_order = np.empty(P, dtype=np.int64)  # address -> order of the root holding it
        offset = 0
        starts = []
        for r in roots:
            k = r.width.bit_length() - 1
            dy, dx = np.divmod(np.arange(r.width * r.width, dtype=np.int64), r.width)
            key = _morton(dx, dy, k)
            addr2node[offset + key] = (r.y + dy) * self.width + r.x + dx
            root_order[offset: offset + r.width * r.width] = k
            starts.append((offset, k))
            offset += r.width * r.width
        self._addr2node = addr2node
        self._node2addr = np.empty(P, dtype=np.int64)
        self._node2addr[addr2node] = np.arange(P)
        self._root_order = root_order.tolist()
        self.max_order: int = max(k for _, k in starts)
        n = self.max_order
        self._sets: list[set[int]] = [set() for _ in range(n + 1)]
        self._heaps: list[list[int]] = [[] for _ in range(n + 1)]
        for a, k in starts:
            self._sets[k].add(a)
            self._heaps[k].append(a)
        for h in self._heaps:
            heapq.heapify(h)
        self._grants: dict[int, list[tuple[int, int]]] = {}  # least node id of a grant -> its blocks

    # -- free block records -------------------------------------------------------------------
    def _push(self, order: int, a: int) -> None:
        s = self._sets[order]
        s.add(a)
        heap = self._heaps[order]
        if len(heap) > 2 * len(s) + 16:  # mostly stale entries: rebuild (a sorted list is a heap)
            heap[:] = sorted(s)
        else:
            heapq.heappush(heap, a)

    def _pop_least(self, order: int) -> int:
        """Remove and return the least address of the non-empty ``FBR[order]``."""
        s, heap = self._sets[order], self._heaps[order]
        a = heapq.heappop(heap)
        while a not in s:  # stale entry
            a = heapq.heappop(heap)
        s.discard(a)
        return a

    def _block(self, a: int, order: int) -> Submesh:
        side = 1 << order
        node = int(self._addr2node[a])
        return Submesh(node % self.width, node // self.width, side, side)

    def blocks(self, allocation: Allocation) -> list[Submesh]:
        """The blocks of a live grant of this allocator, in the order they were taken."""
        got = self._grants.get(int(allocation.nodes[0]))
        if got is None or self._live.get(allocation.id) is not allocation:
            raise KeyError(f"{allocation!r} is not a live grant of this MBS allocator")
        return [self._block(a, k) for a, k in got]

    def free_blocks(self) -> list[Submesh]:
        """The free block records: every maximal free buddy block, by address."""
        return [self._block(a, k) for a, k in sorted((a, k) for k, s in enumerate(self._sets) for a in s)]

    # -- allocation ---------------------------------------------------------------------------
    def _choose(self, n: int) -> np.ndarray:
        sets = self._sets
        top = self.max_order
        need = [0] * (top + 1)
        rest = n
        for i in range(top, -1, -1):  # base-4 digits; what lies above the largest order goes to it
            q = rest >> (2 * i)
            need[i] = q
            rest -= q << (2 * i)
        taken: list[tuple[int, int]] = []
        for i in range(top, -1, -1):
            want = need[i]
            while want:
                if sets[i]:
                    taken.append((self._pop_least(i), i))
                    want -= 1
                    continue
                j = i + 1
                while j <= top and not sets[j]:
                    j += 1
                if j > top:  # no block of this size or larger: break the rest into quarters
                    need[i - 1] += 4 * want  # i > 0 here: single free nodes always exist when n <= free
                    break
                a = self._pop_least(j)
                for order in range(j - 1, i - 1, -1):  # split down, keeping the least quadrant
                    q = 1 << (2 * order)
                    self._push(order, a + 3 * q)
                    self._push(order, a + 2 * q)
                    self._push(order, a + q)
                taken.append((a, i))
                want -= 1
        addr2node = self._addr2node
        if len(taken) == 1:
            a, k = taken[0]
            nodes = addr2node[a: a + (1 << (2 * k))].copy()
        else:
            nodes = np.concatenate([addr2node[a: a + (1 << (2 * k))] for a, k in taken])
        nodes.sort()
        self._grants[int(nodes[0])] = taken
        return nodes

    def _give_back(self, nodes: np.ndarray) -> None:
        super()._give_back(nodes)
        sets, root_order = self._sets, self._root_order
        for a, order in self._grants.pop(int(nodes[0])):
            top = root_order[a]
            while order < top:
                q = 1 << (2 * order)
                parent = a & ~(4 * q - 1)
                s = sets[order]
                b1, b2, b3 = (parent + i * q for i in range(4) if parent + i * q != a)
                if b1 not in s or b2 not in s or b3 not in s:
                    break
                s.discard(b1)  # their heap entries become stale
                s.discard(b2)
                s.discard(b3)
                a = parent
                order += 1
            self._push(order, a)

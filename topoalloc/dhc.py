"""Distributed hierarchical control (DHC): a forest of binary partition trees on a flat machine."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topologies import Flat, RequestSizeError
from topologies._validate import check_int

from ._blocks import block_all, block_max, block_starts, runs_from
from ._memory import check_memory
from .base import Allocation, Allocator

__all__ = ["TreeNode", "TreeWeights", "DHCTree", "forest_sizes"]

#: Bytes per processor of a :class:`TreeWeights` (a heap-indexed list of two slots per processor)
#: and of a :class:`DHCTree` with its own weights (three such lists: measured 49 on CPython 3.11);
#: a forest needing more than the host's memory is refused up front.
_WEIGHT_BYTES = 16
_DHC_BYTES = 48


def forest_sizes(size: int) -> list[int]:
    """Tree sizes of the DHC forest of a ``size``-processor machine: the binary expansion of
    ``size``, largest first (seed 004 §2.6: 320 = 256 + 64).

    >>> forest_sizes(320), forest_sizes(7), forest_sizes(64)
    ([256, 64], [4, 2, 1], [64])
    """
    return [1 << b for b in range(size.bit_length() - 1, -1, -1) if size >> b & 1]


@dataclass(frozen=True, slots=True)
class TreeNode:
    """A partition of the DHC forest: node ``index`` (left to right) of ``level`` in tree ``tree``.

    A level-``i`` partition holds ``2**i`` processors (a class-``i`` partition of seed 004 §2.3);
    leaves are level 0, the root of a tree of ``2**height`` processors is level ``height``.
    ``offset`` is the tree's first processor id, so the partition covers the contiguous, aligned
    ids ``offset + index * 2**level ...``. ``height`` is carried so that :meth:`parent` knows the
    root.

    >>> root = TreeNode(tree=1, level=6, index=0, offset=256, height=6)
    >>> left, right = root.children()
    >>> right, right.size, right.start
    (TreeNode(tree=1, level=5, index=1, offset=256, height=6), 32, 288)
    >>> right.parent() == root, root.parent(), TreeNode(0, 0, 3, 0, 2).node_ids().tolist()
    (True, None, [3])
    """

    tree: int
    level: int
    index: int
    offset: int
    height: int

    def __post_init__(self) -> None:
        if not 0 <= self.level <= self.height:
            raise ValueError(f"TreeNode level {self.level} is outside 0..{self.height}")
        if not 0 <= self.index < 1 << (self.height - self.level):
            raise ValueError(
                f"TreeNode index {self.index} is outside 0..{(1 << (self.height - self.level)) - 1} "
                f"for level {self.level} of a height-{self.height} tree"
            )
        if self.tree < 0 or self.offset < 0:
            raise ValueError(f"TreeNode tree and offset must be >= 0, got {self.tree}, {self.offset}")

    @property
    def size(self) -> int:
        """Processors in the partition, ``2 ** level``."""
        return 1 << self.level

    @property
    def start(self) -> int:
        """First processor id."""
        return self.offset + (self.index << self.level)

    @property
    def stop(self) -> int:
        """One past the last processor id."""
        return self.offset + ((self.index + 1) << self.level)

    @property
    def span(self) -> tuple[int, int]:
        """``(start, stop)``: the processor ids as one half-open range."""
        start = self.offset + (self.index << self.level)
        return start, start + (1 << self.level)

    def node_ids(self) -> np.ndarray:
        """The processor ids, ascending (a contiguous aligned range)."""
        return np.arange(self.start, self.stop, dtype=np.int64)

    def contains(self, node: int) -> bool:
        """Whether processor ``node`` lies in the partition."""
        return self.start <= node < self.stop

    def parent(self) -> TreeNode | None:
        """The enclosing partition one level up, or ``None`` at the root."""
        if self.level == self.height:
            return None
        return TreeNode(self.tree, self.level + 1, self.index >> 1, self.offset, self.height)

    def children(self) -> tuple[TreeNode, ...]:
        """The two halves, left first; ``()`` for a leaf."""
        if self.level == 0:
            return ()
        lo = TreeNode(self.tree, self.level - 1, 2 * self.index, self.offset, self.height)
        hi = TreeNode(self.tree, self.level - 1, 2 * self.index + 1, self.offset, self.height)
        return (lo, hi)

    @property
    def heap_index(self) -> int:
        """1-based heap position in its tree (root 1, children of ``i`` at ``2i, 2i + 1``)."""
        return (1 << (self.height - self.level)) + self.index


class TreeWeights:
    """Per-node job counts of a DHC forest (seed 004 §3: a node's weight is the number of jobs
    allocated to it and to all its descendants).

    Kept apart from :class:`DHCTree` so that several trees can share one: a gang scheduler that
    keeps one :class:`DHCTree` per time slot (where jobs of different slots share a partition) can
    pass the same :class:`TreeWeights` to all of them, so that the weight-oriented rule counts the
    jobs of every slot, as the paper's tree does. ``add`` and ``remove`` cost O(height).

    >>> w = TreeWeights(320)
    >>> w.add(TreeNode(0, 2, 5, 0, 8)); w.weight(TreeNode(0, 8, 0, 0, 8)), w.weight(TreeNode(0, 7, 1, 0, 8))
    (1, 0)
    """

    def __init__(self, size: int) -> None:
        self.size = check_int(size, "TreeWeights size", low=1)
        check_memory("TreeWeights", f"a {self.size}-processor forest", self.size, _WEIGHT_BYTES)
        self.heights = [s.bit_length() - 1 for s in forest_sizes(size)]
        self._w: list[list[int]] = [[0] * (2 << h) for h in self.heights]

    def _check(self, node: TreeNode) -> None:
        if node.tree >= len(self.heights) or node.height != self.heights[node.tree]:
            raise ValueError(f"{node!r} is not a node of the {self.size}-processor DHC forest")

    def weight(self, node: TreeNode) -> int:
        """Jobs allocated to ``node`` and its descendants."""
        self._check(node)
        return self._w[node.tree][node.heap_index]

    def add(self, node: TreeNode, count: int = 1) -> None:
        """Count ``count`` more jobs at ``node`` (and so at every ancestor)."""
        self._check(node)
        w = self._w[node.tree]
        i = node.heap_index
        while i:
            w[i] += count
            i >>= 1

    def remove(self, node: TreeNode, count: int = 1) -> None:
        """Count ``count`` fewer jobs at ``node``."""
        self.add(node, -count)

    def copy(self) -> TreeWeights:
        """An independent copy of the counts. O(P)."""
        twin = object.__new__(TreeWeights)
        twin.size = self.size
        twin.heights = self.heights
        twin._w = [w[:] for w in self._w]
        return twin


class DHCTree(Allocator):
    """Partitions of Feitelson & Rudolph's distributed hierarchical control, as used by seed 004
    (Franke, Pattnaik, Rudolph, Squillante et al.; §2.3 binary tree, §2.6 processor counts that are
    not powers of two, §3 job assignment).

    The machine is a binary tree of partitions; a job of ``p`` processors belongs to class
    ``ceil(log2 p)`` and takes a whole partition of that level, ``2^ceil(log2 p)`` aligned
    processors. A machine of ``P`` processors that is not a power of two is a forest of
    power-of-two trees from the binary expansion of ``P``, largest first, laid out left to right
    (§2.6: 320 = 256 + 64, tree 0 covers ids 0..255, tree 1 ids 256..319). Requests are
    processor counts ``1 <= p <= max_request`` (the largest tree); the granted request is the
    partition size and the placement a :class:`TreeNode`.

    Assignment rules (``assignment=``):

    * ``"first_fit"`` (§3's greedy first-fit): the leftmost free partition of the level, trees in
      forest order.
    * ``"weight"`` (§3's weight-oriented rule): every node carries the number of jobs allocated to
      it and its descendants (:class:`TreeWeights`); starting above the roots, the traversal
      repeatedly steps into the lightest branch until it reaches the job's level. Interpretation:
      this allocator shares space (a processor belongs to at most one live grant), so a branch
      without a free partition of the level is skipped (the paper's tree time-shares, so every
      branch can take a job); ties go left; the forest's roots are compared like siblings, by raw
      job count. Under space sharing every free partition has weight 0, so the traversal, not a
      minimum over the level, is what distinguishes the rule.

    Space-sharing semantics; for gang scheduling keep one :class:`DHCTree` per time slot and pass
    them one shared :class:`TreeWeights` (``weights=``), so the weights count every slot's jobs.

    Complexity: O(height) per allocate and release (a descent guided by each node's largest free
    partition level, then an update of the path to the root); memory O(P).

    >>> from topologies import Flat
    >>> t = DHCTree(Flat(320))
    >>> [(r.start, r.size) for r in t.roots], t.max_request
    ([(0, 256), (256, 64)], 256)
    >>> a = t.allocate(3); a.request, a.placement, a.nodes.tolist()
    (4, TreeNode(tree=0, level=2, index=0, offset=0, height=8), [0, 1, 2, 3])
    >>> w = DHCTree(Flat(8), assignment="weight")
    >>> [w.allocate(1).placement.start for _ in range(3)]   # lightest branch: 0, then 4, then 2
    [0, 4, 2]
    """

    topology_types = (Flat,)
    recognition = "tree"
    ASSIGNMENTS = ("first_fit", "weight")

    def __init__(self, topology: Flat, assignment: str = "first_fit", weights: TreeWeights | None = None):
        super().__init__(topology)
        check_memory(type(self).__name__, topology, topology.size,
                     _DHC_BYTES if weights is None else _DHC_BYTES - _WEIGHT_BYTES)
        if assignment not in self.ASSIGNMENTS:
            raise ValueError(
                f"unknown DHC assignment {assignment!r}; choose one of {', '.join(self.ASSIGNMENTS)}"
            )
        self.assignment = assignment
        sizes = forest_sizes(topology.size)
        self.heights: list[int] = [s.bit_length() - 1 for s in sizes]
        self.offsets: list[int] = [sum(sizes[:i]) for i in range(len(sizes))]
        self.roots: tuple[TreeNode, ...] = tuple(
            TreeNode(t, h, 0, off, h) for t, (h, off) in enumerate(zip(self.heights, self.offsets, strict=True))
        )
        self.max_request: int = sizes[0]
        if weights is None:
            weights = TreeWeights(topology.size)
            self.shared_weights = False
        else:
            if not isinstance(weights, TreeWeights) or weights.size != topology.size:
                raise ValueError(f"weights must be a TreeWeights of a {topology.size}-processor forest")
            self.shared_weights = True
        self.weights = weights
        # per tree, heap-indexed: largest level of a fully free partition in the subtree (-1: none),
        # and whether the node is a granted partition. Below a granted node nothing is touched.
        self._avail: list[list[int]] = []
        self._taken: list[list[bool]] = []
        for h in self.heights:
            avail = [0] * (2 << h)
            for i in range(1, 2 << h):
                avail[i] = h - (i.bit_length() - 1)
            self._avail.append(avail)
            self._taken.append([False] * (2 << h))
        self._is_free = np.ones(topology.size, dtype=bool)  # per processor, for the what-if searches

    def __repr__(self) -> str:
        return f"DHCTree({self.topology!r}, assignment={self.assignment!r})"

    # -- requests -----------------------------------------------------------------------------
    def validate(self, request: int) -> int:
        """The processor count as an int; :class:`RequestSizeError` above the largest tree (fast path
        for a plain int in range)."""
        if type(request) is int and 0 < request <= self.max_request:
            return request
        p: int = self.topology.validate_request(request)
        if p > self.max_request:
            raise RequestSizeError(
                f"a job of {p} processors does not fit the largest DHC partition "
                f"({self.max_request} processors) of the {self.size}-processor forest"
            )
        return p

    def request_size(self, request: int) -> int:
        """The partition size, ``2 ** ceil(log2 p)``."""
        p = self.validate(request)
        return 1 << (p - 1).bit_length()

    def fold(self, request: int) -> int | None:
        """Half the partition, ``2 ** ceil(log2 p) / 2``; ``None`` for ``p == 1``."""
        p = self.validate(request)
        return (1 << (p - 1).bit_length()) >> 1 if p > 1 else None

    # -- placement ----------------------------------------------------------------------------
    def _place(self, p: int) -> tuple[int, TreeNode, np.ndarray, int] | None:
        level = (p - 1).bit_length()
        found = self._first_fit(level) if self.assignment == "first_fit" else self._lightest(level)
        if found is None:
            return None
        return self._take(found[0], found[1], level)

    def _take(self, t: int, i: int, level: int) -> tuple[int, TreeNode, np.ndarray, int]:
        """Take the free partition at heap index ``i`` of tree ``t``; what :meth:`_place` returns."""
        h = self.heights[t]
        node = TreeNode(t, level, i - (1 << (h - level)), self.offsets[t], h)
        self._taken[t][i] = True
        self._avail[t][i] = -1
        self._is_free[node.start : node.stop] = False
        self._update(t, i >> 1)
        self.weights.add(node)
        return node.size, node, node.node_ids(), node.size

    def covers(self, failed: int, request: int) -> bool:
        """A partition level covers the levels above it: a free partition contains free ones of
        every lower level (:meth:`Allocator.covers`)."""
        return self.request_size(request) >= self.request_size(failed)

    def place_in(self, request: int, free: np.ndarray) -> np.ndarray | None:
        """The leftmost partition of the job's level, trees in forest order, whose processors are
        all marked in ``free`` (first fit; under ``"weight"`` assignment the allocator itself
        might pick another; :meth:`Allocator.place_in`). O(P)."""
        s = 1 << (self.validate(request) - 1).bit_length()
        free = np.asarray(free, dtype=bool).ravel()
        for h, off in zip(self.heights, self.offsets, strict=True):
            if 1 << h >= s:
                ok = block_all(free[off : off + (1 << h)], s)
                j = int(ok.argmax())
                if ok[j]:
                    return np.arange(off + j * s, off + (j + 1) * s, dtype=np.int64)
        return None

    def place_in_bits(self, request: int, free: int) -> np.ndarray | None:
        """:meth:`place_in` on the bits of an integer (:meth:`Allocator.place_in_bits`): doubling
        steps ``b &= b >> 2^i`` leave bit ``p`` set when the ``s`` processors from ``p`` are free,
        then each tree, in forest order, keeps the bits of its own partitions of that size and
        the lowest is the leftmost. O(log s + trees) integer operations of O(P / 64) words."""
        s = 1 << (self.validate(request) - 1).bit_length()
        free = runs_from(free, s)
        for h, off in zip(self.heights, self.offsets, strict=True):
            if 1 << h >= s:
                hit = free & (block_starts(h, s.bit_length() - 1) << off)
                if hit:
                    m = (hit & -hit).bit_length() - 1
                    return np.arange(m, m + s, dtype=np.int64)
        return None

    def earliest_in(self, request: int, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in` in one pass: each partition of the job's level is ready at
        its latest processor's time (not before ``now``); the earliest, trees in forest order and
        leftmost first, is the partition :meth:`place_in` finds then. O(P)."""
        s = 1 << (self.validate(request) - 1).bit_length()
        ready = np.asarray(ready, dtype=float).ravel()
        best = None
        for h, off in zip(self.heights, self.offsets, strict=True):
            if 1 << h >= s:
                parts = np.maximum(block_max(ready[off : off + (1 << h)], s), now)
                j = int(parts.argmin())
                if best is None or parts[j] < best[0]:
                    best = (float(parts[j]), off + j * s)
        if best is None:
            return None
        return best[0], np.arange(best[1], best[1] + s, dtype=np.int64)

    def allocate_avoiding(self, request: int, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding`; under first fit directly: successive placements are
        the free partitions of the level from left to right, so the grant is the leftmost free one
        that touches no avoided processor. O(P)."""
        if self.assignment != "first_fit":
            return super().allocate_avoiding(request, avoid)
        level = (self.validate(request) - 1).bit_length()
        s = 1 << level
        usable = self._is_free & ~np.asarray(avoid, dtype=bool)  # a partition all free is grantable
        for t, (h, off) in enumerate(zip(self.heights, self.offsets, strict=True)):
            if self._avail[t][1] < level:
                continue
            ok = block_all(usable[off : off + (1 << h)], s)
            j = int(ok.argmax())
            if ok[j]:
                return self._register(*self._take(t, (1 << (h - level)) + j, level))
        return None

    def _first_fit(self, level: int) -> tuple[int, int] | None:
        for t, avail in enumerate(self._avail):
            if avail[1] < level:
                continue
            i = 1
            for _ in range(self.heights[t] - level):
                i <<= 1
                if avail[i] < level:
                    i += 1
            return t, i
        return None

    def _lightest(self, level: int) -> tuple[int, int] | None:
        best = None
        for t, avail in enumerate(self._avail):
            if avail[1] >= level:
                w = self.weights._w[t][1]
                if best is None or w < best[0]:
                    best = (w, t)
        if best is None:
            return None
        t = best[1]
        avail, wt = self._avail[t], self.weights._w[t]
        i = 1
        for _ in range(self.heights[t] - level):
            lo, hi = 2 * i, 2 * i + 1
            if avail[lo] < level:
                i = hi
            elif avail[hi] < level or wt[lo] <= wt[hi]:
                i = lo
            else:
                i = hi
        return t, i

    def _update(self, t: int, i: int) -> None:
        """Recompute the free-level summary from node ``i`` up to the root."""
        avail = self._avail[t]
        h = self.heights[t]
        while i:
            lo, hi = avail[2 * i], avail[2 * i + 1]
            own = h - (i.bit_length() - 1)
            new = own if lo == hi == own - 1 else max(lo, hi)
            if avail[i] == new:
                break
            avail[i] = new
            i >>= 1

    def _unplace(self, allocation: Allocation) -> int:
        node: TreeNode = allocation.placement
        t, i = node.tree, node.heap_index
        self._taken[t][i] = False
        self._is_free[node.start : node.stop] = True
        self._avail[t][i] = node.level  # everything below was left fully free
        self._update(t, i >> 1)
        self.weights.remove(node)
        return node.size

    def clone(self) -> DHCTree:
        """A copy of the free-partition summary, the weights and the live grants
        (:meth:`Allocator.clone`). Shared weights are copied too: what the clone allocates must
        not count in the other slots' trees. O(P)."""
        if type(self) is not DHCTree:
            return super().clone()
        twin = self._shallow_clone()
        twin._avail = [a[:] for a in self._avail]
        twin._taken = [t[:] for t in self._taken]
        twin._is_free = self._is_free.copy()
        twin.weights = self.weights.copy()
        return twin

    # -- views --------------------------------------------------------------------------------
    def free_nodes(self) -> np.ndarray:
        """Processor ids in fully free partitions of the allocator's own summary, ascending."""
        parts = []
        for t, avail in enumerate(self._avail):
            h, off = self.heights[t], self.offsets[t]
            stack = [1]
            while stack:
                i = stack.pop()
                lvl = h - (i.bit_length() - 1)
                if avail[i] == lvl:
                    start = off + ((i - (1 << (h - lvl))) << lvl)
                    parts.append(np.arange(start, start + (1 << lvl), dtype=np.int64))
                elif not self._taken[t][i] and lvl > 0:
                    stack.extend((2 * i + 1, 2 * i))
        if not parts:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate(parts))

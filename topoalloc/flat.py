"""Topology-independent allocation: any free processors."""

from __future__ import annotations

import numpy as np

from topologies import Flat

from ._blocks import first_group_avoiding
from ._memory import check_memory
from .base import Allocation, Allocator

__all__ = ["FlatPool"]


class FlatPool(Allocator):
    """Any ``n`` free processors of a :class:`~topologies.Flat` machine, lowest ids first.

    The allocator of the topology-independent policies (Ismail, seed 000; Downey, seed 001; Nguyen,
    Vaswani & Zahorjan, seed 003), where a job needs a processor count, not a shape. Requests are
    counts. A fold halves the count, rounding up (``n -> ceil(n / 2)``); ``1`` does not fold. The
    placement is the sorted array of granted ids.

    Complexity: O(P) vectorised work per allocate (a ``numpy`` scan of the free mask), O(n) per
    release.

    >>> from topologies import Flat
    >>> pool = FlatPool(Flat(8))
    >>> a = pool.allocate(3); b = pool.allocate(2)
    >>> a.nodes.tolist(), b.nodes.tolist(), pool.free
    ([0, 1, 2], [3, 4], 3)
    >>> pool.release(a); pool.allocate(4).nodes.tolist()
    [0, 1, 2, 5]
    """

    topology_types = (Flat,)
    recognition = "any"

    def __init__(self, topology: Flat) -> None:
        check_memory(type(self).__name__, topology, topology.size, 1)  # the free mask; grants hold ids too
        super().__init__(topology)
        self._is_free = np.ones(topology.size, dtype=bool)

    def validate(self, request: int) -> int:
        """``request`` as a processor count, or a :class:`~topologies.RequestError`."""
        if type(request) is int and 0 < request <= self._size:  # fast path: an already valid count
            return request
        count: int = self.topology.validate_request(request)
        return count

    def request_size(self, request: int) -> int:
        """The count itself."""
        return self.validate(request)

    def _place(self, n: int) -> tuple[int, np.ndarray, np.ndarray, int] | None:
        if n > self._free:
            return None
        ids = self._is_free.nonzero()[0][:n]  # (flatnonzero's wrapper costs as much on a 1-D mask)
        self._is_free[ids] = False
        return n, ids, ids, n

    def _unplace(self, allocation: Allocation) -> int:
        ids = allocation.placement
        self._is_free[ids] = True
        return len(ids)

    def clone(self) -> FlatPool:
        """A copy of the free mask and the live grants (:meth:`Allocator.clone`). O(P)."""
        if type(self) is not FlatPool:
            return super().clone()
        twin = self._shallow_clone()
        twin._is_free = self._is_free.copy()
        return twin

    def covers(self, failed: int, request: int) -> bool:
        """More processors than a count that failed also fail (:meth:`Allocator.covers`)."""
        return self.validate(request) >= self.validate(failed)

    def place_in(self, request: int, free: np.ndarray) -> np.ndarray | None:
        """The ``n`` lowest ids marked in ``free`` (:meth:`Allocator.place_in`). O(P)."""
        n = self.validate(request)
        ids = np.flatnonzero(np.asarray(free).ravel())[:n]
        return ids if len(ids) == n else None

    def allocate_avoiding(self, request: int, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` directly: successive placements are the free ids
        ``n`` at a time, lowest first; the first such group with no avoided id. O(P)."""
        n = self.validate(request)
        got = first_group_avoiding(np.flatnonzero(self._is_free), n, avoid)
        if got is None:
            return None
        self._is_free[got] = False
        return self._register(n, got, got, n)

    def free_nodes(self) -> np.ndarray:
        """Ids of the free processors, ascending."""
        return np.flatnonzero(self._is_free)

    def fold(self, request: int) -> int | None:
        """``ceil(n / 2)``, or ``None`` for ``n == 1``."""
        n = self.validate(request)
        return (n + 1) // 2 if n > 1 else None

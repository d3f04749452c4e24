"""The common part of every allocator on a :class:`~topologies.SwitchTree`.

A tree allocator is a rule ``choose(request, free) -> node ids | None`` over a boolean free mask:
its placement depends only on which nodes are free, so ``allocate`` is ``choose`` on the
allocator's own mask and ``place_in`` is ``choose`` on the mask asked about (exact by
construction). Subclasses write :meth:`TreeAllocator._choose_count` (the rule for a plain count)
and may override :meth:`TreeAllocator._choose` to treat constraints their own way; the defaults
here honour every constraint of :class:`~topologies.TreeRequest` on top of the count rule.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from .._blocks import first_group_avoiding
from ..base import Allocation, Allocator

__all__ = ["TreeAllocator", "free_per_domain"]


def free_per_domain(free: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Free nodes per domain, for domains given by their ascending ``first`` ids that partition the
    nodes (:meth:`~topologies.SwitchTree.domains`). One ``numpy`` reduction, O(N)."""
    return np.add.reduceat(free.view(np.int8), first, dtype=np.int64) if len(free) else np.zeros(0, np.int64)


def _nth_ready(ready: np.ndarray, n: int, now: float) -> float:
    """The ``n``-th smallest value of ``ready`` (every value ``>= now``): ``now`` when ``n`` of them
    are ``now``, else from a sort of the later ones (``np.partition`` is slow on the many equal
    values a ready array holds). O(N log N) at most."""
    k = int(np.count_nonzero(ready <= now))
    if k >= n:
        return float(now)
    later = ready[ready > now]
    later.sort(kind="stable")  # (faster than the default sort on many equal values)
    return float(later[n - k - 1])


def _ready_ranks(ready: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(times, rank)``: the distinct values of ``ready`` ascending and each value's index among
    them (``np.unique(ready, return_inverse=True)``, three times faster on a ready array's many
    equal values). O(N log N)."""
    s = np.sort(ready, kind="stable")
    first = np.empty(len(s), dtype=bool)
    first[:1] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    times = s[first]
    return times, times.searchsorted(ready)


class TreeAllocator(Allocator):
    """Base of the switch-tree allocators: a free mask over node ids, placements as sorted node-id
    arrays, every :class:`~topologies.TreeRequest` constraint honoured.

    The generic constraint treatment (subclasses that model a production scheduler override it
    where that scheduler does otherwise, and say so):

    * ``required=L``: the domains of level ``L`` with enough free nodes, in the order
      :meth:`_domain_order` gives (default: fewest free nodes first, then lowest id -- a best fit),
      the count rule applied inside the first;
    * ``preferred=L``: as ``required`` at ``L``, then at each level above, then anywhere;
    * ``switches=N``: the ``N`` leaf switches with most free nodes (lowest id first on ties), the
      count rule applied inside them, if they hold enough;
    * ``segment=S``: the count rule applied to ``S`` nodes at a time inside one leaf switch
      (the base block), leaf switches tried in :meth:`_domain_order`.

    Folding halves the count (``ceil(n / 2)``), keeping the constraint (a segmented request
    halves its number of segments); one node, or one segment, does not fold.

    Complexity: O(N) vectorised work per allocation for these defaults.
    """

    topology_types = (SwitchTree,)
    recognition = "tree-any"
    #: Constraint kinds this allocator honours natively (the others through the defaults above).
    native: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, topology: SwitchTree) -> None:
        super().__init__(topology)
        self._is_free = np.ones(topology.size, dtype=bool)

    # -- requests ---------------------------------------------------------------------------------
    def validate(self, request: Any) -> int | TreeRequest:
        """A node count (as an int) or a :class:`~topologies.TreeRequest` valid on this tree."""
        if type(request) is int and 0 < request <= self._size:
            return request
        valid: int | TreeRequest = self.topology.validate_request(request)
        return valid

    def request_size(self, request: Any) -> int:
        """The request's node count."""
        r = self.validate(request)
        return r.count if isinstance(r, TreeRequest) else r

    def fold(self, request: Any) -> int | TreeRequest | None:
        """Half the count, rounded up, with the same constraint (``None`` for one node or one
        segment)."""
        r = self.validate(request)
        if isinstance(r, TreeRequest):
            if r.segment is not None:
                k = r.count // r.segment
                return None if k == 1 else TreeRequest((k + 1) // 2 * r.segment, segment=r.segment)
            if r.count == 1:
                return None
            return TreeRequest((r.count + 1) // 2, required=r.required, preferred=r.preferred,
                               switches=r.switches, wait=r.wait)
        return (r + 1) // 2 if r > 1 else None

    # -- state ------------------------------------------------------------------------------------
    def free_nodes(self) -> np.ndarray:
        """Ids of the free nodes, ascending."""
        return np.flatnonzero(self._is_free)

    def free_mask(self) -> np.ndarray:
        """A copy of the free mask over node ids."""
        return self._is_free.copy()

    def free_per_domain(self, level: str | int) -> np.ndarray:
        """Free nodes in each domain of ``level`` (in the order of
        :meth:`~topologies.SwitchTree.domains`)."""
        return free_per_domain(self._is_free, self.topology.domains(level)[0])

    def _place(self, request: Any) -> tuple[Any, Any, np.ndarray, int] | None:
        n = request.count if isinstance(request, TreeRequest) else request
        if n > self._free:
            return None
        ids = self._choose(request, self._is_free)
        if ids is None:
            return None
        self._is_free[ids] = False
        self._taken(ids)
        return request, ids, ids, n

    def _unplace(self, allocation: Allocation) -> int:
        ids = allocation.placement
        self._is_free[ids] = True
        self._returned(ids)
        return len(ids)

    def _taken(self, ids: np.ndarray) -> None:
        """Hook: ``ids`` were just granted (for allocators that keep more state than the mask)."""

    def _returned(self, ids: np.ndarray) -> None:
        """Hook: ``ids`` were just released."""

    def clone(self) -> TreeAllocator:
        """A copy of the free mask and the live grants (:meth:`Allocator.clone`). O(N)."""
        if type(self).clone is not TreeAllocator.clone or type(self)._taken is not TreeAllocator._taken:
            return super().clone()
        twin = self._shallow_clone()
        twin._is_free = self._is_free.copy()
        return twin

    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """The rule applied to the nodes marked in ``free`` (:meth:`Allocator.place_in`); exact
        because the rule depends on the free mask alone. Nothing is allocated."""
        r = self.validate(request)
        mask = np.asarray(free, dtype=bool).ravel()
        n = r.count if isinstance(r, TreeRequest) else r
        if int(np.count_nonzero(mask)) < n:
            return None
        got = self._choose(r, mask)
        return None if got is None else np.array(got)

    def _plain_state(self) -> bool:
        """Whether the placement depends on the free mask alone (no :meth:`_taken` state)."""
        return type(self)._taken is TreeAllocator._taken

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` on the mask: the successive placements the rule
        makes while the earlier ones are held are the rule applied to the mask with those
        placements removed, so they are found without granting and releasing them. Same grant as
        the generic default; O(N) per placement tried. Allocators with state beyond the free mask
        use the generic default."""
        if not self._plain_state():
            return super().allocate_avoiding(request, avoid)
        r = self.validate(request)
        n = r.count if isinstance(r, TreeRequest) else r
        avoid = np.asarray(avoid, dtype=bool).ravel()
        if not isinstance(r, TreeRequest) and type(self)._choose_count is TreeAllocator._choose_count:
            # the lowest-ids rule's successive placements are the free ids n at a time
            got = first_group_avoiding(np.flatnonzero(self._is_free), n, avoid)
            if got is None:
                return None
            self._is_free[got] = False
            return self._register(r, got, got, n)
        mask = self._is_free.copy()
        while int(np.count_nonzero(mask)) >= n:
            ids = self._choose(r, mask)
            if ids is None:
                return None
            if not avoid[ids].any():
                self._is_free[ids] = False
                return self._register(r, ids, ids, n)
            mask[ids] = False
        return None

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in` by bisection over the distinct ready times: whether a
        placement exists grows with the free set, so the earliest feasible time is found with
        O(log T) :meth:`place_in` calls instead of one per time. Same answer as the generic
        default when that growth holds: for every constraint here when the count rule places
        ``n`` nodes on any set of at least ``n`` free ones (each constraint is then a count inside
        some set of domains). A count rule that looks at the structure breaks it for
        ``switches=k``: a node becoming free can change which ``k`` leaf switches are the fullest
        and move the rule to worse ones. Subclasses with such a rule override that case
        (:class:`~topoalloc.tree.SlurmTree`, :class:`~topoalloc.tree.SlurmBlock`)."""
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        r = self.validate(request)
        n = r.count if isinstance(r, TreeRequest) else r
        if n > len(ready):
            return None
        start = _nth_ready(ready, n, now)  # the first time n nodes are ready
        if not isinstance(r, TreeRequest) and type(self)._choose_count is TreeAllocator._choose_count:
            nodes = self.place_in(r, ready <= start)  # the lowest-ids rule places any n ready nodes
            assert nodes is not None  # n nodes are ready at start, and any n nodes do
            return start, nodes
        times = _ready_ranks(ready)[0]
        lo = int(np.searchsorted(times, start))
        hi = len(times) - 1
        last = self.place_in(r, ready <= times[hi])
        if last is None:
            return None
        best = (float(times[hi]), last)
        while lo < hi:
            mid = (lo + hi) // 2
            got = self.place_in(r, ready <= times[mid])
            if got is None:
                lo = mid + 1
            else:
                hi = mid
                best = (float(times[mid]), got)
        return best

    # -- the rule -----------------------------------------------------------------------------------
    def _choose(self, request: int | TreeRequest, free: np.ndarray) -> np.ndarray | None:
        """Sorted node ids for a validated ``request`` on the nodes marked in ``free`` (not
        modified), or ``None``. The default dispatches on the constraint (class docstring)."""
        if not isinstance(request, TreeRequest):
            return self._choose_count(request, free)
        n = request.count
        t = self.topology
        if request.required is not None:
            return self._in_one_domain(n, free, t.level_depth(request.required))
        if request.preferred is not None:
            for d in range(t.level_depth(request.preferred), 0, -1):
                got = self._in_one_domain(n, free, d)
                if got is not None:
                    return got
            return self._choose_count(n, free)
        if request.switches is not None:
            return self._on_switches(n, request.switches, free)
        if request.segment is not None:
            return self._in_segments(n, request.segment, free)
        return self._choose_count(n, free)

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        """The rule for a plain count; the default takes the ``n`` lowest free ids."""
        ids = np.flatnonzero(free)[:n]
        return ids if len(ids) == n else None

    def _domain_order(self, free_counts: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Indices of the candidate domains (``ok``) in the order they are tried: fewest free
        nodes first, then lowest id."""
        idx = np.flatnonzero(ok)
        return idx[np.argsort(free_counts[idx], kind="stable")]

    def _in_one_domain(self, n: int, free: np.ndarray, depth: int) -> np.ndarray | None:
        first, stop = self.topology.domains(depth)
        counts = free_per_domain(free, first)
        for i in self._domain_order(counts, counts >= n).tolist():
            sub = np.zeros_like(free)
            lo, hi = int(first[i]), int(stop[i])
            sub[lo:hi] = free[lo:hi]
            got = self._choose_count(n, sub)
            if got is not None:
                return got
        return None

    def _on_switches(self, n: int, k: int, free: np.ndarray) -> np.ndarray | None:
        t = self.topology
        leaves = t.leaf_switch_ids
        first, stop = t.first[leaves], t.stop[leaves]
        counts = free_per_domain(free, first)
        if k >= len(leaves):
            return self._choose_count(n, free)
        pick = np.argsort(-counts, kind="stable")[:k]
        if int(counts[pick].sum()) < n:
            return None
        sub = np.zeros_like(free)
        for i in pick.tolist():
            lo, hi = int(first[i]), int(stop[i])
            sub[lo:hi] = free[lo:hi]
        return self._choose_count(n, sub)

    def _in_segments(self, n: int, seg: int, free: np.ndarray) -> np.ndarray | None:
        t = self.topology
        leaves = t.leaf_switch_ids
        first, stop = t.first[leaves], t.stop[leaves]
        counts = free_per_domain(free, first)
        if int((counts // seg).sum()) < n // seg:
            return None
        left = free.copy()
        out = []
        need = n // seg
        for i in self._domain_order(counts, counts >= seg).tolist():
            lo, hi = int(first[i]), int(stop[i])
            while need and np.count_nonzero(left[lo:hi]) >= seg:
                sub = np.zeros_like(free)
                sub[lo:hi] = left[lo:hi]
                got = self._choose_count(seg, sub)
                if got is None:
                    break
                left[got] = False
                out.append(got)
                need -= 1
            if not need:
                return np.sort(np.concatenate(out))
        return None

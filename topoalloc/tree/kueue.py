"""Kubernetes Kueue's Topology Aware Scheduling (TAS) on a switch tree."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from .._blocks import first_group_avoiding
from ..base import Allocation
from ..errors import UnknownOptionError
from .base import TreeAllocator, _nth_ready
from .fluxion import _nth_ready_in_a_domain

__all__ = ["KueueTAS", "KueueTASOracle", "PROFILES"]

#: The TAS profiles, by Kueue's names (the ``TASProfile...`` feature gates without the prefix).
PROFILES = ("BestFit", "LeastFreeCapacity", "Mixed")

_BIG = np.iinfo(np.int64).max


def _profile(name: Any) -> str:
    """The canonical profile for ``name``: a name of :data:`PROFILES` or its feature gate
    (``"TASProfileMixed"``), ignoring case, ``-``, ``_`` and spaces; else :class:`UnknownOptionError`."""
    key = re.sub(r"[-_\s]", "", name).lower() if isinstance(name, str) else None
    if key is not None and key.startswith("tasprofile"):
        key = key[len("tasprofile"):]
    for p in PROFILES:
        if key == p.lower():
            return p
    raise UnknownOptionError(f"unknown Kueue TAS profile {name!r}; choose from {', '.join(PROFILES)} "
                             f"(or their feature gates, TASProfileBestFit ...)")


class KueueTAS(TreeAllocator):
    """Kueue's Topology Aware Scheduling: pods of a PodSet placed on the domains of a node-label
    hierarchy (block -> rack -> host), packed into as few domains as it can.

    Sources: KEP 2724 (``keps/2724-topology-aware-scheduling/README.md`` in
    ``kubernetes-sigs/kueue``), sections "Computing the assignment", "Selecting the algorithm" and
    "Implicit defaulting of TAS annotations"; the documentation page "Topology-Aware Scheduling"
    (``site/content/en/docs/concepts/topology_aware_scheduling.md``); and the code,
    ``pkg/cache/scheduler/tas_flavor_snapshot.go``: ``findTopologyAssignment``,
    ``findLevelWithFitDomains``, ``findBestFitDomain``, ``sortedDomains``,
    ``updateCountsToMinimumGeneric``, ``lowerLevelDomains`` and ``useLeastFreeCapacityAlgorithm``
    (read at Kueue commit ff69552e; the LeastFreeCapacity profile as it was before commit
    caaccdffb6 removed its gate, which changed only that predicate).

    **One pod per node.** Kueue counts how many pods fit in each domain from the pods' resource
    requests and the hosts' free allocatable capacity. Here a host holds one pod: a request for
    ``n`` nodes is a PodSet of ``n`` pods, and a domain's capacity is its number of free nodes.
    The tree's levels below the root are Kueue's topology levels, the nodes its lowest
    (``kubernetes.io/hostname``) level.

    **The rule** (``findTopologyAssignment``), for ``n`` pods:

    1. *The level.* ``required=L``: the domains of ``L`` with at least ``n`` free nodes, or
       nothing. ``preferred=L``: the same at ``L``, then at each level above until one domain
       fits. A plain count is Kueue's *implicit default* for a PodSet without a TAS annotation on
       a TAS flavor (KEP, "Implicit defaulting of TAS annotations"): it is handled as
       ``podset-unconstrained-topology`` at the lowest level, split over as many hosts as needed.
    2. *The domain.* Among the fitting domains of that level, the one with the fewest free nodes
       (both profiles; BestFit scans from the most free and then "optimizes the last domain", the
       LeastFreeCapacity order from the least free), the first in Kueue's order on ties.
    3. *The descent* (``updateCountsToMinimumGeneric`` level by level): the child domains of every
       domain chosen so far are pooled and sorted -- BestFit: most free nodes first;
       LeastFreeCapacity: fewest first -- and taken whole in that order while the ``n`` pods do
       not fit in the next one; BestFit then takes, for the remainder, the pooled domain with the
       fewest free nodes that still holds it (the first in order on ties), LeastFreeCapacity the
       next one in order. BestFit so uses the fewest child domains; LeastFreeCapacity fills the
       smallest gaps first. At the node level this takes the lowest free ids of the chosen leaf
       switches.

    **Profiles** (``profile``; KEP 2724, "Selecting the algorithm"; Kueue's ``TASProfile...``
    feature gates, the prefix optional): ``"BestFit"`` -- BestFit for every request (Kueue's
    default up to v0.14; since then Kueue with ``TASProfileMixed`` turned off, the deprecated
    ``TASProfileBestFit``); ``"LeastFreeCapacity"`` --
    LeastFreeCapacity for every request (``TASProfileLeastFreeCapacity``, removed in v0.17);
    ``"Mixed"`` -- BestFit for required and preferred requests, LeastFreeCapacity for
    unconstrained ones (``TASProfileMixed``, Kueue's default since v0.15). With one pod per node
    both rules place an unconstrained request on the lowest free ids (every free host holds one
    pod, so they differ only in hosts they take with room for none), so ``"Mixed"`` makes the
    same choices as ``"BestFit"`` here.

    **Interpretations.**

    * Ties: Kueue breaks them by the domains' label values compared as strings (block, then rack,
      then host name); here by position in the tree (node and switch ids, depth first), the same
      order whenever the names sort in tree order.
    * The root: Kueue's topology has no level above its top one, and a preferred PodSet that fits
      in no top domain is split across them with the greedy of step 3. The tree's root level
      (``levels[0]``) is a level with a single domain, which always fits, and the descent from it
      is that same split -- so BestFit spreads such a PodSet over the fewest top domains.
    * The pooled descent applies the whole count to the pooled children, not each parent's share
      (Kueue does this above the slice level, and with no slice requested the slice level is the
      lowest one): a child of a domain trimmed at the level above may be taken whole. So a grant
      lies in the domains chosen at every level but need not follow the per-domain counts of the
      upper levels.
    * Requests Kueue answers with "allows to fit only k out of n pod(s)" although no state could
      hold them -- more nodes than the tree, or a required level none of whose domains has ``n``
      nodes -- are refused by :meth:`validate` (:class:`~topologies.RequestSizeError`). A required
      or preferred root level asks for ``n`` nodes anywhere, placed by the descent from the root.
    * Unbalanced trees: a leaf switch above a level stands for itself at that level
      (:meth:`~topologies.SwitchTree.domains`), as if padded with one-child switches.
    * Not modelled: leader/worker PodSet groups, slices (``podset-slice-required-topology``),
      balanced placement (``TASBalancedPlacement``, alpha and off by default), node affinity
      scores, several resources per pod. ``switches=`` and ``segment=`` requests are honoured by
      :class:`~topoalloc.tree.TreeAllocator`'s defaults with the lowest-free-ids count rule.

    Complexity per allocation: O(N + S) numpy (a prefix sum of the free mask, the free nodes of
    every domain, the final node mask) and, per level of the descent, a sort of the pooled
    domains -- O(S log S) in all, in Python when they are few (up to 64), else in numpy; O(levels)
    numpy calls. Construction O(S + N). A backfilling scheduler's questions are answered without
    a search where the count decides: :meth:`allocate_avoiding` of a plain count in one O(N)
    pass, :meth:`earliest_in` of a plain, preferred or required count in O(N log N).

    ``KueueTAS.oracle`` is a :class:`KueueTASOracle`.

    >>> from topologies import SwitchTree, TreeRequest
    >>> t = SwitchTree.uniform((2, 2, 4), names=("block", "rack", "host"))
    >>> k = KueueTAS(t)
    >>> a = k.allocate(3); a.nodes.tolist()                          # unconstrained: the lowest free ids
    [0, 1, 2]
    >>> k.allocate(TreeRequest(2, required="rack")).nodes.tolist()   # the fitting rack with fewest free
    [4, 5]
    >>> k.allocate(TreeRequest(6, preferred="rack")).nodes.tolist()  # no rack fits: block1, then 2 racks
    [8, 9, 10, 11, 12, 13]
    """

    native: ClassVar[frozenset[str]] = frozenset({"required", "preferred"})
    oracle: ClassVar[Any] = None  # set below, after KueueTASOracle is defined

    def __init__(self, topology: SwitchTree, profile: str = "BestFit") -> None:
        super().__init__(topology)
        self.profile: str = _profile(profile)
        #: Whether required and preferred requests descend by LeastFreeCapacity.
        self._lfc = self.profile == "LeastFreeCapacity"
        t = topology
        D = self._node_depth = len(t.levels) - 1
        levels = [t.domains(d) for d in range(D)]  # the switch levels; the nodes are level D
        #: Domain ranges of every switch level, concatenated (level d at ``_off[d]:_off[d + 1]``).
        self._first_all = np.concatenate([f for f, _ in levels])
        self._stop_all = np.concatenate([s for _, s in levels])
        self._off: list[int] = np.cumsum([0] + [len(f) for f, _ in levels]).tolist()
        #: Per level d >= 1: the index, at level d - 1, of the domain holding each domain (they nest).
        self._parents = [None] + [np.searchsorted(levels[d - 1][0], levels[d][0], side="right") - 1
                                  for d in range(1, D)]
        #: Per level d < D - 1: the children of each domain, index ranges at level d + 1.
        self._kids = [(np.searchsorted(levels[d + 1][0], f).tolist(), np.searchsorted(levels[d + 1][0], s).tolist())
                      for d, (f, s) in enumerate(levels[:-1])]
        self._leaves = (levels[-1][0].tolist(), levels[-1][1].tolist())
        self._node_domain = np.searchsorted(levels[-1][0], np.arange(t.size), side="right") - 1
        #: Sort and scan the pooled domains in Python below this many (numpy call overhead dominates).
        self._small = 64

    def __repr__(self) -> str:
        return f"KueueTAS({self.topology!r}, profile={self.profile!r})"

    # -- the rule ---------------------------------------------------------------------------------
    def _choose(self, request: int | TreeRequest, free: np.ndarray) -> np.ndarray | None:
        if isinstance(request, TreeRequest):
            t = self.topology
            if request.required is not None:
                return self._assign(request.count, free, t.level_depth(request.required), True)
            if request.preferred is not None:
                return self._assign(request.count, free, t.level_depth(request.preferred), False)
            if not request.plain:
                return super()._choose(request, free)
            request = request.count
        return self._choose_count(request, free)

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        """Kueue's unconstrained placement at the host level: every free host holds one pod, so
        both profiles take the ``n`` lowest free ids (ties in tree order)."""
        ids = np.flatnonzero(free)[:n]
        return ids if len(ids) == n else None

    def _assign(self, n: int, free: np.ndarray, depth: int, required: bool) -> np.ndarray | None:
        """Steps 1-3 of the class docstring for ``n`` pods at ``depth`` (required or preferred)."""
        D = self._node_depth
        if depth == D:  # one node per domain: only a single pod fits, on the lowest free id
            if n == 1:
                return self._choose_count(1, free)
            if required:
                return None
            depth = D - 1
        cs = np.zeros(len(free) + 1, dtype=np.int64)
        np.cumsum(free, out=cs[1:])
        counts = cs[self._stop_all] - cs[self._first_all]  # free nodes of every domain of every level
        off = self._off
        most = np.maximum.reduceat(counts, off[:-1]).tolist()
        for d in range(depth, -1, -1):
            if most[d] >= n:
                break
            if required or d == 0:
                return None
        level = counts[off[d]:off[d + 1]]
        i = int(np.argmin(np.where(level >= n, level, _BIG)))  # fewest free, lowest id on ties
        if d == D - 1:
            lo: int = self._leaves[0][i]
            return np.flatnonzero(free[lo:self._leaves[1][i]])[:n] + lo
        small = self._small
        chosen: Any = [i]
        for e in range(d + 1, D):
            if isinstance(chosen, list):
                kid_lo, kid_hi = self._kids[e - 1]
                if sum(kid_hi[p] - kid_lo[p] for p in chosen) <= small:
                    chosen = self._descend_small(n, chosen, kid_lo, kid_hi, counts, off[e])
                    continue
                mask = np.zeros(off[e] - off[e - 1], dtype=bool)
                mask[chosen] = True
                chosen = mask
            chosen = self._descend(n, chosen[self._parents[e]], counts[off[e]:off[e + 1]])
        if isinstance(chosen, list):
            mask = np.zeros(off[D] - off[D - 1], dtype=bool)
            mask[chosen] = True
            chosen = mask
        return np.flatnonzero(chosen[self._node_domain] & free)[:n]

    def _descend(self, n: int, pool: np.ndarray, level: np.ndarray) -> np.ndarray:
        """One step of the descent in numpy: the domains of a level to take for ``n`` pods among those
        marked in ``pool``, given the free nodes of every domain of the level; a mask."""
        pooled = np.flatnonzero(pool)
        c = level[pooled]
        order = np.argsort(c if self._lfc else -c, kind="stable")  # stable: tree order on ties
        c = c[order]
        left = n - (np.cumsum(c) - c)  # pods still to place on reaching each domain
        i = int(np.argmax(c >= left))  # the first domain that holds the rest
        if not self._lfc:  # BestFit: the fewest free among those that hold the rest
            tail = c[i:]
            j = i + int(np.argmin(np.where(tail >= left[i], tail, _BIG)))
            order[i] = order[j]
        chosen = np.zeros(len(level), dtype=bool)
        chosen[pooled[order[: i + 1]]] = True
        return chosen

    def _descend_small(self, n: int, chosen: list[int], kid_lo: list[int], kid_hi: list[int],
                       counts: np.ndarray, base: int) -> list[int]:
        """:meth:`_descend` in Python for a few pooled domains: the children of the ``chosen``
        domains (index ranges ``kid_lo .. kid_hi``), their free nodes at ``counts[base + j]``;
        returns the indices taken."""
        pooled = [j for p in sorted(chosen) for j in range(kid_lo[p], kid_hi[p])]
        sign = 1 if self._lfc else -1
        items = sorted(zip(counts[np.add(pooled, base)].tolist(), pooled, strict=True),
                       key=lambda cj: sign * cj[0])  # stable: tree order on ties
        left = n
        out = []
        for k, (c, j) in enumerate(items):
            if c >= left:
                if not self._lfc:  # BestFit: the fewest free among those that hold the rest (the first)
                    j = min((cj for cj in items[k:] if cj[0] >= left), key=lambda cj: cj[0])[1]
                out.append(j)
                return out
            left -= c
            out.append(j)
        raise AssertionError("the pooled domains hold fewer free nodes than the count")  # the parents held them

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding <topoalloc.Allocator.allocate_avoiding>` for a plain
        count in one pass: successive plain placements take the free ids ``n`` at a time, lowest
        first, so the grant is the first such group that touches no avoided node. Same grant as
        the generic default; O(N). Constrained requests: the search of
        :meth:`TreeAllocator.allocate_avoiding <topoalloc.tree.TreeAllocator.allocate_avoiding>`."""
        r = self.validate(request)
        if type(self) is not KueueTAS or (isinstance(r, TreeRequest) and not r.plain):
            return super().allocate_avoiding(r, avoid)
        n = r.count if isinstance(r, TreeRequest) else r
        got = first_group_avoiding(np.flatnonzero(self._is_free), n, avoid)
        if got is None:
            return None
        self._is_free[got] = False
        return self._register(r, got, got, n)

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in <topoalloc.Allocator.earliest_in>` without a search: a
        plain or preferred request is placed whenever ``n`` nodes are free (a preferred one is
        split across the root's domains at worst), so at the ``n``-th smallest ready time; a
        required one whenever a domain of its level has ``n`` free nodes, so at the earliest such
        time over the domains. The nodes are :meth:`place_in`'s at that time. Same answer as the
        generic default; O(N log N). ``switches`` and ``segment``: the bisection of
        :meth:`TreeAllocator.earliest_in <topoalloc.tree.TreeAllocator.earliest_in>`."""
        r = self.validate(request)
        level = r.required if isinstance(r, TreeRequest) else None  # the level of a required count
        if type(self) is not KueueTAS or (isinstance(r, TreeRequest) and not r.plain and r.preferred is None
                                          and level is None):
            return super().earliest_in(r, ready, now)
        n = r.count if isinstance(r, TreeRequest) else r
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        if level is not None:
            first, stop = self.topology.domains(level)
            t = _nth_ready_in_a_domain(first, stop, ready, n)
            if t is None:
                return None
        else:
            t = _nth_ready(ready, n, now)
        nodes = self.place_in(r, ready <= t)
        assert nodes is not None  # n nodes (in one domain) are ready by t: the rule places them
        return t, nodes

    def covers(self, failed: Any, request: Any) -> bool:
        """Whether ``request`` certainly fails where ``failed`` did (:meth:`Allocator.covers`):
        when ``failed`` is a plain or preferred count (fewer nodes were free) and ``request``
        asks for at least as many; when both are required levels, ``request``'s at or below
        ``failed``'s, and ``request`` asks for at least as many (no domain had room). O(1).

        >>> from topologies import SwitchTree, TreeRequest
        >>> k = KueueTAS(SwitchTree.uniform((2, 4), names=("rack", "host")))
        >>> k.covers(TreeRequest(3, required="rack"), TreeRequest(4, required="rack")), k.covers(5, 4)
        (True, False)
        """
        f, r = self.validate(failed), self.validate(request)
        fn = f.count if isinstance(f, TreeRequest) else f
        rn = r.count if isinstance(r, TreeRequest) else r
        if rn < fn:
            return False
        if not isinstance(f, TreeRequest) or f.plain or f.preferred is not None:
            return True
        if f.required is not None and isinstance(r, TreeRequest) and r.required is not None:
            t: SwitchTree = self.topology
            return t.level_depth(r.required) >= t.level_depth(f.required)
        return f == r


class KueueTASOracle:
    """Test oracle for :class:`KueueTAS` (the ``oracle`` protocol of :mod:`topoalloc.testing`).

    Calling it says whether a placement exists: :func:`topoalloc.testing.tree_any` (imported
    lazily so this module does not need hypothesis) -- :class:`KueueTAS` promises exactly that
    (a required level places whenever one of its domains has room, a preferred or plain count
    whenever enough nodes are free). :meth:`check_choice` asserts
    :func:`~topoalloc.testing.tree_constraint_met` and, by brute force over the domains, what
    Kueue's rule promises beyond it (meant for small trees).
    """

    def __call__(self, allocator: Any, free: np.ndarray, request: Any) -> bool:
        from topoalloc.testing import tree_any

        return tree_any(allocator, free, request)

    def check_choice(self, allocator: Any, free: np.ndarray, request: Any, allocation: Any) -> None:
        """Assert the grant is Kueue's: a plain count on the lowest free ids; a required or
        preferred one inside the domain with the fewest free nodes (the lowest id on ties) at the
        lowest level from the named one up that has a fitting domain; below it, on the fewest
        child domains (BestFit and Mixed) or only on the child domains the LeastFreeCapacity
        order (fewest free first, lowest id on ties) reaches before holding the count."""
        from topoalloc.testing import tree_constraint_met

        tree_constraint_met(allocator, free, request, allocation)
        t: SwitchTree = allocator.topology
        r = allocator.validate(request)
        free = np.asarray(free, dtype=bool).ravel()
        nodes = np.asarray(allocation.nodes)
        if not isinstance(r, TreeRequest) or r.plain:
            want = np.flatnonzero(free)[: len(nodes)]
            assert np.array_equal(nodes, want), f"{allocation!r}: a plain count takes the lowest free ids {want}"
            return
        if r.level is None:
            return
        n = r.count
        D = len(t.levels) - 1
        top = t.level_depth(r.level)
        for d in range(top, -1, -1):
            first, stop = t.domains(d)
            counts = [int(free[a:b].sum()) for a, b in zip(first.tolist(), stop.tolist(), strict=True)]
            fitting = [(c, i) for i, c in enumerate(counts) if c >= n]
            if fitting or r.required is not None:
                break
        assert fitting, f"{allocation!r} granted though no {r.level!r} domain had {n} free nodes"
        _, i = min(fitting)
        lo, hi = int(first[i]), int(stop[i])
        assert lo <= nodes[0] and nodes[-1] < hi, (
            f"{allocation!r} is not inside the {t.levels[d]!r} domain {lo}..{hi - 1}, the fitting one with fewest "
            f"free nodes (lowest id on ties)")
        if d == D:
            return
        cf, cs = t.domains(d + 1)
        kids = [(int(free[a:b].sum()), a, b) for a, b in zip(cf.tolist(), cs.tolist(), strict=True) if lo <= a < hi]
        used = {a for c, a, b in kids if np.any((nodes >= a) & (nodes < b))}
        if allocator.profile == "LeastFreeCapacity":
            reach, total = set(), 0
            for c, a, _ in sorted(kids):
                if total >= n:
                    break
                reach.add(a)
                total += c
            assert used <= reach, f"{allocation!r} uses child domains {sorted(used - reach)} LeastFreeCapacity skips"
        else:
            sizes = sorted((c for c, _, _ in kids), reverse=True)
            fewest = int(np.argmax(np.cumsum(sizes) >= n)) + 1
            assert len(used) == fewest, f"{allocation!r} uses {len(used)} child domains, {fewest} would do"


KueueTAS.oracle = KueueTASOracle()

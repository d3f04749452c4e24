"""Interference-free placement on a switch tree: no two jobs share a switch uplink.

S. D. Pollard, N. Jain, S. Herbein, A. Bhatele, "Evaluation of an Interference-free Node
Allocation Policy on Fat-tree Clusters", SC18: a fat-tree aware policy that "allocates isolated
partitions to jobs in order to eliminate inter-job interference". :class:`Isolating` is that
policy on any :class:`~topologies.SwitchTree`; :func:`isolated_placement_exists`,
:func:`check_isolated_placement`, :func:`check_isolated_choice` and :func:`shared_uplinks` are its
brute-force oracles.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from ..base import Allocator
from .base import TreeAllocator, free_per_domain

__all__ = [
    "Isolating",
    "isolated_placement_exists",
    "check_isolated_placement",
    "check_isolated_choice",
    "shared_uplinks",
]


class Isolating(TreeAllocator):
    """Interference-free node allocation: every switch uplink a job's traffic crosses is its own.

    Source: S. D. Pollard, N. Jain, S. Herbein, A. Bhatele, "Evaluation of an Interference-free
    Node Allocation Policy on Fat-tree Clusters", SC18 (the policy allocates isolated partitions
    so that jobs share no network links). Traffic between two nodes goes up to their lowest
    common switch and down (:meth:`~topologies.SwitchTree.route`), so a job uses the uplink of
    switch ``s`` exactly when some but not all of its nodes lie below ``s``.

    The rule, for ``n`` nodes:

    1. **One leaf switch** if one has ``n`` free nodes: such a job crosses no uplink, so jobs
       inside one leaf switch share it freely (the leaf switch's crossbar and node links are not
       shared links). Best fit: the leaf switch with the fewest free nodes that hold ``n``,
       lowest id on ties; its ``n`` lowest free ids.
    2. Otherwise **whole leaf switches under the lowest switch that can hold the job.** A job
       spanning leaf switches takes only *entirely free* leaf switches (so no other job's
       nodes sit under them), below a top switch ``c``, such that no switch between those leaf
       switches and ``c`` has its uplink held by another job; the job then holds the uplinks
       of its leaf switches and of the switches between them and ``c`` until it ends. The top
       is the switch whose usable leaf switches hold ``n`` with the least to spare (best fit),
       the deepest on ties, then the lowest id. Inside ``c`` the job is packed compactly: if one
       child subtree's usable leaf switches hold what is still needed, it descends into the
       best-fitting such child; otherwise it takes children whole, most usable nodes first,
       until the rest fits in one child, and descends into the best-fitting one for the rest.
       The last leaf switch is used in part (its lowest ids): the rest of that switch is
       :meth:`isolated_idle`.

    Every grant is exactly the ``n`` nodes the job runs on; the idle nodes of its last leaf
    switch are not granted (they stay free in :attr:`free` and the occupancy), but the
    allocator keeps them for the job: with ``strict=True`` (the default; the paper's isolated
    partition) no other job is placed on them while the job lives; with ``strict=False`` a job
    that fits inside one leaf switch may use them when no other leaf switch can take it (it
    crosses no uplink, so isolation still holds).

    State beyond the free mask: the switches whose uplink a live job holds
    (:meth:`owned_uplinks`), kept by the ``_taken`` / ``_returned`` hooks (a grant's held
    uplinks -- the switches holding some but not all of its nodes -- are computed when it is
    made and dropped when it is released; :meth:`clone` copies them).
    :meth:`place_in` answers for the free mask alone, as if every busy node were a one-node job
    (no uplink held, no idle node kept) -- exactly what the generic
    :meth:`Allocator.place_in <topoalloc.Allocator.place_in>` rebuilds -- so a backfilling
    reservation computed with it may, under ``strict=True``, count idle kept nodes as usable.

    Constraints (:class:`~topologies.TreeRequest`) are honoured inside the same family of
    isolated placements: ``required=L`` allows only tops at or below level ``L`` (a job inside
    one leaf switch lies inside one domain of every level); ``preferred=L`` takes the deepest
    level at or above ``L`` at which such a placement exists; ``switches=k`` allows only tops
    whose ``k`` largest usable leaf switches hold ``n`` and takes the fewest leaf switches,
    largest first; ``segment=S`` counts ``floor(size / S) * S`` usable nodes per leaf switch and
    fills leaf switches with whole segments, most segments first.

    Interpretations (the paper's policy is stated for fat-tree clusters; this generalises it
    to any switch tree):

    * the paper's "isolated partition" is read as whole leaf switches whose uplinks, and those of
      the switches up to the job's top, are the job's alone -- not whole pods: a job that spans
      pods holds the pods' uplinks, and other jobs may still use the pods' remaining leaf
      switches as long as they stay inside the pod;
    * jobs inside one leaf switch are never refused for isolation and may share it;
    * best fit, the compact packing and the lowest ids are this library's tie rules;
    * in an unbalanced tree the rule is the same (step 1 is tried for every request, whatever
      its size, before step 2).

    The class sets no ``oracle`` for :func:`topoalloc.testing.allocator_machine` (a grant that
    uses part of a leaf switch is not, on its own nodes, one of the policy's placements, as the
    generic recognised-region check would require, and refusals depend on the held uplinks):
    the tests add :func:`isolated_placement_exists` and :func:`check_isolated_choice` to the
    machine as rules of their own.

    Complexity: O(N + L D + S) vectorised per allocation (N nodes, L leaf switches, D the depth,
    S switches): one reduction over the free mask, one ``bincount`` over the leaf switches'
    ancestors, a descent of at most D levels; O(S) per grant or release spanning leaf switches.
    ``switches=k`` requests add O(S) Python steps.

    >>> from topologies import SwitchTree
    >>> iso = Isolating(SwitchTree.uniform((2, 2, 4), names=("pod", "leaf", "host")))
    >>> small = iso.allocate(3); big = iso.allocate(6)
    >>> small.nodes.tolist(), big.nodes.tolist(), iso.isolated_idle().tolist()
    ([0, 1, 2], [8, 9, 10, 11, 12, 13], [14, 15])
    >>> iso.allocate(2).nodes.tolist(), iso.owned_uplinks().tolist()
    ([4, 5], [5, 6])
    """

    recognition = "isolating"
    native: ClassVar[frozenset[str]] = frozenset({"required", "preferred", "switches", "segment"})

    def __init__(self, topology: SwitchTree, *, strict: bool = True) -> None:
        if not isinstance(strict, bool):
            raise TypeError(f"strict must be True or False, got {strict!r}")
        super().__init__(topology)
        self.strict = strict
        t = topology
        S = t.n_switches
        leaves = t.leaf_switch_ids
        L = len(leaves)
        self._leaves = leaves
        self._leaf_first = t.first[leaves]
        self._leaf_size = t.stop[leaves] - t.first[leaves]
        leaf_index = np.full(S, -1, dtype=np.int64)
        leaf_index[leaves] = np.arange(L)
        self._leaf_index = leaf_index
        self._node_leaf = leaf_index[t.leaf_of]
        self._pos_in_leaf = np.arange(t.size) - self._leaf_first[self._node_leaf]
        self._leaf_lo = np.searchsorted(self._leaf_first, t.first)  # leaf-switch index range of a subtree
        self._leaf_hi = np.searchsorted(self._leaf_first, t.stop)
        self._child_list = [list(c) for c in t.children]
        self._child_ranges = [[(int(self._leaf_lo[k]), int(self._leaf_hi[k])) for k in c] for c in t.children]
        self._is_leaf = t.is_leaf.tolist()
        # ancestors of each leaf switch by depth (S where there is none): the tops it can serve
        D = int(t.depth[leaves].max())
        anc = np.full((L, D), S, dtype=np.int64)
        cur = leaves.copy()
        for _ in range(D):
            up = t.parent[cur]
            ok = up >= 0
            anc[np.flatnonzero(ok), t.depth[up[ok]]] = up[ok]
            cur = np.where(ok, up, 0)
        self._anc = anc
        self._anc_flat = anc.ravel()
        self._dgrid = np.arange(D)
        dmax = int(t.depth.max())
        self._key_scale = float((dmax + 1) * S)  # sort keys: capacity, then deeper, then lower id
        self._key_base = ((dmax - t.depth) * S + np.arange(S)).astype(float)
        self._inner = np.flatnonzero(~t.is_leaf)[1:]  # switches with an uplink and switches below
        self._owned = np.zeros(S + 1, dtype=bool)  # held uplinks; a last, never held entry for `_anc`
        self._held_of: dict[int, np.ndarray] = {}  # first node id of a live grant -> the uplinks it holds

    def __repr__(self) -> str:
        return f"Isolating({self.topology!r}, strict={self.strict})"

    # -- state ------------------------------------------------------------------------------------
    def owned_uplinks(self) -> np.ndarray:
        """Ids of the switches whose uplink a live job holds (its traffic crosses it), ascending.

        >>> from topologies import SwitchTree
        >>> iso = Isolating(SwitchTree.uniform((3, 2))); _ = iso.allocate(3)
        >>> iso.owned_uplinks().tolist()
        [1, 2]
        """
        return np.flatnonzero(self._owned[:-1])

    def isolated_idle(self) -> np.ndarray:
        """Ids of the free nodes kept idle for isolation: the rest of the leaf switches of jobs
        that span several leaf switches (not granted, still free). O(N).

        >>> from topologies import SwitchTree
        >>> iso = Isolating(SwitchTree.uniform((3, 4))); _ = iso.allocate(6)
        >>> iso.isolated_idle().tolist(), iso.free
        ([6, 7], 6)
        """
        return np.flatnonzero(self._is_free & self._owned[self._leaves][self._node_leaf])

    def _taken(self, ids: np.ndarray) -> None:
        """Hold the uplinks a grant of ``ids`` (sorted) crosses: the switches below which some but
        not all of them lie (none for a grant inside one leaf switch). O(S log n)."""
        nl = self._node_leaf
        if nl[ids[0]] == nl[ids[-1]]:
            return
        t = self.topology
        c = np.searchsorted(ids, t.stop) - np.searchsorted(ids, t.first)
        held = np.flatnonzero((c > 0) & (c < len(ids)))
        held = held[held > 0]
        self._owned[held] = True
        self._held_of[int(ids[0])] = held

    def _returned(self, ids: np.ndarray) -> None:
        held = self._held_of.pop(int(ids[0]), None)
        if held is not None:
            self._owned[held] = False

    def clone(self) -> Isolating:
        """A copy of the free mask, the held uplinks and the live grants (:meth:`Allocator.clone`). O(N + S)."""
        if type(self) is not Isolating:
            return Allocator.clone(self)  # type: ignore[return-value]
        twin = self._shallow_clone()
        twin._is_free = self._is_free.copy()
        twin._owned = self._owned.copy()
        twin._held_of = dict(self._held_of)
        return twin  # type: ignore[return-value]

    # -- the rule -----------------------------------------------------------------------------------
    def _place(self, request: Any) -> tuple[Any, Any, np.ndarray, int] | None:
        n = request.count if isinstance(request, TreeRequest) else request
        if n > self._free:
            return None
        ids = self._choose(request, self._is_free, self._owned)
        if ids is None:
            return None
        self._is_free[ids] = False
        self._taken(ids)
        return request, ids, ids, n

    def _choose(self, request: int | TreeRequest, free: np.ndarray,
                owned: np.ndarray | None = None) -> np.ndarray | None:
        """Sorted node ids for a validated ``request`` on the nodes of ``free`` with the uplinks of
        ``owned`` held (``None``: none held, no idle node kept: :meth:`place_in`'s view)."""
        if not isinstance(request, TreeRequest):
            return self._pick(request, free, owned)
        n = request.count
        t = self.topology
        if request.required is not None:
            return self._pick(n, free, owned, min_depth=t.level_depth(request.required))
        if request.preferred is not None:
            return self._pick(n, free, owned, prefer=t.level_depth(request.preferred))
        if request.switches is not None:
            return self._pick(n, free, owned, switches=request.switches)
        if request.segment is not None:
            return self._pick(n, free, owned, segment=request.segment)
        return self._pick(n, free, owned)

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        """The rule for a plain count on ``free`` alone (no uplink held)."""
        return self._pick(n, free, None)

    def _pick(self, n: int, free: np.ndarray, owned: np.ndarray | None, *, min_depth: int = 0,
              prefer: int | None = None, switches: int | None = None,
              segment: int | None = None) -> np.ndarray | None:
        counts = free_per_domain(free, self._leaf_first)
        got = self._in_one_leaf(n, free, counts, owned)
        if got is not None or not self._dgrid.size:
            return got
        whole = counts == self._leaf_size
        if not whole.any():
            return None
        h = self._held_depth(owned)
        # per switch c: the nodes of the leaf switches a job with top c may take (entirely free,
        # and no held uplink between them and c), one bincount over the leaf switches' ancestors
        per_leaf = self._leaf_size * whole if segment is None else self._leaf_size // segment * segment * whole
        w = np.repeat(per_leaf, len(self._dgrid))
        if h is not None:
            w *= (h[:, None] <= self._dgrid).ravel()
        S = len(self._key_base)
        cap = np.bincount(self._anc_flat, weights=w, minlength=S + 1)[:S]
        valid = cap >= n
        depth = self.topology.depth
        if min_depth:
            valid &= depth >= min_depth
        if prefer is not None and valid.any():  # the deepest level at or above `prefer` with a top
            valid &= depth >= min(prefer, int(depth[valid].max()))
        # best fit (least to spare), then the deepest, then the lowest id
        key = np.where(valid, cap * self._key_scale + self._key_base, np.inf)
        c = int(key.argmin())
        if not valid[c]:
            return None
        if switches is not None:
            for c in np.argsort(key, kind="stable")[: int(valid.sum())].tolist():
                lo, usable = self._usable(c, whole, h)
                sizes = self._leaf_size[lo:lo + len(usable)][usable]
                if switches >= len(sizes) or int(np.sort(sizes)[len(sizes) - switches:].sum()) >= n:
                    return self._by_leaves(n, c, whole, h, self._leaf_size)
            return None
        if segment is not None:
            return self._by_leaves(n, c, whole, h, self._leaf_size // segment * segment)
        return self._compact(n, c, whole, h)

    def _in_one_leaf(self, n: int, free: np.ndarray, counts: np.ndarray,
                     owned: np.ndarray | None) -> np.ndarray | None:
        ok = counts >= n
        key = counts
        if owned is not None:
            held = owned[self._leaves]
            if self.strict:
                ok &= ~held
            else:  # a leaf switch with a held uplink only when no other one fits
                key = counts + held * (self._size + 1)
        idx = np.flatnonzero(ok)
        if not len(idx):
            return None
        i = int(idx[np.argmin(key[idx])])
        lo = int(self._leaf_first[i])
        return np.flatnonzero(free[lo:lo + int(self._leaf_size[i])])[:n] + lo

    def _held_depth(self, owned: np.ndarray | None) -> np.ndarray | None:
        """Per leaf switch, the depth of the deepest switch above it whose uplink is held (0 for
        none): a top of that depth or deeper can use the leaf switch; ``None`` when none is held."""
        if owned is None or not owned[self._inner].any():  # a held leaf switch is never entirely free
            return None
        return (owned[self._anc] * self._dgrid).max(axis=1)

    def _usable(self, c: int, whole: np.ndarray, h: np.ndarray | None) -> tuple[int, np.ndarray]:
        """``(lo, mask)``: the leaf switches ``lo ..`` under ``c`` and which of them a job with top
        ``c`` may take."""
        lo, hi = int(self._leaf_lo[c]), int(self._leaf_hi[c])
        usable = whole[lo:hi]
        if h is not None:
            usable = usable & (h[lo:hi] <= self.topology.depth[c])
        return lo, usable

    def _nodes(self, take: np.ndarray) -> np.ndarray:
        """The lowest ``take[i]`` node ids of every leaf switch ``i``, ascending. O(N)."""
        return (self._pos_in_leaf < take[self._node_leaf]).nonzero()[0]

    def _compact(self, n: int, c: int, whole: np.ndarray, h: np.ndarray | None) -> np.ndarray:
        """``n`` nodes of the usable leaf switches under top ``c``, packed compactly (class
        docstring). The descent looks at one switch's children per level (Python lists: a few
        children each); the nodes are marked in one O(N) pass."""
        avail = self._leaf_size * whole  # usable nodes per leaf switch (read inside c only)
        if h is not None:
            avail *= h <= self.topology.depth[c]
        pre = [0, *avail.cumsum().tolist()]
        take = np.zeros(len(avail), dtype=np.int64)
        need = n
        while not self._is_leaf[c]:
            ranges = self._child_ranges[c]
            u = [pre[b] - pre[a] for a, b in ranges]
            best = -1
            for i, x in enumerate(u):
                if x >= need and (best < 0 or x < u[best]):
                    best = i
            if best < 0:  # take children whole, most usable first, until the rest fits in one
                order = sorted(range(len(u)), key=lambda i: -u[i])  # stable: lowest id first on ties
                got = u[order[0]]
                j = 1
                while need - got > u[order[j]]:  # ends: all the children together hold `need`
                    got += u[order[j]]
                    j += 1
                for i in order[:j]:
                    a, b = ranges[i]
                    take[a:b] = avail[a:b]
                need -= got
                for i in order[j:]:
                    if u[i] >= need and (best < 0 or u[i] < u[best]):
                        best = i
            c = self._child_list[c][best]
        take[self._leaf_index[c]] = need
        return self._nodes(take)

    def _by_leaves(self, n: int, c: int, whole: np.ndarray, h: np.ndarray | None,
                   cap: np.ndarray) -> np.ndarray:
        """``n`` nodes on the fewest usable leaf switches under ``c``, ``cap[i]`` nodes at most on
        leaf switch ``i``: largest capacity first (lowest id on ties), the remainder on the
        best-fitting further one."""
        lo, usable = self._usable(c, whole, h)
        idx = lo + np.flatnonzero(usable & (cap[lo:lo + len(usable)] > 0))
        caps = cap[idx]
        order = np.lexsort((idx, -caps))
        idx, caps = idx[order], caps[order]
        cum = np.cumsum(caps)
        m = int(np.searchsorted(cum, n))  # leaf switches before the last one
        take = np.zeros(len(cap), dtype=np.int64)
        take[idx[:m]] = caps[:m]
        rest = n - (int(cum[m - 1]) if m else 0)
        later = np.flatnonzero(caps[m:] >= rest) + m
        last = later[np.lexsort((idx[later], caps[later]))[0]]
        take[idx[last]] = rest
        return self._nodes(take)


# ---------------------------------------------------------------------------------------------
# oracles (brute force: loops over switches and leaf switches, no shared code with the rule)
def _count(request: Any) -> int:
    return request.count if isinstance(request, TreeRequest) else int(request)


def _one_leaf_ok(t: SwitchTree, free: np.ndarray, n: int, owned: np.ndarray, strict: bool) -> list[int]:
    """Leaf switches on which a job of ``n`` inside one leaf switch may go."""
    return [int(s) for s in t.leaf_switch_ids
            if not (strict and owned[s]) and int(free[t.first[s]:t.stop[s]].sum()) >= n]


def _largest_domain(t: SwitchTree, depth: int) -> int:
    first, stop = t.domains(depth)
    return int((stop - first).max())


def _usable_leaf_sizes(t: SwitchTree, free: np.ndarray, c: int, owned: np.ndarray) -> list[int]:
    """Sizes of the leaf switches under ``c`` that are entirely free and reach ``c`` through no
    held uplink."""
    sizes = []
    for s in t.leaf_switch_ids.tolist():
        if not (t.first[c] <= t.first[s] < t.stop[c]) or s == c or not free[t.first[s]:t.stop[s]].all():
            continue
        p, ok = int(t.parent[s]), True
        while p != c:
            ok = ok and not owned[p]
            p = int(t.parent[p])
        if ok:
            sizes.append(int(t.stop[s] - t.first[s]))
    return sizes


def isolated_placement_exists(allocator: Isolating, free: np.ndarray, request: Any,
                              owned: np.ndarray | None = None) -> bool:
    """Oracle: whether :class:`Isolating`'s family holds a placement of ``request`` on the nodes
    of ``free`` with the uplinks of ``owned`` held (a mask over switches; ``None``: none, the view
    of :meth:`Isolating.place_in`): a leaf switch with ``n`` free nodes (not one whose uplink is
    held, under ``strict``), or a switch ``c`` (deep enough for ``required``) whose usable leaf
    switches -- entirely free, reaching ``c`` through no held uplink -- hold ``n`` nodes (the
    ``k`` largest of them for ``switches=k``; whole segments for ``segment=S``). Brute force over
    switches and leaf switches, O(S L D).

    >>> import numpy as np
    >>> from topologies import SwitchTree
    >>> iso = Isolating(SwitchTree.uniform((2, 4)))
    >>> free = np.array([1, 1, 1, 0, 1, 1, 1, 0], dtype=bool)
    >>> isolated_placement_exists(iso, free, 3), isolated_placement_exists(iso, free, 4)
    (True, False)
    """
    t = allocator.topology
    r = allocator.validate(request)
    free = np.asarray(free, dtype=bool).ravel()
    owned = np.zeros(t.n_switches, dtype=bool) if owned is None else np.asarray(owned, dtype=bool)
    n = _count(r)
    if _one_leaf_ok(t, free, n, owned, allocator.strict):
        return True
    min_depth = t.level_depth(r.required) if isinstance(r, TreeRequest) and r.required is not None else 0
    for c in range(t.n_switches):
        if t.is_leaf[c] or t.depth[c] < min_depth:
            continue
        sizes = _usable_leaf_sizes(t, free, c, owned)
        if isinstance(r, TreeRequest) and r.switches is not None:
            total = sum(sorted(sizes, reverse=True)[: r.switches])
        elif isinstance(r, TreeRequest) and r.segment is not None:
            total = sum(z // r.segment * r.segment for z in sizes)
        else:
            total = sum(sizes)
        if total >= n:
            return True
    return False


def shared_uplinks(topology: SwitchTree, node_sets: Any) -> list[int]:
    """Ids of the switches whose uplink the traffic of two or more of ``node_sets`` (node-id
    sequences, one per job) crosses: the links with :meth:`~topologies.SwitchTree.link_traffic`
    ``> 0`` for more than one set, node links left out.

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 2))
    >>> shared_uplinks(t, [[0, 2], [1]]), shared_uplinks(t, [[0, 2], [1, 3]])
    ([], [1, 2])
    """
    N = topology.size
    users = np.zeros(topology.n_links - N, dtype=np.int64)
    for nodes in node_sets:
        users += topology.link_traffic(np.asarray(nodes, dtype=np.int64))[N:] > 0
    return (np.flatnonzero(users > 1) + 1).tolist()


def check_isolated_placement(allocator: Isolating, free: np.ndarray, request: Any, nodes: Any,
                             owned: np.ndarray | None = None) -> None:
    """Assert that ``nodes`` is one of :class:`Isolating`'s placements for ``request`` on the
    free mask ``free`` with the uplinks of ``owned`` held, and honours the request's constraint.

    A placement inside one leaf switch avoids (``strict``) or, failing any other, may use
    (``strict=False``) a leaf switch with a held uplink; a wider one uses only leaf switches that
    are entirely free, below its lowest common switch through no held uplink. ``preferred=L``
    is met at the deepest level at or above ``L`` at which :func:`isolated_placement_exists`
    finds a placement inside one domain."""
    t = allocator.topology
    r = allocator.validate(request)
    free = np.asarray(free, dtype=bool).ravel()
    owned = np.zeros(t.n_switches, dtype=bool) if owned is None else np.asarray(owned, dtype=bool)
    nodes = np.asarray(nodes, dtype=np.int64)
    n = _count(r)
    assert len(nodes) == n and len(np.unique(nodes)) == n and free[nodes].all(), f"{nodes} are not {n} free nodes"
    top = t.common_switch(nodes)
    if t.is_leaf[top]:
        if owned[top]:
            assert not allocator.strict, f"{nodes} use a leaf switch kept for another job"
            others = _one_leaf_ok(t, free, n, owned, True)
            assert not others, f"{nodes} use a kept leaf switch though leaf switches {others} had room"
    else:
        for s in np.unique(t.leaf_of[nodes]).tolist():
            assert free[t.first[s]:t.stop[s]].all(), f"{nodes} take part of leaf switch {s}, which was not free"
            p = int(t.parent[s])
            while p != top:
                assert not owned[p], f"{nodes} cross switch {p}'s uplink, held by another job"
                p = int(t.parent[p])
    mask = np.zeros(t.size, dtype=bool)
    mask[nodes] = True
    if isinstance(r, TreeRequest):
        level = r.required
        if r.preferred is not None:
            level = next(t.levels[d] for d in range(t.level_depth(r.preferred), -1, -1)
                         if _largest_domain(t, d) >= n
                         and isolated_placement_exists(allocator, free, TreeRequest(n, required=t.levels[d]), owned))
        if level is not None:
            first, _ = t.domains(level)
            assert (np.add.reduceat(mask.astype(np.int64), first) == n).any(), (
                f"{nodes} are not inside one {level!r} domain")
        if r.switches is not None:
            assert t.leaf_switches_spanned(nodes) <= r.switches, f"{nodes} span more than {r.switches} leaf switches"
        if r.segment is not None:
            per_leaf = np.add.reduceat(mask.astype(np.int64), t.first[t.leaf_switch_ids])
            assert (per_leaf % r.segment == 0).all(), f"{nodes} split a segment of {r.segment}"


def check_isolated_choice(allocator: Isolating, free: np.ndarray, request: Any, allocation: Any,
                          owned: np.ndarray | None = None) -> None:
    """Assert that ``allocation``, just granted by ``allocator`` on the free mask ``free`` with the
    uplinks of ``owned`` held before it, passes :func:`check_isolated_placement`, and that no switch
    uplink is now crossed by two live grants ("Isolating never shares an uplink")."""
    check_isolated_placement(allocator, free, request, allocation.nodes, owned)
    shared = shared_uplinks(allocator.topology, [a.nodes for a in allocator.allocations])
    assert not shared, f"after {allocation!r}, the uplinks of switches {shared} are crossed by two jobs"


isolated_placement_exists.check_choice = check_isolated_choice  # type: ignore[attr-defined]

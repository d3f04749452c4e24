"""Interference-free placement on a switch tree: no two jobs share a switch uplink.

S. D. Pollard, N. Jain, S. Herbein, A. Bhatele, "Evaluation of an Interference-free Node
Allocation Policy on Fat-tree Clusters", SC18: a fat-tree aware policy that "allocates isolated
partitions to jobs in order to eliminate inter-job interference". :class:`Isolating` is that
policy on any :class:`~topologies.SwitchTree`; :func:`isolated_placement_exists`,
:func:`check_isolated_placement`, :func:`check_isolated_choice` and :func:`shared_uplinks` are its
brute-force oracles.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any, ClassVar, Literal, cast

import numpy as np

from topologies import SwitchTree, TreeRequest
from topologies._validate import check_bool

from ..base import Allocation, Allocator
from ..errors import AllocatorParameterError
from .base import TreeAllocator, _ready_ranks, free_per_domain

__all__ = [
    "Isolating",
    "isolated_placement_exists",
    "check_isolated_placement",
    "check_isolated_choice",
    "shared_uplinks",
]

_NONE = np.iinfo(np.int64).max  # no leaf switch: above every one-leaf key
_LOOK = 4  # leaf switches Isolating._one_leaf_avoiding looks at one by one before its vectorised pass


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

    State beyond the free mask, kept by the ``_taken`` / ``_returned`` hooks (:meth:`clone`
    copies it): the switches whose uplink a live job holds (:meth:`owned_uplinks`; a grant's
    held uplinks -- the switches holding some but not all of its nodes -- are computed when it
    is made and dropped when it is released), and per leaf switch its free nodes, whether its
    uplink is held, and the leaf switches sorted by step 1's key (free nodes, a held one moved
    below or above every count) so that step 1's best fit on the allocator's own state is one
    bisection. These are derived from the free mask and the held uplinks, so the placements
    are the same as if they were recomputed at each request.
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

    Complexity (N nodes, L leaf switches, D the depth, S switches): a job placed inside one leaf
    switch costs O(log L) Python steps to choose the leaf switch (bisections of the key order),
    one vectorised pass over that leaf switch's free mask, and O(log L) steps to update the
    order when it is granted or released (plus a C-level move of the order list's tail, O(L)).
    A job spanning leaf switches costs O(L + S) vectorised (prefix sums of the entirely free leaf
    switches' nodes, or, with uplinks held, one ``bincount`` over the leaf switches' ancestors,
    O(L D)), a descent of at most D levels (a few children each, in Python) and one O(N) pass to
    mark the nodes; its grant or release O(S log n + L log L). A refusal costs O(log L) when the
    entirely free leaf switches hold fewer than ``n`` nodes or a smaller plain count was refused
    since the state last changed, else what step 2 costs. :meth:`place_in` on an
    arbitrary mask: O(N + L D + S) vectorised. ``switches=k`` requests add O(S) Python steps.
    :meth:`allocate_avoiding`: O(N) vectorised for placements inside one leaf switch, then
    O(N + L D + S) per placement spanning leaf switches tried; :meth:`earliest_in`: O(N log N
    + L D log(L D)).

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
        super().__init__(topology)
        self.strict = check_bool(strict, "Isolating strict", error=AllocatorParameterError)
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
        self._has_kids = ~t.is_leaf
        self._depth_of_top = np.append(t.depth, -1)  # a switch's depth; -1 for `_anc`'s "none"
        self._owned = np.zeros(S + 1, dtype=bool)  # held uplinks; a last, never held entry for `_anc`
        # first node id of a live grant spanning leaf switches -> (the uplinks it holds, its nodes per leaf switch)
        self._held_of: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        # The allocator's own state per leaf switch, kept by `_taken` / `_returned` in Python lists
        # (a grant inside one leaf switch changes one entry in O(log L)): its free nodes, whether its
        # uplink is held, and the leaf switches sorted by (one-leaf key, id) -- the key is the free
        # nodes, moved by `_hold_off` when the uplink is held: below every count under `strict`,
        # above every count otherwise -- so step 1's best fit is one bisection.
        self._sizes: list[int] = self._leaf_size.tolist()
        self._sizes_max = max(self._sizes)
        self._firsts: list[int] = self._leaf_first.tolist()
        self._hold_off = -(t.size + 1) if strict else t.size + 1
        self._free_l = list(self._sizes)
        self._held_l = [False] * L
        self._by_key = sorted(zip(self._sizes, range(L), strict=True))
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # _leaf_arrays(), built when asked
        self._whole_free = t.size  # nodes of the entirely free leaf switches
        self._no_span_from = _NONE  # the least plain count step 2 refused since the state changed
        self._own_depth: np.ndarray | None | Literal[False] = None  # _held_depth(self._owned) (False: not known)

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
        not all of them lie (none for a grant inside one leaf switch); count its nodes off the
        leaf switches' free nodes. O(log L) for a grant inside one leaf switch, else O(S log n +
        L log L)."""
        self._no_span_from = _NONE
        nl = self._node_leaf
        a = int(nl[ids[0]])
        if a == nl[ids[-1]]:
            self._arrays = None
            k = len(ids)
            had = self._free_l[a]
            if had == self._sizes[a]:
                self._whole_free -= had
            self._free_l[a] = had - k
            self._rekey(a, had, -k)
            return
        c = self._per_switch(ids)
        held = self._held_switches(c, len(ids))
        per_leaf = c[self._leaves]
        self._owned[held] = True
        self._held_of[int(ids[0])] = (held, per_leaf)
        self._spread_changed(self._leaf_arrays()[0] - per_leaf)

    def _returned(self, ids: np.ndarray) -> None:
        self._no_span_from = _NONE
        got = self._held_of.pop(int(ids[0]), None)
        if got is None:  # a grant inside one leaf switch
            self._arrays = None
            a = int(self._node_leaf[ids[0]])
            k = len(ids)
            had = self._free_l[a]
            self._free_l[a] = had + k
            if had + k == self._sizes[a]:
                self._whole_free += had + k
            self._rekey(a, had, k)
            return
        held, per_leaf = got
        self._owned[held] = False
        self._spread_changed(self._leaf_arrays()[0] + per_leaf)

    def _rekey(self, a: int, had: int, change: int) -> None:
        """Move leaf switch ``a``, which had ``had`` free nodes, to its place in the key order after
        ``change`` more. O(log L) comparisons (and a C-level move of the list's tail)."""
        key = had + self._hold_off if self._held_l[a] else had
        by_key = self._by_key
        del by_key[bisect_left(by_key, (key, a))]
        insort(by_key, (key + change, a))

    def _spread_changed(self, counts: np.ndarray) -> None:
        """After a grant spanning leaf switches is made or released: the free nodes per leaf switch
        are ``counts``; the held leaf switches, the key order and the entirely free nodes afresh.
        O(L log L)."""
        held = self._owned[self._leaves]
        key = counts + held * self._hold_off
        self._free_l = counts.tolist()
        self._held_l = held.tolist()
        self._by_key = sorted(zip(key.tolist(), range(len(counts)), strict=True))
        self._own_depth = False
        self._whole_free = int(self._leaf_size[counts == self._leaf_size].sum())
        self._arrays = (counts, key)

    def _leaf_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The allocator's own free nodes and one-leaf keys per leaf switch, as arrays (built once
        per state, O(L); never written to)."""
        got = self._arrays
        if got is None:
            counts = np.array(self._free_l, dtype=np.int64)
            got = self._arrays = (counts, counts + self._owned[self._leaves] * self._hold_off)
        return got

    def _best_leaf(self, n: int) -> int:
        """Step 1 on the allocator's own state: the leaf switch that takes a job of ``n`` (the
        least key among those with ``n`` free nodes that may take it, lowest id on ties), or -1.
        One or two bisections of the key order, O(log L)."""
        by_key = self._by_key
        i = bisect_left(by_key, (n, -1))
        if i == len(by_key):
            return -1
        key, a = by_key[i]
        if key <= self._size:  # (under `strict` a held leaf switch's key is negative)
            return a
        i = bisect_left(by_key, (self._size + 1 + n, -1))  # strict=False: a held one with n free
        return by_key[i][1] if i < len(by_key) else -1

    def _per_switch(self, ids: np.ndarray) -> np.ndarray:
        """How many of ``ids`` (sorted) lie below each switch. O(S log n)."""
        t: SwitchTree = self.topology
        return np.searchsorted(ids, t.stop) - np.searchsorted(ids, t.first)

    @staticmethod
    def _held_switches(per_switch: np.ndarray, n: int) -> np.ndarray:
        """The switches below which some but not all of a grant's ``n`` nodes lie, from
        :meth:`_per_switch`: the uplinks the grant crosses (never the root's: all lie below it)."""
        return ((per_switch > 0) & (per_switch < n)).nonzero()[0]

    def clone(self) -> Isolating:
        """A copy of the free mask, the held uplinks and the live grants (:meth:`Allocator.clone`). O(N + S)."""
        if type(self) is not Isolating:
            return Allocator.clone(self)
        twin = self._shallow_clone()
        twin._is_free = self._is_free.copy()
        twin._owned = self._owned.copy()
        twin._held_of = dict(self._held_of)
        twin._free_l = list(self._free_l)
        twin._held_l = list(self._held_l)
        twin._by_key = list(self._by_key)
        return twin

    # -- what-if questions, answered without granting ---------------------------------------------
    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` without granting and releasing: the placements the
        rule makes one after another while the earlier ones are held are found on a copy of the
        state, and only the first that touches no node of ``avoid`` is granted. Same grant, and
        the same state afterwards, as the generic default.

        While a leaf switch holds the job, the successive placements are the leaf switches that
        hold it in the rule's order (fewest free nodes first, lowest id on ties), each giving its
        free ids ``n`` at a time, lowest first (holding a placement leaves that leaf switch the
        best fit while it still holds the job): the first of them that avoids ``avoid`` is found
        without making them, O(N) vectorised (:meth:`_one_leaf_avoiding`). Once they are used up,
        the placements spanning leaf switches are made one by one on the copy, O(N + L D + S)
        each, at most ``free / n`` of them.

        >>> import numpy as np
        >>> from topologies import SwitchTree
        >>> iso = Isolating(SwitchTree.uniform((2, 3, 4))); _ = iso.allocate(3)
        >>> avoid = np.zeros(24, dtype=bool); avoid[4] = True  # [4, 5] is passed, [6, 7] taken
        >>> iso.allocate_avoiding(2, avoid).nodes.tolist(), iso.free
        ([6, 7], 19)
        """
        if type(self) is not Isolating:
            return Allocator.allocate_avoiding(self, request, avoid)
        r = self.validate(request)
        n = r.count if isinstance(r, TreeRequest) else r
        if n > self._free:
            return None
        one_leaf = self._best_leaf(n) >= 0
        plain = not isinstance(r, TreeRequest) or r.plain
        if not one_leaf and (n > self._whole_free or not self._dgrid.size or (plain and n >= self._no_span_from)):
            return None
        avoid = np.asarray(avoid, dtype=bool).ravel()
        counts, key = self._leaf_arrays()
        fits = key if self.strict else counts
        whole = counts == self._leaf_size
        if one_leaf:
            ids = self._one_leaf_avoiding(n, counts, fits, key, avoid)
            if ids is not None:
                return self._grant(r, ids, n)
            whole &= fits < n  # every leaf switch that held the job is no longer entirely free
            if not self._dgrid.size or not whole.any():
                return None
        kw = self._span_options(r)
        owned = self._owned.copy()
        while True:
            ids = self._span(n, whole, owned, **kw)
            if ids is None:
                return None
            if not avoid[ids].any():
                return self._grant(r, ids, n)
            whole[self._node_leaf[ids]] = False  # held: its leaf switches are no longer entirely free ...
            owned[self._held_switches(self._per_switch(ids), n)] = True  # ... and its uplinks are held

    def _grant(self, request: Any, ids: np.ndarray, n: int) -> Allocation:
        self._is_free[ids] = False
        self._taken(ids)
        return self._register(request, ids, ids, n)

    def _one_leaf_avoiding(self, n: int, counts: np.ndarray, fits: np.ndarray, key: np.ndarray,
                           avoid: np.ndarray) -> np.ndarray | None:
        """On the allocator's own state: the first placement inside one leaf switch, in the order
        the rule makes them while the earlier ones are held (:meth:`allocate_avoiding`), that
        touches no node of ``avoid``; or ``None``. ``counts``, ``fits`` and ``key`` are the leaf
        switches' free nodes, one-leaf test (``>= n``) and order.

        Only a leaf switch with ``n`` free nodes off ``avoid`` can give one; those are looked at in
        the rule's order: one with no free node on ``avoid`` gives its first placement, another
        the first of its placements (its free ids ``n`` at a time) that avoids ``avoid``, if any.
        After a few such leaf switches, one vectorised pass numbers every placement and finds the
        first clean one. O(N)."""
        free = self._is_free
        off = counts - free_per_domain(free & avoid, self._leaf_first)  # free nodes off `avoid`
        cand = np.flatnonzero((fits >= n) & (off >= n))
        if not len(cand):
            return None
        order = cand[np.argsort(key[cand], kind="stable")]
        for i in order[:_LOOK].tolist():
            lo = self._firsts[i]
            ids = free[lo:lo + self._sizes[i]].nonzero()[0]
            ids += lo
            if off[i] == counts[i]:
                return ids[:n]
            g = int(counts[i]) // n
            # numpy's stubs type an axis reduction as "scalar or array"; over a 2-D array it is an array
            dirty = cast(np.ndarray, avoid[ids[:g * n]].reshape(g, n).any(axis=1))
            k = int(dirty.argmin())
            if not dirty[k]:
                return ids[k * n:(k + 1) * n]
        if len(order) <= _LOOK:
            return None
        order = order[_LOOK:]
        groups = counts[order] // n  # placements each leaf switch gives, in the rule's order
        gstart = np.cumsum(groups) - groups  # ... numbered from this one on
        per_leaf = np.zeros(len(counts), dtype=np.int64)
        first = np.zeros(len(counts), dtype=np.int64)
        per_leaf[order] = groups
        first[order] = gstart
        ids = np.flatnonzero(free)
        leaf = self._node_leaf[ids]
        q = (np.arange(len(ids)) - (np.cumsum(counts) - counts)[leaf]) // n  # rank among its leaf's free ids // n
        sel = q < per_leaf[leaf]  # the free ids some placement takes
        dirty = np.bincount(first[leaf[sel]] + q[sel], weights=avoid[ids[sel]], minlength=int(gstart[-1] + groups[-1]))
        g = int(dirty.argmin())
        if dirty[g]:
            return None
        j = int(np.searchsorted(gstart, g, side="right")) - 1
        i = int(order[j])
        k = g - int(gstart[j])
        lo = int(self._leaf_first[i])
        return np.flatnonzero(free[lo:lo + int(self._leaf_size[i])])[k * n:(k + 1) * n] + lo

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in` in one vectorised pass for a plain count and for
        ``required`` / ``preferred`` / ``segment`` requests (``switches=`` requests: the bisection
        of :meth:`TreeAllocator.earliest_in <topoalloc.tree.TreeAllocator.earliest_in>`). The
        answer is the generic one: the earliest ready time at which :meth:`place_in` finds a
        placement, and that placement.

        With the ready times ranked, a leaf switch can take the job alone from the time its
        ``n``-th node is ready (one sort of ``leaf * T + rank`` over the nodes), and is entirely
        free from its last node's time; a top switch can take the job from the time its leaf
        switches entirely free by then hold ``n`` nodes (one sort of its leaf switches by that
        time per ancestor, then cumulative sums). The earliest of all these, then one
        :meth:`place_in`. O(N log N + L D log(L D)).
        """
        r = self.validate(request)
        if type(self) is not Isolating or (isinstance(r, TreeRequest) and r.switches is not None):
            return super().earliest_in(r, ready, now)
        n = r.count if isinstance(r, TreeRequest) else r
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        times, rank = _ready_ranks(ready)
        T = len(times)
        best = T  # the earliest feasible time's index (T: never)
        big = np.flatnonzero(self._leaf_size >= n)
        if len(big):  # inside one leaf switch
            by_leaf = np.sort(self._node_leaf * T + rank, kind="stable")
            best = int((by_leaf[self._leaf_first[big] + n - 1] - big * T).min())
        if self._dgrid.size:  # whole leaf switches under one top switch (no uplink held: place_in's view)
            seg = r.segment if isinstance(r, TreeRequest) and r.segment is not None else 1
            D = len(self._dgrid)
            S = len(self._key_base)
            top = self._anc_flat  # leaf switch l's ancestor at depth d at l * D + d (S: none)
            at = np.repeat(np.maximum.reduceat(rank, self._leaf_first), D)  # entirely free from
            w = np.repeat(self._leaf_size // seg * seg, D)  # nodes it gives a job
            order = np.argsort(top * T + at, kind="stable")
            top, at, w = top[order], at[order], w[order]
            cum = np.cumsum(w)
            new_top = np.empty(len(top), dtype=bool)
            new_top[:1] = True
            np.not_equal(top[1:], top[:-1], out=new_top[1:])
            begin = new_top.nonzero()[0]  # each top's first entry
            cum -= np.repeat((cum - w)[begin], np.diff(begin, append=len(top)))  # cumulative per top
            ok = (cum >= n) & (top < S)
            if isinstance(r, TreeRequest) and r.required is not None:
                ok &= self._depth_of_top[top] >= self.topology.level_depth(r.required)
            if ok.any():
                best = min(best, int(at[ok].min()))
        if best >= T:
            return None
        t = times[best]
        nodes = self.place_in(r, ready <= t)
        assert nodes is not None  # the rule places the request by t (found above)
        return float(t), nodes

    # -- the rule -----------------------------------------------------------------------------------
    def _place(self, request: Any) -> tuple[Any, Any, np.ndarray, int] | None:
        n = request.count if isinstance(request, TreeRequest) else request
        if n > self._free:
            return None
        a = self._best_leaf(n)
        ids: np.ndarray | None
        if a >= 0:  # step 1: inside leaf switch a
            lo = self._firsts[a]
            ids = self._is_free[lo:lo + self._sizes[a]].nonzero()[0][:n]
            ids += lo
        else:  # step 2
            if n > self._whole_free or not self._dgrid.size:
                return None
            plain = not isinstance(request, TreeRequest) or request.plain
            if plain and n >= self._no_span_from:
                return None
            whole = self._leaf_arrays()[0] == self._leaf_size
            ids = self._span(n, whole, self._owned, **self._span_options(request))
            if ids is None:
                if plain:
                    self._no_span_from = n
                return None
        self._is_free[ids] = False
        self._taken(ids)
        return request, ids, ids, n

    def _choose(self, request: int | TreeRequest, free: np.ndarray,
                owned: np.ndarray | None = None) -> np.ndarray | None:
        """Sorted node ids for a validated ``request`` on the nodes of ``free`` with the uplinks of
        ``owned`` held (``None``: none held, no idle node kept: :meth:`place_in`'s view)."""
        n = request.count if isinstance(request, TreeRequest) else request
        counts = free_per_domain(free, self._leaf_first)
        fits = key = counts
        if owned is not None:
            key = counts + owned[self._leaves] * self._hold_off
            if self.strict:
                fits = key
        got = self._in_one_leaf(n, free, fits, key) if n <= self._sizes_max else None
        if got is not None or not self._dgrid.size:
            return got
        return self._span(n, counts == self._leaf_size, owned, **self._span_options(request))

    def _span_options(self, request: int | TreeRequest) -> dict[str, Any]:
        """The constraint of a validated request as :meth:`_span`'s keyword arguments."""
        if not isinstance(request, TreeRequest):
            return {}
        if request.required is not None:
            return {"min_depth": self.topology.level_depth(request.required)}
        if request.preferred is not None:
            return {"prefer": self.topology.level_depth(request.preferred)}
        if request.switches is not None:
            return {"switches": request.switches}
        if request.segment is not None:
            return {"segment": request.segment}
        return {}

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        """The rule for a plain count on ``free`` alone (no uplink held)."""
        return self._choose(n, free, None)

    def _span(self, n: int, whole: np.ndarray, owned: np.ndarray | None, *, min_depth: int = 0,
              prefer: int | None = None, switches: int | None = None,
              segment: int | None = None) -> np.ndarray | None:
        """Step 2 of the rule: ``n`` nodes on the entirely free leaf switches (``whole``) with the
        uplinks of ``owned`` held, under the best-fitting top switch; the constraint's options."""
        # per switch c: the nodes of the leaf switches a job with top c may take (entirely free,
        # and no held uplink between them and c), one bincount over the leaf switches' ancestors
        per_leaf = self._leaf_size * whole if segment is None else self._leaf_size // segment * segment * whole
        h = self._held_depth(owned)
        pre = None
        if h is None:  # every switch's leaf switches are one index range: prefix sums
            pre = np.zeros(len(per_leaf) + 1, dtype=np.int64)
            np.cumsum(per_leaf, out=pre[1:])
            if pre[-1] < n:  # no top can hold it (a quick refusal)
                return None
            cap = pre[self._leaf_hi] - pre[self._leaf_lo]
            valid = (cap >= n) & self._has_kids  # a leaf switch is no top
        else:
            if int(per_leaf.sum()) < n:
                return None
            w = np.repeat(per_leaf, len(self._dgrid))
            w *= (h[:, None] <= self._dgrid).ravel()
            cap = np.bincount(self._anc_flat, weights=w, minlength=len(self._key_base) + 1)[:-1]
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
        return self._compact(n, c, whole, h, None if pre is None else pre.tolist())

    def _in_one_leaf(self, n: int, free: np.ndarray, fits: np.ndarray, key: np.ndarray) -> np.ndarray | None:
        """Step 1 of the rule: the lowest ``n`` free ids of the leaf switch with the least ``key``
        (lowest id on ties) among those with ``fits >= n``; ``None`` if there is none. ``fits`` is
        the free nodes per leaf switch (``key`` for a held one under ``strict``: below any count);
        ``key`` the free nodes, raised above every count for a held one under ``strict=False``."""
        cand = np.where(fits >= n, key, _NONE)
        i = int(cand.argmin())
        if cand[i] == _NONE:
            return None
        lo = int(self._leaf_first[i])
        return free[lo:lo + int(self._leaf_size[i])].nonzero()[0][:n] + lo

    def _held_depth(self, owned: np.ndarray | None) -> np.ndarray | None:
        """Per leaf switch, the depth of the deepest switch above it whose uplink is held (0 for
        none): a top of that depth or deeper can use the leaf switch; ``None`` when none is held."""
        if owned is None:
            return None
        if owned is self._owned:  # the allocator's own: kept until a grant spanning leaf switches comes or goes
            depth = self._own_depth
            if depth is False:
                depth = self._own_depth = self._held_depth(owned.copy())
            return depth
        if not owned[self._inner].any():  # a held leaf switch is never entirely free
            return None
        deepest: np.ndarray = (owned[self._anc] * self._dgrid).max(axis=1)
        return deepest

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
        below: np.ndarray = self._pos_in_leaf < take[self._node_leaf]
        return below.nonzero()[0]

    def _compact(self, n: int, c: int, whole: np.ndarray, h: np.ndarray | None,
                 pre: list[int] | None = None) -> np.ndarray:
        """``n`` nodes of the usable leaf switches under top ``c``, packed compactly (class
        docstring). The descent looks at one switch's children per level (Python lists: a few
        children each); the nodes are marked in one O(N) pass."""
        avail = self._leaf_size * whole  # usable nodes per leaf switch (read inside c only)
        if h is not None:
            avail *= h <= self.topology.depth[c]
        if pre is None:  # (given: the prefix sums of avail)
            pre = [0, *avail.cumsum().tolist()]
        take = np.zeros(len(avail), dtype=np.int64)
        need = n
        is_leaf, child_ranges, child_list = self._is_leaf, self._child_ranges, self._child_list
        while not is_leaf[c]:
            ranges = child_ranges[c]
            u = [pre[b] - pre[a] for a, b in ranges]
            best, fit = -1, 0
            for i, x in enumerate(u):  # the best-fitting child that holds what is needed
                if x >= need and (best < 0 or x < fit):
                    best, fit = i, x
            if best < 0:  # take children whole, most usable first, until the rest fits in one
                order = sorted(range(len(u)), key=[-x for x in u].__getitem__)  # stable: lowest id first on ties
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
                    x = u[i]
                    if x >= need and (best < 0 or x < fit):
                        best, fit = i, x
            c = child_list[c][best]
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

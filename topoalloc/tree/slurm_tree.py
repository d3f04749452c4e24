"""Slurm's ``topology/tree`` node selection: the lowest fitting switch, then leaf switches best fit."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from ..base import Allocator
from .base import TreeAllocator

__all__ = ["SlurmTree", "slurm_tree_oracle"]

#: Leaf switch counts up to which the leaf-to-leaf hop matrix is kept (``L * L`` int16 entries).
_HOP_MATRIX_LEAVES = 1024


class _Tables:
    """What the selection needs of a tree, computed once per allocator (immutable; copies share it)."""

    __slots__ = ("virtual", "top_rank", "top_spans", "top_leaves", "top_leaf_bounds", "leaf_list", "lfirst", "lstop",
                 "parent", "level", "hops", "anc", "leaf_depth", "first", "stop")

    def __init__(self, t: SwitchTree) -> None:
        self.virtual = bool(t.virtual_root)
        self.first = t.first
        self.stop = t.stop
        self.parent: list[int] = t.parent.tolist()
        self.level: list[int] = (t.height - 1).tolist()  # Slurm's level: 0 for a leaf switch
        tops = list(t.children[0]) if self.virtual else [0]
        # Slurm's preference among top switches: the highest level, the last in table order on ties
        self.top_rank: list[int] = sorted(tops, key=lambda s: (-self.level[s], -s))
        leaf_ids = t.leaf_switch_ids
        self.leaf_list: list[int] = leaf_ids.tolist()
        self.lfirst: list[int] = t.first[leaf_ids].tolist()
        self.lstop: list[int] = t.stop[leaf_ids].tolist()
        # leaf-index range [lo, hi) under each top switch (leaves are in node order, subtrees contiguous)
        self.top_leaves: dict[int, tuple[int, int]] = {}
        self.top_leaf_bounds: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        lfirst, lstop = t.first[leaf_ids], t.stop[leaf_ids]
        for s in tops:
            lo, hi = (int(x) for x in np.searchsorted(lfirst, [t.first[s], t.stop[s]]))
            self.top_leaves[s] = (lo, hi)
            self.top_leaf_bounds[s] = (lfirst[lo:hi].copy(), lstop[lo:hi].copy())
        self.top_spans: list[tuple[int, int, int]] = [(s, int(t.first[s]), int(t.stop[s])) for s in self.top_rank]
        # the ancestor at each depth of every leaf switch (-1 below its depth), for hop counts
        depth = t.depth[leaf_ids]
        anc = np.full((int(depth.max()) + 1, len(leaf_ids)), -1, dtype=np.int64)
        cur, at_depth = leaf_ids.copy(), depth.copy()
        for d in range(len(anc) - 1, -1, -1):  # climb every leaf switch's path, deepest first
            here = at_depth == d
            anc[d, here] = cur[here]
            cur = np.where(here, t.parent[cur], cur)
            at_depth -= here
        self.anc = anc
        self.leaf_depth = depth
        self.hops = self._hop_rows(np.arange(len(leaf_ids))) if len(leaf_ids) <= _HOP_MATRIX_LEAVES else None

    def _hop_rows(self, rows: np.ndarray) -> np.ndarray:
        """Hops between leaf switches ``rows`` and every leaf switch, up to the lowest common switch
        and down (Slurm's ``switches_dist``, shortest paths in the switch graph)."""
        same = (self.anc[:, rows, None] == self.anc[:, None, :]) & (self.anc[:, None, :] >= 0)
        lca_depth = np.cumprod(same, axis=0).sum(axis=0) - 1
        d = self.leaf_depth
        return (d[rows, None] + d[None, :] - 2 * lca_depth).astype(np.int16)

    def hop_row(self, k: int) -> np.ndarray:
        """Hops from leaf switch index ``k`` to every leaf switch."""
        if self.hops is not None:
            return self.hops[k]
        return self._hop_rows(np.array([k]))[0]

    def __deepcopy__(self, memo: dict) -> _Tables:
        return self


class SlurmTree(TreeAllocator):
    """Slurm's ``topology/tree`` placement: a job goes under the switch that can hold it, onto leaf
    switches chosen greedily -- a leaf that holds the rest of the job, tightest fit first;
    otherwise leaves whose lowest switch with room is lowest, then those closest to the leaves
    already chosen -- each used whole, the lowest free node ids of the last one.

    **Source.** Slurm's ``src/plugins/topology/tree/eval_nodes_tree.c``, function
    ``_eval_nodes_topo`` ("allocate resources to job using a minimal leaf switch count") and its
    helpers ``_topo_choose_best_switch``, ``_topo_compare_switches``, ``_topo_add_dist`` and
    ``_decrement_node_cnt``; switch levels and distances from ``switch_record.c``
    (``switch_record_validate``); the documented summary in ``doc/html/topology.shtml`` ("identify
    the lowest level switch in the hierarchy that can satisfy a job's request and then allocate
    resources on its underlying leaf switches using a best-fit algorithm") and ``--switches`` in
    ``doc/man/man1/sbatch.1``. Read to understand; this is an independent model of that selection
    for whole nodes of equal weight.

    **The rule**, for a count ``n`` on the free mask (Slurm's words in parentheses):

    1. *Top switch.* Among the switches with ``>= n`` free nodes below, the one of the highest
       level (the "top switch"), the last in switch-table order on ties; none: refused. With one
       root that is the root; on a tree joining several top switches of a Slurm file
       (``virtual_root``) it is the highest-level top switch that can hold the job, and the job
       stays under it -- Slurm never runs a job across switches with no common parent. Only the
       free nodes under it count from here on.
    2. *Leaf switches, one at a time* (``_topo_choose_best_switch`` over the leaf switches in table
       order, each compared with the best so far). ``rem`` is what the job still needs; a switch
       *fits* when it has ``>= rem`` free nodes left. Two leaves are compared by walking up from
       both in step, one parent at a time, until one of the two switches reached fits or the two
       have the same parent: if both fit, the one with fewer free nodes wins (tightest fit); if
       one fits, it wins; if neither (same parent), the one with more free nodes wins; remaining
       ties go to the lower level, then to the earlier leaf. The scan starts from the first leaf
       with free nodes; with no leaf chosen yet the comparison alone decides. Afterwards each leaf
       also has a distance, the sum of its switch hops to the leaves already chosen, and a later
       leaf replaces the best so far when it is closer *and* fits at the step where the comparison
       stopped, or is as close and wins the comparison.
    3. *Taking nodes.* The chosen leaf gives its free nodes in node order (Slurm walks the node
       bitmap: "ideally we would add nodes in order of resource availability rather than in order
       of bitmap position"), until the job is complete; a leaf that does not complete the job is
       used whole and its free nodes are subtracted from its ancestors' counts. Repeat 2.

    So a job that fits on one leaf switch lands on the fitting leaf with the fewest free nodes
    (the lowest id on ties), at its lowest free ids. In a tree whose leaf switches are all at one
    depth, a larger one starts under the lowest switch that holds it (the tightest such, the first
    on ties) on the leaf reached by descending into the child with most free nodes at each level
    (the first on ties), then grows by distance to the leaves already chosen, with the exceptions
    of the scan (a farther leaf that completes the job can win over nearer ones that do not).

    **Constraints.** ``switches=N`` (Slurm's ``--switches=N@T``) natively: the selection above is
    made as for a plain count and refused when it spans more than ``N`` leaf switches -- Slurm
    does not search for another placement ("slurm uses a best-fit algorithm on the currently
    available resources. This may result in an allocation with more than the optimum number of
    switches"; "if Slurm finds an allocation containing more switches than the count specified,
    the job remains pending until it either finds an allocation with desired switch count or the
    time limit expires"). The wait is the scheduling policy's: it holds the job and, once ``wait``
    has passed, asks again with :meth:`TreeRequest.relaxed` (a plain count), which is when Slurm
    sets ``best_switch`` after ``wait4switch``. (A ``TreeRequest`` without ``wait`` waits for ever;
    Slurm caps every wait at ``SchedulerParameters=max_switch_wait``, 300 s by default.) Slurm's
    tree plugin has no required or preferred levels and no segments (``--segment`` belongs to
    ``topology/block``): those constraints use :class:`~topoalloc.tree.TreeAllocator`'s defaults
    with this rule as the count rule, and on a tree with a virtual root they too stay under one top
    switch (segments: the top switches are tried in the order of step 1).

    **Interpretations.** Nodes are whole and of equal ``Weight`` (Slurm first groups free nodes by
    scheduling weight and prefers the lightest; with one weight every free node under the top
    switch is a candidate), so CPU counts, GRES and required node lists play no part; node ranges
    (``-N min-max``, which Slurm retries one count lower when ``--switches`` is not met) are not
    modelled. Slurm's switch table is in ``topology.conf`` order; here it is the switch ids' depth
    first order, so the leaf switches are scanned in node order. Slurm's level of a switch is its
    height (0 for a leaf switch, one more than its highest child), its distances the hop counts
    between switches. The dragonfly variant (``TopologyParam=dragonfly``) and ``TopoOptional`` are
    not modelled. Because the comparison walks both leaves up in step and a closer leaf replaces
    the best only when it fits, Slurm's grant is not always under the lowest switch that could
    hold the job (a farther leaf that completes the job beats nearer ones that do not), nor on the
    fewest leaf switches; this model keeps those outcomes.

    **Complexity.** O(N + S) vectorised per allocation (free nodes per switch from one prefix sum
    of the free mask); a job that fits on one leaf switch needs nothing more. A job spread over
    ``k`` leaf switches adds ``k`` scans of the ``L`` leaf switches in Python (each comparison walks
    at most the tree's depth ``D``): O(N + S + k L D). Hop rows between leaf switches are a
    precomputed ``L x L`` matrix for ``L <= 1024``, O(D L) per chosen leaf otherwise.

    >>> from topologies import SwitchTree, TreeRequest
    >>> t = SwitchTree.uniform((2, 2, 4), names=("block", "rack", "host"))
    >>> st = SlurmTree(t)
    >>> st.allocate(3).nodes.tolist(), st.allocate(2).nodes.tolist()
    ([0, 1, 2], [4, 5])
    >>> st.allocate(2).nodes.tolist()  # rack 1 has the fewest free nodes that fit
    [6, 7]
    >>> st.allocate(5).nodes.tolist()  # block 1 holds it: its first rack (a tie) whole, then one more
    [8, 9, 10, 11, 12]
    >>> st.allocate(TreeRequest(4, switches=1)) is None  # the four free nodes are on two leaf switches
    True
    >>> st.allocate(4).nodes.tolist()
    [3, 13, 14, 15]
    """

    native = frozenset({"switches"})
    #: The test oracle (:func:`slurm_tree_oracle`, set below the class).
    oracle: ClassVar[Any]

    def __init__(self, topology: SwitchTree) -> None:
        super().__init__(topology)
        self._tables = _Tables(topology)
        self._csum = np.zeros(topology.size + 1, dtype=np.int64)

    # -- the rule ---------------------------------------------------------------------------------
    def select(self, n: int, free: np.ndarray) -> tuple[np.ndarray, int] | None:
        """Slurm's selection of ``n`` nodes on the nodes marked in ``free`` (a boolean mask over
        node ids, not modified): ``(sorted node ids, leaf switches used)``, or ``None`` when no
        top switch has ``n`` free nodes. This is the rule behind plain counts and ``switches=N``.
        A count that is not an integer in ``1 .. size`` raises a
        :class:`~topologies.RequestError`, a mask of another length :class:`ValueError`.

        >>> from topologies import SwitchTree
        >>> import numpy as np
        >>> free = np.ones(16, dtype=bool); free[[0, 1, 2, 8]] = False
        >>> ids, leaves = SlurmTree(SwitchTree.uniform((2, 2, 4))).select(6, free)
        >>> ids.tolist(), leaves
        ([9, 10, 12, 13, 14, 15], 2)
        """
        n = self.topology.request_for(n)
        free = np.asarray(free, dtype=bool).ravel()
        if len(free) != self._size:
            raise ValueError(f"a free mask of {len(free)} entries for a {self._size}-node tree")
        return self._select(n, free)

    def _select(self, n: int, free: np.ndarray) -> tuple[np.ndarray, int] | None:
        """:meth:`select` for a valid count and a boolean mask of the tree's size."""
        T = self._tables
        c = self._csum  # c[i]: free nodes among ids < i; a switch has c[stop] - c[first]
        np.cumsum(free, dtype=np.int64, out=c[1:])
        if T.virtual:  # Slurm's top switch: the highest level that holds n, the last on ties
            top = next((s for s, lo, hi in T.top_spans if c[hi] - c[lo] >= n), -1)
            if top < 0:
                return None
        else:
            if c[-1] < n:
                return None
            top = 0
        lf, ls = T.top_leaf_bounds[top]
        lc = c[ls] - c[lf]
        room = np.where(lc >= n, lc, self._size + 1)
        k = int(room.argmin())
        if room[k] <= self._size:  # a leaf switch holds the job: the tightest, the first on ties
            f = int(lf[k])
            return np.flatnonzero(free[f:ls[k]])[:n] + f, 1
        lo, hi = T.top_leaves[top]
        return self._spread(n, free, c[T.stop] - c[T.first], lo, hi)

    def _spread(self, n: int, free: np.ndarray, cnt: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, int]:
        """Steps 2 and 3 of the class docstring for a job no single leaf switch holds."""
        T = self._tables
        cn: list[int] = cnt.tolist()
        parent, level, leaf_list = T.parent, T.level, T.leaf_list
        cand = [k for k in range(lo, hi) if cn[leaf_list[k]]]
        dist = np.zeros(hi - lo, dtype=np.int64)
        rem = n
        parts = []
        used = 0
        while True:
            dl: list[int] | None = dist.tolist() if used else None
            best = bs = -1
            di = db = 0
            for k in cand:
                s = leaf_list[k]
                if not cn[s]:
                    continue
                if best < 0:
                    best, bs = k, s
                    continue
                if dl is not None:
                    di, db = dl[k - lo], dl[best - lo]
                    if di > db:
                        continue
                a, o = s, bs
                while True:  # both leaves up in step until one fits or they share a parent
                    ca, co = cn[a], cn[o]
                    fa, fo = ca >= rem, co >= rem
                    if fa or fo:
                        break
                    pa, po = parent[a], parent[o]
                    if pa == po:
                        break
                    a, o = pa, po
                if di < db:  # closer: taken when it fits where the comparison stopped
                    if fa:
                        best, bs = k, s
                    continue
                if fa:
                    res = (co - ca or level[o] - level[a]) if fo else 1
                else:
                    res = -1 if fo else (ca - co or level[o] - level[a])
                if res > 0:
                    best, bs = k, s
            if best < 0:  # unreachable: the top switch always holds what remains
                raise AssertionError("the leaf switch scan stalled")
            c = cn[bs]
            f = T.lfirst[best]
            ids = np.flatnonzero(free[f:T.lstop[best]])
            used += 1
            if c >= rem:
                parts.append(ids[:rem] + f)
                break
            parts.append(ids + f)
            rem -= c
            x = bs
            while x >= 0:
                cn[x] -= c
                x = parent[x]
            dist += T.hop_row(best)[lo:hi]
        out = np.concatenate(parts)
        out.sort()
        return out, used

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        got = self._select(n, free)
        return None if got is None else got[0]

    def _choose(self, request: int | TreeRequest, free: np.ndarray) -> np.ndarray | None:
        if not isinstance(request, TreeRequest) or request.plain:
            return self._choose_count(request if not isinstance(request, TreeRequest) else request.count, free)
        if request.switches is not None:
            got = self._select(request.count, free)
            if got is None or got[1] > request.switches:
                return None
            return got[0]
        T = self._tables
        if request.segment is not None and T.virtual:
            for top in T.top_rank:
                sub = np.zeros_like(free)
                lo, hi = int(T.first[top]), int(T.stop[top])
                sub[lo:hi] = free[lo:hi]
                got = self._in_segments(request.count, request.segment, sub)
                if got is not None:
                    return got
            return None
        return super()._choose(request, free)

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`TreeAllocator.earliest_in`, except for ``switches=N``: whether Slurm's selection
        fits on ``N`` leaf switches does not grow with the free set, so those times are tried in
        order (:meth:`Allocator.earliest_in`)."""
        r = self.validate(request)
        if isinstance(r, TreeRequest) and r.switches is not None:
            return Allocator.earliest_in(self, r, ready, now)
        return super().earliest_in(r, ready, now)


# -- the test oracle ------------------------------------------------------------------------------
def _tops(t: SwitchTree) -> list[int]:
    return list(t.children[0]) if t.virtual_root else [0]


def _under_top(t: SwitchTree, free: np.ndarray, top: int) -> np.ndarray:
    sub = np.zeros_like(free)
    lo, hi = int(t.first[top]), int(t.stop[top])
    sub[lo:hi] = free[lo:hi]
    return sub


def slurm_tree_oracle(allocator: SlurmTree, free: np.ndarray, request: Any) -> bool:
    """Oracle for :class:`SlurmTree` (:mod:`topoalloc.testing`): whether it must place
    ``request`` on the ``free`` mask. A count, required or preferred level, or segments: exactly
    when :func:`~topoalloc.testing.tree_any` finds a placement under one top switch (every
    placement on a tree with one root; on a virtual root, Slurm keeps a job under one top switch).
    ``switches=N``: exactly when Slurm's selection for the plain count exists and spans at most
    ``N`` leaf switches (Slurm leaves the job pending otherwise; it does not look for another
    placement). Its ``check_choice`` asserts what Slurm's rule guarantees of a grant."""
    from ..testing_trees import tree_any  # the testing module needs hypothesis: imported on use

    t = allocator.topology
    r = allocator.validate(request)
    free = np.asarray(free, dtype=bool).ravel()
    if isinstance(r, TreeRequest) and r.switches is not None:
        plain = allocator.place_in(r.count, free)
        return plain is not None and t.leaf_switches_spanned(plain) <= r.switches
    if not t.virtual_root:
        return bool(tree_any(allocator, free, r))
    return any(tree_any(allocator, _under_top(t, free, top), r) for top in _tops(t))


def _check_choice(allocator: SlurmTree, free: np.ndarray, request: Any, allocation: Any) -> None:
    """Assert that ``allocation`` (granted on the ``free`` mask) is one Slurm's rule can make: its
    constraint met, under one top switch -- Slurm's top switch for a count --, every leaf switch
    it touches used whole but one, which gives its lowest free ids; on one leaf switch, the
    tightest, when one holds the job; for ``switches=N``, the plain count's selection, on at most
    ``N`` leaf switches."""
    from ..testing_trees import tree_constraint_met

    tree_constraint_met(allocator, free, request, allocation)
    t = allocator.topology
    r = allocator.validate(request)
    free = np.asarray(free, dtype=bool).ravel()
    nodes = np.asarray(allocation.nodes)
    n = len(nodes)
    tops = _tops(t)
    top_of = [s for s in tops if t.first[s] <= nodes[0] and nodes[-1] < t.stop[s]]
    assert top_of, f"{allocation!r} spans switches with no common parent"
    if isinstance(r, TreeRequest) and not r.plain and r.switches is None:
        return
    top = top_of[0]
    cnt = np.array([int(free[t.first[s]:t.stop[s]].sum()) for s in range(t.n_switches)])
    fitting = [s for s in tops if cnt[s] >= n]
    height = t.height
    want_top = max(fitting, key=lambda s: (int(height[s]), s))
    assert top == want_top, f"{allocation!r} is under top switch {top}, Slurm's top switch is {want_top}"
    leaves = t.leaf_switch_ids
    touched = np.unique(t.leaf_of[nodes])
    partial = 0
    for s in touched.tolist():
        lo, hi = int(t.first[s]), int(t.stop[s])
        here = np.flatnonzero(free[lo:hi]) + lo
        mine = nodes[(nodes >= lo) & (nodes < hi)]
        if len(mine) < len(here):
            partial += 1
            assert np.array_equal(mine, here[: len(mine)]), f"{allocation!r}: not the lowest free ids of {s}"
    assert partial <= 1, f"{allocation!r} leaves {partial} leaf switches partly used"
    under = [s for s in leaves.tolist() if t.first[top] <= t.first[s] < t.stop[top] and cnt[s] >= n]
    if under:
        tight = min(under, key=lambda s: (int(cnt[s]), s))
        assert touched.tolist() == [tight], (
            f"{allocation!r}: leaf switch {tight} holds the job with the fewest free nodes")
    if isinstance(r, TreeRequest) and r.switches is not None:
        assert len(touched) <= r.switches
        plain = allocator.place_in(r.count, free)
        assert plain is not None and np.array_equal(plain, nodes), (
            f"{allocation!r} differs from the plain count's selection {plain}")


slurm_tree_oracle.check_choice = _check_choice  # type: ignore[attr-defined]
SlurmTree.oracle = staticmethod(slurm_tree_oracle)

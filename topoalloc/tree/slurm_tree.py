"""Slurm's ``topology/tree`` node selection: the lowest fitting switch, then leaf switches best fit."""

from __future__ import annotations

from operator import add
from typing import Any, ClassVar

import numpy as np

from topologies import SwitchTree, TreeRequest

from ..base import Allocation, Allocator
from .base import TreeAllocator

__all__ = ["SlurmTree", "slurm_tree_oracle"]

#: Leaf switch counts up to which the leaf-switch-to-run hop matrix is kept (``L * R`` int16 entries).
_HOP_MATRIX_LEAVES = 1024
#: ... and up to which the hop rows are also kept as lists.
_HOP_LIST_ENTRIES = 1 << 16
#: Leaf switches up to which the tightest fitting one is found by a scan of a list rather than in numpy.
_SCAN_LEAVES = 64
_BIG = np.iinfo(np.int64).max


class _Tables:
    """What the selection needs of a tree, computed once per allocator (immutable; copies share it).

    Leaf switches are indexed ``0 .. L-1`` in node order. A *run* is a maximal sequence of
    consecutive leaf switches with the same parent under one top switch: its members are at the
    same hop distance from every other leaf switch, which is what lets the leaf switch scan work
    a run at a time (:meth:`SlurmTree._spread`)."""

    __slots__ = ("virtual", "tops", "leaf_list", "lfirst", "lstop", "lfirst_list", "lstop_list", "lsize",
                 "sw_llo", "sw_lhi", "parent", "level", "run_lo", "run_hi", "run_par", "run_lo_np", "run_of",
                 "rhops", "rhop_lists", "anc", "leaf_depth", "first", "stop", "inner", "n_switches")

    def __init__(self, t: SwitchTree) -> None:
        self.virtual = bool(t.virtual_root)
        self.first = t.first
        self.stop = t.stop
        self.parent: list[int] = t.parent.tolist()
        self.level: list[int] = (t.height - 1).tolist()  # Slurm's level: 0 for a leaf switch
        leaf_ids = t.leaf_switch_ids
        self.leaf_list: list[int] = leaf_ids.tolist()
        self.lfirst = t.first[leaf_ids]
        self.lstop = t.stop[leaf_ids]
        self.lfirst_list: list[int] = self.lfirst.tolist()
        self.lstop_list: list[int] = self.lstop.tolist()
        self.lsize = self.lstop - self.lfirst
        # the leaf-index range [sw_llo, sw_lhi) under each switch (subtrees are contiguous in node order)
        self.sw_llo = np.searchsorted(self.lfirst, t.first)
        self.sw_lhi = np.searchsorted(self.lfirst, t.stop)
        self.n_switches = t.n_switches
        # (switch, leaf range) of every switch that is not a leaf switch
        self.inner: list[tuple[int, int, int]] = [
            (s, int(self.sw_llo[s]), int(self.sw_lhi[s])) for s in np.flatnonzero(~t.is_leaf).tolist()]
        tops = list(t.children[0]) if self.virtual else [0]
        # Slurm's preference among top switches: the highest level, the last in table order on ties
        rank = sorted(tops, key=lambda s: (-self.level[s], -s))
        # runs of leaf switches with one parent, split where a top switch's leaf range begins
        starts = set(self.sw_llo[tops].tolist())
        par = t.parent[leaf_ids].tolist()
        run_lo: list[int] = []
        for k in range(len(par)):
            if k in starts or par[k] != par[k - 1]:
                run_lo.append(k)
        self.run_lo = run_lo
        self.run_hi = run_lo[1:] + [len(par)]
        self.run_par = [par[k] for k in run_lo]
        self.run_lo_np = np.array(run_lo, dtype=np.int64)
        self.run_of = np.repeat(np.arange(len(run_lo)), np.diff(np.append(self.run_lo_np, len(par))))
        # per top switch, in Slurm's order: (switch, leaf range, run range)
        self.tops: list[tuple[int, int, int, int, int]] = []
        for s in rank:
            klo, khi = int(self.sw_llo[s]), int(self.sw_lhi[s])
            rlo, rhi = (int(x) for x in np.searchsorted(self.run_lo_np, [klo, khi]))
            self.tops.append((s, klo, khi, rlo, rhi))
        # the ancestor at each depth of every leaf switch (-1 below its depth), for hop counts
        depth: np.ndarray = t.depth[leaf_ids]
        anc = np.full((int(depth.max()) + 1, len(leaf_ids)), -1, dtype=np.int64)
        cur, at_depth = leaf_ids.copy(), depth.copy()
        for d in range(len(anc) - 1, -1, -1):  # climb every leaf switch's path, deepest first
            here = at_depth == d
            anc[d, here] = cur[here]
            cur = np.where(here, t.parent[cur], cur)
            at_depth -= here
        self.anc = anc
        self.leaf_depth = depth
        L = len(leaf_ids)
        rhops = self._run_hop_rows(np.arange(L)) if L <= _HOP_MATRIX_LEAVES else None
        self.rhops = rhops
        small = L * len(run_lo) <= _HOP_LIST_ENTRIES
        self.rhop_lists: list[list[int]] | None = rhops.tolist() if rhops is not None and small else None

    def _hop_rows(self, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """Hops between leaf switches ``rows`` and leaf switches ``cols`` (default: all), up to the
        lowest common switch and down (Slurm's ``switches_dist``, shortest paths in the switch
        graph)."""
        a = self.anc if cols is None else self.anc[:, cols]
        same = (self.anc[:, rows, None] == a[:, None, :]) & (a[:, None, :] >= 0)
        lca_depth = np.cumprod(same, axis=0).sum(axis=0) - 1
        d = self.leaf_depth
        dc = d if cols is None else d[cols]
        hops: np.ndarray = d[rows, None] + dc[None, :] - 2 * lca_depth
        return hops.astype(np.int16)

    def _run_hop_rows(self, rows: np.ndarray) -> np.ndarray:
        """Hops from leaf switches ``rows`` to the other members of every run (two to the other
        members of its own run: siblings)."""
        out = self._hop_rows(rows, self.run_lo_np)
        own = self.run_of[rows]
        fix = (self.run_lo_np[own] == rows) & (np.asarray(self.run_hi)[own] - rows > 1)
        out[np.flatnonzero(fix), own[fix]] = 2
        return out

    def run_hop_row(self, k: int) -> np.ndarray:
        """Hops from leaf switch index ``k`` to the members of every run other than ``k``."""
        if self.rhops is not None:
            row: np.ndarray = self.rhops[k]
        else:
            row = self._run_hop_rows(np.array([k]))[0]
        return row

    def run_hop_list(self, k: int, lo: int, hi: int) -> list[int]:
        """:meth:`run_hop_row` for the runs ``lo .. hi - 1``, as a list."""
        if self.rhop_lists is not None:
            row = self.rhop_lists[k]
            return row if lo == 0 and hi == len(row) else row[lo:hi]
        hops: list[int] = self.run_hop_row(k)[lo:hi].tolist()
        return hops

    def __deepcopy__(self, memo: dict[int, Any]) -> _Tables:
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

    **Complexity.** O(N) vectorised per allocation: the free nodes per leaf switch (one reduction
    of the free mask) and the granted ids; a job that fits on one leaf switch needs only a scan of
    the ``L`` leaf switches' free counts besides (built-in list operations up to 64 leaf switches,
    numpy above). A job spread over ``k`` leaf switches adds the free counts of the switches above
    them (O(L D) for a tree of depth ``D``) and ``k`` scans of step 2, made a *run* at a time (a run:
    consecutive leaf switches with one parent; ``R`` runs, ``L`` / fan-out on a uniform tree): per
    run O(its length) in built-in list operations and at most one comparison walking ``D`` levels,
    so O(N + L D + k (L + R D)) in all, with O(R D) of it in Python bytecode per scan. Once the
    run of the last pick is strictly the closest with free nodes and its parent holds the rest,
    the scan's outcome is that run's best member until a leaf switch of an earlier run holds the
    rest, and such picks cost O(the run's length). Hops from each leaf switch to each run are a
    precomputed ``L x R`` matrix for ``L <= 1024``, O(D R) per chosen leaf otherwise. What-ifs: a
    plain count's ``earliest_in`` is O(N) (one partition per top switch, then the rule once); its
    ``allocate_avoiding`` O(N) numpy for all the placements that lie on one leaf switch each, then
    the rule once per further placement tried.

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

    def _top(self, n: int, lcn: list[int]) -> tuple[int, int, int, int, int] | None:
        """Slurm's top switch for ``n`` nodes given the free nodes per leaf switch: the highest
        level one that holds them, the last on ties (the root when there is one), as ``(switch,
        leaf range, run range)``; ``None`` if none holds them."""
        T = self._tables
        if not T.virtual:
            return T.tops[0] if sum(lcn) >= n else None
        for top in T.tops:
            if sum(lcn[top[1]:top[2]]) >= n:
                return top
        return None

    def _select(self, n: int, free: np.ndarray) -> tuple[np.ndarray, int] | None:
        """:meth:`select` for a valid count and a boolean mask of the tree's size."""
        T = self._tables
        lc = np.add.reduceat(free.view(np.int8), T.lfirst, dtype=np.int64)  # free nodes per leaf switch
        lcn: list[int] = lc.tolist()
        top = self._top(n, lcn) if T.virtual else None
        if top is not None:
            _, klo, khi, _, _ = top
        elif T.virtual:
            return None
        else:
            klo, khi = 0, len(lcn)
        if khi - klo <= _SCAN_LEAVES:  # a leaf switch holds the job: the tightest, the first on ties
            v = min(filter(n.__le__, lcn[klo:khi] if T.virtual else lcn), default=0)
            k = lcn.index(v, klo, khi) if v else -1
        else:
            room = np.where(lc[klo:khi] >= n, lc[klo:khi], _BIG)
            k = int(room.argmin())
            k = k + klo if room[k] != _BIG else -1
        if k >= 0:
            f = T.lfirst_list[k]
            return free[f:T.lstop_list[k]].nonzero()[0][:n] + f, 1
        if top is None:
            top = self._top(n, lcn)
            if top is None:
                return None
        return self._spread(n, free, lcn, top[3], top[4])

    def _spread(self, n: int, free: np.ndarray, lcn: list[int], rlo: int, hi: int) -> tuple[np.ndarray, int]:
        """Steps 2 and 3 of the class docstring for a job no single leaf switch holds, on the runs
        ``rlo .. hi - 1`` of the top switch (``lcn``: free nodes per leaf switch, a list it uses up).

        Slurm's scan compares the leaf switches one at a time with the best so far. Here it goes a
        run at a time: the members of a run are at one distance from the leaves already chosen,
        compare among themselves leaf to leaf (a member that holds the rest beats one that does
        not, the tighter of two that hold it, the fuller of two that do not, the earlier on
        ties), and all members that do not hold the rest compare alike with a leaf switch outside
        the run (the walk leaves the run at the common parent). So the scan's outcome over a run
        is its best member, or nothing, decided by one comparison -- exactly the leaf-by-leaf
        scan's outcome."""
        T = self._tables
        parent, level, leaf_list = T.parent, T.level, T.leaf_list
        run_lo, run_hi, run_par = T.run_lo, T.run_hi, T.run_par
        cn = [0] * T.n_switches  # free nodes per switch above the leaf switches (the comparisons' walks)
        for s, a, b in T.inner:
            cn[s] = sum(lcn[a:b])
        rem = n
        picks: list[int] = []
        dl: list[int] | None = None  # per run: hops to the leaf switches already chosen
        batch = -1  # the run every next pick is known to come from (see below), or -1: the full scan
        a0 = a1 = before = 0
        while True:
            if batch >= 0:
                seg = lcn[a0:a1]
                mx = max(seg)
                if mx >= rem:
                    kb = a0 + seg.index(min(filter(rem.__le__, seg)))
                    cb = lcn[kb]
                elif mx and rem > before:
                    kb = a0 + seg.index(mx)
                    cb = mx
                else:
                    batch = -1
            if batch < 0:
                kb = -1  # the best leaf switch so far: its index, free nodes, parent, distance, run
                cb = pb = db = rb = 0
                for r in range(rlo, hi):
                    a0 = run_lo[r]
                    seg = lcn[a0:run_hi[r]]
                    mx = max(seg)
                    if not mx:
                        continue
                    fit = mx >= rem
                    v = min(filter(rem.__le__, seg)) if fit else mx  # the run's best: tightest fit, else fullest
                    p = run_par[r]
                    dr = dl[r - rlo] if dl is not None else 0
                    if kb >= 0:
                        if p == pb:  # siblings of the best: the same distance, compared leaf to leaf
                            if not (cb < rem and (fit or mx > cb) or fit and v < cb):
                                continue
                        else:
                            if dr > db:
                                continue
                            # a member that holds the rest stops the walk at once: it fits, so it is taken
                            # when closer, and when as close it wins unless the best fits as tightly
                            take = fit and (dr < db or cb < rem or v < cb)
                            if not take and cb < rem:
                                # the members that do not hold the rest: the walk from the two parents up
                                a, o = p, pb
                                while True:
                                    ca, co = cn[a], cn[o]
                                    if ca >= rem or co >= rem:
                                        break
                                    pa, po = parent[a], parent[o]
                                    if pa == po:
                                        break
                                    a, o = pa, po
                                if dr < db:  # closer: taken when it fits where the comparison stopped
                                    take = ca >= rem
                                elif ca >= rem:
                                    take = co < rem or ca < co or (ca == co and level[o] > level[a])
                                else:
                                    take = co < rem and (ca > co or (ca == co and level[o] > level[a]))
                            if not take:
                                continue
                    kb = a0 + seg.index(v)
                    cb, pb, db, rb = lcn[kb], p, dr, r
            if kb < 0:  # unreachable: the top switch always holds what remains
                raise AssertionError("the leaf switch scan stalled")
            picks.append(kb)
            if cb >= rem:
                break
            rem -= cb
            lcn[kb] = 0
            x = parent[leaf_list[kb]]
            while x >= 0:
                cn[x] -= cb
                x = parent[x]
            row = T.run_hop_list(kb, rlo, hi)
            dl = row if dl is None else list(map(add, dl, row))
            if batch < 0 and cn[pb] >= rem:
                # The run of this pick is strictly closer than every other run with free nodes and its
                # parent holds the rest: it stays so (a pick in it adds two hops to its members, at
                # least three to any other's; its parent loses what the job needs less). Then the scan
                # takes this run's best member as long as no leaf switch of an earlier run holds the
                # rest (a farther one that does would stay the best): the fullest member whole until
                # one holds the rest, the tightest such one last.
                da = dl[rb - rlo]
                if all(dl[r - rlo] > da or not max(lcn[run_lo[r]:run_hi[r]]) for r in range(rlo, hi) if r != rb):
                    batch, a0, a1 = rb, run_lo[rb], run_hi[rb]
                    before = max(lcn[run_lo[rlo]:a0], default=0)
        lf, ls = T.lfirst_list, T.lstop_list
        last = picks[-1]  # the leaf switch that completes the job: its lowest free ids
        f = lf[last]
        tail = free[f:ls[last]].nonzero()[0][:rem] + f
        if len(picks) <= 4:
            parts = [tail if k == last else free[lf[k]:ls[k]].nonzero()[0] + lf[k] for k in sorted(picks)]
            return np.concatenate(parts), len(picks)
        whole = np.zeros(len(lcn), dtype=bool)
        whole[picks[:-1]] = True
        take_mask = np.repeat(whole, T.lsize)
        take_mask &= free
        take_mask[tail] = True
        return take_mask.nonzero()[0], len(picks)

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
            for top, *_ in T.tops:
                sub = np.zeros_like(free)
                lo, hi = int(T.first[top]), int(T.stop[top])
                sub[lo:hi] = free[lo:hi]
                ids = self._in_segments(request.count, request.segment, sub)
                if ids is not None:
                    return ids
            return None
        return super()._choose(request, free)

    # -- what-if questions ------------------------------------------------------------------------------
    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in`. A plain count has a placement exactly when a top switch
        has that many free nodes, so the earliest time is, over the top switches, the least
        ``n``-th smallest ready time of a top switch's nodes (one partition each), and the
        placement the rule's there: O(N). ``switches=N``: whether Slurm's selection fits on ``N``
        leaf switches does not grow with the free set, so those times are tried in order
        (:meth:`Allocator.earliest_in`); other constraints by bisection
        (:meth:`TreeAllocator.earliest_in`). The same answer as the generic default."""
        r = self.validate(request)
        if isinstance(r, TreeRequest) and r.switches is not None:
            return Allocator.earliest_in(self, r, ready, now)
        if isinstance(r, TreeRequest) and not r.plain:
            return super().earliest_in(r, ready, now)
        n = r.count if isinstance(r, TreeRequest) else r
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        if n > len(ready):
            return None
        T = self._tables
        if T.virtual:
            times = [float(np.partition(ready[lo:hi], n - 1)[n - 1])
                     for lo, hi in ((int(T.first[top]), int(T.stop[top])) for top, *_ in T.tops) if hi - lo >= n]
            if not times:
                return None
            t = min(times)
        else:
            t = float(np.partition(ready, n - 1)[n - 1])
        got = self._select(n, ready <= t)
        if got is None:  # unreachable: a top switch holds n nodes ready by t
            raise AssertionError(f"no placement of {n} nodes at time {t}")
        return t, got[0]

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`TreeAllocator.allocate_avoiding` (the same grant as the generic default), with
        the placements of a plain count enumerated rather than made one at a time while they lie
        on one leaf switch each: there the rule drains the tightest fitting leaf switch, ``n``
        lowest free ids at a time, before the next one (by free nodes, then id), so those
        placements are the chunks of ``n`` of the fitting leaf switches' free ids in that order,
        checked against ``avoid`` at once (O(N) numpy). Later placements are made one at a time
        on the mask with the earlier ones removed, until one avoids ``avoid`` or fewer than ``n``
        free nodes off ``avoid`` remain (then none can). Other requests, and subclasses that keep
        state beyond the free mask: :meth:`TreeAllocator.allocate_avoiding`."""
        r = self.validate(request)
        if isinstance(r, TreeRequest) and not r.plain or not self._plain_state():
            return super().allocate_avoiding(r, avoid)
        n = r.count if isinstance(r, TreeRequest) else r
        off = self._frozen(avoid, "off", _complement)  # (a scheduler's frozen reservation: computed once)
        avoid = np.asarray(avoid, dtype=bool).ravel()
        mask = self._is_free.copy()
        left = int(np.count_nonzero(mask & off))  # free nodes off avoid: any grant needs n of them
        got = None
        while left >= n:
            got, left = self._one_leaf_placements(n, mask, avoid, left)
            if got is not None:
                break
            if left < n:
                return None
            sel = self._select(n, mask)
            if sel is None:
                return None
            ids = sel[0]
            hit = int(np.count_nonzero(avoid[ids]))
            if not hit:
                got = ids
                break
            mask[ids] = False
            left -= n - hit
        if got is None:
            return None
        self._is_free[got] = False
        return self._register(r, got, got, n)

    def _one_leaf_placements(self, n: int, mask: np.ndarray, avoid: np.ndarray, left: int
                             ) -> tuple[np.ndarray | None, int]:
        """The successive placements of ``n`` nodes that each lie on one leaf switch, from the
        free ``mask``: the first that touches no node of ``avoid``, or ``None`` after removing
        them all from ``mask``; and the free nodes off ``avoid`` left in ``mask``."""
        T = self._tables
        lc = np.add.reduceat(mask.view(np.int8), T.lfirst, dtype=np.int64)
        top = self._top(n, lc.tolist())
        if top is None:
            return None, left
        _, klo, khi, _, _ = top
        fits = np.flatnonzero(lc[klo:khi] >= n) + klo
        if not len(fits):
            return None, left
        order = fits[np.argsort(lc[fits], kind="stable")]  # by free nodes, then id
        ids, starts = _drain_chunks(mask, lc, order, n)
        i = _first_clean(ids, starts, n, avoid)
        if i >= 0:
            return ids[starts[i]:starts[i] + n], left
        gone = ids[(starts[:, None] + np.arange(n)).ravel()]
        mask[gone] = False
        return None, left - (len(gone) - int(np.count_nonzero(avoid[gone])))


def _complement(mask: Any) -> np.ndarray:
    """The nodes not marked in ``mask``, as a boolean array over node ids."""
    return ~np.asarray(mask, dtype=bool).ravel()


def _ranks(counts: np.ndarray) -> np.ndarray:
    """``0 .. c - 1`` for each ``c`` of ``counts``, concatenated."""
    total = int(counts.sum())
    ranks: np.ndarray = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return ranks


def _drain_chunks(mask: np.ndarray, counts: np.ndarray, order: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The chunks of ``n`` lowest free ids that draining the domains ``order`` in turn gives: each
    domain's free ids (``mask``) ``n`` at a time, ``counts[d] // n`` chunks of domain ``d`` (the
    domains are consecutive id ranges partitioning the nodes, with ``counts`` free nodes each).
    Returns the free ids and where each chunk begins among them, in that order. O(N).

    >>> ids, starts = _drain_chunks(np.array([1, 1, 1, 0, 1, 1], dtype=bool), np.array([3, 2]), np.array([1, 0]), 1)
    >>> [ids[s:s + 1].tolist() for s in starts]
    [[4], [5], [0], [1], [2]]
    """
    ids = np.flatnonzero(mask)
    offset = np.zeros(len(counts), dtype=np.int64)  # where each domain's free ids begin in ids
    np.cumsum(counts[:-1], out=offset[1:])
    chunks = counts[order] // n
    return ids, np.repeat(offset[order], chunks) + n * _ranks(chunks)


def _first_clean(ids: np.ndarray, starts: np.ndarray, n: int, avoid: np.ndarray) -> int:
    """The first of the chunks ``ids[s:s + n]`` (``s`` in ``starts``) with no node marked in
    ``avoid``, or -1. O(len(ids))."""
    if not len(starts):
        return -1
    bad = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(avoid[ids], out=bad[1:])
    clean = bad[starts + n] == bad[starts]
    i = int(clean.argmax())
    return i if clean[i] else -1


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

"""Slurm's ``topology/block`` placement: base blocks aggregated into aligned blocks of 2^k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from topologies import SwitchTree, TreeRequest
from topologies._validate import is_int, shown

from ..base import Allocation
from ..errors import AllocatorParameterError
from .base import TreeAllocator, _ready_ranks, free_per_domain
from .slurm_tree import _complement, _drain_chunks, _first_clean

__all__ = ["SlurmBlock", "SlurmBlockOracle", "BlockSizesError", "DEFAULT_BLOCK_SIZES", "MAX_BLOCK_LEVEL"]

#: Slurm's aggregated block levels when ``BlockSizes`` is not set: 1, 2, 4, 8 and 16 base blocks
#: (``block_record.c``: ``bit_nset(ctx->block_levels, 0, 4)``).
DEFAULT_BLOCK_SIZES = (1, 2, 4, 8, 16)
#: The largest block level Slurm accepts, ``2**15`` base blocks (``MAX_BLOCK_LEVELS`` is 16).
MAX_BLOCK_LEVEL = 15

_BIG = np.iinfo(np.int64).max
#: Base blocks up to which the fitting one is found by a scan of a list rather than in numpy.
_SCAN_BLOCKS = 64
#: Free counts (times x base blocks) in the first chunk of times ``earliest_in`` tests for a
#: ``switches`` request, and at most in one chunk (chunks double in between).
_FIRST_CHUNK, _MAX_CHUNK = 1 << 10, 1 << 17


class BlockSizesError(AllocatorParameterError):
    """``block_sizes`` or ``base_size`` that Slurm's ``BlockSizes`` would refuse; the message names
    the value."""


class _Plan(NamedTuple):
    """How a piece of ``r`` nodes is placed: ``bpb`` base blocks per aligned block (the machine's
    count when ``machine``), ``starts`` the first base block of each aligned block; ``bpl`` base
    blocks per lower-level block (llblock), at most ``max_ll`` of them used when ``use_ll``;
    ``ll_starts``, ``llpb`` (llblocks per block) and ``pad`` lay the llblocks out per block;
    ``bounds`` are the first node ids of the blocks, then the number of nodes."""

    bpb: int
    starts: np.ndarray
    machine: bool
    bpl: int
    max_ll: int
    use_ll: bool
    ll_starts: np.ndarray
    llpb: int
    pad: int
    bounds: np.ndarray


def _check_block_sizes(block_sizes: Any) -> tuple[int, ...]:
    """``block_sizes`` as a tuple starting with 1 (the base block, always a level in Slurm)."""
    if isinstance(block_sizes, np.ndarray) and block_sizes.ndim == 1:
        block_sizes = block_sizes.tolist()
    if isinstance(block_sizes, (str, bytes)) or not isinstance(block_sizes, Sequence):
        raise BlockSizesError(f"block_sizes must be a sequence of block sizes in base blocks (powers of two), "
                              f"got {shown(block_sizes)}")
    if not block_sizes:
        raise BlockSizesError("block_sizes must name at least one block size, got an empty sequence")
    out: list[int] = []
    for s in block_sizes:
        if not is_int(s) or int(s) < 1 or int(s) & (int(s) - 1):
            raise BlockSizesError(f"block size {shown(s)} is not a power of two >= 1 (in base blocks)")
        s = int(s)
        if s > 1 << MAX_BLOCK_LEVEL:
            raise BlockSizesError(f"block size {s} is larger than Slurm's largest level, {1 << MAX_BLOCK_LEVEL} "
                                  f"base blocks")
        if out and s <= out[-1]:
            raise BlockSizesError(f"block size {s} does not follow {out[-1]}: block_sizes must be increasing, "
                                  f"got {tuple(block_sizes)!r}")
        out.append(s)
    return tuple(out) if out[0] == 1 else (1, *out)


class SlurmBlock(TreeAllocator):
    """Slurm's ``topology/block`` plugin: jobs inside the smallest aggregated block that can hold
    them, the best-fitting such block, base blocks taken best fit inside it.

    Sources: the plugin's placement, ``src/plugins/topology/block/eval_nodes_block.c`` in
    ``SchedMD/slurm`` (``eval_nodes_block``, ``_get_block_level``, ``_choose_best_bblock``); its
    configuration, ``block_record.c`` (``_read_topo_file``, ``_list_to_bitmap``,
    ``block_record_validate``); the documentation, ``doc/html/topology.shtml`` ("Block Topology",
    ``--segment``) and the ``BlockSizes`` entries of ``topology.conf(5)`` and ``topology.yaml(5)``.

    **The machine.** The leaf switches of the tree, in node order, are Slurm's base blocks
    (``BlockName=...`` lines of ``topology.conf``, in file order): on
    ``SwitchTree.uniform((18, 72), names=("block", "node"))`` the 18 racks. On a deeper tree the
    leaf switches are still the base blocks and the switches above them are ignored: blocks are
    aggregated by position, 2^k consecutive base blocks, as Slurm does (it knows no other
    structure). ``block_sizes`` (``BlockSizes``) are the enforced aggregation levels in base blocks;
    the base block (1) is always one. ``base_size`` is the *planning base block size* in nodes
    (``BlockSizes``' first value in Slurm). :meth:`from_node_sizes` takes ``BlockSizes`` in nodes,
    as ``topology.conf`` writes it.

    **The rule** for a piece of ``r`` nodes (the job, or one segment):

    1. *Level* (``_get_block_level``): ``m = ceil(r / base_size)`` base blocks are needed; the
       block level is the smallest configured one of at least ``m`` base blocks, or the whole
       machine if none is. The lower-level blocks (llblocks) are those of the largest configured
       level below ``ceil(log2 m)``, and the piece may use at most ``ceil(r / llblock nodes)`` of
       them -- a limit that only bites when ``block_sizes`` skips a power of two (with the default
       levels a block is exactly that many llblocks).
    2. *Block*: among the aligned blocks of that level (base blocks ``i b .. (i + 1) b - 1``, the
       last one possibly short) whose free nodes -- or, under the llblock limit, whose fullest
       allowed llblocks' free nodes -- reach ``r``, the one with the fewest free nodes, "to
       minimize fragmentation" (Slurm's comment); the last in order on ties (Slurm keeps a later
       block on equal counts, ``bnc <= block_node_cnt``). None: no placement.
    3. *Base blocks* (``_choose_best_bblock``, repeated until ``r`` nodes are taken): prefer a
       base block in an llblock already used; then one whose llblock holds the rest (the one with
       the fewest free nodes), else the fullest llblock; then a base block that holds the rest,
       the one with the fewest free nodes, else the fullest; the last in order on ties. A chosen
       base block gives its lowest free ids. With no llblock limit only the base-block comparison
       applies: the fullest base blocks are taken whole until one holds the rest, and the rest
       goes to the smallest base block that holds it.

    **Segments** (``TreeRequest(count, segment=S)``, ``--segment=S``): the rule is applied to ``S``
    nodes at a time, ``count / S`` times, each on the nodes the earlier segments left (Slurm's
    ``next_segment`` loop); the request fails if one segment does. A segment of at most
    ``base_size`` nodes lies inside one base block; a larger one inside one aligned block of its
    level (Slurm computes the level from the segment size) -- not inside one base block, the
    meaning :class:`~topologies.TreeRequest` gives ``segment`` on other allocators. Segments need
    not share a block (Slurm's documentation: "no requirement would be placed on all segments for
    a job needing to be placed within the same higher-level block"). ``--spread-segments`` and
    ``--consolidate-segments`` are not modelled.

    **Other constraints.** The block plugin gives ``--switches`` no meaning and Slurm has no
    Kueue-like levels, so ``required``, ``preferred`` and ``switches`` requests are honoured by
    :class:`~topoalloc.tree.TreeAllocator`'s defaults, with this rule as the count rule inside the
    domain (or switches) they pick.

    **Interpretations.**

    * Whole nodes, equal node weights: Slurm's CPU, memory, GRES and node-weight checks are left
      out, so a block's "lowest weight" is a tie and the fit is by free node counts alone.
    * ``block_sizes`` is validated as Slurm validates ``BlockSizes``: every size a power of two
      base blocks of at most ``2**15`` (``MAX_BLOCK_LEVELS``); increasing, as its documentation
      asks ("Successive BlockSizes must be a power of two larger than the prior values"; the code
      only ignores the order). The default is Slurm's default, 1, 2, 4, 8 and 16 base blocks, not
      every power of two up to the machine: on a machine of more than 16 base blocks a job that
      needs more than 16 goes to the whole-machine level.
    * ``base_size`` defaults to the smallest base block's node count. Slurm takes the first
      block's count (``block_record_validate``) and documents that every block must have at
      least that many nodes, so the two agree on a configuration Slurm accepts; a ``base_size``
      larger than the smallest base block is refused for that reason.
    * Two departures from the code where it would refuse a job its own rule places. (a) Slurm
      also considers base blocks with no free node in step 3, and one inside an llblock already
      used wins over a new llblock; taking it adds no node and the loop stops as "stalled",
      failing the job. Here such base blocks are skipped. (b) On the whole-machine level Slurm
      counts ``blocks / llblock`` llblocks rounded down (``llblock_per_block``), so with the
      default sizes on 20 base blocks a job of 17 to 20 base blocks is never placed. Here every
      llblock of the machine counts.

    With these, a piece is placed exactly when some aligned block of its level has enough nodes
    in the sense of step 2 (``SlurmBlock.oracle``, a :class:`SlurmBlockOracle`, checks this and
    the choice).

    Complexity per allocation, for ``N`` nodes, ``B`` base blocks and ``b`` base blocks in the
    chosen block: O(N) numpy for the free nodes per base block (one reduction) and for the granted
    ids (one scan of the base blocks used), O(B) for the blocks and llblocks of the level (numpy;
    built-in list operations for a one-base-block piece on at most 64 base blocks), and a sort of
    the ``b`` base blocks in step 3 (when llblocks of several base blocks limit it, per base block
    taken one comparison per llblock and O(b) built-in list operations). Segments of at most
    ``base_size`` nodes: O(B) Python per base block they fill (each is filled once); larger
    segments O(B + b log b) each, the counts updated rather than recomputed. What-ifs for a plain
    count: ``earliest_in`` one partition of the ready times per block (a sort when the blocks
    differ in size; a bisection with O(N) steps under the llblock limit), ``allocate_avoiding``
    O(N) numpy when the piece fits one base block (all its placements checked at once), else one
    allocation per placement tried. Construction O(S + N) for ``S`` switches.

    >>> from topologies import SwitchTree, TreeRequest
    >>> sb = SlurmBlock(SwitchTree.uniform((4, 4), names=("block", "node")))
    >>> sb.allocate(3).nodes.tolist()          # one base block: all fit equally, the last on ties
    [12, 13, 14]
    >>> sb.allocate(2).nodes.tolist()          # base block 3 has 1 free node; 0-2 tie, the last again
    [8, 9]
    >>> sb.allocate(6).nodes.tolist()          # 2 base blocks: the aligned pair 0-1; base block 1 whole, then 0
    [0, 1, 4, 5, 6, 7]
    >>> sb.allocate(TreeRequest(2, segment=1)).nodes.tolist()  # each segment a best fit: base block 3, then 2
    [10, 15]
    """

    native: ClassVar[frozenset[str]] = frozenset({"segment"})
    oracle: ClassVar[Any] = None  # set below, after SlurmBlockOracle is defined

    def __init__(self, topology: SwitchTree, block_sizes: Sequence[int] | None = None,
                 base_size: int | None = None) -> None:
        super().__init__(topology)
        t = topology
        leaves = t.leaf_switch_ids
        self._bb_first: np.ndarray = t.first[leaves]
        self._bb_stop: np.ndarray = t.stop[leaves]
        self._bb_first_list: list[int] = self._bb_first.tolist()
        self._bb_stop_list: list[int] = self._bb_stop.tolist()
        self._block_of = np.repeat(np.arange(len(leaves)), self._bb_stop - self._bb_first)  # base block per node
        self._n_blocks = len(leaves)
        sizes = self._bb_stop - self._bb_first
        #: The aggregation levels, in base blocks, increasing; always starting with 1.
        self.block_sizes: tuple[int, ...] = _check_block_sizes(
            DEFAULT_BLOCK_SIZES if block_sizes is None else block_sizes)
        smallest = int(sizes.min())
        if base_size is None:
            base_size = smallest
        elif not is_int(base_size) or int(base_size) < 1:
            raise BlockSizesError(f"base_size must be an integer >= 1 (nodes), got {shown(base_size)}")
        elif int(base_size) > smallest:
            raise BlockSizesError(f"base_size {int(base_size)} is larger than the smallest base block "
                                  f"({smallest} nodes): Slurm wants every block to hold at least the planning "
                                  f"base block size")
        #: The planning base block size in nodes (Slurm's first ``BlockSizes`` value).
        self.base_size: int = int(base_size)
        self._levels = tuple(s.bit_length() - 1 for s in self.block_sizes)
        self._plans: dict[int, _Plan] = {}

    @classmethod
    def from_node_sizes(cls, topology: SwitchTree, block_sizes: Sequence[int]) -> SlurmBlock:
        """The allocator for Slurm's ``BlockSizes`` as written in ``topology.conf``: node counts,
        the first the planning base block size, the others power-of-two multiples of it
        (``BlockSizes=30,120`` is ``base_size=30, block_sizes=(1, 4)``). A ``(tree, sizes)`` pair
        read from a block topology file unpacks into it. :class:`BlockSizesError` names a value
        that is not a positive integer or not a power-of-two multiple of the first.

        >>> from topologies import SwitchTree
        >>> sb = SlurmBlock.from_node_sizes(SwitchTree.uniform((4, 32), names=("block", "node")), (30, 120))
        >>> sb.base_size, sb.block_sizes
        (30, (1, 4))
        """
        if isinstance(block_sizes, (str, bytes)) or not isinstance(block_sizes, Sequence) or not block_sizes:
            raise BlockSizesError(f"BlockSizes must be a non-empty sequence of node counts, got {shown(block_sizes)}")
        base = block_sizes[0]
        if not is_int(base) or int(base) < 1:
            raise BlockSizesError(f"BlockSizes value {shown(base)} is not a positive node count")
        base = int(base)
        ratios = []
        for s in block_sizes:
            if not is_int(s) or int(s) < 1:
                raise BlockSizesError(f"BlockSizes value {shown(s)} is not a positive node count")
            if int(s) % base:
                raise BlockSizesError(f"BlockSizes value {int(s)} is not a multiple of the base block size {base} "
                                      f"(the first value)")
            ratios.append(int(s) // base)
        return cls(topology, block_sizes=ratios, base_size=base)

    @property
    def n_base_blocks(self) -> int:
        """Number of base blocks (leaf switches)."""
        return self._n_blocks

    def block_size_for(self, n: int) -> int:
        """Base blocks per aligned block of the level a piece of ``n`` nodes is placed in (the
        number of base blocks of the machine when no configured level is large enough).

        >>> from topologies import SwitchTree
        >>> sb = SlurmBlock(SwitchTree.uniform((20, 64), names=("block", "node")))
        >>> sb.block_size_for(64), sb.block_size_for(65), sb.block_size_for(200), sb.block_size_for(1100)
        (1, 2, 4, 20)
        """
        n = self.request_size(n)
        p = self._plan(n)
        return self._n_blocks if p.machine else p.bpb

    def __repr__(self) -> str:
        return f"SlurmBlock({self.topology!r}, block_sizes={self.block_sizes!r}, base_size={self.base_size})"

    # -- the plan of a piece ------------------------------------------------------------------------
    def _plan(self, r: int) -> _Plan:
        p = self._plans.get(r)
        if p is None:
            p = self._plans[r] = self._make_plan(r)
        return p

    def _make_plan(self, r: int) -> _Plan:
        L = self._n_blocks
        need = -(-r // self.base_size)
        raw = (need - 1).bit_length()  # ceil(log2(need))
        llevel = max(lv for lv in self._levels if lv <= raw - 1) if raw > 0 else 0
        blevel = min((lv for lv in self._levels if lv >= raw), default=None)
        machine = blevel is None
        bpb = L if blevel is None else 1 << blevel
        bpl = 1 << llevel
        max_ll = -(-r // (bpl * self.base_size))
        use_ll = bpb != bpl * max_ll
        starts = np.arange(0, L, bpb, dtype=np.int64)
        ll_starts = np.arange(0, L, bpl, dtype=np.int64)
        llpb = len(ll_starts) if machine else max(bpb // bpl, 1)
        pad = len(starts) * llpb - len(ll_starts)
        bounds = np.append(self._bb_first[starts], self._size)
        return _Plan(bpb, starts, machine, bpl, max_ll, use_ll, ll_starts, llpb, pad, bounds)

    # -- the rule -----------------------------------------------------------------------------------
    def _bblock_free(self, free: np.ndarray) -> np.ndarray:
        return free_per_domain(free, self._bb_first)

    def _choose(self, request: int | TreeRequest, free: np.ndarray) -> np.ndarray | None:
        if not isinstance(request, TreeRequest):
            return self._choose_count(request, free)
        if request.segment is not None:
            return self._segmented(request.count, request.segment, free)
        return super()._choose(request, free)

    def _choose_count(self, n: int, free: np.ndarray) -> np.ndarray | None:
        c = np.add.reduceat(free.view(np.int8), self._bb_first, dtype=np.int64)  # free nodes per base block
        p = self._plans.get(n) or self._plan(n)
        if self._n_blocks > _SCAN_BLOCKS:
            pieces = self._piece(n, c)
            return None if pieces is None else self._nodes(pieces, free)
        cl = c.tolist()
        if p.bpb == 1:  # _block_for and _nodes, inline (the common case)
            v = min(filter(n.__le__, cl), default=0)
            if not v:
                return None
            j = len(cl) - 1 - cl[::-1].index(v)
            lo = self._bb_first_list[j]
            ids: np.ndarray = free[lo:self._bb_stop_list[j]].nonzero()[0][:n] + lo
            return ids
        pieces = self._piece(n, c, cl)
        return None if pieces is None else self._nodes(pieces, free)

    def _nodes(self, pieces: list[tuple[int, int]], free: np.ndarray) -> np.ndarray:
        """The lowest ``take`` free ids of each base block ``j`` of ``pieces`` (``(j, take)`` pairs,
        each ``j`` once), ascending: one scan of the free mask over the base blocks they span."""
        if len(pieces) == 1:
            j, take = pieces[0]
            lo = self._bb_first_list[j]
            return free[lo:self._bb_stop_list[j]].nonzero()[0][:take] + lo
        first = self._bb_first
        pieces = sorted(pieces)
        js = [j for j, _ in pieces]
        lo = self._bb_first_list[js[0]]
        ids = free[lo:self._bb_stop_list[js[-1]]].nonzero()[0] + lo
        at = np.searchsorted(ids, first[js]).tolist()
        return np.concatenate([ids[a:a + take] for a, (_, take) in zip(at, pieces, strict=True)])

    def _block_for(self, r: int, c: np.ndarray, p: _Plan, cl: list[int] | None = None) -> int:
        """Step 2 for ``r`` nodes on free counts ``c`` per base block (``cl``: the same as a list,
        if at hand): the index of the chosen aligned block of plan ``p`` (the base block itself
        when ``p.bpb == 1``), or -1."""
        if len(c) <= _SCAN_BLOCKS and not p.use_ll:  # in lists: the blocks with room, fewest free nodes, the last
            if cl is None:
                cl = c.tolist()
            bpb = p.bpb
            bnc = cl if bpb == 1 else [sum(cl[s:s + bpb]) for s in range(0, len(cl), bpb)]
            v = min(filter(r.__le__, bnc), default=0)
            return len(bnc) - 1 - bnc[::-1].index(v) if v else -1
        if p.bpb == 1:  # one base block: the fitting one with fewest free nodes, the last on ties
            rev = np.where(c >= r, c, _BIG)[::-1]
            k = int(np.argmin(rev))
            return -1 if rev[k] == _BIG else len(c) - 1 - k
        bnc = np.add.reduceat(c, p.starts)
        if p.use_ll:
            llc = np.add.reduceat(c, p.ll_starts)
            if p.pad:
                llc = np.concatenate([llc, np.zeros(p.pad, dtype=llc.dtype)])
            mat = llc.reshape(len(p.starts), p.llpb)
            avail = mat.sum(axis=1) if p.max_ll >= p.llpb else -np.sort(-mat, axis=1)[:, : p.max_ll].sum(axis=1)
        else:
            avail = bnc
        rev = np.where(avail >= r, bnc, _BIG)[::-1]
        k = int(np.argmin(rev))
        return -1 if rev[k] == _BIG else len(p.starts) - 1 - k

    def _piece(self, r: int, c: np.ndarray, cl: list[int] | None = None) -> list[tuple[int, int]] | None:
        """Steps 1-3 for ``r`` nodes on free counts ``c`` per base block (``cl``: the same as a
        list, if at hand): ``(base block, nodes taken)`` pairs, or ``None``."""
        p = self._plans.get(r) or self._plan(r)
        i = self._block_for(r, c, p, cl)
        if i < 0:
            return None
        if p.bpb == 1:
            return [(i, r)]
        b0 = i * p.bpb
        b1 = min(b0 + p.bpb, self._n_blocks)
        return _take_base_blocks(c[b0:b1].tolist() if cl is None else cl[b0:b1], b0, r, p)

    # -- what-if questions ------------------------------------------------------------------------------
    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """:meth:`~topoalloc.Allocator.earliest_in` (the same answer as the generic default). A plain
        count has a placement exactly when an aligned block of its level has room (step 2), which
        grows with the free set: without the llblock limit the earliest time is the least, over
        those blocks, ``n``-th smallest ready time of a block's nodes (one partition; a sort when
        the blocks differ in size); under it, a bisection over the sorted ready times with step
        2's test (O(N) per step). Then the rule once at the time found.

        ``switches=k`` (fewer than the base blocks): the rule runs on the ``k`` base blocks with
        most free nodes, and whether it places the piece there does *not* grow with the free set
        -- a node becoming ready can swap a base block of a fitting aligned block for one of
        another block (on 7 base blocks of one node with ``block_sizes=(1, 2)``, four nodes on
        four switches fit on base blocks 0, 1, 4, 5 but not once base block 2 is also free, which
        displaces 5). So no bisection: the ready times are tried in order, as the generic default
        does, from the plain count's time (a placement on some base blocks is one on all the free
        nodes), with step 2's test vectorised over them -- the free nodes per base block at each
        time (cumulative counts over the ready-time ranks), the ``k`` fullest per time (one
        partition of a key that breaks ties by the lowest id, ``_on_switches``' order) and step 2
        on those (:func:`_fits_at`), in chunks of times that grow geometrically. O(N log N + T B)
        for ``T`` times tried and ``B`` base blocks. Other requests (``required``, ``preferred``
        and segments, whose placements do exist from some time on; see
        :meth:`TreeAllocator.earliest_in`): the bisection of :meth:`TreeAllocator.earliest_in`.

        >>> from topologies import SwitchTree, TreeRequest
        >>> sb = SlurmBlock(SwitchTree.uniform((7, 1)), block_sizes=(1, 2))
        >>> ready = np.array([1.0, 0.0, 1.5, 4.0, 1.0, 1.0, 4.0])
        >>> t, nodes = sb.earliest_in(TreeRequest(4, switches=4), ready); t, nodes.tolist()
        (1.0, [0, 1, 4, 5])
        >>> sb.place_in(TreeRequest(4, switches=4), ready <= 1.5) is None  # base block 2 displaces 5
        True
        """
        r = self.validate(request)
        if isinstance(r, TreeRequest) and not r.plain and r.switches is None:
            return super().earliest_in(r, ready, now)
        n = r.count if isinstance(r, TreeRequest) else r
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        if n > len(ready):
            return None
        t = self._first_fit_time(n, ready)
        if t is None:
            return None
        if isinstance(r, TreeRequest) and r.switches is not None and r.switches < self._n_blocks:
            # the k fullest base blocks hold a placement only when all the free nodes do: from t on
            return self._earliest_on_switches(r, r.switches, ready, t)
        nodes = self._choose_count(n, ready <= t)  # a plain count (or switches on every base block)
        assert nodes is not None  # a block of the level has room by t: the rule places the count there
        return t, nodes

    def _first_fit_time(self, n: int, ready: np.ndarray) -> float | None:
        """The earliest value of ``ready`` at which a plain count of ``n`` has a placement on the
        nodes ready by then (:meth:`earliest_in`'s docstring), or ``None``."""
        p = self._plans.get(n) or self._plan(n)
        if not p.use_ll:  # a block has room once n of its nodes are ready: the least n-th ready time of a block
            kth = _kth_per_range(ready, p.bounds, n)
            return float(kth.min()) if len(kth) else None
        # bisection over the sorted ready times with step 2's test
        times = np.sort(ready)
        lo, hi = n - 1, len(times) - 1  # the answer is the first time at which the test holds
        if self._block_for(n, self._bblock_free(ready <= times[hi]), p) < 0:
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if self._block_for(n, self._bblock_free(ready <= times[mid]), p) < 0:
                lo = mid + 1
            else:
                hi = mid
        return float(times[hi])

    def _earliest_on_switches(self, r: TreeRequest, k: int, ready: np.ndarray, start: float
                              ) -> tuple[float, np.ndarray] | None:
        """:meth:`earliest_in` for ``r`` with ``switches=k``, ``k`` below the number of base blocks
        (the docstring there), on ``ready`` already raised to ``now``: the values of ``ready`` from
        ``start`` on in order, step 2 on the ``k`` fullest base blocks at each, a chunk of them at
        a time."""
        n, L = r.count, self._n_blocks
        times, rank = _ready_ranks(ready)
        lo = int(np.searchsorted(times, start))
        row = np.maximum(rank - lo, 0)  # the candidate time from which each node counts
        order = np.argsort(row, kind="stable")
        row, block = row[order], self._block_of[order]
        T = len(times) - lo
        p = self._plans.get(n) or self._plan(n)
        tie = np.arange(L - 1, -1, -1, dtype=np.int64)  # lower ids first among equal counts
        counts = np.zeros(L, dtype=np.int64)  # free nodes per base block before the chunk's first time
        i0, width, cap = 0, max(1, _FIRST_CHUNK // L), max(1, _MAX_CHUNK // L)
        while i0 < T:
            i1 = min(T, i0 + width)
            a, b = np.searchsorted(row, (i0, i1))
            c = np.bincount((row[a:b] - i0) * L + block[a:b], minlength=(i1 - i0) * L).reshape(i1 - i0, L)
            c = np.cumsum(c, axis=0, out=c)
            c += counts
            key = c * L + tie
            kth = np.partition(key, L - k, axis=1)[:, L - k, None]
            hit = np.flatnonzero(_fits_at(np.where(key >= kth, c, 0), n, p))
            if len(hit):
                t = float(times[lo + i0 + int(hit[0])])
                got = self._choose(r, ready <= t)
                if got is None:  # unreachable: step 2 found a block on the k fullest base blocks
                    raise AssertionError(f"no placement of {r!r} at time {t}")
                return t, got
            counts = c[-1].copy()
            i0, width = i1, min(2 * width, cap)
        return None

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """:meth:`TreeAllocator.allocate_avoiding` (the same grant as the generic default). For a
        plain count: none when no aligned block has room on the free nodes off ``avoid`` (every
        later placement lies in such a block). A piece of one base block: the rule drains the
        fitting base block with fewest free nodes, ``n`` lowest free ids at a time, before the next
        one (by free nodes, the last on ties), and no placement remains after them, so the
        placements are the chunks of ``n`` of those base blocks' free ids in that order, checked
        against ``avoid`` at once (O(N) numpy). Larger pieces: the placements one at a time on the
        mask with the earlier ones removed, until one avoids ``avoid`` or no aligned block has room
        off ``avoid`` any more. Other requests, and subclasses that keep state beyond the free
        mask: :meth:`TreeAllocator.allocate_avoiding`."""
        r = self.validate(request)
        if isinstance(r, TreeRequest) and not r.plain or not self._plain_state():
            return super().allocate_avoiding(r, avoid)
        n = r.count if isinstance(r, TreeRequest) else r
        off = self._frozen(avoid, "off", _complement)  # (a scheduler's frozen reservation: computed once)
        avoid = np.asarray(avoid, dtype=bool).ravel()
        p = self._plans.get(n) or self._plan(n)
        free = self._is_free
        c_ok = self._bblock_free(free & off)
        if self._block_for(n, c_ok, p) < 0:
            return None
        c = self._bblock_free(free)
        if p.bpb == 1:
            fits = np.flatnonzero(c >= n)
            order = fits[np.lexsort((-fits, c[fits]))]  # by free nodes, the last on ties
            ids, starts = _drain_chunks(free, c, order, n)
            i = _first_clean(ids, starts, n, avoid)
            got = ids[starts[i]:starts[i] + n] if i >= 0 else None
        else:
            mask = free.copy()
            block_of = self._block_of
            while True:
                pieces = self._piece(n, c)
                if pieces is None:
                    got = None
                    break
                got = self._nodes(pieces, mask)
                hit = avoid[got]
                if not hit.any():
                    break
                mask[got] = False
                for j, take in pieces:
                    c[j] -= take
                c_ok -= np.bincount(block_of[got[~hit]], minlength=self._n_blocks)
                if self._block_for(n, c_ok, p) < 0:
                    got = None
                    break
        if got is None:
            return None
        free[got] = False
        return self._register(r, got, got, n)

    def _segmented(self, n: int, seg: int, free: np.ndarray) -> np.ndarray | None:
        k = n // seg
        c = self._bblock_free(free)
        if self._plan(seg).bpb == 1:
            # Each segment goes to the base block with fewest free nodes that holds it (the last on
            # ties); that block stays the best fit while it holds another, so it is drained at once.
            cl = c.tolist()
            pieces = []
            while k:
                best, j = _BIG, -1
                for i, x in enumerate(cl):
                    if seg <= x <= best:
                        best, j = x, i
                if j < 0:
                    return None
                m = min(k, best // seg)
                pieces.append((j, m * seg))
                cl[j] -= m * seg
                k -= m
            return self._nodes(pieces, free)
        left = free.copy()
        out = []
        for _ in range(k):
            piece = self._piece(seg, c)
            if piece is None:
                return None
            ids = self._nodes(piece, left)
            left[ids] = False
            for j, take in piece:
                c[j] -= take
            out.append(ids)
        return np.sort(np.concatenate(out))


def _fits_at(c: np.ndarray, r: int, p: _Plan) -> np.ndarray:
    """Step 2's test for ``r`` nodes under plan ``p`` on each row of ``c`` (free nodes per base
    block, one row per time): whether an aligned block of the level has ``r`` free nodes, under
    the llblock limit in its ``max_ll`` fullest llblocks -- :meth:`SlurmBlock._block_for` finds a
    block, for many count vectors at once. O(rows x base blocks), a sort of each block's llblocks
    under the limit."""
    if p.bpb == 1:
        avail = c
    elif not p.use_ll:
        avail = np.add.reduceat(c, p.starts, axis=1)
    else:
        llc = np.add.reduceat(c, p.ll_starts, axis=1)
        if p.pad:
            llc = np.concatenate([llc, np.zeros((len(c), p.pad), dtype=llc.dtype)], axis=1)
        mat = llc.reshape(len(c), len(p.starts), p.llpb)
        avail = mat.sum(axis=2) if p.max_ll >= p.llpb else -np.sort(-mat, axis=2)[:, :, : p.max_ll].sum(axis=2)
    return np.asarray((avail >= r).any(axis=1))


def _kth_per_range(values: np.ndarray, bounds: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th smallest of ``values[bounds[i]:bounds[i + 1]]`` for each range ``i`` of at
    least ``k`` entries (ranges in order, covering ``values``): one partition when the ranges are
    of one length, else one sort by range and value. O(N log N) at most."""
    lengths = np.diff(bounds)
    if (lengths == lengths[0]).all():
        if lengths[0] < k:
            return np.zeros(0, dtype=values.dtype)
        return np.partition(values.reshape(len(lengths), -1), k - 1, axis=1)[:, k - 1]
    order = np.lexsort((values, np.repeat(np.arange(len(lengths)), lengths)))
    kth: np.ndarray = values[order[bounds[:-1][lengths >= k] + k - 1]]
    return kth


def _take_base_blocks(cl: list[int], b0: int, r: int, p: _Plan) -> list[tuple[int, int]] | None:
    """Step 3 inside the chosen block: base blocks ``b0 ..`` with free counts ``cl``; ``(base
    block, nodes taken)`` pairs, or ``None`` (not reached when the block was eligible)."""
    if p.use_ll and p.bpl > 1:
        return _take_with_llblocks(cl, b0, r, p)
    # The fullest base block (the last on ties) whole while none holds the rest; then the one with
    # fewest free nodes that holds it (the last on ties). With llblocks of one base block Slurm's
    # llblock comparison is this same one, and this uses the fewest base blocks there are.
    order = sorted(((x, t) for t, x in enumerate(cl) if x), reverse=True)
    out = []
    rem = r
    for q, (x, t) in enumerate(order):
        if x >= rem:
            last = q
            while last + 1 < len(order) and order[last + 1][0] >= rem:
                last += 1
            v = order[last][0]
            while last > q and order[last - 1][0] == v:
                last -= 1
            out.append((b0 + order[last][1], rem))
            return None if p.use_ll and len(out) > p.max_ll else out
        out.append((b0 + t, x))
        rem -= x
    return None


def _take_with_llblocks(cl: list[int], b0: int, r: int, p: _Plan) -> list[tuple[int, int]] | None:
    """Step 3 under the llblock limit, one comparison of Slurm's ``_choose_best_bblock`` at a
    time: a base block of the llblock in use first; then by its llblock's fit, then its own.

    Each choice is the best of the candidates (base blocks not taken, with free nodes) by the key
    (llblock part, base block part) -- an llblock that holds the rest, the one with fewest free
    nodes, else the fullest; then likewise for the base block --, the last on ties; the llblock
    counts are those before the piece. Within one llblock the llblock part is the same for all,
    so each llblock's best candidate is found from its base blocks' counts (the tightest that
    holds the rest, else the fullest, the last on ties) and the llblocks are compared by those:
    O(llblocks + b) per base block taken."""
    cl = list(cl)  # a taken base block counts as empty: it is no candidate any more
    bpl = p.bpl
    groups: list[tuple[int, int, int]] = []  # (free nodes, first, stop) of each llblock, by position
    t = 0
    while t < len(cl):
        stop = min(len(cl), ((b0 + t) // bpl + 1) * bpl - b0)
        groups.append((sum(cl[t:stop]), t, stop))
        t = stop
    out: list[tuple[int, int]] = []
    rem = r
    current: tuple[int, int, int] | None = None
    used = 0
    while rem > 0:
        best = None
        t = -1
        for grp in ([current] if current is not None and max(cl[current[1]:current[2]]) else groups):
            g, lo, hi = grp
            seg = cl[lo:hi]
            mx = max(seg)
            if not mx:
                continue
            v = min(filter(rem.__le__, seg)) if mx >= rem else mx
            key = ((1, -g) if g >= rem else (0, g)) + ((1, -v) if v >= rem else (0, v))
            if best is None or key >= best:
                best, t, chosen = key, lo + len(seg) - 1 - seg[::-1].index(v), grp
        if t < 0:
            return None
        if chosen is not current:
            if used >= p.max_ll:
                return None
            used += 1
            current = chosen
        got = min(cl[t], rem)
        out.append((b0 + t, got))
        cl[t] = 0
        rem -= got
    return out


class SlurmBlockOracle:
    """The placements :class:`SlurmBlock` promises, checked from the free mask.

    Called as ``oracle(allocator, free, request)``: whether a placement exists. A piece of ``r``
    nodes has one exactly when an aligned block of its level (the smallest configured level of at
    least ``ceil(r / base_size)`` base blocks, or the whole machine) has ``r`` free nodes -- under
    the llblock limit, in its ``max_ll`` fullest llblocks (the class docstring's step 2). A
    segmented request has one, where the limit does not apply to its segments, when the blocks of
    the segment's level hold ``count / S`` segments between them (``sum(free // S) >= count / S``:
    each segment takes ``S`` nodes of one block); under the limit, when each segment in turn finds
    such a block on the nodes the allocator's earlier segments left (this one case uses the
    allocator's own choices). ``required``, ``preferred`` and ``switches``: when a domain (or the
    switches) that :class:`~topoalloc.tree.TreeAllocator`'s defaults try holds such a piece.

    ``check_choice`` asserts the grant: a plain count lies in one aligned block of its level, the
    eligible one with fewest free nodes (the last on ties), inside at most ``max_ll`` llblocks
    under the limit; a segmented grant holds a multiple of ``S`` nodes in each block of the
    segment's level (in each base block for ``S <= base_size``); ``required`` and ``switches`` as
    :func:`~topoalloc.testing.tree_constraint_met` checks; ``preferred`` inside one domain of the
    deepest level at or above the preferred one where a domain could hold it.
    """

    @staticmethod
    def _layout(a: SlurmBlock, r: int) -> tuple[int, bool, int, int]:
        """``(base blocks per block, machine level, base blocks per llblock, llblock limit or 0)``
        for ``r`` nodes, from ``block_sizes`` and ``base_size`` (computed afresh, not the
        allocator's cached plan)."""
        L = a.n_base_blocks
        need = -(-r // a.base_size)
        level = 0
        while (1 << level) < need:
            level += 1
        fits = [s for s in a.block_sizes if s >= 1 << level]
        below = [s for s in a.block_sizes if s < 1 << level] or [1]
        bpb = fits[0] if fits else L
        bpl = below[-1]
        limit = -(-r // (bpl * a.base_size))
        return bpb, not fits, bpl, (limit if bpb != bpl * limit else 0)

    @classmethod
    def _blocks(cls, a: SlurmBlock, r: int) -> list[tuple[int, int]]:
        """The aligned blocks of ``r``'s level as base-block ranges."""
        bpb, machine, _, _ = cls._layout(a, r)
        L = a.n_base_blocks
        if machine:
            return [(0, L)]
        return [(i, min(i + bpb, L)) for i in range(0, L, bpb)]

    @classmethod
    def _avail(cls, a: SlurmBlock, free: np.ndarray, r: int) -> list[tuple[int, int]]:
        """Per aligned block of ``r``'s level: (free nodes, free nodes usable under the llblock
        limit)."""
        _, _, bpl, limit = cls._layout(a, r)
        fb = [int(free[lo:hi].sum()) for lo, hi in zip(a._bb_first.tolist(), a._bb_stop.tolist(), strict=True)]
        out = []
        for lo, hi in cls._blocks(a, r):
            total = sum(fb[lo:hi])
            if limit:
                groups: dict[int, int] = {}
                for j in range(lo, hi):
                    groups[j // bpl] = groups.get(j // bpl, 0) + fb[j]
                usable = sum(sorted(groups.values(), reverse=True)[:limit])
            else:
                usable = total
            out.append((total, usable))
        return out

    @classmethod
    def piece_fits(cls, a: SlurmBlock, free: np.ndarray, r: int) -> bool:
        """Whether a piece of ``r`` nodes has a placement on ``free`` (step 2 finds a block)."""
        return any(usable >= r for _, usable in cls._avail(a, free, r))

    def __call__(self, allocator: Any, free: np.ndarray, request: Any) -> bool:
        a: SlurmBlock = allocator
        t = a.topology
        r = a.validate(request)
        free = np.asarray(free, dtype=bool).ravel()
        if not isinstance(r, TreeRequest) or r.plain or r.preferred is not None:
            return self.piece_fits(a, free, r if not isinstance(r, TreeRequest) else r.count)
        n = r.count
        if r.required is not None:
            first, stop = t.domains(r.required)
            for lo, hi in zip(first.tolist(), stop.tolist(), strict=True):
                if int(free[lo:hi].sum()) >= n:
                    sub = np.zeros_like(free)
                    sub[lo:hi] = free[lo:hi]
                    if self.piece_fits(a, sub, n):
                        return True
            return False
        if r.switches is not None:
            if r.switches >= a.n_base_blocks:
                return self.piece_fits(a, free, n)
            counts = free_per_domain(free, a._bb_first)
            pick = np.argsort(-counts, kind="stable")[: r.switches]
            if int(counts[pick].sum()) < n:
                return False
            sub = np.zeros_like(free)
            for j in pick.tolist():
                lo, hi = int(a._bb_first[j]), int(a._bb_stop[j])
                sub[lo:hi] = free[lo:hi]
            return self.piece_fits(a, sub, n)
        seg = r.segment
        assert seg is not None  # the one kind left: a segmented request
        k = n // seg
        if not self._layout(a, seg)[3]:
            return sum(total // seg for total, _ in self._avail(a, free, seg)) >= k
        left = free.copy()
        c = free_per_domain(left, a._bb_first)
        for _ in range(k):
            if not self.piece_fits(a, left, seg):
                return False
            pieces = a._piece(seg, c)
            if pieces is None:  # the promise held but the allocator found nothing: place_in disagrees
                return True
            ids = a._nodes(pieces, left)
            left[ids] = False
            for j, got in pieces:
                c[j] -= got
        return True

    def check_choice(self, allocator: Any, free: np.ndarray, request: Any, allocation: Any) -> None:
        from topoalloc.testing import tree_constraint_met

        a: SlurmBlock = allocator
        t = a.topology
        r = a.validate(request)
        free = np.asarray(free, dtype=bool).ravel()
        nodes = np.asarray(allocation.nodes)
        block_of = np.searchsorted(a._bb_first, nodes, side="right") - 1  # base block of each node
        if isinstance(r, TreeRequest) and r.segment is not None:
            seg = r.segment
            per_block = np.bincount(block_of, minlength=a.n_base_blocks)
            for lo, hi in self._blocks(a, seg):
                held = int(per_block[lo:hi].sum())
                assert held % seg == 0, (
                    f"{allocation!r}: base blocks {lo}..{hi - 1} (one block of the level of a {seg}-node segment) "
                    f"hold {held} of its nodes, not a multiple of {seg}")
            return
        if isinstance(r, TreeRequest) and not r.plain:
            if r.preferred is None:
                tree_constraint_met(a, free, r, allocation)
                return
            n = r.count
            for d in range(t.level_depth(r.preferred), 0, -1):
                first, stop = t.domains(d)
                room = []
                for lo, hi in zip(first.tolist(), stop.tolist(), strict=True):
                    sub = np.zeros_like(free)
                    sub[lo:hi] = free[lo:hi]
                    if int(sub.sum()) >= n and self.piece_fits(a, sub, n):
                        room.append((lo, hi))
                if room:
                    assert any(lo <= nodes[0] and nodes[-1] < hi for lo, hi in room), (
                        f"{allocation!r} is not inside one {t.levels[d]!r} domain, though one could hold it")
                    return
            return
        n = len(nodes)
        blocks = self._blocks(a, n)
        avail = self._avail(a, free, n)
        eligible = [i for i, (_, usable) in enumerate(avail) if usable >= n]
        assert eligible, f"{allocation!r} granted though no block of its level had room"
        best = min(avail[i][0] for i in eligible)
        want = max(i for i in eligible if avail[i][0] == best)
        lo, hi = blocks[want]
        assert lo <= block_of[0] and block_of[-1] < hi, (
            f"{allocation!r} is not inside base blocks {lo}..{hi - 1}, the block of its level with fewest free "
            f"nodes that can hold it (the last on ties)")
        _, _, bpl, limit = self._layout(a, n)
        if limit:
            spanned = len(np.unique(block_of // bpl))
            assert spanned <= limit, f"{allocation!r} spans {spanned} llblocks of {bpl} base blocks, at most {limit}"


SlurmBlock.oracle = SlurmBlockOracle()

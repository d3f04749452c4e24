"""SlurmBlock: the stateful machine with its oracle, a literal transcription of Slurm's
``eval_nodes_block`` as reference, golden cases from Slurm's tests and documentation, errors."""

import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc.base import Allocator
from topoalloc.testing import allocator_machine, switch_trees
from topoalloc.tree import TreeAllocator
from topoalloc.tree import slurm_block as slurm_block_module
from topoalloc.tree.slurm_block import DEFAULT_BLOCK_SIZES, BlockSizesError, SlurmBlock
from topologies import RequestTypeError, SwitchTree, TreeRequest


# -- machines -------------------------------------------------------------------------------------
@st.composite
def block_machines(draw: st.DrawFn) -> tuple:
    """``(tree, block_sizes, base_size)``: mostly block machines ``uniform((b, k))`` (b, k in
    1..8), sometimes a deeper or unbalanced tree (its leaf switches are the base blocks); random
    ``BlockSizes`` (a subset of 1..16 base blocks, with or without 1, or one that skips levels so
    that the llblock limit applies) and planning base size."""
    kind = draw(st.sampled_from(["block"] * 4 + ["deep", "unbalanced"]), label="tree kind")
    if kind == "block":
        tree = SwitchTree.uniform((draw(st.integers(1, 8)), draw(st.integers(1, 8))), names=("block", "node"))
    elif kind == "deep":
        tree = SwitchTree.uniform((draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))),
                                  names=("group", "block", "node"))
    else:
        tree = draw(switch_trees(max_nodes=32, balanced=False))
    gaps = st.sampled_from([(1, 4), (4,), (1, 8), (2, 8), (1, 4, 16), (1, 2, 8)])  # llblock limits bite
    sizes = draw(st.one_of(st.none(), st.sets(st.sampled_from([1, 2, 4, 8, 16]), min_size=1).map(sorted), gaps),
                 label="block_sizes")
    smallest = int((tree.stop - tree.first)[tree.leaf_switch_ids].min())
    base = draw(st.one_of(st.none(), st.integers(1, smallest)), label="base_size")
    return tree, sizes, base


def slurm_block(spec: tuple) -> SlurmBlock:
    tree, sizes, base = spec
    return SlurmBlock(tree, block_sizes=sizes, base_size=base)


TestSlurmBlockMachine = allocator_machine(slurm_block, block_machines()).TestCase


# -- a literal transcription of eval_nodes_block, for whole nodes of equal weight ------------------
def _choose_best_bblock(i: int, rem: int, state: dict, required: set, nodes_on_bblock: list,
                        nodes_on_llblock: list | None, lvl: int, L: int) -> None:
    """``_choose_best_bblock`` of ``eval_nodes_block.c``, branch by branch; ``state`` holds
    ``best_bblock_inx``, ``best_fit`` and ``best_same_block``."""
    fit = nodes_on_bblock[i] >= rem
    best = state["best"]
    if nodes_on_llblock is not None and (best >> lvl) != (i >> lvl):
        same = any(j in required for j in range(i & (~0 << lvl), min(L, (i | ~(~0 << lvl)) + 1)))
        if best == -1 or (same and not state["same"]):
            state.update(best=i, fit=fit, same=same)
            return
        if not same and state["same"]:
            return
        best_ll, ll = nodes_on_llblock[best >> lvl], nodes_on_llblock[i >> lvl]
        ll_fit, best_ll_fit = ll >= rem, best_ll >= rem
        if ll_fit and not best_ll_fit:
            state.update(best=i, fit=fit, same=same)
            return
        if not ll_fit and best_ll_fit:
            return
        if ll_fit and best_ll_fit:
            if ll < best_ll:
                state.update(best=i, fit=fit, same=same)
                return
            if ll > best_ll:
                return
        else:
            if ll > best_ll:
                state.update(best=i, fit=fit, same=same)
                return
            if ll < best_ll:
                return
    if (best == -1 or (fit and not state["fit"])
            or (not fit and not state["fit"] and nodes_on_bblock[i] >= nodes_on_bblock[best])
            or (fit and nodes_on_bblock[i] <= nodes_on_bblock[best])):
        state.update(best=i, fit=fit)


def _reference_piece(a: SlurmBlock, free: list, r: int) -> list | None:
    """``eval_nodes_block`` (``src/plugins/topology/block/eval_nodes_block.c``) step by step, with
    the two departures :class:`SlurmBlock` documents: base blocks without free nodes are not
    candidates, and the whole-machine level counts all its llblocks."""
    B = a.base_size
    L = a.n_base_blocks
    levels = {s.bit_length() - 1 for s in a.block_sizes}
    bb = list(zip(a._bb_first.tolist(), a._bb_stop.tolist(), strict=True))
    # _get_block_level
    block_level = math.ceil(math.log2(-(-r // B)))
    llblock_level = max(lv for lv in levels if lv <= block_level - 1) if block_level > 0 else 0
    block_level = min((lv for lv in levels if lv >= block_level), default=-1)
    if block_level < 0:
        bblock_per_block, block_cnt = L, 1
    else:
        bblock_per_block = 1 << block_level
        block_cnt = -(-L // bblock_per_block)
    bblock_per_llblock = 1 << llblock_level
    max_llblock = -(-r // (bblock_per_llblock * B))
    use_ll = bblock_per_block != bblock_per_llblock * max_llblock
    llblock_cnt = -(-L // bblock_per_llblock)
    nodes_on_bblock = [sum(free[lo:hi]) for lo, hi in bb]
    nodes_on_block = [0] * block_cnt
    nodes_on_llblock = [0] * llblock_cnt
    for i in range(L):
        nodes_on_block[i // bblock_per_block] += nodes_on_bblock[i]
        nodes_on_llblock[i // bblock_per_llblock] += nodes_on_bblock[i]
    block_inx, block_node_cnt = -1, 0
    for i in range(block_cnt):
        bnc = nodes_on_block[i]
        if use_ll:
            per = llblock_cnt if block_level < 0 else bblock_per_block // bblock_per_llblock
            offset = i * per
            per = min(per, llblock_cnt - offset)
            avail = sum(sorted(nodes_on_llblock[offset:offset + per], reverse=True)[:min(max_llblock, per)])
        else:
            avail = bnc
        if avail < r:
            continue
        if block_inx == -1 or bnc <= block_node_cnt:
            block_inx, block_node_cnt = i, bnc
    if block_inx == -1:
        return None
    members = [i for i in range(L) if i // bblock_per_block == block_inx]
    required: set = set()
    taken: list = []
    rem = r
    lvl = llblock_level
    prev = rem + 1
    while True:
        if prev == rem:
            break
        prev = rem
        state = {"best": -1, "fit": False, "same": True}
        for i in members:
            if i in required or nodes_on_bblock[i] == 0:
                continue
            _choose_best_bblock(i, rem, state, required, nodes_on_bblock, nodes_on_llblock if use_ll else None,
                                lvl, L)
        best = state["best"]
        if best == -1:
            break
        if max_llblock <= 0 and not state["same"]:
            break
        required.add(best)
        lo, hi = bb[best]
        for v in range(lo, hi):
            if free[v] and rem:
                taken.append(v)
                rem -= 1
        if rem == 0:
            return taken
        if not state["same"]:
            max_llblock -= 1
    return None


def reference(a: SlurmBlock, free: np.ndarray, request) -> list | None:
    """Slurm's placement of a plain count or a segmented request (its ``next_segment`` loop)."""
    left = [bool(x) for x in free]
    if isinstance(request, TreeRequest):
        n, seg = request.count, request.segment or request.count
    else:
        n, seg = request, request
    out = []
    for _ in range(n // seg):
        got = _reference_piece(a, left, seg)
        if got is None:
            return None
        for v in got:
            left[v] = False
        out += got
    return sorted(out)


@settings(max_examples=300, deadline=None)
@given(spec=block_machines(), data=st.data())
def test_place_in_is_slurms_choice(spec, data):
    """The vectorised rule makes exactly the choices of the literal transcription of
    ``eval_nodes_block`` (plain counts and segments, random free masks)."""
    a = slurm_block(spec)
    N = a.size
    density = data.draw(st.sampled_from([0.3, 0.6, 0.9, 1.0]))
    free = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).random(N) < density
    seg = data.draw(st.integers(1, N))
    request = data.draw(st.one_of(st.integers(1, N),
                                  st.integers(1, N // seg).map(lambda k: TreeRequest(k * seg, segment=seg))))
    got = a.place_in(request, free)
    want = reference(a, free, request)
    assert (None if got is None else got.tolist()) == want
    assert (got is not None) == SlurmBlock.oracle(a, free, request)


@settings(max_examples=150, deadline=None)
@given(spec=block_machines(), data=st.data())
def test_numpy_paths_of_many_base_blocks_are_slurms_choice(spec, data):
    """Above 64 base blocks the fitting blocks are found in numpy rather than by a scan of a list;
    forced here on small machines, the choices are still those of the literal transcription."""
    a = slurm_block(spec)
    N = a.size
    free = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).random(N) < 0.7
    seg = data.draw(st.integers(1, N))
    request = data.draw(st.one_of(st.integers(1, N),
                                  st.integers(1, N // seg).map(lambda k: TreeRequest(k * seg, segment=seg))))
    with mock.patch.object(slurm_block_module, "_SCAN_BLOCKS", 0):
        got = a.place_in(request, free)
    assert (None if got is None else got.tolist()) == reference(a, free, request)


def _uneven_blocks() -> SwitchTree:
    """Base blocks of 3 to 8 nodes under two groups."""
    sizes = [5, 8, 3, 6, 7, 4, 8, 5, 6]
    names = iter(f"n{i}" for i in range(sum(sizes)))
    leaves = {f"b{k}": [next(names) for _ in range(m)] for k, m in enumerate(sizes)}
    return SwitchTree.from_switches({"top": ["g0", "g1"], "g0": [f"b{k}" for k in range(4)],
                                     "g1": [f"b{k}" for k in range(4, 9)]}, leaves)


@pytest.mark.parametrize(("tree", "sizes", "base"), [
    (SwitchTree.uniform((20, 8), names=("block", "node")), None, None),  # > 16 base blocks: the machine level
    (SwitchTree.uniform((33, 3), names=("block", "node")), (1, 4, 16), 2),  # llblock limits, a short last block
    (_uneven_blocks(), (1, 2, 4), None),  # base blocks of different sizes
])
def test_what_ifs_match_the_generic_defaults_on_busy_machines(tree, sizes, base):
    """``allocate_avoiding`` (all one-base-block placements checked at once; none once no block has
    room off the avoided nodes) and ``earliest_in`` (the least ``n``-th ready time of a block, or a
    bisection under the llblock limit) give exactly what :class:`~topoalloc.Allocator`'s generic
    defaults give, on half-full machines."""
    rng = np.random.default_rng(5)
    N = tree.size
    for _ in range(30):
        a = SlurmBlock(tree, sizes, base)
        while a.free > N // 2:
            a.allocate(int(rng.integers(1, 9)))
        b = a.clone()
        avoid = rng.random(N) < rng.choice([0.05, 0.2, 0.5])
        avoid.flags.writeable = bool(rng.integers(2))  # a frozen mask is converted once
        for n in (int(rng.integers(1, 9)), int(rng.integers(1, N // 4))):
            got, want = a.allocate_avoiding(n, avoid), Allocator.allocate_avoiding(b, n, avoid)
            assert (got is None) == (want is None)
            if got is not None:
                assert got.nodes.tolist() == want.nodes.tolist() and not avoid[got.nodes].any()
            assert a.free_mask().tolist() == b.free_mask().tolist()
        ready = np.where(rng.random(N) < 0.3, -np.inf, rng.integers(1, 40, N).astype(float))  # any ready times
        for m in (int(rng.integers(1, 9)), int(rng.integers(1, N // 2)), N - int(rng.integers(0, 8))):
            got_t, want_t = a.earliest_in(m, ready, now=3.0), Allocator.earliest_in(a, m, ready, now=3.0)
            assert (got_t is None) == (want_t is None)
            if got_t is not None:
                assert got_t[0] == want_t[0] and got_t[1].tolist() == want_t[1].tolist()


def _leaf_sizes(sizes: list[int]) -> SwitchTree:
    """One switch above base blocks of the given node counts."""
    names = iter(f"n{i}" for i in range(sum(sizes)))
    leaves = {f"b{k}": [next(names) for _ in range(m)] for k, m in enumerate(sizes)}
    return SwitchTree.from_switches({"top": list(leaves)}, leaves)


@pytest.mark.parametrize(("tree", "sizes", "request_", "ready", "now", "want", "bisected"), [
    # found by TestSlurmBlockMachine: the llblock limit. 4 nodes on the machine level (7 base blocks, levels 1
    # and 2), at most 2 llblocks (pairs). Ready by 1.5: base blocks 0, 1, 4, 5 (pairs 0 and 2) fit; by 2.5 base
    # block 2 is also free and displaces 5 among the 4 fullest (0, 1, 2, 4: three pairs); by 4.0 0-3 fit again.
    (SwitchTree.uniform((7, 1)), (2,), TreeRequest(4, switches=4), [0, 1, 2.5, 4, -np.inf, 1, 7], 1.5,
     (1.5, [0, 1, 4, 5]), (4.0, [0, 1, 2, 3])),
    # no llblock limit, aligned pairs: by 0 base blocks 2 and 3 (one pair) are the 2 fullest; by 1 base
    # block 0 displaces 3 (lowest id on ties) and 0, 2 lie in two pairs; by 2 the pair 0-1 fits
    (SwitchTree.uniform((4, 1)), None, TreeRequest(2, switches=2), [1, 2, 0, 0], -np.inf,
     (0.0, [2, 3]), (2.0, [0, 1])),
    # no placement once every node is ready: base blocks of 2, 2, 3 nodes, planning size 2, 4 nodes in an
    # aligned pair; all ready, the 2 fullest are 2 and 0 (two pairs), but by 1 base block 2 has only 2 free
    # and 0, 1 (one pair) are the fullest
    (_leaf_sizes([2, 2, 3]), None, TreeRequest(4, switches=2), [1, 1, 1, 0, 2, 1, 0], -np.inf,
     (1.0, [0, 1, 2, 3]), None),
])
def test_earliest_in_on_switches_tries_the_times_in_order(tree, sizes, request_, ready, now, want, bisected):
    """Regression: ``switches=k`` runs the rule on the ``k`` base blocks with most free nodes
    (:class:`~topoalloc.tree.TreeAllocator`'s default), so whether a piece spanning base blocks is
    placed does not grow with the free set, and the bisection over the ready times that
    ``earliest_in`` used for it (:meth:`TreeAllocator.earliest_in`) answered a later time, or none.
    The expected answers are :meth:`Allocator.earliest_in`'s (the first time in order at which
    ``place_in`` places it), derived by hand in the comments; ``bisected`` is what the bisection
    gives, asserted so that each case keeps exercising a non-monotone free set."""
    sb = SlurmBlock(tree, block_sizes=sizes)
    ready = np.array(ready, dtype=float)
    got = sb.earliest_in(request_, ready, now)
    assert (got[0], got[1].tolist()) == want
    generic = Allocator.earliest_in(sb, request_, ready, now)
    assert (generic[0], generic[1].tolist()) == want
    old = TreeAllocator.earliest_in(sb, request_, ready, now)
    assert (None if old is None else (old[0], old[1].tolist())) == bisected


@pytest.mark.parametrize("chunks", [None, (1, 64)])
@pytest.mark.parametrize(("tree", "sizes", "base"), [
    (SwitchTree.uniform((8, 3), names=("block", "node")), None, 1),  # aligned blocks of 2, 4, 8
    (SwitchTree.uniform((13, 2), names=("block", "node")), (1, 4), 1),  # llblock limits, a short last block
    (_uneven_blocks(), (1, 2, 4), None),  # base blocks of different sizes
])
def test_earliest_in_on_switches_matches_the_generic_default(tree, sizes, base, chunks, monkeypatch):
    """``switches`` requests on busy machines with many distinct ready times: the same time and
    nodes as :meth:`Allocator.earliest_in` -- also with the times tested one, two, four... at a
    time (``chunks``: the counts per chunk forced small), so that the answer lies in a later
    chunk -- and every base block's worth of switches (``k`` at least the base blocks: the plain
    count rule)."""
    if chunks is not None:
        monkeypatch.setattr(slurm_block_module, "_FIRST_CHUNK", chunks[0])
        monkeypatch.setattr(slurm_block_module, "_MAX_CHUNK", chunks[1])
    rng = np.random.default_rng(11)
    N = tree.size
    a = SlurmBlock(tree, sizes, base)
    L = a.n_base_blocks
    while a.free > N // 2:
        a.allocate(int(rng.integers(1, 5)))
    for _ in range(40):
        ready = np.where(rng.random(N) < 0.2, -np.inf, rng.integers(1, N, N).astype(float))
        now = float(rng.choice([-np.inf, 3.0]))
        r = TreeRequest(int(rng.integers(2, N // 2)), switches=int(rng.integers(1, L + 2)))
        got, want = a.earliest_in(r, ready, now), Allocator.earliest_in(a, r, ready, now)
        assert (got is None) == (want is None), (r, ready.tolist(), now)
        if got is not None:
            assert got[0] == want[0] and got[1].tolist() == want[1].tolist(), (r, ready.tolist(), now)


# -- golden cases ------------------------------------------------------------------------------------
def _two_blocks() -> SlurmBlock:
    """``BlockName=b1 Nodes=node[1-4]``, ``BlockName=b2 Nodes=node[5-8]``, ``BlockSizes=4,8``."""
    return SlurmBlock(SwitchTree.uniform((2, 4), names=("block", "node")), block_sizes=(1, 2))


def test_slurm_test_150_1_const1():
    """Slurm ``testsuite/python/tests/test_150_1.py::test_const1``: on two blocks of 4 nodes,
    ``-N 2`` and ``-N 3`` run, a second ``-N 3`` does not (3 nodes are free, but in no one block).
    Which block takes which job follows ``eval_nodes_block``'s ties (the later block)."""
    sb = _two_blocks()
    assert sb.allocate(2).nodes.tolist() == [4, 5]
    assert sb.allocate(3).nodes.tolist() == [0, 1, 2]
    assert sb.free == 3 and sb.allocate(3) is None


def test_slurm_test_150_1_const2():
    """Slurm ``test_150_1.py::test_const2``: ``-N 3`` then ``-N 5`` both run; the 5-node job spans
    both blocks (the 8-node level): the fuller block whole, then the rest."""
    sb = _two_blocks()
    assert sb.allocate(3).nodes.tolist() == [4, 5, 6]
    assert sb.allocate(5).nodes.tolist() == [0, 1, 2, 3, 7]


def test_slurm_test_150_1_segment1():
    """Slurm ``test_150_1.py::test_segment1``: ``-N 4 --segment=2`` runs; ``-N 5 --segment=2`` is
    rejected (5 % 2)."""
    sb = _two_blocks()
    assert sb.allocate(TreeRequest(4, segment=2)).nodes.tolist() == [4, 5, 6, 7]
    with pytest.raises(RequestTypeError, match="segment 2 does not divide"):
        sb.allocate(TreeRequest(5, segment=2))


@pytest.mark.parametrize(("nodes", "count", "segment", "runs"), [
    ("1-4", 4, 2, True),
    ("1,2,5,6", 4, 2, True),
    ("1-8", 6, 3, True),
    ("1-3,5-7", 6, 3, True),
    ("1-6", 6, 3, False),  # "segment #2 not fit on b2"
])
def test_slurm_test_150_2_segment_nodelist(nodes, count, segment, runs):
    """Slurm ``testsuite/python/tests/test_150_2.py::test_segment_nodelist``: ``-N count -w
    node[...] --segment=S`` on the two blocks of 4; the node list restricts the free nodes (a
    ``place_in`` mask). ``-w node[1-6] --segment=3`` fails: the first segment takes 3 nodes of
    b1, the second finds 1 in b1 and 2 in b2."""
    free = np.zeros(8, dtype=bool)
    for part in nodes.split(","):
        lo, _, hi = part.partition("-")
        free[int(lo) - 1:int(hi or lo)] = True
    got = _two_blocks().place_in(TreeRequest(count, segment=segment), free)
    assert (got is not None) == runs
    if got is not None:
        assert free[got].all() and len(got) == count


def test_topology_conf_man_page_example():
    """``topology.conf(5)``'s block example: four blocks of 32 nodes, ``BlockSizes=30,120`` -- a
    planning base block of 30 nodes and one aggregated level of 4 base blocks. Outcomes per
    ``eval_nodes_block``: up to 30 nodes need one base block; 31 to 60 nodes go to the 4-block
    level but may use at most 2 base blocks (the llblocks are base blocks, 120 is not 2 x 30);
    61 to 90 at most 3."""
    t = SwitchTree.uniform((4, 32), names=("block", "node"))
    sb = SlurmBlock.from_node_sizes(t, (30, 120))
    assert (sb.base_size, sb.block_sizes) == (30, (1, 4))
    assert [sb.block_size_for(n) for n in (30, 31, 60, 61, 120)] == [1, 4, 4, 4, 4]
    assert sb.allocate(31).nodes.tolist() == list(range(96, 127))  # one base block holds it: the last
    free = np.ones(128, dtype=bool)
    for b in range(4):
        free[32 * b: 32 * b + 12] = False  # 20 free nodes per base block, 80 in all
    assert sb.place_in(20, free) is not None
    assert sb.place_in(25, free) is None  # 25 <= 30: one base block, none has 25 free
    # 31-60 nodes: at most 2 base blocks, so 40 nodes; the fullest whole (the last on ties), then the
    # smallest that holds the rest (the last on ties again)
    assert sb.place_in(40, free).tolist() == [*range(76, 96), *range(108, 128)]
    assert sb.place_in(41, free) is None and sb.place_in(60, free) is None
    assert sb.place_in(61, free) is None  # 61-90 nodes: at most 3 base blocks, 60 nodes
    assert SlurmBlock.oracle(sb, free, 40) and not SlurmBlock.oracle(sb, free, 41)


def test_topology_yaml_man_page_example():
    """``topology.yaml(5)``'s ``topo2``: blocks b1-b4 of 4 nodes, ``block_sizes: [4, 16]``. A
    5-node job needs 2 base blocks' worth: the 16-node level, at most 2 base blocks; with 2 free
    nodes in each block (8 free) it does not run, with 3 and 2 it does."""
    sb = SlurmBlock(SwitchTree.uniform((4, 4), names=("block", "node")), block_sizes=(4, 16))
    assert sb.block_sizes == (1, 4, 16)
    free = np.array([1, 1, 0, 0] * 4, dtype=bool)
    assert sb.place_in(5, free) is None
    free[2] = True
    assert sb.place_in(5, free).tolist() == [0, 1, 2, 12, 13]


def test_nvl72_racks():
    """18 NVL72 racks as base blocks (72 nodes each), with Slurm's default ``BlockSizes``
    (1, 2, 4, 8, 16 base blocks): a job is held to 1, 2, 4, 8 or 16 aligned racks, or the whole
    machine beyond 16 racks."""
    sb = SlurmBlock(SwitchTree.uniform((18, 72), names=("block", "node")))
    assert sb.block_sizes == DEFAULT_BLOCK_SIZES and sb.base_size == 72
    assert [sb.block_size_for(n) for n in (1, 72, 73, 144, 145, 288, 289, 1152, 1153)] == [1, 1, 2, 2, 4, 4, 8, 16, 18]
    a = sb.allocate(100)
    # racks 16-17, the last pair on ties; rack 17 whole (the last of two equal ones), 28 nodes of rack 16
    assert a.nodes.tolist() == list(range(1152, 1180)) + list(range(1224, 1296))
    assert sb.allocate(72).nodes.tolist() == list(range(1080, 1152))  # racks 0-15 fit equally: the last


# -- the rule's details ------------------------------------------------------------------------------
def test_best_fit_block_and_base_blocks():
    """Step 2 takes the eligible block with fewest free nodes (``eval_nodes_block``'s block loop,
    "lowest sufficient count of nodes"); step 3 the fullest base blocks whole, then the smallest
    that holds the rest (``_choose_best_bblock``'s ``fit`` comparisons)."""
    t = SwitchTree.uniform((4, 4), names=("block", "node"))
    sb = SlurmBlock(t)
    free = np.ones(16, dtype=bool)
    free[[0, 4, 5, 8]] = False  # base blocks: 3, 2, 3, 4 free; pairs: 5 and 7
    assert sb.place_in(5, free).tolist() == [1, 2, 3, 6, 7]  # pair 0-1 (5 free, fewest that fit)
    assert sb.place_in(6, free).tolist() == [9, 10, 12, 13, 14, 15]  # pair 2-3: block 3 whole, 2 of block 2
    assert sb.place_in(2, free).tolist() == [6, 7]  # one base block: block 1 (2 free)


def test_llblock_limit_decides_the_block():
    """With ``BlockSizes`` 1 and 4 base blocks, a 6-node job (2 base blocks' worth) goes to a block
    of 4 base blocks but may use only 2 of them: a block with fewer free nodes spread over more
    base blocks is passed over (``eval_nodes_block``: ``avail_bnc``, the ``max_llblock`` fullest
    llblocks)."""
    sb = SlurmBlock(SwitchTree.uniform((8, 4), names=("block", "node")), block_sizes=(1, 4))
    free = np.zeros(32, dtype=bool)
    for b, k in enumerate([2, 2, 2, 0, 4, 3, 0, 0]):
        free[4 * b: 4 * b + k] = True  # block 0: 6 free over 3 base blocks; block 1: 7 over 2
    assert sb.place_in(6, free).tolist() == [16, 17, 18, 19, 20, 21]
    free[16:20] = False
    assert sb.place_in(6, free) is None and sb.place_in(5, free) is None
    assert sb.place_in(4, free) is None  # one base block's worth: one base block, none has 4 free
    assert sb.place_in(3, free).tolist() == [20, 21, 22]


def test_segments_inside_base_blocks():
    """Segments of at most a base block each lie in one base block, best fit each
    (``eval_nodes_block``'s ``next_segment`` loop: the level of a segment is that of its size)."""
    sb = SlurmBlock(SwitchTree.uniform((3, 4), names=("block", "node")))
    free = np.ones(12, dtype=bool)
    free[[0, 4, 5]] = False  # 3, 2, 4 free
    got = sb.place_in(TreeRequest(6, segment=2), free)
    assert got.tolist() == [1, 2, 6, 7, 8, 9]  # block 1 (2 free), block 0 (3 -> 1 left), block 2
    assert sb.place_in(TreeRequest(8, segment=2), free) is not None  # 3 // 2 + 2 // 2 + 4 // 2 = 4 segments
    assert sb.place_in(TreeRequest(10, segment=2), free) is None  # 9 free nodes, but 4 segments of 2
    assert sb.place_in(TreeRequest(6, segment=3), free).tolist() == [1, 2, 3, 8, 9, 10]
    assert sb.place_in(TreeRequest(9, segment=3), free) is None  # 3 // 3 + 2 // 3 + 4 // 3 = 2 segments of 3
    free[0] = True
    assert sb.place_in(TreeRequest(10, segment=2), free) is not None


def test_large_segments_stay_in_one_block_of_their_level():
    """A segment larger than a base block lies in one aligned block of its level
    (``eval_nodes_block`` computes the level from ``segment_size``), not in one base block."""
    sb = SlurmBlock(SwitchTree.uniform((4, 2), names=("block", "node")))
    got = sb.allocate(TreeRequest(6, segment=3))
    per_pair = np.bincount(got.nodes // 4, minlength=2)
    assert sorted(per_pair.tolist()) == [3, 3]


def test_deeper_tree_aggregates_leaf_switches_by_position():
    """On a deeper tree the leaf switches are the base blocks and pairs are aligned by position
    (Slurm's aggregated blocks are consecutive ``BlockName`` entries, ``block_record_validate``),
    whatever switch lies above: base blocks 2 and 3 form a pair across the two groups."""
    t = SwitchTree.uniform((2, 3, 2), names=("group", "block", "node"))
    sb = SlurmBlock(t)
    free = np.ones(12, dtype=bool)
    free[[0, 1, 2, 8, 9, 10]] = False  # base blocks: 0, 1, 2, 2, 0, 1 free; pairs 1, 4, 1
    got = sb.place_in(3, free)
    assert got.tolist() == [4, 6, 7]  # base block 3 whole (the last on ties), then 1 node of base block 2
    assert t.common_switch(got) == 0  # spans both groups


def test_departure_no_stall_on_an_empty_base_block():
    """Departure (a) of the class docstring: ``BlockSizes`` 1, 4, 16 base blocks of 4 nodes, a
    17-node job (llblocks of 4 base blocks, at most 2). Slurm would take llblock 0's three full
    base blocks, then pick its empty fourth over llblock 1 and stop as stalled; here the job gets
    llblock 0's 12 free nodes and 5 of llblock 1."""
    sb = SlurmBlock(SwitchTree.uniform((16, 4), names=("block", "node")), block_sizes=(1, 4, 16))
    free = np.zeros(64, dtype=bool)
    free[0:12] = True
    free[16:21] = True  # base block 4 full, base block 5 one node
    assert sb.place_in(17, free).tolist() == list(range(12)) + list(range(16, 21))


def test_departure_machine_level_counts_every_llblock():
    """Departure (b): 20 base blocks, default sizes; a job of 17 base blocks goes to the whole
    machine with llblocks of 16. Slurm counts 20 // 16 = 1 llblock there and never places it;
    here it is placed."""
    sb = SlurmBlock(SwitchTree.uniform((20, 2), names=("block", "node")))
    assert sb.block_size_for(34) == 20
    # llblock 0 (base blocks 0-15) whole, then the last base block of llblock 1 for the 2 left
    assert sb.allocate(34).nodes.tolist() == list(range(32)) + [38, 39]


def test_constraints_use_the_rule_inside_the_domain():
    """``required`` and ``preferred`` pick a domain through the base defaults (fewest free nodes
    that fit, lowest id on ties), then the block rule runs inside it."""
    t = SwitchTree.uniform((2, 2, 2), names=("group", "block", "node"))
    sb = SlurmBlock(t)
    # group 0; inside it the pair of base blocks 0-1: base block 1 whole (the last on ties), then 0
    assert sb.allocate(TreeRequest(3, required="group")).nodes.tolist() == [0, 2, 3]
    # group 0 has 1 free node left: group 1, one base block, the last on ties
    assert sb.allocate(TreeRequest(2, required="group")).nodes.tolist() == [6, 7]
    assert sb.allocate(TreeRequest(2, preferred="block")).nodes.tolist() == [4, 5]
    assert sb.allocate(TreeRequest(2, required="block")) is None


# -- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("sizes", "match"), [
    ((3,), "block size 3 is not a power of two"),
    ((1, 0), "block size 0 is not a power of two"),
    ((1, 2.0), r"block size 2\.0 is not a power of two"),
    ((1, True), r"block size True \(bool\)"),
    ((1, 4, 2), "block size 2 does not follow 4"),
    ((2, 2), "block size 2 does not follow 2"),
    ((), "at least one block size"),
    ("1,2", r"'1,2' \(str\)"),
    (4, r"got 4"),
    ((1, 1 << 16), "block size 65536 is larger than Slurm's largest level, 32768"),
])
def test_bad_block_sizes(sizes, match):
    with pytest.raises(BlockSizesError, match=match):
        SlurmBlock(SwitchTree.uniform((2, 4)), block_sizes=sizes)


@pytest.mark.parametrize(("base", "match"), [
    (0, "base_size must be an integer >= 1 .*got 0"),
    ("4", r"got '4' \(str\)"),
    (5, "base_size 5 is larger than the smallest base block"),
])
def test_bad_base_size(base, match):
    with pytest.raises(BlockSizesError, match=match):
        SlurmBlock(SwitchTree.uniform((2, 4)), base_size=base)


@pytest.mark.parametrize(("sizes", "match"), [
    ((30, 45), "BlockSizes value 45 is not a multiple of the base block size 30"),
    ((30, 90), "block size 3 is not a power of two"),
    ((30, 120, 60), "block size 2 does not follow 4"),
    ((0, 4), "BlockSizes value 0 is not a positive node count"),
    ((30, "60"), r"BlockSizes value '60' \(str\)"),
    ((), "non-empty sequence"),
    ((33,), "base_size 33 is larger than the smallest base block"),
])
def test_bad_node_sizes(sizes, match):
    """``BlockSizes`` in nodes as ``topology.conf`` writes them, refused as ``_read_topo_file``
    refuses them (a multiple of the first value, a power of two times it)."""
    with pytest.raises(BlockSizesError, match=match):
        SlurmBlock.from_node_sizes(SwitchTree.uniform((4, 32)), sizes)


def test_node_sizes_of_slurm_test_150_1():
    """``BlockSizes=4,8`` on two blocks of 4 nodes (Slurm's ``test_150_1.py`` configuration) is
    the allocator of the golden cases above."""
    sb = SlurmBlock.from_node_sizes(SwitchTree.uniform((2, 4), names=("block", "node")), (4, 8))
    assert (sb.base_size, sb.block_sizes) == (4, (1, 2))
    assert repr(sb) == repr(_two_blocks())


def test_block_sizes_error_is_a_value_error():
    assert issubclass(BlockSizesError, ValueError)

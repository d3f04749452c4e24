"""SlurmTree: the stateful machine with its oracle, a step-by-step reference model of Slurm's
``topology/tree`` selection to check the fast rule against, golden cases from Slurm's documentation
and the tie rules of its code."""

import copy
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topoalloc.base import Allocator
from topoalloc.testing import allocator_machine, switch_trees
from topoalloc.tree import TreeAllocator, slurm_tree
from topoalloc.tree.slurm_tree import SlurmTree, slurm_tree_oracle
from topologies import SwitchTree, TreeRequest

INF = 1 << 30


# -- a reference model, one step of Slurm's code at a time --------------------------------------------
def reference_select(tree: SwitchTree, free: np.ndarray, n: int) -> tuple[list[int], int] | None:
    """Slurm's ``_eval_nodes_topo`` (``src/plugins/topology/tree/eval_nodes_tree.c``) for ``n`` whole
    nodes of equal weight, modelled literally and slowly on sets: the switch table (every switch
    but a virtual root, in id order) with Slurm's levels (``switch_record_validate``: 0 for a leaf
    switch, else one more than the highest child) and hop distances by Floyd-Warshall over the
    switch graph (infinite across top switches); the top switch loop; the leaf switch loop of
    ``_topo_choose_best_switch`` / ``_topo_compare_switches`` with ``switches_dist`` sums; nodes
    taken in bitmap order; ``_decrement_node_cnt``. Returns ``(node ids, leaf switches used)``."""
    table = [s for s in range(tree.n_switches) if not (tree.virtual_root and s == 0)]
    parent = {s: (int(tree.parent[s]) if tree.parent[s] >= 0 and not (tree.virtual_root and tree.parent[s] == 0)
                  else None) for s in table}
    kids = {s: [c for c in table if parent[c] == s] for s in table}
    nodes = {s: set() for s in table}
    for i in range(tree.size):
        nodes[int(tree.leaf_of[i])].add(i)
    level = {s: (0 if not kids[s] else -1) for s in table}
    while any(v < 0 for v in level.values()):
        for s in table:
            if level[s] < 0 and all(level[c] >= 0 for c in kids[s]):
                level[s] = 1 + max(level[c] for c in kids[s])
                nodes[s] = set().union(*(nodes[c] for c in kids[s]))
    dist = {a: {b: (0 if a == b else 1 if parent[a] == b or parent[b] == a else INF) for b in table} for a in table}
    for k in table:
        for a in table:
            for b in table:
                if dist[a][k] + dist[k][b] < dist[a][b]:
                    dist[a][b] = dist[a][k] + dist[k][b]
    avail = {i for i in range(tree.size) if free[i]}
    top = None
    for s in table:
        if len(nodes[s] & avail) >= n and (top is None or level[s] >= level[top]):
            top = s
    if top is None:
        return None
    sw_nodes = {s: nodes[s] & avail & nodes[top] for s in table}
    cnt = {s: len(sw_nodes[s]) for s in table}
    sums = dict.fromkeys(table, 0)
    rem = n
    taken: list[int] = []
    used = 0

    def compare(i: int, j: int) -> tuple[int, bool]:
        while True:
            i_fit, j_fit = cnt[i] >= rem, cnt[j] >= rem
            if i_fit and j_fit:
                if cnt[i] != cnt[j]:
                    return (1 if cnt[i] < cnt[j] else -1), i_fit
                break
            if i_fit:
                return 1, True
            if j_fit:
                return -1, False
            if parent[i] != parent[j]:
                i, j = parent[i], parent[j]
                continue
            break
        if cnt[i] != cnt[j]:
            return (1 if cnt[i] > cnt[j] else -1), i_fit
        if level[i] != level[j]:
            return (1 if level[i] < level[j] else -1), i_fit
        return 0, i_fit

    while True:
        best = None
        for s in table:
            if level[s] != 0:
                continue
            if best is None or sums[s] == INF or not cnt[s]:  # "if first possibility"
                if cnt[s] and sums[s] < INF:
                    best = s
                continue
            tcs, i_fit = compare(s, best)
            if (sums[s] < sums[best] and i_fit) or (sums[s] == sums[best] and tcs > 0):
                best = s
        if best is None:
            return None
        for b in table:
            sums[b] = INF if INF in (sums[b], dist[best][b]) else sums[b] + dist[best][b]
        used += 1
        for i in sorted(sw_nodes[best]):
            if i in taken:
                continue
            taken.append(i)
            rem -= 1
            if rem == 0:
                return sorted(taken), used
        c = cnt[best]
        x = best
        while x is not None:
            cnt[x] = max(0, cnt[x] - c)
            x = parent[x]


# -- strategies ---------------------------------------------------------------------------------------
def _as_dicts(tree: SwitchTree, prefix: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """A tree as ``from_switches`` input, names prefixed (to join several trees)."""
    name = [f"{prefix}{s}" for s in range(tree.n_switches)]
    switches = {name[s]: [name[c] for c in tree.children[s]] for s in range(tree.n_switches) if tree.children[s]}
    nodes = {name[s]: [f"{prefix}n{i}" for i in range(tree.first[s], tree.stop[s])]
             for s in tree.leaf_switch_ids.tolist()}
    return switches, nodes


@st.composite
def forests(draw: st.DrawFn) -> SwitchTree:
    """Trees of two or three top switches with no common parent (a Slurm file without a root
    switch: ``virtual_root``), each top switch's subtree a random switch tree or one leaf switch."""
    switches: dict[str, list[str]] = {}
    nodes: dict[str, list[str]] = {}
    for k in range(draw(st.integers(2, 3), label="top switches")):
        sub = draw(switch_trees(max_levels=2, max_nodes=20), label=f"top {k}")
        sw, nd = _as_dicts(sub, f"t{k}s")
        switches.update(sw)
        nodes.update(nd)
    tree = SwitchTree.from_switches(switches, nodes)
    assert tree.virtual_root
    return tree


any_tree = st.one_of(switch_trees(max_levels=4, max_nodes=48), forests())

TestSlurmTreeMachine = allocator_machine(SlurmTree, switch_trees()).TestCase
TestSlurmTreeForestMachine = allocator_machine(SlurmTree, forests(), max_examples=20).TestCase


# -- the fast rule is the reference model ----------------------------------------------------------------
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=any_tree, data=st.data())
def test_selection_matches_the_step_by_step_model(tree, data):
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    density = data.draw(st.sampled_from([0.3, 0.6, 0.85, 1.0]), label="density")
    free = np.random.default_rng(seed).random(tree.size) < density
    leaf_free = np.add.reduceat(free.astype(np.int64), tree.first[tree.leaf_switch_ids])
    lo = min(int(leaf_free.max()) + 1, tree.size)
    spread = st.integers(lo, max(int(free.sum()), lo))  # more than any leaf switch has free
    n = data.draw(st.one_of(st.integers(1, tree.size), spread), label="n")
    got = SlurmTree(tree).select(n, free)
    want = reference_select(tree, free, n)
    assert (got is None) == (want is None), (got, want)
    if got is not None:
        assert got[0].tolist() == want[0] and got[1] == want[1]


def _runs_apart() -> SwitchTree:
    """Switch P holds leaf switches p1, p2, then switch Q, then leaf switches p3, p4: two runs of
    P's leaf switches with Q's between them (siblings that are not consecutive in node order)."""
    names = iter(f"n{i}" for i in range(40))
    sizes = {"p1": 3, "p2": 5, "q1": 4, "q2": 2, "q3": 6, "p3": 4, "p4": 3, "r1": 5, "r2": 5}
    return SwitchTree.from_switches(
        {"root": ["P", "R"], "P": ["p1", "p2", "Q", "p3", "p4"], "Q": ["q1", "q2", "q3"], "R": ["r1", "r2"]},
        {leaf: [next(names) for _ in range(k)] for leaf, k in sizes.items()})


wide_trees = st.sampled_from([SwitchTree.uniform((2, 6, 3)), SwitchTree.uniform((3, 4, 2, 2)),
                              SwitchTree.uniform((1, 9, 4)), _runs_apart()])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=st.one_of(wide_trees, any_tree), data=st.data(), numpy_paths=st.booleans())
def test_run_at_a_time_scan_matches_the_step_by_step_model(tree, data, numpy_paths):
    """Step 2 made a run of sibling leaf switches at a time (and from one run alone while it is
    strictly the closest with free nodes and its parent holds the rest) makes the leaf-by-leaf
    scan's choices: jobs spread over many leaf switches of long runs, runs of one parent that are
    not consecutive, and, with ``numpy_paths``, the paths of large trees (the tightest fitting
    leaf switch found in numpy, hop rows not kept as lists) forced on small ones."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    free = np.random.default_rng(seed).random(tree.size) < data.draw(st.sampled_from([0.4, 0.7, 1.0]))
    leaf_free = np.add.reduceat(free.astype(np.int64), tree.first[tree.leaf_switch_ids])
    lo = min(int(leaf_free.max()) + 1, tree.size)
    n = data.draw(st.integers(lo, max(int(free.sum()), lo)), label="n")
    big = {"_SCAN_LEAVES": 0, "_HOP_LIST_ENTRIES": 0} if numpy_paths else {
        "_SCAN_LEAVES": slurm_tree._SCAN_LEAVES, "_HOP_LIST_ENTRIES": slurm_tree._HOP_LIST_ENTRIES}
    with mock.patch.multiple(slurm_tree, **big):
        a = SlurmTree(tree)
        got = a.select(n, free)
    want = reference_select(tree, free, n)
    assert (got is None) == (want is None), (got, want)
    if got is not None:
        assert got[0].tolist() == want[0] and got[1] == want[1]
    assert (a._tables.rhop_lists is None) == numpy_paths


@pytest.mark.parametrize("tree", [SwitchTree.uniform((2, 10, 16)), _runs_apart(), SwitchTree.from_switches(
    {"A": ["a1", "a2", "a3"], "B": ["b1", "b2"]},
    {**{f"a{k}": [f"a{k}n{i}" for i in range(6)] for k in (1, 2, 3)},
     **{f"b{k}": [f"b{k}n{i}" for i in range(9)] for k in (1, 2)}, "solo": [f"s{i}" for i in range(10)]})])
def test_what_ifs_match_the_generic_defaults_on_busy_trees(tree):
    """``allocate_avoiding`` (the placements on one leaf switch each enumerated at once) and
    ``earliest_in`` (the least ``n``-th ready time of a top switch) give exactly what
    :class:`~topoalloc.Allocator`'s generic defaults give, placement by placement and time by time,
    on half-full trees (one with top switches without a common parent)."""
    rng = np.random.default_rng(11)
    N = tree.size
    for _ in range(30):
        a = SlurmTree(tree)
        while a.free > N // 2:
            a.allocate(int(rng.integers(1, max(2, N // 12))))
        b = a.clone()
        avoid = rng.random(N) < rng.choice([0.1, 0.3, 0.6])
        avoid.flags.writeable = bool(rng.integers(2))  # a frozen mask is converted once
        n = int(rng.integers(1, N // 3))
        got, want = a.allocate_avoiding(n, avoid), Allocator.allocate_avoiding(b, n, avoid)
        assert (got is None) == (want is None)
        if got is not None:
            assert got.nodes.tolist() == want.nodes.tolist() and not avoid[got.nodes].any()
        assert a.free_mask().tolist() == b.free_mask().tolist()
        ready = np.where(rng.random(N) < 0.3, -np.inf, rng.integers(1, 40, N).astype(float))  # any ready times
        for m in (n, N // 2, N):
            got_t, want_t = a.earliest_in(m, ready, now=3.0), Allocator.earliest_in(a, m, ready, now=3.0)
            assert (got_t is None) == (want_t is None)
            if got_t is not None:
                assert got_t[0] == want_t[0] and got_t[1].tolist() == want_t[1].tolist()


@settings(max_examples=60, deadline=None)
@given(tree=any_tree, data=st.data())
def test_switches_grant_is_the_plain_selection_on_few_enough_leaf_switches(tree, data):
    """``--switches=N``: the job runs where Slurm's selection puts it if that spans at most ``N``
    leaf switches, else waits (sbatch(1): "the job remains pending until it either finds an
    allocation with desired switch count or the time limit expires")."""
    free = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).random(tree.size) < 0.6
    n = data.draw(st.integers(1, tree.size))
    k = data.draw(st.integers(1, len(tree.leaf_switch_ids)))
    st_ = SlurmTree(tree)
    want = reference_select(tree, free, n)
    got = st_.place_in(TreeRequest(n, switches=k), free)
    if want is None or want[1] > k:
        assert got is None
    else:
        assert got.tolist() == want[0]
    relaxed = st_.place_in(TreeRequest(n, switches=k, wait=30.0).relaxed(), free)
    assert (relaxed is None) == (want is None)


# -- golden cases ---------------------------------------------------------------------------------------
def _doc_example_1() -> SwitchTree:
    """Slurm ``doc/html/topology.shtml``, first example: eight nodes, every switch with two children."""
    return SwitchTree.from_switches(
        {"s6": ["s4", "s5"], "s4": ["s0", "s1"], "s5": ["s2", "s3"]},
        {f"s{k}": [f"tux{2 * k}", f"tux{2 * k + 1}"] for k in range(4)},
    )


def test_doc_example_lowest_switch_then_best_fit_leaves():
    """Slurm ``doc/html/topology.shtml`` (tree topology): "identify the lowest level switch in the
    hierarchy that can satisfy a job's request and then allocate resources on its underlying leaf
    switches using a best-fit algorithm", on the page's first topology.conf (s0-s3 two nodes each,
    s4 over s0-s1, s5 over s2-s3, s6 over s4-s5)."""
    a = SlurmTree(_doc_example_1())
    names = a.topology.node_names
    got = [[names[i] for i in a.allocate(k).nodes] for k in (2, 1, 1, 3)]
    assert got == [
        ["tux0", "tux1"],  # a leaf switch holds it; all tie: the first
        ["tux2"],  # s1, s2, s3 have two free nodes each: the first
        ["tux3"],  # best fit: s1 has one left
        ["tux4", "tux5", "tux6"],  # no leaf switch holds 3; s5 (four free) does: its leaves
    ]
    assert a.allocate(2) is None  # one node left


def test_doc_no_job_spans_switches_without_a_common_parent():
    """Slurm ``doc/html/topology.shtml``: with the top switch line of the second example removed,
    "no job will span leaf switches without a common parent [...] no job will span more than four
    compute nodes on any single leaf switch"."""
    tree = SwitchTree.from_switches({}, {f"s{k}": [f"tux{i}" for i in range(4 * k, 4 * k + 4)] for k in range(4)})
    assert tree.virtual_root
    a = SlurmTree(tree)
    assert a.allocate(5) is None
    assert a.place_in(5, np.ones(16, dtype=bool)) is None
    assert a.allocate(TreeRequest(5, preferred="node")) is None
    assert a.allocate(TreeRequest(8, segment=4)) is None
    got = a.allocate(4)
    assert a.topology.leaf_switches_spanned(got.nodes) == 1
    assert a.allocate(TreeRequest(2, segment=1)).nodes.tolist() in ([0, 1], [4, 5], [8, 9])


def _mask(size: int, busy: list[int]) -> np.ndarray:
    free = np.ones(size, dtype=bool)
    free[busy] = False
    return free


def _two_blocks(first: str) -> tuple[SwitchTree, np.ndarray]:
    """Block X with leaf switches of 3, 1 and 1 free nodes, block Y with 2 and 2 (four nodes per
    leaf switch), ``first`` of the two first in the table."""
    x = {"x1": ["a0", "a1", "a2", "a3"], "x2": ["b0", "b1", "b2", "b3"], "x3": ["c0", "c1", "c2", "c3"]}
    y = {"y1": ["d0", "d1", "d2", "d3"], "y2": ["e0", "e1", "e2", "e3"]}
    blocks = {"X": list(x), "Y": list(y)}
    order = ["X", "Y"] if first == "X" else ["Y", "X"]
    tree = SwitchTree.from_switches({"root": order, **blocks}, {**x, **y} if first == "X" else {**y, **x})
    busy = {"a3", "b1", "b2", "b3", "c1", "c2", "c3", "d2", "d3", "e2", "e3"}
    return tree, _mask(tree.size, [i for i, nm in enumerate(tree.node_names) if nm in busy])


def test_doc_best_fit_may_use_more_than_the_optimum_number_of_switches():
    """Slurm ``doc/html/topology.shtml``: "slurm uses a best-fit algorithm on the currently available
    resources. This may result in an allocation with more than the optimum number of switches", and
    sbatch(1) ``--switches``: "If Slurm finds an allocation containing more switches than the count
    specified, the job remains pending". Five nodes: block X (3 + 1 + 1 free) is the lowest switch
    that holds them, so Slurm takes its three leaf switches, though Y's two nodes and X's three
    would need two: ``switches=2`` waits; relaxed after the wait, the job runs on three."""
    tree, free = _two_blocks("X")
    a = SlurmTree(tree)
    plain = a.place_in(5, free)
    assert [tree.node_names[i] for i in plain] == ["a0", "a1", "a2", "b0", "c0"]
    assert a.place_in(TreeRequest(5, switches=2, wait=300.0), free) is None
    assert a.place_in(TreeRequest(5, switches=3), free).tolist() == plain.tolist()
    assert a.place_in(TreeRequest(5, switches=2, wait=300.0).relaxed(), free).tolist() == plain.tolist()
    assert not slurm_tree_oracle(a, free, TreeRequest(5, switches=2))


def test_a_farther_leaf_that_completes_the_job_beats_nearer_ones():
    """``_topo_choose_best_switch`` (eval_nodes_tree.c) replaces the best leaf switch by a closer one
    only "if closer and fit request": with block Y first in the table, after X's fullest leaf (3 of
    5 nodes) the scan starts at Y's leaf with 2 free nodes, which completes the job, and X's leaves
    with one node each, closer but not completing it, do not replace it. The grant spans the root
    although block X alone could hold the job (same free nodes as the previous case, Y listed
    first): the documented "lowest level switch" is where the job starts, not a bound."""
    tree, free = _two_blocks("Y")
    got = SlurmTree(tree).place_in(5, free)
    assert [tree.node_names[i] for i in got] == ["d0", "d1", "a0", "a1", "a2"]
    assert tree.common_switch(got) == 0
    x = tree.switch_names.index("X")
    assert free[tree.first[x]:tree.stop[x]].sum() == 5


# -- tie rules -----------------------------------------------------------------------------------------
def test_tightest_fitting_leaf_then_lowest_id_then_lowest_free_ids():
    """``_topo_compare_switches``: both fit -> fewer free nodes wins, equal -> the earlier leaf stays;
    nodes are then taken in bitmap order."""
    t = SwitchTree.uniform((4, 4), names=("rack", "host"))
    a = SlurmTree(t)
    free = _mask(16, [0, 2, 5, 6, 12])  # free per rack: 2, 2, 4, 3
    assert a.place_in(2, free).tolist() == [1, 3]  # racks 0 and 1 tie at 2: the first, its free ids
    assert a.place_in(3, free).tolist() == [13, 14, 15]  # rack 3 (3 free) is tighter than rack 2 (4)
    assert a.place_in(4, free).tolist() == [8, 9, 10, 11]


def test_no_leaf_holds_it_fullest_leaf_of_the_tightest_lowest_switch_first():
    """No leaf switch fits: the comparison walks up to the blocks; the block with the fewest free
    nodes that fit wins, inside it the leaf with most free nodes (neither fits, same parent: more
    nodes wins), used whole; then the nearest leaf that completes the job."""
    t = SwitchTree.uniform((3, 2, 4), names=("block", "rack", "host"))
    # free per rack (4 nodes each): block0 3 + 3, block1 4 + 1, block2 4 + 4
    free = _mask(24, [0, 4, 13, 14, 15])
    a = SlurmTree(t)
    got = a.place_in(5, free)
    assert got.tolist() == [8, 9, 10, 11, 12]  # block1 (5 free) is the tightest that holds 5
    assert a.place_in(6, free).tolist() == [1, 2, 3, 5, 6, 7]  # block0 (6) is tighter than block2 (8)
    assert a.place_in(7, free).tolist() == [16, 17, 18, 19, 20, 21, 22]  # only block2 holds 7: rack 4 whole
    # the descent is by child, not by leaf: block 0 (3 + 2 free) beats block 1 (4 + 0) under the root,
    # so the rack with 3 is used first although block 1's rack has 4
    t = SwitchTree.uniform((2, 2, 4))
    free = _mask(16, [3, 6, 7, 12, 13, 14, 15])
    assert SlurmTree(t).place_in(7, free).tolist() == [0, 1, 2, 4, 5, 8, 9]


def test_tightest_completing_leaf_among_siblings_apart_in_the_table():
    """``_topo_compare_switches`` (eval_nodes_tree.c) on two leaf switches of one parent stops at
    once (same parent) and, when both hold the rest, keeps the one with fewer free nodes. Root over
    leaf switches a and b (two nodes each), switch C (over c1, one node) and leaf switch d (one
    node): three nodes take a whole (no leaf switch holds three; a and b tie, the first wins),
    then the last node goes to d rather than b -- both are two hops from a and hold it, d more
    tightly -- though C comes between b and d in the table."""
    tree = SwitchTree.from_switches({"root": ["a", "b", "C", "d"], "C": ["c1"]},
                                    {"a": ["a0", "a1"], "b": ["b0", "b1"], "c1": ["c0"], "d": ["d0"]})
    got = SlurmTree(tree).place_in(3, np.ones(6, dtype=bool))
    assert [tree.node_names[i] for i in got] == ["a0", "a1", "d0"]
    assert reference_select(tree, np.ones(6, dtype=bool), 3) == (got.tolist(), 2)


def _uneven(a1: int, c1: int) -> SwitchTree:
    """Root R over blocks A and B; A holds leaf switch a1 and switch C (over leaf switch c1), so A is
    of level 2; B holds leaf switches b1, b2 of two nodes each (level 1)."""
    names = iter(f"n{i}" for i in range(a1 + c1 + 4))
    return SwitchTree.from_switches(
        {"R": ["A", "B"], "A": ["a1", "C"], "C": ["c1"], "B": ["b1", "b2"]},
        {"a1": [next(names) for _ in range(a1)], "c1": [next(names) for _ in range(c1)],
         "b1": [next(names), next(names)], "b2": [next(names), next(names)]},
    )


def test_equal_counts_go_to_the_lower_level():
    """``_topo_compare_switches`` ends a tie in free nodes with the levels: "if (level[i] < level[j])
    return 1". Blocks A (level 2) and B (level 1) with four free nodes each. Five nodes: neither
    block fits and they share the root, so the tie between them is broken by level: B's first leaf
    switch is taken first, then A's (it fits the three left, B does not), then B's second for the
    last node. Four nodes: both blocks fit with the same count: again B."""
    free = np.ones(8, dtype=bool)
    assert SlurmTree(_uneven(2, 2)).place_in(5, free).tolist() == [0, 1, 4, 5, 6]
    assert SlurmTree(_uneven(3, 1)).place_in(4, free).tolist() == [4, 5, 6, 7]


def test_virtual_root_highest_level_top_switch_last_on_ties():
    """The top switch loop in ``_eval_nodes_topo`` keeps a switch of level ``>=`` the best so far:
    the highest-level top switch that holds the job, the last in the table among equals."""
    tree = SwitchTree.from_switches(
        {"big": ["l1", "l2"]},
        {"l1": ["a", "b"], "l2": ["c", "d"], "solo1": ["e", "f", "g"], "solo2": ["h", "i", "j"]},
    )
    assert tree.virtual_root
    a = SlurmTree(tree)
    names = tree.node_names
    assert [names[i] for i in a.place_in(3, np.ones(tree.size, dtype=bool))] == ["a", "b", "c"]
    assert [names[i] for i in a.place_in(1, np.ones(tree.size, dtype=bool))] == ["a"]  # "big" is higher
    free = _mask(tree.size, [names.index("a"), names.index("c")])
    assert [names[i] for i in a.place_in(3, free)] == ["h", "i", "j"]  # "big" has 2: the last level-0 top
    assert a.place_in(4, free) is None


def test_switches_placement_does_not_grow_with_the_free_set_so_earliest_in_scans_times_in_order():
    """One more free node (node 1) makes block 0 the tightest block holding five nodes, whose three
    racks Slurm then uses: ``switches=2`` is met on the smaller free set and not on the larger.
    ``earliest_in`` therefore tries the ready times in order (the generic default) instead of
    bisecting over them, which would answer 2.0."""
    t = SwitchTree.uniform((2, 3, 4))
    a = SlurmTree(t)
    small = np.zeros(24, dtype=bool)
    small[[3, 5, 7, 10, 12, 13, 14, 15, 16, 17, 18]] = True
    large = small.copy()
    large[1] = True
    r = TreeRequest(5, switches=2)
    assert a.place_in(r, small).tolist() == [12, 13, 14, 15, 16]
    assert a.place_in(r, large) is None and a.select(5, large)[1] == 3
    ready = np.where(small, 0.0, 2.0)
    ready[1] = 1.0
    t0, nodes = a.earliest_in(r, ready)
    assert t0 == 0.0 and nodes.tolist() == [12, 13, 14, 15, 16]
    assert TreeAllocator.earliest_in(a, r, ready)[0] == 2.0
    assert a.earliest_in(5, ready)[0] == 0.0


def test_tables_are_shared_by_clones_and_masks_are_checked():
    a = SlurmTree(SwitchTree.uniform((2, 4)))
    a.allocate(3)
    twin = a.clone()
    assert twin._tables is a._tables and twin.free_mask().tolist() == a.free_mask().tolist()
    with pytest.raises(ValueError, match="free mask of 5 entries"):
        a.select(2, np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match="at least 1 node, got 0"):
        a.select(0, np.ones(8, dtype=bool))


def test_large_tree_without_the_hop_matrix_matches():
    """Above 1,024 leaf switches the hops to the runs are computed per chosen leaf instead of stored."""
    t = SwitchTree.uniform((2, 520, 2))
    a = SlurmTree(t)
    assert a._tables.rhops is None
    free = np.random.default_rng(5).random(t.size) < 0.5
    small = SlurmTree(t)
    small._tables = copy.copy(a._tables)
    small._tables.rhops = a._tables._run_hop_rows(np.arange(1040))
    for n in (3, 40, 700):
        assert a.select(n, free)[0].tolist() == small.select(n, free)[0].tolist()

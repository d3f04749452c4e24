"""KueueTAS: the stateful machine with its oracle (both profiles), a literal reference of Kueue's
procedure, golden cases from Kueue's own test tables, and the errors.

Golden cases are transcribed from ``TestFindTopologyAssignments`` in
``pkg/cache/scheduler/tas_cache_test.go`` of ``kubernetes-sigs/kueue`` (the LeastFreeCapacity ones
from the last version of that file with the ``TASProfileLeastFreeCapacity`` gate, the parent of
commit caaccdffb6, "Remove deprecated TASProfileLeastFreeCapacity feature gate"). Kueue's hosts
there have a CPU capacity and its pods ask for one CPU; a one-pod-per-node tree stands for them as
follows. Where every host holds one pod, a host is a node. Where hosts hold several, a host is a
leaf switch with one node per pod it holds (a ``slot`` level below the hosts). Where the topology's
lowest level is the rack (no host level), a rack is a leaf switch with one node per pod. Kueue
answers with pod counts per domain of its lowest level, compared here with the grant's nodes per
leaf switch; the translation is exact for the chosen cases because each lowest-level domain Kueue
picks is used whole, or is the last picked one in tree order. Names are listed in Kueue's order
(label values compared as strings), which is the tree order ties follow here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import Allocator
from topoalloc.errors import UnknownOptionError, UnsupportedTopologyError
from topoalloc.testing import allocator_machine, switch_trees
from topoalloc.tree.kueue import PROFILES, KueueTAS
from topologies import Flat, RequestError, RequestSizeError, RequestTypeError, SwitchTree, TreeRequest


def kueue_lfc(tree: SwitchTree) -> KueueTAS:
    return KueueTAS(tree, profile="LeastFreeCapacity")


TestKueueBestFitMachine = allocator_machine(KueueTAS, switch_trees()).TestCase
TestKueueLeastFreeCapacityMachine = allocator_machine(kueue_lfc, switch_trees()).TestCase


# ---------------------------------------------------------------------------------------------
# a literal reference: Kueue's procedure on domain objects, one pod per node
class _Domain:
    def __init__(self, first: int, stop: int, count: int) -> None:
        self.first, self.stop, self.count = first, stop, count
        self.children: list[_Domain] = []


def kueue_reference(tree: SwitchTree, free: np.ndarray, request: Any, profile: str) -> list[int] | None:
    """Kueue's ``findTopologyAssignment`` for ``request`` on the ``free`` nodes, written after the Go
    code's structure: Kueue's levels are the tree's depths 1 .. nodes (no root level: a preferred
    request that fits in no top domain is split across them by ``findLevelWithFitDomains``), the
    domains of a level sorted by ``sortedDomains`` (count descending for BestFit, ascending for
    LeastFreeCapacity, then the count ascending, then the position), ``findBestFitDomain`` and
    ``updateCountsToMinimumGeneric`` as loops. A request at the root's level (no Kueue counterpart)
    descends from the root. Slow; for small trees."""
    D = len(tree.levels) - 1
    if isinstance(request, TreeRequest) and request.level is not None:
        n, start, required, unconstrained = request.count, tree.level_depth(request.level), \
            request.required is not None, False
    else:
        n = request.count if isinstance(request, TreeRequest) else int(request)
        start, required, unconstrained = D, False, True
    lfc = profile == "LeastFreeCapacity" or (profile == "Mixed" and unconstrained)
    levels: dict[int, list[_Domain]] = {}
    for d in range(0, D + 1):
        first, stop = tree.domains(d)
        levels[d] = [_Domain(a, b, int(free[a:b].sum())) for a, b in zip(first.tolist(), stop.tolist(), strict=True)]
    for d in range(D):
        for parent in levels[d]:
            parent.children = [c for c in levels[d + 1] if parent.first <= c.first < parent.stop]

    def ordered(doms: list[_Domain]) -> list[_Domain]:
        return sorted(doms, key=lambda x: (x.count if lfc else -x.count, x.count, x.first))

    def best_fit(doms: list[_Domain], need: int) -> _Domain:
        best = None
        for x in doms:
            if x.count >= need and (best is None or x.count < best.count):
                best = x
        return best if best is not None else doms[0]

    def update_counts(doms: list[_Domain], need: int) -> list[_Domain]:
        out = []
        for i, x in enumerate(doms):
            if not lfc and x.count >= need:
                x = best_fit(doms[i:], need)
            if x.count >= need:
                x.count = need
                return [*out, x]
            need -= x.count
            out.append(x)
        raise AssertionError("the pooled domains cannot hold the count")

    def find_level(d: int) -> tuple[int, list[_Domain]] | None:
        doms = ordered(levels[d])
        top = doms[0]
        if not lfc and top.count >= n:
            top = best_fit(doms, n)
        if lfc:
            for x in doms:
                if x.count >= n:
                    return d, [x]
            if required:
                return None
        if top.count < n:
            if required:
                return None
            if d > 1 and not unconstrained:
                return find_level(d - 1)
            out, need = [], n
            for i, x in enumerate(doms):
                if need <= 0:
                    break
                if not lfc and x.count >= need:
                    x = best_fit(doms[i:], need)
                out.append(x)
                need -= x.count
            return (d, out) if need <= 0 else None
        return d, [top]

    if start == 0:
        found = (0, levels[0]) if levels[0][0].count >= n else None
    else:
        found = find_level(start)
    if found is None:
        return None
    d, chosen = found
    chosen = update_counts(chosen, n)
    for _ in range(d, D):
        chosen = update_counts(ordered([c for x in chosen for c in x.children]), n)
    return sorted(x.first for x in chosen if x.count > 0)


def _fits(tree: SwitchTree, request: Any) -> bool:
    try:
        tree.validate_request(request)
        return True
    except RequestError:
        return False


@st.composite
def _cases(draw: st.DrawFn) -> tuple[SwitchTree, np.ndarray, Any]:
    tree = draw(switch_trees(max_levels=4, max_nodes=48))
    density = draw(st.sampled_from([0.3, 0.6, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    free = np.random.default_rng(seed).random(tree.size) < density
    n = draw(st.integers(1, tree.size))
    level = draw(st.sampled_from(tree.levels))
    kind = draw(st.sampled_from(["plain", "required", "preferred"]))
    request = n if kind == "plain" else TreeRequest(n, **{kind: level})
    if not _fits(tree, request):
        request = TreeRequest(n, preferred=level)
    return tree, free, request


@settings(max_examples=400, deadline=None)
@given(_cases(), st.sampled_from(PROFILES), st.sampled_from([0, 4, 64]))
def test_matches_the_literal_reference(case, profile, small):
    """The allocator's choice is the reference's, for every request kind and profile, with the
    descent's pooled domains sorted in Python (up to ``small`` of them) or in numpy."""
    tree, free, request = case
    k = KueueTAS(tree, profile)
    k._small = small
    got = k.place_in(request, free)
    want = kueue_reference(tree, free, request, profile)
    assert (None if got is None else got.tolist()) == want


@settings(max_examples=100, deadline=None)
@given(_cases())
def test_mixed_chooses_as_best_fit(case):
    """With one pod per node, Kueue's default profile (LeastFreeCapacity for unconstrained
    requests only) makes BestFit's choices."""
    tree, free, request = case
    a = KueueTAS(tree, "Mixed").place_in(request, free)
    b = KueueTAS(tree, "BestFit").place_in(request, free)
    assert (a is None and b is None) or np.array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# golden cases
def _tree(spec: dict, levels: tuple[str, ...]) -> SwitchTree:
    """A tree from nested ``{name: {...} | pods}``: a dict holds switches, an int is a leaf switch
    with that many nodes (named ``<leaf>/<i>``); the top names hang under a root ``dc``."""
    switches: dict[str, list[str]] = {"dc": []}
    nodes: dict[str, list[str]] = {}

    def add(parent: str, sub: dict) -> None:
        for name, below in sub.items():
            full = f"{parent}/{name}" if parent != "dc" else name
            switches[parent].append(full)
            if isinstance(below, dict):
                switches[full] = []
                add(full, below)
            else:
                nodes[full] = [f"{full}/{i}" for i in range(below)]

    add("dc", spec)
    return SwitchTree.from_switches(switches, nodes, levels=("dc", *levels))


def _per_leaf(tree: SwitchTree, nodes: Any) -> dict[str, int]:
    """Nodes of a grant per leaf switch, by name: Kueue's pod counts per lowest-level domain."""
    return dict(Counter(tree.switch_names[s] for s in tree.leaf_of[np.asarray(nodes)].tolist()))


#: Kueue's ``defaultNodes`` on the two-level topology (block, rack): the racks' pod capacities.
DEFAULT_TWO_LEVELS = {"b1": {"r1": 1, "r2": 3}, "b2": {"r1": 1, "r2": 2}}
#: Kueue's ``defaultNodes`` on the three-level topology, hosts holding 1 pod (x4: 2), as leaf switches.
DEFAULT_THREE_LEVELS = {"b1": {"r1": {"x3": 1}, "r2": {"x1": 1, "x5": 1, "x6": 1}},
                        "b2": {"r1": {"x2": 1}, "r2": {"x4": 2}}}


def _place(spec: dict, levels: tuple[str, ...], request: Any, profile: str = "BestFit") -> dict[str, int]:
    tree = _tree(spec, levels)
    got = KueueTAS(tree, profile).allocate(request)
    assert got is not None
    return _per_leaf(tree, got.nodes)


def test_golden_block_required_binary_trees():
    """tas_cache_test.go, "block required; 4 pods fit into one host each; BestFit" (binaryTreesNodes,
    one pod per host): the whole of b1, x3, x5, x1, x6 (both blocks fit; the first wins the tie).
    Also "stable tie break on identical nodes: TASBalancedPlacement disabled": a host required for
    one pod takes x1, not x2 -- Kueue by name whatever the order the nodes come in, here by tree
    order, the hosts being listed by name."""
    hosts = {"b1": {"r1": ["x3", "x5"], "r2": ["x1", "x6"]}, "b2": {"r1": ["x2", "x4"], "r2": ["x7", "x8"]}}
    switches = {"dc": ["b1", "b2"], **{b: [f"{b}-{r}" for r in rs] for b, rs in hosts.items()}}
    nodes = {f"{b}-{r}": xs for b, rs in hosts.items() for r, xs in rs.items()}
    tree = SwitchTree.from_switches(switches, nodes, levels=("dc", "block", "rack", "host"))
    got = KueueTAS(tree).allocate(TreeRequest(4, required="block"))
    assert [tree.node_names[i] for i in got.nodes] == ["x3", "x5", "x1", "x6"]
    pair = SwitchTree.from_switches({"dc": ["b1"], "b1": ["r1"]}, {"r1": ["x1", "x2"]},
                                    levels=("dc", "block", "rack", "host"))
    one = KueueTAS(pair).allocate(TreeRequest(1, required="host"))
    assert [pair.node_names[i] for i in one.nodes] == ["x1"]


@pytest.mark.parametrize(("count", "level", "kind", "want"), [
    (2, "rack", "required", {"b2/r2": 2}),  # "rack required; multiple Pods fit in some racks; BestFit"
    (1, "block", "required", {"b2/r1": 1}),  # "block required; single Pod fits in a block and a single rack; BestFit"
    (4, "block", "required", {"b1/r1": 1, "b1/r2": 3}),  # "block required; Pods fit in a block spread across two
    # racks; BestFit"
    (4, "rack", "preferred", {"b1/r1": 1, "b1/r2": 3}),  # "rack preferred; but only block can accommodate the
    # workload; BestFit"
    (6, "rack", "preferred", {"b1/r1": 1, "b1/r2": 3, "b2/r2": 2}),  # "rack preferred; but only multiple blocks
    # can accommodate the workload; BestFit"
    (6, "block", "preferred", {"b1/r1": 1, "b1/r2": 3, "b2/r2": 2}),  # "block preferred; but only multiple blocks
    # can accommodate the workload; BestFit"
])
def test_golden_default_nodes_two_levels(count, level, kind, want):
    """tas_cache_test.go, TestFindTopologyAssignments on ``defaultNodes`` with ``defaultTwoLevels``
    (block, rack: b1/r1 holds 1 pod, b1/r2 3, b2/r1 1, b2/r2 2), BestFit; each row names its case."""
    assert _place(DEFAULT_TWO_LEVELS, ("block", "rack", "host"), TreeRequest(count, **{kind: level})) == want


def test_golden_block_preferred_fits_in_two_blocks():
    """tas_cache_test.go, "block preferred; Pods fit in 2 blocks; BestFit": one level (blocks b1, b2,
    b3 holding 2, 1 and 4 pods), 5 pods -- b3 whole, then the last pod on the tightest block that
    holds it, b2 (not b1)."""
    got = _place({"b1": 2, "b2": 1, "b3": 4}, ("block", "host"), TreeRequest(5, preferred="block"))
    assert got == {"b3": 4, "b2": 1}


def test_golden_fewest_racks_before_fewest_hosts():
    """tas_cache_test.go, "minimize the number of used racks before optimizing the number of nodes;
    BestFit": b1 with r1 (x3: 2 pods), r2 (x5: 2), r3 (x1, x2, x4, x6: 1 each); 4 pods with the
    block required go to r3's four hosts, one rack rather than two hosts of two racks."""
    spec = {"b1": {"r1": {"x3": 2}, "r2": {"x5": 2}, "r3": {"x1": 1, "x2": 1, "x4": 1, "x6": 1}}}
    got = _place(spec, ("block", "rack", "host", "slot"), TreeRequest(4, required="block"))
    assert got == {"b1/r3/x1": 1, "b1/r3/x2": 1, "b1/r3/x4": 1, "b1/r3/x6": 1}


def test_golden_node_that_holds_all_pods():
    """tas_cache_test.go, "choose the node that can accommodate all Pods" (BestFit): r1 with x3 (2
    pods), x5 and x1 (1 each); 2 pods with the block required go to x3 alone. The same hosts under
    TASProfileLeastFreeCapacity, "minimize resource fragmentation; LeastFreeCapacityFit": x1 and x5,
    one pod each, keeping x3 free."""
    spec = {"b1": {"r1": {"x1": 1, "x3": 2, "x5": 1}}}
    levels = ("block", "rack", "host", "slot")
    assert _place(spec, levels, TreeRequest(2, required="block")) == {"b1/r1/x3": 2}
    assert _place(spec, levels, TreeRequest(2, required="block"), "LeastFreeCapacity") == {
        "b1/r1/x1": 1, "b1/r1/x5": 1}


def test_golden_least_free_capacity():
    """tas_cache_test.go before commit caaccdffb6 (TASProfileLeastFreeCapacity):
    "rack preferred; multiple Pods fits in multiple racks; LeastFreeCapacityFit" (defaultNodes on
    block, rack; 2 pods): b2/r2 alone, the tightest rack that fits;
    "block required; single Pod fits in a block; LeastFreeCapacityFit" (defaultNodes on block, rack,
    host; 1 pod): x2; "block required; two Pods fits in a block; LeastFreeCapacityFit": x2 and x4,
    one pod each (b2 is the tightest block, its racks are filled from the smallest)."""
    lfc = "LeastFreeCapacity"
    assert _place(DEFAULT_TWO_LEVELS, ("block", "rack", "host"), TreeRequest(2, preferred="rack"), lfc) == {
        "b2/r2": 2}
    three = ("block", "rack", "host", "slot")
    assert _place(DEFAULT_THREE_LEVELS, three, TreeRequest(1, required="block"), lfc) == {"b2/r1/x2": 1}
    assert _place(DEFAULT_THREE_LEVELS, three, TreeRequest(2, required="block"), lfc) == {
        "b2/r1/x2": 1, "b2/r2/x4": 1}
    # BestFit on the same: b2 too (the tightest block), then its fullest rack, r2 (x4, 2 pods)
    assert _place(DEFAULT_THREE_LEVELS, three, TreeRequest(2, required="block")) == {"b2/r2/x4": 2}


def test_golden_kep_example_best_fit():
    """KEP 2724, "Computing the assignment", example: a rack whose four nodes hold 3, 3, 2 and 1
    pods; BestFit places 7 pods on the two 3-pod nodes and then on the node holding exactly 1."""
    spec = {"b1": {"r1": {"h1": 3, "h2": 3, "h3": 2, "h4": 1}}}
    got = _place(spec, ("block", "rack", "host", "slot"), TreeRequest(7, required="rack"))
    assert got == {"b1/r1/h1": 3, "b1/r1/h2": 3, "b1/r1/h4": 1}


def test_golden_required_rack_does_not_fit():
    """tas_cache_test.go, "rack required; too many pods to fit in any rack; BestFit" (defaultNodes on
    block, rack): 4 pods, the largest rack holds 3. Kueue answers "allows to fit only 3 out of 4
    pod(s)"; the tree refuses the request outright (no rack has 4 nodes). Once a node of b1/r2 is
    busy, 3 pods with a rack required are not placed either."""
    tree = _tree(DEFAULT_TWO_LEVELS, ("block", "rack", "host"))
    k = KueueTAS(tree)
    with pytest.raises(RequestSizeError, match="4 nodes required in one 'rack' domain, but the largest has 3"):
        k.allocate(TreeRequest(4, required="rack"))
    assert k.allocate(2).nodes.tolist() == [0, 1]  # b1/r1 and one node of b1/r2
    assert k.allocate(TreeRequest(3, required="rack")) is None
    assert k.allocate(TreeRequest(2, required="rack")).nodes.tolist() == [2, 3]  # b1/r2 before b2/r2 (ties)
    assert k.allocate(TreeRequest(2, required="rack")).nodes.tolist() == [5, 6]
    assert k.allocate(TreeRequest(2, required="rack")) is None and k.free == 1


# ---------------------------------------------------------------------------------------------
# behaviour
def test_plain_count_is_unconstrained_lowest_free_ids():
    """KEP 2724, "Implicit defaulting of TAS annotations": a PodSet without annotation is
    unconstrained at the lowest level; one pod per host takes the lowest free ids, whatever the
    racks, under every profile."""
    t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    for profile in PROFILES:
        k = KueueTAS(t, profile)
        a = k.allocate(2)
        k.allocate(3)
        k.release(a)
        assert k.allocate(7).nodes.tolist() == [0, 1, 5, 6, 7, 8, 9]


def test_best_fit_and_least_free_capacity_differ_in_the_descent():
    """Block b0 (7 free nodes, the tightest block holding 5; b1 has 12) has racks with 1, 2 and 4
    free nodes: BestFit takes the 4-node rack whole and then the 1-node rack (the fewest racks, the
    tightest last one); LeastFreeCapacity fills the 1- and 2-node racks, then 2 nodes of the
    4-node rack."""
    t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    free = np.ones(t.size, dtype=bool)
    free[[1, 2, 3, 6, 7]] = False  # rack0: 1 free, rack1: 2 free, rack2: 4 free
    req = TreeRequest(5, required="block")
    assert KueueTAS(t).place_in(req, free).tolist() == [0, 8, 9, 10, 11]
    assert KueueTAS(t, "LeastFreeCapacity").place_in(req, free).tolist() == [0, 4, 5, 8, 9]


def test_descent_pools_children_as_kueue_does():
    """The pooled descent: no rack holds 5, the block does; its racks are taken fullest first
    (rack1, 4 free) and then the tightest that holds the last one (rack0, 3 free; rack2 has
    none) -- 4 + 1 at the rack level. The node step then takes the lowest 5 free ids of both
    racks, 3 in rack0 and 2 in rack1: Kueue with a host level of one-pod hosts does the same."""
    t = SwitchTree.uniform((1, 3, 4), names=("block", "rack", "host"))
    free = np.zeros(t.size, dtype=bool)
    free[[0, 1, 2, 4, 5, 6, 7]] = True
    req = TreeRequest(5, preferred="rack")
    got = KueueTAS(t).place_in(req, free)
    assert got.tolist() == [0, 1, 2, 4, 5]
    assert kueue_reference(t, free, req, "BestFit") == got.tolist()


def test_preferred_splits_over_fewest_blocks():
    """No rack and no block holds 10: BestFit takes the fullest block, b1 (7 free), then the tightest
    block holding the other 3, b0 (5; b2 has 6) -- two blocks, the fewest. Their racks are then
    pooled and taken fullest first (rack1 of b0 and rack3 of b1, 4 each) and the tightest holding
    the last 2 (rack2, 3 free; rack0 has 1)."""
    t = SwitchTree.uniform((3, 2, 4), names=("block", "rack", "host"))
    free = np.ones(t.size, dtype=bool)
    free[[0, 1, 2]] = False  # b0: 5 free (rack0 1, rack1 4)
    free[[8]] = False  # b1: 7 free (rack2 3, rack3 4)
    free[[16, 17]] = False  # b2: 6 free (rack4 2, rack5 4)
    got = KueueTAS(t).place_in(TreeRequest(10, preferred="rack"), free)
    assert _per_leaf(t, got) == {"rack1": 4, "rack2": 3, "rack3": 3}
    assert KueueTAS(t).place_in(TreeRequest(19, preferred="rack"), free) is None


WHAT_IF_TREES = [SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host")),
                 SwitchTree.uniform((3, 4, 5), names=("block", "rack", "host")),
                 SwitchTree([-1, 0, 1, 1, 0, 4, 4, 4, 0], [0, 0, 5, 3, 0, 2, 7, 1, 6])]


def _busy(k: KueueTAS, rng: np.random.Generator, steps: int = 30) -> KueueTAS:
    """``k`` after random plain grants and releases (fragmented free ids)."""
    live: list = []
    for _ in range(int(rng.integers(0, steps + 1))):
        if live and rng.random() < 0.4:
            k.release(live.pop(int(rng.integers(len(live)))))
        else:
            got = k.allocate(int(rng.integers(1, 9)))
            if got is not None:
                live.append(got)
    return k


@pytest.mark.parametrize("profile", ["BestFit", "LeastFreeCapacity"])
def test_allocate_avoiding_is_the_generic_search(profile):
    """Allocator.allocate_avoiding's definition (the placements made one after another while the
    earlier ones are held, until one avoids the mask): for a plain count, the free ids n at a
    time, lowest first (one pass); for required and preferred counts, the mask search. Same
    grant and free nodes as the generic default."""
    rng = np.random.default_rng(8)
    for case in range(150):
        t = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        k = _busy(KueueTAS(t, profile), rng)
        n = int(rng.integers(1, 12))
        level = t.levels[int(rng.integers(1, len(t.levels) - 1))]
        request = [n, TreeRequest(n), TreeRequest(min(n, 3), required=level), TreeRequest(n, preferred=level)][case % 4]
        try:
            k.validate(request)
        except RequestError:  # no domain of the level holds the count
            request = n
        avoid = rng.random(t.size) < rng.choice([0.1, 0.4, 0.8])
        if rng.random() < 0.5:  # a reservation-like block of ids
            lo = int(rng.integers(t.size))
            avoid[:] = False
            avoid[lo:lo + int(rng.integers(1, t.size))] = True
        fast, generic = k.clone(), k.clone()
        got, want = fast.allocate_avoiding(request, avoid), Allocator.allocate_avoiding(generic, request, avoid)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got.nodes.tolist() == want.nodes.tolist() and got.request == want.request, (case, request)
        assert fast.free_mask().tolist() == generic.free_mask().tolist()


def test_allocate_avoiding_plain_takes_the_next_lowest_ids():
    """Allocator.allocate_avoiding's definition with the plain-count rule (KEP 2724, implicit
    defaulting: the lowest free ids): 3 nodes avoiding node 4 pass [0, 1, 2] (clean: taken) --
    and avoiding node 1 pass [0, 1, 2] (held) and take [3, 4, 5] unless 4 is avoided too, then
    [6, 7, 8]."""
    t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    avoid = np.zeros(t.size, dtype=bool)
    avoid[4] = True
    assert KueueTAS(t).allocate_avoiding(3, avoid).nodes.tolist() == [0, 1, 2]
    avoid[1] = True
    assert KueueTAS(t).allocate_avoiding(3, avoid).nodes.tolist() == [6, 7, 8]
    avoid[4] = False
    assert KueueTAS(t).allocate_avoiding(3, avoid).nodes.tolist() == [3, 4, 5]


@pytest.mark.parametrize("profile", ["BestFit", "LeastFreeCapacity"])
def test_earliest_in_is_the_generic_answer(profile):
    """Allocator.earliest_in's definition (the earliest ready time at which place_in finds a
    placement, and that placement): plain, preferred and required counts answered without a
    search, switches and segment requests by the bisection."""
    rng = np.random.default_rng(9)
    times = np.array([-np.inf, 0.0, 1.0, 2.5, 4.0, 7.0])
    for case in range(120):
        t = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        k = _busy(KueueTAS(t, profile), rng, steps=15)
        n = int(rng.integers(1, t.size + 1)) if case % 4 == 0 else int(rng.integers(1, 9))
        level = t.levels[int(rng.integers(0, len(t.levels) - 1))]  # the root or a switch level
        request = [n, TreeRequest(n, preferred=level), TreeRequest(min(n, 5), required=level),
                   TreeRequest(n, switches=2), TreeRequest(min(n * 2, t.size // 2 * 2), segment=2)][case % 5]
        try:
            k.validate(request)
        except RequestError:  # no domain of the level holds the count
            request = n
        ready = times[rng.integers(0, int(rng.integers(1, len(times) + 1)), t.size)]
        ready[k.free_mask()] = -np.inf
        now = float(rng.choice([-np.inf, 0.0, 1.5, 5.0]))
        if case % 2:  # any ready times (a what-if), mostly distinct
            ready, now = np.round(rng.random(t.size) * 8.0, 1), float(rng.choice([-np.inf, 0.5]))
        got, want = k.earliest_in(request, ready, now), Allocator.earliest_in(k, request, ready, now)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got[0] == want[0] and got[1].tolist() == want[1].tolist(), (case, request, got, want)


def test_covers():
    t = SwitchTree.uniform((2, 2, 4), names=("block", "rack", "host"))
    k = KueueTAS(t)
    assert k.covers(3, TreeRequest(3, required="rack")) and k.covers(TreeRequest(3, preferred="rack"), 4)
    assert k.covers(TreeRequest(3, required="block"), TreeRequest(3, required="rack"))
    assert not k.covers(TreeRequest(3, required="rack"), TreeRequest(3, required="block"))
    assert not k.covers(TreeRequest(3, required="rack"), 8)
    assert not k.covers(4, 3)
    assert k.covers(TreeRequest(4, switches=1), TreeRequest(4, switches=1))
    assert not k.covers(TreeRequest(4, switches=1), TreeRequest(5, switches=1))


def test_profile_names():
    t = SwitchTree.uniform((2, 4))
    assert KueueTAS(t).profile == "BestFit"
    assert KueueTAS(t, "TASProfileLeastFreeCapacity").profile == "LeastFreeCapacity"
    assert KueueTAS(t, "least-free-capacity").profile == "LeastFreeCapacity"
    assert KueueTAS(t, "TASProfileMixed").profile == "Mixed"
    assert repr(KueueTAS(t, "mixed")) == "KueueTAS(SwitchTree.uniform((2, 4), names=('level1', 'node')), " \
                                         "profile='Mixed')"


# ---------------------------------------------------------------------------------------------
# errors
@pytest.mark.parametrize("bad", ["MostFreeCapacity", "", None, 3])
def test_unknown_profile(bad):
    with pytest.raises(UnknownOptionError, match=r"unknown Kueue TAS profile .*choose from BestFit, "
                                                  r"LeastFreeCapacity, Mixed") as e:
        KueueTAS(SwitchTree.uniform((2, 4)), bad)
    assert repr(bad) in str(e.value)


def test_bad_topology_and_requests():
    with pytest.raises(UnsupportedTopologyError, match="KueueTAS needs a SwitchTree"):
        KueueTAS(Flat(8))
    k = KueueTAS(SwitchTree.uniform((2, 4), names=("rack", "host")))
    with pytest.raises(RequestTypeError, match="required='block'"):
        k.allocate(TreeRequest(2, required="block"))
    with pytest.raises(RequestSizeError, match="5 nodes required in one 'rack' domain"):
        k.allocate(TreeRequest(5, required="rack"))
    with pytest.raises(RequestSizeError, match="larger than the 8-node tree"):
        k.allocate(TreeRequest(9, preferred="rack"))
    with pytest.raises(RequestTypeError):
        k.allocate("4")
    assert k.free == 8

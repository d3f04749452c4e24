"""Fluxion's low / high / locality match policies on switch trees: the stateful machine with the
constraint oracle, Fluxion's own expected outputs, and the locality rule against a reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import Allocator
from topoalloc.testing import allocator_machine, switch_trees
from topoalloc.tree import FirstFree
from topoalloc.tree.fluxion import FluxHigh, FluxLocality, FluxLow
from topologies import RequestError, SwitchTree, TreeRequest

TestFluxLowMachine = allocator_machine(FluxLow, switch_trees(), max_examples=10, steps=25).TestCase
TestFluxHighMachine = allocator_machine(FluxHigh, switch_trees(), max_examples=10, steps=25).TestCase
TestFluxLocalityMachine = allocator_machine(FluxLocality, switch_trees(), max_examples=15, steps=25).TestCase


def medium():
    """Fluxion's ``t/data/resource/grugs/medium.graphml``: 4 racks of 18 nodes, node ids global
    (``id_scope`` 1), rack0 holding node0-node17."""
    return SwitchTree.uniform((4, 18), names=("rack", "node"))


#: The node counts of the jobspecs of ``t/data/resource/commands/omit_prefix/cmds02.in`` /
#: ``cmds03.in`` (test010-018, test019-027): 1, 1, 2, 2, 4, 4 nodes, then slot[1|2|4] -> node[1].
OMIT_PREFIX_COUNTS = [1, 1, 2, 2, 4, 4, 1, 2, 4]


def grants(allocator, requests):
    out = []
    for r in requests:
        got = allocator.allocate(r)
        out.append(None if got is None else got.nodes.tolist())
    return out


def test_low_matches_fluxion_expected_output_across_racks():
    """flux-sched ``t/t3002-resource-prefix.t`` test 006 (``-P low``, ``cmds03.in``: jobspecs
    that name nodes but no rack), expected ``t/data/resource/expected/omit_prefix/006.R.out``:
    the last job takes node17 of rack0 and node18-20 of rack1 -- the lowest ids of the machine."""
    assert grants(FluxLow(medium()), OMIT_PREFIX_COUNTS) == [
        [0], [1], [2, 3], [4, 5], [6, 7, 8, 9], [10, 11, 12, 13], [14], [15, 16], [17, 18, 19, 20]]


def test_high_matches_fluxion_expected_output_across_racks():
    """flux-sched ``t/t3002-resource-prefix.t`` test 003 (``-P high``, ``cmds03.in``), expected
    ``omit_prefix/003.R.out``: the last job takes node51-53 of rack2 and node54 of rack3."""
    assert grants(FluxHigh(medium()), OMIT_PREFIX_COUNTS) == [
        [71], [70], [68, 69], [66, 67], [62, 63, 64, 65], [58, 59, 60, 61], [57], [55, 56], [51, 52, 53, 54]]


def test_required_rack_matches_fluxion_expected_output():
    """flux-sched ``t/t3002-resource-prefix.t`` tests 002 and 005 (``cmds02.in``: ``rack[1] ->
    node[k]``), expected ``omit_prefix/002.R.out`` (high) and ``005.R.out`` (low): once the
    first rack has too few free nodes the next rack by id is taken whole-job."""
    reqs = [TreeRequest(k, required="rack") for k in OMIT_PREFIX_COUNTS]
    assert grants(FluxLow(medium()), reqs)[-1] == [18, 19, 20, 21]
    assert grants(FluxHigh(medium()), reqs) == [
        [71], [70], [68, 69], [66, 67], [62, 63, 64, 65], [58, 59, 60, 61], [57], [55, 56], [50, 51, 52, 53]]
    # unlike FirstFree's best-fitting rack: with 5 free in rack0 and 4 in rack1, low takes rack0
    free = np.zeros(72, dtype=bool)
    free[13:22] = True
    assert FluxLow(medium()).place_in(TreeRequest(4, required="rack"), free).tolist() == [13, 14, 15, 16]
    assert FirstFree(medium()).place_in(TreeRequest(4, required="rack"), free).tolist() == [18, 19, 20, 21]


def test_node_order_on_one_rack_matches_fluxion_nodex_outputs():
    """flux-sched ``t/t3037-resource-custom-policy.t`` (``small.graphml``: one rack of 8 nodes;
    ``commands/nodex/cmds01.in``: 1, 1, 1, 1, 2, 1, 1 nodes), expected ``expected/nodex/001.R.out``
    (``policy=high node_centric=true node_exclusive=true``) and ``011.R.out`` (``policy=low ...``)."""
    t = SwitchTree.uniform((1, 8), names=("rack", "node"))
    counts = [1, 1, 1, 1, 2, 1, 1]
    assert grants(FluxHigh(t), counts) == [[7], [6], [5], [4], [2, 3], [1], [0]]
    assert grants(FluxLow(t), counts) == [[0], [1], [2], [3], [4, 5], [6], [7]]


@given(tree=switch_trees(), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 64))
@settings(max_examples=60, deadline=None)
def test_low_is_first_free_and_high_its_mirror_for_plain_counts(tree, seed, n):
    """doc/man5/flux-config-sched-fluxion-resource.rst: "low: Select resources with low ID first",
    "high: ... with high ID first" -- for whole-node counts, the lowest / highest free ids."""
    free = np.random.default_rng(seed).random(tree.size) < 0.6
    n = min(n, tree.size)
    ids = np.flatnonzero(free)
    low, high = FluxLow(tree).place_in(n, free), FluxHigh(tree).place_in(n, free)
    if len(ids) < n:
        assert low is None and high is None
        return
    assert low.tolist() == FirstFree(tree).place_in(n, free).tolist() == ids[:n].tolist()
    assert high.tolist() == ids[len(ids) - n:].tolist()


def reference_locality(free, n):
    """``greater_interval_first_t::dom_finish_graph`` (resource/policies/dfu_match_locality.cpp)
    step by step: candidates in traversal order (ascending ids), the ``boost::icl::interval_set``
    of their ids (consecutive ids join), a stable sort by the interval holding each id in
    ``interval_greater`` order -- intervals compared by (lower, upper), greater first -- and the
    first ``n`` (``evals_t::choose_best_k``)."""
    ids = np.flatnonzero(free).tolist()
    runs, start = {}, None
    for k, x in enumerate(ids):
        if k == 0 or x != ids[k - 1] + 1:
            start = x
        runs[x] = start
    end = {}
    for x in ids:
        end[runs[x]] = x
    ranked = sorted(ids, key=lambda x: (runs[x], end[runs[x]]), reverse=True)  # stable
    return sorted(ranked[:n]) if len(ids) >= n else None


@given(size=st.integers(1, 40), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40),
       density=st.sampled_from([0.3, 0.6, 0.9]))
@settings(max_examples=150, deadline=None)
def test_locality_matches_the_reference_sort(size, seed, n, density):
    """FluxLocality.place_in is the reference's choice on random masks (dfu_match_locality.cpp,
    greater_interval_first_t::dom_finish_graph with fold::interval_greater, fold.hpp)."""
    free = np.random.default_rng(seed).random(size) < density
    n = min(n, size)
    got = FluxLocality(SwitchTree.uniform((1, size))).place_in(n, free)
    want = reference_locality(free, n)
    assert (None if got is None else got.tolist()) == want


def test_locality_takes_the_highest_runs_whole():
    """dfu_match_locality.cpp, greater_interval_first_t::dom_finish_graph: runs of consecutive
    free ids, compared as boost::icl intervals (lower bound first), highest run first -- so a
    short run at the top beats a long run below it."""
    t = SwitchTree.uniform((2, 8))
    free = np.zeros(16, dtype=bool)
    free[[0, 1, 2, 3, 4, 5, 9, 10, 14]] = True  # runs 0-5, 9-10, 14
    loc = FluxLocality(t)
    assert loc.place_in(1, free).tolist() == [14]
    assert loc.place_in(3, free).tolist() == [9, 10, 14]
    assert loc.place_in(5, free).tolist() == [0, 1, 9, 10, 14]  # the partial run: its lowest ids
    assert loc.place_in(10, free) is None


def test_locality_required_level_orders_domains_by_runs_and_takes_high_ids_inside():
    """dfu_match_locality.cpp: dom_finish_graph orders the qualifying racks by the run of rack ids
    holding them (highest run first, ascending inside it); dom_finish_vtx takes a rack's nodes
    with the default fold::greater (highest ids)."""
    t = SwitchTree.uniform((6, 4), names=("rack", "node"))
    loc = FluxLocality(t)
    free = np.ones(24, dtype=bool)
    free[[8, 9, 10]] = False  # rack2 has 1 free node: qualifying racks 0, 1 and 3, 4, 5
    assert loc.place_in(TreeRequest(2, required="rack"), free).tolist() == [14, 15]  # rack3
    free[12:24] = False
    assert loc.place_in(TreeRequest(2, required="rack"), free).tolist() == [2, 3]  # run 0-1: rack0
    assert FluxHigh(t).place_in(TreeRequest(2, required="rack"), free).tolist() == [6, 7]
    assert FluxLow(t).place_in(TreeRequest(2, required="rack"), free).tolist() == [0, 1]


def test_other_constraints_use_the_generic_treatment_in_policy_order():
    t = SwitchTree.uniform((3, 4), names=("rack", "node"))
    free = np.ones(12, dtype=bool)
    assert FluxHigh(t).place_in(TreeRequest(4, segment=2), free).tolist() == [8, 9, 10, 11]
    assert FluxLow(t).place_in(TreeRequest(4, segment=2), free).tolist() == [0, 1, 2, 3]
    assert FluxHigh(t).place_in(TreeRequest(6, switches=2), free).tolist() == [2, 3, 4, 5, 6, 7]
    assert FluxHigh(t).place_in(TreeRequest(3, preferred="rack"), free).tolist() == [9, 10, 11]


@pytest.mark.parametrize("cls", [FluxLow, FluxHigh, FluxLocality])
def test_bad_requests_are_refused_by_name(cls):
    a = cls(medium())
    with pytest.raises(RequestError, match="73"):
        a.allocate(73)
    with pytest.raises(RequestError, match="'pod'"):
        a.allocate(TreeRequest(2, required="pod"))


# -- the what-if answers are the generic ones ------------------------------------------------------
def busy(allocator, rng, steps=30):
    """The allocator after random plain grants and releases (fragmented free ids)."""
    live = []
    for _ in range(int(rng.integers(0, steps + 1))):
        if live and rng.random() < 0.4:
            allocator.release(live.pop(int(rng.integers(len(live)))))
        else:
            got = allocator.allocate(int(rng.integers(1, 9)))
            if got is not None:
                live.append(got)
    return allocator


WHAT_IF_TREES = [medium(), SwitchTree.uniform((3, 4, 5), names=("block", "rack", "node")),
                 SwitchTree([-1, 0, 1, 1, 0, 4, 4, 4, 0], [0, 0, 5, 3, 0, 2, 7, 1, 6])]


@pytest.mark.parametrize("cls", [FluxLow, FluxHigh, FluxLocality])
def test_allocate_avoiding_is_the_generic_search(cls):
    """Allocator.allocate_avoiding's definition (the placements made one after another while the
    earlier ones are held, until one avoids the mask): the policies' one-pass search for a plain
    count (the free ids in _succession order, n at a time) gives the same grant and state;
    constrained requests go through the mask search and agree too."""
    rng = np.random.default_rng(3)
    for case in range(150):
        tree = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        a = busy(cls(tree), rng)
        n = int(rng.integers(1, 12))
        request = [n, TreeRequest(n), TreeRequest(min(n, 4), required=tree.levels[1])][case % 3]
        try:
            a.validate(request)
        except RequestError:  # no domain of the level holds the count
            request = n
        avoid = rng.random(tree.size) < rng.choice([0.1, 0.4, 0.8])
        if rng.random() < 0.5:  # a reservation-like block of ids
            lo = int(rng.integers(tree.size))
            avoid[:] = False
            avoid[lo:lo + int(rng.integers(1, tree.size))] = True
        fast, generic = a.clone(), a.clone()
        got, want = fast.allocate_avoiding(request, avoid), Allocator.allocate_avoiding(generic, request, avoid)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got.nodes.tolist() == want.nodes.tolist() and got.request == want.request, (case, request)
        assert fast.free_mask().tolist() == generic.free_mask().tolist()


def test_locality_avoiding_takes_the_runs_in_order():
    """Allocator.allocate_avoiding's definition with the locality rule (class docstring: the
    highest run first, the partial run from its lowest id): with runs 0-2, 5-6 and 8 free, two
    nodes go on [5, 8], then [0, 6], then [1, 2] -- the free ids in the order runs-highest-first,
    ascending inside a run (8, 5, 6, 0, 1, 2), two at a time."""
    loc = FluxLocality(SwitchTree.uniform((2, 5)))
    grants = [loc.allocate(k) for k in (3, 2, 2, 1, 1, 1)]  # one run: each takes its lowest ids
    assert [g.nodes.tolist() for g in grants] == [[0, 1, 2], [3, 4], [5, 6], [7], [8], [9]]
    for g in grants[0], grants[2], grants[4]:
        loc.release(g)  # the free nodes of the class docstring's example: 0-2, 5-6, 8
    avoid = np.zeros(10, dtype=bool)
    assert loc.clone().allocate_avoiding(2, avoid).nodes.tolist() == [5, 8]
    avoid[5] = True
    assert loc.clone().allocate_avoiding(2, avoid).nodes.tolist() == [0, 6]
    avoid[0] = True
    assert loc.clone().allocate_avoiding(2, avoid).nodes.tolist() == [1, 2]
    avoid[1] = True
    assert loc.allocate_avoiding(2, avoid) is None and loc.free == 6


@pytest.mark.parametrize("cls", [FluxLow, FluxHigh, FluxLocality])
def test_earliest_in_is_the_generic_answer(cls):
    """Allocator.earliest_in's definition (the earliest ready time at which place_in finds a
    placement, and that placement) for plain, preferred and required counts (answered without a
    search) and the other constraints (the bisection)."""
    rng = np.random.default_rng(4)
    times = np.array([-np.inf, 0.0, 1.0, 2.5, 4.0, 7.0])
    for case in range(120):
        tree = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        a = busy(cls(tree), rng, steps=15)
        n = int(rng.integers(1, tree.size + 1)) if case % 4 == 0 else int(rng.integers(1, 9))
        level = tree.levels[int(rng.integers(1, len(tree.levels) - 1))]  # a switch level
        request = [n, TreeRequest(n, preferred=level), TreeRequest(min(n, 5), required=level),
                   TreeRequest(n, switches=2), TreeRequest(min(n * 2, tree.size // 2 * 2), segment=2)][case % 5]
        try:
            a.validate(request)
        except RequestError:  # no domain of the level holds the count
            request = n
        ready = times[rng.integers(0, int(rng.integers(1, len(times) + 1)), tree.size)]
        ready[a.free_mask()] = -np.inf
        now = float(rng.choice([-np.inf, 0.0, 1.5, 5.0]))
        if case % 2:  # any ready times (a what-if), mostly distinct
            ready, now = np.round(rng.random(tree.size) * 8.0, 1), float(rng.choice([-np.inf, 0.5]))
        got, want = a.earliest_in(request, ready, now), Allocator.earliest_in(a, request, ready, now)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got[0] == want[0] and got[1].tolist() == want[1].tolist(), (case, request, got, want)

"""Fluxion's low / high / locality match policies on switch trees: the stateful machine with the
constraint oracle, Fluxion's own expected outputs, and the locality rule against a reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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

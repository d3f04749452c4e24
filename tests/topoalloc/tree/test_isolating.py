"""Isolating (Pollard et al., SC18) on switch trees: the stateful machine, the brute-force oracles
(placement exists, placement is one of the policy's, no uplink shared), and the rule on examples."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from topoalloc import Allocator
from topoalloc.errors import AllocatorParameterError
from topoalloc.testing import (
    allocator_machine,
    check_region,
    free_mask,
    oracle_for,
    requests,
    switch_trees,
    tree_any,
)
from topoalloc.tree.isolating import (
    Isolating,
    check_isolated_choice,
    check_isolated_placement,
    isolated_placement_exists,
    shared_uplinks,
)
from topologies import RequestError, SwitchTree, TreeRequest

FAST = settings(max_examples=15, stateful_step_count=30, deadline=None)


def shared_leaf_switches(topology):
    """``Isolating(strict=False)``: jobs inside one leaf switch may use a wide job's idle nodes."""
    return Isolating(topology, strict=False)


def held_by(topology, allocations):
    """Switches whose uplink some live grant crosses, recomputed from the routes."""
    N = topology.size
    used = np.zeros(topology.n_switches, dtype=bool)
    for a in allocations:
        used[1:] |= topology.link_traffic(a.nodes)[N:] > 0
    return used


def check_kept_state(iso):
    """The per-leaf-switch state Isolating keeps by its hooks equals what the free mask and the
    held uplinks give afresh (so placements are those of the rule recomputed at each request)."""
    t = iso.topology
    leaves = t.leaf_switch_ids
    counts = np.add.reduceat(iso.free_mask().astype(np.int64), t.first[leaves])
    held = iso._owned[leaves]
    key = counts + held * (-(t.size + 1) if iso.strict else t.size + 1)
    got_counts, got_key = iso._leaf_arrays()
    assert got_counts.tolist() == counts.tolist() and got_key.tolist() == key.tolist(), "kept leaf counts are stale"
    assert iso._by_key == sorted(zip(key.tolist(), range(len(leaves)), strict=True)), "kept key order is stale"
    assert iso._whole_free == int((t.stop[leaves] - t.first[leaves])[counts == t.stop[leaves] - t.first[leaves]].sum())


class IsolationChecks:
    """Rules and invariants added to the generic machine (which runs with no recognition oracle:
    Isolating's placements depend on the uplinks held, and a grant that uses part of a leaf switch
    is not a placement on its own nodes, so the generic "region the oracle recognises" check does
    not apply; these rules check the same things with the policy's own oracles)."""

    @rule(data=st.data())
    def allocate_checked_by_the_oracles(self, data):
        a = self.allocator
        wide = st.integers(1, a.size)  # more jobs that span leaf switches than requests() draws
        request = data.draw(st.one_of(requests(a), wide), label="request")
        before, owned = free_mask(a), held_by(a.topology, a.allocations)
        got = a.allocate(request)
        if got is None:
            assert not isolated_placement_exists(a, before, request, owned), (
                f"allocate({request!r}) refused, but an isolated placement exists:\n{a.occupancy}")
            return
        check_region(a, got)
        check_isolated_choice(a, before, request, got, owned)
        self.live[got.id] = got

    @rule(data=st.data())
    def place_in_is_exact_for_the_mask(self, data):
        a = self.allocator
        request = data.draw(requests(a), label="request")
        free = self._random_mask(data, "mask")
        got = a.place_in(request, free)
        assert (got is not None) == isolated_placement_exists(a, free, request)
        if got is not None:
            check_isolated_placement(a, free, request, got)
            assert np.array_equal(got, Allocator.place_in(a, request, free)), "place_in differs from the generic"

    @invariant()
    def never_shares_an_uplink(self):
        a = self.allocator
        if a is None:
            return
        t = a.topology
        assert shared_uplinks(t, [x.nodes for x in a.allocations]) == []
        held = held_by(t, a.allocations)
        assert a.owned_uplinks().tolist() == np.flatnonzero(held).tolist(), "held uplinks out of date"
        kept = held[t.leaf_of] & (np.asarray(a.occupancy) == 0)
        assert a.isolated_idle().tolist() == np.flatnonzero(kept).tolist()
        check_kept_state(a)


class IsolatingMachine(IsolationChecks, allocator_machine(Isolating, switch_trees(), oracle=None)):
    pass


class SharedLeafMachine(IsolationChecks, allocator_machine(shared_leaf_switches, switch_trees(), oracle=None)):
    pass


# the generic machine as any allocator gets it (auto oracle: none for this recognition)
TestIsolatingGenericMachine = allocator_machine(Isolating, switch_trees(), max_examples=10, steps=25).TestCase
TestIsolatingMachine = IsolatingMachine.TestCase
TestIsolatingMachine.settings = FAST
TestSharedLeafMachine = SharedLeafMachine.TestCase
TestSharedLeafMachine.settings = FAST


# -- hypothesis: random allocate / release sequences never share an uplink ------------------------
@given(tree=switch_trees(max_levels=3, max_nodes=48), strict=st.booleans(), data=st.data())
@settings(max_examples=30, deadline=None)
def test_random_sequences_never_share_an_uplink(tree, strict, data):
    iso = Isolating(tree, strict=strict)
    live = []
    for step in range(data.draw(st.integers(1, 30), label="steps")):
        if live and data.draw(st.booleans(), label=f"release {step}"):
            iso.release(live.pop(data.draw(st.integers(0, len(live) - 1), label="which")))
        else:
            n = data.draw(st.integers(1, tree.size), label=f"nodes {step}")
            got = iso.allocate(n)
            if got is not None:
                live.append(got)
        # every pair of live jobs: their routes share no uplink (routes walked link by link; the
        # routes from a job's first node to the others cross every link any of its pairs cross)
        used = [set() for _ in live]
        for k, g in enumerate(live):
            ids = g.nodes.tolist()
            for y in ids[1:]:
                used[k].update(tree.route(ids[0], y).tolist())
        for i in range(len(live)):
            for j in range(i + 1, len(live)):
                assert not {u for u in used[i] & used[j] if u >= tree.size}, (live[i], live[j])


# -- the rule on examples ---------------------------------------------------------------------------
def pods():
    """A three-level fat tree: 2 pods x 3 leaf switches x 4 hosts (switches 0 root, 1 pod0,
    2-4 leaf switches of pod0, 5 pod1, 6-8 leaf switches of pod1)."""
    return SwitchTree.uniform((2, 3, 4), names=("pod", "leaf", "host"))


def test_small_jobs_share_a_leaf_switch_best_fit():
    """Pollard et al. SC18: a job that fits in one leaf switch uses no uplink, so it is placed
    inside one; best fit (fewest free nodes that hold it) keeps whole switches free."""
    iso = Isolating(pods())
    assert iso.allocate(3).nodes.tolist() == [0, 1, 2]
    assert iso.allocate(2).nodes.tolist() == [4, 5]  # leaf 2 has 1 free: the next fit is leaf 3
    assert iso.allocate(1).nodes.tolist() == [3]  # best fit: leaf 2's last node
    assert iso.owned_uplinks().tolist() == [] and iso.isolated_idle().tolist() == []


def test_a_wide_job_takes_whole_leaf_switches_in_the_smallest_subtree():
    """Pollard et al. SC18 (isolated partitions): a job larger than a leaf switch takes entirely
    free leaf switches under the lowest switch that holds it -- here pod 1, whose three free
    leaf switches fit 9 nodes more tightly than the root -- and the rest of its last leaf switch
    stays idle."""
    iso = Isolating(pods())
    iso.allocate(2)  # pod 0 keeps two whole free leaf switches
    big = iso.allocate(9)
    assert big.nodes.tolist() == list(range(12, 21))  # leaf switches 6, 7 whole, 8 in part
    assert iso.owned_uplinks().tolist() == [6, 7, 8]
    assert iso.isolated_idle().tolist() == [21, 22, 23]
    six = iso.allocate(6)  # pod 0: leaf switches 3 and 4
    assert six.nodes.tolist() == [4, 5, 6, 7, 8, 9]
    assert iso.isolated_idle().tolist() == [10, 11, 21, 22, 23]
    iso.release(big)
    assert iso.owned_uplinks().tolist() == [3, 4] and iso.isolated_idle().tolist() == [10, 11]


def test_a_job_across_pods_holds_their_uplinks_and_others_stay_inside_their_pod():
    """Isolating's class docstring, step 2 (its reading of Pollard et al. SC18's isolated
    partitions): the pod uplinks a cross-pod job crosses are its own -- no other cross-pod job
    may use the pods it touches, while a job inside such a pod still takes its remaining whole
    leaf switches (3 pods x 3 leaf switches x 4 hosts: pods are switches 1, 5, 9)."""
    t = SwitchTree.uniform((3, 3, 4), names=("pod", "leaf", "host"))
    iso = Isolating(t)
    wide = iso.allocate(14)  # no pod holds 14: pod 0 whole and two nodes of pod 1
    assert wide.nodes.tolist() == list(range(14))
    assert iso.owned_uplinks().tolist() == [1, 2, 3, 4, 5, 6]
    assert iso.allocate(14) is None  # pod 1's free leaf switches would cross pod 1's uplink
    assert iso.place_in(14, iso.free_mask()) is not None  # the free mask alone would allow it
    inside = iso.allocate(5)  # inside pod 1: its two whole leaf switches
    assert inside.nodes.tolist() == [16, 17, 18, 19, 20]
    assert iso.allocate(12).nodes.tolist() == list(range(24, 36))  # pod 2, whole
    assert shared_uplinks(t, [g.nodes for g in iso.allocations]) == []


def test_strict_keeps_idle_nodes_and_the_relaxed_variant_lends_them():
    """strict=True is the paper's isolated partition (the wide job's last leaf switch is its
    own); strict=False lets a job inside one leaf switch use the idle nodes when nothing else
    fits -- it crosses no uplink, so isolation holds either way."""
    t = SwitchTree.uniform((2, 4))
    for strict, expected in ((True, None), (False, [5, 6, 7])):
        iso = Isolating(t, strict=strict)
        iso.allocate(5)  # leaf switch 1 whole, nodes 4 of leaf switch 2; 5, 6, 7 kept idle
        assert iso.isolated_idle().tolist() == [5, 6, 7]
        assert iso.place_in(3, iso.free_mask()).tolist() == [5, 6, 7]  # the free mask alone
        got = iso.allocate(3)
        assert (None if got is None else got.nodes.tolist()) == expected


def test_constraints_inside_the_isolated_family():
    """Isolating's class docstring, constraints: required / preferred / switches / segment are
    met by placements of the isolated family only."""
    t = pods()
    iso = Isolating(t)
    assert iso.allocate(TreeRequest(8, required="pod")).nodes.tolist() == list(range(8))
    # preferred=leaf: no leaf switch holds 5, pod 1 does (pod 0 has one whole leaf switch left)
    assert iso.allocate(TreeRequest(5, preferred="leaf")).nodes.tolist() == list(range(12, 17))
    assert iso.allocate(TreeRequest(4, switches=1)).nodes.tolist() == [8, 9, 10, 11]
    assert iso.allocate(TreeRequest(4, segment=2)).nodes.tolist() == [20, 21, 22, 23]
    assert iso.allocate(TreeRequest(2, segment=2)) is None  # only leaf switch 7's kept nodes are free
    assert shared_uplinks(t, [g.nodes for g in iso.allocations]) == []
    seg = Isolating(t).place_in(TreeRequest(9, segment=3), np.ones(24, dtype=bool))
    assert np.bincount(t.leaf_of[seg], minlength=9)[[2, 3, 4]].tolist() == [3, 3, 3]


def test_switches_takes_the_fewest_leaf_switches():
    """Isolating's class docstring, switches=k (Slurm's --switches, TreeRequest): the k largest
    usable leaf switches must hold the job; the largest are used first (an unbalanced tree: leaf
    switches of 2, 5, 5 and 3 nodes)."""
    t = SwitchTree([-1, 0, 0, 0, 0], [0, 2, 5, 5, 3])
    iso = Isolating(t)
    assert iso.place_in(TreeRequest(9, switches=2), np.ones(15, dtype=bool)).tolist() == list(range(2, 11))
    assert iso.place_in(TreeRequest(11, switches=2), np.ones(15, dtype=bool)) is None
    assert len(np.unique(t.leaf_of[iso.place_in(TreeRequest(11, switches=3), np.ones(15, dtype=bool))])) == 3


def test_place_in_is_the_generic_what_if_on_random_masks():
    """place_in answers for the free mask alone, as the generic Allocator.place_in's rebuilt
    state of one-node jobs does: the same nodes, with wide jobs live or not."""
    rng = np.random.default_rng(7)
    t = pods()
    iso = Isolating(t)
    iso.allocate(7)
    for _ in range(60):
        free = rng.random(t.size) < rng.choice([0.5, 0.8, 1.0])
        n = int(rng.integers(1, 14))
        got, want = iso.place_in(n, free), Allocator.place_in(iso, n, free)
        assert (got is None) == (want is None) and (got is None or np.array_equal(got, want))


def test_clone_copies_the_held_uplinks():
    iso = Isolating(pods())
    wide = iso.allocate(6)
    twin = iso.clone()
    twin.release(wide)
    assert iso.owned_uplinks().tolist() == [2, 3] and twin.owned_uplinks().tolist() == []
    assert twin.allocate(6).nodes.tolist() == wide.nodes.tolist()


def test_the_generic_machine_gets_no_recognition_oracle():
    """The generic machine's auto oracle is none (IsolationChecks says why); tree_any would be
    wrong: 3 free nodes in each of two leaf switches do not hold an isolated 4-node job."""
    t = SwitchTree.uniform((2, 4))
    iso = Isolating(t)
    assert oracle_for(iso) is None
    free = np.array([0, 1, 1, 1, 0, 1, 1, 1], dtype=bool)
    assert tree_any(iso, free, 4) and iso.place_in(4, free) is None
    assert not isolated_placement_exists(iso, free, 4)


def test_errors_name_the_bad_value():
    with pytest.raises(AllocatorParameterError, match="'yes'"):
        Isolating(pods(), strict="yes")
    with pytest.raises(AllocatorParameterError, match="nan"):
        Isolating(pods(), strict=float("nan"))
    iso = Isolating(pods())
    with pytest.raises(RequestError):
        iso.allocate(25)
    with pytest.raises(RequestError, match="no-such"):
        iso.allocate(TreeRequest(2, required="no-such"))
    with pytest.raises(RequestError, match="13 nodes"):
        iso.allocate(TreeRequest(13, required="pod"))


def test_the_oracles_catch_a_shared_uplink():
    """The checks fail on a placement that is not isolated (they can fail)."""
    t = SwitchTree.uniform((2, 2))
    iso = Isolating(t)
    first = iso.allocate(3)  # nodes 0, 1, 2: crosses both leaf uplinks
    assert shared_uplinks(t, [first.nodes, [3]]) == []
    assert shared_uplinks(t, [first.nodes, [1, 3]]) == [1, 2]
    free = np.array([0, 1, 0, 1], dtype=bool)
    with pytest.raises(AssertionError, match="not free"):
        check_isolated_placement(iso, free, 2, [1, 3], held_by(t, iso.allocations))
    assert not isolated_placement_exists(iso, free, 2, held_by(t, iso.allocations))


# -- the what-if answers are the generic ones ------------------------------------------------------
def churned(tree, strict, rng, steps=40):
    """An Isolating allocator after random grants and releases (wide jobs included, so uplinks
    are held and leaf switches kept idle)."""
    iso = Isolating(tree, strict=strict)
    live = []
    for _ in range(int(rng.integers(0, steps + 1))):
        if live and rng.random() < 0.4:
            iso.release(live.pop(int(rng.integers(len(live)))))
        else:
            n = int(rng.integers(1, tree.size // 2 + 1)) if rng.random() < 0.3 else int(rng.integers(1, 9))
            got = iso.allocate(min(n, tree.size))
            if got is not None:
                live.append(got)
    return iso


def some_request(tree, rng):
    n = int(rng.integers(1, tree.size + 1)) if rng.random() < 0.3 else int(rng.integers(1, 9))
    kind = rng.integers(6)
    level = tree.levels[int(rng.integers(1, len(tree.levels) - 1))] if len(tree.levels) > 2 else tree.levels[0]
    requests = [n, TreeRequest(n), TreeRequest(n, required=level), TreeRequest(n, preferred=level),
                TreeRequest(n, switches=int(rng.integers(1, 4))), TreeRequest(max(1, n // 2) * 2, segment=2)]
    r = requests[kind]
    try:
        return Isolating(tree).validate(r)
    except RequestError:
        return n


WHAT_IF_TREES = [pods(), SwitchTree.uniform((3, 4, 6), names=("pod", "leaf", "host")),
                 SwitchTree([-1, 0, 1, 1, 0, 4, 4, 4, 0], [0, 0, 5, 3, 0, 2, 7, 1, 6]),
                 SwitchTree.uniform((3, 3, 4), names=("pod", "leaf", "host"))]


@pytest.mark.parametrize("look", [0, 4])
@pytest.mark.parametrize("strict", [True, False])
def test_allocate_avoiding_is_the_generic_search(strict, look, monkeypatch):
    """Allocator.allocate_avoiding's definition (the allocator's placements, made one after another
    while the earlier ones are held, until one avoids the mask): Isolating's direct search gives
    the same grant and leaves the same state -- held uplinks, kept idle nodes, kept per-leaf
    state -- after which both place the next request alike. ``look=0`` makes the search number
    every placement inside one leaf switch at once (its fallback pass)."""
    from topoalloc.tree import isolating

    monkeypatch.setattr(isolating, "_LOOK", look)
    rng = np.random.default_rng(11 if strict else 12)
    for case in range(120):
        tree = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        iso = churned(tree, strict, rng)
        request = some_request(tree, rng)
        avoid = rng.random(tree.size) < rng.choice([0.1, 0.4, 0.8])
        if rng.random() < 0.5:  # a reservation-like block of ids
            lo = int(rng.integers(tree.size))
            avoid[:] = False
            avoid[lo:lo + int(rng.integers(1, tree.size))] = True
        fast, generic = iso.clone(), iso.clone()
        got = fast.allocate_avoiding(request, avoid)
        want = Allocator.allocate_avoiding(generic, request, avoid)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got.nodes.tolist() == want.nodes.tolist() and got.request == want.request, (case, request)
            assert not avoid[got.nodes].any()
        assert fast.owned_uplinks().tolist() == generic.owned_uplinks().tolist(), case
        assert fast.isolated_idle().tolist() == generic.isolated_idle().tolist(), case
        assert fast.free_mask().tolist() == generic.free_mask().tolist(), case
        check_kept_state(fast)
        after = some_request(tree, rng)
        a, b = fast.allocate(after), generic.allocate(after)
        assert (a is None) == (b is None) and (a is None or a.nodes.tolist() == b.nodes.tolist()), (case, after)


def test_allocate_avoiding_walks_the_leaf_switches_in_best_fit_order():
    """Allocator.allocate_avoiding's definition with Isolating's step 1 (class docstring): while a
    leaf switch holds the job, successive placements fill the best-fitting leaf switch ``n`` ids at
    a time, lowest first, then the next best fit. Here leaf switch 2 (1 free) cannot hold 2; leaf
    switch 3 (4 free) gives [4, 5] then [6, 7]; then leaf switch 4."""
    iso = Isolating(pods())
    iso.allocate(3)  # nodes 0-2: leaf switch 2 keeps node 3
    avoid = np.zeros(24, dtype=bool)
    avoid[[4]] = True
    assert iso.clone().allocate_avoiding(2, avoid).nodes.tolist() == [6, 7]
    avoid[[6]] = True
    assert iso.clone().allocate_avoiding(2, avoid).nodes.tolist() == [8, 9]
    avoid[:12] = True  # pod 0 reserved: pod 1's leaf switches 6, 7, 8 are whole, the first is best
    got = iso.allocate_avoiding(2, avoid)
    assert got.nodes.tolist() == [12, 13] and iso.free == 19


def test_allocate_avoiding_holds_the_uplinks_of_the_placements_it_passes():
    """Allocator.allocate_avoiding's definition with Isolating's step 2 (class docstring: a job
    spanning pods holds their uplinks): 14 nodes on 3 pods x 3 leaf switches x 4 hosts go on
    pod 0 and two nodes of pod 1; with node 0 avoided that placement is held while the next is
    sought, and none exists -- pod 2 alone is too small and pod 1's free leaf switches are
    behind pod 1's held uplink -- so the request is refused, as the generic search refuses it.
    Without node 0 avoided, or with only pod 1's first nodes avoided, the search goes on."""
    t = SwitchTree.uniform((3, 3, 4), names=("pod", "leaf", "host"))
    avoid = np.zeros(36, dtype=bool)
    avoid[0] = True
    iso = Isolating(t)
    assert iso.allocate_avoiding(14, avoid) is None and Allocator.allocate_avoiding(Isolating(t), 14, avoid) is None
    assert iso.free == 36 and iso.owned_uplinks().tolist() == []
    assert iso.allocate_avoiding(14, np.zeros(36, dtype=bool)).nodes.tolist() == list(range(14))
    twelve = Isolating(t).allocate_avoiding(12, avoid)  # pod 0 refused: pod 1 is the next best fit
    assert twelve.nodes.tolist() == list(range(12, 24))


def test_earliest_in_is_the_generic_answer():
    """Allocator.earliest_in's definition (the earliest ready time at which place_in finds a
    placement, and that placement), for every constraint kind, on states with held uplinks."""
    rng = np.random.default_rng(5)
    times = np.array([-np.inf, 0.0, 1.0, 2.5, 4.0, 7.0])
    for case in range(150):
        tree = WHAT_IF_TREES[case % len(WHAT_IF_TREES)]
        iso = churned(tree, bool(case % 3), rng, steps=20)
        request = some_request(tree, rng)
        ready = times[rng.integers(0, int(rng.integers(1, len(times) + 1)), tree.size)]
        ready[iso.free_mask()] = -np.inf
        now = float(rng.choice([-np.inf, 0.0, 1.5, 5.0]))
        if case % 2:  # any ready times (a what-if), mostly distinct
            ready, now = np.round(rng.random(tree.size) * 8.0, 1), float(rng.choice([-np.inf, 0.5]))
        got, want = iso.earliest_in(request, ready, now), Allocator.earliest_in(iso, request, ready, now)
        assert (got is None) == (want is None), (case, request)
        if got is not None:
            assert got[0] == want[0] and got[1].tolist() == want[1].tolist(), (case, request, got, want)

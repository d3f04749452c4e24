"""Queue policies on switch trees: constrained requests under FCFS, its folding rules, EASY and
Conservative; the switches wait (Slurm's --switches=N@T); the time blocked by topology."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import numpy as np
import pytest

from scheduling import Job, Policy, simulate
from scheduling.kernel.simulator import UnplaceableRequestError
from scheduling.policies.waits import SwitchesWait, WaitOver
from scheduling.workloads import LevelBySize, Switches, hero_mix, kueue_tree
from topoalloc import FirstFit, FlatPool
from topoalloc.testing import tree_constraint_met
from topoalloc.tree import FirstFree, TreeAllocator
from topologies import Flat, Mesh, ParameterError, SwitchTree, TreeRequest

QUEUE_POLICIES = ["FCFS", "RSR-1", "Limit-3", "Greedy", "Average", "EASY", "Conservative"]
RACKS = SwitchTree.uniform((2, 4), names=("rack", "host"))  # racks of nodes 0-3 and 4-7


def waiting_case(wait: float | None) -> list[Job]:
    """Job 0 (2 nodes, 0-1) ends at 10; job 1 (nodes 2-5, both racks) runs to 100. From 10 on the
    free nodes are 0, 1 (rack 0) and 6, 7 (rack 1): four, on two leaf switches. Job 2 asks at 12 for
    four nodes on one leaf switch (waiting ``wait``); job 3, one node at 13 for 1 time unit."""
    return [Job(0, 0.0, 2, 10.0), Job(1, 0.0, 4, 100.0),
            Job(2, 12.0, TreeRequest(4, switches=1, wait=wait), 2.0), Job(3, 13.0, 1, 1.0)]


def rows(result) -> dict[int, tuple]:
    t = result.table
    return {int(r["id"]): (float(r["start"]), int(r["leaf_switches"]), bool(r["relaxed"])) for r in t}


# -- the switches wait -----------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["FCFS", "EASY", "Conservative"])
def test_a_job_without_its_switches_starts_relaxed_at_exactly_submit_plus_wait(policy):
    """Slurm's --switches=1@5: no placement on one leaf switch exists before 100, so job 2 starts at
    12 + 5 = 17 on both racks, flagged relaxed; nothing else happens at 17 (a timer relaxes it)."""
    r = simulate(FirstFree(RACKS), policy, waiting_case(5.0), jobs=None)
    got = rows(r)
    assert got[2] == (17.0, 2, True)
    assert not got[0][2] and not got[1][2] and not got[3][2]
    assert 17.0 not in set(r.end.tolist()) | set(r.arrival.tolist())  # no arrival, no end at 17: the timer
    assert r.summary()["fraction_relaxed"] == pytest.approx(0.25)


@pytest.mark.parametrize("policy", ["FCFS", "EASY", "Conservative"])
@pytest.mark.parametrize("wait", [200.0, None])
def test_a_job_that_finds_its_switches_before_the_wait_starts_constrained(policy, wait):
    """With a wait of 200 (or for ever) the single-switch placement appears at 100, when job 1 ends:
    job 2 starts then, on one leaf switch, not relaxed."""
    got = rows(simulate(FirstFree(RACKS), policy, waiting_case(wait), jobs=None))
    assert got[2] == (100.0, 1, False)


def test_relaxation_under_folding_and_the_head_tried_again():
    """FCFS-family rules keep the constraint when they fold (RSR-1 folds 4 to 2 nodes on one rack and
    starts at once); FCFS starts the relaxed head at the deadline and job 3 after it."""
    fold = rows(simulate(FirstFree(RACKS), "RSR-1", waiting_case(5.0), jobs=None))
    assert fold[2] == (12.0, 1, False)
    plain = rows(simulate(FirstFree(RACKS), "FCFS", waiting_case(5.0), jobs=None))
    assert plain[3][0] == 19.0  # FCFS: job 3 waits for the head, which ends at 19


def test_zero_wait_relaxes_at_once():
    got = rows(simulate(FirstFree(RACKS), "EASY", waiting_case(0.0), jobs=None))
    assert got[2] == (12.0, 2, True)


def test_the_mixin_relaxes_by_its_timer_only():
    w = SwitchesWait()
    w._waits_init()
    job = Job(7, 3.0, TreeRequest(5, switches=2, wait=4.0), 1.0)
    (timer,) = w._waits_arrival(job, 3.0)
    assert (timer.at, timer.key) == (7.0, WaitOver(7))
    assert w.request_of(job) is job.request and w.request_at(job, 6.99) is job.request
    assert w.request_at(job, 7.0) == TreeRequest(5) and w.deadline(job) == 7.0
    assert w._waits_timer("other key", 7.0) is None and w.request_of(job) is job.request
    assert w._waits_timer(WaitOver(7), 7.0) == 7 and w.request_of(job) == TreeRequest(5)
    assert w._waits_timer(WaitOver(7), 7.0) is None  # once
    w._waits_started(job)
    assert w.request_of(job) is job.request
    assert w._waits_arrival(Job(8, 0.0, TreeRequest(5, switches=2), 1.0), 0.0) is None  # waits for ever


class PlainQueue(Policy):
    """FCFS without the switches wait (as a user might write it)."""

    name = "PlainQueue"

    def __init__(self):
        super().__init__()
        self.queue, self.running = deque(), {}

    def on_arrival(self, job, now):
        self.queue.append(job)

    def on_finish(self, job, now):
        self.allocator.release(self.running.pop(job.id))

    def decide(self, now):
        out = []
        while self.queue:
            got = self.allocator.allocate(self.queue[0].request)
            if got is None:
                break
            job = self.queue.popleft()
            self.running[job.id] = got
            out.append(self.start(job, got))
        return out


def test_a_policy_without_the_wait_refuses_it_by_name():
    with pytest.raises(ParameterError, match=r"job 2 .* policy PlainQueue does not implement that wait"):
        simulate(FirstFree(RACKS), PlainQueue(), waiting_case(5.0), jobs=None)
    # without a wait the constraint is an allocator's matter: any policy runs it
    assert rows(simulate(FirstFree(RACKS), PlainQueue(), waiting_case(None), jobs=None))[2] == (100.0, 1, False)


def test_a_request_no_placement_can_ever_satisfy_is_refused_when_it_arrives():
    """Eight nodes on one 4-node leaf switch, for ever: refused by name instead of a queue blocked for
    ever (an endless workload would never end); with a wait it runs relaxed."""
    jobs = [Job(0, 0.0, 2, 1.0), Job(1, 1.0, TreeRequest(8, switches=1), 1.0)]
    with pytest.raises(UnplaceableRequestError, match=r"job 1 requests .*switches=1.* cannot place") as info:
        simulate(FirstFree(RACKS), "FCFS", jobs, jobs=None)
    assert info.value.job == 1
    jobs[1] = Job(1, 1.0, TreeRequest(8, switches=1, wait=3.0), 1.0)
    assert rows(simulate(FirstFree(RACKS), "FCFS", jobs, jobs=None))[1] == (4.0, 2, True)


# -- every queue policy on constrained requests -----------------------------------------------------
@pytest.mark.parametrize("policy", QUEUE_POLICIES)
def test_queue_policies_run_constrained_requests_and_honour_them(policy):
    """The kueue#4634 mix with required rack/block by size and a switches wait on 1,280 nodes: every
    grant meets its request's constraint (after a fold, the folded one's), no two running jobs share
    a node, and the folding rules fold TreeRequests."""
    tree = kueue_tree()
    for rule in (LevelBySize(), Switches(wait=1800.0)):
        work = hero_mix(0.6, constraints=rule)
        jobs = work.take(400, seed=3)
        r = simulate(FirstFree(tree), policy, jobs, jobs=None, record_placement=True)
        assert len(r) == 400
        by_id = {j.id: j for j in jobs}
        alloc = FirstFree(tree)
        for row in r.table:
            job = by_id[int(row["id"])]
            nodes = r.placements[job.id]
            assert len(nodes) == row["granted"]
            request = job.request
            if isinstance(request, TreeRequest) and row["granted"] < request.count:
                assert policy not in ("FCFS", "EASY", "Conservative")
                request = TreeRequest(int(row["granted"]), required=request.required, switches=request.switches)
            if isinstance(request, TreeRequest) and request.switches is not None and row["relaxed"]:
                request = request.relaxed()
            tree_constraint_met(alloc, np.ones(tree.size, dtype=bool), request, SimpleNamespace(nodes=nodes))
            assert row["leaf_switches"] == tree.leaf_switches_spanned(nodes)
        _no_overlap(r)


def _no_overlap(result) -> None:
    events = sorted([(float(s), 1, int(i)) for i, s in zip(result.id, result.start, strict=True)]
                    + [(float(e), 0, int(i)) for i, e in zip(result.id, result.end, strict=True)])
    held = np.zeros(result.size, dtype=bool)
    for _, kind, jid in events:
        nodes = result.placements[jid]
        if kind == 1:
            assert not held[nodes].any(), f"job {jid} starts on a node in use"
            held[nodes] = True
        else:
            held[nodes] = False


def test_folding_keeps_the_constraint():
    """RSR-1 folds a required-rack job that does not fit (four nodes; two free, on rack 1) to two
    nodes, still inside one rack; FCFS waits for a rack of four."""
    jobs = [Job(0, 0.0, 6, 10.0), Job(1, 1.0, TreeRequest(4, required="rack"), 5.0), Job(2, 2.0, 2, 3.0)]
    fold = simulate(FirstFree(RACKS), "RSR-1", jobs, jobs=None, record_placement=True)
    assert fold.table["granted"].tolist() == [6, 2, 2] and fold.start.tolist() == [0.0, 1.0, 10.0]
    assert fold.placements[1].tolist() == [6, 7]
    plain = simulate(FirstFree(RACKS), "FCFS", jobs, jobs=None, record_placement=True)
    assert plain.start.tolist() == [0.0, 10.0, 10.0] and plain.placements[1].tolist() == [0, 1, 2, 3]


def test_easy_remembers_failed_requests_by_the_request_not_the_size():
    """Free nodes 3 (rack 0) and 7 (rack 1) from 5: the head asks for two nodes in one rack and
    fails; a later plain request for two nodes, ending before the head's shadow time (50), is still
    tried and backfilled on them. FCFS keeps it behind the head."""
    jobs = [Job(0, 0.0, 3, 50.0), Job(1, 0.0, 1, 5.0), Job(2, 0.0, 3, 50.0), Job(3, 0.0, 1, 5.0),
            Job(4, 6.0, TreeRequest(2, required="rack"), 4.0), Job(5, 6.0, 2, 1.0)]
    easy = simulate(FirstFree(RACKS), "EASY", jobs, jobs=None)
    assert easy.start.tolist() == [0.0, 0.0, 0.0, 0.0, 50.0, 6.0]
    fcfs = simulate(FirstFree(RACKS), "FCFS", jobs, jobs=None)
    assert fcfs.start.tolist() == [0.0, 0.0, 0.0, 0.0, 50.0, 50.0]
    # the head is blocked by the topology from 6 to 50, but for [6, 7) under EASY (the backfilled job
    # holds both free nodes then)
    assert fcfs.blocked_time == pytest.approx(44.0) and easy.blocked_time == pytest.approx(43.0)


# -- blocked by topology ---------------------------------------------------------------------------
@pytest.mark.parametrize("policy, time, episodes", [("FCFS", 5.0, 1), ("EASY", 4.0, 2), ("Conservative", 4.0, 2)])
def test_blocked_by_topology_on_the_hand_made_case(policy, time, episodes):
    """From 12 (job 2 arrives, four nodes free on two racks) to 17 (its wait ends) the head waits
    with its count free: 5 time units, one episode. EASY and Conservative backfill job 3 on one of the
    free nodes over [13, 14): three are free then, so that second is not counted (4 in two episodes)."""
    r = simulate(FirstFree(RACKS), policy, waiting_case(5.0), jobs=None)
    assert r.blocked_time == pytest.approx(time) and r.blocked_episodes == episodes
    s = r.summary()
    assert s["blocked_by_topology"] == pytest.approx(time) and s["blocked_episodes"] == episodes
    assert s["blocked_fraction"] == pytest.approx(time / r.duration)


def test_blocked_by_topology_waiting_for_ever_is_88():
    r = simulate(FirstFree(RACKS), "FCFS", waiting_case(None), jobs=None)
    assert (r.blocked_time, r.blocked_episodes) == (88.0, 1)  # from 12 to 100


def test_external_fragmentation_on_a_mesh_is_the_same_measure():
    """First fit on a 4 x 2 mesh: columns 0 and 3 are held to 10, the 2 x 2 block in the middle is
    free from 3; a 4 x 1 job arriving at 1 finds four free nodes from 3 and no free row: blocked
    from 3 to 10."""
    jobs = [Job(0, 0.0, (1, 2), 10.0), Job(1, 0.0, (2, 2), 3.0), Job(2, 0.0, (1, 2), 10.0),
            Job(3, 1.0, (4, 1), 1.0)]
    r = simulate(FirstFit(Mesh(4, 2)), "FCFS", jobs, jobs=None)
    assert r.start.tolist() == [0.0, 0.0, 0.0, 10.0]
    assert (r.blocked_time, r.blocked_episodes) == (7.0, 1)
    flat = simulate(FlatPool(Flat(8)), "FCFS", [Job(0, 0.0, 2, 10.0), Job(1, 0.0, 4, 3.0), Job(2, 0.0, 2, 10.0),
                                                 Job(3, 1.0, 4, 1.0)], jobs=None)
    assert flat.start.tolist() == [0.0, 0.0, 0.0, 3.0] and flat.blocked_time == 0.0  # any free processors


def test_blocked_time_is_measured_inside_the_window_only():
    r = simulate(FirstFree(RACKS), "FCFS", waiting_case(5.0), jobs=None, warmup=3)
    assert r.window[0] == 13.0 and r.blocked_time == pytest.approx(4.0)  # [13, 17)


def test_conservative_waiting_for_its_reservation_is_not_blocked_by_topology():
    """With plain counts on FirstFree every free count places: a job that waits for its reservation
    (a later job's reservation would be delayed) is not counted, unlike with required racks."""
    plain = simulate(FirstFree(kueue_tree()), "Conservative", hero_mix(0.5), jobs=1500, warmup=150, seed=1)
    assert plain.blocked_time == 0.0
    tas = simulate(FirstFree(kueue_tree()), "Conservative", hero_mix(0.5, constraints=LevelBySize()), jobs=1500,
                   warmup=150, seed=1)
    assert tas.blocked_time > 0 and tas.blocked_episodes > 0


class RackOnly(TreeAllocator):
    """Grants only inside one leaf switch (no job may span racks): a rule, not a constraint."""

    def _choose_count(self, n, free):
        t = self.topology
        for s in t.leaf_switch_ids.tolist():
            ids = np.flatnonzero(free[t.first[s]:t.stop[s]])[:n] + t.first[s]
            if len(ids) == n:
                return ids
        return None


def test_an_allocators_rule_blocks_the_head_too():
    """The same case with plain counts under an allocator that never spans racks: blocked from 12 to
    100; and a job larger than a rack is refused by name, not queued for ever."""
    jobs = [Job(0, 0.0, 2, 10.0), Job(1, 0.0, 2, 100.0), Job(2, 0.0, 2, 100.0), Job(3, 12.0, 4, 2.0)]
    r = simulate(RackOnly(RACKS), "FCFS", jobs, jobs=None)
    assert r.start.tolist() == [0.0, 0.0, 0.0, 100.0]
    assert r.blocked_time == 88.0
    with pytest.raises(UnplaceableRequestError, match="cannot place"):
        simulate(RackOnly(RACKS), "FCFS", [Job(0, 0.0, 5, 1.0)], jobs=None)

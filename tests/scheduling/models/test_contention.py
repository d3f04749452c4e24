"""The flow-level contention model (scheduling.models.contention) and the simulator's re-rating of
running jobs (issue 27: jobs that slow each other through shared links).

Hand-computed cases follow from the model's definition (the module docstring): a job's slowdown is
``s = max_l w_l max(1, U_l)`` over its links, with ``U_l`` the sum of the running jobs' demands
``f w``, and its factor ``A + (A - (1 - f)) (s - 1)``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduling import Job, simulate
from scheduling.kernel.actions import Resize, Resume, Start, Suspend, Timer
from scheduling.models.contention import Contention, NoLinksError, pair_traffic, stencil_pairs
from scheduling.models.runtime import Dilation, RuntimeModel
from scheduling.policies.base import Policy
from scheduling.workloads import Exponential, MeshSides, Synthetic, Uniform
from topoalloc import Allocation, FirstFit, FlatPool, Random
from topoalloc.grid.noncontig import Random as GridRandom
from topologies import Box, Flat, Hypercube, Mesh, Submesh, SwitchTree, Torus


def _grant(nodes, request=None, placement=None) -> Allocation:
    nodes = np.asarray(nodes, dtype=np.int64)
    return Allocation(0, 1, len(nodes) if request is None else request, placement, nodes)


class Scripted(Policy):
    """Starts each job at its arrival on the nodes in ``job.attrs["nodes"]`` and carries out the
    actions ``script`` lists at their times: ``(time, "suspend" | "resume", job id)`` or ``(time,
    "move", job id, nodes)``."""

    name = "Scripted"

    def __init__(self, script=()) -> None:
        super().__init__()
        self.script = list(script)
        self.jobs: dict[int, Job] = {}
        self.arrived: list[Job] = []

    def on_arrival(self, job, now):
        self.arrived.append(job)
        self.jobs[job.id] = job

    def on_finish(self, job, now):
        return None

    def on_timer(self, key, now):
        kind, jid, *rest = self.script[key][1:]
        job = self.jobs[jid]
        if kind == "suspend":
            return [Suspend(job)]
        if kind == "resume":
            return [Resume(job)]
        return [Resize(job, len(rest[0]), _grant(rest[0]))]

    def decide(self, now):
        out = []
        if now == 0.0:
            out += [Timer(t[0], i) for i, t in enumerate(self.script)]
        for job in self.arrived:
            g = _grant(job.attrs["nodes"], job.request, job.attrs.get("placement"))
            out.append(Start(job, g, g.size, g.size))
        self.arrived = []
        return out

    def reference_size(self, job):
        return len(job.attrs["nodes"])


def _job(jid, arrival, nodes, runtime=10.0, comm=1.0, request=None):
    return Job(jid, arrival, len(nodes) if request is None else request, runtime, comm=comm,
               attrs={"nodes": list(nodes)})


def _run(topology, jobs, model, script=()):
    return simulate(Random(topology) if isinstance(topology, Mesh) and topology.ndim == 2 and not any(topology.wrap)
                    else FlatPool(Flat(topology.size)), Scripted(script), jobs, jobs=None, runtime_model=model)


# -- hand-computed cases -----------------------------------------------------------------------------
def test_two_jobs_sharing_the_middle_link_of_a_4x1_mesh_run_at_half_speed():
    """Hand-computed (model definition): on a 4x1 mesh, job 0 on nodes {0, 2} and job 1 on {1, 3},
    each an all-to-all of two nodes communicating all the time (comm 1, no placement cost). Each
    puts 2 messages on each of its two links, so w = 1 on both and demand 1; the middle link
    carries demand 2, so s = 2 for both: rate 1/20 together, 1/10 alone. Job 0 starts at 0, job 1
    at 5: job 0 has done half by 5, the other half takes 10 -> ends at 15; job 1 does half by 15,
    the rest alone in 5 -> ends at 20. Each lost 5 time units to the other."""
    r = simulate(Random(Mesh(4, 1)), Scripted(), [_job(0, 0.0, [0, 2]), _job(1, 5.0, [1, 3])], jobs=None,
                 runtime_model=Contention(placement=None))
    assert r.end.tolist() == [15.0, 20.0]
    assert r.interference.tolist() == [5.0, 5.0]
    assert r.dilation.tolist() == [0.0, 0.0]
    assert r.summary()["mean_interference"] == 5.0
    assert r.summary()["interference_fraction"] == pytest.approx(10.0 / 30.0)


def test_a_link_below_its_capacity_slows_nobody_and_above_it_slows_the_communicating_share():
    """Hand-computed: the same two jobs with comm 0.5 ask 0.5 + 0.5 = 1 of the middle link: no
    slowdown (a fluid link below capacity). With comm 0.75 they ask 1.5: s = 1.5 and the factor
    0.25 + 0.75 x 1.5 = 1.375. Job 0 does half alone by 5, then 0.5 x 13.75 = 6.875 -> 11.875; job
    1 does half by 11.875, the rest alone in 5 -> 16.875."""
    for comm, ends in ((0.5, [10.0, 15.0]), (0.75, [11.875, 16.875])):
        jobs = [_job(0, 0.0, [0, 2], comm=comm), _job(1, 5.0, [1, 3], comm=comm)]
        r = simulate(Random(Mesh(4, 1)), Scripted(), jobs, jobs=None, runtime_model=Contention(placement=None))
        assert r.end.tolist() == pytest.approx(ends, abs=1e-12)
        lost = [e - s - 10.0 for e, s in zip(ends, [0.0, 5.0], strict=True)]
        assert r.interference.tolist() == pytest.approx(lost, abs=1e-12)


def test_contention_multiplies_only_the_communicating_share_on_top_of_the_dilation():
    """Hand-computed: with the Dilation placement cost, the count request 2 on {0, 2} has mean hops 2
    against the compact pair's 1 (ratio 2): alone factor A = 0.25 + 0.75 x 2 = 1.75 (dilation 7.5
    per 10 units); with s = 1.5, F = A + (A - 0.25) x 0.5 = 2.5. Job 0: 5/17.5 of its work by 5, the
    rest at F -> 5 + (1 - 5/17.5) x 25 = 22.857..."""
    jobs = [_job(0, 0.0, [0, 2], comm=0.75), _job(1, 5.0, [1, 3], comm=0.75)]
    r = simulate(Random(Mesh(4, 1)), Scripted(), jobs, jobs=None, runtime_model=Contention())
    assert r.end[0] == pytest.approx(5 + (1 - 5 / 17.5) * 25)
    assert r.dilation.tolist() == pytest.approx([7.5, 7.5])
    assert r.interference[0] == pytest.approx(r.end[0] - 17.5)


def test_suspended_jobs_send_nothing_and_a_moved_job_leaves_its_old_links():
    """Hand-computed. Suspend: both jobs on the 4x1 mesh from 0 (rate 1/20), job 1 suspended over
    [2, 4]: job 0 has 0.1 by 2, 0.3 by 4, then 0.7 at 1/20 -> 18; job 1 0.1 by 2, 0.8 by 18, then
    alone -> 20; each lost 8. Move: on a 6x1 mesh job 1 moves at 5 from {1, 3} to {4, 5}, sharing
    nothing any more: both have a quarter done at 5 and finish alone at 12.5."""
    jobs = [_job(0, 0.0, [0, 2]), _job(1, 0.0, [1, 3])]
    r = _run(Mesh(4, 1), jobs, Contention(placement=None), [(2.0, "suspend", 1), (4.0, "resume", 1)])
    assert r.end.tolist() == pytest.approx([18.0, 20.0])
    assert r.interference.tolist() == pytest.approx([8.0, 8.0])
    r = _run(Mesh(6, 1), jobs, Contention(placement=None), [(5.0, "move", 1, [4, 5])])
    assert r.end.tolist() == pytest.approx([12.5, 12.5])
    assert r.interference.tolist() == pytest.approx([2.5, 2.5])
    assert r.changes.tolist() == [0, 1]


# -- re-rating: only the sharers, and every sharer -------------------------------------------------
def _brute_slowdowns(topology, running: dict[int, tuple[np.ndarray, float]]) -> dict[int, float]:
    """Per job, s = max over its links of w max(1, U), from scratch: per-link loops over the jobs."""
    cap = np.asarray(topology.capacity, dtype=float)
    w = {}
    for j, (nodes, _) in running.items():
        t = np.asarray(topology.link_traffic(nodes), dtype=float) / cap
        w[j] = t / t.max()
    U = np.zeros(topology.n_links)
    for j, (_, f) in running.items():
        U += f * w[j]
    return {j: float(max(w[j][link] * max(1.0, U[link]) for link in np.flatnonzero(w[j]))) for j in running}


@pytest.mark.parametrize("topology", [Mesh(6, 5), Hypercube(5), SwitchTree.uniform((4, 8), oversubscription=4),
                                      Torus(4, 5)], ids=repr)
def test_a_start_or_an_end_re_rates_exactly_the_jobs_whose_slowdown_changed(topology):
    """Random starts and ends of all-to-all jobs: after each, every running job's slowdown equals a
    from-scratch computation; the jobs the model returns are exactly those whose factor changed, and
    each of them shares a link with the job that started or ended (re-rating is local)."""
    rng = np.random.default_rng(7)
    m = Contention(placement=None, pattern="all-to-all")
    m.begin(topology)
    running: dict[int, tuple[np.ndarray, float]] = {}
    factor: dict[int, float] = {}
    free = np.ones(topology.size, dtype=bool)
    for step in range(120):
        if running and (rng.random() < 0.4 or free.sum() < 4):
            jid = int(rng.choice(list(running)))
            nodes, _ = running.pop(jid)
            free[nodes] = True
            factor.pop(jid)
            changed = m.ended(jid)
            mover = nodes
        else:
            jid = step
            nodes = np.sort(rng.choice(np.flatnonzero(free), int(rng.integers(2, 5)), replace=False))
            f = float(rng.uniform(0.3, 1.0))
            free[nodes] = False
            running[jid] = (nodes, f)
            changed = m.started(Job(jid, 0.0, len(nodes), 1.0, comm=f), _grant(nodes), topology, 1.0)
            assert jid in changed
            factor[jid] = 1.0
            mover = nodes
        brute = _brute_slowdowns(topology, running)
        want = {j: 1.0 + running[j][1] * (brute[j] - 1.0) for j in running}
        moved = {j for j in running if not math.isclose(want[j], factor[j], rel_tol=1e-9, abs_tol=1e-12)}
        assert set(changed) - {jid} == moved - {jid}
        links = np.asarray(topology.link_traffic(mover)) > 0
        for j in moved - {jid}:
            assert (links & (np.asarray(topology.link_traffic(running[j][0])) > 0)).any()
        for j, v in changed.items():
            factor[j] = v
        for j in running:
            assert m.slowdown(j) == pytest.approx(brute[j], rel=1e-9)


def test_a_job_sharing_no_link_is_not_re_rated():
    """Jobs on disjoint rows of a mesh: a start or an end in one row re-rates only the jobs of that
    row (the model's answer: the jobs whose completions the simulator re-predicts)."""
    mesh = Mesh(4, 2)
    m = Contention(placement=None)
    m.begin(mesh)
    assert m.started(Job(0, 0.0, 2, 1.0, comm=1.0), _grant([0, 2]), mesh, 1.0) == {0: 1.0}
    assert m.started(Job(1, 0.0, 2, 1.0, comm=1.0), _grant([4, 6]), mesh, 1.0) == {1: 1.0}
    assert m.started(Job(2, 0.0, 2, 1.0, comm=1.0), _grant([5, 7]), mesh, 1.0) == {1: 2.0, 2: 2.0}
    assert m.ended(0) == {}
    assert m.ended(2) == {1: 1.0}


def test_box_jobs_and_routed_jobs_give_the_same_factors():
    """Stencils on boxes granted in their requested shape are kept without routing (their nodes
    mark their links); mixed with scattered jobs, every factor equals the one the routed path
    gives."""
    rng = np.random.default_rng(3)
    for topology in (Mesh(6, 5), Torus(5, 4)):
        fast, slow = Contention(placement=None), Contention(placement=None)
        slow._as_box = lambda job, allocation: None  # every job routed
        fast.begin(topology)
        slow.begin(topology)
        free = np.ones(topology.size, dtype=bool)
        running: list[int] = []
        seen_fast: dict[int, float] = {}
        seen_slow: dict[int, float] = {}
        nodes_of: dict[int, np.ndarray] = {}
        W, H = topology.dims
        for step in range(200):
            if running and rng.random() < 0.45:
                jid = running.pop(int(rng.integers(len(running))))
                free[nodes_of[jid]] = True
                a, b = fast.ended(jid), slow.ended(jid)
            else:
                w, h = (int(v) for v in rng.integers(1, 4, 2))
                x, y = int(rng.integers(0, W - w + 1)), int(rng.integers(0, H - h + 1))
                if rng.random() < 0.5:
                    sub = Submesh(x, y, w, h)
                    nodes, request = sub.node_ids(W), (w, h)
                    g = Allocation(0, step + 1, request, sub, np.asarray(nodes, dtype=np.int64))
                else:
                    cand = np.flatnonzero(free)
                    nodes = np.sort(rng.choice(cand, min(len(cand), w * h), replace=False))
                    request = len(nodes)
                    g = _grant(nodes)
                if len(nodes) < 2 or not free[nodes].all():
                    continue
                free[nodes] = False
                nodes_of[step] = nodes
                running.append(step)
                job = Job(step, 0.0, request, 1.0, comm=float(rng.uniform(0.3, 1.0)))
                a, b = fast.started(job, g, topology, 1.0), slow.started(job, g, topology, 1.0)
            seen_fast.update(a)
            seen_slow.update(b)
            for j in running:
                assert seen_fast.get(j, 1.0) == pytest.approx(seen_slow.get(j, 1.0), rel=1e-9)



def test_link_demand_counts_a_box_job_started_while_no_routed_job_runs():
    """Hand-computed: a stencil with comm 0.5 on the 2x2 box at the origin of Mesh(4, 2) asks 0.5 of
    its four inner links (x links 0-1 and 4-5: ids 0 and 3; y links 0-4 and 1-5: ids 6 and 7) and
    nothing elsewhere; after its end, nothing anywhere."""
    mesh = Mesh(4, 2)
    m = Contention(placement=None)
    m.begin(mesh)
    sub = Submesh(0, 0, 2, 2)
    grant = Allocation(0, 1, (2, 2), sub, np.asarray(sub.node_ids(4), dtype=np.int64))
    assert m.started(Job(0, 0.0, (2, 2), 1.0, comm=0.5), grant, mesh, 1.0) == {0: 1.0}
    assert m.link_demand.tolist() == [0.5, 0, 0, 0.5, 0, 0, 0.5, 0.5, 0, 0]
    assert m.ended(0) == {} and m.link_demand.tolist() == [0.0] * 10


# -- nothing changes without the model or without communication -------------------------------------
def _mesh_workload(comm):
    return Synthetic(MeshSides(16, 16), Exponential(5.0), load=0.3, machine_size=256, comm=comm)


def test_with_no_communication_the_schedule_is_the_one_without_a_model():
    for alloc in (Random, FirstFit):
        plain = simulate(alloc(Mesh(16, 16)), "FCFS", _mesh_workload(0.0), jobs=300, warmup=30, seed=2)
        model = simulate(alloc(Mesh(16, 16)), "FCFS", _mesh_workload(0.0), jobs=300, warmup=30, seed=2,
                         runtime_model=Contention())
        assert model.schedule() == plain.schedule()
        assert (model.interference == 0.0).all() and "interference" not in plain.table.dtype.names


def test_contiguous_boxes_share_no_link_so_contention_adds_nothing_to_the_dilation():
    """First fit grants each shaped job its own box; stencil routes stay inside it: the schedule
    with the contention model is the Dilation model's, and no job loses time to another."""
    w = _mesh_workload(Uniform(0.5, 1.0))
    dil = simulate(FirstFit(Mesh(16, 16)), "FCFS", w, jobs=300, warmup=30, seed=2, runtime_model=Dilation())
    con = simulate(FirstFit(Mesh(16, 16)), "FCFS", w, jobs=300, warmup=30, seed=2, runtime_model=Contention())
    assert con.schedule() == dil.schedule()
    assert (con.interference == 0.0).all()


def test_interference_is_never_negative_and_zero_for_a_job_alone():
    r = simulate(Random(Mesh(16, 16)), "FCFS", _mesh_workload(Uniform(0.5, 1.0)), jobs=300, warmup=30, seed=2,
                 runtime_model=Contention())
    assert (r.interference >= -1e-9).all() and (r.interference > 0).any()
    ran = r.end - r.start
    assert ran == pytest.approx(r.runtime + r.dilation + r.interference)  # no resizes, linear speedup
    alone = simulate(Random(Mesh(16, 16)), "FCFS", [Job(0, 0.0, (8, 8), 5.0, comm=1.0)], jobs=None,
                     runtime_model=Contention())
    assert alone.interference.tolist() == [0.0]


# -- every network, and a clear error without one ---------------------------------------------------
@pytest.mark.parametrize("topology", [Hypercube(6), SwitchTree.uniform((4, 8), oversubscription=4), Torus(6, 6),
                                      Mesh(4, 4, 4)], ids=repr)
def test_the_model_runs_on_every_topology_with_links(topology):
    import topoalloc
    from topoalloc.errors import UnsupportedTopologyError

    name = {Hypercube: "Buddy", SwitchTree: "FirstFree"}.get(type(topology), "Random")
    try:
        alloc = topoalloc.get(name, topology)
    except UnsupportedTopologyError:  # d-dimensional meshes and tori: the allocators of topoalloc.grid
        grid = pytest.importorskip("topoalloc.grid.noncontig", reason="no allocator of tori and d-dim meshes")
        alloc = grid.Random(topology)
    rng = np.random.default_rng(1)
    sizes = [int(2 ** rng.integers(1, 4)) for _ in range(60)]
    jobs = [Job(i, 0.3 * i, int(np.log2(s)) if isinstance(topology, Hypercube) else s, 3.0, comm=0.8)
            for i, s in enumerate(sizes)]
    r = simulate(alloc, "FCFS", jobs, jobs=None, runtime_model=Contention())
    assert len(r) == 60 and (r.interference >= -1e-9).all()
    if not isinstance(topology, Hypercube):  # subcubes route e-cube inside themselves: no sharing
        assert (r.interference > 0).any()


def test_a_topology_without_links_is_refused_naming_it():
    with pytest.raises(NoLinksError, match=r"Flat\(size=8\)"):
        simulate(FlatPool(Flat(8)), "FCFS", [Job(0, 0.0, 2, 1.0, comm=0.5)], jobs=None, runtime_model=Contention())


def test_bad_arguments_are_refused_naming_the_value():
    with pytest.raises(ValueError, match="'ring'"):
        Contention(pattern="ring")
    with pytest.raises(ValueError, match="'hops'"):
        Contention(placement="hops")
    with pytest.raises(ValueError, match="nearest-neighbour"):
        Contention(pattern="nearest-neighbour").check(Hypercube(3))


# -- routing without loops --------------------------------------------------------------------------
@pytest.mark.parametrize("topology", [Mesh(5, 4), Torus(4, 5), Mesh(3, 4, 2, wrap=(True, False, True)), Torus(6, 3, 4),
                                      Mesh(7, 1), Torus(2, 5)], ids=repr)
def test_pair_traffic_counts_the_routes_the_topology_takes(topology):
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, topology.size, 200), rng.integers(0, topology.size, 200)
    want = np.zeros(topology.n_links, dtype=np.int64)
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        np.add.at(want, topology.route(a, b), 1)
    assert pair_traffic(topology, src, dst).tolist() == want.tolist()


def test_a_box_wrapping_round_a_torus_lays_its_ranks_on_its_own_grid():
    """Hand-computed (regression: the ranks were laid on the sorted node ids, 0 1 2 5 6 7, so the
    pair 2 -> 5 crossed links 2..4 outside the box). The 6x1 box at x = 5 on row 0 of Torus(8, 8)
    wraps: its ranks sit on x = 5 6 7 0 1 2, and its stencil loads exactly the ring segment's links
    5-6, 6-7, 7-0 (the wrap link, id 7), 0-1 and 1-2 (ids 5, 6, 7, 0, 1), one pair (2 messages)
    each. Alone: no interference. Beside a pair on nodes 3 and 4 (link 3, outside the segment):
    none either (the sorted-id layout gave both s = 2: 10 lost each). Beside a pair on (4, 0) and
    (6, 1) (ids 4 and 14), whose message 4 -> 14 goes along row 0 over links 4-5 and 5-6 first:
    link 5-6 carries 1 + 1 = 2, so both run at s = 2 and end at 20, 10 lost each."""
    torus = Torus(8, 8)
    box = Box((5, 0), (6, 1))
    grant = Allocation(0, 1, (6, 1), box, box.node_ids((8, 8)))
    t = Contention().traffic(Job(0, 0.0, (6, 1), 1.0, comm=1.0), grant, torus)
    assert np.flatnonzero(t).tolist() == [0, 1, 5, 6, 7] and t[[0, 1, 5, 6, 7]].tolist() == [2] * 5
    wrapping = _job(0, 0.0, box.node_ids((8, 8)).tolist(), request=(6, 1))
    wrapping.attrs["placement"] = box
    for other, end, lost in (([], [10.0], [0.0]), ([3, 4], [10.0, 10.0], [0.0, 0.0]),
                             ([4, 14], [20.0, 20.0], [10.0, 10.0])):
        jobs = [wrapping] + ([_job(1, 0.0, other)] if other else [])
        r = simulate(GridRandom(torus), Scripted(), jobs, jobs=None, runtime_model=Contention(placement=None))
        assert r.end.tolist() == pytest.approx(end) and r.interference.tolist() == pytest.approx(lost, abs=1e-12)


@pytest.mark.parametrize("topology", [Mesh(6, 5), Torus(4, 5), Mesh(3, 4, 2, wrap=(True, False, True)), Torus(2, 5),
                                      Torus(6, 3, 4)], ids=repr)
def test_a_stencil_on_scattered_nodes_sends_each_neighbour_pair_both_ways_as_routed(topology):
    """Ranks on the sorted node ids; every neighbour pair's two messages routed one by one
    (``topology.route``) give the model's traffic, rings' half-way ties included."""
    rng = np.random.default_rng(5)
    nd = len(topology.dims)
    for _ in range(10):
        shape = tuple(int(rng.integers(1, min(3, L) + 1)) for L in topology.dims)
        if math.prod(shape) < 2:
            continue
        nodes = np.sort(rng.choice(topology.size, math.prod(shape), replace=False))
        t = Contention().traffic(Job(0, 0.0, shape, 1.0, comm=1.0), _grant(nodes, shape), topology)
        src, dst = stencil_pairs(shape)
        want = np.zeros(topology.n_links, dtype=np.int64)
        for a, b in zip(nodes[src].tolist(), nodes[dst].tolist(), strict=True):
            np.add.at(want, topology.route(a, b), 1)
            np.add.at(want, topology.route(b, a), 1)
        assert t.tolist() == want.tolist(), (shape, nd)


def test_a_stencil_on_its_own_box_loads_each_inner_link_with_one_pair():
    mesh = Mesh(8, 6)
    grant = FirstFit(mesh).allocate((3, 2))
    t = Contention().traffic(Job(0, 0.0, (3, 2), 1.0, comm=1.0), grant, mesh)
    assert sorted(set(t.tolist())) == [0, 2] and int(t.sum()) == 2 * len(stencil_pairs((3, 2))[0])


# -- the hook ---------------------------------------------------------------------------------------
def test_a_model_that_does_not_interact_keeps_the_table_as_it_was():
    class Half(RuntimeModel):
        def factor(self, job, allocation, topology):
            return 0.5

    r = simulate(Random(Mesh(4, 4)), "FCFS", [Job(0, 0.0, 4, 2.0)], jobs=None, runtime_model=Half())
    assert r.end.tolist() == [1.0] and "interference" not in r.table.dtype.names


def test_experiment_files_name_the_model():
    from scheduling.experiments.schema import Component, WorkloadSpec

    m = WorkloadSpec(runtime_model=Component.of("Contention", placement="none", pattern="all-to-all")) \
        .make_runtime_model()
    assert isinstance(m, Contention) and m.placement is None and m.pattern == "all-to-all"
    assert isinstance(WorkloadSpec(runtime_model=Component("contention")).make_runtime_model().placement, Dilation)

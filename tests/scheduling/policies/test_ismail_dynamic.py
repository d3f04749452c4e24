"""Ismail's dynamic space sharing (seed 000 ch. 4): the rules as the paper states them, the
reconfiguration overhead and the workloads. The paper's claims (§4.4.2, §4.5, Table 4.3) are defined
once in scheduling/reproduce/seed000.py and run by tests/scheduling/reproduce/test_reproduce.py; full-size runs
(5,500 jobs, first 500 discarded, replications to 5% at 95%) are in examples/ismail_dynamic.py.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import Job, Simulator
from scheduling.kernel.actions import Resize, Start
from scheduling.models.applications import LONG_APPLICATIONS, ApplicationMix, application, applications, mean_runtime
from scheduling.models.speedup import Amdahl, Linear
from scheduling.policies import DEQP, DFCFS, DPROP, DPROPSH, DPROPSM, DSMJF, get
from scheduling.policies.ismail_dynamic import water_fill
from scheduling.workloads import ismail_dynamic
from topoalloc import Buddy, FlatPool
from topoalloc.errors import UnsupportedTopologyError
from topologies import Flat, Hypercube

DYNAMIC = ("DEQP", "DPROP", "DFCFS", "DSMJF", "DPROP-SM/2", "DPROP-SH/4")


def bound(policy, P):
    p = get(policy) if isinstance(policy, str) else policy
    p.bind(FlatPool(Flat(P)))
    return p


# -- the allocation rules -------------------------------------------------------------------------
def deqp_literal(ns, P):
    """§4.3 word for word: min(n, int(P/M)) each, then repeated scans in non-decreasing order of
    demand giving one more to each job below its demand."""
    order = sorted(range(len(ns)), key=lambda i: (ns[i], i))
    alloc = [min(n, P // len(ns)) for n in ns]
    free = P - sum(alloc)
    while free > 0 and any(a < n for a, n in zip(alloc, ns, strict=True)):
        for i in order:
            if free and alloc[i] < ns[i]:
                alloc[i] += 1
                free -= 1
    return alloc


def dprop_literal(ns, P):
    """§4.3: max(1, int(n/ff)), ff = max(1, T/P); leftovers to the earliest arrivals, one each,
    scans repeated (the case without overcommitment)."""
    ff = max(1.0, sum(ns) / P)
    alloc = [max(1, int(n / ff + 1e-12)) for n in ns]
    free = P - sum(alloc)
    while free > 0 and any(a < n for a, n in zip(alloc, ns, strict=True)):
        for i in range(len(ns)):
            if free and alloc[i] < ns[i]:
                alloc[i] += 1
                free -= 1
    return alloc


@given(st.integers(1, 64).flatmap(lambda P: st.tuples(st.just(P), st.lists(st.integers(1, P), min_size=1,
                                                                              max_size=P))))
def test_deqp_targets_are_the_papers_repeated_scans(case):
    P, ns = case
    p = bound(DEQP(), P)
    for i, n in enumerate(ns):
        p._admit(Job(i, 0.0, n, 1.0), None, 0.0)
    assert p.targets(list(p.shares.values())) == deqp_literal(ns, P)


@given(st.integers(1, 64).flatmap(lambda P: st.tuples(st.just(P), st.lists(st.integers(1, P), min_size=1,
                                                                              max_size=P))))
def test_dprop_targets_follow_the_paper_and_never_overcommit(case):
    P, ns = case
    p = bound(DPROP(), P)
    for i, n in enumerate(ns):
        p._admit(Job(i, 0.0, n, 1.0), None, 0.0)
    got = p.targets(list(p.shares.values()))
    assert sum(got) == min(P, sum(ns)) and all(1 <= g <= n for g, n in zip(got, ns, strict=True))
    T = sum(ns)
    if T <= P or sum(max(1, n * P // T) for n in ns) <= P:  # no overcommitment to repair
        assert got == dprop_literal(ns, P)


@given(st.lists(st.integers(0, 40), min_size=1, max_size=20), st.integers(0, 300))
def test_water_fill_is_max_min_fair(caps, total):
    out = water_fill(caps, total)
    assert sum(out) == min(total, sum(caps))
    assert all(0 <= o <= c for o, c in zip(out, caps, strict=True))
    below = [o for o, c in zip(out, caps, strict=True) if o < c]  # not capped: within one of each other
    if below:
        assert max(out) <= min(below) + 1


@pytest.mark.parametrize("name,x,canonical", [("DPROP-SM/2", 2.0, "DPROP-SM/2"), ("dprop-sm/0.5", 0.5, "DPROP-SM/0.5"),
                                              ("DPROP-SH/4", 4.0, "DPROP-SH/4")])
def test_parameterised_families_parse(name, x, canonical):
    p = get(name)
    assert p.x == x and p.name == canonical


def test_bad_parameters_are_rejected():
    for bad in (0, -1, float("inf")):
        with pytest.raises(ValueError, match="parameter x must be a finite number > 0"):
            DPROPSM(bad)
        with pytest.raises(ValueError, match="parameter x must be a finite number > 0"):
            DPROPSH(bad)
    for bad in (-0.5, float("nan"), "1"):
        with pytest.raises(ValueError, match="overhead C"):
            DEQP(bad)
    with pytest.raises(UnsupportedTopologyError, match="Flat"):
        DEQP().bind(Buddy(Hypercube(3)))


def test_dprop_sm_favours_small_jobs_more_as_x_grows():
    """§4.5: nd = n / (1 + x n / P) -- with larger x small jobs get a larger fraction of their
    request."""
    fractions = []
    for x in (0.5, 2, 8):
        p = bound(DPROPSM(x), 64)
        for i, n in enumerate((4, 60, 60, 60)):
            p._admit(Job(i, 0.0, n, 1.0), None, 0.0)
        got = p.targets(list(p.shares.values()))
        assert sum(got) == 64
        fractions.append(got[0] / 4)
    assert fractions == sorted(fractions) and fractions[-1] > fractions[0]


def test_dprop_sh_gives_long_jobs_less():
    """§4.5: a long job's extra demand is divided by x."""
    p = bound(DPROPSH(4), 32)
    p._admit(Job(0, 0.0, 30, 1.0, attrs={"long": True}), None, 0.0)
    p._admit(Job(1, 0.0, 30, 1.0, attrs={"long": False}), None, 0.0)
    long_, short = p.targets(list(p.shares.values()))
    assert long_ + short == 32 and short > 3 * long_ - 3


def test_dprop_sh_classifies_without_the_attribute():
    p = bound(DPROPSH(2, long_after=5.0), 16)
    p._admit(Job(0, 0.0, 8, 10.0), None, 0.0)
    p._admit(Job(1, 0.0, 8, 1.0), None, 0.0)
    assert p._long == {0: True, 1: False}


def test_dfcfs_serves_the_earliest_and_never_shrinks():
    """§4.3 DFCFS on 8 processors: A(6) runs on 6, B(4) gets the 2 left, C(3) waits; when A
    leaves, B grows to 4 and C gets 3."""
    p = bound(DFCFS(), 8)
    A, B, C = Job(0, 0.0, 6, 5.0), Job(1, 0.0, 4, 5.0), Job(2, 0.0, 3, 5.0)
    assert [(type(a), a.processors) for a in p.on_arrival(A, 0.0)] == [(Start, 6)]
    assert [(type(a), a.processors) for a in p.on_arrival(B, 0.0)] == [(Start, 2)]
    assert p.on_arrival(C, 0.0) == []
    acts = p.on_finish(A, 1.0)
    assert [(type(a), a.job.id, a.processors) for a in acts] == [(Resize, 1, 4), (Start, 2, 3)]
    assert p.allocator.free == 1


def test_dsmjf_serves_the_smallest_request_first():
    p = bound(DSMJF(), 8)
    A, B, C = Job(0, 0.0, 8, 5.0), Job(1, 0.0, 6, 5.0), Job(2, 0.0, 2, 5.0)
    p.on_arrival(A, 0.0)
    assert p.on_arrival(B, 0.0) == [] and p.on_arrival(C, 0.0) == []  # FP = 0: both wait
    acts = p.on_finish(A, 1.0)
    assert [(a.job.id, a.processors) for a in acts] == [(2, 2), (1, 6)]


def test_dsmjf_tops_up_running_jobs_before_starting_waiting_ones():
    """§4.3: "the smallest job that is allocated less than its processor demand receives min(n - p,
    FP) additional processors". P = 8: A(4) runs on 4, B(7) gets the other 4, C(3) waits; when A
    leaves, B is topped up to 7 and C starts on the one processor left (one queue: C gets 3, B 5)."""
    for running_first, want in ((True, [(1, 7), (2, 1)]), (False, [(2, 3), (1, 5)])):
        p = bound(DSMJF(running_first=running_first), 8)
        A, B, C = Job(0, 0.0, 4, 5.0), Job(1, 0.0, 7, 5.0), Job(2, 0.0, 3, 5.0)
        p.on_arrival(A, 0.0)
        assert [a.processors for a in p.on_arrival(B, 0.0)] == [4]
        assert p.on_arrival(C, 0.0) == []
        assert [(a.job.id, a.processors) for a in p.on_finish(A, 1.0)] == want
    with pytest.raises(ValueError, match="running_first"):
        DSMJF(running_first="yes")


def test_only_jobs_whose_count_changes_are_resized():
    p = bound(DEQP(), 16)
    p.on_arrival(Job(0, 0.0, 4, 1.0), 0.0)
    p.on_arrival(Job(1, 0.0, 4, 1.0), 0.0)
    assert [type(a) for a in p.on_arrival(Job(2, 0.0, 4, 1.0), 0.0)] == [Start]  # room for all three
    acts = p.on_arrival(Job(3, 0.0, 16, 1.0), 0.0)  # 16 = 4 + 4 + 4 + 4: nobody else changes
    assert [(type(a), a.processors) for a in acts] == [(Start, 4)]
    # a fifth job: the level drops to 3 with one extra each for the two smallest (earliest) jobs,
    # so jobs 0 and 1 keep 4 and are not touched
    acts = p.on_arrival(Job(4, 0.0, 2, 1.0), 0.0)
    assert [(type(a), a.job.id, a.processors) for a in acts] == [(Resize, 2, 3), (Resize, 3, 3), (Start, 4, 2)]


def test_overhead_c_delays_each_resized_job_by_c():
    """Linear speedup, P = 4, C = 0.5 under DEQP. A (4 procs, 4 time units) from 0; B (same) at 1:
    A goes to 2 procs with 12 units of work left -> ends at 1 + 0.5 + 6 = 7.5; B runs on 2 from 1
    (a start costs nothing), 13 units done by 7.5, then 4 procs after 0.5 -> ends at 8.75."""
    jobs = [Job(0, 0.0, 4, 4.0), Job(1, 1.0, 4, 4.0)]
    r = Simulator(FlatPool(Flat(4)), DEQP(overhead=0.5), jobs).run()
    assert r.end.tolist() == pytest.approx([7.5, 8.75])
    assert r.changes.tolist() == [1, 1]
    r0 = Simulator(FlatPool(Flat(4)), DEQP(), jobs).run()
    assert r0.end.tolist() == pytest.approx([7.0, 8.0])


def test_more_jobs_than_processors_wait_in_arrival_order():
    jobs = [Job(i, 0.0, 2, 1.0 + i) for i in range(4)]
    for name in ("DEQP", "DPROP", "DPROP-SM/1", "DPROP-SH/1"):
        r = Simulator(FlatPool(Flat(2)), name, jobs).run()
        assert len(r) == 4 and r.start.tolist()[:2] == [0.0, 0.0] and min(r.start[2:]) > 0


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_policies_leave_no_processor_idle_while_demand_waits(name):
    """§4.4: "The scheduling effectiveness of the dynamic policies is equal to one because they
    avoid processor fragmentation"; and useful work is conserved: the integral of the running
    jobs' speedups equals the jobs' sequential work."""
    w = ismail_dynamic("exponential", load=0.9, speedup="misp", machine_size=32)
    jobs = w.take(300, seed=5)
    pol = get(name)
    r = Simulator(FlatPool(Flat(32)), pol, jobs).run()
    assert len(r) == 300
    assert r.effectiveness == pytest.approx(1.0, abs=1e-9)
    sequential = sum(j.runtime * j.speedup.speedup(j.request) for j in jobs)
    assert pol.useful_work(0.0, r.window[1]) == pytest.approx(sequential, rel=1e-9)
    assert (r.granted <= r.requested).all()


def test_system_efficiency_is_utilization_under_linear_speedup_and_drops_with_overhead():
    w = ismail_dynamic("uniform", load=0.7, speedup="linear", machine_size=32)
    jobs = w.take(400, seed=2)
    pol = DEQP()
    r = Simulator(FlatPool(Flat(32)), pol, jobs, warmup=50).run()
    assert pol.system_efficiency(r.window) == pytest.approx(r.utilization, rel=1e-9)
    pol = DEQP(overhead=2.0)
    r = Simulator(FlatPool(Flat(32)), pol, jobs, warmup=50).run()
    assert pol.system_efficiency(r.window) < r.utilization - 0.01


def test_slots_keep_one_job_per_slot_in_the_system():
    jobs = [Job(i, 0.0, 4, 1.0, Linear(), attrs={"slot": i % 2}) for i in range(6)]
    r = Simulator(FlatPool(Flat(8)), "DEQP", jobs).run()
    assert r.start.tolist() == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]


# -- the applications and workloads ---------------------------------------------------------------
def test_table_4_1_and_derived_applications():
    apps = applications()
    assert [a.number for a in apps] == list(range(1, 31))
    assert [a.max_processors for a in apps] == [16] * 10 + [32] * 10 + [64] * 10
    # Table 4.2: 11 and 21 are application 1 scaled; efficiency curves shifted by 2x and 4x
    for k in range(1, 11):
        base, d2, d4 = application(k), application(k + 10), application(k + 20)
        for p in (2, 4, 8, 16):
            assert d2.efficiency(2 * p) == base.efficiency(p) == d4.efficiency(4 * p)
        assert d2.t1 == 2 * base.t1 and d4.t1 == 4 * base.t1
        assert d2.runtime == pytest.approx(base.runtime) == pytest.approx(d4.runtime)
    assert application(6).efficiency(12) == pytest.approx((0.720 + 0.604) / 2)  # linear interpolation
    assert mean_runtime() == pytest.approx(407.5, abs=0.2)  # §4.4.1's T_e
    assert {a.number for a in apps if a.long} == LONG_APPLICATIONS
    with pytest.raises(ValueError, match="1..30"):
        application(31)


def test_application_jobs_run_t1_sequentially():
    job = ApplicationMix(load=0.5, machine_size=64).take(1, seed=4)[0]
    app = application(job.attrs["app"])
    assert job.request == app.max_processors
    assert job.time_on(1, job.request) == pytest.approx(app.t1)
    assert job.time_on(app.max_processors // 2, job.request) == pytest.approx(
        app.t1 / (app.max_processors // 2 * app.efficiency(app.max_processors // 2)))


def test_ismail_dynamic_workloads():
    w = ismail_dynamic("exponential", load=0.8, speedup="misp")
    jobs = w.take(2000, seed=1)
    runs = np.array([j.runtime for j in jobs])
    assert runs.min() >= 1 and runs.max() <= 1000 and 55 < runs.mean() < 67
    assert all(isinstance(j.speedup, Amdahl) and j.speedup.serial_fraction <= 0.5 for j in jobs)
    assert all(j.attrs["long"] == (j.runtime > w.long_after) for j in jobs)
    effs = np.array([j.speedup.efficiency(j.request) for j in jobs])
    assert effs.min() >= 0.4 - 1e-9 and effs.max() <= 0.9 + 1e-9
    # Ismail's load L = lambda N T_e / P
    gaps = np.diff([j.arrival for j in jobs])
    assert 1 / gaps.mean() == pytest.approx(0.8 * 64 / (33 * w.workload.service.mean), rel=0.08)
    assert ismail_dynamic("uniform", load=0.5, speedup="linear").take(1)[0].speedup == Linear()
    with pytest.raises(ValueError, match="execution"):
        ismail_dynamic("pareto", load=0.5)
    with pytest.raises(ValueError, match="speedup"):
        ismail_dynamic("uniform", load=0.5, speedup="amdahl")


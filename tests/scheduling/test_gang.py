"""DHC gang scheduling (seed 004, Wang, Papaefthymiou & Squillante): mechanics on hand-made
workloads, invariants on random ones, and the paper's qualitative claims at reduced size."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import policies
from scheduling.actions import Resume, Start, Suspend, Timer
from scheduling.api import simulate
from scheduling.gang_metrics import (
    FIG3,
    FIG3_CLASS6_PRINTED_SERVICE,
    FIG3_PRINTED_RS,
    class_table,
    classes_better,
    format_class_table,
    job_classes,
    job_metrics,
    normalized_response,
    ratios,
)
from scheduling.jobs import Job
from scheduling.policies.gang import (
    SWITCH_CHARGES,
    TREES,
    VARIANTS,
    Gang,
    GangError,
    job_class,
    rho_quanta,
    served_classes,
)
from scheduling.simulator import Simulator
from scheduling.workloads import TraceNotFoundError, load_swf, trace_path
from topoalloc import DHCTree, FlatPool
from topologies import Flat


def run(P, policy, jobs, assignment="first_fit"):
    return Simulator(DHCTree(Flat(P), assignment=assignment), policy, jobs).run()


def by_id(result):
    return {int(r["id"]): r for r in result.table}


# -- classes, slots, names ---------------------------------------------------------------------------
def test_classes_and_the_320_forest_slots():
    assert [job_class(p, 320) for p in (1, 2, 3, 4, 5, 64, 65, 256, 257, 320)] == [0, 1, 2, 2, 3, 6, 7, 8, 9, 9]
    assert job_classes([1, 2, 3, 129, 300]).tolist() == [0, 1, 2, 8, 9]
    with pytest.raises(GangError, match="321"):
        job_class(321, 320)
    big, small = served_classes(320)
    assert big == list(range(10))  # the 256-tree serves class s in slot s; slot 9: whole machine
    assert small[9] == 9 and small[8] == 1 and small[7] == 0 and small[:7] == list(range(7))  # §2.6
    assert served_classes(64) == [list(range(7))]  # a power of two: L = log2 P + 1 slots


def test_registry_names_and_parameters():
    g = policies.get("Gang-Migrate-Leaves-T-3000")
    assert isinstance(g, Gang) and g.variant == "migrate-leaves" and g.cycle == 3000.0
    w = policies.get("gang-pushdown-weight")
    assert w.variant == "pushdown" and w._assignment == "weight" and w.name == "Gang-PushDown-Weight"
    assert policies.get("Gang-Vanilla-Rho").quanta_mode == "rho"
    assert policies.get("Gang-Migrate-Root").name == "Gang-Migrate-Root"
    assert "Gang-Vanilla-T-<float>" in policies.names()


def test_bad_parameters_name_the_value():
    with pytest.raises(GangError, match="'sideways'"):
        Gang("sideways")
    with pytest.raises(GangError, match="-5"):
        Gang(cycle=-5)
    with pytest.raises(GangError, match="'best'"):
        Gang(assignment="best")
    with pytest.raises(GangError, match="'sometimes'"):
        Gang(quanta="sometimes")
    with pytest.raises(GangError, match="context-switch cost 16"):  # T / L = 100 / 10 < 16
        Gang(cycle=100.0, switch_cost=16.0).bind(DHCTree(Flat(320)))
    with pytest.raises(TypeError, match="DHCTree"):
        Gang().bind(FlatPool(Flat(8)))
    with pytest.raises(GangError, match="'sideways'"):
        Gang("pushdown", trees="sideways")
    with pytest.raises(GangError, match="migration switches the trees|switch together"):
        Gang("migrate-root", trees="independent")
    with pytest.raises(GangError, match="'always'"):
        Gang(switch_charge="always")


# -- mechanics on hand-made workloads ------------------------------------------------------------
def test_slices_rotate_between_classes():
    jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0)]  # class 0 and class 2 on 4 processors
    pol = Gang("vanilla", cycle=3.0, switch_cost=0.0, record=True)
    r = by_id(run(4, pol, jobs))
    assert (r[0]["start"], r[0]["end"]) == (0.0, 19.0)  # 1-s slices, alternating, slot 1 skipped
    assert (r[1]["start"], r[1]["end"]) == (1.0, 20.0)
    slots = [s for _, s, _ in pol.history]
    assert slots[:6] == [0, 2, 0, 2, 0, 2]  # class i -> i - 1 modulo L, empty slot 1 skipped
    assert pol.stats[0].resumes == 9 and pol.stats[0].suspended == pytest.approx(9.0)


def test_context_switch_cost_delays_progress():
    jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0)]
    pol = Gang("vanilla", cycle=3.0, switch_cost=0.5)
    r = by_id(run(4, pol, jobs))
    # first slice full (a first dispatch costs nothing), then 0.5 s of progress per 1-s slice
    assert r[0]["end"] == pytest.approx(37.0) and r[1]["end"] == pytest.approx(38.0)
    st = pol.stats[0]
    assert st.resumes == 18 and st.overhead == pytest.approx(9.0)
    assert st.sharing == pytest.approx(r[0]["end"] - r[0]["start"] - 10.0)  # H = E - S


def test_switch_early_when_a_class_has_no_jobs():
    jobs = [Job(0, 0.0, 1, 1.0), Job(1, 0.0, 4, 10.0)]
    r = by_id(run(4, Gang("vanilla", cycle=30.0, switch_cost=0.0), jobs))
    assert r[0]["end"] == 1.0 and r[1]["start"] == 1.0 and r[1]["end"] == 11.0  # not at the 10-s slice end


def test_push_down_fills_idle_partitions():
    # B (class 1) takes the left half; the weight rule puts A (class 0) in the right half.
    jobs = [Job(0, 0.0, 2, 4.0), Job(1, 0.0, 1, 4.0)]
    pd = Gang("pushdown", cycle=3.0, switch_cost=0.0, assignment="weight")
    r = by_id(run(4, pd, jobs))
    # slot 1 runs B and, pushed down into the idle right half, A; slot 0 runs A: A never waits
    assert r[1]["end"] == 4.0 and pd.stats[1].suspended == 0.0
    va = Gang("vanilla", cycle=3.0, switch_cost=0.0, assignment="weight")
    rv = by_id(run(4, va, jobs))
    assert rv[1]["end"] > 6.0 and va.stats[1].suspended > 0  # vanilla leaves the right half idle in slot 1


def test_small_tree_of_the_forest_serves_two_slots_per_cycle():
    # 320 = 256 + 64: with the weight rule the class-1 job goes to the empty 64-tree, which serves
    # class 1 in slot 1 and again in slot 8 (while the 256-tree serves class 8).
    jobs = [Job(0, 0.0, 256, 100.0), Job(1, 0.0, 2, 100.0)]
    pol = Gang("vanilla", cycle=10.0, switch_cost=0.0, assignment="weight")
    r = by_id(run(320, pol, jobs, assignment="weight"))
    assert r[1]["end"] == 100.0 and pol.stats[1].suspended == 0.0
    assert r[0]["end"] == pytest.approx(150.0)  # half the time while B runs, then alone
    ff = Gang("vanilla", cycle=10.0, switch_cost=0.0, assignment="first_fit")
    assert by_id(run(320, ff, jobs))[1]["end"] > 150.0  # first fit: left tree, alternates with the 256 job


def test_push_down_trees_of_a_forest_switch_independently():
    # 12 = 8 + 4. Tree 0: X (8 processors, its root) and Z (1 processor, pushed down under X into
    # slots 0-2); tree 1: Y (4 processors, its root). §2.6: under push-down the trees proceed
    # independently, so Y runs in every slot of its own rotation (W, pushed down, and 2; 1 and 0
    # have no work) and never waits for tree 0; switching together, Y idles while tree 0 serves
    # classes 1 and 0 (tree 1 then serves classes 1 and 0 too, which it has no jobs of).
    jobs = [Job(0, 0.0, 8, 50.0), Job(1, 0.0, 4, 20.0), Job(2, 0.0, 1, 50.0)]
    ind = _Checked("pushdown", cycle=10.0, switch_cost=0.0, assignment="weight", record=True)
    tog = _Checked("pushdown", cycle=10.0, switch_cost=0.0, assignment="weight", trees="together", record=True)
    ri, rt = by_id(run(12, ind, jobs)), by_id(run(12, tog, jobs))
    assert ind.tree_mode == "independent" and ind.name == "Gang-PushDown-Weight-T-10"
    assert tog.name == "Gang-PushDown-Weight-Together-T-10"
    assert ind.stats[1].partition == 4 and ri[1]["end"] == 20.0 and ind.stats[1].suspended == 0.0
    assert rt[1]["end"] > 40.0 and tog.stats[1].suspended > 20.0
    # the two trees switch at their own times: tree 1 alternates W (4) and 2 while tree 0 goes 4, 3, 2, 1, 0
    tree1 = [s for _, s, t in ind.history if t == 1][:6]
    tree0 = [s for _, s, t in ind.history if t == 0][:6]
    assert tree1 == [4, 2, 4, 2, 4, 2] and tree0 == [4, 3, 2, 1, 0, 4]
    assert all(t is None for _, _, t in tog.history)


def test_independent_trees_meet_for_the_whole_machine_slot():
    # as above plus a 12-processor job W: it runs alone, in whole-machine slots, each of which
    # comes once every tree has completed a rotation; Y waits only while W runs.
    jobs = [Job(0, 0.0, 8, 60.0), Job(1, 0.0, 4, 60.0), Job(2, 0.0, 1, 60.0), Job(3, 0.0, 12, 5.0)]
    pol = _Checked("pushdown", cycle=10.0, switch_cost=0.0, assignment="weight", record=True)
    r = by_id(run(12, pol, jobs))
    whole = [time for time, s, t in pol.history if t is None]
    assert all(s == 4 for _, s, t in pol.history if t is None) and len(whole) == 3
    assert r[3]["end"] == pytest.approx(whole[-1] + 1.0)  # 2 + 2 + 1 s of service in three slots
    assert pol.stats[1].suspended == pytest.approx(5.0)  # Y is paused only for W's 5 s
    for a, b in zip(whole, whole[1:], strict=False):  # between two whole slots tree 0 serves class 0
        assert any(a < time < b and s == 0 and t == 0 for time, s, t in pol.history)


def test_trees_are_the_same_on_a_power_of_two():
    jobs = _random_jobs(3, 150, 16)
    a = run(16, Gang("pushdown", cycle=8.0, switch_cost=0.3, trees="together"), jobs)
    b = run(16, Gang("pushdown", cycle=8.0, switch_cost=0.3, trees="independent"), jobs)
    np.testing.assert_array_equal(a.table, b.table)


def test_every_slot_charging_also_charges_first_dispatches_and_jobs_running_on():
    jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0)]
    pol = Gang("vanilla", cycle=3.0, switch_cost=0.5, switch_charge="every-slot")
    r = by_id(run(4, pol, jobs))
    # as under "resumed" (37, 38), except that B's first dispatch, at the switch at t = 1, pays 0.5
    # (A's, at t = 0 on an idle machine, is no switch): B ends 0.5 s later
    assert pol.name == "Gang-Vanilla-EverySlot-T-3"
    assert r[0]["end"] == pytest.approx(37.0) and r[1]["end"] == pytest.approx(38.5)
    assert pol.stats[1].overhead == pytest.approx(9.5) and pol.stats[1].resumes == 18
    # push-down: the 1-processor job, in the idle right half, runs in every slot; under "resumed" it
    # never pays, under "every-slot" it pays 0.25 s at each switch to another slot (12 of them: ends at 13)
    jobs = [Job(0, 0.0, 2, 3.0), Job(1, 0.0, 1, 10.0)]
    kw = dict(cycle=3.0, switch_cost=0.25, assignment="weight")
    resumed = Gang("pushdown", **kw)
    every = Gang("pushdown", switch_charge="every-slot", **kw)
    r, e = by_id(run(4, resumed, jobs)), by_id(run(4, every, jobs))
    assert r[1]["end"] == pytest.approx(10.0) and resumed.stats[1].overhead == 0.0
    assert e[1]["end"] == pytest.approx(13.0) and every.stats[1].overhead == pytest.approx(3.0)
    assert every.stats[1].resumes == 0  # charged, never swapped out


def test_whole_machine_class_runs_alone_in_the_top_slot():
    # a 300-processor job is class 9 on 320 = 256 + 64: the whole machine, in slot 9 only (§2.6)
    jobs = [Job(0, 0.0, 300, 5.0), Job(1, 0.0, 1, 5.0), Job(2, 0.0, 64, 5.0)]
    for v in VARIANTS:
        pol = _Checked(v, cycle=10.0, switch_cost=0.0, record=True)
        r = by_id(run(320, pol, jobs))
        assert r[0]["requested"] == 320 and pol.stats[0].cls == 9, v
        # it never shares the machine, so the run lasts at least its 5 s plus the others' 5 s
        assert max(row["end"] for row in r.values()) >= 10.0, v
        slots = {s for _, s, _ in pol.history}
        assert 9 in slots, v


def test_migration_fills_in_priority_order_and_dispatches_at_slot_starts():
    jobs = [Job(0, 0.0, 4, 10.0)] + [Job(i, 0.0, 1, 10.0) for i in (1, 2, 3)]
    root = by_id(run(4, Gang("migrate-root", cycle=3.0, switch_cost=0.0), jobs))
    leaves = by_id(run(4, Gang("migrate-leaves", cycle=3.0, switch_cost=0.0), jobs))
    # slot 1 serves an empty class: root order gives it to the 4-processor job, leaves to the 1-processor jobs
    assert root[0]["end"] < leaves[0]["end"] and leaves[1]["end"] < root[1]["end"]
    late = [Job(0, 0.0, 1, 100.0), Job(1, 1.0, 1, 5.0)]
    r = by_id(run(4, Gang("migrate-leaves", cycle=30.0, switch_cost=0.0), late))
    assert r[1]["start"] == 10.0  # idle processors, but migration dispatches only at slot starts
    v = by_id(run(4, Gang("vanilla", cycle=30.0, switch_cost=0.0), late))
    assert v[1]["start"] == 1.0


def test_actions_are_suspend_resume_start_and_timer():
    pol = Gang("vanilla", cycle=3.0, switch_cost=2.0 / 3.0 - 0.1)
    pol.bind(DHCTree(Flat(4)))
    a, b = Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0)
    first = pol.on_arrival(a, 0.0)
    assert [type(x) for x in first] == [Start, Timer] and first[0].processors == 1
    assert pol.on_arrival(b, 0.0) == []
    acts = pol.on_timer(first[1].key, 1.0)
    assert [type(x) for x in acts] == [Suspend, Start, Timer]
    acts = pol.on_timer(acts[-1].key, 2.0)
    assert [type(x) for x in acts] == [Suspend, Resume, Timer] and acts[1].delay == pytest.approx(2 / 3 - 0.1)
    assert pol.on_timer(first[1].key, 2.0) == []  # a stale timer does nothing


def _random_jobs(seed, n, P):
    rng = np.random.default_rng(seed)
    t, out = 0.0, []
    for i in range(n):
        t += float(rng.exponential(3.0))
        p = int(min(P, max(1, round(2 ** rng.uniform(0, np.log2(P))))))
        out.append(Job(i, round(t, 3), p, float(rng.choice([0.0, 0.5, 2.0, 7.0, 20.0]) + rng.exponential(3.0))))
    return out


class _Checked(Gang):
    """Asserts after every callback that no two running jobs share a processor."""

    def _check(self):
        spans = sorted(self.placements().values())
        for (_, stop), (start, _) in zip(spans, spans[1:], strict=False):
            assert stop <= start, spans

    def on_arrival(self, job, now):
        acts = super().on_arrival(job, now)
        self._check()
        return acts

    def on_finish(self, job, now):
        acts = super().on_finish(job, now)
        self._check()
        return acts

    def on_timer(self, key, now):
        acts = super().on_timer(key, now)
        self._check()
        return acts


@pytest.mark.parametrize("P", [12, 20])
def test_no_two_running_jobs_overlap_and_sharing_time_adds_up(P):
    jobs = _random_jobs(P, 120, P)
    for v, trees, charge in [(v, t, c) for v in VARIANTS for t in TREES for c in SWITCH_CHARGES
                             if not (v.startswith("migrate") and t == "independent")]:
        for assignment in ("first_fit", "weight"):
            pol = _Checked(v, cycle=8.0, switch_cost=0.3, assignment=assignment, trees=trees, switch_charge=charge)
            r = run(P, pol, jobs)
            assert r.unfinished == 0 and len(r) == len(jobs)
            m = job_metrics(r)
            sharing = np.array([pol.stats[int(i)].sharing for i in m["id"]])
            np.testing.assert_allclose(sharing, m["sharing"], atol=1e-6)  # H = suspended + switch overhead
            np.testing.assert_allclose(m["waiting"], m["queueing"] + m["sharing"], atol=1e-6)  # W = Q + H


# -- quanta ----------------------------------------------------------------------------------------
def test_rho_quanta_follow_the_previous_days_utilisation():
    assert rho_quanta([0.0, 0.3, 0.1], 30.0, floor=0.0) == [0.0, 22.5, 7.5]
    q = rho_quanta([0.0, 0.3, 0.1], 30.0, floor=0.3)
    assert sum(q) == pytest.approx(30.0) and q[0] == pytest.approx(3.0) and q[1] > q[2] > q[0]
    # day 0 (period 100 s): only class-2 work; from day 1 on class 2 gets the largest quantum
    jobs = [Job(i, 10.0 * i, 4, 5.0) for i in range(8)] + [Job(100, 150.0, 4, 6.0), Job(101, 150.0, 1, 3.0)]
    pol = Gang("vanilla", cycle=3.0, switch_cost=0.0, quanta="rho", period=100.0, rho_floor=0.3, record=True)
    r = run(4, pol, jobs)
    assert r.unfinished == 0
    assert pol.quanta_history[0] == (0.0, (1.0, 1.0, 1.0))  # the first day is uniform
    t, quanta = pol.quanta_history[-1]
    # rho_2 = 8 jobs x 5 s x 4 processors / (4 processors x 100 s) = 0.4, rho_0 = rho_1 = 0
    assert 100.0 <= t < 200.0 and quanta == pytest.approx((0.3, 0.3, 2.4))
    starts = [(time, s) for time, s, _ in pol.history if time >= 150.0]
    assert [s for _, s in starts[:4]] == [2, 0, 2, 0]
    lengths = [b[0] - a[0] for a, b in zip(starts[:4], starts[1:5], strict=False)]
    assert lengths == pytest.approx([2.4, 0.3, 2.4, 0.3])


# -- metrics -------------------------------------------------------------------------------------
def test_metrics_per_job_and_class():
    jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0), Job(2, 5.0, 3, 4.0)]
    r = run(4, Gang("vanilla", cycle=3.0, switch_cost=0.0), jobs)
    m = job_metrics(r)
    t = r.table
    np.testing.assert_allclose(m["response"], t["end"] - t["arrival"])
    np.testing.assert_allclose(m["execution"], m["service"] + m["sharing"])
    rows = class_table(r, 3)
    assert [row.jobs for row in rows] == [1, 0, 2]
    assert rows[2].normalized == pytest.approx(np.mean(m["response"][1:]) / np.mean(m["service"][1:]))
    text = format_class_table(rows, "t")
    assert text.splitlines()[0] == "t" and len(text.splitlines()) == 5
    easy = simulate(FlatPool(Flat(4)), "EASY", jobs, jobs=None)
    assert np.all(job_metrics(easy)["sharing"] == 0.0)  # no preemption: H = 0, W = Q


# -- the paper's claims at reduced size ------------------------------------------------------------------
def _light_synthetic(P=64, n=300, load=0.3, seed=4):
    """Poisson arrivals, log-uniform sizes, hyperexponential run times (a light, mixed workload)."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(P, np.maximum(1, np.round(2 ** rng.uniform(0, np.log2(P), n)))).astype(int)
    runtimes = np.where(rng.random(n) < 0.8, rng.exponential(300.0, n), rng.exponential(3000.0, n))
    rate = load * P / float(np.mean(sizes * runtimes))
    arrivals = np.cumsum(rng.exponential(1.0 / rate, n))
    return [Job(i, float(arrivals[i]), int(sizes[i]), float(runtimes[i])) for i in range(n)]


def test_vanilla_gang_is_worse_than_easy_on_a_light_synthetic_workload():
    jobs = _light_synthetic()
    easy = simulate(FlatPool(Flat(64)), "EASY", jobs, jobs=None)
    van = simulate(DHCTree(Flat(64)), Gang("vanilla", cycle=1000.0, switch_cost=1.0), jobs, jobs=None)
    assert van.turnaround.mean() > 2 * easy.turnaround.mean()
    worse = normalized_response(van, 7) > normalized_response(easy, 7)
    assert worse.sum() >= 6, (normalized_response(van, 7), normalized_response(easy, 7))


# -- seed 004's claims on the CTC SP2 log, against its recorded EASY-LL schedule ----------------------
# Each claim is a test that quotes the paper and measures our numbers (the assertion messages carry
# them); docs/reproductions/seed004.md gives the full-month numbers (examples/gang_ctc.py) and the
# diagnosis of each. Fig. 3's checks use the whole month (no simulation but the replay); §6's
# claims run at reduced size: the month's first 2,000 jobs simulated, the first 1,000 measured (so
# the measured jobs still compete with later arrivals), T = 3000 s, switch 1 s.

# August 1996 (EDT) in the CTC log's seconds (UnixStartTime 835823160): seed 004 §5's month.
_AUGUST = (838872000 - 835823160, 841550400 - 835823160)
_SIMULATED, _MEASURED, _T = 2000, 1000, 3000.0


@pytest.fixture(scope="module")
def ctc_august():
    """§5's workload: August 1996 of the CTC SP2 log, jobs of at most 320 processors with nonzero CPU
    time. The log is read up to its 16,000th job, past the month's end (asserted: none of the month
    is missing), faster than scanning the whole file for the window."""
    try:
        path = trace_path("CTC-SP2-1996-3.1-cln.swf.gz")
    except TraceNotFoundError as exc:
        pytest.skip(f"the CTC SP2 trace is not available (set TOPOALLOC_TRACES): {exc}")
    trace = load_swf(path, topology=Flat(320), limit=16_000)
    assert trace.header.get("UnixStartTime") == "835823160" and trace.report.reordered == 0
    jobs = list(trace)
    assert jobs[-1].arrival >= _AUGUST[1]
    return [j for j in jobs if _AUGUST[0] <= j.arrival < _AUGUST[1] and j.attrs["swf"].average_cpu_time > 0]


@pytest.fixture(scope="module")
def fig3_ours(ctc_august):
    """The month's recorded schedule replayed (the Recorded pseudo-policy), per class."""
    return class_table(simulate(FlatPool(Flat(320)), "Recorded", ctc_august, jobs=None), 10)


@pytest.fixture(scope="module")
def reduced(ctc_august):
    """``get(policy, **gang_kw)``: the per-class table of the first 1,000 jobs when the first 2,000
    are scheduled by ``policy`` ("Recorded", or a Gang variant at T = 3000 s, switch 1 s). Cached."""
    jobs, cache = ctc_august[:_SIMULATED], {}

    def get(policy, **kw):
        key = (policy, tuple(sorted(kw.items())))
        if key not in cache:
            if policy == "Recorded":
                r = simulate(FlatPool(Flat(320)), "Recorded", jobs, jobs=None)
            else:
                kw = {"cycle": _T, "switch_cost": 1.0, **kw}
                r = simulate(DHCTree(Flat(320)), Gang(policy, **kw), jobs, jobs=None)
            cache[key] = class_table(r.table[r.table["ordinal"] < _MEASURED], 10)
        return cache[key]

    return get


def _pushdown(get):
    return get("pushdown", assignment="weight")  # §6 shows push-down with the weight-oriented assignment


# -- Fig. 3 (§5) ------------------------------------------------------------------------------------
def test_fig3_recorded_waits_of_classes_8_and_9_are_the_papers(fig3_ours):
    """Fig. 3: class 8 has 45 jobs with mean waiting time 146,141 s, class 9 23 jobs with 147,240 s
    under EASY-LL: the log's recorded waits (SWF field 3), replayed, give exactly these."""
    got = [(r.jobs, round(r.waiting)) for r in fig3_ours[8:]]
    assert got == [(45, 146_141), (23, 147_240)], got
    assert all(r.sharing == 0.0 and r.queueing == r.waiting for r in fig3_ours)  # a replay never preempts


@pytest.mark.xfail(strict=True, reason="the cleaned log's August holds 7,083 such jobs where the paper has 6,049: "
                   "+538, +239, +200, +50, +29 in classes 0-4, -10, -13 in 5-6, +1 in 7, the same in 8-9; the paper "
                   "applied a filter it does not state (not a subset: classes 5-6 have fewer jobs here)")
def test_fig3_job_counts_are_the_papers(fig3_ours):
    """§5: "Our workload comprised 6,049 jobs that requested up to 320 processors and had nonzero CPU
    times", per class as Fig. 3's second column."""
    assert [r.jobs for r in fig3_ours] == [r.jobs for r in FIG3], [r.jobs for r in fig3_ours]


def test_fig3_class6_service_time_is_a_typo_for_9319():
    """Fig. 3 prints class 6's S as 93,189; with 9,319 every row has R - W = S (within 1 s of
    rounding) and R/S as printed (within its rounding and that of S); with 93,189 class 6's R/S would
    be 1.1, not the printed 11.0."""
    for row, rs in zip(FIG3, FIG3_PRINTED_RS, strict=True):
        assert abs(row.response - row.waiting - row.service) <= 1.0, row
        assert row.normalized == pytest.approx(rs, abs=0.35), (row.cls, row.normalized, rs)
    assert FIG3[6].response / FIG3_CLASS6_PRINTED_SERVICE == pytest.approx(1.1, abs=0.05)


@pytest.mark.xfail(strict=True, reason="the 45 class-8 jobs (the paper's: their waits match to the second) average "
                   "547.6 s of run time in the log, where Fig. 3 says 300 s; six ran 1,380-3,854 s")
def test_fig3_class8_service_time_is_the_papers(fig3_ours):
    """Fig. 3: class 8's mean service time is 300 s."""
    assert fig3_ours[8].service == pytest.approx(300.0, abs=1.0), fig3_ours[8].service


# -- §6: migration from the leaves ------------------------------------------------------------------
def test_claim_leaves_beat_easy_ll_in_classes_0_to_6_and_8(reduced):
    """§6: "the scheduling policy with migration from the leaves achieves shorter response times than
    EASY-LL for eight out of the ten classes" (all but 7 and 9: "degrades the performance of classes
    7 and 9"). Reduced: all ten are shorter (see the next claim); the eight hold."""
    r = ratios(reduced("migrate-leaves"), reduced("Recorded"))
    assert all(r[c] < 1.0 for c in (0, 1, 2, 3, 4, 5, 6, 8)), r.round(2)


@pytest.mark.xfail(strict=True, reason="reduced size: leaves/EASY-LL R/S = 0.22 (class 7) and 0.60 (class 9): the "
                   "recorded waits of the month's first days carry production's backlog, the simulation starts "
                   "empty; the full month reproduces the claim: 2.90 and 2.59 at T = 1000 s, 3.06 and 2.57 at 3000 s "
                   "(examples/gang_ctc.py)")
def test_claim_leaves_worse_than_easy_ll_in_classes_7_and_9_by_about_3(reduced):
    """§6: "the favoring of smaller job classes under migration from the leaves degrades the
    performance of classes 7 and 9 relative to EASY-LL ... by about a factor of 3" (read: a ratio
    of normalised response times between 2 and 4)."""
    r = ratios(reduced("migrate-leaves"), reduced("Recorded"))
    assert 2.0 < r[7] < 4.0 and 2.0 < r[9] < 4.0, r.round(2)


def test_claim_leaves_improve_small_classes_2_to_4_fold(reduced):
    """§6: "these performance improvements are quite significant, with a reduction in the normalized
    response times by factors that typically range between 2 and 4" (read: the median factor over
    classes 0-6 is between 2 and 4)."""
    factors = 1.0 / ratios(reduced("migrate-leaves"), reduced("Recorded"))[:7]
    assert 2.0 <= float(np.median(factors)) <= 4.0, factors.round(2)


@pytest.mark.xfail(strict=True, reason="full month: class 8's normalised response falls 3.5x at T = 1000 s and 2.7x "
                   "at 3000 s (3.7x at 300 s), not almost 10x; the month's 45 class-8 jobs run 547.6 s on average "
                   "where the paper says 300 s, and scaled to 300 s they give 6.4x and 4.5x. Reduced size: one "
                   "class-8 job")
def test_claim_leaves_improve_class_8_almost_tenfold(reduced):
    """§6: "the normalized response time of class 8 decreases by almost a factor of 10" (read: by a
    factor between 7 and 10)."""
    r = ratios(reduced("migrate-leaves"), reduced("Recorded"))
    assert 7.0 <= 1.0 / r[8] <= 10.0, 1.0 / r[8]


# -- §6: migration from the root ----------------------------------------------------------------------
def test_claim_root_beats_easy_ll_in_classes_5_to_8(reduced):
    """§6: "The job-migration policy that gives higher priority to the jobs closer to the root of the
    control tree outperforms EASY-LL for classes 5 through 8." """
    r = ratios(reduced("migrate-root"), reduced("Recorded"))
    assert all(r[c] < 1.0 for c in (5, 6, 7, 8)), r.round(2)


def test_claim_root_as_good_as_easy_ll_on_classes_3_and_4_at_large_cycles(reduced):
    """§6: "for sufficiently large timeplexing cycles, this policy performs as well as EASY-LL for
    classes 3 and 4" (read: within 20% or better, at T = 3000 s)."""
    r = ratios(reduced("migrate-root"), reduced("Recorded"))
    assert r[3] <= 1.2 and r[4] <= 1.2, r.round(2)


def test_claim_root_beats_leaves_from_class_6_and_ties_on_class_9(reduced):
    """§6: "In comparison with the migration policy that favors jobs at the leaves, this policy ...
    performs better for classes 6 and above. As expected, both job-migration policies achieve the
    same performance on class 9" (classes 6-8 better; class 9 within 2%)."""
    r = ratios(reduced("migrate-root"), reduced("migrate-leaves"))
    assert all(r[c] < 1.0 for c in (6, 7, 8)) and abs(r[9] - 1.0) < 0.02, r.round(2)


@pytest.mark.xfail(strict=True, reason="root/leaves R/S on class 5 = 1.16 at reduced size, 2.24 on the full month "
                   "(T = 1000 s; 2.30 at 3000 s): the root is clearly worse there")
def test_claim_root_breaks_even_with_leaves_on_class_5(reduced):
    """§6: "this policy breaks even for class 5" (read: within 10%)."""
    r = ratios(reduced("migrate-root"), reduced("migrate-leaves"))
    assert abs(r[5] - 1.0) <= 0.1, r.round(2)


@pytest.mark.xfail(strict=True, reason="reduced size: EASY-LL's recorded R/S (production's backlog) is worse than the "
                   "root's in classes 1 and 2 (3.68, 2.34 against 2.14, 1.72), push-down's in class 0 (2.27 against "
                   "1.84); the full month reproduces it in all three classes at every cycle and switch cost")
def test_claim_root_worst_of_all_on_classes_0_to_2(reduced):
    """§6: "For classes 0 through 2, migration from the root performs worse than all the scheduling
    policies we considered" (EASY-LL, push-down, migration from the leaves)."""
    root = reduced("migrate-root")
    others = (reduced("Recorded"), reduced("migrate-leaves"), _pushdown(reduced))
    assert all(root[c].normalized > max(o[c].normalized for o in others) for c in range(3))


# -- §6: push-down and vanilla ----------------------------------------------------------------------
@pytest.mark.xfail(strict=True, reason="push-down is worse than EASY-LL in 3 classes of 10 at reduced size (8 of 10 "
                   "on the full month), than migration from the leaves in 7 (7), than from the root in 9 (5): the "
                   "root's weakness on classes 0-2 and the leaves' on 7 and 9 make push-down better there")
def test_claim_push_down_almost_always_worse(reduced):
    """§6: "The push-down policy almost always performs worse than EASY-LL and the two migration
    policies" (read: in at least 8 of the 10 classes against each)."""
    pd = _pushdown(reduced)
    worse = [10 - len(classes_better(pd, other)) for other in
             (reduced("Recorded"), reduced("migrate-leaves"), reduced("migrate-root"))]
    assert min(worse) >= 8, worse


@pytest.mark.xfail(strict=True, reason="push-down with first fit has a lower mean response time on the full month "
                   "(121,408 s at T = 1000 s against 149,267 s with weights) and a shorter R/S in classes 4-6 "
                   "(17-53 against 35-74); weights win in classes 0-3, 7 (T = 1000 s). Reduced: 7 classes of 10")
def test_claim_weight_assignment_beats_first_fit_under_push_down(reduced):
    """§6: "For the push-down policy, we only present the results we obtained with the weight-oriented
    job assignment policy, since it consistently outperformed the first-fit policy" (read: a shorter
    R/S in at least 8 of the 10 classes)."""
    better = classes_better(_pushdown(reduced), reduced("pushdown", assignment="first_fit"))
    assert len(better) >= 8, better


@pytest.mark.xfail(strict=True, reason="reduced size: vanilla beats EASY-LL's recorded R/S in classes 3, 5, 7, 8 and "
                   "9 (production's backlog); on the full month it is worse in 9 classes of 10 at every cycle and "
                   "switch cost (class 8, whose recorded R/S is 268, is the exception)")
def test_claim_vanilla_consistently_worse_than_easy_ll(reduced):
    """§6: "this scheme was performing consistently and significantly worse than EASY-LL" (read: in
    at least 9 of the 10 classes)."""
    assert len(classes_better(reduced("vanilla"), reduced("Recorded"))) <= 1


# -- §6: context-switch costs (the month's first 500 jobs, T = 1000 and 3000 s as in Figs. 8 and 9) --------
@pytest.fixture(scope="module")
def switch_runs(ctc_august):
    """``get(variant, cycle, cost)``: the per-class table and mean response of the month's first 500
    jobs under a gang scheduler (cached); ``get("Recorded")`` the log's own schedule of them."""
    jobs, cache = ctc_august[:500], {}

    def get(variant, cycle=None, cost=None):
        key = (variant, cycle, cost)
        if key not in cache:
            if variant == "Recorded":
                r = simulate(FlatPool(Flat(320)), "Recorded", jobs, jobs=None)
            else:
                r = simulate(DHCTree(Flat(320)), Gang(variant, cycle=cycle, switch_cost=cost), jobs, jobs=None)
            cache[key] = (class_table(r, 10), float(r.turnaround.mean()))
        return cache[key]

    return get


@pytest.mark.parametrize("variant", ["pushdown", "migrate-root", "migrate-leaves"])
def test_claim_switch_cost_hurts_more_at_short_cycles(switch_runs, variant):
    """§6: "When switch costs increase, however, the performance of both policies degrades ...
    Performance degradation is more evident for short timeplexing cycles" (§1: "the performance of
    the three gang scheduling policies degrades significantly, especially for short quanta"): the
    mean response at 16 s over that at 1 s, at T = 1000 s against 3000 s."""
    def degradation(cycle):
        return switch_runs(variant, cycle, 16.0)[1] / switch_runs(variant, cycle, 1.0)[1] - 1.0

    short, long = degradation(1000.0), degradation(3000.0)
    assert short > 0 and short > 2 * long, (short, long)


@pytest.mark.xfail(strict=True, reason="reduced size: both migration policies beat EASY-LL in 9 classes at 1 s and "
                   "at 16 s (T = 1000 s); the full month reproduces it: leaves 8 -> 7 and root 4 -> 3 classes at "
                   "T = 1000 s (8 -> 7 and 4 -> 1 at 300 s; no change at 3000 s)")
def test_claim_fewer_classes_beat_easy_ll_at_a_higher_switch_cost(switch_runs):
    """§6 (Figs. 8, 9): "When switch costs increase, however, the performance of both policies
    degrades, and the number of classes in which they outperform EASY-LL decreases" (T = 1000 s)."""
    rec = switch_runs("Recorded")[0]
    counts = {v: [len(classes_better(switch_runs(v, 1000.0, c)[0], rec)) for c in (1.0, 16.0)]
              for v in ("migrate-leaves", "migrate-root")}
    assert all(dear < cheap for cheap, dear in counts.values()), counts

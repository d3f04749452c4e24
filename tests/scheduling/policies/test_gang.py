"""DHC gang scheduling (seed 004, Wang, Papaefthymiou & Squillante): mechanics on hand-made
workloads and invariants on random ones. The paper's claims (Fig. 3, §6) are defined in
scheduling/reproduce/seed004.py and run by tests/scheduling/reproduce/test_reproduce.py."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import policies
from scheduling.kernel.actions import Resume, Start, Suspend, Timer
from scheduling.kernel.api import simulate
from scheduling.kernel.jobs import Job
from scheduling.kernel.simulator import Simulator
from scheduling.metrics.gang import class_table, format_class_table, job_classes, job_metrics
from scheduling.policies.gang import SWITCH_CHARGES, TREES, VARIANTS, Gang
from scheduling.policies.gang_slots import GangError, job_class, rho_quanta, served_classes
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

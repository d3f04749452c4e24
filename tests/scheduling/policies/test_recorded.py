"""The recorded schedule of a trace as a pseudo-policy (seed 004's EASY-LL columns)."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import policies
from scheduling.experiments import LocalExecutor, ResultStore, class_rows, registry, run_study, study_from_dict
from scheduling.experiments.traces import TraceParameterError
from scheduling.kernel.api import simulate
from scheduling.kernel.jobs import Job
from scheduling.metrics.gang import class_table
from scheduling.policies import Recorded, RecordedScheduleError
from scheduling.policies.recorded import recorded_wait
from scheduling.workloads import load_swf
from topoalloc import DHCTree, FlatPool
from topologies import Flat

# job 3's wait is unknown (-1); the others overlap on more than the 16 processors of the machine
_SWF = """\
; UnixStartTime: 0
; TimeZoneString: UTC
; MaxProcs: 16
1 0 100 50 8 40 -1 8 60 -1 1 1 1 1 1 1 -1 -1
2 10 0 300 12 290 -1 12 400 -1 1 1 1 1 1 1 -1 -1
3 20 -1 30 2 25 -1 2 40 -1 1 1 1 1 1 1 -1 -1
4 30 5 10 1 9 -1 1 20 -1 1 1 1 1 1 1 -1 -1
5 40 2000 20 16 15 -1 16 30 -1 1 1 1 1 1 1 -1 -1
"""


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    d = tmp_path / "traces"
    d.mkdir()
    (d / "waits.swf").write_text(_SWF)
    monkeypatch.setenv("TOPOALLOC_TRACES", str(d))
    return d / "waits.swf"


def test_jobs_start_at_arrival_plus_the_recorded_wait(tiny):
    trace = load_swf(tiny, machine_size=16)
    pol = Recorded()
    r = simulate(FlatPool(Flat(16)), pol, trace, jobs=None)
    got = {int(row["id"]): (row["start"], row["end"], int(row["requested"])) for row in r.table}
    assert got == {1: (100.0, 150.0, 8), 2: (10.0, 310.0, 12), 4: (35.0, 45.0, 1), 5: (2040.0, 2060.0, 16)}
    assert pol.unknown == [3] and r.unfinished == 1  # the unknown wait is reported and skipped
    # the allocator is not consulted: jobs 1 and 2 hold 20 processors at once on a 16-processor machine
    assert r.busy_integral == pytest.approx(8 * 50 + 12 * 300 + 1 * 10 + 16 * 20)


def test_recorded_is_registered_and_runs_on_any_allocator(tiny):
    assert isinstance(policies.get("Recorded"), Recorded) and "Recorded" in policies.names()
    trace = list(load_swf(tiny, machine_size=16))
    flat = simulate(FlatPool(Flat(16)), "Recorded", trace, jobs=None)
    tree = simulate(DHCTree(Flat(16)), "Recorded", trace, jobs=None)
    np.testing.assert_array_equal(flat.table, tree.table)  # the same schedule, whatever the allocator


def test_the_recorded_waits_need_the_recorded_arrivals(tiny):
    scaled = load_swf(tiny, machine_size=16, rate_factor=2.0)
    with pytest.raises(RecordedScheduleError, match="submitted at 10"):
        simulate(FlatPool(Flat(16)), "Recorded", scaled, jobs=None)


def test_recorded_wait_sources():
    assert recorded_wait(Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": 0})) == 0.0
    assert recorded_wait(Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": -1})) is None
    assert recorded_wait(Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": float("nan")})) is None
    assert recorded_wait(Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": True})) is None
    assert recorded_wait(Job(0, 0.0, 1, 1.0)) is None


def test_same_instant_starts_and_timers():
    # three jobs due at t = 5 from different arrivals, one due at its arrival: one timer per start time
    jobs = [Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": 5.0}), Job(1, 1.0, 1, 2.0, attrs={"recorded_wait": 4.0}),
            Job(2, 2.0, 1, 0.0, attrs={"recorded_wait": 3.0}), Job(3, 3.0, 1, 1.0, attrs={"recorded_wait": 0.0})]
    r = simulate(FlatPool(Flat(1)), "Recorded", jobs, jobs=None)
    assert r.start.tolist() == [5.0, 5.0, 5.0, 3.0] and r.end.tolist() == [6.0, 7.0, 5.0, 4.0]


def test_trace_model_known_wait_filter(tiny):
    def make(**kw):
        return registry.make_workload("Trace", {"file": "waits", **kw}, load=None, machine_size=16)

    assert [j.id for j in make().jobs()] == [1, 2, 3, 4, 5]
    assert [j.id for j in make(known_wait=True).jobs()] == [1, 2, 4, 5]
    assert make().unknown_waits() == 1 and make(known_wait=True).unknown_waits() == 1
    with pytest.raises(TraceParameterError, match="known_wait must be true or false, got 'yes'"):
        make(known_wait="yes")


def test_recorded_rows_through_the_experiments_machinery(tiny):
    """A stored Recorded row gives the log's per-class table: W = the recorded wait, H = 0."""
    study = study_from_dict({"topology": "flat:16", "allocators": ["FlatPool"], "policies": ["Recorded", "EASY"],
                             "workload": {"model": {"name": "Trace", "file": "waits", "known_wait": True}}})
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    rows = {r["policy"]: r for r in store.rows()}
    assert rows["Recorded"]["unfinished"] == 0 and rows["Recorded"]["kept"] == 4
    got = class_rows([rows["Recorded"]], 5)
    # classes: 8 -> 3, 12 -> 4, 1 -> 0, 16 -> 4
    assert [r.jobs for r in got] == [1, 0, 0, 1, 2]
    assert got[4].waiting == pytest.approx((0 + 2000) / 2) and got[4].sharing == 0.0
    assert got[3].response == pytest.approx(150.0) and got[3].normalized == pytest.approx(150.0 / 50.0)
    direct = class_table(simulate(FlatPool(Flat(16)), "Recorded", load_swf(tiny, machine_size=16), jobs=None), 5)
    assert [r.jobs for r in direct] == [1, 0, 0, 1, 2]  # job 3 (class 1) never started: not in the table

"""Issue 32, items 3-5: absurd loads, negative SWF submit times and huge machines are handled up front
or finish quickly, with a message naming the value (each test failed before: a hang, a misleading
error, a 30-second wait for ``MemoryError('')``)."""

from __future__ import annotations

import io
import time
import warnings

import pytest

from scheduling import simulate
from scheduling.cli import main
from scheduling.formats import SWFReport, load_swf
from scheduling.kernel.jobs import Job
from scheduling.kernel.simulator import RUNAWAY_FACTOR, RUNAWAY_QUEUE, RunawayBacklogWarning
from scheduling.workloads import CubeDims, Exponential, Synthetic
from topoalloc import Buddy, DHCTree, FlatPool
from topoalloc._memory import MachineTooLargeError, check_memory, physical_memory
from topoalloc.dhc import TreeWeights
from topoalloc.mesh import FirstFit, FrameSliding
from topologies import Flat, Hypercube, Mesh
from topologies.errors import ParameterError

SMALL = ["--workers", "1", "--no-progress"]


def absurd(load: float = 1e9) -> Synthetic:
    return Synthetic(CubeDims(7), Exponential(5.0), load=load, machine_size=256)


# -- item 3: absurd loads --------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["FCFS", "RSR-0", "EASY", "Conservative"])
def test_absurd_load_stops_quickly_and_is_flagged_saturated(policy):
    began = time.perf_counter()
    with pytest.warns(RunawayBacklogWarning, match=r"jobs wait for \d+ completions"):
        result = simulate(Buddy(Hypercube(8)), policy, absurd(), jobs=2000, warmup=200)
    assert time.perf_counter() - began < 10.0  # it ran past 120 s and 5.5 GB before
    s = result.summary()
    assert s["saturated"] is True and s["backlog_growth"] > 0.9
    # memory bounded by the stop rule, not by the load: the queue and the backlog samples stay small
    bound = RUNAWAY_QUEUE + 200 + RUNAWAY_FACTOR * s["jobs"]
    assert s["unfinished"] <= bound + 256 and len(result.backlog) <= bound + 256


def test_absurd_load_with_until_only_also_stops():
    with pytest.warns(RunawayBacklogWarning):
        result = simulate(Buddy(Hypercube(8)), "FCFS", absurd(), jobs=None, until=1e6)
    assert result.summary()["saturated"] is True and result.unfinished <= RUNAWAY_QUEUE + 256


def test_stable_and_ordinary_saturated_runs_are_not_stopped():
    """Seed 002 §4.1's set-up: RSR-1 at load 0.5 is stable, RSR-0 at 0.7 saturates (the calibration of
    :func:`scheduling.metrics.saturation`): both run to the completions asked for, with no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunawayBacklogWarning)
        stable = simulate(Buddy(Hypercube(8)), "RSR-1", absurd(0.5), jobs=1500, warmup=100, seed=1)
        loaded = simulate(Buddy(Hypercube(8)), "RSR-0", absurd(3.0), jobs=1500, warmup=100, seed=1)
    assert stable.summary()["saturated"] is False and len(stable.table) == 1400
    assert loaded.summary()["saturated"] is True and len(loaded.table) == 1400


def test_finite_workload_with_a_huge_queue_is_never_stopped():
    jobs = [Job(i, 0.0, 4, 1.0) for i in range(RUNAWAY_QUEUE * 3)]  # all at once: 3,000 queued on 16 processors
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunawayBacklogWarning)
        result = simulate(FlatPool(Flat(16)), "FCFS", jobs, jobs=None)
    assert len(result.table) == len(jobs) and result.unfinished == 0


def test_cli_compare_with_an_absurd_load_finishes_flagged(capsys):
    began = time.perf_counter()
    with pytest.warns(RunawayBacklogWarning):
        code = main(["compare", "--topology", "cube:8", "--allocators", "Buddy", "--loads", "1e9", "--jobs", "300",
                     "--replications", "1", *SMALL])
    assert code == 0 and time.perf_counter() - began < 20.0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("cube:8")]
    assert len(rows) == 2 and all(" yes " in r and "1e+09" in r for r in rows)


# -- item 4: negative submit times -------------------------------------------------------------------
def swf_line(job: int, submit: float, run: float = 10, procs: int = 2) -> str:
    return f"{job} {submit} -1 {run} {procs} -1 -1 {procs} -1 -1 1 -1 -1 -1 -1 -1 -1 -1"


def test_negative_submit_time_is_skipped_and_reported():
    text = "\n".join(["; MaxProcs: 8", swf_line(1, 0), swf_line(2, -30), swf_line(3, -1), swf_line(4, 5)]) + "\n"
    trace = load_swf(io.StringIO(text))
    assert [j.id for j in trace] == [1, 4] and [j.arrival for j in trace] == [0.0, 5.0]
    skipped = [(s.line, s.reason, s.detail) for s in trace.report.skipped]
    assert skipped == [(3, "negative submit time", "submit_time = -30"), (4, "unknown submit time", "submit_time = -1")]
    assert set(trace.report.counts) <= set(SWFReport.REASONS)
    assert "1 skipped: negative submit time" in str(trace.report) and trace.report.reordered == 0
    result = simulate(FlatPool(Flat(8)), "FCFS", trace, jobs=None)  # the trace stays usable
    assert result.table["id"].tolist() == [1, 4]


def test_negative_arrival_message_does_not_blame_the_order():
    with pytest.raises(ValueError, match=r"job 0 arrives at -3.0, before time 0, where the simulation starts") as info:
        simulate(FlatPool(Flat(8)), "FCFS", [Job(0, -3.0, 2, 1.0), Job(1, 0.0, 2, 1.0)], jobs=None)
    assert "previous" not in str(info.value)
    with pytest.raises(ValueError, match="before the previous one"):  # a real order error still says so
        simulate(FlatPool(Flat(8)), "FCFS", [Job(0, 5.0, 2, 1.0), Job(1, 1.0, 2, 1.0)], jobs=None)


# -- item 5: huge machines ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: FirstFit(Mesh(10**6, 10**6)), lambda: FrameSliding(Mesh(10**6, 10**6))])
def test_huge_mesh_is_refused_up_front(make):
    began = time.perf_counter()
    with pytest.raises(MachineTooLargeError, match=r"1,000,000,000,000 processors\) would need at least 9 TB") as info:
        make()
    assert time.perf_counter() - began < 1.0
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ParameterError)


def test_huge_dhc_forest_is_refused_with_a_reason():
    with pytest.raises(MemoryError, match=r"DHCTree on Flat\(size=1000000000000\) \(1,000,000,000,000 processors\) "
                                          r"would need at least 48 TB") as info:
        DHCTree(Flat(10**12))
    assert str(info.value)
    with pytest.raises(MachineTooLargeError, match="TreeWeights on a 1000000000000-processor forest"):
        TreeWeights(10**12)


def test_issue_cases_when_the_host_is_smaller():
    memory = physical_memory()
    if memory is None or memory >= 9 * 10**10:
        pytest.skip("the host has no known memory size, or enough for a 100000x100000 mesh")
    with pytest.raises(MachineTooLargeError, match=r"10,000,000,000 processors.*90 GB"):
        FirstFit(Mesh(100000, 100000))


def test_cli_refuses_a_huge_mesh_quickly(capsys):
    memory = physical_memory()
    if memory is None or memory >= 9 * 10**10:
        pytest.skip("the host has no known memory size, or enough for a 100000x100000 mesh")
    began = time.perf_counter()
    assert main(["compare", "--topology", "mesh:100000x100000", "--loads", "0.3", "--jobs", "100",
                 "--replications", "1", *SMALL]) == 2
    assert time.perf_counter() - began < 5.0  # 39 s before
    err = capsys.readouterr().err
    assert "10,000,000,000 processors" in err and "90 GB" in err
    assert "'--topology'" in err and err.count("would need") == 1  # named once, on the option at fault


def test_check_memory_limit():
    check_memory("X", "Flat(4)", 4, 9, limit=36)
    with pytest.raises(MachineTooLargeError, match=r"X on Flat\(5\) \(5 processors\) would need at least 45 bytes"):
        check_memory("X", "Flat(5)", 5, 9, limit=36)
    assert physical_memory() is None or physical_memory() > 0
    FirstFit(Mesh(64, 64))  # an ordinary machine is untouched


def test_a_flat_pool_too_large_for_the_host_is_refused_naming_its_size():
    memory = physical_memory()
    if memory is None or memory >= 10**12:
        pytest.skip("the host has no known memory size, or a terabyte")
    with pytest.raises(MachineTooLargeError, match=r"FlatPool on Flat\(size=1000000000000\) .* would need at least"):
        FlatPool(Flat(10**12))

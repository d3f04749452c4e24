"""Conservative's incremental repair (``Conservative._repair``) against the full rebuild it replaces
(``Conservative._rebuild``, kept as the reference: ``_incremental = False``).

Whenever a running job is past its estimate and the plan changed, Conservative makes every
reservation again in arrival order; the repair re-searches only the reservations a change can
move. These tests run the same jobs both ways and require the same schedule and the same nodes
for every job: on every shared trace (with estimates set tight, so that many jobs overrun) and on
synthetic workloads built to overrun, on flat, cube, mesh, tree and switch-tree allocators. They
also check that the repair really ran and really kept and moved reservations, and that a repair
that skips what a change touches is caught."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import Job, simulate
from scheduling.policies import Conservative
from scheduling.workloads import TraceNotFoundError, load_swf, trace_path
from topoalloc import Buddy, Buddy2D, DHCTree, FirstFit, FlatPool
from topologies import Flat, Hypercube, Mesh

from .test_backfilling import CASES, synthetic

#: The shared traces (``TOPOALLOC_TRACES``) and their machine sizes.
TRACES = {
    "NASA-iPSC-1993-3.1-cln": 128,
    "CTC-SP2-1996-3.1-cln": 338,
    "SDSC-Par-1996-3.1-cln": 400,
    "SDSC-SP2-1998-4.2-cln": 128,
    "HPC2N-2002-2.2-cln": 240,
    "lublin_256": 256,
}


class Counted(Conservative):
    """Conservative that counts its repairs and, within them, the reservations kept unsearched,
    searched and moved."""

    def __init__(self, incremental: bool = True) -> None:
        super().__init__()
        self._incremental = incremental
        self.counts = {"repairs": 0, "rebuilds": 0, "walked": 0, "searched": 0, "moved": 0}
        self._in_repair = False

    def _repair(self, now):
        self.counts["repairs"] += 1
        self.counts["walked"] += len(self._waiting)
        before = {jid: (r.start, self._bits.get(jid, 0)) for jid, r in self.reservations.items()}
        self._in_repair = True
        try:
            super()._repair(now)
        finally:
            self._in_repair = False
        after = {jid: (r.start, self._bits.get(jid, 0)) for jid, r in self.reservations.items()}
        self.counts["moved"] += sum(before[j] != after[j] for j in before)

    def _rebuild(self, now):
        self.counts["rebuilds"] += 1
        super()._rebuild(now)

    def _find(self, *args, **kwargs):
        if self._in_repair:
            self.counts["searched"] += 1
        return super()._find(*args, **kwargs)


def run(policy: Conservative, make, jobs: list[Job]):
    """The schedule and every job's nodes."""
    result = simulate(make(), policy, jobs, jobs=None, record_placement=True)
    return result.schedule(), {k: v.tolist() for k, v in result.placements.items()}


def tight(jobs: list[Job], seed: int, squeeze: float = 1.0) -> list[Job]:
    """``jobs`` with estimates as users with tight limits set them (the benchmark's tight case): a
    third exactly the run time, a tenth below it (run x U(0.9, 1.0), rounded down: they overrun),
    the rest run x U(1.0, 1.1) rounded up; arrivals times ``squeeze`` (below 1: a heavier load)."""
    rng = np.random.default_rng(seed)
    kind = rng.random(len(jobs))
    factor = rng.uniform(0.9, 1.0, len(jobs)) * (kind < 0.1) + rng.uniform(1.0, 1.1, len(jobs)) * (kind >= 0.1)
    out = []
    for j, k, f in zip(jobs, kind.tolist(), factor.tolist(), strict=True):
        est = math.floor(j.runtime * f) if k < 0.1 else j.runtime if k < 0.1 + 1 / 3 else math.ceil(j.runtime * f)
        out.append(Job(j.id, j.arrival * squeeze, j.request, j.runtime, estimate=float(est), size=j.size))
    return out


def shared_trace(name: str, limit: int) -> list[Job]:
    try:
        path = trace_path(name)
    except TraceNotFoundError as exc:
        pytest.skip(f"trace {name} not available (set TOPOALLOC_TRACES): {exc}")
    return load_swf(path, limit=limit, machine_size=TRACES[name]).jobs()


def assert_same_both_ways(make, jobs: list[Job]) -> dict[str, int]:
    fast, slow = Counted(), Counted(incremental=False)
    assert run(fast, make, jobs) == run(slow, make, jobs)
    assert fast.displaced == slow.displaced and len(set(fast.displaced)) == len(fast.displaced)
    assert slow.counts["repairs"] == 0 and fast.counts["rebuilds"] <= slow.counts["rebuilds"]
    return fast.counts


@pytest.mark.parametrize("name", list(TRACES))
def test_repair_equals_the_rebuild_on_every_shared_trace(name):
    """The first 700 jobs of each shared trace at 1.4 times its load, estimates set tight (seed
    30), on its own flat machine and on the buddy cube that holds it: the same schedule and nodes
    as the full rebuild, with repairs that keep some reservations unsearched and move others."""
    P = TRACES[name]
    base = tight(shared_trace(name, 700), 30, squeeze=1 / 1.4)
    cube = Hypercube(math.ceil(math.log2(P)))
    totals = {"repairs": 0, "walked": 0, "searched": 0, "moved": 0}
    for make, jobs in ((lambda: FlatPool(Flat(P)), base),
                       (lambda: Buddy(cube), [Job(j.id, j.arrival, cube.request_for(j.size), j.runtime,
                                                  estimate=j.estimate, size=j.size) for j in base])):
        counts = assert_same_both_ways(make, jobs)
        for key in totals:
            totals[key] += counts[key]
    assert sum(j.runtime > j.estimate for j in base) > 40  # overruns: the rebuilds are due
    assert totals["repairs"] > 5, totals
    assert totals["moved"] > 0 and totals["walked"] > totals["searched"], totals  # some kept, unsearched


@pytest.mark.parametrize("case", list(CASES))
def test_repair_equals_the_rebuild_on_synthetic_overruns(case):
    """Every allocator of the backfilling tests (flat, buddy cube, Zhu's first and best fit, the
    two-dimensional buddy, frames, Gray codes, the free list, the DHC tree, a switch tree with
    rack requests), 250 jobs at load 1.0 with estimates run x U(0.6, 1.2): many jobs overrun."""
    make, topology, _, _ = CASES[case]
    jobs = synthetic(250, 64, 4, load=1.0, over=1.0, topology=topology)
    rng = np.random.default_rng(4)
    jobs = [Job(j.id, j.arrival, j.request, j.runtime, estimate=float(math.ceil(j.runtime * rng.uniform(0.6, 1.2))),
                size=j.size) for j in jobs]
    counts = assert_same_both_ways(make, jobs)
    assert counts["repairs"] > 5 and counts["moved"] > 0, counts


_MACHINES = {
    "flat": (lambda: FlatPool(Flat(16)), Flat(16)),
    "cube": (lambda: Buddy(Hypercube(4)), Hypercube(4)),
    "mesh": (lambda: FirstFit(Mesh(4, 4)), Mesh(4, 4)),
    "buddy2d": (lambda: Buddy2D(Mesh(4, 4)), Mesh(4, 4)),
    "dhc": (lambda: DHCTree(Flat(16)), Flat(16)),
}


@settings(max_examples=40, deadline=None)
@given(machine=st.sampled_from(sorted(_MACHINES)),
       spec=st.lists(st.tuples(st.integers(0, 6), st.integers(1, 16), st.integers(0, 30), st.integers(0, 40)),
                     min_size=5, max_size=45))
def test_repair_equals_the_rebuild_on_random_overruns(machine, spec):
    """Random small workloads (gap to the previous arrival, processors, run time, estimate: below,
    at and above the run time, zero-length jobs included) on 16-node machines."""
    make, topology = _MACHINES[machine]
    jobs, t = [], 0.0
    for i, (gap, n, run_time, est) in enumerate(spec):
        t += gap
        jobs.append(Job(i, t, topology.request_for(n), float(run_time), estimate=float(est), size=n))
    assert_same_both_ways(make, jobs)


def test_a_repair_that_ignores_the_changes_is_caught():
    """The comparison above can fail: a repair that is told nothing changed keeps every
    reservation where it was (only blocked jobs are searched) and starts jobs elsewhere or at
    other times than the rebuild."""

    class Blind(Counted):
        def _repair(self, now):
            self._changes.clear()
            super()._repair(now)

    make, topology, _, _ = CASES["cube"]
    jobs = synthetic(250, 64, 4, load=1.0, over=1.0, topology=topology)
    rng = np.random.default_rng(4)
    jobs = [Job(j.id, j.arrival, j.request, j.runtime, estimate=float(math.ceil(j.runtime * rng.uniform(0.6, 1.2))),
                size=j.size) for j in jobs]
    assert run(Blind(), make, jobs) != run(Counted(incremental=False), make, jobs)

"""Conservative's cheaper bookkeeping against the full work it replaces: the compression's readings
of the freed log and of the profile's peaks shared until the next move (``_reuse``), a job that
starts at its reservation's start updating the profile once (``_one_update``), the rebuild
making the profile anew from the running jobs instead of taking every reservation out one by one
(``PerReservation`` below keeps that first rebuild as the reference), and the queue head's
blocked-by-topology question asked on the free nodes as bits.

Every test runs the same jobs both ways and requires the same schedule and the same nodes for
every job, and the same displaced jobs; three deliberately broken variants show that the
comparison can fail. The free-time profile's one update is checked against the two it replaces on
random profiles."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import Job, simulate
from scheduling.policies import Conservative
from scheduling.policies.backfill import FreeProfile
from scheduling.policies.backfill.reservations import _free_mask
from topoalloc import Buddy, DHCTree, FlatPool, FreeList, GrayCode
from topologies import Flat, Hypercube

from .test_backfill_repair import TRACES, shared_trace
from .test_backfilling import CASES, _mixed_estimates, synthetic


class PerReservation(Conservative):
    """The rebuild as first written: every reservation taken out with its own profile update (and
    its place logged as freed), then all made again in arrival order."""

    def _rebuild(self, now):
        previous = dict(self.reservations)
        for jid in previous:
            self._unreserve(jid)
        self._blocked.clear()
        for job in self._waiting.values():
            self._moved(job, previous.get(job.id), self._find_any(job, now))
        self._rebuilt = self._consistent = True
        self._changes.clear()


def reference(incremental: bool = True) -> Conservative:
    """Conservative doing the full work: the first rebuild, each reading per job, two profile
    updates per start."""
    policy = PerReservation()
    policy._reuse = False
    policy._one_update = False
    policy._incremental = incremental
    return policy


def fast(incremental: bool = True) -> Conservative:
    policy = Conservative()
    policy._incremental = incremental
    return policy


def run(policy: Conservative, make, jobs: list[Job]):
    """The schedule, every job's nodes and the displaced jobs."""
    result = simulate(make(), policy, jobs, jobs=None, record_placement=True)
    return result.schedule(), {k: v.tolist() for k, v in result.placements.items()}, list(policy.displaced)


def _jobs(case: str, seed: int, n: int = 200) -> list[Job]:
    """Jobs that end well before their estimates (run x U(1, 3)), some overrunning and some of
    zero length, at load 0.95: many compressions, moves, repairs and rebuilds."""
    _, topology, _, _ = CASES[case]
    return _mixed_estimates(synthetic(n, 64, seed, load=0.95, over=3.0, topology=topology), seed)


@pytest.mark.parametrize("case", list(CASES))
def test_the_shortcuts_change_no_decision(case):
    """Every allocator of the backfilling tests (flat, cubes, meshes, the tree, a switch tree):
    the same schedule, nodes and displaced jobs as the full work, with the repair after overruns
    and with a rebuild every time (``_incremental = False``)."""
    make = CASES[case][0]
    jobs = _jobs(case, 7)
    for incremental in (True, False):
        assert run(fast(incremental), make, jobs) == run(reference(incremental), make, jobs)


@pytest.mark.parametrize("name", list(TRACES))
def test_the_shortcuts_change_no_decision_on_the_shared_traces(name):
    """The first 400 jobs of each shared trace with its recorded estimates, on the buddy cube
    and on the tree of the smallest power of two holding it, and on its own flat machine: the
    same schedule, nodes and displaced jobs as the full work."""
    P = TRACES[name]
    base = shared_trace(name, 400)
    dim = math.ceil(math.log2(P))
    cube, flat = Hypercube(dim), Flat(1 << dim)
    cases = [
        (lambda: Buddy(cube), [Job(j.id, j.arrival, cube.request_for(j.size), j.runtime, estimate=j.estimate,
                                   size=j.size) for j in base]),
        (lambda: DHCTree(flat), [Job(j.id, j.arrival, flat.request_for(j.size), j.runtime, estimate=j.estimate,
                                     size=j.size) for j in base]),
        (lambda: FlatPool(Flat(P)), base),
    ]
    for make, jobs in cases:
        assert run(fast(), make, jobs) == run(reference(), make, jobs)


def test_readings_kept_past_a_move_are_caught():
    """The comparison can fail: readings of the log and of the peaks kept after a move (whose
    old place is room for the jobs behind it) miss that room, and jobs start later."""

    class Stale(Conservative):
        def _compress(self, now):
            self._first_reading = True
            super()._compress(now)

        def _forget_readings(self):
            if self._first_reading:  # only at the compression's start, not after its moves
                super()._forget_readings()
            self._first_reading = False

    make = CASES["cube"][0]
    jobs = _jobs("cube", 7, 300)
    assert run(Stale(), make, jobs) != run(reference(), make, jobs)


def test_a_start_that_keeps_its_reserved_nodes_is_caught(monkeypatch):
    """The comparison can fail: a profile whose update with no processors does nothing (so a job
    that starts at its reservation's start leaves its reserved nodes held) keeps later jobs off
    those nodes."""
    make = CASES["cube"][0]
    jobs = _jobs("cube", 7, 300)
    expected = run(reference(), make, jobs)
    change = FreeProfile.change

    def forgetful(self, start, end, delta, nodes=0):
        if delta:
            change(self, start, end, delta, nodes)

    monkeypatch.setattr(FreeProfile, "change", forgetful)
    assert run(fast(), make, jobs) != expected


def test_a_rebuild_that_keeps_the_old_profile_is_caught():
    """The comparison can fail: a rebuild that forgets the reservations without making the profile
    anew counts them twice, and jobs start later."""

    class Kept(Conservative):
        def _rebuild(self, now):
            previous = dict(self.reservations)
            self.reservations.clear()
            self._bits.clear()
            self._nofit.clear()
            self._blocked.clear()
            for job in self._waiting.values():
                self._moved(job, previous.get(job.id), self._find_any(job, now))
            self._rebuilt = self._consistent = True
            self._changes.clear()

    make = CASES["cube"][0]
    jobs = _jobs("cube", 7, 300)
    broken = Kept()
    broken._incremental = False
    assert run(broken, make, jobs) != run(reference(incremental=False), make, jobs)


class HeadChecked(Conservative):
    """Conservative that asks every queue-head question also on the allocator's free mask (the
    question as first written) and requires the same answer."""

    asked = 0
    placed = 0  # questions the allocator was asked (the head's processor count free)

    def queue_head(self):
        got = super().queue_head()
        job = next(iter(self._waiting.values()), None)
        if job is not None and not self._counting and self._info[job.id][0] <= self.allocator.free:
            alloc = self.allocator
            expected = job if alloc.place_in(self.request_of(job), _free_mask(alloc)) is None else None
            assert got is expected
            type(self).placed += 1
        type(self).asked += 1
        return got


def _on_trace(topology, n: int = 600) -> list[Job]:
    """The first ``n`` jobs of SDSC-SP2 (128 processors) with their recorded estimates, each
    request made for ``topology``."""
    return [Job(j.id, j.arrival, topology.request_for(j.size), j.runtime, estimate=j.estimate, size=j.size)
            for j in shared_trace("SDSC-SP2-1998-4.2-cln", n)]


_CUBE, _FLAT = Hypercube(7), Flat(128)
#: allocators and jobs whose queue head often has its processor count free while it waits: the
#: meshes and the switch tree on the synthetic jobs, the cubes and the tree on a trace
HEAD_CASES = {
    **{case: (CASES[case][0], lambda case=case: _jobs(case, 7)) for case in ("mesh", "frame", "bestfit", "switchtree")},
    "buddy": (lambda: Buddy(_CUBE), lambda: _on_trace(_CUBE)),
    "gray": (lambda: GrayCode(_CUBE), lambda: _on_trace(_CUBE)),
    "freelist": (lambda: FreeList(_CUBE), lambda: _on_trace(_CUBE)),
    "dhc": (lambda: DHCTree(_FLAT), lambda: _on_trace(_FLAT)),
}


@pytest.mark.parametrize("case", list(HEAD_CASES))
def test_the_queue_head_on_bits_answers_as_on_the_free_mask(case):
    """The head the simulator's blocked-by-topology measure is given is, at every event, the one
    the allocator's free mask gives, and the allocator is asked at ten events or more (meshes,
    cubes, the tree, a switch tree)."""
    make, jobs = HEAD_CASES[case]
    HeadChecked.asked = HeadChecked.placed = 0
    simulate(make(), HeadChecked(), jobs(), jobs=None)
    assert HeadChecked.placed >= 10, (HeadChecked.asked, HeadChecked.placed)


def _canonical(p: FreeProfile) -> bool:
    """No breakpoint between two equal steps."""
    return all((p.free[k], p.held[k]) != (p.free[k - 1], p.held[k - 1]) for k in range(1, len(p.times)))


@settings(max_examples=200, deadline=None)
@given(rects=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12), st.integers(1, 3), st.integers(0, 7)),
                      min_size=0, max_size=10),
       job=st.tuples(st.integers(0, 30), st.integers(0, 12), st.integers(1, 2), st.integers(0, 7)))
def test_one_update_at_a_start_equals_the_two_it_replaces(rects, job):
    """Rectangles taken from an 8-processor profile (each on its own node), then a reservation:
    the profile stays canonical (no breakpoint between equal steps), and releasing the
    reservation's nodes with one update of no processors gives exactly the lists (times, free
    counts, held nodes) that taking the reservation out and putting the running job in over the
    same time give."""
    p = FreeProfile(8)
    for s, d, n, node in rects:
        if min(p.free[k] for k in range(len(p.times)) if p.times[k] < s + d) >= n:
            p.change(float(s), float(s + d), -n, 0 if p.held_over(s, s + d) >> node & 1 else 1 << node)
    start, length, n, node = job
    end = float(start + length)
    bits = 1 << node
    p.change(float(start), end, -n, bits)
    assert _canonical(p)
    one, two = FreeProfile(8), FreeProfile(8)
    for q in (one, two):
        q.times, q.free, q.held = list(p.times), list(p.free), list(p.held)
    one.change(float(start), end, 0, bits)
    two.change(float(start), end, n, bits)
    two.change(float(start), end, -n)
    assert (one.times, one.free, one.held) == (two.times, two.free, two.held)
    assert _canonical(one)

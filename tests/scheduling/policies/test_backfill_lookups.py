"""The lookups EASY and Conservative make per event are dictionaries, sets and binary searches,
not scans of the queue: EASY finds a queued job's position by its arrival number, Conservative
keeps ``displaced`` with a companion set. These tests check that the kept structures agree with
the queue after every decision of runs where jobs start out of order."""

from __future__ import annotations

import math

import numpy as np

from scheduling import Job, simulate
from scheduling.policies import EASY, Conservative
from topoalloc import FlatPool
from topoalloc.tree import FirstFree
from topologies import Flat, SwitchTree, TreeRequest

from .test_backfilling import synthetic


def test_easy_finds_every_queued_job_by_its_arrival_number():
    """After every decision each queued job is found at its own position (backfilled jobs leave
    from the middle of the queue, heads from the front), and a switches wait that ends for a job
    behind the head updates that job's request key, not another's."""
    tree = SwitchTree.uniform((4, 16), names=("rack", "host"))
    rng = np.random.default_rng(5)
    jobs, t = [], 0.0
    for i in range(300):
        t += float(rng.integers(0, 4))
        n = int(rng.integers(1, 40))
        request = TreeRequest(n, switches=1, wait=float(rng.integers(1, 40))) if n <= 16 and rng.random() < 0.5 else n
        jobs.append(Job(i, t, request, float(rng.integers(1, 60)), size=n))
    checked = []

    class Checked(EASY):
        def decide(self, now):
            out = super().decide(now)
            assert [self._position(j.id) for j in self.queue] == list(range(len(self.queue)))
            assert list(self._qk) == [self._info[j.id][2] for j in self.queue]
            checked.append(len(self.queue))
            return out

    policy = Checked()
    result = simulate(FirstFree(tree), policy, jobs, jobs=None)
    assert len(result) == len(jobs) and max(checked) > 20
    assert result.summary()["fraction_relaxed"] > 0  # waits ended while the jobs were queued


def test_conservative_lists_each_displaced_job_once():
    """``displaced``: the jobs whose reservation moved later, each once, in the order they first
    moved (a list with a companion set, so the test for membership is O(1))."""
    rng = np.random.default_rng(9)
    jobs = [Job(j.id, j.arrival, j.request, j.runtime, estimate=float(math.ceil(j.runtime * rng.uniform(0.6, 1.2))))
            for j in synthetic(400, 64, 9, load=1.0, over=1.0)]
    policy = Conservative()
    simulate(FlatPool(Flat(64)), policy, jobs, jobs=None)
    assert len(policy.displaced) > 10
    assert len(set(policy.displaced)) == len(policy.displaced) and set(policy.displaced) == policy._displaced
    assert not policy._arrival and not policy.reservations  # nothing kept for jobs that left the queue

import math

import numpy as np
import pytest

from scheduling import Job, Policy, Resize, Resume, Simulator, Suspend, Timer, simulate
from scheduling.policies import FCFS
from scheduling.workloads import CubeDims, Exponential, Synthetic
from topoalloc import Buddy, FlatPool
from topologies import Flat, Hypercube


def test_fcfs_by_hand():
    # 8-cube... a 3-cube: job 0 takes everything, 1 waits, 2 (a 2-cube) cannot pass 1
    jobs = [Job(0, 0.0, 3, 2.0), Job(1, 0.5, 2, 1.0), Job(2, 0.6, 2, 1.0), Job(3, 0.7, 0, 5.0)]
    r = Simulator(Buddy(Hypercube(3)), "FCFS", jobs).run()
    assert r.schedule() == [(0, 0.0, 2.0, 8), (1, 2.0, 3.0, 4), (2, 2.0, 3.0, 4), (3, 3.0, 8.0, 1)]
    assert r.wait.tolist() == [0.0, 1.5, 1.4, 2.3]


def test_completion_before_arrival_at_the_same_instant():
    # job 1 arrives exactly when job 0 ends: it must see the freed processors and start at once
    jobs = [Job(0, 0.0, 4, 3.0), Job(1, 3.0, 4, 1.0)]
    r = Simulator(FlatPool(Flat(4)), "FCFS", jobs).run()
    assert r.start.tolist() == [0.0, 3.0]


def test_rsr_folds_and_linear_speedup_stretches_run_time():
    jobs = [Job(0, 0.0, 2, 10.0), Job(1, 1.0, 3, 4.0)]  # on a 3-cube job 1 finds only a 2-cube
    r = Simulator(Buddy(Hypercube(3)), "RSR-1", jobs).run()
    assert r.folds.tolist() == [0, 1]
    assert r.granted.tolist() == [4, 4] and r.requested.tolist() == [4, 8]
    assert r.end[1] == pytest.approx(1.0 + 8.0)  # 4 time units on 8 procs -> 8 on 4
    assert r.summary()["mean_folding_factor"] == pytest.approx((1 + 2) / 2)


def test_same_seed_same_result_and_common_random_numbers():
    w = Synthetic(CubeDims(7), Exponential(5.0), load=0.7, machine_size=256)
    a = simulate(Buddy(Hypercube(8)), "RSR-1", w, jobs=3000, warmup=200, seed=4)
    b = simulate(Buddy(Hypercube(8)), "RSR-1", w, jobs=3000, warmup=200, seed=4)
    assert a.schedule() == b.schedule() and a.summary() == b.summary()
    c = simulate(Buddy(Hypercube(8)), "Limit-5", w, jobs=3000, warmup=200, seed=4)
    # different policy, same jobs: arrivals and run times agree job for job
    common = np.intersect1d(a.id, c.id)
    ia, ic = np.searchsorted(a.id, common), np.searchsorted(c.id, common)
    assert np.array_equal(a.arrival[ia], c.arrival[ic]) and np.array_equal(a.runtime[ia], c.runtime[ic])
    d = simulate(Buddy(Hypercube(8)), "RSR-1", w, jobs=3000, warmup=200, seed=5)
    assert d.schedule() != a.schedule()


def test_stop_after_jobs_and_warmup_window():
    w = Synthetic(CubeDims(7), Exponential(5.0), load=0.4, machine_size=256)
    r = simulate(Buddy(Hypercube(8)), "FCFS", w, jobs=1000, warmup=100, seed=0)
    assert r.ordinal.min() >= 100
    assert len(r) + 100 >= 1000 - r.unfinished  # completions counted include warm-up ones
    assert r.window[0] == pytest.approx(w.take(101, seed=0)[100].arrival)
    # utilization agrees with the work done (linear speedup, no folds): busy integral ~ sum(n * t)
    assert 0.3 < r.utilization < 0.5


def test_utilization_of_a_known_schedule():
    jobs = [Job(0, 0.0, 2, 4.0), Job(1, 0.0, 2, 2.0)]
    r = Simulator(FlatPool(Flat(4)), "FCFS", jobs).run()
    # processors busy: 4 during [0, 2], 2 during [2, 4] -> 12 / (4 * 4)
    assert r.utilization == pytest.approx(12 / 16)
    assert r.effectiveness == pytest.approx(1.0)


class _Scripted(Policy):
    """Starts every job on all processors it asks for, then applies a scripted resize/suspend."""

    name = "scripted"

    def __init__(self, script):
        super().__init__()
        self.script = script
        self.running = {}

    def on_arrival(self, job, now):
        alloc = self.allocator.allocate(job.request)
        self.running[job.id] = alloc
        return [self.start(job, alloc)] + [Timer(at, key) for at, key in self.script]

    def on_finish(self, job, now):
        self.allocator.release(self.running.pop(job.id))
        return []

    def on_timer(self, key, now):
        job = self.job
        kind, arg = key
        if kind == "resize":
            return [Resize(job, arg, delay=0.5)]
        if kind == "suspend":
            return [Suspend(job)]
        return [Resume(job, delay=arg)]


def test_resize_suspend_resume_re_predict_completion():
    job = Job(0, 0.0, 4, 8.0)  # 8 time units on 4 processors
    pol = _Scripted([(2.0, ("resize", 2)), (3.0, ("suspend", None)), (5.0, ("resume", 1.0))])
    pol.job = job
    r = Simulator(FlatPool(Flat(4)), pol, [job]).run()
    # [0,2]: 1/4 done. resize to 2 procs (rate 1/16) with 0.5 overhead: [2.5,3]: 0.5/16 done.
    # suspended [3,5]; resume with 1.0 switch: progress from 6. left 1 - 1/4 - 1/32 = 23/32 -> 11.5 units
    assert r.end[0] == pytest.approx(6.0 + 11.5)
    assert r.changes[0] == 1


def test_stale_completion_events_are_skipped():
    # resizing to more processors makes the first prediction stale; it must not end the job early
    job = Job(0, 0.0, 2, 10.0)
    pol = _Scripted([(1.0, ("resize", 4))])
    pol.job = job
    r = Simulator(FlatPool(Flat(4)), pol, [job]).run()
    assert r.end[0] == pytest.approx(1.0 + 0.5 + 9.0 / 2)


def test_bad_arguments_raise():
    w = [Job(0, 0.0, 1, 1.0)]
    with pytest.raises(ValueError, match="warmup"):
        Simulator(FlatPool(Flat(4)), "FCFS", w, jobs=5, warmup=5)
    with pytest.raises(ValueError, match="jobs"):
        Simulator(FlatPool(Flat(4)), "FCFS", w, jobs=0)
    with pytest.raises(TypeError, match="allocator"):
        Simulator("pool", "FCFS", w)
    with pytest.raises(TypeError, match="workload"):
        Simulator(FlatPool(Flat(4)), "FCFS", 42).run()
    used = FlatPool(Flat(4))
    used.allocate(1)
    with pytest.raises(ValueError, match="fresh"):
        Simulator(used, "FCFS", w)
    late = [Job(0, 5.0, 1, 1.0), Job(1, 1.0, 1, 1.0)]
    with pytest.raises(ValueError, match="before"):
        Simulator(FlatPool(Flat(4)), FCFS(), late).run()


def test_until_stops_at_a_time():
    w = Synthetic(CubeDims(7), Exponential(5.0), load=0.5, machine_size=256)
    r = simulate(Buddy(Hypercube(8)), "FCFS", w, jobs=None, until=200.0, seed=0)
    assert r.window[1] == 200.0 and np.all(r.end <= 200.0)
    assert not math.isnan(r.summary()["mean_turnaround"])


# -- the contract: every event of an instant, then one decision ------------------------------------
class _Log(Policy):
    """FCFS on a flat pool that logs what the driver tells it."""

    name = "log"

    def __init__(self):
        super().__init__()
        self.log: list[tuple] = []
        self.queue: list = []
        self.running: dict = {}

    def on_arrival(self, job, now):
        self.log.append(("arrival", now, job.id))
        self.queue.append(job)

    def on_finish(self, job, now):
        self.log.append(("finish", now, job.id))
        self.allocator.release(self.running.pop(job.id))

    def on_timer(self, key, now):
        self.log.append(("timer", now, key))

    def decide(self, now):
        self.log.append(("decide", now))
        out = []
        if now == 0.0 and not any(e[0] == "decide" for e in self.log[:-1]):
            out.append(Timer(2.0, "t"))
        while self.queue and self.queue[0].request <= self.allocator.free:
            job = self.queue.pop(0)
            self.running[job.id] = self.allocator.allocate(job.request)
            out.append(self.start(job, self.running[job.id]))
        return out


def test_every_event_of_an_instant_is_delivered_before_one_decision():
    # jobs 0 and 1 end together at 2.0, when the timer fires and jobs 2 and 3 arrive; job 4 (length 0)
    # ends at the instant it starts, in a second round at 3.0
    jobs = [Job(0, 0.0, 2, 2.0), Job(1, 0.0, 2, 2.0), Job(2, 2.0, 4, 1.0), Job(3, 2.0, 1, 1.0),
            Job(4, 3.0, 1, 0.0)]
    pol = _Log()
    r = Simulator(FlatPool(Flat(4)), pol, jobs).run()
    at2 = [e for e in pol.log if e[1] == 2.0]
    assert at2 == [("finish", 2.0, 0), ("finish", 2.0, 1), ("timer", 2.0, "t"), ("arrival", 2.0, 2),
                   ("arrival", 2.0, 3), ("decide", 2.0)]
    assert r.start.tolist() == [0.0, 0.0, 2.0, 3.0, 3.0]  # job 2 saw both ends: all 4 processors
    at3 = [e for e in pol.log if e[1] == 3.0]
    assert at3 == [("finish", 3.0, 2), ("arrival", 3.0, 4), ("decide", 3.0), ("finish", 3.0, 4), ("decide", 3.0)]
    assert sum(e[0] == "decide" for e in pol.log) == len({e[1] for e in pol.log}) + 1  # one per instant + round


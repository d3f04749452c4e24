"""EASY and Conservative backfilling: exact schedules against independent references on a flat
machine (synthetic streams and real traces, with estimates that are and are not upper bounds), and
the reservation guarantees on flat, cube, mesh and tree allocators."""

from __future__ import annotations

import bisect
import heapq
import itertools
import math

import numpy as np
import pytest

from scheduling import Job, policies, simulate
from scheduling.policies import EASY, Conservative
from scheduling.policies.backfill import clone_allocator
from scheduling.workloads import TraceNotFoundError, load_swf, trace_path
from topoalloc import BestFit, Buddy, Buddy2D, DHCTree, FirstFit, FlatPool, FrameSliding, FreeList, GrayCode
from topoalloc.testing import (
    buddy_2d,
    frame_positions,
    gray_code_blocks,
    perfect_subcube,
    perfect_submesh,
    tree_any,
    tree_partitions,
)
from topoalloc.tree import FirstFree
from topologies import Flat, Hypercube, Mesh, SwitchTree, TreeRequest


# -- workloads ---------------------------------------------------------------------------------------
def synthetic(n: int, P: int, seed: int, *, load: float = 0.9, over: float = 3.0, topology=None) -> list[Job]:
    """Jobs on a P-processor machine with heavy-tailed sizes and run times; estimates are the run
    time times U(1, over) (``over=1``: exact), rounded so ties between ends occur."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(P, np.ceil(2.0 ** rng.uniform(0, math.log2(P), n))).astype(int)
    runs = np.ceil(rng.lognormal(3.0, 1.2, n))
    mean_work = float(np.mean(sizes * runs))
    gaps = np.round(rng.exponential(mean_work / (P * load), n))
    arrivals = np.cumsum(gaps)
    est = np.ceil(runs * rng.uniform(1.0, over, n)) if over > 1 else runs
    jobs = []
    for i in range(n):
        req = int(sizes[i]) if topology is None else topology.request_for(int(sizes[i]))
        jobs.append(Job(i, float(arrivals[i]), req, float(runs[i]), estimate=float(est[i]), size=int(sizes[i])))
    return jobs


def trace(name: str, limit: int | None = None, machine_size: int | None = None) -> list[Job]:
    """The first ``limit`` jobs of a shared SWF trace (estimates: the requested times, where the
    trace has them); the test is skipped when the trace is absent (see ``TOPOALLOC_TRACES``)."""
    try:
        path = trace_path(name)
    except TraceNotFoundError as exc:
        pytest.skip(f"trace {name} not available: {exc}")
    return load_swf(path, limit=limit, machine_size=machine_size).jobs()


def lublin(limit: int | None = None) -> list[Job]:
    return trace("lublin_256", limit)


# -- independent references (flat machine) ------------------------------------------------------------
def reference(jobs: list[Job], P: int, easy: bool) -> list[tuple[int, float, float]]:
    """FCFS, or EASY by Mu'alem & Feitelson's shadow time and extra processors, written from scratch.

    Every event of an instant is applied first (completions free their processors, arrivals join
    the queue in arrival order), then one scheduling pass: the strict FCFS part (the head starts
    while it fits), then, if the head waits, its shadow time (the first expected end after which
    enough processors are free) and extra processors (free then beyond the head's need), and the
    jobs behind it in queue order: each that fits now starts if it ends (by its estimate) by the
    shadow time or needs no more than the extra processors (which it then uses up). A running job
    is expected to end at start + estimate, or now if that has passed (jobs run past their
    estimate, they are not killed). A zero-length job started now ends in a second pass at the
    same instant."""
    events: list = []
    seq = itertools.count()
    for j in jobs:
        heapq.heappush(events, (j.arrival, 1, next(seq), j))
    free = P
    queue: list[Job] = []
    running: dict[int, tuple[int, float, int]] = {}  # id -> (size, expected end, start order)
    out: dict[int, tuple[float, float]] = {}
    order = itertools.count()

    def launch(job: Job, now: float) -> None:
        nonlocal free
        free -= job.request
        running[job.id] = (job.request, now + (job.estimate if job.estimate is not None else job.runtime),
                           next(order))
        out[job.id] = (now, now + job.runtime)
        heapq.heappush(events, (now + job.runtime, 0, next(seq), job))

    while events:
        now = events[0][0]
        while events and events[0][0] == now:
            _, kind, _, job = heapq.heappop(events)
            if kind == 0:
                free += running.pop(job.id)[0]
            else:
                queue.append(job)
        while queue and queue[0].request <= free:
            launch(queue.pop(0), now)
        if not easy or len(queue) < 2:
            continue
        need = queue[0].request
        avail = free
        shadow = None
        for size, end, _ in sorted(running.values(), key=lambda r: (max(r[1], now), r[2])):
            avail += size
            if avail >= need:
                shadow = max(end, now)
                break
        extra = free + sum(s for s, e, _ in running.values() if max(e, now) <= shadow) - need
        rest = [queue[0]]
        for cand in queue[1:]:
            est = cand.estimate if cand.estimate is not None else cand.runtime
            ok = cand.request <= free and (now + est <= shadow or cand.request <= extra)
            if ok:
                if now + est > shadow:
                    extra -= cand.request
                launch(cand, now)
            else:
                rest.append(cand)
        queue = rest
    return [(j.id, *out[j.id]) for j in jobs]


def conservative_reference(jobs: list[Job], P: int) -> list[tuple[int, float, float]]:
    """Conservative backfilling (Mu'alem & Feitelson 2001) on a profile of free processors,
    written from scratch.

    A reservation is a start time. The profile at a time u >= now is P minus the processors of the
    running jobs still expected to run at u (until start + estimate; a job past its estimate is
    expected to end now) minus those of the other queued jobs whose reservation interval
    [start, start + estimate) holds u. A job is reserved at the earliest u >= now (now or a step of
    the profile) from which the profile has its processors at u and over its whole estimate.

    The policy decides at arrivals, at ends and at the earliest reservation start, after every
    event of the instant:

    1. if a running job is past its estimate, or a job could not start at its reservation (a job
       past its estimate still held the processors), every reservation is made again, in arrival
       order, each given those made before it;
    2. else, if a job ended before its estimate, compression: in arrival order, each reservation
       is taken out and put back at the earliest time before its start at which it fits given all
       the others, or kept where it was;
    3. the jobs that arrived are reserved, in arrival order;
    4. every job reserved at or before now starts if its processors are free, in order of
       reservation start, then arrival.
    """
    est = {j.id: (j.estimate if j.estimate is not None else j.runtime) for j in jobs}
    procs = {j.id: j.request for j in jobs}
    ends: list = []  # heap of (actual end, seq, job)
    seq = itertools.count()
    running: dict[int, tuple[int, float]] = {}  # id -> (size, expected end)
    queue: list[Job] = []  # waiting, in arrival order
    res: dict[int, float] = {}  # id -> reserved start
    out: dict[int, tuple[float, float]] = {}
    nxt = 0
    early = False

    def profile(now: float, skip: int) -> list[tuple[float, int]]:
        """[(t, processors free from t to the next t)], from now on."""
        delta: dict[float, int] = {}
        base = P
        for size, e in running.values():
            if e > now:
                base -= size
                delta[e] = delta.get(e, 0) + size
        for jid, s in res.items():
            e = s + est[jid]
            if jid == skip or e <= now:
                continue
            if s <= now:
                base -= procs[jid]
            else:
                delta[s] = delta.get(s, 0) - procs[jid]
            delta[e] = delta.get(e, 0) + procs[jid]
        steps = [(now, base)]
        for t in sorted(delta):
            steps.append((t, steps[-1][1] + delta[t]))
        return steps

    def earliest(j: Job, now: float, before: float = math.inf) -> float | None:
        steps = profile(now, j.id)
        for i, (t, f) in enumerate(steps):
            if t >= before:
                return None
            if f < j.request:
                continue
            k = i + 1
            while k < len(steps) and steps[k][0] < t + est[j.id] and steps[k][1] >= j.request:
                k += 1
            if k == len(steps) or steps[k][0] >= t + est[j.id]:
                return t
        raise AssertionError(f"job {j.id} fits nowhere")

    now = -math.inf
    while nxt < len(jobs) or running or queue:
        times = [s for s in res.values() if s > now]  # a job that could not start waits for an event
        times += [jobs[nxt].arrival] if nxt < len(jobs) else []
        times += [ends[0][0]] if ends else []
        now = min(times)
        while ends and ends[0][0] == now:
            _, _, j = heapq.heappop(ends)
            early |= now < running.pop(j.id)[1]
        arrived = []
        while nxt < len(jobs) and jobs[nxt].arrival == now:
            arrived.append(jobs[nxt])
            nxt += 1
        if any(e < now for _, e in running.values()) or any(s < now for s in res.values()):
            res.clear()  # 1. made again in arrival order
            for j in queue:
                res[j.id] = earliest(j, now)
        elif early:  # 2. compression
            for j in queue:
                old = res.pop(j.id)
                t = earliest(j, now, before=old)
                res[j.id] = old if t is None else t
        early = False
        for j in arrived:  # 3.
            queue.append(j)
            res[j.id] = earliest(j, now)
        free = P - sum(size for size, _ in running.values())  # 4.
        due = sorted((res[j.id], i, j) for i, j in enumerate(queue) if res[j.id] <= now)
        for _, _, j in due:
            if j.request <= free:
                free -= j.request
                running[j.id] = (j.request, now + est[j.id])
                out[j.id] = (now, now + j.runtime)
                heapq.heappush(ends, (now + j.runtime, next(seq), j))
                del res[j.id]
        queue = [j for j in queue if j.id in res]
    return [(j.id, *out[j.id]) for j in jobs]


def schedule(result) -> list[tuple[int, float, float]]:
    return [(i, s, e) for i, s, e, _ in result.schedule()]


def backfilled(jobs: list[Job], result) -> int:
    """Jobs that started before a job that arrived before them: how much backfilling happened."""
    start = dict(zip(result.id.tolist(), result.start.tolist(), strict=True))
    latest = -math.inf
    count = 0
    for j in jobs:  # in arrival order
        if start[j.id] < latest:
            count += 1
        latest = max(latest, start[j.id])
    return count


@pytest.mark.parametrize("seed", [1, 2])
def test_fcfs_matches_the_reference_on_a_synthetic_stream(seed):
    jobs = synthetic(1500, 64, seed, load=0.95)
    got = schedule(simulate(FlatPool(Flat(64)), "FCFS", jobs, jobs=None))
    want = reference(jobs, 64, easy=False)
    assert got == want
    assert sum(s > j.arrival for j, (_, s, _) in zip(jobs, want, strict=True)) > 500  # jobs queued


def test_fcfs_matches_the_reference_on_lublin():
    jobs = lublin(2000)
    got = schedule(simulate(FlatPool(Flat(256)), "FCFS", jobs, jobs=None))
    assert got == reference(jobs, 256, easy=False)


@pytest.mark.parametrize("over", [1.0, 3.0])
def test_easy_matches_the_reference_on_a_synthetic_stream(over):
    jobs = synthetic(1500, 64, 3, load=0.95, over=over)
    result = simulate(FlatPool(Flat(64)), "EASY", jobs, jobs=None)
    assert schedule(result) == reference(jobs, 64, easy=True)
    assert backfilled(jobs, result) > 100


def test_easy_matches_the_reference_on_lublin():
    """The whole trace (10,000 jobs; its estimates are the run times)."""
    jobs = lublin()
    result = simulate(FlatPool(Flat(256)), "EASY", jobs, jobs=None)
    assert schedule(result) == reference(jobs, 256, easy=True)
    assert backfilled(jobs, result) > 1000


def overruns(jobs: list[Job]) -> int:
    return sum(j.runtime > j.estimate for j in jobs)


@pytest.mark.parametrize("name, P", [("SDSC-SP2-1998-4.2-cln", 128), ("CTC-SP2-1996-3.1-cln", 338)])
def test_easy_matches_the_reference_on_traces_with_estimates(name, P):
    """The whole traces (54,044 and 77,222 jobs). Estimates are the users' requested times:
    mostly far above the run times, and below them for some jobs (SDSC-SP2: 6%; CTC: 10%), which
    run past them."""
    jobs = trace(name, None, P)
    count = len(jobs)
    assert count > 50_000
    assert overruns(jobs) > 2_000 and sum(j.estimate > 2 * j.runtime for j in jobs) > count // 2
    result = simulate(FlatPool(Flat(P)), "EASY", jobs, jobs=None)
    assert schedule(result) == reference(jobs, P, easy=True)
    assert backfilled(jobs, result) > count // 10


def test_a_reservation_whose_shadow_time_passed_is_made_again():
    """A job past its estimate is expected to end *now*: a reservation made while it was the one
    the head waited for has its shadow time at that instant. Once that instant has passed (here a
    job ends at its estimate meanwhile, freeing processors) the reservation is made again: the
    textbook pass at t = 20 has shadow time 20 and 3 extra processors, so the one-processor job
    starts then instead of waiting for the overdue job to end at 100."""
    jobs = [Job(0, 0.0, 6, 100.0, estimate=10.0),  # runs past its estimate
            Job(1, 0.0, 3, 20.0, estimate=20.0),  # ends at its estimate
            Job(2, 1.0, 7, 5.0, estimate=5.0),  # the head: waits for job 0
            Job(3, 11.0, 1, 1.0, estimate=1.0)]  # fits the free count when job 0 is overdue
    got = schedule(simulate(FlatPool(Flat(10)), "EASY", jobs, jobs=None))
    assert got == reference(jobs, 10, easy=True)
    assert got[3] == (3, 20.0, 21.0)


@pytest.mark.parametrize("over", [1.0, 3.0])
def test_conservative_matches_the_reference_on_a_synthetic_stream(over):
    jobs = synthetic(1000, 64, 3, load=0.9, over=over)
    result = simulate(FlatPool(Flat(64)), "Conservative", jobs, jobs=None)
    assert schedule(result) == conservative_reference(jobs, 64)
    assert backfilled(jobs, result) > 100


def test_conservative_matches_the_reference_on_lublin():
    """The whole trace (10,000 jobs)."""
    jobs = lublin()
    result = simulate(FlatPool(Flat(256)), "Conservative", jobs, jobs=None)
    assert schedule(result) == conservative_reference(jobs, 256)
    assert backfilled(jobs, result) > 1000


@pytest.mark.parametrize("name, count, P", [("SDSC-SP2-1998-4.2-cln", 3_000, 128),
                                            ("HPC2N-2002-2.2-cln", 2_500, 240)])
def test_conservative_matches_the_reference_on_traces_with_estimates(name, count, P):
    """Early ends (compression), overruns (rebuilds) and jobs blocked at their reservation by a
    job past its estimate all occur on these prefixes."""
    jobs = trace(name, count, P)
    assert overruns(jobs) > 100
    policy = Conservative()
    result = simulate(FlatPool(Flat(P)), policy, jobs, jobs=None)
    assert schedule(result) == conservative_reference(jobs, P)
    assert backfilled(jobs, result) > count // 20
    assert len(policy.displaced) > 10  # moved later by an overrun


def test_easy_beats_fcfs_on_wait():
    jobs = synthetic(1500, 64, 4, load=0.9)
    easy = simulate(FlatPool(Flat(64)), "EASY", jobs, jobs=None).summary()["mean_wait"]
    fcfs = simulate(FlatPool(Flat(64)), "FCFS", jobs, jobs=None).summary()["mean_wait"]
    assert easy < 0.8 * fcfs


# -- the head's guarantee, checked by an independent oracle --------------------------------------------
def fits_flat(busy: np.ndarray, request) -> bool:
    return int((~busy).sum()) >= request


def fits_buddy(busy: np.ndarray, k) -> bool:
    return bool((~busy.reshape(-1, 1 << k).any(axis=1)).any())


def fits_mesh(width: int, height: int):
    def fits(busy: np.ndarray, request) -> bool:
        w, h = request
        grid = busy.reshape(height, width).astype(int)
        c = np.zeros((height + 1, width + 1), dtype=int)
        c[1:, 1:] = grid.cumsum(0).cumsum(1)
        windows = c[h:, w:] - c[:-h, w:] - c[h:, :-w] + c[:-h, :-w]
        return bool((windows == 0).any())
    return fits


def fcfs_start(policy, head: Job, now: float, fits) -> float:
    """When FCFS would start ``head`` from the current state: the first instant a free region fits it,
    with every running job ending exactly at start + run time (exact estimates) and nothing else
    starting."""
    P = policy.allocator.size
    ends = sorted({now, *(h.start + h.job.runtime for h in policy.running.values())})
    for t in ends:
        busy = np.zeros(P, dtype=bool)
        for h in policy.running.values():
            if h.start + h.job.runtime > t:
                busy[h.alloc.nodes] = True
        if fits(busy, head.request):
            return t
    raise AssertionError("the head fits nowhere")


def watch_heads(base, fits):
    """A subclass of ``base`` that records, for every job, the FCFS start (oracle) computed when it
    first was the blocked head, and checks after every pass that it never moves later."""

    class Watched(base):
        def __init__(self):
            super().__init__()
            self.first: dict[int, float] = {}
            self.last: dict[int, float] = {}

        def _check(self, now):
            if self.queue:
                head = self.queue[0]
                t = fcfs_start(self, head, now, fits)
                self.first.setdefault(head.id, t)
                assert t <= self.last.get(head.id, math.inf), f"head {head.id} delayed at {now}"
                self.last[head.id] = t

        def decide(self, now):
            out = super().decide(now)
            self._check(now)
            return out

    return Watched


def fits_by(oracle):
    """``fits(busy, request)`` from a :mod:`topoalloc.testing` oracle (brute-force recognition on a
    free mask), for the allocator the case builds."""
    def bind(allocator):
        shape = np.asarray(allocator.occupancy).shape
        return lambda busy, request: bool(oracle(allocator, ~busy.reshape(shape), request))
    return bind


def _same(fits):
    return lambda allocator: fits


class RackRequests:
    """Requests on a switch tree of 16-node racks: a job of at most a rack requires one rack (Kueue's
    required topology), a larger one is a plain count."""

    def __init__(self, tree: SwitchTree) -> None:
        self.tree = tree

    def request_for(self, n: int):
        return TreeRequest(n, required="rack") if n <= 16 else n


_TREE = SwitchTree.uniform((4, 16), names=("rack", "host"))


#: case -> (allocator factory, topology for the requests (None: counts), fits(allocator) -> oracle,
#: whether Conservative's reservations are exact there: placements of one request never overlap in
#: part, and the allocator's own order off the other reservations finds a free reserved region)
CASES = {
    "flat": (lambda: FlatPool(Flat(64)), None, _same(fits_flat), True),
    "cube": (lambda: Buddy(Hypercube(6)), Hypercube(6), _same(fits_buddy), True),
    "mesh": (lambda: FirstFit(Mesh(8, 8)), Mesh(8, 8), _same(fits_mesh(8, 8)), False),
    "buddy2d": (lambda: Buddy2D(Mesh(8, 8)), Mesh(8, 8), fits_by(buddy_2d), True),
    "frame": (lambda: FrameSliding(Mesh(8, 8)), Mesh(8, 8), fits_by(frame_positions), True),
    "bestfit": (lambda: BestFit(Mesh(8, 8)), Mesh(8, 8), fits_by(perfect_submesh), False),
    "gray": (lambda: GrayCode(Hypercube(6)), Hypercube(6), fits_by(gray_code_blocks), False),
    "freelist": (lambda: FreeList(Hypercube(6)), Hypercube(6), fits_by(perfect_subcube), False),
    "dhc": (lambda: DHCTree(Flat(64)), Flat(64), fits_by(tree_partitions), True),
    # a switch tree with constrained requests: placements of one request can overlap in part
    "switchtree": (lambda: FirstFree(_TREE), RackRequests(_TREE), fits_by(tree_any), False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_easy_never_starts_the_head_later_than_fcfs_would(case):
    make, topology, fits, _ = CASES[case]
    jobs = synthetic(500 if case != "flat" else 1000, 64, 5, load=0.95, over=1.0, topology=topology)
    allocator = make()
    policy = watch_heads(EASY, fits(allocator))()
    result = simulate(allocator, policy, jobs, jobs=None)
    start = dict(zip(result.id.tolist(), result.start.tolist(), strict=True))
    assert len(policy.first) > 50
    for jid, t in policy.first.items():
        assert start[jid] <= t, f"job {jid} started at {start[jid]}, FCFS would have started it at {t}"
    assert backfilled(jobs, result) > 30


def test_a_backfill_that_ignores_the_reserved_region_is_caught():
    """The oracle test above can fail: a variant that backfills anything that fits (no reservation)
    delays heads on the mesh."""
    make, topology, fits, _ = CASES["mesh"]
    jobs = synthetic(500, 64, 5, load=0.95, over=1.0, topology=topology)

    class Greedy(EASY):
        def reservation(self, job, now):
            res = super().reservation(job, now)
            return type(res)(res.job, math.inf, math.inf, np.zeros_like(res.nodes))

    allocator = make()
    with pytest.raises(AssertionError, match="delayed"):
        simulate(allocator, watch_heads(Greedy, fits(allocator))(), jobs, jobs=None)


@pytest.mark.parametrize("case", list(CASES))
def test_easy_with_inexact_estimates_keeps_the_heads_reservation(case):
    """With estimates above the run times the bound is the reservation computed from the estimates."""
    make, topology, _, _ = CASES[case]
    jobs = synthetic(400, 64, 6, load=0.95, over=3.0, topology=topology)

    class Recorded(EASY):
        first: dict

        def decide(self, now):
            out = super().decide(now)
            self._note(now)
            return out

        def _note(self, now):
            if self.queue:
                self.__dict__.setdefault("first", {}).setdefault(self.queue[0].id,
                                                                 self.reservation(self.queue[0], now).start)

    policy = Recorded()
    result = simulate(make(), policy, jobs, jobs=None)
    start = dict(zip(result.id.tolist(), result.start.tolist(), strict=True))
    assert len(policy.first) > 30
    assert all(start[j] <= t for j, t in policy.first.items())


# -- Conservative ------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("over", [1.0, 3.0])
def test_conservative_never_starts_a_job_after_its_arrival_reservation(case, over):
    """Exact where placements of one request never overlap in part (flat, buddy cubes and squares,
    frames, tree partitions: the allocator's own order off the other reservations finds the free
    reserved region or another); elsewhere a job can be displaced (listed in ``policy.displaced``),
    and no other job is ever late."""
    make, topology, _, exact = CASES[case]
    n = 600 if case == "flat" else 200 if over == 1.0 else 100
    jobs = synthetic(n, 64, 7, load=0.95, over=over, topology=topology)

    class Recorded(Conservative):
        def __init__(self):
            super().__init__()
            self.promised: dict[int, float] = {}

        def decide(self, now):
            new = list(self._new)
            out = super().decide(now)
            for job in new:
                res = self.reservations.get(job.id)
                self.promised[job.id] = res.start if res is not None else now
            return out

    policy = Recorded()
    result = simulate(make(), policy, jobs, jobs=None)
    start = dict(zip(result.id.tolist(), result.start.tolist(), strict=True))
    late = {j for j, t in policy.promised.items() if start[j] > t}
    if exact:
        assert not late and not policy.displaced
    else:
        assert late <= set(policy.displaced) and len(policy.displaced) <= 0.05 * n
    assert sum(start[j.id] > j.arrival for j in jobs) > n // 4  # jobs did wait for reservations
    assert backfilled(jobs, result) > 10


def test_conservative_reservations_never_overlap_on_a_mesh():
    make, topology, _, _ = CASES["mesh"]
    jobs = synthetic(150, 64, 8, load=1.0, over=2.0, topology=topology)

    class Checked(Conservative):
        def _start_due(self, now):
            out = super()._start_due(now)
            res = list(self.reservations.values())
            for a, b in itertools.combinations(res, 2):
                if a.start < b.end and b.start < a.end:
                    assert not (a.nodes & b.nodes).any(), f"reservations of {a.job.id} and {b.job.id} overlap"
            return out

    result = simulate(make(), Checked(), jobs, jobs=None)
    assert len(result) == len(jobs)


# -- overruns, registry, errors, clones --------------------------------------------------------------
def test_a_job_running_past_its_estimate():
    """Job 0 underestimates (5 for 10): after t=5 it is expected to end *now*, so the head's
    reservation is recomputed at each event; job 3 (arriving at 6) would run past the head's
    recomputed shadow time (6) on processors the head needs, so it is not backfilled."""
    jobs = [Job(0, 0, 2, 10.0, estimate=5.0), Job(1, 1, 4, 10.0), Job(2, 2, 2, 2.0), Job(3, 6, 2, 1.0)]
    for name in ("EASY", "Conservative"):
        r = simulate(FlatPool(Flat(4)), name, jobs, jobs=None)
        assert r.start.tolist() == [0.0, 10.0, 2.0, 20.0], name
    cube = [Job(j.id, j.arrival, {2: 1, 4: 2}[j.request], j.runtime, estimate=j.estimate) for j in jobs]
    for name in ("EASY", "Conservative"):
        r = simulate(Buddy(Hypercube(2)), name, cube, jobs=None)
        assert r.start.tolist() == [0.0, 10.0, 2.0, 20.0], name


@pytest.mark.parametrize("name", ["EASY", "Conservative"])
def test_overrunning_jobs_everywhere_still_finish(name):
    jobs = synthetic(200, 64, 9, load=1.0, over=1.0)
    rng = np.random.default_rng(0)
    jobs = [Job(j.id, j.arrival, j.request, j.runtime, estimate=float(np.ceil(j.runtime * rng.uniform(0.3, 1.5))),
                size=j.size) for j in jobs]
    r = simulate(FlatPool(Flat(64)), name, jobs, jobs=None)
    assert len(r) == 200 and r.unfinished == 0


def test_registry_and_bad_estimates():
    assert policies.get("EASY").name == "EASY" and policies.get("conservative").name == "Conservative"
    assert isinstance(policies.get("easy"), EASY)
    with pytest.raises(ValueError, match="job 7 has estimate -1"):
        simulate(FlatPool(Flat(4)), "EASY", [Job(7, 0, 1, 1.0, estimate=-1.0)], jobs=None)


def test_clone_is_independent_and_equivalent():
    makers = [lambda: FlatPool(Flat(32)), lambda: Buddy(Hypercube(5))]
    topologies = [Flat(32), Hypercube(5)]
    try:
        from topoalloc.mesh import BestFit, Buddy2D, FirstFit, FrameSliding
    except ImportError:
        pass
    else:
        for cls in (FirstFit, BestFit, FrameSliding, Buddy2D):
            makers.append(lambda cls=cls: cls(Mesh(8, 8)))
            topologies.append(Mesh(8, 8))
    try:
        from topoalloc import DHCTree, FreeList, GrayCode
    except ImportError:
        pass
    else:
        for cls in (GrayCode, FreeList):
            makers.append(lambda cls=cls: cls(Hypercube(5)))
            topologies.append(Hypercube(5))
        makers.append(lambda: DHCTree(Flat(32)))
        topologies.append(Flat(32))
    rng = np.random.default_rng(3)
    for make, topo in zip(makers, topologies, strict=True):
        a = make()
        live = []
        for _ in range(12):
            got = a.allocate(topo.request_for(int(rng.integers(1, 6))))
            if got is not None:
                live.append(got)
        for x in live[::3]:
            a.release(x)
        live = [x for i, x in enumerate(live) if i % 3]
        b = clone_allocator(a)
        before = a.occupancy.copy()
        for x in live[:2]:
            b.release(x)  # the clone releases the original's grants
        assert (a.occupancy == before).all() and a.free == int((before.ravel() == 0).sum())
        # the same operations give the same placements on both
        b2 = clone_allocator(a)
        for _ in range(6):
            req = topo.request_for(int(rng.integers(1, 5)))
            x, y = a.allocate(req), b2.allocate(req)
            assert (x is None) == (y is None)
            if x is not None:
                assert x.nodes.tolist() == y.nodes.tolist()
        assert (a.occupancy == b2.occupancy).all()


# -- issue: an arrival must not jump an earlier eligible job; zero-length jobs ----------------------------
def test_an_arrival_does_not_jump_an_earlier_job_made_eligible_by_an_overrun():
    """Jobs 0 and 1 overrun their estimates (5 s and 50 s; both run 1000 s), so time alone moves
    the head's reservation: each is expected to end *now*. At t = 60 (job 4 arrives) a full pass
    sees 2 processors free and the head (job 2, 7 processors) reserved at 60 with 3 extra, so job 3
    (arrived at 11, 2 processors) starts; the arrival-only shortcut tried job 4 alone and started it
    ahead of job 3, which then waited until 160."""
    jobs = [Job(0, 0.0, 6, 1000.0, estimate=5.0), Job(1, 0.0, 2, 1000.0, estimate=50.0),
            Job(2, 10.0, 7, 10.0, estimate=10.0), Job(3, 11.0, 2, 100.0, estimate=100.0),
            Job(4, 60.0, 1, 100.0, estimate=100.0)]
    r = simulate(FlatPool(Flat(10)), "EASY", jobs, jobs=None)
    start = dict(zip(r.id.tolist(), r.start.tolist(), strict=True))
    assert start[3] == 60.0
    assert start[4] >= start[3]
    assert schedule(r) == reference(jobs, 10, easy=True)


@pytest.mark.parametrize("name", ["EASY", "Conservative"])
def test_zero_length_jobs_hold_nothing(name):
    """[start, end): a job of length 0 (estimate 0) holds its processors at no time, so the job
    reserved behind it starts at the same instant (in the next round), on counting and node-set
    reservations alike -- not an instant later."""
    jobs = [Job(0, 0.0, 4, 10.0, estimate=10.0), Job(1, 1.0, 4, 0.0, estimate=0.0),
            Job(2, 2.0, 4, 5.0, estimate=5.0), Job(3, 3.0, 2, 0.0, estimate=0.0)]
    flat = simulate(FlatPool(Flat(4)), name, jobs, jobs=None)
    assert flat.start.tolist() == [0.0, 10.0, 10.0, 15.0]
    cube_jobs = [Job(j.id, j.arrival, {4: 2, 2: 1}[j.request], j.runtime, estimate=j.estimate) for j in jobs]
    cube = simulate(Buddy(Hypercube(2)), name, cube_jobs, jobs=None)
    assert cube.start.tolist() == flat.start.tolist()


@pytest.mark.parametrize("case", ["flat", "cube", "mesh", "dhc"])
def test_conservative_profile_matches_its_reservations(case):
    """The free-processor profile Conservative keeps up to date (and, on node sets, the reserved
    nodes per step) equals the one recomputed from scratch from the running jobs' expected ends and
    the reservations, after every decision, through compressions and overruns."""
    make, topology, _, _ = CASES[case]
    jobs = synthetic(250 if case == "flat" else 120, 64, 11, load=0.95, over=3.0, topology=topology)
    rng = np.random.default_rng(1)
    jobs = [Job(j.id, j.arrival, j.request, j.runtime, estimate=float(np.ceil(j.estimate * rng.uniform(0.4, 1.0))),
                size=j.size) for j in jobs]  # some run past their estimates
    checked = []

    class Checked(Conservative):
        def decide(self, now):
            out = super().decide(now)
            P = self.allocator.size
            ends = [(max(h.end, now), h.size) for h in self.running.values()]
            res = [(r.start, r.end, self._info[j][0], r.nodes) for j, r in self.reservations.items()]
            points = sorted({now, *self.profile.times[1:], *(e for e, _ in ends), *(x for r in res for x in r[:2])})
            for u in (u for u in points if u >= now):
                free = P - sum(n for e, n in ends if u < e) - sum(n for s, e, n, _ in res if s <= u < e)
                held = np.zeros(P, dtype=bool)
                for s, e, _, nodes in res:
                    if nodes is not None and s <= u < e:
                        held |= nodes
                i = bisect.bisect_right(self.profile.times, u) - 1
                assert self.profile.free[i] == free, f"free processors at {u} (decided at {now})"
                if not self.counting:
                    mine = np.unpackbits(np.frombuffer(self.profile.held[i].to_bytes((P + 7) // 8, "little"),
                                                       dtype=np.uint8), count=P, bitorder="little").view(bool)
                    assert (mine == held).all(), f"reserved nodes at {u} (decided at {now})"
            checked.append(now)
            return out

    policy = Checked()
    result = simulate(make(), policy, jobs, jobs=None)
    assert len(result) == len(jobs) and len(checked) > len(jobs)
    assert sum(j.runtime > j.estimate for j in jobs) > len(jobs) // 8


# -- shortcuts that must not change a decision -------------------------------------------------------
def _mixed_estimates(jobs: list[Job], seed: int) -> list[Job]:
    """``jobs`` with some estimates below the run time (overruns) and some zero-length jobs."""
    rng = np.random.default_rng(seed)
    out = []
    for j in jobs:
        u = rng.random()
        if u < 0.08:
            j = Job(j.id, j.arrival, j.request, j.runtime, estimate=max(0.0, math.floor(j.runtime * 0.5)), size=j.size)
        elif u < 0.11:
            j = Job(j.id, j.arrival, j.request, 0.0, estimate=j.estimate, size=j.size)
        out.append(j)
    return out


def _schedule_with(policy, make, jobs):
    result = simulate(make(), policy, jobs, jobs=None, record_placement=True)
    return result.schedule(), {k: v.tolist() for k, v in result.placements.items()}


#: (policy class, private switch, flat case too): the shortcut is on by default; off, the policy
#: does the full work
SHORTCUTS = [(EASY, "_floor_first", False), (EASY, "_keep_early", True), (EASY, "_skip_dead", True),
             (EASY, "_keep_box_count", False), (Conservative, "_skip", False), (Conservative, "_direct", False)]


@pytest.mark.parametrize("case, cls, switch", [(c, cls, s) for cls, s, flat in SHORTCUTS for c in CASES
                                               if flat or c != "flat"])
def test_shortcuts_change_no_decision(case, cls, switch):
    """EASY computes the head's reservation only for a candidate that does not end by a cheap
    lower bound of the shadow time and keeps it over early ends of jobs expected to end before
    it, and on a flat machine skips the jobs found unable to start under the kept reservation; on
    a topology it keeps the free count of the reserved rectangle across passes; Conservative's
    compression skips the searches its log of freed room proves useless, and it starts a job
    that no other reservation overlaps with the allocator's own first placement: with any shortcut
    switched off the schedule and every placement are the same (estimates above, at and below
    the run times, zero-length jobs)."""
    make, topology, _, _ = CASES[case]
    for seed in (7, 8):
        jobs = _mixed_estimates(synthetic(200, 64, seed, load=0.95, over=3.0, topology=topology), seed)
        fast = cls()
        slow = cls()
        setattr(slow, switch, False)
        assert _schedule_with(fast, make, jobs) == _schedule_with(slow, make, jobs)


def test_a_shortcut_that_skips_too_much_is_caught():
    """The comparison above can fail: a compression that trusts an empty log for every job (never
    searching again) starts jobs later than the full compression."""
    make, topology, _, _ = CASES["cube"]
    jobs = _mixed_estimates(synthetic(300, 64, 7, load=0.95, over=3.0, topology=topology), 7)

    class Lazy(Conservative):
        def _fresh(self, jid, now, limit):
            return [], now  # nothing freed, ever

    assert _schedule_with(Lazy(), make, jobs) != _schedule_with(Conservative(), make, jobs)


def test_starting_off_reserved_nodes_without_checking_them_is_caught():
    """The comparison above can fail for the direct start too: a Conservative that starts every
    job with the allocator's first placement, even where other reservations hold nodes over its
    run, takes reserved nodes and delays their jobs (the same jobs as the shortcut test, on the
    cube)."""
    make, topology, _, _ = CASES["cube"]
    jobs = _mixed_estimates(synthetic(300, 64, 7, load=0.95, over=3.0, topology=topology), 7)

    class Careless(Conservative):
        def bind(self, allocator):
            super().bind(allocator)
            allocator.allocate_avoiding = lambda request, avoid: allocator.allocate(request)

    assert _schedule_with(Careless(), make, jobs) != _schedule_with(Conservative(), make, jobs)


@pytest.mark.parametrize("case", ["mesh", "frame", "buddy2d", "cube"])
def test_kept_count_of_free_reserved_nodes_is_exact(case):
    """The free count of the head's reserved rectangle EASY keeps across passes equals a fresh
    count of the free reserved nodes after every event (a count too high would skip candidates
    wrongly, one too low would only ask the allocator more)."""
    make, topology, _, _ = CASES[case]
    checked = 0

    class Checked(EASY):
        def _check(self):
            nonlocal checked
            if self._box_free >= 0:
                fresh = int(np.count_nonzero(self._res.nodes & (self.allocator.occupancy.ravel() == 0)))
                assert self._box_free == fresh
                checked += 1

        def decide(self, now):
            actions = super().decide(now)
            self._check()
            return actions

        def on_finish(self, job, now):
            super().on_finish(job, now)
            self._check()

    for seed in (7, 8):
        jobs = _mixed_estimates(synthetic(200, 64, seed, load=0.95, over=3.0, topology=topology), seed)
        simulate(make(), Checked(), jobs, jobs=None)
    assert checked > 100

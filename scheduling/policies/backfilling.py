"""Backfilling: EASY (one reservation, for the head of the queue) and Conservative (one per job).

Both are FCFS with backfilling, judged with the users' run-time estimates (``Job.estimate``; the
job's run time when it has none). They work on **every** allocator, not only
:class:`~topoalloc.FlatPool`.

**How a reservation is represented.** A reservation is a start time plus the *node set* the job
would get then, found by asking the allocator itself: the allocator is cloned (a deep copy, see
:func:`clone_allocator`), the running jobs are released on the clone in order of their expected
end (start + estimate), and after each end time the job's request is tried on the clone; the first
time it fits is the reservation's *shadow time*, the nodes it got there are the *reserved nodes*.
A job that would otherwise have to wait may start now (be *backfilled*) only if its allocation
(the one the real allocator gives it now) either ends, by its estimate, no later than the shadow
time, or does not touch the reserved nodes. So on a mesh or a cube a backfilled job never takes
the region the head's reservation needs, whatever the allocator's placement rule: at the shadow
time the reserved nodes are free (every running job the replay released has ended, every
backfilled job has ended or stayed off them), so an allocator whose success depends only on which
nodes are free (all of :mod:`topoalloc`) places the head then, if not earlier. A candidate that
would run past the shadow time takes the first of the allocator's placements, in the allocator's
own order, that stays off the reserved nodes: rejected placements are held while the next one is
asked for, then released (allocators have no "place it there" call, so this is how the policy
steers them; it sees only placements the allocator offers).

On an allocator that recognises any free processors (``recognition == "any"``: ``FlatPool``) the
node set is replaced by pure counting, Mu'alem & Feitelson's *shadow time* and *extra processors*:
a candidate may start if it fits now and ends by the shadow time or needs no more than the extra
processors (those free at the shadow time beyond what the head needs). That is the same rule,
since flat processors are interchangeable, at O(running + queue) per event and no copies.

**Zero-length jobs.** A job occupies its processors over ``[start, start + run time)``, in the
simulator and in every reservation here: a job of (estimated) length 0 holds nothing, always ends
by the shadow time, and its reservation overlaps no other.

**Estimates and overruns.** A running job is expected to end at ``start + estimate``. A job still
running past that (an estimate shorter than its run time, which real traces have) is expected to
end *now*: its end is taken as the current time, so reservations are recomputed at every event
from the jobs' latest expected ends, and the head's reservation can then move later than first
computed (the guarantees below assume estimates are upper bounds, as in the papers). Jobs are not
killed at their estimate.

Guarantees (with estimates that are upper bounds of the run times):

* ``EASY``: a job, once at the head of the queue, starts no later than the reservation computed
  when it became the head, which is when FCFS would start it from that state. Other queued jobs
  have no such bound (a backfilled job can delay the jobs behind the head).
* ``Conservative``: no job starts later than the reservation it got on arrival (reservations are
  only ever moved earlier), so a job is never delayed by any job that arrived after it. This is
  exact on counting allocators and on buddy allocators (placements of one request never overlap
  in part, so the allocator can always be steered to the reserved block); on allocators whose
  placements can overlap in part (Zhu's first fit on a mesh) a job whose reserved region the
  allocator cannot be steered to is re-reserved and listed in :attr:`Conservative.displaced`.
"""

from __future__ import annotations

import bisect
import copy
import heapq
import itertools
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from topoalloc import Allocation, Allocator

from ..actions import Action, Start, Timer
from ..jobs import Job
from .base import Policy

__all__ = ["EASY", "Conservative", "Reservation", "clone_allocator"]


def clone_allocator(allocator: Allocator) -> Allocator:
    """An independent copy of ``allocator`` with the same free state and the same live grants.

    Used for what-if replays: releasing a live :class:`~topoalloc.Allocation` of the original on
    the clone works (the clone knows the same grant ids), allocations made on the clone must never
    be released on the original. An allocator with a ``clone()`` method is copied with it;
    otherwise with :func:`copy.deepcopy`, sharing the (immutable) allocations, and repairing
    ``numpy`` attributes that are views into another attribute (``deepcopy`` would give the view its
    own memory, so that e.g. Zhu's busy array stopped being a window of its padded store).
    O(size of the allocator's state).
    """
    own = getattr(allocator, "clone", None)
    if callable(own):
        return own()
    memo: dict[int, Any] = {id(a): a for a in allocator.allocations}
    twin = copy.deepcopy(allocator, memo)
    state = getattr(allocator, "__dict__", {})
    for name, value in state.items():
        if not isinstance(value, np.ndarray) or value.base is None:
            continue
        base = value.base
        while base is not None and id(base) not in memo:
            base = getattr(base, "base", None)
        if base is None or not isinstance(base, np.ndarray) or not base.flags.c_contiguous:
            continue
        twin_base = memo[id(base)]
        offset = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        view = np.ndarray(value.shape, value.dtype, buffer=twin_base, offset=offset, strides=value.strides)
        object.__setattr__(twin, name, view)
    return twin


@dataclass(frozen=True, slots=True)
class Reservation:
    """A queued job's reservation: it may start at ``start`` and is expected to end at ``end``
    (``start`` + estimate), on ``nodes`` (a boolean mask over node ids; ``None`` on a counting,
    flat allocator, where ``extra`` is the number of processors free at ``start`` beyond the job's
    need, or -1 when not computed)."""

    job: Job
    start: float
    end: float
    nodes: np.ndarray | None = None
    extra: int = -1


class _Held:
    __slots__ = ("job", "alloc", "size", "start", "end", "seq")

    def __init__(self, job: Job, alloc: Allocation, size: int, start: float, end: float, seq: int) -> None:
        self.job, self.alloc, self.size, self.start, self.end, self.seq = job, alloc, size, start, end, seq


def _estimate(job: Job) -> float:
    est = job.estimate if job.estimate is not None else job.runtime
    if not est >= 0 or math.isnan(est):
        raise ValueError(f"job {job.id} has estimate {est!r}; backfilling needs a run-time estimate >= 0")
    return float(est)


class _Backfilling(Policy):
    """What EASY and Conservative share: the queue, the running jobs sorted by expected end."""

    def __init__(self) -> None:
        super().__init__()
        self.running: dict[int, _Held] = {}
        self._ends: list[tuple[float, int, int, int]] = []  # (start + estimate, seq, job id, size), sorted
        self._seq = itertools.count()
        self._counting: bool | None = None
        self._info: dict[int, tuple[int, float]] = {}  # queued job id -> (processors, estimate)

    def _admit(self, job: Job) -> None:
        if job.id not in self._info:
            self._info[job.id] = (self.allocator.request_size(job.request), _estimate(job))

    def reference_size(self, job: Job) -> int:
        """The job's processor count (cached with its estimate: the driver asks before
        :meth:`on_arrival`)."""
        info = self._info.get(job.id)
        if info is None:
            info = self._info[job.id] = (self.allocator.request_size(job.request), _estimate(job))
        return info[0]

    def bind(self, allocator: Allocator) -> None:
        super().bind(allocator)
        self._counting = getattr(allocator, "recognition", "") == "any"

    @property
    def counting(self) -> bool:
        """Whether reservations are processor counts (a flat allocator) rather than node sets."""
        return bool(self._counting)

    # -- running jobs -------------------------------------------------------------------------------
    def _launch(self, job: Job, alloc: Allocation, now: float) -> Action:
        seq = next(self._seq)
        n, est = self._info.pop(job.id)
        end = now + est
        self.running[job.id] = _Held(job, alloc, n, now, end, seq)
        bisect.insort(self._ends, (end, seq, job.id, n))
        return Start(job, alloc, n, n)  # backfilling never folds: granted = requested

    def _retire(self, job: Job) -> _Held:
        held = self.running.pop(job.id)
        i = bisect.bisect_left(self._ends, (held.end, held.seq, job.id, held.size))
        del self._ends[i]
        self.allocator.release(held.alloc)
        return held

    def _ordered_running(self, now: float):
        """``(expected end, held)`` in order of expected end (overrunning jobs: ``now``)."""
        running = self.running
        for end, _, jid, _ in self._ends:
            yield (end if end > now else now), running[jid]

    @staticmethod
    def _allocate_avoiding(allocator: Allocator, request: Any, bad) -> Allocation | None:
        """The first of ``allocator``'s placements for ``request``, in its own order, that
        ``bad(nodes)`` accepts (``bad`` None: the first placement). Rejected placements are held
        while the next is asked for, then released, so the allocator's state is unchanged apart
        from the grant returned. At most ``free / request size`` attempts."""
        got = allocator.allocate(request)
        if got is None or bad is None or not bad(got.nodes):
            return got
        held = [got]
        try:
            while True:
                got = allocator.allocate(request)
                if got is None or not bad(got.nodes):
                    return got
                held.append(got)
        finally:
            for h in held:
                allocator.release(h)

    def _mask(self, nodes: np.ndarray) -> np.ndarray:
        m = np.zeros(self.allocator.size, dtype=bool)
        m[nodes] = True
        return m

    # -- the head's reservation ----------------------------------------------------------------------
    def reservation(self, job: Job, now: float) -> Reservation:
        """Where and when ``job`` would start if the running jobs ended at their expected ends and
        nothing else started: the replay described in the module docstring (counting on a flat
        allocator). O(running) on a flat allocator; one clone plus up to ``running`` releases and
        allocation attempts otherwise."""
        info = self._info.get(job.id)
        need, est = info if info is not None else (self.allocator.request_size(job.request), _estimate(job))
        if self.counting:
            free = self.allocator.free
            if need <= free:
                return Reservation(job, now, now + est, None, free - need)
            ends = self._ends
            last = len(ends)
            for k in range(last):
                free += ends[k][3]
                if free >= need:
                    t = ends[k][0] if ends[k][0] > now else now
                    k += 1
                    while k < last and (ends[k][0] if ends[k][0] > now else now) == t:
                        free += ends[k][3]  # jobs ending at the same instant free their processors too
                        k += 1
                    return Reservation(job, t, t + est, None, free - need)
            raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")
        twin = clone_allocator(self.allocator)
        got = twin.allocate(job.request)
        if got is not None:
            return Reservation(job, now, now + est, self._mask(got.nodes))
        pending = list(self._ordered_running(now))
        i = 0
        while i < len(pending):
            t = pending[i][0]
            while i < len(pending) and pending[i][0] == t:
                twin.release(pending[i][1].alloc)
                i += 1
            got = twin.allocate(job.request)
            if got is not None:
                return Reservation(job, t, t + est, self._mask(got.nodes))
        raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")


class EASY(_Backfilling):
    """EASY backfilling (the Argonne SP scheduler; Wang, Papaefthymiou & Squillante, seed 004 §2.2,
    "EASY-LL"; Mu'alem & Feitelson 2001 for the shadow-time formulation).

    Jobs are served in order of arrival; the head starts as soon as it fits. When it does not, it
    gets a reservation (:meth:`reservation`: the time the running jobs' estimates say it will fit,
    and on which nodes), and the jobs behind it are scanned in order: each that fits now starts if
    it does not delay that reservation, i.e. it ends by the shadow time (by its estimate) or stays
    off the reserved nodes (within the *extra* processors on a flat machine). On a topology the
    allocator's placements are tried in its own order until one stays off the reserved nodes
    (:meth:`_allocate_avoiding`). One pass runs per instant (:meth:`decide`, after every event of
    the instant), scanning the queue in order; the reservation is recomputed at each pass from
    the jobs' current expected ends, and only when some candidate could start. A pass skips the
    jobs the previous pass rejected only when nothing was released since and no running job is
    past its estimate (see :meth:`decide`).

    Interpretation: seed 004 says EASY-LL starts "the first job in the queue that fits within the
    available resources and whose execution does not delay the dispatching of any job ahead of
    it"; as in EASY itself only the head holds a reservation, so the protected job is the head.
    See the module docstring for reservations on topologies, estimates and overruns.

    Complexity per event: flat: O(running + queue) (the scan stops when no processor is free);
    other allocators: one allocator clone, up to ``running`` replay steps, and a few allocation
    attempts per scanned candidate that fits the free count.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> from scheduling import Job, simulate
    >>> jobs = [Job(0, 0, 3, 10.0), Job(1, 1, 4, 5.0), Job(2, 2, 1, 8.0), Job(3, 3, 1, 20.0)]
    >>> r = simulate(FlatPool(Flat(4)), "EASY", jobs, jobs=None)
    >>> r.start.tolist()   # job 2 ends by the shadow time (10): backfilled; job 3 would delay job 1
    [0.0, 10.0, 2.0, 15.0]
    """

    name = "EASY"

    def __init__(self) -> None:
        super().__init__()
        self.queue: deque[Job] = deque()
        self._released = False  # a job ended since the last pass
        self._scanned = 0  # queue length after the last pass: those jobs could not start then

    def on_arrival(self, job: Job, now: float) -> None:
        self._admit(job)
        self.queue.append(job)

    def on_finish(self, job: Job, now: float) -> None:
        self._retire(job)
        self._released = True

    def decide(self, now: float) -> list[Action]:
        """One scheduling pass over the queue, in order: the head(s) while they fit, then backfill.

        The pass skips the jobs the previous pass already rejected only when that is provably
        the same outcome: nothing was released since, and no running job is past its estimate
        (an overrunning job is expected to end *now*, so time alone moves the head's reservation
        and can make an earlier queued job eligible). Then only the jobs that arrived since can
        start, and they come last in the queue anyway."""
        queue = self.queue
        if not queue:
            self._released = False
            self._scanned = 0
            return []
        moved = self._released or (self._ends and self._ends[0][0] < now)
        first = 0 if moved else self._scanned
        self._released = False
        actions = self._schedule(now, first)
        self._scanned = len(self.queue)
        return actions

    def _schedule(self, now: float, first: int) -> list[Action]:
        actions: list[Action] = []
        queue = self.queue
        if first == 0:
            alloc = self.allocator
            info = self._info
            while queue:
                if self.counting and info[queue[0].id][0] > alloc.free:
                    break
                got = alloc.allocate(queue[0].request)
                if got is None:
                    break
                actions.append(self._launch(queue.popleft(), got, now))
            first = 1
        if len(queue) <= first or self.allocator.free == 0:
            return actions
        started = self._backfill_counting(now, first, actions) if self.counting else \
            self._backfill_nodes(now, first, actions)
        if started:
            rest = list(queue)
            for i in reversed(started):
                del rest[i]
            self.queue = deque(rest)
        return actions

    def _backfill_counting(self, now: float, first: int, actions: list[Action]) -> list[int]:
        alloc = self.allocator
        info = self._info
        res = self.reservation(self.queue[0], now)
        shadow, extra = res.start, res.extra
        free = alloc.free
        started: list[int] = []  # queue positions
        for i, job in enumerate(itertools.islice(self.queue, first, None), first):
            n, est = info[job.id]
            if n > free:
                continue
            if now + est > shadow:  # still running at the shadow time: must fit the extra processors
                if n > extra:
                    continue
                extra -= n
            actions.append(self._launch(job, alloc.allocate(job.request), now))
            started.append(i)
            free -= n
            if free == 0:
                break
        return started

    def _backfill_nodes(self, now: float, first: int, actions: list[Action]) -> list[int]:
        alloc = self.allocator
        info = self._info
        res: Reservation | None = None
        started: list[int] = []  # queue positions
        for i, job in enumerate(itertools.islice(self.queue, first, None), first):
            n, est = info[job.id]
            if n > alloc.free:
                continue
            if res is None:
                res = self.reservation(self.queue[0], now)
                avoid = _collides([res.nodes])
            got = self._allocate_avoiding(alloc, job.request, None if now + est <= res.start else avoid)
            if got is None:
                continue
            actions.append(self._launch(job, got, now))
            started.append(i)
            if alloc.free == 0:
                break
        return started


class Conservative(_Backfilling):
    """Conservative backfilling (Mu'alem & Feitelson 2001, the alternative to EASY discussed with
    seed 004 §2.2's EASY-LL): every queued job holds a reservation, made at its arrival at the
    earliest time it fits without delaying any existing reservation; a job starts when its
    reservation comes (a :class:`~scheduling.actions.Timer` wakes the policy then). When a job
    ends earlier than its estimate the schedule is *compressed*: in order of arrival each
    reservation is taken out and put back at the earliest time it fits given all others, never
    later than it was, so no job ever starts later than the reservation it got on arrival (with
    estimates that are upper bounds).

    Reservations are those of the module docstring, with time intervals: on a flat allocator a
    profile of free processor counts over time; on other allocators a node set per reservation.
    There, a reservation at time ``t`` is found by replaying the running jobs' ends on a clone up to
    ``t`` and taking the allocator's first placement (in its own order) that stays off the nodes of
    every other reservation whose interval overlaps; candidate times are now, the running jobs'
    expected ends and the other reservations' ends (the last of which always succeeds). The same
    search places the job on the real allocator when its time comes. Interpretation: the search
    only sees placements the allocator offers, so on a topology it can miss a free region and a
    job keeps its old reservation when the search finds no earlier one.

    When the time comes the job is placed on the real allocator by the same rule, and if the
    allocator then offers only placements that collide with other reservations it is steered to
    the reserved nodes (placements off them are held until it offers exactly them). On an
    allocator whose placements of one request can overlap in part that can fail: the job is then
    re-reserved at the next event and listed in :attr:`displaced`.

    When reservations are recomputed: after an early end (compression, above); while a job
    overruns its estimate and at the first event after, all of them, in arrival order (they assumed
    its nodes free; the guarantee does not cover overruns); after a failed start, that job's only.
    An arrival only places the newcomer. Complexity: flat: O(B log B) per placement for the
    profile's B breakpoints (running jobs plus twice the queue), so O(queue x B log B) per
    compression; other allocators: per placement one clone and up to O(running + queue) allocation
    attempts (each maybe holding a few placements).

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> from scheduling import Job, simulate
    >>> jobs = [Job(0, 0, 3, 10.0), Job(1, 1, 4, 5.0), Job(2, 2, 1, 8.0), Job(3, 3, 1, 20.0)]
    >>> simulate(FlatPool(Flat(4)), "Conservative", jobs, jobs=None).start.tolist()
    [0.0, 10.0, 2.0, 15.0]
    """

    name = "Conservative"

    def __init__(self) -> None:
        super().__init__()
        self.reservations: dict[int, Reservation] = {}
        self._waiting: dict[int, Job] = {}  # queued jobs by id, in arrival order
        self._due: list[tuple[float, int, int, Reservation]] = []  # heap: (start, arrival, tie, res)
        self._arrival: dict[int, int] = {}
        self._tie = itertools.count()
        self._timers: set[float] = set()
        self._dirty = False
        self._retried: float | None = None
        self._provisional = False
        self._new: list[Job] = []  # arrived since the last decision, in arrival order
        #: Jobs whose reservation had to move later: a job overran its estimate, or (on allocators
        #: whose placements of one request can overlap in part, e.g. Zhu's first fit on a mesh) the
        #: allocator could not be steered to the reserved nodes when the time came.
        self.displaced: list[int] = []

    @property
    def queue(self) -> list[Job]:
        """The waiting jobs, in arrival order."""
        return list(self._waiting.values())

    def on_arrival(self, job: Job, now: float) -> None:
        self._admit(job)
        self._waiting[job.id] = job
        self._arrival[job.id] = len(self._arrival)
        self._new.append(job)

    def on_finish(self, job: Job, now: float) -> None:
        held = self._retire(job)
        if now < held.end:
            self._dirty = True  # ended early: room to compress

    def on_timer(self, key: Any, now: float) -> None:
        self._timers.discard(key)

    def decide(self, now: float) -> list[Action]:
        """Move reservations if needed (compression, overruns), reserve the newcomers in arrival
        order, then start every job whose reservation has come."""
        self._update(now)
        for job in self._new:
            if job.id in self._waiting and job.id not in self.reservations:
                self._reserve(self._find(job, now))
        self._new.clear()
        return self._start_due(now)

    # -- reservations --------------------------------------------------------------------------------
    def _reserve(self, res: Reservation) -> None:
        jid = res.job.id
        self.reservations[jid] = res
        heapq.heappush(self._due, (res.start, self._arrival[jid], next(self._tie), res))

    def _top(self) -> Reservation | None:
        due = self._due
        while due and self.reservations.get(due[0][3].job.id) is not due[0][3]:
            heapq.heappop(due)  # superseded or started
        return due[0][3] if due else None

    def _needs_compression(self, now: float) -> int:
        """0: the reservations stand; 1: compress (a job ended early); 2: rebuild them all in
        arrival order (a job overran its estimate: the reservations assumed its nodes free; also at
        the first event after the last overrun ended, as the reservations made meanwhile assumed
        the overrunning job would end at once);
        3: re-place the reservations whose start passed without the job starting (the allocator's
        real placement collided), keeping the others."""
        if self._ends and self._ends[0][0] < now:
            self._provisional = True  # reservations made now assume the overrunning job ends now
            return 2
        if self._provisional:
            self._provisional = False
            return 2
        top = self._top()
        if top is not None and top.start < now:
            return 3
        return 1 if self._dirty else 0

    def _update(self, now: float) -> None:
        mode = self._needs_compression(now)
        if mode == 3:
            for job in self._waiting.values():
                prev = self.reservations.get(job.id)
                if prev is not None and prev.start < now:
                    del self.reservations[job.id]
                    self._moved(job, prev, self._find(job, now))
            mode = 1 if self._dirty else 0
        if mode:
            self._compress(now, rebuild=mode == 2)

    def _moved(self, job: Job, prev: Reservation | None, new: Reservation) -> None:
        if prev is not None and new.start > prev.start and job.id not in self.displaced:
            self.displaced.append(job.id)
        self._reserve(new)

    def _compress(self, now: float, rebuild: bool = False) -> None:
        """Compression: each reservation, in arrival order, is taken out and put back at the
        earliest time it fits given all the others, and kept if nothing earlier is found.
        ``rebuild``: all are taken out first, then placed in arrival order (their previous times
        no longer hold)."""
        previous = self.reservations
        if rebuild:
            self.reservations = {}
        for job in self._waiting.values():
            prev = previous.get(job.id) if rebuild else self.reservations.pop(job.id, None)
            if rebuild:
                new = self._find(job, now)
            else:
                limit = prev.start if prev is not None and prev.start >= now else math.inf
                new = self._find(job, now, limit)
                if new is None:
                    new = prev if self._still_valid(prev, now) else self._find(job, now)
            if new is prev:
                self.reservations[job.id] = prev
            else:
                self._moved(job, prev, new)
        self._dirty = False

    def _find(self, job: Job, now: float, limit: float = math.inf) -> Reservation | None:
        """The earliest reservation for ``job`` starting before ``limit`` (None if there is none
        before a finite ``limit``)."""
        if self.counting:
            return self._find_counting(job, now, limit)
        return self._find_nodes(job, now, limit)

    @staticmethod
    def _interval(r: Reservation, now: float) -> tuple[float, float]:
        """``r``'s interval; a stale one (its start passed unstarted) is taken as starting now."""
        if r.start >= now:
            return r.start, r.end
        return now, now + (r.end - r.start)

    def _find_counting(self, job: Job, now: float, limit: float) -> Reservation | None:
        info = self._info
        need, est = info[job.id]
        base = self.allocator.free
        events: dict[float, int] = {}
        for end, held in self._ordered_running(now):
            if end <= now:
                base += held.size  # overrunning: expected to end now
            else:
                events[end] = events.get(end, 0) + held.size
        for r in self.reservations.values():
            if r.job.id == job.id:
                continue
            n = info[r.job.id][0]
            s, e = self._interval(r, now)
            if s <= now:
                base -= n
            else:
                events[s] = events.get(s, 0) - n
            events[e] = events.get(e, 0) + n
        # free[i] is the number of free processors over [points[i], points[i + 1])
        points = [now]
        free = [base]
        for t in sorted(events):
            points.append(t)
            free.append(free[-1] + events[t])
        last = len(points)
        for i, t in enumerate(points):
            if t >= limit:
                return None
            if free[i] < need:
                continue
            stop = t + est
            j = i + 1
            while j < last and points[j] < stop and free[j] >= need:
                j += 1
            if j == last or points[j] >= stop:
                return Reservation(job, t, stop, None, -1)
        raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")

    def _find_nodes(self, job: Job, now: float, limit: float) -> Reservation | None:
        need, est = self._info[job.id]
        others = [r for r in self.reservations.values() if r.job.id != job.id]
        pending = list(self._ordered_running(now))
        times = sorted({now, *(e for e, _ in pending), *(r.end for r in others if r.end > now)})
        twin: Allocator | None = None
        i = 0
        for t in times:
            if t >= limit:
                return None
            if twin is None:
                twin = clone_allocator(self.allocator)
            while i < len(pending) and pending[i][0] <= t:
                twin.release(pending[i][1].alloc)
                i += 1
            if twin.free < need:
                continue
            stop = t + est
            overlapping = [r.nodes for r in others if r.start < stop and t < r.end]
            got = self._allocate_avoiding(twin, job.request, _collides(overlapping))
            if got is None:
                continue
            twin.release(got)
            return Reservation(job, t, stop, self._mask(got.nodes))
        raise RuntimeError(f"job {job.id} ({job.request!r}) found no reservation (allocator {self.allocator!r})")

    def _still_valid(self, res: Reservation | None, now: float) -> bool:
        """Whether ``res`` (not in :attr:`reservations`) still fits given the running jobs'
        expected ends and the other reservations."""
        if res is None or res.start < now:
            return False
        if res.nodes is None:
            return False  # the counting search is exact: a valid slot would have been found
        for end, held in self._ordered_running(now):
            if end > res.start and res.nodes[held.alloc.nodes].any():
                return False
        return not any(r.start < res.end and res.start < r.end and (r.nodes & res.nodes).any()
                       for r in self.reservations.values())

    # -- starting -----------------------------------------------------------------------------------
    def _start_due(self, now: float) -> list[Action]:
        actions: list[Action] = []
        alloc = self.allocator
        blocked: list[tuple[float, int, int, Reservation]] = []
        while self._top() is not None and self._due[0][0] <= now:
            entry = heapq.heappop(self._due)
            res = entry[3]
            job = res.job
            n, est = self._info[job.id]
            got = None
            if n <= alloc.free:
                if res.nodes is None:
                    got = alloc.allocate(job.request)
                else:
                    stop = now + est
                    overlapping = [r.nodes for r in self.reservations.values()
                                   if r is not res and r.start < stop and now < r.end]
                    got = self._allocate_avoiding(alloc, job.request, _collides(overlapping))
                    if got is None:
                        got = self._allocate_exactly(alloc, job.request, res.nodes)
            if got is None:
                blocked.append(entry)
                continue
            del self.reservations[job.id]
            del self._waiting[job.id]
            actions.append(self._launch(job, got, now))
        for entry in blocked:
            heapq.heappush(self._due, entry)
        if blocked and not self.running and self._retried != now:
            # nothing running will wake us: retry at once, after a compression
            self._dirty = True
            self._retried = now
            actions.append(Timer(now, now))
        nxt = self._next_start(now)
        if nxt is not None and nxt not in self._timers:
            self._timers.add(nxt)
            actions.append(Timer(nxt, nxt))
        return actions

    @staticmethod
    def _allocate_exactly(allocator: Allocator, request: Any, target: np.ndarray) -> Allocation | None:
        """Steer ``allocator`` to the reserved nodes ``target``: hold its placements that stay off
        them until it offers exactly them (then release the holds); ``None`` if it offers a
        placement that overlaps them only in part, or none."""
        held: list[Allocation] = []
        try:
            while True:
                got = allocator.allocate(request)
                if got is None:
                    return None
                inside = target[got.nodes]
                if inside.all() and len(got.nodes) == int(target.sum()):
                    return got
                held.append(got)
                if inside.any():
                    return None
        finally:
            for h in held:
                allocator.release(h)

    def _next_start(self, now: float) -> float | None:
        """The earliest reservation start after ``now``."""
        top = self._top()
        if top is None:
            return None
        if top.start > now:
            return top.start
        best = math.inf
        for start, _, _, res in self._due:
            if start > now and start < best and self.reservations.get(res.job.id) is res:
                best = start
        return best if best < math.inf else None


def _collides(masks: list[np.ndarray]):
    """A predicate: do ``nodes`` touch any of ``masks``? (``None`` when there are none.)"""
    if not masks:
        return None
    if len(masks) == 1:
        only = masks[0]
        return lambda nodes: bool(only[nodes].any())
    union = np.logical_or.reduce(masks)
    return lambda nodes: bool(union[nodes].any())


def _register() -> None:
    from .registry import register

    register("EASY", EASY, help="FCFS with EASY backfilling: a reservation for the head (seed 004 §2.2)")
    register("Conservative", Conservative, help="FCFS with conservative backfilling: a reservation for every job")


_register()

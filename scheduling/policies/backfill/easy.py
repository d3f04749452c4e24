"""EASY backfilling: one reservation, for the head of the queue (see :class:`EASY`)."""

from __future__ import annotations

import array
import bisect
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from topoalloc import Allocation
from topologies import Submesh

from ...kernel.actions import Action
from ...kernel.jobs import Job
from .reservations import Reservation, _Backfilling, _ids_box, _mask_of

__all__ = ["EASY"]


class EASY(_Backfilling):
    """EASY backfilling (the Argonne SP scheduler: Lifka, "The ANL/IBM SP scheduling system",
    JSSPP 1995; Wang, Papaefthymiou & Squillante, seed 004 §2.2, "EASY-LL"; Mu'alem & Feitelson
    2001 for the shadow-time formulation).

    Jobs are served in order of arrival; the head starts as soon as it fits. When it does not, it
    gets a reservation (:meth:`reservation`: the time the running jobs' estimates say it will fit,
    and on which nodes), and the jobs behind it are scanned in order: each that fits now starts if
    it does not delay that reservation, i.e. it ends by the shadow time (by its estimate) or stays
    off the reserved nodes (within the *extra* processors on a flat machine). On a topology the
    allocator's placements are tried in its own order until one stays off the reserved nodes
    (:meth:`topoalloc.Allocator.allocate_avoiding`). One pass runs per instant (:meth:`decide`,
    after every event of the instant), scanning the queue in order.

    **What is recomputed when.** The head's reservation depends only on the running jobs' grants
    and expected ends, so it is computed when a job becomes the head, and again after a job ends
    before its expected end, once a running job has passed its estimate (its expected end,
    *now*, then moves with time), and once its shadow time has passed (it was made while a job
    past its estimate, expected to end at that instant, was the one the head waited for, and that
    job still holds its processors: jobs ending meanwhile free processors it did not count); it
    is kept otherwise: a backfilled job ends by the shadow time or
    stays off the reserved nodes, so it moves neither, and a job ending at (or after) its expected
    end frees nodes the replay already counted free from now on. Nor does a job ending early that
    was expected to end before the shadow time move it, where the reservation is the earliest
    placement by the nodes' expected free times (counting, or
    :meth:`~topoalloc.Allocator.earliest_in`): its nodes were counted free by the shadow time
    already, a placement starting earlier with them would have been ready by its expected end,
    before the shadow time, and one starting at the shadow time is ready then whether or not they
    were freed early (a job expected to end exactly at the shadow time does move it: it can break a
    tie). On a flat machine the kept
    reservation is exactly the one a fresh computation would give (the extra processors are
    reduced by every job backfilled past the shadow time); on a topology the kept node set is a
    valid reservation (free at the shadow time, recognised by the allocator) though a fresh replay
    might pick another. A pass scans the jobs the previous pass rejected only when the reservation
    was recomputed: otherwise nothing they were judged on has changed, and only the jobs that
    arrived since are tried. On a flat machine, a job a pass found still running at the shadow
    time and larger than the extra processors is skipped by every later pass under the same
    reservation (its shadow time stays, its extra processors only fall and the job's expected end
    only moves later): on ``lublin_256`` that leaves 73,000 of 257,000 candidate tests. Requests that found
    no placement, or none off the reserved nodes, are not asked for again until a release (or a
    new reservation) can have changed the answer, and a candidate that would run past the shadow
    time is asked for only if the free nodes off the reserved ones are enough in number (where the
    reserved nodes are a rectangle, their free count is first found by rectangle arithmetic
    over the running jobs' grants, when those are rectangles too, and then kept across passes by
    the same arithmetic at each start and end, not counted again). On a
    topology the reservation itself is computed only when a candidate needs it: one that ends by
    a lower bound of the shadow time (when, by the running jobs' expected ends, enough processors
    are free in number) ends by the shadow time; the reservation computed later in the pass, or
    at a later pass, is the same one (the jobs started meanwhile end by that bound). A pass
    whose only candidate (an arrival) is larger than the free processors, or whose request is
    known to find no placement, ends before the scan is set up; on a topology a queue shorter
    than :attr:`_NODES_FILTER_FROM` is scanned without filtering it by count first.

    Interpretation: seed 004 says EASY-LL starts "the first job in the queue that fits within the
    available resources and whose execution does not delay the dispatching of any job ahead of
    it"; as in EASY itself only the head holds a reservation, so the protected job is the head.
    See the module docstring for reservations on topologies, estimates and overruns.

    Complexity per instant: flat: O(running + queue) (the scan stops when no processor is free);
    other allocators: after a release, when some candidate fits the free count, up to ``running``
    what-if questions to the allocator for the head's reservation; one allocation per candidate
    whose request is not already known to fail.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> from scheduling import Job, simulate
    >>> jobs = [Job(0, 0, 3, 10.0), Job(1, 1, 4, 5.0), Job(2, 2, 1, 8.0), Job(3, 3, 1, 20.0)]
    >>> r = simulate(FlatPool(Flat(4)), "EASY", jobs, jobs=None)
    >>> r.start.tolist()   # job 2 ends by the shadow time (10): backfilled; job 3 would delay job 1
    [0.0, 10.0, 2.0, 15.0]
    """

    name = "EASY"
    #: From this many queued candidates on, a pass filters them by count before its loop ...
    _VECTORISE_FROM = 24
    #: ... in ``numpy`` from this many on (a list comprehension below: measured faster there).
    _NUMPY_FROM = 120
    #: On a topology, from this many on (below it the loop's own count test costs less than a
    #: filtering pass: 2% fewer instructions for EASY on frames, seed 002's workload).
    _NODES_FILTER_FROM = 120
    #: Compute the head's reservation only for a candidate not ending by the count bound (False:
    #: for the first candidate; the same decisions, checked by the tests).
    _floor_first = True
    #: Keep the head's reservation over an early end of a job expected to end before its shadow
    #: time (False: compute it again; the same decisions, checked by the tests).
    _keep_early = True
    #: Flat machine: skip the jobs a pass found unable to start under the head's present
    #: reservation (False: test them again; the same decisions, checked by the tests).
    _skip_dead = True
    #: Topology: keep the count of free nodes on the head's reserved rectangle across passes, by
    #: rectangle arithmetic at each start and end (False: count them afresh at each pass; the same
    #: decisions, checked by the tests).
    _keep_box_count = True

    def __init__(self) -> None:
        super().__init__()
        self.queue: list[Job] = []
        self._qn = array.array("q")  # the queued jobs' processor counts, in queue order
        self._qe = array.array("d")  # ... and their estimates
        self._qk: list = []  # ... and their request keys
        # ... and (flat) the reservation generation under which each was found unable to start
        # (running past the shadow time and more processors than the extra ones), -1 if none
        self._qd = array.array("q")
        # ... and their arrival sequence numbers (ascending: the queue keeps arrival order), so a
        # queued job's position is a binary search (the job id's number in _seq_of)
        self._qs = array.array("q")
        self._seq_of: dict[int, int] = {}
        self._arrivals = itertools.count()
        self._gen = 0  # the head's reservation generation: one more each time it is computed
        self._released = False  # a job ended since the last pass
        self._early = False  # ... before its expected end
        self._last = -math.inf  # the instant of the last pass
        self._scanned = 0  # queue length after the last pass: those jobs could not start then
        # the head's reservation, kept while valid, with its extra processors (flat)
        self._res: Reservation | None = None
        self._box: tuple[int, int, int, int] | None = None  # its nodes as a rectangle of _grid, if they are one
        self._box_free = -1  # ... and how many of those are free now (-1: not counted since it was made)
        self._extra = 0
        self._failed: set = set()  # request keys with no placement at all (until a release)
        self._failed_off: set = set()  # request keys with no placement off the reserved nodes
        self._relaxed_since = False  # a queued job's switches wait ended since the last pass

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        timers = self._admit(job, now)
        n, est, key = self._info[job.id]
        self._qn.append(n)
        self._qe.append(est)
        self._qk.append(key)
        self._qd.append(-1)
        seq = self._seq_of[job.id] = next(self._arrivals)
        self._qs.append(seq)
        self.queue.append(job)
        return timers

    def on_timer(self, key: Any, now: float) -> None:
        job = self._relax(key, now)
        if job is None:
            return
        i = self._position(job.id)
        self._qk[i] = self._info[job.id][2]
        if i == 0:  # the head's request changed: its reservation is made again
            self._res = None
            self._box_free = -1
        self._relaxed_since = True  # the next pass scans the whole queue (the relaxed job may fit now)

    def _job_of(self, jid: int) -> Job:
        return self.queue[self._position(jid)]

    def _position(self, jid: int) -> int:
        """The queue position of the queued job ``jid``. O(log queue)."""
        return bisect.bisect_left(self._qs, self._seq_of[jid])

    def _on_reserved(self, alloc: Allocation) -> int:
        """How many of a grant's nodes are on the head's reserved ones: rectangle arithmetic where
        both are rectangles, else a count on the reserved mask."""
        box = self._box
        if box is not None:  # (_box_of and _overlap, inlined: called at every start and end)
            p = alloc.placement
            if self._row:  # node ids in one row: the grant's range, if it is one
                span = getattr(p, "span", None)
                if span is not None:
                    lo, hi = span
                    n = (hi if hi < box[3] else box[3]) - (lo if lo > box[2] else box[2])
                    return n if n > 0 else 0
            elif type(p) is Submesh:
                y0, y1, x0, x1 = box
                top, right = p.y + p.height, p.x + p.width
                rows = (top if top < y1 else y1) - (p.y if p.y > y0 else y0)
                cols = (right if right < x1 else x1) - (p.x if p.x > x0 else x0)
                return rows * cols if rows > 0 and cols > 0 else 0
        res = self._res
        assert res is not None  # asked only while the head holds a reservation (_box_free >= 0, a pass)
        return int(np.count_nonzero(_mask_of(res)[alloc.nodes]))

    def _box_held(self, box: tuple[int, int, int, int]) -> int:
        """How many nodes of the rectangle ``box`` the running jobs hold, by rectangle arithmetic
        over their grants (they do not overlap; O(running), no array read); -1 if a grant is no
        rectangle of the grid (then the caller counts on the ready array)."""
        total = 0
        row = self._row
        for held in self.running.values():
            p = held.alloc.placement
            if row:
                span = getattr(p, "span", None)
                if span is None:
                    return -1
                lo, hi = span
                n = (hi if hi < box[3] else box[3]) - (lo if lo > box[2] else box[2])
                total += n if n > 0 else 0
            elif type(p) is Submesh:
                top, right = p.y + p.height, p.x + p.width
                rows = (top if top < box[1] else box[1]) - (p.y if p.y > box[0] else box[0])
                cols = (right if right < box[3] else box[3]) - (p.x if p.x > box[2] else box[2])
                total += rows * cols if rows > 0 and cols > 0 else 0
            else:
                return -1
        return total

    def on_finish(self, job: Job, now: float) -> None:
        held = self._retire(job)
        end = held.end
        if self._box_free >= 0:  # the reserved rectangle's free count, kept across passes
            self._box_free += self._on_reserved(held.alloc)
        if now < end:
            res = self._res
            # an early end moves the head's reservation only if the job was expected to end at or
            # after its shadow time (where the reservation is the earliest one, see the class docstring)
            if res is None or end >= res.start or not (self._keep_early and (self._counting or self._earliest)) \
                    or (self._deadlines and res.job.id in self._deadlines):
                self._early = True
        self._released = True

    def _overran_since(self, now: float) -> bool:
        """Whether a running job's expected end fell strictly between the last pass and now (it
        has passed its estimate since: its expected end became *now* and moves with time)."""
        ends = self._ends
        if not ends or ends[0][0] >= now:  # no expected end before now at all
            return False
        i = bisect.bisect_right(ends, (self._last, math.inf))
        return i < len(ends) and ends[i][0] < now

    def decide(self, now: float) -> list[Action]:
        """One scheduling pass over the queue, in order: the head(s) while they fit, then backfill.

        The pass skips the jobs the previous pass already rejected only when that is provably
        the same outcome: nothing was released since and no running job passed its estimate
        since (jobs that passed it earlier are expected to end *now* at every pass, which moves
        neither the order of the replay nor, relative to now, the shadow time). Then only the
        jobs that arrived since can start, and they come last in the queue anyway."""
        queue = self.queue
        ends = self._ends  # (_overran_since's first test, inlined: no expected end before now at all)
        overran = bool(ends) and ends[0][0] < now and self._overran_since(now)
        moved = self._released or overran or self._relaxed_since
        self._relaxed_since = False
        res = self._res
        # a reservation whose shadow time has passed (a job running past its estimate, expected to
        # end at the instant the reservation was made, still holds processors) is made again
        if self._early or overran or (res is not None and res.start < now):
            self._res = None
            self._box_free = -1
            moved = True
        self._released = self._early = False
        self._last = now
        if moved:
            self._failed.clear()
            self._failed_off.clear()
        if not queue:
            self._scanned = 0
            return []
        actions = self._schedule(now, 0 if moved else self._scanned)
        self._scanned = len(self.queue)
        return actions

    def _schedule(self, now: float, first: int) -> list[Action]:
        actions: list[Action] = []
        queue = self.queue
        alloc = self.allocator
        info = self._info
        if first == 0:
            heads = 0
            relaxed = self._relaxed  # request_of, inlined
            for job in queue:
                n, _, key = info[job.id]
                if n > alloc.free or key in self._failed:
                    break
                got = alloc.allocate(relaxed.get(job.id, job.request) if relaxed else job.request)
                if got is None:
                    self._failed.add(key)
                    break
                actions.append(self._launch(job, got, now))
                heads += 1
            if heads:
                for job in queue[:heads]:
                    del self._seq_of[job.id]
                del queue[:heads], self._qn[:heads], self._qe[:heads], self._qk[:heads], self._qd[:heads]
                del self._qs[:heads]
                self._res = None  # a new head
                self._box_free = -1
                self._failed_off.clear()
            first = 1
        free = alloc.free
        if len(queue) <= first or free == 0:
            return actions
        if len(queue) - first == 1 and (self._qn[first] > free or self._qk[first] in self._failed):
            return actions  # one candidate (an arrival), which the scan would skip at once
        started = self._backfill_counting(now, first, actions) if self._counting else \
            self._backfill_nodes(now, first, actions)
        if started:
            qn, qe, qk, qd, qs, seq_of = self._qn, self._qe, self._qk, self._qd, self._qs, self._seq_of
            for i in reversed(started):
                del seq_of[queue[i].id]
                del queue[i], qn[i], qe[i], qk[i], qd[i], qs[i]
        return actions

    def _candidates(self, first: int, free: int, dead: int = -2) -> Sequence[int]:
        """Queue positions from ``first`` on whose processor count is at most ``free`` and that
        were not found unable to start under reservation generation ``dead`` (a vectorised filter
        on a long queue; a short one is returned whole)."""
        size = len(self.queue)
        if size - first < self._VECTORISE_FROM:
            return range(first, size)
        if size - first < self._NUMPY_FROM:
            if dead < 0:
                return [i for i, n in enumerate(self._qn[first:], first) if n <= free]
            qd = self._qd
            return [i for i, n in enumerate(self._qn[first:], first) if n <= free and qd[i] != dead]
        fits = np.frombuffer(self._qn, dtype=np.int64)[first:] <= free
        if dead >= 0:
            fits &= np.frombuffer(self._qd, dtype=np.int64)[first:] != dead
        found = fits.nonzero()[0]  # (flatnonzero's wrapper costs as much on a 1-D mask)
        found += first
        return found.tolist()

    def _head_reservation(self, now: float) -> Reservation:
        res = self._res
        if res is None or res.job is not self.queue[0]:
            res = self._res = self.reservation(self.queue[0], now)
            self._extra = res.extra
            self._gen += 1
            ids = res._ids
            if ids is None:
                self._box = None
            else:
                grid = self._grid
                assert grid is not None  # a reservation on node ids: node sets, which keep the grid
                self._box = _ids_box(ids, grid.shape[1])
            self._box_free = -1
        return res

    def _backfill_counting(self, now: float, first: int, actions: list[Action]) -> list[int]:
        alloc = self.allocator
        queue = self.queue
        qn, qe = self._qn, self._qe
        free = alloc.free
        shadow = -math.inf
        extra = 0
        started: list[int] = []  # queue positions
        # a job found unable to start under the head's reservation stays so while it is kept: its
        # shadow time stays, its extra processors only fall, and now only grows (see decide)
        res = self._res
        skip = self._skip_dead and res is not None and res.job is queue[0]
        dead, qd = (self._gen if skip else -2), self._qd
        for i in self._candidates(first, free, dead):
            n = qn[i]
            if n > free:
                continue
            if shadow == -math.inf:
                shadow = max(self._head_reservation(now).start, now)
                extra = self._extra
                dead = self._gen
            if now + qe[i] > shadow:  # still running at the shadow time: must fit the extra processors
                if n > extra:
                    qd[i] = dead
                    continue
                extra -= n
            job = queue[i]
            got = alloc.allocate(self.request_of(job))
            assert got is not None  # a flat allocator grants any count up to its free one (n <= free)
            actions.append(self._launch(job, got, now))
            started.append(i)
            free -= n
            if free == 0:
                break
        if shadow != -math.inf:
            self._extra = extra
        return started

    def _shadow_floor(self, now: float) -> float:
        """A lower bound of the head's shadow time without asking the allocator: when, by the
        running jobs' expected ends, enough processors are free in number (``inf`` if never)."""
        return self._count_start(self._info[self.queue[0].id][0], now)[0]

    def _backfill_nodes(self, now: float, first: int, actions: list[Action]) -> list[int]:
        alloc = self.allocator
        queue = self.queue
        failed, failed_off = self._failed, self._failed_off
        free = alloc.free
        # ``bound``: a lower bound of the shadow time, exact once ``reserved`` (the head's
        # reservation; its node mask is built only if a candidate needs it) is known. A
        # candidate ending by a lower bound ends by the shadow time, so the reservation is computed
        # only for one that does not (the answer is the same later in the pass: jobs started
        # before it end by the bound, when the reserved nodes are expected free anyway)
        bound = -math.inf
        reserved = box = avoid = None
        off = -1  # free processors off the reserved nodes (-1: not counted yet)
        started: list[int] = []  # queue positions
        qn, qe, qk = self._qn, self._qe, self._qk
        relaxed = self._relaxed  # request_of, inlined
        for i in (self._candidates(first, free) if len(queue) - first >= self._NODES_FILTER_FROM
                  else range(first, len(queue))):
            n = qn[i]
            if n > free:
                continue
            key = qk[i]
            if key in failed:
                continue
            end = now + qe[i]
            if end > bound and reserved is None:
                res = self._res
                if bound == -math.inf and self._floor_first and (res is None or res.job is not queue[0]):
                    bound = self._shadow_floor(now)
                if end > bound:
                    res = self._head_reservation(now)
                    bound, reserved, box = max(res.start, now), res, self._box
            if end <= bound:
                job = queue[i]
                got = alloc.allocate(relaxed.get(job.id, job.request) if relaxed else job.request)
                if got is None:
                    failed.add(key)
                    continue
                if off >= 0 or self._box_free >= 0:  # its nodes on the reserved ones are no longer free
                    inside = self._on_reserved(got)
                    if off >= 0:
                        off -= n - inside
                    if self._box_free >= 0:
                        self._box_free -= inside
            else:
                if key in failed_off:
                    continue
                assert reserved is not None  # end > bound: the head's reservation is known (see above)
                if off < 0:  # a necessary condition: that many free nodes off the reserved ones
                    if box is None:
                        off = free - int(np.count_nonzero(self._ready_now()[_mask_of(reserved)] == -math.inf))
                    else:
                        if self._box_free < 0 or not self._keep_box_count:
                            held = self._box_held(box) if self._keep_box_count else -1
                            if held >= 0:
                                self._box_free = (box[1] - box[0]) * (box[3] - box[2]) - held
                            else:
                                self._ready_now()  # (the grid is a view of it)
                                grid = self._grid
                                assert grid is not None  # node sets keep the grid
                                self._box_free = int(
                                    np.count_nonzero(grid[box[0] : box[1], box[2] : box[3]] == -math.inf))
                        off = free - self._box_free
                if n > off:
                    continue
                if avoid is None:
                    avoid = _mask_of(reserved)
                job = queue[i]
                got = alloc.allocate_avoiding(relaxed.get(job.id, job.request) if relaxed else job.request, avoid)
                if got is None:
                    failed_off.add(key)
                    continue
                off -= n
            actions.append(self._launch(job, got, now))
            started.append(i)
            free = alloc.free
            if free == 0:
                break
        return started



def _register() -> None:
    from ..registry import register

    register("EASY", EASY, help="FCFS with EASY backfilling: a reservation for the head (seed 004 §2.2)")


_register()

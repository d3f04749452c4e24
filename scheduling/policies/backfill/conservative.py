"""Conservative backfilling: a reservation for every queued job (see :class:`Conservative`)."""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from typing import Any

import numpy as np

from topoalloc import Allocation, Allocator

from ...kernel.actions import Action, Timer
from ...kernel.jobs import Job
from .profile import FreeProfile
from .reservations import Reservation, _Backfilling, _from_bits, _ids_to_bits, _mask_of, _to_bits

__all__ = ["Conservative"]


class Conservative(_Backfilling):
    """Conservative backfilling (Mu'alem & Feitelson 2001, the alternative to EASY discussed with
    seed 004 §2.2's EASY-LL): every queued job holds a reservation, made at its arrival at the
    earliest time it fits without delaying any existing reservation; a job starts when its
    reservation comes (a :class:`~scheduling.kernel.actions.Timer` wakes the policy then). When a job
    ends earlier than its estimate the schedule is *compressed*: in order of arrival each
    reservation is taken out and put back at the earliest time it fits given all others, and kept
    where it was if nothing earlier is found, so no job ever starts later than the reservation it
    got on arrival (with estimates that are upper bounds).

    Reservations are those of the module docstring, with time intervals: on a flat allocator a
    profile of free processor counts over time (:class:`FreeProfile`); on other allocators a node
    set per reservation. There, a reservation at time ``t`` is a placement the allocator recognises
    (:meth:`topoalloc.Allocator.place_in`) on the nodes expected free by ``t`` and off the nodes of
    every other reservation whose interval overlaps; candidate times are now, the running jobs'
    expected ends and the other reservations' ends (the last of which always succeeds), and only
    those at which the profile of free processor counts leaves room for the job (a necessary
    condition) are tried. When its time comes the job is placed on the real allocator by its own
    order off the other reservations' nodes (:meth:`topoalloc.Allocator.allocate_avoiding`; where no
    other reservation holds nodes over its run, :meth:`~topoalloc.Allocator.allocate` directly,
    which gives the same placement by that method's contract without building a node mask: half
    of the starts on the benchmark trace).

    When the time comes the job is placed on the real allocator by the same rule, and if the
    allocator then offers only placements that collide with other reservations it is steered to
    the reserved nodes (placements off them are held until it offers exactly them). A job that
    cannot start when its reservation comes is *blocked*: on any allocator a running job that
    reached its estimate without ending can still hold the processors (it was expected to end
    then); on an allocator whose placements of one request can overlap in part the steering can
    fail. Blocked jobs are re-reserved at the next decision and listed in :attr:`displaced`.

    **The decision at an instant**, after every event of it (arrivals, ends, reservation starts;
    a timer for a reservation that has since moved decides nothing), in this order:

    1. while a running job is past its estimate (it is expected to end *now*, which the
       reservations made earlier did not assume), and after a job was blocked while one was, every
       reservation is taken out and all are made again in arrival order, each at the earliest time
       it fits given those made before it (a *rebuild*, so overruns do not cost the earlier jobs
       their priority). The plan is kept instead when it provably equals a rebuild: it was made by
       one and since then no job ended early and none was blocked (every reservation then starts
       at or after the instant, from which the expected free processors are the same). Unless a
       compression has moved a reservation since the last rebuild, the rebuild is done as an
       incremental repair (:meth:`_repair`: only the reservations that what changed since can
       move are searched again), which makes the same reservations;
    2. otherwise, the reservations of jobs blocked by the steering are taken out and made again in
       arrival order, the others kept; then, if a job ended before its estimate since the last
       decision, the compression above;
    3. the jobs that arrived at the instant are reserved, in arrival order;
    4. every job whose reservation starts at (or before) the instant starts, in order of
       reservation start then arrival, if the allocator can place it (else it is blocked).

    Complexity: flat: O(B) ``numpy`` work per reservation search for the profile's B breakpoints
    (running jobs plus twice the queue), and a compression searches only for the jobs for which
    the profile has room at some time before their reservation (an O(B) test); other allocators:
    the same counting tests first, then per search a what-if question to the allocator (O(size)
    ``numpy`` work for the library's allocators) at each time the counts allow. There the policy
    also logs what is freed (early ends, moved reservations, reserved nodes a job started off):
    a compression searches for a job only over the times before the latest freed room it has not
    yet seen ends, and asks the allocator at a time only if a node freed since its last search is
    free then (a new placement must use one; everything else since only took room); the jobs
    last searched at the same point of the log share one reading of it per instant
    (:meth:`_log_since`: one pass over each part of the log, not one per job), and within a
    compression that reading, and the most processors free before each time the jobs are tested
    against, are kept until the next move (a dictionary lookup per job instead of a call and a
    slice). A job that starts at its reservation's start keeps its processors over the same
    time, so its start is one profile update (its reserved nodes released) rather than two. A
    repair costs O(C) per queued job for the C changes since the plan was made plus a profile
    update, and a search only where a change allows a move (a rebuild: the profile made anew
    from the running jobs, O(running), then a search and an update for every job). Lookups are
    dictionaries and sets (the queue, the reservations, the displaced jobs), the next
    reservation to start a heap compacted when stale entries outnumber the live ones, so apart
    from :attr:`displaced` (a record of the run, one id per displaced job) the state is
    O(queue + running) whatever the length of the trace.

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
        self._arrival: dict[int, int] = {}  # queued job id -> its rank in arrival order
        self._ranks = itertools.count()
        self._tie = itertools.count()
        self._timers: set[float] = set()
        self._new: list[Job] = []  # arrived since the last decision, in arrival order
        self._finished = False  # a job ended since the last decision
        self._early = False  # ... before its estimate
        self._blocked: list[int] = []  # due at the last decision, could not start
        self._held_up = False  # ... while a running job past its estimate held processors
        self._rebuilt = False  # the plan is what a rebuild would make (no compression since)
        # every reservation is what a rebuild would make given the running jobs and the earlier
        # reservations when it was made, and _changes lists everything that differs since (what
        # _repair needs); False after a compression or re-reservation moved one
        self._consistent = True
        # (from, until, node bits, taken, ranks): room freed (taken=False) or taken (True) since,
        # for the queued jobs of arrival rank below ``ranks``; node bits 0 on a counting allocator
        self._changes: list[tuple[float, float, int, bool, float]] = []
        #: Repair the plan incrementally where a rebuild is due (False: rebuild every reservation,
        #: the reference the tests compare the repair with; the same decisions, slower).
        self._incremental = True
        self._retry = False
        self._retried: float | None = None
        self._profile: FreeProfile | None = None
        self._bits: dict[int, int] = {}  # reserved nodes of each reservation, as bits (node sets)
        self._found: tuple[Reservation, int] | None = None  # the last reservation found, and its bits
        # start time t -> [(request, d)]: no placement on a set of nodes holding every node free by t
        # and reserved at no time of [t, t + d); valid until something frees nodes
        self._nofit: dict[float, list[tuple[Any, float]]] = {}
        self._ready_bits: dict[float, int] = {}  # t -> nodes expected free by t (bits), this decision
        # nodes expected free by the k-th expected end (bits), k = 0 .. running (built when needed, this decision)
        self._ready_prefix: list[int] | None = None
        # what was freed, in order: (from, until, node bits; 0 on a counting allocator), and per
        # queued job the length of this log (plus _base, what was dropped) at its last search
        self._freed: list[tuple[float, float, int]] = []
        self._base = 0
        self._stamp: dict[int, int] = {}
        # _log_since's memo for one instant: (now, _base, log length at the first question, the
        # filtered part before that per stamp, the filtered tail logged since, [its latest end,
        # how far it is read])
        self._since: tuple[float, int, int, dict[int, tuple[list[tuple[float, float, int]], float]],
                           list[tuple[float, float, int]], list[Any]] | None = None
        self._skip = True  # skip what the freed log proves useless (False: the same decisions, slower)
        #: In a compression, read the freed log once per stamp and the profile's peak once per time,
        #: until the next move (False: once per job; the same decisions, slower).
        self._reuse = True
        # those readings: stamp -> (entries, latest end); until -> the most processors free over [now, until)
        self._reads: dict[int, tuple[list[tuple[float, float, int]], float]] = {}
        self._peaks: dict[float, int] = {}
        #: Start a job whose reservation starts now with one profile update (the reserved nodes
        #: released; its processors stay taken over the same time) rather than two (the
        #: reservation out, the running job in; False: the same profile, slower).
        self._one_update = True
        #: Start a job whose time came with the allocator's own first placement when no other
        #: reservation holds nodes over its run (False: ``allocate_avoiding`` with an empty mask;
        #: the same placements by that method's contract).
        self._direct = True
        #: Jobs whose reservation had to move later: a job overran its estimate, or (on allocators
        #: whose placements of one request can overlap in part, e.g. Zhu's first fit on a mesh) the
        #: allocator could not be steered to the reserved nodes when the time came.
        self.displaced: list[int] = []
        self._displaced: set[int] = set()  # the same ids, for membership

    def bind(self, allocator: Allocator) -> None:
        super().bind(allocator)
        self._profile = FreeProfile(allocator.size)

    @property
    def queue(self) -> list[Job]:
        """The waiting jobs, in arrival order."""
        return list(self._waiting.values())

    @property
    def profile(self) -> FreeProfile:
        """Free processors over time: the running jobs until their expected ends, the reservations
        over their intervals. Raises :class:`RuntimeError` before :meth:`bind` (there is none yet)."""
        profile = self._profile
        if profile is None:
            raise RuntimeError(f"policy {self.name} has no profile before it is bound to an allocator")
        return profile

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        timers = self._admit(job, now)
        self._waiting[job.id] = job
        self._arrival[job.id] = next(self._ranks)
        self._new.append(job)
        return timers

    def _job_of(self, jid: int) -> Job:
        return self._waiting[jid]

    def queue_head(self) -> Job | None:
        """The waiting job that arrived first, unless it waits for its reservation though the
        allocator could place it now (then ``None``): the simulator's blocked-by-topology measure
        counts only a head that no placement on the free nodes satisfies. When the head's
        processor count is free, one what-if question on the free nodes as bits (the complement of
        the running jobs' nodes, O(running) integer operations; :meth:`topoalloc.Allocator.place_in_bits`,
        the same answer as ``place_in`` on the allocator's free mask); else O(1)."""
        job = next(iter(self._waiting.values()), None)
        if job is None:
            return None
        alloc = self.allocator
        if self._info[job.id][0] > alloc.free:
            return job  # not enough free processors: not blocked by the topology (the simulator's count)
        if self._counting:
            return None  # any free processors will do: it waits for its reservation
        busy = 0
        for h in self.running.values():
            if h.bits < 0:
                h.bits = self._bits_of(h.alloc)
            busy |= h.bits
        free = ((1 << alloc.size) - 1) & ~busy
        return job if alloc.place_in_bits(self.request_of(job), free) is None else None

    def on_finish(self, job: Job, now: float) -> None:
        held = self._retire(job)
        self._finished = True
        if now < held.end:  # ended early: its processors are free from now on, room to compress
            self._early = True
            profile = self._profile
            assert profile is not None  # made by bind
            profile.change(now, held.end, held.size)
            bits = 0
            if not self._counting:
                bits = self._bits_of(held.alloc) if held.bits < 0 else held.bits
                self._freed.append((now, held.end, bits))
            if self._consistent:
                self._changes.append((now, held.end, bits, False, math.inf))

    def on_timer(self, key: Any, now: float) -> None:
        # a switches wait that ends: the job's reservation, made knowing the deadline, stays valid
        if self._relax(key, now) is None:
            self._timers.discard(key)

    def decide(self, now: float) -> list[Action]:
        """The decision of the class docstring: rebuild or compress the reservations if needed,
        reserve the newcomers in arrival order, then start every job whose reservation has come."""
        if not (self._new or self._finished or self._retry):
            top = self._top()
            if top is None or top.start > now:
                return []  # a timer for a reservation that has moved since
        self._retry = False
        self._nofit.clear()
        self._ready_bits.clear()
        self._ready_prefix = None
        profile = self._profile
        assert profile is not None  # made by bind
        profile.trim(now)
        overrun = bool(self._ends) and self._ends[0][0] < now  # a running job is past its estimate
        if overrun or self._held_up:
            # keep the plan when it provably equals a rebuild: made by one, and since then no
            # early end, no blocked job (the expected free processors from now on are the same)
            if not (self._rebuilt and not self._early and not self._blocked):
                if self._consistent and self._incremental:
                    self._repair(now)
                else:
                    self._rebuild(now)
        else:
            if self._blocked:
                self._replace_blocked(now)
            if self._early:
                self._compress(now)
        self._early = self._finished = self._held_up = False
        for job in self._new:
            if job.id in self._waiting and job.id not in self.reservations:
                self._reserve(self._find_any(job, now))
        self._new.clear()
        actions = self._start_due(now)
        self._trim_log()
        if len(self._due) > 2 * len(self.reservations) + 64:
            self._compact_due()
        return actions

    def _compact_due(self) -> None:
        """Drop the heap entries of reservations that moved or started (each move pushes a new
        entry; the old one would otherwise stay until its time comes, holding the reservation),
        so the heap holds O(queue) entries. O(heap), at most once per as many pushes."""
        reservations = self.reservations
        self._due = [e for e in self._due if reservations.get(e[3].job.id) is e[3]]
        heapq.heapify(self._due)

    # -- reservations --------------------------------------------------------------------------------
    def _reserve(self, res: Reservation, push: bool = True) -> None:
        jid = res.job.id
        self.reservations[jid] = res
        found = self._found
        if found is not None and found[0] is res:  # its bits, computed when it was found
            bits = found[1]
        else:
            nodes = res.nodes
            bits = 0 if nodes is None else _to_bits(nodes)
        if bits:
            self._bits[jid] = bits
            self._stamp[jid] = self._base + len(self._freed)  # found given everything freed so far
        profile = self._profile
        assert profile is not None  # made by bind
        profile.change(res.start, res.end, -self._info[jid][0], bits)
        if push:
            heapq.heappush(self._due, (res.start, self._arrival[jid], next(self._tie), res))

    def _unreserve(self, jid: int) -> Reservation | None:
        res = self.reservations.pop(jid, None)
        if res is not None and self._nofit:
            # its nodes are free over [start, end) now: forget the failures over windows meeting that
            a, b = res.start, res.end
            for t in [t for t in self._nofit if t < b]:
                kept = [(f, d) for f, d in self._nofit[t] if t + d <= a]
                if kept:
                    self._nofit[t] = kept
                else:
                    del self._nofit[t]
        if res is not None:
            bits = self._bits.pop(jid, 0)
            profile = self._profile
            assert profile is not None  # made by bind
            profile.change(res.start, res.end, self._info[jid][0], bits)
            if bits:
                self._freed.append((res.start, res.end, bits))
        return res

    def _top(self) -> Reservation | None:
        due = self._due
        while due and self.reservations.get(due[0][3].job.id) is not due[0][3]:
            heapq.heappop(due)  # superseded, started or blocked
        return due[0][3] if due else None

    def _moved(self, job: Job, prev: Reservation | None, new: Reservation) -> None:
        if prev is not None and new.start > prev.start and job.id not in self._displaced:
            self._displaced.add(job.id)
            self.displaced.append(job.id)
        self._reserve(new)

    def _rebuild(self, now: float) -> None:
        """Every reservation taken out, then made again in arrival order (the reference
        :meth:`_repair` equals). The reservations are taken out at once: the profile is made
        anew from the running jobs (:meth:`_running_profile`, O(running)) rather than by one
        profile update per reservation, and nothing is logged as freed (every reservation is
        made again, given all that is free)."""
        previous = dict(self.reservations)
        self.reservations.clear()
        self._bits.clear()
        self._profile = self._running_profile(now)
        self._nofit.clear()
        self._blocked.clear()
        for job in self._waiting.values():
            self._moved(job, previous.get(job.id), self._find_any(job, now))
        self._rebuilt = self._consistent = True
        self._changes.clear()

    def _repair(self, now: float) -> None:
        """What :meth:`_rebuild` makes, job for job, re-searching only the reservations that can
        differ.

        **Algorithm.** A rebuild makes each reservation, in arrival order, at the earliest time it
        fits given the running jobs and the reservations made before it. The plan before the
        repair was made that way (``_consistent``: by a rebuild, a repair or an arrival, never by
        a compression), each reservation against the running jobs and earlier reservations of its
        own time, and ``_changes`` lists every rectangle of time and nodes (counts on a flat
        machine) where those differ since: room freed by jobs that ended before their estimate
        or started off their reserved nodes, room taken by jobs that started (for the jobs that
        arrived before them, which never had their reservation in the way), and here, as it
        goes, each moved reservation's old place (freed) and new place (taken). The repair walks
        the queue in arrival order on a profile holding only the running jobs and the
        reservations already walked (the rebuild's own profile at that job). A job keeps its
        reservation, unsearched, when no change touches it:

        * a start before its reservation needs room freed over its window (everywhere else
          there is no more room than when it was made, and then none fitted): when a freed
          rectangle reaches back that far, the profile's counts are asked for such a start, and
          on node sets the allocator only where a node freed there is free (as the compression
          does with its log of freed room);
        * its own start still fits, and on node sets the allocator still chooses the same nodes,
          when no change meets its window ``[start, start + estimate]`` (on a flat machine: no
          room taken there); otherwise it is searched from its start on.

        A job blocked at its reservation, a new arrival and a job with a switches wait are
        searched in full. A start at ``now`` that is no breakpoint of the profile fits only if
        one at the breakpoint before did (its window meets the same steps and more), so a
        reservation made at an earlier decision is still the earliest. Where the answer is not
        proved, the search is the rebuild's, so the plan after a repair is the rebuild's
        (``tests/scheduling/policies/test_backfill_repair.py`` compares them on every shared
        trace and on synthetic overruns, on flat, cube, mesh and tree allocators).

        **Cost.** O(running) for the running jobs' profile; per queued job O(C) to test the C
        changes that apply to it, one O(B) profile update for its reservation (B breakpoints)
        and, only where a change allows a move, the search a rebuild makes (O(B) counts, then
        what-if questions to the allocator). A rebuild pays for every job a removal, a search
        and a profile update."""
        changes = [c for c in self._changes if c[1] > now]
        self._changes.clear()
        blocked = set(self._blocked)
        self._blocked.clear()
        counting = self._counting
        info, reservations, bitsd, arrival = self._info, self.reservations, self._bits, self._arrival
        profile = self._running_profile(now)
        self._profile = profile
        self._nofit.clear()
        waits = self._deadlines or self._relaxed
        stamp = self._base + len(self._freed)
        inf = math.inf
        for job in self._waiting.values():
            jid = job.id
            prev = reservations.get(jid)
            n, d, _ = info[jid]
            if prev is None or prev.start < now or jid in blocked or (waits and (
                    jid in self._deadlines or jid in self._relaxed)):
                new = self._find(job, now)
            else:
                s, e = prev.start, prev.end
                rank = arrival[jid]
                touched = False
                usable: list[tuple[float, float, int]] = []
                for a, b, bits, taken, below in changes:
                    if rank >= below:
                        continue
                    if counting:
                        if taken:
                            if (a < e and b > s) if e > s else (a <= s < b):
                                touched = True
                                break
                        elif a - d < s:
                            usable.append((a, b, bits))
                    else:
                        if a <= e and b >= s:
                            touched = True
                        if not taken and a - d < s:
                            usable.append((a, b, bits))
                new = None
                if counting:
                    if touched:
                        new = self._find(job, now)
                    elif usable:
                        t = profile.first(n, d, now, s)
                        if t is not None:
                            new = Reservation(job, t, t + d, None, -1)
                else:
                    if usable:
                        t = profile.first(n, d, now, s)
                        if t is not None:  # an earlier start that uses freed nodes
                            new = self._find(job, now, s, fresh=usable, first=t)
                    if new is None and touched:
                        new = self._find(job, now, first=profile.first(n, d, s))
                found = self._found
                if new is None or (new.start == s and (
                        counting or (found is not None and found[1] == bitsd.get(jid, 0)))):
                    bits = bitsd.get(jid, 0)  # kept: the rebuild's search would find it again
                    profile.change(s, e, -n, bits)
                    if bits:
                        self._stamp[jid] = stamp
                    continue
            assert new is not None  # (a search without a limit finds a reservation or raises)
            if prev is None:
                self._moved(job, prev, new)
                changes.append((new.start, new.end, bitsd.get(jid, 0), True, inf))
            else:
                old = bitsd.get(jid, 0)
                self._unreserve_quietly(jid)
                self._moved(job, prev, new)
                changes += _difference(max(prev.start, now), prev.end, old, new.start, new.end, bitsd.get(jid, 0))
        self._rebuilt = self._consistent = True

    def _unreserve_quietly(self, jid: int) -> None:
        """Forget a reservation that is not in the profile (the repair's profile is made anew)."""
        del self.reservations[jid]
        self._bits.pop(jid, None)

    def _running_profile(self, now: float) -> FreeProfile:
        """A profile holding only the running jobs, each until its expected end (those past it:
        none from ``now`` on). O(running)."""
        size = self.allocator.size
        ends = self._ends
        k = bisect.bisect_right(ends, (now, math.inf))
        busy = 0
        for i in range(k, len(ends)):
            busy += ends[i][3]
        times, free = [-math.inf], [size - busy]
        for i in range(k, len(ends)):
            e, _, _, m = ends[i]
            if e == times[-1]:
                free[-1] += m
            else:
                times.append(e)
                free.append(free[-1] + m)
        profile = FreeProfile(size)
        profile.times, profile.free, profile.held = times, free, [0] * len(times)
        return profile

    def _replace_blocked(self, now: float) -> None:
        """The blocked jobs' reservations taken out, then made again in arrival order."""
        blocked = {jid: self._unreserve(jid) for jid in self._blocked}
        self._blocked.clear()
        self._rebuilt = self._consistent = False
        self._changes.clear()
        for job in self._waiting.values():
            if job.id in blocked:
                self._moved(job, blocked[job.id], self._find_any(job, now))

    def _compress(self, now: float) -> None:
        """Compression: each reservation, in arrival order, is taken out and put back at the
        earliest time it fits given all the others, and kept if nothing earlier is found. A job
        for which the profile has too few free processors at every time before its reservation
        cannot move and is not searched; nor is a job for which nothing was freed, since its last
        search, over a time its start could move to (:meth:`_fresh`).

        Per visit: the job's part of the freed log from the reading shared by the jobs last
        searched at the same point (:meth:`_log_since`, O(1) after the first of them), the most
        processors free over ``[now, until)`` as the maximum of a slice of the profile's counts
        (:meth:`FreeProfile.peak` without the call; the step holding ``now`` found again only
        after a move), then, for the jobs it does not rule out, the profile search and the node
        search (:meth:`_find_nodes`, called directly where :meth:`_find` would only pass the job
        on). Between two moves neither the log nor the profile changes, so the reading of each
        stamp and the maximum before each ``until`` are computed once and kept in dictionaries
        (:attr:`_reads`, :attr:`_peaks`) until the next move (:meth:`_forget_readings`; with
        ``_reuse = False`` each job computes its own, the same decisions): most jobs share their
        stamp (they were all last searched at the previous compression) and their ``until`` (the
        latest end of what was freed since, when that comes before their start), so a visit the
        counts end costs two lookups. Measured on the first 4,000 jobs of SDSC-SP2 on the buddy
        10-cube (``benchmarks/simulate.py --backfill``): 106,000 visits in 3,626 compressions,
        24,300 readings of the log instead of 106,000 and 34,400 maxima instead of 106,000;
        79,000 visits ended by the counts, 27,200 node searches, 14,500 of which move a
        reservation. The sharing is this library's own (Mu'alem & Feitelson 2001 define the
        compression, not how its tests are computed)."""
        info, reservations, stamps, profile = self._info, self.reservations, self._stamp, self._profile
        assert profile is not None  # made by bind
        self._rebuilt = False
        log, base, fresh_of, find, since = self._freed, self._base, self._fresh, self._find, self._log_since
        # _fresh's answer straight from the shared reading of the log, unless a subclass answers
        direct = type(self)._fresh is Conservative._fresh and self._skip and not self._counting
        nodes = type(self)._find is Conservative._find and not self._counting
        find_nodes = self._find_nodes
        # the profile's lists change in place; the step holding now is found again after each move
        times, free, first = profile.times, profile.free, profile.first
        here = bisect.bisect_right(times, now) - 1
        # the log's readings per stamp and the peaks per time, kept until the next move (which
        # logs its old place and changes the profile)
        # (without the log every job's until is its own start: nothing to share)
        read, peaks, reuse = self._reads, self._peaks, self._reuse and direct
        self._forget_readings()
        for job in self._waiting.values():
            jid = job.id
            prev = reservations.get(jid)
            if prev is None:
                continue
            start = prev.start
            if start <= now:
                continue
            if reuse:
                stamp = stamps.get(jid)
                if stamp is None:
                    fresh = None
                else:
                    fresh = read.get(stamp)
                    if fresh is None:
                        fresh = read[stamp] = since(stamp, now)
            elif direct:
                stamp = stamps.get(jid)
                fresh = None if stamp is None else since(stamp, now)
            else:
                fresh = fresh_of(jid, now, start)
            until = start if fresh is None or fresh[1] > start else fresh[1]
            n, est, _ = info[jid]
            # the most processors free at any time of [now, until) (FreeProfile.peak)
            if not until > now:
                peak = -1
            elif reuse:
                peak = peaks.get(until, -1)
                if peak < 0:
                    peak = peaks[until] = max(free[here : bisect.bisect_left(times, until)])
            else:
                peak = max(free[here : bisect.bisect_left(times, until)])
            if peak < n:
                if fresh is not None:
                    stamps[jid] = base + len(log)
                continue
            # an earlier start, looked for with the job's own reservation (from its start on) left
            # out; if there is none it stays where it is (an early end and earlier moves only freed
            # room, they never took its). The counts are asked here first: most searches end there
            t = first(n, est, now, start, n, until)
            if t is None:
                stamps[jid] = base + len(log)
                continue
            if nodes and not (self._deadlines or self._relaxed):  # _find's own path, without the call
                new = find_nodes(job, now, start, True, None if fresh is None else fresh[0], until, t, job.request)
            else:
                new = find(job, now, start, mine=True, fresh=None if fresh is None else fresh[0], until=until, first=t)
            if new is not None:
                self._unreserve(jid)
                self._moved(job, prev, new)
                here = bisect.bisect_right(times, now) - 1
                self._forget_readings()
                if self._consistent:  # compression keeps no rebuild's order: the next one starts afresh
                    self._consistent = False
                    self._changes.clear()
            else:
                stamps[jid] = base + len(log)

    def _forget_readings(self) -> None:
        """Forget the compression's readings of the freed log and of the profile's peaks (at its
        start and after each move: a move logs its old place and changes the profile)."""
        self._reads.clear()
        self._peaks.clear()

    def _fresh(self, jid: int, now: float, limit: float) -> tuple[list[tuple[float, float, int]], float] | None:
        """What was freed since the job's last search (which found no start before ``limit``,
        given everything else) and lasts past ``now``: ``(from, until, node bits)`` as logged (a
        start at ``t`` uses ``[t, t + estimate)``, so only a start with ``from <= t + estimate``
        and ``t < until`` can use it), and the latest ``until`` (``now`` if none). Nothing else
        that changed since can make an earlier start possible (reservations, launches and the
        passing of time only take room: a start at a later ``now`` that is no breakpoint is
        possible only if one at the breakpoint before was), so an empty list means the search
        would find nothing. ``None``: no log to go by (search everything).

        The answer does not depend on the job beyond its last search: the jobs last searched at
        the same point of the log share it (:meth:`_log_since`), so a compression reads each part
        of the log once rather than once per job. Entries a start before ``limit`` cannot use
        (those beginning at or after ``limit + estimate``) are kept: the search skips them by the
        test above, and the latest ``until`` they make larger only widens the times the counts
        are asked about."""
        if not self._skip or self._counting:  # counting: the profile search is cheaper than the log
            return None
        stamp = self._stamp.get(jid)
        if stamp is None:
            return None
        return self._log_since(stamp, now)

    def _log_since(self, stamp: int, now: float) -> tuple[list[tuple[float, float, int]], float]:
        """The entries of the freed log from position ``stamp`` on that last past ``now``, and
        their latest end (``now`` if none). Within one instant the log only grows (it is trimmed
        after the decision), so the part logged before the first question at ``now`` is filtered
        once per distinct ``stamp`` and the part logged since once in all, then joined: O(1) per
        job after the first of each stamp, plus the copy of the join."""
        log = self._freed
        cache = self._since
        if cache is None or cache[0] != now or cache[1] != self._base:
            cache = self._since = (now, self._base, len(log), {}, [], [now, len(log)])
        _, base, size0, parts, tail, tail_state = cache
        k = stamp - base
        if k >= size0:  # a stamp from this instant: its part of the tail (rare: read directly)
            out = [e for e in log[k:] if e[1] > now]
            return out, max([now] + [e[1] for e in out])
        part = parts.get(k)
        if part is None:
            kept = [e for e in log[k:size0] if e[1] > now]
            last = now
            for e in kept:
                if e[1] > last:
                    last = e[1]
            part = parts[k] = (kept, last)
        upto = tail_state[1]
        if upto < len(log):  # logged since the first question at this instant
            last = tail_state[0]
            for e in log[upto:]:
                if e[1] > now:
                    tail.append(e)
                    if e[1] > last:
                        last = e[1]
            tail_state[0], tail_state[1] = last, len(log)
        if not tail:
            return part
        last = part[1] if part[1] > tail_state[0] else tail_state[0]
        return part[0] + tail, last

    def _ready_at(self, t: float) -> int:
        """The nodes expected free by ``t`` >= now (bits): the free ones and those of every running
        job expected to end by ``t`` (``self._ready <= t``), from prefix unions over the running
        jobs in order of expected end, built once per decision. O(log running)."""
        prefix = self._ready_prefix
        if prefix is None:
            running, busy, held = self.running, 0, []
            for _, _, jid, _ in self._ends:
                h = running[jid]
                if h.bits < 0:
                    h.bits = self._bits_of(h.alloc)
                held.append(h.bits)
                busy |= h.bits
            acc = ((1 << self.allocator.size) - 1) & ~busy
            prefix = [acc]
            for bits in held:
                acc |= bits
                prefix.append(acc)
            self._ready_prefix = prefix
        return prefix[bisect.bisect_right(self._ends, (t, math.inf))]

    def _trim_log(self) -> None:
        """Drop the part of the freed log every queued job's last search has seen."""
        if len(self._freed) > 4 * len(self._stamp) + 256:
            low = min(self._stamp.values(), default=self._base + len(self._freed))
            del self._freed[: low - self._base]
            self._base = low

    def _find(self, job: Job, now: float, limit: float = math.inf, mine: bool = False,
              fresh: list[tuple[float, float, int]] | None = None, until: float = math.inf,
              first: float | None = None) -> Reservation | None:
        """The earliest reservation for ``job`` starting before ``limit`` and ``until`` (None if
        there is none before a finite one); ``mine``: the job holds a reservation starting at
        ``limit``, which is not counted; ``fresh`` (node sets): only starts using what was freed
        there (:meth:`_fresh`); ``first``: the earliest start the profile's counts allow, when
        already known."""
        if self._counting:
            n, est, _ = self._info[job.id]
            if first is None:
                profile = self._profile
                assert profile is not None  # made by bind
                t = profile.first(n, est, now, limit, n if mine else 0)
            else:
                t = first
            if t is None:
                if limit == math.inf:
                    raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")
                return None
            return Reservation(job, t, t + est, None, -1)
        deadline = self.deadline(job) if self._deadlines else None
        if deadline is None:
            return self._find_nodes(job, now, limit, mine, fresh, until, first, self.request_of(job))
        # a switches wait: the constrained request before the deadline, then the relaxed one from the
        # deadline on (a start at the deadline is tried though it is no breakpoint of the profile; the
        # freed log's reasoning assumes one request, so it is not used)
        first = first if first is not None and first < deadline else None
        res = self._find_nodes(job, now, limit, mine, None, min(until, deadline), first, job.request)
        if res is not None or deadline >= min(limit, until):
            return res
        return self._find_nodes(job, max(now, deadline), limit, mine, None, until, None,
                                self.request_at(job, deadline))

    def _find_any(self, job: Job, now: float) -> Reservation:
        """The earliest reservation for ``job`` from ``now``, with no limit (:meth:`_find`, which
        then finds one or raises :class:`RuntimeError`)."""
        res = self._find(job, now)
        assert res is not None  # no finite limit: found, else raised
        return res

    def _find_nodes(self, job: Job, now: float, limit: float, mine: bool = False,
                    fresh: list[tuple[float, float, int]] | None = None,
                    until: float = math.inf, first: float | None = None, request: Any = None) -> Reservation | None:
        n, est, _ = self._info[job.id]
        profile, alloc, ends, nofit = self._profile, self.allocator, self._ends, self._nofit
        assert profile is not None  # made by bind
        own = self._bits.get(job.id, 0) if mine else 0
        lift = n if mine else 0
        if request is None:
            request = job.request
        # the times the counts allow, ascending (FreeProfile.starts, without the generator: most
        # searches try one; FreeProfile.rises and first_after inline, the profile's lists read here)
        times, pfree, held, pfirst = profile.times, profile.free, profile.held, profile.first
        t = pfirst(n, est, now, limit, lift, until) if first is None else first
        while t is not None:
            while True:  # one try at t; break: no reservation starts at t
                if fresh is not None:
                    gained = 0  # the nodes freed since the last search over [t, t + est)
                    end = t + est
                    for a, b, bits in fresh:
                        if a <= end and t < b:
                            gained |= bits
                    if not gained:
                        break
                if t != now:
                    i = bisect.bisect_left(times, t)  # a breakpoint at t where processors are freed?
                    rises = 0 < i < len(times) and times[i] == t and (
                        pfree[i] > pfree[i - 1] or bool(held[i - 1] & ~held[i]))
                else:
                    rises = True
                if not rises:
                    i = bisect.bisect_left(ends, (t, -1))
                    if i == len(ends) or ends[i][0] != t:
                        break  # nothing is freed here: a start just before did no worse
                # the nodes looked at hold none reserved over [t, t + span) (the job's own
                # reservation, when left out, starts at the limit)
                span = min(est, limit - t) if own else est
                failed = nofit.get(t)
                if failed and any(d <= span and alloc.covers(f, request) for f, d in failed):
                    break  # a request covering it found no placement at t on a superset of these nodes
                free = self._ready_bits.get(t)
                if free is None:
                    free = self._ready_bits[t] = self._ready_at(t)
                free &= ~profile.held_over(t, t + est, limit, own)
                if fresh is not None and not free & gained:
                    break  # a new placement would hold a node freed since: none is free here
                nodes = alloc.place_in_bits(request, free)
                if nodes is not None:
                    res = Reservation.on_ids(job, t, t + est, nodes, alloc.size)
                    self._found = res, _ids_to_bits(nodes, res)
                    return res
                nofit.setdefault(t, []).append((request, est))
                break
            i = bisect.bisect_right(times, t)
            t = pfirst(n, est, times[i], limit, lift, until) if i < len(times) else None
        if min(limit, until) == math.inf:
            raise RuntimeError(f"job {job.id} ({job.request!r}) found no reservation (allocator {self.allocator!r})")
        return None

    # -- starting -----------------------------------------------------------------------------------
    def _start_due(self, now: float) -> list[Action]:
        actions: list[Action] = []
        alloc, profile = self.allocator, self._profile
        assert profile is not None  # made by bind
        while True:
            res = self._top()
            if res is None or res.start > now:
                break
            heapq.heappop(self._due)
            job = res.job
            n, est, _ = self._info[job.id]
            got = None
            if n <= alloc.free:
                request = self.request_of(job)
                if self._counting:
                    got = alloc.allocate(request)
                else:
                    others = profile.held_over(now, now + est) & ~self._bits.get(job.id, 0)
                    # nothing else reserved meanwhile: the first placement the allocator offers, which
                    # allocate_avoiding with nothing to avoid returns by its contract (no mask to build)
                    got = alloc.allocate(request) if not others and self._direct else \
                        alloc.allocate_avoiding(request, _from_bits(others, alloc.size))
                    if got is None:
                        got = self._allocate_exactly(alloc, request, _mask_of(res))
            if got is None:
                self._blocked.append(job.id)
                if self._ends and self._ends[0][0] <= now:
                    self._held_up = True  # a job that should have ended may hold what it needs
                continue
            del self.reservations[job.id]
            del self._waiting[job.id]
            self._stamp.pop(job.id, None)
            rank = self._arrival.pop(job.id)
            bits = self._bits.pop(job.id, 0)
            mine = 0
            if bits:
                mine = self._bits_of(got)
                left = bits & ~mine
                if left:  # placed elsewhere: the reserved nodes it does not use are free again
                    self._freed.append((res.start, res.end, left))
            if res.start == now and self._one_update:  # the same processors over the same time:
                if bits:  # only the reserved nodes go (the running job's are ready, not held)
                    profile.change(now, res.end, 0, bits)
            elif res.start != now or bits:  # the reservation goes, the running job (its nodes: ready) comes
                profile.change(res.start, res.end, n, bits)
                profile.change(now, now + est, -n)
            if self._consistent:
                if bits:  # the jobs that arrived before it never had its reservation in their way
                    self._changes.append((now, now + est, mine, True, rank))
                if res.start != now or mine != bits:  # ... and the others had it elsewhere
                    self._changes += _difference(max(res.start, now), res.end, bits, now, now + est, mine)
            actions.append(self._launch(job, got, now))
            if mine:
                self.running[job.id].bits = mine
        if self._blocked and not self.running and self._retried != now:
            # nothing running will wake us: re-reserve the blocked jobs at once
            self._retried = now
            self._retry = True
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
        return top.start if top is not None and top.start > now else None



def _register() -> None:
    from ..registry import register

    register("Conservative", Conservative, help="FCFS with conservative backfilling: a reservation for every job")


_register()


def _difference(a: float, b: float, old: int, c: float, d: float,
                new: int) -> list[tuple[float, float, int, bool, float]]:
    """The changes (``_changes`` entries, for every rank) that replace the rectangle ``[a, b)`` x
    ``old`` (node bits; 0 on a counting allocator, where a rectangle is a count) by ``[c, d)`` x
    ``new``: over each piece of time, the nodes freed and the nodes taken (a zero-length
    rectangle holds nothing, as in the profile).

    >>> _difference(0.0, 10.0, 0b11, 5.0, 12.0, 0b11)   # the same nodes, later
    [(0.0, 5.0, 3, False, inf), (10.0, 12.0, 3, True, inf)]
    """
    out: list[tuple[float, float, int, bool, float]] = []
    points = sorted({a, b, c, d})
    for lo, hi in zip(points, points[1:], strict=False):
        was = old if a <= lo and hi <= b else None
        now = new if c <= lo and hi <= d else None
        if was is not None and now is not None:
            if was & ~now:
                out.append((lo, hi, was & ~now, False, math.inf))
            if now & ~was:
                out.append((lo, hi, now & ~was, True, math.inf))
        elif was is not None:
            out.append((lo, hi, was, False, math.inf))
        elif now is not None:
            out.append((lo, hi, now, True, math.inf))
    return out

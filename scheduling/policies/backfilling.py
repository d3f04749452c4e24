"""Backfilling: EASY (one reservation, for the head of the queue) and Conservative (one per job).

Both are FCFS with backfilling, judged with the users' run-time estimates (``Job.estimate``; the
job's run time when it has none). They work on **every** allocator, not only
:class:`~topoalloc.FlatPool`. Both decide once per instant, after every event of the instant
(the contract of :class:`~scheduling.policies.Policy`).

**How a reservation is represented.** A reservation is a start time plus the *node set* the job
would get then, found by asking the allocator itself. The policy knows, for every node, when it is
expected to be free (now, or the expected end, start + estimate, of the running job holding it); at
each of those times in turn, from now on, it asks the allocator whether it recognises a placement
for the job on the nodes free by then (:meth:`topoalloc.Allocator.place_in`, a what-if on a node
mask that allocates nothing): the first time it does is the reservation's *shadow time*, that
placement's nodes are the *reserved nodes*. (The shadow time is the one releasing the running jobs
in order of expected end on a copy of the allocator and trying the job after each end would find,
without the copy; the reserved nodes are a placement the allocator recognises then, its own choice
where ``place_in`` follows its rule. :meth:`topoalloc.Allocator.earliest_in` asks the whole
question at once.) A job that would otherwise have to wait may start now (be
*backfilled*) only if its allocation (the one the real allocator gives it now) either ends, by its
estimate, no later than the shadow time, or does not touch the reserved nodes. So on a mesh or a
cube a backfilled job never takes the region the head's reservation needs, whatever the allocator's
placement rule: at the shadow time the reserved nodes are free (every running job expected to end
by then has ended, every backfilled job has ended or stayed off them), so an allocator whose
success depends only on which nodes are free, and which never places a request on fewer free nodes
that it could not place on more (all of :mod:`topoalloc`), places the head then, if not earlier. A
candidate that would run past the shadow time takes the first of the allocator's placements, in the
allocator's own order, that stays off the reserved nodes
(:meth:`topoalloc.Allocator.allocate_avoiding`: the placements the allocator offers one after
another while the rejected ones are held; the policy sees only placements the allocator offers).

On an allocator that recognises any free processors (``recognition == "any"``: ``FlatPool``) the
node set is replaced by pure counting, Mu'alem & Feitelson's *shadow time* and *extra processors*:
a candidate may start if it fits now and ends by the shadow time or needs no more than the extra
processors (those free at the shadow time beyond what the head needs). That is the same rule,
since flat processors are interchangeable, at O(running + queue) per instant and no copies.

**Switch-tree requests.** Requests may carry :class:`~topologies.TreeRequest` constraints; the
allocator honours them in every what-if question. A request that waits a limited time for its
leaf switches (Slurm's ``--switches=N@T``, :mod:`~scheduling.policies.waits`) is relaxed at
``submit + T``; a reservation made before then is the earlier of the constrained request's
earliest placement before the deadline and the relaxed request's from the deadline on (the time
the job would start if nothing else did).

**Zero-length jobs.** A job occupies its processors over ``[start, start + run time)``, in the
simulator and in every reservation here: a job of (estimated) length 0 holds nothing, always ends
by the shadow time, and its reservation overlaps no other (it still needs its processors free at
its start to be placed).

**Estimates and overruns.** A running job is expected to end at ``start + estimate``. A job still
running past that (an estimate shorter than its run time, which real traces have) is expected to
end *now*: its end is taken as the current instant, so the head's reservation can move later than
first computed (the guarantees below assume estimates are upper bounds, as in the papers). Jobs
are not killed at their estimate. Each policy's docstring says when it recomputes what an
overrun moves.

Guarantees (with estimates that are upper bounds of the run times):

* ``EASY``: a job, once at the head of the queue, starts no later than the reservation computed
  when it became the head, which is when FCFS would start it from that state. Other queued jobs
  have no such bound (a backfilled job can delay the jobs behind the head).
* ``Conservative``: no job starts later than the reservation it got on arrival (reservations are
  only ever moved earlier), so a job is never delayed by any job that arrived after it. This is
  exact on counting allocators and where placements of one request never overlap in part (buddy
  cubes and squares, frames, tree partitions: when its time comes, the allocator's own order off
  the other reservations finds the reserved region or another free one); on allocators whose
  placements can overlap in part (Zhu's first and best fit on a mesh, Gray codes, the free list)
  a job whose reserved region the allocator cannot be steered to is re-reserved and listed in
  :attr:`Conservative.displaced`.

**Cost.** The policies avoid the what-if work wherever its answer cannot have changed: a
candidate is first checked against the free processor count (for EASY, when it would run past
the shadow time, against the free processors off the reserved nodes; for Conservative, against a
profile of free processor counts over time, :class:`FreeProfile`); a request that found no
placement is not asked again until something is freed (Conservative also skips the requests it
covers, :meth:`topoalloc.Allocator.covers`); reservations are kept across instants until an early
end, an overrun or a new head can have moved them. None of this changes a decision: on
``FlatPool`` both policies equal from-scratch textbook implementations job for job
(``tests/scheduling/test_backfilling.py``).
"""

from __future__ import annotations

import array
import bisect
import heapq
import itertools
import math
from typing import Any

import numpy as np

from topoalloc import Allocation, Allocator
from topologies import Mesh, Submesh

from ..kernel.actions import Action, Start, Timer
from ..kernel.jobs import Job
from .base import Policy
from .waits import SwitchesWait

__all__ = ["EASY", "Conservative", "Reservation", "FreeProfile", "clone_allocator"]


def clone_allocator(allocator: Allocator) -> Allocator:
    """``allocator.clone()`` (:meth:`topoalloc.Allocator.clone`): an independent copy with the same
    free state and the same live grants, for what-if replays. Releasing a live grant of the
    original on the clone works; allocations made on the clone must never be released on the
    original."""
    return allocator.clone()


class Reservation:
    """A queued job's reservation: it may start at ``start`` and is expected to end at ``end``
    (``start`` + estimate), on ``nodes`` (a read-only boolean mask over node ids; ``None`` on a
    counting, flat allocator, where ``extra`` is the number of processors free at ``start`` beyond
    the job's need, or -1 when not computed). Immutable.

    >>> import numpy as np
    >>> from scheduling import Job
    >>> r = Reservation.on_ids(Job(0, 0.0, 2, 5.0), 3.0, 8.0, np.array([4, 5]), size=8)
    >>> r.start, r.end, np.flatnonzero(r.nodes).tolist()
    (3.0, 8.0, [4, 5])
    """

    __slots__ = ("job", "start", "end", "extra", "_nodes", "_ids", "_size")

    job: Job
    start: float
    end: float
    extra: int

    def __init__(self, job: Job, start: float, end: float, nodes: np.ndarray | None = None, extra: int = -1) -> None:
        _res_job(self, job)  # slot descriptors: the immutable __setattr__ refuses
        _res_start(self, start)
        _res_end(self, end)
        _res_extra(self, extra)
        _res_nodes(self, nodes)
        _res_ids(self, None)

    @classmethod
    def on_ids(cls, job: Job, start: float, end: float, ids: np.ndarray, size: int) -> Reservation:
        """A reservation on the node ids ``ids`` of a machine of ``size`` nodes; the mask
        ``nodes`` is built when first asked for (most reservations move before anyone does)."""
        res = cls(job, start, end)
        _res_ids(res, ids)
        _res_size(res, size)
        return res

    @property
    def nodes(self) -> np.ndarray | None:
        """The reserved nodes, a read-only boolean mask over node ids (``None``: a count)."""
        nodes = self._nodes
        if nodes is None and self._ids is not None:
            nodes = np.zeros(self._size, dtype=bool)
            nodes[self._ids] = True
            nodes.flags.writeable = False
            _res_nodes(self, nodes)
        return nodes

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Reservation is immutable (tried to set {name!r})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __repr__(self) -> str:
        where = "a count" if self.nodes is None else f"{int(self.nodes.sum())} nodes"
        return f"Reservation(job={self.job.id}, start={self.start!r}, end={self.end!r}, {where}, extra={self.extra})"


_res_job, _res_start, _res_end = Reservation.job.__set__, Reservation.start.__set__, Reservation.end.__set__
_res_extra, _res_nodes = Reservation.extra.__set__, Reservation._nodes.__set__
_res_ids, _res_size = Reservation._ids.__set__, Reservation._size.__set__


class FreeProfile:
    """Free processors over time, a step function: ``free[i]`` processors are free over
    ``[times[i], times[i + 1])`` (the last step lasts for ever). Conservative backfilling keeps one:
    the running jobs until their expected ends and the reservations over their intervals. On node
    sets each step also holds ``held[i]``, the reserved nodes as the bits of an integer
    (reservations that overlap in time never share a node).

    :meth:`change` adds or removes a job's rectangle (``delta`` processors over ``[start, end)``,
    and its reserved nodes),
    :meth:`first` finds the earliest start from which a job of ``n`` processors and length ``d``
    fits for its whole length (the textbook profile search of conservative backfilling). For B
    breakpoints a search is O(B) (a start whose window meets a step with too few processors
    resumes after that step), a change O(B) in the worst case (list inserts and the steps it
    spans).

    >>> p = FreeProfile(8)
    >>> p.change(0.0, 10.0, -6); p.change(4.0, 6.0, -2)   # a running job and a reservation
    >>> p.first(3, 5.0, now=1.0), p.first(2, 3.0, now=1.0), p.first(2, 4.0, now=1.0)
    (10.0, 1.0, 6.0)
    >>> p.first(2, 4.0, now=1.0, limit=6.0) is None, p.peak(1.0, 6.0)
    (True, 2)
    """

    __slots__ = ("times", "free", "held")

    def __init__(self, size: int) -> None:
        self.times: list[float] = [-math.inf]
        self.free: list[int] = [size]
        self.held: list[int] = [0]

    def _cut(self, t: float) -> int:
        """The index of breakpoint ``t``, inserted (splitting its step) if absent."""
        times = self.times
        i = bisect.bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
            self.held.insert(i, self.held[i - 1])
        return i

    def change(self, start: float, end: float, delta: int, nodes: int = 0) -> None:
        """Add ``delta`` free processors over ``[start, end)`` (negative: take them), and reserve
        the nodes ``nodes`` (bits) there if they are not reserved, or free them if they are; the
        part before the first breakpoint is ignored (it is in the past)."""
        times, free, held = self.times, self.free, self.held
        if start < times[0]:
            start = times[0]
        if not end > start:
            return
        i = self._cut(start)
        j = self._cut(end)
        for k in range(i, j):
            free[k] += delta
        if nodes:
            for k in range(i, j):
                held[k] ^= nodes
        # drop the breakpoints the change made redundant (equal steps on both sides)
        if j < len(free) and free[j] == free[j - 1] and held[j] == held[j - 1]:
            del times[j], free[j], held[j]
        if i > 0 and free[i] == free[i - 1] and held[i] == held[i - 1]:
            del times[i], free[i], held[i]

    def trim(self, now: float) -> None:
        """Forget the steps that ended by ``now``."""
        i = bisect.bisect_right(self.times, now) - 1
        if i > 0:
            del self.times[:i], self.free[:i], self.held[:i]

    def held_over(self, start: float, end: float, since: float = math.inf, but: int = 0) -> int:
        """The nodes (bits) reserved at any time of ``[start, end)`` (of the step holding ``start``
        when the interval is empty); from ``since`` on, not counting the nodes ``but``."""
        times, held = self.times, self.held
        i = bisect.bisect_right(times, start) - 1
        j = max(bisect.bisect_left(times, end), i + 1)
        bits = 0
        for k in range(i, j):
            bits |= held[k] & ~but if times[k] >= since else held[k]
        return bits

    def rises(self, t: float) -> bool:
        """Whether the profile has a breakpoint at ``t`` where processors are freed: more free
        than just before, or reserved nodes released."""
        times = self.times
        i = bisect.bisect_left(times, t)
        return 0 < i < len(times) and times[i] == t and (
            self.free[i] > self.free[i - 1] or bool(self.held[i - 1] & ~self.held[i]))

    def starts(self, n: int, d: float, now: float, limit: float = math.inf, lift: int = 0,
               until: float = math.inf):
        """Every start in ``[now, min(limit, until))``, at ``now`` or at a breakpoint, from which
        ``n`` processors are free over ``[start, start + d)`` (at the start itself when ``d == 0``),
        ascending (a generator: :meth:`first` from ``now``, then from the breakpoint after each
        start found). ``lift``: count that many more processors free from ``limit`` on (the job's
        own reservation, starting at ``limit``, when looking for an earlier one)."""
        t = self.first(n, d, now, limit, lift, until)
        while t is not None:
            yield t
            t = self.first_after(t, n, d, limit, lift, until)

    def first_after(self, t: float, n: int, d: float, limit: float = math.inf, lift: int = 0,
                    until: float = math.inf) -> float | None:
        """The next of :meth:`starts` after the start ``t``: :meth:`first` from the breakpoint
        after ``t`` (``None`` if there is none)."""
        times = self.times
        i = bisect.bisect_right(times, t)
        return self.first(n, d, times[i], limit, lift, until) if i < len(times) else None

    def first(self, n: int, d: float, now: float, limit: float = math.inf, lift: int = 0,
              until: float = math.inf) -> float | None:
        """The earliest of :meth:`starts`, or ``None``: a start whose window meets a step with too
        few processors resumes after that step."""
        times, free = self.times, self.free
        m = len(times)
        i = bisect.bisect_right(times, now) - 1
        t = now
        stop_at = min(limit, until)
        while t < stop_at:
            if free[i] >= n:
                stop = t + d
                j = i + 1
                while j < m and times[j] < stop and free[j] + (lift if times[j] >= limit else 0) >= n:
                    j += 1
                if j == m or times[j] >= stop:
                    return t
                i = j  # every start up to times[j] meets that step
            i += 1
            if i == m:
                return None
            t = times[i]
        return None

    def peak(self, now: float, until: float) -> int:
        """The most processors free at any time of ``[now, until)`` (-1 if empty)."""
        if not until > now:
            return -1
        times = self.times
        return max(self.free[bisect.bisect_right(times, now) - 1 : bisect.bisect_left(times, until)])


class _Held:
    __slots__ = ("job", "alloc", "size", "start", "end", "seq", "bits")

    def __init__(self, job: Job, alloc: Allocation, size: int, start: float, end: float, seq: int) -> None:
        self.job, self.alloc, self.size, self.start, self.end, self.seq = job, alloc, size, start, end, seq
        self.bits = -1  # its nodes as bits, when asked for (node sets)


def _estimate(job: Job) -> float:
    est = job.estimate if job.estimate is not None else job.runtime
    if not est >= 0 or math.isnan(est):
        raise ValueError(f"job {job.id} has estimate {est!r}; backfilling needs a run-time estimate >= 0")
    return float(est)


def _key(request: Any) -> Any:
    """A hashable stand-in for a request (for the memo of requests that found no placement)."""
    try:
        hash(request)
    except TypeError:
        return repr(request)
    return request


def _to_bits(mask: np.ndarray) -> int:
    """A boolean node mask as the bits of an integer (bit ``i``: node ``i``)."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


def _ids_span(ids: np.ndarray) -> tuple[int, int] | None:
    """``(first, stop)`` when the ascending node ids ``ids`` are the range ``first .. stop - 1``."""
    n = len(ids)
    if n:
        first = int(ids[0])
        if int(ids[n - 1]) - first == n - 1:
            return first, first + n
    return None


def _ids_box(ids: np.ndarray, width: int) -> tuple[int, int, int, int] | None:
    """``(y, y_end, x, x_end)`` when the ascending node ids ``ids``, laid out in rows ``width``
    nodes wide (node ``(x, y)``: id ``y * width + x``; one row for a machine that is no mesh), are
    exactly the rectangle of rows ``y .. y_end - 1`` and columns ``x .. x_end - 1``. Ids that are
    unique, ascending, as many as the rectangle bounded by the first and the last, and all in its
    columns (which needs checking only when it neither is one row nor spans whole rows), are that
    rectangle."""
    n = len(ids)
    if not n:
        return None
    y, x = divmod(int(ids[0]), width)
    y_end, x_end = divmod(int(ids[n - 1]), width)
    y_end += 1
    x_end += 1
    if x_end <= x or (x_end - x) * (y_end - y) != n:
        return None
    if y_end - y > 1 and x_end - x < width:
        cols = ids % width
        if int(cols.min()) < x or int(cols.max()) >= x_end:
            return None
    return y, y_end, x, x_end


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """The number of nodes two rectangles ``(y, y_end, x, x_end)`` share."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[2], b[2]))


def _ids_to_bits(ids: np.ndarray, res: Reservation) -> int:
    """Ascending node ids (those of reservation ``res``) as the bits of an integer: a shifted run
    of ones when the ids are consecutive, else from the reservation's mask."""
    span = _ids_span(ids)
    return _to_bits(res.nodes) if span is None else _run_bits(*span)


def _run_bits(first: int, stop: int) -> int:
    """The nodes ``first .. stop - 1`` as the bits of an integer."""
    return ((1 << (stop - first)) - 1) << first


def _free_mask(allocator: Allocator) -> np.ndarray:
    """The allocator's free nodes as a boolean mask over node ids (from ``free_mask()`` or
    ``free_nodes()`` where it has one, else from its occupancy view)."""
    own = getattr(allocator, "free_mask", None)
    if callable(own):
        return np.asarray(own(), dtype=bool).ravel()
    nodes = getattr(allocator, "free_nodes", None)
    if callable(nodes):
        mask = np.zeros(allocator.size, dtype=bool)
        mask[np.asarray(nodes(), dtype=np.int64)] = True
        return mask
    return np.asarray(allocator.occupancy).ravel() == 0


def _from_bits(bits: int, size: int) -> np.ndarray:
    """The boolean node mask of the bits of ``bits``."""
    raw = np.frombuffer(bits.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, count=size, bitorder="little").view(bool)


class _Backfilling(SwitchesWait, Policy):
    """What EASY and Conservative share: the queue, the running jobs sorted by expected end, the
    switches wait (:class:`~scheduling.policies.waits.SwitchesWait`)."""

    def __init__(self) -> None:
        super().__init__()
        self._waits_init()
        self.running: dict[int, _Held] = {}
        self._ends: list[tuple[float, int, int, int]] = []  # (start + estimate, seq, job id, size), sorted
        self._seq = itertools.count()
        self._counting: bool | None = None
        self._info: dict[int, tuple[int, float, Any]] = {}  # queued job id -> (processors, estimate, key)
        self._ready: np.ndarray | None = None  # per node: when it is expected free (-inf: free; node sets only)
        # ... as a (height, width) view on a mesh, else as one row: a grant or a reservation that is
        # a rectangle of it (_box_of, _ids_box) is marked, counted and intersected by slices
        self._grid: np.ndarray | None = None
        # grants whose marks in _ready are not made yet (alloc id -> (grant, expected free from)),
        # in the order made: marked when the ready array is next read, and a grant that ends before
        # that is never marked (half of them or more, measured)
        self._stale: dict[int, tuple[Allocation, float]] = {}
        self._row = False  # the grid is one row

    def _admit(self, job: Job, now: float) -> list[Action] | None:
        """Cache the job's processors, estimate and request key; start its switches wait (the
        timer that ends it, if any). A wait already over relaxes the request, and the key, now."""
        if job.id not in self._info:
            self.reference_size(job)
        timers = self._waits_arrival(job, now)
        if self._relaxed and job.id in self._relaxed:
            n, est, _ = self._info[job.id]
            self._info[job.id] = (n, est, _key(self._relaxed[job.id]))
        return timers

    def _relax(self, key: Any, now: float) -> Job | None:
        """A switches-wait timer: the queued job whose request is relaxed now (its cached request
        key updated), or ``None``."""
        jid = self._waits_timer(key, now)
        if jid is None:
            return None
        n, est, _ = self._info[jid]
        self._info[jid] = (n, est, _key(self._relaxed[jid]))
        return self._job_of(jid)

    def _job_of(self, jid: int) -> Job:
        raise NotImplementedError

    def reference_size(self, job: Job) -> int:
        """The job's processor count (cached with its estimate: the driver asks before
        :meth:`on_arrival`)."""
        info = self._info.get(job.id)
        if info is None:
            info = self._info[job.id] = (self.allocator.request_size(job.request), _estimate(job), _key(job.request))
        return info[0]

    def bind(self, allocator: Allocator) -> None:
        super().bind(allocator)
        self._counting = getattr(allocator, "recognition", "") == "any"
        # whether the allocator answers the reservation question in one vectorised pass
        self._earliest = type(allocator).earliest_in is not Allocator.earliest_in
        if not self._counting:
            self._ready = np.full(allocator.size, -math.inf)
            topology = allocator.topology
            if isinstance(topology, Mesh) and topology.width * topology.height == allocator.size:
                self._grid = self._ready.reshape(topology.height, topology.width)
            else:
                self._grid = self._ready.reshape(1, allocator.size)
            self._row = self._grid.shape[0] == 1

    @property
    def counting(self) -> bool:
        """Whether reservations are processor counts (a flat allocator) rather than node sets."""
        return bool(self._counting)

    # -- running jobs -------------------------------------------------------------------------------
    def _launch(self, job: Job, alloc: Allocation, now: float) -> Action:
        seq = next(self._seq)
        n, est, _ = self._info.pop(job.id)
        if self._deadlines or self._relaxed:
            self._waits_started(job)
        end = now + est
        self.running[job.id] = _Held(job, alloc, n, now, end, seq)
        bisect.insort(self._ends, (end, seq, job.id, n))
        if self._ready is not None:
            self._stale[alloc.id] = (alloc, end)
        return Start(job, alloc, n, n)  # backfilling never folds: granted = requested

    def _retire(self, job: Job) -> _Held:
        held = self.running.pop(job.id)
        i = bisect.bisect_left(self._ends, (held.end, held.seq, job.id, held.size))
        del self._ends[i]
        self.allocator.release(held.alloc)
        if self._ready is not None and self._stale.pop(held.alloc.id, None) is None:
            self._stale[held.alloc.id] = (held.alloc, -math.inf)  # (its start not marked yet: neither is needed)
        return held

    def _box_of(self, alloc: Allocation) -> tuple[int, int, int, int] | None:
        """A grant's nodes as a rectangle ``(y, y_end, x, x_end)`` of :attr:`_grid` when its
        placement says so without building its nodes: a submesh of a mesh, or a range of node ids
        (:attr:`topoalloc.Allocation.span`: buddy blocks, tree partitions) on a machine laid out in
        one row; else ``None``."""
        if self._row:
            span = alloc.span
            return None if span is None else (0, 1, span[0], span[1])
        p = alloc.placement
        return (p.y, p.y + p.height, p.x, p.x + p.width) if type(p) is Submesh else None

    def _ready_now(self) -> np.ndarray:
        """The ready array, with every grant's marks made (:attr:`_stale`)."""
        stale = self._stale
        if stale:
            for alloc, t in stale.values():
                self._set_ready(alloc, t)
            stale.clear()
        return self._ready

    def _set_ready(self, alloc: Allocation, t: float) -> None:
        """Mark a grant's nodes expected free from ``t`` (a slice where it is a rectangle; a 1-D
        slice on one row)."""
        box = self._box_of(alloc)
        if box is None:
            self._ready[alloc.nodes] = t
        elif self._row:
            self._ready[box[2] : box[3]] = t
        else:
            self._grid[box[0] : box[1], box[2] : box[3]] = t

    def _ordered_running(self, now: float):
        """``(expected end, held)`` in order of expected end (overrunning jobs: ``now``)."""
        running = self.running
        for end, _, jid, _ in self._ends:
            yield (end if end > now else now), running[jid]

    def _bits_of(self, alloc: Allocation) -> int:
        """A grant's nodes as the bits of an integer (from its span when it has one)."""
        span = alloc.span
        return _to_bits(self._mask(alloc.nodes)) if span is None else _run_bits(*span)

    def _mask(self, nodes: np.ndarray) -> np.ndarray:
        """A reservation's node mask, frozen (read-only: allocators may remember what they derive
        from it, :meth:`topoalloc.Allocator.allocate_avoiding`)."""
        m = np.zeros(self.allocator.size, dtype=bool)
        m[nodes] = True
        m.flags.writeable = False
        return m

    def _count_start(self, need: int, now: float) -> tuple[float, int]:
        """When, by the running jobs' expected ends (overrunning jobs: now), ``need`` processors
        are free in number, and how many are free then (every job expected to end by then
        counted); ``(inf, -1)`` if never. O(running)."""
        free = self.allocator.free
        if need <= free:
            return now, free
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
                return t, free
        return math.inf, -1

    # -- the head's reservation ----------------------------------------------------------------------
    def reservation(self, job: Job, now: float) -> Reservation:
        """Where and when ``job`` would start if the running jobs ended at their expected ends and
        nothing else started: the replay described in the module docstring (counting on a flat
        allocator). O(running) on a flat allocator; otherwise one what-if question to the allocator,
        :meth:`topoalloc.Allocator.earliest_in` over the nodes' expected free times where the
        allocator answers it in one vectorised pass (the buddy cube, the tree forest, frames);
        elsewhere the same search here, one :meth:`~topoalloc.Allocator.place_in` per candidate
        time from the first at which enough processors are expected free (counted from the running
        jobs in order of expected end)."""
        info = self._info.get(job.id)
        need, est = info[:2] if info is not None else (self.allocator.request_size(job.request), _estimate(job))
        if self._counting:
            t, free = self._count_start(need, now)
            if t == math.inf:
                raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")
            return Reservation(job, t, t + est, None, free - need)
        deadline = self.deadline(job) if self._deadlines else None
        if deadline is None:
            found = self._earliest_nodes(self.request_of(job), need, now)
        else:  # the constrained request before the deadline, else the relaxed one from the deadline on
            found = self._earliest_nodes(job.request, need, now)
            if found is None or found[0] >= deadline:
                found = self._earliest_nodes(self.request_at(job, deadline), need, max(now, deadline))
        if found is None:
            raise RuntimeError(f"job {job.id} ({job.request!r}) does not fit the empty machine")
        t, nodes = found
        return Reservation.on_ids(job, t, t + est, nodes, self.allocator.size)

    def _earliest_nodes(self, request: Any, need: int, now: float) -> tuple[float, np.ndarray] | None:
        """The earliest ``t >= now`` at which the allocator recognises a placement of ``request``
        (``need`` processors) on the nodes expected free by ``t``, and that placement; ``None`` if
        there is none even once every running job has ended."""
        alloc, ready = self.allocator, self._ready_now()
        if self._earliest:
            return alloc.earliest_in(request, ready, now)
        # the generic search, with the count test taken from the running jobs sorted by expected end
        ends = self._ends
        free = alloc.free
        k, last = 0, len(ends)
        t = now
        while True:
            while k < last and ends[k][0] <= t:
                free += ends[k][3]  # every job expected to end by t (overrunning jobs: now)
                k += 1
            if free >= need:
                nodes = alloc.place_in(request, ready <= t)
                if nodes is not None:
                    return t, nodes
            if k == last:
                return None
            t = max(ends[k][0], now)


class EASY(_Backfilling):
    """EASY backfilling (the Argonne SP scheduler; Wang, Papaefthymiou & Squillante, seed 004 §2.2,
    "EASY-LL"; Mu'alem & Feitelson 2001 for the shadow-time formulation).

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
    reserved nodes are a rectangle, their free count is kept across passes by rectangle
    arithmetic at each start and end, not counted again). On a
    topology the reservation itself is computed only when a candidate needs it: one that ends by
    a lower bound of the shadow time (when, by the running jobs' expected ends, enough processors
    are free in number) ends by the shadow time; the reservation computed later in the pass, or
    at a later pass, is the same one (the jobs started meanwhile end by that bound).

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
        self.queue.append(job)
        return timers

    def on_timer(self, key: Any, now: float) -> None:
        job = self._relax(key, now)
        if job is None:
            return
        i = next(i for i, q in enumerate(self.queue) if q is job)
        self._qk[i] = self._info[job.id][2]
        if i == 0:  # the head's request changed: its reservation is made again
            self._res = None
            self._box_free = -1
        self._relaxed_since = True  # the next pass scans the whole queue (the relaxed job may fit now)

    def _job_of(self, jid: int) -> Job:
        return next(q for q in self.queue if q.id == jid)

    def _on_reserved(self, alloc: Allocation) -> int:
        """How many of a grant's nodes are on the head's reserved ones: rectangle arithmetic where
        both are rectangles, else a count on the reserved mask."""
        box = self._box
        got = None if box is None else self._box_of(alloc)
        return _overlap(got, box) if got is not None else int(np.count_nonzero(self._res.nodes[alloc.nodes]))

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
        overran = self._overran_since(now)
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
                del queue[:heads], self._qn[:heads], self._qe[:heads], self._qk[:heads], self._qd[:heads]
                self._res = None  # a new head
                self._box_free = -1
                self._failed_off.clear()
            first = 1
        if len(queue) <= first or alloc.free == 0:
            return actions
        started = self._backfill_counting(now, first, actions) if self._counting else \
            self._backfill_nodes(now, first, actions)
        if started:
            qn, qe, qk, qd = self._qn, self._qe, self._qk, self._qd
            for i in reversed(started):
                del queue[i], qn[i], qe[i], qk[i], qd[i]
        return actions

    def _candidates(self, first: int, free: int, dead: int = -2):
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
            self._box = None if ids is None else _ids_box(ids, self._grid.shape[1])
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
            actions.append(self._launch(job, alloc.allocate(self.request_of(job)), now))
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
        reserved = box = None
        off = -1  # free processors off the reserved nodes (-1: not counted yet)
        started: list[int] = []  # queue positions
        qn, qe, qk = self._qn, self._qe, self._qk
        relaxed = self._relaxed  # request_of, inlined
        for i in self._candidates(first, free):
            n = qn[i]
            if n > free:
                continue
            key = qk[i]
            if key in failed:
                continue
            job = queue[i]
            end = now + qe[i]
            if end > bound and reserved is None:
                res = self._res
                if bound == -math.inf and self._floor_first and (res is None or res.job is not queue[0]):
                    bound = self._shadow_floor(now)
                if end > bound:
                    res = self._head_reservation(now)
                    bound, reserved, box = max(res.start, now), res, self._box
            request = relaxed.get(job.id, job.request) if relaxed else job.request
            if end <= bound:
                got = alloc.allocate(request)
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
                if off < 0:  # a necessary condition: that many free nodes off the reserved ones
                    if box is None:
                        off = free - int(np.count_nonzero(self._ready_now()[reserved.nodes] == -math.inf))
                    else:
                        if self._box_free < 0 or not self._keep_box_count:
                            self._ready_now()  # (the grid is a view of it)
                            self._box_free = int(np.count_nonzero(
                                self._grid[box[0] : box[1], box[2] : box[3]] == -math.inf))
                        off = free - self._box_free
                if n > off:
                    continue
                got = alloc.allocate_avoiding(request, reserved.nodes)
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
    order off the other reservations' nodes (:meth:`topoalloc.Allocator.allocate_avoiding`).

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
       at or after the instant, from which the expected free processors are the same);
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
    free then (a new placement must use one; everything else since only took room).

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
        self._new: list[Job] = []  # arrived since the last decision, in arrival order
        self._finished = False  # a job ended since the last decision
        self._early = False  # ... before its estimate
        self._blocked: list[int] = []  # due at the last decision, could not start
        self._held_up = False  # ... while a running job past its estimate held processors
        self._rebuilt = False  # the plan is what a rebuild would make (no compression since)
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
        self._skip = True  # skip what the freed log proves useless (False: the same decisions, slower)
        #: Jobs whose reservation had to move later: a job overran its estimate, or (on allocators
        #: whose placements of one request can overlap in part, e.g. Zhu's first fit on a mesh) the
        #: allocator could not be steered to the reserved nodes when the time came.
        self.displaced: list[int] = []

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
        over their intervals."""
        return self._profile

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        timers = self._admit(job, now)
        self._waiting[job.id] = job
        self._arrival[job.id] = len(self._arrival)
        self._new.append(job)
        return timers

    def _job_of(self, jid: int) -> Job:
        return self._waiting[jid]

    def queue_head(self) -> Job | None:
        """The waiting job that arrived first, unless it waits for its reservation though the
        allocator could place it now (then ``None``): the simulator's blocked-by-topology measure
        counts only a head that no placement on the free nodes satisfies. O(size) when the head's
        processor count is free, else O(1)."""
        job = next(iter(self._waiting.values()), None)
        if job is None:
            return None
        alloc = self.allocator
        if self._info[job.id][0] > alloc.free:
            return job  # not enough free processors: not blocked by the topology (the simulator's count)
        if self._counting:
            return None  # any free processors will do: it waits for its reservation
        return job if alloc.place_in(self.request_of(job), _free_mask(alloc)) is None else None

    def on_finish(self, job: Job, now: float) -> None:
        held = self._retire(job)
        self._finished = True
        if now < held.end:  # ended early: its processors are free from now on, room to compress
            self._early = True
            self._profile.change(now, held.end, held.size)
            if not self._counting:
                self._freed.append((now, held.end, self._bits_of(held.alloc)))

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
        self._profile.trim(now)
        overrun = bool(self._ends) and self._ends[0][0] < now  # a running job is past its estimate
        if overrun or self._held_up:
            # keep the plan when it provably equals a rebuild: made by one, and since then no
            # early end, no blocked job (the expected free processors from now on are the same)
            if not (self._rebuilt and not self._early and not self._blocked):
                self._rebuild(now)
        else:
            if self._blocked:
                self._replace_blocked(now)
            if self._early:
                self._compress(now)
        self._early = self._finished = self._held_up = False
        for job in self._new:
            if job.id in self._waiting and job.id not in self.reservations:
                self._reserve(self._find(job, now))
        self._new.clear()
        actions = self._start_due(now)
        self._trim_log()
        return actions

    # -- reservations --------------------------------------------------------------------------------
    def _reserve(self, res: Reservation, push: bool = True) -> None:
        jid = res.job.id
        self.reservations[jid] = res
        found = self._found
        if found is not None and found[0] is res:  # its bits, computed when it was found
            bits = found[1]
        else:
            bits = 0 if res.nodes is None else _to_bits(res.nodes)
        if bits:
            self._bits[jid] = bits
            self._stamp[jid] = self._base + len(self._freed)  # found given everything freed so far
        self._profile.change(res.start, res.end, -self._info[jid][0], bits)
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
            self._profile.change(res.start, res.end, self._info[jid][0], bits)
            if bits:
                self._freed.append((res.start, res.end, bits))
        return res

    def _top(self) -> Reservation | None:
        due = self._due
        while due and self.reservations.get(due[0][3].job.id) is not due[0][3]:
            heapq.heappop(due)  # superseded, started or blocked
        return due[0][3] if due else None

    def _moved(self, job: Job, prev: Reservation | None, new: Reservation) -> None:
        if prev is not None and new.start > prev.start and job.id not in self.displaced:
            self.displaced.append(job.id)
        self._reserve(new)

    def _rebuild(self, now: float) -> None:
        """Every reservation taken out, then made again in arrival order."""
        previous = dict(self.reservations)
        for jid in previous:
            self._unreserve(jid)
        self._blocked.clear()
        for job in self._waiting.values():
            self._moved(job, previous.get(job.id), self._find(job, now))
        self._rebuilt = True

    def _replace_blocked(self, now: float) -> None:
        """The blocked jobs' reservations taken out, then made again in arrival order."""
        blocked = {jid: self._unreserve(jid) for jid in self._blocked}
        self._blocked.clear()
        self._rebuilt = False
        for job in self._waiting.values():
            if job.id in blocked:
                self._moved(job, blocked[job.id], self._find(job, now))

    def _compress(self, now: float) -> None:
        """Compression: each reservation, in arrival order, is taken out and put back at the
        earliest time it fits given all the others, and kept if nothing earlier is found. A job
        for which the profile has too few free processors at every time before its reservation
        cannot move and is not searched; nor is a job for which nothing was freed, since its last
        search, over a time its start could move to (:meth:`_fresh`)."""
        info, reservations, stamps, profile = self._info, self.reservations, self._stamp, self._profile
        self._rebuilt = False
        for job in self._waiting.values():
            jid = job.id
            prev = reservations.get(jid)
            if prev is None or prev.start <= now:
                continue
            fresh = self._fresh(jid, now, prev.start)
            until = prev.start if fresh is None else min(prev.start, fresh[1])
            n, est, _ = info[jid]
            if profile.peak(now, until) < n:
                if fresh is not None:
                    stamps[jid] = self._base + len(self._freed)
                continue
            # an earlier start, looked for with the job's own reservation (from prev.start on) left
            # out; if there is none it stays where it is (an early end and earlier moves only freed
            # room, they never took its). The counts are asked here first: most searches end there
            t = profile.first(n, est, now, prev.start, n, until)
            if t is None:
                stamps[jid] = self._base + len(self._freed)
                continue
            new = self._find(job, now, prev.start, mine=True, fresh=None if fresh is None else fresh[0], until=until,
                             first=t)
            if new is not None:
                self._unreserve(jid)
                self._moved(job, prev, new)
            else:
                stamps[jid] = self._base + len(self._freed)

    def _fresh(self, jid: int, now: float, limit: float) -> tuple[list[tuple[float, float, int]], float] | None:
        """What was freed since the job's last search (which found no start before ``limit``,
        given everything else) over a time a start in ``[now, limit)`` would use: ``(from, until,
        node bits)``, with ``from`` moved back by the job's estimate (a start at ``t`` uses
        ``[t, t + estimate)``, so only a start in ``[from - estimate, until)`` can use it), and the
        latest ``until`` (``now`` if none). Nothing else that changed since can make an earlier
        start possible (reservations, launches and the passing of time only take room: a start at
        a later ``now`` that is no breakpoint is possible only if one at the breakpoint before
        was), so an empty list means the search would find nothing. ``None``: no log to go by
        (search everything)."""
        if not self._skip or self._counting:  # counting: the profile search is cheaper than the log
            return None
        stamp = self._stamp.get(jid)
        if stamp is None:
            return None
        d = self._info[jid][1]
        out = []
        last = now
        for a, b, bits in self._freed[stamp - self._base:]:
            if b > now and a - d < limit:
                out.append((a - d, b, bits))
                if b > last:
                    last = b
        return out, last

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
            t = self._profile.first(n, est, now, limit, n if mine else 0) if first is None else first
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

    def _find_nodes(self, job: Job, now: float, limit: float, mine: bool = False,
                    fresh: list[tuple[float, float, int]] | None = None,
                    until: float = math.inf, first: float | None = None, request: Any = None) -> Reservation | None:
        n, est, _ = self._info[job.id]
        profile, alloc, ends, nofit = self._profile, self.allocator, self._ends, self._nofit
        own = self._bits.get(job.id, 0) if mine else 0
        lift = n if mine else 0
        if request is None:
            request = job.request
        # the times the counts allow, ascending (FreeProfile.starts, without the generator: most
        # searches try one)
        t = profile.first(n, est, now, limit, lift, until) if first is None else first
        while t is not None:
            while True:  # one try at t; break: no reservation starts at t
                if fresh is not None:
                    gained = 0  # the nodes freed since the last search over [t, t + est)
                    for a, b, bits in fresh:
                        if a <= t < b:
                            gained |= bits
                    if not gained:
                        break
                if t != now and not profile.rises(t):
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
            t = profile.first_after(t, n, est, limit, lift, until)
        if min(limit, until) == math.inf:
            raise RuntimeError(f"job {job.id} ({job.request!r}) found no reservation (allocator {self.allocator!r})")
        return None

    # -- starting -----------------------------------------------------------------------------------
    def _start_due(self, now: float) -> list[Action]:
        actions: list[Action] = []
        alloc = self.allocator
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
                    others = self._profile.held_over(now, now + est) & ~self._bits.get(job.id, 0)
                    got = alloc.allocate_avoiding(request, _from_bits(others, alloc.size))
                    if got is None:
                        got = self._allocate_exactly(alloc, request, res.nodes)
            if got is None:
                self._blocked.append(job.id)
                if self._ends and self._ends[0][0] <= now:
                    self._held_up = True  # a job that should have ended may hold what it needs
                continue
            del self.reservations[job.id]
            del self._waiting[job.id]
            self._stamp.pop(job.id, None)
            bits = self._bits.pop(job.id, 0)
            if bits:
                left = bits & ~self._bits_of(got)
                if left:  # placed elsewhere: the reserved nodes it does not use are free again
                    self._freed.append((res.start, res.end, left))
            if res.start != now or bits:  # the reservation goes, the running job (its nodes: ready) comes
                self._profile.change(res.start, res.end, n, bits)
                self._profile.change(now, now + est, -n)
            actions.append(self._launch(job, got, now))
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
    from .registry import register

    register("EASY", EASY, help="FCFS with EASY backfilling: a reservation for the head (seed 004 §2.2)")
    register("Conservative", Conservative, help="FCFS with conservative backfilling: a reservation for every job")


_register()

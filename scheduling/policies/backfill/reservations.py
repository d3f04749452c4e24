"""What EASY and Conservative share: reservations, the running jobs in order of expected end, the
nodes' expected free times, and the head's reservation (:meth:`_Backfilling.reservation`).

The representation of a reservation and the rules both policies follow are described in the
package docstring (:mod:`scheduling.policies.backfill`).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from topoalloc import Allocation, Allocator
from topologies import Mesh, Submesh

from ...kernel.actions import Action, Start
from ...kernel.jobs import Job
from ..base import Policy
from ..waits import SwitchesWait

__all__ = ["Reservation", "clone_allocator"]


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
    _nodes: np.ndarray | None
    _ids: np.ndarray | None
    _size: int

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
        res = object.__new__(cls)  # the slots set directly (no __init__: half the calls)
        _res_job(res, job)
        _res_start(res, start)
        _res_end(res, end)
        _res_extra(res, -1)
        _res_nodes(res, None)
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


# The slot descriptors' setters, taken from the class namespace (``Reservation.job`` reads as the
# annotated instance type to a type checker, not as the descriptor it is at run time).
_slot = Reservation.__dict__
_res_job, _res_start, _res_end = _slot["job"].__set__, _slot["start"].__set__, _slot["end"].__set__
_res_extra, _res_nodes = _slot["extra"].__set__, _slot["_nodes"].__set__
_res_ids, _res_size = _slot["_ids"].__set__, _slot["_size"].__set__
del _slot


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
    """``(y, y_end, x, x_end)`` when the ascending, unique node ids ``ids``, laid out in rows
    ``width`` nodes wide (node ``(x, y)``: id ``y * width + x``; one row for a machine that is no
    mesh), are exactly the rectangle of rows ``y .. y_end - 1`` and columns ``x .. x_end - 1``;
    else ``None``. The ids must be as many as the rectangle bounded by the first and the last, and,
    cut into chunks of one rectangle row each, every chunk must start and end where that row of the
    rectangle does (then its ids, ascending and unique, are the whole row; a rectangle of one row
    or of whole rows needs no more). Two strided reads of ``y_end - y`` ids each rather than a
    column for every id and two reductions (measured alone on a 25 x 20 rectangle of a 32-wide
    mesh: 6 us against 9 us). O(y_end - y) plus the two strided copies.

    >>> ids = np.arange(64).reshape(8, 8)[2:5, 1:4].ravel()
    >>> _ids_box(ids, 8), _ids_box(np.array([9, 10, 11, 17, 18, 19, 25, 26, 28]), 8)
    ((2, 5, 1, 4), None)
    """
    n = len(ids)
    if not n:
        return None
    y, x = divmod(int(ids[0]), width)
    y_end, x_end = divmod(int(ids[n - 1]), width)
    y_end += 1
    x_end += 1
    cols = x_end - x
    if cols <= 0 or cols * (y_end - y) != n:
        return None
    if y_end - y > 1 and cols < width:
        first, stop = y * width + x, y_end * width
        if ids[::cols].tolist() != list(range(first, stop, width)) or \
                ids[cols - 1 :: cols].tolist() != list(range(first + cols - 1, stop, width)):
            return None
    return y, y_end, x, x_end


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """The number of nodes two rectangles ``(y, y_end, x, x_end)`` share."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[2], b[2]))


def _mask_of(res: Reservation) -> np.ndarray:
    """The node mask of a reservation on node sets (:attr:`Reservation.nodes`, never ``None``
    there); raises :class:`ValueError` for a count."""
    nodes = res.nodes
    if nodes is None:
        raise ValueError(f"reservation of job {res.job.id} is a processor count, not a node set")
    return nodes


def _ids_to_bits(ids: np.ndarray, res: Reservation) -> int:
    """Ascending node ids (those of reservation ``res``) as the bits of an integer: a shifted run
    of ones when the ids are consecutive, else from the reservation's mask."""
    span = _ids_span(ids)
    return _to_bits(_mask_of(res)) if span is None else _run_bits(*span)


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
            if isinstance(topology, Mesh) and topology.ndim == 2 and topology.size == allocator.size:
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
        ready = self._ready
        assert ready is not None  # node sets only (bound to an allocator that is not counting)
        return ready

    def _set_ready(self, alloc: Allocation, t: float) -> None:
        """Mark a grant's nodes expected free from ``t`` (a slice where it is a rectangle; a 1-D
        slice on one row)."""
        ready, grid = self._ready, self._grid
        assert ready is not None and grid is not None  # node sets only
        box = self._box_of(alloc)
        if box is None:
            ready[alloc.nodes] = t
        elif self._row:
            ready[box[2] : box[3]] = t
        else:
            grid[box[0] : box[1], box[2] : box[3]] = t

    def _ordered_running(self, now: float) -> Iterator[tuple[float, _Held]]:
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

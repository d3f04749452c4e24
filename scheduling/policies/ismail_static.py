"""Ismail's topology-independent *static* space sharing policies (seed 000).

I. M. Ismail, *Space Sharing Job Scheduling Policies for Parallel Computers*, PhD thesis, Iowa State
University, 1995: no folding (§2.2.1, §2.4), unlimited folding (§2.2.2, §2.4) and adaptive limited
folding (§3.2, §3.4), on ``P`` interchangeable processors (a :class:`~topologies.Flat` machine and
its :class:`~topoalloc.FlatPool`). A job asks for ``n`` processors; a policy that *folds* it starts
it on ``m < n`` (folding factor ``n / m``) and the simulator stretches its run time by its speedup
model (``Start.processors = m``, ``Start.reference = n``). A job's allocation never changes once it
has started. ``FCFS`` is the registry's :class:`~scheduling.policies.FCFS`.

Every policy keeps its waiting jobs in one order (FIFO, by size, by total demand ``n·t(n)``, by
``t(n)``) and runs one *allocation scan* per arrival and per departure. A first-fit scan starts, in
that order, every job that qualifies; since the free count ``FP`` only falls during a scan, this
equals "repeatedly start the first qualifying job", which the waiting set answers with one heap per
distinct request size: O(number of distinct sizes) per job started, independent of the queue length.

Interpretations (the thesis is silent or ambiguous; see also each class):

* Ties in an order (equal sizes, equal ``t(n)``) go to the earlier arrival.
* ``t(n)`` for the policies that know it (§2.4, §3.4) is ``job.estimate`` if given, else
  ``job.runtime`` (the thesis assumes it known exactly).
* ``Start.folds`` is 1 for a folded job (``m < n``), else 0: Ismail folds by a factor, once.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math

from topoalloc import Allocation, Allocator, FlatPool

from .._validate import check_bool, check_real
from ..kernel.actions import Action, Start
from ..kernel.jobs import Job
from .base import Policy
from .registry import register

__all__ = [
    "ORDERS",
    "IsmailStatic",
    "FirstFitQueue",
    "UnlimitedFolding",
    "EPFP",
    "AdaptiveFolding",
    "fold_evenly",
]

#: Queue orders: name -> what is sorted ascending (ties by arrival).
ORDERS = {
    "fifo": "arrival",
    "decreasing_size": "-n",
    "increasing_size": "n",
    "total_demand": "n * t(n)",
    "shortest": "t(n)",
    "longest": "-t(n)",
}


def _known_time(job: Job) -> float:
    return job.estimate if job.estimate is not None else job.runtime


class _Waiting:
    """Waiting jobs in a priority order, bucketed by request size so that "the first job in order
    whose request is at most ``limit``" costs O(distinct sizes <= limit)."""

    __slots__ = ("order", "_buckets", "_sizes", "_seq", "_len")

    def __init__(self, order: str) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown queue order {order!r}; known: {', '.join(ORDERS)}")
        self.order = order
        self._buckets: dict[int, list] = {}
        self._sizes: list[int] = []  # sorted sizes with a non-empty bucket
        self._seq = itertools.count()
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def _key(self, job: Job, n: int) -> float:
        o = self.order
        if o == "fifo":
            return 0.0
        if o == "decreasing_size":
            return -n
        if o == "increasing_size":
            return n
        t = _known_time(job)
        if o == "total_demand":
            return n * t
        if o == "shortest":
            return t
        return -t  # longest

    def push(self, job: Job, n: int) -> None:
        bucket = self._buckets.get(n)
        if bucket is None:
            bucket = self._buckets[n] = []
            bisect.insort(self._sizes, n)
        heapq.heappush(bucket, (self._key(job, n), next(self._seq), job))
        self._len += 1

    def first(self, limit: float = math.inf) -> int | None:
        """The request size of the first job in order whose request is at most ``limit``."""
        sizes = self._sizes
        stop = len(sizes) if limit == math.inf else bisect.bisect_right(sizes, limit)
        best = None
        best_size = None
        buckets = self._buckets
        for i in range(stop):
            s = sizes[i]
            head = buckets[s][0]
            if best is None or head < best:
                best, best_size = head, s
        return best_size

    def pop(self, size: int) -> Job:
        """Remove and return the first job of request ``size``."""
        bucket = self._buckets[size]
        job = heapq.heappop(bucket)[2]
        if not bucket:
            del self._buckets[size]
            self._sizes.pop(bisect.bisect_left(self._sizes, size))
        self._len -= 1
        return job


class IsmailStatic(Policy):
    """Base class of the static policies of seed 000 on a :class:`~topoalloc.FlatPool`.

    Keeps the waiting set, the running allocations, the total request ``P_d`` of the jobs in the
    system and ``N_r`` of the running ones; subclasses implement :meth:`_scan` (one allocation
    scan, returning the jobs started). Cost of an event: the scan's (see each class) plus one
    O(P) ``FlatPool.allocate`` per job started.
    """

    name = "IsmailStatic"

    def __init__(self, order: str = "fifo") -> None:
        super().__init__()
        self.waiting = _Waiting(order)
        self.running: dict[int, tuple[Allocation, int, int]] = {}  # id -> (allocation, n, m)
        self.demand = 0  # P_d: processors requested by the jobs in the system
        self.running_request = 0  # N_r: processors requested by the running jobs
        self.P = 0

    @property
    def order(self) -> str:
        return self.waiting.order

    def bind(self, allocator: Allocator) -> None:
        if not isinstance(allocator, FlatPool):
            raise TypeError(f"{self.name} is topology-independent and needs a FlatPool, got {allocator!r}")
        super().bind(allocator)
        self.P = allocator.size

    def _admit(self, job: Job) -> int:
        n = self.reference_size(job)  # FlatPool raises RequestSizeError for n > P
        self.demand += n
        return n

    def on_arrival(self, job: Job, now: float) -> None:
        self.waiting.push(job, self._admit(job))

    def on_finish(self, job: Job, now: float) -> None:
        got = self.running.pop(job.id, None)
        if got is None:
            raise ValueError(f"{self.name}: job {job.id} finished but is not running under this policy")
        alloc, n, _ = got
        self.allocator.release(alloc)
        self.demand -= n
        self.running_request -= n

    def decide(self, now: float) -> list[Action]:
        """One allocation scan (the thesis scans at every arrival and departure; here once per
        instant, after all of its events)."""
        return self._scan(now)

    def _scan(self, now: float) -> list[Action]:
        raise NotImplementedError

    def _launch(self, job: Job, n: int, m: int) -> Start:
        alloc = self.allocator.allocate(m)
        if alloc is None:  # pragma: no cover - the scans never ask for more than FP
            raise RuntimeError(f"{self.name}: {m} processors requested with {self.allocator.free} free")
        self.running[job.id] = (alloc, n, m)
        self.running_request += n
        return self.start(job, alloc, folds=1 if m < n else 0)

    def _first_fit(self, started: list[Action]) -> None:
        """Start, in queue order, every waiting job that fits unfolded in the free processors."""
        waiting = self.waiting
        alloc = self.allocator
        while waiting:
            fp = alloc.free
            if fp == 0:
                return
            size = waiting.first(fp)
            if size is None:
                return
            started.append(self._launch(waiting.pop(size), size, size))


# -- no folding (§2.2.1, §2.4) --------------------------------------------------------------------
class FirstFitQueue(IsmailStatic):
    """No folding first-fit policies (seed 000 §2.2.1, §2.4): at every arrival and departure the
    waiting queue is scanned in its order and every job whose request ``n`` does not exceed the
    free processors ``FP`` is started on ``n``; the scan goes on until ``FP = 0`` or the queue ends.

    * ``FF``: FIFO order ("a new application waits at the tail of the queue if FP < n").
    * ``FFDS``: non-increasing ``n``; ``FFIS``: non-decreasing ``n``.
    * ``FFITD``: non-decreasing total demand ``n·t(n)`` (§2.4, ``t(n)`` known).

    Cost: O(S) per job started and per scan, S the number of distinct waiting sizes (<= P).

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> p = FirstFitQueue("fifo"); p.bind(FlatPool(Flat(8)))
    >>> p.on_arrival(Job(0, 0.0, 6, 1.0), 0.0); [a.processors for a in p.decide(0.0)]
    [6]
    >>> p.on_arrival(Job(1, 1.0, 4, 1.0), 1.0); p.on_arrival(Job(2, 1.0, 2, 1.0), 1.0)
    >>> [(a.job.id, a.processors) for a in p.decide(1.0)]   # job 1 does not fit; job 2 does
    [(2, 2)]
    """

    _NAMES = {"fifo": "FF", "decreasing_size": "FFDS", "increasing_size": "FFIS", "total_demand": "FFITD"}

    def __init__(self, order: str = "fifo") -> None:
        super().__init__(order)
        self.name = self._NAMES.get(order, f"FirstFitQueue({order})")

    def _scan(self, now: float) -> list[Action]:
        started: list[Action] = []
        self._first_fit(started)
        return started


# -- unlimited folding (§2.2.2, §2.4) -------------------------------------------------------------
class UnlimitedFolding(IsmailStatic):
    """Unlimited folding (seed 000 §2.2.2, §2.4): a job may run on any ``1 <= m <= n`` processors.

    With ``first_fit=True`` (``FF+FIFO``, ``FFDS+FIFO``, ``FFIS+FIFO``): "at a job completion, the
    corresponding no folding algorithm is run. If processors are still free they are allocated to
    the head of the waiting queue" (``min(n, FP)`` of them); an arriving job gets ``min(n, FP)`` if
    ``FP > 0``. Without it (``FCFSUF``; ``STDFUF``, ``SHJFUF``, ``LOJFUF`` of §2.4): "the head of
    the queue waits until there is one or more free processor. When serviced, it is allocated
    ``min(n, FP)``" — heads are served in order while processors are free.

    One scan does both cases: the first-fit pass (if any), then heads get ``min(n, FP)`` while
    ``FP > 0``. After a scan either the queue is empty or ``FP = 0``, so an arrival finding ``FP >
    0`` finds an empty queue and gets ``min(n, FP)``, as the thesis says.

    Interpretation: "the head of the waiting queue" is the head in the policy's own order (the
    largest waiting job under ``FFDS+FIFO``, the smallest under ``FFIS+FIFO``), not the oldest job.
    This matches the thesis' observations that ``FFDS+FIFO`` folds most and ``FFIS+FIFO`` least
    (§2.3.2.2, Fig. 2.8); for ``FF+FIFO`` both readings coincide.

    Cost: O(S) per job started, S distinct waiting sizes.
    """

    _NAMES = {
        ("fifo", True): "FF+FIFO",
        ("decreasing_size", True): "FFDS+FIFO",
        ("increasing_size", True): "FFIS+FIFO",
        ("fifo", False): "FCFSUF",
        ("total_demand", False): "STDFUF",
        ("shortest", False): "SHJFUF",
        ("longest", False): "LOJFUF",
    }

    def __init__(self, order: str = "fifo", first_fit: bool = False) -> None:
        super().__init__(order)
        self.first_fit = check_bool(first_fit, "first_fit")
        self.name = self._NAMES.get((order, self.first_fit), f"UnlimitedFolding({order}, first_fit={first_fit})")

    def _scan(self, now: float) -> list[Action]:
        started: list[Action] = []
        if self.first_fit:
            self._first_fit(started)
        waiting, alloc = self.waiting, self.allocator
        while waiting and alloc.free > 0:
            size = waiting.first()
            assert size is not None  # the queue is not empty
            started.append(self._launch(waiting.pop(size), size, min(size, alloc.free)))
        return started


def fold_evenly(requests: list[int], free: int) -> list[int]:
    """EPFP's division of ``free`` processors among waiting jobs (seed 000 §2.2.2), in arrival
    order: as evenly as possible, no job above its request ``n`` (what a capped job does not use is
    shared among the others), "the excess processors are allocated to the earliest arrivals, one to
    each". Jobs beyond the first ``free`` get nothing. O(k²) worst case for k = min(len, free).

    >>> fold_evenly([10, 2, 10], 9), fold_evenly([5, 5, 5], 2)
    ([4, 2, 3], [1, 1, 0])
    """
    k = min(len(requests), free)
    out = [0] * len(requests)
    active = list(range(k))
    remaining = free
    while active:
        share = remaining // len(active)
        capped = [i for i in active if requests[i] <= share]
        if not capped:
            break
        for i in capped:
            out[i] = requests[i]
            remaining -= requests[i]
        active = [i for i in active if requests[i] > share]
    if active:
        share, extra = divmod(remaining, len(active))
        for rank, i in enumerate(active):
            out[i] = share + (1 if rank < extra else 0)
    return out


class EPFP(IsmailStatic):
    """Even Partitioning of Free Processors (seed 000 §2.2.2; the OCR once spells it "EPPF").

    FIFO queue. A new job gets ``min(n, FP)`` processors if ``FP > 0``, else waits. At a
    completion the free processors are "divided as evenly as possible among the waiting
    applications", the excess going to the earliest arrivals, one to each: the maximum number of
    waiting jobs is serviced (eager servicing, after Zahorjan & McCann). See :func:`fold_evenly`
    for the division (interpretation: a job never gets more than its request; the rest is shared
    among the others). Every waiting job that gets at least one processor starts.

    Cost: O(k²) per scan for the k = min(queue, FP) earliest jobs (k <= P).
    """

    name = "EPFP"

    def __init__(self) -> None:
        super().__init__("fifo")
        self._fifo: list[tuple[Job, int]] = []  # FIFO, consumed from the front by index
        self._front = 0

    def on_arrival(self, job: Job, now: float) -> None:
        self._fifo.append((job, self._admit(job)))

    def _scan(self, now: float) -> list[Action]:
        fp = self.allocator.free
        q = self._fifo
        lo = self._front
        k = min(len(q) - lo, fp)
        if k <= 0:
            return []
        head = q[lo:lo + k]
        shares = fold_evenly([n for _, n in head], fp)
        started: list[Action] = [self._launch(job, n, m) for (job, n), m in zip(head, shares, strict=True) if m > 0]
        self._front = lo + len(started)  # the earliest ones are served first, so a prefix starts
        if self._front > 4096 and self._front * 2 > len(q):
            del q[:self._front]
            self._front = 0
        return started


# -- adaptive limited folding (§3.2, §3.4) --------------------------------------------------------
def _apportion(requests: list[int], free: int) -> list[int]:
    """MFFF's allocations: each selected job gets about ``n / FF_act`` with ``FF_act = x / FP``
    (``x`` the total request), as integers in ``[1, n]`` that sum to ``FP`` (largest remainders;
    ties to the earlier job in the scan). ``len(requests) <= free`` is required."""
    x = sum(requests)
    if x <= free:
        return list(requests)
    quota = [n * free / x for n in requests]
    out = [max(1, min(n, math.floor(q))) for n, q in zip(requests, quota, strict=True)]
    diff = free - sum(out)
    if diff > 0:
        order = sorted(range(len(out)), key=lambda i: (-(quota[i] - out[i]), i))
        while diff > 0:
            for i in order:
                if diff == 0:
                    break
                if out[i] < requests[i]:
                    out[i] += 1
                    diff -= 1
    elif diff < 0:
        order = sorted(range(len(out)), key=lambda i: (quota[i] - out[i], -i))
        while diff < 0:
            for i in order:
                if diff == 0:
                    break
                if out[i] > 1:
                    out[i] -= 1
                    diff += 1
    return out


_EPS = 1e-9


class AdaptiveFolding(IsmailStatic):
    """Adaptive limited folding (seed 000 §3.2, §3.4): a job waits until it can get at least a
    fraction ``1 / FF_max`` of its request, ``FF_max`` the maximum folding factor.

    ``ffmax``: ``"f1max"`` (the thesis' results), ``"f2max"`` or a fixed number >= 1 (§3.3.2.2,
    Figs. 3.15-3.16; ``FF_max = 1`` is no folding, ``FF_max >= P`` unlimited folding). Computed once
    per scan, i.e. per arrival and per departure (§3.2, "there is an allocation scan per job arrival
    or departure"):

    * ``f1max = ceil(P_d / P)``, ``P_d`` the total request of the jobs in the system (running and
      waiting, the arriving one included, the departing one excluded);
    * ``f2max = f1max - (1 - r) N_r / P_u`` with ``N_r`` the total request of the running jobs,
      ``P_u`` the busy processors (the term is 0 when none is busy) and ``r`` the expected residual
      life ratio of the run times (:func:`~scheduling.workloads.ismail.residual_life_ratio`; 2/3,
      the thesis' uniform value, by default). Interpretation: clamped to at least 1.

    ``kind`` selects the allocation scan:

    * ``"fcfs"`` (``FFCFS``): the head of the FIFO queue gets ``min(FP, n)`` if ``FP >=
      ceil(n / FF_max)``, repeated while heads qualify.
    * ``"first_fit"`` (``FFF`` FIFO, ``FSJF`` non-decreasing ``n``): every job in order with
      ``ceil(n / FF_max) <= FP`` gets ``min(FP, n)``.
    * ``"multi"`` (``MFFF`` FIFO, ``MFSJF`` by ``n``, ``MFSTDF`` by ``n·t(n)``, ``MFSHJF`` by
      ``t(n)``, ``MFLOJF`` by ``-t(n)``): a job is selected if ``(x + n) / FP <= FF_max``, ``x`` the
      requests selected so far; the selected jobs are folded by ``FF_act = x / FP`` and each gets
      about ``n / FF_act`` processors. Interpretations: ``FF_act`` is at least 1 (a job never gets
      more than ``n``); the allocations are rounded by largest remainders to integers in ``[1, n]``
      summing to ``FP``; at most ``FP`` jobs are selected (each needs one processor).

    Cost: O(S) per job started or selected (S distinct waiting sizes) plus O(k log k) to apportion
    k selected jobs.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> p = AdaptiveFolding("fifo", "multi", 1.5); p.bind(FlatPool(Flat(8)))
    >>> p.on_arrival(Job(0, 0.0, 8, 1.0), 0.0); _ = p.decide(0.0)   # takes the machine
    >>> p.on_arrival(Job(1, 0.5, 6, 1.0), 0.5); p.on_arrival(Job(2, 0.5, 6, 1.0), 0.5); p.decide(0.5)
    []
    >>> p.on_finish(Job(0, 0.0, 8, 1.0), 1.0)
    >>> [(a.job.id, a.processors) for a in p.decide(1.0)]  # x = 12 <= 1.5 * 8
    [(1, 4), (2, 4)]
    """

    _NAMES = {
        ("fifo", "fcfs"): "FFCFS",
        ("fifo", "first_fit"): "FFF",
        ("increasing_size", "first_fit"): "FSJF",
        ("fifo", "multi"): "MFFF",
        ("increasing_size", "multi"): "MFSJF",
        ("total_demand", "multi"): "MFSTDF",
        ("shortest", "multi"): "MFSHJF",
        ("longest", "multi"): "MFLOJF",
    }
    KINDS = ("fcfs", "first_fit", "multi")

    def __init__(self, order: str = "fifo", kind: str = "first_fit", ffmax: str | float = "f1max",
                 r: float = 2 / 3) -> None:
        super().__init__(order)
        if kind not in self.KINDS:
            raise ValueError(f"kind must be one of {self.KINDS}, got {kind!r}")
        if kind == "fcfs" and order != "fifo":
            raise ValueError(f"the fcfs scan serves the FIFO head; order must be 'fifo', got {order!r}")
        if isinstance(ffmax, str):
            if ffmax not in ("f1max", "f2max"):
                raise ValueError(f"ffmax must be 'f1max', 'f2max' or a number >= 1, got {ffmax!r}")
        else:
            check_real(ffmax, "a fixed ffmax (FF_max)", low=1)
        check_real(r, "r (residual life ratio)", low=0, high=1)
        self.kind = kind
        self.ffmax = ffmax
        self.r = float(r)
        base = self._NAMES.get((order, kind), f"AdaptiveFolding({order}, {kind})")
        if ffmax == "f1max":
            self.name = base
        elif ffmax == "f2max":
            self.name = f"{base}-f2max"
        else:
            self.name = f"{base}-fixed-{ffmax:g}"
        #: FF_max used by the last scan (for inspection and tests).
        self.last_ffmax = 1.0

    def max_folding_factor(self) -> float:
        """``FF_max`` for a scan now (see the class docstring)."""
        if not isinstance(self.ffmax, str):
            return float(self.ffmax)
        f1 = max(1, math.ceil(self.demand / self.P))
        if self.ffmax == "f1max":
            return float(f1)
        busy = self.P - self.allocator.free
        term = (1.0 - self.r) * self.running_request / busy if busy > 0 else 0.0
        return max(1.0, f1 - term)

    def _scan(self, now: float) -> list[Action]:
        started: list[Action] = []
        waiting, alloc = self.waiting, self.allocator
        if not waiting or alloc.free == 0:
            return started
        F = self.max_folding_factor()  # noqa: N806
        self.last_ffmax = F
        if self.kind == "fcfs":
            while waiting and alloc.free > 0:
                fp = alloc.free
                size = waiting.first()
                assert size is not None  # the queue is not empty
                if size > F * fp + _EPS:  # ceil(n / F) > FP
                    break
                started.append(self._launch(waiting.pop(size), size, min(size, fp)))
        elif self.kind == "first_fit":
            while waiting and alloc.free > 0:
                fp = alloc.free
                size = waiting.first(math.floor(F * fp + _EPS))
                if size is None:
                    break
                started.append(self._launch(waiting.pop(size), size, min(size, fp)))
        else:
            fp = alloc.free
            budget = math.floor(F * fp + _EPS)
            chosen: list[tuple[Job, int]] = []
            x = 0
            while waiting and len(chosen) < fp:
                size = waiting.first(budget - x)
                if size is None:
                    break
                chosen.append((waiting.pop(size), size))
                x += size
            shares = _apportion([n for _, n in chosen], fp)
            started.extend(self._launch(job, n, m) for (job, n), m in zip(chosen, shares, strict=True))
        return started


# -- registry -------------------------------------------------------------------------------------
#: What these policies need to run (the registry's ``needs``; ``topoalloc list`` shows it).
_NEEDS = "FlatPool (a flat machine; processor-count requests)"


def _register() -> None:
    for order, name in FirstFitQueue._NAMES.items():
        register(name, lambda o=order: FirstFitQueue(o), help=f"no folding first fit, queue by {ORDERS[order]} "
                 f"(seed 000 §{'2.4' if order == 'total_demand' else '2.2.1'})", needs=_NEEDS)
    for (order, ff), name in UnlimitedFolding._NAMES.items():
        section = "2.4" if order in ("total_demand", "shortest", "longest") else "2.2.2"
        register(name, lambda o=order, f=ff: UnlimitedFolding(o, f),
                 help=f"unlimited folding, queue by {ORDERS[order]}{', first fit first' if ff else ''} "
                      f"(seed 000 §{section})", needs=_NEEDS)
    register("EPFP", lambda: EPFP(), help="even partitioning of free processors, eager (seed 000 §2.2.2)", needs=_NEEDS)
    for (order, kind), name in AdaptiveFolding._NAMES.items():
        section = "3.4" if order in ("total_demand", "shortest", "longest") else "3.2"
        what = f"adaptive limited folding ({kind} scan, queue by {ORDERS[order]}) (seed 000 §{section})"
        register(name, lambda o=order, k=kind: AdaptiveFolding(o, k, "f1max"), help=f"{what}, FF_max = f1max",
                 needs=_NEEDS)
        register(f"{name}-f2max", lambda o=order, k=kind: AdaptiveFolding(o, k, "f2max"),
                 help=f"{what}, FF_max = f2max with r = 2/3", needs=_NEEDS)
        register(f"{name}-fixed", lambda x, o=order, k=kind: AdaptiveFolding(o, k, x), param="float",
                 help=f"{what}, fixed FF_max = the number", needs=_NEEDS)


_register()

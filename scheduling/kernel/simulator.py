"""The discrete-event simulator every policy runs on.

A heap of ``(time, kind, seq, payload)`` events. **One decision per instant**: all events of one
time stamp are delivered to the policy first -- completions, then timers, then arrivals; within a
kind, the order they were scheduled (``seq``) -- and then the policy's ``decide(now)`` is called
once (the contract is :class:`~scheduling.policies.Policy`'s). So two jobs ending at the same
second free their processors together before anything is scheduled, a job arriving at the instant
another finishes sees the freed processors, the outcome never depends on the order simultaneous
events were popped, and the same inputs give the same schedule, byte for byte. Events that
``decide`` creates at the same instant (a zero-length job's end, a timer for ``now``) make a new
round at that instant. A job occupies its processors over ``[start, end)``.

**Job progress is a rate.** A running job holds ``work`` (the fraction of it left at time ``t0``)
and a ``rate`` (``1 / job.time_on(processors, reference)``). A start, resize, suspend or resume
re-predicts that job's completion and bumps its version; a completion event whose version is stale
is skipped when popped, never searched for. A ``delay`` (set-up, reconfiguration overhead,
context switch) moves ``t0`` into the future: no progress until then. Only the jobs an action names
are re-predicted, so a dynamic policy that changes a few rates pays for those few.

**Blocked by topology.** Over every interval between instants the simulator asks whether the job
at the head of the queue waits although as many processors as it asks for are free
(``allocator.free`` at least its reference size): no placement satisfies its constraint or the
allocator's rule -- external fragmentation on a mesh or a cube, a switch tree whose free nodes lie
in the wrong racks. The head is the policy's ``queue_head()`` if it has one -- the job it would
start next if a placement existed, ``None`` when that job waits for something else (Conservative's
reservation, a recorded start time) -- else the oldest job that has arrived and not started. The
result holds the total time (within the measurement window) and the number of such episodes
(:attr:`SimulationResult.blocked_time`, ``summary()["blocked_by_topology"]``,
``"blocked_fraction"``, ``"blocked_episodes"``). The state over an interval is the state after the
last decision before it, so a head that backfilling leaves with too few free processors is not
counted.

**Switch trees.** On a :class:`~topologies.SwitchTree` the table gains ``leaf_switches`` (leaf
switches a job's nodes touch) and ``relaxed`` (its request waited for its leaf switches, Slurm's
``--switches=N@T``, and it started with the constraint dropped: the granted request has no
``switches``). A job whose request waits a limited time for its switches runs only under a policy
that implements the wait (``switches_wait``: FCFS and its folding rules, EASY, Conservative), and a
job whose request the allocator cannot place even on the empty machine is refused when it arrives
(:class:`UnplaceableRequestError`) instead of blocking the queue for ever.

**Runaway backlog.** On an endless workload (:func:`is_endless`) the run stops, with a
:class:`RunawayBacklogWarning`, as soon as more than ``RUNAWAY_QUEUE + warmup + RUNAWAY_FACTOR x
completions`` jobs wait to start: arrivals outpace completions more than tenfold (an absurd offered
load such as ``load=1e9``), so the requested completions would need an unbounded queue (time and
memory growing with every arrival) and the statistics would measure the run's length anyway. The
result is the run so far: its :attr:`~SimulationResult.backlog` rose by one job per arrival, so
``summary()["saturated"]`` is ``True`` (``backlog_growth`` 1), ``unfinished`` counts the queue, and
the table holds the jobs that finished (often none). A stable run never comes near the bound; a
finite workload (a trace, a list) already holds its jobs and is never stopped.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
import warnings
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from topoalloc import Allocator
from topologies import RequestError, RequestSizeError, RequestTypeError, SwitchTree, TreeRequest

from .._validate import ParameterError, check_bool, check_int, check_real, check_seed
from ..models.speedup import Linear
from ..policies import get as get_policy
from ..policies.base import Policy
from .actions import Resize, Resume, Start, Suspend, Timer
from .jobs import Job
from .result import SimulationResult

__all__ = ["Simulator", "COMPLETION", "TIMER", "ARRIVAL", "UnplaceableRequestError", "RunawayBacklogWarning",
           "RUNAWAY_QUEUE", "RUNAWAY_FACTOR"]

#: Event kinds, in tie-breaking order.
COMPLETION, TIMER, ARRIVAL = 0, 1, 2
#: What a count workload's requests are (:mod:`scheduling.workloads.distributions`); a switch tree
#: takes counts too.
_COUNT_REQUEST = "a processor count"
_MISSING = object()
#: An endless workload's run stops when more than ``RUNAWAY_QUEUE + warmup + RUNAWAY_FACTOR x
#: completions`` jobs wait to start (module docstring, "Runaway backlog").
RUNAWAY_QUEUE = 1000
RUNAWAY_FACTOR = 10


class RunawayBacklogWarning(RuntimeWarning):
    """A run on an endless workload was stopped because its queue ran away (arrivals outpacing
    completions more than :data:`RUNAWAY_FACTOR`-fold); the result is flagged saturated."""


class UnplaceableRequestError(RequestSizeError):
    """A job's request that the allocator cannot place even on the empty machine: it would wait for
    ever (and, on an endless workload, the simulation would never end). The message names the job,
    the request and the allocator; ``job`` and ``request`` hold them."""

    def __init__(self, message: str, job: int | None = None, request: object = None) -> None:
        super().__init__(message)
        self.job = job
        self.request = request


class _Run:
    __slots__ = (
        "job", "ordinal", "alloc", "processors", "reference", "rate", "t0", "work", "version",
        "start", "granted", "folds", "changes", "moved", "suspended", "factor", "leaves", "relaxed",
        "base", "alone", "lost", "dil",
    )
    # one running job's state (set in Simulator.run when it starts; leaves/relaxed on a switch tree
    # only, base/alone/lost/dil under an interacting run-time model only)
    job: Job
    ordinal: int
    alloc: Any
    processors: int
    reference: int
    rate: float
    t0: float
    work: float
    version: int
    start: float
    granted: int
    folds: int
    changes: int
    moved: int
    suspended: bool
    factor: float
    leaves: int
    relaxed: bool
    base: float
    alone: float
    lost: float
    dil: float


def _job_stream(workload: Any, seed: int) -> Iterator[Job]:
    if hasattr(workload, "jobs") and callable(workload.jobs):
        return iter(workload.jobs(seed))
    if isinstance(workload, Iterable):
        return iter(workload)
    raise TypeError(f"a workload must have a jobs(seed) method or be an iterable of Job, got {workload!r}")


def is_endless(workload: Any) -> bool:
    """Whether ``workload`` says it never ends by itself (its ``endless`` attribute:
    :class:`~scheduling.workloads.Synthetic`, an endless :class:`~scheduling.workloads.Downey`, an
    :class:`~scheduling.models.applications.ApplicationMix`). Lists, traces and other iterables are taken
    to be finite."""
    return bool(getattr(workload, "endless", False))


def _workload_name(workload: Any) -> str:
    """How error messages name ``workload`` (never the repr of a long job list)."""
    sizes = getattr(workload, "sizes", None)
    if sizes is not None:
        return f"{type(workload).__name__} with sizes {sizes!r}"
    if isinstance(workload, (list, tuple)):
        return f"the {type(workload).__name__} of {len(workload)} jobs" if len(workload) > 1 else repr(workload)
    text = repr(workload)
    return text if len(text) <= 80 else f"the {type(workload).__name__} workload"


def check_requests(allocator: Allocator, workload: Any, first: Job | None = None) -> None:
    """Refuse, before a simulation starts, a workload whose requests the allocator cannot take
    (mesh sides on a cube, cube dimensions on a flat pool, a processor count on a contiguous mesh
    allocator) or that are larger than the machine, naming both sides.

    The allocator is asked (:meth:`~topoalloc.Allocator.validate`), not its topology, so an
    allocator that takes more kinds of request than its topology names takes them here too: the
    non-contiguous mesh allocators (``accepts_counts``) take processor counts as well as
    ``(w, h)`` pairs. A request the allocator refuses only for its size is then judged against the
    machine (a policy may place requests one allocator call cannot, such as gang scheduling's
    whole-machine class on a DHC forest): it is refused only when it is larger than the machine.

    A workload may say what its requests are (``request_kind``, the phrase its topology uses, e.g.
    ``"a (width, height) pair"``) and how large they get (``max_request``); the synthetic workloads
    do, through their size distributions. Otherwise the ``first`` job's request is checked (later
    jobs of a trace that do not fit still fail when they arrive). O(1) allocator calls.

    >>> from topoalloc import Buddy; from topologies import Hypercube
    >>> from scheduling.workloads import Synthetic, MeshSides, Exponential
    >>> w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.5, machine_size=1024)
    >>> check_requests(Buddy(Hypercube(8)), w)
    Traceback (most recent call last):
    ...
    topologies.errors.RequestTypeError: Synthetic with sizes MeshSides(max_w=32, max_h=32) requests a (width, \
height) pair (up to (32, 32)), but Buddy(Hypercube(dim=8)) takes a subcube dimension k
    >>> from topoalloc.mesh import Random; from topologies import Mesh
    >>> check_requests(Random(Mesh(32, 32)), [Job(0, 0.0, 32, 5.0)], Job(0, 0.0, 32, 5.0))  # a count: taken
    """
    topo = allocator.topology
    takes = getattr(topo, "request_kind", None)
    counts = bool(getattr(allocator, "accepts_counts", False))
    makes = getattr(workload, "request_kind", None)
    largest = getattr(workload, "max_request", None)
    if makes == _COUNT_REQUEST and (isinstance(topo, SwitchTree) or counts):  # a count is this allocator's request
        makes = takes
    if counts and takes is not None and takes != _COUNT_REQUEST:
        takes = f"{takes} or {_COUNT_REQUEST}"
    if makes is not None and takes is not None and makes != takes and not (counts and makes in takes):
        name = _workload_name(workload)
        upto = f" (up to {largest!r})" if largest is not None else ""
        raise RequestTypeError(f"{name} requests {makes}{upto}, but {allocator!r} takes {takes}")
    if largest is not None:
        probe = largest
    elif first is not None:
        probe = first.request
    else:
        return

    def what() -> str:  # the workload is named only when an error is raised
        if largest is not None:
            return f"{_workload_name(workload)} requests up to {largest!r}"
        assert first is not None  # probe is first.request when largest is None
        return f"the first job of {_workload_name(workload)} (id {first.id}) requests {first.request!r}"
    try:
        try:  # the allocator's check: the kinds of request it takes
            allocator.validate(probe)
        except RequestTypeError:
            raise
        except RequestError as refused:  # too large for one allocator call: the machine's size is the limit
            if counts and isinstance(probe, int | np.integer) and not isinstance(probe, bool):
                if int(probe) > topo.size:
                    raise refused from None
            elif getattr(allocator, "rotate", False):
                topo.validate_request(probe, rotate=True)
            else:
                topo.validate_request(probe)
    except RequestTypeError as exc:
        takes = f" takes {takes}" if takes else " cannot take it"
        raise RequestTypeError(f"{what()}, but {allocator!r}{takes}: {exc}") from None
    except RequestError as exc:
        raise RequestSizeError(f"{what()}, larger than the machine of {allocator!r}: {exc}") from None


def _checked_stream(allocator: Allocator, workload: Any, seed: int) -> Iterator[Job]:
    """The job stream, after :func:`check_requests` (with the first job when the workload does
    not say what it requests)."""
    stream = _job_stream(workload, seed)
    if getattr(workload, "max_request", None) is not None:
        check_requests(allocator, workload)
        return stream
    first = next(stream, None)
    check_requests(allocator, workload, first)
    return stream if first is None else itertools.chain((first,), stream)


class Simulator:
    """Run ``policy`` with ``allocator`` on ``workload``.

    ``workload`` is an object with ``jobs(seed) -> iterator of Job`` (the synthetic workloads, a
    trace) or any iterable of :class:`~scheduling.kernel.jobs.Job` in arrival order. ``jobs`` stops the run
    after that many completions (the stream may be endless); ``warmup`` discards the first
    ``warmup`` arrivals from the statistics, and the time-weighted machine state is measured from
    the arrival of the first job kept to the end. ``until`` stops at a simulated time.
    ``record_state`` keeps the step function of busy processors and queue length for plots.

    ``record_placement`` keeps where each kept job ran: ``result.placements`` maps its id to the
    read-only, ascending node ids of its last allocation (``changes`` counts how often the
    allocation changed), and on a mesh or a cube the table gains the per-job locality columns
    ``mean_hops`` and ``components`` (:mod:`topoalloc.locality`). Off by default: keeping the
    grants alive and computing the columns costs time and memory the common case does not need
    (docs/placement.md gives the cost on the 32x32 FCFS run).

    ``record_contention`` (with ``record_placement``'s columns) adds ``max_link_load``: the most
    jobs that ever shared the busiest link of a job's all-to-all routes while it ran, itself
    included (XY routing on a mesh, e-cube on a cube; :func:`topoalloc.locality.job_links`), 1
    when it never shared one. ``record_fragmentation`` records the machine's free space after
    each instant's decision in ``result.state``: ``fragments`` (connected pieces of free nodes)
    and ``largest_free`` (nodes of the largest free submesh or subcube) -- a number instead of
    ``True`` records at most once per that many time units. Both cost O(machine size) per job
    start or per instant: ask for them when you study placement.

    ``runtime_model`` makes a job's run time depend on its placement
    (:mod:`scheduling.models.runtime`: :class:`~scheduling.models.runtime.Dilation`,
    :class:`~scheduling.models.runtime.HopBytes`): the run time the speedup model gives is multiplied by
    ``runtime_model.factor(job, allocation, topology)`` when the job starts and whenever a resize
    gives it a new allocation. ``None`` (the default): placement does not matter, as in the papers
    the library reproduces.

    **Run-time models that re-rate.** A model whose ``interacts`` is true
    (:class:`~scheduling.models.contention.Contention`: jobs slowing each other through shared links)
    is also told when a job starts, ends, is suspended, resumed or moved
    (:class:`~scheduling.models.runtime.RuntimeModel`: ``started``/``ended``), and answers with the
    jobs whose run-time factor changed; the simulator brings each of those jobs' progress up to now
    at its old rate and re-predicts its completion at the new one (a version bump, as for a
    resize), so one start re-rates only the jobs it affects. The table then gains two columns, in
    time units: ``dilation``, the time the job's placement alone cost it against its baseline (the
    model's ``factor``), and ``interference``, the time lost to the other jobs (its run time minus
    the run time it would have had alone on its placement; 0 for a job that never shared a link);
    ``summary()`` reports their means. Over each interval at factor ``F`` with ``A`` the factor
    alone, ``dt (A - 1) / F`` and ``dt (1 - A / F)`` are added. A non-interacting model (or none)
    leaves the table as it was.

    >>> from topoalloc import Buddy; from topologies import Hypercube
    >>> from scheduling.kernel.jobs import Job
    >>> jobs = [Job(0, 0.0, 3, 2.0), Job(1, 0.5, 3, 1.0), Job(2, 1.0, 2, 1.0)]
    >>> r = Simulator(Buddy(Hypercube(3)), "FCFS", jobs).run()
    >>> r.start.tolist(), r.end.tolist()
    ([0.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    """

    def __init__(
        self,
        allocator: Allocator,
        policy: Policy | str,
        workload: Any,
        *,
        jobs: int | None = None,
        warmup: int = 0,
        seed: int = 0,
        until: float | None = None,
        record_state: bool = False,
        record_placement: bool = False,
        runtime_model: Any = None,
        record_contention: bool = False,
        record_fragmentation: bool | float = False,
    ) -> None:
        if not isinstance(allocator, Allocator):
            raise TypeError(f"allocator must be a topoalloc.Allocator, got {allocator!r}")
        if allocator.allocations:
            raise ValueError(f"{allocator!r} already holds {len(allocator.allocations)} allocations; pass a fresh one")
        if jobs is not None:
            jobs = check_int(jobs, "jobs (completions; None: until the workload ends)", low=1)
        warmup = check_int(warmup, "warmup", low=0)
        if jobs is not None and warmup >= jobs:
            raise ParameterError(f"warmup ({warmup}) must be smaller than jobs ({jobs})")
        seed = check_seed(seed)
        if until is not None:
            until = check_real(until, "until (a simulated time)", low=0)
        record_state = check_bool(record_state, "record_state")
        if jobs is None and until is None and is_endless(workload):
            raise ParameterError(
                f"{_workload_name(workload)} is endless: give jobs= (the completions to simulate) or until= "
                "(a simulated time), or the simulation never ends")
        self.allocator = allocator
        self.policy = get_policy(policy) if isinstance(policy, str) else policy
        if not isinstance(self.policy, Policy):
            raise TypeError(f"policy must be a registry name or a Policy, got {policy!r}")
        self.policy.bind(allocator)
        self.workload = workload
        self.jobs = jobs
        self.warmup = warmup
        self.seed = seed
        self.until = until
        self.record_state = record_state
        record_contention = check_bool(record_contention, "record_contention")
        self.record_placement = check_bool(record_placement, "record_placement") or record_contention
        self.record_contention = record_contention
        if not isinstance(record_fragmentation, bool):
            record_fragmentation = check_real(record_fragmentation, "record_fragmentation (True, False or an "
                                              "interval between records)", low=0, low_open=True)
        if (record_contention or record_fragmentation) and not _locality_applies(allocator.topology):
            raise ParameterError(f"record_contention and record_fragmentation need a mesh or a cube, "
                                 f"not {allocator.topology!r}")
        self.record_fragmentation = record_fragmentation
        if runtime_model is not None and not callable(getattr(runtime_model, "factor", None)):
            raise TypeError(f"runtime_model needs a factor(job, allocation, topology) method, got {runtime_model!r}")
        if runtime_model is not None and getattr(runtime_model, "interacts", False):
            runtime_model.check(allocator.topology)  # e.g. contention on a machine without links
        self.runtime_model = runtime_model

    def run(self) -> SimulationResult:
        """Run to the stop condition and return the :class:`SimulationResult`."""
        policy = self.policy
        on_arrival, on_finish, on_timer = policy.on_arrival, policy.on_finish, policy.on_timer
        reference_size = policy.reference_size
        P = self.allocator.size
        stream = _checked_stream(self.allocator, self.workload, self.seed)
        heap: list = []
        push, pop = heapq.heappush, heapq.heappop
        seq = itertools.count().__next__
        running: dict[int, _Run] = {}
        ordinals: dict[int, int] = {}
        refs: dict[int, int] = {}
        warmup, stop_after, until = self.warmup, self.jobs, self.until
        # runaway backlog (module docstring): the queue bound of an endless workload, None for a finite one
        runaway = RUNAWAY_QUEUE + warmup if is_endless(self.workload) else None

        cols: list[tuple] = []
        n_arrived = 0
        n_done = 0
        now = 0.0
        busy = 0  # processors held by jobs that are not suspended
        demand = 0  # reference processors of jobs in the system
        in_system = 0
        queue_len = 0  # jobs arrived and not started
        window_start: float | None = None
        last = 0.0
        busy_int = 0.0
        se_int = 0.0
        se_time = 0.0
        state_t: list[float] = []
        state_busy: list[int] = []
        state_queue: list[int] = []
        record_state = self.record_state
        placed: dict[int, Any] | None = {} if self.record_placement else None
        links = _Links(self.allocator.topology) if self.record_contention else None
        peak: dict[int, int] = {}  # job id -> most jobs on its busiest link while it ran
        frag_every = self.record_fragmentation
        frag_next = -math.inf
        frag_t: list[float] = []
        frag_pieces: list[int] = []
        frag_largest: list[int] = []
        model = self.runtime_model
        topology = self.allocator.topology
        # a model that re-rates running jobs (class docstring): per-job time lost to the others
        acct = model is not None and bool(getattr(model, "interacts", False))
        if acct:
            model.begin(topology)
        backlog: list[int] = []  # jobs in the system as each kept job arrives (saturation evidence)
        # blocked by topology (module docstring): the head waits though its processor count is free
        allocator = self.allocator
        head_of = getattr(policy, "queue_head", None)
        head_of = head_of if callable(head_of) else None
        # an allocator that recognises any free processors (FlatPool, the non-contiguous mesh rules)
        # places every request whose count is free: nothing is ever blocked by the topology
        blocking = getattr(allocator, "recognition", "") != "any"
        # the free count as Allocator.free returns it, read without the property call where it is that
        free_of = operator.attrgetter("_free" if type(allocator).free is Allocator.free else "free")
        waiting: deque[int] = deque()  # ids in arrival order, for policies without queue_head (lazy)
        head_id, head_need = -1, 0  # the oldest waiting job then, and its processors (-1: none known)
        blocked_time = 0.0
        blocked_episodes = 0
        was_blocked = False
        # switch trees: per-job leaf switches and relaxed waits; requests checked when they arrive
        tree = isinstance(topology, SwitchTree)
        on_tree = _TreeJobs(policy, allocator) if tree else None

        def next_arrival() -> None:  # the first arrival (the later ones: inlined in the loop below)
            job = next(stream, None)
            if job is not None:
                if job.arrival < now:
                    raise ValueError(f"job {job.id} arrives at {job.arrival}, before time {now:g}, where the "
                                     "simulation starts: arrival times must not be negative")
                push(heap, (job.arrival, ARRIVAL, seq(), job))

        def account(st: _Run, dt: float) -> None:
            """Split ``dt`` of progress at factor ``st.factor`` into placement and interference time."""
            f = st.factor
            if f > 0:
                st.dil += dt * (st.alone - 1.0) / f
                if f != st.alone:
                    st.lost += dt * (1.0 - st.alone / f)

        def rerate(changed: Mapping[int, float], skip: int) -> None:
            """New factors from an interacting model: progress up to now at the old rate, the
            completion re-predicted at the new one (the job ``skip`` is handled by its caller)."""
            for jid, factor in changed.items():
                if jid == skip:
                    continue
                st = running.get(jid)
                if st is None:
                    continue
                if not st.suspended and now > st.t0:
                    account(st, now - st.t0)
                    st.work -= (now - st.t0) * st.rate
                    st.t0 = now
                st.factor = factor
                dur = st.base * factor
                st.rate = 1.0 / dur if dur > 0 else math.inf
                if not st.suspended:
                    st.version += 1
                    left = max(st.work, 0.0) / st.rate if st.rate != math.inf else 0.0
                    push(heap, (st.t0 + left, COMPLETION, seq(), (jid, st.version)))

        def apply(actions: list) -> None:
            nonlocal busy, queue_len
            st: _Run | None  # a new run (Start) or a running job's (the other actions)
            for act in actions:
                t = type(act)
                if t is Start:
                    job = act.job
                    st = _Run()
                    st.job = job
                    st.ordinal = ordinals.pop(job.id)
                    st.alloc = act.allocation
                    st.processors = st.granted = act.processors
                    st.reference = act.reference
                    st.start = now
                    st.folds = act.folds
                    st.changes = 0
                    st.moved = 0
                    st.suspended = False
                    st.version = 0
                    st.work = 1.0
                    st.t0 = now + act.delay
                    if type(job) is Job and type(job.speedup) is Linear:  # Job.time_on, Linear.time inlined
                        dur = job.runtime * act.reference / act.processors
                    else:
                        dur = job.time_on(act.processors, act.reference)
                    changed = None
                    if model is not None:
                        st.factor = model.factor(job, act.allocation, topology)
                        if acct:
                            st.base, st.alone, st.lost, st.dil = dur, st.factor, 0.0, 0.0
                            changed = model.started(job, act.allocation, topology, st.factor)
                            st.factor = changed.get(job.id, st.factor)
                        dur *= st.factor
                    else:
                        st.factor = 1.0
                    if placed is not None:
                        placed[job.id] = act.allocation
                        if links is not None:
                            links.start(job.id, act.allocation)
                    if on_tree is not None:  # a switch tree (tree is true)
                        st.leaves = on_tree.leaves(act.allocation)
                        st.relaxed = on_tree.relaxed(job, act.allocation)
                    st.rate = 1.0 / dur if dur > 0 else math.inf
                    running[job.id] = st
                    busy += act.processors
                    queue_len -= 1
                    push(heap, (st.t0 + (dur if dur > 0 else 0.0), COMPLETION, seq(), (job.id, 0)))
                    if changed and (len(changed) > 1 or job.id not in changed):  # others re-rated
                        rerate(changed, job.id)
                elif t is Timer:
                    if act.at < now:
                        raise ValueError(f"policy {policy.name} set a timer in the past ({act.at} < {now})")
                    push(heap, (act.at, TIMER, seq(), act.key))
                else:
                    st = running.get(act.job.id)
                    if st is None:
                        raise ValueError(f"policy {policy.name} acted on job {act.job.id}, which is not running")
                    # bring the job's progress up to now
                    if not st.suspended and now > st.t0:
                        if acct:
                            account(st, now - st.t0)
                        st.work -= (now - st.t0) * st.rate
                        st.t0 = now
                    st.version += 1
                    if t is Resize:
                        if not st.suspended:
                            busy += act.processors - st.processors
                        st.moved += abs(act.processors - st.processors)
                        st.processors = act.processors
                        if act.allocation is not None:
                            st.alloc = act.allocation
                            if on_tree is not None:
                                st.leaves = on_tree.leaves(act.allocation)
                            if placed is not None:
                                placed[st.job.id] = act.allocation
                                if links is not None:
                                    links.move(st.job.id, act.allocation)
                            if model is not None:
                                st.factor = model.factor(st.job, act.allocation, topology)
                                if acct:  # the job moves: its traffic leaves its old links for the new ones
                                    st.alone = st.factor
                                    changed = dict(model.ended(st.job.id))
                                    changed.update(model.started(st.job, act.allocation, topology, st.alone))
                                    st.factor = changed.pop(st.job.id, st.alone)
                                    rerate(changed, st.job.id)
                        st.changes += 1
                        dur = st.job.time_on(act.processors, st.reference)
                        if acct:
                            st.base = dur
                        dur *= st.factor
                        st.rate = 1.0 / dur if dur > 0 else math.inf
                        st.t0 = max(now, st.t0) + act.delay
                    elif t is Suspend:
                        if st.suspended:
                            continue
                        st.suspended = True
                        busy -= st.processors
                        if acct:  # a suspended job sends nothing
                            rerate(model.ended(st.job.id), st.job.id)
                        continue
                    elif t is Resume:
                        if not st.suspended:
                            raise ValueError(f"policy {policy.name} resumed job {st.job.id}, which is not suspended")
                        st.suspended = False
                        busy += st.processors
                        st.t0 = now + act.delay
                        if acct:
                            changed = model.started(st.job, st.alloc, topology, st.alone)
                            st.factor = changed.get(st.job.id, st.alone)
                            dur = st.base * st.factor
                            st.rate = 1.0 / dur if dur > 0 else math.inf
                            rerate(changed, st.job.id)
                    else:
                        raise TypeError(f"policy {policy.name} returned {act!r}, not an action")
                    if not st.suspended:
                        left = max(st.work, 0.0) / st.rate if st.rate != math.inf else 0.0
                        push(heap, (st.t0 + left, COMPLETION, seq(), (st.job.id, st.version)))

        decide = policy.decide

        stopped_at_until = False
        stopped = False
        next_arrival()
        while heap:
            # an instant begins at the earliest event that is not a stale completion prediction
            t, kind, _, payload = pop(heap)
            if kind == COMPLETION:
                st = running.get(payload[0])
                if st is None or st.version != payload[1] or st.suspended:
                    continue  # stale prediction
            if until is not None and t > until:
                stopped_at_until = True
                break
            if t > last:  # time-weighted machine state up to this instant (account(t), inlined)
                if window_start is not None:
                    dt = t - last
                    busy_int += busy * dt
                    if demand > 0:
                        share = busy / (demand if demand < P else P)  # min(1, busy / min(P, demand))
                        se_int += (share if share < 1.0 else 1.0) * dt
                        se_time += dt
                    # blocked by topology over [last, t): the state after the last decision (_oldest_blocked, inlined)
                    if queue_len and blocking:
                        if head_of is None:  # the oldest waiting job (queue_len > 0: there is one)
                            if head_id not in ordinals:  # it started: the next oldest is the head
                                while waiting[0] not in ordinals:
                                    waiting.popleft()
                                head_id = waiting[0]
                                head_need = refs[head_id]
                            blk = head_need <= free_of(allocator)
                        else:
                            blk = _head_blocked(head_of, refs, allocator)
                        if blk:
                            blocked_time += dt
                            if not was_blocked:
                                blocked_episodes += 1
                        was_blocked = blk
                    else:
                        was_blocked = False
                last = t
            now = t
            # 1. deliver every event of the instant: completions, then timers, then arrivals (the
            #    heap's order); actions a per-event policy returns are carried out at once
            while True:
                if kind == COMPLETION:
                    st = running.pop(payload[0])  # this completion's run, checked not stale
                    job = st.job
                    busy -= st.processors
                    demand -= refs.pop(job.id)
                    in_system -= 1
                    if links is not None:
                        peak[job.id] = links.finish(job.id)
                    if acct:
                        if now > st.t0:
                            account(st, now - st.t0)
                        changed = model.ended(job.id)
                        if changed:
                            rerate(changed, job.id)
                    if st.ordinal < warmup and placed is not None:
                        del placed[job.id]
                        peak.pop(job.id, None)
                    if st.ordinal >= warmup:
                        row: tuple[Any, ...] = (job.id, st.ordinal, job.arrival, st.start, now, st.reference,
                                                st.granted, st.folds, st.changes, st.moved, job.runtime)
                        if tree:
                            row += (st.leaves, st.relaxed)
                        if acct:
                            row += (st.dil, st.lost)
                        cols.append(row)
                    n_done += 1
                    acts = on_finish(job, now)
                    if acts:
                        apply(acts)
                    if stop_after is not None and n_done >= stop_after:
                        stopped = True
                        break
                elif kind == ARRIVAL:
                    job = payload
                    if n_arrived == warmup:
                        window_start = now
                    if n_arrived >= warmup:
                        backlog.append(in_system)
                    if on_tree is not None:
                        on_tree.check(job)
                    ordinals[job.id] = n_arrived
                    if head_of is None and blocking:
                        waiting.append(job.id)
                    ref = reference_size(job)
                    refs[job.id] = ref
                    demand += ref
                    in_system += 1
                    queue_len += 1
                    n_arrived += 1
                    nxt = next(stream, None)  # next_arrival(), inlined
                    if nxt is not None:
                        if nxt.arrival < now:
                            raise ValueError(f"job {nxt.id} arrives at {nxt.arrival}, before the previous one ({now})")
                        push(heap, (nxt.arrival, ARRIVAL, seq(), nxt))
                    acts = on_arrival(job, now)
                    if acts:
                        apply(acts)
                    if runaway is not None and queue_len > runaway + RUNAWAY_FACTOR * n_done:
                        warnings.warn(RunawayBacklogWarning(
                            f"stopped {policy.name} with {type(allocator).__name__} at time {now:g}: {queue_len} jobs "
                            f"wait for {n_done} completions after {n_arrived} arrivals of "
                            f"{_workload_name(self.workload)}; the offered load is far beyond what the machine "
                            "carries (the result is flagged saturated)"), stacklevel=3)
                        stopped = True
                        break
                else:
                    acts = on_timer(payload, now)
                    if acts:
                        apply(acts)
                # the next event of the same instant, skipping stale completion predictions
                while heap and heap[0][0] == t:
                    _, kind, _, payload = pop(heap)
                    if kind != COMPLETION:
                        break
                    st = running.get(payload[0])
                    if st is not None and st.version == payload[1] and not st.suspended:
                        break
                else:
                    break
            if stopped:
                break
            # 2. one decision for the instant
            acts = decide(now)
            if acts:
                apply(acts)
            if record_state:
                state_t.append(now)
                state_busy.append(busy)
                state_queue.append(queue_len)
            if frag_every and now >= frag_next:
                frag = fragmentation(self.allocator)
                frag_t.append(now)
                frag_pieces.append(frag["fragments"])
                frag_largest.append(frag["largest_free_size"])
                frag_next = now + frag_every if frag_every is not True else now

        end = now
        if stopped_at_until:
            assert until is not None  # stopped_at_until is set only when an until was given
            if until > last and window_start is not None:
                dt = until - last
                busy_int += busy * dt
                if demand > 0:
                    se_int += min(1.0, busy / min(P, demand)) * dt
                    se_time += dt
                if queue_len and blocking and (_head_blocked(head_of, refs, allocator) if head_of is not None else
                                               _oldest_blocked(waiting, ordinals, refs, allocator)):
                    blocked_time += dt
                    if not was_blocked:
                        blocked_episodes += 1
            end = until
        dtype = [("id", np.int64), ("ordinal", np.int64), ("arrival", float), ("start", float), ("end", float),
                 ("requested", np.int64), ("granted", np.int64), ("folds", np.int64), ("changes", np.int64),
                 ("moved", np.int64), ("runtime", float)]
        if tree:
            dtype += [("leaf_switches", np.int64), ("relaxed", bool)]
        if acct:
            dtype += [("dilation", float), ("interference", float)]
        table = _table(cols, dtype)
        placements = None
        if placed is not None:
            placements = _placements(table["id"].tolist(), placed)
            table = _with_locality(table, placed, topology, peak if links is not None else None)
        window = (window_start if window_start is not None else end, end)
        state = None
        if record_state:
            state = {"time": np.array(state_t), "busy": np.array(state_busy), "queue": np.array(state_queue)}
        if frag_every:
            state = dict(state or {})
            state.update({"fragmentation_time": np.array(frag_t), "fragments": np.array(frag_pieces, dtype=np.int64),
                          "largest_free": np.array(frag_largest, dtype=np.int64)})
        return SimulationResult(
            table=table,
            size=P,
            window=window,
            busy_integral=busy_int,
            effectiveness_integral=se_int,
            demand_time=se_time,
            policy=policy.name,
            allocator=type(self.allocator).__name__,
            unfinished=len(running) + queue_len,
            state=state,
            placements=placements,
            backlog=np.array(backlog, dtype=np.int64),
            blocked_time=blocked_time,
            blocked_episodes=blocked_episodes,
        )


def _head_blocked(head_of: Any, refs: dict[int, int], allocator: Allocator) -> bool:
    """Whether the policy's queue head waits though its processor count is free."""
    job = head_of()
    need = None if job is None else refs.get(job.id)
    return need is not None and need <= allocator.free


def _oldest_blocked(waiting: deque, ordinals: dict[int, int], refs: dict[int, int], allocator: Allocator) -> bool:
    """Whether the oldest waiting job (``waiting``: ids in arrival order, started ones not yet dropped)
    waits though its processor count is free."""
    while waiting and waiting[0] not in ordinals:
        waiting.popleft()
    return bool(waiting) and refs[waiting[0]] <= allocator.free


class _TreeJobs:
    """The simulator's switch-tree bookkeeping (module docstring): arriving requests checked, the
    leaf switches of a grant, whether a start relaxed a switches wait."""

    __slots__ = ("policy", "allocator", "leaf_of", "placeable", "waits_ok", "_all")

    def __init__(self, policy: Policy, allocator: Allocator) -> None:
        self.policy = policy
        self.allocator = allocator
        self.leaf_of = allocator.topology.leaf_of
        self.placeable: dict[Any, bool] = {}
        self.waits_ok = bool(getattr(policy, "switches_wait", False))
        self._all: np.ndarray | None = None

    def check(self, job: Job) -> None:
        """Refuse a request the policy or the allocator can never serve. O(1) for a request seen
        before, else one what-if placement on the empty machine."""
        r = job.request
        waits = type(r) is TreeRequest and r.switches is not None and r.wait is not None
        if waits and not self.waits_ok:
            raise ParameterError(
                f"job {job.id} requests {r!r}, which waits {r.wait:g} for its leaf switches (Slurm's "
                f"--switches=N@T), but policy {self.policy.name} does not implement that wait; use FCFS (or its "
                "folding rules), EASY or Conservative")
        try:
            ok = self.placeable.get(r)
            hashable = True
        except TypeError:
            ok, hashable = None, False
        if ok is None:
            alloc = self.allocator
            if self._all is None:
                self._all = np.ones(alloc.size, dtype=bool)
            ok = alloc.place_in(r.relaxed() if waits else r, self._all) is not None
            if hashable:
                self.placeable[r] = ok
        if not ok:
            raise UnplaceableRequestError(
                f"job {job.id} requests {r!r}, which {self.allocator!r} cannot place even on the empty machine",
                job.id, r)

    def leaves(self, allocation: Any) -> int:
        """Leaf switches a grant's (ascending) nodes touch; -1 for an opaque grant."""
        nodes = getattr(allocation, "nodes", None)
        if nodes is None:
            return -1
        lv = self.leaf_of[np.asarray(nodes)]
        return 1 + int(np.count_nonzero(lv[1:] != lv[:-1])) if len(lv) else 0

    @staticmethod
    def relaxed(job: Job, allocation: Any) -> bool:
        """Whether ``job`` waited for its leaf switches and started with the constraint dropped."""
        req = job.request
        granted = getattr(allocation, "request", _MISSING)
        return (type(req) is TreeRequest and req.switches is not None and granted is not _MISSING
                and getattr(granted, "switches", None) is None)


def _table(rows: list[tuple], dtype: list[tuple[str, Any]]) -> np.ndarray:
    """The structured array of ``rows`` (tuples in ``dtype``'s field order) in the order of their
    (distinct) ``ordinal`` field: the array ``np.array(rows, dtype)`` sorted by ordinal, built a
    column at a time (several times faster than converting and sorting whole records)."""
    table = np.empty(len(rows), dtype=dtype)
    if not rows:
        return table
    columns = list(zip(*rows, strict=True))
    ordinal = columns[[name for name, _ in dtype].index("ordinal")]
    order = np.argsort(np.fromiter(ordinal, dtype=np.int64, count=len(rows)))
    for (name, kind), column in zip(dtype, columns, strict=True):
        table[name] = np.fromiter(column, dtype=kind, count=len(rows))[order]
    return table


def _nodes(allocation: Any) -> np.ndarray | None:
    """The node ids of a grant (an :class:`~topoalloc.Allocation`), or ``None`` for an opaque one."""
    nodes = getattr(allocation, "nodes", None)
    if nodes is None:
        return None
    nodes = np.asarray(nodes)
    if nodes.flags.writeable:
        nodes = np.sort(nodes)
        nodes.flags.writeable = False
    return nodes


def _placements(ids: list[int], placed: dict[int, Any]) -> Mapping[int, np.ndarray]:
    """Job id -> read-only ascending node ids, for the kept jobs that finished."""
    out = {}
    for jid in ids:
        nodes = _nodes(placed.get(jid))
        if nodes is not None:
            out[jid] = nodes
    return MappingProxyType(out)


def _locality_applies(topology: Any) -> bool:
    from topoalloc import locality

    return locality.applies(topology)


def fragmentation(allocator: Any) -> dict[str, Any]:
    from topoalloc.locality import fragmentation as measure

    return measure(allocator)


class _Links:
    """Link loads of the running jobs' all-to-all routes, for ``record_contention``: the load
    array, each running job's link mask and the highest load it has seen on its links (loads
    only rise when a job starts, so checking the running jobs then is enough). O(running x
    links) per start."""

    def __init__(self, topology: Any) -> None:
        from topoalloc import locality

        self.topology = topology
        self.job_links = locality.job_links
        self.load = np.zeros(len(locality.links(topology)), dtype=np.int64)
        self.masks: dict[int, np.ndarray] = {}
        self.peak: dict[int, int] = {}

    def start(self, jid: int, allocation: Any) -> None:
        nodes = getattr(allocation, "nodes", None)
        if nodes is None:
            return
        mask = self.job_links(self.topology, nodes)
        self.masks[jid] = mask
        self.load += mask
        self.peak[jid] = 0
        if not mask.any():
            return
        touched = self.load * mask  # only the links the new job loads got higher
        for other, m in self.masks.items():
            hit = touched[m]
            if hit.size:
                top = int(hit.max())
                if top > self.peak[other]:
                    self.peak[other] = top

    def move(self, jid: int, allocation: Any) -> None:
        self.finish(jid)
        self.start(jid, allocation)

    def finish(self, jid: int) -> int:
        mask = self.masks.pop(jid, None)
        if mask is not None:
            self.load -= mask
        return self.peak.pop(jid, 0)


def _with_locality(table: np.ndarray, placed: dict[int, Any], topology: Any,
                   peak: dict[int, int] | None = None) -> np.ndarray:
    """``table`` with the per-job ``mean_hops`` and ``components`` columns (mesh and cube only),
    and ``max_link_load`` when contention was recorded: O(1) per contiguous grant (closed forms),
    the general measures otherwise."""
    from topoalloc import locality

    if not locality.applies(topology):
        return table
    hops = np.full(len(table), np.nan)
    pieces = np.zeros(len(table), dtype=np.int64)
    measure = locality.allocation_locality
    for i, jid in enumerate(table["id"].tolist()):
        alloc = placed.get(jid)
        if alloc is not None and hasattr(alloc, "nodes"):
            hops[i], pieces[i] = measure(topology, alloc)
    cols = [("mean_hops", float), ("components", np.int64)]
    if peak is not None:
        cols.append(("max_link_load", np.int64))
    extra = np.empty(len(table), dtype=table.dtype.descr + cols)
    assert table.dtype.names is not None  # _table builds a structured array: its fields are named
    for name in table.dtype.names:
        extra[name] = table[name]
    extra["mean_hops"] = hops
    extra["components"] = pieces
    if peak is not None:
        extra["max_link_load"] = [peak.get(j, 0) for j in table["id"].tolist()]
    return extra

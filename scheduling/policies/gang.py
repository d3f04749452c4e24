"""Gang scheduling under distributed hierarchical control (DHC): Wang, Papaefthymiou & Squillante,
"Performance Evaluation of Gang Scheduling for Parallel and Distributed Multiprogramming"
(seed 004): vanilla (§2.3), push-down (§2.4), job migration from the root or from the leaves
(§2.5), machines that are not a power of two (§2.6), first-fit and weight-oriented job assignment
(§3), the simulator's event rules (§4) and the rho-based quanta heuristic (§7.2). A job's class,
the classes each tree serves per slot and the quanta are computed by
:mod:`scheduling.policies.gang_slots`.

Registered names (see :func:`scheduling.policies.get`):

==============================  =====================================================================
``Gang-Vanilla``                 vanilla gang scheduling; assignment rule of the bound ``DHCTree``
``Gang-PushDown``                idle partitions pushed down to the classes below; trees independent
``Gang-Migrate-Root``            migration, idle processors filled from the root (large jobs first)
``Gang-Migrate-Leaves``          migration, idle processors filled from the leaves (small jobs first)
``<name>-Weight``                the same with the weight-oriented assignment of §3
``<name>-Rho``                   the same with the rho-based quanta of §7.2 (one-day period)
``<name>-T-<cycle>``             the same with timeplexing cycle ``<cycle>`` seconds
==============================  =====================================================================

Defaults: cycle ``T = 1000`` s, context-switch cost 1 s paid by resumed jobs, uniform quanta; the
trees of a forest switch independently under push-down, together otherwise. Every other
combination is a :class:`Gang` constructor call (``trees="together"`` adds ``-Together`` to
push-down's name, ``switch_charge="every-slot"`` adds ``-EverySlot``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from topoalloc import Allocation, Allocator, FlatPool
from topoalloc.dhc import DHCTree, TreeNode, TreeWeights, forest_sizes

from .._validate import check_bool, check_real
from ..kernel.actions import Action, Resume, Start, Suspend, Timer
from ..kernel.jobs import Job
from .base import Policy
from .gang_slots import GangError, job_class, rho_quanta, served_classes
from .registry import register

__all__ = ["Gang", "GangJobStats", "VARIANTS", "TREES", "SWITCH_CHARGES"]

#: The four schedulers of seed 004 §2.3–2.5, as :class:`Gang` ``variant`` values.
VARIANTS = ("vanilla", "pushdown", "migrate-root", "migrate-leaves")
#: How the trees of a forest (a machine that is not a power of two, §2.6) switch: all at once, or
#: each on its own, meeting only for the whole-machine slot (:class:`Gang` ``trees=``).
TREES = ("together", "independent")
#: Which jobs pay the context-switch cost (:class:`Gang` ``switch_charge=``).
SWITCH_CHARGES = ("resumed", "every-slot")
_NAMES = {"vanilla": "Gang-Vanilla", "pushdown": "Gang-PushDown", "migrate-root": "Gang-Migrate-Root",
          "migrate-leaves": "Gang-Migrate-Leaves"}
_TIMER_TAG = "gang-slot"


@dataclass(frozen=True, slots=True)
class GangJobStats:
    """What the gang scheduler did to one finished job (seed 004 §2.1 bookkeeping).

    ``cls`` the job's class, ``partition`` the processors it ran on, ``suspended`` the time it spent
    swapped out between its first dispatch and its end, ``overhead`` the context-switch time it
    spent loaded but not progressing (the ``delay`` of its resumptions), ``resumes`` how many times
    it was swapped back in. The sharing time ``H = E - S`` of §2.1 is ``suspended + overhead``.
    """

    cls: int
    partition: int
    suspended: float
    overhead: float
    resumes: int

    @property
    def sharing(self) -> float:
        return self.suspended + self.overhead


class _G:
    """A job in the gang scheduler."""

    __slots__ = ("job", "id", "cls", "procs", "node", "alloc", "mask", "started", "running", "suspended_at",
                 "resumed_at", "suspended", "overhead", "resumes")

    def __init__(self, job: Job, cls: int, procs: int) -> None:
        self.job = job
        self.id = job.id
        self.cls = cls
        self.procs = procs
        self.node: TreeNode | None = None  # None with an allocation: the whole machine
        self.alloc: Allocation | None = None
        self.mask = 0
        self.started = False
        self.running = False
        self.suspended_at = 0.0
        self.resumed_at: float | None = None
        self.suspended = 0.0
        self.overhead = 0.0
        self.resumes = 0


class Gang(Policy):
    """DHC gang scheduling (seed 004 §2.3–2.6, §3, §4, §7.2) on a :class:`~topoalloc.DHCTree`.

    **Classes and slots.** A ``p``-processor job belongs to class ``i`` with ``2^(i-1) < p <= 2^i`` and runs on a
    whole class-``i`` partition (``2^i`` aligned processors of the DHC forest; its run time is the trace's, on that
    partition). There are ``L = ceil(log2 P) + 1`` classes, one FCFS queue each, and ``L`` time slots per
    timeplexing cycle ``T``, visited in the order ``L-1, L-2, ..., 0, L-1, ...`` (§2.3: from class ``i`` to
    ``i - 1`` modulo ``L``). Slot ``s`` lasts its quantum (``T / L``, or §7.2's rho-based share); which class each
    tree of the forest serves in a slot is :func:`~scheduling.policies.gang_slots.served_classes` (§2.6: 320 =
    256 + 64, the top slot runs the whole machine as one partition for the jobs of 257..320 processors).

    **Switches** (§2.3, §4): at the end of a slot's quantum (a :class:`~scheduling.kernel.actions.Timer`),
    or at once when no job runs in the slot any more; a slot in which no job would run is skipped
    at no cost. At a switch every job of the old slot that does not run in the new one is
    suspended (:class:`~scheduling.kernel.actions.Suspend`) and the jobs of the new slot run.

    **Context-switch charging** (``switch_charge=``). §6 prices a switch by reloading a job's
    working set (16 s for 64 MB per processor); §4's simulator stops *every* executing job when a
    time slice expires and then starts the next class's jobs in a context-switch event; neither
    says which jobs pay. ``"resumed"`` (the default): a previously started job that resumes pays
    ``switch_cost`` (``Resume(delay=switch_cost)``: it holds its processors but makes no progress
    for that long), at a slot start or mid-slot (push-down, after a completion); a job's first
    dispatch pays nothing (the trace's run time includes its first load, as under EASY), nor does
    a job that runs on across a slot boundary. ``"every-slot"`` (§4 read literally): in addition,
    at every switch to another slot each job of the new slot pays, including first dispatches at
    the slot start (``Start(delay=switch_cost)``) and jobs running on across the boundary; a
    dispatch mid-slot, or a slot entered when the machine was idle or entered again because no
    other slot has work, is no switch.

    **Variants** (``variant=``):

    * ``"vanilla"`` (§2.3): a job gets a partition of its class and keeps it to the end (§3); in
      slot ``s`` only the jobs of the served class run, the other partitions idle.
    * ``"pushdown"`` (§2.4): a partition with no job of its own in its slot is split recursively
      into its halves until a job is found: a job at level ``l`` also runs in every slot whose
      served class ``c > l`` has no job on the path from its partition up to level ``c``.
    * ``"migrate-root"`` / ``"migrate-leaves"`` (§2.5, §3 third policy): no permanent partitions;
      at every slot start the machine is packed afresh: first the jobs of the served class(es),
      then the jobs of the other classes in priority order (root: largest class first; leaves:
      smallest first), FCFS within a class, each on any free partition of its class (a fresh
      ``DHCTree`` per slot, so migration is free, as the paper assumes). As in the paper's
      simulator, jobs are dispatched only at slot starts (a mid-slot arrival or completion leaves
      processors idle until the next slot) and the cycle is fixed (quanta are not cut short while
      any job runs). Jobs of the whole-machine class run only in the top slot.

    **Trees of a forest** (``trees=``, §2.6). On a machine that is not a power of two, ``"together"`` switches the
    whole forest at once (slots as in :func:`~scheduling.policies.gang_slots.served_classes`; §2.6 for migration,
    which requires it). ``"independent"`` (the default for push-down, where §2.6 lets "the two trees proceed
    independently"): each tree rotates on its own over its slots ``W, h, h-1, ..., 0`` (``W`` is the whole-machine
    slot, with the quantum of the top class; slot ``s <= h`` serves class ``s`` and lasts that class's quantum),
    switching on its own timer and at once when nothing runs in it, skipping slots without work. With no
    whole-machine job waiting, ``W`` is pushed down into each tree like any idle partition (a tree's jobs with no
    job above them run in it). With one, the trees meet: the whole-machine slot comes when every tree has completed
    its rotation since the last one (an idle tree counts as done) -- when the last one wraps round, the others are
    paused mid-slot and resume afterwards with the rest of their quanta. Vanilla may use either (default together,
    §2.3's system-wide switch); on a power of two both are the same schedule.

    **Assignment** (``assignment=``, §3): ``"first_fit"`` (leftmost free partition) or
    ``"weight"`` (lightest branch by the number of jobs assigned at and below each node); ``None``
    takes the bound ``DHCTree``'s rule. For vanilla and push-down the policy keeps one ``DHCTree``
    per class (a time slot's partitions: each class-``i`` partition holds at most one class-``i``
    job) and all of them share one :class:`~topoalloc.TreeWeights`, so the weights count the jobs
    of every class, as in the paper's single tree. Migration packs each slot on a fresh
    ``DHCTree`` with the same rule (first fit packs tightest). The bound allocator describes the
    machine; the policy places jobs on these per-slot trees and passes their grants in ``Start``.

    **Quanta** (``quanta=``): ``"uniform"`` (``T / L`` each) or ``"rho"`` (§7.2): at the first
    switch of each ``period`` (a day by default) the quantum of slot ``i`` becomes
    :func:`~scheduling.policies.gang_slots.rho_quanta` of the classes' relative utilisations over the previous period,
    ``rho_i = lambda_i 2^i / (mu_i P)``, measured as the work (run time x partition size) of the
    class-``i`` jobs that *arrived* in that period over ``P x period`` (the whole machine's
    processors for the whole-machine class). The first period, and a period after one with no
    arrivals, is uniform.

    **Interpretations** where the paper is vague: (1) vanilla and push-down assign a job to a
    partition as soon as its class has a free one (on arrival, or when a job of its class
    leaves), not only when its slot comes round; it then runs in its own slots and in every slot
    pushed down to it. An assignment that would block jobs already running mid-slot (push-down)
    takes effect at the next switch; a job is started mid-slot only if it overlaps no running job,
    so no two jobs ever run on the same processor. (2) How independent trees meet for the
    whole-machine slot (above; §2.6 does not say). (3) When the system (a tree) empties its
    rotation stops; the next arrival starts the first slot, from the current one on, in which
    some job runs.

    Per-job bookkeeping: :attr:`stats` (:class:`GangJobStats` of every finished job); §2.1's
    metrics per job and per class are in :mod:`scheduling.metrics.gang`.

    Complexity: a switch costs O(jobs that stop or start + L); for migration add O(jobs packed x
    log P) plus a fresh O(P) tree when the jobs or the order of the non-empty classes changed since
    the last packing (packings are cached until the next arrival or completion). An arrival costs
    O(log P) (vanilla), O(assigned jobs + L) (push-down: the masks of the jobs below the changed
    partition are recomputed) or O(1) (migration); a completion adds O(jobs of the current slot)
    to refill it. A month of the CTC trace (7,083 jobs, 320 processors) takes 2-110 s per run
    depending on the variant and cycle (``examples/gang_ctc.py``).

    >>> from topologies import Flat
    >>> from scheduling.kernel.jobs import Job
    >>> from scheduling.kernel.simulator import Simulator
    >>> jobs = [Job(0, 0.0, 1, 10.0), Job(1, 0.0, 4, 10.0)]
    >>> r = Simulator(DHCTree(Flat(4)), Gang("vanilla", cycle=3.0, switch_cost=0.0), jobs).run()
    >>> r.start.tolist(), r.end.tolist()     # the two classes alternate 1-s slices
    ([0.0, 1.0], [19.0, 20.0])
    """

    VARIANTS = VARIANTS
    QUANTA = ("uniform", "rho")
    TREES = TREES
    SWITCH_CHARGES = SWITCH_CHARGES

    def __init__(
        self,
        variant: str = "vanilla",
        *,
        cycle: float = 1000.0,
        switch_cost: float = 1.0,
        quanta: str = "uniform",
        assignment: str | None = None,
        period: float = 86400.0,
        rho_floor: float = 0.1,
        record: bool = False,
        trees: str | None = None,
        switch_charge: str = "resumed",
    ) -> None:
        super().__init__()
        if variant not in VARIANTS:
            raise GangError(f"unknown gang variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        check_real(cycle, "cycle", low=0, low_open=True, error=GangError)
        check_real(period, "period", low=0, low_open=True, error=GangError)
        check_real(switch_cost, "switch_cost", low=0, error=GangError)
        if quanta not in self.QUANTA:
            raise GangError(f"unknown quanta mode {quanta!r}; choose one of {', '.join(self.QUANTA)}")
        if assignment is not None and assignment not in DHCTree.ASSIGNMENTS:
            raise GangError(f"unknown assignment {assignment!r}; choose one of {', '.join(DHCTree.ASSIGNMENTS)}")
        check_real(rho_floor, "rho_floor", low=0, high=1, error=GangError)
        check_bool(record, "record", error=GangError)
        if quanta == "rho" and rho_floor == 0 and switch_cost > 0:
            raise GangError("rho quanta with rho_floor = 0 can give a class a quantum shorter than the "
                            f"context-switch cost ({switch_cost}); use rho_floor > 0")
        if trees is not None and trees not in TREES:
            raise GangError(f"unknown trees mode {trees!r}; choose one of {', '.join(TREES)}")
        tree_mode = trees if trees is not None else ("independent" if variant == "pushdown" else "together")
        if variant.startswith("migrate") and tree_mode == "independent":
            raise GangError(f"trees={trees!r}: under migration the trees of the forest switch together (§2.6); "
                            "independent trees are for vanilla and push-down")
        if switch_charge not in SWITCH_CHARGES:
            raise GangError(f"unknown switch_charge {switch_charge!r}; choose one of {', '.join(SWITCH_CHARGES)}")
        self.variant = variant
        self.cycle = float(cycle)
        self.switch_cost = float(switch_cost)
        self.quanta_mode = quanta
        self._assignment = assignment
        self.period = float(period)
        self.rho_floor = float(rho_floor)
        self.record = record
        self._trees = trees
        #: ``"together"`` or ``"independent"`` (``trees=None`` resolves to independent for push-down).
        self.tree_mode = tree_mode
        self.switch_charge = switch_charge
        self._every = switch_charge == "every-slot"
        name = _NAMES[variant]
        if assignment == "weight":
            name += "-Weight"
        if quanta == "rho":
            name += "-Rho"
        if variant == "pushdown" and tree_mode == "together":
            name += "-Together"
        if variant == "vanilla" and tree_mode == "independent":
            name += "-Independent"
        if self._every:
            name += "-EverySlot"
        if self.cycle != 1000.0:
            name += f"-T-{self.cycle:g}"
        self.name = name
        #: :class:`GangJobStats` of every finished job, by job id.
        self.stats: dict[int, GangJobStats] = {}
        #: ``(time, slot, tree)`` of every slot start, when ``record=True``: ``tree`` is the tree of
        #: the forest that switched (independent trees), or ``None`` for a switch of the whole
        #: machine (trees together, and the whole-machine slot).
        self.history: list[tuple[float, int, int | None]] = []
        #: ``(time, quanta)`` of every change of the quanta (rho mode), and the initial ones.
        self.quanta_history: list[tuple[float, tuple[float, ...]]] = []

    # -- setting up ---------------------------------------------------------------------------
    def bind(self, allocator: Allocator) -> None:
        if not isinstance(allocator, DHCTree):
            raise TypeError(f"gang scheduling runs on a DHCTree allocator, got {allocator!r}")
        if self.allocator is allocator:
            return
        super().bind(allocator)
        topo = allocator.topology
        P = allocator.size
        self.size = P
        self.assignment = self._assignment or allocator.assignment
        sizes = forest_sizes(P)
        self.heights = [s.bit_length() - 1 for s in sizes]
        self.whole = len(sizes) > 1
        H = self.heights[0]
        L = H + 1 + self.whole
        self.classes = L
        self.top = L - 1
        self.served = served_classes(P)
        self.quanta = [self.cycle / L] * L
        smallest = self.quanta[0] if self.quanta_mode == "uniform" else self.rho_floor * self.cycle / L
        if not smallest > self.switch_cost:
            what = "T / L" if self.quanta_mode == "uniform" else "rho_floor * T / L"
            raise GangError(
                f"the smallest quantum {what} = {smallest:g} s (cycle {self.cycle:g} s, {L} classes on {P} "
                f"processors) must exceed the context-switch cost {self.switch_cost:g} s"
            )
        self.quanta_history.append((0.0, tuple(self.quanta)))
        self._whole_alloc = FlatPool(topo).allocate(P) if self.whole else None
        self._migrate = self.variant.startswith("migrate")
        self._jobs: dict[int, _G] = {}
        self._running: dict[int, _G] = {}
        self._slot = self.top
        self._epoch = 0
        self._active = False
        self._work: dict[int, list[float]] = {}
        self._quanta_day: int | None = None
        if self._migrate:
            self._packed: dict[int, _G] = {}
            self._pack_cache: dict[tuple, list] = {}
            self._lists: list[dict[int, _G]] = [{} for _ in range(L)]
            order = list(range(L)) if self.variant == "migrate-leaves" else list(range(L - 1, -1, -1))
            self._order: list[list[int]] = []
            for s in range(L):
                first = sorted({row[s] for row in self.served}, reverse=True)
                self._order.append(first + [c for c in order if c not in first])
        else:
            self.weights = TreeWeights(P)
            self._class_trees = [DHCTree(topo, self.assignment, weights=self.weights) for _ in range(H + 1)]
            self._queues: list[deque[_G]] = [deque() for _ in range(L)]
            self._at: list[dict[int, _G]] = [{} for _ in self.heights]  # tree -> heap index -> job
            self._top_job: _G | None = None
            self._indep = self.tree_mode == "independent"
            if not self._indep:
                self._slot_jobs: list = [{} for _ in range(L)]  # slot -> jobs that run in it
                self._van = [[sum(1 << s for s in range(L) if row[s] == lv) for lv in range(h + 1)]
                             for row, h in zip(self.served, self.heights, strict=True)]
                # _pd[t][l][b]: slots a level-l job of tree t runs in when the nearest job above it is at level b
                self._pd = [[[sum(1 << s for s in range(L) if row[s] == lv or lv < row[s] < b) for b in range(L + 1)]
                             for lv in range(h + 1)] for row, h in zip(self.served, self.heights, strict=True)]
            else:
                # each tree rotates over its own slots: W (the whole-machine slot pushed down to the
                # tree, forests only) = h + 1, then h, ..., 0; slot s <= h serves class s
                n = len(self.heights)
                self._nslots = [h + 1 + self.whole for h in self.heights]
                self._slot_jobs = [[{} for _ in range(m)] for m in self._nslots]  # tree -> slot -> jobs
                self._van = [[1 << lv for lv in range(h + 1)] for h in self.heights]
                self._pd = [[[sum(1 << s for s in range(m) if s == lv or lv < s < b) for b in range(m + 1)]
                             for lv in range(h + 1)] for h, m in zip(self.heights, self._nslots, strict=True)]
                self._tslot = [m - 1 for m in self._nslots]
                self._tepoch = [0] * n
                self._tactive = [False] * n
                self._tdeadline = [0.0] * n
                self._wrapped = [True] * n
                self._left = [0.0] * n
                self._tcount = [0] * n  # running jobs per tree
                self._whole_on = False
                self._whole_epoch = 0

    def class_of(self, job: Job) -> int:
        """The job's class on this machine (binds first)."""
        return job_class(self.allocator.topology.validate_request(job.request), self.size)

    def reference_size(self, job: Job) -> int:
        """The job's partition: ``2^class`` processors, or the whole machine for the top class of a
        machine that is not a power of two."""
        c = self.class_of(job)
        return self.size if (self.whole and c == self.top) else 1 << c

    # -- public views -------------------------------------------------------------------------
    @property
    def slot(self) -> int:
        """The current time slot (independent trees: the largest tree's, or the top slot while the
        whole machine runs)."""
        if not self._migrate and self._indep:
            return self.top if self._whole_on else self._tslot[0]
        return self._slot

    def placements(self) -> dict[int, tuple[int, int]]:
        """``job id -> (first, stop)`` processor range of every running (not suspended) job."""
        return {jid: self._range(g) for jid, g in self._running.items()}

    def _range(self, g: _G) -> tuple[int, int]:
        if g.node is None:
            return (0, self.size)
        return (g.node.start, g.node.stop)

    # -- callbacks ----------------------------------------------------------------------------
    def on_arrival(self, job: Job, now: float) -> list[Action]:
        c = self.class_of(job)
        g = _G(job, c, self.size if (self.whole and c == self.top) else 1 << c)
        self._jobs[job.id] = g
        acts: list[Action] = []
        if self.quanta_mode == "rho":
            day = int(now // self.period)
            self._work.setdefault(day, [0.0] * self.classes)[c] += job.runtime * g.procs
        if self._migrate:
            self._lists[c][job.id] = g
            self._pack_cache.clear()
        elif self._indep:
            if not self._queues[c] and self._assign(g):
                self._placed([g], now, acts)
            else:
                self._queues[c].append(g)
            return acts
        elif not self._queues[c] and self._assign(g):
            if self._active and (g.mask >> self._slot) & 1 and not self._overlaps(g):
                self._run(g, now, acts)
        else:
            self._queues[c].append(g)
        if not self._active:
            self._switch(now, acts, inclusive=True)
        return acts

    def on_finish(self, job: Job, now: float) -> list[Action]:
        g = self._jobs.pop(job.id)
        if self._running.pop(job.id, None) is not None and not self._migrate and self._indep and g.node is not None:
            self._tcount[g.node.tree] -= 1
        g.running = False
        if g.resumed_at is not None:
            g.overhead += min(self.switch_cost, now - g.resumed_at)
        self.stats[job.id] = GangJobStats(g.cls, g.procs, g.suspended, g.overhead, g.resumes)
        acts: list[Action] = []
        if self._migrate:
            del self._lists[g.cls][job.id]
            self._packed.pop(job.id, None)
            self._pack_cache.clear()
            g.alloc = g.node = None
        elif self._indep:
            self._release(g)
            q = self._queues[g.cls]
            placed = []
            while q and self._assign(q[0]):
                placed.append(q.popleft())
            if g.node is None:  # the whole-machine job: its slot ends early
                self._exit_whole(now, acts)
                return acts
            self._placed(placed, now, acts)
            t = g.node.tree
            if self._tactive[t] and not self._whole_on:
                for g2 in list(self._slot_jobs[t][self._tslot[t]].values()):
                    if not g2.running and not self._overlaps(g2):
                        self._run(g2, now, acts)
                if not self._tcount[t]:
                    self._tree_switch(t, now, acts, inclusive=False)
            return acts
        else:
            self._release(g)
            q = self._queues[g.cls]
            while q and self._assign(q[0]):
                q.popleft()
            if self._active:
                for g2 in list(self._slot_jobs[self._slot].values()):
                    if not g2.running and not self._overlaps(g2):
                        self._run(g2, now, acts)
        if not self._running:
            self._switch(now, acts, inclusive=False)
        return acts

    def on_timer(self, key: Any, now: float) -> list[Action]:
        acts: list[Action] = []
        if not self._migrate and self._indep:
            if key[1] == "tree":
                t = key[2]
                if key[3] == self._tepoch[t] and self._tactive[t] and not self._whole_on:
                    self._tree_switch(t, now, acts, inclusive=False)
            elif key[2] == self._whole_epoch and self._whole_on:
                self._exit_whole(now, acts)
            return acts
        if key != (_TIMER_TAG, self._epoch) or not self._active:
            return []  # a slot that already ended early
        self._switch(now, acts, inclusive=False)
        return acts

    # -- the rotation -------------------------------------------------------------------------
    def _has_work(self, s: int) -> bool:
        if not self._migrate:
            return bool(self._slot_jobs[s])
        if self.whole:
            if s == self.top and self._lists[self.top]:
                return True
            return any(self._lists[c] for c in range(self.top))
        return bool(self._jobs)

    def _switch(self, now: float, acts: list[Action], inclusive: bool) -> None:
        """End the current slot (if any) and start the next one in which some job runs."""
        L = self.classes
        s = self._slot if inclusive else (self._slot - 1) % L
        for _ in range(L):
            if self._has_work(s):
                self._begin(s, now, acts, switch=not inclusive and s != self._slot)
                return
            s = (s - 1) % L
        # nothing to run anywhere: the system is empty, the rotation stops
        for g in list(self._running.values()):  # pragma: no cover - defensive, cannot happen
            self._stop(g, now, acts)
        self._active = False
        self._epoch += 1

    def _begin(self, s: int, now: float, acts: list[Action], switch: bool) -> None:
        """Start slot ``s`` of the whole machine (``switch``: a context switch, not a restart of an
        idle system)."""
        self._slot = s
        self._epoch += 1
        self._active = True
        if self.quanta_mode == "rho":
            self._update_quanta(now)
        target = self._pack_slot(s) if self._migrate else self._slot_jobs[s]
        for jid, g in list(self._running.items()):
            if jid not in target:
                self._stop(g, now, acts)
        self._run_slot(target, now, acts, switch)
        acts.append(Timer(now + self.quanta[s], (_TIMER_TAG, self._epoch)))
        if self.record:
            self.history.append((now, s, None))

    def _run_slot(self, target: dict[int, _G], now: float, acts: list[Action], switch: bool) -> None:
        """Run the jobs of a slot that begins: start or resume those not running; under
        ``switch_charge="every-slot"`` a slot begun by a context switch charges every job in it."""
        charge = switch and self._every
        for g in target.values():
            if not g.running:
                self._run(g, now, acts, charge)
            elif charge:
                self._recharge(g, now, acts)

    def _recharge(self, g: _G, now: float, acts: list[Action]) -> None:
        """A job that runs on across a slot boundary pays the switch cost (every-slot charging)."""
        if self.switch_cost <= 0:
            return
        if g.resumed_at is not None:
            g.overhead += min(self.switch_cost, now - g.resumed_at)
        acts.append(Suspend(g.job))
        acts.append(Resume(g.job, self.switch_cost))
        g.resumed_at = now

    def _run(self, g: _G, now: float, acts: list[Action], charge_start: bool = False) -> None:
        if not g.started:
            g.started = True
            delay = self.switch_cost if charge_start else 0.0
            acts.append(Start(g.job, g.alloc, g.procs, g.procs, 0, delay))
            if delay > 0:
                g.resumed_at = now
        else:
            acts.append(Resume(g.job, self.switch_cost))
            g.suspended += now - g.suspended_at
            g.resumes += 1
            g.resumed_at = now
        g.running = True
        self._running[g.id] = g
        if not self._migrate and self._indep and g.node is not None:
            self._tcount[g.node.tree] += 1

    def _stop(self, g: _G, now: float, acts: list[Action]) -> None:
        acts.append(Suspend(g.job))
        if g.resumed_at is not None:
            g.overhead += min(self.switch_cost, now - g.resumed_at)
            g.resumed_at = None
        g.suspended_at = now
        g.running = False
        del self._running[g.id]
        if not self._migrate and self._indep and g.node is not None:
            self._tcount[g.node.tree] -= 1

    # -- independent trees (§2.6, push-down): one rotation per tree, the whole machine in between --
    def _placed(self, gs: list[_G], now: float, acts: list[Action]) -> None:
        """Jobs just given a partition (independent trees): run them if their tree's slot serves
        them and they overlap nothing, wake an idle tree, start the whole-machine slot on an idle
        machine."""
        for g in gs:
            if g.node is None or self._whole_on:
                continue
            t = g.node.tree
            if self._tactive[t]:
                if (g.mask >> self._tslot[t]) & 1 and not self._overlaps(g):
                    self._run(g, now, acts)
            else:
                self._tree_switch(t, now, acts, inclusive=True)
        if self._top_job is not None and not self._whole_on and not any(self._tactive):
            self._enter_whole(now, acts, switch=False)

    def _tree_switch(self, t: int, now: float, acts: list[Action], inclusive: bool) -> None:
        """End tree ``t``'s slot (unless ``inclusive``: wake the idle tree) and start its next slot
        in which some job runs; a tree that completes its rotation (passes slot 0) may bring the
        whole-machine slot (:meth:`_sync_due`)."""
        m = self._nslots[t]
        jobs = self._slot_jobs[t]
        s = self._tslot[t] if inclusive else self._tslot[t] - 1
        wrapped = False
        for _ in range(m):
            if s < 0:
                s, wrapped = m - 1, True
            if jobs[s]:
                if wrapped and not inclusive:
                    self._wrapped[t] = True
                    if self._sync_due():
                        self._tslot[t] = s
                        self._left[t] = self._tquantum(t, s)
                        self._enter_whole(now, acts, switch=True, trigger=t)
                        return
                self._tree_begin(t, s, now, acts, switch=not inclusive and s != self._tslot[t])
                return
            s -= 1
        for g in [r for r in self._running.values() if r.node is not None and r.node.tree == t]:
            self._stop(g, now, acts)  # pragma: no cover - defensive: a tree without work runs nothing
        self._tactive[t] = False
        self._tepoch[t] += 1
        self._wrapped[t] = True
        if self._sync_due():
            self._enter_whole(now, acts, switch=True)

    def _tree_begin(self, t: int, s: int, now: float, acts: list[Action], switch: bool,
                    quantum: float | None = None) -> None:
        self._tslot[t] = s
        self._tepoch[t] += 1
        self._tactive[t] = True
        if self.quanta_mode == "rho":
            self._update_quanta(now)
        target = self._slot_jobs[t][s]
        for g in [r for r in self._running.values() if r.node is not None and r.node.tree == t
                  and r.id not in target]:
            self._stop(g, now, acts)
        self._run_slot(target, now, acts, switch)
        q = self._tquantum(t, s) if quantum is None else quantum
        self._tdeadline[t] = now + q
        acts.append(Timer(now + q, (_TIMER_TAG, "tree", t, self._tepoch[t])))
        if self.record:
            self.history.append((now, self.top if s > self.heights[t] else s, t))

    def _tquantum(self, t: int, s: int) -> float:
        """The quantum of tree ``t``'s slot ``s`` (its slot ``h + 1`` is the whole machine's)."""
        return self.quanta[self.top if s > self.heights[t] else s]

    def _sync_due(self) -> bool:
        """The whole-machine slot comes when a whole-machine job waits and every tree has completed
        a rotation since the last one (an idle tree counts as done)."""
        return (self._top_job is not None and not self._whole_on
                and all(w or not a for w, a in zip(self._wrapped, self._tactive, strict=True)))

    def _enter_whole(self, now: float, acts: list[Action], switch: bool, trigger: int | None = None) -> None:
        """Pause every tree (keeping the rest of its slot's quantum; ``trigger`` has already set
        its next slot) and run the whole-machine job."""
        for t, active in enumerate(self._tactive):
            if active and t != trigger:
                self._left[t] = max(0.0, self._tdeadline[t] - now)
            self._tepoch[t] += 1
        self._begin_whole(now, acts, switch)

    def _begin_whole(self, now: float, acts: list[Action], switch: bool) -> None:
        self._whole_on = True
        self._whole_epoch += 1
        top = self._top_job
        assert top is not None  # the whole-machine slot runs only with its job
        for g in list(self._running.values()):
            if g is not top:
                self._stop(g, now, acts)
        self._run_slot({top.id: top}, now, acts, switch)
        acts.append(Timer(now + self.quanta[self.top], (_TIMER_TAG, "whole", self._whole_epoch)))
        if self.record:
            self.history.append((now, self.top, None))

    def _exit_whole(self, now: float, acts: list[Action]) -> None:
        """End the whole-machine slot: the trees resume where they were paused (the rest of the
        slot's quantum), idle trees with work wake up; with no tree work, the whole-machine job (or
        the next one) runs on."""
        n = len(self.heights)
        if not any(self._tactive[t] or any(self._slot_jobs[t]) for t in range(n)):
            if self._top_job is not None:  # the same slot again (or its next job, as mid-slot): no switch
                self._begin_whole(now, acts, switch=False)
            else:
                self._whole_on = False
                self._whole_epoch += 1
            return
        self._whole_on = False
        self._whole_epoch += 1
        top = self._top_job
        if top is not None and top.running:
            self._stop(top, now, acts)
        for t in range(n):
            self._wrapped[t] = not self._tactive[t]
        for t in range(n):
            if self._tactive[t]:
                if self._left[t] > 0 and self._slot_jobs[t][self._tslot[t]]:
                    self._tree_begin(t, self._tslot[t], now, acts, switch=True, quantum=self._left[t])
                else:
                    self._tree_switch(t, now, acts, inclusive=False)
            elif any(self._slot_jobs[t]):
                self._tree_switch(t, now, acts, inclusive=True)

    def _overlaps(self, g: _G) -> bool:
        if g.node is None:
            return bool(self._running)
        n = g.node
        for r in self._running.values():
            m = r.node
            if m is None or (m.tree == n.tree and m.start < n.stop and n.start < m.stop):
                return True
        return False

    def _update_quanta(self, now: float) -> None:
        day = int(now // self.period)
        if day == self._quanta_day:
            return
        self._quanta_day = day
        prev = self._work.get(day - 1)
        for d in [d for d in self._work if d < day - 1]:
            del self._work[d]
        cap = self.size * self.period
        rho = [w / cap for w in prev] if prev is not None else [0.0] * self.classes
        new = rho_quanta(rho, self.cycle, self.rho_floor)
        if new != self.quanta:
            self.quanta = new
            self.quanta_history.append((now, tuple(new)))

    # -- migration: packing a slot -------------------------------------------------------------
    def _pack_slot(self, s: int) -> dict[int, _G]:
        """The jobs that run in slot ``s`` under migration, each with a fresh placement.

        The packing depends only on the jobs in the system and on the order of the classes that
        have jobs, so it is cached until the next arrival or completion (slots whose served class
        is empty share one packing). Once a class does not fit, no larger class can (a free
        aligned block of ``2^c`` contains free blocks of every smaller size), so those are skipped.
        """
        lists = self._lists
        top_list = lists[self.top] if self.whole else None
        if top_list and s == self.top:
            key: tuple = ("whole",)
        else:
            key = tuple(c for c in self._order[s] if lists[c] and not (self.whole and c == self.top))
        cached = self._pack_cache.get(key)
        if cached is None:
            cached = []
            if key == ("whole",):
                cached.append((next(iter(lists[self.top].values())), self._whole_alloc, None))
            else:
                pack = DHCTree(self.allocator.topology, self.assignment)
                limit = self.classes
                for c in key:
                    if c >= limit:
                        continue
                    size = 1 << c
                    for g in lists[c].values():
                        a = pack.allocate(size)
                        if a is None:
                            limit = c
                            break
                        cached.append((g, a, a.placement))
                    if pack.free == 0:
                        break
            self._pack_cache[key] = cached
        for g in self._packed.values():
            g.alloc = None
            g.node = None
        out: dict[int, _G] = {}
        for g, a, node in cached:
            g.alloc, g.node = a, node
            out[g.id] = g
        self._packed = out
        return out

    # -- vanilla and push-down: permanent partitions -------------------------------------------
    def _assign(self, g: _G) -> bool:
        if self.whole and g.cls == self.top:
            if self._top_job is not None:
                return False
            self._top_job = g
            g.alloc, g.node = self._whole_alloc, None
            if not self._indep:  # independent trees: the whole-machine slot is not in their rotations
                self._set_mask(g, 1 << self.top)
            if self.variant == "pushdown":
                for other in self._assigned():
                    if other is not g:
                        self._refresh(other)
            return True
        a = self._class_trees[g.cls].allocate(g.procs)
        if a is None:
            return False
        g.alloc, g.node = a, a.placement
        self._at[g.node.tree][g.node.heap_index] = g
        self._refresh(g)
        if self.variant == "pushdown":
            self._refresh_below(g.node)
        return True

    def _release(self, g: _G) -> None:
        self._set_mask(g, 0)
        if g.node is None:
            self._top_job = None
            if self.variant == "pushdown":
                for other in self._assigned():
                    self._refresh(other)
        else:
            assert g.alloc is not None  # a job on a partition holds it
            self._class_trees[g.cls].release(g.alloc)
            del self._at[g.node.tree][g.node.heap_index]
            if self.variant == "pushdown":
                self._refresh_below(g.node)
        g.alloc = None

    def _assigned(self) -> Iterator[_G]:
        if self._top_job is not None:
            yield self._top_job
        for at in self._at:
            yield from at.values()

    def _refresh_below(self, node: TreeNode) -> None:
        top_i, lv = node.heap_index, node.level
        for i, g in list(self._at[node.tree].items()):
            assert g.node is not None  # the jobs of a tree are on its nodes
            d = lv - g.node.level
            if d > 0 and i >> d == top_i:
                self._refresh(g)

    def _refresh(self, g: _G) -> None:
        if g.node is None:
            return
        n = g.node
        if self.variant == "vanilla":
            self._set_mask(g, self._van[n.tree][n.level])
            return
        at = self._at[n.tree]
        # no job above: pushed down from every higher slot of its rotation
        b = self._nslots[n.tree] if self._indep else self.classes
        i, lv = n.heap_index >> 1, n.level + 1
        while i:
            if i in at:
                b = lv
                break
            i >>= 1
            lv += 1
        if self._top_job is not None:  # the whole-machine slot is taken, not pushed down
            b = min(b, self.heights[n.tree] + 1 if self._indep else self.top)
        self._set_mask(g, self._pd[n.tree][n.level][b])

    def _set_mask(self, g: _G, new: int) -> None:
        old = g.mask
        if old == new:
            return
        g.mask = new
        if self._indep:
            assert g.node is not None  # the whole-machine job is in no tree's rotation of its own
            slots = self._slot_jobs[g.node.tree]
        else:
            slots = self._slot_jobs
        diff, s = old ^ new, 0
        while diff:
            if diff & 1:
                if (new >> s) & 1:
                    slots[s][g.id] = g
                else:
                    del slots[s][g.id]
            diff >>= 1
            s += 1


def _make(variant: str, **kw: Any) -> Callable[[], Gang]:
    return lambda: Gang(variant, **kw)


#: What these policies need to run (the registry's ``needs``; ``topoalloc list`` shows it).
_NEEDS = "DHCTree (a flat machine as a forest of buddy partitions; processor-count requests)"


for _variant, _name in _NAMES.items():
    _what = {"vanilla": "vanilla DHC gang scheduling (seed 004 §2.3)",
             "pushdown": "DHC gang scheduling with push-down (seed 004 §2.4)",
             "migrate-root": "DHC gang scheduling, migration from the root (seed 004 §2.5)",
             "migrate-leaves": "DHC gang scheduling, migration from the leaves (seed 004 §2.5)"}[_variant]
    register(_name, _make(_variant), help=f"{_what}; T = 1000 s, switch cost 1 s, uniform quanta", needs=_NEEDS)
    register(f"{_name}-Weight", _make(_variant, assignment="weight"), help=f"{_what}, weight-oriented assignment (§3)",
             needs=_NEEDS)
    register(f"{_name}-Rho", _make(_variant, quanta="rho"), help=f"{_what}, rho-based quanta (§7.2)", needs=_NEEDS)
    register(f"{_name}-T", lambda T, v=_variant: Gang(v, cycle=T), param="float",
             help=f"{_what} with timeplexing cycle T seconds", needs=_NEEDS)

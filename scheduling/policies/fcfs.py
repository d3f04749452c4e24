"""First come, first served, with a folding rule (RSR-t, limit-k, greedy, average)."""

from __future__ import annotations

from collections import deque
from typing import Any

from topoalloc import Allocation
from topologies import TreeRequest

from .._validate import check_has
from ..kernel.actions import Action
from ..kernel.jobs import Job
from .base import Policy
from .folding import AverageLimit, FoldingRule, NoFold
from .waits import SwitchesWait

__all__ = ["FCFS"]


class FCFS(SwitchesWait, Policy):
    """One FIFO queue; the head is tried at every arrival and departure and nothing passes it
    (seed 002 §3.2; seed 000 §2.2.1 "FCFS").

    Requests may be any the allocator takes, :class:`~topologies.TreeRequest` constraints
    included; a request that waits a limited time for its leaf switches (Slurm's
    ``--switches=N@T``) is relaxed at ``submit + T`` (:mod:`~scheduling.policies.waits`), and the
    head is tried again then. Folding keeps the constraint (the allocator's ``fold``).

    ``folding`` decides how the head is placed: :class:`~scheduling.policies.folding.NoFold`
    (plain FCFS), ``RSR(t)``, ``Limit(k)``, ``GreedyLimit()``, ``AverageLimit()``. The policy's
    name is the rule's (``"RSR-1"``, ``"Limit-5"``, ...). Cost per instant: one placement attempt
    per job started plus one failed attempt for the blocked head -- only at instants with a
    departure: arrivals alone cannot unblock the head (nothing was released), so it is not retried
    then, with the same outcome.

    >>> from topoalloc import Buddy; from topologies import Hypercube
    >>> from scheduling.kernel.jobs import Job
    >>> p = FCFS(); p.bind(Buddy(Hypercube(3)))
    >>> p.on_arrival(Job(0, 0.0, 3, 1.0), 0.0); p.on_arrival(Job(1, 0.0, 0, 1.0), 0.0)
    >>> [type(a).__name__ for a in p.decide(0.0)], len(p.queue)
    (['Start'], 1)
    """

    def __init__(self, folding: FoldingRule | None = None) -> None:
        super().__init__()
        self.folding = NoFold() if folding is None else check_has(folding, "folding", "a folding rule such as RSR(1)",
                                                                    "place", "name")
        self.name = self.folding.name
        self.queue: deque[Job] = deque()
        self.running: dict[int, Allocation] = {}
        self._demand = 0  # processors asked for by the jobs in the system (AverageLimit only)
        # The head failed to fit and nothing was released since: trying it again at an arrival
        # would fail the same way (allocators are deterministic in their state), so skip it. Not
        # for AverageLimit, whose floor moves with every arrival.
        self._blocked = False
        self._context_free = not isinstance(self.folding, AverageLimit)
        self._waits_init()

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        self.queue.append(job)
        if not self._context_free:
            self._demand += self.reference_size(job)
        return self._waits_arrival(job, now) if type(job.request) is TreeRequest else None

    def on_timer(self, key: Any, now: float) -> None:
        if self._waits_timer(key, now) is not None:
            self._blocked = False  # a relaxed request may fit where the constrained one did not

    def on_finish(self, job: Job, now: float) -> None:
        self.allocator.release(self.running.pop(job.id))
        if not self._context_free:
            self._demand -= self.reference_size(job)
        self._blocked = False

    def decide(self, now: float) -> list[Action]:
        if self._blocked and self._context_free:
            return []
        actions: list[Action] = []
        queue = self.queue
        rule = self.folding
        average = isinstance(rule, AverageLimit)
        allocate = self.allocator.allocate if type(rule) is NoFold else None
        waits = self._relaxed or self._deadlines
        while queue:
            head = queue[0]
            request = self.request_of(head) if waits else head.request
            if allocate is not None:  # NoFold.place, without the call
                alloc, folds = allocate(request), 0
            else:
                context = self._demand / (len(queue) + len(self.running)) if average else None
                got = rule.place(self.allocator, request, context)
                alloc, folds = (None, 0) if got is None else got
            if alloc is None:
                self._blocked = True
                break
            queue.popleft()
            if waits:
                self._waits_started(head)
            self.running[head.id] = alloc
            actions.append(self.start(head, alloc, folds))
        return actions

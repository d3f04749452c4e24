"""The policy contract: events in, one decision per instant out; no clock of its own."""

from __future__ import annotations

from typing import Any

from topoalloc import Allocation, Allocator

from ..kernel.actions import Action, Start
from ..kernel.jobs import Job

__all__ = ["Policy"]


class Policy:
    """Base class of every scheduling policy.

    **The contract.** A driver calls :meth:`bind` once with the allocator. Then, at every instant
    at which something happens, it

    1. delivers every event of that instant, in this order: the jobs that finished
       (:meth:`on_finish`), the timers that fired (:meth:`on_timer`), the jobs that arrived
       (:meth:`on_arrival`, in arrival order);
    2. then calls :meth:`decide` **once** and carries out the actions it returns
       (:class:`~scheduling.kernel.actions.Start`, :class:`~scheduling.kernel.actions.Resize`,
       :class:`~scheduling.kernel.actions.Suspend`, :class:`~scheduling.kernel.actions.Resume`,
       :class:`~scheduling.kernel.actions.Timer`).

    So a policy decides on the state after *all* of an instant's events (two jobs ending at the
    same second free their processors together), as Batsim and the textbook EASY of Mu'alem &
    Feitelson do, and the outcome never depends on the order in which simultaneous events were
    popped. Actions that make new events at the same instant (a zero-length job's end, a timer set
    for ``now``) start a new round at that instant: events, then ``decide`` again.

    The callbacks record; they normally return ``None``. A policy that its paper defines *per
    event* (Ismail's and Nguyen et al.'s dynamic repartitioning at every arrival and departure, the
    gang schedulers' four events) may instead return actions from a callback: the driver carries
    them out at once, before the next event of the instant is delivered, and :meth:`decide` then
    usually returns nothing.

    A job is counted over ``[start, end)``: a job of run time 0 holds no processors at any time,
    and what it frees is reusable at the instant it started (in the next round).

    Two optional attributes tell the simulator more: ``queue_head()`` returns the job the policy
    would start next if a placement existed (``None`` when it waits for something else), for the
    time blocked by topology (:class:`~scheduling.Simulator`; without it the oldest waiting job is
    the head); ``switches_wait = True`` says the policy implements the switches wait of
    :mod:`scheduling.policies.waits` (jobs whose requests wait a limited time for their leaf
    switches are refused otherwise).

    The policy owns every call to the allocator (it allocates before returning
    :class:`~scheduling.kernel.actions.Start` and releases in :meth:`on_finish`), so any event loop can
    drive it: the built-in :class:`~scheduling.Simulator`, a SimPy model
    (``examples/embed_simpy.py``), or a user's own.

    A minimal policy (FCFS without folding; the built-in one is :class:`~scheduling.policies.FCFS`):

    >>> from collections import deque
    >>> class Simple(Policy):
    ...     name = "Simple-FCFS"
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.queue, self.running = deque(), {}
    ...     def on_arrival(self, job, now):
    ...         self.queue.append(job)
    ...     def on_finish(self, job, now):
    ...         self.allocator.release(self.running.pop(job.id))
    ...     def decide(self, now):
    ...         started = []
    ...         while self.queue:
    ...             got = self.allocator.allocate(self.queue[0].request)
    ...             if got is None:
    ...                 break
    ...             job = self.queue.popleft()
    ...             self.running[job.id] = got
    ...             started.append(self.start(job, got))
    ...         return started
    >>> from scheduling import Job, simulate
    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> jobs = [Job(0, 0.0, 3, 2.0), Job(1, 0.0, 2, 1.0), Job(2, 1.0, 1, 1.0)]
    >>> simulate(FlatPool(Flat(4)), Simple(), jobs, jobs=None).start.tolist()
    [0.0, 2.0, 2.0]
    """

    #: The name the paper uses (``"FCFS"``, ``"RSR-1"``, ``"EASY"``, ...).
    name: str = "policy"

    def __init__(self) -> None:
        # ``None`` until :meth:`bind`; typed as bound, since every callback and helper runs after it.
        self.allocator: Allocator = None  # type: ignore[assignment]

    def bind(self, allocator: Allocator) -> None:
        """Attach the allocator. A policy object serves one simulation; binding twice is an error."""
        if self.allocator is not None and self.allocator is not allocator:
            raise RuntimeError(f"policy {self.name} is already bound to {self.allocator!r}; make a new one")
        self.allocator = allocator

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        """``job`` arrived at ``now``. Record it; return ``None`` (or, per-event policies, actions)."""
        raise NotImplementedError

    def on_finish(self, job: Job, now: float) -> list[Action] | None:
        """``job`` has done all its work at ``now``: release its allocation (the policy owns it)."""
        raise NotImplementedError

    def on_timer(self, key: Any, now: float) -> list[Action] | None:
        """A :class:`~scheduling.kernel.actions.Timer` the policy asked for fired."""
        return None

    def decide(self, now: float) -> list[Action]:
        """The actions to carry out at ``now``, after every event of the instant was delivered.
        Called once per instant (and once more for each further round at the same instant)."""
        return []

    # -- helpers ------------------------------------------------------------------------------
    def reference_size(self, job: Job) -> int:
        """Processors ``job``'s run time refers to: its request as this allocator counts it."""
        return self.allocator.request_size(job.request)

    def start(self, job: Job, allocation: Allocation, folds: int = 0, delay: float = 0.0) -> Start:
        """The :class:`~scheduling.kernel.actions.Start` action for ``job`` on ``allocation``: the driver
        needs the processors granted and the reference count the job's run time is given for
        (both as the allocator counts them), and how many times the request was folded."""
        return Start(job, allocation, allocation.size, self.allocator.request_size(job.request), folds, delay)

    def __repr__(self) -> str:
        return f"<policy {self.name}>"

"""The policy contract: callbacks in, actions out; no clock of its own."""

from __future__ import annotations

from typing import Any

from topoalloc import Allocation, Allocator

from ..actions import Action, Start
from ..jobs import Job

__all__ = ["Policy"]


class Policy:
    """Base class of every scheduling policy.

    A driver calls :meth:`bind` once with the allocator, then :meth:`on_arrival` when a job
    arrives, :meth:`on_finish` when a running job has done all its work, and :meth:`on_timer` when
    a :class:`~scheduling.actions.Timer` the policy asked for fires. Each returns a list of
    actions. The policy owns every call to the allocator (it allocates before returning
    :class:`~scheduling.actions.Start` and releases in ``on_finish``), so any event loop can drive
    it: the built-in :class:`~scheduling.Simulator`, a SimPy model (``examples/embed_simpy.py``),
    or a user's own.
    """

    #: The name the paper uses (``"FCFS"``, ``"RSR-1"``, ``"EASY"``, ...).
    name: str = "policy"

    def __init__(self) -> None:
        self.allocator: Allocator | None = None

    def bind(self, allocator: Allocator) -> None:
        """Attach the allocator. A policy object serves one simulation; binding twice is an error."""
        if self.allocator is not None and self.allocator is not allocator:
            raise RuntimeError(f"policy {self.name} is already bound to {self.allocator!r}; make a new one")
        self.allocator = allocator

    def on_arrival(self, job: Job, now: float) -> list[Action]:
        raise NotImplementedError

    def on_finish(self, job: Job, now: float) -> list[Action]:
        raise NotImplementedError

    def on_timer(self, key: Any, now: float) -> list[Action]:
        return []

    # -- helpers ------------------------------------------------------------------------------
    def reference_size(self, job: Job) -> int:
        """Processors ``job``'s run time refers to: its request as this allocator counts it."""
        return self.allocator.request_size(job.request)

    def start(self, job: Job, allocation: Allocation, folds: int = 0, delay: float = 0.0) -> Start:
        """The :class:`Start` action for ``job`` on ``allocation``."""
        a = self.allocator
        return Start(job, allocation, a.request_size(allocation.request), a.request_size(job.request), folds, delay)

    def __repr__(self) -> str:
        return f"<policy {self.name}>"

"""Occupancy snapshots during a simulation, for the occupancy pictures.

:class:`SnapshotPolicy` wraps any policy and copies the allocator's ``occupancy`` view (allocation
ids per node: ``(height, width)`` on a mesh, 1D on a cube or tree) after the decision of the first
instant at or after each requested time. It changes nothing in the schedule: it forwards every
callback and ``decide``, and returns the wrapped policy's actions unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import check_real
from ..kernel.actions import Action
from ..kernel.jobs import Job
from ..kernel.result import SimulationResult
from ..policies import get as get_policy
from ..policies.base import Policy

__all__ = ["SnapshotPolicy", "record_occupancy"]


class SnapshotPolicy(Policy):
    """``inner`` (a policy or a registry name), recording ``(time, occupancy)`` in ``snapshots``
    after the first instant at or after each of ``times`` (ascending). Cost: one O(machine size)
    copy per snapshot."""

    def __init__(self, inner: Policy | str, times: Sequence[float]) -> None:
        super().__init__()
        self.inner = get_policy(inner) if isinstance(inner, str) else inner
        self.name = self.inner.name
        self.times = sorted(check_real(t, f"times[{i}] (a snapshot time)", low=0) for i, t in enumerate(times))
        self.snapshots: list[tuple[float, np.ndarray]] = []
        self._next = 0
        head = getattr(self.inner, "queue_head", None)
        if callable(head):  # the simulator's blocked-by-topology measure asks the wrapped policy
            self.queue_head = head

    @property
    def switches_wait(self) -> bool:
        """Whether the wrapped policy implements the switches wait (:mod:`scheduling.policies.waits`)."""
        return bool(getattr(self.inner, "switches_wait", False))

    def bind(self, allocator: Any) -> None:
        super().bind(allocator)
        self.inner.bind(allocator)

    def reference_size(self, job: Job) -> int:
        return self.inner.reference_size(job)

    def _snap(self, now: float) -> None:
        while self._next < len(self.times) and now >= self.times[self._next]:
            if not self.snapshots or self.snapshots[-1][0] != now:
                self.snapshots.append((now, np.array(self.allocator.occupancy)))
            self._next += 1

    def on_arrival(self, job: Job, now: float) -> list[Action] | None:
        return self.inner.on_arrival(job, now)

    def on_finish(self, job: Job, now: float) -> list[Action] | None:
        return self.inner.on_finish(job, now)

    def on_timer(self, key: Any, now: float) -> list[Action] | None:
        return self.inner.on_timer(key, now)

    def decide(self, now: float) -> list[Action]:
        acts = self.inner.decide(now)
        self._snap(now)  # the occupancy after the instant's decision (the allocator is the policy's)
        return acts


def record_occupancy(allocator: Any, policy: Policy | str, workload: Any, *, times: Sequence[float],
                     jobs: int | None, warmup: int = 0, seed: int = 0
                     ) -> tuple[SimulationResult, list[tuple[float, np.ndarray]]]:
    """Simulate and return the result and the ``(time, occupancy)`` snapshots at ``times``."""
    from ..kernel.api import simulate

    rec = SnapshotPolicy(policy, times)
    result = simulate(allocator, rec, workload, jobs=jobs, warmup=warmup, seed=seed)
    return result, rec.snapshots

"""Actions a policy returns from its callbacks; the driver (our simulator, or a user's event loop)
carries them out.

All are frozen slotted values. ``processors`` is the count the job runs on; ``reference`` the
count its run time is given for (what it asked for, as the allocator counts it), so the driver can
compute the job's rate without knowing the topology: ``rate = 1 / job.time_on(processors,
reference)`` of the job's work per time unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jobs import Job

__all__ = ["Action", "Start", "Resize", "Suspend", "Resume", "Timer"]


@dataclass(frozen=True, slots=True)
class Start:
    """Start ``job`` now on ``allocation`` (opaque to the driver), after ``delay`` time units of
    set-up during which it makes no progress. ``folds`` is how many times the request was folded."""

    job: Job
    allocation: Any
    processors: int
    reference: int
    folds: int = 0
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Resize:
    """Change a running job's processor count (dynamic space sharing). ``delay`` is the
    reconfiguration overhead (Ismail's C) during which the job makes no progress."""

    job: Job
    processors: int
    allocation: Any = None
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Suspend:
    """Stop a running job's progress, keeping its processors (gang scheduling: slice out)."""

    job: Job


@dataclass(frozen=True, slots=True)
class Resume:
    """Let a suspended job progress again after ``delay`` (a context switch)."""

    job: Job
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Timer:
    """Call the policy's ``on_timer(key, now)`` at time ``at``."""

    at: float
    key: Any = None


Action = Start | Resize | Suspend | Resume | Timer

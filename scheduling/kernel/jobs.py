"""Jobs and the per-job record a simulation produces."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .._validate import ParameterError, check_real, shown
from ..models.speedup import Linear, Speedup

__all__ = ["Job", "JobRecord", "JobStream"]

_LINEAR = Linear()
_INF = float("inf")


@dataclass(frozen=True, slots=True)
class Job:
    """One job of a workload.

    ``request`` is the topology request (``(w, h)``, ``k``, or a count), ``runtime`` its run time on
    that request, ``speedup`` how that changes on fewer (or more) processors, ``estimate`` the
    user's run-time estimate (backfilling uses it; defaults to ``runtime``), ``size`` the processor
    count the job asked for before any rounding (traces; defaults to the request's size),
    ``attrs`` anything else a policy may use (Downey's ``A`` and ``sigma``, a user id, ...), and
    ``comm`` the fraction of its run time spent communicating, in ``[0, 1]`` (used only by a
    placement-dependent run-time model, :mod:`scheduling.models.runtime`; 0 by default).

    ``arrival`` must be a finite number and ``runtime`` a finite number >= 0
    (:class:`~topologies.errors.ParameterError` otherwise: a NaN or infinite time would make
    every result NaN or stop a simulation from ending).
    """

    id: int
    arrival: float
    request: Any
    runtime: float
    speedup: Speedup = _LINEAR
    estimate: float | None = None
    size: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    comm: float = 0.0

    def __post_init__(self) -> None:
        a, r = self.arrival, self.runtime
        try:
            ok = -_INF < a < _INF and 0.0 <= r < _INF and type(a) is not bool and type(r) is not bool
        except TypeError:  # not numbers
            ok = False
        if not ok:
            _refuse(self)
        c = self.comm
        if c != 0.0 and (type(c) is bool or not 0.0 <= c <= 1.0):  # also refuses NaN
            raise ParameterError(f"job {self.id}: the communication fraction comm must be in [0, 1], got {c!r}")

    def time_on(self, m: float, n: int) -> float:
        """Run time on ``m`` processors given the job's reference size ``n``."""
        return self.speedup.time(self.runtime, n, m)


def _refuse(job: Job) -> None:
    check_real(job.arrival, f"job {job.id}: arrival")
    check_real(job.runtime, f"job {job.id}: runtime", low=0)
    raise ParameterError(  # pragma: no cover - the checks above always raise for a refused job
        f"job {job.id}: arrival {shown(job.arrival)}, runtime {shown(job.runtime)}")


@dataclass(frozen=True, slots=True)
class JobRecord:
    """What happened to one job: times, requested (reference) and granted processors, folds, the
    number of allocation changes after its start and the processors they moved (sum of ``|Δp|``)."""

    id: int
    arrival: float
    start: float
    end: float
    requested: int
    granted: int
    folds: int
    changes: int
    runtime: float
    moved: int = 0

    @property
    def wait(self) -> float:
        return self.start - self.arrival

    @property
    def turnaround(self) -> float:
        return self.end - self.arrival


class JobStream:
    """Mixin for workloads: a ``jobs(seed)`` generator gets :meth:`take`."""

    __slots__ = ()

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        raise NotImplementedError

    def take(self, count: int, seed: int = 0) -> list[Job]:
        """The first ``count`` jobs for ``seed`` (fewer if a finite stream ends first)."""
        return list(itertools.islice(self.jobs(seed), count))

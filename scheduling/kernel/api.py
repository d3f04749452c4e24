"""One-call entry points."""

from __future__ import annotations

from typing import Any

from topoalloc import Allocator

from ..policies.base import Policy
from .result import SimulationResult
from .simulator import Simulator

__all__ = ["simulate", "EmptyWorkloadError"]


class EmptyWorkloadError(ValueError):
    """:func:`simulate` was given a finite workload without a single job (an empty, comments-only
    or fully skipped trace, an empty list); the message says why, from a trace's skip report."""


def simulate(
    allocator: Allocator,
    policy: Policy | str,
    workload: Any,
    *,
    jobs: int | None,
    warmup: int = 0,
    seed: int = 0,
    until: float | None = None,
    record_state: bool = False,
    record_placement: bool = False,
    runtime_model: Any = None,
    record_contention: bool = False,
    record_fragmentation: bool | float = False,
) -> SimulationResult:
    """Simulate ``policy`` (a registry name such as ``"RSR-1"`` or a policy object) on a fresh
    ``allocator`` with ``workload`` (a :class:`~scheduling.workloads.Synthetic`, a trace, or a list
    of jobs), stopping after ``jobs`` completions (``None``: when the workload is exhausted) and
    discarding the first ``warmup`` jobs from the statistics. ``seed`` selects the workload's
    random streams. ``record_state``, ``record_placement``, ``runtime_model``,
    ``record_contention`` and ``record_fragmentation`` are the :class:`~scheduling.Simulator`
    options of the same names.

    Refused before anything runs, with a :class:`~topologies.errors.ParameterError` or a request
    error naming the values: numbers that are not numbers of their kind (``jobs=0``,
    ``until=float("nan")``, ``seed=-1``), ``jobs=None`` without ``until=`` on an endless workload
    (a :class:`~scheduling.workloads.Synthetic` one), and a workload whose requests the allocator
    cannot take or that are larger than the machine (:func:`scheduling.kernel.simulator.check_requests`,
    which asks the allocator: a non-contiguous mesh allocator takes a processor count as well as a
    ``(w, h)`` pair, a contiguous one only the pair). A run on an endless
    workload whose queue runs away (an absurd offered load such as ``load=1e9``: arrivals outpacing
    completions more than tenfold) stops early with a
    :class:`~scheduling.kernel.simulator.RunawayBacklogWarning` and is flagged ``saturated`` (the
    simulator's "Runaway backlog"), so time and memory stay bounded whatever the load.

    >>> from topoalloc import Buddy; from topologies import Hypercube
    >>> from scheduling.workloads import Synthetic, CubeDims, Exponential
    >>> w = Synthetic(CubeDims(7), Exponential(5.0), load=0.5, machine_size=256)
    >>> s = simulate(Buddy(Hypercube(8)), "RSR-1", w, jobs=2000, warmup=100, seed=1).summary()
    >>> s["jobs"] >= 1800 and 0.0 < s["utilization"] < 1.0
    True
    """
    _check_not_empty(workload)
    return Simulator(
        allocator, policy, workload, jobs=jobs, warmup=warmup, seed=seed, until=until, record_state=record_state,
        record_placement=record_placement, runtime_model=runtime_model, record_contention=record_contention,
        record_fragmentation=record_fragmentation,
    ).run()


def _check_not_empty(workload: Any) -> None:
    """Raise :class:`EmptyWorkloadError` for a workload that has a length and it is zero (a run
    without jobs has no statistics: every metric would be NaN)."""
    try:
        empty = len(workload) == 0
    except TypeError:  # a stream: its length is unknown
        return
    if empty:
        reason = getattr(getattr(workload, "report", None), "no_jobs_reason", None)
        why = reason() if reason is not None else "the workload has no jobs"
        raise EmptyWorkloadError(f"no job to simulate: {why}")

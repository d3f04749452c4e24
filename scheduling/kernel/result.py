"""The result of one simulation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics.summary import fairness, saturation, summarize
from .jobs import JobRecord

__all__ = ["SimulationResult"]


@dataclass(frozen=True)
class SimulationResult:
    """Per-job records of the kept jobs (a numpy structured array ``table`` with columns ``id``,
    ``ordinal``, ``arrival``, ``start``, ``end``, ``requested``, ``granted``, ``folds``,
    ``changes`` (resizes after the start), ``moved`` (processors moved by those resizes, the sum of
    ``|Δp|``), ``runtime``, in arrival order; on a switch tree also ``leaf_switches`` and
    ``relaxed``; with a run-time model that re-rates running jobs (the contention model) also
    ``dilation`` and ``interference``, the time the job's placement alone cost it and the time it
    lost to the other jobs' traffic, see :class:`~scheduling.Simulator`) and the time-weighted
    machine state over ``window``, with the time the head of the queue was blocked by the
    topology."""

    table: np.ndarray
    size: int
    window: tuple[float, float]
    busy_integral: float
    effectiveness_integral: float
    demand_time: float
    policy: str
    allocator: str
    unfinished: int
    state: dict[str, np.ndarray] | None = None
    #: Job id -> read-only ascending node ids of its last allocation (``record_placement=True``).
    placements: Mapping[int, np.ndarray] | None = None
    #: Jobs in the system (queued or running) seen by each kept job as it arrived, in arrival order:
    #: the evidence :meth:`saturation` reads. ``None`` for results built without it.
    backlog: np.ndarray | None = None
    #: Time within the window during which the head of the queue waited although its processor
    #: count was free (blocked by the topology or the allocator's rule; :class:`~scheduling.Simulator`).
    blocked_time: float = 0.0
    #: Maximal intervals of such waiting that began within the window.
    blocked_episodes: int = 0

    def __getattr__(self, name: str) -> Any:
        table = self.__dict__.get("table")
        if table is not None and name in table.dtype.names:
            return table[name]
        raise AttributeError(name)

    def __len__(self) -> int:
        return len(self.table)

    @property
    def duration(self) -> float:
        return self.window[1] - self.window[0]

    @property
    def utilization(self) -> float:
        """Time-averaged fraction of processors held by running jobs over the window."""
        d = self.duration
        return self.busy_integral / (self.size * d) if d > 0 else 0.0

    @property
    def effectiveness(self) -> float:
        """Time-averaged scheduling effectiveness S_e while there was demand."""
        return self.effectiveness_integral / self.demand_time if self.demand_time > 0 else 1.0

    @property
    def turnaround(self) -> np.ndarray:
        return self.table["end"] - self.table["arrival"]

    @property
    def wait(self) -> np.ndarray:
        return self.table["start"] - self.table["arrival"]

    @property
    def blocked_fraction(self) -> float:
        """:attr:`blocked_time` as a fraction of the window (0 for an empty window)."""
        d = self.duration
        return self.blocked_time / d if d > 0 else 0.0

    def summary(self, tau: float = 10.0) -> dict:
        """``mean_turnaround``, ``mean_wait``, ``utilization``, ``effectiveness``,
        ``mean_folding_factor``, ``fraction_folded``, slowdowns, percentiles and ``jobs``, and
        whether the run was ``saturated`` with the evidence (``backlog_growth``,
        ``backlog_rise_sd``, ``unfinished``; see :meth:`saturation`); ``blocked_by_topology`` (the
        time the head of the queue waited although its processor count was free),
        ``blocked_fraction`` (of the window) and ``blocked_episodes``; on a switch tree
        ``mean_leaf_switches`` and ``fraction_relaxed``; with the contention model
        ``mean_dilation`` and ``mean_interference`` (time units per job) and
        ``interference_fraction`` (the share of the kept jobs' run time lost to other jobs). A
        saturated run's turnaround and wait grow with the run's length: they are not properties of
        the system."""
        out = summarize(self.table, utilization=self.utilization, effectiveness=self.effectiveness, tau=tau)
        names = self.table.dtype.names or ()
        if "interference" in names:
            lost, dil = self.table["interference"], self.table["dilation"]
            ran = float((self.table["end"] - self.table["start"]).sum())
            out.update(mean_dilation=float(dil.mean()) if len(dil) else float("nan"),
                       mean_interference=float(lost.mean()) if len(lost) else float("nan"),
                       interference_fraction=float(lost.sum()) / ran if ran > 0 else 0.0)
        out.update(self.saturation())
        out.update(blocked_by_topology=float(self.blocked_time), blocked_fraction=self.blocked_fraction,
                   blocked_episodes=int(self.blocked_episodes))
        return out

    def saturation(self) -> dict:
        """``saturated`` (``True``/``False``, ``None`` when the run had too few kept jobs or was
        built without :attr:`backlog`) and the evidence: ``backlog_growth`` (jobs added to the
        backlog per arriving job), ``backlog_rise_sd`` (the backlog's rise over the run in standard
        deviations) and ``unfinished`` (see :func:`scheduling.metrics.saturation`).

        >>> from topoalloc import Buddy; from topologies import Hypercube
        >>> from scheduling import simulate
        >>> from scheduling.workloads import Synthetic, CubeDims, Exponential
        >>> w = Synthetic(CubeDims(7), Exponential(5.0), load=0.8, machine_size=256)
        >>> [simulate(Buddy(Hypercube(8)), p, w, jobs=5000, warmup=500, seed=1).saturation()["saturated"]
        ...  for p in ("RSR-0", "RSR-1")]
        [True, False]
        """
        return saturation(self.backlog, self.unfinished)

    def fairness(self, bins: Sequence[float] | None = None) -> dict:
        """Mean turnaround by requested size (see :func:`scheduling.metrics.fairness`)."""
        return fairness(self.table, bins=bins)

    def records(self) -> list[JobRecord]:
        """The kept jobs as :class:`~scheduling.kernel.jobs.JobRecord` values."""
        t = self.table
        return [
            JobRecord(int(r["id"]), float(r["arrival"]), float(r["start"]), float(r["end"]), int(r["requested"]),
                      int(r["granted"]), int(r["folds"]), int(r["changes"]), float(r["runtime"]),
                      int(r["moved"]))
            for r in t
        ]

    def schedule(self) -> list[tuple[int, float, float, int]]:
        """``(id, start, end, granted)`` per kept job, in arrival order: two runs gave the same
        schedule iff these are equal."""
        t = self.table
        return list(zip(t["id"].tolist(), t["start"].tolist(), t["end"].tolist(), t["granted"].tolist(), strict=True))

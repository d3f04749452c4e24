"""Downey's metrics and day-by-day experiments (seed 001 §4–4.1, §6.3 Table 1).

A. B. Downey, *A parallel workload model and its implications for processor allocation*,
UCB/CSD-96-922. From a :class:`~scheduling.kernel.result.SimulationResult` and the jobs it ran:

* **load average** — fraction of processors allocated to jobs, averaged over the measurement
  window (§4.1);
* **utilization** — the same weighted by each job's efficiency ``S(n) / n``: ``sum S(n_i) x
  (time job i runs inside the window) / (N x window)`` (§4.1);
* **queue time** ``start - arrival``; **turnaround** ``end - arrival``;
* **cluster size** — processors granted; its mean and coefficient of variation (population
  standard deviation over the mean), as in Table 1;
* **slowdown** (Eq. 5) ``(queue time + R(n)) / R(N)``, ``R(N)`` the job's run time on all ``N``
  processors, and its 90th percentile (the paper's footnote 2: slowdown is long-tailed).

**Days.** The paper averages "over 120 simulated days" (§6.3) and Fig. 11's caption speaks of
"1200 day-long simulated runs", so every day is a separate simulation of an empty machine
(:func:`simulate_days`, one workload seed per day, the same seeds for every strategy): 12 hours of
arrivals, then the night, in which "the existing jobs continue to run until all queued jobs have
been scheduled" (§4). **Interpretation:** the load average and utilization of a day are measured
over ``[0, max(12 h, last start)]`` — the day-time phase extended until the queue is empty, the
run that sentence describes — because the paper's Table 1 values (load .64–.81 and utilization
about .5 at ``rho = 0.75``) can only come from a window about that long (over 24 hours
utilization could not exceed ``rho / 2``). At ``rho = 0.75`` the queue empties 0–0.4 h after the
day ends, so the window is nearly the same for every strategy. With it Table 1 reproduces cell by
cell (120 days: load .61–.82, utilization .48–.53 over seeds 5–7; the paper .64–.81 and
.49–.52); a continuous simulation in which each day inherits the previous day's running jobs
gives utilization .54–.56 and is not what the paper measured. Per-job metrics cover every job of
the day, however late it ends. Days are pooled: per-job statistics over all jobs, load and
utilization as total integrals over total window.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from topoalloc import FlatPool
from topologies import Flat

from .._validate import check_int, check_seed
from ..kernel.api import simulate
from ..kernel.jobs import Job
from ..kernel.result import SimulationResult
from ..policies.base import Policy
from ..workloads.downey import Downey

__all__ = [
    "DayRun",
    "simulate_days",
    "day_seeds",
    "measurement_window",
    "load_average",
    "utilization",
    "queue_times",
    "cluster_sizes",
    "cluster_size_cv",
    "slowdowns",
    "summarize_days",
    "TABLE1_COLUMNS",
]

#: Columns of :func:`summarize_days` in Table 1's order (plus turnaround and the job count).
TABLE1_COLUMNS = ("load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size",
                  "cv_cluster_size", "p90_slowdown")


@dataclass(frozen=True)
class DayRun:
    """One simulated day: the result, the jobs it ran (by id) and the day-time phase length."""

    result: SimulationResult
    jobs: Mapping[int, Job]
    day: float

    @property
    def window(self) -> tuple[float, float]:
        return measurement_window(self.result, self.day)


def _by_id(jobs: Mapping[int, Job] | Iterable[Job]) -> Mapping[int, Job]:
    if isinstance(jobs, Mapping):
        return jobs
    return {j.id: j for j in jobs}


def day_seeds(seed: int, days: int) -> list[int]:
    """``days`` independent workload seeds derived from ``seed`` (``SeedSequence`` children)."""
    check_int(days, "days", low=1)
    check_seed(seed)
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(days)]


def simulate_days(policy: str | Callable[[], Policy], *, N: int = 64, load: float = 0.75, days: int = 120,
                  seed: int = 0, workload: Downey | None = None) -> list[DayRun]:
    """Simulate ``days`` independent day-long runs of ``policy`` (a registry name or a factory of
    fresh policies) on a fresh ``FlatPool(Flat(N))`` each, with the Downey workload at offered
    ``load`` (or ``workload``, which must have ``days=1``). Day ``i`` uses seed ``day_seeds(seed,
    days)[i]`` whatever the policy (common random numbers). Each run lasts until every job of the
    day has finished."""
    w = workload if workload is not None else Downey(N=N, load=load, days=1)
    if w.days != 1:
        raise ValueError(f"simulate_days needs a one-day workload (days=1), got days={w.days!r}")
    runs = []
    for s in day_seeds(seed, days):
        jobs = list(w.jobs(s))
        pol = policy if isinstance(policy, str) else policy()
        res = simulate(FlatPool(Flat(w.N)), pol, jobs, jobs=None)
        runs.append(DayRun(res, {j.id: j for j in jobs}, w.day))
    return runs


def measurement_window(result: SimulationResult, day: float = 43200.0) -> tuple[float, float]:
    """``(0, max(day, last start))``: the day-time phase, extended until no job is queued (see the
    module docstring)."""
    starts = result.table["start"]
    last = float(starts.max()) if len(starts) else 0.0
    return 0.0, max(day, last)


def _overlap(table: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    t0, t1 = window
    return np.clip(np.minimum(table["end"], t1) - np.maximum(table["start"], t0), 0.0, None)


def _busy_integral(result: SimulationResult, window: tuple[float, float]) -> float:
    t = result.table
    return float((t["granted"] * _overlap(t, window)).sum())


def _useful_integral(result: SimulationResult, jobs: Mapping[int, Job], window: tuple[float, float]) -> float:
    t = result.table
    speedups = np.array([jobs[i].speedup.speedup(n) for i, n in zip(t["id"].tolist(), t["granted"].tolist(),
                                                                     strict=True)], dtype=float)
    return float((speedups * _overlap(t, window)).sum())


def load_average(result: SimulationResult, window: tuple[float, float] | None = None) -> float:
    """Fraction of processors allocated, averaged over ``window`` (default
    :func:`measurement_window`). Jobs must keep their cluster size (Downey's strategies do)."""
    w = window if window is not None else measurement_window(result)
    span = w[1] - w[0]
    return _busy_integral(result, w) / (result.size * span) if span > 0 else 0.0


def utilization(result: SimulationResult, jobs: Mapping[int, Job] | Iterable[Job],
                window: tuple[float, float] | None = None) -> float:
    """Efficiency-weighted utilization: ``sum S_i(n_i) x overlap_i / (N x window)`` (§4.1)."""
    w = window if window is not None else measurement_window(result)
    span = w[1] - w[0]
    return _useful_integral(result, _by_id(jobs), w) / (result.size * span) if span > 0 else 0.0


def queue_times(result: SimulationResult) -> np.ndarray:
    """``start - arrival`` per job."""
    return result.table["start"] - result.table["arrival"]


def cluster_sizes(result: SimulationResult) -> np.ndarray:
    """Processors granted per job."""
    return result.table["granted"].astype(float)


def cluster_size_cv(sizes: np.ndarray) -> float:
    """Coefficient of variation ``std / mean`` (population standard deviation)."""
    sizes = np.asarray(sizes, dtype=float)
    m = sizes.mean() if len(sizes) else math.nan
    return float(sizes.std() / m) if m else math.nan


def slowdowns(result: SimulationResult, jobs: Mapping[int, Job] | Iterable[Job]) -> np.ndarray:
    """Eq. 5 per job: ``(queue time + R(n)) / R(N)`` with ``R(N)`` the job's run time on all
    ``N`` processors of the machine."""
    by_id = _by_id(jobs)
    t = result.table
    N = result.size
    rN = np.array([by_id[i].time_on(N, ref) for i, ref in zip(t["id"].tolist(), t["requested"].tolist(),
                                                                strict=True)], dtype=float)
    return (t["end"] - t["arrival"]) / rN


def summarize_days(runs: Sequence[DayRun]) -> dict[str, float]:
    """Table 1's statistics pooled over ``runs``: ``load_average``, ``utilization``,
    ``mean_turnaround``, ``mean_queue_time``, ``mean_cluster_size``, ``cv_cluster_size``,
    ``p90_slowdown``, plus ``mean_slowdown``, ``jobs``, ``days`` and ``unfinished``."""
    if not runs:
        raise ValueError("summarize_days needs at least one day")
    busy = useful = capacity = 0.0
    waits, turns, sizes, slows = [], [], [], []
    unfinished = 0
    for run in runs:
        r = run.result
        w = run.window
        busy += _busy_integral(r, w)
        useful += _useful_integral(r, run.jobs, w)
        capacity += r.size * (w[1] - w[0])
        waits.append(queue_times(r))
        turns.append(r.turnaround)
        sizes.append(cluster_sizes(r))
        slows.append(slowdowns(r, run.jobs))
        unfinished += r.unfinished
    wait, turn, size, slow = (np.concatenate(x) for x in (waits, turns, sizes, slows))
    return {
        "load_average": busy / capacity,
        "utilization": useful / capacity,
        "mean_turnaround": float(turn.mean()),
        "mean_queue_time": float(wait.mean()),
        "mean_cluster_size": float(size.mean()),
        "cv_cluster_size": cluster_size_cv(size),
        "p90_slowdown": float(np.percentile(slow, 90)),
        "mean_slowdown": float(slow.mean()),
        "jobs": int(len(turn)),
        "days": len(runs),
        "unfinished": unfinished,
    }

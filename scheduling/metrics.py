"""Metrics from per-job records, and confidence intervals over replications.

Definitions (seed 000 §1.1, §2.3; seed 001 §4.1; seed 002 §4.1):

* turnaround (response) time ``end - arrival``; wait ``start - arrival``;
* utilization: time-averaged fraction of processors held by running jobs;
* scheduling effectiveness ``S_e = P_a / min(P, P_d)``, time-averaged over the time the demand
  ``P_d`` (processors asked for by the jobs in the system) is positive;
* folding factor of a job ``n / P_al`` (requested over granted processors), its mean over jobs,
  and the fraction of jobs folded;
* slowdown ``turnaround / runtime`` (run time on the requested size) and bounded slowdown
  ``max(1, turnaround / max(runtime, tau))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._validate import ParameterError, check_int, check_real

__all__ = ["summarize", "fairness", "t_quantile", "Estimate", "confidence_interval", "combine", "replicate_until"]


def summarize(table: np.ndarray, *, utilization: float, effectiveness: float, tau: float = 10.0) -> dict:
    """The standard summary of a result table (see the module docstring)."""
    check_real(tau, "tau (the bounded slowdown's run-time floor)", low=0, low_open=True)
    n = len(table)
    if n == 0:
        nan = float("nan")
        return {"jobs": 0, "mean_turnaround": nan, "mean_wait": nan, "utilization": utilization,
                "effectiveness": effectiveness, "mean_folding_factor": nan, "fraction_folded": nan,
                "mean_slowdown": nan, "mean_bounded_slowdown": nan, "p50_turnaround": nan,
                "p90_turnaround": nan, "p99_turnaround": nan, "p90_slowdown": nan}
    turn = table["end"] - table["arrival"]
    wait = table["start"] - table["arrival"]
    run = table["runtime"]
    with np.errstate(divide="ignore", invalid="ignore"):
        slow = np.where(run > 0, turn / np.where(run > 0, run, 1.0), np.nan)
    bounded = np.maximum(1.0, turn / np.maximum(run, tau))
    fold = table["requested"] / np.maximum(table["granted"], 1)
    p50, p90, p99 = np.percentile(turn, [50, 90, 99])
    valid_slow = slow[~np.isnan(slow)]
    return {
        "jobs": int(n),
        "mean_turnaround": float(turn.mean()),
        "mean_wait": float(wait.mean()),
        "utilization": float(utilization),
        "effectiveness": float(effectiveness),
        "mean_folding_factor": float(fold.mean()),
        "fraction_folded": float((table["folds"] > 0).mean()),
        "mean_slowdown": float(valid_slow.mean()) if len(valid_slow) else float("nan"),
        "mean_bounded_slowdown": float(bounded.mean()),
        "p50_turnaround": float(p50),
        "p90_turnaround": float(p90),
        "p99_turnaround": float(p99),
        "p90_slowdown": float(np.percentile(valid_slow, 90)) if len(valid_slow) else float("nan"),
    }


def fairness(table: np.ndarray, *, by: str = "requested", bins: Sequence[float] | None = None) -> dict:
    """Mean turnaround grouped by requested size (the papers' fairness curves).

    Returns ``{"size": array, "mean_turnaround": array, "jobs": array}``. Without ``bins`` every
    distinct value of ``by`` is a group; with ``bins`` (edges) values are grouped by bin and
    ``size`` holds each bin's left edge.
    """
    turn = table["end"] - table["arrival"]
    key = table[by]
    if bins is None:
        sizes, inv = np.unique(key, return_inverse=True)
    else:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or len(edges) < 2 or not np.isfinite(edges).all() or (np.diff(edges) <= 0).any():
            raise ParameterError(f"bins must be at least two finite, increasing bin edges, got {bins!r}")
        inv = np.clip(np.searchsorted(edges, key, side="right") - 1, 0, len(edges) - 2)
        sizes = edges[:-1]
    count = np.bincount(inv, minlength=len(sizes))
    total = np.bincount(inv, weights=turn, minlength=len(sizes))
    keep = count > 0
    return {"size": sizes[keep], "mean_turnaround": total[keep] / count[keep], "jobs": count[keep]}


# Student t, two-sided 95% (0.975 quantile), df = 1..30; beyond, interpolated in 1/df to 1.95996.
_T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]
_T975_60, _T975_120, _Z975 = 2.0003, 1.9799, 1.959964


def t_quantile(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (for 95% intervals);
    exact table values for df <= 30, 60, 120, harmonic interpolation between them."""
    df = check_int(df, "degrees of freedom df", low=1)
    if df <= 30:
        return _T975[df - 1]
    points = [(30, _T975[-1]), (60, _T975_60), (120, _T975_120), (math.inf, _Z975)]
    for (d0, v0), (d1, v1) in zip(points, points[1:], strict=False):
        if df <= d1:
            x0, x1, x = 1 / d0, (0.0 if d1 == math.inf else 1 / d1), 1 / df
            return v0 + (v1 - v0) * (x0 - x) / (x0 - x1)
    return _Z975


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over replications with its 95% Student-t half-width."""

    mean: float
    half_width: float
    n: int

    @property
    def relative_half_width(self) -> float:
        return self.half_width / abs(self.mean) if self.mean else math.inf

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def __str__(self) -> str:
        return f"{self.mean:.4g} ± {self.half_width:.2g}"


def confidence_interval(values: Sequence[float]) -> Estimate:
    """Mean and 95% half-width of independent replications (NaN half-width for one value)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        raise ValueError("no values")
    if n == 1:
        return Estimate(float(x[0]), float("nan"), 1)
    return Estimate(float(x.mean()), float(t_quantile(n - 1) * x.std(ddof=1) / math.sqrt(n)), n)


def combine(summaries: Sequence[dict]) -> dict[str, Estimate]:
    """Per-metric :class:`Estimate` over the summaries of independent replications."""
    keys = [k for k, v in summaries[0].items() if isinstance(v, (int, float))]
    return {k: confidence_interval([s[k] for s in summaries]) for k in keys}


def replicate_until(run: Callable[[int], dict], *, metric: str = "mean_turnaround", relative: float = 0.05,
                    min_runs: int = 3, max_runs: int = 30) -> tuple[dict[str, Estimate], list[dict]]:
    """Call ``run(replication)`` until the 95% half-width of ``metric`` is at most ``relative`` of
    its mean (the seeds use 5%), or ``max_runs`` replications. Returns the estimates and the
    per-replication summaries."""
    check_real(relative, "relative (half-width over the mean)", low=0, low_open=True)
    check_int(min_runs, "min_runs (>= 2 to estimate a half-width)", low=2)
    check_int(max_runs, "max_runs", low=min_runs)
    summaries: list[dict] = []
    for rep in range(max_runs):
        summaries.append(run(rep))
        if len(summaries) >= min_runs:
            est = confidence_interval([s[metric] for s in summaries])
            if est.relative_half_width <= relative:
                break
    return combine(summaries), summaries

"""Metrics from per-job records, and confidence intervals over replications.

Definitions (seed 000 §1.1, §2.3; seed 001 §4.1; seed 002 §4.1):

* turnaround (response) time ``end - arrival``; wait ``start - arrival``;
* utilization: time-averaged fraction of processors held by running jobs;
* scheduling effectiveness ``S_e = P_a / min(P, P_d)``, time-averaged over the time the demand
  ``P_d`` (processors asked for by the jobs in the system) is positive;
* folding factor of a job ``n / P_al`` (requested over granted processors), its mean over jobs,
  and the fraction of jobs folded;
* slowdown ``turnaround / runtime`` (run time on the requested size) and bounded slowdown
  ``max(1, turnaround / max(runtime, tau))``;
* saturation of a finite run (:func:`saturation`): whether the backlog grew through the run;
* on a switch tree, the mean number of leaf switches a job's nodes touch and the fraction of jobs
  that started with their switches constraint relaxed (Slurm's ``--switches=N@T`` wait ran out).

**Intervals.** :func:`confidence_interval` is the Student-t 95% interval over independent
replications, made to respect the metric's range (``kind``): a fraction (utilisation, S_e) is
clipped to [0, 1]; a positive quantity (a time, a slowdown) whose symmetric interval would reach
below zero gets the interval of its logarithm instead (delta method: ``mean · exp(±hw / mean)``),
asymmetric and positive. With fewer than :data:`MIN_INTERVAL_REPLICATIONS` replications the
interval (t = 12.7 for two) is too wide to say anything: tables and figures leave it out and say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .._validate import ParameterError, check_int, check_real

__all__ = ["summarize", "fairness", "t_quantile", "Estimate", "confidence_interval", "combine", "replicate_until",
           "saturation", "metric_kind", "METRIC_KINDS", "MIN_INTERVAL_REPLICATIONS", "SATURATION_Z",
           "SATURATION_GROWTH", "SATURATION_MIN_JOBS"]

#: Fewest replications for which tables and figures show a confidence interval (with two, the 95%
#: t-interval is 12.7 standard errors wide on each side: no information).
MIN_INTERVAL_REPLICATIONS = 3

#: The range of each metric: ``fraction`` (in [0, 1]), ``positive`` (>= 0) or ``real``; see
#: :func:`confidence_interval`. Metrics not listed are ``positive``.
METRIC_KINDS = {
    "utilization": "fraction", "effectiveness": "fraction", "fraction_folded": "fraction",
    "system_efficiency": "fraction", "load_average": "fraction", "saturated": "fraction",
    "backlog_growth": "real", "backlog_rise_sd": "real", "blocked_fraction": "fraction", "fraction_relaxed": "fraction",
    "interference_fraction": "fraction",
}


def metric_kind(metric: str) -> str:
    """``fraction``, ``positive`` or ``real`` (see :data:`METRIC_KINDS`)."""
    return METRIC_KINDS.get(metric, "positive")


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
    p50, p90, p99 = _percentiles(turn, (50, 90, 99))
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
        "p90_slowdown": _percentiles(valid_slow, (90,))[0] if len(valid_slow) else float("nan"),
        **_locality_means(table),
    }


def _percentiles(values: np.ndarray, q: Sequence[float]) -> list[float]:
    """``np.percentile(values, q)`` (its default linear method) of a 1-D float array, as floats.

    Computed as numpy computes it -- the same partition around the same indices, the same
    interpolation -- so the values are the same to the bit, without the ``np.unique`` inside
    ``np.percentile`` (whose first call imports ``numpy.ma``, more than a whole replay's summary
    costs). Arrays that are empty, not ``float64`` or hold a NaN go to ``np.percentile``.
    """
    arr = np.asarray(values)
    n = arr.size
    if n == 0 or arr.dtype != np.float64 or arr.ndim != 1:
        return [float(v) for v in np.percentile(arr, list(q))]
    arr = arr.flatten()  # a copy to partition
    virtual = [(n - 1) * (p / 100) for p in q]  # (n - 1) * np.true_divide(q, 100)
    lower = [-1 if v >= n - 1 else math.floor(v) for v in virtual]
    upper = [-1 if v >= n - 1 else math.floor(v) + 1 for v in virtual]
    arr.partition(np.array(sorted({0, -1, *lower, *upper}), dtype=np.intp))
    if math.isnan(arr[-1]):
        return [float(v) for v in np.percentile(values, list(q))]
    out = []
    for v, i, j in zip(virtual, lower, upper, strict=True):
        a, b, t = float(arr[i]), float(arr[j]), v - i
        diff = b - a  # numpy's _lerp
        out.append(b - diff * (1 - t) if t >= 0.5 else a + diff * t)
    return out


def _locality_means(table: np.ndarray) -> dict[str, float]:
    """Means of the per-job placement columns a run recorded (``record_placement``)."""
    out: dict[str, float] = {}
    names = table.dtype.names or ()  # a structured table: its column names
    if "mean_hops" in names:
        out["mean_hops"] = float(np.nanmean(table["mean_hops"])) if len(table) else float("nan")
        out["mean_components"] = float(table["components"].mean()) if len(table) else float("nan")
    if "max_link_load" in names:
        out["mean_max_link_load"] = float(table["max_link_load"].mean()) if len(table) else float("nan")
    if "leaf_switches" in names:  # a switch tree
        known = table["leaf_switches"][table["leaf_switches"] >= 0]
        out["mean_leaf_switches"] = float(known.mean()) if len(known) else float("nan")
        out["fraction_relaxed"] = float(table["relaxed"].mean()) if len(table) else float("nan")
    return out


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
    """A mean over replications with its 95% Student-t half-width; ``interval`` is the
    ``(low, high)`` interval when it is not ``mean ± half_width`` (clipped to a fraction's range, or
    the interval of the logarithm for a positive metric; see :func:`confidence_interval`)."""

    mean: float
    half_width: float
    n: int
    interval: tuple[float, float] | None = None

    @property
    def relative_half_width(self) -> float:
        return self.half_width / abs(self.mean) if self.mean else math.inf

    @property
    def low(self) -> float:
        return self.interval[0] if self.interval is not None else self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.interval[1] if self.interval is not None else self.mean + self.half_width

    @property
    def symmetric(self) -> bool:
        return self.interval is None

    @property
    def drawable(self) -> bool:
        """Whether the interval says anything: a finite half-width from at least
        :data:`MIN_INTERVAL_REPLICATIONS` replications."""
        return self.n >= MIN_INTERVAL_REPLICATIONS and math.isfinite(self.half_width)

    def log_interval(self) -> tuple[float, float]:
        """The interval of ``log(mean)`` mapped back (delta method): ``mean · exp(±hw / mean)``;
        what bars on a logarithmic axis show. NaN for a mean <= 0 or no half-width."""
        if not self.mean > 0 or not math.isfinite(self.half_width):
            return (math.nan, math.nan)
        r = self.half_width / self.mean
        return (self.mean * math.exp(-r), self.mean * math.exp(r))

    def __str__(self) -> str:
        if self.interval is None:
            return f"{self.mean:.4g} ± {self.half_width:.2g}"
        return f"{self.mean:.4g} [{self.low:.3g}, {self.high:.3g}]"


def confidence_interval(values: Sequence[float], kind: str = "real") -> Estimate:
    """Mean and 95% half-width of independent replications (NaN half-width for one value).

    ``kind`` is the metric's range (:func:`metric_kind`): ``"fraction"`` clips the interval to
    [0, 1]; ``"positive"`` replaces an interval reaching below zero by the interval of the log
    (:meth:`Estimate.log_interval`); ``"real"`` leaves it symmetric.

    >>> str(confidence_interval([0.97, 0.99, 1.0], "fraction"))
    '0.9867 [0.949, 1]'
    >>> e = confidence_interval([1.0, 2.0, 40.0], "positive"); round(e.low, 2), round(e.high)
    (0.3, 676)
    """
    if kind not in ("real", "fraction", "positive"):
        raise ValueError(f"kind must be 'real', 'fraction' or 'positive', got {kind!r}")
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        raise ValueError("no values")
    if n == 1:
        return Estimate(float(x[0]), float("nan"), 1)
    mean = float(x.mean())
    hw = float(t_quantile(n - 1) * x.std(ddof=1) / math.sqrt(n))
    interval = None
    if kind == "fraction" and (mean - hw < 0.0 or mean + hw > 1.0):
        interval = (max(0.0, mean - hw), min(1.0, mean + hw))
    elif kind == "positive" and mean - hw < 0.0 and mean > 0:
        interval = Estimate(mean, hw, n).log_interval()
    return Estimate(mean, hw, n, interval)


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


#: :func:`saturation`'s thresholds: the backlog's fitted rise over the run, in standard deviations of
#: the backlog around that fit, and its growth per arriving job.
SATURATION_Z = 4.0
SATURATION_GROWTH = 0.01
#: Fewest kept arrivals for which :func:`saturation` judges (fewer: ``saturated`` is ``None``).
SATURATION_MIN_JOBS = 50


def saturation(backlog: Sequence[int] | np.ndarray | None, unfinished: int) -> dict:
    """Whether a finite run was **saturated**: offered more work than it could carry, so that its
    backlog grew through the run and its mean turnaround measures the run's length rather than the
    system.

    ``backlog`` is the number of jobs in the system (queued or running) each kept job found when it
    arrived, in arrival order (:attr:`~scheduling.SimulationResult.backlog`); by PASTA these are
    samples of the time-average backlog. A least-squares line through them gives the
    **backlog growth** (jobs added to the backlog per arriving job: 0 for a stable system, ``1 -
    throughput / arrival rate`` for a saturated one) and its rise over the run, which is compared
    with the spread of the backlog around the line (``backlog_rise_sd``: the rise in standard
    deviations). The run is saturated when the backlog rose by at least :data:`SATURATION_Z`
    standard deviations **and** grew by at least :data:`SATURATION_GROWTH` jobs per arrival (1 in
    100 arriving jobs stays). ``unfinished`` (jobs in the system at the end) is reported as further
    evidence.

    Calibration (seed 002's set-up, 2,000 to 10,000 jobs, three seeds): stable runs rise by -2.3 to
    +2.9 standard deviations, also within 5% of their saturation load (the 8-cube with buddy and
    RSR-1 at load 0.8, utilisation 0.79-0.83); saturated runs by 4 to 100 (RSR-0 at load 0.7, frame
    sliding with RSR-1 at 0.45 and above). Within a few per cent of the saturation load a finite run
    cannot tell, and either answer may come out. A run that drains its workload (a trace, a batch)
    is judged on the backlog its arrivals found. Fewer than :data:`SATURATION_MIN_JOBS` kept
    arrivals: ``saturated`` and the evidence are ``None``.

    >>> rng = np.random.default_rng(0)
    >>> saturation(rng.poisson(10, 1000), unfinished=9)["saturated"]
    False
    >>> s = saturation(np.arange(1000) // 5 + rng.poisson(10, 1000), unfinished=210)
    >>> s["saturated"], round(s["backlog_growth"], 2)
    (True, 0.2)
    """
    out: dict = {"saturated": None, "backlog_growth": None, "backlog_rise_sd": None, "unfinished": int(unfinished)}
    if backlog is None or len(backlog) < SATURATION_MIN_JOBS:
        return out
    b = np.asarray(backlog, dtype=float)
    n = len(b)
    x = np.arange(n, dtype=float) - (n - 1) / 2.0
    slope = float(np.dot(x, b - b.mean()) / np.dot(x, x))
    resid = b - b.mean() - slope * x
    sd = float(resid.std())
    rise = slope * n
    z = rise / sd if sd > 0 else (math.inf if rise > 0 else (-math.inf if rise < 0 else 0.0))
    out.update(saturated=bool(z >= SATURATION_Z and slope >= SATURATION_GROWTH), backlog_growth=slope,
               backlog_rise_sd=float(z))
    return out

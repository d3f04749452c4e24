"""From stored rows to estimates: per-point confidence intervals, fairness curves, text tables."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..metrics import Estimate, confidence_interval
from .config import METRICS

__all__ = ["PointSummary", "FairnessCurve", "aggregate", "fairness_curves", "format_table", "size_bins",
           "write_summaries", "class_rows", "METRIC_LABELS"]

#: How metrics are written in tables and on axes.
METRIC_LABELS = {
    "mean_turnaround": "mean turnaround", "mean_wait": "mean wait", "utilization": "utilisation",
    "effectiveness": "S_e", "mean_folding_factor": "mean folding factor", "fraction_folded": "fraction folded",
    "mean_slowdown": "mean slowdown", "mean_bounded_slowdown": "mean bounded slowdown",
    "p50_turnaround": "median turnaround", "p90_turnaround": "90th pct turnaround",
    "p99_turnaround": "99th pct turnaround", "p90_slowdown": "90th pct slowdown",
    "mean_changes": "allocation changes per job", "mean_moved": "processors moved per job",
    "mean_cluster_size": "mean cluster size",
    "cv_cluster_size": "CV of cluster size", "system_efficiency": "system efficiency",
    "load_average": "load average",
}
#: Metrics shown with three decimals (fractions).
_FRACTIONS = ("utilization", "effectiveness", "fraction_folded", "system_efficiency", "load_average",
              "cv_cluster_size")


@dataclass
class PointSummary:
    """One point's replications: its configuration and a 95% :class:`~scheduling.metrics.Estimate`
    per metric (NaN values left out)."""

    point_id: str
    experiment: str
    topology: str
    allocator: str
    policy: str
    load: float | None
    workload: Any
    n: int
    estimates: dict[str, Estimate] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.allocator} {self.policy}"

    def __getitem__(self, metric: str) -> Estimate:
        return self.estimates[metric]


def _nan_estimate(n: int) -> Estimate:
    return Estimate(math.nan, math.nan, n)


def aggregate(rows: Iterable[dict[str, Any]], metrics: Sequence[str] = METRICS,
              order: Sequence[str] | None = None) -> list[PointSummary]:
    """Group rows by point and estimate each metric over the replications. Ordered by ``order``
    (point ids, e.g. a study's :meth:`points`) when given, else by experiment (first seen),
    allocator, policy (first seen) and load."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["point_id"], []).append(r)
    out = []
    for pid, rs in groups.items():
        r0 = rs[0]
        est = {}
        for m in metrics:
            vals = [r[m] for r in rs if r.get(m) is not None and not math.isnan(r[m])]
            est[m] = confidence_interval(vals) if vals else _nan_estimate(0)
        out.append(PointSummary(pid, r0["experiment"], r0["topology"], r0["allocator"], r0["policy"], r0["load"],
                                r0["workload"], len(rs), est))
    if order is not None:
        rank = {pid: i for i, pid in enumerate(order)}
        out.sort(key=lambda s: rank.get(s.point_id, len(rank)))
    else:
        first: dict[tuple, int] = {}
        for s in out:
            first.setdefault(("e", s.experiment), len(first))
            first.setdefault(("a", s.allocator), len(first))
            first.setdefault(("p", s.policy), len(first))
        out.sort(key=lambda s: (first[("e", s.experiment)], first[("a", s.allocator)], first[("p", s.policy)],
                                s.load if s.load is not None else 0.0))
    return out


def size_bins(sizes: Sequence[int], max_groups: int = 16) -> list[float] | None:
    """``None`` (every size its own group) for at most ``max_groups`` distinct sizes, else
    power-of-two bin edges ``1, 2, 4, ...`` covering them (mesh workloads have hundreds of sizes)."""
    distinct = sorted(set(int(s) for s in sizes))
    if len(distinct) <= max_groups:
        return None
    top = 1 << int(math.ceil(math.log2(max(distinct) + 1)))
    edges = [1.0]
    while edges[-1] < top:
        edges.append(edges[-1] * 2)
    return edges


@dataclass
class FairnessCurve:
    """Mean turnaround by requested size for one point: ``size`` (the size, or a bin's left edge),
    ``mean`` and 95% ``half_width`` over the replications that had jobs of that size, ``jobs``
    counted over all replications."""

    point: PointSummary
    size: np.ndarray
    mean: np.ndarray
    half_width: np.ndarray
    jobs: np.ndarray
    binned: bool


def fairness_curves(rows: Iterable[dict[str, Any]], *, load: float | None = None,
                    bins: Sequence[float] | None | str = "auto") -> list[FairnessCurve]:
    """Fairness curves per point (at ``load`` only, if given: the nearest stored load). ``bins``:
    ``"auto"`` (:func:`size_bins`), ``None`` (exact sizes) or bin edges."""
    rows = list(rows)
    if load is not None and rows:
        loads = sorted({r["load"] for r in rows if r["load"] is not None})
        if loads:
            near = min(loads, key=lambda x: abs(x - load))
            rows = [r for r in rows if r["load"] == near]
    summaries = {s.point_id: s for s in aggregate(rows, metrics=("mean_turnaround",))}
    by_point: dict[str, list[dict]] = {}
    for r in rows:
        by_point.setdefault(r["point_id"], []).append(r)
    all_sizes = [s for r in rows if r.get("fairness") for s in r["fairness"]["size"]]
    edges = size_bins(all_sizes) if bins == "auto" else bins
    out = []
    for pid, summary in summaries.items():
        per_rep: dict[float, list[float]] = {}
        counts: dict[float, int] = {}
        for r in by_point[pid]:
            f = r.get("fairness") or {"size": [], "count": [], "sum": []}
            size = np.asarray(f["size"], dtype=float)
            cnt = np.asarray(f["count"], dtype=float)
            tot = np.asarray(f["sum"], dtype=float)
            if edges is not None and len(size):
                e = np.asarray(edges, dtype=float)
                idx = np.clip(np.searchsorted(e, size, side="right") - 1, 0, len(e) - 2)
                key = e[idx]
                uk, inv = np.unique(key, return_inverse=True)
                cnt = np.bincount(inv, weights=cnt)
                tot = np.bincount(inv, weights=tot)
                size = uk
            for s, c, t in zip(size.tolist(), cnt.tolist(), tot.tolist(), strict=True):
                if c > 0:
                    per_rep.setdefault(s, []).append(t / c)
                    counts[s] = counts.get(s, 0) + int(c)
        keys = sorted(per_rep)
        ests = [confidence_interval(per_rep[k]) for k in keys]
        out.append(FairnessCurve(summary, np.array(keys), np.array([e.mean for e in ests]),
                                 np.array([e.half_width for e in ests]), np.array([counts[k] for k in keys]),
                                 edges is not None))
    return out


def class_rows(rows: Iterable[dict[str, Any]], classes: int | None = None) -> list[Any]:
    """Seed 004 Fig. 3's per-class table from stored rows (the replications of one point, pooled):
    one :class:`~scheduling.gang_metrics.ClassRow` per class ``0 .. classes-1`` (default: up to the
    largest class present; class ``i`` holds ``2^(i-1) < p <= 2^i`` requested processors), with
    the mean service ``S``, queueing ``Q``, execution ``E = R - Q``, sharing ``H = E - S``, waiting
    ``W = R - S`` and response ``R`` times, from the per-size sums each row stores (``fairness``:
    ``count``, ``sum`` of turnaround, ``service`` and ``queueing``). The same numbers as
    :func:`scheduling.gang_metrics.class_table` of the simulation, up to rounding. Raises
    :class:`ValueError` for rows stored before the service and queueing sums were kept.

    >>> row = {"fairness": {"size": [1, 3], "count": [2, 1], "sum": [30.0, 12.0], "service": [20.0, 4.0],
    ...                     "queueing": [6.0, 8.0]}}
    >>> [(r.cls, r.jobs, r.response, r.service, r.normalized) for r in class_rows([row])]
    [(0, 2, 15.0, 10.0, 1.5), (1, 0, nan, nan, nan), (2, 1, 12.0, 4.0, 3.0)]
    """
    from ..gang_metrics import ClassRow, job_classes

    count: dict[int, float] = {}
    sums: dict[str, dict[int, float]] = {"sum": {}, "service": {}, "queueing": {}}
    for r in rows:
        f = r.get("fairness") or {}
        if f.get("size") and ("service" not in f or "queueing" not in f):
            raise ValueError(f"row {r.get('point_id')} replication {r.get('replication')} was stored without the "
                             "per-size service and queueing sums (an older version); run it again into a new store")
        for c, n, *vals in zip(job_classes(f.get("size", [])).tolist(), f.get("count", []), f.get("sum", []),
                               f.get("service", []), f.get("queueing", []), strict=True):
            count[c] = count.get(c, 0) + n
            for k, v in zip(sums, vals, strict=True):
                sums[k][c] = sums[k].get(c, 0.0) + v
    n_cls = classes if classes is not None else (max(count) + 1 if count else 0)
    out = []
    nan = math.nan
    for c in range(n_cls):
        n = count.get(c, 0)
        if not n:
            out.append(ClassRow(c, 0, nan, nan, nan, nan, nan, nan))
            continue
        R, S, Q = (sums[k][c] / n for k in ("sum", "service", "queueing"))
        H, W = (0.0 if abs(x) <= 1e-9 * R else x for x in (R - Q - S, R - S))  # no -0 from rounding
        out.append(ClassRow(c, int(n), S, Q, R - Q, H, W, R))
    return out


def _fmt(e: Estimate, metric: str) -> str:
    if math.isnan(e.mean):
        return "n/a"
    digits = 3 if metric in _FRACTIONS else None
    mean = f"{e.mean:.{digits}f}" if digits else f"{e.mean:.4g}"
    if math.isnan(e.half_width):
        return mean
    hw = f"{e.half_width:.{digits}f}" if digits else f"{e.half_width:.2g}"
    return f"{mean} ± {hw}"


def format_table(summaries: Sequence[PointSummary],
                 metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness"),
                 *, experiment_column: bool | None = None) -> str:
    """A plain-text table, one line per point: configuration, replications and ``mean ± 95%
    half-width`` per metric."""
    if experiment_column is None:
        experiment_column = len({s.experiment for s in summaries}) > 1
    head = (["experiment"] if experiment_column else []) + ["topology", "allocator", "policy", "load", "n"]
    head += [METRIC_LABELS.get(m, m) for m in metrics]
    lines = []
    for s in summaries:
        cells = ([s.experiment] if experiment_column else []) + [
            s.topology, s.allocator, s.policy, "trace" if s.load is None else f"{s.load:g}", str(s.n)]
        cells += [_fmt(s.estimates.get(m, _nan_estimate(0)), m) for m in metrics]
        lines.append(cells)
    widths = [max(len(h), *(len(c[i]) for c in lines)) if lines else len(h) for i, h in enumerate(head)]
    numeric = {head.index("load"), head.index("n")}

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in
                         enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([fmt(head), fmt(["-" * w for w in widths]), *map(fmt, lines)])


def write_summaries(summaries: Sequence[PointSummary], path: Any,
                    metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness")) -> None:
    """Write the per-point estimates: ``.csv`` (mean, half-width and n per metric) or text (any
    other suffix: the :func:`format_table` table)."""
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() != ".csv":
        path.write_text(format_table(summaries, metrics, experiment_column=True) + "\n")
        return
    import csv

    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["experiment", "topology", "allocator", "policy", "load", "replications",
                    *[f"{m}_{part}" for m in metrics for part in ("mean", "half_width")]])
        for s in summaries:
            w.writerow([s.experiment, s.topology, s.allocator, s.policy, s.load, s.n,
                        *[v for m in metrics for v in (s.estimates[m].mean, s.estimates[m].half_width)]])

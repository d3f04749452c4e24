"""From stored rows to estimates: per-point confidence intervals, fairness curves, text tables.

Tables say how far each number can be trusted: ``mean ± half-width`` (95%, Student t over the
replications), an asymmetric ``mean [low, high]`` where the metric's range requires it (a fraction
clipped to [0, 1], a positive time whose symmetric interval would reach below zero on the scale of
its logarithm: :func:`scheduling.metrics.confidence_interval`), no interval with fewer than
:data:`~scheduling.metrics.MIN_INTERVAL_REPLICATIONS` replications, and ``sat`` instead of the
times of a saturated point (most of its replications' backlog grew through the run:
:func:`scheduling.metrics.saturation`). A ``granted load`` column appears when an allocator is
offered more work on the processors it grants than the nominal load (it rounds requests up:
:mod:`scheduling.workloads.offered`); notes under the table explain every mark used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..metrics.summary import MIN_INTERVAL_REPLICATIONS, Estimate, confidence_interval, metric_kind
from .schema import METRICS

__all__ = ["PointSummary", "FairnessCurve", "aggregate", "fairness_curves", "format_table", "table_notes",
           "size_bins", "write_summaries", "class_rows", "METRIC_LABELS", "GROW_WHEN_SATURATED", "NotRun",
           "TIME_METRICS"]

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
    "load_average": "load average", "saturated": "fraction of runs saturated",
    "backlog_growth": "backlog growth per arrival", "backlog_rise_sd": "backlog rise (sd)",
    "mean_hops": "mean pairwise hops per job", "mean_components": "pieces per job",
    "blocked_by_topology": "time blocked by topology", "blocked_fraction": "fraction of time blocked by topology",
    "blocked_episodes": "blocked-by-topology episodes", "mean_leaf_switches": "leaf switches per job",
    "fraction_relaxed": "fraction of switch waits relaxed",
    "mean_dilation": "run time added by placement", "mean_interference": "run time lost to other jobs",
    "interference_fraction": "share of run time lost to other jobs",
}
#: Metrics shown with three decimals (fractions).
_FRACTIONS = ("interference_fraction", "utilization", "effectiveness", "fraction_folded", "system_efficiency",
              "load_average", "cv_cluster_size", "saturated", "backlog_growth", "blocked_fraction", "fraction_relaxed")
#: Metrics measured in the workload's time unit (seconds for a trace).
TIME_METRICS = ("mean_turnaround", "mean_wait", "p50_turnaround", "p90_turnaround", "p99_turnaround",
                "blocked_by_topology")
#: Metrics that grow with the length of a saturated run: tables show ``sat`` instead, figures no bar.
GROW_WHEN_SATURATED = ("mean_turnaround", "mean_wait", "mean_slowdown", "mean_bounded_slowdown", "p50_turnaround",
                       "p90_turnaround", "p99_turnaround", "p90_slowdown")


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
    #: Replications whose run was saturated (:func:`scheduling.metrics.saturation`).
    saturated_runs: int = 0
    #: The load offered on the requested and on the granted processors (NaN when not a formula).
    offered_requested: float = math.nan
    offered_granted: float = math.nan
    #: The point stopped at its replication cap short of its precision target
    #: (:func:`~scheduling.experiments.runner.mark_short_of_target`): tables mark its ``n`` with ``!``.
    short_of_target: bool = False

    @property
    def label(self) -> str:
        return f"{self.allocator} {self.policy}"

    @property
    def saturated(self) -> bool:
        """Most replications were saturated: the point's times measure the runs' length."""
        return self.saturated_runs * 2 > self.n

    @property
    def partly_saturated(self) -> bool:
        """Some but not most replications were saturated (the load is near saturation)."""
        return 0 < self.saturated_runs and not self.saturated

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
            est[m] = confidence_interval(vals, metric_kind(m)) if vals else _nan_estimate(0)
        sat = sum(1 for r in rs if r.get("saturated") == 1.0)
        offered_requested, offered_granted = (math.nan if v is None else float(v)
                                              for v in (r0.get("offered_requested"), r0.get("offered_granted")))
        out.append(PointSummary(pid, r0["experiment"], r0["topology"], r0["allocator"], r0["policy"], r0["load"],
                                r0["workload"], len(rs), est, sat, offered_requested, offered_granted))
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
    #: Replications with jobs of each size (the interval's ``n``); ``None``: enough everywhere.
    runs: np.ndarray | None = None


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
        ests = [confidence_interval(per_rep[k], "positive") for k in keys]
        out.append(FairnessCurve(summary, np.array(keys), np.array([e.mean for e in ests]),
                                 np.array([e.half_width for e in ests]), np.array([counts[k] for k in keys]),
                                 edges is not None, np.array([e.n for e in ests])))
    return out


def class_rows(rows: Iterable[dict[str, Any]], classes: int | None = None) -> list[Any]:
    """Seed 004 Fig. 3's per-class table from stored rows (the replications of one point, pooled):
    one :class:`~scheduling.metrics.gang.ClassRow` per class ``0 .. classes-1`` (default: up to the
    largest class present; class ``i`` holds ``2^(i-1) < p <= 2^i`` requested processors), with
    the mean service ``S``, queueing ``Q``, execution ``E = R - Q``, sharing ``H = E - S``, waiting
    ``W = R - S`` and response ``R`` times, from the per-size sums each row stores (``fairness``:
    ``count``, ``sum`` of turnaround, ``service`` and ``queueing``). The same numbers as
    :func:`scheduling.metrics.gang.class_table` of the simulation, up to rounding. Raises
    :class:`ValueError` for rows stored before the service and queueing sums were kept.

    >>> row = {"fairness": {"size": [1, 3], "count": [2, 1], "sum": [30.0, 12.0], "service": [20.0, 4.0],
    ...                     "queueing": [6.0, 8.0]}}
    >>> [(r.cls, r.jobs, r.response, r.service, r.normalized) for r in class_rows([row])]
    [(0, 2, 15.0, 10.0, 1.5), (1, 0, nan, nan, nan), (2, 1, 12.0, 4.0, 3.0)]
    """
    from ..metrics.gang import ClassRow, job_classes

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


def _fmt(e: Estimate, metric: str, s: PointSummary | None = None) -> str:
    if s is not None and s.saturated and metric in GROW_WHEN_SATURATED:
        return "sat"
    if math.isnan(e.mean):
        return "n/a"
    digits = 3 if metric in _FRACTIONS else None

    def num(v: float, d: int | None, g: str) -> str:
        return f"{v:.{d}f}" if d else f"{v:{g}}"

    mean = num(e.mean, digits, ".4g")
    mark = "*" if s is not None and s.partly_saturated and metric in GROW_WHEN_SATURATED else ""
    if not e.drawable:
        return mean + mark
    if e.symmetric:
        return f"{mean} ± {num(e.half_width, digits, '.2g')}{mark}"
    return f"{mean} [{num(e.low, digits, '.3g')}, {num(e.high, digits, '.3g')}]{mark}"


def _granted_differs(s: PointSummary) -> bool:
    g, r = s.offered_granted, s.offered_requested
    return math.isfinite(g) and math.isfinite(r) and abs(g - r) > 1e-9 * max(1.0, abs(r))


def table_notes(summaries: Sequence[PointSummary], metrics: Sequence[str]) -> list[str]:
    """The notes that explain the marks :func:`format_table` used for these ``summaries``."""
    notes = []
    if any(s.saturated for s in summaries):
        grow = [METRIC_LABELS.get(m, m) for m in metrics if m in GROW_WHEN_SATURATED]
        notes.append("sat: saturated -- the backlog grew through most replications (more work offered than the "
                     "configuration carries), so " + (", ".join(grow) or "its times") + " would only measure the "
                     "run's length; its utilisation is the configuration's capacity")
    if any(s.partly_saturated for s in summaries):
        notes.append("*: some (not most) replications saturated: the load is near this configuration's saturation")
    if any(s.load is None and s.n == 1 for s in summaries):
        notes.append("trace: one run per point, no interval (a recorded trace replays identically: replications "
                     "would repeat the same run)")
    if any(s.short_of_target for s in summaries):
        notes.append("n!: the point reached its replication cap with the 95% half-width still wider than the "
                     "precision target: its interval is wider than stated (compare --max-replications raises the cap)")
    if any(0 < s.n < MIN_INTERVAL_REPLICATIONS and not (s.load is None and s.n == 1) for s in summaries):
        notes.append(f"no interval where n < {MIN_INTERVAL_REPLICATIONS}: with so few replications a 95% t-interval "
                     "says nothing (t = 12.7 for n = 2)")
    if any(s.estimates.get(m) is not None and s.estimates[m].drawable and not s.estimates[m].symmetric
           and not (s.saturated and m in GROW_WHEN_SATURATED) for s in summaries for m in metrics):
        notes.append("[low, high]: a 95% interval kept inside the metric's range (a fraction clipped to [0, 1]; a "
                     "positive time on the scale of its logarithm)")
    if any(_granted_differs(s) for s in summaries):
        notes.append("granted load: the work offered on the processors the allocator grants (it rounds requests up) "
                     "-- the nominal load counts the requested processors")
    return notes


@dataclass(frozen=True)
class NotRun:
    """A configuration that could not run (:data:`~scheduling.experiments.runner.CANNOT_RUN`), as
    :func:`format_table` lists it: its configuration and the reason."""

    experiment: str
    topology: str
    allocator: str
    policy: str
    load: float | str | None  # a string: several loads ("every load")
    reason: str


def format_table(summaries: Sequence[PointSummary],
                 metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness"),
                 *, experiment_column: bool | None = None, notes: bool = True,
                 not_run: Sequence[NotRun] = (), time_unit: str | None = None) -> str:
    """A plain-text table, one line per point: configuration, the load offered on granted
    processors (when it differs from the nominal load somewhere), replications, how many were
    saturated (when any was) and ``mean ± 95% half-width`` per metric (see the module docstring
    for ``sat``, ``*`` and ``[low, high]``), followed by notes on the marks used (``notes``).
    ``not_run``: configurations that could not run, each a line of its configuration and
    ``not run: <reason>`` after the points. ``time_unit`` (``"s"`` for traces) is written after
    the names of the time columns (:data:`TIME_METRICS`)."""
    if experiment_column is None:
        experiment_column = len({s.experiment for s in summaries}) > 1
    granted = any(_granted_differs(s) for s in summaries)
    sat = any(s.saturated_runs for s in summaries)
    head = (["experiment"] if experiment_column else []) + ["topology", "allocator", "policy", "load"]
    head += (["granted load"] if granted else []) + ["n"] + (["sat"] if sat else [])
    head += [METRIC_LABELS.get(m, m) + (f" ({time_unit})" if time_unit and m in TIME_METRICS else "")
             for m in metrics]
    lines = []
    for s in summaries:
        cells = ([s.experiment] if experiment_column else []) + [
            s.topology, s.allocator, s.policy, "trace" if s.load is None else f"{s.load:g}"]
        if granted:
            cells.append(f"{s.offered_granted:.3g}" if math.isfinite(s.offered_granted) else "")
        cells.append(f"{s.n}!" if s.short_of_target else str(s.n))
        if sat:
            cells.append("" if not s.saturated_runs else "yes" if s.saturated_runs == s.n else
                         f"{s.saturated_runs}/{s.n}")
        cells += [_fmt(s.estimates.get(m, _nan_estimate(0)), m, s) for m in metrics]
        lines.append(cells)
    skipped = [([r.experiment] if experiment_column else []) + [
        r.topology, r.allocator, r.policy,
        "trace" if r.load is None else r.load if isinstance(r.load, str) else f"{r.load:g}"] for r in not_run]
    widths = [max(len(h), *(len(c[i]) for c in lines + [c for c in skipped if i < len(c)]))
              if lines or skipped else len(h) for i, h in enumerate(head)]
    numeric = {head.index(h) for h in ("load", "granted load", "n", "sat") if h in head}

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in
                         enumerate(zip(cells, widths, strict=True))).rstrip()

    def fmt_skipped(cells: list[str], reason: str) -> str:
        k = len(cells)
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in
                         enumerate(zip(cells, widths[:k], strict=True))) + f"  not run: {reason}"

    text = "\n".join([fmt(head), fmt(["-" * w for w in widths]), *map(fmt, lines),
                      *(fmt_skipped(c, r.reason) for c, r in zip(skipped, not_run, strict=True))])
    extra = table_notes(summaries, metrics) if notes else []
    return text + ("\n\n" + "\n".join(extra) if extra else "")


def write_summaries(summaries: Sequence[PointSummary], path: Any,
                    metrics: Sequence[str] = ("mean_turnaround", "utilization", "effectiveness"), *,
                    not_run: Sequence[NotRun] = (), time_unit: str | None = None) -> None:
    """Write the per-point estimates: ``.csv`` (mean, half-width and n per metric) or text (any
    other suffix: the :func:`format_table` table, with ``not_run`` and ``time_unit``). The file is
    written whole to a temporary name and then renamed over ``path``, so a reader (or a command
    that rewrites it as points finish) never sees half a table."""
    import os
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    if path.suffix.lower() != ".csv":
        tmp.write_text(format_table(summaries, metrics, experiment_column=True, not_run=not_run,
                                    time_unit=time_unit) + "\n")
        os.replace(tmp, path)
        return
    import csv

    parts = ("mean", "half_width", "low", "high")
    with open(tmp, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["experiment", "topology", "allocator", "policy", "load", "offered_requested", "offered_granted",
                    "replications", "saturated_runs", *[f"{m}_{part}" for m in metrics for part in parts]])
        for s in summaries:
            ests = [s.estimates.get(m, _nan_estimate(0)) for m in metrics]
            w.writerow([s.experiment, s.topology, s.allocator, s.policy, s.load, s.offered_requested,
                        s.offered_granted, s.n, s.saturated_runs,
                        *[v for e in ests for v in (e.mean, e.half_width, e.low, e.high)]])
    os.replace(tmp, path)

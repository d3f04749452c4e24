"""Running points: the task function and sweeps with resume.

:func:`run_task` turns one task (a point's configuration, a replication number and its seed; plain
picklable data) into one result row. An executor (:mod:`scheduling.experiments.executors`) runs
many tasks and yields rows as they finish, in any order; :func:`run_study` stores each row as it
arrives and skips the tasks a store already holds, so the same command resumes an interrupted
sweep. Since a task's seed is part of the task
(:meth:`~scheduling.experiments.schema.Point.sim_seed`), a row does not depend on the executor,
the worker or the order. Replays of recorded traces are prepared by
:mod:`scheduling.experiments.replay`.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import check_int, check_seed
from ..kernel.semantics import SIMULATION_SEMANTICS
from ..metrics.summary import confidence_interval
from . import registry
from .executors import Executor, LocalExecutor
from .replay import TraceSupportError, fit_to_allocator, read_trace, requests_for_allocator
from .schema import METRICS, Component, Point, Study, WorkloadSpec, constrain
from .store import ResultStore, package_version
from .topology_spec import TopologySpec

__all__ = [
    "run_task",
    "TaskError",
    "run_study",
    "run_points",
    "RunStats",
    "replications_needed",
    "replications_wanted",
    "mark_short_of_target",
    "backlog_unbounded",
    "study_rows",
    "episode_seeds",
    "CANNOT_RUN",
]


class TaskError(RuntimeError):
    """A simulation failed; the message names the point and replication."""


#: The key of a result row that is not a result: the configuration cannot run (an allocator that
#: cannot place a job of the workload even on the empty machine), with the reason.
CANNOT_RUN = "cannot_run"

# -- one task ---------------------------------------------------------------------------------------
def _fairness(table: np.ndarray) -> dict[str, list]:
    """Per requested size: job ``count``, ``sum`` of turnaround times, and the sums of run times
    (``service``) and queueing times (``queueing``, first start - arrival) that seed 004's per-class
    table needs (:func:`~scheduling.experiments.report.class_rows`)."""
    if len(table) == 0:
        return {"size": [], "count": [], "sum": [], "service": [], "queueing": []}
    turn = table["end"] - table["arrival"]
    sizes, inv = _unique_inverse(table["requested"])
    return {"size": sizes.tolist(), "count": np.bincount(inv).tolist(),
            "sum": np.bincount(inv, weights=turn).tolist(),
            "service": np.bincount(inv, weights=table["runtime"].astype(float)).tolist(),
            "queueing": np.bincount(inv, weights=table["start"] - table["arrival"]).tolist()}


def _unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers, by one stable sort (``np.unique``
    imports ``numpy.ma`` on its first call, which costs more than a whole result row)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(ordered.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def episode_seeds(seed: int, count: int) -> list[int]:
    """``count`` independent seeds derived from ``seed`` (``SeedSequence`` children; for the
    Downey model the same as :func:`scheduling.metrics.downey.day_seeds`)."""
    check_seed(seed)
    check_int(count, "count", low=0)
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def _pooled_saturation(results: list[Any]) -> dict[str, Any]:
    """Saturation of independent runs pooled into one row: saturated if any run was, the largest
    growth and rise, the unfinished jobs summed (``None`` values when no run could be judged)."""
    sats = [r.saturation() for r in results]
    judged = [s for s in sats if s["saturated"] is not None]
    out: dict[str, Any] = {"saturated": None, "backlog_growth": None, "backlog_rise_sd": None,
                           "unfinished": int(sum(s["unfinished"] for s in sats))}
    if judged:
        out.update(saturated=any(s["saturated"] for s in judged),
                   backlog_growth=max(s["backlog_growth"] for s in judged),
                   backlog_rise_sd=max(s["backlog_rise_sd"] for s in judged))
    return out


def _pool(results: list[Any]) -> Any:
    """One :class:`~scheduling.kernel.result.SimulationResult` for independent runs: tables concatenated
    (job ids offset to stay unique), windows laid end to end, integrals summed (its saturation is
    :func:`_pooled_saturation` of the runs, not of the pooled result)."""
    from ..kernel.result import SimulationResult

    if len(results) == 1:
        return results[0]
    tables, offset = [], 0
    for r in results:
        t = r.table.copy()
        t["id"] += offset
        offset = int(t["id"].max()) + 1 if len(t) else offset
        tables.append(t)
    r0 = results[0]
    return SimulationResult(np.concatenate(tables), r0.size, (0.0, float(sum(r.duration for r in results))),
                            float(sum(r.busy_integral for r in results)),
                            float(sum(r.effectiveness_integral for r in results)),
                            float(sum(r.demand_time for r in results)), r0.policy, r0.allocator,
                            int(sum(r.unfinished for r in results)),
                            blocked_time=float(sum(r.blocked_time for r in results)),
                            blocked_episodes=int(sum(r.blocked_episodes for r in results)))


def _extra_metrics(pooled: Any, useful: float | None) -> dict[str, float]:
    t = pooled.table
    out = {"mean_changes": math.nan, "mean_moved": math.nan, "mean_cluster_size": math.nan, "cv_cluster_size": math.nan,
           "system_efficiency": math.nan, "load_average": math.nan}
    if len(t):
        granted = t["granted"].astype(float)
        out["mean_changes"] = float(t["changes"].mean())
        out["mean_moved"] = float(t["moved"].mean())
        out["mean_cluster_size"] = float(granted.mean())
        out["cv_cluster_size"] = float(granted.std() / granted.mean()) if granted.mean() > 0 else math.nan
    if useful is not None and pooled.duration > 0:
        out["system_efficiency"] = useful / (pooled.size * pooled.duration)
    return out


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Simulate one task (see :meth:`Point.task`) and return its result row (see
    :data:`~scheduling.experiments.store.ROW_COLUMNS`).

    A workload model with episodes (Downey's ``days``) runs that many independent simulations,
    each with a fresh allocator and policy and its own seed (:func:`episode_seeds` of the task's
    seed), and pools them into one row. Saturation (:func:`scheduling.metrics.saturation`) is judged
    only for endless synthetic streams: a trace or a finite workload gets ``saturated`` NaN (the
    backlog evidence is kept). ``system_efficiency`` is measured for policies that track
    the work done (``useful_work``, the dynamic ones) and by models with their own metrics.

    A configuration that cannot run -- the allocator cannot place one of the workload's requests
    even on the empty machine (:class:`~scheduling.kernel.simulator.UnplaceableRequestError`), or refuses
    a request as larger than it grants (a :class:`~topologies.RequestSizeError`, e.g. a job above a
    DHC forest's largest tree) -- is not an error: the row returned is
    ``{CANNOT_RUN: reason, "point_id": ..., "replication": ...}``, which :func:`run_points`
    reports instead of storing."""
    from topologies import RequestSizeError

    from ..kernel.api import simulate

    cfg = task["point"]
    params = cfg.get("policy_params") or {}
    policy_label = Component.of(cfg["policy"], **params).label
    label = f"{cfg['experiment']}: {cfg['allocator']} {policy_label} load={cfg['load']} " \
            f"replication {task['replication']}"
    try:
        topo = TopologySpec.parse(cfg["topology"])
        alloc = Component.from_json(cfg["allocator"])
        work = cfg["workload"]
        rule = work.get("constraints")
        spec = model = trace = None
        if "trace" in work:
            trace = read_trace(work["trace"], topo, work.get("rate_factor", 1.0), work.get("too_large", "skip"))
            seeds = [task["sim_seed"]]
        else:
            spec = WorkloadSpec.from_json(work)
            model = registry.workload_model(spec.model.name) if spec.model is not None else None
            episodic = model is not None and model.episodes is not None
            seeds = episode_seeds(task["sim_seed"], spec.episodes) if episodic else [task["sim_seed"]]
        runs: list[tuple[Any, dict[int, Any]]] = []
        useful: float | None = 0.0
        t0 = time.perf_counter()
        for seed in seeds:
            topology = topo.build()
            allocator = registry.make_allocator(alloc.name, topology, alloc.kwargs)
            policy = registry.make_policy(cfg["policy"], params)
            by_id: dict[int, Any] = {}
            if trace is not None:  # jobs the allocator cannot grant: as --oversize says (fit_to_allocator)
                # a count-taking allocator gets the job's processor count, the others the topology's request
                fit = fit_to_allocator(requests_for_allocator(trace, allocator), allocator,
                                       work.get("too_large", "skip"))
                workload: Any = constrain(fit.jobs, rule, topology)
            else:
                assert spec is not None  # not a trace: a workload model
                workload = constrain(spec.build(cfg["load"], topology.size, allocator), rule, topology)
                if spec.finite:  # keep the jobs: the model's metrics need their speedups
                    workload = list(workload.jobs(seed))
                    by_id = {j.id: j for j in workload}
            placed = topo.kind in ("mesh", "cube", "tree")  # where jobs land: mean_hops, mean_components
            result = simulate(allocator, policy, workload, jobs=cfg["jobs"], warmup=cfg["warmup"], seed=seed,
                              record_placement=placed,
                              runtime_model=spec.make_runtime_model() if spec is not None else None)
            tracker = getattr(policy, "useful_work", None)
            if useful is not None and callable(tracker) and result.duration > 0:
                useful += tracker(*result.window)
            else:
                useful = None
            runs.append((result, by_id))
        wall = time.perf_counter() - t0
        pooled = _pool([r for r, _ in runs])
        summary = pooled.summary()
        summary.update(_pooled_saturation([r for r, _ in runs]))
        if trace is not None or (spec is not None and (spec.finite or spec.trace)):
            # a recorded log or a finite batch is not a stationary stream: a backlog trend there is the
            # workload's own burst, and its turnaround is the workload's, not the run length's
            summary["saturated"] = None
        summary.update(_extra_metrics(pooled, useful))
        if model is not None and model.metrics is not None:
            summary.update(model.metrics(runs))
        offered = (math.nan, math.nan)
        if spec is not None:
            offered = spec.offered(cfg["load"], topo.size, allocator)
    except TraceSupportError:
        raise
    except RequestSizeError as exc:  # UnplaceableRequestError, or a request above what the allocator grants
        return {CANNOT_RUN: f"{alloc.label} cannot run on {cfg['topology']}: {exc}", "point_id": task["point_id"],
                "replication": task["replication"]}
    except Exception as exc:
        raise TaskError(f"{label} failed: {type(exc).__name__}: {exc}") from exc
    row = {
        "point_id": task["point_id"], "replication": task["replication"], "experiment": cfg["experiment"],
        "topology": cfg["topology"], "allocator": alloc.label, "policy": policy_label, "load": cfg["load"],
        "jobs": cfg["jobs"], "warmup": cfg["warmup"], "seed": cfg["seed"], "sim_seed": task["sim_seed"],
        "workload": work, "kept": summary["jobs"], "unfinished": pooled.unfinished, "duration": pooled.duration,
        "wall_time": wall, "finished_at": time.time(), "version": package_version(), "config": cfg,
        "fairness": _fairness(pooled.table), "semantics": SIMULATION_SEMANTICS,
        "offered_requested": math.nan if offered[0] != offered[0] else offered[0],
        "offered_granted": math.nan if offered[1] != offered[1] else offered[1],
    }
    for m in METRICS:
        v = summary.get(m)
        row[m] = math.nan if v is None or v != v else float(v)  # one NaN object: equal rows compare equal
    return row


# -- sweeps -----------------------------------------------------------------------------------------
@dataclass
class RunStats:
    """What :func:`run_study` did: tasks ``ran`` now, ``skipped`` (already stored), ``rounds``,
    and the points that ``cannot_run``."""

    ran: int = 0
    skipped: int = 0
    rounds: int = 0
    seconds: float = 0.0
    #: Points that cannot run (point id -> reason; :data:`CANNOT_RUN`), not stored.
    cannot_run: dict[str, str] = field(default_factory=dict)


def replications_wanted(rows: list[dict[str, Any]], rule: Any) -> int:
    """How many replications ``rule`` (a count or a :class:`~scheduling.experiments.schema.Target`)
    asks of a point whose stored ``rows`` are ``rows`` (any order). A count is itself. A target
    replays the rounds :func:`run_points` makes: ``min_runs``, then :func:`replications_needed` of
    the values of replications ``0 .. n-1`` until it asks for no more than it has; a point with a
    saturated run stops at the runs it has (at or near saturation its turnaround grows with the
    run's length: more runs do not make it a property of the system). A result larger than the
    stored replications means more runs are due."""
    if isinstance(rule, int):
        return rule
    by_rep = {r["replication"]: r for r in rows}
    ordered: list[dict[str, Any]] = []
    while len(ordered) in by_rep:
        ordered.append(by_rep[len(ordered)])
    n = min(rule.min_runs, rule.max_runs)
    while n <= len(ordered):
        head = ordered[:n]
        if any(r.get("saturated") == 1.0 for r in head):
            return n
        need = replications_needed([r[rule.metric] for r in head], rule)
        if need <= n:
            return n
        n = need
    return n


def study_rows(study: Study, store: ResultStore) -> list[dict[str, Any]]:
    """The stored rows of exactly the configuration ``study`` describes: rows of its points (other
    jobs, warm-ups, seeds, parameters or simulation semantics have other point ids) and only the
    replications its rule asks for (:func:`replications_wanted`), in the study's point order, then
    replication."""
    plan = study.plan()
    order = {p.point_id: i for i, (p, _) in enumerate(plan)}
    by_point: dict[str, list[dict[str, Any]]] = {}
    for row in store.rows(point_ids=list(order)):
        by_point.setdefault(row["point_id"], []).append(row)
    out = []
    for p, rule in plan:
        rows = by_point.get(p.point_id, [])
        want = replications_wanted(rows, rule)
        out.extend(sorted((r for r in rows if r["replication"] < want), key=lambda r: r["replication"]))
    return sorted(out, key=lambda r: (order[r["point_id"]], r["replication"]))


def backlog_unbounded(row: dict[str, Any]) -> bool:
    """Whether a result row's backlog grew without bound by the test synthetic runs are judged by
    (:func:`scheduling.metrics.saturation`: a rise of at least :data:`~scheduling.metrics.SATURATION_Z`
    standard deviations and a growth of at least :data:`~scheduling.metrics.SATURATION_GROWTH`
    jobs per arrival), applied to the evidence a replay keeps (its ``saturated`` is left empty: a
    recorded log is not a stationary stream, so this flags, it does not judge).

    >>> backlog_unbounded({"backlog_growth": 0.2, "backlog_rise_sd": 30.0})
    True
    >>> backlog_unbounded({"backlog_growth": 0.2, "backlog_rise_sd": float("nan")})
    False
    """
    from ..metrics.summary import SATURATION_GROWTH, SATURATION_Z

    growth, rise = row.get("backlog_growth"), row.get("backlog_rise_sd")
    if growth is None or rise is None or math.isnan(growth) or math.isnan(rise):
        return False
    return rise >= SATURATION_Z and growth >= SATURATION_GROWTH


def mark_short_of_target(summaries: Iterable[Any], plan: Iterable[tuple[Point, Any]],
                         rows: Iterable[dict[str, Any]]) -> list[Any]:
    """Mark (``short_of_target = True``) and return the summaries of the points of ``plan`` (a
    study's :meth:`~scheduling.experiments.schema.Study.plan`) whose rule is a
    :class:`~scheduling.experiments.schema.Target` and that stopped at its ``max_runs`` with the
    relative 95% half-width of its metric over their ``rows`` still above ``relative`` (the
    measure :func:`replications_needed` uses). Points with a saturated run are not marked: they
    stop at the runs they have by design (:func:`replications_wanted`; tables mark them ``sat`` or
    ``*``).

    >>> from scheduling.experiments.report import PointSummary
    >>> from scheduling.experiments.schema import Target
    >>> class P:
    ...     point_id = "p"
    >>> s = PointSummary("p", "e", "cube:8", "Buddy", "FCFS", 0.5, {}, 3)
    >>> rows = [{"point_id": "p", "mean_turnaround": v} for v in (10.0, 40.0, 70.0)]
    >>> [x.point_id for x in mark_short_of_target([s], [(P(), Target("mean_turnaround", 0.05, 2, 3))], rows)]
    ['p']
    """
    rules = {p.point_id: rule for p, rule in plan if not isinstance(rule, int)}
    values: dict[str, list[float]] = {}
    for r in rows:
        rule = rules.get(r["point_id"])
        if rule is not None:
            v = r.get(rule.metric)
            if v is not None and not math.isnan(v):
                values.setdefault(r["point_id"], []).append(float(v))
    out = []
    for s in summaries:
        rule = rules.get(s.point_id)
        if rule is None or s.n < rule.max_runs or s.saturated_runs:
            continue
        vals = values.get(s.point_id, [])
        rel = confidence_interval(vals).relative_half_width if len(vals) >= 2 else math.inf
        if not rel <= rule.relative:  # NaN (no interval) counts as short
            s.short_of_target = True
            out.append(s)
    return out


def replications_needed(values: list[float], target: Any) -> int:
    """How many replications a point needs, given its ``values`` of ``target.metric`` so far: at
    least ``target.min_runs``; then, while the relative 95% half-width exceeds ``target.relative``,
    the count that would meet it if the variance held (at least one more), capped at
    ``target.max_runs``."""
    n = len(values)
    if n < target.min_runs:
        return target.min_runs
    vals = [v for v in values if not math.isnan(v)]
    if len(vals) < 2:
        return min(target.max_runs, n + 1) if n < target.max_runs else n
    est = confidence_interval(vals)
    rel = est.relative_half_width
    if rel <= target.relative or n >= target.max_runs:
        return n
    want = math.ceil(n * (rel / target.relative) ** 2) if math.isfinite(rel) else n + 1
    return min(target.max_runs, max(n + 1, want))


class _NoProgress:
    """What :func:`_progress` returns when no bar is shown (tqdm is not even imported)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, desc: str, enabled: bool | None) -> Any:
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return _NoProgress()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="sim", delay=0.5, leave=False, dynamic_ncols=True)


def run_study(
    study: Study,
    store: ResultStore,
    executor: Executor | None = None,
    *,
    progress: bool | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> RunStats:
    """Run every point of ``study`` that ``store`` does not hold yet, storing rows as they finish.

    Experiments with fixed ``replications`` need one round; those with a ``target`` run rounds
    until each point meets it (:func:`replications_needed`). ``progress`` shows a tqdm bar with the
    time left (default: only when stderr is a terminal). Returns :class:`RunStats`.
    """
    store.save_study(study.name, study.to_json())
    return run_points(study.plan(), store, executor, desc=study.name, progress=progress, on_row=on_row)


def run_points(
    plan: list[tuple[Point, Any]],
    store: ResultStore,
    executor: Executor | None = None,
    *,
    desc: str = "",
    progress: bool | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> RunStats:
    """Run ``plan``, a list of ``(point, replications)`` where ``replications`` is a count or a
    :class:`~scheduling.experiments.schema.Target`, skipping stored rows (see :func:`run_study`)."""
    executor = executor if executor is not None else LocalExecutor()
    done = store.done()
    stats = RunStats()
    t_start = time.perf_counter()
    targets = {p.point_id: want for p, want in plan if not isinstance(want, int)}
    while True:
        tasks, skipped = [], 0
        stored: dict[str, list[dict[str, Any]]] = {}
        if targets:
            for row in store.rows(point_ids=list(targets)):
                stored.setdefault(row["point_id"], []).append(row)
        for p, want in plan:
            if p.point_id in stats.cannot_run:
                continue
            if not isinstance(want, int):
                want = replications_wanted(stored.get(p.point_id, []), want)
            for r in range(want):
                if (p.point_id, r) in done:
                    skipped += 1
                else:
                    tasks.append(p.task(r))
        if stats.rounds == 0:
            stats.skipped = skipped
        if not tasks:
            break
        stats.rounds += 1
        bar = _progress(len(tasks), desc, progress)
        try:
            for row in executor.map_unordered(run_task, tasks):
                if CANNOT_RUN in row:  # reported, not stored (nor asked for again)
                    stats.cannot_run.setdefault(row["point_id"], row[CANNOT_RUN])
                    bar.update(1)
                    continue
                store.add(row)
                done.add((row["point_id"], row["replication"]))
                stats.ran += 1
                bar.update(1)
                if on_row is not None:
                    on_row(row)
        finally:
            bar.close()
        if not targets:
            break
    stats.seconds = time.perf_counter() - t_start
    return stats

"""Running points: the task function, executors (local processes, Dask), sweeps with resume.

:func:`run_task` turns one task (a point's configuration, a replication number and its seed; plain
picklable data) into one result row. An executor runs many tasks and yields rows as they finish, in
any order; :func:`run_study` stores each row as it arrives and skips the tasks a store already
holds, so the same command resumes an interrupted sweep. Since a task's seed is part of the task
(:meth:`Point.sim_seed`), a row does not depend on the executor, the worker or the order.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..metrics import confidence_interval
from . import registry
from .config import METRICS, Component, Point, Study, TopologySpec, WorkloadSpec
from .store import ResultStore, package_version

__all__ = [
    "run_task",
    "TaskError",
    "TraceSupportError",
    "Executor",
    "LocalExecutor",
    "DaskExecutor",
    "make_executor",
    "run_study",
    "run_points",
    "RunStats",
    "trace_points",
    "read_trace",
    "replications_needed",
]


class TaskError(RuntimeError):
    """A simulation failed; the message names the point and replication."""


class TraceSupportError(ImportError):
    """The SWF reader (:mod:`scheduling.workloads.swf`) is not available."""


# -- one task ---------------------------------------------------------------------------------------
def read_trace(path: str | Path, topology: Any = None, rate_factor: float = 1.0) -> Any:
    """The SWF trace at ``path`` as jobs (an :class:`~scheduling.workloads.swf.SWFTrace` from
    :func:`~scheduling.workloads.swf.load_swf`): requests made for ``topology`` (a count on a flat
    machine, sides on a mesh, a dimension on a cube), jobs larger than it skipped and listed in the
    trace's ``report``, arrival gaps divided by ``rate_factor``. Cached per process, keyed by the
    file's path and modification time."""
    p = Path(path)
    label = None
    if topology is not None:
        label = topology.label if isinstance(topology, TopologySpec) else repr(topology)
        if not isinstance(topology, TopologySpec):
            return _load_swf(str(p), topology, rate_factor)
    return _read_trace_cached(str(p), p.stat().st_mtime_ns, label, float(rate_factor))


def _load_swf(path: str, topology: Any, rate_factor: float) -> Any:
    try:
        from ..workloads import swf
    except ImportError as exc:
        raise TraceSupportError(f"replaying a trace needs the SWF reader scheduling.workloads.swf ({exc})") from None
    load = getattr(swf, "load_swf", None)
    if load is None:
        raise TraceSupportError("scheduling.workloads.swf has no load_swf(path, topology=...)")
    return load(path, topology=topology, rate_factor=rate_factor)


@functools.lru_cache(maxsize=8)
def _read_trace_cached(path: str, _mtime: int, topology: str | None, rate_factor: float) -> Any:
    topo = TopologySpec.parse(topology).build() if topology is not None else None
    return _load_swf(path, topo, rate_factor)


def _fairness(table: np.ndarray) -> dict[str, list]:
    if len(table) == 0:
        return {"size": [], "count": [], "sum": []}
    turn = table["end"] - table["arrival"]
    sizes, inv = np.unique(table["requested"], return_inverse=True)
    return {"size": sizes.tolist(), "count": np.bincount(inv).tolist(),
            "sum": np.bincount(inv, weights=turn).tolist()}


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Simulate one task (see :meth:`Point.task`) and return its result row (see
    :data:`~scheduling.experiments.store.ROW_COLUMNS`)."""
    from ..api import simulate

    cfg = task["point"]
    label = f"{cfg['experiment']}: {cfg['allocator']} {cfg['policy']} load={cfg['load']} " \
            f"replication {task['replication']}"
    try:
        topo = TopologySpec.parse(cfg["topology"])
        topology = topo.build()
        alloc = Component.from_json(cfg["allocator"])
        allocator = registry.make_allocator(alloc.name, topology, alloc.kwargs)
        work = cfg["workload"]
        if "trace" in work:
            workload = read_trace(work["trace"], topo, work.get("rate_factor", 1.0))
        else:
            spec = WorkloadSpec(Component.from_json(work["sizes"]), Component.from_json(work["service"]),
                                Component.from_json(work["speedup"]))
            workload = spec.build(cfg["load"], topology.size)
        t0 = time.perf_counter()
        result = simulate(allocator, cfg["policy"], workload, jobs=cfg["jobs"], warmup=cfg["warmup"],
                          seed=task["sim_seed"])
        wall = time.perf_counter() - t0
    except TraceSupportError:
        raise
    except Exception as exc:
        raise TaskError(f"{label} failed: {type(exc).__name__}: {exc}") from exc
    summary = result.summary()
    row = {
        "point_id": task["point_id"], "replication": task["replication"], "experiment": cfg["experiment"],
        "topology": cfg["topology"], "allocator": alloc.label, "policy": cfg["policy"], "load": cfg["load"],
        "jobs": cfg["jobs"], "warmup": cfg["warmup"], "seed": cfg["seed"], "sim_seed": task["sim_seed"],
        "workload": work, "kept": summary["jobs"], "unfinished": result.unfinished, "duration": result.duration,
        "wall_time": wall, "finished_at": time.time(), "version": package_version(), "config": cfg,
        "fairness": _fairness(result.table),
    }
    for m in METRICS:
        v = summary.get(m, math.nan)
        row[m] = float(v) if v is not None else math.nan
    return row


# -- executors --------------------------------------------------------------------------------------
class Executor(Protocol):
    """Runs ``fn`` on every task and yields the results as they finish, in any order."""

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Worker processes on this machine (``workers``, default ``os.cpu_count()``); with one worker
    or one task, runs in this process. At most ``2 * workers`` tasks are queued at a time, so an
    interrupted sweep stops promptly and loses only the running tasks."""

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self.workers = workers or os.cpu_count() or 1

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            for t in tasks:
                yield fn(t)
            return
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)))
        pending: set[Future] = set()
        it = iter(tasks)
        try:
            for t in it:
                pending.add(pool.submit(fn, t))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(pool.submit(fn, nxt))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"LocalExecutor(workers={self.workers})"


class DaskExecutor:
    """Tasks on a Dask distributed cluster: ``address`` (``"tcp://scheduler:8786"``) or a
    ``distributed.Client``. The workers need ``topoalloc`` installed (same version). Needs the
    ``dask`` extra: ``pip install 'topoalloc[dask]'``."""

    def __init__(self, address: Any) -> None:
        try:
            import distributed
        except ImportError:
            raise ImportError("--dask needs dask.distributed: pip install 'topoalloc[dask]'") from None
        if isinstance(address, distributed.Client):
            self.client, self._own = address, False
        else:
            self.client, self._own = distributed.Client(address), True

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed

        tasks = list(tasks)
        if not tasks:
            return
        futures = self.client.map(fn, tasks, pure=False)
        try:
            for _, result in as_completed(futures, with_results=True):
                yield result
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        if self._own:
            self.client.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.client!r})"


def make_executor(workers: int | None = None, dask: Any = None) -> Executor:
    """A :class:`DaskExecutor` if ``dask`` (an address or client) is given, else a :class:`LocalExecutor`."""
    return DaskExecutor(dask) if dask else LocalExecutor(workers)


# -- sweeps -----------------------------------------------------------------------------------------
@dataclass
class RunStats:
    """What :func:`run_study` did: tasks ``ran`` now, ``skipped`` (already stored), ``rounds``."""

    ran: int = 0
    skipped: int = 0
    rounds: int = 0
    seconds: float = 0.0


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


def _progress(total: int, desc: str, enabled: bool | None) -> Any:
    from tqdm.auto import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit="sim", disable=not enabled, delay=0.5, leave=False, dynamic_ncols=True)


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
    plan = [(p, exp.target if exp.target is not None else exp.replications)
            for exp in study.experiments for p in exp.points()]
    return run_points(plan, store, executor, desc=study.name, progress=progress, on_row=on_row)


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
    :class:`~scheduling.experiments.config.Target`, skipping stored rows (see :func:`run_study`)."""
    executor = executor if executor is not None else LocalExecutor()
    done = store.done()
    stats = RunStats()
    t_start = time.perf_counter()
    targets = {p.point_id: want for p, want in plan if not isinstance(want, int)}
    while True:
        tasks, skipped = [], 0
        values: dict[str, list[float]] = {}
        if targets:
            for row in store.rows(point_ids=list(targets)):
                values.setdefault(row["point_id"], []).append(row[targets[row["point_id"]].metric])
        for p, want in plan:
            if not isinstance(want, int):
                want = replications_needed(values.get(p.point_id, []), want)
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


# -- traces -----------------------------------------------------------------------------------------
def trace_points(
    path: str | Path,
    topology: TopologySpec,
    allocators: Iterable[Component],
    policies: Iterable[str],
    *,
    loads: Iterable[float] | None = None,
    experiment: str | None = None,
    jobs: int | None = None,
    warmup: int = 0,
) -> list[Point]:
    """Points replaying trace ``path`` on ``topology`` under each allocator and policy, one
    replication each (a trace is one sample). Without ``loads`` the trace runs as recorded (the
    point's load is ``None``); with ``loads`` its arrivals are compressed or stretched to each
    offered load (:meth:`~scheduling.workloads.swf.SWFTrace.rate_factor_for` on the topology's
    size). The trace is identified by its name and SHA-256 (not its path), so a moved copy resumes
    the same rows."""
    p = Path(path)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    base = {"trace": str(p), "name": p.name, "sha256": digest}
    name = experiment or f"replay/{p.name}"
    works: list[tuple[float | None, dict[str, Any]]] = []
    if loads is None:
        works.append((None, {**base, "rate_factor": 1.0}))
    else:
        trace = read_trace(p, topology)
        for load in loads:
            works.append((float(load), {**base, "rate_factor": trace.rate_factor_for(float(load), topology.size)}))
    return [_TracePoint(name, topology, a, pol, work, load, jobs, warmup, 0)
            for a in allocators for pol in policies for load, work in works]


@dataclass(frozen=True)
class _TracePoint(Point):
    """A :class:`Point` whose identity leaves out the trace's path (its digest identifies it)."""

    @property
    def point_id(self) -> str:
        from .config import canonical_json

        cfg = self.config()
        cfg["workload"] = {k: v for k, v in cfg["workload"].items() if k != "trace"}
        return hashlib.sha256(canonical_json(cfg).encode()).hexdigest()[:20]

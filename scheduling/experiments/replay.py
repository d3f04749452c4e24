"""Replaying a recorded trace: the trace read for a topology (cached per process; SWF, a Batsim
workload or an ``sacct`` dump), the request each allocator is given for a job's processor count,
the jobs an allocator cannot grant even on the empty machine, the points of a replay (one
replication each: a trace is one sample), and the schedule of a point written in another tool's
format (:func:`export_task`).

Interpretations: a job's processor count is the trace's (:mod:`scheduling.formats.swf_load`); an
allocator that takes counts (``accepts_counts``) is given the count itself, the others the
topology's request for it (:func:`requests_for_allocator`); what happens to a request an allocator
cannot grant is ``too_large`` (:func:`fit_to_allocator`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import registry
from .schema import Component, Point, constrain
from .topology_spec import TopologySpec

__all__ = [
    "TraceSupportError",
    "read_trace",
    "AllocatorFit",
    "takes_counts",
    "requests_for_allocator",
    "describe_requests",
    "fit_to_allocator",
    "trace_points",
    "export_task",
]


class TraceSupportError(ImportError):
    """The trace readers (:mod:`scheduling.formats.load`) are not available."""


def read_trace(path: str | Path, topology: Any = None, rate_factor: float = 1.0, too_large: str = "skip") -> Any:
    """The trace at ``path`` as jobs -- an SWF file, a Batsim workload JSON or an ``sacct
    --parsable2`` dump, recognised by its content (:func:`~scheduling.formats.load.load_trace`;
    an :class:`~scheduling.formats.swf_load.SWFTrace` or a subclass): requests made for
    ``topology`` (a count on a flat machine, sides on a mesh, a dimension on a cube), jobs larger
    than it skipped and listed in the trace's ``report`` (or, with ``too_large="clamp"``, cut to
    the machine; ``"error"`` raises), arrival gaps divided by ``rate_factor``. An ``sacct`` dump's
    node names are mapped to node ids (each job's ``attrs["nodes"]``, which the ``Recorded`` policy
    replays) only when ``topology`` is a tree read from the site's file (``tree:FILE``): the node
    names of a tree given by its level counts are made up. Cached per process, keyed by the
    file's path and modification time."""
    p = Path(path)
    label = None
    if topology is not None:
        label = topology.label if isinstance(topology, TopologySpec) else repr(topology)
        if not isinstance(topology, TopologySpec):
            return _load_swf(str(p), topology, rate_factor, too_large)
    return _read_trace_cached(str(p), p.stat().st_mtime_ns, label, float(rate_factor), too_large)


def _load_swf(path: str, topology: Any, rate_factor: float, too_large: str = "skip",
              map_nodes: bool | None = None) -> Any:
    """The trace at ``path`` in any format :func:`~scheduling.formats.load.load_trace` reads."""
    try:
        from ..formats.load import load_trace
    except ImportError as exc:
        raise TraceSupportError(f"replaying a trace needs the trace readers scheduling.formats.load ({exc})") from None
    return load_trace(path, topology, rate_factor=rate_factor, too_large=too_large, map_nodes=map_nodes)


@functools.lru_cache(maxsize=8)
def _read_trace_cached(path: str, _mtime: int, topology: str | None, rate_factor: float, too_large: str) -> Any:
    spec = TopologySpec.parse(topology) if topology is not None else None
    topo = spec.build() if spec is not None else None
    from_file = spec is not None and spec.kind == "tree" and spec.file is not None
    return _load_swf(path, topo, rate_factor, too_large, map_nodes=from_file)


@dataclass(frozen=True)
class AllocatorFit:
    """What :func:`fit_to_allocator` did to a trace's jobs for one allocator: the ``jobs`` to
    simulate, the ids of the jobs ``skipped`` and ``clamped``, the ``largest`` count the allocator
    grants on the empty machine (``None`` unless a count request had to be cut), and the
    ``refused`` requests (those it cannot place even on the empty machine)."""

    jobs: Any
    skipped: tuple[int, ...] = ()
    clamped: tuple[int, ...] = ()
    largest: int | None = None
    refused: tuple[Any, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.skipped or self.clamped)

    def describe(self, allocator: str) -> str:
        """One line for a replay's report, or ``""`` when every job fits."""
        if not self.changed:
            return ""
        parts = []
        shown_requests = ", ".join(map(repr, self.refused[:5])) + (", ..." if len(self.refused) > 5 else "")
        if self.skipped:
            parts.append(f"{len(self.skipped)} job{'s' if len(self.skipped) != 1 else ''} skipped")
        if self.clamped:
            parts.append(f"{len(self.clamped)} clamped to its largest grant ({self.largest})")
        plural = "s" if len(self.refused) != 1 else ""
        return (f"{allocator}: {' and '.join(parts)}: it cannot grant the request{plural} {shown_requests} even on "
                "the empty machine")


def takes_counts(allocator: Any) -> bool:
    """Whether ``allocator`` takes a processor count where its topology's request is something else
    (``accepts_counts``: the non-contiguous mesh allocators, which grant exactly ``n`` nodes)."""
    return bool(getattr(allocator, "accepts_counts", False))


def requests_for_allocator(jobs: Any, allocator: Any) -> Any:
    """A trace's ``jobs`` with the request ``allocator`` is given for each job's processor count.

    A trace read for a topology asks, for a job of ``n`` processors, what the topology's request
    for ``n`` is (:func:`~scheduling.formats.swf_load.load_swf`: the near-square ``(w, h)`` submesh
    on a mesh, ``w * h >= n``). An allocator that takes counts (``accepts_counts``, the
    non-contiguous mesh allocators) is given ``n`` itself instead, so it is offered the load the
    trace recorded, not the near-square's ``w * h`` (on LANL-CM5 a 32-processor job would
    otherwise get 36 nodes, a 512-processor job 529); the other allocators get the requests as
    read (the contiguous ones need the shape). The jobs are otherwise the same -- ids, arrivals,
    run times, estimates, records -- so allocators compared on one trace see common random
    numbers. A job without a recorded ``size`` keeps its request. ``jobs`` is returned unchanged
    (the same object) when no request changes. O(jobs).

    >>> from topologies import Mesh
    >>> from topoalloc.mesh import FirstFit, Random
    >>> from scheduling.kernel.jobs import Job
    >>> jobs = [Job(0, 0.0, (6, 6), 5.0, size=32), Job(1, 1.0, (1, 1), 2.0, size=1)]
    >>> [j.request for j in requests_for_allocator(jobs, Random(Mesh(32, 32)))]
    [32, 1]
    >>> requests_for_allocator(jobs, FirstFit(Mesh(32, 32))) is jobs
    True
    """
    if not takes_counts(allocator):
        return jobs
    changed = False
    out = []
    for j in jobs:
        n = j.size
        if n is not None and j.request != n:
            j = dataclasses.replace(j, request=int(n))
            changed = True
        out.append(j)
    return out if changed else jobs


def describe_requests(jobs: Any, allocator: Any, label: str, examples: int = 2) -> str:
    """One line for a replay's report: what a job's processor count becomes on ``allocator``
    (labelled ``label``), with the trace's most frequent counts as ``examples`` (larger counts
    first on a tie), and the processors the jobs ask for against those the allocator grants for
    their requests (:meth:`~topoalloc.Allocator.request_size`; a request it cannot take is
    counted as asked). ``jobs`` are the trace's jobs as read for the topology
    (:func:`requests_for_allocator` is applied here). O(jobs) plus one ``request_size`` per
    distinct request.

    >>> from topologies import Mesh
    >>> from topoalloc.mesh import FirstFit, Random
    >>> from scheduling.kernel.jobs import Job
    >>> jobs = [Job(0, 0.0, (6, 6), 5.0, size=32), Job(1, 1.0, (6, 6), 2.0, size=32)]
    >>> describe_requests(jobs, FirstFit(Mesh(32, 32)), "FirstFit")
    'FirstFit: a count n asks for (w, h) (32 -> (6, 6), 36 processors); 64 processors asked, 72 granted (+12.5%)'
    >>> describe_requests(jobs, Random(Mesh(32, 32)), "Random")
    'Random: a count n asks for n processors (32 -> 32); 64 processors asked, 64 granted'
    """
    from topologies import RequestError

    given = requests_for_allocator(jobs, allocator)
    granted_for: dict[Any, int | None] = {}
    per_size: dict[int, list[Any]] = {}  # count -> [jobs, its request]
    asked = granted = 0
    every_count = True  # every request is the job's processor count
    for j, g in zip(jobs, given, strict=True):
        n = j.size if j.size is not None else None
        r = g.request
        if r not in granted_for:
            try:
                granted_for[r] = allocator.request_size(r)
            except (RequestError, TypeError):
                granted_for[r] = None
        got = granted_for[r]
        if n is None:
            n = got if got is not None else 0
        every_count = every_count and r == n and type(r) is int
        asked += n
        granted += got if got is not None else n
        entry = per_size.setdefault(n, [0, r])
        entry[0] += 1
    if every_count:
        rule = "a count n asks for n processors"
    else:
        kind = getattr(allocator.topology, "request_kind", "a request")
        kind = {"a (width, height) pair": "(w, h)"}.get(kind, kind)
        rule = f"a count n asks for {kind}"
    top = sorted(per_size.items(), key=lambda kv: (-kv[1][0], -kv[0]))[:examples]
    shown = []
    for n, (_, r) in top:
        got = granted_for.get(r)
        if r == n:
            shown.append(f"{n} -> {r!r}")
        else:
            shown.append(f"{n} -> {r!r}, {got if got is not None else '?'} processors")
    line = f"{label}: {rule} ({'; '.join(shown)}); {asked} processors asked, {granted} granted"
    if asked and granted != asked:
        line += f" ({(granted - asked) / asked:+.1%})"
    return line


def fit_to_allocator(jobs: Any, allocator: Any, too_large: str = "skip") -> AllocatorFit:
    """A trace's ``jobs`` (an iterable of :class:`~scheduling.kernel.jobs.Job` that fit the machine) made
    to fit what ``allocator`` can grant: a job whose request the allocator cannot place even on the
    empty machine (a DHC forest's largest tree is smaller than the machine; a tree allocator bound
    to one rack) is skipped (``too_large="skip"``), or, with ``"clamp"``, a processor-count request
    is cut to the largest count the allocator places on the empty machine (found by bisection,
    taking placeability to be monotone in the count; other requests are skipped), or, with
    ``"error"``, kept (the simulation then reports the configuration as one that cannot run).
    ``jobs`` is returned unchanged (the same object) when every request fits. O(jobs) plus one
    empty-machine :meth:`~topoalloc.Allocator.place_in` per distinct request.

    >>> from topologies import Flat
    >>> from topoalloc import DHCTree
    >>> from scheduling.kernel.jobs import Job
    >>> jobs = [Job(0, 0.0, 79, 1.0), Job(1, 1.0, 8, 1.0)]
    >>> fit = fit_to_allocator(jobs, DHCTree(Flat(100)))
    >>> [j.id for j in fit.jobs], fit.skipped
    ([1], (0,))
    >>> [j.request for j in fit_to_allocator(jobs, DHCTree(Flat(100)), "clamp").jobs]
    [64, 8]
    """
    from topologies import RequestError

    if too_large not in ("skip", "clamp", "error"):
        raise ValueError(f"too_large must be 'skip', 'clamp' or 'error', got {too_large!r}")
    everything = np.ones(allocator.size, dtype=bool)

    def grants(request: Any) -> bool:
        try:
            return allocator.place_in(request, everything) is not None
        except RequestError:
            return False

    ok: dict[Any, bool] = {}
    for j in jobs:
        if j.request not in ok:
            ok[j.request] = grants(j.request)
    refused = tuple(r for r, good in ok.items() if not good)
    if not refused or too_large == "error":
        return AllocatorFit(jobs, refused=refused)
    largest = None
    if too_large == "clamp" and any(isinstance(r, (int, np.integer)) for r in refused):
        lo, hi = 0, allocator.size  # grants(lo) (or lo == 0), not grants(hi + 1)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if grants(mid):
                lo = mid
            else:
                hi = mid - 1
        largest = lo or None
    kept, skipped, clamped = [], [], []
    for j in jobs:
        if ok[j.request]:
            kept.append(j)
        elif largest is not None and isinstance(j.request, (int, np.integer)):
            kept.append(dataclasses.replace(j, request=largest, size=largest))
            clamped.append(j.id)
        else:
            skipped.append(j.id)
    return AllocatorFit(kept, tuple(skipped), tuple(clamped), largest, refused)


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
    too_large: str = "skip",
    constraints: dict[str, Any] | None = None,
) -> list[Point]:
    """Points replaying trace ``path`` on ``topology`` under each allocator and policy, one
    replication each (a trace is one sample). Without ``loads`` the trace runs as recorded (the
    point's load is ``None``); with ``loads`` its arrivals are compressed or stretched to each
    offered load (:meth:`~scheduling.formats.swf_load.SWFTrace.rate_factor_for` on the topology's
    size). ``too_large``: what happens to jobs larger than the machine (``"skip"``, ``"clamp"``,
    ``"error"``, as :func:`~scheduling.formats.swf_load.load_swf`). ``constraints``: a
    ``[constraints]`` table (:mod:`scheduling.workloads.constraints`) attaching topology constraints
    to the jobs on a switch tree. The trace is identified by its name and SHA-256 (not its path), so
    a moved copy resumes the same rows."""
    p = Path(path)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    base: dict[str, Any] = {"trace": str(p), "name": p.name, "sha256": digest}
    if too_large != "skip":  # only then: the points of earlier replays keep their identity
        base["too_large"] = too_large
    if constraints is not None:
        base["constraints"] = constraints
    name = experiment or f"replay/{p.name}"
    works: list[tuple[float | None, dict[str, Any]]] = []
    if loads is None:
        works.append((None, {**base, "rate_factor": 1.0}))
    else:
        trace = read_trace(p, topology, too_large=too_large)
        for load in loads:
            works.append((float(load), {**base, "rate_factor": trace.rate_factor_for(float(load), topology.size)}))
    allocators = list(allocators)
    counted = _count_takers(topology, allocators)
    return [_TracePoint(name, topology, a, pol, {**work, "requests": "counts"} if a in counted else work, load, jobs,
                        warmup, 0)
            for a in allocators for pol in policies for load, work in works]


def _count_takers(topology: TopologySpec, allocators: list[Component]) -> list[Component]:
    """The ``allocators`` that are given processor counts where the topology's request is a shape
    (:func:`requests_for_allocator`: the non-contiguous ones on a mesh). Their points say so in
    their workload (``"requests": "counts"``), so a store written when they were given the
    near-square shape does not pass its rows off as theirs; the other points keep their identity."""
    if topology.kind != "mesh":
        return []
    machine = topology.build()
    out = []
    for a in allocators:
        try:
            allocator = registry.make_allocator(a.name, machine, a.kwargs)
        except Exception:  # an allocator that cannot be built here: its run reports it
            continue
        if takes_counts(allocator):
            out.append(a)
    return out


@dataclass(frozen=True)
class _TracePoint(Point):
    """A :class:`~scheduling.experiments.schema.Point` whose identity leaves out the trace's path (its
    digest identifies it)."""

    @property
    def point_id(self) -> str:
        from .schema import canonical_json

        cfg = self.config()
        cfg["workload"] = {k: v for k, v in cfg["workload"].items() if k != "trace"}
        return hashlib.sha256(canonical_json(cfg).encode()).hexdigest()[:20]


def export_task(task: dict[str, Any]) -> dict[str, Any]:
    """Simulate the trace point of ``task`` (a :meth:`~scheduling.experiments.schema.Point.task` of a
    point :func:`trace_points` made, plus ``task["export"]``: ``format`` -- ``"batsim"`` or
    ``"swf"`` --, ``dir``, ``name`` -- the file stem -- and ``workload_name``) and write its
    schedule with :func:`scheduling.formats.export`; returns ``{"point_id", "paths"}``, or
    ``{"point_id", "cannot_run": reason}`` for a configuration that cannot run.

    The run is :func:`~scheduling.experiments.runner.run_task`'s for a trace -- the same trace read,
    requests (:func:`requests_for_allocator`), ``too_large`` rule (:func:`fit_to_allocator`),
    constraints, stop and seed, so the same schedule -- with the placements recorded on every
    topology (the nodes each job ran on are what the Batsim file's ``allocated_resources`` and the
    SWF sidecar hold). Picklable, so an executor runs these tasks like the runs themselves; it is
    a second simulation of the configuration: the result row (stored, or resumed from a store)
    is not touched. O(one simulation + jobs + nodes).
    """
    from topologies import RequestSizeError

    from ..formats.schedule_export import export
    from ..kernel.api import simulate

    cfg = task["point"]
    work = cfg["workload"]
    spec = task["export"]
    if "trace" not in work:
        raise ValueError(f"export_task replays traces; point {task['point_id']} has workload {work!r}")
    topo = TopologySpec.parse(cfg["topology"])
    alloc = Component.from_json(cfg["allocator"])
    too_large = work.get("too_large", "skip")
    trace = read_trace(work["trace"], topo, work.get("rate_factor", 1.0), too_large)
    topology = topo.build()
    allocator = registry.make_allocator(alloc.name, topology, alloc.kwargs)
    policy = registry.make_policy(cfg["policy"], cfg.get("policy_params") or {})
    fit = fit_to_allocator(requests_for_allocator(trace, allocator), allocator, too_large)
    workload = constrain(fit.jobs, work.get("constraints"), topology)
    try:
        result = simulate(allocator, policy, workload, jobs=cfg["jobs"], warmup=cfg["warmup"], seed=task["sim_seed"],
                          record_placement=True)
    except RequestSizeError as exc:
        return {"point_id": task["point_id"], "cannot_run": f"{alloc.label} cannot run on {cfg['topology']}: {exc}"}
    paths = export(result, spec["format"], spec["dir"], spec["name"], jobs=trace,
                   workload_name=spec.get("workload_name", "w0"))
    return {"point_id": task["point_id"], "paths": [str(p) for p in paths]}

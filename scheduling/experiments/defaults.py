"""The embedded default of ``topoalloc compare``: every mesh allocator on a 32x32 mesh and every cube
allocator on an 8-cube, under FCFS with RSR-0 and RSR-1 (Chang & Mohapatra, seed 002 §4), made to
be trusted at a glance in about a minute on two cores.

**Like for like.** Every allocator of a topology runs the same job stream: the same sizes (seed 002
§4.1's rectangles with sides uniform on 1..W and 1..H on a mesh -- the 2D buddy too, which rounds
each up to a power-of-two square --, dimensions uniform on 0..D-1 on a cube), the same service times
and arrival times (common random numbers), so the offered load counted on the *requested*
processors is the same for all. What an allocator that rounds up is offered on its *granted*
processors is shown beside it (``granted load``; the 2D buddy's is 3.01x the nominal load on
rectangles, :mod:`scheduling.workloads.offered`).

**How many runs.** Each run has :data:`COMPARE_JOBS` completions, the first :data:`COMPARE_WARMUP`
arrivals discarded; each point is replicated until the 95% half-width of its mean turnaround is
within :data:`COMPARE_TARGET`'s relative width of the mean (at least 3, at most 10 runs; the rule of
:func:`scheduling.metrics.replicate_until`, run in rounds on all cores by
:func:`~scheduling.experiments.run_study`). A point with a saturated run (its backlog grew through
the run: :func:`scheduling.metrics.saturation`) stops at 3 and is marked (``sat``, or ``*`` when
only some runs saturated).

**Loads.** The mesh loads 0.1-0.3 and the cube loads 0.3-0.7 span each topology's working range
under FCFS. Measured saturation loads (``topoalloc compare --saturation``, 5,000-job runs): on the
mesh, 2D buddy 0.27 (RSR-0) / 0.32 (RSR-1), frame sliding 0.41 / 0.43, first fit 0.43 / 0.51, best
fit 0.47 / 0.56; on the cube, buddy 0.67 / 0.82, Gray code 0.73 / 0.82, free list 0.74 / 0.85 -- so
at 0.3 the 2D buddy is saturated on rectangles and at 0.7 buddy RSR-0 is, and the table says so.

**Switch trees.** ``--topology tree:...`` (or ``fattree:...``, or a topology file) runs every
allocator registered for the ``tree`` kind at the time of the call (so allocators registered later
are compared too) on :data:`COMPARE_TOPOLOGIES`'s ``tree:2x10x64:block,rack,host`` by default, with
the kueue#4634 job mix scaled to the tree (:meth:`~scheduling.workloads.HeroMix.for_tree`: mostly
jobs of one rack or less, a few heroes of a block or the whole machine) and no constraint
(``constraints=`` adds a rule, :mod:`scheduling.workloads.constraints`). An allocator that cannot
place the mix's largest job on the empty tree is left out and reported, like one that cannot be
built on the topology.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import registry
from .parse import canonical_policy
from .schema import Component, ConfigError, Experiment, Study, Target, WorkloadSpec, frozen_table, tree_sizes
from .topology_spec import TopologySpec

_T = TypeVar("_T")

__all__ = ["compare_study", "compare_workload", "default_allocators", "COMPARE_ALLOCATORS", "COMPARE_TOPOLOGIES",
           "COMPARE_LOADS", "COMPARE_POLICIES", "COMPARE_JOBS", "COMPARE_WARMUP", "COMPARE_TARGET", "TREE_LOADS"]

#: Loads on a switch tree: the hero mix under FCFS saturates at 0.61-0.63 with FirstFree (``topoalloc
#: compare --topology tree:2x10x64:block,rack,host --policies FCFS --saturation``, 10,000-job probes), so
#: 0.2-0.5 is its working range.
TREE_LOADS = (0.2, 0.35, 0.5)

#: Allocators compared by default, per topology kind (on a tree: every registered tree allocator,
#: looked up when the study is made, :func:`default_allocators`).
COMPARE_ALLOCATORS = {
    "mesh": ("Buddy2D", "FrameSliding", "FirstFit", "BestFit"),
    "cube": ("Buddy", "GrayCode", "FreeList"),
    "flat": ("FlatPool", "DHCTree"),
}
COMPARE_TOPOLOGIES = {"mesh": "mesh:32x32", "cube": "cube:8", "flat": "flat:256",
                      "tree": "tree:2x10x64:block,rack,host"}
#: Loads per kind (see the module docstring for the saturation loads they are chosen against).
COMPARE_LOADS = {"mesh": (0.1, 0.2, 0.3), "cube": (0.3, 0.5, 0.7), "flat": (0.3, 0.5, 0.7),
                 "tree": TREE_LOADS}
COMPARE_POLICIES = ("RSR-0", "RSR-1")
#: Completions per run, and arrivals discarded first.
COMPARE_JOBS = 5000
COMPARE_WARMUP = 500
#: Replicate until the 95% half-width of the mean turnaround is within 5% of the mean (3 to 10 runs).
COMPARE_TARGET = Target("mean_turnaround", 0.05, 3, 10)


def compare_study(
    *,
    topologies: Sequence[str] | None = None,
    allocators: Sequence[str] | None = None,
    policies: Sequence[str] | None = None,
    loads: Sequence[float] | None = None,
    replications: int | None = None,
    jobs: int | None = None,
    warmup: int | None = None,
    seed: int = 0,
    target: float | None = None,
    max_replications: int | None = None,
    comm: Any = 0.0,
    runtime_model: Any = None,
    constraints: dict[str, Any] | None = None,
) -> tuple[Study, dict[str, str]]:
    """The ``compare`` study and ``{allocator: reason}`` for default allocators left out (unable to run
    on the chosen topology). Explicitly named allocators that
    cannot run raise :class:`ConfigError`. With ``allocators`` but no ``topologies``, each kind
    named gets its default topology. ``replications`` fixes the number of runs per point;
    otherwise they are chosen to reach ``target`` (a relative half-width, default
    :data:`COMPARE_TARGET`'s 5%) within at most ``max_replications`` runs per point (default
    :data:`COMPARE_TARGET`'s 10; at least its ``min_runs``). Without an explicit ``warmup``, a run
    of ``jobs`` completions discards the first tenth (at most :data:`COMPARE_WARMUP`). ``comm`` (a fraction, or a
    :class:`Component` distribution) and ``runtime_model`` (a :class:`Component` naming a
    :mod:`scheduling.models.runtime` model) make run times depend on placement (see
    :class:`WorkloadSpec`). ``constraints`` (a ``[constraints]`` table) attaches topology
    constraints to the jobs on a switch tree. An allocator, named or not, that cannot place the
    workload's largest job on the empty machine is left out with its reason (a configuration
    that cannot run is reported, not fatal)."""
    skipped: dict[str, str] = {}
    if max_replications is not None:
        if isinstance(max_replications, bool) or not isinstance(max_replications, int) \
                or max_replications < COMPARE_TARGET.min_runs:
            raise ConfigError(f"must be an integer >= {COMPARE_TARGET.min_runs} (the minimum replications of a "
                              f"point), got {max_replications!r}", key="--max-replications")
        if replications:
            raise ConfigError("give either --replications (a fixed count) or --max-replications (the cap of the "
                              "precision target), not both", key="--max-replications")
    pols = tuple(_checked(canonical_policy, p, "--policies") for p in (policies or COMPARE_POLICIES))
    topos = [_checked(TopologySpec.parse, t, "--topology") for t in topologies] if topologies else None
    named = [_checked(registry.canonical_allocator, a, "--allocators") for a in allocators] if allocators else None
    if topos is None:
        kinds = sorted({registry.allocator_kind(a) for a in named}, key=list(COMPARE_TOPOLOGIES).index) \
            if named else ["mesh", "cube"]
        topos = [TopologySpec.parse(COMPARE_TOPOLOGIES[k]) for k in kinds]
    if named:
        topo_kinds = {t.kind for t in topos}
        for a in named:
            if registry.allocator_kind(a) not in topo_kinds:
                raise ConfigError(f"{a} runs on a {registry.allocator_kind(a)} topology; none of "
                                  f"{', '.join(t.label for t in topos)} is one", key="--allocators")
    if constraints is not None and any(t.kind != "tree" for t in topos):
        raise ConfigError("topology constraints need a switch tree (--topology tree:... or fattree:...)",
                          key="--constraints")
    exps = []
    for topo in topos:
        chosen = [a for a in named if registry.allocator_kind(a) == topo.kind] if named else \
            default_allocators(topo.kind)
        usable = []
        for a in chosen:
            reason = _cannot_run(a, topo)
            largest = None if reason is not None else _cannot_grant_largest(a, topo)
            if reason is None and largest is None:
                usable.append(Component(a))
            elif named and reason is not None:
                raise ConfigError(reason, key="--allocators")
            else:
                why = reason or largest
                assert why is not None  # it is not usable
                skipped[a] = why
        if not usable:
            continue
        n_jobs = jobs or COMPARE_JOBS
        rule = None if replications else dataclasses.replace(
            COMPARE_TARGET, relative=float(target) if target is not None else COMPARE_TARGET.relative,
            max_runs=max_replications or COMPARE_TARGET.max_runs)
        exp = Experiment(
            name=f"compare/{topo.label}", topology=topo, allocators=tuple(usable), policies=pols,
            loads=tuple(float(x) for x in (loads or COMPARE_LOADS[topo.kind])),
            workload=dataclasses.replace(compare_workload(topo), comm=comm, runtime_model=runtime_model,
                                         constraints=frozen_table(constraints)),
            jobs=n_jobs, warmup=min(COMPARE_WARMUP, n_jobs // 10) if warmup is None else warmup,
            replications=replications or COMPARE_TARGET.min_runs, target=rule, seed=seed,
            description=f"{', '.join(a.name for a in usable)} on {topo.label} under FCFS with {', '.join(pols)}",
        )
        if exp.warmup >= n_jobs:
            raise ConfigError(f"warmup ({exp.warmup}) must be smaller than jobs ({n_jobs})", key="--warmup")
        exps.append(exp)
    if not exps:
        reasons = list(skipped.values())
        if reasons and all("would need at least" in r for r in reasons):  # the machine itself is too large
            first = reasons[0].split(": ", 1)[-1]
            raise ConfigError(f"{', '.join(t.label for t in topos)} is too large for this host: {first}",
                              key="--topology")
        raise ConfigError("no allocator can run: " + "; ".join(f"{a}: {r}" for a, r in skipped.items()),
                          key="--allocators")
    study = Study("compare", tuple(exps), description="topoalloc compare: allocators under FCFS with RSR folding")
    return study, skipped


def compare_workload(topo: TopologySpec) -> WorkloadSpec:
    """The job stream every allocator of ``topo`` gets: seed 002 §4.1's rectangles on a mesh (not
    the squares the paper gives the 2D buddy alone), the kueue#4634 mix scaled to a switch tree,
    the ``auto`` sizes elsewhere (the same for every allocator of a cube or a flat machine),
    exponential service with mean 5."""
    if topo.kind == "mesh" and len(topo.shape) != 2:  # d dimensions, or a 1D line: sides uniform per axis
        return WorkloadSpec(sizes=Component.of("BoxSides", max_sides=list(topo.shape)))
    if topo.kind == "mesh":
        w, h = topo.shape
        return WorkloadSpec(sizes=Component.of("MeshSides", max_w=w, max_h=h))
    if topo.kind == "tree":
        return WorkloadSpec(sizes=tree_sizes(topo))
    return WorkloadSpec()


def default_allocators(kind: str) -> list[str]:
    """The allocators ``compare`` runs on a topology of ``kind`` when none are named: the
    :data:`COMPARE_ALLOCATORS`, or on a switch tree every registered tree allocator (now)."""
    if kind == "tree":
        return registry.allocator_names("tree")
    return list(COMPARE_ALLOCATORS[kind])


def _checked(fn: Callable[[Any], _T], value: Any, key: str) -> _T:
    try:
        return fn(value)
    except (KeyError, ValueError, TypeError) as exc:
        raise ConfigError(str(exc), key=key) from None


def _cannot_run(name: str, topo: TopologySpec) -> str | None:
    """Why allocator ``name`` cannot run on ``topo``, or ``None``."""
    try:
        registry.make_allocator(name, topo.build())
    except Exception as exc:  # the allocator's own check (e.g. Buddy2D needs a power-of-two square)
        return f"{name} cannot run on {topo.label}: {exc}"
    return None


def _cannot_grant_largest(name: str, topo: TopologySpec) -> str | None:
    """Why allocator ``name`` cannot run the compare workload on ``topo`` (it cannot place the
    workload's largest job on the empty machine: a tree allocator bound to a rack, a DHC forest
    whose largest tree is smaller than the machine, e.g. 256 of ``flat:320``), or ``None``."""
    import numpy as np

    from topologies import RequestError

    spec = compare_workload(topo).resolve(topo, name)
    sizes = registry.make_distribution(spec.sizes.name, spec.sizes.kwargs)
    largest = sizes.max_request
    if isinstance(largest, np.integer):
        largest = int(largest)
    what = f"a {largest}-node job" if topo.kind == "tree" else f"the workload's largest request ({largest!r})"
    allocator = registry.make_allocator(name, topo.build())
    try:
        placed = allocator.place_in(largest, np.ones(allocator.size, dtype=bool))
    except RequestError as exc:
        return f"{name} cannot place {what} on the empty {topo.label}: {exc}"
    if placed is None:
        return f"{name} cannot place {what} on the empty {topo.label}"
    return None
    import numpy as np

    allocator = registry.make_allocator(name, topo.build())
    sizes = registry.make_distribution(compare_workload(topo).sizes.name, compare_workload(topo).sizes.kwargs)
    largest = int(sizes.max_request)
    if allocator.place_in(largest, np.ones(allocator.size, dtype=bool)) is None:
        return f"{name} cannot place a {largest}-node job on the empty {topo.label}"
    return None

"""The embedded default of ``topoalloc compare``: every mesh allocator on a 32x32 mesh and every cube
allocator on an 8-cube, under FCFS with RSR-0 and RSR-1 (Chang & Mohapatra, seed 002 §4), small
enough to finish in well under a minute on two cores."""

from __future__ import annotations

from collections.abc import Sequence

from . import registry
from .config import Component, ConfigError, Experiment, Study, TopologySpec, WorkloadSpec, canonical_policy

__all__ = ["compare_study", "COMPARE_ALLOCATORS", "COMPARE_TOPOLOGIES", "COMPARE_LOADS", "COMPARE_POLICIES",
           "COMPARE_JOBS", "COMPARE_WARMUP", "COMPARE_REPLICATIONS"]

#: Allocators compared by default, per topology kind.
COMPARE_ALLOCATORS = {
    "mesh": ("Buddy2D", "FrameSliding", "FirstFit", "BestFit"),
    "cube": ("Buddy", "GrayCode", "FreeList"),
    "flat": ("FlatPool", "DHCTree"),
}
COMPARE_TOPOLOGIES = {"mesh": "mesh:32x32", "cube": "cube:8", "flat": "flat:256"}
#: Loads per kind: a 32x32 mesh under FCFS saturates near 40-50% utilisation (seed 002 Fig. 1), an
#: 8-cube with buddy and RSR-1 beyond 80% (Fig. 2).
COMPARE_LOADS = {"mesh": (0.2, 0.3, 0.4), "cube": (0.3, 0.5, 0.7), "flat": (0.3, 0.5, 0.7)}
COMPARE_POLICIES = ("RSR-0", "RSR-1")
COMPARE_JOBS = 1000
COMPARE_WARMUP = 100
COMPARE_REPLICATIONS = 3


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
) -> tuple[Study, dict[str, str]]:
    """The ``compare`` study and ``{allocator: reason}`` for default allocators left out (unable to
    run on the chosen topology). Explicitly named allocators that cannot run raise
    :class:`ConfigError`. With ``allocators`` but no ``topologies``, each kind
    named gets its default topology."""
    skipped: dict[str, str] = {}
    pols = tuple(_checked(canonical_policy, p, "--policies") for p in (policies or COMPARE_POLICIES))
    topos = [_checked(TopologySpec.parse, t, "--topology") for t in topologies] if topologies else None
    named = [_checked(registry.canonical_allocator, a, "--allocators") for a in allocators] if allocators else None
    if topos is None:
        kinds = sorted({registry.allocator_kind(a) for a in named}, key=list(COMPARE_TOPOLOGIES).index) \
            if named else ["mesh", "cube"]
        topos = [TopologySpec.parse(COMPARE_TOPOLOGIES[k]) for k in kinds]
    if named:
        kinds = {t.kind for t in topos}
        for a in named:
            if registry.allocator_kind(a) not in kinds:
                raise ConfigError(f"{a} runs on a {registry.allocator_kind(a)} topology; none of "
                                  f"{', '.join(t.label for t in topos)} is one", key="--allocators")
    exps = []
    for topo in topos:
        chosen = [a for a in named if registry.allocator_kind(a) == topo.kind] if named else \
            list(COMPARE_ALLOCATORS[topo.kind])
        usable = []
        for a in chosen:
            reason = _cannot_run(a, topo)
            if reason is None:
                usable.append(Component(a))
            elif named:
                raise ConfigError(reason, key="--allocators")
            else:
                skipped[a] = reason
        if not usable:
            continue
        exp = Experiment(
            name=f"compare/{topo.label}", topology=topo, allocators=tuple(usable), policies=pols,
            loads=tuple(float(x) for x in (loads or COMPARE_LOADS[topo.kind])), workload=WorkloadSpec(),
            jobs=jobs or COMPARE_JOBS, warmup=COMPARE_WARMUP if warmup is None else warmup,
            replications=replications or COMPARE_REPLICATIONS, seed=seed,
            description=f"{', '.join(a.name for a in usable)} on {topo.label} under FCFS with {', '.join(pols)}",
        )
        if exp.warmup >= exp.jobs:
            raise ConfigError(f"warmup ({exp.warmup}) must be smaller than jobs ({exp.jobs})", key="--warmup")
        exps.append(exp)
    if not exps:
        raise ConfigError("no allocator can run: " + "; ".join(f"{a}: {r}" for a, r in skipped.items()),
                          key="--allocators")
    study = Study("compare", tuple(exps), description="topoalloc compare: allocators under FCFS with RSR folding")
    return study, skipped


def _checked(fn, value, key):  # noqa: ANN001, ANN202 - small local helper
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

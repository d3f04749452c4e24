"""What an experiment is: the dataclasses a study file (:mod:`scheduling.experiments.parse`) or
``topoalloc compare`` (:mod:`scheduling.experiments.defaults`) builds, and their expansion into
points.

A **study** (one TOML file, or the embedded default of ``topoalloc compare``) holds one or more
**experiments**; an experiment is the cross product ``allocators x policies x loads`` on one
topology (a :class:`~scheduling.experiments.topology_spec.TopologySpec`) and workload, replicated.
Each element of that product is a :class:`Point`; a point and a replication number make one
simulation (a *task*).

**Seeds.** A task's simulation seed is a hash of the experiment seed, the parts of the point that
define the job stream (topology, resolved workload, load) and the replication number
(:func:`derive_seed`). It therefore does not depend on the order, process or machine the task runs
in, and -- by design -- not on the allocator or the policy: every allocator and policy at one load
sees the same jobs in replication ``r`` (common random numbers, as the workloads are built for), so
differences between curves are not sampling noise between job streams. Different loads and
replications get independent streams.

>>> e = Experiment("demo", TopologySpec.parse("cube:4"), (Component("Buddy"),), ("FCFS",), (0.5,), jobs=100,
...                warmup=10, seed=7)
>>> [(p.allocator.label, p.policy, p.load) for p in e.points()], e.points()[0].sim_seed(0) == e.points()[0].sim_seed(0)
([('Buddy', 'FCFS', 0.5)], True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._validate import check_real, shown
from ..kernel.semantics import SIMULATION_SEMANTICS
from . import registry
from .topology_spec import TopologySpec

__all__ = [
    "ConfigError",
    "METRICS",
    "METRIC_NOTES",
    "TopologySpec",
    "Component",
    "WorkloadSpec",
    "Target",
    "PlotSpec",
    "PLOT_KINDS",
    "PANELS",
    "Experiment",
    "Study",
    "Point",
    "derive_seed",
    "canonical_json",
    "frozen_table",
    "constrain",
    "tree_sizes",
]

#: Per-replication metrics (the keys of :meth:`SimulationResult.summary`, ``jobs`` stored as ``kept``).
METRICS = (
    "mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_folding_factor", "fraction_folded",
    "mean_slowdown", "mean_bounded_slowdown", "p50_turnaround", "p90_turnaround", "p99_turnaround",
    "p90_slowdown", "mean_changes", "mean_moved", "mean_cluster_size", "cv_cluster_size", "system_efficiency",
    "load_average", "saturated", "backlog_growth", "backlog_rise_sd", "mean_hops", "mean_components",
    "blocked_by_topology", "blocked_fraction", "blocked_episodes", "mean_leaf_switches", "fraction_relaxed",
    "mean_dilation", "mean_interference", "interference_fraction",
)
#: What the metrics added for seeds 000, 001 and 003 mean (the others: :func:`scheduling.metrics.summarize`).
METRIC_NOTES = {
    "mean_changes": "allocation changes (resizes) per job while running",
    "mean_moved": "processors moved per job while running: the sum of |change in processors| over its resizes "
                  "(seed 000 Table 4.3 counts these)",
    "mean_cluster_size": "mean processors granted at start (seed 001 Table 1)",
    "cv_cluster_size": "coefficient of variation of the processors granted at start (population sd / mean)",
    "system_efficiency": "time-averaged sum of the running jobs' speedups over P (seed 000 §4, seed 003 §5; "
                         "Downey model: seed 001's efficiency-weighted utilization); NaN for policies that do not "
                         "track it",
    "load_average": "Downey model only: fraction of processors allocated over the day (seed 001 §4.1)",
    "p90_slowdown": "90th percentile of turnaround / run time on the request (Downey model: Eq. 5, over the run "
                    "time on all N processors)",
    "saturated": "1 if the run's backlog grew through it (scheduling.metrics.saturation), else 0; over "
                 "replications, the fraction of saturated runs",
    "backlog_growth": "jobs added to the backlog per arriving job (least-squares slope; 0 when stable)",
    "backlog_rise_sd": "the backlog's fitted rise over the run in standard deviations around the fit",
    "mean_hops": "mesh, cube and switch tree: mean over jobs of the average pairwise hop distance of a job's nodes "
                 "(topoalloc.locality.mean_hops)",
    "mean_components": "mesh and cube: mean over jobs of the connected pieces of a job's nodes (1: contiguous); "
                       "switch tree: the leaf switches it spans",
    "blocked_by_topology": "time the job at the head of the queue waited although as many processors as it asks for "
                           "were free: no placement met its constraint or the allocator's rule (external "
                           "fragmentation; scheduling.Simulator)",
    "blocked_fraction": "blocked_by_topology as a fraction of the run's measured time",
    "blocked_episodes": "number of separate intervals of blocked_by_topology",
    "mean_leaf_switches": "switch tree: mean over jobs of the leaf switches a job's nodes touch",
    "fraction_relaxed": "switch tree: fraction of jobs that waited their whole switches wait (Slurm's --switches=N@T) "
                        "and started on any placement",
    "mean_dilation": "with a placement-dependent run-time model: mean over jobs of the run time its placement "
                     "alone adds (scheduling.models.runtime)",
    "mean_interference": "with the contention model: mean over jobs of the run time lost to other jobs' traffic on "
                         "shared links (scheduling.models.contention)",
    "interference_fraction": "with the contention model: the share of the jobs' run time lost to other jobs' traffic",
}


class ConfigError(ValueError):
    """A bad experiment description. The message names the file, the key and the allowed choices."""

    def __init__(self, message: str, *, file: str | Path | None = None, key: str | None = None) -> None:
        self.file = str(file) if file is not None else None
        self.key = key
        prefix = f"{self.file}: " if self.file else ""
        if key:
            prefix += f"key '{key}': "
        super().__init__(prefix + message)


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: equal configurations give equal strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def derive_seed(experiment_seed: int, stream_key: Any, replication: int) -> int:
    """A 63-bit simulation seed from the experiment seed, a JSON-able ``stream_key`` and the
    replication (SHA-256 of their canonical JSON): stable across runs, machines and versions."""
    text = canonical_json([int(experiment_seed), stream_key, int(replication)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


# -- named components -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Component:
    """A name with keyword parameters: an allocator (``FirstFit``, ``{name = "GrayCode", codes =
    2}``) or a distribution. ``label`` is ``Name`` or ``Name(k=v, ...)``."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, name: str, **params: Any) -> Component:
        return cls(name, tuple(sorted((k, _freeze(v)) for k, v in params.items())))

    @property
    def kwargs(self) -> dict[str, Any]:
        return {k: _thaw(v) for k, v in self.params}

    @property
    def label(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={_thaw(v)!r}' for k, v in self.params)})"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.kwargs}

    @classmethod
    def from_json(cls, value: Any) -> Component:
        if isinstance(value, Component):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            params = {k: v for k, v in value.items() if k != "name"}
            return cls.of(value["name"], **params)
        raise ValueError(f"expected a name or a table with 'name', got {value!r}")


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list | tuple) else v


def _thaw(v: Any) -> Any:
    return [_thaw(x) for x in v] if isinstance(v, tuple) else v


def frozen_table(table: dict[str, Any] | None) -> tuple[tuple[str, Any], ...] | None:
    """A ``[constraints]`` table as a hashable value (``None`` stays ``None``)."""
    return None if table is None else tuple(sorted((k, _freeze(v)) for k, v in table.items()))


def constrain(workload: Any, rule: dict[str, Any] | None, topology: Any) -> Any:
    """``workload`` with the requests the ``[constraints]`` table ``rule`` makes on ``topology``
    (:class:`~scheduling.workloads.constraints.Constrained`), or ``workload`` itself without a
    rule; a rule on a topology that is not a switch tree raises :class:`ValueError`."""
    if rule is None:
        return workload
    from topologies import SwitchTree

    from ..workloads.constraints import Constrained, rule_from_json

    if not isinstance(topology, SwitchTree):
        raise ValueError(f"topology constraints need a switch tree, not {topology!r}")
    return Constrained(workload, rule_from_json(rule), topology)


def tree_sizes(topology: TopologySpec) -> Component:
    """The ``auto`` sizes on a switch tree: :meth:`~scheduling.workloads.HeroMix.for_tree` of it."""
    from ..workloads.distributions import HeroMix

    mix = HeroMix.for_tree(topology.build())
    return Component.of("HeroMix", small_max=mix.small_max, medium_max=mix.medium_max, heroes=list(mix.heroes),
                        p_medium=mix.p_medium, p_hero=mix.p_hero)


# -- workload ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    """A synthetic workload: ``sizes`` (or ``auto``), ``service`` and ``speedup`` distributions.

    ``sizes = auto`` resolves per topology and allocator, following seed 002 §4.1: sides uniform on
    ``1..W`` and ``1..H`` (:class:`~scheduling.workloads.MeshSides`) on a mesh, squares with side
    uniform on ``1..min(W, H)`` for the two-dimensional buddy, dimensions uniform on ``0..D-1`` on a
    ``D``-cube (``CubeDims(D - 1)``: 0..7 on the 8-cube), counts uniform on ``1..P`` on a flat machine.
    """

    sizes: Component = Component("auto")
    service: Component = Component.of("Exponential", mean=5.0)
    speedup: Component = Component("Linear")
    #: A named workload model (:data:`~scheduling.experiments.registry.WORKLOAD_MODELS`) instead
    #: of the three distributions.
    model: Component | None = None
    #: What ``load`` refers to (:mod:`scheduling.workloads.offered`): ``"requested"`` (seed 002's
    #: formula with the mean request: every allocator gets the same job stream) or ``"granted"``
    #: (the mean of the processors the allocator grants, e.g. the 2D buddy's rounded-up squares).
    load_basis: str = "requested"
    #: Each job's communication fraction (:attr:`Job.comm <scheduling.kernel.jobs.Job.comm>`): a number in
    #: [0, 1], or a distribution (``{name = "Uniform", low = 0.5, high = 1.0}``).
    comm: Component | float = 0.0
    #: A placement-dependent run-time model (:mod:`scheduling.models.runtime`: ``"Dilation"`` or
    #: ``{name = "HopBytes", pattern = "nearest-neighbour"}``; :mod:`scheduling.models.contention`:
    #: ``"Contention"`` or ``{name = "Contention", placement = "none", pattern = "all-to-all"}``, jobs
    #: slowing each other through shared links); ``None``: placement costs nothing.
    runtime_model: Component | None = None
    #: Topology constraints attached to the jobs by rule (a ``[constraints]`` table, as
    #: :func:`~scheduling.workloads.constraints.rule_from_json` reads it; switch trees only).
    constraints: tuple[tuple[str, Any], ...] | None = None

    @property
    def constraints_json(self) -> dict[str, Any] | None:
        """The ``[constraints]`` table, or ``None``."""
        return None if self.constraints is None else {k: _thaw(v) for k, v in self.constraints}

    def constraint_rule(self) -> Any:
        """The rule of :attr:`constraints` (:mod:`scheduling.workloads.constraints`), or ``None``."""
        rule = self.constraints_json  # None exactly when constraints is None
        if rule is None:
            return None
        from ..workloads.constraints import rule_from_json

        return rule_from_json(rule)

    def constrain(self, workload: Any, topology: Any) -> Any:
        """``workload`` with the rule's requests on ``topology`` (a switch tree), or as it is
        without a rule."""
        return constrain(workload, self.constraints_json, topology)

    @property
    def episodes(self) -> int:
        """Independent simulations pooled into one replication (a model's ``days``), else 1."""
        if self.model is None:
            return 1
        param = registry.workload_model(self.model.name).episodes
        return int(self.model.kwargs.get(param, 1)) if param else 1

    @property
    def finite(self) -> bool:
        """Whether the workload ends by itself (runs may then last until every job is done)."""
        return self.model is not None and registry.workload_model(self.model.name).finite

    @property
    def trace(self) -> bool:
        """Whether the workload replays recorded jobs (loads may be ``"recorded"``: ``None``)."""
        return self.model is not None and registry.workload_model(self.model.name).trace

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> WorkloadSpec:
        """Inverse of :meth:`to_json`."""
        rule = frozen_table(value.get("constraints"))
        if "model" in value:
            return cls(model=Component.from_json(value["model"]), constraints=rule)
        comm = value.get("comm", 0.0)
        runtime = value.get("runtime_model")
        return cls(Component.from_json(value["sizes"]), Component.from_json(value["service"]),
                   Component.from_json(value["speedup"]), load_basis=value.get("load_basis", "requested"),
                   comm=Component.from_json(comm) if isinstance(comm, dict | list | str) else float(comm),
                   runtime_model=Component.from_json(runtime) if runtime is not None else None, constraints=rule)

    def resolve(self, topology: TopologySpec, allocator: str) -> WorkloadSpec:
        """This workload with ``auto`` sizes made concrete for ``topology`` and ``allocator``."""
        if self.model is not None or self.sizes.name.lower() != "auto":
            return self
        if topology.kind == "mesh" and len(topology.shape) != 2:
            sizes = Component.of("BoxSides", max_sides=list(topology.shape))
        elif topology.kind == "mesh":
            w, h = topology.shape
            sizes = Component.of("Squares", max_side=min(w, h)) if allocator == "Buddy2D" else \
                Component.of("MeshSides", max_w=w, max_h=h)
        elif topology.kind == "cube":
            sizes = Component.of("CubeDims", max_dim=max(topology.shape[0] - 1, 0))
        elif topology.kind == "tree":
            sizes = tree_sizes(topology)
        else:
            sizes = Component.of("UniformCount", low=1, high=topology.size)
        return dataclasses.replace(self, sizes=sizes)

    def to_json(self) -> dict[str, Any]:
        rule = {} if self.constraints is None else {"constraints": self.constraints_json}
        if self.model is not None:
            return {"model": self.model.to_json(), **rule}
        out: dict[str, Any] = {"sizes": self.sizes.to_json(), "service": self.service.to_json(),
                               "speedup": self.speedup.to_json(), **rule}
        if self.load_basis != "requested":  # only then, so the default keeps its job streams (seeds)
            out["load_basis"] = self.load_basis
        if isinstance(self.comm, Component) or self.comm != 0.0:  # likewise
            out["comm"] = self.comm.to_json() if isinstance(self.comm, Component) else self.comm
        if self.runtime_model is not None:
            out["runtime_model"] = self.runtime_model.to_json()
        return out

    def comm_value(self) -> Any:
        """:attr:`comm` as :class:`~scheduling.workloads.Synthetic` takes it (a number or a
        distribution)."""
        if isinstance(self.comm, Component):
            return registry.make_distribution(self.comm.name, self.comm.kwargs, None)
        return self.comm

    def make_runtime_model(self) -> Any:
        """The :mod:`scheduling.models.runtime` model, or ``None``."""
        if self.runtime_model is None:
            return None
        from ..models import contention, runtime

        models = {"dilation": runtime.Dilation, "hopbytes": runtime.HopBytes, "hop-bytes": runtime.HopBytes,
                  "contention": contention.Contention}
        cls = models.get(self.runtime_model.name.lower())
        if cls is None:
            raise ValueError(f"unknown runtime model {self.runtime_model.name!r}; choose from Dilation, HopBytes, "
                             "Contention")
        return cls(**self.runtime_model.kwargs)

    def build(self, load: float | None, machine_size: int, allocator: Any = None) -> Any:
        """The workload at ``load``: the model's, else a :class:`~scheduling.workloads.Synthetic`
        one (sizes must be resolved). ``None`` is a trace model's recorded rate. With
        ``load_basis = "granted"`` the rate comes from the mean of ``allocator.request_size`` over
        the requests (:func:`~scheduling.workloads.offered.mean_granted_size`), so ``allocator`` is
        needed."""
        from ..workloads import Synthetic, arrival_rate
        from ..workloads.offered import allocator_granted_mean

        if self.model is not None:
            return registry.make_workload(self.model.name, self.model.kwargs, load=load, machine_size=machine_size)
        if self.sizes.name.lower() == "auto":
            raise ValueError("resolve() the workload before building it: sizes are 'auto'")
        sizes = registry.make_distribution(self.sizes.name, self.sizes.kwargs, "sizes")
        service = registry.make_distribution(self.service.name, self.service.kwargs, "service")
        speedup = registry.make_distribution(self.speedup.name, self.speedup.kwargs, "speedup")
        if self.load_basis == "granted":
            if allocator is None:
                raise ValueError("a load on the granted processors (load_basis = 'granted') needs the allocator")
            granted = allocator_granted_mean(sizes, allocator)
            # a synthetic workload needs a load: None is refused with the ParameterError arrival_rate gave
            rate = arrival_rate(check_real(load, "load", low=0, low_open=True), machine_size, granted, service.mean)
            return Synthetic(sizes, service, rate=rate, speedup=speedup, comm=self.comm_value())
        return Synthetic(sizes, service, load=load, machine_size=machine_size, speedup=speedup, comm=self.comm_value())

    def offered(self, load: float | None, machine_size: int, allocator: Any) -> tuple[float, float]:
        """``(on requested, on granted)`` processors: the load this workload offers ``allocator``
        at nominal ``load``, counting each job's requested or granted processors times its service
        time (NaN for workload models and traces, whose offered work is not a formula)."""
        from ..workloads.offered import allocator_granted_mean

        if self.model is not None or load is None or self.sizes.name.lower() == "auto":
            return math.nan, math.nan
        sizes = registry.make_distribution(self.sizes.name, self.sizes.kwargs, "sizes")
        ratio = allocator_granted_mean(sizes, allocator) / float(sizes.mean_size)
        if self.load_basis == "granted":
            return load / ratio, load
        return load, load * ratio


@dataclass(frozen=True, slots=True)
class Target:
    """Replicate until the 95% half-width of ``metric`` is at most ``relative`` of its mean (the
    seeds use 5%), with at least ``min_runs`` and at most ``max_runs`` replications."""

    metric: str = "mean_turnaround"
    relative: float = 0.05
    min_runs: int = 3
    max_runs: int = 30


PLOT_KINDS = ("load", "utilization", "fairness")
PANELS = ("experiment", "allocator", "policy", "none")


@dataclass(frozen=True, slots=True)
class PlotSpec:
    """A figure: ``kind`` ``load`` (``metric`` vs load), ``utilization`` (utilisation and S_e vs
    load) or ``fairness`` (mean turnaround by requested size at ``load``); one subplot per value of
    ``panels``; log y axis with ``logy``; written to ``file`` (default ``<study>-<kind>.png``)."""

    kind: str = "load"
    metric: str = "mean_turnaround"
    panels: str = "experiment"
    logy: bool = False
    load: float | None = None
    file: str | None = None
    title: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


# -- experiments and points -------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One configuration at one load: what a row of results is for (with a replication number).

    ``workload`` is the resolved workload's JSON (or a trace's description for replays) and
    ``load`` is ``None`` for traces. :attr:`point_id` is a digest of :meth:`config`: the
    experiment, topology, allocator and its parameters, policy and its parameters, every workload
    parameter, the load, ``jobs``, ``warmup``, the seed and
    :data:`~scheduling.kernel.semantics.SIMULATION_SEMANTICS` -- everything a replication's result depends
    on, so a result store never serves a row computed for another configuration or by a simulator
    with other semantics. (The number of replications is not part of it: replication ``r`` of a
    point is the same simulation however many are asked for.)"""

    experiment: str
    topology: TopologySpec
    allocator: Component
    policy: str
    workload: dict[str, Any]
    load: float | None
    jobs: int | None
    warmup: int
    seed: int
    #: Constructor parameters of the policy (``(("overhead", 1.0),)``), empty for a plain name.
    policy_params: tuple[tuple[str, Any], ...] = ()

    @property
    def policy_label(self) -> str:
        """``Name`` or ``Name(k=v, ...)``: how tables, stored rows and plots show the policy."""
        return Component(self.policy, self.policy_params).label

    def config(self) -> dict[str, Any]:
        cfg = {
            "experiment": self.experiment, "topology": self.topology.label, "allocator": self.allocator.to_json(),
            "policy": self.policy, "workload": self.workload, "load": self.load, "jobs": self.jobs,
            "warmup": self.warmup, "seed": self.seed, "semantics": SIMULATION_SEMANTICS,
        }
        if self.policy_params:  # only then, so points without parameters keep their ids
            cfg["policy_params"] = Component(self.policy, self.policy_params).kwargs
        return cfg

    @property
    def point_id(self) -> str:
        return hashlib.sha256(canonical_json(self.config()).encode()).hexdigest()[:20]

    def stream_key(self) -> dict[str, Any]:
        """What the job stream depends on (not the allocator or policy: common random numbers; not
        the constraint rule either, whose draws have their own stream, so points that differ only in
        their rule see the same jobs)."""
        work = self.workload
        if "constraints" in work:
            work = {k: v for k, v in work.items() if k != "constraints"}
        return {"topology": self.topology.label, "workload": work, "load": self.load}

    def sim_seed(self, replication: int) -> int:
        return derive_seed(self.seed, self.stream_key(), replication)

    def task(self, replication: int) -> dict[str, Any]:
        """The picklable description of replication ``replication`` a worker runs."""
        return {"point": self.config(), "point_id": self.point_id, "replication": int(replication),
                "sim_seed": self.sim_seed(replication)}


@dataclass(frozen=True)
class Experiment:
    """``allocators x policies x loads`` on ``topology`` with ``workload``; each point simulated
    until ``jobs`` completions with the first ``warmup`` arrivals discarded, ``replications`` times
    (or adaptively to ``target``)."""

    name: str
    topology: TopologySpec
    allocators: tuple[Component, ...]
    #: Policy names, or :class:`Component` values for policies with constructor parameters.
    policies: tuple[str | Component, ...]
    #: Offered loads; ``None`` is a trace's recorded rate (``loads = "recorded"``).
    loads: tuple[float | None, ...]
    workload: WorkloadSpec = field(default_factory=WorkloadSpec)
    #: Completions per run; ``None``: until a finite workload is exhausted.
    jobs: int | None = 2000
    warmup: int = 200
    replications: int = 3
    target: Target | None = None
    seed: int = 0
    description: str = ""

    @property
    def replication_rule(self) -> int | Target:
        """How many replications each point gets: the :class:`Target`, else ``replications`` --
        but one for a recorded trace, whose replay is deterministic (every replication would be
        the same run, and an interval over identical runs is meaningless)."""
        if self.workload.trace:
            return 1
        return self.target if self.target is not None else self.replications

    def __post_init__(self) -> None:
        # the same checks as a file's keys, for experiments built in code (compare_study, replace)
        numbers = [x for x in self.loads if x is not None] if isinstance(self.loads, tuple | list) else self.loads
        if numbers or not isinstance(self.loads, tuple | list) or not self.loads:
            validate_field("loads", numbers, file=None, key="loads")
        for f in ("warmup", "replications", "seed") + (("jobs",) if self.jobs is not None else ()):
            validate_field(f, getattr(self, f), file=None, key=f)
        if self.jobs is not None and self.warmup >= self.jobs:
            raise ConfigError(f"warmup ({self.warmup}) must be smaller than jobs ({self.jobs})", key="warmup")

    def points(self) -> list[Point]:
        """The points, allocator-major then policy then load."""
        out = []
        for alloc in self.allocators:
            work = self.workload.resolve(self.topology, alloc.name).to_json()
            for pol in self.policies:
                name, params = (pol, ()) if isinstance(pol, str) else (pol.name, pol.params)
                for load in self.loads:
                    out.append(Point(self.name, self.topology, alloc, name, work,
                                     None if load is None else float(load), self.jobs, self.warmup, self.seed,
                                     params))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "topology": self.topology.label, "allocators": [a.to_json() for a in self.allocators],
            "policies": [p if isinstance(p, str) else p.to_json() for p in self.policies], "loads": list(self.loads),
            "workload": self.workload.to_json(),
            "jobs": self.jobs, "warmup": self.warmup, "replications": self.replications,
            "target": dataclasses.asdict(self.target) if self.target else None, "seed": self.seed,
            "description": self.description,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Experiment:
        """Inverse of :meth:`to_json`."""
        pols = tuple(p if isinstance(p, str) else Component.from_json(p) for p in data["policies"])
        return cls(data["name"], TopologySpec.parse(data["topology"]),
                   tuple(Component.from_json(a) for a in data["allocators"]), pols,
                   tuple(None if x is None else float(x) for x in data["loads"]),
                   WorkloadSpec.from_json(data["workload"]), data["jobs"], data["warmup"], data["replications"],
                   Target(**data["target"]) if data.get("target") else None, data.get("seed", 0),
                   data.get("description", ""))


@dataclass(frozen=True)
class Study:
    """What one configuration file (or ``topoalloc compare``) describes: experiments and figures."""

    name: str
    experiments: tuple[Experiment, ...]
    plots: tuple[PlotSpec, ...] = ()
    description: str = ""
    store: str | None = None
    source: str | None = None
    #: Metrics of the table ``topoalloc run`` prints (``None``: its default).
    table: tuple[str, ...] | None = None

    def points(self) -> list[Point]:
        return [p for e in self.experiments for p in e.points()]

    def plan(self) -> list[tuple[Point, int | Target]]:
        """Every point with its experiment's :attr:`Experiment.replication_rule`."""
        return [(p, e.replication_rule) for e in self.experiments for p in e.points()]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "source": self.source,
                "experiments": [e.to_json() for e in self.experiments], "plots": [p.to_json() for p in self.plots],
                "table": list(self.table) if self.table else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Study:
        """Inverse of :meth:`to_json` (what a result store keeps of a study)."""
        return cls(data.get("name", "study"), tuple(Experiment.from_json(e) for e in data.get("experiments", [])),
                   tuple(PlotSpec(**p) for p in data.get("plots") or []), data.get("description") or "",
                   None, data.get("source"), tuple(data["table"]) if data.get("table") else None)

    def with_overrides(self, **overrides: Any) -> Study:
        """Every experiment with the given fields replaced (``None`` values are ignored); a bad
        value raises :class:`ConfigError` naming the option. ``max_replications`` raises (or
        lowers) the cap of every experiment's precision :class:`Target` (at least its
        ``min_runs``); experiments with a fixed count of replications are left as they are."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        if not clean:
            return self
        cap = clean.pop("max_replications", None)
        if cap is not None:
            if "replications" in clean:
                raise ConfigError("give either --replications (a fixed count) or --max-replications (the cap of "
                                  "the precision target), not both", key="--max-replications")
            low = max((e.target.min_runs for e in self.experiments if e.target is not None), default=1)
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < low:
                raise ConfigError(f"must be an integer >= {low} (the minimum replications of the targets), got "
                                  f"{cap!r}", key="--max-replications")
            study = dataclasses.replace(self, experiments=tuple(
                dataclasses.replace(e, target=dataclasses.replace(e.target, max_runs=cap)) if e.target else e
                for e in self.experiments))
            return study.with_overrides(**clean) if clean else study
        for k, v in clean.items():
            validate_field(k, v, file=None, key=f"--{k}")
        if "loads" in clean:
            clean["loads"] = tuple(float(x) for x in clean["loads"])
        if "replications" in clean:
            clean["target"] = None
        exps = []
        for e in self.experiments:
            new = dataclasses.replace(e, **clean)
            if new.jobs is not None and new.warmup >= new.jobs:
                raise ConfigError(f"warmup ({new.warmup}) must be smaller than jobs ({new.jobs})", key="--warmup")
            exps.append(new)
        return dataclasses.replace(self, experiments=tuple(exps))


# -- checks shared with the parser ------------------------------------------------------------------
def validate_field(name: str, value: Any, *, file: Any, key: str) -> None:
    """Check one of the keys ``jobs``, ``warmup``, ``replications``, ``seed`` and ``loads`` (in a file,
    an experiment built in code, or a command-line override): :class:`ConfigError` naming ``file``
    and ``key`` when ``value`` is out of range.

    >>> validate_field("warmup", -1, file=None, key="--warmup")
    Traceback (most recent call last):
    ...
    scheduling.experiments.schema.ConfigError: key '--warmup': must be an integer >= 0, got -1
    """

    def bad(msg: str) -> ConfigError:
        return ConfigError(msg, file=file, key=key)

    if name == "jobs" and not (is_int(value) and value >= 1):
        raise bad(f"must be a positive integer (or 'all' with a finite workload model), got {shown(value)}")
    if name == "warmup" and not (is_int(value) and value >= 0):
        raise bad(f"must be an integer >= 0, got {shown(value)}")
    if name == "replications" and not (is_int(value) and value >= 1):
        raise bad(f"must be a positive integer, got {shown(value)}")
    if name == "seed" and not (is_int(value) and value >= 0):
        raise bad(f"must be an integer >= 0, got {shown(value)}")
    if name == "loads":
        vals = value if isinstance(value, list | tuple) else None
        if not vals:
            raise bad(f"must be a non-empty list of finite loads > 0, got {value!r}")
        for v in vals:
            if not (is_number(v) and 0 < v < math.inf):
                raise bad(f"must be a non-empty list of finite loads > 0, got {shown(v)} in {value!r}")


def is_int(v: Any) -> bool:
    """Whether ``v`` is an integer and not a boolean."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """Whether ``v`` is an integer or a float and not a boolean."""
    return isinstance(v, int | float) and not isinstance(v, bool)

"""Experiment descriptions: dataclasses, TOML loading with precise errors, expansion into points.

A **study** (one TOML file, or the embedded default of ``topoalloc compare``) holds one or more
**experiments**; an experiment is the cross product ``allocators x policies x loads`` on one
topology and workload, replicated. Each element of that product is a :class:`Point`; a point and a
replication number make one simulation (a *task*).

**Seeds.** A task's simulation seed is a hash of the experiment seed, the parts of the point that
define the job stream (topology, resolved workload, load) and the replication number
(:func:`derive_seed`). It therefore does not depend on the order, process or machine the task runs
in, and -- by design -- not on the allocator or the policy: every allocator and policy at one load
sees the same jobs in replication ``r`` (common random numbers, as the workloads are built for), so
differences between curves are not sampling noise between job streams. Different loads and
replications get independent streams.

A TOML file looks like this (every key but ``topology``, ``allocators``, ``policies`` and
``loads`` has a default)::

    name = "seed002-fig2"
    description = "Chang & Mohapatra Fig. 2: buddy on an 8-cube, RSR-t"
    seed = 2
    topology = "cube:8"                  # or "mesh:32x32", "flat:128", or a table {kind = "mesh", ...}
    allocators = ["Buddy"]               # or tables {name = "GrayCode", codes = 2}
    policies = ["RSR-0", "RSR-1", "RSR-3"]  # or tables {name = "DEQP", overhead = 1.0}
    loads = [0.2, 0.4, 0.6, 0.8]
    jobs = 50500                         # completions per run ...
    warmup = 500                         # ... of which the first arrivals are not counted
    replications = 5                     # or a [target] table: metric, relative, min, max

    [workload]                           # sizes "auto": MeshSides / Squares for Buddy2D / CubeDims(dim - 1)
    sizes = "auto"
    service = {name = "Exponential", mean = 5.0}
    load_basis = "requested"             # or "granted": the rate from the mean *granted* size (the 2D
                                         # buddy's rounded-up squares; scheduling.workloads.offered)

    [[experiments]]                      # optional variants: each overrides the keys above
    name = "normal"
    workload = {sizes = "CubeDiscreteNormal"}

    [[plots]]                            # figures `topoalloc run` / `topoalloc plot` draw
    kind = "load"                        # "load", "utilization" or "fairness"
    metric = "mean_turnaround"
    panels = "experiment"                # one subplot per "experiment", "allocator", "policy" or "none"

**Workload models.** Instead of ``sizes``/``service``/``speedup`` distributions, a ``[workload]``
table may name one of the papers' workloads with its parameters (on a ``flat`` topology; see
:data:`~scheduling.experiments.registry.WORKLOAD_MODELS` and ``topoalloc list``)::

    [workload]
    model = { name = "Ismail", sizes = "exponential", runtimes = "uniform", speedup = "misp" }
    # or {name = "IsmailDynamic", execution = "uniform"}, {name = "Applications", numbers = [1, 6, 9]},
    # {name = "BatchMix", numbers = [6, 6, 11, 21]} (a closed batch) or {name = "Downey", days = 30}:
    # finite workloads, for which jobs = "all" (the default for Downey) runs every job

A recorded log is the ``Trace`` model (:mod:`~scheduling.experiments.traces`), found by name in
``$TOPOALLOC_TRACES`` (default ``../shared/traces``); its ``loads`` default to ``"recorded"`` (one
point at the log's own rate, shown as load ``trace``) or are offered loads the arrivals are scaled
to, and it runs one replication by default (a trace is one sample)::

    topology = "flat:320"
    [workload]
    model = { name = "Trace", file = "CTC-SP2-1996-3.1-cln", month = "1996-08", nonzero_cpu = true }

**Switch trees.** ``topology = "tree:2x10x64:block,rack,host"`` (counts per level, the nodes per
leaf switch last, optional level names), ``"fattree:4,3"`` (a k-ary n-tree), ``"tree:topology.conf"``
or ``{kind = "tree", file = "topology.conf"}`` (a Slurm ``topology.conf``/``topology.yaml`` or a
node-label ``.csv``, read by :func:`topologies.tree_files.read_tree_file`). ``allocators = "all"``
names every registered allocator of the topology's kind when the file is loaded (allocators
registered later are picked up). ``sizes = "auto"`` on a tree is
:meth:`~scheduling.workloads.HeroMix.for_tree`. A ``[constraints]`` table attaches topology
constraints to the jobs by rule (:mod:`scheduling.workloads.constraints`), for synthetic
workloads and traces alike::

    [constraints]
    rule = "by_size"                     # "threshold", "probability", "by_size" or "switches"
    classes = [[64, "rack"], [640, "block"]]   # by_size: [max_nodes, level] ascending; larger: none
    kind = "required"                    # threshold, probability, by_size: "required" or "preferred"
    # threshold:   min_nodes = 64, level = "rack"          (jobs of at least min_nodes nodes)
    # probability: p = 0.5, level = "rack"                 (each job with probability p)
    # switches:    switches = 2 or "auto", wait = 300.0, min_nodes = 1   (Slurm's --switches=N@T)

The rule's draws come from their own random stream, and the stream key of a point leaves the rule
out, so experiments that differ only in their rule see the same jobs (common random numbers).

**Policy parameters.** A policy is a registry name or a table with ``name`` and constructor
parameters (:func:`~scheduling.experiments.registry.make_policy`); tables and result rows label it
``Name(k=v)``. **Printed table.** ``table = ["mean_turnaround", "mean_changes"]`` chooses the
metrics ``topoalloc run`` prints (default: mean turnaround, utilisation, S_e).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import policies as _policies
from .._validate import check_int, shown
from ..kernel.semantics import SIMULATION_SEMANTICS
from ..workloads.offered import LOAD_BASES
from . import registry

__all__ = [
    "ConfigError",
    "METRICS",
    "TopologySpec",
    "Component",
    "WorkloadSpec",
    "Target",
    "PlotSpec",
    "Experiment",
    "Study",
    "Point",
    "derive_seed",
    "canonical_json",
    "load_study",
    "study_from_dict",
    "canonical_policy",
]

#: Per-replication metrics (the keys of :meth:`SimulationResult.summary`, ``jobs`` stored as ``kept``).
METRICS = (
    "mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_folding_factor", "fraction_folded",
    "mean_slowdown", "mean_bounded_slowdown", "p50_turnaround", "p90_turnaround", "p99_turnaround",
    "p90_slowdown", "mean_changes", "mean_moved", "mean_cluster_size", "cv_cluster_size", "system_efficiency",
    "load_average", "saturated", "backlog_growth", "backlog_rise_sd", "mean_hops", "mean_components",
    "blocked_by_topology", "blocked_fraction", "blocked_episodes", "mean_leaf_switches", "fraction_relaxed",
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


# -- topology ---------------------------------------------------------------------------------------
#: The topology forms :meth:`TopologySpec.parse` reads, for messages.
TOPOLOGY_FORMS = ("'mesh:WxH', 'cube:D', 'flat:P', 'tree:AxBx..xN' (counts per level, the nodes per leaf switch "
                  "last; optionally ':name1,name2,..'), 'fattree:K,N' (or 'fattree:KxN') or 'tree:FILE' (a Slurm "
                  "topology.conf / topology.yaml or a node-label .csv), or a table with kind and width/height, dim, "
                  "size, levels (and names), k and n, or file")


@functools.lru_cache(maxsize=16)
def _tree_file(path: str, _mtime: int) -> Any:
    """The switch tree a topology file describes (cached by path and modification time)."""
    try:
        from topologies.tree_files import read_tree_file
    except ImportError as exc:
        raise ValueError(f"reading the topology file {path!r} needs topologies.tree_files ({exc})") from None
    return read_tree_file(path)


@dataclass(frozen=True, slots=True)
class TopologySpec:
    """``kind`` (``mesh``, ``cube``, ``flat`` or ``tree``) and its ``shape``: ``(width, height)``,
    ``(dim,)``, ``(size,)``, or a tree's counts per level (the nodes per leaf switch last) with
    optional level ``names``; a fat tree (``fat``: ``shape = (k, n)``, a k-ary n-tree); or a tree
    read from a topology ``file``. :meth:`parse` reads ``"mesh:32x32"``, ``"cube:8"``,
    ``"flat:128"``, ``"tree:2x10x64"``, ``"tree:2x10x64:block,rack,host"``, ``"fattree:4,3"``
    (``"fattree:4x3"`` is read too; the label is ``fattree:4,3``), ``"tree:topology.conf"`` (a
    path, relative to the current directory; read by
    :func:`topologies.tree_files.read_tree_file`, which picks the reader by the suffix ``.conf``,
    ``.yaml`` or ``.csv``) or a table.

    A tree from a file is named by its path: a stored result is not recomputed when the file
    changes under the same name.

    >>> TopologySpec.parse("mesh:32x16").label, TopologySpec.parse({"kind": "hypercube", "dim": 8}).size
    ('mesh:32x16', 256)
    >>> t = TopologySpec.parse("tree:2x10x64:block,rack,host"); t.label, t.size, t.build().levels
    ('tree:2x10x64:block,rack,host', 1280, ('cluster', 'block', 'rack', 'host'))
    >>> TopologySpec.parse({"kind": "fattree", "k": 4, "n": 3}).label, TopologySpec.parse("fattree:4x3").size
    ('fattree:4,3', 64)
    """

    kind: str
    shape: tuple[int, ...]
    #: A tree's level names below the root (the nodes' last); empty: the default names.
    names: tuple[str, ...] = ()
    #: A tree read from this topology file (``shape`` is empty).
    file: str | None = None
    #: A fat tree: ``shape`` is ``(k, n)``.
    fat: bool = False

    @property
    def label(self) -> str:
        if self.kind == "mesh":
            return f"mesh:{self.shape[0]}x{self.shape[1]}"
        if self.kind == "tree":
            if self.file is not None:
                return f"tree:{self.file}"
            if self.fat:
                return f"fattree:{self.shape[0]},{self.shape[1]}"
            names = f":{','.join(self.names)}" if self.names else ""
            return "tree:" + "x".join(map(str, self.shape)) + names
        return f"{self.kind}:{self.shape[0]}"

    @property
    def size(self) -> int:
        if self.kind == "mesh":
            return self.shape[0] * self.shape[1]
        if self.kind == "cube":
            return 1 << self.shape[0]
        if self.kind == "tree":
            if self.file is not None:
                return int(self.build().size)
            return self.shape[0] ** self.shape[1] if self.fat else math.prod(self.shape)
        return self.shape[0]

    def build(self) -> Any:
        """The :mod:`topologies` object."""
        from topologies import Flat, Hypercube, Mesh, SwitchTree

        if self.kind == "mesh":
            return Mesh(*self.shape)
        if self.kind == "cube":
            return Hypercube(self.shape[0])
        if self.kind == "tree":
            if self.file is not None:
                path = Path(self.file)
                try:
                    mtime = path.stat().st_mtime_ns
                except OSError as exc:
                    raise ValueError(f"topology file {self.file!r}: {exc.strerror or exc} (a tree by its levels is "
                                     "written tree:AxBx..xN)") from None
                return _tree_file(str(path), mtime)
            if self.fat:
                return SwitchTree.fat_tree(*self.shape)
            return SwitchTree.uniform(self.shape, self.names or None)
        return Flat(self.shape[0])

    @classmethod
    def _tree(cls, kind: str, rest: str, value: Any) -> TopologySpec:
        """``tree:...`` and ``fattree:...`` strings."""
        text = rest.strip()
        if kind == "fattree":
            parts = re.split(r"\s*[,x]\s*", text.lower())
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise ValueError(f"bad topology {value!r}; write 'fattree:K,N' (a k-ary n-tree, or 'fattree:KxN')")
            return cls._checked_tree(cls("tree", (int(parts[0]), int(parts[1])), fat=True), value)
        counts, _, names = text.partition(":")
        if re.fullmatch(r"\d+(\s*x\s*\d+)*", counts.strip().lower()):
            shape = tuple(int(c) for c in counts.lower().split("x"))
            level_names = tuple(n.strip() for n in names.split(",")) if names else ()
            return cls._checked_tree(cls("tree", shape, level_names), value)
        if not text:
            raise ValueError(f"bad topology {value!r}; write {TOPOLOGY_FORMS}")
        return cls._checked_tree(cls("tree", (), file=text), value)

    @classmethod
    def _checked_tree(cls, spec: TopologySpec, value: Any) -> TopologySpec:
        from topologies import TopologyError

        try:
            spec.build()
        except (TopologyError, ValueError) as exc:
            raise ValueError(f"bad topology {value!r}: {exc}") from None
        return spec

    @classmethod
    def parse(cls, value: Any) -> TopologySpec:
        """From ``"mesh:WxH"`` / ``"mesh:N"`` (square) / ``"cube:D"`` / ``"hypercube:D"`` /
        ``"flat:P"`` / ``"tree:AxBx..xN[:names]"`` / ``"fattree:K,N"`` / ``"tree:FILE"`` or a table
        ``{kind, width, height}`` / ``{kind, dim}`` / ``{kind, size}`` / ``{kind = "tree", levels,
        names}`` / ``{kind = "fattree", k, n}`` / ``{kind = "tree", file}``; :class:`ValueError`
        names the accepted forms."""
        forms = TOPOLOGY_FORMS
        if isinstance(value, TopologySpec):
            return value
        if isinstance(value, dict):
            kind = str(value.get("kind", "")).lower()
            kind = "cube" if kind == "hypercube" else kind
            if kind in ("tree", "fattree"):
                return cls._tree_table(kind, value)
            allowed = {"mesh": ("width", "height"), "cube": ("dim",), "flat": ("size",)}
            if kind not in allowed:
                raise ValueError(f"topology kind {value.get('kind')!r} unknown; choose from mesh, cube, flat, tree, "
                                 "fattree")
            extra = set(value) - {"kind", *allowed[kind]}
            if extra:
                raise ValueError(f"a {kind} topology has no {sorted(extra)[0]!r}; allowed: {', '.join(allowed[kind])}")
            missing = [k for k in allowed[kind] if k not in value]
            if missing:
                raise ValueError(f"a {kind} topology needs {missing[0]!r}")
            shape = tuple(check_int(value[k], f"a {kind} topology's {k}", low=0 if kind == "cube" else 1)
                          for k in allowed[kind])
            return cls._checked(kind, shape, value)
        if not isinstance(value, str) or ":" not in value:
            raise ValueError(f"bad topology {value!r}; write {forms}")
        kind, _, rest = value.strip().partition(":")
        kind = kind.strip().lower()
        kind = "cube" if kind == "hypercube" else kind
        if kind in ("tree", "fattree"):
            return cls._tree(kind, rest, value)
        try:
            if kind == "mesh":
                parts = rest.lower().split("x")
                shape = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else None
                if shape is None:
                    raise ValueError
            elif kind in ("cube", "flat"):
                shape = (int(rest),)
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"bad topology {value!r}; write {forms}") from None
        return cls._checked(kind, shape, value)

    @classmethod
    def _tree_table(cls, kind: str, value: dict) -> TopologySpec:
        """``{kind = "tree", levels = [2, 10, 64], names = [...]}``, ``{kind = "tree", file = ...}``
        or ``{kind = "fattree", k = 4, n = 3}``."""
        allowed = ("k", "n") if kind == "fattree" else ("levels", "names", "file")
        extra = set(value) - {"kind", *allowed}
        if extra:
            raise ValueError(f"a {kind} topology has no {sorted(extra)[0]!r}; allowed: {', '.join(allowed)}")
        if kind == "fattree":
            missing = [k for k in allowed if k not in value]
            if missing:
                raise ValueError(f"a fattree topology needs {missing[0]!r}")
            k = check_int(value["k"], "a fattree topology's k", low=2)
            n = check_int(value["n"], "a fattree topology's n", low=1)
            return cls._checked_tree(cls("tree", (k, n), fat=True), value)
        if "file" in value:
            if "levels" in value or "names" in value:
                raise ValueError("a tree topology takes either a file or levels (and names), not both")
            if not isinstance(value["file"], str) or not value["file"].strip():
                raise ValueError(f"a tree topology's file must be a path, got {value['file']!r}")
            return cls._checked_tree(cls("tree", (), file=value["file"].strip()), value)
        levels = value.get("levels")
        if not isinstance(levels, list) or not levels:
            raise ValueError(f"a tree topology needs 'levels' (counts per level, the nodes per leaf switch last) or "
                             f"'file', got {levels!r}")
        shape = tuple(check_int(c, "a tree topology's level count", low=1) for c in levels)
        names = value.get("names", [])
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise ValueError(f"a tree topology's names must be a list of level names, got {names!r}")
        return cls._checked_tree(cls("tree", shape, tuple(names)), value)

    @classmethod
    def _checked(cls, kind: str, shape: tuple[int, ...], value: Any) -> TopologySpec:
        low = 0 if kind == "cube" else 1
        if any(s < low for s in shape):
            raise ValueError(f"bad topology {value!r}: sizes must be >= {low}")
        if kind == "cube" and shape[0] > 24:
            raise ValueError(f"bad topology {value!r}: a hypercube has at most 24 dimensions")
        return cls(kind, shape)


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
    #: ``{name = "HopBytes", pattern = "nearest-neighbour"}``); ``None``: placement costs nothing.
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
        if self.constraints is None:
            return None
        from ..workloads.constraints import rule_from_json

        return rule_from_json(self.constraints_json)

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
        if topology.kind == "mesh":
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
        out = {"sizes": self.sizes.to_json(), "service": self.service.to_json(), "speedup": self.speedup.to_json(),
               **rule}
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
        from ..models import runtime

        models = {"dilation": runtime.Dilation, "hopbytes": runtime.HopBytes, "hop-bytes": runtime.HopBytes}
        cls = models.get(self.runtime_model.name.lower())
        if cls is None:
            raise ValueError(f"unknown runtime model {self.runtime_model.name!r}; choose from Dilation, HopBytes")
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
            rate = arrival_rate(load, machine_size, granted, service.mean)
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
            _validate_field("loads", numbers, file=None, key="loads")
        for f in ("warmup", "replications", "seed") + (("jobs",) if self.jobs is not None else ()):
            _validate_field(f, getattr(self, f), file=None, key=f)
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
            _validate_field(k, v, file=None, key=f"--{k}")
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


def canonical_policy(name: str) -> str:
    """``name`` validated by the policy registry and spelled as the registry spells the family,
    keeping the parameter as written (``"rsr-0"`` -> ``"RSR-0"``, though that policy calls itself
    ``FCFS``), so tables and stored rows show what the user asked for."""
    policy = _policies.get(name)
    text = name.strip()
    families = {n.split("-<")[0].upper(): n.split("-<")[0] for n in _policies.names()}
    if text.upper() in families:
        return families[text.upper()]
    m = re.match(r"^(?P<family>.+?)(?P<sep>[-/])(?P<value>\d+(?:\.\d+)?)$", text)
    if m and m.group("family").upper() in families:
        return f"{families[m.group('family').upper()]}{m.group('sep')}{m.group('value')}"
    return policy.name


# -- loading ----------------------------------------------------------------------------------------
#: How a file writes a trace's own arrival rate in ``loads`` (stored as load ``None``).
RECORDED = "recorded"
#: How a file names every registered allocator of its topology's kind (``allocators = "all"``).
ALL = "all"
_TOP_KEYS = ("name", "description", "seed", "topology", "allocators", "policies", "workload", "loads", "jobs",
             "warmup", "replications", "target", "experiments", "plots", "store", "table", "constraints")
_EXP_KEYS = ("name", "description", "seed", "topology", "allocators", "policies", "workload", "loads", "jobs",
             "warmup", "replications", "target", "constraints")
_WORKLOAD_KEYS = ("sizes", "service", "speedup", "model", "load_basis", "comm", "runtime_model")
_TARGET_KEYS = ("metric", "relative", "min", "max")
_PLOT_KEYS = ("kind", "metric", "panels", "logy", "load", "file", "title")


def load_study(path: str | Path) -> Study:
    """Read a TOML experiment file; :class:`ConfigError` for unreadable TOML, unknown keys, names
    or bad values, naming the file, the key and the allowed choices."""
    import tomllib  # here: its import costs a command that reads no file about 10 ms

    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError("no such file", file=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=path) from None
    return study_from_dict(data, file=path, default_name=path.stem)


def _unknown_keys(table: dict, allowed: Iterable[str], *, file: Any, where: str) -> None:
    allowed = tuple(allowed)
    for k in table:
        if k not in allowed:
            key = f"{where}.{k}" if where else k
            raise ConfigError(f"unknown key; allowed: {', '.join(allowed)}", file=file, key=key)


def _validate_field(name: str, value: Any, *, file: Any, key: str) -> None:
    def bad(msg: str) -> ConfigError:
        return ConfigError(msg, file=file, key=key)

    if name == "jobs" and not (_is_int(value) and value >= 1):
        raise bad(f"must be a positive integer (or 'all' with a finite workload model), got {shown(value)}")
    if name == "warmup" and not (_is_int(value) and value >= 0):
        raise bad(f"must be an integer >= 0, got {shown(value)}")
    if name == "replications" and not (_is_int(value) and value >= 1):
        raise bad(f"must be a positive integer, got {shown(value)}")
    if name == "seed" and not (_is_int(value) and value >= 0):
        raise bad(f"must be an integer >= 0, got {shown(value)}")
    if name == "loads":
        vals = value if isinstance(value, list | tuple) else None
        if not vals:
            raise bad(f"must be a non-empty list of finite loads > 0, got {value!r}")
        for v in vals:
            if not (_is_number(v) and 0 < v < math.inf):
                raise bad(f"must be a non-empty list of finite loads > 0, got {shown(v)} in {value!r}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _component_list(value: Any, *, file: Any, key: str) -> list[Component]:
    if isinstance(value, str | dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(f"must be a non-empty list, got {value!r}", file=file, key=key)
    out = []
    for i, v in enumerate(value):
        try:
            out.append(Component.from_json(v))
        except ValueError as exc:
            raise ConfigError(str(exc), file=file, key=f"{key}[{i}]") from None
    return out


def _allocators(value: Any, topo: TopologySpec, *, file: Any, key: str) -> tuple[Component, ...]:
    if value == ALL:  # every allocator registered for the topology's kind, now
        value = registry.allocator_names(topo.kind)
        if not value:
            raise ConfigError(f"no allocator is registered for a {topo.kind} topology", file=file, key=key)
    out = []
    for i, comp in enumerate(_component_list(value, file=file, key=key)):
        k = f"{key}[{i}]"
        try:
            name = registry.canonical_allocator(comp.name)
        except registry.UnknownAllocatorError:
            raise ConfigError(f"unknown allocator {comp.name!r}; choose from {', '.join(registry.allocator_names())}",
                              file=file, key=k) from None
        kind = registry.allocator_kind(name)
        if kind != topo.kind:
            same = ", ".join(registry.allocator_names(topo.kind))
            raise ConfigError(f"{name} runs on a {kind} topology, not on {topo.label}; for a {topo.kind} choose "
                              f"from {same}", file=file, key=k)
        cls = registry.allocator_class(name)
        params = comp.kwargs
        if params:
            allowed = [p for p in inspect.signature(cls).parameters if p != "topology"]
            bad = next((p for p in params if p not in allowed), None)
            if bad is not None:
                raise ConfigError(f"{name} has no parameter {bad!r}; allowed: {', '.join(allowed) or '(none)'}",
                                  file=file, key=f"{k}.{bad}")
        try:  # the allocator's own checks: its parameters, and the topology (Buddy2D needs a 2^k square)
            cls(topo.build(), **params)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{name} on {topo.label}: {exc}", file=file, key=k) from None
        out.append(Component(name, comp.params))
    return tuple(out)


def _policy_list(value: Any, *, file: Any, key: str) -> tuple[str | Component, ...]:
    if isinstance(value, str | dict):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str | dict) for v in value):
        raise ConfigError(f"must be a non-empty list of policy names or tables {{name = ..., parameter = ...}}, "
                          f"got {value!r}", file=file, key=key)
    out: list[str | Component] = []
    for i, v in enumerate(value):
        k = f"{key}[{i}]"
        name = v.get("name") if isinstance(v, dict) else v
        if not isinstance(name, str):
            raise ConfigError(f"a policy table needs a string 'name', got {v!r}", file=file, key=k)
        try:
            canon = canonical_policy(name)
        except _policies.UnknownPolicyError as exc:  # suggests the closest names, not all of them
            raise ConfigError(str(exc), file=file, key=k if isinstance(v, str) else f"{k}.name") from None
        except (ValueError, TypeError) as exc:
            raise ConfigError(str(exc), file=file, key=k) from None
        params = {p: x for p, x in v.items() if p != "name"} if isinstance(v, dict) else {}
        if not params:
            out.append(canon)
            continue
        try:
            registry.make_policy(canon, params)
        except registry.PolicyParameterError as exc:
            bad = next((p for p in params if p not in registry.policy_parameters(canon)), None)
            raise ConfigError(str(exc), file=file, key=f"{k}.{bad}" if bad else k) from None
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"policy {canon}: {exc}", file=file, key=k) from None
        out.append(Component.of(canon, **params))
    labels = [p if isinstance(p, str) else p.label for p in out]
    dup = next((lab for lab in labels if labels.count(lab) > 1), None)
    if dup is not None:
        raise ConfigError(f"policy {dup} is listed twice", file=file, key=key)
    return tuple(out)


def _workload_model(value: Any, topo: TopologySpec, *, file: Any, key: str) -> WorkloadSpec:
    try:
        comp = Component.from_json(value)
    except ValueError as exc:
        raise ConfigError(str(exc), file=file, key=key) from None
    try:
        model = registry.workload_model(comp.name)
    except registry.UnknownWorkloadModelError:
        raise ConfigError(f"unknown workload model {comp.name!r}; choose from "
                          f"{', '.join(registry.workload_model_names())}", file=file, key=f"{key}.name"
                          if isinstance(value, dict) else key) from None
    if topo.kind not in model.kinds:
        raise ConfigError(f"the {model.name} workload makes requests for a {' or '.join(model.kinds)} topology, "
                          f"not {topo.label}", file=file, key=key)
    allowed = registry.workload_model_params(model.name)
    for p in comp.kwargs:
        if p not in allowed:
            raise ConfigError(f"workload model {model.name} has no parameter {p!r}; allowed: {', '.join(allowed)}",
                              file=file, key=f"{key}.{p}")
    try:
        registry.make_workload(model.name, comp.kwargs, load=None if model.trace else 0.5, machine_size=topo.size)
    except FileNotFoundError as exc:  # a trace model's trace is not in the traces directory
        raise ConfigError(str(exc), file=file, key=f"{key}.file") from None
    except (TypeError, ValueError) as exc:
        bad = getattr(exc, "param", None) or next((p for p in comp.kwargs if p in str(exc)), None)
        raise ConfigError(str(exc), file=file, key=f"{key}.{bad}" if bad else key) from None
    return WorkloadSpec(model=Component(model.name, comp.params))


def _workload(value: Any, *, file: Any, key: str, topology: TopologySpec | None = None) -> WorkloadSpec:
    if not isinstance(value, dict):
        raise ConfigError(f"must be a table with {', '.join(_WORKLOAD_KEYS)}, got {value!r}", file=file, key=key)
    _unknown_keys(value, _WORKLOAD_KEYS, file=file, where=key)
    if "model" in value:
        others = [k for k in ("sizes", "service", "speedup", "load_basis", "comm", "runtime_model") if k in value]
        if others:
            raise ConfigError(f"give either a model or distributions, not both (also has {', '.join(others)})",
                              file=file, key=f"{key}.model")
        if topology is None:  # pragma: no cover - _experiment always passes it
            raise ConfigError("a workload model needs the topology", file=file, key=f"{key}.model")
        return _workload_model(value["model"], topology, file=file, key=f"{key}.model")
    spec = WorkloadSpec()
    if "load_basis" in value:
        if value["load_basis"] not in LOAD_BASES:
            raise ConfigError(f"must be one of {', '.join(map(repr, LOAD_BASES))}, got {value['load_basis']!r}",
                              file=file, key=f"{key}.load_basis")
        spec = dataclasses.replace(spec, load_basis=value["load_basis"])
    for role in ("sizes", "service", "speedup"):
        if role not in value:
            continue
        k = f"{key}.{role}"
        try:
            comp = Component.from_json(value[role])
        except ValueError as exc:
            raise ConfigError(str(exc), file=file, key=k) from None
        if role == "sizes" and comp.name.lower() == "auto":
            if comp.params:
                raise ConfigError("'auto' sizes take no parameters", file=file, key=k)
            spec = dataclasses.replace(spec, sizes=Component("auto"))
            continue
        try:
            registry.make_distribution(comp.name, comp.kwargs, role)
            name = next(n for n in registry.distribution_names(role) if n.lower() == comp.name.lower())
        except registry.UnknownDistributionError:
            extra = ", auto" if role == "sizes" else ""
            raise ConfigError(f"unknown {role} distribution {comp.name!r}; choose from "
                              f"{', '.join(registry.distribution_names(role))}{extra}", file=file, key=k) from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc), file=file, key=k) from None
        spec = dataclasses.replace(spec, **{role: Component(name, comp.params)})
    if "comm" in value:
        k, comm = f"{key}.comm", value["comm"]
        if isinstance(comm, dict | list | str):
            try:
                comp = Component.from_json(comm)
                registry.make_distribution(comp.name, comp.kwargs, None)
            except (TypeError, ValueError, KeyError) as exc:
                raise ConfigError(f"must be a fraction in [0, 1] or a distribution: {exc}", file=file, key=k) from None
            spec = dataclasses.replace(spec, comm=comp)
        else:
            if not _is_number(comm) or not 0.0 <= comm <= 1.0:
                raise ConfigError(f"must be a fraction in [0, 1] or a distribution, got {shown(comm)}", file=file,
                                  key=k)
            spec = dataclasses.replace(spec, comm=float(comm))
    if "runtime_model" in value:
        k = f"{key}.runtime_model"
        try:
            spec = dataclasses.replace(spec, runtime_model=Component.from_json(value["runtime_model"]))
            spec.make_runtime_model()
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc), file=file, key=k) from None
    return spec


def _workload_where(table: dict, variant: dict | None, where: str, *, file: Any, key: str,
                    topology: TopologySpec) -> WorkloadSpec:
    """The experiment's ``[workload]``; an error in a key a variant merged from the top-level table
    (one the variant's own ``workload`` does not set) is reported at the top level (``workload.sizes``,
    not ``experiments[0].workload.sizes``)."""
    try:
        return _workload(table.get("workload", {}), file=file, key=key, topology=topology)
    except ConfigError as exc:
        var = variant.get("workload") if variant is not None else None
        prefix = f"{where}workload."
        if not where or not isinstance(var, dict) or not exc.key or not exc.key.startswith(prefix):
            raise
        field_name = exc.key[len(prefix):].split(".", 1)[0].split("[", 1)[0]
        if field_name in var:
            raise
        text = str(exc)
        head = f"{exc.file}: " if exc.file else ""
        head += f"key '{exc.key}': "
        message = text[len(head):] if text.startswith(head) else text
        raise ConfigError(message, file=exc.file, key=exc.key[len(where):]) from None


def _check_sizes_fit(workload: WorkloadSpec, topo: TopologySpec, allocators: Iterable[Component], *, file: Any,
                     key: str) -> None:
    """Refuse, while the file is validated, a size distribution whose largest request (its
    ``max_request``) is larger than the machine (a ``CubeDims`` with ``max_dim = 12`` on ``cube:8``),
    naming the request and the machine; models and ``auto`` sizes are sized by the topology."""
    from topologies import RequestSizeError

    if workload.model is not None or workload.sizes.name.lower() == "auto":
        return
    try:
        largest = getattr(registry.make_distribution(workload.sizes.name, workload.sizes.kwargs, "sizes"),
                          "max_request", None)
    except (TypeError, ValueError, KeyError):  # pragma: no cover - _workload checked the distribution
        return
    if largest is None:
        return
    machine = topo.build()
    rotate = any(c.kwargs.get("rotate") for c in allocators)
    try:
        machine.validate_request(largest, rotate=True) if rotate else machine.validate_request(largest)
    except RequestSizeError as exc:
        raise ConfigError(f"{workload.sizes.name} requests up to {largest!r}, larger than the machine "
                          f"{topo.label}: {exc}", file=file, key=key) from None
    except (TypeError, ValueError):  # another kind of request: the simulator's check names it
        return


def _constraints(value: Any, topo: TopologySpec, *, file: Any, key: str) -> dict[str, Any]:
    """A ``[constraints]`` table, checked: a known rule with known keys and good values, on a switch
    tree whose levels it names (see the module docstring)."""
    from ..workloads.constraints import RULE_KEYS, rule_from_json

    if not isinstance(value, dict):
        raise ConfigError(f"must be a table with a 'rule' key ({', '.join(RULE_KEYS)}), got {value!r}", file=file,
                          key=key)
    if topo.kind != "tree":
        raise ConfigError(f"topology constraints need a switch tree (tree:..., fattree:...), not {topo.label}",
                          file=file, key=key)
    if "rule" not in value:
        raise ConfigError(f"missing 'rule'; choose from {', '.join(RULE_KEYS)}", file=file, key=f"{key}.rule")
    try:
        rule = rule_from_json(value)
    except KeyError as exc:
        bad = next((k for k in value if k != "rule" and value.get("rule") in RULE_KEYS
                    and k not in RULE_KEYS[value["rule"]]), "rule")
        raise ConfigError(str(exc.args[0]), file=file, key=f"{key}.{bad}") from None
    except (TypeError, ValueError) as exc:
        bad = next((k for k in value if k != "rule" and k in str(exc)), None)
        raise ConfigError(str(exc), file=file, key=f"{key}.{bad}" if bad else key) from None
    tree = topo.build()
    levels = [lv for lv in (getattr(rule, "level", None), *(c[1] for c in getattr(rule, "classes", ()))) if lv]
    for lv in levels:
        if lv not in tree.levels:
            where = "classes" if hasattr(rule, "classes") else "level"
            raise ConfigError(f"{topo.label} has no level {lv!r}; its levels are {', '.join(tree.levels)}",
                              file=file, key=f"{key}.{where}")
    return rule.to_json()


def _target(value: Any, *, file: Any, key: str) -> Target:
    if not isinstance(value, dict):
        raise ConfigError(f"must be a table with {', '.join(_TARGET_KEYS)}", file=file, key=key)
    _unknown_keys(value, _TARGET_KEYS, file=file, where=key)
    t = Target(value.get("metric", "mean_turnaround"), value.get("relative", 0.05), value.get("min", 3),
               value.get("max", 30))
    if t.metric not in METRICS:
        raise ConfigError(f"unknown metric {t.metric!r}; choose from {', '.join(METRICS)}", file=file,
                          key=f"{key}.metric")
    if not _is_number(t.relative) or not 0 < t.relative < math.inf:
        raise ConfigError(f"must be a finite number > 0, got {shown(t.relative)}", file=file, key=f"{key}.relative")
    if not _is_int(t.min_runs) or t.min_runs < 2:
        raise ConfigError(f"must be an integer >= 2, got {shown(t.min_runs)}", file=file, key=f"{key}.min")
    if not _is_int(t.max_runs) or t.max_runs < t.min_runs:
        raise ConfigError(f"must be an integer >= min ({t.min_runs}), got {shown(t.max_runs)}", file=file,
                          key=f"{key}.max")
    return dataclasses.replace(t, relative=float(t.relative))


def _plots(value: Any, *, file: Any) -> tuple[PlotSpec, ...]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise ConfigError("must be an array of tables ([[plots]])", file=file, key="plots")
    out = []
    for i, p in enumerate(value):
        key = f"plots[{i}]"
        if not isinstance(p, dict):
            raise ConfigError("must be a table", file=file, key=key)
        _unknown_keys(p, _PLOT_KEYS, file=file, where=key)
        spec = PlotSpec(**p)
        if spec.kind not in PLOT_KINDS:
            raise ConfigError(f"unknown plot kind {spec.kind!r}; choose from {', '.join(PLOT_KINDS)}", file=file,
                              key=f"{key}.kind")
        if spec.metric not in METRICS:
            raise ConfigError(f"unknown metric {spec.metric!r}; choose from {', '.join(METRICS)}", file=file,
                              key=f"{key}.metric")
        if spec.panels not in PANELS:
            raise ConfigError(f"unknown panels {spec.panels!r}; choose from {', '.join(PANELS)}", file=file,
                              key=f"{key}.panels")
        if not isinstance(spec.logy, bool):
            raise ConfigError(f"must be true or false, got {spec.logy!r}", file=file, key=f"{key}.logy")
        for text_key in ("file", "title"):
            if getattr(spec, text_key) is not None and not isinstance(getattr(spec, text_key), str):
                raise ConfigError("must be a string", file=file, key=f"{key}.{text_key}")
        if spec.load is not None and (not _is_number(spec.load) or not 0 < spec.load < math.inf):
            raise ConfigError(f"must be a finite load > 0, got {shown(spec.load)}", file=file, key=f"{key}.load")
        out.append(spec)
    return tuple(out)


def _experiment(table: dict, name: str, *, file: Any, where: str, own: Iterable[str] | None = None) -> Experiment:
    variant = own if isinstance(own, dict) else None
    own = set(table) if own is None else set(own)

    def key(k: str) -> str:  # report a value where it was written: the variant or the top level
        return f"{where}{k}" if k in own else k

    for required in ("topology", "allocators", "policies"):
        if required not in table:
            raise ConfigError("missing (required)", file=file, key=key(required))
    try:
        topo = TopologySpec.parse(table["topology"])
    except ValueError as exc:
        raise ConfigError(str(exc), file=file, key=key("topology")) from None
    allocators = _allocators(table["allocators"], topo, file=file, key=key("allocators"))
    pols = _policy_list(table["policies"], file=file, key=key("policies"))
    workload = _workload_where(table, variant, where, file=file, key=key("workload"), topology=topo)
    _check_sizes_fit(workload, topo, allocators, file=file, key=f"{key('workload')}.sizes")
    if "constraints" in table:
        rule = _constraints(table["constraints"], topo, file=file, key=key("constraints"))
        workload = dataclasses.replace(workload, constraints=frozen_table(rule))
    trace = workload.trace
    if "loads" not in table and not trace:
        raise ConfigError("missing (required)", file=file, key=key("loads"))
    loads = table.get("loads", RECORDED)
    if isinstance(loads, int | float | str) and not isinstance(loads, bool):
        loads = [loads]
    if isinstance(loads, list) and RECORDED in loads:
        if not trace:
            traces = [n for n in registry.workload_model_names() if registry.workload_model(n).trace]
            raise ConfigError(f"{RECORDED!r} is the load of a recorded workload (model {' or '.join(traces)}); "
                              "give offered loads > 0", file=file, key=key("loads"))
        if loads.count(RECORDED) > 1:
            raise ConfigError(f"{RECORDED!r} is listed twice", file=file, key=key("loads"))
    jobs = table.get("jobs", "all" if workload.finite else 2000)
    if jobs == "all":
        if not workload.finite:
            finite = [n for n in registry.workload_model_names() if registry.workload_model(n).finite]
            raise ConfigError(f"'all' needs a finite workload (model {' or '.join(finite)}); give a number of "
                              "completions", file=file, key=key("jobs"))
        jobs = None
    for f in ("loads", "jobs", "warmup", "replications", "seed"):
        if f == "loads":
            numbers = [x for x in loads if x != RECORDED] if isinstance(loads, list) else loads
            if numbers or not isinstance(loads, list):
                try:
                    _validate_field(f, numbers, file=file, key=key(f))
                except ConfigError:
                    if not trace:
                        raise
                    raise ConfigError(f"must be {RECORDED!r} (the trace's own arrival rate) or a list of offered "
                                      f"loads > 0 (may include {RECORDED!r}), got {table['loads']!r}", file=file,
                                      key=key(f)) from None
        elif f in table and not (f == "jobs" and jobs is None):
            _validate_field(f, table[f], file=file, key=key(f))
    warmup = table.get("warmup", 0 if jobs is None else min(200, jobs // 10))
    if jobs is not None and warmup >= jobs:
        raise ConfigError(f"warmup ({warmup}) must be smaller than jobs ({jobs})", file=file, key=key("warmup"))
    target = _target(table["target"], file=file, key=key("target")) if "target" in table else None
    if target is not None and "replications" in table:
        raise ConfigError("give either replications or [target], not both", file=file, key=key("target"))
    desc = table.get("description", "")
    if not isinstance(desc, str):
        raise ConfigError("must be a string", file=file, key=key("description"))
    return Experiment(name, topo, allocators, pols, tuple(None if x == RECORDED else float(x) for x in loads),
                      workload, jobs, warmup, table.get("replications", 1 if trace else 3), target,
                      table.get("seed", 0), desc)


def study_from_dict(data: dict, *, file: Any = None, default_name: str = "study") -> Study:
    """Build a :class:`Study` from a parsed TOML table (see the module docstring)."""
    _unknown_keys(data, _TOP_KEYS, file=file, where="")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"must be a non-empty string, got {name!r}", file=file, key="name")
    variants = data.get("experiments")
    base = {k: v for k, v in data.items() if k in _EXP_KEYS and k not in ("name", "description")}
    if variants is None and "description" in data:
        base["description"] = data["description"]
    exps = []
    if variants is None:
        exps.append(_experiment(base, name, file=file, where="", own=()))
    else:
        if not isinstance(variants, list) or not variants:
            raise ConfigError("must be a non-empty array of tables ([[experiments]])", file=file, key="experiments")
        seen = set()
        for i, var in enumerate(variants):
            where = f"experiments[{i}]."
            if not isinstance(var, dict):
                raise ConfigError("must be a table", file=file, key=f"experiments[{i}]")
            _unknown_keys(var, _EXP_KEYS, file=file, where=f"experiments[{i}]")
            vname = var.get("name", str(i))
            if not isinstance(vname, str) or vname in seen:
                raise ConfigError(f"needs a unique string name, got {vname!r}", file=file, key=f"{where}name")
            seen.add(vname)
            merged = {**base, **{k: v for k, v in var.items() if k != "name"}}
            # a variant's own replication rule replaces the top level's
            if "replications" in var and "target" not in var:
                merged.pop("target", None)
            elif "target" in var and "replications" not in var:
                merged.pop("replications", None)
            if isinstance(base.get("workload"), dict) and isinstance(var.get("workload"), dict):
                merged["workload"] = {**base["workload"], **var["workload"]}
            exps.append(_experiment(merged, f"{name}/{vname}", file=file, where=where, own=var))
    plots = _plots(data["plots"], file=file) if "plots" in data else ()
    store = data.get("store")
    if store is not None and not isinstance(store, str):
        raise ConfigError("must be a path string", file=file, key="store")
    table = data.get("table")
    if table is not None:
        if isinstance(table, str):
            table = [table]
        if not isinstance(table, list) or not table:
            raise ConfigError(f"must be a non-empty list of metrics, got {table!r}", file=file, key="table")
        for i, m in enumerate(table):
            if m not in METRICS:
                raise ConfigError(f"unknown metric {m!r}; choose from {', '.join(METRICS)}", file=file,
                                  key=f"table[{i}]")
        table = tuple(table)
    desc = data.get("description", "")
    return Study(name, tuple(exps), plots, desc if isinstance(desc, str) else "", store,
                 str(file) if file is not None else None, table)

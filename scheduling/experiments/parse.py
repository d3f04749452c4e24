"""Reading an experiment file: TOML (or a parsed table) into a
:class:`~scheduling.experiments.schema.Study`, every key checked, every error a
:class:`~scheduling.experiments.schema.ConfigError` naming the file, the key and the allowed choices.

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
import inspect
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import policies as _policies
from .._validate import shown
from ..workloads.offered import LOAD_BASES
from . import registry
from .schema import (
    METRICS,
    PANELS,
    PLOT_KINDS,
    Component,
    ConfigError,
    Experiment,
    PlotSpec,
    Study,
    Target,
    WorkloadSpec,
    frozen_table,
    is_int,
    is_number,
    validate_field,
)
from .topology_spec import TopologySpec

__all__ = ["load_study", "study_from_dict", "canonical_policy", "RECORDED", "ALL"]


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
        changed: dict[str, Any] = {role: Component(name, comp.params)}  # one of the distribution fields
        spec = dataclasses.replace(spec, **changed)
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
            if not is_number(comm) or not 0.0 <= comm <= 1.0:
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
    if not is_number(t.relative) or not 0 < t.relative < math.inf:
        raise ConfigError(f"must be a finite number > 0, got {shown(t.relative)}", file=file, key=f"{key}.relative")
    if not is_int(t.min_runs) or t.min_runs < 2:
        raise ConfigError(f"must be an integer >= 2, got {shown(t.min_runs)}", file=file, key=f"{key}.min")
    if not is_int(t.max_runs) or t.max_runs < t.min_runs:
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
        if spec.load is not None and (not is_number(spec.load) or not 0 < spec.load < math.inf):
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
                    validate_field(f, numbers, file=file, key=key(f))
                except ConfigError:
                    if not trace:
                        raise
                    raise ConfigError(f"must be {RECORDED!r} (the trace's own arrival rate) or a list of offered "
                                      f"loads > 0 (may include {RECORDED!r}), got {table['loads']!r}", file=file,
                                      key=key(f)) from None
        elif f in table and not (f == "jobs" and jobs is None):
            validate_field(f, table[f], file=file, key=key(f))
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

"""Allocators and workload distributions by name, for configuration files and the command line.

Allocators come from the library's own registry, :mod:`topoalloc.registry` (``topoalloc.get``,
``topoalloc.names``, ``topoalloc.register``); the names here (:func:`canonical_allocator`,
:func:`allocator_kind`, :func:`make_allocator`, ...) are that registry under the names the
experiments use. Names are matched ignoring case, ``-``, ``_`` and spaces (``"first-fit"`` is
``FirstFit``), and a few aliases the papers use are accepted (``TDB`` for the two-dimensional buddy,
``GC`` for Gray code).

The same module knows the **workload models** a ``[workload]`` table can name (``model = {name =
"Ismail", ...}``: :data:`WORKLOAD_MODELS`, :func:`make_workload`) and builds **policies with
constructor parameters** (``{name = "DEQP", overhead = 1.0}``: :func:`make_policy`).

>>> canonical_allocator("first-fit"), canonical_allocator("TDB"), allocator_kind("Buddy")
('FirstFit', 'Buddy2D', 'cube')
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from topoalloc import registry as _allocators
from topoalloc.errors import UnknownAllocatorError
from topoalloc.registry import KINDS

from .. import policies as _policies
from .. import workloads as _wl
from .._validate import check_int, check_real, is_int

__all__ = [
    "UnknownAllocatorError",
    "UnknownDistributionError",
    "register_allocator",
    "allocator_names",
    "canonical_allocator",
    "allocator_kind",
    "allocator_class",
    "make_allocator",
    "DISTRIBUTIONS",  # noqa: F822 (built on first use, from __getattr__)
    "distribution_names",
    "distribution_params",
    "make_distribution",
    "KINDS",
    "PolicyParameterError",
    "policy_parameters",
    "make_policy",
    "WorkloadModel",
    "WORKLOAD_MODELS",
    "UnknownWorkloadModelError",
    "workload_model",
    "workload_model_names",
    "workload_model_params",
    "make_workload",
]


class UnknownDistributionError(KeyError):
    """No workload distribution has this name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def register_allocator(name: str, kind: str | None = None, *, factory: Callable[..., Any], help: str = "",
                       aliases: tuple[str, ...] = ()) -> None:
    """:func:`topoalloc.register` with the topology ``kind`` first (``"mesh"``, ``"cube"``,
    ``"flat"`` or ``"tree"``; inferred from an allocator class when omitted)."""
    _allocators.register(name, factory, kind=kind, help=help, aliases=aliases)


#: Registered allocator names (of a topology kind if given): :func:`topoalloc.names`.
allocator_names = _allocators.names
#: The registered spelling of a name (raises :class:`UnknownAllocatorError`): :func:`topoalloc.registry.canonical`.
canonical_allocator = _allocators.canonical
#: The topology kind an allocator runs on: :func:`topoalloc.registry.kind_of`.
allocator_kind = _allocators.kind_of
#: The class (or factory) registered under a name: :func:`topoalloc.registry.factory`.
allocator_class = _allocators.factory


def make_allocator(name: str, topology: Any, params: Mapping[str, Any] | None = None) -> Any:
    """A fresh allocator ``name`` on ``topology`` with keyword ``params`` (:func:`topoalloc.get`)."""
    return _allocators.get(name, topology, **dict(params or {}))


# -- workload distributions -----------------------------------------------------------------------
#: Distribution name -> role. Roles: ``sizes`` (requests), ``service`` (run times), ``speedup``.
#: The constructors (:data:`DISTRIBUTIONS`) are the classes of :mod:`scheduling.workloads` of the
#: same names (``Linear``: ``LinearSpeedup``).
_DISTRIBUTION_ROLES = {
    "MeshSides": "sizes", "BoxSides": "sizes", "Squares": "sizes", "CubeDims": "sizes", "CubeDiscreteNormal": "sizes",
    "UniformCount": "sizes", "TruncatedExponentialCount": "sizes", "HeroMix": "sizes",
    "Exponential": "service", "TruncatedNormal": "service", "Uniform": "service", "TruncatedExponential": "service",
    "Linear": "speedup", "MISP": "speedup",
}


@functools.cache
def _distributions() -> dict[str, tuple[Callable[..., Any], str]]:
    """:data:`DISTRIBUTIONS`, built on first use: a command that replays a trace never imports the
    synthetic distributions."""
    ctor = {"Linear": "LinearSpeedup"}
    return {name: (getattr(_wl, ctor.get(name, name)), role) for name, role in _DISTRIBUTION_ROLES.items()}


def __getattr__(name: str) -> Any:
    if name == "DISTRIBUTIONS":  # Distribution name -> (constructor, role)
        return _distributions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def distribution_names(role: str | None = None) -> list[str]:
    """Distribution names (for ``role`` if given)."""
    return [n for n, (_, r) in _distributions().items() if role is None or r == role]


def _dist(name: str, role: str | None) -> Callable[..., Any]:
    for n, (ctor, r) in _distributions().items():
        if n.lower() == str(name).lower() and (role is None or r == role):
            return ctor
    raise UnknownDistributionError(
        f"unknown {role or 'workload'} distribution {name!r}; known: {', '.join(distribution_names(role))}"
    )


def distribution_params(name: str, role: str | None = None) -> list[str]:
    """The keyword parameters distribution ``name`` takes."""
    return [p for p in inspect.signature(_dist(name, role)).parameters if p != "self"]


def make_distribution(name: str, params: dict[str, Any] | None = None, role: str | None = None) -> Any:
    """Construct distribution ``name`` with keyword ``params``; an unknown parameter raises
    :class:`TypeError` naming it and the allowed ones, a bad value the constructor's
    :class:`ValueError`."""
    ctor = _dist(name, role)
    params = dict(params or {})
    allowed = distribution_params(name, role)
    bad = [k for k in params if k not in allowed]
    if bad:
        raise TypeError(f"{name} has no parameter {bad[0]!r}; allowed: {', '.join(allowed) or '(none)'}")
    if "probs" in params and isinstance(params["probs"], list):
        params["probs"] = tuple(params["probs"])
    return ctor(**params)


# -- policies with constructor parameters ---------------------------------------------------------
class PolicyParameterError(TypeError):
    """A policy table names a parameter the policy does not take; the message lists those it takes."""


_SCALAR = (int, float, str, bool, type(None))
_MISSING = object()


def policy_parameters(name: str) -> dict[str, Any]:
    """The parameters a configuration file may give policy ``name``: each keyword of its class's
    constructor that the policy keeps with a plain value (number, string, boolean or none) as an
    attribute of the same name, else of the name with a leading underscore or a ``_mode`` suffix
    (:class:`~scheduling.policies.gang.Gang` keeps ``assignment`` as ``_assignment`` and ``quanta``
    as ``quanta_mode``), mapped to its value for ``name`` (``{"overhead": 0.0}`` for ``DEQP``).
    Raises :class:`~scheduling.policies.UnknownPolicyError` for an unknown name."""
    policy = _policies.get(name)
    out = {}
    for pname, par in inspect.signature(type(policy)).parameters.items():
        if par.kind not in (par.POSITIONAL_OR_KEYWORD, par.KEYWORD_ONLY):
            continue
        for attr in (pname, f"_{pname}", f"{pname}_mode"):
            value = getattr(policy, attr, _MISSING)
            if value is not _MISSING and isinstance(value, _SCALAR):
                out[pname] = value
                break
    return out


def make_policy(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """A fresh policy ``name`` (a registry name such as ``"DPROP-SM/2"``) with constructor
    ``params`` replaced (``{"overhead": 1.0}``: Ismail's reconfiguration cost ``C``).

    The policy is rebuilt as ``type(p)(**current, **params)`` from the values the registry's
    policy holds (:func:`policy_parameters`), so the constructor validates the new values.
    Raises :class:`PolicyParameterError` naming an unknown parameter and the allowed ones, and the
    constructor's :class:`ValueError` for a bad value.

    >>> make_policy("DEQP", {"overhead": 2.0}).overhead
    2.0
    """
    policy = _policies.get(name)
    if not params:
        return policy
    current = policy_parameters(name)
    bad = [k for k in params if k not in current]
    if bad:
        raise PolicyParameterError(f"policy {name!r} has no parameter {bad[0]!r}; allowed: "
                                   f"{', '.join(current) or '(none)'}")
    cls = type(policy)
    required = [p for p, par in inspect.signature(cls).parameters.items()
                if par.default is par.empty and par.kind in (par.POSITIONAL_OR_KEYWORD, par.KEYWORD_ONLY)]
    missing = [p for p in required if p not in current]
    if missing:  # pragma: no cover - every registered family keeps its constructor arguments
        raise PolicyParameterError(f"policy {name!r} cannot be rebuilt with parameters: it does not keep "
                                   f"{', '.join(missing)}")
    same = cls(**current)
    if getattr(same, "name", None) != getattr(policy, "name", None):  # a setting the rebuild would lose
        raise PolicyParameterError(f"policy {name!r} cannot be rebuilt with parameters: rebuilt from "
                                   f"{current} it is {getattr(same, 'name', same)!r}")
    return cls(**{**current, **dict(params)})


# -- workload models --------------------------------------------------------------------------------
class UnknownWorkloadModelError(KeyError):
    """No workload model has this name; the message lists the known ones."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class WorkloadModel:
    """A named workload of the papers for a ``[workload]`` table (``model = {name = ..., ...}``).

    ``factory(load, machine_size, **params)`` builds the workload (an object with ``jobs(seed)``);
    ``kinds`` are the topology kinds it makes requests for (processor counts: ``("flat",)``);
    ``finite`` workloads end by themselves (a run then lasts until every job is done: ``jobs =
    "all"`` is the default); ``episodes`` names the parameter giving the number of independent
    simulations pooled into one replication (Downey's "days"); ``metrics(runs)`` adds the model's
    own metrics from ``[(result, jobs_by_id)]``, one pair per episode. A ``trace`` model replays
    recorded jobs: its ``loads`` may be ``"recorded"`` (the default; the factory then gets ``load =
    None``) and its experiments default to one replication (the seed is not used)."""

    name: str
    factory: Callable[..., Any]
    kinds: tuple[str, ...] = ("flat",)
    finite: bool = False
    episodes: str | None = None
    metrics: Callable[[Sequence[tuple[Any, Mapping[int, Any]]]], dict[str, float]] | None = None
    help: str = ""
    trace: bool = False


def _choice(model: str, param: str, value: Any, allowed: Sequence[Any]) -> None:
    if value not in allowed:
        raise ValueError(f"{model}: {param} must be one of {', '.join(map(str, allowed))}; got {value!r}")


def _ismail(load: float, machine_size: int, *, sizes: str = "uniform", runtimes: str = "uniform",
            speedup: str = "misp") -> Any:
    from ..workloads import ismail

    _choice("Ismail", "sizes", sizes, ismail.SIZES)
    _choice("Ismail", "runtimes", runtimes, ismail.RUNTIMES)
    _choice("Ismail", "speedup", speedup, ismail.SPEEDUPS)
    return ismail.ismail_workload(P=machine_size, sizes=sizes, runtimes=runtimes, speedup=speedup, load=load)


def _ismail_dynamic(load: float, machine_size: int, *, execution: str = "uniform", speedup: str = "misp") -> Any:
    _choice("IsmailDynamic", "execution", execution, _wl.ISMAIL_DYNAMIC_EXECUTION)
    _choice("IsmailDynamic", "speedup", speedup, ("misp", "linear"))
    return _wl.ismail_dynamic(execution, load=load, speedup=speedup, machine_size=machine_size)


def _applications(load: float, machine_size: int, *, numbers: Sequence[int] | None = None,
                  weights: Sequence[float] | None = None) -> Any:
    from ..models.applications import ApplicationMix

    kw: dict[str, Any] = {}
    if numbers is not None:
        if not isinstance(numbers, list | tuple) or not all(is_int(n) and 1 <= n <= 30 for n in numbers):
            raise ValueError(f"Applications: numbers must be a list of application numbers 1..30, got {numbers!r}")
        kw["numbers"] = tuple(numbers)
    if weights is not None:
        kw["weights"] = tuple(weights) if isinstance(weights, list) else weights  # ApplicationMix checks them
    return ApplicationMix(load=load, machine_size=machine_size, **kw)


@dataclass(frozen=True)
class _Batch:
    """A fixed list of jobs as a workload (``jobs(seed)`` ignores the seed)."""

    numbers: tuple[int, ...]
    repeats: int

    def jobs(self, seed: int = 0) -> Any:
        from ..models.applications import batch_mix

        return iter(batch_mix(self.numbers, self.repeats))


def _batch_mix(load: float, machine_size: int, *, numbers: Sequence[int] = (1, 6, 9), repeats: int = 200) -> Any:
    from ..models.applications import application

    if not isinstance(numbers, list | tuple) or not numbers or not all(
            isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 30 for n in numbers):
        raise ValueError(f"BatchMix: numbers must be a non-empty list of application numbers 1..30, got {numbers!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"BatchMix: repeats must be a positive integer, got {repeats!r}")
    big = [n for n in numbers if application(n).max_processors > machine_size]
    if big:
        raise ValueError(f"BatchMix: numbers {big} request more than the machine's {machine_size} processors")
    return _Batch(tuple(numbers), repeats)


def _downey(load: float, machine_size: int, *, days: int = 1, sigma_max: float = 2.0) -> Any:
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ValueError(f"Downey: days must be a positive integer, got {days!r}")
    return _wl.Downey(N=machine_size, load=load, days=1, sigma_max=sigma_max)


def _downey_metrics(runs: Sequence[tuple[Any, Mapping[int, Any]]]) -> dict[str, float]:
    from ..metrics.downey import DayRun, summarize_days
    from ..workloads.downey import HOUR

    s = summarize_days([DayRun(result, jobs, 12 * HOUR) for result, jobs in runs])
    out = {"mean_slowdown": s["mean_slowdown"], "p90_slowdown": s["p90_slowdown"]}
    if not any((result.table["changes"] > 0).any() for result, _ in runs):
        # Downey's load average and utilization assume fixed cluster sizes (his strategies)
        out.update(load_average=s["load_average"], system_efficiency=s["utilization"])
    return out


def _trace(load: float | None, machine_size: int, *, file: str | None = None, month: str | None = None,
           window: list[float] | tuple[float, float] | None = None, too_large: str = "skip", size: str = "requested",
           nonzero_cpu: bool = False, limit: int | None = None, known_wait: bool = False) -> Any:
    from .traces import trace_workload

    return trace_workload(load, machine_size, file=file, month=month, window=window, too_large=too_large,
                          size=size, nonzero_cpu=nonzero_cpu, limit=limit, known_wait=known_wait)


#: Workload model name -> :class:`WorkloadModel`.
WORKLOAD_MODELS: dict[str, WorkloadModel] = {
    "Ismail": WorkloadModel(
        "Ismail", _ismail, help="seed 000 §2.3.1/§3.3.1 static space sharing: requests on [2, P], run times, "
        "MISP or linear speedup"),
    "IsmailDynamic": WorkloadModel(
        "IsmailDynamic", _ismail_dynamic, help="seed 000 §4.4.1 dynamic space sharing: requests on [2, P], "
        "execution times uniform, exponential, short or the Table 4.1 applications"),
    "Applications": WorkloadModel(
        "Applications", _applications, help="Poisson arrivals of seed 000's Table 4.1/4.2 applications (§4.2), "
        "optionally only some numbers, with weights"),
    "BatchMix": WorkloadModel(
        "BatchMix", _batch_mix, finite=True,
        help="seed 003 §5.3 closed batch: one slot per application number, each running `repeats` jobs of it in "
        "turn, all queued at time 0 (the load is not used; stop with jobs <= repeats to keep the mix)"),
    "Downey": WorkloadModel(
        "Downey", _downey, finite=True, episodes="days", metrics=_downey_metrics,
        help="seed 001 §3-4: day-long runs (arrivals for 12 h), `days` separate days pooled per replication; "
        "adds Downey's load average and efficiency-weighted utilization (as system_efficiency; for policies "
        "that keep cluster sizes) and Eq. 5 slowdowns"),
    "Trace": WorkloadModel(
        "Trace", _trace, kinds=("flat", "tree"), finite=True, trace=True,
        help="a recorded SWF log by name from $TOPOALLOC_TRACES (default ../shared/traces): file, month = "
        "'YYYY-MM' or window = [start, end] s, too_large, size, nonzero_cpu, limit, known_wait (only "
        "jobs with a recorded wait, for the Recorded policy); loads 'recorded' (default) or offered loads (seed 004 "
        "§5: CTC SP2, August 1996)"),
}


def workload_model_names() -> list[str]:
    """The workload model names."""
    return list(WORKLOAD_MODELS)


def workload_model(name: str) -> WorkloadModel:
    """The model ``name`` (case-insensitive); :class:`UnknownWorkloadModelError` lists the known ones."""
    for n, model in WORKLOAD_MODELS.items():
        if n.lower() == str(name).lower():
            return model
    raise UnknownWorkloadModelError(f"unknown workload model {name!r}; known: {', '.join(WORKLOAD_MODELS)}")


def workload_model_params(name: str) -> list[str]:
    """The keyword parameters model ``name`` takes."""
    sig = inspect.signature(workload_model(name).factory)
    return [p for p, par in sig.parameters.items() if par.kind == par.KEYWORD_ONLY]


def make_workload(name: str, params: Mapping[str, Any] | None, *, load: float | None, machine_size: int) -> Any:
    """Workload model ``name`` with ``params`` at ``load`` for a machine of ``machine_size``
    processors (``load=None``: a trace model's recorded rate); :class:`TypeError` names an unknown
    parameter and the allowed ones, the factory's :class:`ValueError` a bad value (with the allowed
    choices; a trace model raises :class:`FileNotFoundError` for a trace it cannot find)."""
    model = workload_model(name)
    params = dict(params or {})
    allowed = workload_model_params(model.name)
    bad = [k for k in params if k not in allowed]
    if bad:
        raise TypeError(f"workload model {model.name} has no parameter {bad[0]!r}; allowed: {', '.join(allowed)}")
    check_int(machine_size, f"{model.name}: machine_size (the topology's processors)", low=1)
    if load is not None or not model.trace:
        check_real(load, f"{model.name}: load", low=0, low_open=True)
    return model.factory(load, machine_size, **params)

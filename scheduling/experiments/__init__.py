"""Experiments: sweeps of allocators x policies x loads x replications, run on local processes or a
Dask cluster, stored in SQLite as they finish (resumable), summarised with confidence intervals.

>>> from scheduling.experiments import compare_study, ResultStore, run_study, LocalExecutor, aggregate
>>> study, missing = compare_study(allocators=["Buddy"], loads=[0.5], replications=2, jobs=300, warmup=30)
>>> store = ResultStore(":memory:")
>>> run_study(study, store, LocalExecutor(1), progress=False).ran
4
>>> [(s.policy, s.n) for s in aggregate(store.rows())]
[('RSR-0', 2), ('RSR-1', 2)]

Each name is imported from its module on first access (PEP 562): a command that only replays a
trace does not pay for saturation searches, snapshots or month windows.
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:
    from .defaults import compare_study
    from .executors import DaskExecutor, LocalExecutor, make_executor
    from .parse import load_study, study_from_dict
    from .registry import (
        WORKLOAD_MODELS,
        PolicyParameterError,
        UnknownAllocatorError,
        UnknownWorkloadModelError,
        allocator_class,
        allocator_kind,
        allocator_names,
        canonical_allocator,
        make_allocator,
        make_policy,
        make_workload,
        policy_parameters,
        register_allocator,
        workload_model_names,
    )
    from .replay import TraceSupportError, read_trace, trace_points
    from .report import FairnessCurve, PointSummary, aggregate, class_rows, fairness_curves, format_table
    from .runner import (
        RunStats,
        TaskError,
        episode_seeds,
        replications_needed,
        replications_wanted,
        run_points,
        run_study,
        run_task,
        study_rows,
    )
    from .saturation import SaturationLoad, format_saturation, saturation_loads
    from .schema import (
        METRICS,
        Component,
        ConfigError,
        Experiment,
        PlotSpec,
        Point,
        Study,
        Target,
        WorkloadSpec,
        derive_seed,
    )
    from .snapshots import SnapshotPolicy, record_occupancy
    from .store import ResultStore, StoreVersionError, package_version
    from .topology_spec import TopologySpec
    from .traces import TraceParameterError, TraceWorkload, month_window, trace_workload

__all__ = [
    "METRICS",
    "Component",
    "ConfigError",
    "Experiment",
    "PlotSpec",
    "Point",
    "Study",
    "Target",
    "TopologySpec",
    "WorkloadSpec",
    "derive_seed",
    "load_study",
    "study_from_dict",
    "compare_study",
    "UnknownAllocatorError",
    "allocator_class",
    "allocator_kind",
    "allocator_names",
    "canonical_allocator",
    "make_allocator",
    "register_allocator",
    "WORKLOAD_MODELS",
    "PolicyParameterError",
    "UnknownWorkloadModelError",
    "make_policy",
    "make_workload",
    "policy_parameters",
    "workload_model_names",
    "FairnessCurve",
    "PointSummary",
    "aggregate",
    "class_rows",
    "fairness_curves",
    "format_table",
    "DaskExecutor",
    "LocalExecutor",
    "RunStats",
    "TaskError",
    "TraceSupportError",
    "episode_seeds",
    "make_executor",
    "read_trace",
    "replications_needed",
    "replications_wanted",
    "study_rows",
    "SaturationLoad",
    "saturation_loads",
    "format_saturation",
    "StoreVersionError",
    "run_points",
    "run_study",
    "run_task",
    "trace_points",
    "SnapshotPolicy",
    "record_occupancy",
    "TraceParameterError",
    "TraceWorkload",
    "month_window",
    "trace_workload",
    "ResultStore",
    "package_version",
]

#: Where each public name is defined: name -> module of this package.
_LAZY_ATTRS = {
    **dict.fromkeys((
        "METRICS", "Component", "ConfigError", "Experiment", "PlotSpec", "Point", "Study", "Target", "WorkloadSpec",
        "derive_seed"
    ), "schema"),
    "TopologySpec": "topology_spec",
    **dict.fromkeys(("load_study", "study_from_dict"), "parse"),
    "compare_study": "defaults",
    **dict.fromkeys((
        "WORKLOAD_MODELS", "PolicyParameterError", "UnknownAllocatorError", "UnknownWorkloadModelError",
        "allocator_class", "allocator_kind", "allocator_names", "canonical_allocator", "make_allocator", "make_policy",
        "make_workload", "policy_parameters", "register_allocator", "workload_model_names"
    ), "registry"),
    **dict.fromkeys((
        "FairnessCurve", "PointSummary", "aggregate", "class_rows", "fairness_curves", "format_table"
    ), "report"),
    **dict.fromkeys(("DaskExecutor", "LocalExecutor", "make_executor"), "executors"),
    **dict.fromkeys(("TraceSupportError", "read_trace", "trace_points"), "replay"),
    **dict.fromkeys((
        "RunStats", "TaskError", "episode_seeds", "replications_needed", "replications_wanted", "run_points",
        "run_study", "run_task", "study_rows"
    ), "runner"),
    **dict.fromkeys(("SaturationLoad", "format_saturation", "saturation_loads"), "saturation"),
    **dict.fromkeys(("SnapshotPolicy", "record_occupancy"), "snapshots"),
    **dict.fromkeys(("ResultStore", "StoreVersionError", "package_version"), "store"),
    **dict.fromkeys(("TraceParameterError", "TraceWorkload", "month_window", "trace_workload"), "traces"),
}
__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS)

"""Scheduling: policies, the event simulator, workloads, metrics, experiments, the command line.

>>> from topoalloc import FrameSliding                                    # doctest: +SKIP
>>> from scheduling import simulate, workloads
>>> w = workloads.Synthetic(workloads.MeshSides(32, 32), workloads.Exponential(5.0), load=0.5, machine_size=1024)
>>> simulate(FrameSliding(Mesh(32, 32)), "RSR-1", w, jobs=5000, warmup=500).summary()  # doctest: +SKIP

The subpackages that not every use needs (``workloads``, ``experiments``, ``plots``, ``cli``, the
run-time models) are imported on first attribute access (PEP 562), so ``import
scheduling`` stays cheap; ``from scheduling import workloads`` and ``scheduling.workloads.Synthetic``
work as usual.
"""

import importlib
from typing import Any

from topologies._version import __version__
from topologies.errors import ParameterError

from . import metrics, policies
from .kernel.actions import Action, Resize, Resume, Start, Suspend, Timer
from .kernel.api import EmptyWorkloadError, simulate
from .kernel.jobs import Job, JobRecord
from .kernel.result import SimulationResult
from .kernel.semantics import SIMULATION_SEMANTICS
from .kernel.simulator import RunawayBacklogWarning, Simulator, UnplaceableRequestError
from .metrics.summary import Estimate, combine, confidence_interval, replicate_until
from .models.speedup import Amdahl, Linear, Speedup, Tabulated
from .policies import Policy

__all__ = [
    "__version__",
    "simulate",
    "EmptyWorkloadError",
    "Simulator",
    "RunawayBacklogWarning",
    "UnplaceableRequestError",
    "ParameterError",
    "SimulationResult",
    "Job",
    "JobRecord",
    "Policy",
    "Action",
    "Start",
    "Resize",
    "Suspend",
    "Resume",
    "Timer",
    "Speedup",
    "Linear",
    "Amdahl",
    "Tabulated",
    "Estimate",
    "confidence_interval",
    "combine",
    "replicate_until",
    "SIMULATION_SEMANTICS",
    "metrics",
    "policies",
    "workloads",
]

#: Submodules imported on first attribute access (``scheduling.experiments``, ...).
_LAZY_SUBMODULES = frozenset({"workloads", "experiments", "plots", "cli", "models", "kernel", "formats"})


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")  # the import sets the attribute
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY_SUBMODULES)

"""Scheduling: policies, the event simulator, workloads, metrics, experiments, the command line.

>>> from topoalloc import FrameSliding                                    # doctest: +SKIP
>>> from scheduling import simulate, workloads
>>> w = workloads.Synthetic(workloads.MeshSides(32, 32), workloads.Exponential(5.0), load=0.5, machine_size=1024)
>>> simulate(FrameSliding(Mesh(32, 32)), "RSR-1", w, jobs=5000, warmup=500).summary()  # doctest: +SKIP
"""

from topologies._version import __version__
from topologies.errors import ParameterError

from . import metrics, policies, workloads
from .actions import Action, Resize, Resume, Start, Suspend, Timer
from .api import simulate
from .jobs import Job, JobRecord
from .metrics import Estimate, combine, confidence_interval, replicate_until
from .policies import Policy
from .result import SimulationResult
from .semantics import SIMULATION_SEMANTICS
from .simulator import Simulator
from .speedup import Amdahl, Linear, Speedup, Tabulated

__all__ = [
    "__version__",
    "simulate",
    "Simulator",
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

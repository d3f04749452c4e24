"""The simulator kernel: jobs, the actions a policy returns, the event loop, its result and
:func:`simulate`, the one-call entry.

=================  ==============================================================
``jobs``           :class:`Job` (what arrives) and :class:`JobRecord` (what happened)
``actions``        what a policy returns: ``Start``, ``Resize``, ``Suspend``, ``Resume``, ``Timer``
``simulator``      :class:`Simulator`, the discrete-event loop every policy shares
``result``         :class:`SimulationResult`: records, summaries, placements
``api``            :func:`simulate`
``semantics``      the simulation semantics every result states
=================  ==============================================================
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:
    from .actions import Action, Resize, Resume, Start, Suspend, Timer
    from .api import EmptyWorkloadError, simulate
    from .jobs import Job, JobRecord
    from .result import SimulationResult
    from .semantics import SIMULATION_SEMANTICS
    from .simulator import RunawayBacklogWarning, Simulator, UnplaceableRequestError

__all__ = ["Action", "Resize", "Resume", "Start", "Suspend", "Timer", "EmptyWorkloadError", "simulate", "Job",
           "JobRecord", "SimulationResult", "SIMULATION_SEMANTICS", "RunawayBacklogWarning", "Simulator",
           "UnplaceableRequestError"]

_LAZY_ATTRS = {
    **dict.fromkeys(("Action", "Resize", "Resume", "Start", "Suspend", "Timer"), "actions"),
    **dict.fromkeys(("EmptyWorkloadError", "simulate"), "api"),
    **dict.fromkeys(("Job", "JobRecord"), "jobs"),
    "SimulationResult": "result",
    "SIMULATION_SEMANTICS": "semantics",
    **dict.fromkeys(("RunawayBacklogWarning", "Simulator", "UnplaceableRequestError"), "simulator"),
}
__getattr__, __dir__ = attach(__name__, _LAZY_ATTRS)

"""Run-time models: how long a job runs on the processors and nodes it gets.

=====================  ==========================================================
``speedup``            speedup curves: ``Linear``, ``Amdahl``, ``Tabulated``
``downey_speedup``     Downey's speedup model (seed 001)
``runtime``            placement-dependent run times (dilation, hop-bytes)
``contention``         jobs slowing each other through shared links (flow level)
``applications``       application mixes with measured speedup curves (seed 003)
=====================  ==========================================================

The modules are imported on first use (``scheduling.models.runtime``).
"""

from .speedup import Amdahl, Linear, Speedup, Tabulated

__all__ = ["Amdahl", "Linear", "Speedup", "Tabulated"]

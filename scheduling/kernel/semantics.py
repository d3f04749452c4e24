"""The version of the simulation's semantics: what a stored result was computed under.

A result store (:mod:`scheduling.experiments.store`) keys every stored simulation by its whole
configuration **and** :data:`SIMULATION_SEMANTICS`, so results computed by a simulator that
behaved differently are never served as current ones: after a bump, ``topoalloc run`` and
``topoalloc compare`` recompute every point (the old rows stay in the file, unused, and the command
says how many it did not use).

**Bump it** (add one and a line to :data:`HISTORY`) in the same commit as any change that can
change a simulation's numbers for the same configuration and seed: the event order or tie-breaking
of :mod:`scheduling.kernel.simulator`, what a policy decides at an instant, how a workload draws its jobs
(:mod:`scheduling.workloads`), how an allocator places a job, or how a stored metric is computed.
Pure speed-ups that keep every schedule identical do not need a bump.

>>> SIMULATION_SEMANTICS >= 1
True
"""

from __future__ import annotations

__all__ = ["SIMULATION_SEMANTICS", "HISTORY"]

#: Bump on every change that can change a simulation's result for the same inputs (see above).
SIMULATION_SEMANTICS = 2

#: What each version changed.
HISTORY = {
    1: "first keyed version: results stored before result store schema 2 were not keyed by semantics",
    2: "one decision per instant (every event of an instant, then the policy decides once); EASY rescans the "
       "queue when a release or an overrun may have moved the reservation; zero-length jobs hold nothing; "
       "Downey strategies round the ideal cluster size up; DSMJF tops up running jobs first; EQUAL-EFF "
       "returns the best allocation it measured on a cycle",
}

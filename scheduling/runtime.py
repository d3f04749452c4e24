"""Run times that depend on where a job runs: placement-dependent run-time models.

A job's run time on its allocation is a *compute* part plus a *communication* part. The compute
part is what the job's speedup model gives (:meth:`Job.time_on <scheduling.jobs.Job.time_on>`,
today's behaviour); the communication part, a fraction ``f = job.comm`` of it, scales with a
locality measure of the actual placement relative to the most compact placement of the same size::

    T = T0 * ((1 - f) + f * ratio),        ratio = measure(actual nodes) / measure(compact nodes)

so a job placed as compactly as possible runs exactly ``T0``, a scattered one longer, and a job
with ``comm = 0`` is never affected. A model is passed to the simulator
(``simulate(..., runtime_model=Dilation())``); without one, placement does not matter, which is
the setting of every paper the library reproduces.

* :class:`Dilation` -- ``measure`` is the average pairwise hop distance (:func:`topoalloc.locality.mean_hops`).
* :class:`HopBytes` -- ``measure`` is the total hop count of one round of a communication pattern
  (all-to-all, or nearest neighbour on a virtual 2D grid; :func:`topoalloc.locality.pattern_hops`),
  optionally raised to a power.

**Where the forms come from.** The Sandia scheduler studies that compare mesh allocators by
communication cost (Leung et al., "Processor allocation on Cplant", IEEE Cluster 2002, which
found run times to correlate with the average pairwise distance of the allocation; Bunde, Leung
and Mache, "Communication patterns and allocation strategies", PMEO-PDS 2004) and the SST
scheduler element derived from them take a trace's run time as the run time on a *baseline*
(compact) allocation and scale it by the ratio of a locality measure of the actual allocation to
the baseline's: SST's ``schedComponent`` uses ``T = T_base (1 + a HB^b)`` with the hop-bytes
``HB`` of the mapped tasks, normalised so that the baseline allocation gives the trace's time.
Interpretation: we use the linear form weighted by a per-job communication fraction (the
"dilation" reading of those studies: the communicating share of the run stretches with the
distance its messages travel), and offer the power of SST's form as ``HopBytes(exponent=...)``.
Link contention is not modelled in the run time (see :func:`topoalloc.locality.link_load` to
measure it).
"""

from __future__ import annotations

from typing import Any

from .jobs import Job

__all__ = ["RuntimeModel", "Dilation", "HopBytes", "PATTERNS"]

#: Communication patterns :class:`HopBytes` knows.
PATTERNS = ("all-to-all", "nearest-neighbour")


class RuntimeModel:
    """Base class: ``factor(job, allocation, topology)`` multiplies the job's run time. This base
    is the identity (placement does not matter)."""

    name = "none"

    def factor(self, job: Job, allocation: Any, topology: Any) -> float:
        return 1.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _RatioModel(RuntimeModel):
    """``(1 - f) + f * ratio`` with a measure of the actual placement over the compact one's."""

    def __init__(self) -> None:
        self._compact: dict[tuple[Any, int], float] = {}

    def _measure(self, topology: Any, allocation: Any) -> float:
        raise NotImplementedError

    def _compact_measure(self, topology: Any, n: int) -> float:
        raise NotImplementedError

    def ratio(self, allocation: Any, topology: Any) -> float:
        """The placement's measure over the most compact placement's of the same size (1 for a
        single node or a compact placement)."""
        nodes = getattr(allocation, "nodes", None)
        if nodes is None:
            raise TypeError(f"{self!r} needs an allocation with node ids, got {allocation!r}")
        n = len(nodes)
        if n < 2:
            return 1.0
        key = (topology, n)
        base = self._compact.get(key)
        if base is None:
            base = self._compact[key] = self._compact_measure(topology, n)
        return self._measure(topology, allocation) / base if base > 0 else 1.0

    def factor(self, job: Job, allocation: Any, topology: Any) -> float:
        f = job.comm
        if f == 0.0:
            return 1.0
        return (1.0 - f) + f * self.ratio(allocation, topology)


class Dilation(_RatioModel):
    """Run time grows linearly with the job's average pairwise hop distance relative to the most
    compact placement of its size, weighted by its communication fraction:
    ``T = T0 ((1 - f) + f * mean_hops(nodes) / mean_hops(compact))`` (see the module docstring
    for the source and the interpretation). O(n log n) per placement (the compact value is cached
    per size).

    >>> from topologies import Mesh; from topoalloc import FirstFit
    >>> from scheduling import Job
    >>> mesh = Mesh(8, 8); ff = FirstFit(mesh)
    >>> square, strip = Job(0, 0.0, (2, 2), 10.0, comm=0.5), Job(1, 0.0, (4, 1), 10.0, comm=0.5)
    >>> Dilation().factor(square, ff.allocate((2, 2)), mesh)   # as compact as 4 nodes get
    1.0
    >>> round(Dilation().factor(strip, ff.allocate((4, 1)), mesh), 4)  # 1.667 hops against 1.333
    1.125
    """

    name = "dilation"

    def _measure(self, topology: Any, allocation: Any) -> float:
        from topoalloc.locality import allocation_mean_hops

        return allocation_mean_hops(topology, allocation)  # O(1) for a submesh or subcube

    def _compact_measure(self, topology: Any, n: int) -> float:
        from topoalloc.locality import compact_mean_hops

        return compact_mean_hops(topology, n)


class HopBytes(_RatioModel):
    """Run time grows with the hops one round of the job's communication ``pattern`` travels on
    its placement, relative to the most compact placement of its size, weighted by its
    communication fraction: ``T = T0 ((1 - f) + f * (hops(nodes) / hops(compact)) ** exponent)``.
    ``pattern`` is ``"all-to-all"`` or ``"nearest-neighbour"`` (ranks on a near-square virtual 2D
    grid, laid on the job's ascending node ids; :func:`topoalloc.locality.pattern_hops`). With
    one byte per message, hops are hop-bytes. ``exponent`` < 1 gives the sub-linear growth of
    the SST scheduler's fitted form. O(n log n) (all-to-all) or O(n) (nearest neighbour).
    """

    name = "hop-bytes"

    def __init__(self, pattern: str = "all-to-all", exponent: float = 1.0) -> None:
        super().__init__()
        if pattern not in PATTERNS:
            raise ValueError(f"unknown communication pattern {pattern!r}; known: {', '.join(PATTERNS)}")
        if isinstance(exponent, bool) or not isinstance(exponent, int | float) or not 0.0 < exponent < float("inf"):
            raise ValueError(f"exponent must be a finite number > 0, got {exponent!r}")
        self.pattern = pattern
        self.exponent = float(exponent)

    def _measure(self, topology: Any, allocation: Any) -> float:
        from topoalloc.locality import pattern_hops

        return pattern_hops(topology, allocation.nodes, self.pattern)

    def _compact_measure(self, topology: Any, n: int) -> float:
        from topoalloc.locality import compact_nodes, pattern_hops

        return pattern_hops(topology, compact_nodes(topology, n), self.pattern)

    def ratio(self, allocation: Any, topology: Any) -> float:
        r = super().ratio(allocation, topology)
        return r if self.exponent == 1.0 else r ** self.exponent

    def __repr__(self) -> str:
        return f"HopBytes(pattern={self.pattern!r}, exponent={self.exponent})"

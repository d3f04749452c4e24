"""Run times that depend on where a job runs: placement-dependent run-time models.

A job's run time on its allocation is a *compute* part plus a *communication* part. The compute
part is what the job's speedup model gives (:meth:`Job.time_on <scheduling.kernel.jobs.Job.time_on>`,
today's behaviour); the communication part, a fraction ``f = job.comm`` of it, scales with a
locality measure of the actual placement relative to a *baseline* placement of the same size::

    T = T0 * ((1 - f) + f * ratio),        ratio = measure(actual nodes) / measure(baseline)

and a job with ``comm = 0`` is never affected. A model is passed to the simulator
(``simulate(..., runtime_model=Dilation())``); without one, placement does not matter, which is
the setting of every paper the library reproduces.

**The baseline.** A job's communication is laid out on the shape it asked for (Lo, Windisch, Liu
and Nitzberg, "Noncontiguous processor allocation algorithms for mesh-connected multicomputers",
IEEE TPDS 8(7), 1997, give each job a ``w x h`` submesh request; the SST scheduler's jobs carry
their stencil dimensions), so:

* a **shaped request** ``(w, h)`` on a :class:`~topologies.Mesh` (the grant holding ``w h``
  nodes) is compared with its own ``w x h`` box: a contiguous grant of exactly the requested
  submesh (either orientation) has ratio exactly 1. A non-contiguous grant more compact than a
  long box (a 32x1 request spread as a 6x6 blob) has an all-to-all ratio below 1: the job's
  messages really travel less than on the box it asked for (interpretation; the
  nearest-neighbour ratio of a shaped request is never below 1, every neighbour being at least
  one hop away).
* a **processor count** (and a shaped request on any other topology, or a grant of another size
  after a resize) is compared with a true minimum: the topology's
  :func:`~topoalloc.locality.compact_nodes` (on a mesh the rounded least-distance shapes of
  Bender et al., Algorithmica 2008; :meth:`topologies.Mesh.compact_nodes`), so no placement's
  all-to-all or mean-hop ratio falls below 1; for the nearest-neighbour pattern the baseline is
  its lower bound, one hop per neighbour pair of the rank grid (attained by laying the grid on
  the mesh), so that ratio is never below 1 either.

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
Link contention between jobs is the :class:`~scheduling.models.contention.Contention` model,
which composes with these (the placement's own cost stays; the other jobs' traffic stretches the
communicating part further); :func:`topoalloc.locality.link_load` measures it without costing time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Mesh, Submesh

from ..kernel.jobs import Job

__all__ = ["RuntimeModel", "Dilation", "HopBytes", "PATTERNS"]

#: Communication patterns :class:`HopBytes` knows.
PATTERNS = ("all-to-all", "nearest-neighbour")


class RuntimeModel:
    """Base class: ``factor(job, allocation, topology)`` multiplies the job's run time. This base
    is the identity (placement does not matter).

    **Models that re-rate running jobs.** A model whose run times depend on the other running jobs
    (:class:`~scheduling.models.contention.Contention`) sets :attr:`interacts`; the simulator then
    calls :meth:`check` when it is built, :meth:`begin` when a run starts, :meth:`started` when a
    job starts (or resumes, or moves to a new allocation) and :meth:`ended` when it ends (or is
    suspended, or moves). Each returns a mapping of job id to that job's new run-time factor, for
    the jobs whose factor changed (:meth:`started` always includes the started job); the simulator
    re-predicts the completions of exactly those jobs, keeping the progress they made at their old
    rate. :meth:`factor` stays the job's factor alone on its placement, and the simulator records
    the time each job lost to the others (the ``interference`` column). A model that does not
    interact is asked :meth:`factor` only, as before.
    """

    name = "none"
    #: Whether the model re-rates running jobs when another starts or ends (see the class docstring).
    interacts = False

    def factor(self, job: Job, allocation: Any, topology: Any) -> float:
        """The run-time factor of ``job`` on ``allocation``, alone on the machine."""
        return 1.0

    def check(self, topology: Any) -> None:
        """Raise if the model cannot run on ``topology`` (the simulator asks when it is built)."""

    def begin(self, topology: Any) -> None:
        """A run on ``topology`` begins: forget every job (interacting models)."""

    def started(self, job: Job, allocation: Any, topology: Any, alone: float) -> dict[int, float]:
        """``job`` starts on ``allocation`` with factor ``alone``; the factors that changed."""
        return {job.id: alone}

    def ended(self, job_id: int) -> dict[int, float]:
        """Job ``job_id`` stops running; the factors of the other jobs that changed."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _RatioModel(RuntimeModel):
    """``(1 - f) + f * ratio`` with a measure of the actual placement over the compact one's."""

    def __init__(self) -> None:
        # the compact measure by (topology, size) and the box measure by (topology, (width, height))
        self._compact: dict[tuple[Any, int | tuple[int, int]], float] = {}

    def _measure(self, topology: Any, allocation: Any) -> float:
        raise NotImplementedError

    def _compact_measure(self, topology: Any, n: int) -> float:
        raise NotImplementedError

    def _box_measure(self, topology: Any, width: int, height: int) -> float:
        """The measure of a ``width x height`` submesh with ranks on its own grid."""
        raise NotImplementedError

    def _shaped_measure(self, topology: Any, allocation: Any, width: int, height: int) -> float:
        """The measure of a grant of a ``width x height`` request (ranks on that grid)."""
        return self._measure(topology, allocation)

    def ratio(self, allocation: Any, topology: Any, request: Any = None) -> float:
        """The placement's measure over its baseline's (module docstring): the requested box for a
        ``(w, h)`` ``request`` on a mesh granted ``w h`` nodes, else the most compact placement of
        the grant's size. 1 for a single node or a baseline placement.

        >>> from topologies import Mesh; from topoalloc import FirstFit
        >>> mesh = Mesh(8, 8); strip = FirstFit(mesh).allocate((4, 1))
        >>> Dilation().ratio(strip, mesh, (4, 1)), round(Dilation().ratio(strip, mesh), 4)
        (1.0, 1.25)
        """
        nodes = getattr(allocation, "nodes", None)
        if nodes is None:
            raise TypeError(f"{self!r} needs an allocation with node ids, got {allocation!r}")
        n = len(nodes)
        if n < 2:
            return 1.0
        shape = _box_shape(topology, allocation, request, n)
        key: tuple[Any, ...]
        if shape is None:
            key = (topology, n)
            base = self._compact.get(key)
            if base is None:
                base = self._compact[key] = self._compact_measure(topology, n)
            measure = self._measure(topology, allocation)
        else:
            key = (topology, shape)
            base = self._compact.get(key)
            if base is None:
                base = self._compact[key] = self._box_measure(topology, *shape)
            measure = self._shaped_measure(topology, allocation, *shape)
        return measure / base if base > 0 else 1.0

    def factor(self, job: Job, allocation: Any, topology: Any) -> float:
        f = job.comm
        if f == 0.0:
            return 1.0
        return (1.0 - f) + f * self.ratio(allocation, topology, job.request)


def _box_shape(topology: Any, allocation: Any, request: Any, n: int) -> tuple[int, int] | None:
    """The ``(w, h)`` rank grid a grant of ``n`` nodes is measured on, or None for a count baseline:
    a ``(w, h)`` request on a :class:`~topologies.Mesh` with ``w h == n``, turned to the grant's
    orientation when the grant is the rotated submesh."""
    if not isinstance(topology, Mesh) or not isinstance(request, tuple | list) or len(request) != 2:
        return None
    w, h = request
    if isinstance(w, bool) or isinstance(h, bool) or not isinstance(w, int | np.integer) \
            or not isinstance(h, int | np.integer) or w * h != n:
        return None
    placement = getattr(allocation, "placement", None)
    if isinstance(placement, Submesh) and (placement.width, placement.height) == (h, w):
        return int(h), int(w)
    return int(w), int(h)


class Dilation(_RatioModel):
    """Run time grows linearly with the job's average pairwise hop distance relative to its
    baseline's (the requested box for a shaped request on a mesh, the most compact placement of
    its size otherwise; module docstring):
    ``T = T0 ((1 - f) + f * mean_hops(nodes) / mean_hops(baseline))`` (see the module docstring
    for the sources and the interpretations). O(n log n) per placement, O(1) for a submesh (the
    baseline is cached per size or shape; a mesh's compact shape costs a search the first time,
    :meth:`topologies.Mesh.compact_nodes`).

    >>> from topologies import Mesh; from topoalloc import FirstFit
    >>> from scheduling import Job
    >>> mesh = Mesh(8, 8); ff = FirstFit(mesh)
    >>> square, strip = Job(0, 0.0, (2, 2), 10.0, comm=0.5), Job(1, 0.0, (4, 1), 10.0, comm=0.5)
    >>> Dilation().factor(square, ff.allocate((2, 2)), mesh), Dilation().factor(strip, ff.allocate((4, 1)), mesh)
    (1.0, 1.0)
    >>> count = Job(2, 0.0, 4, 10.0, comm=0.5)        # a count: compared with the 2 x 2 square
    >>> round(Dilation().factor(count, ff.allocate((4, 1)), mesh), 4)   # 1.667 hops against 1.333
    1.125
    """

    name = "dilation"

    def _measure(self, topology: Any, allocation: Any) -> float:
        from topoalloc.locality import allocation_mean_hops

        return allocation_mean_hops(topology, allocation)  # O(1) for a submesh or subcube

    def _compact_measure(self, topology: Any, n: int) -> float:
        from topoalloc.locality import compact_mean_hops

        return compact_mean_hops(topology, n)

    def _box_measure(self, topology: Any, width: int, height: int) -> float:
        from topoalloc.locality import submesh_mean_hops

        return submesh_mean_hops(width, height)


class HopBytes(_RatioModel):
    """Run time grows with the hops one round of the job's communication ``pattern`` travels on
    its placement, relative to its baseline's (module docstring), weighted by its communication
    fraction: ``T = T0 ((1 - f) + f * (hops(nodes) / hops(baseline)) ** exponent)``.

    ``pattern`` is ``"all-to-all"`` or ``"nearest-neighbour"``. Nearest neighbour: rank ``r`` on
    the ``r``-th smallest node id of the grant, ranks row-major on a virtual 2D grid -- the
    request's own ``w x h`` grid for a shaped request on a mesh (turned with the grant when the
    grant is the rotated submesh), so a grant of exactly the requested submesh has every
    neighbour one hop away and ratio 1; the near-square grid of
    :func:`topoalloc.locality.pattern_hops` for a count. Its baseline is one hop per neighbour
    pair of the grid (both directions), the least any placement can give. With one byte per
    message, hops are hop-bytes. ``exponent`` < 1 gives the sub-linear growth of the SST
    scheduler's fitted form. O(n log n) (all-to-all) or O(n) (nearest neighbour).

    >>> from topologies import Mesh; from topoalloc import FirstFit
    >>> mesh = Mesh(16, 16); box = FirstFit(mesh).allocate((10, 3))
    >>> HopBytes("nearest-neighbour").ratio(box, mesh, (10, 3)), HopBytes().ratio(box, mesh, (10, 3))
    (1.0, 1.0)
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

        if self.pattern == "nearest-neighbour":
            from topoalloc.locality.per_job import _neighbour_ranks

            return float(2 * len(_neighbour_ranks(n)[0]))  # one hop per neighbour pair, each way
        return pattern_hops(topology, compact_nodes(topology, n), self.pattern)

    def _box_measure(self, topology: Any, width: int, height: int) -> float:
        n = width * height
        if self.pattern == "nearest-neighbour":
            return float(2 * ((width - 1) * height + width * (height - 1)))
        from topoalloc.locality import submesh_mean_hops

        return submesh_mean_hops(width, height) * n * (n - 1)

    def _shaped_measure(self, topology: Any, allocation: Any, width: int, height: int) -> float:
        if self.pattern != "nearest-neighbour":
            return self._measure(topology, allocation)
        a = np.sort(np.asarray(allocation.nodes, dtype=np.int64))
        grid = np.arange(width * height).reshape(height, width)
        src = np.concatenate([grid[:, :-1].ravel(), grid[:-1, :].ravel()])
        dst = np.concatenate([grid[:, 1:].ravel(), grid[1:, :].ravel()])
        return float(2 * topology.distances(a[src], a[dst]).sum())

    def ratio(self, allocation: Any, topology: Any, request: Any = None) -> float:
        r = super().ratio(allocation, topology, request)
        return r if self.exponent == 1.0 else r ** self.exponent

    def __repr__(self) -> str:
        return f"HopBytes(pattern={self.pattern!r}, exponent={self.exponent})"

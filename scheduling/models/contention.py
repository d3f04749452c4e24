"""Jobs that slow each other through shared links: a flow-level contention run-time model.

Every running job that communicates (``job.comm > 0``) sends its communication *pattern* over its
nodes, routed as the topology routes (:class:`~topologies.Network`: dimension-ordered on a mesh or
torus, e-cube on a cube, up and down on a switch tree). Its traffic loads links of finite
``capacity``; where the jobs crossing a link ask more than its capacity, each gets a share of it,
and a job's communication goes at the pace of its most loaded link. The communicating part of its
run stretches by that slowdown, on top of its placement's own cost (the
:mod:`~scheduling.models.runtime` models, :class:`~scheduling.models.runtime.Dilation` by default),
and the compute part is unaffected::

    T = T0 * (A + (A - (1 - f)) * (s - 1)),     A = (1 - f) + f * ratio     (the placement alone)

so ``T = T0 ((1 - f) + f ratio s)``: the slowdown ``s >= 1`` multiplies only the communicating share
``f ratio``, and ``s = 1`` (no other job on the job's links, or ``comm = 0``) gives exactly the
placement model's run time.

**The flow-level model** (per-link proportional sharing, bottleneck per job). For a job ``j`` with
communication fraction ``f_j`` and per-link traffic ``t_jl`` (the messages of one round of its
pattern crossing link ``l``, both directions; :meth:`~topologies.Network.link_traffic` for an
all-to-all), on links of capacity ``c_l``:

* ``m_j = max_l t_jl / c_l`` is the time of one round alone: its busiest link's load (the
  *congestion* that, with the dilation, bounds the time of routing a message set: Leighton, Maggs
  & Rao, "Packet routing and job-shop scheduling in O(congestion + dilation) steps",
  Combinatorica 14(2), 1994);
* ``w_jl = (t_jl / c_l) / m_j`` in ``(0, 1]`` is how much of link ``l`` a round uses relative to its
  busiest link, and ``d_jl = f_j w_jl`` the share of link ``l``'s capacity the job uses over time
  running alone (it communicates a fraction ``f_j`` of the time, saturating its busiest links then);
* ``U_l = sum_j d_jl`` is the demand on link ``l`` of all running jobs; a link asked for more than
  its capacity (``U_l > 1``) gives each job a share proportional to its demand, so each job's
  traffic on it slows by ``U_l``;
* job ``j``'s round then takes ``max_l w_jl max(1, U_l)`` times its time alone: ``s_j``, set by its
  most loaded link relative to running alone. Alone, ``U_l = f_j w_jl <= 1`` and ``s_j = 1``.

This is the flow-level ("fluid") view of the network that grid and cloud simulators use in place
of packet-level simulation (Velho, Schnorr, Casanova & Legrand, "On the validity of flow-level TCP
network models for grid and cloud simulations", ACM TOMACS 23(4), 2013), in its bottleneck form:
a flow's rate is set by its most loaded link. We did not use the max-min fair share (Bertsekas &
Gallager, *Data Networks*, 2nd ed., §6.5), which SimGrid's models refine, because a max-min
allocation is global: a job's start can change the rates of jobs that share no link with it
(through chains of shared links), so every start would re-solve every running job's rate by
progressive filling. Here a start or an end changes ``U`` only on the job's own links, so exactly
the jobs sharing a link with it are re-rated; on a link that is every sharer's bottleneck with
equal demands the two models agree (the hand-computed cases of the tests: two jobs asking 1, 0.75
or 0.5 of one link get 1/2, 2/3 or all of what they ask under both).

**Patterns.** ``pattern="auto"`` (the default): a job whose request has a shape (``(w, h)`` on a
2D mesh, one side per dimension on a d-dimensional mesh or torus) whose product is its grant's size
exchanges with its nearest neighbours on that rank grid (ranks row-major, x fastest; turned with
the grant when the grant is the rotated submesh). On a box grant rank ``(i_0, i_1, ...)`` sits on
the box's node ``(origin_d + i_d) mod L_d``: its own grid, also when the box wraps round a torus
ring, so its messages stay on the box's links (across the wrap the shorter way, as the torus
routes). On any other grant rank ``r`` sits on the ``r``-th smallest node id, as
:class:`~scheduling.models.runtime.HopBytes` lays ranks out (the two agree on a box that does not
wrap). Every other job (a count, a subcube dimension, a tree request) does an all-to-all.
``"all-to-all"`` makes every job an all-to-all; ``"nearest-neighbour"`` every job a stencil (counts
on the near-square grid of :func:`topoalloc.locality.pattern_hops`), on a grid topology only. The all-to-all is the
topology's own ``link_traffic`` (closed form or vectorised per family, so any
:class:`~topologies.Network`, d-dimensional meshes and tori included, works with no type switch);
nearest-neighbour pairs are routed here, vectorised (:func:`pair_traffic`), on any topology with
``dims``, ``ring`` and ``coords_of`` (a mesh or torus of any dimension).

**Interpretations** (not in the sources): every running job communicates all the time in its
communicating share, with its pattern's volume per round (message sizes equal, one round's volume
over its time alone giving its demand); a job's demand is not lowered when it is slowed (solving for
that fixed point would couple all jobs); a suspended job sends nothing; a link below its capacity
slows nobody (a fluid model has no queueing below saturation, so it under-estimates the contention
of bursty traffic); both directions of a link share its capacity, as ``link_traffic`` counts them;
no adaptive routing, message latency or message-size effects.

**Cost.** A start costs the job's traffic (``link_traffic``: O(machine) vectorised; a stencil:
O(n + machine), :func:`pair_traffic`), finding the jobs on its links (a link x job bitset, O(its
links x running / 64)) and re-rating them (a dense row of ``w`` per running routed job, O(sharers x
links)); an end the same without the traffic. A stencil on a box granted in its requested shape
(first fit, best fit, any contiguous allocator) loads only the box's inner links and shares them
with no other box: while no job with a routed footprint runs it is only recorded (a dictionary
entry), and when one starts the recorded boxes mark their nodes (O(1) slice writes each). Memory:
8 bytes per link per running routed job. The simulator re-predicts the completions of only the jobs
whose factor changed (:class:`~scheduling.kernel.simulator.Simulator`, "run-time models that
re-rate"). Measured in ``benchmarks/contention.py``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._validate import ParameterError
from ..kernel.jobs import Job
from .runtime import Dilation, HopBytes, RuntimeModel

__all__ = ["Contention", "NoLinksError", "PLACEMENT_MODELS", "CONTENTION_PATTERNS", "pair_traffic",
           "stencil_pairs"]

#: The patterns :class:`Contention` knows.
CONTENTION_PATTERNS = ("auto", "all-to-all", "nearest-neighbour")
#: Names :class:`Contention` takes for its ``placement`` model.
PLACEMENT_MODELS = ("dilation", "hop-bytes", "none")
#: Slowdowns within this relative distance of 1 are 1, and factors within it of the previous one
#: unchanged: the link sums are floating point and an end subtracts what a start added.
_EPS = 1e-12


class NoLinksError(ParameterError):
    """The topology has no links (it is not a :class:`~topologies.Network`): contention between jobs
    cannot be modelled on it. The message names the topology."""


def _is_grid(topology: Any) -> bool:
    return hasattr(topology, "dims") and hasattr(topology, "ring") and hasattr(topology, "coords_of")


class _Grid:
    """The link layout of a mesh or torus, from its public ``dims`` and ``ring`` and the link order
    :meth:`topologies.Mesh.links` documents: per dimension ``d``, the links' offset, the sides of
    their position grid (``L - 1`` along ``d``, ``L`` on a ring) and its strides (x fastest)."""

    def __init__(self, topology: Any) -> None:
        self.dims = tuple(int(v) for v in topology.dims)
        self.ring = tuple(bool(v) for v in topology.ring)
        self.any_ring = any(self.ring)
        nd = len(self.dims)
        self.sides = [L if r else L - 1 for L, r in zip(self.dims, self.ring, strict=True)]
        self.lstride = np.zeros((nd, nd), dtype=np.int64)  # row d: strides of dimension d's link grid
        offsets = [0]
        for d in range(nd):
            lsides = [*self.dims]
            lsides[d] = self.sides[d]
            self.lstride[d] = np.cumprod([1, *lsides[:-1]])
            offsets.append(offsets[-1] + math.prod(lsides))
        self.offsets = offsets
        self.n_links = offsets[-1]
        self._boxes: dict[tuple[int, ...], list[np.ndarray]] = {}
        self.ends = np.asarray(topology.links(), dtype=np.int64)  # each link's two nodes
        self.lstride_list = [[int(v) for v in row] for row in self.lstride]
        self.strides = [int(v) for v in np.cumprod([1, *self.dims[:-1]])]
        self._tables: tuple[list[tuple[int, np.ndarray, np.ndarray, np.ndarray | None]], np.ndarray] | None \
            = None
        self._space = 0

    def _node_tables(self) -> tuple[list[tuple[int, np.ndarray, np.ndarray, np.ndarray | None]], np.ndarray]:
        """Per-node lookup tables for :meth:`traffic_ids`, built on first use (O(d machine + links)).

        Dimension ``d``'s marks go in a grid of ``L_d + 1`` positions along ``d`` by the other sides,
        laid out with ``d`` fastest (then the other dimensions from x), at ``base[d]`` in one index
        space: every line of it is contiguous, and every message adds +1 and -1 on one line, so a
        single cumulative sum over the whole space counts every dimension's links at once. Per
        dimension: ``(d, coordinate of each node along d, part of each node's line index from its
        coordinates below d (with the base), part from those above d)``; and ``gather``, the
        position in that space of every link (``links()`` order)."""
        if self._tables is None:
            nd = len(self.dims)
            coords = self.coords(np.arange(math.prod(self.dims), dtype=np.int64))
            per: list[tuple[int, np.ndarray, np.ndarray, np.ndarray | None]] = []
            gather = np.zeros(self.n_links, dtype=np.int64)
            base = 0
            for d in range(nd):
                if self.sides[d] <= 0:
                    continue
                others = [j for j in range(nd) if j != d]
                tstride = {d: 1}
                step = self.dims[d] + 1
                for j in others:
                    tstride[j] = step
                    step *= self.dims[j]
                below = base + sum((coords[j] * tstride[j] for j in others if j < d),
                                   np.zeros(len(coords[0]), dtype=np.int64))
                above = [coords[j] * tstride[j] for j in others if j > d]
                per.append((d, coords[d], below, sum(above[1:], above[0]) if above else None))
                lsides = [*self.dims]
                lsides[d] = self.sides[d]
                pos = np.indices(tuple(reversed(lsides))).reshape(nd, -1)[::-1]  # link position grid, x fastest
                gather[self.offsets[d]:self.offsets[d + 1]] = base + sum(pos[j] * tstride[j] for j in range(nd))
                base += step
            self._tables = per, gather
            self._space = base  # the size of the index space
        return self._tables

    def traffic_ids(self, src: np.ndarray, dst: np.ndarray, both: bool = False) -> np.ndarray:
        """Per link, the messages from the nodes ``src`` to the nodes ``dst`` that cross it, and with
        ``both`` also those back from ``dst`` to ``src`` (:func:`pair_traffic`): per dimension, the
        interval of link positions each message covers on its line (the destination's coordinates
        below the dimension, the source's above) as a +1 and a -1 mark, looked up from per-node
        tables (:meth:`_node_tables`); one count of the marks and one cumulative sum serve every
        dimension, and the links are gathered from it. Off a ring a pair's interval is the same both
        ways (only its line differs), so ``both`` computes it once. About ten vectorised operations
        per dimension on the pairs, plus O(machine)."""
        per, gather = self._node_tables()
        plus: list[np.ndarray] = []
        minus: list[np.ndarray] = []
        for d, coord, below, above in per:
            if self.ring[d] and both:  # the shorter way round: a tie goes the positive way each way
                a, b = np.concatenate([src, dst]), np.concatenate([dst, src])
            else:
                a, b = src, dst
            s, t = coord[a], coord[b]
            line = below[b] if above is None else below[b] + above[a]
            if self.ring[d]:
                L = self.dims[d]
                positive = (t - s) % L <= L // 2  # s == t: an empty interval
                lo = np.where(positive, s, t)
                hi = np.where(positive, t, s)
                wraps = lo > hi  # positions lo .. L - 1, then 0 .. hi - 1
                if wraps.any():
                    lw = line[wraps]
                    plus.append(lw)
                    minus.append(lw + L)
            else:
                lo, hi = np.minimum(s, t), np.maximum(s, t)
                if both:
                    back = below[a] if above is None else below[a] + above[b]
                    plus.append(back + lo)
                    minus.append(back + hi)
            plus.append(line + lo)
            minus.append(line + hi)
        if not plus:
            return np.zeros(self.n_links, dtype=np.int64)
        space = self._space
        marks = np.bincount(np.concatenate([*plus, *(m + space for m in minus)]), minlength=2 * space)
        return np.cumsum(marks[:space] - marks[space:])[gather]

    def box_links(self, origin: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
        """The link ids inside the box of ``shape`` at ``origin`` (not wrapping): those a stencil on
        the box's own rank grid loads, one neighbour pair (two messages) each. Per dimension, the
        ids relative to the origin are cached per shape (an outer sum of ranges), shifted by the
        origin's offset; O(links of the box)."""
        rel = self._boxes.get(shape)
        if rel is None:
            rel = []
            for d in range(len(self.dims)):
                ids = np.zeros((), dtype=np.int64)
                for j in reversed(range(len(self.dims))):  # x fastest: the last axis
                    ids = np.add.outer(ids, np.arange(shape[j] - (j == d), dtype=np.int64) * self.lstride_list[d][j])
                rel.append(ids.ravel() + self.offsets[d])
            self._boxes[shape] = rel
        return np.concatenate([r + sum(o * s for o, s in zip(origin, ls, strict=True))
                               for r, ls in zip(rel, self.lstride_list, strict=True)])

    def coords(self, ids: np.ndarray) -> list[np.ndarray]:
        """Per dimension, the coordinates of the (valid) node ids ``ids``."""
        return [(ids // st) % L for st, L in zip(self.strides, self.dims, strict=True)]


def pair_traffic(topology: Any, src: Any, dst: Any) -> np.ndarray:
    """Per link of a mesh or torus of any dimension (``topology.links()`` order), the messages of
    the ordered pairs ``src[i] -> dst[i]`` that cross it under the topology's dimension-ordered
    routing (:meth:`topologies.Mesh.route`: along x to the destination's x, then y, ...; along a
    ring the shorter way round, the positive way half way round).

    A message moves along dimension ``d`` at the destination's coordinates below ``d`` and the source's
    above it, over a (cyclic) interval of link positions of that line; the intervals are added as
    +1/-1 marks to one difference array over every dimension's lines and summed by one cumulative
    sum (:meth:`_Grid.traffic_ids`). O(d (pairs + machine)) vectorised; no pair is routed in Python. Needs
    ``dims``, ``ring`` and ``coords_of``, and the link order :meth:`topologies.Mesh.links` documents
    (dimension by dimension from x, link positions row-major, x fastest).

    >>> from topologies import Mesh
    >>> pair_traffic(Mesh(3, 2), [0, 4], [4, 0]).tolist()     # (0,0) -> (1,1): x then y; and back
    [1, 0, 1, 0, 1, 1, 0]
    """
    if not _is_grid(topology):
        raise NoLinksError(f"pair_traffic routes on a mesh or torus (dims, ring, coords_of), not {topology!r}")
    s, t = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    topology.coords_of(s), topology.coords_of(t)  # checks the ids
    if s.shape != t.shape:
        raise ValueError(f"src and dst must have one length, got {len(s)} and {len(t)}")
    return _grid(topology).traffic_ids(s, t)


_GRIDS: dict[Any, _Grid] = {}


def _grid(topology: Any) -> _Grid:
    g = _GRIDS.get(topology)
    if g is None:
        g = _GRIDS[topology] = _Grid(topology)
    return g


def stencil_pairs(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The rank pairs ``(src, dst)`` of a nearest-neighbour stencil on a grid of ``shape`` ranks
    (x first, ranks row-major with x fastest), each neighbour pair once: along x, then y, ...
    O(ranks).

    >>> [p.tolist() for p in stencil_pairs((3, 2))]
    [[0, 1, 3, 4, 0, 1, 2], [1, 2, 4, 5, 3, 4, 5]]
    """
    grid = np.arange(math.prod(shape), dtype=np.int64).reshape(tuple(reversed(shape)))
    src, dst = [], []
    nd = len(shape)
    for d in range(nd):
        head = [slice(None)] * nd
        tail = [slice(None)] * nd
        head[nd - 1 - d], tail[nd - 1 - d] = slice(0, -1), slice(1, None)
        src.append(grid[tuple(head)].ravel())
        dst.append(grid[tuple(tail)].ravel())
    return np.concatenate(src), np.concatenate(dst)


@functools.lru_cache(maxsize=4096)
def _stencil(grid: tuple[int, ...] | int) -> tuple[np.ndarray, np.ndarray]:
    """The stencil's neighbour rank pairs, each once (its messages go both ways): on a rank grid of
    sides ``grid``, or on the near-square grid of :func:`topoalloc.locality.pattern_hops` for a
    count. Read-only, cached."""
    if isinstance(grid, int):
        from topoalloc.locality.per_job import _neighbour_ranks

        src, dst = _neighbour_ranks(grid)
    else:
        src, dst = stencil_pairs(grid)
    out = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    for x in out:
        x.flags.writeable = False
    return out


def _box_of(placement: Any, dims: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(origin, shape)`` of a box placement that does not wrap (:func:`_box_extent`), else ``None``."""
    box = _box_extent(placement)
    if box is None or len(box[0]) != len(dims):
        return None
    for o, s, L in zip(box[0], box[1], dims, strict=True):
        if o + s > L:
            return None
    return box


def _box_extent(placement: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(origin, shape)`` of a box placement, wrapping or not (a 2D :class:`~topologies.Submesh`,
    or anything with ``origin`` and ``shape`` such as :class:`~topologies.Box`), else ``None``."""
    if getattr(placement, "x", None) is not None:  # a Submesh
        return (int(placement.x), int(placement.y)), (int(placement.width), int(placement.height))
    o, s = getattr(placement, "origin", None), getattr(placement, "shape", None)
    if o is None or s is None:
        return None
    return tuple(int(v) for v in o), tuple(int(v) for v in s)


def _rank_nodes(geom: _Grid, allocation: Any, shape: tuple[int, ...], n: int) -> np.ndarray | None:
    """The node of each rank of a stencil on the rank grid ``shape`` when the grant is a box of that
    shape: rank ``(i_0, i_1, ...)`` (row-major, x fastest) on the box's node with coordinates
    ``(origin_d + i_d) mod L_d``, so a box that wraps round a ring keeps its ranks on its own grid
    (its neighbours one link apart across the wrap, routed the shorter way as the torus routes).
    ``None`` when the grant is not such a box (the ranks then go on the sorted node ids). On a box
    that does not wrap this is the sorted-id layout. O(n)."""
    box = _box_extent(getattr(allocation, "placement", None))
    if box is None or box[1] != shape or len(shape) != len(geom.dims) or math.prod(shape) != n:
        return None
    ids = np.zeros((), dtype=np.int64)
    for o, s, L, st in reversed(list(zip(box[0], shape, geom.dims, geom.strides, strict=True))):
        ids = np.add.outer(ids, (np.arange(o, o + s, dtype=np.int64) % L) * st)  # x fastest: the last axis
    return ids.ravel()


def _rank_grid(topology: Any, allocation: Any, request: Any, n: int) -> tuple[int, ...] | None:
    """The rank grid of a shaped request granted ``n`` nodes on a grid topology: the request's
    sides, turned to the grant's when the grant is the rotated box; ``None`` for anything else."""
    if not isinstance(request, tuple | list) or len(request) != len(getattr(topology, "dims", ())):
        return None
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) and v > 0 for v in request):
        return None
    shape = tuple(int(v) for v in request)
    if math.prod(shape) != n:
        return None
    placement: Any = getattr(allocation, "placement", None)
    box = getattr(placement, "shape", None)
    if box is None and hasattr(placement, "width") and hasattr(placement, "height"):
        box = (placement.width, placement.height)
    if isinstance(box, tuple) and len(box) == len(shape) and box != shape and sorted(box) == sorted(shape):
        return tuple(int(v) for v in box)
    return shape


class Contention(RuntimeModel):
    """Run times stretched by the other running jobs' traffic on a job's links (module docstring:
    the flow-level model, its sources and interpretations), on top of the ``placement`` model's
    own cost: ``"dilation"`` (:class:`~scheduling.models.runtime.Dilation`, the default),
    ``"hop-bytes"`` (:class:`~scheduling.models.runtime.HopBytes` with the all-to-all pattern), a
    :class:`~scheduling.models.runtime.RuntimeModel`, or ``"none"``/``None`` (placement itself costs
    nothing, only contention does). ``pattern`` is ``"auto"``, ``"all-to-all"`` or
    ``"nearest-neighbour"``.

    The simulator drives it (:attr:`interacts`): :meth:`begin` at the start of a run,
    :meth:`started` and :meth:`ended` as jobs start and end (and are resized, suspended, resumed),
    each returning the new run-time factors of the jobs it re-rated. Outside a simulation,
    :meth:`factor` is the placement's own factor (the job alone).

    Two all-to-all jobs sharing the middle link of a 4x1 mesh, each communicating all the time:
    the link carries twice what either needs, so each runs at half speed.

    >>> from topologies import Mesh
    >>> from topoalloc import Allocation
    >>> mesh = Mesh(4, 1); m = Contention(placement=None); m.begin(mesh)
    >>> a, b = Job(0, 0.0, 2, 10.0, comm=1.0), Job(1, 0.0, 2, 10.0, comm=1.0)
    >>> m.started(a, Allocation(0, 1, 2, None, np.array([0, 2])), mesh, 1.0)
    {0: 1.0}
    >>> m.started(b, Allocation(0, 2, 2, None, np.array([1, 3])), mesh, 1.0)
    {0: 2.0, 1: 2.0}
    >>> m.ended(1)
    {0: 1.0}
    """

    name = "contention"
    interacts = True

    def __init__(self, placement: RuntimeModel | str | None = "dilation", pattern: str = "auto") -> None:
        if pattern not in CONTENTION_PATTERNS:
            raise ParameterError(f"unknown contention pattern {pattern!r}; known: {', '.join(CONTENTION_PATTERNS)}")
        model: RuntimeModel | None
        if placement is None or (isinstance(placement, str) and placement.lower() == "none"):
            model = None
        elif isinstance(placement, str):
            key = placement.lower()
            if key == "dilation":
                model = Dilation()
            elif key in ("hop-bytes", "hopbytes"):
                model = HopBytes()
            else:
                raise ParameterError(f"unknown placement model {placement!r}; known: {', '.join(PLACEMENT_MODELS)}")
        elif isinstance(placement, RuntimeModel) and not placement.interacts:
            model = placement
        else:
            raise ParameterError(f"placement must be one of {', '.join(PLACEMENT_MODELS)} or a RuntimeModel that "
                                 f"does not interact, got {placement!r}")
        self.placement = model
        self.pattern = pattern
        self._topology: Any = None
        self._geom: _Grid | None = None

    # -- the placement alone -----------------------------------------------------------------
    def factor(self, job: Job, allocation: Any, topology: Any) -> float:
        """The job's factor alone on its placement: the ``placement`` model's (1 without one)."""
        return 1.0 if self.placement is None else self.placement.factor(job, allocation, topology)

    def check(self, topology: Any) -> None:
        """:class:`NoLinksError` unless ``topology`` has links (a :class:`~topologies.Network`);
        :class:`~topologies.errors.ParameterError` for ``pattern="nearest-neighbour"`` off a grid."""
        from topoalloc import locality

        if not locality.applies(topology):
            raise NoLinksError(f"the contention model needs a topology with links (a topologies.Network: Mesh, "
                               f"Torus, Hypercube, SwitchTree), not {topology!r}")
        if self.pattern == "nearest-neighbour" and not _is_grid(topology):
            raise ParameterError(f"the nearest-neighbour pattern is routed on a mesh or torus, not {topology!r}; "
                                 "use pattern='auto' or 'all-to-all'")

    # -- the run's state ---------------------------------------------------------------------
    # Every running job that loads a link has a slot. A *routed* job (any pattern on any placement)
    # keeps its w on every link in a dense row of _W (0 off its links; 8 bytes per link and routed
    # job), its bit in the link x slot bitset _mask, and its demand in the per-link sum _U. A *box*
    # job -- a stencil on a box granted in the requested shape, on a mesh or torus -- loads exactly
    # its box's inner links with w = 1 and shares them with no other box job (grants are disjoint),
    # so it only marks its nodes in _owner: a link carries a box job's demand f iff both its ends
    # belong to that job. While no routed job runs a box job is only recorded in _dormant (no slot,
    # no marks); the start of a routed job gives the recorded ones their slots and marks (_wake).

    def begin(self, topology: Any) -> None:
        """Forget every job: a new run on ``topology`` (checked, :meth:`check`)."""
        self.check(topology)
        self._topology = topology
        self._dormant: dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], float, float]] = {}
        n = int(topology.n_links)
        self._cap = np.asarray(topology.capacity, dtype=np.float64)
        self._cap_uniform = bool(len(self._cap) == 0 or (self._cap == self._cap[0]).all())
        self._U = np.zeros(n, dtype=np.float64)  # demand of the routed jobs per link
        self._geom = _grid(topology) if _is_grid(topology) else None
        self._boxes_ok = self._geom is not None and self._cap_uniform and self.pattern != "all-to-all"
        self._owner = np.full(int(topology.size), -1, dtype=np.int64) if self._boxes_ok else None
        self._slot: dict[int, int] = {}  # job id -> slot
        self._ids = np.full(0, -1, dtype=np.int64)  # slot -> job id (-1: free)
        self._W = np.zeros((0, n), dtype=np.float64)
        self._mask: list[np.ndarray] = []  # per 64 slots, per link: a bit per routed job crossing it
        self._S = np.ones(0)  # slot -> slowdown s
        self._A = np.ones(0)  # slot -> placement factor A
        self._f = np.zeros(0)  # slot -> communication fraction f
        self._isbox = np.zeros(0, dtype=bool)
        self._free: list[int] = []
        self._links: dict[int, np.ndarray] = {}  # job id -> its link ids (a box job's: when first needed)
        self._box: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}  # box job id -> (origin, shape)
        self._routed = 0  # routed jobs running
        self._grow()

    def _need_run(self) -> None:
        if self._topology is None:
            raise RuntimeError("Contention.begin(topology) must be called before jobs start")

    @property
    def link_demand(self) -> np.ndarray:
        """The demand ``U_l`` on every link now (a new array; module docstring)."""
        self._need_run()
        self._wake()
        return self._total_demand()

    def slowdown(self, job_id: int) -> float:
        """A running job's current slowdown ``s`` (1 for a job that loads no link)."""
        self._need_run()
        row = self._slot.get(job_id)
        return 1.0 if row is None else float(self._S[row])

    def traffic(self, job: Job, allocation: Any, topology: Any) -> np.ndarray | None:
        """Per link, the messages of one round of the job's pattern on its nodes (both directions;
        module docstring, "Patterns"), or ``None`` when it sends nothing (``comm = 0``, fewer than
        two nodes, an opaque grant).

        >>> from topologies import Mesh; from topoalloc import FirstFit
        >>> mesh = Mesh(3, 2); box = FirstFit(mesh).allocate((2, 2))
        >>> Contention().traffic(Job(0, 0.0, (2, 2), 1.0, comm=1.0), box, mesh).tolist()  # its 4 links, 2 each
        [2, 0, 2, 0, 2, 2, 0]
        >>> Contention().traffic(Job(0, 0.0, 4, 1.0, comm=1.0), box, mesh).tolist()       # a count: all-to-all
        [4, 0, 4, 0, 4, 4, 0]
        """
        nodes = getattr(allocation, "nodes", None)
        if job.comm == 0.0 or nodes is None or len(nodes) < 2:
            return None
        a = np.sort(np.asarray(nodes, dtype=np.int64))
        n = len(a)
        pairs = None
        shape = None
        if self.pattern != "all-to-all" and _is_grid(topology):
            shape = _rank_grid(topology, allocation, job.request, n)
            if shape is not None:
                pairs = _stencil(shape)
            elif self.pattern == "nearest-neighbour":
                pairs = _stencil(n)
        if pairs is None:
            return np.asarray(topology.link_traffic(a))
        g = _grid(topology)
        r = _rank_nodes(g, allocation, shape, n) if shape is not None else None
        if r is None:
            r = a  # rank r on the r-th smallest node
        return g.traffic_ids(r[pairs[0]], r[pairs[1]], both=True)

    def _as_box(self, job: Job, allocation: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """``(origin, shape)`` when the job is a stencil on a box granted in its requested shape
        (either way round: its ranks lie on the box's own grid, :func:`_rank_grid`) that loads only
        the box's inner links: not wrapping, and not a whole ring (whose wrap link joins two of
        its nodes but carries none of its messages)."""
        if not self._boxes_ok:
            return None
        geom = self._geom
        assert geom is not None
        box = _box_of(getattr(allocation, "placement", None), geom.dims)
        req = job.request
        if box is None or not isinstance(req, tuple) or not (req == box[1] or sorted(req) == sorted(box[1])):
            return None
        shape = box[1]
        if math.prod(shape) < 2 or (geom.any_ring and any(
                r and s == L for r, s, L in zip(geom.ring, shape, geom.dims, strict=True))):
            return None
        return box

    def _footprint(self, job: Job, allocation: Any, topology: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """The links a routed job loads and its ``w`` on every link (0 off them; module docstring),
        or ``None``."""
        t = self.traffic(job, allocation, topology)
        if t is None:
            return None
        idx = np.flatnonzero(t)
        if not len(idx):
            return None
        load = t if self._cap_uniform else t / self._cap
        return idx, load / load[idx].max()

    def started(self, job: Job, allocation: Any, topology: Any, alone: float) -> dict[int, float]:
        """Job ``job`` starts on ``allocation`` with placement factor ``alone``: its traffic joins
        the link demands. Returns the new run-time factor of ``job`` and of every running job whose
        factor changed (only jobs sharing a link with it can change). O(its links x (1 + running /
        64)) to find the jobs sharing its links and O((those + 1) x links) to re-rate them,
        vectorised; a box job (a stencil on its requested box) while no routed job runs: O(1)."""
        if self._topology is None:
            self._need_run()
        jid = job.id
        if jid in self._slot or jid in self._dormant:
            raise ValueError(f"job {jid} is already running in the contention model")
        if job.comm == 0.0:
            return {jid: alone}
        box = self._as_box(job, allocation)
        foot = None
        if box is None:
            foot = self._footprint(job, allocation, topology)
            if foot is None:
                return {jid: alone}
            if self._dormant:
                self._wake()
        elif not self._routed:  # boxes are disjoint: no other job can be on its links
            self._dormant[jid] = (box, alone, float(job.comm))
            return {jid: alone}
        row = self._take(jid, alone, float(job.comm))
        if box is not None:
            self._isbox[row] = True
            self._box[jid] = box
            self._owner_view(box)[...] = row
            idx = self._box_links(jid)
        else:
            assert foot is not None
            idx, w = foot
            self._mask[row >> 6][idx] |= np.uint64(1 << (row & 63))
            self._W[row] = w  # whole rows: contiguous, and 0 + 0.0 leaves the other links' sums as they were
            self._links[jid] = idx
            self._U += self._f[row] * w
            self._routed += 1
        others = self._on(idx, row)
        if not others:  # alone on its links: s = max w max(1, f w) = 1
            return {jid: alone}
        others.append(row)
        out = self._rerate(np.array(others))
        s, a = float(self._S[row]), float(self._A[row])
        out[jid] = a if s == 1.0 else a + (a - (1.0 - float(self._f[row]))) * (s - 1.0)
        return out

    def ended(self, job_id: int) -> dict[int, float]:
        """Job ``job_id`` stops (ends, is suspended or moves): its demand leaves its links. Returns
        the new factors of the running jobs that changed. The cost of a start."""
        if self._topology is None:
            self._need_run()
        row = self._slot.get(job_id)
        if row is None:
            self._dormant.pop(job_id, None)
            return {}
        if self._isbox[row]:
            idx = self._box_links(job_id) if self._routed else None
            self._owner_view(self._box.pop(job_id))[...] = -1
            self._links.pop(job_id, None)
            self._release(job_id, row)
            if idx is None:
                return {}
        else:
            idx = self._links.pop(job_id)
            d = self._f[row] * self._W[row]  # the demand its start added
            self._mask[row >> 6][idx] &= np.uint64(~(1 << (row & 63)) & 0xFFFFFFFFFFFFFFFF)
            self._W[row] = 0.0
            self._routed -= 1
            self._release(job_id, row)
            if self._routed:
                self._U -= d
            else:
                self._U[:] = 0.0  # no drift survives the last routed job
        others = self._on(idx, -1)
        return self._rerate(np.array(others)) if others else {}

    # -- internals -----------------------------------------------------------------------------
    def _take(self, jid: int, alone: float, f: float) -> int:
        if not self._free:
            self._grow()
        row = self._free.pop()
        self._slot[jid] = row
        self._ids[row] = jid
        self._S[row], self._A[row], self._f[row] = 1.0, alone, f
        return row

    def _release(self, jid: int, row: int) -> None:
        del self._slot[jid]
        self._ids[row] = -1
        self._S[row] = 1.0
        self._isbox[row] = False
        self._free.append(row)

    def _grow(self) -> None:
        """Twice the slots (64 at first: one word of the link x job bitset)."""
        old = len(self._ids)
        new = max(64, 2 * old)
        more = new - old
        n = len(self._U)
        self._mask += [np.zeros(n, dtype=np.uint64) for _ in range(more // 64)]
        self._ids = np.concatenate([self._ids, np.full(more, -1, dtype=np.int64)])
        self._W = np.concatenate([self._W, np.zeros((more, n))])
        self._S = np.concatenate([self._S, np.ones(more)])
        self._A = np.concatenate([self._A, np.ones(more)])
        self._f = np.concatenate([self._f, np.zeros(more)])
        self._isbox = np.concatenate([self._isbox, np.zeros(more, dtype=bool)])
        self._free.extend(range(new - 1, old - 1, -1))

    def _wake(self) -> None:
        """Give the dormant box jobs (started while no routed job ran) their slots and mark their
        nodes, in the order they started: a routed job is about to start. O(boxes) slice writes."""
        for jid, (box, alone, f) in self._dormant.items():
            row = self._take(jid, alone, f)
            self._isbox[row] = True
            self._box[jid] = box
            self._owner_view(box)[...] = row
        self._dormant.clear()

    def _owner_view(self, box: tuple[tuple[int, ...], tuple[int, ...]]) -> np.ndarray:
        """The box's nodes in :attr:`_owner`, as a view (a slice of the node grid)."""
        geom = self._geom
        assert geom is not None and self._owner is not None
        grid = self._owner.reshape(tuple(reversed(geom.dims)))
        origin, shape = box
        return grid[tuple(slice(o, o + s) for o, s in zip(reversed(origin), reversed(shape), strict=True))]

    def _box_links(self, jid: int) -> np.ndarray:
        """A box job's inner links (computed when first needed)."""
        idx = self._links.get(jid)
        if idx is None:
            idx = self._links[jid] = self._geom.box_links(*self._box[jid])  # type: ignore[union-attr]
        return idx

    def _box_demand(self, idx: np.ndarray | None = None) -> np.ndarray | None:
        """The box jobs' demand on the links ``idx`` (all links with ``None``): the ``f`` of the box
        job owning both ends of a link, else 0; ``None`` when no box job runs."""
        if not self._box:
            return None
        ends = self._geom.ends  # type: ignore[union-attr]
        u, v = (ends[:, 0], ends[:, 1]) if idx is None else (ends[idx, 0], ends[idx, 1])
        ou, ov = self._owner[u], self._owner[v]  # type: ignore[index]
        inner = (ou == ov) & (ou >= 0)
        return np.where(inner, self._f[np.where(inner, ou, 0)], 0.0)

    def _total_demand(self, copy: bool = True) -> np.ndarray:
        box = self._box_demand()
        if box is None:
            return self._U.copy() if copy else self._U
        return self._U + box

    def _on(self, idx: np.ndarray, skip: int) -> list[int]:
        """The slots of the running jobs other than ``skip`` crossing a link of ``idx``: the routed
        ones from the bitset (O(links x words)), the box ones from the owners of the links' ends."""
        out = []
        for i, m in enumerate(self._mask):
            v = int(np.bitwise_or.reduce(m.take(idx)))
            while v:
                low = v & -v
                out.append(64 * i + low.bit_length() - 1)
                v ^= low
        if self._box:
            ends = self._geom.ends  # type: ignore[union-attr]
            ou, ov = self._owner[ends[idx, 0]], self._owner[ends[idx, 1]]  # type: ignore[index]
            out.extend(int(r) for r in np.unique(ou[(ou == ov) & (ou >= 0)]))
        return [r for r in out if r != skip]

    def _rerate(self, rows: np.ndarray) -> dict[int, float]:
        """New slowdowns of the running jobs in slots ``rows``; the factors that changed.
        ``s_j = max_l w_jl max(1, U_l)``, for the routed jobs at once (O(rows x links)), for a box
        job over its inner links (``w = 1``)."""
        over = np.maximum(self._total_demand(copy=False), 1.0)
        if self._box:
            box = self._isbox[rows]
            s_new = np.empty(len(rows))
            if not box.all():
                part = self._W.take(rows[~box], axis=0)
                part *= over
                s_new[~box] = part.max(axis=1)
            for k in np.flatnonzero(box).tolist():
                s_new[k] = over[self._box_links(int(self._ids[rows[k]]))].max()
        else:
            part = self._W.take(rows, axis=0)
            part *= over
            s_new = part.max(axis=1)
        out: dict[int, float] = {}
        S, A, f, ids = self._S, self._A, self._f, self._ids
        for r, s in zip(rows.tolist(), s_new.tolist(), strict=True):
            if s < 1.0 + _EPS:
                s = 1.0
            old = S[r]
            if abs(s - old) > _EPS * old:
                S[r] = s
                a = float(A[r])
                out[int(ids[r])] = a if s == 1.0 else a + (a - (1.0 - float(f[r]))) * (s - 1.0)
        return out

    def __repr__(self) -> str:
        return f"Contention(placement={self.placement!r}, pattern={self.pattern!r})"


"""Predefined partitions on meshes and tori of any dimension, in the manner of Blue Gene and Slurm's
``topology/torus3d``: jobs get whole boxes from a few placement grids, each given by a shape, an
anchor and a spacing."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from topologies import Box, Mesh, RequestSizeError
from topologies.base import count_request

from ..base import Allocation
from ..errors import AllocatorParameterError
from .base import GridAllocator

__all__ = ["Placement", "Partitions", "axis_positions", "grids_overlap_axis"]

_box = Box._unchecked


@dataclass(frozen=True)
class Placement:
    """A placement grid: boxes of ``shape`` whose origins are ``anchor + k * spacing`` along each
    dimension (x first). ``anchor`` defaults to the origin, ``spacing`` to ``shape`` (boxes side by
    side, as in Slurm's torus3d, whose ``anchor_spacing`` defaults to the placement's dims). A
    shorter tuple is padded (shape and spacing with 1s, anchor with 0s) to the machine's
    dimensions when the grid is resolved on it (:meth:`Partitions.__init__`).

    >>> Placement((4, 4, 4)), Placement((2, 2), anchor=(1, 0))
    (Placement(shape=(4, 4, 4), anchor=None, spacing=None), Placement(shape=(2, 2), anchor=(1, 0), spacing=None))
    """

    shape: tuple[int, ...]
    anchor: tuple[int, ...] | None = None
    spacing: tuple[int, ...] | None = None


def axis_positions(L: int, ring: bool, side: int, anchor: int, spacing: int) -> list[int]:
    """The origins of a grid's boxes along one dimension of side ``L``.

    On a ring: the orbit of ``anchor`` under adding ``spacing`` modulo ``L``, in orbit order (``anchor``,
    ``anchor + spacing``, ...) until it comes back, as Slurm's torus3d lists a placement's anchors
    (``_build_axis_positions`` in ``src/plugins/topology/torus3d/torus3d_record.c``): ``L / gcd(spacing,
    L)`` positions ``gcd(spacing, L)`` apart; a box as long as the ring has one position. On a line
    (no wrap): the lattice ``anchor + k spacing`` (``k`` any integer) whose boxes lie inside,
    ascending (interpretation: a line has no orbit, and a box past the end would leave the
    machine). O(L).

    >>> axis_positions(8, True, 2, 6, 4), axis_positions(8, True, 3, 0, 3), axis_positions(8, False, 3, 4, 2)
    ([6, 2], [0, 3, 6, 1, 4, 7, 2, 5], [0, 2, 4])
    """
    if ring:
        if side == L:
            return [anchor]
        out = [anchor]
        p = (anchor + spacing) % L
        while p != anchor:
            out.append(p)
            p = (p + spacing) % L
        return out
    return list(range(anchor % spacing, L - side + 1, spacing))


def grids_overlap_axis(L: int, ring: bool, a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Whether some box of grid ``a`` overlaps some box of grid ``b`` along one dimension of side ``L``;
    ``a`` and ``b`` are ``(anchor, spacing, side)``.

    On a ring, Slurm's rule (``_grids_overlap_axis`` in ``torus3d_record.c``): by Bezout's identity
    the differences between an origin of ``b`` and one of ``a`` are ``delta + m g`` with ``g = gcd(s_a,
    s_b, L)``; the boxes meet iff the least ``r = (anchor_b - anchor_a) mod g`` is below ``a``'s side or
    ``g - r`` below ``b``'s. On a line, by comparing the origins (O(L^2) at most). Two grids overlap iff
    they overlap along every dimension (their origins are products over the dimensions).

    >>> grids_overlap_axis(8, True, (0, 4, 2), (2, 4, 2)), grids_overlap_axis(8, True, (0, 4, 2), (1, 4, 2))
    (False, True)
    """
    (aa, sa, da), (ab, sb, db) = a, b
    if ring:
        g = math.gcd(math.gcd(sa, sb), L)
        r = (ab - aa) % g
        return r < da or (g - r) % g < db
    pa = axis_positions(L, False, da, aa, sa)
    pb = axis_positions(L, False, db, ab, sb)
    return any(x < y + db and y < x + da for x in pa for y in pb)


@dataclass(frozen=True)
class _Grid:
    """A placement resolved on a machine: its full shape, anchor and spacing, its boxes' origins
    (Slurm's order: x outermost), and their node ids, one row per box."""

    shape: tuple[int, ...]
    anchor: tuple[int, ...]
    spacing: tuple[int, ...]
    origins: tuple[tuple[int, ...], ...]
    members: np.ndarray
    size: int


def _tuple(value: Any, what: str, nd: int, fill: int) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise AllocatorParameterError(f"a placement's {what} must be a tuple of integers, got {value!r}")
    if len(value) > nd or len(value) == 0:
        raise AllocatorParameterError(f"a placement's {what} {tuple(value)!r} has {len(value)} entries; the "
                                      f"machine has {nd} dimensions")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise AllocatorParameterError(f"a placement's {what} must be a tuple of integers, got {value!r}")
        out.append(int(v))
    return tuple(out) + (fill,) * (nd - len(out))


def _overlap_table(small: np.ndarray, big: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(indptr, indices)``: for each row of ``small`` (node-id rows of boxes), the rows of ``big``
    sharing a node with it, ascending. A join on the node ids (each small box's nodes against the big
    boxes holding that node, grouped by node), then the distinct (small, big) pairs.
    O(pairs log pairs), once per pair of grids."""
    n_big = len(big)
    nodes_b = big.ravel()
    order = np.argsort(nodes_b, kind="stable")
    box_of = (np.arange(nodes_b.size) // big.shape[1])[order]
    counts = np.bincount(nodes_b, minlength=size)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    cn = small.ravel()
    ci = np.arange(cn.size) // small.shape[1]
    reps = counts[cn]
    total = int(reps.sum())
    first = np.repeat(starts[cn] - (np.cumsum(reps) - reps), reps) + np.arange(total)
    pairs = np.unique(np.repeat(ci, reps) * n_big + box_of[first])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(pairs // n_big, minlength=len(small)))])
    return indptr, pairs % n_big


def _halvings(dims: tuple[int, ...]) -> list[Placement]:
    """The default grids: the whole machine and its successive halvings (the longest side, the lowest
    dimension on a tie, divided by its smallest prime factor) down to one node, each tiling."""
    out, cur = [Placement(dims)], list(dims)
    while max(cur) > 1:
        i = cur.index(max(cur))
        p = next(q for q in range(2, cur[i] + 1) if cur[i] % q == 0)
        cur[i] //= p
        out.append(Placement(tuple(cur)))
    return out


class Partitions(GridAllocator):
    """Predefined partitions: every job gets one whole box of a fixed placement grid, as Blue Gene gave
    each job a partition (a block of midplanes or a sub-block) and Slurm 26.05's
    ``topology/torus3d`` gives it one of the configured placements.

    **Source.** Slurm's ``src/plugins/topology/torus3d/``, read for its rules (not copied):
    ``torus3d_record.c`` defines a placement by ``dims`` (the box), ``anchor_seed`` and
    ``anchor_spacing`` (defaulting to the dims), lists its anchors along each axis as the orbit of
    the seed under the spacing modulo the torus side (:func:`axis_positions`), lets boxes wrap, and
    flags overlapping grids: a grid overlaps itself when ``gcd(spacing, L) < dims`` along some axis,
    two grids of one size overlap when they do along every axis (:func:`grids_overlap_axis`).
    ``eval_nodes_torus3d.c`` chooses: only placements whose size is the job's are candidates;
    among them, in placement order (sorted by size), the first placement with a wholly free box
    wins, and within it the free box with the least *fragmentation cost* -- the number of boxes of
    the next larger placement that overlap it and are wholly free (the larger partitions it would
    break) -- ties to the first box in anchor order (x outermost, then y, then z, each axis in
    orbit order).

    **Interpretations.** (1) Any dimension, any mesh: on a dimension that does not wrap (or whose
    wrap adds no link) the origins are the lattice points ``anchor + k spacing`` whose box lies
    inside (:func:`axis_positions`), and the overlap rule is checked by comparing origins. (2) Slurm
    refuses a job whose node count is no placement's size; here a request is rounded up, as Blue
    Gene rounded a job up to a partition: a count ``n`` goes to the placements of the least size
    ``>= n``, a shape (``permute=True``: in any order of its axes) to those of the least size whose
    shape holds it, and the grant is that placement's shape. (3) ``tile=True`` (the default) asks
    every grid to tile the machine -- along each dimension ``spacing == side``, ``side`` dividing
    ``L``, and on a line an anchor that is a multiple of the side -- so that its partitions are
    disjoint and cover every node, as Blue Gene's do; ``tile=False`` accepts Slurm's overlapping
    and partial grids (the overlaps are reported by :attr:`overlaps`, as Slurm flags them). (4)
    Without ``placements``, the grids are the machine and its successive halvings (the longest
    side, the lowest dimension on a tie, divided by its smallest prime factor, down to one node):
    on an 8 x 8 x 8 torus the power-of-two partitions of 512, 256, ..., 1 nodes, Blue Gene's sizes.

    ``placements`` is a sequence of :class:`Placement`, of shapes (anchor 0, spacing the shape), or
    of mappings with keys ``shape``, ``anchor``, ``spacing``. Bad grids raise
    :class:`~topoalloc.errors.AllocatorParameterError` naming the placement: a zero or negative
    side, a shape larger than the machine, more entries than dimensions, an anchor outside the
    machine, a spacing below 1 or above the side ``L`` (Slurm's bounds), a grid with no box inside
    the machine, and with ``tile=True`` a grid that does not tile.

    Complexity: per allocation O(boxes x box size) of the candidate grids and of the next larger
    one (a vectorised gather of the busy array over each grid's node-id table: one machine's
    worth for a tiling grid) and O(overlapping pairs) for the fragmentation costs (each grid's
    overlaps with the next larger one are a table built once, on first use), O(box) to mark;
    memory O(grids x machine) for the tables of tiling grids.

    >>> from topologies import Torus
    >>> p = Partitions(Torus(8, 8, 8), [(8, 8, 8), (4, 4, 4), (2, 2, 2)])
    >>> a = p.allocate(20); a.request, a.placement      # 20 nodes: a 4 x 4 x 4 partition
    ((4, 4, 4), Box(origin=(0, 0, 0), shape=(4, 4, 4)))
    >>> p.allocate((2, 2, 1)).placement                 # a 2 x 2 x 2 partition breaking no free 4 x 4 x 4 one
    Box(origin=(0, 0, 4), shape=(2, 2, 2))
    >>> p.request_size(9), p.fold((4, 4, 4)), p.fold((2, 2, 2))
    (64, (2, 2, 2), None)
    """

    recognition = "partition"
    #: Counts are requests too (rounded up to a partition).
    accepts_counts = True

    def __init__(self, topology: Mesh, placements: Sequence[Any] | None = None, *, permute: bool = False,
                 tile: bool = True, rotate: bool | None = None) -> None:
        super().__init__(topology, permute, rotate=rotate)
        if not isinstance(tile, bool):
            raise AllocatorParameterError(f"Partitions tile must be true or false, got {tile!r}")
        self.tile = tile
        specs = _halvings(self.dims) if placements is None else placements
        if isinstance(specs, str | bytes | Mapping | Placement) or not isinstance(specs, Sequence) or not specs:
            raise AllocatorParameterError(f"Partitions placements must be a non-empty sequence of placements, "
                                          f"got {placements!r}")
        grids = [self._resolve(p) for p in specs]
        order = sorted(range(len(grids)), key=lambda i: grids[i].size)  # stable: the given order within a size
        self.grids: tuple[_Grid, ...] = tuple(grids[i] for i in order)
        self._sizes = np.array([g.size for g in self.grids])
        #: The largest request a grid holds (processors).
        self.capacity: int = int(self._sizes.max())
        self._cands: dict[tuple[int, ...] | int, tuple[int, ...]] = {}
        # the next larger grid of each (the first later one of a larger size: Slurm's next_placement)
        self._next = tuple(next((j for j in range(i + 1, len(self.grids)) if self.grids[j].size > g.size), None)
                           for i, g in enumerate(self.grids))
        self._tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # grid -> overlaps with its next grid

    def _resolve(self, spec: Any) -> _Grid:
        nd, dims, ring = self.ndim, self.dims, self.ring
        if isinstance(spec, Placement):
            shape, anchor, spacing = spec.shape, spec.anchor, spec.spacing
        elif isinstance(spec, Mapping):
            unknown = set(spec) - {"shape", "anchor", "spacing"}
            if unknown or "shape" not in spec:
                raise AllocatorParameterError(f"a placement mapping has keys shape, anchor, spacing (shape "
                                              f"required), got {dict(spec)!r}")
            shape, anchor, spacing = spec["shape"], spec.get("anchor"), spec.get("spacing")
        else:
            shape, anchor, spacing = spec, None, None
        shape = _tuple(shape, "shape", nd, 1)
        anchor = _tuple(anchor, "anchor", nd, 0) if anchor is not None else (0,) * nd
        spacing = _tuple(spacing, "spacing", nd, 1) if spacing is not None else shape
        what = f"placement shape={shape}, anchor={anchor}, spacing={spacing} on {self.topology!r}"
        for i, (s, a, g, L) in enumerate(zip(shape, anchor, spacing, dims, strict=True)):
            if s < 1 or s > L:
                raise AllocatorParameterError(f"{what}: side {s} along dimension {i} must be in 1..{L}")
            if not 0 <= a < L:
                raise AllocatorParameterError(f"{what}: anchor {a} along dimension {i} is outside 0..{L - 1}")
            if not 1 <= g <= L:
                raise AllocatorParameterError(f"{what}: spacing {g} along dimension {i} must be in 1..{L}")
            if self.tile and (g != s or L % s or (not ring[i] and a % s)):
                raise AllocatorParameterError(
                    f"{what} does not tile the machine along dimension {i}: tiling needs spacing == side, a side "
                    f"dividing {L}" + ("" if ring[i] else ", and an anchor that is a multiple of the side")
                    + " (tile=False accepts overlapping and partial grids)")
        axes = [axis_positions(L, r, s, a, g) for L, r, s, a, g in zip(dims, ring, shape, anchor, spacing, strict=True)]
        for i, pos in enumerate(axes):
            if not pos:
                raise AllocatorParameterError(f"{what}: no box of the grid lies inside the machine along dimension {i}")
        mesh = np.indices([len(p) for p in axes]).reshape(nd, -1).T  # x outermost, as Slurm loops
        origins = tuple(tuple(axes[i][k] for i, k in enumerate(row)) for row in mesh.tolist())
        members = np.stack([Box(o, shape).node_ids(dims) for o in origins])
        members.flags.writeable = False
        return _Grid(shape, anchor, spacing, origins, members, math.prod(shape))

    # -- overlaps, as Slurm flags them ------------------------------------------------------------
    @property
    def overlaps(self) -> list[tuple[int, int]]:
        """Pairs ``(i, j)``, ``i <= j``, of grids (indices into :attr:`grids`, sorted by size) of one size
        whose boxes overlap: ``(i, i)`` when grid ``i``'s own boxes overlap (some dimension has
        ``gcd(spacing, L) < side`` on a ring, or origins closer than the side on a line), ``(i, j)``
        when two grids of one size overlap along every dimension (:func:`grids_overlap_axis`).
        Slurm's ``_detect_placement_overlaps`` flags the same pairs. O(grids^2 d)."""
        out = []
        dims, ring = self.dims, self.ring
        for i, g in enumerate(self.grids):
            self_overlap = any(
                (math.gcd(sp, L) < s and len(pos) > 1) if r else any(b - a < s for a, b in itertools.pairwise(pos))
                for s, sp, L, r, pos in zip(g.shape, g.spacing, dims, ring,
                                            [axis_positions(L, r, s, a, sp) for L, r, s, a, sp in
                                             zip(dims, ring, g.shape, g.anchor, g.spacing, strict=True)], strict=True))
            if self_overlap:
                out.append((i, i))
            for j in range(i + 1, len(self.grids)):
                h = self.grids[j]
                if h.size != g.size:
                    continue
                if all(grids_overlap_axis(L, r, (g.anchor[k], g.spacing[k], g.shape[k]),
                                          (h.anchor[k], h.spacing[k], h.shape[k]))
                       for k, (L, r) in enumerate(zip(dims, ring, strict=True))):
                    out.append((i, j))
        return out

    # -- requests -----------------------------------------------------------------------------
    def _holds(self, grid: _Grid, request: tuple[int, ...] | int) -> bool:
        if isinstance(request, int):
            return grid.size >= request
        if all(a >= b for a, b in zip(grid.shape, request, strict=True)):
            return True
        return self.rotate and all(a >= b for a, b in zip(sorted(grid.shape), sorted(request), strict=True))

    def candidates(self, request: Any) -> tuple[int, ...]:
        """Indices (into :attr:`grids`) of the grids a request may take: those of the least size that
        hold it, in placement order. Cached per request."""
        return self._candidates(self.validate(request))

    def _candidates(self, request: tuple[int, ...] | int) -> tuple[int, ...]:
        """:meth:`candidates` of a validated request."""
        got = self._cands.get(request)
        if got is None:
            holding = [i for i, g in enumerate(self.grids) if self._holds(g, request)]
            least = min(self.grids[i].size for i in holding)
            got = self._cands[request] = tuple(i for i in holding if self.grids[i].size == least)
        return got

    def validate(self, request: Any) -> tuple[int, ...] | int:  # type: ignore[override]  # a count is valid, too
        """A count (``1 .. capacity``) or a shape some grid holds (in some order with ``permute``), or a
        :class:`~topologies.RequestError` naming it."""
        if isinstance(request, int | np.integer) and not isinstance(request, bool):
            n = int(request)
            if 0 < n <= self.capacity:
                return n
            return count_request(n, self.capacity, f"the largest partition of {self.topology!r}")
        shape = super().validate(request)
        if shape in self._cands:  # known to be held by some grid
            return shape
        if not any(self._holds(g, shape) for g in self.grids):
            raise RequestSizeError(f"request {shape!r} fits no partition of {self.topology!r} "
                                   f"(shapes {', '.join(str(g.shape) for g in self.grids)})"
                                   + (" in any order of its sides" if self.rotate else ""))
        return shape

    def request_size(self, request: Any) -> int:
        """Processors granted: the size of the least partition that holds ``request``."""
        return self.grids[self.candidates(request)[0]].size

    def fold(self, request: Any) -> tuple[int, ...] | None:
        """The shape of the first grid of the next smaller partition size, or ``None``."""
        size = self.request_size(request)
        smaller = [g for g in self.grids if g.size < size]
        if not smaller:
            return None
        top = smaller[-1].size
        return next(g.shape for g in smaller if g.size == top)

    def covers(self, failed: Any, request: Any) -> bool:
        """``request`` takes only grids ``failed`` takes (:meth:`candidates`), so it finds no free
        partition where ``failed`` found none."""
        return set(self.candidates(request)) <= set(self.candidates(failed))

    # -- placing ------------------------------------------------------------------------------
    def _choose(self, request: Any, free: np.ndarray) -> tuple[int, int] | None:
        """``(grid, box)`` indices of the partition Slurm's rule picks on the free mask ``free`` (flat),
        or ``None``."""
        for gi in self._candidates(request):
            grid = self.grids[gi]
            ok = free[grid.members].all(axis=1)
            if not ok.any():
                continue
            nxt = self._next[gi]
            if nxt is None or int(np.count_nonzero(ok)) == 1:
                return gi, int(np.argmax(ok))
            big = self.grids[nxt]
            big_ok = free[big.members].all(axis=1)
            if not big_ok.any():
                return gi, int(np.argmax(ok))
            table = self._tables.get(gi)
            if table is None:
                table = self._tables[gi] = _overlap_table(grid.members, big.members, free.size)
            indptr, indices = table
            hits = np.concatenate([[0], np.cumsum(big_ok[indices])])
            cost = hits[indptr[1:]] - hits[indptr[:-1]]  # free larger boxes each box would break
            return gi, int(np.argmin(np.where(ok, cost, np.iinfo(np.int64).max)))
        return None

    def _place(self, request: Any) -> Any:
        got = self._choose(request, ~self.busy.ravel())
        if got is None:
            return None
        grid = self.grids[got[0]]
        origin = grid.origins[got[1]]
        self._mark(origin, grid.shape, True)
        nodes = np.sort(grid.members[got[1]])
        return grid.shape, _box(origin, grid.shape), nodes, grid.size

    def _unplace(self, allocation: Allocation) -> int:
        p = allocation.placement
        self._mark(p.origin, p.shape, False)
        return allocation.size

    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """The partition the rule picks with exactly the nodes of ``free`` free (the same choice
        ``allocate`` would make there), or ``None``. O(allocation)."""
        got = self._choose(self.validate(request), np.asarray(free, dtype=bool).ravel())
        return None if got is None else np.sort(self.grids[got[0]].members[got[1]])

    def clone(self) -> Partitions:
        """A copy of the busy array and the live grants (the grids are shared: immutable). O(size)."""
        if type(self) is not Partitions:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        return twin

    def __repr__(self) -> str:
        turn = ", permute=True" if self.rotate else ""
        return f"Partitions({self.topology!r}, {len(self.grids)} grids{turn})"

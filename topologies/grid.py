"""Geometry of d-dimensional meshes and tori: the :class:`Box` region value and the closed forms and
vectorised scans :class:`~topologies.Mesh` uses in any dimension and with wrap-around.

Node ids are row-major with x fastest: node ``(c_0, c_1, ..., c_{d-1})`` of a machine with sides
``dims`` has id ``c_0 + dims[0] * (c_1 + dims[1] * (c_2 + ...))`` (the 2D ``y * width + x``). A numpy
array over the nodes is laid out with the *last* dimension first, ``shape = dims[::-1]`` (the 2D
``(height, width)``), so that its C-order ravel is the id order.

A dimension that wraps is a *ring* when it has at least three nodes: a wrapped dimension of one or
two nodes has no link a plain line lacks (two nodes are one hop apart either way; the wrap link of
a ring of two would be a second, parallel link between the same nodes), so it is treated as a line
for links, routes and boxes.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Box", "strides", "ceil_root"]


@dataclass(frozen=True, slots=True)
class Box:
    """The box (cuboid) of a d-dimensional mesh or torus with ``shape`` sides whose lowest corner is
    ``origin`` (both tuples, x first). On a torus a box may wrap: its cells along dimension ``i`` are
    ``origin[i], origin[i] + 1, ...`` modulo the machine's side; :meth:`node_ids` takes the machine's
    sides for that reason (as :meth:`Submesh.node_ids <topologies.Submesh.node_ids>` takes the
    mesh width).

    >>> b = Box((6, 0, 1), (3, 2, 1))           # wraps around x on an 8 x 4 x 2 torus
    >>> b.size, b.ndim, b.node_ids((8, 4, 2)).tolist()
    (6, 3, [32, 38, 39, 40, 46, 47])
    """

    origin: tuple[int, ...]
    shape: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.origin) != len(self.shape):
            raise ValueError(f"a Box's origin {self.origin!r} and shape {self.shape!r} must have one length")
        if any(s < 1 for s in self.shape) or any(o < 0 for o in self.origin):
            raise ValueError(f"a Box needs sides >= 1 and coordinates >= 0, got origin {self.origin!r}, "
                             f"shape {self.shape!r}")

    @classmethod
    def _unchecked(cls, origin: tuple[int, ...], shape: tuple[int, ...]) -> Box:
        """Build through the slot descriptors (allocators' hot paths)."""
        obj = object.__new__(cls)
        _set_origin(obj, origin)
        _set_shape(obj, shape)
        return obj

    @property
    def size(self) -> int:
        """Number of nodes, the product of the sides."""
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def node_ids(self, dims: Sequence[int]) -> np.ndarray:
        """Ids of every node of the box on a machine with sides ``dims`` (coordinates taken modulo
        the sides, so a wrapping box lists the nodes it wraps to), ascending. O(size log size).

        >>> Box((1, 2), (3, 2)).node_ids((8, 8)).tolist()     # the Submesh(1, 2, 3, 2) of an 8 x 8 mesh
        [17, 18, 19, 25, 26, 27]
        """
        ids = np.zeros(1, dtype=np.int64)
        stride = math.prod(dims)
        for d in range(len(dims) - 1, -1, -1):
            stride //= dims[d]
            pos = (np.arange(self.origin[d], self.origin[d] + self.shape[d], dtype=np.int64) % dims[d]) * stride
            ids = (ids[:, None] + pos[None, :]).ravel()
        ids.sort()
        return ids

    def overlaps(self, other: Box, dims: Sequence[int]) -> bool:
        """Whether the two boxes share a node on a machine with sides ``dims`` (cyclically: two boxes
        overlap iff they overlap along every dimension, and along a dimension of side ``L`` the
        intervals ``[a, a + s)`` and ``[b, b + t)`` meet iff ``(b - a) mod L < s`` or
        ``(a - b) mod L < t``). O(d).

        >>> Box((6,), (3,)).overlaps(Box((0,), (2,)), (8,)), Box((6,), (2,)).overlaps(Box((0,), (2,)), (8,))
        (True, False)
        """
        return all((b - a) % L < s or (a - b) % L < t
                   for a, s, b, t, L in zip(self.origin, self.shape, other.origin, other.shape, dims, strict=True))


# The slot descriptors' setters (see Box._unchecked), read from the class dictionary because mypy
# types ``Box.origin`` as the field's tuple, not as its descriptor.
_set_origin: Callable[[Box, tuple[int, ...]], None] = Box.__dict__["origin"].__set__
_set_shape: Callable[[Box, tuple[int, ...]], None] = Box.__dict__["shape"].__set__


def strides(dims: Sequence[int]) -> tuple[int, ...]:
    """The id stride of each dimension: ``(1, dims[0], dims[0] * dims[1], ...)``."""
    out, s = [], 1
    for L in dims:
        out.append(s)
        s *= L
    return tuple(out)


def ceil_root(n: int, k: int) -> int:
    """The least integer ``r >= 1`` with ``r ** k >= n`` (exact integer arithmetic).

    >>> ceil_root(27, 3), ceil_root(28, 3), ceil_root(1, 5)
    (3, 4, 1)
    """
    if n <= 1:
        return 1
    r: int = max(1, round(n ** (1.0 / k)))  # int ** float is typed Any (negative bases give complex)
    while r ** k < n:
        r += 1
    while r > 1 and (r - 1) ** k >= n:
        r -= 1
    return r


def request_for_nd(n: int, dims: tuple[int, ...]) -> tuple[int, ...]:
    """The near-cube shape of ``n <= prod(dims)`` processors on a machine of sides ``dims``: side
    ``i`` is the ceiling of the ``k``-th root of the processors still to place (``k`` the dimensions
    left), taken dimension by dimension from x; a side larger than the machine's is fixed at the
    machine's side and the others recomputed, until every side fits (at most ``d`` rounds). So
    the sides are non-increasing from x wherever the machine allows it, the product is at least
    ``n``, and in 2D it is :meth:`Mesh.request_for <topologies.Mesh.request_for>`'s rule.

    >>> request_for_nd(100, (8, 8, 8)), request_for_nd(100, (2, 8, 8))
    ((5, 5, 4), (2, 8, 7))
    """
    d = len(dims)
    fixed: dict[int, int] = {}
    while True:
        free = [i for i in range(d) if i not in fixed]
        rem = -(-n // math.prod(fixed.values())) if fixed else n
        sides = dict(fixed)
        over = []
        for j, i in enumerate(free):
            s = ceil_root(rem, len(free) - j)
            sides[i] = s
            rem = -(-rem // s)
            if s > dims[i]:
                over.append(i)
        if not over:
            return tuple(sides[i] for i in range(d))
        for i in over:
            fixed[i] = dims[i]


# -- pair sums along one axis ----------------------------------------------------------------------
def axis_pair_sum(v: np.ndarray, L: int, ring: bool) -> float:
    """``sum_{i<j} dist(v_i, v_j)`` of the coordinates ``v`` (in ``0 .. L-1``) along one axis: ``|a - b|``
    on a line, ``min(|a - b|, L - |a - b|)`` on a ring.

    Line: over the sorted values, ``sum_i v_(i) (2i - n + 1)``. Ring: that, less ``2 |a - b| - L`` for
    every pair more than ``L / 2`` apart (those go the other way round), found for each value by
    a binary search in the sorted values and suffix sums: O(n log n). When the values are many
    next to ``L``, the same sums come from the count of each value instead, O(n + L).

    >>> axis_pair_sum(np.array([0, 1, 7]), 8, False), axis_pair_sum(np.array([0, 1, 7]), 8, True)
    (14.0, 4.0)
    """
    n = len(v)
    if n < 2:
        return 0.0
    if n * 4 > L:
        return _count_pair_sum(np.bincount(v, minlength=L).astype(np.float64), L, ring)
    s = np.sort(v).astype(np.float64)
    total = float(s @ (2.0 * np.arange(n) - (n - 1)))
    if ring:
        k = np.searchsorted(s, s + (L // 2 + 1), side="left")  # first value more than L/2 above
        suffix = np.concatenate([np.cumsum(s[::-1])[::-1], [0.0]])
        cnt = n - k
        total -= float(np.sum(2.0 * (suffix[k] - s * cnt) - L * cnt))
    return total


def _count_pair_sum(c: np.ndarray, L: int, ring: bool) -> float:
    """:func:`axis_pair_sum` from the counts ``c[p]`` of each position ``p``. O(L)."""
    p = np.arange(L, dtype=np.float64)
    below = np.cumsum(c) - c
    below_sum = np.cumsum(c * p) - c * p
    total = float(c @ (p * below - below_sum))
    if ring:
        h = L // 2
        cnt_suffix = np.concatenate([np.cumsum(c[::-1])[::-1], [0.0]])  # sum_{j >= i} c_j
        sum_suffix = np.concatenate([np.cumsum((c * p)[::-1])[::-1], [0.0]])
        k = np.minimum(np.arange(L) + h + 1, L)
        cnt, far = cnt_suffix[k], sum_suffix[k]
        total -= float(c @ (2.0 * (far - p * cnt) - L * cnt))
    return total


def axis_distance_sums(counts: np.ndarray, L: int, ring: bool) -> np.ndarray:
    """For every position ``z`` in ``0 .. len(counts) - 1`` of an axis of side ``L`` (``len(counts) <= L``),
    ``sum_s counts[s] dist(z, s)`` with the line or ring distance. O(L) from prefix sums (on a ring,
    over the positions ``z - ceil(L/2) + 1 .. z + floor(L/2)`` of the axis repeated three times)."""
    w = len(counts)
    c = np.zeros(L, dtype=np.int64)
    c[:w] = counts
    pos = np.arange(L, dtype=np.int64)
    if not ring:
        n, at_or_below = int(c.sum()), np.cumsum(c)
        sum_below = np.cumsum(c * pos)
        out: np.ndarray = pos * at_or_below - sum_below + (int(sum_below[-1]) - sum_below) - pos * (n - at_or_below)
        return out[:w]
    ext = np.tile(c, 3)
    epos = np.arange(-L, 2 * L, dtype=np.int64)
    c0 = np.concatenate([[0], np.cumsum(ext)])
    c1 = np.concatenate([[0], np.cumsum(ext * epos)])
    h = L // 2
    z = pos + L  # index of position z in the extended axis
    lo, hi = z - (L - 1 - h), z + h  # the window of L positions, each ring position once
    left = pos * (c0[z] - c0[lo]) - (c1[z] - c1[lo])
    right = (c1[hi + 1] - c1[z + 1]) - pos * (c0[hi + 1] - c0[z + 1])
    total: np.ndarray = left + right
    return total[:w]


# -- all-to-all link traffic -------------------------------------------------------------------------
def _forward_traffic(S: np.ndarray, D: np.ndarray, h: int, axis: int, L: int) -> np.ndarray:
    """Per link position ``c`` of a ring of ``L`` (link ``c`` joins ``c`` and ``c + 1``), the messages from
    sources weighted ``S[s]`` to destinations weighted ``D[t]`` (``S``, ``D`` broadcastable, the ring
    along ``axis``) that go the positive way, ``1 <= (t - s) mod L <= h``, and cross it: those with
    ``c - h < s <= c`` and ``c < t <= s + h``. Prefix sums over the axis repeated three times,
    ``sum_s S[s] (P(s + h) - P(c))`` with ``P`` the prefix sum of ``D``. O(size)."""
    Dx = np.concatenate([D, D, D], axis=axis)
    shape = list(Dx.shape)
    shape[axis] = 1
    PD = np.concatenate([np.zeros(shape, dtype=np.int64), np.cumsum(Dx, axis=axis)], axis=axis)  # PD[e] = sum_{<e}
    Sx = np.concatenate([S, S, S], axis=axis)
    ext = np.arange(3 * L)
    # q(e) = S_ext[e] * (sum of D_ext over e + 1 .. e + h) for e < 3L - h; the rest is never read
    idx_hi = np.minimum(ext + h + 1, 3 * L)
    Q = Sx * np.take(PD, idx_hi, axis=axis)
    CQ = np.concatenate([np.zeros(np.broadcast_shapes(shape, Q.shape[:axis] + (1,) + Q.shape[axis + 1:]),
                                  dtype=np.int64), np.cumsum(Q, axis=axis)], axis=axis)
    shape_s = list(Sx.shape)
    shape_s[axis] = 1
    CS = np.concatenate([np.zeros(shape_s, dtype=np.int64), np.cumsum(Sx, axis=axis)], axis=axis)
    c = np.arange(L) + L  # extended index of link position c
    # sum over s in (c - h, c]: window [c - h + 1, c] of the extended index
    win_q = np.take(CQ, c + 1, axis=axis) - np.take(CQ, c - h + 1, axis=axis)
    win_s = np.take(CS, c + 1, axis=axis) - np.take(CS, c - h + 1, axis=axis)
    crossing: np.ndarray = win_q - np.take(PD, c + 1, axis=axis) * win_s
    return crossing


def link_traffic_nd(grid: np.ndarray, dims: tuple[int, ...], ring: tuple[bool, ...]) -> list[np.ndarray]:
    """Per dimension ``d``, the all-to-all traffic on its links (an array over the link positions,
    laid out like the node grid with ``d``'s axis of length ``L - 1``, or ``L`` on a ring) of the node
    counts ``grid`` (``shape = dims[::-1]``) under dimension-ordered routing.

    A message from ``s`` to ``t`` moves along dimension ``d`` after the dimensions below ``d`` have
    reached ``t``'s coordinates and before those above have left ``s``'s, so a link of dimension
    ``d`` at coordinates ``c`` carries the messages whose source has ``c``'s coordinates above ``d``
    (any below) and whose destination has ``c``'s coordinates below ``d`` (any above), and whose
    coordinates along ``d`` put the link on their way: ``S`` is the node grid summed over the
    dimensions below ``d``, ``D`` summed over those above. On a line, a link ``c .. c + 1`` is
    crossed by the sources at or below ``c`` towards the destinations above it, and back (prefix
    sums); on a ring, by the shorter way round, half way round going the positive way
    (:func:`_forward_traffic`, and the negative way as the positive way of the mirrored ring).
    O(d size) vectorised, int64."""
    nd = len(dims)
    out = []
    for d in range(nd):
        ax = nd - 1 - d
        L = dims[d]
        S = grid.sum(axis=tuple(range(ax + 1, nd)), keepdims=True)  # over the dimensions below d
        D = grid.sum(axis=tuple(range(ax)), keepdims=True)  # over the dimensions above d
        if not ring[d]:
            S_le = np.cumsum(S, axis=ax)
            D_le = np.cumsum(D, axis=ax)
            S_tot, D_tot = np.take(S_le, [-1], axis=ax), np.take(D_le, [-1], axis=ax)
            S_le = np.take(S_le, np.arange(L - 1), axis=ax)
            D_le = np.take(D_le, np.arange(L - 1), axis=ax)
            t = S_le * (D_tot - D_le) + (S_tot - S_le) * D_le
        else:
            h = L // 2  # half way round (L even): the positive way
            pos = _forward_traffic(S, D, h, ax, L)
            rS, rD = np.flip(S, axis=ax), np.flip(D, axis=ax)
            neg = _forward_traffic(rS, rD, L - 1 - h, ax, L)
            # mirrored, link c of the ring is link L - 2 - c (mod L)
            t = pos + np.take(neg, (L - 2 - np.arange(L)) % L, axis=ax)
        out.append(np.broadcast_to(t, _link_shape(dims, ring, d)))
    return out


def _link_shape(dims: tuple[int, ...], ring: tuple[bool, ...], d: int) -> tuple[int, ...]:
    """The numpy shape of dimension ``d``'s link positions (last dimension first)."""
    sides = list(dims)
    sides[d] = dims[d] if ring[d] else dims[d] - 1
    return tuple(reversed(sides))


# -- the compact baseline ----------------------------------------------------------------------------
def weighted_pair_sum(coords: np.ndarray, dims: tuple[int, ...], ring: tuple[bool, ...],
                      weights: tuple[float, ...] | None) -> float:
    """Sum over the unordered pairs of the points ``coords`` (``(n, d)``) of the weighted line or ring
    distance: :func:`axis_pair_sum` per dimension. O(d n log n)."""
    total = 0.0
    for i, L in enumerate(dims):
        s = axis_pair_sum(coords[:, i], L, ring[i])
        total += s * (weights[i] if weights is not None else 1)
    return total


def _improve_nd(inside: np.ndarray, n: int, sides: tuple[int, ...], dims: tuple[int, ...],
                ring: tuple[bool, ...], w: np.ndarray, k: int = 24) -> None:
    """The d-dimensional form of the 2D exchange search (``topologies.mesh._improve``): exchange a
    cell of the set ``inside`` (a boolean window of ``sides``, laid out last dimension first,
    changed in place) with a free cell while that lowers the weighted total pairwise distance;
    each round tries the ``k`` set cells farthest from the set against the ``k`` free cells nearest
    to it and makes the best exchange (moving ``p`` to ``q`` changes the total by
    ``D(q) - D(p) - d(p, q)``, ``D`` the distance sum to the set).

    ``D`` is separable: the sum over dimensions of the weighted distance sums along one axis to the
    set's cells counted per coordinate (:func:`axis_distance_sums` once, at the start). An exchange
    changes one count per dimension down and one up, so each axis's sums are then updated by one
    column of that axis's distance table: O(sum of the window's sides) per round instead of
    recounting the window, and ``D`` is rebuilt from the same integer sums in the same order, so
    every round makes the same exchange as a recount would. O(window) numpy work per round (the
    two partial selections)."""
    nd = len(sides)
    size = inside.size
    kk = min(k, n, size - n)
    big = np.iinfo(np.int64).max // 4
    coords = np.stack(np.unravel_index(np.arange(size), inside.shape)[::-1], axis=1)  # (size, nd), x first
    L = np.array(dims)
    is_ring = np.array(ring)
    if kk <= 0:
        return
    sums = []  # per dimension, the integer distance sums along its axis to the set's cells
    tables = []  # per dimension, the line or ring distance between window positions
    for i in range(nd):
        ax = nd - 1 - i
        counts = inside.sum(axis=tuple(a for a in range(nd) if a != ax))
        sums.append(axis_distance_sums(counts, dims[i], ring[i]))
        pos = np.arange(sides[i], dtype=np.int64)
        t = np.abs(pos[:, None] - pos[None, :])
        tables.append(np.minimum(t, dims[i] - t) if ring[i] else t)
    shapes = []
    for i in range(nd):
        shp = [1] * nd
        shp[nd - 1 - i] = sides[i]
        shapes.append(tuple(shp))
    if not inside.flags.c_contiguous:
        raise ValueError("the exchange search needs a C-contiguous window, to change it in place")
    flat = inside.reshape(-1)  # a view: the exchanges below write through to ``inside``
    while True:
        dist = np.zeros(inside.shape, dtype=np.float64)
        for i in range(nd):
            dist = dist + (sums[i].astype(np.float64) * w[i]).reshape(shapes[i])
        dflat = dist.ravel()
        neg_in, d_out = np.where(flat, -dflat, 1.0), np.where(flat, float(big), dflat)  # set cells: -D; free: D
        p = np.argpartition(neg_in, kk - 1)[:kk]
        q = np.argpartition(d_out, kk - 1)[:kk]
        diff = np.abs(coords[p][:, None, :] - coords[q][None, :, :])
        diff = np.where(is_ring, np.minimum(diff, L - diff), diff)
        hops = (diff * w).sum(axis=2)
        delta = d_out[q][None, :] - hops + neg_in[p][:, None]
        pi, qj = np.unravel_index(int(np.argmin(delta)), delta.shape)
        if delta[pi, qj] >= -1e-9:
            return
        out_cell, in_cell = int(p[pi]), int(q[qj])
        flat[out_cell] = False
        flat[in_cell] = True
        for i in range(nd):
            sums[i] = sums[i] + tables[i][:, coords[in_cell, i]] - tables[i][:, coords[out_cell, i]]


@functools.lru_cache(maxsize=1024)
def compact_nd(n: int, dims: tuple[int, ...], ring: tuple[bool, ...],
               weights: tuple[float, ...] | None) -> np.ndarray:
    """The node ids of :meth:`Mesh.compact_nodes <topologies.Mesh.compact_nodes>` on a mesh that is
    not a plain 2D one (any dimension, wrap, weights): read-only, ascending, cached. See there."""
    nd = len(dims)
    side = 2 * ceil_root(n, nd) + 3
    sides = [min(L, side) for L in dims]
    while math.prod(sides) < min(math.prod(dims), 2 * n + 2):  # a narrow machine: widen the others
        grow = [i for i in range(nd) if sides[i] < dims[i]]
        for i in grow:
            sides[i] = min(dims[i], sides[i] * 2)
    sides_t = tuple(sides)
    shape = tuple(reversed(sides_t))
    w = np.asarray(weights if weights is not None else (1,) * nd, dtype=np.float64)
    # a ring window shorter than the ring is a stretch of it: its cells keep the ring's distances
    coords = np.stack(np.unravel_index(np.arange(math.prod(sides_t)), shape)[::-1], axis=1)
    starts = []
    offsets = list(np.ndindex(*(2,) * nd)) if nd <= 3 else [(0,) * nd, (1,) * nd]
    for off in offsets:
        centre = (np.array(sides_t) - 1) / 2 + 0.5 * np.array(off)
        diff = np.abs(coords - centre)
        full = np.array([ring[i] and sides_t[i] == dims[i] for i in range(nd)])
        diff = np.where(full, np.minimum(diff, np.array(dims) - diff), diff)
        key = ((diff * w) ** 2).sum(axis=1)
        starts.append(np.argsort(key, kind="stable")[:n])
    boxes = [request_for_nd(n, dims)]
    rings = [i for i in range(nd) if ring[i] and sides_t[i] == dims[i]]
    for r in range(1, len(rings) + 1) if nd <= 3 else ():
        for sub in itertools.combinations(rings, r):  # whole rings along some dimensions, near-cube on the rest
            whole = math.prod(dims[i] for i in sub)
            rest = [i for i in range(nd) if i not in sub]
            if whole > n or not rest:
                continue
            part = request_for_nd(-(-n // whole), tuple(dims[i] for i in rest))
            sides_of = [0] * nd
            for i in sub:
                sides_of[i] = dims[i]
            for i, s in zip(rest, part, strict=True):
                sides_of[i] = s
            boxes.append(tuple(sides_of))
    for box in boxes:
        if all(b <= s for b, s in zip(box, sides_t, strict=True)):
            rank = np.arange(n)
            pos = np.stack([(rank // math.prod(box[:j])) % box[j] for j in range(nd)], axis=1)
            starts.append(np.ravel_multi_index(tuple(pos[:, ::-1].T), shape))
    best_cost, best = -1.0, np.zeros(0, dtype=np.int64)
    ids_stride = np.array(strides(dims))
    for start in starts:
        inside = np.zeros(math.prod(sides_t), dtype=bool)
        inside[start] = True
        inside = inside.reshape(shape)
        _improve_nd(inside, n, sides_t, dims, ring, w)
        pts = coords[inside.ravel()]
        cost = weighted_pair_sum(pts, dims, ring, weights)
        if best_cost < 0 or cost < best_cost - 1e-9:
            pts = pts - pts.min(axis=0)
            best_cost, best = cost, np.sort(pts @ ids_stride).astype(np.int64)
    best.flags.writeable = False
    return best

"""Meshes and tori of any dimension: geometry, dimension-ordered routing and all-to-all link traffic.

:class:`Mesh` is the machine (``Mesh(32, 32)``, ``Mesh(8, 8, 8)``, ``Mesh(8, 8, 8, wrap=(True, True, False))``)
and :class:`Torus` the one whose every dimension wraps (``Torus(8, 8, 8)``). A plain 2D mesh (no
wrap, no weights) keeps its own closed forms; every other one uses the d-dimensional ones of
:mod:`topologies.grid`.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._validate import shown
from .base import check_positive_int, count_request, request_int
from .errors import RequestSizeError, RequestTypeError, TopologyError
from .grid import axis_pair_sum, compact_nd, link_traffic_nd, request_for_nd, strides

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx
    from numpy.typing import ArrayLike

__all__ = ["Mesh", "Torus"]

_SLOTS = ("dims", "ndim", "wrap", "weights", "ring", "_strides", "_flat2d", "_key", "_hash", "_link_offsets",
          "_link_sides")


def _wrap_flags(wrap: Any, ndim: int) -> tuple[bool, ...]:
    if isinstance(wrap, bool | np.bool_):
        return (bool(wrap),) * ndim
    if isinstance(wrap, str | bytes) or not isinstance(wrap, Sequence | np.ndarray):
        raise TopologyError(f"Mesh wrap must be true or false or one flag per dimension, got {shown(wrap)}")
    flags = tuple(wrap)
    if len(flags) != ndim or not all(isinstance(f, bool | np.bool_) for f in flags):
        raise TopologyError(f"Mesh wrap must be true or false or {ndim} flags (one per dimension) of true or "
                            f"false, got {wrap!r}")
    return tuple(bool(f) for f in flags)


def _weights(weights: Any, ndim: int) -> tuple[Any, ...] | None:
    if weights is None:
        return None
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence | np.ndarray) or len(weights) != ndim:
        raise TopologyError(f"Mesh weights must be {ndim} numbers (one per dimension), got {weights!r}")
    out = []
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not (math.isfinite(w) and float(w) > 0):
            raise TopologyError(f"Mesh weights must be finite numbers > 0, got {weights!r}")
        out.append(int(w) if isinstance(w, numbers.Integral) else float(w))
    return tuple(out)


class Mesh:
    """A d-dimensional mesh, optionally wrapping (a torus) per dimension, optionally with per-dimension
    link weights. ``Mesh(W, H)`` is the ``W x H`` 2D mesh: node ``(x, y)`` has id ``y * W + x``; in
    general node ``(c_0, ..., c_{d-1})`` of ``Mesh(*dims)`` has id ``c_0 + dims[0] (c_1 + dims[1] (c_2 +
    ...))`` (x fastest).

    Any positive sides are allowed; allocators that need more (2D buddy: a square power of two)
    check for themselves. Requests are shapes, ``(w, h)`` on a 2D mesh, ``(a, b, c)`` on a 3D one
    (:meth:`validate_request`).

    **The API.** ``wrap`` is one flag for every dimension or a tuple of one flag per dimension;
    ``weights`` the cost of one hop along each dimension (anisotropic links: distances and hop sums
    are weighted; links, routes, traffic and capacities are not). :class:`Torus` is the mesh whose
    every dimension wraps: a subclass, so that ``isinstance(t, Mesh)`` holds (a torus is a mesh
    with wrap links, and every allocator and measure of meshes takes it) and a torus still says
    what it is in reprs and ``isinstance(t, Torus)``; ``Mesh(..., wrap=True)`` returns a
    :class:`Torus`, and equality and hashing are by value (sides, wrap flags, weights), so the two
    spellings are one machine. Attributes: ``dims`` (x first), ``ndim``, ``wrap`` (one flag per
    dimension), ``weights`` (``None`` or one number per dimension), ``ring`` (the dimensions whose
    wrap adds a link: wrapped and of side >= 3; a wrapped side of 1 or 2 has no link a line lacks),
    ``size`` and ``shape`` (``dims`` reversed: the numpy shape of an array over the nodes, row =
    the last dimension; ``(height, width)`` in 2D). ``width`` and ``height`` are those of a mesh of
    at most two dimensions (1 for the height of a line); a mesh of more has none (asking raises).

    A :class:`~topologies.Network`: it answers its own hop sums, links, routes and all-to-all link
    traffic in closed form or vectorised. **Links** are numbered as :meth:`links` says (those along
    x first, then along y, ...), each of capacity 1. **Routing** is dimension ordered (Dally &
    Seitz, "Deadlock-free message routing in multiprocessor interconnection networks", IEEE Trans.
    Computers C-36(5), 1987): a message travels along x to the destination's x, then along y, and
    so on (XY routing in 2D). Along a ring it takes the shorter way round; when both ways are
    equally long (half way round a ring of even side) it takes the **positive** direction
    (increasing coordinates, through the wrap link from ``L - 1`` to ``0`` if that is on its way).

    >>> m = Mesh(4, 3)
    >>> m.size, m.node_id(1, 2), m.coords(9), m.distance(0, 11)
    (12, 9, (1, 2), 5)
    >>> m.request_for(10)
    (4, 3)
    >>> m.n_links, m.route(0, 6).tolist(), m.hop_sum([0, 1, 5])
    (17, [0, 1, 11], 4.0)
    >>> t = Torus(8, 8, 8)
    >>> t.dims, t.wrap, t.distance(0, t.node_id(7, 4, 1)), t.n_links, isinstance(t, Mesh)
    ((8, 8, 8), (True, True, True), 6, 1536, True)
    """

    __slots__ = _SLOTS

    dims: tuple[int, ...]
    ndim: int
    wrap: tuple[bool, ...]
    weights: tuple[Any, ...] | None
    ring: tuple[bool, ...]
    _strides: tuple[int, ...]
    _flat2d: bool
    _key: tuple[Any, ...]
    _hash: int
    _link_offsets: tuple[int, ...]
    _link_sides: tuple[int, ...]

    def __new__(cls, *dims: int, wrap: Any = False, weights: Any = None, width: int | None = None,
                height: int | None = None) -> Mesh:
        if cls is Mesh and wrap is not False:
            n = len(dims) if dims else 2
            try:
                if all(_wrap_flags(wrap, n)):
                    return object.__new__(Torus)
            except TopologyError:
                pass  # __init__ names the bad value
        return object.__new__(cls)

    def __init__(self, *dims: int, wrap: Any = False, weights: Any = None, width: int | None = None,
                 height: int | None = None) -> None:
        if width is not None or height is not None:  # the 2D keywords: Mesh(width=8, height=4)
            if dims or width is None or height is None:
                raise TopologyError(f"give a mesh's sides either as Mesh(*dims) or as Mesh(width=, height=), "
                                    f"got dims={dims!r}, width={width!r}, height={height!r}")
            dims = (width, height)
        if not dims:
            raise TopologyError("a Mesh needs at least one side, got none")
        checked: tuple[int, ...]
        if len(dims) == 2:
            checked = (check_positive_int(dims[0], "Mesh width"), check_positive_int(dims[1], "Mesh height"))
        else:
            checked = tuple(check_positive_int(L, f"Mesh side {i} (of {tuple(dims)!r})") for i, L in enumerate(dims))
        nd = len(checked)
        flags = _wrap_flags(wrap, nd)
        w = _weights(weights, nd)
        ring = tuple(f and L >= 3 for f, L in zip(flags, checked, strict=True))
        s = object.__setattr__
        s(self, "dims", checked)
        s(self, "ndim", nd)
        s(self, "wrap", flags)
        s(self, "weights", w)
        s(self, "ring", ring)
        s(self, "_strides", strides(checked))
        s(self, "_flat2d", nd == 2 and not any(ring) and w is None)
        s(self, "_key", (checked, flags, w))
        s(self, "_hash", hash((Mesh, checked, flags, w)))
        sides = tuple(L if r else L - 1 for L, r in zip(checked, ring, strict=True))
        counts = [math.prod(checked) // L * n for L, n in zip(checked, sides, strict=True)]
        s(self, "_link_sides", sides)
        s(self, "_link_offsets", tuple(int(x) for x in np.concatenate([[0], np.cumsum(counts)])))
        if isinstance(self, Torus) and not all(flags):
            raise TopologyError(f"a Torus wraps every dimension, got wrap={wrap!r}")

    # -- value semantics ----------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (tried to set {name!r})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mesh):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, self._key)

    def __repr__(self) -> str:
        if self._key[1:] == ((False, False), None):
            return f"Mesh(width={self.dims[0]}, height={self.dims[1]})"
        sides = ", ".join(map(str, self.dims))
        extra = f", weights={self.weights!r}" if self.weights is not None else ""
        if all(self.wrap):
            return f"Torus({sides}{extra})"
        if any(self.wrap):
            extra = f", wrap={self.wrap!r}" + extra
        return f"Mesh({sides}{extra})"

    # -- sizes --------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of processors, the product of the sides."""
        return math.prod(self.dims)

    @property
    def shape(self) -> tuple[int, ...]:
        """``dims`` reversed: the shape of an array over the nodes whose C-order ravel is the id order
        (``(height, width)`` in 2D, row = y)."""
        return self.dims[::-1]

    @property
    def width(self) -> int:
        """The x side of a mesh of at most two dimensions."""
        if self.ndim > 2:
            raise TopologyError(f"{self!r} has {self.ndim} dimensions: width and height are those of a 2D "
                                f"mesh; use dims")
        return self.dims[0]

    @property
    def height(self) -> int:
        """The y side of a mesh of at most two dimensions (1 for a line)."""
        if self.ndim > 2:
            raise TopologyError(f"{self!r} has {self.ndim} dimensions: width and height are those of a 2D "
                                f"mesh; use dims")
        return self.dims[1] if self.ndim == 2 else 1

    @property
    def request_kind(self) -> str:
        """What a request on this mesh is (for error messages)."""
        if self.ndim == 2:
            return "a (width, height) pair"
        return f"a shape of up to {self.ndim} sides" if self.ndim > 1 else "a shape of 1 side"

    def _where(self) -> str:
        if self._flat2d:
            return f"the {self.dims[0]}x{self.dims[1]} mesh"
        return f"the {'x'.join(map(str, self.dims))} {'torus' if all(self.wrap) else 'mesh'}"

    # -- coordinates --------------------------------------------------------------------------
    def node_id(self, *coords: int) -> int:
        """Id of the node at ``coords`` (x first): ``node_id(x, y)`` in 2D, ``node_id(x, y, z)`` in 3D."""
        if len(coords) != self.ndim or not all(0 <= c < L for c, L in zip(coords, self.dims, strict=True)):
            shown_c = ", ".join(map(str, coords))
            raise ValueError(f"node ({shown_c}) is outside {self._where()}")
        return sum(c * s for c, s in zip(coords, self._strides, strict=True))

    def coords(self, node: int) -> tuple[int, ...]:
        """The coordinates (x first) of node id ``node``: ``(x, y)`` in 2D."""
        if not 0 <= node < self.size:
            raise ValueError(f"node id {node} is outside {self._where()}")
        if self.ndim == 2:
            return (node % self.dims[0], node // self.dims[0])
        return tuple((node // s) % L for s, L in zip(self._strides, self.dims, strict=True))

    def coords_of(self, nodes: ArrayLike) -> np.ndarray:
        """The coordinates of the node ids ``nodes`` as an ``(n, ndim)`` int64 array (x first), O(n d).
        Ids outside the mesh raise ``ValueError``.

        >>> Mesh(4, 3, 2).coords_of([0, 5, 23]).tolist()
        [[0, 0, 0], [1, 1, 0], [3, 2, 1]]
        """
        a = node_array(nodes, self)
        check_range(a, self)
        return np.stack([(a // s) % L for s, L in zip(self._strides, self.dims, strict=True)], axis=1) \
            if len(a) else np.zeros((0, self.ndim), dtype=np.int64)

    def ids_of(self, coords: ArrayLike) -> np.ndarray:
        """Node ids of the rows of ``coords`` (``(n, ndim)``, x first), O(n d). A coordinate outside
        the mesh raises ``ValueError`` naming it.

        >>> Mesh(4, 3, 2).ids_of([[0, 0, 0], [1, 1, 0], [3, 2, 1]]).tolist()
        [0, 5, 23]
        """
        c = np.asarray(coords)
        if c.dtype.kind not in "iu" and c.size:
            raise TypeError(f"coordinates on {self!r} must be integers, got {c.dtype} values")
        c = c.astype(np.int64, copy=False).reshape(-1, self.ndim)
        bad = (c < 0) | (c >= np.array(self.dims))
        if bad.any():
            row = c[np.flatnonzero(bad.any(axis=1))[0]]
            raise ValueError(f"node {tuple(row.tolist())} is outside {self._where()}")
        return c @ np.array(self._strides, dtype=np.int64)

    # -- distances ----------------------------------------------------------------------------
    def distance(self, a: int, b: int) -> Any:
        """Hop distance between node ids ``a`` and ``b``: the sum over the dimensions of the
        coordinate differences (Manhattan), the shorter way round along a ring, each weighted by
        its dimension's weight when the mesh has weights."""
        if self._flat2d:
            ax, ay = self.coords(a)
            bx, by = self.coords(b)
            return abs(ax - bx) + abs(ay - by)
        ca, cb = self.coords(a), self.coords(b)
        total: Any = 0
        for i, L in enumerate(self.dims):
            d = abs(ca[i] - cb[i])
            if self.ring[i]:
                d = min(d, L - d)
            total += d * (self.weights[i] if self.weights is not None else 1)
        return total

    def distances(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Element-wise hop distances between the node-id arrays ``a`` and ``b`` (of one length, or
        one of length 1), O(n d): :meth:`distance` vectorised (int64, float64 with non-integral
        weights). Ids outside the mesh raise ``ValueError``.

        >>> Mesh(4, 3).distances([0, 0, 5], [11, 0, 6]).tolist()
        [5, 0, 1]
        >>> Torus(8).distances([0, 0, 0], [7, 4, 5]).tolist()
        [1, 4, 3]
        """
        u, v = node_array(a, self), node_array(b, self)
        check_pair_range(u, v, self)
        if self._flat2d:
            W = self.dims[0]
            uy, ux = np.divmod(u, W)
            vy, vx = np.divmod(v, W)
            hops: np.ndarray = np.abs(ux - vx) + np.abs(uy - vy)
            return hops
        total: np.ndarray | int = 0
        for i, (s, L) in enumerate(zip(self._strides, self.dims, strict=True)):
            d = np.abs((u // s) % L - (v // s) % L)
            if self.ring[i]:
                d = np.minimum(d, L - d)
            total = total + (d * self.weights[i] if self.weights is not None else d)
        return np.asarray(total)

    # -- the Network protocol: links, routes, traffic ----------------------------------------
    @property
    def n_links(self) -> int:
        """Number of links: along each dimension of side ``L``, ``size / L`` lines of ``L - 1`` links
        (``L`` on a ring); ``H (W - 1) + (H - 1) W`` on a 2D mesh."""
        return self._link_offsets[-1]

    @property
    def capacity(self) -> np.ndarray:
        """Each link's capacity (read-only, all ones: every link carries one message at a time)."""
        out = np.ones(self.n_links)
        out.flags.writeable = False
        return out

    def hop_sum(self, nodes: ArrayLike) -> float:
        """Sum of the hop distances over the unordered pairs of ``nodes`` (distinct ids; a repeated
        id counts as one more node, at distance 0 from its copy).

        Manhattan distance splits by coordinate, and the sum of ``|x_i - x_j|`` over the pairs is
        ``sum_i x_(i) (2i - n + 1)`` over the sorted coordinates (O(n log n)); when the nodes are
        many next to the sides it is computed from the count of each coordinate instead, O(n + sum
        of the sides). Along a ring, the pairs more than half way round are corrected by
        ``2 |a - b| - L`` each, found by a binary search (or suffix sums of the counts)
        (:func:`topologies.grid.axis_pair_sum`); with weights, each dimension's sum is weighted. No
        pairwise loop. Ids outside the mesh raise ``ValueError``.

        >>> Mesh(8, 8).hop_sum([0, 1, 8, 9])    # a 2 x 2 square: 4 pairs at 1 hop, 2 at 2
        8.0
        >>> Torus(8).hop_sum([0, 1, 7]), Mesh(8).hop_sum([0, 1, 7])
        (4.0, 14.0)
        """
        a = node_array(nodes, self)
        n = len(a)
        if not self._flat2d:
            check_range(a, self)
            if n < 2:
                return 0.0
            total = 0.0
            for i, (s, L) in enumerate(zip(self._strides, self.dims, strict=True)):
                part = axis_pair_sum((a // s) % L, L, self.ring[i])
                total += part * self.weights[i] if self.weights is not None else part
            return float(total)
        W, H = self.dims
        if n < 2:
            check_range(a, self)
            return 0.0
        y, x = np.divmod(a, W)
        if n * 4 > W + H:  # counts per coordinate: O(n + W + H), no sort
            try:
                cy = np.bincount(y)
            except ValueError:  # a negative id
                raise outside_error(a, self) from None
            if len(cy) > H:
                raise outside_error(a, self)
            return _pair_sum_counts(np.bincount(x)) + _pair_sum_counts(cy)
        sy = np.sort(y)
        if sy[0] < 0 or sy[-1] >= H:
            raise outside_error(a, self)
        return _pair_sum_sorted(np.sort(x)) + _pair_sum_sorted(sy)

    def links(self) -> np.ndarray:
        """Every link as a row ``(u, v)``, ``u < v``, in link-id order: dimension by dimension from x,
        and within dimension ``i`` the link from ``c`` to ``c + e_i`` (to ``c_i = 0`` from ``c_i = L - 1``
        on a ring) in row-major order of ``c`` (x fastest). In 2D: the horizontal links
        ``(x, y)-(x + 1, y)`` row by row (id ``y (W - 1) + x``), then the vertical ones
        ``(x, y)-(x, y + 1)`` (id ``H (W - 1) + y W + x``). Shape ``(n_links, 2)``.

        >>> Mesh(3, 2).links().tolist()
        [[0, 1], [1, 2], [3, 4], [4, 5], [0, 3], [1, 4], [2, 5]]
        >>> Torus(3).links().tolist()
        [[0, 1], [1, 2], [0, 2]]
        """
        if self._flat2d:
            W, H = self.dims
            hy, hx = np.divmod(np.arange(H * (W - 1)), max(W - 1, 1))
            h = hy * W + hx
            v = np.arange((H - 1) * W)
            return np.concatenate([np.stack([h, h + 1], 1), np.stack([v, v + W], 1)]).astype(np.int64)
        parts = []
        for i in range(self.ndim):
            box = list(self.dims)
            box[i] = self._link_sides[i]
            idx = np.arange(math.prod(box), dtype=np.int64)
            u = np.zeros_like(idx)
            v = np.zeros_like(idx)
            st = 1
            for j, L in enumerate(self.dims):
                c = (idx // st) % box[j]
                st *= box[j]
                u += c * self._strides[j]
                v += ((c + 1) % L if j == i else c) * self._strides[j]
            parts.append(np.stack([np.minimum(u, v), np.maximum(u, v)], 1))
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 2), dtype=np.int64)

    def _link_id(self, i: int, c: list[int]) -> int:
        """Id of the dimension-``i`` link at coordinates ``c`` (its lower end; ``L - 1`` for a wrap link)."""
        lid, st = 0, 1
        for j, L in enumerate(self.dims):
            side = self._link_sides[i] if j == i else L
            lid += c[j] * st
            st *= side
        return self._link_offsets[i] + lid

    def route(self, a: int, b: int) -> np.ndarray:
        """The link ids a message from node ``a`` to node ``b`` crosses under dimension-ordered
        routing, in order: along x to ``b``'s x, then along y, ... ; along a ring the shorter way
        round, the positive way when both are equally long. ``hops`` links (the unweighted
        distance).

        >>> Mesh(4, 3).route(7, 8).tolist()     # (3, 1) -> (0, 2): three links left, one up
        [5, 4, 3, 13]
        >>> Torus(4).route(1, 3).tolist(), Torus(4).route(3, 1).tolist()   # half way: the positive way
        ([1, 2], [3, 0])
        """
        if self._flat2d:
            (ax, ay), (bx, by) = self.coords(a), self.coords(b)
            W = self.dims[0]
            xs = np.arange(ax, bx) if bx >= ax else np.arange(ax - 1, bx - 1, -1)  # link x joins x and x + 1
            ys = np.arange(ay, by) if by >= ay else np.arange(ay - 1, by - 1, -1)
            return np.concatenate([ay * (W - 1) + xs, self.dims[1] * (W - 1) + ys * W + bx]).astype(np.int64)
        cur, target = list(self.coords(a)), self.coords(b)
        out: list[int] = []
        for i, L in enumerate(self.dims):
            s, t = cur[i], target[i]
            if s == t:
                continue
            if self.ring[i]:
                f = (t - s) % L
                steps = [(s + k) % L for k in range(f)] if f <= L // 2 else [(s - 1 - k) % L for k in range(L - f)]
            else:
                steps = list(range(s, t)) if t > s else list(range(s - 1, t - 1, -1))
            for p in steps:
                cur[i] = p
                out.append(self._link_id(i, cur))
            cur[i] = t
        return np.array(out, dtype=np.int64)

    def link_traffic(self, nodes: ArrayLike) -> np.ndarray:
        """Per link (:meth:`links` order), the messages of one all-to-all round among ``nodes``
        (distinct ids; one message per ordered pair, ``n (n - 1)`` in all) that cross it under
        dimension-ordered routing, both directions counted together. Its sum is twice the
        unweighted :meth:`hop_sum`.

        Counted, not routed. In 2D: the horizontal link ``x..x+1`` of row ``y`` carries the messages
        of the row's nodes at or left of ``x`` to every node right of ``x`` (any row: the message
        turns in the destination's column), and back; the vertical link ``y..y+1`` of column ``x``
        carries the messages to the column's nodes above ``y`` from every node at or below row
        ``y``, and back. Prefix sums of a count grid: O(W H) vectorised, int64. In d dimensions and
        on rings the same counting, dimension by dimension
        (:func:`topologies.grid.link_traffic_nd`): O(d size) vectorised.

        >>> Mesh(3, 1).link_traffic([0, 1, 2]).tolist()
        [4, 4]
        >>> Torus(4).link_traffic([0, 1, 2, 3]).tolist()     # 8 one-hop and 4 half-way messages
        [4, 4, 4, 4]
        """
        a = node_array(nodes, self)
        size = self.size
        try:
            grid = np.bincount(a, minlength=size)
        except ValueError:  # a negative id
            raise outside_error(a, self) from None
        if len(grid) > size:
            raise outside_error(a, self)
        if not self._flat2d:
            parts = link_traffic_nd(grid.reshape(self.shape).astype(np.int64), self.dims, self.ring)
            return np.concatenate([p.ravel() for p in parts]).astype(np.int64, copy=False)
        W, H = self.dims
        grid = grid.reshape(H, W)
        n = len(a)
        # horizontal: row y's nodes at or left of x, and the job's nodes (any row) at or left of x
        per_row, per_col = grid.sum(axis=1), grid.sum(axis=0)
        row_left = np.cumsum(grid, axis=1)[:, :-1]
        left = np.cumsum(per_col)[:-1]
        horiz = row_left * (n - left) + (per_row[:, None] - row_left) * left
        # vertical: column x's nodes at or below y, and the job's nodes (any column) at or below y
        col_below = np.cumsum(grid, axis=0)[:-1, :]
        below = np.cumsum(per_row)[:-1, None]
        vert = (per_col - col_below) * below + col_below * (n - below)
        return np.concatenate([horiz.ravel(), vert.ravel()]).astype(np.int64, copy=False)

    def compact_nodes(self, n: int) -> np.ndarray:
        """A most compact placement of ``n`` nodes (least :meth:`hop_sum`), the baseline a count
        request's placement is compared with: a rounded shape from the mesh's corner, ascending
        ids. A processor count outside ``1 .. size`` raises :class:`~topologies.RequestSizeError` /
        :class:`~topologies.RequestTypeError`.

        **Sources.** Bender, Bunde, Demaine, Fekete, Leung, Meijer and Phillips, "Communication-aware
        processor allocation for supercomputers: finding point sets of small average distance",
        Algorithmica 50(2), 2008 (arXiv cs/0407058), pose allocation as choosing points of least
        average pairwise L1 distance; on a free grid the least sets are not squares but rounded
        shapes (Karp, McKellar and Wong, SIAM J. Comput. 4(3), 1975; the continuous optimum is the
        near-circle of Bender, Bender, Demaine and Fekete, "What is the optimal shape of a city?",
        J. Phys. A 37, 2004). Demaine, Fekete, Rote, Schweer, Schymura and Zelke, "Integer point
        sets minimizing average pairwise L1 distance: what is the optimal shape of a town?",
        Comput. Geom. 44(2), 2011 (arXiv:1009.5628), compute the optimal sets by dynamic
        programming and tabulate the least totals (their Table 1; OEIS A193452). A row-by-row near-square is
        beaten from ``n = 7`` on (38 hops against 40).

        **Interpretation (2D mesh).** Their O(n^7.5) dynamic programme is too slow for a baseline, so the
        shape comes from a search (:func:`_compact_shape`): the ``n`` cells nearest (Euclidean) to
        each of the four half-integer centre offsets of a window of side ``2 ceil(sqrt(n)) + 3``
        (clipped to the mesh, so a narrow mesh gives a rounded band) and the row-by-row
        near-square, each improved by exchanging a cell of the set with a free cell while that
        lowers the total distance; the least total wins. So it is never less compact than the
        near-square; it equals the published optimum for every ``n <= 49`` (the tabulated sizes,
        checked by the tests on meshes from 10x10 up) and an exhaustive search over small squares;
        for larger ``n`` it is a local optimum, not a proof of optimality.

        **Interpretation (any other mesh: d dimensions, rings, weights).** No optimum is published
        for these; the same search in d dimensions (:func:`topologies.grid.compact_nd`): a window
        of side ``2 ceil(n^(1/d)) + 3`` per dimension (clipped to the machine; widened along the
        other dimensions when a narrow one leaves fewer than ``2 n + 2`` cells), starting from the
        ``n`` cells nearest (weighted Euclidean; round a ring the window covers whole) to the
        centre at each half-integer offset (all ``2^d`` for ``d <= 3``, else none and all-half), and
        from the row-major near-cube of :meth:`request_for`; each improved by the exchange search
        with the machine's own distance (weighted, the shorter way round a ring); the least
        total wins. Never less compact than the near-cube box; equal to an exhaustive search for
        the small cases the tests enumerate (3D meshes and tori, ``n <= 6``); a local optimum in
        general.

        O(n) per call after the first for a size (the shape is cached per size and machine);
        the first costs O(n^1.5) numpy work per exchange round in 2D (O(window) in d dimensions).

        >>> Mesh(8, 8).compact_nodes(4).tolist()
        [0, 1, 8, 9]
        >>> Mesh(8, 8).hop_sum(Mesh(8, 8).compact_nodes(7)), Mesh(8, 8).hop_sum([0, 1, 2, 8, 9, 10, 16])
        (38.0, 40.0)
        >>> Torus(4, 4, 4).compact_nodes(8).tolist()
        [0, 1, 4, 5, 16, 17, 20, 21]
        """
        if type(n) is not int or not 0 < n <= self.size:
            n = count_request(n, self.size, self._where())
        if self._flat2d:
            return _compact_shape(n, self.dims[0], self.dims[1]).copy()
        return compact_nd(n, self.dims, self.ring, self.weights).copy()

    def to_networkx(self) -> nx.Graph[int]:
        """The mesh as a networkx graph on the integer node ids, one edge per link (with a
        ``weight`` attribute, the dimension's weight, when the mesh has weights)."""
        import networkx as nx

        if self._flat2d:
            W = self.dims[0]
            g = nx.grid_2d_graph(W, self.dims[1])
            return nx.relabel_nodes(g, {(x, y): y * W + x for x, y in g.nodes})
        g = nx.Graph()
        g.add_nodes_from(range(self.size))
        ends = self.links().tolist()
        if self.weights is None:
            g.add_edges_from(ends)
        else:
            dim_of = np.searchsorted(np.array(self._link_offsets), np.arange(self.n_links), side="right") - 1
            g.add_weighted_edges_from((u, v, self.weights[d]) for (u, v), d in zip(ends, dim_of.tolist(), strict=True))
        return g

    # -- requests -----------------------------------------------------------------------------
    def validate_request(self, request: Sequence[int], *, rotate: bool = False) -> tuple[int, ...]:
        """Return ``request`` as a shape tuple of ``ndim`` ints (``(w, h)`` in 2D) or raise.

        A shape with fewer sides than the mesh has dimensions is padded with 1s (interpretation:
        Fugaku lets a job ask for a 1D, 2D or 3D shape on its 3D torus; ``(4, 2)`` on a 3D mesh is
        the ``4 x 2 x 1`` box); on a 2D mesh a request stays a ``(width, height)`` pair, as it always
        was there. With ``rotate``, the request may be placed with its sides in any
        order (a 90 degree turn in 2D, any permutation of the axes in d dimensions, as Fugaku's
        scheduler may permute a shape's axes); it is accepted when some order fits the mesh.

        :class:`RequestTypeError` if it is not a tuple (list, array) of integers, or has more sides
        than the mesh has dimensions; :class:`RequestSizeError` if a side is < 1 or the box does not
        fit the mesh (in any order when ``rotate``). Each error names the request.

        >>> Mesh(8, 8, 4).validate_request((2, 8)), Mesh(8, 8, 4).validate_request((8, 2, 8), rotate=True)
        ((2, 8, 1), (8, 2, 8))
        """
        nd = self.ndim
        if isinstance(request, (str, bytes)) or not isinstance(request, (tuple, list, np.ndarray)):
            raise RequestTypeError(
                f"a request on a mesh is {self.request_kind}, got {request!r} ({type(request).__name__})"
                if nd == 2 else f"a request on {self!r} is {self.request_kind}, got {request!r} "
                                f"({type(request).__name__})")
        if len(request) > nd or len(request) == 0 or (nd == 2 and len(request) != 2):
            if nd == 2:
                raise RequestTypeError(f"a request on a mesh is a (width, height) pair, got {request!r}")
            raise RequestTypeError(f"a request on {self!r} is {self.request_kind} (one per dimension), got "
                                   f"{request!r} with {len(request)}")
        if nd == 2:
            w = request_int(request[0], "a mesh request's width")
            h = request_int(request[1], "a mesh request's height")
            if w <= 0 or h <= 0:
                raise RequestSizeError(f"a mesh request needs both sides >= 1, got ({w}, {h})")
            W, H = self.dims
            fits = w <= W and h <= H
            if not fits and not (rotate and h <= W and w <= H):
                raise RequestSizeError(f"request ({w}, {h}) is larger than {self._where()}")
            return (w, h)
        sides = tuple(request_int(s, f"side {i} of a mesh request {tuple(request)!r}") for i, s in enumerate(request))
        if any(s <= 0 for s in sides):
            raise RequestSizeError(f"a mesh request needs every side >= 1, got {sides!r}")
        sides = sides + (1,) * (nd - len(sides))
        if not all(s <= L for s, L in zip(sides, self.dims, strict=True)):
            if not rotate:
                raise RequestSizeError(f"request {sides!r} is larger than {self._where()}")
            if not all(s <= L for s, L in zip(sorted(sides), sorted(self.dims), strict=True)):
                raise RequestSizeError(f"request {sides!r} is larger than {self._where()} in every order of its "
                                       f"sides")
        return sides

    def request_size(self, request: Sequence[int]) -> int:
        """Processors a shape request occupies: the product of its sides."""
        if len(request) == 2:
            return request[0] * request[1]
        return math.prod(request)

    def request_for(self, n: int) -> tuple[int, ...]:
        """The near-square ``(w, h)`` (in d dimensions the near-cube) a job of ``n`` processors asks for.

        2D: ``w = ceil(sqrt(n))`` and ``h = ceil(n / w)``, so ``w >= h``, ``w * h >= n`` and the waste
        ``w * h - n`` is less than ``w``. If ``w`` exceeds the mesh width it is clamped to the width
        (``h = ceil(n / width)``); if ``h`` then exceeds the height, ``h`` is clamped and
        ``w = ceil(n / height)``. In d dimensions the same rule side by side from x: each side the
        ceiling of the ``k``-th root of what is left to place (``k`` the sides left), a side above
        the machine's clamped to it and the others recomputed
        (:func:`topologies.grid.request_for_nd`). ``n`` larger than the mesh raises
        :class:`RequestSizeError`.

        >>> Mesh(8, 8, 8).request_for(12), Mesh(8, 2, 2).request_for(12)
        ((3, 2, 2), (3, 2, 2))
        """
        n = request_int(n, "a processor count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 processor, got {n}")
        if n > self.size:
            raise RequestSizeError(f"{n} processors do not fit {self._where()}")
        if self.ndim != 2:
            return request_for_nd(n, self.dims)
        W, H = self.dims
        w = math.isqrt(n - 1) + 1
        h = -(-n // w)
        if w > W:
            w, h = W, -(-n // W)
        if h > H:
            h, w = H, -(-n // H)
        return (w, h)


class Torus(Mesh):
    """A d-dimensional torus: the :class:`Mesh` whose every dimension wraps, ``Torus(8, 8, 8)``
    (``Mesh(8, 8, 8, wrap=True)`` is the same machine and returns a ``Torus``). Optional per-dimension
    ``weights`` as on a mesh. A subclass rather than a second class beside :class:`Mesh`: every
    allocator and measure written for meshes takes it, and each consults ``wrap`` / ``ring``.

    >>> Torus(4, 4) == Mesh(4, 4, wrap=True), Torus(4, 4).distance(0, 15), Mesh(4, 4).distance(0, 15)
    (True, 2, 6)
    """

    __slots__ = ()

    def __init__(self, *dims: int, weights: Any = None, wrap: Any = True, width: int | None = None,
                 height: int | None = None) -> None:
        super().__init__(*dims, wrap=wrap, weights=weights, width=width, height=height)


def _rebuild(dims: tuple[int, ...], wrap: tuple[bool, ...], weights: tuple[Any, ...] | None) -> Mesh:
    """Unpickle a :class:`Mesh` or :class:`Torus` from its value."""
    return Mesh(*dims, wrap=wrap, weights=weights)


# -- node-id arrays, shared by the machines with links ------------------------------------------
_INT64 = np.dtype(np.int64)


def node_array(nodes: ArrayLike, machine: Any) -> np.ndarray:
    """``nodes`` as a flat int64 array (an empty sequence allowed); ``TypeError`` unless integers.
    The range is checked by the caller (cheaply, from what it computes anyway)."""
    if type(nodes) is np.ndarray and nodes.dtype is _INT64 and nodes.ndim == 1:
        return nodes
    a = np.asarray(nodes)
    if a.dtype.kind not in "iu":
        if a.size:
            raise TypeError(f"node ids of {machine!r} must be integers, got {a.dtype} values "
                            f"{a.ravel()[:4].tolist()!r}")
        a = a.astype(np.int64)
    return a.astype(np.int64, copy=False).ravel()


def outside_error(a: np.ndarray, machine: Any) -> ValueError:
    """The error naming the first id of ``a`` outside ``machine``."""
    bad = a[(a < 0) | (a >= machine.size)]
    return ValueError(f"node id {int(bad[0])} is outside {machine!r} (ids 0..{machine.size - 1})")


def check_range(a: np.ndarray, machine: Any) -> None:
    """``ValueError`` naming the first id of ``a`` outside ``machine``, if any. O(n)."""
    if a.size and int(a.view(np.uint64).max()) >= machine.size:  # a negative id is a huge unsigned one
        raise outside_error(a, machine)


def check_pair_range(u: np.ndarray, v: np.ndarray, machine: Any) -> None:
    """:func:`check_range` of two id arrays in one reduction (their element-wise unsigned maximum)."""
    if u.size and v.size and int(np.maximum(u.view(np.uint64), v.view(np.uint64)).max()) >= machine.size:
        raise outside_error(np.concatenate([u, v]), machine)


def _pair_sum_sorted(s: np.ndarray) -> float:
    """``sum_{i<j} |v_i - v_j|`` of the sorted values ``s``: ``sum_i s_i (2i - n + 1)``."""
    n = len(s)
    return float(s.astype(np.float64) @ (2.0 * np.arange(n) - (n - 1)))


def _pair_sum_counts(c: np.ndarray) -> float:
    """``sum_{i<j} |v_i - v_j|`` from the counts ``c[v]`` of each value: ``sum_b c_b (b C_b - S_b)``
    with ``C_b``, ``S_b`` the count and sum of the values below ``b``."""
    c = c.astype(np.float64)
    v = np.arange(len(c), dtype=np.float64)
    below = np.cumsum(c) - c
    below_sum = np.cumsum(c * v) - c * v
    return float(c @ (v * below - below_sum))


# -- the compact baseline -------------------------------------------------------------------------
def _pair_l1_sum(xs: np.ndarray, ys: np.ndarray) -> int:
    """Total L1 distance over the unordered pairs of the points ``(xs[i], ys[i])``: per axis, the
    ``i``-th smallest coordinate counts ``2 i - (n - 1)`` times. O(n log n)."""
    weight = 2 * np.arange(len(xs), dtype=np.int64) - (len(xs) - 1)
    return int(np.sort(xs) @ weight + np.sort(ys) @ weight)


def _axis_distance_sums(counts: np.ndarray) -> np.ndarray:
    """For every position ``z`` of an axis, ``sum |z - s|`` over the points with ``counts[s]``
    at each coordinate ``s``. O(axis length)."""
    pos = np.arange(len(counts), dtype=np.int64)
    n, at_or_below = int(counts.sum()), np.cumsum(counts)
    sum_below = np.cumsum(counts * pos)
    out: np.ndarray = pos * at_or_below - sum_below + (int(sum_below[-1]) - sum_below) - pos * (n - at_or_below)
    return out


def _improve(inside: np.ndarray, n: int, k: int = 24) -> None:
    """Exchange cells of the set ``inside`` (a boolean window, changed in place) with free cells
    while one exchange lowers the total pairwise distance; each round tries the ``k`` set cells
    farthest from the set against the ``k`` free cells nearest to it and makes the best exchange
    (moving ``p`` to ``q`` changes the total by ``D(q) - D(p) - d(p, q)``, ``D`` the distance sum
    to the set)."""
    rh, rw = inside.shape
    kk = min(k, n, rh * rw - n)
    big = np.iinfo(np.int64).max
    while kk > 0:
        dist = (_axis_distance_sums(inside.sum(axis=0))[None, :]
                + _axis_distance_sums(inside.sum(axis=1))[:, None]).ravel()
        flat = inside.ravel()
        d_in, d_out = np.where(flat, dist, -1), np.where(flat, big, dist)
        p = np.argpartition(-d_in, kk - 1)[:kk]
        q = np.argpartition(d_out, kk - 1)[:kk]
        py, px = np.divmod(p, rw)
        qy, qx = np.divmod(q, rw)
        hops = np.abs(px[:, None] - qx[None, :]) + np.abs(py[:, None] - qy[None, :])
        delta = d_out[q][None, :] - hops - d_in[p][:, None]
        i, j = np.unravel_index(int(np.argmin(delta)), delta.shape)
        if delta[i, j] >= 0:
            return
        inside.flat[p[i]] = False
        inside.flat[q[j]] = True


@functools.lru_cache(maxsize=4096)
def _compact_shape(n: int, width: int, height: int) -> np.ndarray:
    """The node ids of :meth:`Mesh.compact_nodes` (see there for the search), read-only, cached."""
    side = 2 * (math.isqrt(n - 1) + 1) + 3
    rh = min(height, side)
    rw = min(width, max(side, -(-n // rh) + 2))
    rh = min(height, max(rh, -(-n // rw) + 2))
    yy, xx = np.mgrid[0:rh, 0:rw]
    best_cost, best = -1, np.zeros(0, dtype=np.int64)
    starts = []
    for dx, dy in ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)):
        cx, cy = (rw - 1) / 2 + dx, (rh - 1) / 2 + dy
        key = ((xx - cx) ** 2 + (yy - cy) ** 2).ravel()
        angle = np.arctan2(yy - cy, xx - cx).ravel()
        starts.append(np.lexsort((angle, key))[:n])
    # the row-by-row near-square, so that the result is never less compact than it
    a = min(width, max(math.isqrt(n - 1) + 1, -(-n // height)))
    i = np.arange(n)
    if a <= rw and -(-n // a) <= rh:
        starts.append((i // a) * rw + i % a)
    for start in starts:
        inside: np.ndarray = np.zeros(rh * rw, dtype=bool)
        inside[start] = True
        inside = inside.reshape(rh, rw)
        _improve(inside, n)
        ys, xs = np.nonzero(inside)
        cost = _pair_l1_sum(xs, ys)
        if best_cost < 0 or cost < best_cost:
            xs, ys = xs - xs.min(), ys - ys.min()
            best_cost, best = cost, np.sort(ys.astype(np.int64) * width + xs)
    best.flags.writeable = False
    return best

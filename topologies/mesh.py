"""Two-dimensional mesh machine model: geometry, XY routing and all-to-all link traffic."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .base import check_positive_int, count_request, request_int
from .errors import RequestSizeError, RequestTypeError

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx
    from numpy.typing import ArrayLike

__all__ = ["Mesh"]


@dataclass(frozen=True, slots=True)
class Mesh:
    """A ``width x height`` 2D mesh. Node ``(x, y)`` has id ``y * width + x``.

    Any positive sizes are allowed; allocators that need more (2D buddy: a square power of two)
    check for themselves. Requests on a mesh are ``(w, h)`` tuples.

    A :class:`~topologies.Network`: it answers its own hop sums, links, routes and all-to-all link
    traffic in closed form or vectorised. **Links** are numbered as :meth:`links` says (the
    horizontal ones row by row, then the vertical ones), each of capacity 1. **Routing** is
    dimension ordered, XY (Dally & Seitz, "Deadlock-free message routing in multiprocessor
    interconnection networks", IEEE Trans. Computers C-36(5), 1987): a message travels along its
    source's row to the destination's column, then along that column.

    >>> m = Mesh(4, 3)
    >>> m.size, m.node_id(1, 2), m.coords(9), m.distance(0, 11)
    (12, 9, (1, 2), 5)
    >>> m.request_for(10)
    (4, 3)
    >>> m.n_links, m.route(0, 6).tolist(), m.hop_sum([0, 1, 5])
    (17, [0, 1, 11], 4.0)
    """

    width: int
    height: int
    #: What a request on this topology is (for error messages).
    request_kind: ClassVar[str] = "a (width, height) pair"

    def __post_init__(self) -> None:
        check_positive_int(self.width, "Mesh width")
        check_positive_int(self.height, "Mesh height")

    @property
    def size(self) -> int:
        """Number of processors, ``width * height``."""
        return self.width * self.height

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``: the shape of the mesh's 2D occupancy array (row = y)."""
        return (self.height, self.width)

    def node_id(self, x: int, y: int) -> int:
        """Id of node ``(x, y)``."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"node ({x}, {y}) is outside the {self.width}x{self.height} mesh")
        return y * self.width + x

    def coords(self, node: int) -> tuple[int, int]:
        """``(x, y)`` of node id ``node``."""
        if not 0 <= node < self.size:
            raise ValueError(f"node id {node} is outside the {self.width}x{self.height} mesh")
        return (node % self.width, node // self.width)

    def distance(self, a: int, b: int) -> int:
        """Hop distance (Manhattan) between node ids ``a`` and ``b``."""
        ax, ay = self.coords(a)
        bx, by = self.coords(b)
        return abs(ax - bx) + abs(ay - by)

    def distances(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Element-wise hop distances between the node-id arrays ``a`` and ``b`` (of one length, or
        one of length 1), O(n). Ids outside the mesh raise ``ValueError``.

        >>> Mesh(4, 3).distances([0, 0, 5], [11, 0, 6]).tolist()
        [5, 0, 1]
        """
        u, v = node_array(a, self), node_array(b, self)
        check_pair_range(u, v, self)
        uy, ux = np.divmod(u, self.width)
        vy, vx = np.divmod(v, self.width)
        return np.abs(ux - vx) + np.abs(uy - vy)

    # -- the Network protocol: links, routes, traffic ----------------------------------------
    @property
    def n_links(self) -> int:
        """Number of links: ``H (W - 1)`` horizontal and ``(H - 1) W`` vertical ones."""
        return self.height * (self.width - 1) + (self.height - 1) * self.width

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
        many next to ``W + H`` it is computed from the count of each coordinate instead, O(n + W + H).
        No pairwise loop. Ids outside the mesh raise ``ValueError``.

        >>> Mesh(8, 8).hop_sum([0, 1, 8, 9])    # a 2 x 2 square: 4 pairs at 1 hop, 2 at 2
        8.0
        """
        a = node_array(nodes, self)
        n = len(a)
        if n < 2:
            check_range(a, self)
            return 0.0
        y, x = np.divmod(a, self.width)
        if n * 4 > self.width + self.height:  # counts per coordinate: O(n + W + H), no sort
            try:
                cy = np.bincount(y)
            except ValueError:  # a negative id
                raise outside_error(a, self) from None
            if len(cy) > self.height:
                raise outside_error(a, self)
            return _pair_sum_counts(np.bincount(x)) + _pair_sum_counts(cy)
        sy = np.sort(y)
        if sy[0] < 0 or sy[-1] >= self.height:
            raise outside_error(a, self)
        return _pair_sum_sorted(np.sort(x)) + _pair_sum_sorted(sy)

    def links(self) -> np.ndarray:
        """Every link as a row ``(u, v)``, ``u < v``, in link-id order: the horizontal links
        ``(x, y)-(x + 1, y)`` row by row (id ``y (W - 1) + x``), then the vertical ones
        ``(x, y)-(x, y + 1)`` (id ``H (W - 1) + y W + x``). Shape ``(n_links, 2)``.

        >>> Mesh(3, 2).links().tolist()
        [[0, 1], [1, 2], [3, 4], [4, 5], [0, 3], [1, 4], [2, 5]]
        """
        W, H = self.width, self.height
        hy, hx = np.divmod(np.arange(H * (W - 1)), max(W - 1, 1))
        h = hy * W + hx
        v = np.arange((H - 1) * W)
        return np.concatenate([np.stack([h, h + 1], 1), np.stack([v, v + W], 1)]).astype(np.int64)

    def route(self, a: int, b: int) -> np.ndarray:
        """The link ids a message from node ``a`` to node ``b`` crosses under XY routing, in order:
        along ``a``'s row to ``b``'s column, then along that column. ``distance(a, b)`` links.

        >>> Mesh(4, 3).route(7, 8).tolist()     # (3, 1) -> (0, 2): three links left, one up
        [5, 4, 3, 13]
        """
        (ax, ay), (bx, by) = self.coords(a), self.coords(b)
        W = self.width
        xs = np.arange(ax, bx) if bx >= ax else np.arange(ax - 1, bx - 1, -1)  # link x joins x and x + 1
        ys = np.arange(ay, by) if by >= ay else np.arange(ay - 1, by - 1, -1)
        return np.concatenate([ay * (W - 1) + xs, self.height * (W - 1) + ys * W + bx]).astype(np.int64)

    def link_traffic(self, nodes: ArrayLike) -> np.ndarray:
        """Per link (:meth:`links` order), the messages of one all-to-all round among ``nodes``
        (distinct ids; one message per ordered pair, ``n (n - 1)`` in all) that cross it under XY
        routing, both directions counted together. Its sum is twice :meth:`hop_sum`.

        Counted, not routed: the horizontal link ``x..x+1`` of row ``y`` carries the messages of
        the row's nodes at or left of ``x`` to every node right of ``x`` (any row: the message turns
        in the destination's column), and back; the vertical link ``y..y+1`` of column ``x``
        carries the messages to the column's nodes above ``y`` from every node at or below row
        ``y``, and back. Prefix sums of a count grid: O(W H) vectorised, int64.

        >>> Mesh(3, 1).link_traffic([0, 1, 2]).tolist()
        [4, 4]
        """
        a = node_array(nodes, self)
        W, H = self.width, self.height
        try:
            grid = np.bincount(a, minlength=W * H)
        except ValueError:  # a negative id
            raise outside_error(a, self) from None
        if len(grid) > W * H:
            raise outside_error(a, self)
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

        **Interpretation.** Their O(n^7.5) dynamic programme is too slow for a baseline, so the
        shape comes from a search (:func:`_compact_shape`): the ``n`` cells nearest (Euclidean) to
        each of the four half-integer centre offsets of a window of side ``2 ceil(sqrt(n)) + 3``
        (clipped to the mesh, so a narrow mesh gives a rounded band) and the row-by-row
        near-square, each improved by exchanging a cell of the set with a free cell while that
        lowers the total distance; the least total wins. So it is never less compact than the
        near-square; it equals the published optimum for every ``n <= 49`` (the tabulated sizes,
        checked by the tests on meshes from 10x10 up) and an exhaustive search over small squares;
        for larger ``n`` it is a local optimum, not a proof of optimality.

        O(n) per call after the first for a size (the shape is cached per ``(n, width, height)``);
        the first costs O(n^1.5) numpy work per exchange round.

        >>> Mesh(8, 8).compact_nodes(4).tolist()
        [0, 1, 8, 9]
        >>> Mesh(8, 8).hop_sum(Mesh(8, 8).compact_nodes(7)), Mesh(8, 8).hop_sum([0, 1, 2, 8, 9, 10, 16])
        (38.0, 40.0)
        """
        if type(n) is not int or not 0 < n <= self.size:
            n = count_request(n, self.size, f"the {self.width}x{self.height} mesh")
        return _compact_shape(n, self.width, self.height).copy()

    def to_networkx(self) -> nx.Graph:
        """The mesh as a networkx grid graph, relabelled to the integer node ids."""
        import networkx as nx

        g = nx.grid_2d_graph(self.width, self.height)
        return nx.relabel_nodes(g, {(x, y): y * self.width + x for x, y in g.nodes})

    def validate_request(self, request: Sequence[int], *, rotate: bool = False) -> tuple[int, int]:
        """Return ``request`` as a ``(w, h)`` tuple of ints or raise.

        :class:`RequestTypeError` if it is not a pair of integers; :class:`RequestSizeError` if a
        side is < 1 or the rectangle does not fit the mesh (in either orientation when ``rotate``).
        """
        if isinstance(request, (str, bytes)) or not isinstance(request, (tuple, list, np.ndarray)):
            raise RequestTypeError(
                f"a request on a mesh is a (width, height) pair, got {request!r} ({type(request).__name__})"
            )
        if len(request) != 2:
            raise RequestTypeError(f"a request on a mesh is a (width, height) pair, got {request!r}")
        w = request_int(request[0], "a mesh request's width")
        h = request_int(request[1], "a mesh request's height")
        if w <= 0 or h <= 0:
            raise RequestSizeError(f"a mesh request needs both sides >= 1, got ({w}, {h})")
        fits = w <= self.width and h <= self.height
        if not fits and not (rotate and h <= self.width and w <= self.height):
            raise RequestSizeError(
                f"request ({w}, {h}) is larger than the {self.width}x{self.height} mesh"
            )
        return (w, h)

    def request_size(self, request: tuple[int, int]) -> int:
        """Processors a ``(w, h)`` request occupies."""
        return request[0] * request[1]

    def request_for(self, n: int) -> tuple[int, int]:
        """The near-square ``(w, h)`` a job of ``n`` processors asks for.

        ``w = ceil(sqrt(n))`` and ``h = ceil(n / w)``, so ``w >= h``, ``w * h >= n`` and the waste
        ``w * h - n`` is less than ``w``. If ``w`` exceeds the mesh width it is clamped to the width
        (``h = ceil(n / width)``); if ``h`` then exceeds the height, ``h`` is clamped and
        ``w = ceil(n / height)``. ``n`` larger than the mesh raises :class:`RequestSizeError`.
        """
        n = request_int(n, "a processor count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 processor, got {n}")
        if n > self.size:
            raise RequestSizeError(f"{n} processors do not fit the {self.width}x{self.height} mesh")
        w = math.isqrt(n - 1) + 1
        h = -(-n // w)
        if w > self.width:
            w, h = self.width, -(-n // self.width)
        if h > self.height:
            h, w = self.height, -(-n // self.height)
        return (w, h)


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
    return pos * at_or_below - sum_below + (int(sum_below[-1]) - sum_below) - pos * (n - at_or_below)


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
        inside = np.zeros(rh * rw, dtype=bool)
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

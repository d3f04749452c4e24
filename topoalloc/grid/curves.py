"""One-dimensional allocation along a space-filling curve on a mesh or torus of any dimension: a
d-dimensional Hilbert curve and the boustrophedon ("snake"), with first fit, best fit, sum of squares
and the sorted free list."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from topologies import Mesh

from ..errors import UnknownOptionError
from ..mesh.curves import curve_order as curve_order_2d
from .noncontig import GridNoncontiguousAllocator

__all__ = ["Curve", "CURVES", "FITS", "grid_curve_order", "hilbert_order", "snake_order"]

#: Curves the nodes can be ordered along.
CURVES = ("hilbert", "snake")
#: Rules choosing the nodes along the curve.
FITS = ("first", "best", "sum_of_squares", "free_list")
_FIT_ALIASES = {"first": "first", "firstfit": "first", "best": "best", "bestfit": "best",
                "sumofsquares": "sum_of_squares", "sos": "sum_of_squares", "freelist": "free_list",
                "sortedfreelist": "free_list", "sorted": "free_list"}


def _key(value: object) -> str | None:
    return "".join(ch for ch in value.lower() if ch.isalnum()) if isinstance(value, str) else None


def _ids(coords: list[np.ndarray], dims: tuple[int, ...]) -> np.ndarray:
    ids = np.zeros_like(coords[0])
    stride = 1
    for c, L in zip(coords, dims, strict=True):
        ids += c * stride
        stride *= L
    return ids


def hilbert_order(dims: tuple[int, ...]) -> np.ndarray:
    """Node ids of a box of sides ``dims`` (x first) in the order of the ``d``-dimensional Hilbert
    curve of the smallest power-of-two cube holding it (side ``2^b``), restricted to the box.

    The index of a point comes from Skilling's transform (J. Skilling, "Programming the Hilbert
    curve", AIP Conf. Proc. 707, 381-387, 2004: ``AxesToTranspose``, then the bits of the
    transposed coordinates interleaved, most significant first), computed for every node at once:
    O(P b d) vectorised, then a sort. On a power-of-two cube it is the Hilbert curve: consecutive
    nodes are neighbours and every aligned run of ``2^(d j)`` positions is an aligned cube of side
    ``2^j``. On any other box the restriction may step between non-neighbours (the 2D allocators
    use the generalized curve of :func:`topoalloc.mesh.curve_order` instead, which has no jumps;
    :func:`grid_curve_order` does too for ``d == 2``).

    >>> hilbert_order((2, 2)).tolist()
    [0, 2, 3, 1]
    >>> hilbert_order((2, 2, 2)).tolist()
    [0, 4, 6, 2, 3, 7, 5, 1]
    """
    d = len(dims)
    P = math.prod(dims)
    grid = np.unravel_index(np.arange(P, dtype=np.int64), dims[::-1])[::-1]  # x first
    X = [np.asarray(c, dtype=np.int64).copy() for c in grid]
    b = max(1, max(L - 1 for L in dims).bit_length())
    Q = 1 << (b - 1)
    while Q > 1:  # undo the excess work: invert or exchange low bits, from the top bit down
        low = Q - 1
        for i in range(d):
            hit = (X[i] & Q) != 0
            t = (X[0] ^ X[i]) & low
            if i == 0:
                X[0] = np.where(hit, X[0] ^ low, X[0])
            else:
                X[0], X[i] = np.where(hit, X[0] ^ low, X[0] ^ t), np.where(hit, X[i], X[i] ^ t)
        Q >>= 1
    for i in range(1, d):  # Gray encode
        X[i] ^= X[i - 1]
    t = np.zeros(P, dtype=np.int64)
    Q = 1 << (b - 1)
    while Q > 1:
        t = np.where((X[d - 1] & Q) != 0, t ^ (Q - 1), t)
        Q >>= 1
    for i in range(d):
        X[i] ^= t
    index = np.zeros(P, dtype=np.int64)
    for bit in range(b - 1, -1, -1):
        for i in range(d):
            index = (index << 1) | ((X[i] >> bit) & 1)
    return np.argsort(index, kind="stable").astype(np.int64)


def snake_order(dims: tuple[int, ...]) -> np.ndarray:
    """Node ids of a box of sides ``dims`` (x first) in boustrophedon order: x runs forward along
    the first row, back along the next, and so on; each time a row ends the next dimension moves
    one step, and its direction too reverses each time the dimension above it moves (the
    reflected mixed-radix Gray code). Consecutive nodes are neighbours; in 2D, even rows run left
    to right and odd rows right to left. O(P d) vectorised.

    >>> snake_order((3, 2)).tolist()
    [0, 1, 2, 5, 4, 3]
    >>> snake_order((2, 2, 2)).tolist()
    [0, 1, 3, 2, 6, 7, 5, 4]
    """
    P = math.prod(dims)
    p = np.arange(P, dtype=np.int64)
    coords = []
    below = 1
    for L in dims:
        q = (p // below) % L
        runs = p // (below * L)
        coords.append(np.where(runs % 2 == 1, L - 1 - q, q))
        below *= L
    return _ids(coords, dims)


def grid_curve_order(dims: tuple[int, ...], curve: str = "hilbert") -> np.ndarray:
    """Node ids of a mesh of sides ``dims`` in the order of ``curve``: ``"snake"``
    (:func:`snake_order`) or ``"hilbert"`` -- for ``d == 2`` the generalized Hilbert curve of
    :func:`topoalloc.mesh.curve_order` (so the 2D allocators and these agree), otherwise
    :func:`hilbert_order`. An unknown curve raises :class:`~topoalloc.UnknownOptionError`.

    >>> grid_curve_order((4, 4)).tolist() == curve_order_2d(4, 4).tolist()
    True
    """
    key = _key(curve)
    if key not in CURVES:
        raise UnknownOptionError(f"unknown curve {curve!r}; choose from {', '.join(CURVES)}")
    if key == "snake":
        return snake_order(dims)
    if len(dims) == 2:
        return curve_order_2d(dims[0], dims[1], "hilbert")
    return hilbert_order(dims)


class Curve(GridNoncontiguousAllocator):
    """One-dimensional allocation along a curve (Leung, Arkin, Bender, Bunde, Johnston, Lal,
    Mitchell, Phillips & Seiden, "Processor allocation on Cplant: achieving general processor
    locality using one-dimensional allocation strategies", IEEE Cluster 2002, §3), on a mesh or
    torus of any dimension, as the SST scheduler's linear allocators had it on 3D machines.

    The nodes are ordered along a curve (:func:`grid_curve_order`: ``"hilbert"`` or ``"snake"``),
    which turns the machine into a line; the free nodes form maximal *intervals* of consecutive
    curve positions. A request for ``n`` processors takes, by the rule ``fit``:

    * ``"first"`` (first fit): the first ``n`` positions of the lowest free interval of length
      ``>= n``;
    * ``"best"`` (best fit): of the shortest such interval (the lowest of equal ones);
    * ``"sum_of_squares"``: of the interval whose use leaves the smallest ``sum_L N(L)^2``,
      ``N(L)`` the number of free intervals of length ``L`` (the paper's adaptation of the bin-packing
      rule of Csirik, Johnson, Kenyon, Shor & Weber; the lowest on ties);
    * ``"free_list"`` (the sorted free list, SST's ``SortedFreeListAllocator``): the first ``n``
      free nodes along the curve, intervals or not.

    With the first three, when no free interval is long enough the paper minimises the *span*
    instead: the ``n`` free nodes taken are consecutive among the free nodes in curve order, chosen
    to minimise the distance along the curve between the first and the last (the lowest such run
    on ties). So ``allocate`` fails only when fewer than ``n`` nodes are free.

    **Torus.** When the machine wraps and the curve's last node is a neighbour of its first (the
    Hilbert curve of a power-of-two cube and the snake of sides with suitable parities are closed
    on a torus; :attr:`cyclic`), the curve is a cycle: a free interval may run over its end back to
    its start (it then counts as starting where it starts, near the end), and the span is measured
    the shorter way, the same way round. Otherwise, and on a mesh, the curve is a line.

    Interpretations: an interval is used from its low end; ties go to the lowest curve position;
    the 3D Hilbert curve of a box that is not a power-of-two cube is a restriction with jumps
    (:func:`hilbert_order`). On a 2D mesh without wrap the grants are those of
    :class:`topoalloc.mesh.Curve` (whose fits are the first three).

    Complexity: O(P) vectorised work per allocate (the interval edges of the free mask in curve
    order, one pass over the intervals or the free nodes), O(n) per release; construction
    O(P log P).

    >>> from topologies import Mesh
    >>> c = Curve(Mesh(4, 4), curve="hilbert", fit="best")
    >>> a = c.allocate(3); b = c.allocate(6); c.release(a)   # free: positions 0-2 and 9-15
    >>> c.allocate(2).nodes.tolist(), c.allocate(4).nodes.tolist()  # the 3-hole, then the long run
    ([0, 1], [7, 11, 14, 15])
    >>> s = Curve(Mesh(4, 4), curve="snake", fit="free_list"); x = s.allocate(2); y = s.allocate(3)
    >>> s.release(x); s.allocate(4).nodes.tolist()   # positions 0, 1, then 5, 6 (ids 6, 5)
    [0, 1, 5, 6]
    """

    def __init__(self, topology: Mesh, curve: str = "hilbert", fit: str = "best") -> None:
        super().__init__(topology)
        key = _key(curve)
        if key not in CURVES:
            raise UnknownOptionError(f"unknown curve {curve!r}; choose from {', '.join(CURVES)}")
        found = _FIT_ALIASES.get(_key(fit) or "")
        if found is None:
            raise UnknownOptionError(f"unknown fit {fit!r}; choose from {', '.join(FITS)}")
        self.curve: str = key
        self.fit: str = found
        P = self._size
        order = grid_curve_order(self.dims, key)
        order.flags.writeable = False
        #: Node ids in curve order (read-only) and each node's position on the curve.
        self.order: np.ndarray = order
        position = np.empty(P, dtype=np.int64)
        position[order] = np.arange(P)
        position.flags.writeable = False
        self.position: np.ndarray = position
        #: Whether the curve closes into a cycle on this machine (its ends are neighbours).
        self.cyclic: bool = P > 2 and any(self.ring) and self._neighbours(int(order[0]), int(order[-1]))
        self._buf = np.zeros(P + 2, dtype=bool)  # free mask in curve order with a busy guard each side
        self._free_c = self._buf[1:-1]
        self._free_c[:] = True

    def _neighbours(self, a: int, b: int) -> bool:
        hops = 0
        for L, r in zip(self.dims, self.ring, strict=True):
            da = abs(a % L - b % L)
            hops += min(da, L - da) if r else da
            a //= L
            b //= L
        return hops == 1

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)`` of the maximal free intervals, in curve positions, lowest first (on a
        cyclic curve an interval over the end counts once, from its start near the end)."""
        return self._intervals(self._buf)

    def _intervals(self, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        edges = np.flatnonzero(buf[1:] != buf[:-1])
        starts = edges[0::2]
        lengths = edges[1::2] - starts
        if self.cyclic and len(starts) > 1 and buf[1] and buf[-2]:
            lengths = lengths[1:].copy()
            lengths[-1] += edges[1] - edges[0]
            starts = starts[1:]
        return starts, lengths

    def _positions(self, buf: np.ndarray, n: int) -> np.ndarray:
        """Curve positions of the ``n`` nodes the rule takes from the guarded free mask ``buf``."""
        if self.fit == "free_list":
            return np.flatnonzero(buf)[:n] - 1
        P = self._size
        starts, lengths = self._intervals(buf)
        fits = lengths >= n
        if fits.any():
            if self.fit == "first":
                i = int(fits.argmax())
            elif self.fit == "best":
                i = int(np.where(fits, lengths, P + 1).argmin())
            else:
                count = np.bincount(lengths)
                L = lengths[fits]
                rest = L - n
                delta = 1 - 2 * count[L] + np.where(rest > 0, 2 * count[rest] + 1, 0)
                i = int(np.flatnonzero(fits)[delta.argmin()])
            s = int(starts[i])
            pos = np.arange(s, s + n)
            return pos % P if s + n > P else pos
        free = np.flatnonzero(buf) - 1  # no interval is long enough: the n consecutive free nodes of least span
        if self.cyclic:
            ext = np.concatenate((free, free + P))
            j = int((ext[n - 1: n - 1 + len(free)] - ext[: len(free)]).argmin())
            return ext[j: j + n] % P
        j = int((free[n - 1:] - free[: len(free) - n + 1]).argmin())
        return free[j: j + n]

    def _choose(self, n: int) -> np.ndarray:
        pos = self._positions(self._buf, n)
        self._free_c[pos] = False
        nodes: np.ndarray = self.order[pos]
        nodes.sort()
        return nodes

    def _choose_on(self, free: np.ndarray, n: int) -> np.ndarray:
        buf = np.zeros(self._size + 2, dtype=bool)
        buf[1:-1] = free[self.order]
        nodes: np.ndarray = self.order[self._positions(buf, n)]
        nodes.sort()
        return nodes

    def _give_back(self, nodes: np.ndarray) -> None:
        super()._give_back(nodes)
        self._free_c[self.position[nodes]] = True

    def _clone_state(self, twin: Any) -> None:
        twin._buf = self._buf.copy()
        twin._free_c = twin._buf[1:-1]

    def __repr__(self) -> str:
        return f"Curve({self.topology!r}, curve={self.curve!r}, fit={self.fit!r})"

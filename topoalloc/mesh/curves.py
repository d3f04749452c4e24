"""One-dimensional allocation along a space-filling curve (Leung, Arkin, Bender, Bunde, Johnston,
Lal, Mitchell, Phillips & Seiden, "Processor allocation on Cplant: achieving general processor
locality using one-dimensional allocation strategies", IEEE Cluster 2002)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from topologies import Mesh

from ..errors import UnknownOptionError
from .noncontig import NoncontiguousAllocator

__all__ = ["Curve", "CURVES", "FITS", "curve_order"]

#: Curves the nodes can be ordered along.
CURVES = ("hilbert", "snake")
#: Rules choosing among the free intervals.
FITS = ("first", "best", "sum_of_squares")
_FIT_ALIASES = {"first": "first", "firstfit": "first", "best": "best", "bestfit": "best",
                "sumofsquares": "sum_of_squares", "sos": "sum_of_squares"}


def _key(value: object) -> str | None:
    return "".join(ch for ch in value.lower() if ch.isalnum()) if isinstance(value, str) else None


@lru_cache(maxsize=256)
def _local(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells ``(u, v)`` of a ``w x h`` rectangle (``u`` along the major axis) along a generalized
    Hilbert curve from ``(0, 0)`` to ``(w - 1, 0)``. Read-only arrays (cached)."""
    if h == 1 or w == 1:
        line = np.arange(max(w, h), dtype=np.int64)
        zero = np.zeros_like(line)
        u, v = (line, zero) if h == 1 else (zero, line)
    elif 2 * w > 3 * h:  # long: two halves side by side, the first of even length
        a2 = w // 2
        if a2 % 2 and w > 2:
            a2 += 1
        u1, v1 = _local(a2, h)
        u2, v2 = _local(w - a2, h)
        u, v = np.concatenate((u1, u2 + a2)), np.concatenate((v1, v2))
    else:  # up the left part, across the top, down the right part
        b2 = h // 2
        if b2 % 2 and h > 2:
            b2 += 1
        a2 = w // 2
        p1, q1 = _local(b2, a2)  # [0, a2) x [0, b2), major axis up
        p2, q2 = _local(w, h - b2)  # [0, w) x [b2, h), major axis right
        p3, q3 = _local(b2, w - a2)  # [a2, w) x [0, b2), major axis down
        u = np.concatenate((q1, p2, w - 1 - q3))
        v = np.concatenate((p1, b2 + q2, b2 - 1 - p3))
    u.flags.writeable = False
    v.flags.writeable = False
    return u, v


def curve_order(width: int, height: int, curve: str = "hilbert") -> np.ndarray:
    """Node ids (``y * width + x``) of a ``width x height`` mesh in the order of ``curve``.

    ``"hilbert"``: a generalized Hilbert curve for any rectangle, built by the recursive split of
    Červený's "gilbert" construction: a rectangle whose major side is more than 1.5 times the
    other is cut into two halves along it, otherwise into a lower-left part, an upper band and a
    lower-right part; the halves are chosen even where possible. On a ``2^k x 2^k`` mesh it is the
    Hilbert curve (every aligned ``4^j`` run of positions is an aligned ``2^j x 2^j`` square), from
    ``(0, 0)`` to ``(width - 1, 0)``, the major axis along the longer side. Consecutive nodes are
    mesh neighbours, except for at most one diagonal step on a mesh with one odd and one even side
    (the tests check sides up to 19). ``"snake"``: the
    boustrophedon, even rows left to right, odd rows right to left. O(P log P) vectorised work.

    >>> curve_order(4, 4).tolist()
    [0, 1, 5, 4, 8, 12, 13, 9, 10, 14, 15, 11, 7, 6, 2, 3]
    >>> curve_order(3, 2, "snake").tolist()
    [0, 1, 2, 5, 4, 3]
    """
    key = _key(curve)
    if key == "snake":
        y, x = np.divmod(np.arange(width * height, dtype=np.int64), width)
        return y * width + np.where(y % 2 == 1, width - 1 - x, x)
    if key != "hilbert":
        raise UnknownOptionError(f"unknown curve {curve!r}; choose from {', '.join(CURVES)}")
    if width >= height:
        x, y = _local(width, height)
    else:
        y, x = _local(height, width)
    return y * width + x


class Curve(NoncontiguousAllocator):
    """One-dimensional allocation along a curve (Leung, Arkin, Bender, Bunde, Johnston, Lal,
    Mitchell, Phillips & Seiden, "Processor allocation on Cplant: achieving general processor
    locality using one-dimensional allocation strategies", IEEE Cluster 2002, §3).

    The nodes are ordered along a curve (:func:`curve_order`: ``"hilbert"``, a Hilbert curve as in
    the paper, or ``"snake"``, a boustrophedon), which turns the mesh into a line; the free nodes form maximal
    *intervals* of consecutive curve positions. A request for ``n`` processors (``w * h`` for
    ``(w, h)``) takes the first ``n`` positions of one free interval of length ``>= n``, chosen by
    the bin-packing rule ``fit``:

    * ``"first"`` (first fit): the interval lowest on the curve;
    * ``"best"`` (best fit): the shortest one (the lowest of equal ones);
    * ``"sum_of_squares"`` (the sum-of-squares rule of Csirik, Johnson, Kenyon, Shor & Weber, as the
      paper adapts it): with ``N(L)`` the number of free intervals of length ``L``, the interval
      whose use leaves the smallest ``sum_L N(L)^2`` (the lowest on ties).

    When no free interval is long enough the paper minimises the *span* instead: the ``n`` free
    nodes taken are consecutive among the free nodes in curve order, chosen to minimise the
    distance along the curve between the first and the last (the lowest such run on ties). So
    ``allocate`` fails only when fewer than ``n`` nodes are free (``recognition = "any"``), and a
    grant is one contiguous curve interval whenever one exists.

    Interpretations: an interval is used from its low end; on meshes that are not power-of-two
    squares the Hilbert curve is the generalized one of :func:`curve_order` (no jumps, unlike a
    power-of-two Hilbert curve clipped to the mesh); ties go to the lowest curve position.

    Complexity: O(P) vectorised work per allocate (the interval edges of the free mask in curve
    order, one pass over the ``I`` intervals for the rule, or over the free nodes for the span),
    O(n) per release; construction O(P log P).

    >>> from topologies import Mesh
    >>> c = Curve(Mesh(4, 4), curve="hilbert", fit="best")
    >>> a = c.allocate(3); b = c.allocate(6); c.release(a)   # free: positions 0-2 and 9-15
    >>> c.allocate(2).nodes.tolist(), c.allocate(4).nodes.tolist()  # the 3-hole, then the long run
    ([0, 1], [7, 11, 14, 15])
    >>> Curve(Mesh(4, 4), fit="first").allocate((2, 2)).nodes.tolist()
    [0, 1, 4, 5]
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
        P = self.width * self.height
        order = curve_order(self.width, self.height, key)
        order.flags.writeable = False
        #: Node ids in curve order (read-only) and each node's position on the curve.
        self.order: np.ndarray = order
        self.position: np.ndarray = np.empty(P, dtype=np.int64)
        self.position[order] = np.arange(P)
        self.position.flags.writeable = False
        self._buf = np.zeros(P + 2, dtype=bool)  # free mask in curve order with a busy guard each side
        self._free_c = self._buf[1:-1]
        self._free_c[:] = True

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)`` of the maximal free intervals, in curve positions, lowest first."""
        buf = self._buf
        edges = np.flatnonzero(buf[1:] != buf[:-1])
        starts = edges[0::2]
        return starts, edges[1::2] - starts

    def _choose(self, n: int) -> np.ndarray:
        starts, lengths = self.intervals()
        fits = lengths >= n
        if fits.any():
            if self.fit == "first":
                i = int(fits.argmax())
            elif self.fit == "best":
                i = int(np.where(fits, lengths, len(self._buf)).argmin())
            else:
                count = np.bincount(lengths)
                L = lengths[fits]
                rest = L - n
                delta = 1 - 2 * count[L] + np.where(rest > 0, 2 * count[rest] + 1, 0)
                i = int(np.flatnonzero(fits)[delta.argmin()])
            s = int(starts[i])
            pos = np.arange(s, s + n)
            self._free_c[s: s + n] = False
        else:  # no interval is long enough: the n consecutive free nodes of least span
            free = np.flatnonzero(self._free_c)
            j = int((free[n - 1:] - free[: len(free) - n + 1]).argmin())
            pos = free[j: j + n]
            self._free_c[pos] = False
        nodes = self.order[pos]
        nodes.sort()
        return nodes

    def _give_back(self, nodes: np.ndarray) -> None:
        super()._give_back(nodes)
        self._free_c[self.position[nodes]] = True

    def __repr__(self) -> str:
        return f"Curve({self.topology!r}, curve={self.curve!r}, fit={self.fit!r})"

"""Non-contiguous allocation on a mesh or torus of any dimension: the shared surface, the ``Random``
baseline, and the distance-ordered neighbour tables the centre-based allocators (``MC1x1``, ``MM``)
read.

A non-contiguous allocator grants any free nodes, not a box: external fragmentation disappears and
the price is communication distance, which the locality-seeking allocators of this package keep
low. They all share :class:`GridNoncontiguousAllocator`. The two-dimensional allocators of
:mod:`topoalloc.mesh` stay as they are (with their 2D fast paths); on a 2D mesh without wrap these
make the same grants (the tests check it for ``Random``, ``MBS``, ``Curve`` and ``MC1x1``).
"""

from __future__ import annotations

import bisect
import copy
import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar, Self

import numpy as np

from topologies import Mesh, RequestSizeError
from topologies.base import request_int

from .._memory import check_memory, physical_memory
from ..base import Allocation, Allocator
from ..errors import AllocatorParameterError

__all__ = ["GridNoncontiguousAllocator", "Random", "grid_geometry", "neighbour_table", "NeighbourTable", "PairSums"]


def grid_geometry(topology: Any) -> tuple[tuple[int, ...], tuple[bool, ...], tuple[float, ...] | None]:
    """``(dims, ring, weights)`` of a mesh or torus: the sides (x first), per dimension whether it
    wraps around as a ring (a wrapped dimension of one or two nodes has no link a line lacks, so it
    counts as a line), and the per-dimension link weights (``None``: all 1).

    A mesh without a ``dims`` attribute (a plain 2D :class:`~topologies.Mesh`) is
    ``(width, height)`` without wrap.

    >>> grid_geometry(Mesh(4, 3))
    ((4, 3), (False, False), None)
    """
    dims = getattr(topology, "dims", None)
    if dims is None:
        dims = (topology.width, topology.height)
    dims = tuple(int(L) for L in dims)
    ring = getattr(topology, "ring", None)
    if ring is None:
        wrap = getattr(topology, "wrap", False)
        wrap = (bool(wrap),) * len(dims) if isinstance(wrap, bool) else tuple(wrap)
        ring = tuple(bool(w) and L >= 3 for w, L in zip(wrap, dims, strict=True))
    ring = tuple(bool(r) for r in ring)
    weights = getattr(topology, "weights", None)
    if weights is not None:
        weights = tuple(float(w) for w in weights)
        if all(w == 1.0 for w in weights):
            weights = None
    return dims, ring, weights


def _strides(dims: Sequence[int]) -> tuple[int, ...]:
    out, s = [], 1
    for L in dims:
        out.append(s)
        s *= L
    return tuple(out)


def _coords(dims: tuple[int, ...]) -> np.ndarray:
    """``(P, d)`` int64 coordinates of every node id, x first."""
    P = math.prod(dims)
    return np.stack(np.unravel_index(np.arange(P, dtype=np.int64), dims[::-1])[::-1], axis=1).astype(np.int64)


#: Largest neighbour table (bytes, its row prefixes included) the centre-based allocators build; a
#: larger machine is refused.
MAX_TABLE_BYTES = 1 << 29


def table_bytes(size: int) -> int:
    """Bytes of a :class:`NeighbourTable` for a machine of ``size`` nodes: the table and its row
    prefixes (at most about 2.5 times as much again)."""
    return 4 * size * size * (8 if size * size * 8 <= 1 << 26 else 4)


def check_table(who: str, topology: Any, size: int) -> None:
    """Refuse (:class:`~topoalloc.MachineTooLargeError`) a machine whose neighbour table would need
    more than :data:`MAX_TABLE_BYTES` or half the host's memory. O(1)."""
    host = physical_memory()
    limit = MAX_TABLE_BYTES if host is None else min(MAX_TABLE_BYTES, host // 2)
    check_memory(who, topology, size, table_bytes(size) // size, limit=limit)


class NeighbourTable:
    """Every node's list of all nodes by distance, and the search of a centre's nearest free nodes.

    ``rows`` is a read-only ``(P, P)`` array (int64, or int32 for a table above 64 MB): row ``c``
    lists every node id in order of distance from node ``c``. ``metric`` ``"l1"``: by the machine's
    hop distance (the L1 distance, the shorter way round on a ring, each dimension's displacement
    times its weight). ``"linf"``: by the L-infinity shell (the largest displacement, unweighted,
    the shorter way round a ring), then the hop distance. Ties go to the lowest node id. So the
    first ``k`` free nodes of a row are ``c``'s ``k`` nearest free nodes under that rule.

    Built in O(P^2 log P) time in row blocks (:func:`neighbour_table` caches one per geometry);
    O(P^2) memory, checked by the callers with :func:`check_table`.

    >>> t = neighbour_table((3, 3), (False, False), None, "l1")
    >>> t.rows[4].tolist()                                   # the centre of a 3 x 3 mesh
    [4, 1, 3, 5, 7, 0, 2, 6, 8]
    >>> free = np.array([1, 0, 1, 0, 0, 1, 1, 1, 1], dtype=bool)
    >>> t.nearest(np.array([0, 4]), free, 3).tolist()       # the 3 nearest free nodes of 0 and of 4
    [[0, 2, 6], [5, 7, 0]]
    >>> neighbour_table((4,), (True,), None, "l1").rows[0].tolist()    # a ring of 4
    [0, 1, 3, 2]
    """

    def __init__(self, dims: tuple[int, ...], ring: tuple[bool, ...], weights: tuple[float, ...] | None,
                 metric: str) -> None:
        d = len(dims)
        P = math.prod(dims)
        self.size = P
        coords = _coords(dims)
        Ls = np.array(dims, dtype=np.int64)
        is_ring = np.array(ring)
        w = None if weights is None else np.array(weights, dtype=np.float64)
        dtype = np.int64 if P * P * 8 <= 1 << 26 else np.int32
        table = np.empty((P, P), dtype=dtype)
        ids = np.arange(P, dtype=np.int64)
        l1_max = int(((Ls - 1) * 2).sum()) + 1
        chunk = max(1, (1 << 21) // max(1, P * d))
        for lo in range(0, P, chunk):
            hi = min(P, lo + chunk)
            absd = np.abs(coords[None, :, :] - coords[lo:hi, None, :])  # (rows, P, d)
            absd = np.where(is_ring, np.minimum(absd, Ls - absd), absd)
            if w is None:
                key = absd.sum(axis=2)
                if metric == "linf":
                    key += absd.max(axis=2) * l1_max
                order = np.argsort(key * P + ids, axis=1)
            else:
                l1 = absd @ w
                tie = np.broadcast_to(ids, l1.shape)
                keys = (tie, l1) if metric == "l1" else (tie, l1, absd.max(axis=2))
                order = np.lexsort(keys, axis=-1)
            table[lo:hi] = order
        self._table = table  # writeable, private: numpy copies a read-only index array before every take
        self.rows: np.ndarray = table.view()
        self.rows.flags.writeable = False
        self._prefixes: dict[int, np.ndarray] = {P: table}
        self._widths = sorted({min(P, round(2 ** (step / 2))) for step in range(8, 2 * P.bit_length() + 2)} | {P})

    def prefix(self, m: int) -> np.ndarray:
        """The first ``m'`` entries of every row as a contiguous read-only array, ``m'`` the least width
        ``>= m`` of the series 16, 23, 32, 45, 64, ... (powers of the square root of two, rounded),
        or ``P``. Built once per width, O(P m'); all of them together take at most about 2.5 times
        the table's memory."""
        got = self._prefix(m).view()
        got.flags.writeable = False
        return got

    def _prefix(self, m: int) -> np.ndarray:
        """:meth:`prefix` itself, writeable (private: ``ndarray.take`` copies an index array that is
        not writeable, so the searches index with these)."""
        widths = self._widths
        width = widths[min(bisect.bisect_left(widths, m), len(widths) - 1)]
        got = self._prefixes.get(width)
        if got is None:
            got = self._prefixes[width] = np.ascontiguousarray(self._table[:, :width])
        return got

    def nearest(self, centres: np.ndarray | None, free: np.ndarray, n: int, nfree: int | None = None,
                columns: bool = False) -> np.ndarray:
        """``(C, n)`` node ids: row ``i`` the ``n`` first free nodes of the row of ``centres[i]`` in
        table order (``centres`` ``None``: every node, in id order). ``free`` is a boolean array
        over node ids marking at least ``n`` nodes (``nfree`` of them, counted here if not given).
        ``columns``: the transpose instead, ``(n, C)`` and contiguous (centre ``i``'s nodes in
        column ``i``), for callers that reduce over each centre's nodes (a reduction along the
        first axis runs over contiguous rows; one along the second pays per row).

        Rows are scanned in growing prefixes: a first prefix long enough for ``n`` free nodes at
        the present density (``1.5 n P / free + 8``), doubled for the rows still short. A pass gathers
        the free flags of the prefix and lists the free positions (row after row); row ``i``'s
        positions start at ``o_i``, found by a binary search of the list for the row's first
        position, and its first ``n`` free positions are entries ``o_i .. o_i + n - 1``. O(C m) for
        a prefix of ``m`` entries (and O(C log(C m)) for the searches), a few numpy calls per pass."""
        if nfree is None:
            nfree = int(np.count_nonzero(free))
        first = np.arange(n)[:, None] if columns else np.arange(n)
        return self._first_free(centres, free, n, -(-3 * n * self.size // (2 * max(1, nfree))) + 8, first)

    def _first_free(self, centres: np.ndarray | None, free: np.ndarray, n: int, m: int,
                    first: np.ndarray) -> np.ndarray:
        """One pass of :meth:`nearest` over a prefix of at least ``m`` entries (``first``: the
        offsets ``0 .. n - 1``, a column for the transposed layout); the rows still short are done
        again over twice the prefix and written over their places."""
        rows = self._prefix(m)
        if centres is not None:
            rows = rows[centres]
        R, width = rows.shape
        spots = np.flatnonzero(free.take(rows))
        bounds = spots.searchsorted(np.arange(0, (R + 1) * width, width))  # row r's free: bounds[r] ..
        starts = bounds[:-1]
        columns = first.ndim == 2
        idx = first + starts if columns else starts[:, None] + first
        if width == self.size:
            return rows.ravel().take(spots.take(idx))
        if not len(spots):  # no free node in any of these prefixes
            return self._first_free(centres, free, n, 2 * width, first)
        short = np.flatnonzero(bounds[1:] - starts < n)
        if not len(short):
            return rows.ravel().take(spots.take(idx))
        got = rows.ravel().take(spots.take(idx, mode="clip"))  # the short rows' entries are rewritten
        redo = self._first_free(short if centres is None else centres[short], free, n, 2 * width, first)
        if columns:
            got[:, short] = redo
        else:
            got[short] = redo
        return got


@functools.lru_cache(maxsize=6)
def neighbour_table(dims: tuple[int, ...], ring: tuple[bool, ...], weights: tuple[float, ...] | None,
                    metric: str) -> NeighbourTable:
    """The :class:`NeighbourTable` of a geometry and ``metric`` (``"l1"`` or ``"linf"``), built once
    and shared (read-only) by every allocator of that geometry."""
    return NeighbourTable(dims, ring, weights, metric)


class PairSums:
    """The sum of the machine's distances over the unordered pairs of each of many node sets, from
    counts of the sets' nodes on one side of each of a few *cuts* of the machine.

    **Cuts.** A path of ``L`` nodes (a dimension without wrap) is cut between ``t`` and ``t + 1``
    for ``t = 0 .. L - 2``; two coordinates are ``|u - v|`` apart, the number of cuts between them.
    A ring of even ``L = 2h`` has ``h`` cuts, the arcs ``{t, .., t + h - 1}`` for ``t < h`` against
    the rest, and two coordinates are as far apart round the shorter way as the number of those arcs
    that hold exactly one of them (the even cycle is an isometric subgraph of a hypercube); a ring
    of odd ``L = 2h + 1`` has ``L`` cuts, the arcs ``{t, .., t + h}``, which separate two coordinates
    exactly twice their ring distance (so each counts half). So a set of ``n`` nodes of which
    ``f_q`` lie on the inner side of cut ``q`` has pairwise sum ``sum_q w_q f_q (n - f_q)``, ``w_q``
    the link weight of the cut's dimension (halved on an odd ring): the L1 distance is a sum over
    dimensions, and a pair contributes ``w_q`` to exactly the cuts that separate it. (The path and
    the even cycle are l1-embeddable with scale 1, the odd cycle with scale 2: Deza & Laurent,
    *Geometry of Cuts and Metrics*, Springer 1997; the tests check each case against the
    distances summed pair by pair.)

    **Counting.** Each node's side of every cut is one bit; the bits are stored in fields of ``b``
    bits of 64-bit words, ``b`` the bit length of ``n``, so that adding the words of ``n`` nodes
    adds every field without a carry (a field counts at most ``n < 2^b``). One gather of the sets'
    words and one sum per set give every ``f_q``. ``Q`` cuts (``Q = sum_j (L_j - 1)`` for lines,
    ``L_j / 2`` for even rings, ``L_j`` for odd ones; 12 on an 8 x 8 x 8 torus) take ``ceil(Q /
    floor(64 / b))`` words. O(C n w + C Q) for ``C`` sets of ``n`` nodes and ``w`` words, no
    per-set loop. Integer arithmetic throughout without weights (returned as float64); with weights
    the integer terms are weighted in float64, exact for integer (and half-integer) weights.

    >>> ps = PairSums((4, 4), (False, False), None)
    >>> ps(np.array([[0, 1, 4, 5], [0, 3, 12, 15]])).tolist()   # a 2 x 2 square; the four corners
    [8.0, 24.0]
    >>> PairSums((5,), (True,), None)(np.array([[0, 2, 3]])).tolist()   # a ring of 5: 2 + 2 + 1
    [5.0]
    """

    def __init__(self, dims: tuple[int, ...], ring: tuple[bool, ...], weights: tuple[float, ...] | None) -> None:
        coords = _coords(dims)
        sides: list[np.ndarray] = []
        cut_weights: list[float] = []
        for j, L in enumerate(dims):
            x = coords[:, j]
            w = 1.0 if weights is None else float(weights[j])
            if not ring[j]:
                sides += [x <= t for t in range(L - 1)]
                cut_weights += [w] * (L - 1)
            elif L % 2 == 0:
                sides += [(x - t) % L < L // 2 for t in range(L // 2)]
                cut_weights += [w] * (L // 2)
            else:
                sides += [(x - t) % L <= L // 2 for t in range(L)]
                cut_weights += [w / 2] * L
        #: ``(P, Q)``: whether each node lies on the inner side of each cut.
        self.sides: np.ndarray = np.stack(sides, axis=1) if sides else np.zeros((len(coords), 0), dtype=bool)
        #: Each cut's weight, or ``None`` when all are 1.
        self.cut_weights: np.ndarray | None = (
            None if all(w == 1.0 for w in cut_weights) else np.array(cut_weights, dtype=np.float64))
        self._packings: dict[int, tuple[np.ndarray, np.ndarray, np.uint64, np.ndarray | None]] = {}

    def packing(self, bits: int) -> tuple[np.ndarray, np.ndarray, np.uint64, np.ndarray | None]:
        """``(words, shifts, mask, weights)`` for fields of ``bits`` bits: ``words`` ``(P, w)``
        uint64, each node's cut bits, ``floor(64 / bits)`` fields per word; the fields' shifts; the
        field mask; the cut weights laid out as the fields (0 for unused fields; ``None`` when all
        are 1). Built once per field width, O(P Q)."""
        got = self._packings.get(bits)
        if got is None:
            per = max(1, 64 // bits)
            P, Q = self.sides.shape
            nwords = max(1, -(-Q // per))
            fields = np.zeros((P, nwords * per), dtype=np.uint64)
            fields[:, :Q] = self.sides
            shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
            words = np.ascontiguousarray((fields.reshape(P, nwords, per) << shifts).sum(axis=2, dtype=np.uint64))
            weights = None
            if self.cut_weights is not None:
                weights = np.zeros(nwords * per)
                weights[:Q] = self.cut_weights
            mask = np.uint64((1 << bits) - 1)  # bits < 64: a set has fewer than 2^63 nodes
            got = self._packings[bits] = (words, shifts, mask, weights)
        return got

    def __call__(self, sets: np.ndarray) -> np.ndarray:
        """``(C,)`` float64: the pairwise sum of each row of ``sets`` (``(C, n)`` node ids)."""
        return self.of_columns(np.ascontiguousarray(np.asarray(sets).T))

    def of_columns(self, sets: np.ndarray) -> np.ndarray:
        """``(C,)`` float64: the pairwise sum of each column of ``sets`` (``(n, C)`` node ids, as
        :meth:`NeighbourTable.nearest` gives them with ``columns=True``)."""
        n, C = sets.shape
        if n < 2:
            return np.zeros(C)
        words, shifts, mask, weights = self.packing(n.bit_length())
        if words.shape[1] == 1:
            totals = words[:, 0].take(sets).sum(axis=0)  # (C,): the fields hold the counts f_q
            f = (totals >> shifts[:, None]) & mask  # (fields, C)
        else:
            totals = words.take(sets, axis=0).sum(axis=0).T  # (w, C)
            f = ((totals[:, None, :] >> shifts[None, :, None]) & mask).reshape(-1, C)
        g = (np.uint64(n) - f) * f
        cost: np.ndarray = g.sum(axis=0).astype(np.float64) if weights is None else weights @ g.astype(np.float64)
        return cost


class GridNoncontiguousAllocator(Allocator):
    """Base of the non-contiguous allocators of a mesh or torus of any dimension
    (:class:`~topologies.Mesh`, wrap-around per dimension): ``n`` free nodes, wherever they are.

    **Requests.** A shape, as :meth:`Mesh.validate_request <topologies.Mesh.validate_request>`
    takes it (``d`` positive sides each within the machine's side, unturned; a shorter shape is
    padded with 1s), asks for the product of its sides; a plain processor count ``n``
    (``1 <= n <= size``) is accepted too. The granted request is the validated request (a shape
    as a full tuple); :meth:`request_size` is the number of nodes granted.

    **Placement.** The sorted array of granted node ids, and ``recognition = "any"``: ``allocate``
    returns ``None`` only when fewer than ``request_size(request)`` nodes are free.

    **Folding.** A shape folds as the contiguous mesh allocators fold it, generalised: its longest
    side is halved, rounding up (a tie halves the first such side, x before y before z: the 2D
    rule ``w >= h`` halves the width); a count ``n`` folds to ``ceil(n / 2)``; all-ones shapes and
    ``1`` do not fold.

    **State.** ``busy``, a boolean array over node ids. Subclasses implement :meth:`_choose_on`
    (the sorted ids of the ``n`` nodes the rule picks when exactly the nodes of a mask are free,
    without changing anything) and may keep more state by overriding :meth:`_choose`,
    :meth:`_take` and :meth:`_give_back`, and copy it in ``_clone_state``.

    **What-if.** :meth:`place_in` is the rule's own choice on the given free nodes (``_choose_on``),
    found directly; :meth:`covers` knows that a count that failed covers every larger one;
    ``allocate_avoiding`` and ``earliest_in`` are the generic defaults of
    :class:`~topoalloc.Allocator` (the second is already one ``place_in`` for an allocator that
    takes any free nodes). :meth:`clone` copies the free state directly for the classes of this
    package that define ``_clone_state`` (a subclass without its own falls back to the generic
    deep copy); read-only tables are shared.

    >>> from topologies import Mesh
    >>> a = Random(Mesh(4, 3))
    >>> a.request_size((2, 3)), a.request_size(5), a.fold((2, 3)), a.fold(5), a.fold(1)
    (6, 5, (2, 2), 3, None)
    """

    topology_types: ClassVar[tuple[type, ...]] = (Mesh,)
    recognition: ClassVar[str] = "any"
    #: Plain processor counts are valid requests.
    accepts_counts: ClassVar[bool] = True
    #: Bytes of state per node at least (the busy array and the occupancy view).
    BYTES_PER_NODE: ClassVar[int] = 9

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        check_memory(type(self).__name__, topology, topology.size, self.BYTES_PER_NODE)
        dims, ring, weights = grid_geometry(topology)
        #: Sides of the machine, x first; which dimensions wrap (as rings); per-dimension weights.
        self.dims: tuple[int, ...] = dims
        self.ring: tuple[bool, ...] = ring
        self.weights: tuple[float, ...] | None = weights
        self.ndim: int = len(dims)
        #: Which node ids are granted.
        self.busy: np.ndarray = np.zeros(self._size, dtype=bool)
        #: Nodes a request can ever get.
        self.capacity: int = self._size

    # -- requests -----------------------------------------------------------------------------
    def validate(self, request: Any) -> Any:
        """``request`` as an int count or a tuple shape, or a :class:`~topologies.RequestError`
        naming the bad value: :class:`~topologies.RequestTypeError` for something that is neither
        (or a shape with the wrong number of sides), :class:`~topologies.RequestSizeError` for a
        count or side below 1 or a request larger than the machine."""
        if type(request) is int:
            if 0 < request <= self.capacity:
                return request
        elif isinstance(request, numbers.Integral) and not isinstance(request, bool):
            request = int(request)
            if 0 < request <= self.capacity:
                return request
        elif isinstance(request, (tuple, list, np.ndarray)):
            return self._validate_shape(request)
        n = request_int(request, f"a request on {self.topology!r} (a processor count or a shape of "
                                 f"{self.ndim} sides)")
        if n <= 0:
            raise RequestSizeError(f"a request must ask for at least 1 processor, got {n}")
        raise RequestSizeError(f"request for {n} processors is larger than {self.topology!r} "
                               f"({self.capacity} processors)")

    def _validate_shape(self, request: Any) -> tuple[int, ...]:
        if type(request) is tuple and len(request) == self.ndim:  # fast path: an already canonical shape
            size = 1
            for s, L in zip(request, self.dims, strict=True):
                if type(s) is not int or not 0 < s <= L:
                    break
                size *= s
            else:
                if size <= self.capacity:
                    return request
        sides = tuple(self.topology.validate_request(request))  # a shorter shape is padded with 1s
        if math.prod(sides) > self.capacity:
            raise RequestSizeError(f"shape {sides} asks for {math.prod(sides)} nodes; {type(self).__name__} can "
                                   f"grant at most {self.capacity}")
        return sides

    def request_size(self, request: Any) -> int:
        """Nodes granted for ``request``: the product of a shape's sides, or the count."""
        r = self.validate(request)
        return r if type(r) is int else math.prod(r)

    def fold(self, request: Any) -> Any | None:
        """A shape's longest side halved, rounding up (ties: the first such side); a count ``n`` to
        ``ceil(n / 2)``; ``None`` for all-ones shapes and ``1``."""
        r = self.validate(request)
        if type(r) is int:
            return (r + 1) // 2 if r > 1 else None
        i = max(range(len(r)), key=lambda j: (r[j], -j))
        if r[i] == 1:
            return None
        return r[:i] + ((r[i] + 1) // 2,) + r[i + 1:]

    @property
    def occupancy(self) -> np.ndarray:
        """A fresh array of allocation ids (0 = free) laid out ``dims[::-1]`` (the 2D
        ``(height, width)``), so that its C-order ravel is the node-id order."""
        return super().occupancy.reshape(self.dims[::-1])

    def free_nodes(self) -> np.ndarray:
        """Ids of the free nodes, ascending."""
        return np.flatnonzero(~self.busy)

    # -- what-if ------------------------------------------------------------------------------
    def covers(self, failed: Any, request: Any) -> bool:
        """A request of at least as many nodes as one that failed fails too (any free nodes are
        recognised, so only the count matters)."""
        return self.request_size(request) >= self.request_size(failed)

    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """The nodes the allocator's rule picks for ``request`` when exactly the nodes marked in
        ``free`` (a boolean mask over node ids) are free, ascending; ``None`` when fewer than
        ``request_size(request)`` are marked. Changes nothing. :class:`Random` returns the lowest
        marked ids (its own choice depends on its random stream, which a what-if does not
        advance). A mask of the wrong length raises :class:`~topoalloc.AllocatorParameterError`."""
        n = self.request_size(request)
        mask = np.asarray(free, dtype=bool).ravel()
        if len(mask) != self._size:
            raise AllocatorParameterError(f"a free mask over {self._size} node ids was expected, got {len(mask)} "
                                          f"values")
        if int(np.count_nonzero(mask)) < n:
            return None
        return self._choose_on(mask, n)

    def clone(self) -> Self:
        """An independent copy (:meth:`Allocator.clone`): the busy array and the subclass's own state
        copied directly, read-only tables shared. O(P). A subclass that does not define its own
        ``_clone_state`` gets the generic deep copy."""
        if "_clone_state" not in type(self).__dict__:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        self._clone_state(twin)
        return twin

    def _clone_state(self, twin: Any) -> None:
        """Copy the subclass's mutable state other than ``busy`` into ``twin`` (a shallow copy)."""

    # -- placing ------------------------------------------------------------------------------
    def _place(self, request: Any) -> tuple[Any, np.ndarray, np.ndarray, int] | None:
        n = request if type(request) is int else math.prod(request)
        if n > self._free:
            return None
        nodes = self._choose(n)
        self._take(nodes)
        return request, nodes, nodes, n

    def _unplace(self, allocation: Allocation) -> int:
        nodes = allocation.placement
        self._give_back(nodes)
        return len(nodes)

    def _choose(self, n: int) -> np.ndarray:
        """The sorted ids of the nodes to grant for ``n`` processors (``n <= free``): by default
        the rule's choice on the present free nodes."""
        return self._choose_on(~self.busy, n)

    def _choose_on(self, free: np.ndarray, n: int) -> np.ndarray:
        """The rule's choice of ``n`` nodes when the nodes of ``free`` are free (at least ``n``),
        sorted; changes nothing. This default: the ``n`` lowest free ids."""
        return np.flatnonzero(free)[:n]

    def _take(self, nodes: np.ndarray) -> None:
        """Mark ``nodes`` granted (subclasses with more state extend it)."""
        self.busy[nodes] = True

    def _give_back(self, nodes: np.ndarray) -> None:
        """Mark ``nodes`` free again (subclasses with more state extend it)."""
        self.busy[nodes] = False


class Random(GridNoncontiguousAllocator):
    """Random allocation (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor allocation
    algorithms for mesh-connected multicomputers", IEEE TPDS 8(7), 1997, §3), on a mesh or torus of
    any dimension: a request for ``n`` processors gets ``n`` free nodes chosen uniformly at random
    (every ``n``-subset of the free nodes equally likely). Wrap-around changes nothing here.

    The allocator owns its random stream: ``seed`` (default ``0``) builds a
    :class:`numpy.random.Generator`; the same seed and calls give the same grants, and on a 2D mesh
    the same grants as :class:`topoalloc.mesh.Random` (one ``Generator.choice`` per allocate).
    :meth:`place_in` does not draw (it returns the lowest free ids).

    Complexity: O(P) vectorised work per allocate (the free ids, a ``choice`` of ``n`` positions
    without replacement, a sort of ``n``), O(n) per release.

    >>> from topologies import Mesh
    >>> a, b = Random(Mesh(8, 8), seed=3), Random(Mesh(8, 8), seed=3)
    >>> x = a.allocate((3, 2)); y = b.allocate(6)
    >>> len(x.nodes), x.nodes.tolist() == y.nodes.tolist(), a.free
    (6, True, 58)
    """

    def __init__(self, topology: Mesh, seed: int | np.random.SeedSequence | None = 0) -> None:
        super().__init__(topology)
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def _choose(self, n: int) -> np.ndarray:
        free = np.flatnonzero(~self.busy)
        picked = self.rng.choice(len(free), n, replace=False, shuffle=False)
        picked.sort()
        return free[picked]

    def _clone_state(self, twin: Any) -> None:
        twin.rng = copy.deepcopy(self.rng)

    def __repr__(self) -> str:
        return f"Random({self.topology!r}, seed={self.seed!r})"

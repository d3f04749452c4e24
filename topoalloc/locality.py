"""Allocation quality: where a job's nodes lie and what that costs it, and the machine's free space.

Contiguity exists for communication locality; non-contiguous allocators trade external
fragmentation for distance and link contention. These measures let a user of the allocators
alone (no simulator needed) ask that question of any node set on a :class:`~topologies.Mesh` or a
:class:`~topologies.Hypercube`. Node ids are the topology's: ``y * width + x`` on a mesh, the
binary address on a cube. Every function validates its node set (ids inside the machine, no
duplicates, not empty) and raises :class:`~topoalloc.errors.NodeSetError` otherwise; a measure
asked of a topology it does not apply to (hops on a :class:`~topologies.Flat` machine) raises
:class:`~topoalloc.errors.MetricNotApplicableError`.

Per job:

* :func:`mean_hops` -- average pairwise hop distance (Manhattan on a mesh, Hamming on a cube),
  the locality measure of Lo, Windisch, Liu & Nitzberg (IEEE TPDS 8(7), 1997, §5's "average
  distance"), Mache & Lo ("The effects of dispersal on message-passing contention in processor
  allocation strategies", JCIS 1997) and Leung et al. (IEEE Cluster 2002, who found run times on
  Cplant to grow with it). Exact for any node set in O(n log n): on a mesh the sum over pairs of
  ``|x_i - x_j|`` is ``sum_i x_(i) (2i - n + 1)`` over the sorted coordinates, the same in y; on a
  cube, bit ``b`` contributes ``c (n - c)`` pairs for ``c`` nodes with the bit set.
* :func:`components` -- connected pieces in the machine graph (1 for a contiguous grant).
* :func:`bbox` -- width and height of the bounding box (mesh).
* :func:`compact_nodes` / :func:`compact_mean_hops` -- the most compact placement of ``n`` nodes,
  the baseline of the placement-dependent run-time models.
* :func:`pattern_hops` -- hops travelled by one round of a communication pattern (all-to-all, or
  nearest neighbour on a virtual 2D grid): hop-bytes with one byte per message (Bunde, Leung &
  Mache, "Communication patterns and allocation strategies", PMEO-PDS 2004).

Machine level (external fragmentation as users see it):

* :func:`largest_free_submesh` and :func:`largest_free_subcube`, :func:`free_fragments`, and
  :func:`fragmentation` for an allocator.

Contention, with dimension-ordered routing (XY on a mesh -- x first, then y; e-cube on a cube --
the lowest differing bit first; Dally & Seitz 1987, Sullivan & Bashkow 1977):

* :func:`job_links` -- the links one job's all-to-all messages cross, computed without
  enumerating the ``n^2`` pairs; :func:`link_load` -- how many jobs cross each link;
  :func:`max_link_load` -- per job, the load of its busiest link, the measure non-contiguous
  allocation is criticised for (Mache & Lo 1997). Links are numbered by :func:`links`.

>>> from topologies import Mesh, Submesh
>>> m = Mesh(8, 8)
>>> nodes = Submesh(0, 0, 2, 2).node_ids(8)
>>> mean_hops(m, nodes), components(m, nodes), bbox(m, nodes)
(1.3333333333333333, 1, (2, 2))
>>> components(m, [0, 2]), mean_hops(m, [0, 63])
(2, 14.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from topologies import Flat, Hypercube, Mesh, Subcube, Submesh

from .errors import MetricNotApplicableError, NodeSetError

__all__ = [
    "applies",
    "mean_hops",
    "components",
    "bbox",
    "compact_nodes",
    "compact_mean_hops",
    "submesh_mean_hops",
    "subcube_mean_hops",
    "allocation_locality",
    "allocation_mean_hops",
    "pattern_hops",
    "PATTERNS",
    "largest_free_submesh",
    "largest_free_subcube",
    "free_fragments",
    "fragmentation",
    "links",
    "job_links",
    "link_load",
    "max_link_load",
]

#: Communication patterns :func:`pattern_hops` knows.
PATTERNS = ("all-to-all", "nearest-neighbour")


def applies(topology: Any) -> bool:
    """Whether the locality measures apply to ``topology`` (a mesh or a cube, not a flat machine)."""
    return isinstance(topology, Mesh | Hypercube)


def _need(topology: Any, what: str, kinds: tuple[type, ...] = (Mesh, Hypercube)) -> None:
    if not isinstance(topology, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise MetricNotApplicableError(
            f"{what} needs a {names} (a machine with links), not {topology!r}"
            + ("; a Flat machine has no distances" if isinstance(topology, Flat) else ""))


def _nodes(topology: Any, nodes: Any, *, allow_empty: bool = False) -> np.ndarray:
    """``nodes`` as a 1D int64 array, checked: inside the machine, no duplicates, not empty."""
    a = np.asarray(nodes)
    if a.dtype == bool or not (a.dtype.kind in "iu" or (a.size == 0 and a.dtype.kind == "f")):
        raise NodeSetError(f"node ids must be integers, got {a.dtype} values {a.ravel()[:4].tolist()!r}")
    a = a.astype(np.int64, copy=False).ravel()
    if a.size == 0:
        if allow_empty:
            return a
        raise NodeSetError("the node set is empty")
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= topology.size:
        bad = lo if lo < 0 else hi
        raise NodeSetError(f"node id {bad} is outside {topology!r} (ids 0..{topology.size - 1})")
    if a.size > 1:
        s = np.sort(a)
        dup = s[1:] == s[:-1]
        if dup.any():
            raise NodeSetError(f"node id {int(s[1:][dup][0])} appears more than once")
    return a


def _mask(topology: Any, free: Any) -> np.ndarray:
    """A machine-wide boolean mask (``(height, width)`` on a mesh accepted too), flattened."""
    m = np.asarray(free, dtype=bool).ravel()
    if m.size != topology.size:
        raise NodeSetError(f"the free mask has {m.size} entries; {topology!r} has {topology.size} nodes")
    return m


def _pair_sum(v: np.ndarray) -> float:
    """``sum_{i<j} |v_i - v_j|`` in O(n log n)."""
    s = np.sort(v).astype(np.float64)
    n = len(s)
    return float(s @ (2.0 * np.arange(n) - (n - 1)))


def _pair_sum_counts(c: np.ndarray) -> float:
    """``sum_{i<j} |v_i - v_j|`` from the counts ``c[v]`` of each value: ``sum_b c_b (b C_b - S_b)``
    with ``C_b``, ``S_b`` the count and sum of the values below ``b``."""
    c = c.astype(np.float64)
    v = np.arange(len(c), dtype=np.float64)
    below = np.cumsum(c) - c
    below_sum = np.cumsum(c * v) - c * v
    return float(c @ (v * below - below_sum))


def mean_hops(topology: Mesh | Hypercube, nodes: Any) -> float:
    """Average hop distance over the unordered pairs of ``nodes`` (0 for a single node).

    Mesh: Manhattan distance (the hop count of a shortest, e.g. XY, route); cube: Hamming
    distance. O(n log n) on a mesh, O(n log P) on a cube; no pairwise loop.

    >>> from topologies import Hypercube
    >>> mean_hops(Hypercube(3), range(8))    # 3 * 2^2 / (2^3 - 1)
    1.7142857142857142
    """
    _need(topology, "mean_hops")
    return _mean_hops(topology, _nodes(topology, nodes))


def _mean_hops(topology: Mesh | Hypercube, a: np.ndarray) -> float:
    """:func:`mean_hops` of a valid node array (no checks)."""
    n = len(a)
    if n < 2:
        return 0.0
    pairs = n * (n - 1) / 2
    if isinstance(topology, Mesh):
        y, x = np.divmod(a, topology.width)
        if n * 4 > topology.width + topology.height:  # counts per coordinate: O(n + W + H), no sort
            return (_pair_sum_counts(np.bincount(x)) + _pair_sum_counts(np.bincount(y))) / pairs
        return (_pair_sum(x) + _pair_sum(y)) / pairs
    bits = (a[:, None] >> np.arange(topology.dim)) & 1
    c = bits.sum(axis=0).astype(np.float64)
    return float((c * (n - c)).sum() / pairs)


def _edges(topology: Mesh | Hypercube, a: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Machine links between members of ``a``: pairs of positions in ``a``."""
    pos = np.full(topology.size, -1, dtype=np.int64)
    pos[a] = np.arange(len(a))
    us, vs = [], []
    if isinstance(topology, Mesh):
        W = topology.width
        right = a[(a % W != W - 1)]
        right = right[member[right + 1]]
        us.append(right)
        vs.append(right + 1)
        up = a[a + W < topology.size]
        up = up[member[up + W]]
        us.append(up)
        vs.append(up + W)
    else:
        for i in range(topology.dim):
            low = a[(a >> i) & 1 == 0]
            low = low[member[low | (1 << i)]]
            us.append(low)
            vs.append(low | (1 << i))
    u = np.concatenate(us) if us else np.empty(0, np.int64)
    v = np.concatenate(vs) if vs else np.empty(0, np.int64)
    return pos[u], pos[v]


def _count_components(n: int, u: np.ndarray, v: np.ndarray) -> int:
    """Connected components of ``n`` vertices with edges ``(u, v)``: minimum-label propagation
    along the edges with pointer jumping (each round O(n + edges) vectorised; rounds grow with
    the logarithm of the components' diameters in practice)."""
    if n == 0:
        return 0
    lab = np.arange(n)
    if len(u) == 0:
        return n
    while True:
        m = np.minimum(lab[u], lab[v])
        new = lab.copy()
        np.minimum.at(new, u, m)
        np.minimum.at(new, v, m)
        while True:  # pointer jumping: a vertex takes its label's label
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, lab):
            return int(np.count_nonzero(lab == np.arange(n)))
        lab = new


def components(topology: Mesh | Hypercube, nodes: Any) -> int:
    """Connected pieces of ``nodes`` in the machine graph (mesh: 4-neighbour; cube: one bit
    apart). A contiguous grant has 1. O((n + edges) rounds) vectorised.

    >>> from topologies import Hypercube
    >>> components(Hypercube(4), [0b0000, 0b0001, 0b0011, 0b1100])
    2
    """
    _need(topology, "components")
    return _components(topology, _nodes(topology, nodes))


def _components(topology: Mesh | Hypercube, a: np.ndarray) -> int:
    """:func:`components` of a valid node array (no checks)."""
    member = np.zeros(topology.size, dtype=bool)
    member[a] = True
    if isinstance(topology, Mesh):
        return _mesh_components(topology.width, np.sort(a), member)
    u, v = _edges(topology, a, member)
    return _count_components(len(a), u, v)


def _mesh_components(W: int, a: np.ndarray, member: np.ndarray) -> int:
    """Pieces of the sorted node ids ``a`` of a mesh: the maximal runs of consecutive nodes in a row
    (found vectorised), joined when a node of one run is right below a node of another; a union-find
    over the runs, whose number is small next to the nodes'. O(n) vectorised plus O(runs + joins)."""
    n = len(a)
    x = a % W
    brk = np.ones(n, dtype=bool)
    brk[1:] = (a[1:] != a[:-1] + 1) | (x[1:] == 0)  # a new run: a gap, or a new row
    run = np.cumsum(brk) - 1
    runs = int(run[-1]) + 1
    if runs == 1:
        return 1
    pos = np.full(len(member), -1, dtype=np.int64)
    pos[a] = run
    up = a + W
    ok = up < len(member)
    below, above = a[ok], up[ok]
    joined = member[above]
    pairs = np.unique(pos[below[joined]] * runs + pos[above[joined]])
    parent = list(range(runs))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pieces = runs
    for code in pairs.tolist():
        r1, r2 = find(code // runs), find(code % runs)
        if r1 != r2:
            parent[r1] = r2
            pieces -= 1
    return pieces


def bbox(topology: Mesh, nodes: Any) -> tuple[int, int]:
    """``(width, height)`` of the smallest submesh containing ``nodes``. O(n)."""
    _need(topology, "bbox", (Mesh,))
    a = _nodes(topology, nodes)
    y, x = np.divmod(a, topology.width)
    return int(x.max() - x.min() + 1), int(y.max() - y.min() + 1)


def compact_nodes(topology: Mesh | Hypercube, n: int) -> np.ndarray:
    """The most compact placement of ``n`` nodes, the baseline a placement is compared with.

    Mesh: rows of ``a = max(ceil(sqrt(n)), ceil(n / height))`` nodes (at most the mesh width) from
    the corner, the last row partly filled: a near-square, the shape a contiguous allocator
    would give a near-square request (interpretation: for ``n = w h`` with a very elongated
    ``w x h`` the near-square is more compact than the request's own shape, which is the point of
    the baseline). Cube: the first ``n`` addresses, a subcube when ``n`` is a power of two (the
    initial segment of the binary order has the fewest distant pairs, Harper 1964).

    >>> compact_nodes(Mesh(8, 8), 6).tolist()
    [0, 1, 2, 8, 9, 10]
    """
    _need(topology, "compact_nodes")
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= topology.size:
        raise NodeSetError(f"n must be an integer in 1..{topology.size} for {topology!r}, got {n!r}")
    n = int(n)
    if isinstance(topology, Hypercube):
        return np.arange(n, dtype=np.int64)
    a = min(topology.width, max(math.isqrt(n - 1) + 1, -(-n // topology.height)))
    i = np.arange(n, dtype=np.int64)
    return (i // a) * topology.width + i % a


def compact_mean_hops(topology: Mesh | Hypercube, n: int) -> float:
    """:func:`mean_hops` of :func:`compact_nodes` ``(topology, n)``."""
    return mean_hops(topology, compact_nodes(topology, n))


def submesh_mean_hops(width: int, height: int) -> float:
    """:func:`mean_hops` of a ``width x height`` submesh in closed form, O(1):
    ``(h (w^2 - 1) + w (h^2 - 1)) / (3 (w h - 1))`` (0 for one node).

    >>> submesh_mean_hops(2, 2)
    1.3333333333333333
    """
    n = width * height
    return 0.0 if n < 2 else (height * (width * width - 1) + width * (height * height - 1)) / (3 * (n - 1))


def subcube_mean_hops(k: int) -> float:
    """:func:`mean_hops` of a ``k``-subcube in closed form, O(1): ``k 2^(k-1) / (2^k - 1)``."""
    return 0.0 if k < 1 else k * (1 << (k - 1)) / ((1 << k) - 1)


def allocation_mean_hops(topology: Mesh | Hypercube, allocation: Any) -> float:
    """:func:`mean_hops` of a grant (an :class:`~topoalloc.Allocation`, whose node ids are valid by
    construction, so they are not checked again): O(1) for a :class:`~topologies.Submesh` or a
    :class:`~topologies.Subcube` (closed form), the general measure on its node ids otherwise."""
    placement = getattr(allocation, "placement", None)
    if isinstance(placement, Submesh):
        return submesh_mean_hops(placement.width, placement.height)
    if isinstance(placement, Subcube):
        return subcube_mean_hops(placement.mask.bit_count())
    _need(topology, "allocation_mean_hops")
    return _mean_hops(topology, np.asarray(allocation.nodes, dtype=np.int64))


def allocation_locality(topology: Mesh | Hypercube, allocation: Any) -> tuple[float, int]:
    """``(mean_hops, components)`` of a grant: O(1) for a contiguous placement (a
    :class:`~topologies.Submesh` or :class:`~topologies.Subcube`: one piece, closed-form hops),
    the general measures on its node ids otherwise (not checked again: an
    :class:`~topoalloc.Allocation`'s are valid by construction)."""
    placement = getattr(allocation, "placement", None)
    if isinstance(placement, Submesh | Subcube):
        return allocation_mean_hops(topology, allocation), 1
    _need(topology, "allocation_locality")
    nodes = np.asarray(allocation.nodes, dtype=np.int64)
    return _mean_hops(topology, nodes), _components(topology, nodes)


def _grid(n: int) -> tuple[int, int]:
    cols = math.isqrt(n - 1) + 1
    return cols, -(-n // cols)


def pattern_hops(topology: Mesh | Hypercube, nodes: Any, pattern: str = "all-to-all") -> float:
    """Hops travelled by one round of ``pattern`` among ``nodes`` (one message per ordered pair
    of communicating ranks; hop-bytes with one byte per message).

    * ``"all-to-all"``: every rank sends to every other: ``2 * mean_hops * n (n - 1) / 2``.
    * ``"nearest-neighbour"``: ranks on a near-square virtual grid (``ceil(sqrt(n))`` columns,
      row-major, the last row partly filled), rank ``r`` on the ``r``-th smallest node id; every
      rank sends to its up to four grid neighbours. Interpretation of the usual stencil mapping
      (Bunde, Leung & Mache 2004 map ranks in allocation order).

    O(n log n).
    """
    if pattern not in PATTERNS:
        raise ValueError(f"unknown communication pattern {pattern!r}; known: {', '.join(PATTERNS)}")
    _need(topology, "pattern_hops")
    a = np.sort(_nodes(topology, nodes))
    n = len(a)
    if n < 2:
        return 0.0
    if pattern == "all-to-all":
        return mean_hops(topology, a) * n * (n - 1)
    cols, _ = _grid(n)
    r = np.arange(n)
    right = r[(r % cols != cols - 1) & (r + 1 < n)]
    up = r[r + cols < n]
    src = np.concatenate([right, up])
    dst = np.concatenate([right + 1, up + cols])
    s, d = a[src], a[dst]
    if isinstance(topology, Mesh):
        W = topology.width
        hops = np.abs(s % W - d % W) + np.abs(s // W - d // W)
    else:
        hops = (((s ^ d)[:, None] >> np.arange(topology.dim)) & 1).sum(axis=1)
    return float(2 * hops.sum())  # both directions of every neighbour pair


# -- the machine's free space ------------------------------------------------------------------
def largest_free_submesh(topology: Mesh, free: Any) -> Submesh | None:
    """A largest-area all-free submesh (``None`` when nothing is free): the biggest contiguous job
    that could start now. ``free`` is a boolean mask over the nodes (flat or ``(height, width)``).

    The histogram method for the maximal empty rectangle in its dynamic-programming form, all in
    cumulative scans: per free cell, ``tall`` (free cells ending there in its column) and ``left`` /
    ``right`` (how far *all* those rows are free either side); along a column, ``left`` is the
    running maximum of each row's first free column since the last blocked cell (``right`` a running
    minimum), a segmented scan whose restart at blocked cells is an offset growing with the blocked
    cells passed. Every maximal rectangle shows at a cell of its last row whose column run has its
    height. O(W H), about twenty numpy passes and no Python loop over cells (about 60 us on 32 x 32).
    Among rectangles of the largest area, the one whose last row is lowest, then the leftmost, then
    the flattest.

    >>> import numpy as np
    >>> free = np.ones((4, 6), dtype=bool); free[1, 2] = False; free[3, :] = False
    >>> largest_free_submesh(Mesh(6, 4), free)
    Submesh(x=3, y=0, width=3, height=3)
    """
    _need(topology, "largest_free_submesh", (Mesh,))
    height, width = topology.height, topology.width
    mask = _mask(topology, free).reshape(height, width)
    if not mask.any():
        return None
    dt = np.int32 if (width + 1) * (height + 1) < 2**31 else np.int64
    blocked = ~mask
    cols = np.arange(width, dtype=dt)
    # along each row: the first free column of each cell's run, and one past its end
    first = np.maximum.accumulate(np.where(blocked, cols, dt(-1)), axis=1) + 1
    stop = np.minimum.accumulate(np.where(blocked, cols, dt(width))[:, ::-1], axis=1)[:, ::-1]
    # along each column, on the transposes (contiguous scans); a later segment dominates earlier ones
    bt = np.ascontiguousarray(blocked.T)
    seg = np.cumsum(bt, axis=1, dtype=dt) * dt(width + 1)
    left = np.maximum.accumulate(np.where(bt, dt(0), first.T) + seg, axis=1) - seg
    right = np.minimum.accumulate(np.where(bt, dt(width), stop.T) - seg, axis=1) + seg
    rows = np.arange(height, dtype=dt)
    tall = rows - np.maximum.accumulate(np.where(bt, rows, dt(-1)), axis=1)
    area = np.where(bt, dt(0), (right - left) * tall)  # indexed [x, y]
    cand = np.flatnonzero(area == area.max())
    key = ((cand % height) * (width + 1) + left.ravel()[cand]) * (height + 1) + tall.ravel()[cand]
    best = int(cand[np.argmin(key)])
    y, h, x = best % height, int(tall.flat[best]), int(left.flat[best])
    return Submesh(x, y - h + 1, int(right.flat[best]) - x, h)


def _bits_to_int(mask: np.ndarray) -> int:
    """A boolean array as a Python integer, element ``i`` at bit ``i``."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


@functools.lru_cache(maxsize=32)
def _clear_bit_masks(dim: int) -> tuple[int, ...]:
    """Per dimension ``d``: the ``2^dim``-bit integer whose bit ``a`` is set iff bit ``d`` of ``a`` is 0."""
    a = np.arange(1 << dim, dtype=np.int64)
    return tuple(_bits_to_int((a & (1 << d)) == 0) for d in range(dim))


def largest_free_subcube(topology: Hypercube, free: Any) -> Subcube | None:
    """A largest all-free subcube, any mask of free dimensions, not only buddy ones (``None`` when
    nothing is free): the biggest cube job that could start now, the question Kim, Das & Lin's free
    list answers for allocation (IEEE TPDS 1991), asked of the whole free set.

    Dynamic programming over sets ``S`` of free dimensions on ``2^dim``-bit integers: ``f(S)`` has
    bit ``a`` set iff ``a`` has no bit in ``S`` and the subcube ``a + span(S)`` is all free;
    ``f(S + d) = f(S) & (f(S) >> 2^d) & [bit d of a clear]``. Depth first over ``S`` in increasing
    dimension order (each set once), pruned: each added dimension at least halves ``f``'s population,
    so at most ``floor(log2 popcount f(S))`` more fit, and the search stops at ``floor(log2(free))``.
    Worst case O(2^dim) sets of O(2^dim / 64) word operations; about 10 us on a full 10-cube, tens of
    us on fragmented ones. Among the largest, the first found: lowest mask in search order, then base.

    >>> largest_free_subcube(Hypercube(3), [1, 0, 1, 0, 1, 0, 1, 0]).pattern(3)
    '**0'
    """
    _need(topology, "largest_free_subcube", (Hypercube,))
    g0 = _bits_to_int(_mask(topology, free))
    if g0 == 0:
        return None
    dim = topology.dim
    target = g0.bit_count().bit_length() - 1  # no cube larger than floor(log2(free count))
    best = [0, (g0 & -g0).bit_length() - 1, 0]  # k, base, mask
    if target == 0:
        return Subcube(best[1], 0)
    clear = _clear_bit_masks(dim)

    def grow(g: int, k: int, dims: int, start: int) -> bool:
        for d in range(start, dim):
            if k + dim - d <= best[0]:  # every remaining dimension cannot beat the best
                return False
            g2 = g & (g >> (1 << d)) & clear[d]
            if not g2:
                continue
            k2 = k + 1
            if k2 > best[0]:
                best[:] = [k2, (g2 & -g2).bit_length() - 1, dims | (1 << d)]
                if k2 == target:
                    return True
            cap = min(g2.bit_count().bit_length() - 1, dim - d - 1)
            if k2 + cap > best[0] and grow(g2, k2, dims | (1 << d), d + 1):
                return True
        return False

    grow(g0, 0, 0, 0)
    return Subcube(best[1], best[2])


def free_fragments(topology: Mesh | Hypercube, free: Any) -> int:
    """Connected pieces of the free nodes (0 when none is free): the external fragmentation a
    user sees."""
    _need(topology, "free_fragments")
    a = np.flatnonzero(_mask(topology, free))
    if len(a) == 0:
        return 0
    return components(topology, a)


def fragmentation(allocator: Any) -> dict[str, Any]:
    """The free space of an allocator's machine: ``free``, ``fragments``, and the largest free
    submesh or subcube (``largest_free``, a :class:`~topologies.Submesh` or
    :class:`~topologies.Subcube`, ``None`` when nothing is free; ``largest_free_size`` its nodes)."""
    topology = allocator.topology
    _need(topology, "fragmentation")
    free = np.zeros(topology.size, dtype=bool)
    nodes = allocator.free_nodes() if hasattr(allocator, "free_nodes") else None
    if nodes is None:
        free[:] = True
        for a in allocator.allocations:
            free[a.nodes] = False
    else:
        free[nodes] = True
    largest = largest_free_submesh(topology, free) if isinstance(topology, Mesh) else \
        largest_free_subcube(topology, free)
    return {"free": int(free.sum()), "fragments": free_fragments(topology, free), "largest_free": largest,
            "largest_free_size": largest.size if largest is not None else 0}


# -- links and contention ---------------------------------------------------------------------
def links(topology: Mesh | Hypercube) -> np.ndarray:
    """Every link as a row ``(u, v)``, ``u < v``, in link-index order. Mesh: the horizontal links
    ``(x, y)-(x + 1, y)`` row by row (index ``y (W - 1) + x``), then the vertical ones
    ``(x, y)-(x, y + 1)`` (index ``H (W - 1) + y W + x``). Cube: for each dimension ``i``, the links
    ``(w, w + 2^i)`` with bit ``i`` of ``w`` clear, ordered by ``w`` with bit ``i`` removed (index
    ``i 2^(dim - 1) + that``)."""
    _need(topology, "links")
    if isinstance(topology, Mesh):
        W, H = topology.width, topology.height
        hy, hx = np.divmod(np.arange(H * (W - 1)), max(W - 1, 1))
        h = hy * W + hx
        v = np.arange((H - 1) * W)
        return np.concatenate([np.stack([h, h + 1], 1), np.stack([v, v + W], 1)]).astype(np.int64)
    d = topology.dim
    rows = []
    for i in range(d):
        r = np.arange(1 << (d - 1)) if d else np.empty(0, np.int64)
        w = ((r >> i) << (i + 1)) | (r & ((1 << i) - 1))
        rows.append(np.stack([w, w | (1 << i)], 1))
    return np.concatenate(rows).astype(np.int64) if rows else np.empty((0, 2), np.int64)


def _extent(idx: np.ndarray, key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group ``0..size-1``: whether it holds a node, and the min and max ``key`` in it."""
    present = np.zeros(size, dtype=bool)
    present[idx] = True
    lo = np.full(size, np.iinfo(np.int64).max)
    hi = np.full(size, -1)
    np.minimum.at(lo, idx, key)
    np.maximum.at(hi, idx, key)
    return present, lo, hi


def job_links(topology: Mesh | Hypercube, nodes: Any) -> np.ndarray:
    """Boolean mask over :func:`links`: the links crossed by some message of an all-to-all among
    ``nodes`` under dimension-ordered routing, computed without the pairs.

    Mesh, XY routing (a message goes along its source's row to the destination's column, then
    along that column): the horizontal link ``x..x+1`` of row ``y`` is crossed iff row ``y`` holds a
    node at or left of ``x`` and the job has a node right of it, or vice versa; the vertical link
    ``y..y+1`` of column ``x`` iff column ``x`` holds a node above it and the job has one at or
    below ``y``, or vice versa. O(W H). Cube, e-cube routing (correct the lowest differing bit
    first): the link across bit ``i`` at ``w`` is crossed iff a source ``s`` and a destination
    ``d`` with ``s_i != d_i`` have ``d``'s bits below ``i`` and ``s``'s bits above ``i`` equal to
    ``w``'s. O(dim P)."""
    _need(topology, "job_links")
    a = _nodes(topology, nodes)
    if isinstance(topology, Mesh):
        W, H = topology.width, topology.height
        y, x = np.divmod(a, W)
        row_has, row_lo, row_hi = _extent(y, x, H)
        col_has, col_lo, col_hi = _extent(x, y, W)
        X_lo, X_hi, Y_lo, Y_hi = x.min(), x.max(), y.min(), y.max()
        hx = np.arange(W - 1)[None, :]
        horiz = row_has[:, None] & (((row_lo[:, None] <= hx) & (X_hi >= hx + 1))
                                    | ((row_hi[:, None] >= hx + 1) & (X_lo <= hx)))
        vy = np.arange(H - 1)[:, None]
        vert = col_has[None, :] & (((col_hi[None, :] >= vy + 1) & (Y_lo <= vy))
                                   | ((col_lo[None, :] <= vy) & (Y_hi >= vy + 1)))
        return np.concatenate([horiz.ravel(), vert.ravel()])
    d = topology.dim
    out = []
    for i in range(d):
        lowmask = (1 << i) - 1
        b = (a >> i) & 1
        low = a & lowmask
        high = a >> (i + 1)
        lo_sets = [np.zeros(1 << i, bool), np.zeros(1 << i, bool)]
        hi_sets = [np.zeros(1 << (d - i - 1), bool), np.zeros(1 << (d - i - 1), bool)]
        for bit in (0, 1):
            lo_sets[bit][low[b == bit]] = True
            hi_sets[bit][high[b == bit]] = True
        used = np.outer(hi_sets[0], lo_sets[1]) | np.outer(hi_sets[1], lo_sets[0])
        out.append(used.ravel())
    return np.concatenate(out) if out else np.zeros(0, bool)


def link_load(topology: Mesh | Hypercube, jobs: Sequence[Any]) -> np.ndarray:
    """For each link (:func:`links` order), the number of ``jobs`` (node sets) whose all-to-all
    messages cross it."""
    _need(topology, "link_load")
    load = np.zeros(len(links(topology)), dtype=np.int64)
    for nodes in jobs:
        load += job_links(topology, nodes)
    return load


def max_link_load(topology: Mesh | Hypercube, jobs: Sequence[Any]) -> np.ndarray:
    """Per job of ``jobs``, the load (:func:`link_load`) of the busiest link its own messages
    cross: 1 when it shares no link with another job, 0 for a single node."""
    masks = [job_links(topology, nodes) for nodes in jobs]
    if not masks:
        return np.zeros(0, dtype=np.int64)
    load = np.sum(masks, axis=0)
    return np.array([int(load[m].max()) if m.any() else 0 for m in masks], dtype=np.int64)

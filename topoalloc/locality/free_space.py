"""The machine's free space: external fragmentation as users see it.

The largest free region is a measure of each geometry (a submesh, a subcube, a domain of a switch
tree); the free space's pieces are those of :func:`~topoalloc.locality.components`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from topologies import Box, Hypercube, Mesh, Subcube, Submesh, SwitchTree

from ..errors import MetricNotApplicableError
from ..tree.base import free_per_domain as _per_domain
from ._common import free_mask, need_kind, need_network
from .per_job import _components

__all__ = [
    "largest_free_submesh",
    "largest_free_box",
    "largest_free_subcube",
    "free_fragments",
    "free_per_domain",
    "fragmentation",
]


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
    need_kind(topology, "largest_free_submesh", (Mesh,), "submeshes of a 2D grid")
    if topology.ndim != 2 or any(topology.ring):
        raise MetricNotApplicableError(f"largest_free_submesh needs a 2D mesh without wrap-around, not {topology!r}; "
                                       f"largest_free_box takes meshes and tori of any dimension")
    height, width = topology.height, topology.width
    mask = free_mask(topology, free).reshape(height, width)
    if not mask.any():
        return None
    dt: type[np.signedinteger[Any]] = np.int32 if (width + 1) * (height + 1) < 2**31 else np.int64
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


def largest_free_box(topology: Mesh, free: Any) -> Box | None:
    """A largest-volume all-free box (``None`` when nothing is free) on a mesh or torus of any
    dimension, wrapping round the rings: the biggest contiguous job that could start now. ``free``
    is a boolean mask over the nodes (flat or of ``topology.shape``).

    On a plain 2D mesh, :func:`largest_free_submesh` as a :class:`~topologies.Box` (its O(W H) scans
    and its tie rule). Otherwise: for every choice of the box's sides along the dimensions above x,
    the mask eroded by them (one AND with a shifted copy per extra unit of side, cyclic along a
    ring; a side as long as a ring has the one origin 0), then along x the run of free positions
    from each position (the next busy position by a reversed running minimum; round a ring on the
    line doubled, at most ``L``), all vectorised; the sides are tried in increasing order, an
    erosion that leaves nothing ends its dimension's loop, and a side whose best possible volume
    (``L_0`` times the sides) cannot beat the best found is skipped. O(size x prod_{i>=1} L_i) in the
    worst case (a free machine: 64 erosions of 512 cells on 8 x 8 x 8). Among boxes of the largest
    volume: the lowest origin node id, then the longest along x, then along y, ...

    >>> from topologies import Torus
    >>> free = np.ones((2, 3, 4), dtype=bool); free[:, 1, :] = False     # row y = 1 busy in both layers
    >>> largest_free_box(Mesh(4, 3, 2), free), largest_free_box(Torus(4, 3, 2), free)
    (Box(origin=(0, 0, 0), shape=(4, 1, 2)), Box(origin=(0, 2, 0), shape=(4, 2, 2)))
    """
    need_kind(topology, "largest_free_box", (Mesh,), "boxes of a grid")
    mask = free_mask(topology, free).reshape(topology.shape)
    if not mask.any():
        return None
    if topology.ndim == 2 and not any(topology.ring):
        s = largest_free_submesh(topology, mask)
        assert s is not None
        return Box((s.x, s.y), (s.width, s.height))
    dims, ring, nd = topology.dims, topology.ring, topology.ndim
    L0, total_free = dims[0], int(mask.sum())
    best: list[Any] = [0, 0, ()]  # volume, origin id, shape
    strides = np.cumprod((1,) + dims[:-1])

    def shifted(a: np.ndarray, k: int, i: int) -> np.ndarray:
        """``a`` moved by ``-k`` along dimension ``i`` (cyclic on a ring, busy fill on a line)."""
        ax = nd - 1 - i
        if ring[i]:
            return np.roll(a, -k, axis=ax)
        out = np.zeros_like(a)
        src = [slice(None)] * nd
        dst = [slice(None)] * nd
        src[ax], dst[ax] = slice(k, None), slice(0, a.shape[ax] - k)
        out[tuple(dst)] = a[tuple(src)]
        return out

    def along_x(a: np.ndarray, tail: tuple[int, ...]) -> None:
        lines = a.reshape(-1, L0)
        if ring[0]:
            lines = np.concatenate([lines, lines], axis=1)
        width = lines.shape[1]
        pos = np.arange(width)
        nxt = np.minimum.accumulate(np.where(lines, width, pos)[:, ::-1], axis=1)[:, ::-1]
        run = np.minimum(nxt - pos, L0)[:, :L0]
        vol = run * int(np.prod(tail))
        k = int(vol.argmax())  # the first maximum: the lowest origin id
        v = int(vol.flat[k])
        shape = (int(run.flat[k]),) + tail
        if (v, -k, shape) > (best[0], -best[1], best[2]):
            best[:] = [v, k, shape]

    def level(i: int, a: np.ndarray, tail: tuple[int, ...]) -> None:
        if i == 0:
            along_x(a, tail)
            return
        L = dims[i]
        below = L0 * int(np.prod(dims[1:i])) * int(np.prod(tail))  # volume bound per unit of side
        cur = a
        for e in range(1, L + 1):
            if e > 1:
                cur = cur & shifted(a, e - 1, i)
            if not cur.any():
                return
            if below * e < best[0] or (below * e == best[0] and best[0] == total_free):
                continue  # cannot beat the best
            use = cur
            if ring[i] and e == L:  # a whole ring: the one origin 0
                keep = np.zeros(L, dtype=bool)
                keep[0] = True
                shp = [1] * nd
                shp[nd - 1 - i] = L
                use = cur & keep.reshape(shp)
            level(i - 1, use, (e,) + tail)

    level(nd - 1, mask, ())
    origin = tuple(int(c) for c in (best[1] // strides) % np.array(dims))
    return Box(origin, best[2])


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
    need_kind(topology, "largest_free_subcube", (Hypercube,), "subcubes of a binary cube")
    g0 = _bits_to_int(free_mask(topology, free))
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


def free_fragments(topology: Any, free: Any) -> int:
    """Pieces of the free nodes (0 when none is free), as :func:`~topoalloc.locality.components`
    counts them: connected pieces on a mesh or a cube -- the external fragmentation a user sees --
    and the leaf switches holding a free node on a switch tree."""
    need_network(topology, "free_fragments")
    a = np.flatnonzero(free_mask(topology, free))
    if len(a) == 0:
        return 0
    return _components(topology, a)


def free_per_domain(topology: SwitchTree, free: Any, level: str | int) -> np.ndarray:
    """Free nodes in each domain of ``level`` of a switch tree (a level name or depth; the order
    of :meth:`~topologies.SwitchTree.domains`): per leaf switch at the leaf switches' level, per
    rack, per block. ``free`` is a boolean mask over the nodes. One ``numpy`` reduction, O(N).

    >>> from topologies import SwitchTree
    >>> t = SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host"))
    >>> free = np.ones(24, dtype=bool); free[:6] = False
    >>> free_per_domain(t, free, "rack").tolist(), free_per_domain(t, free, "block").tolist()
    ([0, 2, 4, 4, 4, 4], [6, 12])
    """
    need_kind(topology, "free_per_domain", (SwitchTree,), "nodes under switches")
    mask = free_mask(topology, free)
    return _per_domain(mask, topology.domains(level)[0])


def _free_of(allocator: Any) -> np.ndarray:
    """The allocator's free nodes as a boolean mask."""
    topology = allocator.topology
    free = np.zeros(topology.size, dtype=bool)
    nodes = allocator.free_nodes() if hasattr(allocator, "free_nodes") else None
    if nodes is None:
        free[:] = True
        for a in allocator.allocations:
            free[a.nodes] = False
    else:
        free[nodes] = True
    return free


def fragmentation(allocator: Any) -> dict[str, Any]:
    """The free space of an allocator's machine: ``free`` (nodes), ``fragments``
    (:func:`free_fragments`), ``largest_free`` and ``largest_free_size``.

    Mesh and cube: ``largest_free`` is the largest free submesh or subcube (a
    :class:`~topologies.Submesh` or :class:`~topologies.Subcube`; on a mesh of another dimension or
    a torus, the largest free :class:`~topologies.Box`, :func:`largest_free_box`; ``None`` when
    nothing is free),
    ``largest_free_size`` its nodes -- the biggest contiguous job that could start now.

    Switch tree (interpretation of "the largest free domain at each level"): ``largest_free``
    maps each switch level, root first, to the most free nodes in one of its domains (the largest
    ``required=level`` job that could start now), ``free_domains`` maps it to the number of its
    domains that are wholly free, and ``largest_free_size`` is the most free nodes under one leaf
    switch (the largest job that could start now without crossing an uplink). O(N levels).

    >>> from topologies import SwitchTree
    >>> from topoalloc import FirstFree
    >>> ff = FirstFree(SwitchTree.uniform((2, 3, 4), names=("block", "rack", "host")))
    >>> ff.allocate(6) is not None
    True
    >>> f = fragmentation(ff)
    >>> f["free"], f["fragments"], f["largest_free"], f["free_domains"], f["largest_free_size"]
    (18, 5, {'cluster': 18, 'block': 12, 'rack': 4}, {'cluster': 0, 'block': 1, 'rack': 4}, 4)
    """
    topology = allocator.topology
    need_kind(topology, "fragmentation", (Mesh, Hypercube, SwitchTree), "a largest free region of its geometry")
    free = _free_of(allocator)
    if isinstance(topology, SwitchTree):
        return _tree_fragmentation(topology, free)
    largest: Submesh | Box | Subcube | None
    if isinstance(topology, Mesh):
        plain = topology.ndim == 2 and not any(topology.ring)
        largest = largest_free_submesh(topology, free) if plain else largest_free_box(topology, free)
    else:
        largest = largest_free_subcube(topology, free)
    return {"free": int(free.sum()), "fragments": free_fragments(topology, free), "largest_free": largest,
            "largest_free_size": largest.size if largest is not None else 0}


def _tree_fragmentation(topology: SwitchTree, free: np.ndarray) -> dict[str, Any]:
    per_leaf = _per_domain(free, topology.first[topology.leaf_switch_ids])
    largest: dict[str, int] = {}
    whole: dict[str, int] = {}
    for level in topology.levels[:-1]:
        first, stop = topology.domains(level)
        counts = _per_domain(free, first)
        largest[level] = int(counts.max())
        whole[level] = int(np.count_nonzero(counts == stop - first))
    return {"free": int(free.sum()), "fragments": int(np.count_nonzero(per_leaf)), "largest_free": largest,
            "largest_free_size": int(per_leaf.max()), "free_domains": whole}

"""What the box allocators of d-dimensional meshes and tori share: shape requests with optional axis
permutation, the busy array, the one-side fold, and the bit-parallel search for free boxes.

**The free mask as one integer.** Zhu's bit-parallel first fit (:mod:`topoalloc.mesh._zhu`) keeps
the 2D free mask as a Python integer and erodes it with ``a &= a >> d`` to "a free ``w x h`` submesh
is based here". The same works in ``d`` dimensions and on rings, in a padded layout: along a
dimension of side ``L`` that is a line, one guard position ``L`` (always busy) ends each line, so an
erosion never reads across a line's end unawares; along a ring, the positions ``L .. 2L - 2`` repeat
the cells ``0 .. L - 2`` (kept up to date with them), so a box based at ``p <= L - 1`` reads its
wrapped cells as the positions ``p .. p + side - 1`` of one line. Position ``(p_0, ..., p_{d-1})`` is
bit ``sum_i p_i P_i`` with ``P_i`` the product of the padded extents below ``i`` (``L + 1`` on a line,
``2L - 1`` on a ring). The erosion for a shape takes ``sum_i ceil(log2 side_i)`` shifts of
``O(padded size / 64)`` words each; the bases are then kept to ``p_i <= L - 1`` on the rings (``p_i = 0``
for a box as long as its ring: every base gives the same nodes), and the lowest set bit is the
first free base in node-id order (the last dimension outermost), since the padded order of the
bases is theirs. A grant or release changes the integer by one OR / AND-NOT with the box's bits,
built per dimension from a few runs by multiplying with a repunit. The padded mask has at most
``2^d`` times the machine's bits (8 times on a 3D torus).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Self

import numpy as np

from topologies import Box, Mesh
from topologies._validate import check_bool

from .._memory import check_memory
from ..base import Allocation, Allocator
from ..errors import AllocatorParameterError

__all__ = ["GridAllocator", "BoxAllocator", "BoxBits"]

_box = Box._unchecked


class GridAllocator(Allocator):
    """Base of the box allocators of a :class:`~topologies.Mesh` of any dimension, wrapped or not
    (a :class:`~topologies.Torus` included).

    Requests are shapes, ``(a, b, c)`` on a 3D machine (x first), validated by
    :meth:`Mesh.validate_request <topologies.Mesh.validate_request>` (a shorter shape is padded with
    1s, except on a 2D mesh, whose requests are ``(width, height)`` pairs). ``permute=True`` lets
    the allocator place a request with its axes in any order (Fugaku's scheduler may permute a
    requested shape's axes; a 90 degree turn in 2D): the request's own order is tried first, then
    the other distinct orders in lexicographic order of the axis permutations
    (:func:`itertools.permutations`), and the first that finds a place wins; the granted request is
    the shape placed. ``rotate`` is accepted as the 2D name of ``permute`` (so that
    ``topoalloc.get("FirstFit", machine, rotate=True)`` works on any mesh) and is the attribute the
    testing strategies read.

    Placements are :class:`~topologies.Box` values (origin and shape, x first; on a ring a box may
    wrap). State: ``busy``, a boolean array of ``topology.shape`` (last dimension first), the
    allocator's record of taken nodes; :attr:`occupancy` is the id-per-node view in that shape.

    Folding, generalised from Chang & Mohapatra (seed 002 §4.1, "folding the job in the direction
    which it has longer side length"): the longest side is halved, rounding up; a tie halves the
    lowest dimension's side (the width in 2D, as :class:`~topoalloc.mesh.MeshAllocator` does);
    all-ones does not fold. O(d).

    >>> from topologies import Torus
    >>> from topoalloc.grid import FirstFit
    >>> ff = FirstFit(Torus(4, 4, 2))
    >>> ff.fold((3, 4, 2)), ff.fold((4, 4, 1)), ff.fold((1, 1, 1)), ff.validate((2, 3))
    ((3, 2, 2), (2, 4, 1), None, (2, 3, 1))
    """

    topology_types = (Mesh,)
    #: Whether a request's axes may be permuted (set per instance).
    rotate: bool = False
    #: Bytes of state per node every box allocator keeps at least (busy array, id grid, padded bits).
    BYTES_PER_NODE = 12

    def __init__(self, topology: Mesh, permute: bool = False, *, rotate: bool | None = None) -> None:
        super().__init__(topology)
        permute = check_bool(permute, f"{type(self).__name__} permute", error=AllocatorParameterError)
        if rotate is not None:
            rotate = check_bool(rotate, f"{type(self).__name__} rotate", error=AllocatorParameterError)
            if permute and not rotate:
                raise AllocatorParameterError(f"{type(self).__name__}: permute={permute} and rotate={rotate} "
                                              f"disagree (rotate is the 2D name of permute)")
            permute = rotate
        check_memory(type(self).__name__, topology, topology.size, self.BYTES_PER_NODE)
        self.rotate = permute
        self.dims: tuple[int, ...] = topology.dims
        self.ndim: int = topology.ndim
        self.ring: tuple[bool, ...] = topology.ring
        self.busy: np.ndarray = np.zeros(topology.shape, dtype=bool)
        self._ids = np.arange(topology.size, dtype=np.int64).reshape(topology.shape)
        self._orient_memo: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}

    @property
    def permute(self) -> bool:
        """Whether a request's axes may be permuted (the same flag as ``rotate``)."""
        return self.rotate

    # -- the public surface -------------------------------------------------------------------
    def validate(self, request: Any) -> tuple[int, ...]:
        """``request`` as a full shape tuple, or a :class:`~topologies.RequestError` (a request that
        fits only permuted is accepted when ``permute`` is set)."""
        if type(request) is tuple and len(request) == self.ndim:  # fast path: an already canonical request
            ok = True
            for s, L in zip(request, self.dims, strict=True):
                if type(s) is not int or s <= 0 or s > L:
                    ok = False
                    break
            if ok:
                return request
        shape: tuple[int, ...] = self.topology.validate_request(request, rotate=self.rotate)
        return shape

    def request_size(self, request: Any) -> int:
        """The product of the sides of a valid request (a box allocator grants exactly the box)."""
        return math.prod(self.validate(request))

    @property
    def occupancy(self) -> np.ndarray:
        """A fresh array of allocation ids (0 = free) of ``topology.shape`` (last dimension first)."""
        return super().occupancy.reshape(self.topology.shape)

    def fold(self, request: Any) -> tuple[int, ...] | None:
        """Halve the longest side, rounding up (a tie halves the lowest dimension's); ``None`` when
        every side is 1."""
        r = self.validate(request)
        longest = max(r)
        if longest == 1:
            return None
        i = r.index(longest)
        return r[:i] + ((longest + 1) // 2,) + r[i + 1:]

    def free_nodes(self) -> np.ndarray:
        """Ids of the nodes the busy array marks free, ascending."""
        return np.flatnonzero(~self.busy.ravel())

    def covers(self, failed: Any, request: Any) -> bool:
        """Perfect recognition: a free box as long as a failed one in every dimension contains one
        of its shape, so ``request`` fails wherever ``failed`` did when each side is at least
        ``failed``'s; with ``permute``, when the sorted sides are (a box of ``request`` in any order
        contains one of ``failed`` in some order). :meth:`~topoalloc.Allocator.covers`."""
        f = self.validate(failed)
        r = self.validate(request)
        if all(a >= b for a, b in zip(r, f, strict=True)):
            return True
        return self.rotate and all(a >= b for a, b in zip(sorted(r), sorted(f), strict=True))

    def __repr__(self) -> str:
        turn = ", permute=True" if self.rotate else ""
        return f"{type(self).__name__}({self.topology!r}{turn})"

    # -- for subclasses -----------------------------------------------------------------------
    def _orientations(self, request: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The shapes to try, in order: ``request`` if it fits the machine, then (with ``permute``)
        its other distinct orders that fit, in the order of :func:`itertools.permutations` of the
        axes. Cached per request."""
        got = self._orient_memo.get(request)
        if got is None:
            dims = self.dims
            out = []
            orders = itertools.permutations(range(self.ndim)) if self.rotate else [tuple(range(self.ndim))]
            for perm in orders:
                shape = tuple(request[i] for i in perm)
                if shape not in out and all(s <= L for s, L in zip(shape, dims, strict=True)):
                    out.append(shape)
            got = self._orient_memo[request] = tuple(out)
        return got

    def _index(self, origin: tuple[int, ...], shape: tuple[int, ...]) -> tuple[Any, ...]:
        """Numpy index (last dimension first) of the box: slices, or index arrays where it wraps."""
        idx: list[slice | np.ndarray] = []
        wraps = False
        for o, s, L in zip(origin, shape, self.dims, strict=True):
            if o + s <= L:
                idx.append(slice(o, o + s))
            else:
                idx.append(np.arange(o, o + s) % L)
                wraps = True
        idx.reverse()
        return np.ix_(*[np.arange(i.start, i.stop) if isinstance(i, slice) else i for i in idx]) if wraps \
            else tuple(idx)

    def _mark(self, origin: tuple[int, ...], shape: tuple[int, ...], busy: bool) -> np.ndarray:
        """Set the box's cells of the busy array; return its node ids (a view when it does not wrap,
        flattened in id order on first use by :class:`~topoalloc.Allocation`)."""
        idx = self._index(origin, shape)
        self.busy[idx] = busy
        ids = self._ids[idx]
        return ids if all(o + s <= L for o, s, L in zip(origin, shape, self.dims, strict=True)) \
            else np.sort(ids.ravel())


class BoxBits:
    """The padded free-mask integer of a d-dimensional mesh or torus and its erosions (see the
    module docstring). Immutable geometry; the mask itself is a plain ``int`` its owner keeps.

    >>> from topologies import Torus
    >>> g = BoxBits((4, 3), (True, True))
    >>> bits = g.pack(np.ones((3, 4), dtype=bool))
    >>> g.first(bits, (3, 3)), g.first(bits & ~g.block((0, 0), (1, 1)), (3, 3))
    ((0, 0), (1, 0))
    """

    def __init__(self, dims: tuple[int, ...], ring: tuple[bool, ...]) -> None:
        self.dims = dims
        self.ring = ring
        self.ext = tuple(2 * L - 1 if r else L + 1 for L, r in zip(dims, ring, strict=True))
        st, s = [], 1
        for e in self.ext:
            st.append(s)
            s *= e
        self.pstride = tuple(st)
        self.nbits = s
        self._shifts: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._bases: dict[tuple[int, ...], int] = {}
        self._repunits: dict[tuple[int, int], int] = {}

    def pack(self, free: np.ndarray) -> int:
        """The padded mask of a boolean free array of the machine's shape (last dimension first). O(size)."""
        a = np.asarray(free, dtype=bool)
        nd = len(self.dims)
        for i, (L, r) in enumerate(zip(self.dims, self.ring, strict=True)):
            ax = nd - 1 - i
            if r:
                a = np.concatenate([a, np.take(a, np.arange(L - 1), axis=ax)], axis=ax)
            else:
                pad = [(0, 0)] * nd
                pad[ax] = (0, 1)
                a = np.pad(a, pad)
        return int.from_bytes(np.packbits(a.ravel(), bitorder="little").tobytes(), "little")

    def shifts(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The right shifts that erode the mask to "a free box of ``shape`` is based here": along each
        dimension by doubling. Cached."""
        got = self._shifts.get(shape)
        if got is None:
            out = []
            for s, p in zip(shape, self.pstride, strict=True):
                span = 1
                while span < s:
                    step = min(span, s - span)
                    out.append(step * p)
                    span += step
            got = self._shifts[shape] = tuple(out)
        return got

    def bases(self, shape: tuple[int, ...]) -> int:
        """The bits of the positions that are bases for ``shape``: every cell of the machine (``p_i <=
        L - 1``), and ``p_i = 0`` along a ring the box fills. Cached."""
        got = self._bases.get(shape)
        if got is None:
            keep = np.ones(1, dtype=bool)
            for L, e, r, s in zip(self.dims, self.ext, self.ring, shape, strict=True):
                line = np.zeros(e, dtype=bool)
                line[: (1 if (r and s == L) else L)] = True
                keep = (line[:, None] & keep[None, :]).ravel()
            got = self._bases[shape] = int.from_bytes(np.packbits(keep, bitorder="little").tobytes(), "little")
        return got

    def first(self, bits: int, shape: tuple[int, ...]) -> tuple[int, ...] | None:
        """The origin of the first free box of ``shape`` in node-id order on the mask ``bits``, or
        ``None``. O(sum_i log side_i) big-integer operations."""
        for d in self.shifts(shape):
            bits &= bits >> d
        if not bits:
            return None
        bits &= self.bases(shape)
        if not bits:
            return None
        return self.position((bits & -bits).bit_length() - 1)

    def eroded(self, bits: int, shape: tuple[int, ...]) -> int:
        """Every base of a free box of ``shape``, as bits of the padded layout."""
        for d in self.shifts(shape):
            bits &= bits >> d
        return bits & self.bases(shape)

    def position(self, bit: int) -> tuple[int, ...]:
        """The coordinates (x first) of padded bit ``bit`` (a base: inside the machine)."""
        return tuple((bit // p) % e for p, e in zip(self.pstride, self.ext, strict=True))

    def _repunit(self, i: int, length: int) -> int:
        """``sum_{k < length} 2^(k P_i)``: multiplying a mask of the dimensions below ``i`` by it
        repeats the mask ``length`` times along ``i``."""
        key = (i, length)
        got = self._repunits.get(key)
        if got is None:
            p = self.pstride[i]
            got = self._repunits[key] = ((1 << (length * p)) - 1) // ((1 << p) - 1)
        return got

    def _runs(self, i: int, o: int, s: int) -> list[tuple[int, int]]:
        """The padded positions of the cells ``o .. o + s - 1`` (mod ``L``) along dimension ``i``, as
        ``(start, length)`` runs (overlapping runs are fine: they are OR-ed)."""
        L = self.dims[i]
        if not self.ring[i]:
            return [(o, s)]
        if o + s <= L:
            out = [(o, s)]
            copies = min(s, L - 1 - o)
            if copies > 0:
                out.append((o + L, copies))
            return out
        r = o + s - L
        out = [(0, r), (o, L + r - o)]
        if o <= L - 2:
            out.append((o + L, L - 1 - o))
        return out

    def block(self, origin: tuple[int, ...], shape: tuple[int, ...]) -> int:
        """The padded bits of the box (its cells and, on rings, their copies). O(d) big-integer
        operations."""
        mask = 1
        for i, (o, s) in enumerate(zip(origin, shape, strict=True)):
            grown = 0
            p = self.pstride[i]
            for start, length in self._runs(i, o, s):
                grown |= (mask * self._repunit(i, length)) << (start * p)
            mask = grown
        return mask


class BoxAllocator(GridAllocator):
    """Base of :class:`~topoalloc.grid.FirstFit` and :class:`~topoalloc.grid.BestFit`: perfect
    recognition of free boxes (wrapping on rings) with the padded free-mask integer of
    :class:`BoxBits`, kept next to the busy array (one OR / AND-NOT per grant and release)."""

    recognition = "box"

    def __init__(self, topology: Mesh, permute: bool = False, *, rotate: bool | None = None) -> None:
        super().__init__(topology, permute, rotate=rotate)
        self._geo = BoxBits(self.dims, self.ring)
        self._bits = self._geo.pack(np.ones(topology.shape, dtype=bool))
        self._blocks: dict[int, int] = {}  # live allocation id -> its padded bits

    def _box_clone(self) -> Self:
        """The fast :meth:`~topoalloc.Allocator.clone`: a copy of the busy array, the live grants and
        their bits (the mask integer is immutable). O(size)."""
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        twin._blocks = dict(self._blocks)
        return twin

    def first_free_base(self, shape: tuple[int, ...]) -> tuple[int, ...] | None:
        """Origin of the first free box of ``shape`` (as given, not permuted) in node-id order, or
        ``None``."""
        if any(s > L for s, L in zip(shape, self.dims, strict=True)):
            return None
        return self._geo.first(self._bits, tuple(shape))

    def _first(self, bits: int, request: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """``(origin, shape)`` of the first-fit box for ``request`` on the mask ``bits``: the first free
        base of the first orientation that has one."""
        for shape in self._orientations(request):
            base = self._geo.first(bits, shape)
            if base is not None:
                return base, shape
        return None

    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """The first-fit box (first base in node-id order, in the first orientation that has one)
        whose nodes are all marked in ``free``: perfect recognition, so one exists exactly when the
        allocator would place the request on that free set (:meth:`~topoalloc.Allocator.place_in`).
        O(size) to pack the mask, then the erosions."""
        request = self.validate(request)
        bits = self._geo.pack(np.asarray(free, dtype=bool).reshape(self.topology.shape))
        got = self._first(bits, request)
        if got is None:
            return None
        return np.sort(self._ids[self._index(*got)].ravel())

    def _take(self, origin: tuple[int, ...], shape: tuple[int, ...]) -> tuple[Any, Box, np.ndarray, int]:
        """Mark the box busy; the tuple :meth:`_place` returns."""
        block = self._geo.block(origin, shape)
        self._bits &= ~block
        self._blocks[self._next_id] = block
        nodes = self._mark(origin, shape, True)
        return shape, _box(origin, shape), nodes, math.prod(shape)

    def _unplace(self, allocation: Allocation) -> int:
        self._bits |= self._blocks.pop(allocation.id)
        p = allocation.placement
        self._mark(p.origin, p.shape, False)
        return allocation.size

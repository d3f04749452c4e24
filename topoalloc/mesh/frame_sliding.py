"""Frame sliding submesh allocation (Chuang & Tzeng 1991)."""

from __future__ import annotations

import math

import numpy as np

from topologies import Mesh, Submesh

from ..base import Allocation
from .base import Grant, MeshAllocator, erosion_shifts

__all__ = ["FrameSliding"]

_latest = np.maximum.reduce  # (ndarray.max without its Python wrapper)


class FrameSliding(MeshAllocator):
    """Frame sliding (Chuang & Tzeng, "An efficient submesh allocation strategy for mesh computer
    systems", ICDCS 1991; Chang & Mohapatra, seed 002 §2.1.1).

    The requested ``w x h`` submesh is the *frame*. It slides over the mesh from the lower-left
    corner at non-overlapping positions only: bases ``(i w, j h)`` with ``i w + w <= width`` and
    ``j h + h <= height`` (horizontal stride ``w``, vertical stride ``h``). The job gets the first
    frame whose nodes are all free, in row-major order from ``(0, 0)``: ``y`` (rows of frames) outer,
    ``x`` inner. Requests are not rotated. A free submesh at a base off the stride grid is not
    recognised (the external fragmentation the paper compares against first fit, §4.3).

    Complexity: O(MN / (wh)) frames for an ``M x N`` mesh (the paper's bound, §2.1.1), each
    checked over its ``wh`` nodes -- here all at once, bit-parallel: the free mask is one Python
    integer (bit ``y * width + x``), eroded by ``a & (a >> d)`` doubling to "the next ``w`` nodes
    are free" along x and then "the next ``h`` rows are" along y (O(log w + log h) big-integer
    operations of O(MN / 64) words), then ANDed with the mask of the stride positions; the lowest
    set bit is the first free frame in row-major order. About 1 us per query on 32 x 32, whatever
    the number of live jobs. A shape with few frames (fewer than twice its erosion shifts: large
    requests, one to a few frames) is checked frame by frame instead, each a mask test, in the
    same row-major order. Release is O(wh) plus one O(MN / 64) mask update.

    >>> from topologies import Mesh
    >>> fs = FrameSliding(Mesh(6, 4))
    >>> a = fs.allocate((2, 2)); b = fs.allocate((3, 1)); c = fs.allocate((3, 1))
    >>> a.placement.x, a.placement.y, b.placement.x, b.placement.y, c.placement.x, c.placement.y
    (0, 0, 3, 0, 3, 1)
    >>> fs = FrameSliding(Mesh(3, 2))
    >>> fs.allocate((1, 2)).placement
    Submesh(x=0, y=0, width=1, height=2)
    >>> fs.allocate((2, 2)) is None   # columns 1-2 are free, but the only 2-wide frame is at x = 0
    True
    """

    recognition = "frame"

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        self._bits = (1 << (self.width * self.height)) - 1  # the free mask: bit y * width + x
        self._shapes: dict[tuple[int, int], tuple[int, int, tuple[int, ...], tuple[tuple[int, int], ...] | None]] = {}
        # (frozen avoided mask, its bits, the avoided rectangle or None, the free mask and the free
        # bits off the avoided ones once computed): see allocate_avoiding
        self._off: tuple[np.ndarray, int, tuple[int, int, int, int] | None, int | None, int] | None = None

    def _shape(self, w: int, h: int) -> tuple[int, int, tuple[int, ...], tuple[tuple[int, int], ...] | None]:
        """For a ``w x h`` frame: the bits of the block based at ``(0, 0)``, of the frame bases
        ``(i w, j h)``, the shifts that erode the free mask to "a free ``w x h`` block starts
        here" (``a & (a >> d)`` doubling: along x by 1, 2, 4, ..., then along y by rows), and, when
        there are fewer frames than twice the shifts, every frame as ``(base bit, its nodes' bits)`` in
        row-major order (``None`` otherwise). Cached per shape: at most ``width * height``
        entries."""
        got = self._shapes.get((w, h))
        if got is None:
            W = self.width
            block = (1 << w) - 1
            rows = 1
            while rows < h:
                step = min(rows, h - rows)
                block |= block << (step * W)
                rows += step
            row = 0
            for i in range(W // w):
                row |= 1 << (i * w)
            bases = 0
            for j in range(self.height // h):
                bases |= row << (j * h * W)
            shifts = erosion_shifts(w, h, W)
            frames = None
            if (W // w) * (self.height // h) < 2 * len(shifts):
                frames = tuple((p, block << p) for p in (j * h * W + i * w for j in range(self.height // h)
                                                          for i in range(W // w)))
            got = self._shapes[(w, h)] = (block, bases, shifts, frames)
        return got

    def clone(self) -> FrameSliding:
        """A copy of the busy array and the live grants (:meth:`Allocator.clone`); the free mask is
        an integer and the shape cache only grows, so both are shared safely. O(MN)."""
        if type(self) is not FrameSliding:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        return twin

    def _first_free(self, bits: int, w: int, h: int) -> int | None:
        """The bit (``y * width + x``) of the first frame, in row-major order, whose nodes are all
        set in ``bits``; ``None`` if there is none."""
        _, bases, shifts, frames = self._shapes.get((w, h)) or self._shape(w, h)
        if frames is not None:  # a few frames: test each (in row-major order) rather than erode
            for p, nodes in frames:
                if bits & nodes == nodes:
                    return p
            return None
        for d in shifts:  # stride positions never cross a row end, so no guard bits are needed
            bits &= bits >> d
        hit = bits & bases
        return (hit & -hit).bit_length() - 1 if hit else None

    def _take(self, p: int, w: int, h: int) -> Grant:
        self._bits &= ~(self._shapes[(w, h)][0] << p)
        y, x = divmod(p, self.width)
        return self._grant(x, y, w, h)

    def allocate(self, request: tuple[int, int]) -> Allocation | None:
        """Place a ``w x h`` request on the first free frame (see the class docstring); ``None`` if
        no frame is free.

        The generic :meth:`Allocator.allocate <topoalloc.Allocator.allocate>` with the request
        check's fast path and :meth:`_place` inlined: a backfilling scheduler asks about many
        requests that find no frame (EASY on seed 002's workload: 30,000 of its 34,000 questions),
        so the calls around the frame test are a large part of a question's cost."""
        if type(request) is tuple and len(request) == 2:  # (validate's fast path, inlined)
            w, h = request
            if not (type(w) is int and type(h) is int and 0 < w <= self.width and 0 < h <= self.height):
                w, h = self.validate(request)
        else:
            w, h = self.validate(request)
        if w * h > self._free:
            return None
        p = self._first_free(self._bits, w, h)
        return None if p is None else self._register(*self._take(p, w, h))

    def _place(self, request: tuple[int, int]) -> Grant | None:
        w, h = request
        if w * h > self._free:
            return None
        p = self._first_free(self._bits, w, h)
        return None if p is None else self._take(p, w, h)

    def _unplace(self, allocation: Allocation) -> int:
        s: Submesh = allocation.placement
        self._bits |= self._shape(s.width, s.height)[0] << (s.y * self.width + s.x)
        return super()._unplace(allocation)

    def covers(self, failed: tuple[int, int], request: tuple[int, int]) -> bool:
        """Whether ``request`` (``w' x h'``) certainly finds no free frame where ``failed``
        (``w x h``) found none (:meth:`~topoalloc.Allocator.covers`): when, in each dimension,
        ``w'`` is a multiple of ``w`` or at least ``2w - 1``. Then every ``w' x h'`` frame holds a
        whole ``w x h`` frame of the ``w``/``h`` stride grid (the first multiple of ``w`` at or
        after the frame's left edge is at most ``w - 1`` nodes in, and its ``w`` nodes end within
        the frame; likewise in ``y``), so a free one would give a free ``w x h`` frame. Larger
        sizes in between are not covered: frames of different sides sit on different grids (a
        free ``4 x 1`` frame at ``x = 4`` of a width-8 mesh holds no ``3 x 1`` frame, whose bases
        are ``x = 0, 3``). O(1)."""
        w, h = self.validate(failed)
        rw, rh = self.validate(request)
        return (rw % w == 0 or rw >= 2 * w - 1) and (rh % h == 0 or rh >= 2 * h - 1)

    def place_in(self, request: tuple[int, int], free: np.ndarray) -> np.ndarray | None:
        """The first frame whose nodes are all marked in ``free`` (the allocator's own rule on that
        free set; :meth:`Allocator.place_in`). O(MN / 64) word operations."""
        w, h = self.validate(request)
        p = self._first_free(_bits(free), w, h)
        if p is None:
            return None
        y, x = divmod(p, self.width)
        return self._ids[y : y + h, x : x + w].ravel()

    def place_in_bits(self, request: tuple[int, int], free: int) -> np.ndarray | None:
        """:meth:`place_in` on the bits of an integer (:meth:`Allocator.place_in_bits`), which is
        the allocator's own layout (bit ``y * width + x``): no conversion. O(MN / 64) word
        operations."""
        w, h = self.validate(request)
        p = self._first_free(free, w, h)
        if p is None:
            return None
        y, x = divmod(p, self.width)
        return self._ids[y : y + h, x : x + w].ravel()

    def earliest_in(
        self, request: tuple[int, int], ready: np.ndarray, now: float = -np.inf
    ) -> tuple[float, np.ndarray] | None:
        """:meth:`Allocator.earliest_in` in one pass: each frame is ready at its latest node's time
        (not before ``now``); the earliest, first in row-major order, is the frame
        :meth:`place_in` finds then. One or two frames (large requests: the ones a backfilling
        scheduler reserves for most) are reduced one slice each, the rest in one 4-D reduction
        (which copies the frames' part of the grid). O(MN)."""
        w, h = self.validate(request)
        H, W = self.height, self.width
        cols, rows = W // w, H // h
        grid = np.asarray(ready, dtype=float).reshape(H, W)
        if rows * cols <= 2:
            best, at = math.inf, (0, 0)
            for j in range(rows):
                for i in range(cols):
                    t = float(_latest(grid[j * h : (j + 1) * h, i * w : (i + 1) * w], axis=None))
                    if t < now:
                        t = now
                    if t < best or (j, i) == (0, 0):  # strictly earlier: the first in row-major order wins ties
                        best, at = t, (j, i)
            j, i = at
            return best, self._ids[j * h : (j + 1) * h, i * w : (i + 1) * w].ravel()
        grid = grid[: rows * h, : cols * w]
        frames = np.maximum(grid.reshape(rows, h, cols, w).max(axis=(1, 3)), now)
        j, i = divmod(int(frames.argmin()), cols)
        return float(frames[j, i]), self._ids[j * h : (j + 1) * h, i * w : (i + 1) * w].ravel()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` directly: frames do not overlap, so successive
        placements are the free frames in row-major order; the first that touches no avoided node.

        For a *frozen* ``avoid`` (read-only, owning its data: a scheduler's reservation, asked
        about once per candidate job; found again by identity, O(1)) three things are kept: its
        bits, whether its nodes are one rectangle ``[x0, x1) x [y0, y1)`` and which, and the free
        bits off it while the free mask does not change (the candidates of one scheduling pass
        share one conversion and one masked AND). A ``w x h`` frame, at column ``i w`` and row
        ``j h``, stays off the rectangle exactly when its columns or its rows do; some column does
        exactly when the first (``w <= x0``) or the last (``(width // w - 1) w >= x1``) does,
        likewise for rows. When none does, no frame avoids the rectangle whatever is free, and the
        answer is ``None`` by that arithmetic alone, before the free bits off the mask are
        computed (O(1); on the seed 002 mesh behind a large reserved job, four in five of the
        requests refused here). Otherwise O(MN / 64) word operations."""
        if type(request) is tuple and len(request) == 2:  # (validate's fast path, inlined)
            w, h = request
            if not (type(w) is int and type(h) is int and 0 < w <= self.width and 0 < h <= self.height):
                w, h = self.validate(request)
        else:
            w, h = self.validate(request)
        if w * h > self._free:
            return None
        kept = self._avoided(avoid)
        rect = kept[2]
        if rect is not None:
            x0, y0, x1, y1 = rect
            if not (w <= x0 or (self.width // w - 1) * w >= x1 or h <= y0 or (self.height // h - 1) * h >= y1):
                return None  # no frame of this shape stays off the avoided rectangle
        off = self._free_off(kept)  # the free bits off the avoided nodes
        p = self._first_free(off, w, h)
        return None if p is None else self._register(*self._take(p, w, h))

    def _avoid_bits(self, avoid: np.ndarray) -> int:
        """The mask's bits, node ``i`` at bit ``i`` (the layout of :attr:`_bits`)."""
        return _bits(avoid)

    def _avoid_rect(self, avoided: int) -> tuple[int, int, int, int] | None:
        """:meth:`MeshAllocator._avoid_rect` on rows of ``width`` bits."""
        W = self.width
        y0, x0 = divmod((avoided & -avoided).bit_length() - 1, W)
        y1, x1 = divmod(avoided.bit_length() - 1, W)
        x1 += 1
        y1 += 1
        if x1 > x0:
            rows = ((1 << ((y1 - y0) * W)) - 1) // ((1 << W) - 1)  # bit 0 of each of the rows
            if avoided == (rows * ((1 << (x1 - x0)) - 1)) << (y0 * W + x0):
                return (x0, y0, x1, y1)
        return None

def _bits(mask: np.ndarray) -> int:
    """A boolean node mask (flat, or ``(height, width)``) as an integer, node ``i`` at bit ``i``."""
    flat = np.ascontiguousarray(mask, dtype=bool).ravel()
    return int.from_bytes(np.packbits(flat, bitorder="little").tobytes(), "little")

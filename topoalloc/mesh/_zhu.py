"""Shared machinery of Zhu's first-fit and best-fit allocators: the busy array and the coverage array.

Zhu (JPDC 16, 1992) finds every free ``w x h`` submesh with two arrays over the mesh. The *busy
array* marks the allocated nodes. For a request, the *coverage array* marks every base ``(x, y)``
that cannot hold the request: the *coverage* of each allocated submesh ``[x0, x1) x [y0, y1)`` --
the bases ``[x0 - w + 1, x1) x [y0 - h + 1, y1)`` whose ``w x h`` window would overlap it -- and the
right and top border strips ``x > width - w`` and ``y > height - h`` where the window would leave the
mesh. The unmarked bases are exactly the bases of free ``w x h`` submeshes, so recognition is
perfect, in O(MN) time and space.

Two evaluations of the same coverage array live here:

* :meth:`ZhuAllocator.coverage`, Zhu's marking, with one ``numpy`` slice assignment per live
  allocation into a preallocated array: O(k + MN) for ``k`` live allocations (used by best fit,
  which needs every free base);
* :meth:`ZhuAllocator.first_free_base`, a bit-parallel form for first fit: the free mask is one
  Python integer (kept next to the busy array, updated with one masked AND / OR per grant and
  release), row ``y`` at bits ``y * (width + 2) ..`` with a busy guard bit on both sides of each row;
  ``a & (a >> d)`` doubling erodes it to "the next ``w`` nodes are free" along x and then to "the
  next ``h`` rows are" along y (O(log w + log h) big-integer operations of O(MN / 64) words each);
  the lowest set bit is the first unmarked base in row-major order. Its cost does not grow with the
  number of live allocations.
"""

from __future__ import annotations

from typing import Self

import numpy as np

from topologies import Mesh, Submesh
from topologies._validate import check_bool

from ..base import Allocation
from .base import Grant, MeshAllocator, erosion_shifts

__all__ = ["ZhuAllocator"]


class ZhuAllocator(MeshAllocator):
    """Base of :class:`~topoalloc.mesh.FirstFit` and :class:`~topoalloc.mesh.BestFit` (Zhu 1992):
    perfect recognition with the busy and coverage arrays, optional rotation.

    ``rotate=True``: when no free ``w x h`` submesh exists (or ``w x h`` is larger than the mesh in
    some direction), an ``h x w`` one is tried and the granted request is then ``(h, w)``.

    The busy array is a view into a ``(height + 2, width + 2)`` store whose one-node border is marked
    busy, so boundary tests need no special cases.
    """

    recognition = "perfect"

    def __init__(self, topology: Mesh, rotate: bool = False) -> None:
        self.rotate = check_bool(rotate, f"{type(self).__name__} rotate")
        super().__init__(topology)
        W, H = self.width, self.height
        self._stride = W + 2
        self._all_bits = (1 << (H * self._stride)) - 1
        self._cov = np.zeros((H, W), dtype=bool)
        self._bits = self._block(0, 0, W, H)  # the free mask as an integer, see _free_bits
        self._boxes: dict[Submesh, tuple[int, int, int, int]] = {}
        self._erosions: dict[tuple[int, int], tuple[int, ...]] = {}  # shape -> shifts (only grows: shared by clones)

    def _new_busy(self) -> np.ndarray:
        self._pad = np.ones((self.height + 2, self.width + 2), dtype=bool)
        busy = self._pad[1:-1, 1:-1]
        busy[...] = False
        return busy

    def _zhu_clone(self) -> Self:
        """The fast :meth:`~topoalloc.Allocator.clone` of the Zhu allocators: a copy of the padded
        busy store (the busy array is a view into it), the free-mask integer, the live boxes and
        the live grants. O(MN)."""
        twin = self._shallow_clone()
        twin._pad = self._pad.copy()
        twin.busy = twin._pad[1:-1, 1:-1]
        twin._cov = np.zeros_like(self._cov)
        twin._boxes = dict(self._boxes)
        return twin

    # -- the coverage array -------------------------------------------------------------------
    def coverage(self, w: int, h: int) -> np.ndarray:
        """Zhu's coverage array for a ``w x h`` request: ``(height, width)``, True where no free
        ``w x h`` submesh can be based (covered by an allocated submesh's coverage, or in the right
        or top border strip). O(k + MN) for ``k`` live allocations.

        The array is reused by the next call; copy it to keep it.
        """
        cov = self._cov
        cov.fill(False)
        cov[self.height - h + 1 :, :] = True  # top strip: the window would leave the mesh
        cov[:, self.width - w + 1 :] = True  # right strip
        for x0, y0, x1, y1 in self._boxes.values():
            cov[(y0 - h + 1 if y0 >= h else 0) : y1, (x0 - w + 1 if x0 >= w else 0) : x1] = True
        return cov

    def _free_bits(self) -> int:
        """The free mask as an integer: bit ``y * (width + 2) + x + 1`` set iff node ``(x, y)`` is
        free (bits at the row guards are 0). Kept up to date by :meth:`_grant` / :meth:`_unplace`;
        :meth:`_free_bits_from_busy` recomputes it from the busy array."""
        return self._bits

    def _free_bits_from_busy(self) -> int:
        """:meth:`_free_bits` rebuilt from the busy array (the reference, for checks). O(MN)."""
        packed = np.packbits(self._pad[1:-1], bitorder="little")
        return self._all_bits ^ int.from_bytes(packed.tobytes(), "little")

    def _block(self, x: int, y: int, w: int, h: int) -> int:
        """The bits of the ``w x h`` submesh based at ``(x, y)``: one row, doubled up to ``h`` rows."""
        stride = self._stride
        block = ((1 << w) - 1) << (x + 1)
        rows = 1
        while rows < h:
            step = min(rows, h - rows)
            block |= block << (step * stride)
            rows += step
        return block << (y * stride)

    def _first_in(self, bits: int, w: int, h: int) -> tuple[int, int] | None:
        shifts = self._erosions.get((w, h))
        if shifts is None:
            shifts = self._erosions[(w, h)] = erosion_shifts(w, h, self._stride)
        for d in shifts:
            bits &= bits >> d
        if not bits:
            return None
        y, c = divmod((bits & -bits).bit_length() - 1, self._stride)
        return c - 1, y

    def first_free_base(self, w: int, h: int) -> tuple[int, int] | None:
        """``(x, y)`` of the first base, in row-major order from ``(0, 0)`` (``y`` outer), of a free
        ``w x h`` submesh, or ``None``: the first unmarked entry of :meth:`coverage`, computed
        bit-parallel in O(MN (log w + log h) / 64) word operations."""
        if w > self.width or h > self.height:
            return None
        return self._first_in(self._free_bits(), w, h)

    def _bits_of(self, free: np.ndarray) -> int:
        """A ``(height, width)`` free mask in the layout of :meth:`_free_bits`."""
        pad = np.zeros((self.height, self._stride), dtype=bool)
        pad[:, 1:-1] = free
        return int.from_bytes(np.packbits(pad, bitorder="little").tobytes(), "little")

    def covers(self, failed: tuple[int, int], request: tuple[int, int]) -> bool:
        """Perfect recognition: a ``w' x h'`` submesh with ``w' >= w``, ``h' >= h`` contains a
        ``w x h`` one, so a request as wide and as high as one that failed fails too (with
        ``rotate``, in either orientation: the failed request failed turned as well;
        :meth:`~topoalloc.Allocator.covers`)."""
        w, h = self.validate(failed)
        rw, rh = self.validate(request)
        return (rw >= w and rh >= h) or (self.rotate and rw >= h and rh >= w)

    def place_in(self, request: tuple[int, int], free: np.ndarray) -> np.ndarray | None:
        """The first-fit submesh (first base in row-major order, turned if ``rotate`` and only then)
        whose nodes are all marked in ``free``: perfect recognition, so one exists exactly when
        the allocator would place the request on that free set (best fit might choose another;
        :meth:`~topoalloc.Allocator.place_in`). O(MN (log w + log h) / 64)."""
        request = self.validate(request)
        bits = self._bits_of(np.asarray(free, dtype=bool).reshape(self.height, self.width))
        for w, h in self._orientations(request):
            base = self._first_in(bits, w, h)
            if base is not None:
                x, y = base
                return self._ids[y : y + h, x : x + w].ravel()
        return None

    # -- placing ------------------------------------------------------------------------------
    def _orientations(self, request: tuple[int, int]) -> list[tuple[int, int]]:
        """The shapes to try, in order: ``(w, h)`` if it fits the mesh, then ``(h, w)`` if rotating."""
        w, h = request
        out = []
        if w <= self.width and h <= self.height:
            out.append((w, h))
        if self.rotate and w != h and h <= self.width and w <= self.height:
            out.append((h, w))
        return out

    def _grant(self, x: int, y: int, w: int, h: int) -> Grant:
        got = super()._grant(x, y, w, h)
        self._boxes[got[1]] = (x, y, x + w, y + h)
        self._bits &= ~self._block(x, y, w, h)
        return got

    def _unplace(self, allocation: Allocation) -> int:
        p = allocation.placement
        del self._boxes[p]
        self._bits |= self._block(p.x, p.y, p.width, p.height)
        return super()._unplace(allocation)

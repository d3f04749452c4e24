"""Zhu's first-fit submesh allocation (Zhu 1992)."""

from __future__ import annotations

import numpy as np

from topologies import Mesh

from ..base import Allocation
from ._zhu import ZhuAllocator
from .base import Grant

__all__ = ["FirstFit"]


class FirstFit(ZhuAllocator):
    """First fit (FF) (Zhu, "Efficient processor allocation strategies for mesh-connected parallel
    computers", JPDC 16, 1992; the perfect-recognition algorithm of Chang & Mohapatra, seed 002
    §4.2-§4.3).

    A ``w x h`` request goes to the first base ``(x, y)``, in row-major order from the lower-left
    corner ``(0, 0)`` (``y`` outer, ``x`` inner), that is not marked in Zhu's coverage array, i.e. the
    first base of a free ``w x h`` submesh. Recognition is perfect: ``allocate`` returns ``None``
    only when no free ``w x h`` submesh exists anywhere. With ``rotate=True`` an ``h x w`` submesh
    is tried when no ``w x h`` one is free (the granted request is then ``(h, w)``).

    Complexity: O(MN) time and space on an ``M x N`` mesh, as in the paper. The first unmarked
    entry of the coverage array is found bit-parallel
    (:meth:`~topoalloc.mesh._zhu.ZhuAllocator.first_free_base`): O(MN (log w + log h) / 64) word
    operations, independent of the number of live allocations, so about 10 us per allocation on a
    32 x 32 mesh and under 1 ms on 1024 x 1024. Release is O(wh) plus one O(MN / 64) mask update.

    >>> from topologies import Mesh
    >>> ff = FirstFit(Mesh(4, 4))
    >>> a = ff.allocate((2, 3)); b = ff.allocate((3, 1)); c = ff.allocate((2, 2))
    >>> a.placement, b.placement, c.placement
    (Submesh(x=0, y=0, width=2, height=3), Submesh(x=0, y=3, width=3, height=1), Submesh(x=2, y=0, width=2, height=2))
    >>> ff.allocate((1, 3)) is None, FirstFit(Mesh(4, 2), rotate=True).allocate((1, 3)).request
    (True, (3, 1))
    """

    def __init__(self, topology: Mesh, rotate: bool = False) -> None:
        super().__init__(topology, rotate)
        # (frozen avoided mask, its bits, the avoided rectangle or None, the free mask and the free
        # bits off the avoided ones once computed): see allocate_avoiding
        self._off: tuple[np.ndarray, int, tuple[int, int, int, int] | None, int | None, int] | None = None

    def clone(self) -> FirstFit:
        """A copy of the busy store, the free mask and the live grants (:meth:`Allocator.clone`).
        O(MN)."""
        return self._zhu_clone() if type(self) is FirstFit else super().clone()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`~topoalloc.Allocator.allocate_avoiding`: the same sequence of first-fit
        placements, searched on a copy of the free mask in which each rejected submesh is marked
        busy (no grants are made for them; a placement is tested against the avoided nodes with
        one AND of their bits); ``None`` at once when no free submesh at all stays off the avoided
        nodes.

        For a *frozen* ``avoid`` (read-only, owning its data: a scheduler's reservation, asked
        about once per candidate job; found again by identity, O(1)) three things are kept: its
        bits, whether its nodes are one rectangle ``[x0, x1) x [y0, y1)`` and which, and the free
        bits off it while the free mask does not change. Recognition being perfect, a ``w x h``
        submesh off the rectangle exists on the mesh exactly when it fits beside it (``w <= x0``
        or ``w <= width - x1``) or below or above it (``h <= y0`` or ``h <= height - y1``); when
        no orientation does, the answer is ``None`` by that arithmetic alone, whatever is free
        (O(1); this test is this library's own). Otherwise O(MN (log w + log h) / 64) per
        rejected submesh."""
        if type(request) is tuple and len(request) == 2:  # (validate's fast path, inlined)
            w, h = request
            if not (type(w) is int and type(h) is int and 0 < w <= self.width and 0 < h <= self.height):
                request = self.validate(request)
        else:
            request = self.validate(request)
        shapes = self._orientations(request)
        kept = self._avoided(avoid)
        rect = kept[2]
        if rect is not None:
            x0, y0, x1, y1 = rect
            W, H = self.width, self.height
            for w, h in shapes:
                if w <= x0 or w <= W - x1 or h <= y0 or h <= H - y1:
                    break
            else:
                return None  # no submesh of this request's shapes fits off the avoided rectangle
        off = self._free_off(kept)  # the free bits off the avoided nodes
        for w, h in shapes:
            if self._first_in(off, w, h) is not None:
                break
        else:
            return None  # no free submesh at all stays off the avoided nodes
        avoided, bits = kept[1], self._bits
        while True:
            for w, h in shapes:
                base = self._first_in(bits, w, h)
                if base is not None:
                    break
            else:
                return None
            x, y = base
            block = self._block(x, y, w, h)
            if not block & avoided:
                return self._register(*self._grant(x, y, w, h))
            bits &= ~block

    def _avoid_rect(self, avoided: int) -> tuple[int, int, int, int] | None:
        """:meth:`MeshAllocator._avoid_rect` in Zhu's layout (rows of ``_stride`` bits, a guard
        column first)."""
        stride = self._stride
        y0, c0 = divmod((avoided & -avoided).bit_length() - 1, stride)
        y1, c1 = divmod(avoided.bit_length() - 1, stride)
        if c1 >= c0 and avoided == self._block(c0 - 1, y0, c1 - c0 + 1, y1 - y0 + 1):
            return (c0 - 1, y0, c1, y1 + 1)
        return None

    def _avoid_bits(self, mask: np.ndarray) -> int:
        """A flat node mask in the layout of :meth:`_free_bits`."""
        return self._bits_of(mask.reshape(self.height, self.width))

    def _place(self, request: tuple[int, int]) -> Grant | None:
        if request[0] * request[1] > self._free:
            return None
        bits = self._free_bits()
        for w, h in self._orientations(request):
            base = self._first_in(bits, w, h)
            if base is not None:
                return self._grant(base[0], base[1], w, h)
        return None

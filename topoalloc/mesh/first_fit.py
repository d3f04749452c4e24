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
        # (frozen avoided mask, free mask, free bits off the avoided ones): see allocate_avoiding
        self._off: tuple[np.ndarray, int, int] | None = None

    def clone(self) -> FirstFit:
        """A copy of the busy store, the free mask and the live grants (:meth:`Allocator.clone`).
        O(MN)."""
        return self._zhu_clone() if type(self) is FirstFit else super().clone()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`~topoalloc.Allocator.allocate_avoiding`: the same sequence of first-fit
        placements, searched on a copy of the free mask in which each rejected submesh is marked
        busy (no grants are made for them); ``None`` at once when no free submesh at all stays off
        the avoided nodes. The free bits off a *frozen* ``avoid`` (read-only, owning its data: a
        scheduler's reservation, asked about once per candidate job) are kept while neither that
        mask nor the free mask changes (found by identity, O(1)). O(MN (log w + log h) / 64) per
        rejected submesh."""
        request = self.validate(request)
        bits = self._free_bits()
        last = self._off
        if last is not None and last[0] is avoid and last[1] is bits:
            off = last[2]  # the same frozen mask on the same free mask (no grant or release since)
        else:
            off = bits & ~self._frozen(avoid, "zhu bits", self._mask_bits)
            memo = self._frozen_memo
            if memo is not None and memo[0] is avoid:  # a frozen mask: the free bits off it are kept
                self._off = (avoid, bits, off)
        for w, h in self._orientations(request):
            if self._first_in(off, w, h) is not None:
                break
        else:
            return None  # no free submesh at all stays off the avoided nodes
        avoid = np.asarray(avoid, dtype=bool).reshape(self.height, self.width)
        while True:
            for w, h in self._orientations(request):
                base = self._first_in(bits, w, h)
                if base is not None:
                    break
            else:
                return None
            x, y = base
            if not avoid[y : y + h, x : x + w].any():
                return self._register(*self._grant(x, y, w, h))
            bits &= ~self._block(x, y, w, h)

    def _mask_bits(self, mask: np.ndarray) -> int:
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

"""Frame sliding submesh allocation (Chuang & Tzeng 1991)."""

from __future__ import annotations

import numpy as np

from topologies import Mesh

from ..base import Allocation
from .base import MeshAllocator

__all__ = ["FrameSliding"]


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
    checked over its ``wh`` nodes; the whole check is one vectorised ``numpy`` reduction of the
    busy array reshaped to ``(frames_y, h, frames_x, w)``, O(MN) element work with no Python loop.
    Release is O(wh).

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

    def clone(self) -> FrameSliding:
        """A copy of the busy array and the live grants (:meth:`Allocator.clone`). O(MN)."""
        if type(self) is not FrameSliding:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        return twin

    def _first_frame(self, busy: np.ndarray, w: int, h: int) -> tuple[int, int] | None:
        """``(x, y)`` of the first frame, in row-major order, with no node marked in ``busy``."""
        nx, ny = self.width // w, self.height // h
        frames = busy[: ny * h, : nx * w].reshape(ny, h, nx, w).any(axis=(1, 3))
        i = int(frames.argmin())  # first all-free frame in row-major order
        fy, fx = divmod(i, nx)
        return None if frames[fy, fx] else (fx * w, fy * h)

    def _place(self, request: tuple[int, int]):
        w, h = request
        base = self._first_frame(self.busy, w, h)
        return None if base is None else self._grant(base[0], base[1], w, h)

    def place_in(self, request: tuple[int, int], free: np.ndarray) -> np.ndarray | None:
        """The first frame whose nodes are all marked in ``free`` (the allocator's own rule on that
        free set; :meth:`Allocator.place_in`). O(MN)."""
        w, h = self.validate(request)
        base = self._first_frame(~np.asarray(free, dtype=bool).reshape(self.height, self.width), w, h)
        return None if base is None else self._ids[base[1] : base[1] + h, base[0] : base[0] + w].ravel()

    def allocate_avoiding(self, request: tuple[int, int], avoid: np.ndarray) -> Allocation | None:
        """:meth:`Allocator.allocate_avoiding` directly: frames do not overlap, so successive
        placements are the free frames in row-major order; the first that touches no avoided node.
        O(MN)."""
        w, h = self.validate(request)
        base = self._first_frame(self.busy | np.asarray(avoid, dtype=bool).reshape(self.height, self.width), w, h)
        return None if base is None else self._register(*self._grant(base[0], base[1], w, h))

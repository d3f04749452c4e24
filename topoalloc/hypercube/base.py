"""What the hypercube allocators share: the topology check and the one-dimension-less fold."""

from __future__ import annotations

from topologies import Hypercube

from ..base import Allocator

__all__ = ["CubeAllocator"]


class CubeAllocator(Allocator):
    """Base of the subcube allocators. Requests are subcube dimensions ``k``.

    Folding (Chang & Mohapatra §3.2): a fold is one dimension less, ``k -> k - 1``; a 0-cube does
    not fold.
    """

    topology_types = (Hypercube,)

    def __init__(self, topology: Hypercube) -> None:
        super().__init__(topology)
        self.dim: int = topology.dim

    def validate(self, request: int) -> int:
        """The dimension ``k`` as an int, or raise (fast path for a plain in-range int)."""
        if type(request) is int and 0 <= request <= self.dim:
            return request
        dim: int = self.topology.validate_request(request)
        return dim

    def covers(self, failed: int, request: int) -> bool:
        """A ``k``-cube covers every larger one: each recognised ``k'``-subcube (``k' >= k``; buddy
        blocks, Gray-code blocks, any subcube) contains a recognised ``k``-subcube
        (:meth:`~topoalloc.Allocator.covers`)."""
        return self.validate(request) >= self.validate(failed)

    def fold(self, request: int) -> int | None:
        """``k - 1``, or ``None`` for ``k == 0``."""
        k = self.validate(request)
        return k - 1 if k > 0 else None

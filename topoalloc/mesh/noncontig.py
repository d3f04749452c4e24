"""Non-contiguous allocation on a 2D mesh: the shared surface and the two baselines, ``Random`` and
``Naive`` (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor allocation algorithms for
mesh-connected multicomputers", IEEE TPDS 8(7), 1997, §3).

A non-contiguous allocator grants any free nodes, not a submesh: external fragmentation disappears
and the price is communication distance and link contention (which the placement-aware run-time
models and the locality metrics measure). Every allocator here shares :class:`NoncontiguousAllocator`.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np

from topologies import Mesh, RequestSizeError
from topologies.base import request_int

from ..base import Allocation
from .base import MeshAllocator

__all__ = ["NoncontiguousAllocator", "Random", "Naive"]


class NoncontiguousAllocator(MeshAllocator):
    """Base of the non-contiguous mesh allocators: ``n`` free nodes, wherever they are.

    **Requests.** The mesh's own ``(w, h)`` request (validated as by the contiguous allocators:
    both sides within the mesh; no rotation is needed) asks for ``w * h`` nodes, so a workload
    drives contiguous and non-contiguous allocators alike. A plain processor count ``n`` (an int,
    ``1 <= n <= capacity``) is accepted too. The granted request is the request as given;
    :meth:`request_size` is the number of nodes granted for it (``w * h`` or ``n``, rounded up to
    whole pages by :class:`~topoalloc.mesh.Paging`).

    **Placement.** The sorted array of granted node ids (like :class:`~topoalloc.FlatPool`), and
    ``recognition = "any"``: ``allocate`` returns ``None`` only when fewer than
    ``request_size(request)`` nodes are free, so the flat machine's oracle
    (:func:`topoalloc.testing.any_free`) applies. :class:`~topoalloc.mesh.Paging` with pages larger
    than one node recognises whole free pages instead (``recognition = "page"``).

    **Folding.** Like a flat machine, a job of ``n`` processors folds to about ``n / 2``: a ``(w, h)``
    request folds exactly as the contiguous mesh allocators fold it (:meth:`MeshAllocator.fold
    <topoalloc.mesh.MeshAllocator.fold>`: halve the longer side, rounding up), so RSR-t on a mesh
    folds the same shapes under every allocator; a count folds as ``FlatPool`` folds it
    (``ceil(n / 2)``); ``(1, 1)`` and ``1`` do not fold.

    **State.** The ``busy`` array of :class:`MeshAllocator` (row = y) marks granted nodes;
    :meth:`free_nodes` reads it. Subclasses implement :meth:`_choose` (the sorted node ids for ``n``
    nodes, or ``None``) and may keep more state by overriding :meth:`_take` and :meth:`_give_back`.

    >>> from topologies import Mesh
    >>> from topoalloc.mesh import Naive
    >>> a = Naive(Mesh(4, 3))
    >>> a.request_size((2, 3)), a.request_size(5), a.fold((2, 3)), a.fold(5), a.fold(1)
    (6, 5, (2, 2), 3, None)
    """

    recognition: ClassVar[str] = "any"
    #: Plain processor counts are valid requests (the test strategies draw them too).
    accepts_counts: ClassVar[bool] = True

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        self._flat_busy: np.ndarray = self.busy.reshape(-1)  # a view: node id -> busy
        #: Nodes a request can ever get (the mesh size; fewer for Paging when pages do not tile it).
        self.capacity: int = topology.size

    # -- requests -----------------------------------------------------------------------------
    def validate(self, request: Any) -> Any:
        """``request`` as ``(w, h)`` or as an int count, or a :class:`~topologies.RequestError`."""
        if type(request) is int:
            if 0 < request <= self.capacity:
                return request
        elif isinstance(request, numbers.Integral) and not isinstance(request, bool):
            request = int(request)
            if 0 < request <= self.capacity:
                return request
        elif not isinstance(request, bool):
            wh = super().validate(request)
            if wh[0] * wh[1] > self.capacity:
                raise RequestSizeError(
                    f"request {wh} asks for {wh[0] * wh[1]} nodes; {type(self).__name__} can grant at most "
                    f"{self.capacity}"
                )
            return wh
        n = request_int(request, f"a request on the {self.width}x{self.height} mesh (a count or (w, h))")
        if n <= 0:
            raise RequestSizeError(f"a request must ask for at least 1 processor, got {n}")
        raise RequestSizeError(
            f"request for {n} processors is larger than the {self.width}x{self.height} mesh allows "
            f"({self.capacity} processors)"
        )

    def request_size(self, request: Any) -> int:
        """Nodes granted for ``request``: ``w * h`` for ``(w, h)``, ``n`` for a count."""
        r = self.validate(request)
        return r if type(r) is int else r[0] * r[1]

    def fold(self, request: Any) -> Any | None:
        """A ``(w, h)`` request folds like on a contiguous mesh allocator (halve the longer side); a
        count ``n`` to ``ceil(n / 2)``. ``None`` for ``(1, 1)`` and ``1``."""
        r = self.validate(request)
        if type(r) is int:
            return (r + 1) // 2 if r > 1 else None
        return super().fold(r)

    # -- placing ------------------------------------------------------------------------------
    def _place(self, request: Any) -> tuple[Any, np.ndarray, np.ndarray, int] | None:
        n = self.request_size(request)
        if n > self._free:
            return None
        nodes = self._choose(n)
        if nodes is None:
            return None
        self._take(nodes)
        return request, nodes, nodes, len(nodes)

    def _unplace(self, allocation: Allocation) -> int:
        nodes = allocation.placement
        self._give_back(nodes)
        return len(nodes)

    def _choose(self, n: int) -> np.ndarray | None:  # pragma: no cover - every subclass overrides
        """The sorted ids of the nodes to grant for ``n`` processors (``n <= free``), or ``None``."""
        raise NotImplementedError

    def _take(self, nodes: np.ndarray) -> None:
        """Mark ``nodes`` granted (subclasses with more state extend it)."""
        self._flat_busy[nodes] = True

    def _give_back(self, nodes: np.ndarray) -> None:
        """Mark ``nodes`` free again (subclasses with more state extend it)."""
        self._flat_busy[nodes] = False


class Random(NoncontiguousAllocator):
    """Random allocation (Lo, Windisch, Liu & Nitzberg, IEEE TPDS 8(7), 1997, §3): a request for
    ``n`` processors gets ``n`` free nodes chosen uniformly at random (every ``n``-subset of the
    free nodes equally likely), with no regard for contiguity. It removes internal and external
    fragmentation and is the paper's worst case for locality and contention.

    The allocator owns its random stream: ``seed`` (default ``0``) builds a
    :class:`numpy.random.Generator`, so the same seed and the same calls give the same grants.

    Complexity: O(P) vectorised work per allocate (the free ids, a ``Generator.choice`` of ``n``
    positions without replacement, a sort of ``n``), O(n) per release.

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
        free = np.flatnonzero(~self._flat_busy)
        picked = self.rng.choice(len(free), n, replace=False, shuffle=False)
        picked.sort()
        return free[picked]

    def __repr__(self) -> str:
        return f"Random({self.topology!r}, seed={self.seed!r})"


class Naive(NoncontiguousAllocator):
    """Naive allocation: the first ``n`` free nodes in row-major order (node id order, ``y`` outer,
    ``x`` inner), the simplest non-contiguous baseline of Lo, Windisch, Liu & Nitzberg (IEEE TPDS
    8(7), 1997, §3). It grants the same nodes as :class:`~topoalloc.mesh.Paging` with 1x1 pages in
    row-major page order; kept as its own name as the simplest baseline, the one-dimensional
    allocation of the row-major order without any interval rule (compare
    :class:`~topoalloc.mesh.Curve`).

    Complexity: O(P) vectorised work per allocate (one ``flatnonzero`` of the free mask), O(n) per
    release.

    >>> from topologies import Mesh
    >>> a = Naive(Mesh(4, 4))
    >>> x = a.allocate((3, 1)); y = a.allocate(2); a.release(x)
    >>> a.allocate((2, 2)).nodes.tolist()
    [0, 1, 2, 5]
    """

    def _choose(self, n: int) -> np.ndarray:
        return np.flatnonzero(~self._flat_busy)[:n]

"""What the mesh allocators share: the topology check, the busy array, the one-direction fold."""

from __future__ import annotations

import numpy as np

from topologies import Mesh, Submesh

from .._memory import check_memory
from ..base import Allocation, Allocator
from ..errors import UnsupportedTopologyError

__all__ = ["MeshAllocator", "erosion_shifts", "is_plain_2d"]

_submesh = Submesh._unchecked

#: What a mesh allocator's ``_place`` returns for a grant (see :meth:`MeshAllocator._grant`): the
#: granted ``(w, h)``, the submesh, its node ids as a 2-D view of the id grid, the node count.
Grant = tuple[tuple[int, int], Submesh, np.ndarray, int]


def is_plain_2d(topology: Mesh) -> bool:
    """Whether ``topology`` is a mesh the 2D allocators of :mod:`topoalloc.mesh` manage: two
    dimensions and no ring (a wrapped side of 1 or 2 nodes adds no link, so it counts as a line;
    per-dimension weights change distances, not which boxes are free). O(1).

    >>> from topologies import Mesh, Torus
    >>> is_plain_2d(Mesh(8, 8)), is_plain_2d(Torus(8, 8)), is_plain_2d(Mesh(8, 8, 8)), is_plain_2d(Torus(2, 2))
    (True, False, False, True)
    """
    return topology.ndim == 2 and not any(topology.ring)


class MeshAllocator(Allocator):
    """Base of the submesh allocators of a 2D :class:`~topologies.Mesh` (:func:`is_plain_2d`: a
    d-dimensional mesh or a torus raises :class:`~topoalloc.errors.UnsupportedTopologyError`; the
    allocators of :mod:`topoalloc.grid` take those).

    Requests are ``(w, h)`` tuples (width along x, height along y), validated by
    :meth:`Mesh.validate_request <topologies.Mesh.validate_request>` (with ``rotate=self.rotate``
    for allocators that may turn a request by 90 degrees). Placements are
    :class:`~topologies.Submesh` values; node ``(x, y)`` has id ``y * width + x``.

    State: ``busy``, a boolean ``(height, width)`` array (row = y) that is the allocator's own record
    of taken nodes; :meth:`free_nodes` reads it. :attr:`occupancy` is the base class's id-per-node
    view reshaped to ``(height, width)``.

    Folding (Chang & Mohapatra, seed 002 §4.1: "every size reduction results in folding the job in
    the direction which it has longer side length"): the longer side is halved, rounding up, so
    ``(w, h) -> (ceil(w / 2), h)`` when ``w > h`` and ``(w, ceil(h / 2))`` when ``w < h``. The paper
    does not say what a square does; here a tie ``w == h`` halves the **width**. ``(1, 1)`` does
    not fold. A fold is O(1).

    >>> from topologies import Mesh
    >>> from topoalloc.mesh import FirstFit
    >>> ff = FirstFit(Mesh(8, 4))
    >>> ff.fold((5, 3)), ff.fold((3, 4)), ff.fold((4, 4)), ff.fold((1, 1))
    ((3, 3), (3, 2), (2, 4), None)
    >>> a = ff.allocate((3, 2)); ff.occupancy.shape, ff.free_nodes()[:4].tolist()
    ((4, 8), [3, 4, 5, 6])
    """

    topology_types = (Mesh,)
    #: Whether a request may be turned by 90 degrees (allocators that support it set it per instance).
    rotate: bool = False

    #: Bytes of state per node every mesh allocator keeps at least (the busy array and the id grid):
    #: a machine needing more than the host's memory is refused up front (:func:`check_memory`).
    BYTES_PER_NODE = 9

    def __init__(self, topology: Mesh) -> None:
        super().__init__(topology)
        if not is_plain_2d(topology):
            raise UnsupportedTopologyError(
                f"{type(self).__name__} of topoalloc.mesh runs on a 2D mesh without wrap-around, not {topology!r}; "
                f"the allocators of topoalloc.grid take meshes and tori of any dimension "
                f"(topoalloc.get picks them by topology)")
        check_memory(type(self).__name__, topology, topology.size, self.BYTES_PER_NODE)
        self.width: int = topology.width
        self.height: int = topology.height
        self.busy: np.ndarray = self._new_busy()
        # node ids laid out like the busy array: a grant's ids are one slice of it (the same ids,
        # in the same order, as Submesh.node_ids, without building them per call)
        self._ids = np.arange(self.width * self.height, dtype=np.int64).reshape(self.height, self.width)

    def _new_busy(self) -> np.ndarray:
        """The busy array, all free. Subclasses may return a view into a padded store."""
        return np.zeros((self.height, self.width), dtype=bool)

    #: Set by the allocators that keep their free nodes as an integer (frame sliding, Zhu's):
    #: the free bits, and the avoided mask their ``allocate_avoiding`` last saw frozen, as
    #: ``(mask, its bits, the rectangle its nodes are or None, the free bits of the last answer,
    #: the free bits off the mask then)``.
    _bits: int
    _off: tuple[np.ndarray, int, tuple[int, int, int, int] | None, int | None, int] | None

    def _avoided(self, avoid: np.ndarray) -> tuple[np.ndarray, int, tuple[int, int, int, int] | None, int | None, int]:
        """``(avoid, its bits in the layout of the free bits, the rectangle (x0, y0, x1, y1) its nodes
        are or None, None, 0)``; kept in :attr:`_off` when ``avoid`` is frozen (the last two then
        become the free bits and the free bits off ``avoid`` once computed, :meth:`_free_off`; the
        rectangle is looked for only then, once per mask). The layout is the subclass's:
        :meth:`_avoid_bits` converts the mask, :meth:`_avoid_rect` finds the rectangle. The mask kept
        in :attr:`_off` is answered from there (O(1))."""
        kept = self._off
        if kept is not None and kept[0] is avoid:
            return kept
        avoided = self._frozen(avoid, "avoid bits", self._avoid_bits)
        memo = self._frozen_memo
        frozen = memo is not None and memo[0] is avoid
        got = (avoid, avoided, self._avoid_rect(avoided) if frozen and avoided else None, None, 0)
        if frozen:
            self._off = got
        return got

    def _avoid_bits(self, avoid: np.ndarray) -> int:
        """A node mask as an integer in the layout of :attr:`_bits` (allocators that keep them)."""
        raise NotImplementedError

    def _avoid_rect(self, avoided: int) -> tuple[int, int, int, int] | None:
        """The rectangle ``(x0, y0, x1, y1)`` the nodes of ``avoided`` (non-zero, in the layout of
        :attr:`_bits`) are exactly, or ``None``: its lowest and highest set bits bound it, and it is
        one exactly when its bits equal those of the bounded block."""
        raise NotImplementedError

    def _free_off(self, kept: tuple[np.ndarray, int, tuple[int, int, int, int] | None, int | None, int]) -> int:
        """The free bits off the avoided mask ``kept`` (as its allocator's ``_avoided`` gives it):
        the last answer's while no grant or release changed the free bits (the integer is a new
        object after each), else one AND, kept in :attr:`_off` when ``kept`` is the frozen mask
        kept there. O(1) or O(nodes / 64) word operations."""
        bits = self._bits
        if kept[3] is bits:
            return kept[4]
        off = bits & ~kept[1]
        if kept is self._off:
            self._off = (kept[0], kept[1], kept[2], bits, off)
        return off

    # -- the public surface -------------------------------------------------------------------
    def validate(self, request: tuple[int, int]) -> tuple[int, int]:
        """``request`` as a ``(w, h)`` tuple, or a :class:`~topologies.RequestError` (a request that
        fits only turned is accepted when ``rotate`` is set)."""
        if type(request) is tuple and len(request) == 2:  # fast path: an already canonical request
            w, h = request
            if type(w) is int and type(h) is int and w > 0 and h > 0:
                if (w <= self.width and h <= self.height) or (self.rotate and h <= self.width and w <= self.height):
                    return request
        shape: tuple[int, int] = self.topology.validate_request(request, rotate=self.rotate)
        return shape

    def request_size(self, request: tuple[int, int]) -> int:
        """``w * h`` for a valid request (the submesh allocators grant exactly the request;
        :class:`~topoalloc.mesh.Buddy2D` overrides this with its rounded-up square)."""
        w, h = self.validate(request)
        return w * h

    @property
    def occupancy(self) -> np.ndarray:
        """A fresh ``(height, width)`` array of allocation ids (0 = free), row = y."""
        return super().occupancy.reshape(self.height, self.width)

    def fold(self, request: tuple[int, int]) -> tuple[int, int] | None:
        """Halve the longer side, rounding up (a tie halves the width); ``None`` for ``(1, 1)``."""
        w, h = self.validate(request)
        if w >= h:
            return ((w + 1) // 2, h) if w > 1 else None
        return (w, (h + 1) // 2)

    def free_nodes(self) -> np.ndarray:
        """Ids of the nodes the busy array marks free, ascending."""
        return np.flatnonzero(~self.busy)

    def __repr__(self) -> str:
        turn = ", rotate=True" if self.rotate else ""
        return f"{type(self).__name__}({self.topology!r}{turn})"

    # -- for subclasses -----------------------------------------------------------------------
    def _grant(self, x: int, y: int, w: int, h: int) -> Grant:
        """Mark the ``w x h`` submesh based at ``(x, y)`` busy; the tuple :meth:`_place` returns."""
        self.busy[y : y + h, x : x + w] = True
        # the ids as a 2-D view of the id grid: Allocation.nodes flattens it on first use
        return (w, h), _submesh(x, y, w, h), self._ids[y : y + h, x : x + w], w * h

    def _unplace(self, allocation: Allocation) -> int:
        p: Submesh = allocation.placement
        self.busy[p.y : p.y + p.height, p.x : p.x + p.width] = False
        return p.width * p.height


def erosion_shifts(w: int, h: int, row: int) -> tuple[int, ...]:
    """The right shifts that erode a free mask held as an integer (node ``(x, y)`` at bit
    ``y * row + x``, ``row`` at least the mesh width) to "a free ``w x h`` submesh is based
    here", by doubling (``a &= a >> d``): along x by 1, 2, 4, ... (bit ``p`` then covers ``span``
    nodes of its row), then along y by rows. O(log w + log h) shifts."""
    shifts = []
    for length, unit in ((w, 1), (h, row)):
        span = 1
        while span < length:
            step = min(span, length - span)
            shifts.append(step * unit)
            span += step
    return tuple(shifts)

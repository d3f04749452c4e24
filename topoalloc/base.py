"""The surface every allocator shares: :class:`Allocation` and :class:`Allocator`.

An allocator owns free-processor state for one machine (a topology from :mod:`topologies`) and
places requests on it. Policies see only this surface: ``allocate``, ``release``, ``free``,
``size``, ``fold`` and the read-only ``occupancy`` view.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from topologies import Submesh

from .errors import DoubleReleaseError, ForeignAllocationError, UnsupportedTopologyError

__all__ = ["Allocation", "Allocator"]

_owner_tokens = itertools.count(1)


class Allocation:
    """An immutable, hashable grant: the granted ``request``, its ``placement`` and its ``nodes``.

    ``placement`` is a :class:`~topologies.Submesh` on a mesh, a :class:`~topologies.Subcube` on a
    cube, a :class:`~topoalloc.dhc.TreeNode` in a DHC tree, or a sorted node-id array on a flat
    machine. ``nodes`` is a read-only ``numpy`` array of node ids (computed from the placement on
    first use when the allocator did not store it). ``id`` is the allocator's id for the grant
    (1, 2, ...; the value written in the occupancy view). Two allocations are equal when they are
    the same grant of the same allocator.
    """

    __slots__ = ("owner", "id", "request", "placement", "_nodes", "_count")

    owner: int
    id: int
    request: Any
    placement: Any

    def __init__(self, owner: int, id: int, request: Any, placement: Any, nodes: np.ndarray | None = None,
                 count: int | None = None):
        _set_owner(self, owner)  # slot descriptors: the immutable __setattr__ refuses
        _set_id(self, id)
        _set_request(self, request)
        _set_placement(self, placement)
        if nodes is not None:
            nodes.flags.writeable = False
        _set_nodes(self, nodes)
        _set_count(self, count)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Allocation is immutable (tried to set {name!r})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    @property
    def nodes(self) -> np.ndarray:
        """Node ids of the grant, ascending, read-only."""
        nodes = self._nodes
        if nodes is None:
            nodes = np.asarray(self.placement.node_ids())
            nodes.flags.writeable = False
            _set_nodes(self, nodes)
        return nodes

    @property
    def size(self) -> int:
        """Number of processors granted (known without building ``nodes``)."""
        count = self._count
        return count if count is not None else len(self.nodes)

    def __hash__(self) -> int:
        return hash((self.owner, self.id))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Allocation):
            return NotImplemented
        return self.owner == other.owner and self.id == other.id

    def __repr__(self) -> str:
        return f"Allocation(id={self.id}, request={self.request!r}, placement={self.placement!r})"


_set_owner, _set_id = Allocation.owner.__set__, Allocation.id.__set__
_set_request, _set_placement = Allocation.request.__set__, Allocation.placement.__set__
_set_nodes, _set_count = Allocation._nodes.__set__, Allocation._count.__set__


class Allocator(ABC):
    """Base class of every allocator.

    Subclasses set ``topology_types`` (the topology classes they accept), implement
    :meth:`_place` (find and take a region for a validated request) and :meth:`_unplace` (give it
    back), and :meth:`fold`. The base validates requests, keeps the live grants, counts free
    processors, and checks releases: a second release raises :class:`DoubleReleaseError`, another
    allocator's grant :class:`ForeignAllocationError`.
    """

    #: Topology classes this allocator accepts.
    topology_types: ClassVar[tuple[type, ...]] = ()
    #: How the allocator recognises free regions: ``"perfect"`` (any free region of the shape),
    #: ``"buddy"`` (aligned buddy blocks), ``"frame"`` (frames at stride positions), ``"gray"``
    #: (Gray-code blocks), ``"tree"``, ``"any"`` (any free processors). Used to pick test oracles.
    recognition: ClassVar[str] = ""

    def __init__(self, topology: Any) -> None:
        if self.topology_types and not isinstance(topology, self.topology_types):
            kinds = " or ".join(t.__name__ for t in self.topology_types)
            raise UnsupportedTopologyError(
                f"{type(self).__name__} needs a {kinds} topology, got {topology!r}"
            )
        self.topology = topology
        self._size: int = topology.size
        self._free: int = topology.size
        self._live: dict[int, Allocation] = {}
        self._next_id: int = 1
        self._owner: int = next(_owner_tokens)

    # -- the public surface -------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of processors in the machine."""
        return self._size

    @property
    def free(self) -> int:
        """Number of free processors."""
        return self._free

    @property
    def allocations(self) -> tuple[Allocation, ...]:
        """The live grants, oldest first."""
        return tuple(self._live.values())

    def validate(self, request: Any) -> Any:
        """Return ``request`` in canonical form, or raise a :class:`~topologies.RequestError`."""
        return self.topology.validate_request(request)

    def request_size(self, request: Any) -> int:
        """Processors this allocator grants for ``request`` (after any rounding it does)."""
        return self.topology.request_size(self.validate(request))

    def allocate(self, request: Any) -> Allocation | None:
        """Place ``request``; return the :class:`Allocation`, or ``None`` if no free region fits.

        Raises :class:`~topologies.RequestTypeError` / :class:`~topologies.RequestSizeError` for a
        request of the wrong kind, of size <= 0, or larger than the machine.
        """
        got = self._place(self.validate(request))
        if got is None:
            return None
        granted, placement, nodes, count = got
        if nodes is None and isinstance(placement, Submesh):  # a Submesh needs the mesh width
            nodes = placement.node_ids(self.topology.width)
        aid = self._next_id
        self._next_id = aid + 1
        alloc = Allocation(self._owner, aid, granted, placement, nodes, count)
        self._live[aid] = alloc
        self._free -= count
        return alloc

    def release(self, allocation: Allocation) -> None:
        """Give back a grant made by this allocator."""
        if not isinstance(allocation, Allocation):
            raise ForeignAllocationError(
                f"release() takes an Allocation, got {allocation!r} ({type(allocation).__name__})"
            )
        if allocation.owner != self._owner:
            raise ForeignAllocationError(
                f"{allocation!r} was made by another allocator, not this {type(self).__name__}"
            )
        if self._live.pop(allocation.id, None) is None:
            raise DoubleReleaseError(f"{allocation!r} was already released")
        self._free += self._unplace(allocation)

    @abstractmethod
    def fold(self, request: Any) -> Any | None:
        """The next smaller request this allocator can place (Chang & Mohapatra §3.2, §4.1), or
        ``None`` when nothing smaller exists."""

    @property
    def occupancy(self) -> np.ndarray:
        """A fresh array of allocation ids per node (0 = free): 1D, indexed by node id.

        Mesh allocators return it as a ``(height, width)`` array (row = y). Built on demand from the
        live grants, in O(size); it is a copy, writing to it changes nothing.
        """
        occ = np.zeros(self._size, dtype=np.int64)
        for alloc in self._live.values():
            occ[alloc.nodes] = alloc.id
        return occ

    def reset(self) -> None:
        """Release every live grant."""
        for alloc in list(self._live.values()):
            self.release(alloc)

    # -- for subclasses -----------------------------------------------------------------------
    @abstractmethod
    def _place(self, request: Any) -> tuple[Any, Any, np.ndarray | None, int] | None:
        """Find and take a region for a validated ``request``.

        Return ``(granted_request, placement, nodes_or_None, processor_count)`` or ``None``.
        """

    @abstractmethod
    def _unplace(self, allocation: Allocation) -> int:
        """Return the region of ``allocation`` to the free pool; return its processor count."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.topology!r})"

"""The surface every allocator shares: :class:`Allocation` and :class:`Allocator`.

An allocator owns free-processor state for one machine (a topology from :mod:`topologies`) and
places requests on it. Policies see only this surface: ``allocate``, ``release``, ``free``,
``size``, ``fold`` and the read-only ``occupancy`` view.
"""

from __future__ import annotations

import copy
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Self

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
    _nodes: np.ndarray | None
    _count: int | None

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
        if nodes is None or nodes.ndim != 1:  # not built yet, or a mesh allocator's 2-D view of its ids
            nodes = np.asarray(self.placement.node_ids()) if nodes is None else nodes.ravel()
            nodes.flags.writeable = False
            _set_nodes(self, nodes)
        return nodes

    @property
    def span(self) -> tuple[int, int] | None:
        """``(first, stop)`` when the node ids are the consecutive range ``first .. stop - 1`` and
        the placement says so without building ``nodes`` (buddy subcubes, tree partitions), else
        ``None``: a fast path for marking the grant in an array over node ids,
        ``a[first:stop]`` instead of ``a[nodes]``. O(1)."""
        return getattr(self.placement, "span", None)

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


# The slot descriptors' setters, taken from the class dictionary: mypy types ``Allocation.owner``
# as the annotated ``int``, not as the member descriptor it is at run time.
_slot_setters: tuple[Callable[[Allocation, Any], None], ...] = tuple(
    Allocation.__dict__[name].__set__ for name in Allocation.__slots__
)
_set_owner, _set_id, _set_request, _set_placement, _set_nodes, _set_count = _slot_setters


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
    #: The last frozen mask converted by :meth:`_frozen` and its conversions by kind.
    _frozen_memo: tuple[np.ndarray, dict[Any, Any]] | None = None

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
        size: int = self.topology.request_size(self.validate(request))
        return size

    def allocate(self, request: Any) -> Allocation | None:
        """Place ``request``; return the :class:`Allocation`, or ``None`` if no free region fits.

        Raises :class:`~topologies.RequestTypeError` / :class:`~topologies.RequestSizeError` for a
        request of the wrong kind, of size <= 0, or larger than the machine.
        """
        got = self._place(self.validate(request))
        if got is None:
            return None
        return self._register(*got)

    def _register(self, granted: Any, placement: Any, nodes: np.ndarray | None, count: int) -> Allocation:
        """Record a region a subclass has just taken (what :meth:`_place` returns) as a live grant."""
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

    def clone(self) -> Self:
        """An independent copy with the same free state and the same live grants, for what-if
        questions ("where would this request go once these jobs have ended?").

        The clone knows the original's grants: releasing a live :class:`Allocation` of the
        original on the clone works (and changes only the clone). Grants the clone makes carry the
        original's owner token and continue its id sequence, so they must never be released on the
        original (nor the original's later grants on the clone). From the same state, the clone
        and the original make the same placements for the same operations.

        This generic default is a :func:`copy.deepcopy` that shares the topology and the
        (immutable) allocations and re-creates ``numpy`` attributes that are views into another
        attribute as views into the copy (a plain deep copy would give the view its own memory):
        correct for any subclass whose state is ordinary Python and ``numpy`` objects. O(size of
        the allocator's state). Allocators override it with a direct copy of their free state
        (the library's own do, only for their exact class, so a subclass with extra state falls
        back to this default).

        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> b = Buddy(Hypercube(3)); a = b.allocate(2)
        >>> twin = b.clone(); twin.release(a); twin.free, b.free
        (8, 4)
        """
        live = self._live
        memo: dict[int, Any] = {id(a): a for a in live.values()}
        memo[id(self.topology)] = self.topology
        twin = copy.deepcopy(self, memo)
        for name, value in getattr(self, "__dict__", {}).items():
            if not isinstance(value, np.ndarray) or value.base is None:
                continue
            base: Any = value.base  # a chain of array bases, ending at an array or another buffer
            while base is not None and id(base) not in memo:
                base = getattr(base, "base", None)
            if base is None or not isinstance(base, np.ndarray) or not base.flags.c_contiguous:
                continue
            twin_base = memo[id(base)]
            offset = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
            view = np.ndarray(value.shape, value.dtype, buffer=twin_base, offset=offset, strides=value.strides)
            view.flags.writeable = value.flags.writeable
            object.__setattr__(twin, name, view)
        return twin

    def allocate_avoiding(self, request: Any, avoid: np.ndarray) -> Allocation | None:
        """Place ``request`` on nodes none of which is marked in ``avoid`` (a boolean mask over node
        ids): the first of the allocator's placements, in the order it offers them, that touches no
        avoided node; ``None`` if it offers none.

        "The order it offers them": the placements ``allocate`` returns one after another while the
        earlier ones are held. This generic default does exactly that -- it holds every placement
        that touches ``avoid`` while asking for the next, then releases the held ones -- so the
        allocator's state afterwards differs from before only by the grant returned. At most
        ``free / request size`` attempts. Allocators override it with a direct search that returns
        the same grant. A read-only ``avoid`` mask that owns its data may be converted once and
        remembered while it comes back (a scheduler asks with the same reservation for one
        candidate after another): do not make it writeable and change it.

        >>> import numpy as np
        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> b = Buddy(Hypercube(3)); avoid = np.zeros(8, dtype=bool); avoid[1] = True
        >>> b.allocate_avoiding(1, avoid).nodes.tolist(), b.free
        ([2, 3], 6)
        """
        got = self.allocate(request)
        if got is None or not avoid[got.nodes].any():
            return got
        held = [got]
        try:
            while True:
                got = self.allocate(request)
                if got is None or not avoid[got.nodes].any():
                    return got
                held.append(got)
        finally:
            for h in held:
                self.release(h)

    def covers(self, failed: Any, request: Any) -> bool:
        """Whether ``request`` certainly finds no placement wherever ``failed`` found none: on any set
        of free nodes, ``allocate`` (and :meth:`place_in`) cannot place ``request`` if they could
        not place ``failed``. Schedulers use it to skip requests once a smaller one has failed.
        This generic default knows only that a request covers itself (after validation);
        allocators whose recognised regions nest (a free region for a larger request contains one
        for a smaller) override it.

        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> b = Buddy(Hypercube(4)); b.covers(2, 3), b.covers(3, 2)
        (True, False)
        """
        same: bool = self.validate(failed) == self.validate(request)
        return same

    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """What-if: the node ids (ascending) of a placement of ``request`` that this allocator
        recognises and that lies entirely on nodes marked in ``free`` (a boolean mask over node
        ids, whatever the allocator's present state), or ``None`` when it recognises none there.
        Nothing is allocated. ``None`` is exact: a placement exists on ``free`` exactly when the
        allocator, with precisely those nodes free, would place the request.

        This generic default builds that state on a clone: every grant released, the machine
        filled with one-node requests, those on ``free`` released again, then ``request``
        allocated; so it returns the allocator's own choice, for any allocator whose placements
        depend only on which nodes are free and that has a one-node request
        (``topology.request_for(1)``). O(size) allocations. Allocators override it with a
        vectorised search of the placements they recognise (which may pick a different one than
        their own rule, but finds one exactly when the rule would).

        >>> import numpy as np
        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> b = Buddy(Hypercube(3)); free = np.array([1, 1, 0, 1, 1, 1, 1, 1], dtype=bool)
        >>> b.place_in(1, free).tolist(), b.place_in(2, free).tolist(), b.place_in(3, free), b.free
        ([0, 1], [4, 5, 6, 7], None, 8)
        """
        request = self.validate(request)
        free = np.asarray(free, dtype=bool).ravel()
        if int(free.sum()) < self.request_size(request):
            return None
        twin = self.clone()
        twin.reset()
        one = self.topology.request_for(1)
        keep = []
        while True:
            got = twin.allocate(one)
            if got is None:
                break
            if free[got.nodes].all():
                keep.append(got)
        for g in keep:
            twin.release(g)
        got = twin.allocate(request)
        return None if got is None else np.array(got.nodes)

    def place_in_bits(self, request: Any, free: int) -> np.ndarray | None:
        """:meth:`place_in` with the free nodes given as the bits of an integer (bit ``i``: node
        ``i``), for callers that keep node sets as integers (a reservation profile). This default
        converts them to a mask; the buddy cube, the tree forest and frame sliding search the
        integer directly. Same answer as :meth:`place_in`.

        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> Buddy(Hypercube(3)).place_in_bits(2, 0b11111011).tolist()
        [4, 5, 6, 7]
        """
        raw = np.frombuffer(free.to_bytes((self._size + 7) // 8, "little"), dtype=np.uint8)
        return self.place_in(request, np.unpackbits(raw, count=self._size, bitorder="little").view(bool))

    def earliest_in(self, request: Any, ready: np.ndarray, now: float = -np.inf) -> tuple[float, np.ndarray] | None:
        """What-if over time: ``ready`` gives, per node id, the time from which it is free (``-inf``:
        free now). Returns ``(t, nodes)`` for the earliest ``t >= now`` at which
        :meth:`place_in` recognises a placement on the nodes ready by ``t``, and that placement
        (``place_in(request, ready <= t)``); ``None`` if there is none even once every node is
        ready. A backfilling scheduler's reservation: the shadow time and the reserved nodes.

        ``t`` is ``now`` or one of the values of ``ready``. Placement is monotone in the free set,
        so this default tries the candidate times in order, from the first at which enough nodes
        are ready: O(size) plus one :meth:`place_in` per time tried. Allocators override
        it with one vectorised pass (the latest ready time over each recognised region, then the
        earliest region) that returns the same pair.

        >>> import numpy as np
        >>> from topologies import Hypercube
        >>> from topoalloc import Buddy
        >>> ready = np.array([5.0, 9.0, 2.0, 2.0, 7.0, 7.0, 7.0, 8.0])
        >>> t, nodes = Buddy(Hypercube(3)).earliest_in(1, ready, now=3.0); t, nodes.tolist()
        (3.0, [2, 3])
        >>> t, nodes = Allocator.earliest_in(Buddy(Hypercube(3)), 2, ready, now=3.0); t, nodes.tolist()
        (8.0, [4, 5, 6, 7])
        """
        ready = np.maximum(np.asarray(ready, dtype=float).ravel(), now)
        need = self.request_size(request)
        if need > len(ready):
            return None
        t = float(np.partition(ready, need - 1)[need - 1])  # the first time enough nodes are ready
        while True:
            nodes = self.place_in(request, ready <= t)
            if nodes is not None:
                return t, nodes
            later = ready[ready > t]
            if not len(later):
                return None
            t = float(later.min())

    def _frozen(self, mask: np.ndarray, kind: Any, convert: Callable[[np.ndarray], Any]) -> Any:
        """``convert(mask)``, remembered while the same *frozen* mask comes back: one that owns its
        data and is read-only (a scheduler's reservation, passed to :meth:`allocate_avoiding` once
        per candidate job, is converted once). ``kind`` names the conversion (several may be kept
        for one mask). Any other mask is converted every time. A frozen mask must not be made
        writeable and changed afterwards."""
        if type(mask) is not np.ndarray or mask.flags.writeable or not mask.flags.owndata:
            return convert(mask)
        memo = self._frozen_memo
        if memo is None or memo[0] is not mask:
            memo = self._frozen_memo = (mask, {})
        got = memo[1].get(kind)
        if got is None:
            got = memo[1][kind] = convert(mask)
        return got

    def _shallow_clone(self) -> Self:
        """For fast :meth:`clone` overrides: a new instance sharing every attribute of this one
        except the live-grant table, which is copied. The override then copies its mutable free
        state itself."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._live = dict(self._live)
        return twin

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

"""A size-class allocator in the manner of Fugaku's resource groups: non-contiguous allocation below
a size, a box (mesh or torus shape) from it up."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, ClassVar, Self

import numpy as np

from topologies import Mesh, RequestSizeError
from topologies._validate import check_int
from topologies.base import request_int

from ..base import Allocation, Allocator
from ..errors import AllocatorParameterError

__all__ = ["SizeClass", "FUGAKU_THRESHOLD"]

#: Fugaku's boundary: resource groups of up to 384 nodes offer non-contiguous allocation (the
#: default there), those of 385 nodes or more only torus shapes.
FUGAKU_THRESHOLD = 385

AllocatorFactory = Callable[[Mesh], Allocator]


def _size_class_oracle(allocator: SizeClass, free: np.ndarray, request: Any) -> bool:
    """Test oracle (:mod:`topoalloc.testing`): a placement exists exactly when the class's allocator
    recognises one on ``free`` (its own oracle when the testing module has one for it)."""
    from ..testing import oracle_for  # the test extra: imported only when a test asks

    sub, req = allocator.route(request)
    found = oracle_for(sub)
    if found is None:
        return sub.place_in(req, np.asarray(free).ravel()) is not None
    return bool(found(sub, np.asarray(free).reshape(np.asarray(sub.occupancy).shape), req))


class SizeClass(Allocator):
    """Allocation by size class, as Fugaku's job operation does it (RIKEN R-CCS, "Supercomputer
    Fugaku Users Guide - Use and job execution", §3.4.1 "Compute node": node allocation is
    non-contiguous (``noncont``), ``mesh`` or ``torus``; resource groups of 385 nodes or more allow
    only ``torus``, those of 384 or fewer offer ``noncont`` (the default), ``mesh`` and ``torus``,
    and "if mesh or torus is specified, the wait time before running the job is longer than
    noncont").

    **Rule.** A request for fewer than ``threshold`` processors (default
    :data:`FUGAKU_THRESHOLD`, 385) goes to the ``small`` allocator (non-contiguous; default
    :class:`~topoalloc.grid.MC1x1`), every other to the ``large`` one (boxes; default
    :class:`~topoalloc.grid.FirstFit` with ``permute=True``, since Fugaku may permute a shape's
    axes; a :class:`~topologies.Torus` makes them torus shapes, a mesh mesh shapes). Each is given
    as an allocator class or any callable ``factory(topology)``, so any allocator of the machine
    composes. A request is routed by its processor count (a count, or a shape's product): see
    :meth:`route` for what a request becomes in each class.

    **State.** One busy array over node ids is the only state: the two allocators are asked
    through their what-if :meth:`~topoalloc.Allocator.place_in` on the nodes free here and never
    hold grants themselves (so they need not know of each other's nodes). A grant's placement is
    the sorted node-id array; the granted request is the routed allocator's validated request.
    ``recognition = "size-class"``: the test oracle (``oracle``) asks the routed allocator's own.

    Interpretations: Fugaku's ``noncont`` rule for picking free nodes is not stated in the guide, so
    the small allocator is a parameter; the boundary counts processors (Fugaku counts nodes; one
    processor per node here); ``place_in`` of an allocator whose what-if picks a different
    placement than its ``allocate`` (e.g. a best-fit box allocator's first fit, or ``Random``'s
    lowest ids) decides for it here.

    Complexity: one ``place_in`` of the routed allocator per allocate, O(n) per release.

    >>> from topologies import Torus
    >>> from topoalloc.grid.mc import MC1x1
    >>> sc = SizeClass(Torus(4, 4, 4), threshold=8, small=MC1x1)
    >>> sc.allocate(3).nodes.tolist(), sc.allocate((2, 2, 2)).placement.tolist()
    ([0, 1, 3], [4, 5, 8, 9, 20, 21, 24, 25])
    >>> sc.route(12)[0]
    FirstFit(Torus(4, 4, 4), permute=True)
    """

    topology_types: ClassVar[tuple[type, ...]] = (Mesh,)
    recognition: ClassVar[str] = "size-class"
    #: Plain processor counts are valid requests.
    accepts_counts: ClassVar[bool] = True
    oracle = staticmethod(_size_class_oracle)

    def __init__(self, topology: Mesh, threshold: int = FUGAKU_THRESHOLD,
                 small: AllocatorFactory | None = None, large: AllocatorFactory | None = None) -> None:
        super().__init__(topology)
        self.threshold: int = check_int(threshold, "SizeClass threshold", low=1, error=AllocatorParameterError)
        if small is None:
            from .mc import MC1x1

            small = MC1x1
        if large is None:
            from .boxes import FirstFit

            def large(t: Mesh) -> Allocator:
                return FirstFit(t, permute=True)
        #: The allocators of the two classes (asked through ``place_in`` only).
        self.small: Allocator = self._build(small, "small")
        self.large: Allocator = self._build(large, "large")
        self.busy: np.ndarray = np.zeros(self._size, dtype=bool)

    def _build(self, factory: Any, name: str) -> Allocator:
        if isinstance(factory, Allocator) or not callable(factory):
            raise AllocatorParameterError(f"SizeClass {name} must be an allocator class or a factory taking the "
                                          f"topology, got {factory!r}")
        got = factory(self.topology)
        if not isinstance(got, Allocator) or got.topology != self.topology:
            raise AllocatorParameterError(f"SizeClass {name} factory {factory!r} did not build an allocator of "
                                          f"{self.topology!r}: got {got!r}")
        return got

    # -- requests -----------------------------------------------------------------------------
    def route(self, request: Any) -> tuple[Allocator, Any]:
        """``(allocator, validated request)``: the class ``request`` belongs to, by its processor
        count (a shape's product, in whatever order of its sides fits the machine). A small shape
        the small allocator refuses unturned is given to it as its count; a count for the large
        allocator becomes :meth:`Mesh.request_for <topologies.Mesh.request_for>`'s near-cube unless
        that allocator takes counts (``accepts_counts``). Raises the
        :class:`~topologies.RequestError` naming a bad request."""
        if isinstance(request, numbers.Integral) and not isinstance(request, bool):
            n = int(request)
            shape = False
        else:
            if not isinstance(request, (tuple, list, np.ndarray)):
                request_int(request, f"a request on {self.topology!r} (a processor count or a shape)")
            n = math.prod(self.topology.validate_request(request, rotate=True))
            shape = True
        if n < self.threshold:
            try:
                return self.small, self.small.validate(request)
            except RequestSizeError:
                if not shape:
                    raise
                return self.small, self.small.validate(n)
        if not shape and not getattr(self.large, "accepts_counts", False):
            if n > self._size:
                raise RequestSizeError(f"request for {n} processors is larger than {self.topology!r} "
                                       f"({self._size} processors)")
            return self.large, self.large.validate(self.topology.request_for(n))
        return self.large, self.large.validate(request)

    def validate(self, request: Any) -> Any:
        """``request`` validated by the allocator of its class."""
        return self.route(request)[1]

    def request_size(self, request: Any) -> int:
        """Processors granted for ``request`` by the allocator of its class."""
        sub, req = self.route(request)
        return sub.request_size(req)

    def fold(self, request: Any) -> Any | None:
        """The routed allocator's fold of ``request``."""
        sub, req = self.route(request)
        return sub.fold(req)

    def covers(self, failed: Any, request: Any) -> bool:
        """Within one class, the class allocator's :meth:`~topoalloc.Allocator.covers`; a small
        request that failed (the small allocator takes any free nodes: fewer were free than it
        asked) also covers every request of at least as many processors."""
        f_sub, f_req = self.route(failed)
        r_sub, r_req = self.route(request)
        if f_sub is r_sub and f_sub.covers(f_req, r_req):
            return True
        if f_sub is self.small and self.small.recognition == "any":
            return r_sub.request_size(r_req) >= f_sub.request_size(f_req)
        return f_sub is r_sub and f_req == r_req

    @property
    def occupancy(self) -> np.ndarray:
        """A fresh array of allocation ids (0 = free) laid out like the class allocators'
        occupancy (``topology.shape``)."""
        return super().occupancy.reshape(np.asarray(self.small.occupancy).shape)

    def free_nodes(self) -> np.ndarray:
        """Ids of the free nodes, ascending."""
        return np.flatnonzero(~self.busy)

    # -- what-if ------------------------------------------------------------------------------
    def place_in(self, request: Any, free: np.ndarray) -> np.ndarray | None:
        """The routed allocator's :meth:`~topoalloc.Allocator.place_in` on ``free``: exactly what
        :meth:`allocate` would take with those nodes free."""
        sub, req = self.route(request)
        got = sub.place_in(req, np.asarray(free, dtype=bool).ravel())
        return None if got is None else np.sort(np.asarray(got, dtype=np.int64).ravel())

    def clone(self) -> Self:
        """An independent copy (:meth:`Allocator.clone`): the busy array copied, the class
        allocators shared (they hold no grants). A subclass falls back to the generic deep copy."""
        if type(self) is not SizeClass:
            return super().clone()
        twin = self._shallow_clone()
        twin.busy = self.busy.copy()
        return twin

    # -- placing ------------------------------------------------------------------------------
    def _place(self, request: Any) -> tuple[Any, np.ndarray, np.ndarray, int] | None:
        sub, req = self.route(request)
        if sub.request_size(req) > self._free:
            return None
        got = sub.place_in(req, ~self.busy)
        if got is None:
            return None
        nodes = np.sort(np.asarray(got, dtype=np.int64).ravel())
        self.busy[nodes] = True
        return req, nodes, nodes, len(nodes)

    def _unplace(self, allocation: Allocation) -> int:
        nodes = allocation.placement
        self.busy[nodes] = False
        return len(nodes)

    def __repr__(self) -> str:
        return (f"SizeClass({self.topology!r}, threshold={self.threshold}, small={self.small!r}, "
                f"large={self.large!r})")


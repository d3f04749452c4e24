"""The small interface every machine model shares."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ._validate import check_int
from .errors import RequestSizeError, RequestTypeError, TopologyError

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx

__all__ = ["Topology", "Network", "check_positive_int"]


@runtime_checkable
class Topology(Protocol):
    """What allocators and policies may ask of a machine model.

    ``size`` is the number of processors; a *request* is the plain value a job asks for on this
    topology (``(w, h)`` on a 2D mesh, a shape ``(a, b, c)`` on a 3D mesh or torus, a dimension ``k``
    on a cube, a count on a flat machine).
    """

    @property
    def size(self) -> int: ...

    def request_for(self, n: int) -> Any: ...

    def validate_request(self, request: Any) -> Any: ...

    def request_size(self, request: Any) -> int: ...

    def distance(self, a: int, b: int) -> int: ...

    def to_networkx(self) -> nx.Graph[int]: ...


@runtime_checkable
class Network(Topology, Protocol):
    """A topology with links: what locality measures, run-time and contention models ask of it.

    Every machine with an interconnect answers these for itself (closed form or vectorised per
    family, never per pair in Python), so the measures in :mod:`topoalloc.locality` and the
    models in :mod:`scheduling` ask it instead of switching on its type:

    * ``distance(a, b)`` -- hops between two nodes;
    * ``hop_sum(nodes)`` -- the sum of ``distance`` over the unordered pairs of a node set;
    * ``n_links``, ``links()`` -- the links, numbered ``0 .. n_links - 1``, as ``(n_links, 2)``
      vertex pairs of :meth:`to_networkx`'s graph; ``capacity`` -- each link's capacity;
    * ``route(a, b)`` -- the link ids a message from ``a`` to ``b`` crosses, by the machine's
      routing (dimension-ordered on meshes and tori, the shorter way round a ring; e-cube on
      cubes; up and down on trees);
    * ``link_traffic(nodes)`` -- per link, the messages of one all-to-all round among ``nodes``
      (one per ordered pair) that cross it;
    * ``compact_nodes(n)`` -- a most compact placement of ``n`` nodes (least ``hop_sum``): the
      baseline a placement-dependent run time is compared with.
    """

    @property
    def n_links(self) -> int: ...

    @property
    def capacity(self) -> Any: ...

    def hop_sum(self, nodes: Any) -> float: ...

    def links(self) -> Any: ...

    def route(self, a: int, b: int) -> Any: ...

    def link_traffic(self, nodes: Any) -> Any: ...

    def compact_nodes(self, n: int) -> Any: ...


def check_positive_int(value: Any, name: str, *, allow_zero: bool = False) -> int:
    """Return ``value`` as an int if it is an integral number > 0 (>= 0 with ``allow_zero``);
    otherwise raise :class:`TopologyError` naming ``name`` and the bad value."""
    return check_int(value, name, low=0 if allow_zero else 1, error=TopologyError)


def request_int(value: Any, what: str) -> int:
    """An integral request value (not bool), as int, or :class:`RequestTypeError`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RequestTypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


def count_request(value: Any, size: int, machine: str) -> int:
    """Validate a processor-count request against a machine of ``size`` processors."""
    n = request_int(value, f"a request on {machine} (a processor count)")
    if n <= 0:
        raise RequestSizeError(f"a request must ask for at least 1 processor, got {n}")
    if n > size:
        raise RequestSizeError(f"request for {n} processors is larger than {machine} ({size} processors)")
    return n

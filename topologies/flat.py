"""Topology-independent machine: ``size`` interchangeable processors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .base import check_positive_int, count_request, request_int
from .errors import RequestSizeError

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx

__all__ = ["Flat"]


@dataclass(frozen=True, slots=True)
class Flat:
    """A machine of ``size`` processors with no interconnect geometry (every pair one hop apart).

    Requests are processor counts. Used by the topology-independent policies (Ismail, Downey,
    Nguyen et al.) and, as a forest of power-of-two trees, by the DHC tree. It has no links, so it
    is not a :class:`~topologies.Network` (no hop sums, routes or link traffic): locality measures
    do not apply to it.

    >>> f = Flat(320)
    >>> f.size, f.request_for(17), f.distance(3, 3), f.distance(3, 4)
    (320, 17, 0, 1)
    """

    size: int
    #: What a request on this topology is (for error messages).
    request_kind: ClassVar[str] = "a processor count"

    def __post_init__(self) -> None:
        check_positive_int(self.size, "Flat size")

    def distance(self, a: int, b: int) -> int:
        """0 for the same processor, 1 otherwise."""
        for v in (a, b):
            if not 0 <= v < self.size:
                raise ValueError(f"node id {v} is outside the {self.size}-processor machine")
        return 0 if a == b else 1

    def to_networkx(self) -> nx.Graph[int]:
        """A complete graph on the processor ids."""
        import networkx as nx

        g: nx.Graph[int] = nx.complete_graph(self.size)
        return g

    def validate_request(self, request: int) -> int:
        """Return the processor count as an int or raise."""
        return count_request(request, self.size, f"a {self.size}-processor machine")

    def request_size(self, request: int) -> int:
        """Processors a request occupies: the request itself."""
        return request

    def request_for(self, n: int) -> int:
        """A job of ``n`` processors asks for ``n``."""
        n = request_int(n, "a processor count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 processor, got {n}")
        if n > self.size:
            raise RequestSizeError(f"{n} processors do not fit the {self.size}-processor machine")
        return n

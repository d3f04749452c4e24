"""Binary hypercube machine model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .base import check_positive_int, request_int
from .errors import RequestSizeError, TopologyError

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx

__all__ = ["Hypercube", "MAX_CUBE_DIM"]

#: Largest supported cube dimension (2**24 = 16,777,216 nodes).
MAX_CUBE_DIM = 24


@dataclass(frozen=True, slots=True)
class Hypercube:
    """A binary ``dim``-cube, ``0 <= dim <= 24``. A node's id is its binary address.

    Requests on a cube are subcube dimensions ``k`` (``2**k`` processors).

    >>> c = Hypercube(4)
    >>> c.size, c.distance(0b0000, 0b1011), c.coords(0b0110), c.request_for(5)
    (16, 3, (0, 1, 1, 0), 3)
    """

    dim: int
    #: What a request on this topology is (for error messages).
    request_kind: ClassVar[str] = "a subcube dimension k"

    def __post_init__(self) -> None:
        check_positive_int(self.dim, "Hypercube dim", allow_zero=True)
        if self.dim > MAX_CUBE_DIM:
            raise TopologyError(f"Hypercube dim must be <= {MAX_CUBE_DIM}, got {self.dim}")

    @property
    def size(self) -> int:
        """Number of processors, ``2 ** dim``."""
        return 1 << self.dim

    def coords(self, node: int) -> tuple[int, ...]:
        """The address bits of ``node``, most significant first."""
        if not 0 <= node < self.size:
            raise ValueError(f"node id {node} is outside the {self.dim}-cube")
        return tuple((node >> i) & 1 for i in range(self.dim - 1, -1, -1))

    def distance(self, a: int, b: int) -> int:
        """Hop distance (Hamming) between addresses ``a`` and ``b``."""
        for v in (a, b):
            if not 0 <= v < self.size:
                raise ValueError(f"node id {v} is outside the {self.dim}-cube")
        return (a ^ b).bit_count()

    def to_networkx(self) -> nx.Graph:
        """The cube as networkx's hypercube graph, relabelled to the integer addresses."""
        import networkx as nx

        g = nx.hypercube_graph(self.dim) if self.dim else nx.empty_graph(1)
        if self.dim == 0:
            return g
        # networkx names the nodes by coordinate tuples, except the 1-cube's (plain 0 and 1)
        return nx.relabel_nodes(g, {t: t if isinstance(t, int) else sum(b << i for i, b in enumerate(t))
                                    for t in g.nodes})

    def validate_request(self, request: int) -> int:
        """Return the subcube dimension ``request`` as an int or raise
        (:class:`RequestTypeError` if not an integer, :class:`RequestSizeError` if outside 0..dim)."""
        k = request_int(request, "a request on a hypercube (a subcube dimension)")
        if k < 0:
            raise RequestSizeError(f"a subcube dimension must be >= 0, got {k}")
        if k > self.dim:
            raise RequestSizeError(f"a {k}-cube request is larger than the {self.dim}-cube")
        return k

    def request_size(self, request: int) -> int:
        """Processors a ``k``-cube request occupies, ``2 ** k``."""
        return 1 << request

    def request_for(self, n: int) -> int:
        """The smallest ``k`` with ``2 ** k >= n``."""
        n = request_int(n, "a processor count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 processor, got {n}")
        if n > self.size:
            raise RequestSizeError(f"{n} processors do not fit the {self.dim}-cube")
        return (n - 1).bit_length()

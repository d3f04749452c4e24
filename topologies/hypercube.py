"""Binary hypercube machine model: geometry, e-cube routing and all-to-all link traffic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from .base import check_positive_int, count_request, request_int
from .errors import RequestSizeError, TopologyError
from .mesh import check_pair_range, node_array, outside_error

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx
    from numpy.typing import ArrayLike

__all__ = ["Hypercube", "MAX_CUBE_DIM"]

#: Largest supported cube dimension (2**24 = 16,777,216 nodes).
MAX_CUBE_DIM = 24


@dataclass(frozen=True, slots=True)
class Hypercube:
    """A binary ``dim``-cube, ``0 <= dim <= 24``. A node's id is its binary address.

    Requests on a cube are subcube dimensions ``k`` (``2**k`` processors).

    A :class:`~topologies.Network`: it answers its own hop sums, links, routes and all-to-all link
    traffic from bit counts. **Links** join the addresses one bit apart, numbered dimension by
    dimension as :meth:`links` says, each of capacity 1. **Routing** is e-cube (Sullivan &
    Bashkow, "A large scale, homogeneous, fully distributed parallel machine", ISCA 1977): a
    message corrects the differing address bits lowest first.

    >>> c = Hypercube(4)
    >>> c.size, c.distance(0b0000, 0b1011), c.coords(0b0110), c.request_for(5)
    (16, 3, (0, 1, 1, 0), 3)
    >>> c.n_links, c.route(0b0000, 0b1011).tolist(), c.hop_sum(range(4))
    (32, [0, 9, 27], 8.0)
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

    def distances(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Element-wise hop distances between the address arrays ``a`` and ``b`` (of one length, or
        one of length 1), O(n). Addresses outside the cube raise ``ValueError``.

        >>> Hypercube(4).distances([0, 0, 5], [11, 0, 6]).tolist()
        [3, 0, 2]
        """
        u, v = node_array(a, self), node_array(b, self)
        check_pair_range(u, v, self)
        x = u ^ v
        hops: np.ndarray
        if _bitwise_count is not None:
            hops = _bitwise_count(x).astype(np.int64)
        else:
            hops = ((x[..., None] >> np.arange(max(self.dim, 1))) & 1).sum(axis=-1)
        return hops

    # -- the Network protocol: links, routes, traffic ----------------------------------------
    @property
    def n_links(self) -> int:
        """Number of links, ``dim * 2 ** (dim - 1)``."""
        return self.dim << (self.dim - 1) if self.dim else 0

    @property
    def capacity(self) -> np.ndarray:
        """Each link's capacity (read-only, all ones: every link carries one message at a time)."""
        out = np.ones(self.n_links)
        out.flags.writeable = False
        return out

    def _check_set(self, a: np.ndarray) -> None:
        """Every address of ``a`` inside the cube: no bit at or above ``dim``, no sign. O(n)."""
        if a.size and int(np.bitwise_or.reduce(a)) >> self.dim:
            raise outside_error(a, self)

    def hop_sum(self, nodes: ArrayLike) -> float:
        """Sum of the hop distances over the unordered pairs of ``nodes`` (distinct addresses; a
        repeated one counts as one more node, at distance 0 from its copy): bit ``b`` separates
        the ``c (n - c)`` pairs for ``c`` nodes with the bit set. O(n dim), no pairwise loop.
        Addresses outside the cube raise ``ValueError``.

        >>> Hypercube(3).hop_sum(range(8))    # 3 bits x 4 x 4 pairs
        48.0
        """
        a = node_array(nodes, self)
        self._check_set(a)
        n = len(a)
        if n < 2:
            return 0.0
        bits = (a[:, None] >> np.arange(self.dim)) & 1
        c = bits.sum(axis=0).astype(np.float64)
        return float((c * (n - c)).sum())

    def links(self) -> np.ndarray:
        """Every link as a row ``(u, v)``, ``u < v``, in link-id order: for each dimension ``i``,
        the links ``(w, w + 2^i)`` with bit ``i`` of ``w`` clear, ordered by ``w`` with bit ``i``
        removed (id ``i 2^(dim - 1)`` plus that). Shape ``(n_links, 2)``.

        >>> Hypercube(2).links().tolist()
        [[0, 1], [2, 3], [0, 2], [1, 3]]
        """
        d = self.dim
        rows = [np.empty((0, 2), np.int64)]
        r = np.arange(1 << (d - 1)) if d else np.empty(0, np.int64)
        for i in range(d):
            w = ((r >> i) << (i + 1)) | (r & ((1 << i) - 1))
            rows.append(np.stack([w, w | (1 << i)], 1))
        return np.concatenate(rows).astype(np.int64)

    def route(self, a: int, b: int) -> np.ndarray:
        """The link ids a message from ``a`` to ``b`` crosses under e-cube routing, in order: the
        differing bits corrected lowest first. ``distance(a, b)`` links, O(dim).

        >>> Hypercube(3).route(0b110, 0b011).tolist()    # bit 0, then bit 2
        [3, 11]
        """
        self.distance(a, b)  # checks both addresses
        cur, diff = int(a), int(a) ^ int(b)
        half = 1 << (self.dim - 1) if self.dim else 0
        out = []
        for i in range(self.dim):
            if diff >> i & 1:
                w = cur & ~(1 << i)  # the link's lower end
                out.append(i * half + (((w >> (i + 1)) << i) | (w & ((1 << i) - 1))))
                cur ^= 1 << i
        return np.array(out, dtype=np.int64)

    def link_traffic(self, nodes: ArrayLike) -> np.ndarray:
        """Per link (:meth:`links` order), the messages of one all-to-all round among ``nodes``
        (distinct addresses; one message per ordered pair, ``n (n - 1)`` in all) that cross it
        under e-cube routing, both directions counted together. Its sum is twice :meth:`hop_sum`.

        Counted, not routed: when a message from ``s`` to ``t`` corrects bit ``i``, its bits below
        ``i`` are already ``t``'s and those above still ``s``'s; so the link across bit ``i`` whose
        ends have high bits ``h`` and low bits ``l`` carries ``sum_c S[h, c] T[l, 1 - c]`` messages,
        with ``S[h, c]`` the nodes whose bits above ``i`` are ``h`` and bit ``i`` is ``c``, and
        ``T[l, c]`` those whose bits below ``i`` are ``l`` and bit ``i`` is ``c``. Per dimension two
        counts and an outer product: O(dim (n + 2^dim)) vectorised, int64.

        >>> Hypercube(2).link_traffic([0, 1, 3]).tolist()    # 3 -> 0 goes 3, 2, 0
        [3, 1, 1, 3]
        """
        a = node_array(nodes, self)
        self._check_set(a)
        d = self.dim
        if d == 0:
            return np.zeros(0, dtype=np.int64)
        half = 1 << (d - 1)
        out = np.empty(d * half, dtype=np.int64)
        for i in range(d):
            b = (a >> i) & 1
            low = np.bincount(((a & ((1 << i) - 1)) << 1) | b, minlength=2 << i).reshape(-1, 2)
            high = np.bincount(((a >> (i + 1)) << 1) | b, minlength=2 << (d - i - 1)).reshape(-1, 2)
            t = np.outer(high[:, 0], low[:, 1])
            t += np.outer(high[:, 1], low[:, 0])
            out[i * half:(i + 1) * half] = t.ravel()
        return out

    def compact_nodes(self, n: int) -> np.ndarray:
        """The most compact placement of ``n`` nodes: the first ``n`` addresses, a subcube when
        ``n`` is a power of two (the initial segment of the binary order has the fewest distant
        pairs: Harper, "Optimal assignments of numbers to vertices", J. SIAM 12(1), 1964). A count
        outside ``1 .. size`` raises :class:`~topologies.RequestSizeError` /
        :class:`~topologies.RequestTypeError`. O(n).

        >>> Hypercube(3).compact_nodes(3).tolist()
        [0, 1, 2]
        """
        if type(n) is not int or not 0 < n <= self.size:
            n = count_request(n, self.size, f"the {self.dim}-cube")
        return np.arange(n, dtype=np.int64)

    def to_networkx(self) -> nx.Graph[int]:
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


#: numpy's population count (numpy >= 2.0), or None: the bit loop then.
_bitwise_count = getattr(np, "bitwise_count", None)

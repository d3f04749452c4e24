"""Two-dimensional mesh machine model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from .base import check_positive_int, request_int
from .errors import RequestSizeError, RequestTypeError

if TYPE_CHECKING:  # networkx is imported by to_networkx() only: it is slow to import
    import networkx as nx

__all__ = ["Mesh"]


@dataclass(frozen=True, slots=True)
class Mesh:
    """A ``width x height`` 2D mesh. Node ``(x, y)`` has id ``y * width + x``.

    Any positive sizes are allowed; allocators that need more (2D buddy: a square power of two)
    check for themselves. Requests on a mesh are ``(w, h)`` tuples.

    >>> m = Mesh(4, 3)
    >>> m.size, m.node_id(1, 2), m.coords(9), m.distance(0, 11)
    (12, 9, (1, 2), 5)
    >>> m.request_for(10)
    (4, 3)
    """

    width: int
    height: int
    #: What a request on this topology is (for error messages).
    request_kind: ClassVar[str] = "a (width, height) pair"

    def __post_init__(self) -> None:
        check_positive_int(self.width, "Mesh width")
        check_positive_int(self.height, "Mesh height")

    @property
    def size(self) -> int:
        """Number of processors, ``width * height``."""
        return self.width * self.height

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``: the shape of the mesh's 2D occupancy array (row = y)."""
        return (self.height, self.width)

    def node_id(self, x: int, y: int) -> int:
        """Id of node ``(x, y)``."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"node ({x}, {y}) is outside the {self.width}x{self.height} mesh")
        return y * self.width + x

    def coords(self, node: int) -> tuple[int, int]:
        """``(x, y)`` of node id ``node``."""
        if not 0 <= node < self.size:
            raise ValueError(f"node id {node} is outside the {self.width}x{self.height} mesh")
        return (node % self.width, node // self.width)

    def distance(self, a: int, b: int) -> int:
        """Hop distance (Manhattan) between node ids ``a`` and ``b``."""
        ax, ay = self.coords(a)
        bx, by = self.coords(b)
        return abs(ax - bx) + abs(ay - by)

    def to_networkx(self) -> nx.Graph:
        """The mesh as a networkx grid graph, relabelled to the integer node ids."""
        import networkx as nx

        g = nx.grid_2d_graph(self.width, self.height)
        return nx.relabel_nodes(g, {(x, y): y * self.width + x for x, y in g.nodes})

    def validate_request(self, request: Sequence[int], *, rotate: bool = False) -> tuple[int, int]:
        """Return ``request`` as a ``(w, h)`` tuple of ints or raise.

        :class:`RequestTypeError` if it is not a pair of integers; :class:`RequestSizeError` if a
        side is < 1 or the rectangle does not fit the mesh (in either orientation when ``rotate``).
        """
        if isinstance(request, (str, bytes)) or not isinstance(request, (tuple, list, np.ndarray)):
            raise RequestTypeError(
                f"a request on a mesh is a (width, height) pair, got {request!r} ({type(request).__name__})"
            )
        if len(request) != 2:
            raise RequestTypeError(f"a request on a mesh is a (width, height) pair, got {request!r}")
        w = request_int(request[0], "a mesh request's width")
        h = request_int(request[1], "a mesh request's height")
        if w <= 0 or h <= 0:
            raise RequestSizeError(f"a mesh request needs both sides >= 1, got ({w}, {h})")
        fits = w <= self.width and h <= self.height
        if not fits and not (rotate and h <= self.width and w <= self.height):
            raise RequestSizeError(
                f"request ({w}, {h}) is larger than the {self.width}x{self.height} mesh"
            )
        return (w, h)

    def request_size(self, request: tuple[int, int]) -> int:
        """Processors a ``(w, h)`` request occupies."""
        return request[0] * request[1]

    def request_for(self, n: int) -> tuple[int, int]:
        """The near-square ``(w, h)`` a job of ``n`` processors asks for.

        ``w = ceil(sqrt(n))`` and ``h = ceil(n / w)``, so ``w >= h``, ``w * h >= n`` and the waste
        ``w * h - n`` is less than ``w``. If ``w`` exceeds the mesh width it is clamped to the width
        (``h = ceil(n / width)``); if ``h`` then exceeds the height, ``h`` is clamped and
        ``w = ceil(n / height)``. ``n`` larger than the mesh raises :class:`RequestSizeError`.
        """
        n = request_int(n, "a processor count")
        if n <= 0:
            raise RequestSizeError(f"a job needs at least 1 processor, got {n}")
        if n > self.size:
            raise RequestSizeError(f"{n} processors do not fit the {self.width}x{self.height} mesh")
        w = math.isqrt(n - 1) + 1
        h = -(-n // w)
        if w > self.width:
            w, h = self.width, -(-n // self.width)
        if h > self.height:
            h, w = self.height, -(-n // self.height)
        return (w, h)

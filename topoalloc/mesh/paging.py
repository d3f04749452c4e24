"""Paging allocation (Lo, Windisch, Liu & Nitzberg, IEEE TPDS 8(7), 1997, §3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from topologies import Mesh

from ..errors import PageSizeError, UnknownOptionError
from .noncontig import NoncontiguousAllocator

__all__ = ["Paging", "PAGE_ORDERS", "page_order"]

#: Page orders: ``row-major``; ``snake`` (boustrophedon: even page rows left to right, odd ones right
#: to left); ``shuffled`` (shuffled row-major: the bits of the page row and column interleaved,
#: Z / Morton order); ``shuffled-snake`` (shuffled snake-like: the same interleaving with each 2x2
#: group visited as a snake, ``(0,0) (1,0) (1,1) (0,1)`` at every level).
PAGE_ORDERS = ("row-major", "snake", "shuffled", "shuffled-snake")
_ORDER_ALIASES = {"rowmajor": "row-major", "snake": "snake", "snakelike": "snake", "shuffled": "shuffled",
                  "shuffledrowmajor": "shuffled", "shuffledsnake": "shuffled-snake",
                  "shuffledsnakelike": "shuffled-snake"}


def _canonical_order(order: str) -> str:
    key = "".join(ch for ch in str(order).lower() if ch.isalnum()) if isinstance(order, str) else None
    found = _ORDER_ALIASES.get(key) if key is not None else None
    if found is None:
        raise UnknownOptionError(f"unknown page order {order!r}; choose from {', '.join(PAGE_ORDERS)}")
    return found


def _interleave(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
    """Morton keys: bit ``i`` of ``x`` to bit ``2i``, bit ``i`` of ``y`` to bit ``2i + 1``."""
    key = np.zeros_like(x)
    for i in range(bits):
        key |= ((x >> i) & 1) << (2 * i) | ((y >> i) & 1) << (2 * i + 1)
    return key


def page_order(columns: int, rows: int, order: str = "row-major") -> np.ndarray:
    """Page indices ``row * columns + column`` of a ``columns x rows`` page grid, in ``order``.

    The shuffled orders are defined by their keys on any grid: pages are sorted by the interleaved
    key, so a grid that is not a power-of-two square visits the pages of each aligned power-of-two
    square together, skipping the positions outside the grid.

    >>> page_order(2, 2, "row-major").tolist(), page_order(3, 2, "snake").tolist()
    ([0, 1, 2, 3], [0, 1, 2, 5, 4, 3])
    >>> page_order(4, 2, "shuffled").tolist(), page_order(2, 2, "shuffled-snake").tolist()
    ([0, 1, 4, 5, 2, 3, 6, 7], [0, 1, 3, 2])
    """
    order = _canonical_order(order)
    y, x = np.divmod(np.arange(columns * rows, dtype=np.int64), columns)
    if order == "row-major":
        return np.arange(columns * rows, dtype=np.int64)
    if order == "snake":
        return y * columns + np.where(y % 2 == 1, columns - 1 - x, x)
    bits = max(columns - 1, rows - 1, 1).bit_length()
    if order == "shuffled":
        key = _interleave(x, y, bits)
    else:  # shuffled-snake: within every 2x2 group, x' = x xor y gives the order (0,0) (1,0) (1,1) (0,1)
        key = _interleave(x ^ y, y, bits)
    return np.argsort(key, kind="stable")


class Paging(NoncontiguousAllocator):
    """Paging (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor allocation algorithms for
    mesh-connected multicomputers", IEEE TPDS 8(7), 1997, §3).

    The mesh is cut into *pages*, squares of side ``2^size_index`` (``Paging(0)``: single nodes),
    and pages are indexed in one of the paper's page orders (:data:`PAGE_ORDERS`: row-major,
    snake-like, shuffled row-major, shuffled snake-like). A request for ``n`` processors (``w * h``
    for a ``(w, h)`` request) gets ``ceil(n / page_size)`` whole free pages, the lowest in the page
    order first; the granted processors are the pages' nodes (``request_size`` is the page count
    times the page size, internal fragmentation included). ``allocate`` fails only when fewer free
    pages remain than the request needs (``recognition = "page"``; ``"any"`` for 1x1 pages, where
    it is the flat machine's rule).

    Interpretations: pages start at ``(0, 0)`` and tile the mesh; when a side is not a multiple of
    the page side, the nodes of the last partial page column / row are **never allocated** (a page
    is always a full square, as in the paper's set-up, whose meshes are multiples of the page side):
    ``capacity`` counts the usable nodes and a request larger than it raises
    :class:`~topologies.RequestSizeError`. A page side larger than the mesh in either direction (no
    page at all) raises :class:`~topoalloc.errors.PageSizeError`, as does a negative
    ``size_index``. The shuffled orders on a page grid that is not a power-of-two square sort pages
    by their interleaved keys (see :func:`page_order`). Folding: a ``(w, h)`` request folds as on a
    contiguous mesh (halve the longer side) and a count to ``ceil(n / 2)``, repeated until the
    number of pages drops (a fold that kept the same pages would not reduce the job); ``None`` when
    one page is the least it can get.

    Complexity: O(P / s^2) vectorised work per allocate (the first free pages of a boolean page
    mask) plus O(n) to gather and sort the node ids; O(n) per release. Construction O(P).

    >>> from topologies import Mesh
    >>> p = Paging(Mesh(8, 8), size_index=1, order="snake")
    >>> a = p.allocate((3, 2)); b = p.allocate(1)
    >>> p.request_size((3, 2)), a.nodes.tolist(), b.nodes.tolist()
    (8, [0, 1, 2, 3, 8, 9, 10, 11], [4, 5, 12, 13])
    >>> p.release(a); p.allocate(5).nodes.tolist()  # two pages, the first two free in page order
    [0, 1, 2, 3, 8, 9, 10, 11]
    >>> p.fold((2, 2)), Paging(Mesh(8, 8)).fold((2, 2))
    (None, (1, 2))
    """

    def __init__(self, topology: Mesh, size_index: int = 0, order: str = "row-major") -> None:
        super().__init__(topology)
        if isinstance(size_index, bool) or not isinstance(size_index, int | np.integer):
            raise PageSizeError(f"size_index must be an integer >= 0, got {size_index!r}")
        size_index = int(size_index)
        if size_index < 0:
            raise PageSizeError(f"size_index must be >= 0, got {size_index}")
        side = 1 << size_index
        if side > self.width or side > self.height:
            raise PageSizeError(
                f"size_index={size_index} gives {side}x{side} pages, larger than the {self.width}x{self.height} mesh"
            )
        self.size_index: int = size_index
        self.order: str = _canonical_order(order)
        #: Side of a page (``2 ** size_index``) and its node count.
        self.page_side: int = side
        self.page_size: int = side * side
        cols, rows = self.width // side, self.height // side
        self.page_grid: tuple[int, int] = (cols, rows)
        if side > 1:
            self.recognition = "page"  # type: ignore[misc]  # per instance: whole pages
        # node ids of each page (row-major within a page), pages in page order
        idx = page_order(cols, rows, self.order)
        py, px = np.divmod(idx, cols)
        dy, dx = np.divmod(np.arange(self.page_size, dtype=np.int64), side)
        self._pages: np.ndarray = ((py[:, None] * side + dy[None, :]) * self.width + px[:, None] * side + dx[None, :])
        self._pages.flags.writeable = False
        self._page_of = np.full(self.width * self.height, -1, dtype=np.int64)  # node id -> page position
        self._page_of[self._pages] = np.arange(len(self._pages))[:, None]
        self._page_free = np.ones(len(self._pages), dtype=bool)
        self.capacity = len(self._pages) * self.page_size

    @property
    def pages(self) -> np.ndarray:
        """Read-only ``(pages, page_size)`` array: the node ids of each page, pages in page order."""
        return self._pages

    def free_pages(self) -> np.ndarray:
        """Positions (in page order) of the free pages."""
        return np.flatnonzero(self._page_free)

    def request_size(self, request: Any) -> int:
        """Nodes granted: ``ceil(n / page_size)`` pages of ``page_size`` nodes."""
        n = super().request_size(request)
        s = self.page_size
        return -(-n // s) * s

    def fold(self, request: Any) -> Any | None:
        """Fold (halve the longer side, or halve a count) until the page count drops; ``None`` when
        the request already fits one page."""
        need = self.request_size(request)
        smaller = super().fold(request)
        while smaller is not None and self.request_size(smaller) >= need:
            smaller = super().fold(smaller)
        return smaller

    def _choose(self, n: int) -> np.ndarray | None:
        picked = np.flatnonzero(self._page_free)[: n // self.page_size]
        if len(picked) * self.page_size < n:
            return None
        self._page_free[picked] = False
        nodes = self._pages[picked].ravel()
        nodes.sort()
        return nodes

    def _give_back(self, nodes: np.ndarray) -> None:
        super()._give_back(nodes)
        self._page_free[self._page_of[nodes]] = True

    def __repr__(self) -> str:
        return f"Paging({self.topology!r}, size_index={self.size_index}, order={self.order!r})"

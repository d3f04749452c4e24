"""Region value objects: the placements that contiguous allocators hand out.

Both are frozen, slotted, hashable values; they know nothing about occupancy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Submesh", "Subcube"]


@dataclass(frozen=True, slots=True)
class Submesh:
    """The ``width x height`` rectangle of a 2D mesh whose lower-left (base) node is ``(x, y)``.

    >>> s = Submesh(1, 2, 3, 2)
    >>> s.size, s.x_end, s.y_end
    (6, 4, 4)
    >>> s.node_ids(mesh_width=8).tolist()
    [17, 18, 19, 25, 26, 27]
    """

    x: int
    y: int
    width: int
    height: int

    @property
    def size(self) -> int:
        """Number of nodes, ``width * height``."""
        return self.width * self.height

    @property
    def x_end(self) -> int:
        """One past the last column."""
        return self.x + self.width

    @property
    def y_end(self) -> int:
        """One past the last row."""
        return self.y + self.height

    @property
    def shape(self) -> tuple[int, int]:
        """``(width, height)``: the request this region grants."""
        return (self.width, self.height)

    def node_ids(self, mesh_width: int) -> np.ndarray:
        """Node ids ``y * mesh_width + x`` of every node, row by row (ascending)."""
        xs = np.arange(self.x, self.x + self.width, dtype=np.int64)
        ys = np.arange(self.y, self.y + self.height, dtype=np.int64)
        return (ys[:, None] * mesh_width + xs[None, :]).ravel()

    @classmethod
    def _unchecked(cls, x: int, y: int, width: int, height: int) -> Submesh:
        """Build through the slot descriptors (allocators' hot paths; the frozen dataclass's
        ``__init__`` goes through ``object.__setattr__`` once per field)."""
        obj = object.__new__(cls)
        _set_x(obj, x)
        _set_y(obj, y)
        _set_width(obj, width)
        _set_height(obj, height)
        return obj

    def contains(self, x: int, y: int) -> bool:
        """Whether node ``(x, y)`` lies inside."""
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def overlaps(self, other: Submesh) -> bool:
        """Whether the two rectangles share at least one node."""
        return (
            self.x < other.x + other.width
            and other.x < self.x + self.width
            and self.y < other.y + other.height
            and other.y < self.y + self.height
        )


@dataclass(frozen=True, slots=True)
class Subcube:
    """A subcube of a hypercube: a ``base`` address and a ``mask`` of free dimensions.

    Bit ``i`` of ``mask`` set means dimension ``i`` is free (``*`` in the usual notation), so the
    subcube holds every address that agrees with ``base`` outside ``mask``. ``base & mask`` must be
    0. Buddy subcubes have a mask of low-order bits; any other mask (such as ``*0*1``, base ``0b0001``,
    mask ``0b1010``) is a non-buddy subcube, which perfect-recognition allocators may hand out.

    >>> c = Subcube(base=0b0001, mask=0b1010)
    >>> c.dim, c.pattern(4), c.node_ids().tolist()
    (2, '*0*1', [1, 3, 9, 11])
    """

    base: int
    mask: int

    def __post_init__(self) -> None:
        if self.base < 0 or self.mask < 0:
            raise ValueError(f"Subcube base and mask must be >= 0, got base={self.base}, mask={self.mask}")
        if self.base & self.mask:
            raise ValueError(
                f"Subcube base {self.base:#b} has bits inside its free-dimension mask {self.mask:#b}"
            )

    @classmethod
    def _unchecked(cls, base: int, mask: int) -> Subcube:
        """Build without validation (allocators' hot paths, where base & mask == 0 holds)."""
        obj = object.__new__(cls)
        _set_base(obj, base)
        _set_mask(obj, mask)
        return obj

    @property
    def dim(self) -> int:
        """Dimension k of the subcube (number of free dimensions)."""
        return self.mask.bit_count()

    @property
    def size(self) -> int:
        """Number of nodes, ``2 ** dim``."""
        return 1 << self.mask.bit_count()

    @property
    def is_buddy(self) -> bool:
        """Whether this is a buddy (aligned, low-order-mask) subcube."""
        return self.mask & (self.mask + 1) == 0

    @property
    def span(self) -> tuple[int, int] | None:
        """``(first, stop)``: the addresses as one half-open range of consecutive ids, for a buddy
        subcube (low-order mask); ``None`` otherwise. O(1)."""
        mask = self.mask
        return (self.base, self.base + mask + 1) if mask & (mask + 1) == 0 else None

    def node_ids(self) -> np.ndarray:
        """Every address of the subcube, ascending."""
        mask = self.mask
        if mask & (mask + 1) == 0:  # low-order mask: a contiguous aligned range
            return np.arange(self.base, self.base + mask + 1, dtype=np.int64)
        ids = np.array([self.base], dtype=np.int64)
        bit = 1
        while bit <= mask:
            if mask & bit:
                ids = np.concatenate((ids, ids + bit))
            bit <<= 1
        ids.sort()
        return ids

    def contains(self, address: int) -> bool:
        """Whether ``address`` lies inside."""
        return (address & ~self.mask) == self.base

    def overlaps(self, other: Subcube) -> bool:
        """Whether the two subcubes share a node: they agree on every dimension fixed in both."""
        fixed = ~(self.mask | other.mask)
        return (self.base & fixed) == (other.base & fixed)

    def pattern(self, dim: int) -> str:
        """The ``{0,1,*}`` string of the subcube in a ``dim``-cube, most significant bit first."""
        out = []
        for i in range(dim - 1, -1, -1):
            b = 1 << i
            out.append("*" if self.mask & b else ("1" if self.base & b else "0"))
        return "".join(out)

    @classmethod
    def from_pattern(cls, pattern: str) -> Subcube:
        """Parse a ``{0,1,*}`` string, most significant bit first: ``Subcube.from_pattern("*0*1")``."""
        base = mask = 0
        for ch in pattern:
            base <<= 1
            mask <<= 1
            if ch == "1":
                base |= 1
            elif ch == "*":
                mask |= 1
            elif ch != "0":
                raise ValueError(f"subcube pattern {pattern!r} may hold only '0', '1' and '*', got {ch!r}")
        return cls(base, mask)


# The slot descriptors' setters, which bypass the frozen __setattr__ in _unchecked; read from the
# class dictionaries because mypy types ``Submesh.x`` as the field's ``int``, not as its descriptor.
_set_x: Callable[[Submesh, int], None] = Submesh.__dict__["x"].__set__
_set_y: Callable[[Submesh, int], None] = Submesh.__dict__["y"].__set__
_set_width: Callable[[Submesh, int], None] = Submesh.__dict__["width"].__set__
_set_height: Callable[[Submesh, int], None] = Submesh.__dict__["height"].__set__
_set_base: Callable[[Subcube, int], None] = Subcube.__dict__["base"].__set__
_set_mask: Callable[[Subcube, int], None] = Subcube.__dict__["mask"].__set__

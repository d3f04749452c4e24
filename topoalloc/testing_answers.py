"""What-if answers checked against the generic defaults: part of :mod:`topoalloc.testing`.

Re-exported by :mod:`topoalloc.testing` (import from there). An allocator may answer a what-if
question (:meth:`~topoalloc.Allocator.place_in_bits`, ...) by its own faster search; the answer
must be exactly the generic default's, since a backfilling profile builds on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Allocator

__all__ = ["place_in_bits_differs"]


def place_in_bits_differs(allocator: Allocator, request: Any, free: int,
                          method: Callable[[Allocator, Any, int], np.ndarray | None] | None = None) -> str | None:
    """Why ``method`` (default: the allocator's own :meth:`~topoalloc.Allocator.place_in_bits`)
    answers ``request`` on the free nodes ``free`` (bit ``i``: node ``i``) otherwise than the
    generic default does (the bits made a mask for :meth:`~topoalloc.Allocator.place_in`), or
    ``None`` when the answers are the same: both ``None``, or the same node ids in the same order
    and of the same dtype. For allocators that search the integer directly (an override must be
    exact: a reservation profile builds on it), and for checking that a deliberately broken
    ``method`` is told apart. O(one answer of each).

    >>> from topologies import Hypercube
    >>> from topoalloc import Buddy
    >>> place_in_bits_differs(Buddy(Hypercube(3)), 2, 0b11111011) is None
    True
    >>> place_in_bits_differs(Buddy(Hypercube(3)), 2, 0b11111011, lambda a, k, f: None)
    'place_in_bits(2) on 0b11111011: None, the default [4, 5, 6, 7]'
    """
    want = Allocator.place_in_bits(allocator, request, free)
    got = (method or type(allocator).place_in_bits)(allocator, request, free)
    if got is None and want is None:
        return None
    if got is not None and want is not None and got.dtype == want.dtype and got.tolist() == want.tolist():
        return None
    def shown(a: np.ndarray | None) -> str:
        return "None" if a is None else f"{a.tolist()}" + ("" if a.dtype == np.int64 else f" ({a.dtype})")

    return f"place_in_bits({request!r}) on {bin(free)}: {shown(got)}, the default {shown(want)}"

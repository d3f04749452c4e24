"""Reductions over consecutive blocks of a 1-D array: the aligned regions of buddy cubes, the
partitions of a tree level, Gray-code half blocks.

``numpy`` reduces along a short last axis slowly (a short inner loop per block):
``a.reshape(-1, s).max(axis=1)`` on 1,024 values is slowest for the shortest blocks (measured by
``python benchmarks/blocks.py``). For booleans in blocks of 2, 4 or 8 these functions compare
machine words instead, for other short blocks they combine the strided slices (``s - 1``
whole-array operations), and for longer blocks they use ``numpy``'s own reduction. Results equal
the reshaped reductions exactly (``tests/topoalloc/test_blocks.py``).

>>> import numpy as np
>>> block_all(np.array([1, 1, 0, 1, 1, 1, 1, 1], dtype=bool), 2).tolist()
[True, False, True, True]
>>> block_max(np.arange(8.0), 4).tolist()
[3.0, 7.0]
"""

from __future__ import annotations

import functools
from typing import cast

import numpy as np

__all__ = ["block_all", "block_any", "block_max", "block_starts", "runs_from", "first_group_avoiding"]

#: Blocks up to this long are combined from strided slices; longer ones reduced by ``numpy``.
SHORT = 4

_WORDS = {2: (np.uint16, 0x0101), 4: (np.uint32, 0x01010101), 8: (np.uint64, 0x0101010101010101)}


def _strided(a: np.ndarray, s: int, op: np.ufunc) -> np.ndarray:
    out: np.ndarray = a[0::s]
    for j in range(1, s):
        out = op(out, a[j::s])
    return out


def block_all(mask: np.ndarray, s: int) -> np.ndarray:
    """Whether each consecutive block of ``s`` values of the 1-D boolean ``mask`` is all true
    (``len(mask)`` a multiple of ``s``): ``mask.reshape(-1, s).all(axis=1)``."""
    mask = np.asarray(mask, dtype=bool)
    if s == 1:
        return mask
    word = _WORDS.get(s)
    if word is not None and mask.flags.c_contiguous:
        full: np.ndarray = mask.view(word[0]) == word[1]
        return full
    if s <= SHORT:
        return _strided(mask, s, np.logical_and)
    # numpy's stubs type an axis reduction as "scalar or array"; over a 2-D array it is an array
    return cast(np.ndarray, mask.reshape(-1, s).all(axis=1))


def block_any(mask: np.ndarray, s: int) -> np.ndarray:
    """Whether each consecutive block of ``s`` values of the 1-D boolean ``mask`` has a true one:
    ``mask.reshape(-1, s).any(axis=1)``."""
    mask = np.asarray(mask, dtype=bool)
    if s == 1:
        return mask
    word = _WORDS.get(s)
    if word is not None and mask.flags.c_contiguous:
        some: np.ndarray = mask.view(word[0]) != 0
        return some
    if s <= SHORT:
        return _strided(mask, s, np.logical_or)
    return cast(np.ndarray, mask.reshape(-1, s).any(axis=1))  # an array: see block_all


def block_max(values: np.ndarray, s: int) -> np.ndarray:
    """The largest of each consecutive block of ``s`` values of the 1-D ``values``:
    ``values.reshape(-1, s).max(axis=1)``."""
    values = np.asarray(values)
    if s == 1:
        return values
    if s <= SHORT:
        return _strided(values, s, np.maximum)
    top: np.ndarray = values.reshape(-1, s).max(axis=1)
    return top


@functools.cache
def block_starts(n: int, k: int) -> int:
    """The first positions of the consecutive ``2^k`` blocks of ``2^n`` (``0, 2^k, 2 * 2^k, ...``)
    as the bits of an integer: the aligned blocks, for searches on node sets kept as integers.
    Cached."""
    return sum(1 << m for m in range(0, 1 << n, 1 << k))


def runs_from(bits: int, s: int) -> int:
    """``bits`` (an integer node set) with bit ``p`` kept only where bits ``p .. p + s - 1`` are all
    set, ``s`` a power of two: ``log2 s`` doubling steps ``b &= b >> 2^i``."""
    span = 1
    while span < s:
        bits &= bits >> span
        span <<= 1
    return bits


def first_group_avoiding(order: np.ndarray, n: int, avoid: np.ndarray) -> np.ndarray | None:
    """The first of the consecutive groups of ``n`` entries of ``order`` (node ids; a trailing
    partial group is dropped) that holds no node marked in ``avoid``, or ``None``: the successive
    placements of a rule that takes the next ``n`` free nodes in a fixed order, asked to avoid a
    reservation. A copy, in ``order``'s order. O(len(order)).

    >>> first_group_avoiding(np.array([1, 2, 3, 4, 5]), 2, np.array([0, 0, 1, 0, 0, 0], dtype=bool)).tolist()
    [3, 4]
    """
    m = len(order) // n
    if m == 0:
        return None
    groups = order[: m * n].reshape(m, n)
    ok = ~np.asarray(avoid, dtype=bool).ravel()[groups].any(axis=1)
    i = int(ok.argmax())
    return groups[i].copy() if ok[i] else None


"""The class and slot arithmetic of gang scheduling under distributed hierarchical control (DHC):
Wang, Papaefthymiou & Squillante, "Performance Evaluation of Gang Scheduling for Parallel and
Distributed Multiprogramming" (seed 004) -- a job's class (§5), the class each tree of a DHC forest
serves in each time slot (§2.3, §2.6) and the rho-based quanta of the cycle (§7.2). The policy that
schedules with them is :class:`scheduling.policies.gang.Gang`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from topoalloc.dhc import forest_sizes

__all__ = ["GangError", "job_class", "served_classes", "rho_quanta"]


class GangError(ValueError):
    """A bad gang-scheduler parameter (the message names the value)."""


def job_class(p: int, size: int) -> int:
    """Seed 004 §5's class of a ``p``-processor job on a ``size``-processor machine: ``i`` with
    ``2^(i-1) < p <= 2^i`` (class 0: ``p = 1``).

    >>> job_class(1, 320), job_class(2, 320), job_class(3, 320), job_class(256, 320), job_class(300, 320)
    (0, 1, 2, 8, 9)
    """
    if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= size:
        raise GangError(f"a job of {p!r} processors has no class on a {size}-processor machine")
    return (p - 1).bit_length()


def served_classes(size: int) -> list[list[int]]:
    """``served[t][s]``: the class tree ``t`` of the DHC forest serves in time slot ``s``.

    Slots are numbered like the classes, ``0 .. L-1`` with ``L = ceil(log2 size) + 1``; slot ``s``
    serves class ``s`` in the largest tree. On a machine that is not a power of two (§2.6) the top
    slot ``L-1`` configures the whole machine as one partition (class ``L-1`` holds the jobs larger
    than the largest tree), and a smaller tree of height ``h`` serves, in slots ``h+1 .. L-2``, the
    classes ``(s - h - 1) mod (h + 1)``: for 320 = 256 + 64 the 64-tree serves classes 1 and 0 while
    the 256-tree serves classes 8 and 7, and both serve class ``s`` from slot 6 down, as §2.6 says.
    (The modulus generalises §2.6 to forests whose height gaps exceed the smaller tree's height.)

    >>> served_classes(320)[1]
    [0, 1, 2, 3, 4, 5, 6, 0, 1, 9]
    >>> served_classes(8)
    [[0, 1, 2, 3]]
    """
    sizes = forest_sizes(size)
    heights = [s.bit_length() - 1 for s in sizes]
    whole = len(sizes) > 1
    L = heights[0] + 1 + whole
    out = []
    for h in heights:
        row = []
        for s in range(L):
            if whole and s == L - 1:
                row.append(L - 1)
            elif s <= h:
                row.append(s)
            else:
                row.append((s - h - 1) % (h + 1))
        out.append(row)
    return out


def rho_quanta(rho: Sequence[float], cycle: float, floor: float = 0.1) -> list[float]:
    """Seed 004 §7.2's quanta: class ``i`` gets ``(rho_i / rho) T`` of the cycle ``T``, with
    ``rho = sum(rho_i)``.

    Interpretation: a class with no work the day before would get a zero quantum and starve under
    the vanilla scheduler, so every class first gets ``floor * T / L`` and the rest of the cycle is
    shared in proportion to ``rho_i``: ``q_i = f + (T - L f) rho_i / rho`` with ``f = floor T / L``
    (``floor = 0`` is the paper's formula). The quanta always sum to ``T``; all ``rho_i = 0`` gives
    the uniform quanta ``T / L``.

    >>> rho_quanta([0.0, 0.3, 0.1], 30.0, floor=0.0)
    [0.0, 22.5, 7.5]
    >>> rho_quanta([0.0, 0.0], 10.0)
    [5.0, 5.0]
    """
    L = len(rho)
    if L == 0:
        raise GangError("rho_quanta needs at least one class")
    if not 0.0 <= floor <= 1.0:
        raise GangError(f"floor must be in [0, 1], got {floor!r}")
    if any(not r >= 0.0 for r in rho):
        raise GangError(f"relative utilisations must be >= 0, got {list(rho)!r}")
    total = math.fsum(rho)
    if total <= 0:
        return [cycle / L] * L
    f = floor * cycle / L
    return [f + (cycle - L * f) * r / total for r in rho]

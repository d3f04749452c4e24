"""Folding rules: small objects that walk an allocator's ``fold()`` to place a request.

One rule serves every topology because it sees only the allocator surface (Chang & Mohapatra,
seed 002 §3.2: "the RSR method is not restricted to these topologies").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from topoalloc import Allocation, Allocator

from .._validate import check_int

__all__ = ["FoldingRule", "NoFold", "RSR", "Limit", "GreedyLimit", "AverageLimit", "MAX_LIMIT"]

#: Largest ``k`` of limit-k: 2**62 processors is beyond any machine.
MAX_LIMIT = 62


class FoldingRule:
    """Base class: :meth:`place` returns ``(allocation, folds)`` or ``None``."""

    @property
    def name(self) -> str:
        """The rule's name in tables (``"RSR-1"``, ``"Limit-3"``, ...)."""
        return "rule"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        raise NotImplementedError

    @staticmethod
    def _walk(allocator: Allocator, request: Any, first_fold: int, max_folds: float) -> tuple[Allocation, int] | None:
        """Try ``request``, then fold it, up to ``max_folds`` folds in all; ``first_fold`` is the
        number of folds already applied to ``request``."""
        folds = first_fold
        while True:
            got = allocator.allocate(request)
            if got is not None:
                return got, folds
            if folds >= max_folds:
                return None
            request = allocator.fold(request)
            if request is None:
                return None
            folds += 1


@dataclass(frozen=True, slots=True)
class NoFold(FoldingRule):
    """Try the request as it is (plain FCFS, RSR-0)."""

    @property
    def name(self) -> str:
        return "FCFS"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        got = allocator.allocate(request)
        return None if got is None else (got, 0)


@dataclass(frozen=True, slots=True)
class RSR(FoldingRule):
    """Restricted size reduction RSR-t (Chang & Mohapatra, seed 002 §3.2): try the request, then
    up to ``t`` folds, stopping at the first that fits. Cost: at most ``t + 1`` allocation attempts.

    >>> from topoalloc import Buddy; from topologies import Hypercube
    >>> b = Buddy(Hypercube(3)); _ = b.allocate(2)
    >>> RSR(1).place(b, 3)[0].request, RSR(0).place(b, 3)
    (2, None)
    """

    t: int

    def __post_init__(self) -> None:
        check_int(self.t, "RSR-t: t", low=0)

    @property
    def name(self) -> str:
        return "FCFS" if self.t == 0 else f"RSR-{self.t}"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        return self._walk(allocator, request, 0, self.t)


def _fold_to_limit(allocator: Allocator, request: Any, limit: int) -> tuple[Any, int]:
    folds = 0
    while allocator.request_size(request) > limit:
        smaller = allocator.fold(request)
        if smaller is None:
            break
        request, folds = smaller, folds + 1
    return request, folds


@dataclass(frozen=True, slots=True)
class Limit(FoldingRule):
    """Limit-k allocation (Yu & Das, ICPP 1994, as compared in seed 002 §2.3 and §4.4): every job
    larger than a ``k``-cube is folded to ``k`` before it is tried, whatever the load; then it is
    tried at that size only.

    On topologies other than the cube the limit is the processor count ``2**k`` (the mesh
    equivalent: a job is folded by the allocator's own rule until it needs at most ``2**k``
    processors). Interpretation of "mesh equivalent" is ours.
    """

    k: int

    def __post_init__(self) -> None:
        check_int(self.k, "Limit-k: k (the limit is 2**k processors)", low=0, high=MAX_LIMIT)

    @property
    def name(self) -> str:
        return f"Limit-{self.k}"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        request, folds = _fold_to_limit(allocator, request, 1 << self.k)
        got = allocator.allocate(request)
        return None if got is None else (got, folds)


@dataclass(frozen=True, slots=True)
class GreedyLimit(FoldingRule):
    """Greedy limit (Yu & Das; seed 002 §4.4 calls it RSR without a bound): fold as far as needed,
    down to a single processor, until the job fits."""

    @property
    def name(self) -> str:
        return "Greedy"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        return self._walk(allocator, request, 0, math.inf)


@dataclass(frozen=True, slots=True)
class AverageLimit(FoldingRule):
    """Yu & Das's *average* limit — a documented interpretation.

    The published definition (Yu & Das, ICPP 1994) is not available to us; only its abstract
    ("two adaptive schemes, greedy and average"). We implement the adaptive rule its name and
    seed 002 §2.3 suggest: a job that does not fit is folded as far as needed (like Greedy) but
    never below the average size, in processors, of the jobs currently in the system (running and
    waiting, including itself), rounded down to a size the allocator can place. The caller passes
    that average as ``context``; without it the rule behaves like Greedy.
    """

    @property
    def name(self) -> str:
        return "Average"

    def place(self, allocator: Allocator, request: Any, context: Any = None) -> tuple[Allocation, int] | None:
        got = allocator.allocate(request)
        if got is not None:
            return got, 0
        floor = float(context) if context else 1.0
        folds = 0
        while True:
            smaller = allocator.fold(request)
            if smaller is None or allocator.request_size(smaller) < min(floor, allocator.request_size(request)):
                return None
            request, folds = smaller, folds + 1
            got = allocator.allocate(request)
            if got is not None:
                return got, folds

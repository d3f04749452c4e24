"""Downey's speedup model from average parallelism ``A`` and variance parameter ``sigma``.

A. B. Downey, *A parallel workload model and its implications for processor allocation*,
UCB/CSD-96-922 (seed 001), §2: a job's speedup on ``n`` processors is derived from a hypothetical
parallelism profile with average ``A`` and variance ``V = sigma (A - 1)^2``.

* low variance (``0 <= sigma <= 1``, Eq. 1)::

      S(n) = A n / (A + sigma (n - 1) / 2)             1 <= n <= A
           = A n / (sigma (A - 1/2) + n (1 - sigma/2))   A <= n <= 2A - 1
           = A                                          n >= 2A - 1

* high variance (``sigma >= 1``, Eq. 2)::

      S(n) = n A (sigma + 1) / (A + A sigma - sigma + n sigma)   1 <= n <= A + A sigma - sigma
           = A                                                   n >= A + A sigma - sigma

The two models coincide at ``sigma = 1``, so the model used is chosen by ``sigma`` alone; the
speedup is continuous in ``n`` and in ``sigma``. Eq. 3 (Eager et al.'s lower bound
``A n / (A + n - 1)``) is the ``sigma -> inf`` limit, available as :func:`eager_lower_bound`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import check_real
from .speedup import Speedup

__all__ = ["Downey", "eager_lower_bound"]

_INF = float("inf")


@dataclass(frozen=True, slots=True)
class Downey(Speedup):
    """Downey's speedup ``S(n)`` for average parallelism ``A >= 1`` and ``sigma >= 0`` (seed 001
    §2, Eqs. 1–2; low-variance profile for ``sigma <= 1``, high-variance for ``sigma > 1``).
    ``S(1) = 1`` and ``S(n) = A`` beyond :attr:`saturation` processors. O(1) per evaluation.

    >>> s = Downey(64.0, 0.0)
    >>> s.speedup(32), s.speedup(64), s.speedup(100)
    (32.0, 64.0, 64.0)
    >>> round(Downey(64.0, 1.0).speedup(64), 4), Downey(64.0, 1.0).saturation
    (42.8901, 127.0)
    >>> Downey(10.0, 0.5).time(100.0, 1, 10) == 100.0 / Downey(10.0, 0.5).speedup(10)
    True
    """

    A: float
    sigma: float

    def __post_init__(self) -> None:
        A, s = self.A, self.sigma
        if type(A) is float and type(s) is float and 1.0 <= A < _INF and 0.0 <= s < _INF:
            return  # the fast path: one per job of a Downey workload
        check_real(A, "Downey speedup: average parallelism A", low=1)
        check_real(s, "Downey speedup: sigma", low=0)

    @property
    def saturation(self) -> float:
        """The smallest ``n`` with ``S(n) = A``: ``A`` for ``sigma = 0``, ``2A - 1`` for
        ``0 < sigma <= 1``, ``A + A sigma - sigma`` for ``sigma >= 1`` (the definition of MAX in
        §5.2, "the minimum n such that S(n) = A"). Eq. 7 prints ``2A`` for the middle case; Eq. 1's
        third branch, ``S(n) = A`` for ``n >= 2A - 1``, and its second branch at ``n = 2A - 1``
        (``A (2A - 1) / (sigma (A - 1/2) + (2A - 1)(1 - sigma/2)) = A``) give ``2A - 1``."""
        A, s = self.A, self.sigma
        if s == 0.0:
            return A
        if s <= 1.0:
            return 2.0 * A - 1.0
        return A + A * s - s

    def speedup(self, n: float) -> float:
        A, s = self.A, self.sigma
        if n <= 0:
            raise ValueError(f"Downey speedup: processor count must be > 0, got {n!r}")
        if s <= 1.0:
            if n <= A:
                return A * n / (A + s * (n - 1.0) / 2.0)
            if n < 2.0 * A - 1.0:
                return A * n / (s * (A - 0.5) + n * (1.0 - s / 2.0))
            return A
        knee = A + A * s - s
        if n < knee:
            return n * A * (s + 1.0) / (knee + n * s)
        return A


def eager_lower_bound(A: float, n: float) -> float:
    """Eq. 3: Eager, Zahorjan & Lazowska's lower bound ``A n / (A + n - 1)`` on the speedup of any
    program with average parallelism ``A`` (the ``sigma -> inf`` limit of Eq. 2).

    >>> round(eager_lower_bound(64.0, 64.0), 4)
    32.252
    """
    return A * n / (A + n - 1.0)

"""Significant orderings: is A's metric below B's, or is the difference noise?

Two configurations are compared on the same replications (*common random numbers*: replication
``i`` runs both sides with seed ``start + i``, so both see the same jobs and the noise they share
cancels in the difference), and replications are added until the 95% Student-t interval of the mean
paired difference ``A - B`` excludes zero or a stated cap is reached (Law, *Simulation Modeling and
Analysis*, 5th ed., §10.2.1, the paired-t confidence interval, with common random numbers §11.2; the
sequential rule "add replications until the interval is precise enough" is his §9.4.1, here with
"excludes zero" as the stopping test).

The verdict is ``"A < B"``, ``"A > B"`` or ``"not significant"`` (the interval straddles zero at the
cap). Interpretations: at least ``min_replications`` (3 by default) before the first test, so two
lucky replications cannot decide; the stopping rule looks at the interval after every replication,
which makes the nominal 95% level optimistic (a repeated test rejects more often than once), so the
cap should be stated with the result and a claim asserted on the verdict should be one with a
margin -- a difference of zero still comes out "not significant" in most runs (the tests check an
exact case). The seeds are a contiguous range from ``start``, so a result names its replications
exactly. O(replications) calls of the two measures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .._validate import ParameterError, check_int, check_seed
from .summary import t_quantile

__all__ = ["Ordering", "compare_paired", "paired_interval", "LESS", "GREATER", "NOT_SIGNIFICANT"]

#: The verdicts of :func:`compare_paired`.
LESS, GREATER, NOT_SIGNIFICANT = "A < B", "A > B", "not significant"


@dataclass(frozen=True)
class Ordering:
    """The outcome of :func:`compare_paired`: the mean paired difference ``A - B``, its 95% interval
    ``(low, high)``, the seeds it used (``start .. start + replications - 1``), both sides' values per
    seed, and the ``verdict``."""

    mean: float
    low: float
    high: float
    replications: int
    start: int
    a: tuple[float, ...]
    b: tuple[float, ...]
    verdict: str

    @property
    def significant(self) -> bool:
        """Whether the interval excludes zero."""
        return self.verdict != NOT_SIGNIFICANT

    @property
    def seeds(self) -> range:
        """The seeds of the replications, in order."""
        return range(self.start, self.start + self.replications)

    def __str__(self) -> str:
        last = self.start + self.replications - 1
        return (f"{self.verdict}: A - B = {self.mean:.4g} [{self.low:.4g}, {self.high:.4g}] "
                f"(95%, {self.replications} paired replications, seeds {self.start}..{last})")


def paired_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Mean of the differences ``a[i] - b[i]`` and its 95% Student-t interval ``(mean, low, high)``;
    the interval is ``(nan, nan)`` for fewer than two pairs.

    >>> [round(v, 3) for v in paired_interval([3.0, 4.0, 5.0], [1.0, 2.0, 2.0])]
    [2.333, 0.899, 3.768]
    """
    if len(a) != len(b):
        raise ParameterError(f"paired values need one length each, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        raise ParameterError("no paired values")
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = math.fsum(d) / n
    if n < 2:
        return mean, math.nan, math.nan
    var = math.fsum((x - mean) ** 2 for x in d) / (n - 1)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def compare_paired(measure_a: Callable[[int], float], measure_b: Callable[[int], float], *, start: int = 1,
                   min_replications: int = 3, max_replications: int = 30) -> Ordering:
    """Compare ``measure_a(seed)`` with ``measure_b(seed)`` over paired replications (module
    docstring): seeds ``start, start + 1, ...``, at least ``min_replications`` (>= 2) and at most
    ``max_replications``, stopping as soon as the 95% interval of the mean of ``A - B`` excludes zero.
    A measure returning NaN or an infinity is an error naming the side and the seed (a saturated
    run's mean is not a number to compare).

    >>> import numpy as np
    >>> shared = lambda seed: np.random.default_rng(seed).normal(0.0, 5.0)      # the jobs of one seed
    >>> own = lambda seed: np.random.default_rng(1000 + seed).normal(0.0, 0.5)  # what differs per side
    >>> r = compare_paired(lambda s: 10.0 + shared(s) + own(s), lambda s: 12.0 + shared(s))
    >>> r.verdict, r.replications         # the shared noise cancels in the difference
    ('A < B', 3)
    >>> compare_paired(lambda s: (-1.0) ** s, lambda s: 0.0, max_replications=8).verdict
    'not significant'
    """
    start = check_seed(start, "start (the first replication's seed)")
    low_n = check_int(min_replications, "min_replications", low=2)
    cap = check_int(max_replications, "max_replications (the cap)", low=low_n)
    a: list[float] = []
    b: list[float] = []
    mean, lo, hi = math.nan, math.nan, math.nan
    for seed in range(start, start + cap):
        for side, measure, out in (("A", measure_a, a), ("B", measure_b, b)):
            value = float(measure(seed))
            if not math.isfinite(value):
                raise ParameterError(f"side {side} measured {value!r} with seed {seed}: not a finite number")
            out.append(value)
        if len(a) < low_n:
            continue
        mean, lo, hi = paired_interval(a, b)
        if lo > 0.0 or hi < 0.0:
            break
    verdict = GREATER if lo > 0.0 else LESS if hi < 0.0 else NOT_SIGNIFICANT
    return Ordering(mean, lo, hi, len(a), start, tuple(a), tuple(b), verdict)

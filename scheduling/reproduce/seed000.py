"""Ismail (seed 000): *Space Sharing Job Scheduling Policies for Parallel Computers*, PhD thesis, Iowa
State 1995 -- static space sharing without and with folding (chapters 2-3) and dynamic space sharing
(chapter 4), on a 64-processor machine.

Chapters 2-3: the workloads of §2.3.1 / §3.3.1 (:func:`~scheduling.workloads.ismail.ismail_workload`:
requests uniform on [2, 64] or truncated exponential, run times uniform on [10, 200] or truncated
exponential, MISP or linear speedup). Full: the thesis' 8,500 jobs with the first 500 discarded; seeds
are a contiguous range from 0; the replication rule and the reduced sizes are given in
:mod:`scheduling.reproduce.seed000_static` (claims there and in :mod:`scheduling.reproduce.seed000_folding`).

Chapter 4: the workloads of §4.4.1 (:func:`~scheduling.workloads.ismail_dynamic`, and the Table
4.1/4.2 applications); seeds are a contiguous range from 1 (both policies of a comparison run the
jobs of the same seed). Full: the thesis' 5,500 jobs with the first 500 discarded; every ordering is
replicated over seeds 1, 2, ... until the 95% interval of the paired difference excludes zero, at most
20 seeds (then "not significant"); every magnitude (a ratio, an advantage, a cell of Table 4.3) is
judged over seeds 1-10. Quick: 1,000-2,000 jobs with the first tenth discarded, orderings capped at 5
seeds, magnitudes over seeds 1-3 (see :mod:`scheduling.reproduce.seed000_dynamic`).

The thesis replicates each run until the 95% half-width of the mean response time is 5% of the mean
(§2.3.1, §3.3.1, §4.4.1): differences below 5% are below its resolution. Every comparison uses common
random numbers (the same jobs for every policy at a seed); a ratio of two policies is the ratio of their
means ± the 95% half-width of the per-seed ratios. The diagnoses are in ``docs/reproductions/seed000.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .claims import estimate

__all__: list[str] = []

P = 64


class _Run(NamedTuple):
    """How many jobs, how many of them discarded, and which seeds."""

    jobs: int
    warmup: int
    seeds: tuple[int, ...]


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values))


def _est(values: Sequence[float], fmt: str = ".4g") -> str:
    return estimate(values, fmt)[1]


def _ratio(num: Sequence[float], den: Sequence[float], fmt: str = ".3f") -> str:
    """The ratio of the means ± the 95% half-width of the per-seed ratios."""
    text = f"{_mean(num) / _mean(den):{fmt}}"
    if len(num) > 1:
        est, _ = estimate([a / b for a, b in zip(num, den, strict=True)])
        text += f" ± {est.half_width:.2g}"
    return text


# The claims, in the thesis' order; imported last, as they use the helpers above.
from . import seed000_static, seed000_dynamic  # noqa: E402, F401, I001

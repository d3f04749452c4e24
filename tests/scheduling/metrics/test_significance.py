"""Significant orderings over paired replications with common random numbers
(scheduling.metrics.significance)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduling.metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, compare_paired, paired_interval
from topologies.errors import ParameterError


def test_the_paired_interval_by_hand():
    """Hand-computed: differences 2, 2, 3 have mean 7/3 and standard deviation 1/sqrt(3); with
    Student's t(2) 0.975-quantile 4.303 (any t table) the half-width is 4.303 / 3 = 1.434."""
    mean, low, high = paired_interval([3.0, 4.0, 5.0], [1.0, 2.0, 2.0])
    assert mean == pytest.approx(7 / 3)
    assert (high - low) / 2 == pytest.approx(4.303 / 3, rel=1e-3)
    assert math.isnan(paired_interval([1.0], [0.0])[1])


def test_a_real_difference_under_common_random_numbers_is_significant_in_few_replications():
    """B is A plus 1 plus a little noise of its own; both share a large per-seed noise (the jobs of
    the seed), which cancels in the pairs: A < B after the minimum of 3 replications."""
    shared = [np.random.default_rng(s).normal(0, 10) for s in range(100)]
    own = [np.random.default_rng(1000 + s).normal(0, 0.1) for s in range(100)]
    seen: list[tuple[str, int]] = []

    def a(seed):
        seen.append(("A", seed))
        return shared[seed]

    def b(seed):
        seen.append(("B", seed))
        return shared[seed] + 1.0 + own[seed]

    r = compare_paired(a, b, start=5)
    assert r.verdict == LESS and r.significant and r.replications == 3
    assert seen == [("A", 5), ("B", 5), ("A", 6), ("B", 6), ("A", 7), ("B", 7)]  # same seed both sides, in order
    assert list(r.seeds) == [5, 6, 7] and r.high < 0
    assert compare_paired(b, a).verdict == GREATER


def test_no_difference_is_not_significant_at_the_cap():
    """Differences alternating +1, -1: the mean is 0 or 1/n and the half-width about t / sqrt(n) > 1/n,
    so the interval straddles zero after every replication: the cap is reached."""
    r = compare_paired(lambda s: (-1.0) ** s, lambda s: 0.0, max_replications=12)
    assert r.verdict == NOT_SIGNIFICANT and not r.significant and r.replications == 12
    assert r.low < 0 < r.high
    same = compare_paired(lambda s: float(s), lambda s: float(s), max_replications=4)
    assert same.verdict == NOT_SIGNIFICANT and (same.low, same.high) == (0.0, 0.0)
    assert "not significant" in str(r) and "seeds 1..12" in str(r)


def test_bad_arguments_and_measures_are_refused_naming_them():
    with pytest.raises(ParameterError, match="min_replications"):
        compare_paired(float, float, min_replications=1)
    with pytest.raises(ParameterError, match="max_replications"):
        compare_paired(float, float, min_replications=5, max_replications=4)
    with pytest.raises(ParameterError, match="side B .* seed 1"):
        compare_paired(float, lambda s: math.nan)
    with pytest.raises(ParameterError, match="one length"):
        paired_interval([1.0], [1.0, 2.0])

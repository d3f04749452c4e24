"""Seed 004's judging of claims on one recorded log: disjoint windows of the log as replications
(``scheduling.reproduce.seed004``'s module docstring). These are mechanics on hand-made numbers (no
trace); the claims themselves run in ``test_reproduce.py``."""

import numpy as np
import pytest

from scheduling.reproduce.judge import HOLDS, REFUTED, UNDECIDED, Check
from scheduling.reproduce.seed004 import _count, _fewer, _jackknife, _Run, _wwithin


def _checks(*states: str) -> list[Check]:
    return [Check(f"class {i}", s, "") for i, s in enumerate(states)]


def test_the_jackknife_values_centre_on_the_months_ratio_and_spread_with_the_windows():
    """Ratio of sums over 4 windows: the values' mean is the month's ratio (not the mean of the
    per-window ratios), and their spread is the delete-one-window jackknife's: for a ratio of sums
    with equal denominators the pseudo-values are the per-window ratios themselves (linear case)."""
    num, den = np.array([2.0, 4.0, 6.0, 8.0]), np.array([1.0, 1.0, 1.0, 1.0])
    assert _jackknife(num, den) == pytest.approx([2.0, 4.0, 6.0, 8.0])
    num, den = np.array([10.0, 1.0, 1.0]), np.array([1.0, 1.0, 2.0])
    values = _jackknife(num, den)
    assert np.mean(values) == pytest.approx(12.0 / 4.0)  # the month's ratio, 3.0; per-window ratios average 3.83
    assert np.std(values) > 0
    assert _jackknife(np.array([5.0]), np.array([2.0])).tolist() == [2.5]


def test_a_run_sums_responses_per_window_of_a_class():
    run = _Run((), np.array([0, 1, 0, 0]), np.array([0, 0, 2, 2]), np.array([10.0, 99.0, 20.0, 40.0]))
    total, n = run.sums(0)
    assert total.tolist() == [10.0, 60.0] and n.tolist() == [1.0, 2.0]  # window 1 holds no class-0 job: dropped
    assert run.mean_pseudo(0).mean() == pytest.approx(70.0 / 3.0)
    assert run.sums()[1].tolist() == [2.0, 2.0]


def test_a_magnitude_over_one_window_is_not_judged():
    assert _wwithin("factor 3 +- 1", [3.0], 3.0, 1.0).state == UNDECIDED
    assert _wwithin("factor 3 +- 1", [2.9, 3.0, 3.1], 3.0, 1.0).state == HOLDS
    assert _wwithin("factor 3 +- 1", [9.9, 10.0, 10.1], 3.0, 1.0).state == REFUTED


def test_a_count_of_classes_holds_only_on_significant_ones():
    assert _count("8 of 10", _checks(*[HOLDS] * 8, UNDECIDED, REFUTED), 8).state == HOLDS
    assert _count("8 of 10", _checks(*[HOLDS] * 7, UNDECIDED, REFUTED, REFUTED), 8).state == UNDECIDED
    assert _count("8 of 10", _checks(*[HOLDS] * 7, REFUTED, REFUTED, REFUTED), 8).state == REFUTED


def test_fewer_classes_counts_the_undecided_against_the_claim():
    cheap = _checks(HOLDS, HOLDS, HOLDS, REFUTED)
    assert _fewer("fewer", cheap, _checks(HOLDS, REFUTED, REFUTED, REFUTED)).state == HOLDS
    assert _fewer("fewer", cheap, _checks(HOLDS, UNDECIDED, UNDECIDED, REFUTED)).state == UNDECIDED
    assert _fewer("fewer", cheap, _checks(HOLDS, HOLDS, HOLDS, REFUTED)).state == REFUTED

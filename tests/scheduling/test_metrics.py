import math

import numpy as np
import pytest

from scheduling.metrics import confidence_interval, fairness, replicate_until, t_quantile


def test_t_quantiles_against_known_values():
    assert t_quantile(1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(9) == pytest.approx(2.262, abs=1e-3)
    assert t_quantile(40) == pytest.approx(2.021, abs=2e-3)
    assert t_quantile(100) == pytest.approx(1.984, abs=2e-3)
    assert t_quantile(10**6) == pytest.approx(1.960, abs=1e-3)
    with pytest.raises(ValueError):
        t_quantile(0)


def test_confidence_interval_covers_the_mean_about_95_percent():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(2000):
        est = confidence_interval(rng.normal(10.0, 3.0, 5))
        hits += est.low <= 10.0 <= est.high
    assert 0.93 < hits / 2000 < 0.97


def test_replicate_until_stops_at_target():
    rng = np.random.default_rng(1)
    est, runs = replicate_until(lambda rep: {"m": float(rng.normal(100, 10))}, metric="m", relative=0.05)
    assert est["m"].relative_half_width <= 0.05 and len(runs) >= 3
    est1, runs1 = replicate_until(lambda rep: {"m": 5.0 + rep}, metric="m", relative=1e-9, max_runs=4)
    assert len(runs1) == 4 and math.isfinite(est1["m"].half_width)


def test_fairness_groups_by_requested_size():
    t = np.array([(1, 0.0, 1.0, 4), (2, 0.0, 3.0, 4), (3, 1.0, 2.0, 8)],
                 dtype=[("id", int), ("arrival", float), ("end", float), ("requested", int)])
    f = fairness(t)
    assert f["size"].tolist() == [4, 8] and f["mean_turnaround"].tolist() == [2.0, 1.0]
    assert f["jobs"].tolist() == [2, 1]

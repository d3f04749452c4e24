import math

import numpy as np
import pytest

from scheduling.metrics.summary import confidence_interval, fairness, replicate_until, t_quantile


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


# -- intervals that respect the metric ----------------------------------------------------------------
def test_fraction_intervals_stay_in_zero_one_and_positive_ones_above_zero():
    from scheduling.metrics.summary import MIN_INTERVAL_REPLICATIONS

    e = confidence_interval([0.95, 0.99, 1.0], "fraction")
    assert e.high == 1.0 and e.low > 0.9 and not e.symmetric and e.mean + e.half_width > 1.0
    e = confidence_interval([0.02, 0.0, 0.01], "fraction")
    assert e.low == 0.0
    e = confidence_interval([2.0, 3.0, 400.0], "positive")  # a symmetric interval would reach below zero
    assert 0 < e.low < e.mean < e.high and math.log(e.high / e.mean) == pytest.approx(math.log(e.mean / e.low))
    e = confidence_interval([10.0, 11.0, 12.0], "positive")
    assert e.symmetric and e.low == pytest.approx(11.0 - e.half_width)
    lo, hi = e.log_interval()  # bars on a log axis: symmetric in log
    assert lo * hi == pytest.approx(11.0**2) and lo > 0
    assert not confidence_interval([1.0, 2.0]).drawable and confidence_interval([1.0, 2.0, 3.0]).drawable
    assert MIN_INTERVAL_REPLICATIONS == 3
    with pytest.raises(ValueError, match="kind"):
        confidence_interval([1.0, 2.0], "bounded")


# -- saturation -----------------------------------------------------------------------------------------
def _cube(policy, load, seed, jobs=10_000):
    from scheduling import simulate
    from scheduling.workloads import CubeDims, Exponential, Synthetic
    from topoalloc import Buddy
    from topologies import Hypercube

    w = Synthetic(CubeDims(7), Exponential(5.0), load=load, machine_size=256)
    return simulate(Buddy(Hypercube(8)), policy, w, jobs=jobs, warmup=500, seed=seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seed002_cube_rsr0_saturates_at_0_8_and_rsr1_does_not(seed):
    """Seed 002 §4.2 (Fig. 2): on the 8-cube with buddy, RSR-0 saturates near 0.67 utilisation, RSR-1
    carries loads past 0.8."""
    r0, r1 = _cube("RSR-0", 0.8, seed), _cube("RSR-1", 0.8, seed)
    s0, s1 = r0.summary(), r1.summary()
    assert s0["saturated"] is True and s1["saturated"] is False
    assert s0["backlog_growth"] > 0.1 and s0["unfinished"] > 500 and s0["utilization"] < 0.72  # flat below 0.8
    assert abs(s1["backlog_growth"]) < 0.02 and s1["unfinished"] < 200


def test_the_readme_headline_at_0_7_is_saturated_and_a_stable_load_is_not():
    from scheduling import simulate
    from scheduling.workloads import Exponential, MeshSides, Synthetic
    from topoalloc import FrameSliding
    from topologies import Mesh

    def run(load):
        w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024)
        return simulate(FrameSliding(Mesh(32, 32)), "RSR-1", w, jobs=5000, warmup=500, seed=1).summary()

    hot, ok = run(0.7), run(0.3)
    assert hot["saturated"] and hot["utilization"] < 0.45 and hot["backlog_growth"] > 0.3
    assert ok["saturated"] is False and ok["utilization"] == pytest.approx(0.3, abs=0.03)


def test_saturation_needs_enough_jobs_and_reads_a_growing_backlog():
    from scheduling.metrics.summary import saturation

    assert saturation(np.zeros(10, int), 0)["saturated"] is None
    assert saturation(np.zeros(100, int), 0) == {"saturated": False, "backlog_growth": 0.0, "backlog_rise_sd": 0.0,
                                                 "unfinished": 0}
    rng = np.random.default_rng(3)
    steady = rng.poisson(30, 2000)
    assert not saturation(steady, 30)["saturated"]
    slow = steady + np.arange(2000) // 200  # grows, but by 1 job in 200 arrivals: below the 1% threshold
    assert not saturation(slow, 40)["saturated"]
    fast = steady + np.arange(2000) // 20
    s = saturation(fast, 130)
    assert s["saturated"] and s["backlog_growth"] == pytest.approx(0.05, abs=0.005) and s["backlog_rise_sd"] > 4


def test_percentiles_are_numpys_to_the_bit():
    from scheduling.metrics.summary import _percentiles

    rng = np.random.default_rng(7)
    for trial in range(400):
        n = int(rng.integers(1, 40)) if trial % 4 else int(rng.integers(1, 5000))
        x = [rng.exponential(1000.0, n), rng.integers(0, 4, n).astype(float), np.round(rng.normal(0, 1e5, n), 2),
             rng.choice([0.0, -0.0, 1.0, 3.5, 1e300, 5e-324], n)][trial % 4]
        for q in [(50, 90, 99), (90,), (0, 100), (1, 33.3, 66.7, 99.9)]:
            assert np.array(_percentiles(x, q)).tobytes() == np.percentile(x, list(q)).tobytes()
        assert np.float64(_percentiles(x, (90,))[0]).tobytes() == np.percentile(x, 90).tobytes()
    assert math.isnan(_percentiles(np.array([1.0, np.nan, 3.0]), (50,))[0])
    assert _percentiles(np.array([3, 1, 2]), (50,)) == [2.0]  # not float64: numpy's own

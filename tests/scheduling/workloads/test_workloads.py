import numpy as np
import pytest

from scheduling.models.speedup import Amdahl, Linear, misp_serial_fraction
from scheduling.workloads import (
    MISP,
    CubeDims,
    CubeDiscreteNormal,
    Exponential,
    MeshSides,
    Squares,
    Synthetic,
    TruncatedExponential,
    TruncatedExponentialCount,
    TruncatedNormal,
    Uniform,
    UniformCount,
    arrival_rate,
    offered_load,
    streams,
)


def test_load_formulas_are_inverse():
    lam = arrival_rate(0.7, 1024, 272.25, 5.0)
    assert lam == pytest.approx(1024 / (272.25 * 5.0) * 0.7)
    assert offered_load(lam, 1024, 272.25, 5.0) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="load"):
        arrival_rate(0.0, 1024, 1.0, 1.0)


@pytest.mark.parametrize(
    "dist",
    [MeshSides(32, 32), Squares(32), CubeDims(7), CubeDiscreteNormal(), UniformCount(2, 64),
     TruncatedExponentialCount(15, 2, 64)],
)
def test_size_distributions_match_their_means(dist):
    rng = np.random.default_rng(0)
    sizes = [dist.size_of(r) for r in dist.sample(rng, 40_000)]
    assert np.mean(sizes) == pytest.approx(dist.mean_size, rel=0.03)


def test_discretised_normal_probabilities():
    rng = np.random.default_rng(1)
    dims = np.array(CubeDiscreteNormal().sample(rng, 100_000))
    freq = np.bincount(dims, minlength=8) / len(dims)
    expected = [0.025, 0.076, 0.162, 0.237, 0.237, 0.162, 0.076, 0.025]
    assert np.allclose(freq, np.array(expected) / sum(expected), atol=0.006)


@pytest.mark.parametrize(
    "dist", [Exponential(5.0), TruncatedNormal(5.0, 2.0), Uniform(10, 200), TruncatedExponential(5.0, 1.0, 20.0)]
)
def test_service_distributions_match_their_means(dist):
    x = dist.sample(np.random.default_rng(2), 100_000)
    assert x.min() > 0
    assert x.mean() == pytest.approx(dist.mean, rel=0.02)


def test_misp_discards_serial_fractions_above_half():
    sp = MISP().sample(np.random.default_rng(3), [2, 3, 64, 64, 1] * 200)
    assert all(isinstance(s, Amdahl) and s.serial_fraction <= 0.5 for s in sp)
    assert misp_serial_fraction(0.5, 3) == pytest.approx(0.5)
    # Ismail §1.5: t(m) = n [fs (m-1) + 1] / (m [fs (n-1) + 1]) t(n)
    fs, n, m = 0.2, 16, 4
    assert Amdahl(fs).time(10.0, n, m) == pytest.approx(n * (fs * (m - 1) + 1) / (m * (fs * (n - 1) + 1)) * 10.0)
    assert Linear().time(10.0, 16, 4) == 40.0


def test_streams_are_independent_per_purpose():
    a, b = streams(7), streams(7)
    assert a["sizes"].random() == b["sizes"].random()
    assert streams(7)["sizes"].random() != streams(7)["arrivals"].random()


def test_poisson_rate_and_chunk_independence():
    w = Synthetic(CubeDims(7), Exponential(5.0), load=0.5, machine_size=256)
    jobs = w.take(20_000, seed=3)
    gaps = np.diff([j.arrival for j in jobs])
    assert 1 / gaps.mean() == pytest.approx(w.arrival_rate, rel=0.03)
    # the stream does not depend on how it is consumed
    assert jobs[:100] == w.take(100, seed=3)


def test_synthetic_needs_load_or_rate():
    with pytest.raises(ValueError, match="exactly one"):
        Synthetic(CubeDims(7))
    with pytest.raises(ValueError, match="machine_size"):
        Synthetic(CubeDims(7), load=0.5)

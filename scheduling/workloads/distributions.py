"""Distributions of job sizes (requests), service times and speedups.

Each is a frozen value with ``sample(rng, count)`` (vectorised, one ``numpy`` generator) and the
mean the load formulas need. Size distributions produce topology requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..speedup import Amdahl, Linear, Speedup, misp_serial_fraction

__all__ = [
    "MeshSides", "Squares", "CubeDims", "CubeDiscreteNormal", "UniformCount", "TruncatedExponentialCount",
    "CountsOn", "Exponential", "TruncatedNormal", "Uniform", "TruncatedExponential",
    "LinearSpeedup", "MISP", "SEED002_NORMAL_DIMS",
]


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


# -- sizes ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MeshSides:
    """``(w, h)`` with ``w`` and ``h`` independent and uniform on ``[1, max_w]``, ``[1, max_h]``
    (seed 002 §4.1: 1..32 on the 32x32 mesh)."""

    max_w: int = 32
    max_h: int = 32

    def __post_init__(self) -> None:
        _check(self.max_w >= 1 and self.max_h >= 1, f"mesh sides need maxima >= 1, got {self.max_w}, {self.max_h}")

    @property
    def mean_size(self) -> float:
        return (self.max_w + 1) / 2 * (self.max_h + 1) / 2

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        w = rng.integers(1, self.max_w + 1, count)
        h = rng.integers(1, self.max_h + 1, count)
        return list(zip(w.tolist(), h.tolist(), strict=True))

    def size_of(self, request: Any) -> int:
        return request[0] * request[1]


@dataclass(frozen=True, slots=True)
class Squares:
    """``(s, s)`` with side uniform on ``[1, max_side]`` (seed 002 §4.1, for 2D buddy)."""

    max_side: int = 32

    def __post_init__(self) -> None:
        _check(self.max_side >= 1, f"max_side must be >= 1, got {self.max_side}")

    @property
    def mean_size(self) -> float:
        n = self.max_side
        return (n + 1) * (2 * n + 1) / 6

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        s = rng.integers(1, self.max_side + 1, count).tolist()
        return list(zip(s, s, strict=True))

    def size_of(self, request: Any) -> int:
        return request[0] * request[1]


@dataclass(frozen=True, slots=True)
class CubeDims:
    """Subcube dimension with given probabilities ``probs[k]`` (uniform on ``0..max_dim`` when only
    ``max_dim`` is given; seed 002 §4.1 uses 0..7 on the 8-cube)."""

    max_dim: int = 7
    probs: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        _check(self.max_dim >= 0, f"max_dim must be >= 0, got {self.max_dim}")
        if self.probs is not None:
            _check(len(self.probs) == self.max_dim + 1, f"need {self.max_dim + 1} probabilities, got {len(self.probs)}")
            _check(all(p >= 0 for p in self.probs) and sum(self.probs) > 0, f"bad probabilities {self.probs}")

    def _p(self) -> np.ndarray:
        if self.probs is None:
            return np.full(self.max_dim + 1, 1 / (self.max_dim + 1))
        p = np.asarray(self.probs, dtype=float)
        return p / p.sum()

    @property
    def mean_size(self) -> float:
        return float((self._p() * 2.0 ** np.arange(self.max_dim + 1)).sum())

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        return rng.choice(self.max_dim + 1, size=count, p=self._p()).tolist()

    def size_of(self, request: Any) -> int:
        return 1 << request


#: Seed 002 §4.1's discretised normal over dimensions 0..7 (±2.5σ, renormalised).
SEED002_NORMAL_DIMS = (0.025, 0.076, 0.162, 0.237, 0.237, 0.162, 0.076, 0.025)


def CubeDiscreteNormal() -> CubeDims:  # noqa: N802 - a named constructor
    """Seed 002 §4.1's normal size distribution on the 8-cube:
    ``p0 = p7 = 0.025, p1 = p6 = 0.076, p2 = p5 = 0.162, p3 = p4 = 0.237``."""
    return CubeDims(7, SEED002_NORMAL_DIMS)


@dataclass(frozen=True, slots=True)
class UniformCount:
    """Processor count uniform on ``[low, high]`` (seed 000 §2.3.1: ``[2, P]``)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        _check(1 <= self.low <= self.high, f"need 1 <= low <= high, got [{self.low}, {self.high}]")

    @property
    def mean_size(self) -> float:
        return (self.low + self.high) / 2

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        return rng.integers(self.low, self.high + 1, count).tolist()

    def size_of(self, request: Any) -> int:
        return request


@dataclass(frozen=True, slots=True)
class TruncatedExponentialCount:
    """Processor count from a discretised exponential of mean ``mean`` truncated to
    ``[low, high]`` (seed 000 §2.3.1: mean 15, ``2 <= n <= P``). ``P(n) ∝ exp(-n / mean)``."""

    mean: float
    low: int
    high: int

    def __post_init__(self) -> None:
        _check(self.mean > 0, f"mean must be > 0, got {self.mean}")
        _check(1 <= self.low <= self.high, f"need 1 <= low <= high, got [{self.low}, {self.high}]")

    def _p(self) -> tuple[np.ndarray, np.ndarray]:
        n = np.arange(self.low, self.high + 1)
        w = np.exp(-n / self.mean)
        return n, w / w.sum()

    @property
    def mean_size(self) -> float:
        n, p = self._p()
        return float((n * p).sum())

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        n, p = self._p()
        return rng.choice(n, size=count, p=p).tolist()

    def size_of(self, request: Any) -> int:
        return request


@dataclass(frozen=True, slots=True)
class CountsOn:
    """A count distribution turned into requests on a topology with ``topology.request_for``
    (e.g. uniform counts on a mesh become near-square ``(w, h)``)."""

    counts: Any
    topology: Any

    @property
    def mean_size(self) -> float:
        return self.counts.mean_size

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        rf = self.topology.request_for
        return [rf(n) for n in self.counts.sample(rng, count)]

    def size_of(self, request: Any) -> int:
        return self.topology.request_size(request)


# -- service times --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Exponential:
    """Exponential service time with mean ``mean`` (seed 002 §4.1: 5)."""

    mean: float = 5.0

    def __post_init__(self) -> None:
        _check(self.mean > 0, f"mean must be > 0, got {self.mean}")

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        return rng.exponential(self.mean, count)


def _phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _Phi(x: float) -> float:  # noqa: N802
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@dataclass(frozen=True, slots=True)
class TruncatedNormal:
    """Normal service time (mean ``mu``, sd ``sd``) truncated to ``[low, inf)`` by rejection
    (seed 002 §4.1: mean 5, sd 2, truncated at 0). ``mean`` is the truncated distribution's mean."""

    mu: float = 5.0
    sd: float = 2.0
    low: float = 0.0

    def __post_init__(self) -> None:
        _check(self.sd > 0, f"sd must be > 0, got {self.sd}")
        _check(_Phi((self.low - self.mu) / self.sd) < 0.99, "truncation removes almost all the mass")

    @property
    def mean(self) -> float:
        a = (self.low - self.mu) / self.sd
        return self.mu + self.sd * _phi(a) / (1 - _Phi(a))

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        out = rng.normal(self.mu, self.sd, count)
        bad = out <= self.low
        while bad.any():
            out[bad] = rng.normal(self.mu, self.sd, int(bad.sum()))
            bad = out <= self.low
        return out


@dataclass(frozen=True, slots=True)
class Uniform:
    """Uniform service time on ``[low, high]`` (seed 000 §2.3.1: ``[10, 200]``)."""

    low: float
    high: float

    def __post_init__(self) -> None:
        _check(0 <= self.low <= self.high, f"need 0 <= low <= high, got [{self.low}, {self.high}]")

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        return rng.uniform(self.low, self.high, count)


@dataclass(frozen=True, slots=True)
class TruncatedExponential:
    """Exponential of scale ``scale`` truncated to ``[low, high]`` (inverse-CDF sampling);
    ``mean`` is the truncated mean."""

    scale: float
    low: float
    high: float

    def __post_init__(self) -> None:
        _check(self.scale > 0 and 0 <= self.low < self.high, f"bad truncated exponential {self}")

    @property
    def mean(self) -> float:
        a, b, s = self.low, self.high, self.scale
        ea, eb = math.exp(-a / s), math.exp(-b / s)
        return s + (a * ea - b * eb) / (ea - eb)

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        a, b, s = self.low, self.high, self.scale
        u = rng.random(count)
        fa, fb = 1 - math.exp(-a / s), 1 - math.exp(-b / s)
        return -s * np.log1p(-(fa + u * (fb - fa)))


# -- speedups -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LinearSpeedup:
    """Every job has linear speedup."""

    def sample(self, rng: np.random.Generator, sizes: list[int]) -> list[Speedup]:
        s = Linear()
        return [s] * len(sizes)


@dataclass(frozen=True, slots=True)
class MISP:
    """MISP speedup (Ismail §1.5): each job's efficiency ``xi(n)`` on its ``n`` requested processors
    is uniform on ``[low, high]`` (§2.3.1: ``[0.4, 0.9]``); its serial fraction follows, and draws
    whose serial fraction exceeds ``max_serial`` (0.5) are discarded and drawn again."""

    low: float = 0.4
    high: float = 0.9
    max_serial: float = 0.5

    def __post_init__(self) -> None:
        _check(0 < self.low <= self.high <= 1, f"need 0 < low <= high <= 1, got [{self.low}, {self.high}]")

    def sample(self, rng: np.random.Generator, sizes: list[int]) -> list[Speedup]:
        out: list[Speedup] = []
        for n in sizes:
            for _ in range(10_000):
                fs = misp_serial_fraction(rng.uniform(self.low, self.high), n)
                if fs <= self.max_serial:
                    break
            else:  # pragma: no cover - only for absurd parameters
                raise ValueError(f"MISP could not draw a serial fraction <= {self.max_serial} for n={n}")
            out.append(Amdahl(fs))
        return out

"""Distributions of job sizes (requests), service times and speedups.

Each is a frozen value with ``sample(rng, count)`` (vectorised, one ``numpy`` generator) and the
mean the load formulas need. Size distributions produce topology requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from topologies import MAX_CUBE_DIM

from .._validate import ParameterError, check_has, check_int, check_real
from ..models.speedup import Amdahl, Linear, Speedup, misp_serial_fraction

__all__ = [
    "MeshSides", "BoxSides", "Squares", "CubeDims", "CubeDiscreteNormal", "UniformCount", "TruncatedExponentialCount",
    "HeroMix", "CountsOn", "Exponential", "TruncatedNormal", "Uniform", "TruncatedExponential",
    "LinearSpeedup", "MISP", "SEED002_NORMAL_DIMS",
]


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ParameterError(msg)

#: What a size distribution's requests are (the phrases the topologies use for theirs).
MESH_REQUEST, CUBE_REQUEST, COUNT_REQUEST = "a (width, height) pair", "a subcube dimension k", "a processor count"


# -- sizes ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MeshSides:
    """``(w, h)`` with ``w`` and ``h`` independent and uniform on ``[1, max_w]``, ``[1, max_h]``
    (seed 002 §4.1: 1..32 on the 32x32 mesh)."""

    max_w: int = 32
    max_h: int = 32
    #: What the requests are.
    request_kind = MESH_REQUEST

    def __post_init__(self) -> None:
        check_int(self.max_w, "MeshSides max_w", low=1)
        check_int(self.max_h, "MeshSides max_h", low=1)

    @property
    def max_request(self) -> tuple[int, int]:
        """The largest request drawn."""
        return (int(self.max_w), int(self.max_h))

    @property
    def mean_size(self) -> float:
        return (self.max_w + 1) / 2 * (self.max_h + 1) / 2

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        w = rng.integers(1, self.max_w + 1, count)
        h = rng.integers(1, self.max_h + 1, count)
        return list(zip(w.tolist(), h.tolist(), strict=True))

    def size_of(self, request: Any) -> int:
        return request[0] * request[1]


def _shape_request_kind(ndim: int) -> str:
    """The phrase a :class:`~topologies.Mesh` of ``ndim`` dimensions uses for its requests
    (``Mesh.request_kind``), so that a workload of shapes matches its machine."""
    from topologies import Mesh

    return str(Mesh(*([1] * ndim)).request_kind)


@dataclass(frozen=True, slots=True)
class BoxSides:
    """Box shapes for a mesh or torus of any dimension: side ``i`` uniform on ``[1, max_sides[i]]``,
    the sides independent -- seed 002 §4.1's :class:`MeshSides` (sides uniform on 1..32 on the
    32x32 mesh) taken to ``d`` dimensions. Interpretation: the generalisation per axis is ours
    (seed 002 has only the 2D rule); the requests are full shapes of ``len(max_sides)`` sides, x
    first, so ``BoxSides((8, 8, 8))`` is a workload for a 3D machine such as ``Torus(8, 8, 8)``.
    With two sides it draws what ``MeshSides(max_w, max_h)`` draws from the same generator.
    O(count * d) per sample, vectorised per axis.

    >>> b = BoxSides((4, 4, 2)); b.mean_size, b.max_request, b.request_kind
    (9.375, (4, 4, 2), 'a shape of up to 3 sides')
    >>> import numpy as np; b.sample(np.random.default_rng(1), 2)
    [(2, 4, 1), (3, 4, 1)]
    """

    max_sides: tuple[int, ...] = (8, 8, 8)

    def __post_init__(self) -> None:
        sides = self.max_sides
        if isinstance(sides, str | bytes) or not isinstance(sides, tuple | list | np.ndarray) or len(sides) == 0:
            raise ParameterError(f"BoxSides max_sides must be a non-empty sequence of sides (one per dimension), "
                                 f"got {sides!r}")
        checked = tuple(check_int(s, f"BoxSides max_sides[{i}] (of {list(sides)!r})", low=1)
                        for i, s in enumerate(sides))
        object.__setattr__(self, "max_sides", checked)

    @property
    def request_kind(self) -> str:
        """What the requests are: the phrase of a mesh of ``len(max_sides)`` dimensions."""
        return _shape_request_kind(len(self.max_sides))

    @property
    def max_request(self) -> tuple[int, ...]:
        """The largest request drawn."""
        return tuple(int(s) for s in self.max_sides)

    @property
    def mean_size(self) -> float:
        return math.prod((s + 1) / 2 for s in self.max_sides)

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        cols = [rng.integers(1, s + 1, count).tolist() for s in self.max_sides]
        return list(zip(*cols, strict=True))

    def size_of(self, request: Any) -> int:
        return math.prod(request)


@dataclass(frozen=True, slots=True)
class Squares:
    """``(s, s)`` with side uniform on ``[1, max_side]`` (seed 002 §4.1, for 2D buddy)."""

    max_side: int = 32
    #: What the requests are.
    request_kind = MESH_REQUEST

    def __post_init__(self) -> None:
        check_int(self.max_side, "Squares max_side", low=1)

    @property
    def max_request(self) -> tuple[int, int]:
        """The largest request drawn."""
        return (int(self.max_side), int(self.max_side))

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
    #: What the requests are.
    request_kind = CUBE_REQUEST

    def __post_init__(self) -> None:
        check_int(self.max_dim, "CubeDims max_dim", low=0, high=MAX_CUBE_DIM)
        if self.probs is not None:
            if isinstance(self.probs, str) or not isinstance(self.probs, tuple | list | np.ndarray):
                raise ParameterError(f"CubeDims probs must be a sequence of {self.max_dim + 1} probabilities, "
                                     f"got {self.probs!r}")
            _check(len(self.probs) == self.max_dim + 1,
                   f"CubeDims probs: need {self.max_dim + 1} probabilities (dimensions 0..{self.max_dim}), "
                   f"got {len(self.probs)}")
            for k, p in enumerate(self.probs):
                check_real(p, f"CubeDims probs[{k}]", low=0)
            _check(sum(self.probs) > 0, f"CubeDims probs must not all be 0, got {self.probs!r}")

    @property
    def max_request(self) -> int:
        """The largest dimension drawn (with a probability > 0)."""
        if self.probs is None:
            return int(self.max_dim)
        return max(k for k, p in enumerate(self.probs) if p > 0)

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
    #: What the requests are.
    request_kind = COUNT_REQUEST

    def __post_init__(self) -> None:
        check_int(self.low, "UniformCount low", low=1)
        check_int(self.high, "UniformCount high", low=self.low)

    @property
    def max_request(self) -> int:
        """The largest count drawn."""
        return int(self.high)

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
    #: What the requests are.
    request_kind = COUNT_REQUEST

    def __post_init__(self) -> None:
        check_real(self.mean, "TruncatedExponentialCount mean", low=0, low_open=True)
        check_int(self.low, "TruncatedExponentialCount low", low=1)
        check_int(self.high, "TruncatedExponentialCount high", low=self.low)
        _check(math.exp(-self.low / self.mean) > 0,
               f"TruncatedExponentialCount: mean {self.mean} is too small for counts from {self.low} "
               "(every weight exp(-n / mean) is 0)")

    @property
    def max_request(self) -> int:
        """The largest count drawn."""
        return int(self.high)

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


def _log_uniform_pmf(low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``low .. high`` and their probabilities under ``floor(exp(U))``, ``U`` uniform on
    ``[log low, log(high + 1))``: ``P(n) = log((n + 1) / n) / log((high + 1) / low)``."""
    n = np.arange(low, high + 1, dtype=np.int64)
    return n, np.log1p(1.0 / n) / math.log((high + 1) / low)


@dataclass(frozen=True, slots=True)
class HeroMix:
    """Node counts for a switch tree: mostly small jobs, some medium ones, a few *hero* jobs of a
    whole block or more -- the kueue#4634 scenario (a cluster of 2 blocks x 10 racks x 64 hosts
    whose topology-aware admission lets small jobs fragment the blocks a hero job needs).

    With probability ``1 - p_medium - p_hero`` a count log-uniform on ``1 .. small_max`` (one rack
    or less; ``floor(exp(U))``, ``U`` uniform on ``[0, log(small_max + 1))``, so half the small jobs
    have at most ``sqrt(small_max + 1)`` nodes); with probability ``p_medium`` log-uniform on
    ``small_max + 1 .. medium_max``; with probability ``p_hero`` one of ``heroes`` (uniformly). The
    defaults are the mix of :func:`scheduling.workloads.hero_mix` on the 1,280-node tree: 80% of
    jobs on 1..64 nodes, 18% on 65..320 (up to half a block), 2% heroes of 640 (one block) or 1,280
    nodes (the machine); mean 59.8 nodes, median 13, and the heroes carry 32% of the offered node
    time (run times do not depend on the count).
    Interpretation: the issue describes the mix in words (small jobs, a few of a block or more);
    the proportions are ours. :meth:`for_tree` scales the mix to another tree.

    >>> m = HeroMix(); round(m.mean_size, 1), m.max_request
    (59.8, 1280)
    >>> import numpy as np; sorted(set(m.sample(np.random.default_rng(1), 2000)) & {640, 1280})
    [640, 1280]
    """

    small_max: int = 64
    medium_max: int = 320
    heroes: tuple[int, ...] = (640, 1280)
    p_medium: float = 0.18
    p_hero: float = 0.02
    #: What the requests are (node counts; a switch tree takes them as plain requests).
    request_kind = COUNT_REQUEST

    def __post_init__(self) -> None:
        check_int(self.small_max, "HeroMix small_max", low=1)
        check_int(self.medium_max, "HeroMix medium_max", low=self.small_max)
        if isinstance(self.heroes, str) or not isinstance(self.heroes, tuple | list) or not self.heroes:
            raise ParameterError(f"HeroMix heroes must be a non-empty list of node counts, got {self.heroes!r}")
        for h in self.heroes:
            check_int(h, "HeroMix heroes (a node count)", low=1)
        if isinstance(self.heroes, list):
            object.__setattr__(self, "heroes", tuple(self.heroes))
        check_real(self.p_medium, "HeroMix p_medium (a probability)", low=0, high=1)
        check_real(self.p_hero, "HeroMix p_hero (a probability)", low=0, high=1)
        _check(self.p_medium + self.p_hero <= 1.0,
               f"HeroMix: p_medium + p_hero must be at most 1, got {self.p_medium} + {self.p_hero}")
        _check(self.medium_max > self.small_max or self.p_medium == 0,
               f"HeroMix: medium jobs need medium_max > small_max ({self.small_max}), got {self.medium_max}")

    @classmethod
    def for_tree(cls, tree: Any, p_medium: float = 0.18, p_hero: float = 0.02) -> HeroMix:
        """The mix scaled to ``tree`` (a :class:`~topologies.SwitchTree`): small jobs up to its
        largest leaf switch, medium ones up to half its largest domain one level below the root,
        heroes of that domain and of the whole tree (one hero size when the two coincide). On
        ``SwitchTree.uniform((2, 10, 64))`` this is the default mix.

        >>> from topologies import SwitchTree
        >>> HeroMix.for_tree(SwitchTree.fat_tree(4, 3))
        HeroMix(small_max=4, medium_max=8, heroes=(16, 64), p_medium=0.18, p_hero=0.02)
        """
        leaves = tree.leaf_switch_ids
        leaf = int((tree.stop[leaves] - tree.first[leaves]).max())
        first, stop = tree.domains(1) if len(tree.levels) > 2 else tree.domains(0)
        block = int((stop - first).max())
        medium = max(leaf, block // 2)
        heroes = tuple(sorted({block, int(tree.size)}))
        return cls(leaf, medium, heroes, p_medium if medium > leaf else 0.0, p_hero)

    @property
    def max_request(self) -> int:
        """The largest count drawn (with a probability > 0)."""
        top = self.small_max
        if self.p_medium > 0:
            top = self.medium_max
        if self.p_hero > 0:
            top = max(top, *self.heroes)
        return int(top)

    def pmf(self) -> tuple[np.ndarray, np.ndarray]:
        """Every count drawn with a probability > 0, ascending, and its probability."""
        parts: dict[int, float] = {}
        p_small = 1.0 - self.p_medium - self.p_hero
        pieces = [(p_small, *_log_uniform_pmf(1, self.small_max))]
        if self.p_medium > 0:
            pieces.append((self.p_medium, *_log_uniform_pmf(self.small_max + 1, self.medium_max)))
        if self.p_hero > 0:
            h = np.array(self.heroes, dtype=np.int64)
            pieces.append((self.p_hero, h, np.full(len(h), 1.0 / len(h))))
        for weight, n, p in pieces:
            if weight <= 0:
                continue
            for k, q in zip(n.tolist(), p.tolist(), strict=True):
                parts[k] = parts.get(k, 0.0) + weight * q
        counts = np.array(sorted(parts), dtype=np.int64)
        return counts, np.array([parts[k] for k in counts.tolist()])

    @property
    def mean_size(self) -> float:
        n, p = self.pmf()
        return float((n * p).sum())

    def sample(self, rng: np.random.Generator, count: int) -> list[Any]:
        kind = rng.random(count)
        small = np.floor(np.exp(rng.uniform(0.0, math.log(self.small_max + 1), count)))
        lo = self.small_max + 1
        medium = np.floor(np.exp(rng.uniform(math.log(lo), math.log(self.medium_max + 1), count))) \
            if self.medium_max >= lo else small
        hero = np.asarray(self.heroes, dtype=np.int64)[rng.integers(0, len(self.heroes), count)]
        p_small = 1.0 - self.p_medium - self.p_hero
        out = np.where(kind < p_small, np.minimum(small, self.small_max),
                       np.where(kind < p_small + self.p_medium, np.minimum(medium, self.medium_max), hero))
        return out.astype(np.int64).tolist()

    def size_of(self, request: Any) -> int:
        return request


@dataclass(frozen=True, slots=True)
class CountsOn:
    """A count distribution turned into requests on a topology with ``topology.request_for``
    (e.g. uniform counts on a mesh become near-square ``(w, h)``)."""

    counts: Any
    topology: Any

    def __post_init__(self) -> None:
        check_has(self.counts, "CountsOn counts", "a processor-count distribution", "sample", "mean_size")
        check_has(self.topology, "CountsOn topology", "a topology", "request_for", "request_size")

    @property
    def request_kind(self) -> str | None:
        """What the requests are: the topology's kind of request."""
        return getattr(self.topology, "request_kind", None)

    @property
    def max_request(self) -> Any:
        """The request of the largest count drawn (``None`` if the counts do not say)."""
        top = getattr(self.counts, "max_request", None)
        return None if top is None else self.topology.request_for(top)

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
        check_real(self.mean, "Exponential mean", low=0, low_open=True)

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
        check_real(self.mu, "TruncatedNormal mu")
        check_real(self.sd, "TruncatedNormal sd", low=0, low_open=True)
        check_real(self.low, "TruncatedNormal low (service times are >= 0)", low=0)
        _check(_Phi((self.low - self.mu) / self.sd) < 0.99,
               f"TruncatedNormal: truncation at low={self.low} removes almost all the mass of N({self.mu}, {self.sd})")

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
        check_real(self.low, "Uniform low", low=0)
        check_real(self.high, "Uniform high", low=self.low)

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
        check_real(self.scale, "TruncatedExponential scale", low=0, low_open=True)
        check_real(self.low, "TruncatedExponential low", low=0)
        check_real(self.high, "TruncatedExponential high", low=self.low, low_open=True)
        _check(math.exp(-self.low / self.scale) - math.exp(-self.high / self.scale) > 0,
               f"TruncatedExponential: [{self.low}, {self.high}] holds no mass at scale {self.scale}")

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
        check_real(self.low, "MISP low (an efficiency)", low=0, high=1, low_open=True)
        check_real(self.high, "MISP high (an efficiency)", low=self.low, high=1)
        check_real(self.max_serial, "MISP max_serial (a serial fraction)", low=0, high=1, low_open=True)

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

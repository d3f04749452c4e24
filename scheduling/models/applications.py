"""Ismail's thirty applications (seed 000 §4.2, Tables 4.1 and 4.2) and workloads made of them.

Table 4.1 gives ten applications (derived by Ismail from [Naik 93a] and the NAS benchmarks) by
their sequential time ``t(1)`` and their efficiency ``xi(p)`` on ``p = 2, 4, 8, 16`` processors;
each uses at most ``n = 16`` processors. Twenty more are derived "by doubling and quadrupling the
problem sizes and number of processors, and assuming the applications scale up" (Table 4.2's
sample): application ``k + 10`` has ``t(1) = 2 t_k(1)`` and ``xi(2p) = xi_k(p)`` on
``p = 2 .. 16`` (so it is defined on 4, 8, 16, 32 and uses at most 32 processors), application
``k + 20`` has ``t(1) = 4 t_k(1)`` and ``xi(4p) = xi_k(p)`` (8 .. 64, at most 64). Efficiencies
between the tabulated sizes are linearly interpolated in ``p`` from ``xi(1) = 1`` ("where the
performance data is not provided for a value of p, linear interpolation of the efficiency curve is
used").

Interpretations:

* Table 4.2 prints ``t(1) = 315`` and ``630`` for applications 11 and 21 where ``2 x 158 = 316``
  and ``4 x 158 = 632``: Ismail's ``t_1(1)`` was presumably 157.5 printed rounded. We double and
  quadruple the printed Table 4.1 values.
* A job of application ``k`` requests its maximum ``n`` and runs ``t(n) = t(1) / (n xi(n))`` on
  it; then the mean ``t(n)`` over the thirty applications is 407.4, matching §4.4.1's
  ``T_e = 407.5``. The mean request of the thirty is ``(16 + 32 + 64) / 3 = 37.3``, not the
  ``N = 32`` §4.4.1 states; we compute loads with the true mean (37.3), so our ``L`` is the load
  actually offered (Ismail's stated N would make our load 14% lower than his label).
* Applications 9, 10, 19, 20, 29 and 30 are the "long" ones of §4.5 (DPROP-SH).

>>> a = application(11)
>>> a.max_processors, a.t1, round(a.efficiency(4), 3), round(a.efficiency(2), 3)
(32, 316.0, 0.967, 0.989)
>>> round(mean_runtime(), 1)
407.4
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._validate import ParameterError, check_int, check_real, is_int
from ..kernel.jobs import Job, JobStream
from ..workloads.synthetic import arrival_rate, streams
from .speedup import Tabulated

__all__ = [
    "TABLE_4_1",
    "LONG_APPLICATIONS",
    "Application",
    "application",
    "applications",
    "mean_runtime",
    "mean_request",
    "ApplicationMix",
    "batch_mix",
]

#: Seed 000 Table 4.1: application -> (t(1), xi(2), xi(4), xi(8), xi(16)).
TABLE_4_1: dict[int, tuple[float, float, float, float, float]] = {
    1: (158, 0.967, 0.897, 0.789, 0.559),
    2: (185, 0.977, 0.928, 0.913, 0.884),
    3: (357, 0.977, 0.928, 0.882, 0.786),
    4: (1916, 0.984, 0.943, 0.877, 0.768),
    5: (1553, 0.982, 0.948, 0.903, 0.844),
    6: (657, 0.949, 0.842, 0.720, 0.604),
    7: (2532, 0.952, 0.892, 0.787, 0.665),
    8: (6141, 0.986, 0.966, 0.929, 0.882),
    9: (9740, 0.960, 0.915, 0.853, 0.753),
    10: (28794, 0.979, 0.935, 0.880, 0.820),
}

#: The applications §4.5 classifies as long for DPROP-SH.
LONG_APPLICATIONS = frozenset({9, 10, 19, 20, 29, 30})


@dataclass(frozen=True)
class Application:
    """One application: its number, sequential time ``t1`` and efficiency ``points``
    (``(p, xi(p))`` pairs, ascending, starting at ``(1, 1.0)``; the last ``p`` is the maximum
    number of processors it can use)."""

    number: int
    t1: float
    points: tuple[tuple[int, float], ...]

    def __post_init__(self) -> None:
        ps = [p for p, _ in self.points]
        if not ps or ps[0] != 1 or ps != sorted(set(ps)):
            raise ValueError(f"application {self.number}: points must start at p=1 and ascend, got {ps}")
        if any(not 0 < e <= 1 for _, e in self.points):
            raise ValueError(f"application {self.number}: efficiencies must be in (0, 1], got {self.points}")

    @property
    def max_processors(self) -> int:
        """``n``: the most processors the application can use (its request)."""
        return self.points[-1][0]

    @property
    def long(self) -> bool:
        """Whether §4.5 classifies it as long."""
        return self.number in LONG_APPLICATIONS

    def efficiency(self, p: float) -> float:
        """``xi(p)``, linearly interpolated between the tabulated sizes, held beyond ``n``."""
        ps, es = zip(*self.points, strict=True)
        return float(np.interp(p, ps, es))

    @cached_property
    def speedup(self) -> Tabulated:
        """The efficiency curve ``xi(1) .. xi(n)`` as a :class:`~scheduling.models.speedup.Tabulated`
        speedup (beyond ``n`` the policies never allocate)."""
        return Tabulated(tuple(self.efficiency(p) for p in range(1, self.max_processors + 1)))

    @property
    def runtime(self) -> float:
        """``t(n) = t(1) / (n xi(n))``: the run time on its request."""
        n = self.max_processors
        return self.t1 / (n * self.efficiency(n))


def _build() -> dict[int, Application]:
    apps: dict[int, Application] = {}
    for k, (t1, *effs) in TABLE_4_1.items():
        for family, scale in enumerate((1, 2, 4)):
            pts = [(1, 1.0)] + [(p * scale, e) for p, e in zip((2, 4, 8, 16), effs, strict=True)]
            apps[k + 10 * family] = Application(k + 10 * family, float(t1 * scale), tuple(pts))
    return dict(sorted(apps.items()))


_APPS = _build()


def application(number: int) -> Application:
    """Application ``number`` (1..30) of seed 000 §4.2."""
    if not is_int(number) or int(number) not in _APPS:
        raise ParameterError(f"Ismail's applications are numbered 1..30, got {number!r}")
    return _APPS[int(number)]


def applications() -> list[Application]:
    """All thirty, in order."""
    return list(_APPS.values())


def mean_runtime(numbers: Sequence[int] | None = None) -> float:
    """Mean ``t(n)`` of the given applications (all thirty by default): §4.4.1's ``T_e``."""
    apps = [application(k) for k in numbers] if numbers is not None else applications()
    return float(np.mean([a.runtime for a in apps]))


def mean_request(numbers: Sequence[int] | None = None) -> float:
    """Mean request ``n`` of the given applications (all thirty by default)."""
    apps = [application(k) for k in numbers] if numbers is not None else applications()
    return float(np.mean([a.max_processors for a in apps]))


def _job(jid: int, at: float, app: Application, **attrs: Any) -> Job:
    n = app.max_processors
    return Job(jid, at, n, app.runtime, app.speedup, None, n, {"app": app.number, "long": app.long, **attrs})


@dataclass(frozen=True)
class ApplicationMix(JobStream):
    """Poisson arrivals of jobs drawn uniformly (or with ``weights``) from ``numbers`` (all thirty
    by default): seed 000 §4.4.1's third workload class. Give ``load`` (Ismail's
    ``L = lambda N T_e / P`` with ``machine_size = P``) or ``rate``.

    Each job requests its application's ``n``, runs ``t(n)`` on it, has the application's
    tabulated speedup, and carries ``attrs = {"app": number, "long": bool}``. Arrivals and the
    application choices come from their own streams (:func:`~scheduling.workloads.streams`).

    >>> w = ApplicationMix(load=0.5, machine_size=64)
    >>> jobs = w.take(3, seed=1); [j.attrs["app"] for j in jobs] == [j.attrs["app"] for j in w.take(3, seed=1)]
    True
    """

    numbers: tuple[int, ...] = tuple(range(1, 31))
    load: float | None = None
    machine_size: int | None = None
    rate: float | None = None
    weights: tuple[float, ...] | None = None
    chunk: int = 4096
    _apps: tuple[Application, ...] = field(init=False, repr=False, compare=False)
    #: The stream never ends by itself.
    endless = True
    #: What the requests are: each application's processor count.
    request_kind = "a processor count"

    def __post_init__(self) -> None:
        if isinstance(self.numbers, str) or not isinstance(self.numbers, tuple | list):
            raise ParameterError(f"ApplicationMix numbers must be a sequence of application numbers 1..30, "
                                 f"got {self.numbers!r}")
        object.__setattr__(self, "_apps", tuple(application(k) for k in self.numbers))
        if not self._apps:
            raise ParameterError("ApplicationMix needs at least one application")
        if (self.load is None) == (self.rate is None):
            raise ParameterError("give exactly one of load= (with machine_size=) and rate=")
        if self.load is not None:
            check_real(self.load, "load", low=0, low_open=True)
            if self.machine_size is None:
                raise ParameterError("load= needs machine_size= (the processors the load refers to)")
        if self.machine_size is not None:
            check_int(self.machine_size, "machine_size", low=1)
        if self.rate is not None:
            check_real(self.rate, "rate", low=0, low_open=True)
        check_int(self.chunk, "chunk", low=1)
        if self.weights is not None:
            if isinstance(self.weights, str) or not isinstance(self.weights, tuple | list) or \
                    len(self.weights) != len(self.numbers):
                raise ParameterError(f"ApplicationMix weights must be {len(self.numbers)} numbers (one per "
                                     f"application), got {self.weights!r}")
            for i, x in enumerate(self.weights):
                check_real(x, f"ApplicationMix weights[{i}]", low=0)
            if not sum(self.weights) > 0:
                raise ParameterError(f"ApplicationMix weights must not all be 0, got {self.weights!r}")
        too_big = [a.number for a in self._apps if self.machine_size and a.max_processors > self.machine_size]
        if too_big:
            raise ValueError(f"applications {too_big} need more than {self.machine_size} processors")

    def _p(self) -> np.ndarray:
        if self.weights is None:
            return np.full(len(self._apps), 1 / len(self._apps))
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    @property
    def mean_size(self) -> float:
        return float(self._p() @ [a.max_processors for a in self._apps])

    @property
    def max_request(self) -> int:
        """The largest request of the chosen applications."""
        return max(a.max_processors for a in self._apps)

    @property
    def mean_service(self) -> float:
        return float(self._p() @ [a.runtime for a in self._apps])

    @property
    def arrival_rate(self) -> float:
        if self.rate is not None:
            return self.rate
        # __post_init__ requires load= (with machine_size=) when rate= is not given
        assert self.load is not None and self.machine_size is not None
        return arrival_rate(self.load, self.machine_size, self.mean_size, self.mean_service)

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        """The endless job stream for ``seed``."""
        rng = streams(seed)
        rate, p, apps = self.arrival_rate, self._p(), self._apps
        t, jid = 0.0, 0
        while True:
            times = t + np.cumsum(rng["arrivals"].exponential(1.0 / rate, self.chunk))
            picks = rng["sizes"].choice(len(apps), size=self.chunk, p=p).tolist()
            for at, k in zip(times.tolist(), picks, strict=True):
                yield _job(jid, at, apps[k])
                jid += 1
            t = float(times[-1])


def batch_mix(numbers: Sequence[int], repeats: int) -> list[Job]:
    """A closed batch (Nguyen, Vaswani & Zahorjan, seed 003 §5.3): one *slot* per entry of
    ``numbers`` (the multiprogramming level is ``len(numbers)``), each holding ``repeats`` jobs of
    that application, all arriving at time 0. The dynamic policies of
    :mod:`scheduling.policies.ismail_dynamic` and :mod:`scheduling.policies.efficiency` keep at
    most one job per slot in the system (``attrs["slot"]``), so when a job finishes the next of
    its slot starts at once: a fixed job mix, as the paper's batch experiments run. Stop the
    simulation before the first slot runs dry (``jobs <= repeats``) to measure the steady mix.

    >>> jobs = batch_mix([1, 1, 6], repeats=2)
    >>> [(j.attrs["slot"], j.attrs["app"]) for j in jobs]
    [(0, 1), (1, 1), (2, 6), (0, 1), (1, 1), (2, 6)]
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    apps = [application(k) for k in numbers]
    if not apps:
        raise ValueError("batch_mix needs at least one application")
    out: list[Job] = []
    for r in range(repeats):
        for slot, app in enumerate(apps):
            out.append(_job(r * len(apps) + slot, 0.0, app, slot=slot))
    return out

"""Downey's parallel workload model (seed 001, §3–4).

A. B. Downey, *A parallel workload model and its implications for processor allocation*,
UCB/CSD-96-922:

* sequential lifetime ``L`` uniform-log on ``[e^2, e^12]`` seconds (§3.1; mean 271 min);
* average parallelism ``A`` uniform-log on ``[1, N]`` (§3.2);
* ``sigma`` uniform on ``[0, 2]`` (§3.3); the job's speedup is
  :class:`scheduling.models.downey_speedup.Downey` ``(A, sigma)`` (§2, Eqs. 1–2);
* Poisson arrivals during a 12-hour "day-time" phase, none during the 12-hour "night-time" phase
  (§4); the day-time rate ``lambda`` gives the offered load ``rho = lambda E[L] / N``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .._validate import ParameterError, check_int, check_real
from ..kernel.jobs import Job, JobStream
from ..models.downey_speedup import Downey as DowneySpeedup
from .synthetic import streams

__all__ = ["Downey", "user_request", "HOUR"]

#: Seconds per hour (the model's time unit is the second).
HOUR = 3600.0


def user_request(A: float, N: int) -> int:
    """The cluster size a user would ask for: ``floor(A)`` clipped to ``[1, N]``.

    §3.2 hypothesises that users' chosen cluster sizes reflect ``A``; flooring (rather than
    rounding) reproduces the paper's "fraction of sequential jobs in our simulations is ~17%"
    (``P(A < 2) = ln 2 / ln 64 = 1/6``).

    >>> user_request(1.99, 64), user_request(7.5, 64), user_request(64.0, 64)
    (1, 7, 64)
    """
    return max(1, min(N, int(A)))


@dataclass(frozen=True)
class Downey(JobStream):
    """Downey's workload on an ``N``-processor machine at offered load ``load`` (seed 001 §3–4).

    ``jobs(seed)`` yields the jobs of ``days`` consecutive simulated days (``None``: endless).
    Day ``k`` is ``[k (day + night), k (day + night) + day)`` for arrivals, then ``night`` seconds
    without any. Arrivals are a Poisson process of rate :attr:`arrival_rate` on the day-time clock.
    The paper simulates each day separately (every data point is "the average of 120 simulated
    days", Fig. 11 "1200 day-long simulated runs"): use ``days=1`` and one seed per day, as
    :func:`scheduling.metrics.downey.simulate_days` does.

    **The request of a malleable job.** Downey's jobs are malleable: the allocation strategy
    chooses the cluster size when the job starts. A :class:`~scheduling.kernel.jobs.Job` still needs a
    reference size, so each job's ``request`` (and ``size``) is the size a user would ask for,
    :func:`user_request` ``(A, N) = floor(A)`` in ``[1, N]``, and ``runtime`` is its run time on
    that request, ``L / S(request)``. A rigid policy (``FCFS``) therefore runs the workload as
    stubborn AVG would; Downey's strategies ignore the request and allocate their own sizes. The
    job's ``attrs`` hold ``A``, ``sigma``, ``L`` (the sequential lifetime) and ``load`` (the
    offered load, which SEV assumes is known a priori, §6.3).

    Each quantity has its own random stream (:func:`scheduling.workloads.streams`): arrivals,
    ``A`` ("sizes"), ``L`` ("runtimes"), ``sigma`` ("speedups"), so the jobs depend only on the
    seed (common random numbers across strategies). Generation is O(1) per job, vectorised in
    chunks.

    >>> w = Downey(N=64, load=0.75)
    >>> round(w.mean_lifetime / 60, 1), round(w.arrival_rate * w.day, 1)
    (271.2, 127.4)
    >>> jobs = list(w.jobs(seed=3)); all(j.arrival < w.day for j in jobs), jobs == list(w.jobs(seed=3))
    (True, True)
    """

    N: int = 64
    load: float = 0.75
    days: int | None = 1
    day: float = 12 * HOUR
    night: float = 12 * HOUR
    log_lifetime: tuple[float, float] = (2.0, 12.0)
    sigma_max: float = 2.0
    chunk: int = 256
    #: What the requests are: processor counts (the size a user would ask for).
    request_kind = "a processor count"

    def __post_init__(self) -> None:
        check_int(self.N, "Downey workload: N", low=1)
        check_real(self.load, "Downey workload: load", low=0, low_open=True)
        if self.days is not None:
            check_int(self.days, "Downey workload: days (None: endless)", low=1)
        check_real(self.day, "Downey workload: day", low=0, low_open=True)
        check_real(self.night, "Downey workload: night", low=0)
        ok = isinstance(self.log_lifetime, tuple | list) and len(self.log_lifetime) == 2
        if ok:
            lo = check_real(self.log_lifetime[0], "Downey workload: log_lifetime low")
            hi = check_real(self.log_lifetime[1], "Downey workload: log_lifetime high")
            ok = lo < hi <= 709.0  # e^709 is the largest power of e a float holds
        if not ok:
            raise ParameterError(f"Downey workload: log_lifetime must be (low, high) with low < high <= 709, "
                                 f"got {self.log_lifetime!r}")
        check_real(self.sigma_max, "Downey workload: sigma_max", low=0)
        check_int(self.chunk, "Downey workload: chunk", low=1)

    @property
    def endless(self) -> bool:
        """Whether the stream never ends by itself (``days=None``)."""
        return self.days is None

    @property
    def max_request(self) -> int:
        """The largest request, ``N``."""
        return self.N

    @property
    def machine_size(self) -> int:
        return self.N

    @property
    def mean_lifetime(self) -> float:
        """``E[L] = (e^b - e^a) / (b - a)`` for ``L`` uniform-log on ``[e^a, e^b]`` (271 min for
        the paper's ``[e^2, e^12]``)."""
        a, b = self.log_lifetime
        return (math.exp(b) - math.exp(a)) / (b - a)

    @property
    def arrival_rate(self) -> float:
        """Day-time arrival rate ``lambda = rho N / E[L]`` (jobs per second, §4)."""
        return self.load * self.N / self.mean_lifetime

    @property
    def period(self) -> float:
        """Length of one simulated day, ``day + night``."""
        return self.day + self.night

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        """The job stream for ``seed`` (finite when ``days`` is set)."""
        rng = streams(seed)
        rate = self.arrival_rate
        N, day, period, days = self.N, self.day, self.period, self.days
        a, b = self.log_lifetime
        log_n = math.log(N)
        clock = 0.0  # day-time clock: the Poisson process runs only while it is day
        jid = 0
        n = self.chunk
        while True:
            clocks = clock + np.cumsum(rng["arrivals"].exponential(1.0 / rate, n))
            As = np.exp(rng["sizes"].uniform(0.0, log_n, n)).tolist()
            Ls = np.exp(rng["runtimes"].uniform(a, b, n)).tolist()
            sigmas = rng["speedups"].uniform(0.0, self.sigma_max, n).tolist()
            for i, c in enumerate(clocks.tolist()):
                k = math.floor(c / day)
                if days is not None and k >= days:
                    return
                A = max(1.0, min(float(N), As[i]))
                sp = DowneySpeedup(A, sigmas[i])
                req = user_request(A, N)
                L = Ls[i]
                yield Job(jid, k * period + (c - k * day), req, L / sp.speedup(req), sp, None, req,
                          {"A": A, "sigma": sigmas[i], "L": L, "load": self.load})
                jid += 1
            clock = float(clocks[-1])


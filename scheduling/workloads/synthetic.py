"""Synthetic workloads: Poisson arrivals at a given load, sizes, service times, speedups."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import ParameterError, check_has, check_int, check_real, check_seed
from ..kernel.jobs import Job, JobStream
from .distributions import Exponential, LinearSpeedup

__all__ = ["Synthetic", "arrival_rate", "offered_load", "streams", "STREAMS"]

#: The purposes that get their own random stream, in spawn order (never reorder: it would change
#: every workload generated so far; a purpose added at the end leaves the others' streams as they
#: were, since the ``i``-th spawned child depends only on ``i``). ``constraints``: the draws of a
#: probabilistic constraint rule (:mod:`scheduling.workloads.constraints`).
STREAMS = ("arrivals", "sizes", "runtimes", "speedups", "estimates", "extra", "comm", "constraints")


def streams(seed: int) -> dict[str, np.random.Generator]:
    """One independent ``numpy`` generator per purpose, spawned from ``SeedSequence(seed)``."""
    check_seed(seed)
    children = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)}


def arrival_rate(load: float, machine_size: int, mean_size: float, mean_service: float) -> float:
    """Arrival rate for an offered ``load``.

    Seed 002 §4.1 (Chang & Mohapatra): ``λ = system size / (mean job size × mean service time) ×
    load``. Seed 000 §1.5 (Ismail) defines the load parameter ``L = λ N T_e / P`` with ``N`` the mean
    processor request and ``T_e`` the mean execution time: the same relation solved for the load,
    so both papers' loads are this function's ``load`` (and :func:`offered_load` is Ismail's ``L``).

    >>> arrival_rate(0.5, 256, 32.0, 5.0)
    0.8
    """
    check_real(load, "load", low=0, low_open=True)
    check_int(machine_size, "machine_size", low=1)
    check_real(mean_size, "mean_size", low=0, low_open=True)
    check_real(mean_service, "mean_service", low=0, low_open=True)
    return machine_size / (mean_size * mean_service) * load


def offered_load(rate: float, machine_size: int, mean_size: float, mean_service: float) -> float:
    """Ismail's ``L = λ N T_e / P`` (seed 000 §1.5)."""
    check_real(rate, "rate", low=0)
    check_int(machine_size, "machine_size", low=1)
    check_real(mean_size, "mean_size", low=0)
    check_real(mean_service, "mean_service", low=0)
    return rate * mean_size * mean_service / machine_size


@dataclass(frozen=True)
class Synthetic(JobStream):
    """An endless stream of jobs with Poisson arrivals (:attr:`endless`: a simulation of it needs
    ``jobs=`` or ``until=``).

    ``sizes`` makes requests (e.g. :class:`~scheduling.workloads.MeshSides`), ``service`` run times
    on the request (e.g. ``Exponential(5)``), ``speedup`` each job's speedup model. Give either
    ``load`` (with ``machine_size``: the rate comes from :func:`arrival_rate`) or ``rate``.
    ``comm`` gives each job its communication fraction (:attr:`Job.comm`, used by the
    placement-dependent run-time models of :mod:`scheduling.models.runtime`): a number in ``[0, 1]`` for
    every job, or a distribution with ``sample(rng, n)`` (e.g. ``Uniform(0.0, 1.0)``) drawn from
    its own stream, so adding it changes nothing else of the jobs.

    Every purpose draws from its own stream (:func:`streams`), in fixed-size chunks, so the jobs
    depend only on the seed — never on the policy or allocator that consumes them (common random
    numbers).

    >>> from scheduling.workloads import CubeDims
    >>> w = Synthetic(CubeDims(7), Exponential(5.0), load=0.5, machine_size=256)
    >>> jobs = w.take(3, seed=1); [j.id for j in jobs], jobs == w.take(3, seed=1)
    ([0, 1, 2], True)
    """

    sizes: Any
    service: Any = field(default_factory=Exponential)
    load: float | None = None
    machine_size: int | None = None
    rate: float | None = None
    speedup: Any = field(default_factory=LinearSpeedup)
    chunk: int = 4096
    comm: Any = 0.0
    #: The stream never ends by itself.
    endless = True

    def __post_init__(self) -> None:
        if (self.load is None) == (self.rate is None):
            raise ParameterError("give exactly one of load= (with machine_size=) and rate=")
        if self.load is not None and self.machine_size is None:
            raise ParameterError("load= needs machine_size= (the processors the load refers to)")
        check_has(self.sizes, "sizes", "a size distribution such as MeshSides(32, 32)", "sample", "size_of",
                  "mean_size")
        check_has(self.service, "service", "a service-time distribution such as Exponential(5.0)", "sample", "mean")
        check_has(self.speedup, "speedup", "a speedup distribution such as LinearSpeedup()", "sample")
        if self.rate is not None:
            check_real(self.rate, "rate", low=0, low_open=True)
        if self.load is not None:
            check_real(self.load, "load", low=0, low_open=True)
            check_int(self.machine_size, "machine_size", low=1)
        elif self.machine_size is not None:
            check_int(self.machine_size, "machine_size", low=1)
        check_int(self.chunk, "chunk", low=1)
        if not hasattr(self.comm, "sample"):
            c = self.comm
            if isinstance(c, bool) or not isinstance(c, int | float) or not 0.0 <= c <= 1.0:
                raise ParameterError(f"comm must be a fraction in [0, 1] or a distribution, got {c!r}")

    @property
    def request_kind(self) -> str | None:
        """What the requests are (the size distribution's ``request_kind``), if it says."""
        return getattr(self.sizes, "request_kind", None)

    @property
    def max_request(self) -> Any:
        """The largest request the size distribution draws, if it says."""
        return getattr(self.sizes, "max_request", None)

    @property
    def arrival_rate(self) -> float:
        if self.rate is not None:
            return self.rate
        assert self.load is not None and self.machine_size is not None  # __post_init__ checked them
        return arrival_rate(self.load, self.machine_size, self.sizes.mean_size, self.service.mean)

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        """The job stream for ``seed``."""
        rng = streams(seed)
        rate = self.arrival_rate
        t = 0.0
        jid = 0
        size_of = self.sizes.size_of
        comm_dist = self.comm if hasattr(self.comm, "sample") else None
        comm = 0.0 if comm_dist is not None else float(self.comm)
        while True:
            n = self.chunk
            gaps = rng["arrivals"].exponential(1.0 / rate, n)
            times = t + np.cumsum(gaps)
            reqs = self.sizes.sample(rng["sizes"], n)
            runs = self.service.sample(rng["runtimes"], n).tolist()
            procs = [size_of(r) for r in reqs]
            speedups = self.speedup.sample(rng["speedups"], procs)
            if comm_dist is None:
                for i, at in enumerate(times.tolist()):
                    yield Job(jid, at, reqs[i], runs[i], speedups[i], None, procs[i], comm=comm)
                    jid += 1
            else:
                fractions = np.asarray(comm_dist.sample(rng["comm"], n), dtype=float)
                bad = ~((fractions >= 0.0) & (fractions <= 1.0))
                if bad.any():
                    raise ValueError(f"comm distribution {comm_dist!r} gave {fractions[bad][0]!r}, outside [0, 1]")
                for i, at in enumerate(times.tolist()):
                    yield Job(jid, at, reqs[i], runs[i], speedups[i], None, procs[i], comm=fractions[i].item())
                    jid += 1
            t = float(times[-1])


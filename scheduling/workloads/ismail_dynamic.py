"""The workloads of Ismail's dynamic space sharing experiments (seed 000 §4.2, §4.4.1).

A 64-processor machine; Poisson arrivals at Ismail's load ``L = lambda N T_e / P`` (§1.5), and
one of four job populations:

* ``"uniform"``: requests uniform on ``[2, 64]``, run times on the request uniform on
  ``[1, 360]`` (Figs. 4.2, 4.4, 4.5, 4.10, 4.12);
* ``"exponential"``: the same requests, run times exponential with mean 60 truncated to
  ``[1, 1000]`` (values outside discarded; Figs. 4.3, 4.6, 4.7, 4.11, 4.13);
* ``"short"``: the same requests, run times uniform on ``[1, 10]`` (Fig. 4.9, where
  reconfigurations are frequent);
* ``"applications"``: jobs drawn from the thirty applications of Tables 4.1/4.2
  (:class:`~scheduling.models.applications.ApplicationMix`; Figs. 4.8, 4.14).

The first three take ``speedup="linear"`` or ``"misp"`` (efficiency on the request uniform on
``[0.4, 0.9]``, serial fractions above 0.5 redrawn, §1.5/§4.2); the applications have their own
curves. Every job carries ``attrs["long"]`` for DPROP-SH (§4.5): its run time on its request
exceeds the distribution's mean ``T_e`` (for the applications: numbers 9, 10, 19, 20, 29, 30).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._validate import check_has, check_int, check_real
from ..kernel.jobs import Job, JobStream
from .distributions import MISP, LinearSpeedup, TruncatedExponential, Uniform, UniformCount
from .synthetic import Synthetic

if TYPE_CHECKING:  # applications imports this package's synthetic module
    from ..models.applications import ApplicationMix

__all__ = ["ismail_dynamic", "Labelled", "ISMAIL_DYNAMIC_EXECUTION"]

#: The execution-time populations :func:`ismail_dynamic` knows.
ISMAIL_DYNAMIC_EXECUTION = ("uniform", "exponential", "short", "applications")


@dataclass(frozen=True)
class Labelled(JobStream):
    """Wrap a workload so every job carries ``attrs["long"] = runtime > long_after`` (§4.5's
    a-priori long/normal classification), keeping any other attributes."""

    workload: Any
    long_after: float

    def __post_init__(self) -> None:
        check_has(self.workload, "Labelled workload", "a workload", "jobs")
        check_real(self.long_after, "Labelled long_after", low=0)

    @property
    def arrival_rate(self) -> float:
        return self.workload.arrival_rate

    @property
    def endless(self) -> bool:
        """Whether the wrapped stream is endless."""
        return bool(getattr(self.workload, "endless", False))

    @property
    def request_kind(self) -> str | None:
        """What the wrapped workload's requests are, if it says."""
        return getattr(self.workload, "request_kind", None)

    @property
    def max_request(self) -> Any:
        """The wrapped workload's largest request, if it says."""
        return getattr(self.workload, "max_request", None)

    def jobs(self, seed: int = 0) -> Iterator[Job]:
        threshold = self.long_after
        for job in self.workload.jobs(seed):
            yield dataclasses.replace(job, attrs={**job.attrs, "long": job.runtime > threshold})


def ismail_dynamic(execution: str = "uniform", *, load: float, speedup: str = "misp",
                   machine_size: int = 64) -> Labelled | ApplicationMix:
    """A §4.4.1 workload at load ``L`` for a ``machine_size``-processor machine (64 in the paper).

    >>> w = ismail_dynamic("uniform", load=0.8, speedup="linear")
    >>> j = w.take(1, seed=3)[0]; 2 <= j.request <= 64 and 1 <= j.runtime <= 360, "long" in j.attrs
    (True, True)
    >>> ismail_dynamic("applications", load=0.8).take(1)[0].attrs["app"] in range(1, 31)
    True
    """
    if execution not in ISMAIL_DYNAMIC_EXECUTION:
        raise ValueError(f"execution must be one of {ISMAIL_DYNAMIC_EXECUTION}, got {execution!r}")
    check_real(load, "load", low=0, low_open=True)
    check_int(machine_size, "machine_size", low=2 if execution != "applications" else 1)
    if execution == "applications":
        from ..models.applications import ApplicationMix

        return ApplicationMix(load=load, machine_size=machine_size)
    if speedup == "misp":
        model: Any = MISP(0.4, 0.9, 0.5)
    elif speedup == "linear":
        model = LinearSpeedup()
    else:
        raise ValueError(f"speedup must be 'misp' or 'linear', got {speedup!r}")
    service: Any = {
        "uniform": Uniform(1.0, 360.0),
        "exponential": TruncatedExponential(60.0, 1.0, 1000.0),
        "short": Uniform(1.0, 10.0),
    }[execution]
    work = Synthetic(UniformCount(2, machine_size), service, load=load, machine_size=machine_size, speedup=model)
    return Labelled(work, service.mean)

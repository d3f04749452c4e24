"""Ismail's static space sharing experiments (seed 000): the workloads of §2.3.1 and §3.3.1 and the
two metrics of §1.1 that the simulator's summary does not already give.

Workload (I. M. Ismail, *Space Sharing Job Scheduling Policies for Parallel Computers*, PhD thesis,
Iowa State 1995, §1.5, §2.3.1, §3.3.1): ``P = 64`` processors, Poisson arrivals at load
``L = λ N T_e / P``; each job independently draws its request ``n`` (uniform on ``[2, P]`` or a
discretised exponential of mean 15 truncated to ``[2, P]``), its run time on ``n`` processors
``t(n)`` (uniform on ``[10, 200]``, or, §3.3.1 and §2.4 Fig. 2.22, exponential of mean 10
truncated to ``[1, 100]``: true mean ≈ 11), and its efficiency ``ξ(n)`` on ``n`` processors
(uniform on ``[0.4, 0.9]``, redrawn when the serial fraction would exceed 0.5; MISP speedup), or
linear speedup. Runs of 8500 jobs, the first 500 discarded (:data:`JOBS`, :data:`WARMUP`).

Metrics (§1.1, §2.3): :func:`static_metrics` adds the time-averaged *folding fragmentation* and
*system efficiency* ``ξ_s``, reconstructed from a result's per-job records (see its docstring for
the interpretation and the small edge bias).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .._validate import check_int, check_real
from ..kernel.jobs import Job
from .distributions import (
    MISP,
    Exponential,
    LinearSpeedup,
    TruncatedExponential,
    TruncatedExponentialCount,
    TruncatedNormal,
    Uniform,
    UniformCount,
)
from .synthetic import Synthetic

__all__ = ["ismail_workload", "residual_life_ratio", "static_metrics", "JOBS", "WARMUP", "SIZES", "RUNTIMES",
           "SPEEDUPS"]

#: Jobs generated per run and jobs discarded at the start (seed 000 §2.3.1, §3.3.1).
JOBS, WARMUP = 8500, 500
SIZES = ("uniform", "exponential")
RUNTIMES = ("uniform", "exponential")
SPEEDUPS = ("misp", "linear")


def ismail_workload(
    *,
    P: int = 64,  # noqa: N803 - the thesis' name
    sizes: str = "uniform",
    runtimes: str = "uniform",
    speedup: str = "misp",
    load: float = 0.6,
) -> Synthetic:
    """The synthetic workload of seed 000 §2.3.1 / §3.3.1 at load parameter ``load`` (``L``).

    ``sizes``: ``"uniform"`` (``n`` uniform on ``[2, P]``) or ``"exponential"`` (``P(n) ∝
    exp(-n/15)`` on ``[2, P]``: the thesis' "truncated exponential with a mean of 15"; as for the
    run times, where it says the mean 10 gives a true mean of about 11, we read 15 as the
    untruncated mean). ``runtimes``: ``"uniform"`` on ``[10, 200]`` or ``"exponential"`` (mean 10
    truncated to ``[1, 100]``). ``speedup``: ``"misp"`` (``ξ(n)`` uniform on ``[0.4, 0.9]``,
    serial fraction <= 0.5) or ``"linear"``.

    >>> w = ismail_workload(load=0.5)
    >>> round(w.arrival_rate * 33 * 105 / 64, 6), w.machine_size
    (0.5, 64)
    >>> j = w.take(1, seed=3)[0]; 2 <= j.request <= 64 and 10 <= j.runtime <= 200
    True
    """
    check_int(P, "P (requests are drawn from [2, P])", low=2)
    check_real(load, "load", low=0, low_open=True)
    if sizes == "uniform":
        size_dist: Any = UniformCount(2, P)
    elif sizes == "exponential":
        size_dist = TruncatedExponentialCount(15.0, 2, P)
    else:
        raise ValueError(f"sizes must be one of {SIZES}, got {sizes!r}")
    if runtimes == "uniform":
        service: Any = Uniform(10.0, 200.0)
    elif runtimes == "exponential":
        service = TruncatedExponential(10.0, 1.0, 100.0)
    else:
        raise ValueError(f"runtimes must be one of {RUNTIMES}, got {runtimes!r}")
    if speedup == "misp":
        model: Any = MISP(0.4, 0.9, 0.5)
    elif speedup == "linear":
        model = LinearSpeedup()
    else:
        raise ValueError(f"speedup must be one of {SPEEDUPS}, got {speedup!r}")
    return Synthetic(size_dist, service, load=load, machine_size=P, speedup=model)


def residual_life_ratio(service: Any) -> float:
    """Ismail's ``r`` (seed 000 §3.1): the expected residual lifetime of a running job in units of
    the mean execution time, ``E[T²] / (2 E[T]²)`` for run times ``T`` (renewal theory). 1 for the
    exponential, ``(a² + ab + b²) / (3 (a + b)² / 2)`` for uniform on ``[a, b]`` (≈ 2/3 when
    ``a/b`` is small, 0.64 for ``[10, 200]``), 1/2 for constant run times. Used by ``f2max``.

    >>> round(residual_life_ratio(Uniform(0.0, 1.0)), 4), residual_life_ratio(Exponential(5.0))
    (0.6667, 1.0)
    """
    if isinstance(service, Exponential):
        return 1.0
    if isinstance(service, Uniform):
        a, b = service.low, service.high
        return (a * a + a * b + b * b) / 3 / (2 * ((a + b) / 2) ** 2)
    if isinstance(service, TruncatedExponential):
        a, b, s = service.low, service.high, service.scale
        ea, eb = math.exp(-a / s), math.exp(-b / s)
        # E[T^2] of the truncated exponential: s^2 * 2 + (a^2 + 2as) ea - (b^2 + 2bs) eb, normalised
        m2 = 2 * s * s + ((a * a + 2 * a * s) * ea - (b * b + 2 * b * s) * eb) / (ea - eb)
        return m2 / (2 * service.mean**2)
    if isinstance(service, TruncatedNormal):
        x = service.sample(np.random.default_rng(0), 200_000)  # closed form is long; 0.5% is plenty
        return float((x * x).mean() / (2 * x.mean() ** 2))
    raise TypeError(f"no residual-life ratio known for {service!r}")


def _as_mapping(jobs: Iterable[Job] | Mapping[int, Job]) -> Mapping[int, Job]:
    if isinstance(jobs, Mapping):
        return jobs
    return {j.id: j for j in jobs}


def static_metrics(result: Any, jobs: Iterable[Job] | Mapping[int, Job] | None = None) -> dict[str, float]:
    """Time-averaged machine metrics of seed 000 §1.1 / §2.3 for a *static* space sharing run.

    * ``folding_fragmentation``: Ismail defines it as ``(P_da - P_a) / P`` (``P_da`` the total
      request of the running jobs, ``P_a`` the allocated processors) and says it "exists when there
      are idle processors and one or more folded jobs". We read that as the idle processors the
      folded running jobs could have used, ``(min(P_da, P) - P_a) / P``, which is 0 without idle
      processors or without folded jobs and never exceeds the idle fraction; averaged over the
      measurement window (like utilization).
    * ``system_efficiency``: ``ξ_s = (Σ m_j ξ_j(m_j) / Σ m_j) · S_e`` with ``S_e = min(1, P_a /
      min(P, P_d))``, averaged over the time the demand ``P_d`` is positive (as the simulator's
      ``effectiveness``). Needs each job's speedup, so ``jobs`` (the Job objects, e.g.
      ``workload.take(int(result.id.max()) + 1, seed)``); NaN without them.
    * ``utilization`` and ``effectiveness`` recomputed the same way, and ``program_efficiency``
      ``Σ m ξ / Σ m`` time-averaged while processors are busy: check values for the reconstruction.

    Interpretation: the state is rebuilt from the records of the kept jobs (start, end, requested,
    granted), so jobs of the warm-up still running when the window opens, and jobs still running
    when it closes, are missing: a bias of about one job lifetime out of the window (well under 1%
    at the thesis' 8000 kept jobs). Records with resizes (``changes > 0``, dynamic policies) are
    refused, since their processor counts changed over time. Cost: O(J log J) for J records.
    """
    t = result.table
    if len(t) == 0:
        nan = float("nan")
        return {"folding_fragmentation": nan, "system_efficiency": nan, "program_efficiency": nan,
                "utilization": nan, "effectiveness": nan}
    if (t["changes"] > 0).any():
        raise ValueError(f"{int((t['changes'] > 0).sum())} jobs changed allocation while running: "
                         "static_metrics only reconstructs static space sharing")
    P = float(result.size)  # noqa: N806
    m = t["granted"].astype(float)
    n = t["requested"].astype(float)
    if jobs is not None:
        by_id = _as_mapping(jobs)
        try:
            speed = np.array([by_id[int(i)].speedup.speedup(int(g)) for i, g in zip(t["id"], t["granted"],
                                                                                   strict=True)])
        except KeyError as e:
            raise ValueError(f"jobs has no job with id {e.args[0]} (a job of the result)") from None
    else:
        speed = np.full(len(t), np.nan)
    # step functions: +x at start (arrival for demand), -x at end
    times = np.concatenate([t["start"], t["end"], t["arrival"], t["end"]])
    zeros = np.zeros(len(t))
    d_alloc = np.concatenate([m, -m, zeros, zeros])
    d_ref = np.concatenate([n, -n, zeros, zeros])
    d_speed = np.concatenate([speed, -speed, zeros, zeros])
    d_dem = np.concatenate([zeros, zeros, n, -n])
    order = np.argsort(times, kind="stable")
    times = times[order]
    alloc = np.cumsum(d_alloc[order])
    ref = np.cumsum(d_ref[order])
    spd = np.cumsum(d_speed[order])
    dem = np.cumsum(d_dem[order])
    w0, w1 = result.window
    clipped = np.clip(times, w0, w1)
    dt = np.diff(np.append(clipped, w1))  # value after event i holds until event i+1
    total = w1 - w0
    eps = 1e-9
    frag = (np.minimum(ref, P) - alloc) / P
    frag = np.maximum(frag, 0.0)
    active = dem > eps
    se = np.where(active, np.minimum(1.0, alloc / np.maximum(np.minimum(P, dem), eps)), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        prog = np.where(alloc > eps, spd / np.maximum(alloc, eps), 0.0)
    xi = prog * se
    demand_time = float(dt[active].sum())
    busy_time = float(dt[alloc > eps].sum())
    return {
        "folding_fragmentation": float((frag * dt).sum() / total) if total > 0 else 0.0,
        "system_efficiency": float((xi * dt)[active].sum() / demand_time) if demand_time > 0 else float("nan"),
        "program_efficiency": float((prog * dt)[alloc > eps].sum() / busy_time) if busy_time > 0 else float("nan"),
        "utilization": float((alloc * dt).sum() / (P * total)) if total > 0 else 0.0,
        "effectiveness": float((se * dt)[active].sum() / demand_time) if demand_time > 0 else 1.0,
    }

"""Nguyen, Vaswani & Zahorjan (seed 003): *Using Runtime Measured Workload Characteristics in Parallel
Processor Scheduling* -- self-tuning equipartition (§4.5), EQUAL-EFF against OPT-EFF (§5.2, Fig. 5) and
the batch experiments (§5.3, Fig. 6, Table 1).

§5.2 compares static allocations (no simulation of time): EQUAL-EFF's greedy equal-efficiency fixed point
against OPT-EFF's dynamic program, on mixes of Ismail's Table 4.1/4.2 applications (the measured curves we
have; the paper's KSR-2 curves are not in the text) and of smooth Amdahl curves (the paper's "smooth
theoretical speedup curves"). The paper gives no number of mixes: quick and full are the same.

§4.5 and §5.3 run the policies on interactive static mixes and closed batch mixes (one slot per job,
replaced by the same kind when it finishes) of three illustrative curve shapes -- good speedup, poor
speedup that slows down past 6 processors, and a peak at 12 -- standing for the paper's Barnes, FLO52 and
MP3D. Each job is 100 iterations; a self-tuning probe costs one. Quick: 32 processors, batches of 40 jobs
per slot stopped at the 30th completion; full: the paper's 50-processor machine, 200 jobs per slot
stopped at the 150th completion. Nothing is random there (no seeds, no intervals).

The diagnoses are in ``docs/reproductions/seed003.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .claims import Claim, Outcome, Size, register

if TYPE_CHECKING:
    from ..kernel.jobs import Job
    from ..kernel.result import SimulationResult
    from ..models.speedup import Tabulated

__all__ = ["curve_speedup", "peaked", "good", "kinds", "interactive", "batch", "batch_efficiency", "amdahl_ratios"]

#: Processors at quick size; the full size uses the paper's 50-processor KSR-2.
P = 32


def _processors(size: Size) -> int:
    return size.pick(P, 50)


def curve_speedup(values: Sequence[float]) -> Tabulated:
    """A Tabulated speedup with the given S(1..n)."""
    from .. import Tabulated

    return Tabulated(tuple(s / p for p, s in enumerate(values, start=1)))


def peaked(n: int, peak: int, top: float) -> Tabulated:
    """Speedup on 1..``n`` processors rising linearly to ``top`` at ``peak`` processors, then slowing down."""
    return curve_speedup([1 + (top - 1) * (p - 1) / (peak - 1) if p <= peak else top * (peak / p) ** 0.5
                          for p in range(1, n + 1)])


def good(n: int) -> Tabulated:
    """A good speedup curve on 1..``n`` processors."""
    return curve_speedup([p / (1 + 0.02 * (p - 1)) for p in range(1, n + 1)])


def kinds(mix: str, processors: int = P) -> list[Tabulated]:
    """The speedup curves of ``mix``: ``g`` good, ``p`` poor (peak 3 at 6 processors), ``e`` a peak of 7
    at 12."""
    return [{"g": good(processors), "p": peaked(processors, 6, 3.0), "e": peaked(processors, 12, 7.0)}[k]
            for k in mix]


def interactive(mix: str, processors: int = P) -> list[Job]:
    """A static mix (§4.5): the jobs start together, each asking for the whole machine."""
    from .. import Job

    return [Job(i, 0.0, processors, 100.0, s, attrs={"iterations": 100})
            for i, s in enumerate(kinds(mix, processors))]


def batch(mix: str, repeats: int = 40, processors: int = P) -> list[Job]:
    """A closed mix (§5.3): one slot per job, replaced by the same kind when it finishes."""
    from .. import Job

    speedups = kinds(mix, processors)
    return [Job(r * len(mix) + i, 0.0, processors, 100.0, s, attrs={"iterations": 100, "slot": i})
            for r in range(repeats) for i, s in enumerate(speedups)]


def batch_efficiency(name: str, mix: str, *, repeats: int = 40, jobs: int = 30, processors: int = P,
                     **kw: Any) -> tuple[float, SimulationResult]:
    """System efficiency of policy ``name`` (a dynamic policy: :mod:`scheduling.policies.ismail_dynamic`,
    :mod:`scheduling.policies.efficiency`) on the batch ``mix`` up to the ``jobs``-th completion, and the
    result."""
    from topoalloc import FlatPool
    from topologies import Flat

    from .. import Simulator
    from ..policies import get
    from ..policies.ismail_dynamic import DynamicPolicy

    pol = get(name)
    if not isinstance(pol, DynamicPolicy):
        raise TypeError(f"policy {name!r} measures no system efficiency; give a dynamic policy such as 'EQUI'")
    for k, v in kw.items():
        setattr(pol, k, v)
    r = Simulator(FlatPool(Flat(processors)), pol, batch(mix, repeats, processors), jobs=jobs).run()
    return pol.system_efficiency((0.0, r.window[1])), r


def _batch_size(size: Size) -> dict[str, int]:
    return size.pick({"repeats": 40, "jobs": 30, "processors": P}, {"repeats": 200, "jobs": 150, "processors": 50})


# -- §5.2: EQUAL-EFF against OPT-EFF ---------------------------------------------------------------

def _table_4_1_mixes(size: Size) -> Outcome:
    from ..models.applications import application
    from ..policies.efficiency import equal_eff_allocation, equipartition, opt_eff_allocation, system_efficiency

    rng = np.random.default_rng(3)
    ratios, equi = [], []
    for n in (2, 3, 4, 6):
        for _ in range(12):
            apps = [application(int(k)) for k in rng.integers(1, 31, n)]
            sp, lim = [a.speedup for a in apps], [a.max_processors for a in apps]
            for total in (4, 8, 16, 32, 64, 128):
                if total < n:
                    continue
                opt = system_efficiency(sp, opt_eff_allocation(sp, lim, total))
                ratios.append(system_efficiency(sp, equal_eff_allocation(sp, lim, total)) / opt)
                equi.append(system_efficiency(sp, equipartition([min(k, total) for k in lim], total)) / opt)
    holds = min(ratios) >= 0.9 and max(ratios) <= 1 + 1e-9 and np.mean(ratios) > np.mean(equi)
    return Outcome(bool(holds), f"EQUAL-EFF / OPT-EFF system efficiency on {len(ratios)} mixes and machine sizes: "
                                f"worst {min(ratios):.3f}, mean {np.mean(ratios):.3f}, best {max(ratios):.3f}; "
                                f"equipartition mean {np.mean(equi):.3f}",
                   {"ratios": ratios, "equipartition": equi})


register(Claim(
    id="003-fig5-table-4-1-mixes", paper="003", where="§5.2, Fig. 5",
    statement="in all cases, the greedy scheme employed by EQUAL-EFF comes very close to the optimum (OPT-EFF's "
              "dynamic program), with the largest differences occurring at very small numbers of processors: on "
              "mixes of 2-6 of Ismail's Table 4.1/4.2 applications (the measured curves available) on 4 to 128 "
              "processors; and closer than equipartition on average",
    paper_value="no number (read as: within 10%)",
    run=_table_4_1_mixes,
))


def amdahl_ratios(processors: Sequence[int] = (16, 32, 64, 128), mixes: int = 200,
                  seed: int = 11) -> dict[int, list[float]]:
    """EQUAL-EFF / OPT-EFF system efficiency on three-job mixes of smooth Amdahl curves, serial fractions
    uniform on [0, 0.5] (the range of Ismail's MISP jobs), ``{P: [ratios]}``. (Dowdy's extrapolation
    (1 + beta) / (p + beta) *is* an Amdahl efficiency curve, so one measurement on more than one processor
    pins a job's curve exactly.)"""
    from ..models.speedup import Amdahl
    from ..policies.efficiency import equal_eff_allocation, opt_eff_allocation, system_efficiency

    rng = np.random.default_rng(seed)
    out: dict[int, list[float]] = {n: [] for n in processors}
    for _ in range(mixes):
        sp = [Amdahl(float(f)) for f in rng.uniform(0.0, 0.5, 3)]
        for n in processors:
            lim = [n] * 3
            opt = system_efficiency(sp, opt_eff_allocation(sp, lim, n))
            out[n].append(system_efficiency(sp, equal_eff_allocation(sp, lim, n)) / opt)
    return out


def _smooth(size: Size) -> Outcome:
    ratios = amdahl_ratios()
    small = amdahl_ratios(processors=(4, 8), mixes=100)
    holds = (min(min(v) for v in ratios.values()) >= 0.9 and max(max(v) for v in ratios.values()) <= 1 + 1e-9
             and min(min(v) for v in small.values()) < min(ratios[32]))
    worst = ", ".join(f"{n}: {min(v):.3f}" for n, v in {**small, **ratios}.items())
    return Outcome(holds, f"worst EQUAL-EFF / OPT-EFF on three-job Amdahl mixes (200; 100 at 4 and 8 processors) "
                          f"by processors: {worst}; never above the optimum",
                   {str(n): v for n, v in {**small, **ratios}.items()})


register(Claim(
    id="003-s5-2-smooth-curves", paper="003", where="§5.2",
    statement="the greedy scheme employed by EQUAL-EFF comes very close to the optimum, with the largest "
              "differences occurring at very small numbers of processors; results from simulations that use "
              "smooth theoretical speedup curves show even smaller performance differences (three-job Amdahl "
              "mixes, from 16 processors; the worst mixes lose more at 4 and 8)",
    paper_value="no number (read as: within 10% from 16 processors, five or more per job)",
    run=_smooth,
))


# -- §4.5: self-tuning equipartition ---------------------------------------------------------------

def _st_equi(size: Size) -> Outcome:
    from topoalloc import FlatPool
    from topologies import Flat

    from .. import Simulator

    n = _processors(size)
    holds, parts, values = True, [], {}
    for mix in ("gpp", "gep", "ppe"):
        rt = {name: Simulator(FlatPool(Flat(n)), name, interactive(mix, n)).run().summary()["mean_turnaround"]
              for name in ("EQUI", "ST-EQUI", "AP-EQUI")}
        holds = holds and rt["ST-EQUI"] < 0.95 * rt["EQUI"] and rt["ST-EQUI"] <= 1.05 * rt["AP-EQUI"]
        parts.append(f"{mix}: EQUI {rt['EQUI'] / rt['AP-EQUI']:.2f}, ST-EQUI {rt['ST-EQUI'] / rt['AP-EQUI']:.2f}")
        values[mix] = rt
    return Outcome(holds, f"mean response time over AP-EQUI's, {n} processors (g good, p poor, e peaked): "
                          + "; ".join(parts), values)


register(Claim(
    id="003-s4-5-st-equi", paper="003", where="§4.5, Figs. 2-4",
    statement="ST-EQUI outperforms EQUI (jobs that slow down shed processors, which jobs with good speedup use) and "
              "the policy using runtime measurements (ST-EQUI) performs nearly as well as the policy that uses a "
              "priori speedup information (AP-EQUI), on interactive three-job mixes",
    paper_value="no number (read as: ST-EQUI at least 5% faster than EQUI, within 5% of AP-EQUI)",
    run=_st_equi,
))


# -- §5.3: batch mixes -----------------------------------------------------------------------------

_BATCH_POLICIES = ("EQUI", "ST-EQUI", "EQUAL-EFF", "ST-EQUAL-EFF", "OPT-EFF")


def _batch(size: Size) -> Outcome:
    kw = _batch_size(size)
    holds, parts, values = True, [], {}
    for mix in ("ggp", "gpp", "gpe"):
        eff = {name: batch_efficiency(name, mix, **kw)[0] for name in _BATCH_POLICIES}
        ee = min(eff["EQUAL-EFF"], eff["ST-EQUAL-EFF"])
        holds = (holds and eff["ST-EQUI"] > eff["EQUI"] and eff["EQUAL-EFF"] > eff["EQUI"] and ee > eff["ST-EQUI"]
                 and ee >= 0.8 * eff["OPT-EFF"] and max(eff.values()) <= eff["OPT-EFF"] + 1e-9)
        parts.append(f"{mix}: " + ", ".join(f"{k} {v / eff['OPT-EFF']:.2f}" for k, v in eff.items() if k != "OPT-EFF"))
        values[mix] = eff
    return Outcome(holds, f"system efficiency over OPT-EFF's, {kw['processors']} processors (g good, p poor, "
                          f"e peaked): " + "; ".join(parts), values)


register(Claim(
    id="003-fig6-batch", paper="003", where="§5.3, Fig. 6",
    statement="policies using runtime measurements can greatly outperform those without (ST-EQUI and EQUAL-EFF "
              "beat EQUI); equal-efficiency-based policies outperform equipartition-based policies (EQUAL-EFF and "
              "ST-EQUAL-EFF beat ST-EQUI); for all workloads, the performance of the equal efficiency policies is "
              "within 20% of those for the overly optimistic OPT-EFF (batch, multiprogramming level 3)",
    paper_value="equal-efficiency policies within 20% of OPT-EFF",
    run=_batch,
))


def _no_starvation(size: Size) -> Outcome:
    from ..policies.efficiency import job_throughput

    kw = _batch_size(size)
    _, r = batch_efficiency("EQUAL-EFF", "ggp", **kw)
    _, r_equi = batch_efficiency("EQUI", "ggp", **kw)
    classes = {j.id: "gp"[j.attrs["slot"] // 2] for j in batch("ggp", kw["repeats"], kw["processors"])}
    ee = job_throughput(r, classes, (0.0, r.window[1]))
    eq = job_throughput(r_equi, classes, (0.0, r_equi.window[1]))
    holds = (set(ee) == {"g", "p"} and ee["p"] > 0.3 * eq["p"] and ee["g"] > eq["g"]
             and abs(sum(ee.values()) * r.window[1] - len(r)) <= max(1e-6 * len(r), 1e-12))
    k = 1000.0
    return Outcome(holds, f"jobs per {k:g} time units, good-good-poor batch on {kw['processors']} processors, EQUI -> "
                          f"EQUAL-EFF: good {eq['g'] * k:.2f} -> {ee['g'] * k:.2f}, poor {eq['p'] * k:.2f} -> "
                          f"{ee['p'] * k:.2f}", {"EQUAL-EFF": ee, "EQUI": eq})


register(Claim(
    id="003-table1-no-starvation", paper="003", where="§5.3, Table 1",
    statement="jobs with poor speedup are not starved under EQUAL-EFF: no sharp drop in their throughput against an "
              "equipartition policy, a reflection of the equal efficiency policies' guarantee that every job be "
              "given at least one processor (the job with good speedup gains what the poor one could not use)",
    paper_value="Barnes-Barnes-FLO52, EQUI -> EQUAL-EFF: Barnes 0.32 -> 0.44, FLO52 0.05 -> 0.22 jobs/minute "
                "(asserted: poor job keeps > 30% of its EQUI throughput, good job gains)",
    run=_no_starvation,
))

"""Non-contiguous against contiguous allocation on a 2D mesh: Lo, Windisch, Liu & Nitzberg,
"Noncontiguous processor allocation algorithms for mesh-connected multicomputers", IEEE TPDS 8(7),
1997, and Leung et al., "Processor allocation on Cplant", IEEE Cluster 2002.

Workload: seed 002's mesh workload (sides uniform on [1, 32], exponential service of mean 5,
Poisson arrivals) on the 32x32 mesh under FCFS without folding; with communication, every job
spends a fraction ``comm`` uniform on [0.5, 1] of its run time communicating and its run time
follows the :class:`~scheduling.models.runtime.Dilation` model (mean hops over the compact placement's).
Every allocator sees the same job stream per seed (common random numbers). Quick: 800-2,000 jobs
after 100-200, two or three seeds; full: 20,000 jobs after 2,000, five seeds.

Only the papers' abstracts and the SST scheduler's sources were available, so the statements are
the abstracts' and the figures are not matched number for number: the claims are orderings.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..kernel.api import simulate
from ..models.runtime import Dilation
from ..workloads import Exponential, MeshSides, Synthetic, Uniform
from .claims import Claim, Outcome, Size, estimate, register

__all__: list[str] = []

CONTIGUOUS = ("Buddy2D", "FrameSliding", "FirstFit", "BestFit")


def _noncontiguous() -> list[str]:
    import topoalloc
    from topologies import Mesh

    return [n for n in topoalloc.names("mesh") if topoalloc.get(n, Mesh(32, 32)).recognition == "any"]


@lru_cache(maxsize=512)
def _run(name: str, load: float, seed: int, jobs: int, warmup: int, comm: bool) -> dict:
    """One FCFS run's summary (cached: several claims share runs within a process)."""
    import topoalloc
    from topologies import Mesh

    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024,
                  comm=Uniform(0.5, 1.0) if comm else 0.0)
    r = simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", w, jobs=jobs, warmup=warmup, seed=seed,
                 until=1_000_000.0, record_placement=comm, runtime_model=Dilation() if comm else None)
    s = r.summary()
    s["unfinished"] = r.unfinished
    s["start"] = r.start.copy()
    return s


def _sustain(size: Size) -> Outcome:
    load, jobs, warmup = 0.55, size.pick(2000, 20_000), size.pick(200, 2000)
    seeds = size.pick((1, 2, 3), (1, 2, 3, 4, 5))
    nonc = _noncontiguous()
    left = {n: [_run(n, load, s, jobs, warmup, False)["unfinished"] / jobs for s in seeds]
            for n in nonc + list(CONTIGUOUS)}
    util = {n: [_run(n, load, s, jobs, warmup, False)["utilization"] for s in seeds] for n in nonc}
    holds = (all(max(left[n]) < 0.05 and min(util[n]) > load - 0.03 for n in nonc)
             and all(min(left[n]) > 0.1 for n in CONTIGUOUS))
    worst_nonc = max(nonc, key=lambda n: max(left[n]))
    best_cont = min(CONTIGUOUS, key=lambda n: min(left[n]))
    return Outcome(holds, f"at offered load {load}: the non-contiguous allocators leave at most "
                          f"{max(left[worst_nonc]):.1%} of the jobs unfinished ({worst_nonc}), the contiguous ones at "
                          f"least {min(left[best_cont]):.0%} ({best_cont}: saturated)",
                   {"unfinished": left, "utilization": util})


register(Claim(
    id="lo97-fcfs-sustain", paper="lo97", where="Lo et al. 1997, abstract and §6",
    statement="noncontiguous allocation removes external fragmentation: without communication cost every "
              "non-contiguous allocator carries a load (0.55 on the 32x32 mesh under FCFS) at which every "
              "contiguous one saturates",
    run=_sustain,
))


def _random_hops(size: Size) -> Outcome:
    load, jobs, warmup = 0.3, size.pick(800, 20_000), size.pick(100, 2000)
    seeds = size.pick((1, 2), (1, 2, 3, 4, 5))
    names = _noncontiguous() + list(CONTIGUOUS)
    hops = {n: [_run(n, load, s, jobs, warmup, True)["mean_hops"] for s in seeds] for n in names}
    mean = {n: float(np.mean(v)) for n, v in hops.items()}
    runner_up = max((n for n in names if n != "Random"), key=mean.get)
    return Outcome(all(mean["Random"] > mean[n] for n in names if n != "Random"),
                   f"mean pairwise hops at load 0.3: Random {estimate(hops['Random'])[1]}; next {runner_up} "
                   f"{estimate(hops[runner_up])[1]}", {"mean_hops": hops})


register(Claim(
    id="lo97-random-disperses", paper="lo97", where="Lo et al. 1997, §3 (Random allocation)",
    statement="Random allocation scatters a job's processors: of every allocator it gives the largest average "
              "pairwise distance (the dispersal the later contention studies measure)",
    run=_random_hops,
))


def _ordering(size: Size) -> Outcome:
    loads, jobs, warmup = (0.2, 0.4), size.pick(2000, 20_000), size.pick(200, 2000)
    seeds = size.pick((1, 2), (1, 2, 3, 4, 5))
    names = ("FirstFit", "MBS", "Paging", "HilbertBestFit")
    rt = {(n, load): [_run(n, load, s, jobs, warmup, True)["mean_turnaround"] for s in seeds]
          for n in names for load in loads}
    holds = all(np.mean(rt[n, load]) < np.mean(rt["FirstFit", load]) for n in names[1:] for load in loads)
    parts = [f"load {load}: " + ", ".join(f"{n} {estimate(rt[n, load])[1]}" for n in names) for load in loads]
    return Outcome(holds, "mean response time with communication (Dilation): " + "; ".join(parts),
                   {f"{n}@{load}": v for (n, load), v in rt.items()})


register(Claim(
    id="lo97-noncontig-beats-contiguous", paper="lo97", where="Lo et al. 1997, abstract and §6; Leung et al. 2002",
    statement="noncontiguous allocation algorithms perform better overall than the contiguous ones, even when "
              "message-passing contention is considered: MBS, Paging(0) and the Hilbert-curve allocator have a "
              "shorter mean response time than contiguous first fit",
    paper_value="ordering MBS, Paging(0), curve < First Fit",
    run=_ordering,
    diagnosis="Reproduced in our model, which is not the paper's: Lo et al. simulated the network (message "
              "passing with contention); here the communication cost is the Dilation run-time model (a job's "
              "communicating share stretches with its mean hops over the compact placement's), and link "
              "contention is measured (`record_contention`, `max_link_load`) but does not slow jobs. The ordering "
              "holds at both loads; first fit's fragmentation dominates from load 0.3 (it saturates near 0.45).",
))


def _hilbert_vs_naive(size: Size) -> Outcome:
    load, jobs, warmup = 0.3, size.pick(800, 20_000), size.pick(100, 2000)
    seeds = size.pick((1, 2), (1, 2, 3, 4, 5))
    hb = [_run("HilbertBestFit", load, s, jobs, warmup, True)["mean_hops"] for s in seeds]
    nv = [_run("Naive", load, s, jobs, warmup, True)["mean_hops"] for s in seeds]
    return Outcome(all(a < b for a, b in zip(hb, nv, strict=True)),
                   f"mean pairwise hops at load 0.3: Hilbert best fit {estimate(hb)[1]}, Naive (row-major) "
                   f"{estimate(nv)[1]}", {"hilbert_best_fit": hb, "naive": nv})


register(Claim(
    id="lo97-hilbert-locality", paper="lo97", where="Leung et al. 2002 (Cplant)",
    statement="one-dimensional allocation along a Hilbert curve with best fit keeps a job's processors close: a "
              "lower average pairwise distance than taking free processors in row-major order, on the same jobs",
    run=_hilbert_vs_naive,
))

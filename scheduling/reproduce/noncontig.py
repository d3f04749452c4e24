"""Non-contiguous against contiguous allocation on a 2D mesh, and jobs that slow each other through
shared links: Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor allocation algorithms for
mesh-connected multicomputers", IEEE TPDS 8(7), 1997; Leung et al., "Processor allocation on
Cplant", IEEE Cluster 2002; Yang, Jenkins, Isaila, Lan & Ross, "Watch out for the bully! Job
interference study on dragonfly network", SC16; Bhatele, Mohror, Langer & Isaacs, "There goes the
neighborhood: performance degradation due to nearby jobs", SC13; Pollard, Jain, Herbein & Bhatele,
"Evaluation of an interference-free node allocation policy on fat-tree clusters", SC18.

Workload: seed 002's mesh workload (sides uniform on [1, 32], exponential service of mean 5,
Poisson arrivals) on the 32x32 mesh under FCFS without folding. With communication, every job
spends a fraction ``comm`` of its run time communicating (uniform on [0.5, 1] unless a claim says
otherwise) and its run time follows the flow-level
:class:`~scheduling.models.contention.Contention` model: its placement's own cost
(:class:`~scheduling.models.runtime.Dilation`) and the other running jobs' traffic on its links (a
shaped request exchanges with its nearest neighbours on its own ``w x h`` rank grid, routed XY).
Every allocator sees the same job stream per seed (common random numbers).

**Orderings are asserted as significant differences** (:func:`~scheduling.metrics.significance.compare_paired`):
replication ``i`` runs both sides with seed ``1 + i``, and replications are added until the 95%
interval of the mean paired difference excludes zero or the cap is reached (quick: at least 3, at
most 6; full: at least 5, at most 20). An ordering significant the other way refutes the claim; one
still straddling zero at the cap makes the claim :data:`~scheduling.reproduce.claims.NOT_SIGNIFICANT`,
never reproduced. Quick: 400-600 jobs after a tenth as many per run; full: 5,000 after 500 (the
load-0.55 claim: 2,000 and 20,000 jobs, as before).

Only the papers' abstracts (and the SST scheduler's sources) were available, so the statements are
the abstracts' and the figures are orderings, with the published numbers beside them where an
abstract gives one. Yang et al. measured with packet-level network simulation (CODES) replaying
application traces on a dragonfly, Bhatele et al. on production machines (Cray XE6 and Blue
Gene/P, Q), Pollard et al. on production fat-tree clusters; here everything is the flow-level
model on a mesh (and a fat tree), so the orderings are compared, not the magnitudes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ..kernel.api import simulate
from ..metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, Ordering, compare_paired
from ..workloads import Exponential, MeshSides, Synthetic, Uniform, UniformCount
from .claims import Claim, Outcome, Size, estimate, register

__all__: list[str] = []

CONTIGUOUS = ("Buddy2D", "FrameSliding", "FirstFit", "BestFit")
#: The offered loads of the contention claim, from light to first fit's saturation (near 0.45).
LOADS = (0.05, 0.1, 0.2, 0.3, 0.4)
QUICK_LOADS = (0.05, 0.2, 0.4)


#: The non-contiguous allocators of the two papers and their successors on a 2D mesh (Lo et al. 1997:
#: Random, Naive, Paging, MBS; Leung et al. 2002: the curves; Mache et al. 1997: MC1x1). Later
#: allocators (MM, the free lists of topoalloc.grid) are compared in their own claims.
NONCONTIGUOUS = ("Random", "Naive", "Paging", "MBS", "Curve", "HilbertFirstFit", "HilbertBestFit",
                 "HilbertSumOfSquares", "SnakeFirstFit", "SnakeBestFit", "SnakeSumOfSquares", "MC1x1")


def _noncontiguous() -> list[str]:
    return list(NONCONTIGUOUS)


def _model(name: str) -> Any:
    if name == "none":
        return None
    if name == "dilation":
        from ..models.runtime import Dilation

        return Dilation()
    from ..models.contention import Contention

    return Contention()


@lru_cache(maxsize=1024)
def _run(name: str, load: float, seed: int, jobs: int, warmup: int, model: str = "none",
         placement: bool = False) -> dict:
    """One FCFS run's summary on the 32x32 mesh (cached: several claims share runs within a
    process). ``model``: ``"none"`` (no communication), ``"dilation"`` or ``"contention"`` (jobs
    communicate a fraction uniform on [0.5, 1]); ``placement`` records where jobs ran (mean hops)."""
    import topoalloc
    from topologies import Mesh

    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024,
                  comm=Uniform(0.5, 1.0) if model != "none" else 0.0)
    r = simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", w, jobs=jobs, warmup=warmup, seed=seed,
                 until=1_000_000.0, record_placement=placement, runtime_model=_model(model))
    s = r.summary()
    s["unfinished"] = r.unfinished
    return s


def _replications(size: Size) -> dict[str, int]:
    return size.pick({"min_replications": 3, "max_replications": 6}, {"min_replications": 5, "max_replications": 20})


def _judge(orderings: dict[str, tuple[Ordering, str]]) -> tuple[bool, tuple[str, ...], list[str]]:
    """``holds`` (every ordering significant the asserted way), the undecided ones (when none is
    refuted) and one line per ordering."""
    refuted = [k for k, (o, want) in orderings.items() if o.verdict not in (want, NOT_SIGNIFICANT)]
    undecided = tuple(k for k, (o, _) in orderings.items() if o.verdict == NOT_SIGNIFICANT)
    holds = not refuted and not undecided
    lines = [f"{k}: {o.verdict} (A - B = {o.mean:.3g} [{o.low:.3g}, {o.high:.3g}], n={o.replications})"
             for k, (o, _) in orderings.items()]
    return holds, () if refuted else undecided, lines


# -- lo97: without communication ------------------------------------------------------------------
def _sustain(size: Size) -> Outcome:
    load, jobs, warmup = 0.55, size.pick(2000, 20_000), size.pick(200, 2000)
    seeds = size.pick((1, 2, 3), (1, 2, 3, 4, 5))
    nonc = _noncontiguous()
    left = {n: [_run(n, load, s, jobs, warmup)["unfinished"] / jobs for s in seeds] for n in nonc + list(CONTIGUOUS)}
    util = {n: [_run(n, load, s, jobs, warmup)["utilization"] for s in seeds] for n in nonc}
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
    quantity="fraction of jobs left unfinished and utilisation at offered load 0.55, FCFS, per allocator over seeds",
    statement="noncontiguous allocation removes external fragmentation: without communication cost every "
              "non-contiguous allocator carries a load (0.55 on the 32x32 mesh under FCFS) at which every "
              "contiguous one saturates",
    run=_sustain,
))


# -- lo97: with contention ----------------------------------------------------------------------------
def _ordering(size: Size) -> Outcome:
    loads, jobs, warmup = size.pick(QUICK_LOADS, LOADS), size.pick(400, 5000), size.pick(40, 500)
    reps = _replications(size)

    def rt(name: str, load: float) -> Callable[[int], float]:
        return lambda seed: _run(name, load, seed, jobs, warmup, "contention")["mean_turnaround"]

    orderings = {f"{n} < FirstFit at load {load}": (compare_paired(rt(n, load), rt("FirstFit", load), **reps), LESS)
                 for load in loads for n in ("MBS", "Paging", "HilbertBestFit")}
    holds, undecided, lines = _judge(orderings)
    loses = [f"{load}" for load in loads if orderings[f"Paging < FirstFit at load {load}"][0].verdict == GREATER]
    where = f"Paging(0) is significantly slower than first fit at load {', '.join(loses)}" if loses else \
        "Paging(0) is never significantly slower than first fit"
    return Outcome(holds, f"mean response time with contention (paired over seeds, A - B): {where}; "
                          + "; ".join(lines),
                   {k: {"verdict": o.verdict, "mean": o.mean, "low": o.low, "high": o.high, "a": o.a, "b": o.b}
                    for k, (o, _) in orderings.items()}, undecided=undecided)


register(Claim(
    id="lo97-noncontig-beats-contiguous", paper="lo97", where="Lo et al. 1997, abstract and §6; Leung et al. 2002",
    quantity="mean response time, each non-contiguous allocator minus first fit, paired over seeds per load",
    statement="noncontiguous allocation algorithms perform better overall than the contiguous ones, even when "
              "message-passing contention is considered; read as: with jobs slowing each other through shared "
              "links (the flow-level Contention model), MBS, Paging(0) and the Hilbert-curve allocator each have a "
              "significantly shorter mean response time than contiguous first fit at every offered load from 0.05 "
              "to first fit's saturation (0.05, 0.1, 0.2, 0.3, 0.4; quick: 0.05, 0.2, 0.4)",
    paper_value="ordering MBS, Paging(0), curve < First Fit",
    run=_ordering,
    expected=False,
    diagnosis="Not reproduced as read, for one allocator at light load: MBS and the Hilbert-curve allocator are "
              "significantly faster than first fit at every load of the grid, Paging(0) only from load 0.2. At "
              "0.05 and 0.1 first fit's fragmentation delays almost nobody, and Paging(0)'s pages of one node taken "
              "in row-major order (the same grants as Naive) stretch a w x h job's stencil over rows of the "
              "machine: its placement costs more than it saves (mean response 6.1-6.3 against first fit's "
              "5.2-5.5 at 0.05). Contention itself costs the three little (their grants are compact runs or "
              "blocks; mean interference under 0.3 time units per job up to load 0.5), while Random placement "
              "loses more than a quarter of its run time to other jobs' traffic at load 0.2 and saturates between "
              "0.3 and 0.35. Lo et al. simulated message passing on the network itself, with all-to-all and other "
              "patterns; here the network is the flow-level model (docs/placement.md).",
))


def _hops(name: str, size: Size) -> Callable[[int], float]:
    jobs, warmup = size.pick(400, 5000), size.pick(40, 500)
    return lambda seed: _run(name, 0.2, seed, jobs, warmup, "none", True)["mean_hops"]


def _random_hops(size: Size) -> Outcome:
    reps = _replications(size)
    rivals = ("MBS", "MC1x1", "HilbertBestFit", "Paging")
    orderings = {f"Random > {n}": (compare_paired(_hops("Random", size), _hops(n, size), **reps), GREATER)
                 for n in rivals}
    holds, undecided, lines = _judge(orderings)
    return Outcome(holds, "mean pairwise hops per job at load 0.2, on the same schedule (no communication cost), "
                          "paired over seeds: " + "; ".join(lines),
                   {k: {"verdict": o.verdict, "a": o.a, "b": o.b} for k, (o, _) in orderings.items()},
                   undecided=undecided)


register(Claim(
    id="lo97-random-disperses", paper="lo97", where="Lo et al. 1997, §3 (Random allocation)",
    quantity="mean pairwise hop distance of a job's nodes, Random minus each allocator, paired over seeds",
    statement="Random allocation scatters a job's processors: a significantly larger average pairwise distance "
              "than the non-contiguous allocators that seek locality -- MBS (Lo et al.), MC1x1 (Mache, Lo & Windisch), "
              "the Hilbert curve with best fit (Leung et al.) and Paging(0) -- on the same jobs",
    run=_random_hops,
))


def _hilbert(size: Size) -> Outcome:
    reps = _replications(size)
    rivals = ("MBS", "SnakeBestFit", "Random")
    orderings = {f"HilbertBestFit < {n}": (compare_paired(_hops("HilbertBestFit", size), _hops(n, size), **reps), LESS)
                 for n in rivals}
    holds, undecided, lines = _judge(orderings)
    mc = compare_paired(_hops("HilbertBestFit", size), _hops("MC1x1", size), **reps)
    return Outcome(holds, "mean pairwise hops per job at load 0.2, same schedule, paired over seeds: "
                   + "; ".join(lines) + f"; against the two-dimensional MC1x1 (not asserted): {mc}",
                   {k: {"verdict": o.verdict, "a": o.a, "b": o.b} for k, (o, _) in orderings.items()},
                   undecided=undecided)


register(Claim(
    id="lo97-hilbert-locality", paper="lo97", where="Leung et al. 2002 (Cplant)",
    quantity="mean pairwise hop distance of a job's nodes, Hilbert best fit minus each allocator, paired over seeds",
    statement="one-dimensional allocation along a Hilbert curve with best fit keeps a job's processors close: a "
              "significantly lower average pairwise distance than the buddy-block non-contiguous MBS, than best fit "
              "along the row-major snake curve and than Random, on the same jobs",
    run=_hilbert,
    diagnosis="The two-dimensional MC1x1 is more local still (about 10.3 against 10.9 mean hops at load 0.2), "
              "which the outcome reports beside the assertion: Leung et al.'s point is that a one-dimensional "
              "order comes close to the two-dimensional strategies, not that it beats them.",
))


# -- Yang et al. SC16: the bully ----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _TwoClasses:
    """Communication fractions ``light`` or ``heavy`` with probability ``1 - p`` and ``p``."""

    light: float
    heavy: float
    p: float = 0.5

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        return np.where(rng.random(count) < self.p, self.heavy, self.light)


LIGHT, HEAVY = 0.1, 0.9


@lru_cache(maxsize=256)
def _classes(name: str, seed: int, jobs: int, warmup: int, load: float = 0.2) -> dict:
    """Per communication class, the mean run-time stretch (run time over the run time alone on a
    baseline placement) and the mean interference of the jobs kept, under the contention model."""
    import topoalloc
    from topologies import Mesh

    from ..models.contention import Contention

    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024, comm=_TwoClasses(LIGHT, HEAVY))
    job_list = w.take(jobs, seed)
    comm = np.array([j.comm for j in job_list])
    r = simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", job_list, jobs=None, warmup=warmup, seed=seed,
                 runtime_model=Contention())
    t = r.table
    keep = t["runtime"] > 0
    stretch = (t["end"] - t["start"])[keep] / t["runtime"][keep]
    c = comm[t["id"][keep]]
    out = {}
    for label, f in (("light", LIGHT), ("heavy", HEAVY)):
        m = c == f
        out[label] = float(stretch[m].mean())
        out[f"{label}_interference"] = float((t["interference"][keep][m] / t["runtime"][keep][m]).mean())
    return out


def _bully(size: Size) -> Outcome:
    jobs, warmup = size.pick(500, 5000), size.pick(50, 500)
    reps = _replications(size)

    def cls(name: str, label: str) -> Callable[[int], float]:
        return lambda seed: _classes(name, seed, jobs, warmup)[label]

    orderings = {
        "heavy: Random < FirstFit": (compare_paired(cls("Random", "heavy"), cls("FirstFit", "heavy"), **reps), LESS),
        "light: Random > FirstFit": (compare_paired(cls("Random", "light"), cls("FirstFit", "light"), **reps), GREATER),
    }
    holds, undecided, lines = _judge(orderings)
    seeds = orderings["heavy: Random < FirstFit"][0].seeds
    lost = {f"{n} {c}": estimate([_classes(n, s, jobs, warmup)[f"{c}_interference"] for s in seeds])[1]
            for n in ("Random", "FirstFit") for c in ("heavy", "light")}
    return Outcome(holds, f"mean run-time stretch by class (comm {HEAVY} heavy, {LIGHT} light, half each, load 0.2), "
                          "paired over seeds: " + "; ".join(lines) + "; time lost to other jobs per unit of base run "
                          "time: " + ", ".join(f"{k} {v}" for k, v in lost.items()),
                   {k: {"verdict": o.verdict, "a": o.a, "b": o.b} for k, (o, _) in orderings.items()},
                   undecided=undecided)


register(Claim(
    id="lo97-yang16-bully", paper="lo97", where="Yang et al., SC16, abstract",
    quantity="mean run-time stretch of heavy (comm 0.9) and light (comm 0.1) jobs, Random minus contiguous, "
             "paired over seeds",
    statement="under random placement, the performance improvement of communication-intensive jobs comes at the "
              "expense of less intensive ones (the bully): against contiguous placement, Random gives heavy "
              "communicators (comm 0.9) a significantly smaller run-time stretch and light ones (comm 0.1) a "
              "significantly larger one",
    paper_value="random placement helps intensive jobs, hurts less intensive ones (packet-level simulation of a "
                "dragonfly with adaptive routing, application traces)",
    run=_bully,
    expected=False,
    diagnosis="Half reproduced, and the other half cannot be in this model. Light jobs are significantly slower "
              "under Random than on contiguous boxes (at full size their run-time stretch is 0.17 larger; they "
              "lose about 2% of their base run time to the heavy jobs' traffic on their links, on a box nothing), "
              "as Yang et al. found. But heavy jobs do not gain (their stretch is 2.1 larger under Random, 80% of "
              "their base run time lost to other jobs' traffic): on a mesh with "
              "dimension-ordered routing, a job's own communication cost only grows as it is dispersed (the Dilation "
              "of its placement, and the interference of every job whose routes now cross its own), so Random "
              "stretches heavy jobs most. Yang et al.'s gain comes from what the flow-level mesh lacks: adaptive "
              "routing on a dragonfly, where random placement spreads an intensive job's traffic over many global "
              "links that contiguous placement would concentrate in one group (self-congestion relief); their "
              "numbers come from packet-level simulation (CODES) of application traces, not a fluid model.",
))


# -- Bhatele et al. SC13 and Pollard et al. SC18: isolation and variability -------------------------
PROBE = ((8, 8), 5.0, 0.8)  # request, run time, communication fraction of the identical probe jobs


@lru_cache(maxsize=256)
def _probes(name: str, seed: int, jobs: int, warmup: int, load: float = 0.2) -> dict:
    """Run times of identical probe jobs (every fourth job: an 8x8 stencil of run time 5 that
    communicates 80% of it) among the mesh workload, under the contention model: the spread of the
    time they lose to their neighbours (standard deviation of interference over run time) and of
    their whole run time (min and max over the mean)."""
    import topoalloc
    from topologies import Mesh

    from ..models.contention import Contention

    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024, comm=Uniform(0.5, 1.0))
    request, runtime, comm = PROBE
    job_list = [dataclasses.replace(j, request=request, runtime=runtime, comm=comm, size=64) if j.id % 4 == 0 else j
                for j in w.take(jobs, seed)]
    r = simulate(topoalloc.get(name, Mesh(32, 32)), "FCFS", job_list, jobs=None, warmup=warmup, seed=seed,
                 runtime_model=Contention())
    t = r.table[r.table["id"] % 4 == 0]
    ran = t["end"] - t["start"]
    return {"neighbour_sd": float(np.std(t["interference"] / ran)), "low": float(ran.min() / ran.mean()),
            "high": float(ran.max() / ran.mean()), "placement_sd": float(np.std(t["dilation"] / ran))}


@lru_cache(maxsize=64)
def _tree_probes(name: str, seed: int, jobs: int, warmup: int) -> dict:
    """The same on a two-level fat tree of 8 leaf switches of 16 nodes with uplinks oversubscribed
    4:1, all-to-all jobs of 2..48 nodes (every fourth a probe of 16 nodes, run time 5, comm 0.8)."""
    import topoalloc
    from topologies import SwitchTree

    from ..models.contention import Contention

    tree = SwitchTree.uniform((8, 16), oversubscription=4)
    w = Synthetic(UniformCount(2, 48), Exponential(5.0), load=0.5, machine_size=128, comm=Uniform(0.5, 1.0))
    job_list = [dataclasses.replace(j, request=16, runtime=5.0, comm=0.8, size=16) if j.id % 4 == 0 else j
                for j in w.take(jobs, seed)]
    r = simulate(topoalloc.get(name, tree), "FCFS", job_list, jobs=None, warmup=warmup, seed=seed,
                 runtime_model=Contention(placement=None))
    t = r.table[r.table["id"] % 4 == 0]
    ran = t["end"] - t["start"]
    return {"neighbour_sd": float(np.std(t["interference"] / ran)), "low": float(ran.min() / ran.mean()),
            "high": float(ran.max() / ran.mean())}


def _isolation(size: Size) -> Outcome:
    jobs, warmup = size.pick(600, 5000), size.pick(60, 500)
    reps = _replications(size)

    def sd(f: Callable[..., dict], name: str) -> Callable[[int], float]:
        return lambda seed: f(name, seed, jobs, warmup)["neighbour_sd"]

    orderings = {
        "mesh: FirstFit < HilbertBestFit": (compare_paired(sd(_probes, "FirstFit"), sd(_probes, "HilbertBestFit"),
                                                           **reps), LESS),
        "mesh: FirstFit < Random": (compare_paired(sd(_probes, "FirstFit"), sd(_probes, "Random"), **reps), LESS),
        "fat tree: Isolating < FirstFree": (compare_paired(sd(_tree_probes, "Isolating"), sd(_tree_probes, "FirstFree"),
                                                           **reps), LESS),
    }
    holds, undecided, lines = _judge(orderings)
    seeds = orderings["mesh: FirstFit < Random"][0].seeds
    spread = []
    for label, f, names in (("mesh", _probes, ("FirstFit", "HilbertBestFit", "Random")),
                            ("fat tree", _tree_probes, ("Isolating", "FirstFree"))):
        for n in names:
            runs = [f(n, s, jobs, warmup) for s in seeds]
            low = round(min(x["low"] for x in runs) - 1, 3) + 0.0  # + 0.0: no "-0%"
            high = round(max(x["high"] for x in runs) - 1, 3) + 0.0
            spread.append(f"{label} {n} {low:+.0%} to {high:+.0%}")
    return Outcome(holds, "standard deviation over identical probe jobs of the share of their run time lost to "
                          "neighbours, paired over seeds: " + "; ".join(lines) + "; probes' run times around their "
                          "mean (all seeds): " + ", ".join(spread),
                   {k: {"verdict": o.verdict, "a": o.a, "b": o.b} for k, (o, _) in orderings.items()},
                   undecided=undecided)


register(Claim(
    id="lo97-bhatele13-isolation", paper="lo97",
    quantity="spread (standard deviation) of the run time lost to other jobs' traffic, contiguous minus "
             "non-contiguous, paired over seeds",
    where="Bhatele et al., SC13, abstract; Pollard et al., SC18, abstract",
    statement="isolating jobs removes the run-to-run variability their neighbours cause: identical jobs vary "
              "significantly less in the time they lose to other jobs' traffic on contiguous, isolated "
              "partitions (first fit on a mesh; Pollard et al.'s isolating allocation on a fat tree) than on "
              "non-contiguous ones (the Hilbert curve, a stand-in for the Cray node order, and Random; first free "
              "nodes on the tree)",
    paper_value="Cray XE: a communication-heavy application from 28% faster to 41% slower than its average; Blue "
                "Gene (isolated partitions): no noticeable variability (Bhatele et al., production machines); "
                "interference-free execution with isolated partitions (Pollard et al.)",
    run=_isolation,
    diagnosis="Reproduced as an ordering; the magnitudes are the model's. On contiguous boxes and isolated tree "
              "partitions the probes lose nothing to their neighbours (exactly: dimension-ordered routes inside a "
              "box stay in it, and an isolated partition owns its uplinks), as on Blue Gene. On non-contiguous "
              "placements they do: at full size the share of a probe's run time lost to neighbours has a standard "
              "deviation of about 3% under the Hilbert curve (its grants are compact runs whose stencils rarely "
              "cross other jobs' links), 18% under Random and 11% on the fat tree's first free nodes. Whole run "
              "times spread more (-6% to +234% of their mean under the Hilbert curve, -44% to +129% under Random, "
              "against -28% to +41% for Bhatele et al.'s Cray XE application), mostly from the placements' own "
              "dilation -- the shape of the allocation, one of the causes Bhatele et al. examined -- which the "
              "Dilation model makes linear in mean hops. The flow-level model has no adaptive routing, no message "
              "latency or size effects and no queueing below a link's capacity; Bhatele et al. measured production "
              "machines and Pollard et al. production fat-tree clusters.",
))

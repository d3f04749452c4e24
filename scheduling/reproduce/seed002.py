"""Chang & Mohapatra (seed 002): restricted size reduction vs limit folding, §4.2-4.4.

Workloads of §4.1: Poisson arrivals, exponential service of mean 5 (truncated normal, mean 5 and
standard deviation 2, where a claim says so), the 8-cube with subcube dimensions uniform on 0..7
(or §4.1's discretised normal) under buddy allocation, the 32x32 mesh with sides uniform on
[1, 32] (squares with side uniform on [1, 32] for the two-dimensional buddy, TDB). Every
simulation discards its first 500 jobs; quick runs 8,000 jobs on the 8-cube and 4,000 on the mesh
(saturation probes: 4,000 and 3,000), full runs the paper's 50,500 (probes too). Interpretation:
the offered load is §4.1's λ formula on the *requested* sizes (TDB rounds a square up to a
power-of-two side, so its processors in use exceed the offered load).

**Seeds.** Every comparison uses common random numbers (the same seed gives every policy the same
jobs). Seeds are the contiguous range starting at :data:`SEED_START` = 1. An ordering
(:func:`~scheduling.reproduce.judge.ordering`) replicates seeds 1, 2, ... until the 95% interval of
the paired difference excludes zero, at least 3 and at most :func:`_cap` (5 quick, 10 full) seeds.
A bound or a stated magnitude (:func:`~scheduling.reproduce.judge.bound`,
:func:`~scheduling.reproduce.judge.within`) uses seeds 1..3 quick and 1..5 full.

**Saturation load** (:func:`saturation_load`): the paper's "operational range" is the offered load
up to which a configuration stays stable. Per seed it is found by bisection on the offered load
between the bracket a claim states, each probe one simulation judged saturated or stable by
:func:`scheduling.metrics.saturation` (the backlog grew through the run), the same test
:mod:`scheduling.experiments.saturation` bisects with; the result is the final bracket's midpoint
(5 probes: a bracket 1/32 of the starting one, 0.016 on the 8-cube's [0.5, 1.0], 0.019 on the
mesh's [0.2, 0.8]). A result within one probe width of the starting bracket's end means the load
lies outside the bracket (each claim prints its bracket). A bound ("above 0.8") is judged on the
conservative end of each seed's bracket (the highest stable probe for "above", the lowest saturated
one for "below"), so the bisection's resolution cannot make it hold; orderings and magnitudes use
the midpoints, whose intervals over seeds do not include that resolution (seeds often land in the
same bracket: an interval of width 0 then means "the same bracket in every seed").
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from ..kernel.api import simulate
from ..metrics.significance import GREATER, LESS
from ..workloads import CubeDims, Exponential, MeshSides, Squares, Synthetic, TruncatedNormal
from ..workloads.distributions import CubeDiscreteNormal
from .claims import NOT_SIGNIFICANT, Claim, Outcome, Reading, Size, estimate, register
from .judge import Check, bound, fact, judged, ordering, paired, within

__all__ = ["SEED_START", "Run", "Bracket", "simulation", "saturation_load"]

#: The first seed of every replication range (seeds are ``SEED_START, SEED_START + 1, ...``).
SEED_START = 1
#: Saturation-load bisection probes (the final bracket is 1/2**PROBES of the starting one).
PROBES = 5
#: The machine each workload kind runs on: kind -> (allocator name, topology kind, size).
KINDS = ("cube", "cube-normal", "cube-tnormal", "mesh-FirstFit", "mesh-FrameSliding", "mesh-Buddy2D")


class Run(NamedTuple):
    """What a claim reads from one simulation (kept small: runs are cached)."""

    turnaround: float
    utilization: float
    saturated: bool
    unfinished: int
    #: Mean turnaround by requested size (cube: by requested dimension's processor count).
    by_size: dict[int, float]


class Bracket(NamedTuple):
    """A saturation-load bisection's result: the highest load found stable, the lowest found
    saturated, and the utilisation of the runs at each end."""

    stable: float
    saturated: float
    u_stable: float
    u_saturated: float

    @property
    def load(self) -> float:
        """The bracket's midpoint."""
        return (self.stable + self.saturated) / 2


def _seeds(size: Size) -> range:
    """Seeds of a bound or a magnitude: 1..3 quick, 1..5 full."""
    return range(SEED_START, SEED_START + size.pick(3, 5))


def _cap(size: Size) -> int:
    """The replication cap of an ordering: 5 quick, 10 full."""
    return int(size.pick(5, 10))


def _jobs(size: Size, kind: str = "cube") -> int:
    """Jobs per simulation: 8,000 quick on the 8-cube, 4,000 on the mesh; the paper's 50,500 full."""
    return int(size.pick(8000 if kind.startswith("cube") else 4000, 50_500))


def _probe_jobs(size: Size, kind: str = "cube") -> int:
    """Jobs per saturation probe: 4,000 quick on the 8-cube, 3,000 on the mesh; 50,500 full."""
    return int(size.pick(4000 if kind.startswith("cube") else 3000, 50_500))


@functools.cache
def simulation(kind: str, policy: str, load: float, seed: int, jobs: int) -> Run:
    """One simulation of §4.1's set-up ``kind`` (one of :data:`KINDS`) under ``policy`` at offered
    ``load`` (§4.1's λ = system size / (mean job size × mean service time) × load, on the requested
    sizes), cached per arguments. O(jobs) events."""
    import topoalloc
    from topologies import Hypercube, Mesh

    if kind not in KINDS:
        raise ValueError(f"unknown seed-002 workload kind {kind!r}; known: {', '.join(KINDS)}")
    if kind.startswith("cube"):
        sizes = CubeDiscreteNormal() if kind == "cube-normal" else CubeDims(7)
        service = TruncatedNormal(5.0, 2.0) if kind == "cube-tnormal" else Exponential(5.0)
        w = Synthetic(sizes, service, load=load, machine_size=256)
        alloc = topoalloc.Buddy(Hypercube(8))
    else:
        name = kind.split("-", 1)[1]
        w = Synthetic(Squares(32) if name == "Buddy2D" else MeshSides(32, 32), Exponential(5.0), load=load,
                      machine_size=1024)
        alloc = getattr(topoalloc, name)(Mesh(32, 32))
    r = simulate(alloc, policy, w, jobs=jobs, warmup=500, seed=seed)
    fair = r.fairness()
    sat = r.saturation()
    return Run(float(r.summary()["mean_turnaround"]), float(r.utilization), bool(sat["saturated"]),
               int(sat["unfinished"]),
               dict(zip(fair["size"].tolist(), map(float, fair["mean_turnaround"]), strict=True)))


@functools.cache
def saturation_load(kind: str, policy: str, seed: int, jobs: int, low: float, high: float,
                    probes: int = PROBES) -> Bracket:
    """The saturation load of ``policy`` on ``kind`` with ``seed``, by ``probes`` bisection probes
    of ``jobs`` jobs each between ``low`` (taken as stable) and ``high`` (taken as saturated); see
    the module docstring. O(probes) simulations."""
    lo, hi, u_lo, u_hi = low, high, float("nan"), float("nan")
    for _ in range(probes):
        mid = round((lo + hi) / 2, 6)
        r = simulation(kind, policy, mid, seed, jobs)
        if r.saturated:
            hi, u_hi = mid, r.utilization
        else:
            lo, u_lo = mid, r.utilization
    return Bracket(lo, hi, u_lo, u_hi)


def _sat(size: Size, kind: str, policy: str, low: float, high: float) -> Callable[[int], float]:
    return lambda seed: saturation_load(kind, policy, seed, _probe_jobs(size, kind), low, high).load


def _turn(size: Size, kind: str, policy: str, load: float) -> Callable[[int], float]:
    return lambda seed: simulation(kind, policy, load, seed, _jobs(size, kind)).turnaround


def _watched(size: Size, kind: str, policy: str, load: float,
             stable: dict[tuple[str, int], bool]) -> Callable[[int], float]:
    """:func:`_turn` that records, per seed it is asked for, whether the run was stable."""

    def measure(seed: int) -> float:
        r = simulation(kind, policy, load, seed, _jobs(size, kind))
        stable[(f"{kind} {policy}", seed)] = not r.saturated
        return r.turnaround

    return measure


def _ordering(size: Size, name: str, a: Callable[[int], float], b: Callable[[int], float], expect: str) -> Check:
    return ordering(name, a, b, expect, start=SEED_START, max_replications=_cap(size))


# --- §4.2, Fig. 2(a): one size reduction carries the 8-cube past 80% -------------------------------------------

_CUBE_BRACKET = (0.5, 1.0)


def _one_fold(size: Size) -> Outcome:
    jobs = _probe_jobs(size)
    b1 = [saturation_load("cube", "RSR-1", s, jobs, *_CUBE_BRACKET) for s in _seeds(size)]
    b0 = [saturation_load("cube", "RSR-0", s, jobs, *_CUBE_BRACKET) for s in _seeds(size)]
    checks = [bound("saturation load of RSR-1 > 0.8 (its highest stable probe)", [b.stable for b in b1], 0.8,
                    above=True),
              bound("saturation load of RSR-0 (buddy, no folding) < 0.8 (its lowest saturated probe)",
                    [b.saturated for b in b0], 0.8, above=False)]
    util = judged([bound("utilisation RSR-1 carries at its highest stable probe > 0.8", [b.u_stable for b in b1],
                         0.8, above=True)])
    return judged(checks, values={"rsr1": [b.load for b in b1], "rsr0": [b.load for b in b0],
                                  "rsr1_utilization": [b.u_stable for b in b1]},
                  readings={"utilisation at the saturation load": util})


register(Claim(
    id="002-fig2-one-fold", paper="002", where="§4.2, Fig. 2(a)",
    statement="in the hypercubes just one size reduction improves the operational range to more than 80% "
              "utilization (buddy without folding saturates below it)",
    quantity="saturation load (bisection on the offered load over [0.5, 1.0], backlog-growth test) of buddy with "
             "RSR-1 and RSR-0 on the 8-cube, uniform dimensions, per seed; bound over seeds",
    paper_value="RSR-1 operational range > 0.8", run=_one_fold,
    readings=(Reading("saturation load", True, "the operational range is the offered load up to which the 8-cube "
                                               "stays stable (§4.1: load is about utilisation before saturation)"),
              Reading("utilisation at the saturation load", True,
                      "the utilisation RSR-1 carries at the highest offered load found stable")),
))


# --- §4.4, Fig. 4(a): limit-k against the comparable RSR-t at low to medium load ------------------------------

#: §4.4's comparable pairs (same largest number of folds on the 8-cube).
LIMIT_PAIRS = (("Limit-0", "RSR-7"), ("Limit-5", "RSR-2"), ("Limit-6", "RSR-1"))


def _limit_vs_rsr(kind: str, limit: str, rsr: str) -> Callable[[Size], Outcome]:
    def run(size: Size) -> Outcome:
        checks = [_ordering(size, f"{limit} > {rsr} mean turnaround at load {load}", _turn(size, kind, limit, load),
                            _turn(size, kind, rsr, load), GREATER) for load in (0.3, 0.5)]
        return judged(checks)

    return run


for _limit, _rsr in LIMIT_PAIRS:
    register(Claim(
        id=f"002-fig4-{_limit.lower()}-vs-{_rsr.lower()}", paper="002", where="§4.4, Fig. 4(a)",
        statement=f"the limit allocations have relatively poor performance at low to medium load: {_limit} has a "
                  f"longer mean turnaround than the comparable {_rsr} (uniform dimensions)",
        quantity=f"mean turnaround, {_limit} minus {_rsr}, 8-cube buddy, at offered loads 0.3 and 0.5, paired over "
                 "seeds",
        run=_limit_vs_rsr("cube", _limit, _rsr),
    ))


# --- §4.4, Fig. 5(b): limit-5 penalises large jobs relative to RSR-2 ----------------------------------------------

def _fairness(size: Size) -> Outcome:
    small, large = [], []
    for seed in _seeds(size):
        lim = simulation("cube", "Limit-5", 0.7, seed, _jobs(size)).by_size
        rsr = simulation("cube", "RSR-2", 0.7, seed, _jobs(size)).by_size
        small.append(lim[1] - rsr[1])
        large.append(lim[128] - rsr[128])
    checks = [paired("Limit-5 minus RSR-2 turnaround: 128-processor jobs > 1-processor jobs", large, small, GREATER,
                     start=SEED_START),
              bound("Limit-5 minus RSR-2 turnaround of 128-processor jobs > 0", large, 0.0, above=True)]
    return judged(checks, values={"gap_small": small, "gap_large": large})


register(Claim(
    id="002-fig5-fairness", paper="002", where="§4.4, Fig. 5(b)",
    statement="the RSR scheme provides fairer treatment to jobs of different sizes than the limit allocation: "
              "limit-5 penalises large jobs more than small ones relative to RSR-2 at load 0.7",
    quantity="mean turnaround by requested size at load 0.7, Limit-5 minus RSR-2, 128-processor against "
             "1-processor jobs, paired over seeds",
    run=_fairness,
))


# --- §4.3, Fig. 3: frame sliding with RSR against first fit -------------------------------------------------------

_MESH_BRACKET = (0.2, 0.8)
#: The load of the turnaround comparison: the top of first fit's working region (its saturation
#: load is about 0.45), where every compared system is stable (checked per seed).
_FIG3_LOAD = 0.4


def _frame_vs_first_fit(size: Size) -> Outcome:
    ff = _sat(size, "mesh-FirstFit", "FCFS", *_MESH_BRACKET)
    fs = {t: _sat(size, "mesh-FrameSliding", f"RSR-{t}", *_MESH_BRACKET) for t in (1, 2, 3)}
    seeds = _seeds(size)
    diff1 = [fs[1](s) - ff(s) for s in seeds]
    stable: dict[tuple[str, int], bool] = {}
    checks = [within("|saturation load of frame sliding RSR-1 - first fit| (close after one reduction)", diff1,
                     0.0, 0.05),
              _ordering(size, "saturation load: frame sliding RSR-2 > first fit", fs[2], ff, GREATER),
              _ordering(size, "saturation load: frame sliding RSR-3 > first fit", fs[3], ff, GREATER),
              _ordering(size, f"mean turnaround at load {_FIG3_LOAD}: frame sliding RSR-3 < first fit",
                        _watched(size, "mesh-FrameSliding", "RSR-3", _FIG3_LOAD, stable),
                        _watched(size, "mesh-FirstFit", "FCFS", _FIG3_LOAD, stable), LESS),
              _ordering(size, "mean turnaround at load 0.05: frame sliding RSR-2 > first fit (slightly worse at very "
                        "low load)", _turn(size, "mesh-FrameSliding", "RSR-2", 0.05),
                        _turn(size, "mesh-FirstFit", "FCFS", 0.05), GREATER)]
    checks.append(fact(f"first fit and frame sliding RSR-3 stable at load {_FIG3_LOAD} in every seed compared",
                       all(stable.values()), f"{sum(stable.values())} of {len(stable)} runs stable"))
    ffs = [ff(s) for s in seeds]
    same = {t: _sat(size, "mesh-FirstFit", f"RSR-{t}", *_MESH_BRACKET) for t in (2,)}
    other = judged([_ordering(size, "saturation load: frame sliding RSR-2 > first fit RSR-2", fs[2], same[2],
                              GREATER)])
    text = (f"saturation loads over seeds {seeds.start}..{seeds.stop - 1} (bisection over {_MESH_BRACKET}): first fit "
            f"{estimate(ffs)[1]}, frame sliding RSR-1 {estimate([fs[1](s) for s in seeds])[1]}, RSR-2 "
            f"{estimate([fs[2](s) for s in seeds])[1]}, RSR-3 {estimate([fs[3](s) for s in seeds])[1]}; ")
    return judged(checks, text + "; ".join(str(c) for c in checks), readings={"against first fit with the same RSR-t":
                                                                              other})


register(Claim(
    id="002-fig3-frame-sliding", paper="002", where="§4.3, Fig. 3",
    statement="an algorithm with low submesh recognition ability can provide a wider operational range and lower "
              "turnaround time with the help of the RSR scheme: frame sliding performs closely to first fit after "
              "one size reduction, outperforms it with a wider operational range with more, has a lower "
              "turnaround in the working region, and a slightly worse one under very low load",
    quantity="saturation load (bisection over [0.2, 0.8]) of frame sliding with RSR-1/2/3 against first fit without "
             "folding, 32x32 mesh, paired over seeds (RSR-1: difference within ±0.05); mean turnaround at loads 0.4 "
             "(both stable; RSR-3) and 0.05 (RSR-2), paired over seeds",
    paper_value="close with RSR-1 (read as saturation loads within ±0.05); wider operational range with more folds",
    run=_frame_vs_first_fit,
    expected=NOT_SIGNIFICANT, expected_full=True,
    readings=(Reading("against first fit without folding", True,
                      "§4.3: an inferior recogniser with RSR against a perfect one (first fit, no folding)"),
              Reading("against first fit with the same RSR-t", False,
                      "both allocators fold: frame sliding RSR-2 against first fit RSR-2")),
))


# --- §4.2, Fig. 1(b): frame sliding's operational range with three reductions ------------------------------------

def _frame_sliding_range(size: Size) -> Outcome:
    seeds = _seeds(size)
    k = "mesh-FrameSliding"
    b3 = [saturation_load(k, "RSR-3", s, _probe_jobs(size, k), *_MESH_BRACKET) for s in seeds]
    ratio = [simulation(k, "RSR-3", 0.5, s, _jobs(size, k)).turnaround / 5.0 for s in seeds]
    cap = [simulation(k, "RSR-3", 0.8, s, _jobs(size, k)).utilization for s in seeds]
    turn = within("mean turnaround at load 0.5 over the execution time 5 in 5-20", ratio, 12.5, 7.5)
    main = judged([within("saturation load of frame sliding RSR-3 in 0.45-0.60", [b.load for b in b3], 0.525, 0.075),
                   turn], values={"saturation_load": [b.load for b in b3], "turnaround_ratio": ratio})
    other = judged([within("utilisation carried at offered load 0.8 in 0.45-0.60", cap, 0.525, 0.075), turn],
                   values={"capacity": cap})
    return Outcome(main.holds, main.ours, main.values, undecided=main.undecided,
                   readings={"utilisation carried when overloaded": other})


register(Claim(
    id="002-fig1-frame-sliding-range", paper="002", where="§4.2, Fig. 1(b)",
    statement="in the mesh system using frame-sliding allocation, the operational range is increased to around 50% "
              "utilization with three size reductions allowed; beyond it the average turnaround time becomes "
              "approximately 10 times the expected execution time",
    quantity="saturation load of frame sliding RSR-3 on the 32x32 mesh (bisection over [0.2, 0.8]) per seed; mean "
             "turnaround at load 0.5 over the mean execution time 5; magnitudes over seeds",
    paper_value="~50% utilization; ~10x the execution time (read here as 0.45-0.60 and 5-20x)",
    run=_frame_sliding_range,
    readings=(Reading("saturation load", True, "the operational range is the offered load up to which the mesh "
                                               "stays stable"),
              Reading("utilisation carried when overloaded", True,
                      "the utilisation frame sliding RSR-3 reaches at offered load 0.8 (saturated)")),
))

from . import seed002_more as _more  # noqa: E402,F401 - registers the remaining claims

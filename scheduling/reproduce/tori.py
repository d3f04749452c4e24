"""Box-shaped against non-contiguous allocation on a 3D torus: two published directions.

* **Fugaku.** RIKEN R-CCS, "Supercomputer Fugaku Users Guide - Use and job execution", §3.4.1
  "Compute node": a job's nodes are allocated non-contiguously (``noncont``, the default for
  resource groups of at most 384 nodes), as a mesh or as a torus; "if mesh or torus is specified,
  the wait time before running the job is longer than noncont". No numbers are given.
* **Blue Waters.** NCSA, "Topology Aware Scheduling" (the Blue Waters user portal page; in
  production from January 13, 2015; the study behind it is Enos et al., "Topology-aware job
  scheduling strategies for torus networks", Cray User Group 2014): each job gets a contiguous
  convex prism of the Gemini 3D torus, so that "all communication traffic ... for each job is
  completely contained within the prism" when the prisms are "sufficiently small"; this "can
  improve performance for many types of jobs, and variation in run-to-run performance is
  diminished. However, the constraints on job placement may result in jobs waiting longer in the
  job queue, and overall system utilization may decrease". The page gives no numbers. The CUG
  paper's text, or any public source quoting its numbers, could not be found: searched (public
  web pages, documentation pages, code and issue threads) for its title, its authors with "Cray
  User Group 2014", "Blue Waters topology-aware scheduling" with wait time, utilisation,
  run-time variability or the applications usually measured there, and "Shape Table" with Blue
  Waters; what turned up is the page above, the Blue Waters user guide and queue policies, and
  Li, Malawski & Nabrzyski, "Topology-aware scheduling on Blue Waters with proactive queue
  scanning and migration-based job placement" (JSSPP 2016), whose abstract states the direction
  only (the prism requirement causes internal fragmentation, contiguous allocation external
  fragmentation, and the pre-defined Shape Table is slow to search) with no numbers of the 2014
  study and no statement of which prism shapes the table allows for a node count. So the claim
  compares directions only, and the prisms are read as any box (below). The alternative the
  issue allows, Tang et al., IPDPS 2011, needs the ANL Intrepid log, which is not among the shared
  traces (the Parallel Workloads Archive logs of CTC, HPC2N, NASA, SDSC and a Lublin model).

**Machine and workload.** A 3D torus (quick: ``Torus(8, 8, 8)``, 512 nodes; full:
``Torus(16, 16, 16)``, 4,096 nodes) replaying the SDSC-SP2 log (128 nodes) with every job's node
count scaled by the machine's size over 128 (x4, x32), so the offered load is the log's. A job of
``n`` nodes asks for the torus's near-cube shape ``Torus.request_for(n)`` (the product of its sides
at least ``n``); **both sides of a comparison are given that same shape**, which a non-contiguous
allocator grants as that many nodes anywhere, so the two see the same jobs and the same node-time
and differ only in where the nodes may be (interpretation: a Fugaku user asks ``noncont`` for a
node count, whose near-cube shape may be a few nodes more; giving both the shape isolates the
contiguity constraint the guide speaks of). Backfilling as production machines run it: EASY, with
the log's requested times as the estimates.

**Replications.** Replication ``s`` is the ``s``-th window of consecutive jobs of the log
(quick: 300 jobs; full: 2,000), replayed from an empty machine with its arrivals rebased, so the
"seeds" are the contiguous range of windows ``0, 1, ...``; both sides of an ordering run the same
window (common jobs). Each ordering is a paired difference asserted significant with
:func:`~scheduling.metrics.significance.compare_paired` (95% interval excluding zero; quick: 3 to 6
windows, full: 5 to 20); one still straddling zero at the cap makes the claim
:data:`~scheduling.reproduce.claims.NOT_SIGNIFICANT`, never reproduced.

**Allocators.** The box side is :class:`~topoalloc.grid.FirstFit` with ``permute=True`` (Fugaku's
scheduler may permute a shape's axes; Blue Waters' prisms came from a table of shapes, read here as
any box, first fit in node-id order). The non-contiguous side is the sorted free list along a
Hilbert curve (:class:`~topoalloc.grid.Curve`, ``fit="free_list"``, the first free nodes along
the curve: the node ordering Cray's ALPS allocates by on Blue Waters' torus, read as a curve;
Albing et al., EuroMPI 2011). For Fugaku's rule, :class:`~topoalloc.grid.SizeClass` with the
guide's boundary (jobs of fewer than 385 nodes non-contiguous, the others a box) and that curve
list as its small allocator (interpretation: the guide does not say how ``noncont`` picks nodes;
the class's default :class:`~topoalloc.grid.MC1x1` took about 70 s per 500-job window on 4,096
nodes under EASY's what-if calls, against about 2 s with the curve list; where the small jobs' nodes
lie changes which boxes stay free for the large ones, so the two give different schedules).

**Run-time variability** (Blue Waters). Jobs communicate a fraction of their run time uniform on
``[0.5, 1]`` (drawn from the window's ``comm`` stream, :func:`~scheduling.workloads.streams`), an
all-to-all over their nodes, and slow each other through shared links under the flow-level
:class:`~scheduling.models.contention.Contention` model with no placement cost of its own
(``placement="none"``: the interference between jobs is what the claim is about). A job's
*interference share* is the part of its run time lost to other jobs' traffic; the variability is
its standard deviation over the window's jobs. Interpretations: the page's "run-to-run variation"
(the same application run again) is read as the spread of that share across jobs; the all-to-all
is dimension-ordered and takes the shorter way round each ring, so a prism with a side longer than
half its ring routes some traffic outside itself -- the page's "sufficiently small" caveat, kept
(a nearest-neighbour stencil on a box that wraps round a ring is laid on its sorted node ids by the
contention model, not on the box's own grid, so it is not used here).

Complexity: one simulation per allocator and window (cached per process), O(windows) of them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..kernel.api import simulate
from ..metrics.significance import GREATER, LESS, NOT_SIGNIFICANT, Ordering, compare_paired
from .claims import Claim, Outcome, Size, register

__all__: list[str] = []

#: The log replayed and its machine's node count.
TRACE, TRACE_NODES = "SDSC-SP2-1998-4.2-cln", 128
#: The first window (replication) of every comparison.
START = 0
#: Fugaku's boundary: resource groups of up to 384 nodes may be non-contiguous.
THRESHOLD = 385
BOX, CURVE, FUGAKU = "FirstFit(permute)", "HilbertFreeList", "SizeClass(385)"


@dataclasses.dataclass(frozen=True)
class Setup:
    """One size of the experiment: the torus's ``side`` (a cube), the jobs per ``window`` and the
    replication bounds."""

    side: int
    window: int
    min_replications: int
    max_replications: int

    @property
    def nodes(self) -> int:
        return self.side ** 3

    @property
    def scale(self) -> int:
        """Each job's node count is multiplied by this (the machine over the log's 128 nodes)."""
        return self.nodes // TRACE_NODES


QUICK, FULL = Setup(8, 300, 3, 6), Setup(16, 2000, 5, 20)


def _setup(size: Size) -> Setup:
    return QUICK if size.quick else FULL


def _torus(setup: Setup) -> Any:
    from topologies import Torus

    return Torus(setup.side, setup.side, setup.side)


@functools.lru_cache(maxsize=4)
def _log(jobs: int) -> tuple[Any, ...]:
    """The first ``jobs`` usable jobs of the log (processor counts; the reader's report lists the
    records it skipped)."""
    from ..workloads import load_swf, trace_path

    got = tuple(load_swf(trace_path(TRACE), limit=jobs))
    if len(got) < jobs:
        raise ValueError(f"{TRACE}: {len(got)} usable jobs, {jobs} needed")
    return got


@functools.lru_cache(maxsize=64)
def _window(setup: Setup, w: int) -> tuple[Any, ...]:
    """Window ``w`` of the log on the setup's torus: counts scaled, near-cube shapes, arrivals
    rebased, ids renumbered, communication fractions from the window's ``comm`` stream."""
    from ..workloads import streams

    log = _log((START + setup.max_replications) * setup.window)
    chunk = log[w * setup.window:(w + 1) * setup.window]
    if len(chunk) < setup.window:
        raise ValueError(f"window {w} of {TRACE} needs jobs {w * setup.window}..{(w + 1) * setup.window - 1}")
    torus = _torus(setup)
    comm = streams(w)["comm"].uniform(0.5, 1.0, len(chunk))
    t0 = chunk[0].arrival
    return tuple(dataclasses.replace(j, id=i, arrival=j.arrival - t0, size=j.size * setup.scale, attrs={},
                                     request=torus.request_for(j.size * setup.scale), comm=float(c))
                 for i, (j, c) in enumerate(zip(chunk, comm.tolist(), strict=True)))


def _allocator(name: str, torus: Any) -> Any:
    import topoalloc
    from topoalloc.grid import Curve, SizeClass

    if name == BOX:
        return topoalloc.get("FirstFit", torus, permute=True)
    if name == FUGAKU:
        return SizeClass(torus, threshold=THRESHOLD, small=functools.partial(Curve, curve="hilbert", fit="free_list"))
    return topoalloc.get(name, torus)


@functools.lru_cache(maxsize=256)
def _run(name: str, setup: Setup, w: int, contention: bool) -> dict[str, float]:
    """One EASY replay of window ``w`` under allocator ``name``: mean wait (all jobs, and those
    below :data:`THRESHOLD` nodes), utilisation, and with ``contention`` the interference shares'
    mean and standard deviation."""
    model = None
    if contention:
        from ..models.contention import Contention

        model = Contention(pattern="all-to-all", placement="none")
    r = simulate(_allocator(name, _torus(setup)), "EASY", list(_window(setup, w)), jobs=None, runtime_model=model)
    t = r.table
    small = t["requested"] < THRESHOLD
    out = {"wait": float(r.wait.mean()), "small_wait": float(r.wait[small].mean()) if small.any() else 0.0,
           "utilization": float(r.utilization)}
    if contention:
        ran = t["end"] - t["start"]
        share = np.divide(t["interference"], ran, out=np.zeros(len(t)), where=ran > 0)
        out.update(interference_mean=float(share.mean()), interference_sd=float(share.std()))
    return out


def _measure(name: str, metric: str, size: Size, contention: bool = False) -> Callable[[int], float]:
    setup = _setup(size)
    return lambda w: _run(name, setup, w, contention)[metric]


def _compare(a: str, b: str, metric: str, size: Size, contention: bool = False) -> Ordering:
    setup = _setup(size)
    return compare_paired(_measure(a, metric, size, contention), _measure(b, metric, size, contention), start=START,
                          min_replications=setup.min_replications, max_replications=setup.max_replications)


def _judge(orderings: dict[str, tuple[Ordering, str]]) -> tuple[bool, tuple[str, ...], list[str]]:
    """``holds`` (every ordering significant the asserted way), the undecided ones (when none is
    refuted) and one line per ordering."""
    refuted = [k for k, (o, want) in orderings.items() if o.verdict not in (want, NOT_SIGNIFICANT)]
    undecided = tuple(k for k, (o, _) in orderings.items() if o.verdict == NOT_SIGNIFICANT)
    holds = not refuted and not undecided
    lines = [f"{k}: {o.verdict} (A - B = {o.mean:.4g} [{o.low:.4g}, {o.high:.4g}], mean A {np.mean(o.a):.4g}, "
             f"mean B {np.mean(o.b):.4g}, n={o.replications}, windows {o.start}..{o.start + o.replications - 1})"
             for k, (o, _) in orderings.items()]
    return holds, () if refuted else undecided, lines


def _values(orderings: dict[str, tuple[Ordering, str]]) -> dict[str, Any]:
    return {k: {"verdict": o.verdict, "mean": o.mean, "low": o.low, "high": o.high, "a": o.a, "b": o.b}
            for k, (o, _) in orderings.items()}


def _where(size: Size) -> str:
    s = _setup(size)
    return (f"on the {s.side}x{s.side}x{s.side} torus ({s.nodes} nodes; {TRACE} x{s.scale}, windows of {s.window} "
            f"jobs, EASY)")


# -- Fugaku -----------------------------------------------------------------------------------------
def _fugaku(size: Size) -> Outcome:
    orderings = {
        f"{BOX} > {FUGAKU}: mean wait of the jobs below {THRESHOLD} nodes":
            (_compare(BOX, FUGAKU, "small_wait", size), GREATER),
        f"{BOX} > {CURVE}: mean wait of all jobs": (_compare(BOX, CURVE, "wait", size), GREATER),
    }
    holds, undecided, lines = _judge(orderings)
    return Outcome(holds, f"{_where(size)}, seconds, paired over windows: " + "; ".join(lines), _values(orderings),
                   undecided=undecided)


register(Claim(
    id="tori-fugaku-noncont-waits-less", paper="tori",
    where="Fugaku Users Guide, Use and job execution, §3.4.1",
    statement="if mesh or torus is specified, the wait time before running the job is longer than noncont; read as: "
              "on a 3D torus under EASY (SDSC-SP2 scaled to the machine, each job the same near-cube shape on both "
              "sides), the jobs below 385 nodes wait significantly longer on average when every job takes a box "
              "(first fit, axes permuted) than under Fugaku's size classes (non-contiguous below 385 nodes, a box "
              "from 385), and all jobs wait longer with boxes than with the non-contiguous curve free list",
    run=_fugaku,
    paper_value="mesh/torus waits longer than noncont (no numbers in the guide)",
    quantity="mean wait (s): of the jobs below 385 nodes, box first fit minus size classes; of all jobs, box first "
             "fit minus the curve free list; paired over log windows",
))


# -- Blue Waters -------------------------------------------------------------------------------------
def _blue_waters(size: Size) -> Outcome:
    orderings = {
        f"{BOX} > {CURVE}: mean wait": (_compare(BOX, CURVE, "wait", size, True), GREATER),
        f"{BOX} < {CURVE}: utilisation": (_compare(BOX, CURVE, "utilization", size, True), LESS),
        f"{BOX} < {CURVE}: sd of the interference share": (_compare(BOX, CURVE, "interference_sd", size, True), LESS),
    }
    holds, undecided, lines = _judge(orderings)
    setup = _setup(size)
    shares = {n: [_run(n, setup, w, True)["interference_mean"] for w in range(START, START + setup.min_replications)]
              for n in (BOX, CURVE)}
    mean_share = ", ".join(f"{n} {np.mean(v):.2%}" for n, v in shares.items())
    return Outcome(holds, f"{_where(size)}, with contention (all-to-all, communication fraction uniform on [0.5, 1]), "
                          "paired over windows: " + "; ".join(lines)
                   + f"; mean share of run time lost to other jobs over the first {setup.min_replications} windows: "
                     f"{mean_share}",
                   {**_values(orderings), "interference_mean": shares}, undecided=undecided)


register(Claim(
    id="tori-bluewaters-prism-tradeoff", paper="tori",
    where="NCSA Blue Waters, Topology Aware Scheduling (Enos et al., CUG 2014)",
    statement="assigning each job a contiguous convex prism of the 3D torus diminishes the variation in run-to-run "
              "performance, but jobs may wait longer in the queue and overall system utilization may decrease; read "
              "as: on a 3D torus under EASY with jobs slowing each other through shared links (flow-level "
              "contention, all-to-all), box first fit against the curve-ordered free list on the same jobs gives a "
              "significantly longer mean wait, a lower utilisation and a smaller spread (standard deviation over "
              "jobs) of the share of run time lost to other jobs",
    run=_blue_waters,
    paper_value="longer waits, lower utilization, less run-to-run variation (no numbers on the page; neither the "
                "CUG 2014 paper nor any public source quoting its numbers could be found)",
    quantity="mean wait (s), utilisation, and the standard deviation over jobs of the share of run time lost to "
             "other jobs, box first fit minus the curve free list, paired over log windows",
))

"""Non-contiguous allocators on the 32x32 mesh under FCFS, without communication cost: they all
recognise any free processors, so they schedule alike (the paper claim that they sustain loads the
contiguous allocators saturate at is ``lo97-fcfs-sustain`` in scheduling/reproduce/noncontig.py).

Reduced size: the seed 002 mesh workload (sides uniform on 1..32, exponential service of mean 5,
Poisson arrivals), FCFS without folding, 2,000 jobs after 200 warm-up jobs, three seeds, common
random numbers (every allocator sees the same job stream per seed). The full-size comparison against
load is ``examples/noncontig_fcfs_mesh.toml``.

"Sustains" is measured by the backlog: at offered load 0.55 -- above the saturation point of the
contiguous allocators (first fit saturates near 0.45 in this workload, seed 002 Fig. 3) -- a run
that carries the load ends with a bounded backlog (fewer than 5% of the jobs still queued or
running when the 2,000th job completes: a few tens at this load) and a utilization within 0.03 of
the offered load, while a saturated run ends with a queue that grows with the run (more than 10% of
the jobs; first fit leaves about 500). Utilization alone cannot rank
the contiguous allocators: the two-dimensional buddy counts its rounded-up squares as busy.
"""

import numpy as np
import pytest

import topoalloc
from scheduling import simulate
from scheduling.workloads import Exponential, MeshSides, Synthetic
from topologies import Mesh

SEEDS = (1, 2)
LOAD = 0.55
JOBS, WARMUP = 800, 100
MESH = Mesh(32, 32)
ANY = [n for n in topoalloc.names("mesh") if topoalloc.get(n, MESH).recognition == "any"]
CONTIGUOUS = [n for n in topoalloc.names("mesh") if n not in ANY]
NONCONTIGUOUS = ANY


def run(name, seed):
    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=LOAD, machine_size=1024)
    # 2,000 completions take about 5,000 time units at this load; the bound only stops a run that
    # cannot place some job at all (a broken allocator) from queueing arrivals for ever
    return simulate(topoalloc.get(name, MESH), "FCFS", w, jobs=JOBS, warmup=WARMUP, seed=seed, until=100_000.0)


@pytest.fixture(scope="module")
def runs():
    return {(name, seed): run(name, seed) for name in NONCONTIGUOUS for seed in SEEDS}


def test_the_allocators_compared():
    assert {"Random", "Naive", "Paging", "MBS", "HilbertBestFit", "MC1x1", "MM"} <= set(ANY)
    assert set(CONTIGUOUS) == {"Buddy2D", "FrameSliding", "FirstFit", "BestFit", "Partitions", "SizeClass"}


def test_without_communication_cost_every_noncontiguous_allocator_schedules_alike(runs):
    """They all recognise any free processors, so FCFS starts the same jobs at the same times: the
    job tables agree exactly (only where the jobs run differs)."""
    for seed in SEEDS:
        first = runs[NONCONTIGUOUS[0], seed].table
        for name in NONCONTIGUOUS[1:]:
            table = runs[name, seed].table
            assert np.array_equal(table["start"], first["start"]) and np.array_equal(table["end"], first["end"])


def test_on_a_torus_mm_schedules_like_the_other_noncontiguous_allocators():
    """MM (Bender et al. 2008) recognises any free processors too: on a 4x4x4 torus, FCFS starts the
    same jobs at the same times under MM, Random and the Hilbert free list (300 jobs, counts 1..40)."""
    from scheduling import Job
    from topologies import Torus

    rng = np.random.default_rng(5)
    arrivals = np.cumsum(rng.exponential(1.0, 300))
    jobs = [Job(i, float(t), int(n), float(d)) for i, (t, n, d) in
            enumerate(zip(arrivals, rng.integers(1, 41, 300), rng.exponential(8.0, 300), strict=True))]
    tables = [simulate(topoalloc.get(name, Torus(4, 4, 4)), "FCFS", jobs, jobs=None).table
              for name in ("MM", "Random", "HilbertFreeList")]
    for t in tables[1:]:
        assert np.array_equal(t["start"], tables[0]["start"]) and np.array_equal(t["end"], tables[0]["end"])
    assert (tables[0]["start"] > tables[0]["arrival"]).any()  # some job waited: the machine filled up

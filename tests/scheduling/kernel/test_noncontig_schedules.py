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
NONCONTIGUOUS = [n for n in topoalloc.names("mesh") if topoalloc.get(n, MESH).recognition == "any"]
CONTIGUOUS = [n for n in topoalloc.names("mesh") if n not in NONCONTIGUOUS]


def run(name, seed):
    w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=LOAD, machine_size=1024)
    # 2,000 completions take about 5,000 time units at this load; the bound only stops a run that
    # cannot place some job at all (a broken allocator) from queueing arrivals for ever
    return simulate(topoalloc.get(name, MESH), "FCFS", w, jobs=JOBS, warmup=WARMUP, seed=seed, until=100_000.0)


@pytest.fixture(scope="module")
def runs():
    return {(name, seed): run(name, seed) for name in NONCONTIGUOUS for seed in SEEDS}


def test_the_allocators_compared():
    assert {"Random", "Naive", "Paging", "MBS", "HilbertBestFit", "MC1x1"} <= set(NONCONTIGUOUS)
    assert set(CONTIGUOUS) == {"Buddy2D", "FrameSliding", "FirstFit", "BestFit", "Partitions", "SizeClass"}


def test_without_communication_cost_every_noncontiguous_allocator_schedules_alike(runs):
    """They all recognise any free processors, so FCFS starts the same jobs at the same times: the
    job tables agree exactly (only where the jobs run differs)."""
    for seed in SEEDS:
        first = runs[NONCONTIGUOUS[0], seed].table
        for name in NONCONTIGUOUS[1:]:
            table = runs[name, seed].table
            assert np.array_equal(table["start"], first["start"]) and np.array_equal(table["end"], first["end"])

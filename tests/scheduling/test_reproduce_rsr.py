"""Chang & Mohapatra (seed 002) at reduced size: the paper's claims, as the paper states them.

Full-size runs (50,500 jobs, first 500 discarded) are in examples/rsr_hypercube.py and
examples/rsr_mesh.py. Here every comparison uses common random numbers (the same seeds for every
policy) and several seeds.
"""

import numpy as np
import pytest

from scheduling import simulate
from scheduling.workloads import CubeDims, Exponential, MeshSides, Synthetic
from topoalloc import Buddy
from topologies import Hypercube, Mesh

SEEDS = (1, 2, 3)


def cube_run(policy, load, seed, jobs=8000, sizes=None):
    w = Synthetic(sizes or CubeDims(7), Exponential(5.0), load=load, machine_size=256)
    return simulate(Buddy(Hypercube(8)), policy, w, jobs=jobs, warmup=500, seed=seed)


def test_one_fold_lifts_the_operational_range_past_80_percent():
    """§4.2, Fig. 2: at a load where buddy without folding (RSR-0) saturates, RSR-1 is stable,
    with utilization past 80%."""
    for seed in SEEDS:
        rsr0 = cube_run("FCFS", 0.8, seed)
        rsr1 = cube_run("RSR-1", 0.8, seed)
        # RSR-0 cannot carry the offered load: utilization stuck well below it, backlog growing
        assert rsr0.utilization < 0.72
        assert rsr0.unfinished > 0.1 * 8000
        # RSR-1 carries it: utilization ~ the load, a small backlog, turnaround tens of times shorter
        assert rsr1.utilization > 0.78
        assert rsr1.unfinished < 0.02 * 8000
        assert rsr1.summary()["mean_turnaround"] * 10 < rsr0.summary()["mean_turnaround"]


@pytest.mark.parametrize("limit,rsr", [("Limit-0", "RSR-7"), ("Limit-5", "RSR-2"), ("Limit-6", "RSR-1")])
def test_limit_k_is_slower_than_its_rsr_pair_at_low_load(limit, rsr):
    """§4.4, Fig. 4: limit-k folds large jobs whatever the load, so at low load it has the longer
    mean turnaround of the comparable pair."""
    lim = np.mean([cube_run(limit, 0.3, s).summary()["mean_turnaround"] for s in SEEDS])
    adaptive = np.mean([cube_run(rsr, 0.3, s).summary()["mean_turnaround"] for s in SEEDS])
    assert lim > adaptive


def test_limit_5_is_less_fair_to_large_jobs_than_rsr_2():
    """§4.4, Fig. 5(b): at load 0.7, limit-5's mean turnaround for large jobs exceeds RSR-2's by
    more than it does for small jobs."""
    gap_small, gap_large = [], []
    for seed in SEEDS:
        lim = cube_run("Limit-5", 0.7, seed, jobs=10000).fairness()
        rsr = cube_run("RSR-2", 0.7, seed, jobs=10000).fairness()
        by_lim = dict(zip(lim["size"].tolist(), lim["mean_turnaround"], strict=True))
        by_rsr = dict(zip(rsr["size"].tolist(), rsr["mean_turnaround"], strict=True))
        gap_small.append(by_lim[1] - by_rsr[1])
        gap_large.append(by_lim[128] - by_rsr[128])
    assert np.mean(gap_large) > np.mean(gap_small)
    assert np.mean(gap_large) > 0


def test_frame_sliding_with_rsr_2_beats_first_fit_without_folding_at_high_load():
    """§4.3, Fig. 3: on the 32x32 mesh, at a high load where first fit without folding saturates,
    frame sliding with RSR-2 has the shorter mean turnaround."""
    import topoalloc

    load = 0.5
    for seed in SEEDS:
        w = Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024)
        ff = simulate(topoalloc.FirstFit(Mesh(32, 32)), "FCFS", w, jobs=4000, warmup=300, seed=seed)
        fs = simulate(topoalloc.FrameSliding(Mesh(32, 32)), "RSR-2", w, jobs=4000, warmup=300, seed=seed)
        assert ff.utilization < load - 0.03  # first fit without folding saturates here
        assert fs.summary()["mean_turnaround"] < ff.summary()["mean_turnaround"]

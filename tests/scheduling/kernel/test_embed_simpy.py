"""The same workload through SimPy (examples/embed_simpy.py) and the built-in simulator."""

import importlib.util
from pathlib import Path

import pytest

from scheduling import policies, simulate
from scheduling.workloads import CubeDims, Exponential, MeshSides, Synthetic
from topoalloc import Buddy, FlatPool
from topologies import Flat, Hypercube, Mesh

pytest.importorskip("simpy", reason="simpy is in the test extra; install it to run the embedding test")

_EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "embed_simpy.py"


def _load():
    spec = importlib.util.spec_from_file_location("embed_simpy", _EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("policy", ["FCFS", "RSR-1", "Limit-5"])
def test_simpy_and_builtin_give_the_same_schedule_on_a_cube(policy):
    jobs = Synthetic(CubeDims(7), Exponential(5.0), load=0.75, machine_size=256).take(1500, seed=2)
    ours = simulate(Buddy(Hypercube(8)), policy, jobs, jobs=None).schedule()
    theirs = _load().run_with_simpy(Buddy(Hypercube(8)), policies.get(policy), jobs)
    assert len(ours) == 1500
    assert ours == theirs


def test_simpy_and_builtin_agree_on_a_flat_machine():
    from scheduling.workloads import UniformCount

    jobs = Synthetic(UniformCount(1, 64), Exponential(5.0), load=0.8, machine_size=64).take(1000, seed=3)
    ours = simulate(FlatPool(Flat(64)), "RSR-2", jobs, jobs=None).schedule()
    assert ours == _load().run_with_simpy(FlatPool(Flat(64)), policies.get("RSR-2"), jobs)


def test_simpy_and_builtin_agree_on_a_mesh():
    import topoalloc

    jobs = Synthetic(MeshSides(16, 16), Exponential(5.0), load=0.6, machine_size=256).take(800, seed=4)
    ours = simulate(topoalloc.FirstFit(Mesh(16, 16)), "RSR-1", jobs, jobs=None).schedule()
    assert ours == _load().run_with_simpy(topoalloc.FirstFit(Mesh(16, 16)), policies.get("RSR-1"), jobs)


@pytest.mark.parametrize("policy", ["EASY", "Conservative"])
def test_simpy_and_builtin_agree_when_events_share_an_instant(policy):
    """Integer times: many jobs end and arrive at the same second, so both drivers must deliver
    every event of an instant before the one decision (backfilling depends on it)."""
    import numpy as np

    from scheduling import Job

    rng = np.random.default_rng(5)
    n = 600
    sizes = rng.integers(1, 33, n)
    runs = np.ceil(rng.exponential(20.0, n))
    runs[::37] = 0.0  # zero-length jobs too
    arrivals = np.cumsum(np.round(rng.exponential(6.0, n)))
    estimates = np.ceil(runs * rng.uniform(1.0, 3.0, n))
    jobs = [Job(i, float(arrivals[i]), int(sizes[i]), float(runs[i]), estimate=float(estimates[i])) for i in range(n)]
    ours = simulate(FlatPool(Flat(64)), policy, jobs, jobs=None).schedule()
    ends = [e for _, _, e, _ in ours]
    assert len(ends) - len(set(ends)) > 30  # simultaneous ends do occur
    assert ours == _load().run_with_simpy(FlatPool(Flat(64)), policies.get(policy), jobs)

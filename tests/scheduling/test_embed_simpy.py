"""The same workload through SimPy (examples/embed_simpy.py) and the built-in simulator."""

import importlib.util
from pathlib import Path

import pytest

from scheduling import policies, simulate
from scheduling.workloads import CubeDims, Exponential, MeshSides, Synthetic
from topoalloc import Buddy, FlatPool
from topologies import Flat, Hypercube, Mesh

pytest.importorskip("simpy", reason="simpy is in the test extra; install it to run the embedding test")

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "embed_simpy.py"


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

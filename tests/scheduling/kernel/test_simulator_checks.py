"""What ``simulate`` refuses before it starts: an endless workload with no stop, and requests the
allocator's topology cannot take (named on both sides)."""

from __future__ import annotations

import pytest

from scheduling import EmptyWorkloadError, ParameterError, simulate
from scheduling.kernel.jobs import Job
from scheduling.kernel.simulator import Simulator, check_requests, is_endless
from scheduling.models.applications import ApplicationMix
from scheduling.workloads import (
    CountsOn,
    CubeDims,
    Downey,
    Exponential,
    MeshSides,
    Squares,
    Synthetic,
    UniformCount,
    ismail_dynamic,
)
from topoalloc import Buddy, DHCTree, FirstFit, FlatPool, RequestSizeError, RequestTypeError
from topologies import Flat, Hypercube, Mesh


def mesh_work(**kw):
    return Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.3, machine_size=1024, **kw)


def test_which_workloads_are_endless():
    assert is_endless(mesh_work()) and is_endless(ApplicationMix(load=0.5, machine_size=64))
    assert is_endless(Downey(days=None)) and not is_endless(Downey(days=2))
    assert is_endless(ismail_dynamic("uniform", load=0.5))  # wrapped: Labelled(Synthetic)
    assert not is_endless([Job(0, 0.0, 1, 1.0)]) and not is_endless(iter([]))


def test_an_endless_workload_needs_jobs_or_until():
    with pytest.raises(ParameterError, match="is endless: give jobs=.*or until="):
        simulate(FirstFit(Mesh(32, 32)), "RSR-1", mesh_work(), jobs=None)
    with pytest.raises(ParameterError, match="is endless"):
        Simulator(FlatPool(Flat(64)), "DEQP", ismail_dynamic("uniform", load=0.5))
    r = simulate(FirstFit(Mesh(32, 32)), "RSR-1", mesh_work(), jobs=None, until=50.0, seed=1)
    assert r.window[1] == 50.0 and len(r) > 0  # until= alone stops it
    r = simulate(FlatPool(Flat(64)), "SEV", Downey(days=1), jobs=None)  # finite: runs to the end
    assert r.unfinished == 0


@pytest.mark.parametrize("allocator, workload, fragment", [
    (Buddy(Hypercube(8)), mesh_work(),
     "Synthetic with sizes MeshSides(max_w=32, max_h=32) requests a (width, height) pair (up to (32, 32)), "
     "but Buddy(Hypercube(dim=8)) takes a subcube dimension k"),
    (FlatPool(Flat(256)), Synthetic(CubeDims(7), Exponential(5.0), load=0.5, machine_size=256),
     "requests a subcube dimension k (up to 7), but FlatPool(Flat(size=256)) takes a processor count"),
    (FirstFit(Mesh(16, 16)), Synthetic(UniformCount(1, 256), Exponential(5.0), load=0.5, machine_size=256),
     "requests a processor count (up to 256), but FirstFit(Mesh(width=16, height=16)) takes a (width, height) pair"),
    (Buddy(Hypercube(6)), Downey(N=64),
     "the Downey workload requests a processor count (up to 64), but Buddy(Hypercube(dim=6)) takes a subcube"),
])
def test_requests_of_the_wrong_kind_are_refused_up_front(allocator, workload, fragment):
    with pytest.raises(RequestTypeError) as info:
        simulate(allocator, "FCFS", workload, jobs=10)
    assert fragment in str(info.value)


def test_requests_larger_than_the_machine_are_refused_up_front():
    with pytest.raises(RequestSizeError, match=r"requests up to \(32, 32\), larger than the machine of "
                                               r"FirstFit\(Mesh\(width=16, height=16\)\)"):
        simulate(FirstFit(Mesh(16, 16)), "RSR-1", mesh_work(), jobs=10)
    with pytest.raises(RequestSizeError, match="up to 9"):
        simulate(Buddy(Hypercube(8)), "FCFS", Synthetic(CubeDims(9), Exponential(), load=0.5, machine_size=256),
                 jobs=10)


def test_what_fits_passes():
    check_requests(FirstFit(Mesh(32, 32)), mesh_work())
    check_requests(FirstFit(Mesh(16, 32), rotate=True), Synthetic(MeshSides(32, 16), Exponential(), rate=1.0))
    check_requests(FirstFit(Mesh(8, 8)), Synthetic(CountsOn(UniformCount(1, 64), Mesh(8, 8)), Exponential(),
                                                    rate=1.0))
    check_requests(FirstFit(Mesh(32, 32)), Synthetic(Squares(32), Exponential(), rate=1.0))
    # a gang scheduler places the whole-machine class on the forest: the topology's size is the limit
    check_requests(DHCTree(Flat(320)), [Job(0, 0.0, 300, 1.0)], Job(0, 0.0, 300, 1.0))


def test_lists_and_traces_are_checked_by_their_first_job():
    with pytest.raises(RequestTypeError, match=r"the first job of .* \(id 4\) requests \(2, 2\), but "
                                               r"Buddy\(Hypercube\(dim=3\)\) takes a subcube dimension k"):
        simulate(Buddy(Hypercube(3)), "FCFS", [Job(4, 0.0, (2, 2), 1.0)], jobs=None)
    with pytest.raises(RequestSizeError, match=r"\(id 0\) requests 5, larger than the machine"):
        simulate(Buddy(Hypercube(3)), "FCFS", [Job(0, 0.0, 5, 1.0)], jobs=None)
    jobs = iter([Job(0, 0.0, 2, 1.0), Job(1, 0.5, 1, 1.0)])  # a one-shot iterator keeps its first job
    assert len(simulate(Buddy(Hypercube(3)), "FCFS", jobs, jobs=None)) == 2
    with pytest.raises(EmptyWorkloadError, match="no job to simulate"):
        simulate(Buddy(Hypercube(3)), "FCFS", [], jobs=None)

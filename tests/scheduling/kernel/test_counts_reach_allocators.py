"""Issue 27, defect 3: processor counts reach the allocators that take them.

The non-contiguous mesh allocators take a plain processor count (``accepts_counts``), but
``simulate`` checked requests against the mesh (which names only ``(w, h)`` pairs) and a trace
replayed on a mesh gave every allocator the near-square ``(w, h)``, so a non-contiguous allocator
granted ``w * h`` nodes for a job of ``n`` processors (LANL-CM5: 32 -> 36, 512 -> 529) and was
offered more load than the contiguous ones. Counts now reach the allocators that take counts; the
contiguous ones keep the near-square; ``topoalloc replay`` says what a count becomes on each."""

from __future__ import annotations

import pytest

from scheduling import simulate
from scheduling.cli import main
from scheduling.experiments import Component, TopologySpec, read_trace
from scheduling.experiments.replay import describe_requests, requests_for_allocator, trace_points
from scheduling.experiments.runner import run_task
from scheduling.kernel.jobs import Job
from scheduling.kernel.simulator import check_requests
from scheduling.workloads import Exponential, Synthetic, UniformCount
from topoalloc import DHCTree, FirstFit, RequestSizeError, RequestTypeError
from topoalloc.mesh import MBS, Paging, Random
from topologies import Flat, Mesh

pytest.importorskip("scheduling.formats.swf_load", reason="replays need the SWF reader")

# Jobs of 32 and 512 processors, the LANL-CM5 sizes the issue names, far enough apart that they
# never overlap (no wait: utilisation is then the granted processor-time alone), and a 7.
SWF = """; Version: 2.2
; MaxProcs: 1024
    1     0   -1   100    32   -1   -1    32   200   -1   1   1   -1   -1   -1   -1   -1   -1
    2  1000   -1   100   512   -1   -1   512   200   -1   1   1   -1   -1   -1   -1   -1   -1
    3  2000   -1   100     7   -1   -1     7   200   -1   1   1   -1   -1   -1   -1   -1   -1
"""


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "cm5like.swf"
    path.write_text(SWF)
    return path


# -- the request check asks the allocator -------------------------------------------------------------
def test_a_count_on_a_non_contiguous_mesh_allocator_runs_and_gets_exactly_its_count():
    """The issue's reproduction: this raised RequestTypeError ("takes a (width, height) pair")."""
    r = simulate(Random(Mesh(32, 32)), "FCFS", [Job(0, 0.0, 32, 5.0)], jobs=None)
    assert len(r) == 1 and r.table["granted"].tolist() == [32]
    r = simulate(MBS(Mesh(32, 32)), "FCFS", [Job(0, 0.0, 7, 5.0), Job(1, 1.0, (3, 2), 5.0)], jobs=None)
    assert r.table["granted"].tolist() == [7, 6]


def test_count_workloads_pass_the_check_on_count_takers_only():
    counts = Synthetic(UniformCount(1, 1024), Exponential(5.0), load=0.5, machine_size=1024)
    check_requests(Random(Mesh(32, 32)), counts)  # a count is a request of a non-contiguous allocator
    with pytest.raises(RequestTypeError, match=r"requests a processor count \(up to 1024\), but "
                                               r"FirstFit\(Mesh\(width=32, height=32\)\) takes a \(width, height\)"):
        check_requests(FirstFit(Mesh(32, 32)), counts)  # a contiguous one still needs the shape
    with pytest.raises(RequestTypeError, match=r"requests 32, but FirstFit.* takes a \(width, height\) pair"):
        simulate(FirstFit(Mesh(32, 32)), "FCFS", [Job(0, 0.0, 32, 5.0)], jobs=None)


def test_a_count_larger_than_the_machine_is_refused_naming_it():
    with pytest.raises(RequestSizeError, match=r"\(id 3\) requests 1025, larger than the machine of Random"):
        simulate(Random(Mesh(32, 32)), "FCFS", [Job(3, 0.0, 1025, 5.0)], jobs=None)
    too_many = Synthetic(UniformCount(1, 2048), Exponential(5.0), load=0.5, machine_size=1024)
    with pytest.raises(RequestSizeError, match="requests up to 2048, larger than the machine"):
        check_requests(Random(Mesh(32, 32)), too_many)


def test_what_one_allocator_call_cannot_grant_is_still_judged_against_the_machine():
    """Kept from before: gang scheduling places the whole-machine class on a DHC forest, so a job
    above the largest tree (64 of 100) passes the check when it fits the machine; so does a count
    above what Paging's pages cover when it fits the mesh."""
    check_requests(DHCTree(Flat(100)), [Job(0, 0.0, 79, 1.0)], Job(0, 0.0, 79, 1.0))
    paging = Paging(Mesh(10, 10), size_index=2)  # 4x4 pages: 64 of the 100 nodes
    assert paging.capacity < 100
    check_requests(paging, [Job(0, 0.0, 90, 1.0)], Job(0, 0.0, 90, 1.0))


# -- replays: counts to count takers, shapes to the others, the same jobs --------------------------------
def test_a_replay_gives_count_takers_the_count_and_the_others_the_near_square(trace):
    jobs = read_trace(trace, Mesh(32, 32))
    assert [j.request for j in jobs] == [(6, 6), (23, 23), (3, 3)]  # the near-square, as read
    given = requests_for_allocator(jobs, Random(Mesh(32, 32)))
    assert [j.request for j in given] == [32, 512, 7]
    assert requests_for_allocator(jobs, FirstFit(Mesh(32, 32))) is jobs
    # common random numbers: only the request differs
    for a, b in zip(jobs, given, strict=True):
        assert (a.id, a.arrival, a.runtime, a.estimate, a.size, a.attrs) == \
               (b.id, b.arrival, b.runtime, b.estimate, b.size, b.attrs)


def test_a_non_contiguous_allocator_is_no_longer_offered_more_load(trace):
    """LANL-CM5 (issue 27): 32 -> 36 and 512 -> 529 nodes under the near-square. With jobs that
    never overlap, utilisation is the granted processor-time: FirstFit's is (36 + 529 + 9) / (32 + 512
    + 7) times Random's, and Random's is the trace's own."""
    topo = TopologySpec.parse("mesh:32x32")
    points = trace_points(trace, topo, [Component("FirstFit"), Component("Random")], ["FCFS"])
    rows = {p.allocator.name: run_task({"point": p.config(), "replication": 0, "sim_seed": 0,
                                        "point_id": p.point_id}) for p in points}
    util = {name: row["utilization"] for name, row in rows.items()}
    assert util["FirstFit"] / util["Random"] == pytest.approx((36 + 529 + 9) / (32 + 512 + 7), rel=1e-9)
    duration = rows["Random"]["duration"]
    assert util["Random"] == pytest.approx((32 + 512 + 7) * 100.0 / (1024 * duration), rel=1e-6)
    # the points say what their allocator is given, so stored rows from the near-square are not reused
    work = {p.allocator.name: p.config()["workload"] for p in points}
    assert work["Random"].get("requests") == "counts" and "requests" not in work["FirstFit"]


def test_only_mesh_points_of_count_takers_change_identity(trace):
    flat = trace_points(trace, TopologySpec.parse("flat:1024"), [Component("FlatPool")], ["FCFS"])
    assert "requests" not in flat[0].config()["workload"]


def test_describe_requests_says_what_a_count_becomes(trace):
    jobs = read_trace(trace, Mesh(32, 32))
    line = describe_requests(jobs, FirstFit(Mesh(32, 32)), "FirstFit", examples=3)
    assert line == ("FirstFit: a count n asks for (w, h) (512 -> (23, 23), 529 processors; 32 -> (6, 6), "
                    "36 processors; 7 -> (3, 3), 9 processors); 551 processors asked, 574 granted (+4.2%)")
    line = describe_requests(jobs, Random(Mesh(32, 32)), "Random")
    assert line == "Random: a count n asks for n processors (512 -> 512; 32 -> 32); 551 processors asked, 551 granted"


def test_replay_reports_one_line_per_allocator(trace, capsys):
    assert main(["replay", str(trace), "--topology", "mesh:32x32", "--allocators", "FirstFit,MBS,Random",
                 "--policies", "FCFS", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines() if "a count n asks for" in line]
    assert len(lines) == 3
    assert lines[0].startswith("FirstFit: a count n asks for (w, h) (512 -> (23, 23), 529 processors")
    assert lines[1].startswith("MBS: a count n asks for n processors (512 -> 512")
    assert lines[2].startswith("Random: a count n asks for n processors")
    assert "551 processors asked, 574 granted" in lines[0] and "551 processors asked, 551 granted" in lines[2]
    # on a cube the count becomes a subcube dimension; on a flat machine it is every allocator's request
    assert main(["replay", str(trace), "--topology", "cube:10", "--allocators", "Buddy", "--policies", "FCFS",
                 "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Buddy: a count n asks for a subcube dimension k (512 -> 9, 512 processors; 32 -> 5, 32 processors); " \
           "551 processors asked, 552 granted (+0.2%)" in out

"""Where jobs land: recorded placements, their locality columns, and run times that depend on them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scheduling import Job, simulate
from scheduling.models.runtime import Dilation, HopBytes
from scheduling.workloads import CubeDims, Exponential, MeshSides, Synthetic, Uniform, UniformCount
from topoalloc import Buddy, FirstFit, FlatPool, Naive, locality
from topologies import Flat, Hypercube, Mesh


def mesh_jobs(n=400, load=0.5, seed=3, comm=0.0):
    return Synthetic(MeshSides(8, 8), Exponential(5.0), load=load, machine_size=64, comm=comm).take(n, seed=seed)


def test_placements_are_off_by_default():
    r = simulate(FirstFit(Mesh(8, 8)), "FCFS", mesh_jobs(50), jobs=None)
    assert r.placements is None and "mean_hops" not in r.table.dtype.names


@pytest.mark.parametrize("make", [lambda: FirstFit(Mesh(8, 8)), lambda: Buddy(Hypercube(6))])
def test_recorded_placements_are_the_grants(make):
    alloc = make()
    if isinstance(alloc.topology, Mesh):
        jobs = mesh_jobs()
    else:
        jobs = Synthetic(CubeDims(4), Exponential(5.0), load=0.6, machine_size=64).take(400, seed=3)
    r = simulate(alloc, "RSR-1", jobs, jobs=None, warmup=20, record_placement=True)
    assert sorted(r.placements) == sorted(r.id.tolist())  # every kept job, none of the warm-up
    for row in r.table:
        nodes = r.placements[int(row["id"])]
        assert not nodes.flags.writeable and (np.diff(nodes) > 0).all()
        assert len(nodes) == row["granted"] and nodes.min() >= 0 and nodes.max() < alloc.size
        assert row["components"] == locality.components(alloc.topology, nodes) == 1
        assert row["mean_hops"] == pytest.approx(locality.mean_hops(alloc.topology, nodes))
    # jobs that overlap in time hold disjoint nodes
    t = r.table
    for i in range(len(t)):
        for j in range(i + 1, min(i + 30, len(t))):
            if t["start"][i] < t["end"][j] and t["start"][j] < t["end"][i]:
                a, b = r.placements[int(t["id"][i])], r.placements[int(t["id"][j])]
                assert not np.intersect1d(a, b).size
    assert r.summary()["jobs"] == len(t)


def test_placements_follow_resizes_on_a_flat_machine():
    from scheduling.policies import DEQP

    jobs = Synthetic(UniformCount(1, 16), Exponential(5.0), load=0.7, machine_size=16).take(200, seed=1)
    r = simulate(FlatPool(Flat(16)), DEQP(), jobs, jobs=None, record_placement=True)
    assert (r.changes > 0).sum() > 20
    assert all(0 < len(r.placements[j]) <= 16 for j in r.id.tolist())
    assert "mean_hops" not in r.table.dtype.names  # a flat machine has no distances


# -- run time that depends on placement --------------------------------------------------------------
def test_no_communication_means_no_effect():
    jobs = mesh_jobs(300)
    plain = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None)
    for model in (Dilation(), HopBytes(), HopBytes("nearest-neighbour", exponent=0.5)):
        assert simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, runtime_model=model).schedule() == \
            plain.schedule()


@pytest.mark.parametrize("model", [Dilation(), HopBytes("all-to-all"), HopBytes("nearest-neighbour")])
def test_a_grant_of_the_requested_box_runs_exactly_its_run_time(model):
    """A shaped request's communication is laid out on the shape it asked for: its own box is its
    baseline, so a strip asked for as a strip is not penalised (issue 27, defect 1)."""
    mesh = Mesh(8, 8)
    strip = Job(0, 0.0, (8, 1), 10.0, comm=0.6)
    square = Job(1, 0.0, (2, 4), 10.0, comm=0.6)
    r = simulate(FirstFit(mesh), "FCFS", [strip, square], jobs=None, runtime_model=model)
    assert r.end.tolist() == pytest.approx([10.0, 10.0])


@pytest.mark.parametrize("model,measure", [
    (Dilation(), lambda m, nodes: locality.mean_hops(m, nodes)),
    (HopBytes("all-to-all"), lambda m, nodes: locality.pattern_hops(m, nodes, "all-to-all")),
    (HopBytes("nearest-neighbour"), None),
])
def test_a_count_on_a_strip_runs_longer_by_the_models_ratio(model, measure):
    """A count has no shape: its baseline is the most compact placement of that many nodes, and a
    strip (Naive's first free nodes in row-major order) runs longer than it."""
    mesh = Mesh(8, 8)
    r = simulate(Naive(mesh), "FCFS", [Job(0, 0.0, 8, 10.0, comm=0.6)], jobs=None, runtime_model=model)
    end = r.end[0]
    assert end > 10.0
    if measure is not None:
        ratio = measure(mesh, np.arange(8)) / measure(mesh, locality.compact_nodes(mesh, 8))
        assert end == pytest.approx(10.0 * ((1 - 0.6) + 0.6 * ratio))


def test_the_compact_placement_runs_exactly_its_run_time():
    mesh = Mesh(8, 8)
    job = Job(0, 0.0, (3, 3), 7.0, comm=1.0)
    r = simulate(FirstFit(mesh), "FCFS", [job], jobs=None, runtime_model=Dilation())
    assert r.end[0] == pytest.approx(7.0)


def test_runtime_model_needs_nodes_and_a_factor_method():
    with pytest.raises(TypeError, match="factor"):
        simulate(FirstFit(Mesh(4, 4)), "FCFS", [Job(0, 0.0, (1, 1), 1.0)], jobs=None, runtime_model=object())
    with pytest.raises(ValueError, match="'ring'"):
        HopBytes("ring")
    with pytest.raises(ValueError, match="exponent"):
        HopBytes(exponent=float("nan"))


# -- the communication fraction ------------------------------------------------------------------
@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan")])
def test_a_job_refuses_a_communication_fraction_outside_0_1(bad):
    with pytest.raises(ValueError, match=f"comm must be in \\[0, 1\\], got {bad!r}"):
        Job(3, 0.0, 1, 1.0, comm=bad)


def test_synthetic_comm_is_its_own_stream():
    base = Synthetic(MeshSides(8, 8), Exponential(5.0), load=0.5, machine_size=64)
    with_comm = dataclasses.replace(base, comm=Uniform(0.0, 1.0))
    a, b = base.take(200, seed=4), with_comm.take(200, seed=4)
    assert [dataclasses.replace(j, comm=0.0) for j in b] == a  # common random numbers
    fractions = np.array([j.comm for j in b])
    assert 0.0 <= fractions.min() and fractions.max() <= 1.0 and fractions.std() > 0.2
    assert all(j.comm == 0.25 for j in dataclasses.replace(base, comm=0.25).take(10, seed=4))
    with pytest.raises(ValueError, match="comm must be a fraction in \\[0, 1\\]"):
        dataclasses.replace(base, comm=2)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        dataclasses.replace(base, comm=Uniform(0.5, 3.0)).take(50, seed=1)


# -- contention and fragmentation over time ------------------------------------------------------------
def test_max_link_load_is_the_peak_sharing_of_a_jobs_links_while_it_ran():
    jobs = mesh_jobs(300, load=0.6)
    r = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, record_contention=True)
    assert "max_link_load" in r.table.dtype.names and r.placements is not None
    # brute force: at every start, the loads of the running jobs' links
    t = r.table
    starts = sorted(set(t["start"].tolist()))
    want = {int(j): 0 for j in t["id"]}
    mesh = Mesh(8, 8)
    for s in starts:
        live = [int(j) for j, a, b in zip(t["id"], t["start"], t["end"], strict=True) if a <= s < b or a == s]
        masks = {j: locality.job_links(mesh, r.placements[j]) for j in live}
        load = sum(masks.values()) if masks else None
        for j, m in masks.items():
            if m.any():
                want[j] = max(want[j], int(load[m].max()))
    assert r.max_link_load.tolist() == [want[int(j)] for j in t["id"]]
    # XY routes of a submesh stay inside it: contiguous jobs never share a link
    assert set(r.max_link_load.tolist()) <= {0, 1} and r.summary()["mean_max_link_load"] > 0.9


def test_fragmentation_is_recorded_after_each_decision():
    jobs = mesh_jobs(200, load=0.7)
    r = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, record_fragmentation=True)
    s = r.state
    assert len(s["fragmentation_time"]) == len(s["fragments"]) == len(s["largest_free"]) > 100
    assert (s["largest_free"] <= 64).all() and (s["fragments"] >= 0).all() and s["fragments"].max() >= 2
    sparse = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, record_fragmentation=10.0).state
    assert (np.diff(sparse["fragmentation_time"]) >= 10.0).all()
    with pytest.raises(ValueError, match="record_fragmentation"):
        simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, record_fragmentation=-1)
    with pytest.raises(ValueError, match="mesh or a cube"):
        simulate(FlatPool(Flat(8)), "FCFS", [Job(0, 0.0, 1, 1.0)], jobs=None, record_contention=True)


def test_summary_reports_the_locality_means():
    r = simulate(FirstFit(Mesh(8, 8)), "FCFS", mesh_jobs(100), jobs=None, record_placement=True)
    s = r.summary()
    assert s["mean_hops"] == pytest.approx(float(np.mean(r.mean_hops))) and s["mean_components"] == 1.0


# -- writing the schedule keeps the placement --------------------------------------------------------
@pytest.mark.parametrize("suffix", [".nodes.csv", ".parquet"])
def test_write_swf_writes_the_nodes_beside_the_schedule(tmp_path, suffix):
    from scheduling.workloads import read_placements, read_swf, write_swf

    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    jobs = mesh_jobs(60)
    r = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None, record_placement=True)
    target = tmp_path / "schedule.swf"
    sidecar = tmp_path / "schedule.swf.nodes.csv" if suffix == ".nodes.csv" else tmp_path / "nodes.parquet"
    write_swf(target, r, jobs, placements=None if suffix == ".nodes.csv" else sidecar)
    back = read_placements(sidecar)
    assert sorted(back) == sorted(r.placements) and all(np.array_equal(back[j], r.placements[j]) for j in back)
    assert len(read_swf(target)[1]) == len(r)  # the SWF file itself stays standard (header, records, report)
    plain = simulate(FirstFit(Mesh(8, 8)), "FCFS", jobs, jobs=None)
    write_swf(tmp_path / "plain.swf", plain, jobs)
    assert not (tmp_path / "plain.swf.nodes.csv").exists()


def test_a_bad_placement_file_is_named(tmp_path):
    from scheduling.workloads import PlacementFileError, read_placements

    bad = tmp_path / "bad.csv"
    bad.write_text("job_id,nodes\n3,1 2\nx,4\n")
    with pytest.raises(PlacementFileError, match="bad.csv: line 3"):
        read_placements(bad)

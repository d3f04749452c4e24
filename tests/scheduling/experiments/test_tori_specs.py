"""Meshes and tori of any dimension as experiments name them (``mesh:8x8x8``, ``torus:16x16x16``,
``:wrap=``, ``:weights=``), a trace replayed on one (shapes for the box allocators, counts for the
non-contiguous ones), and the backfilling policies and RSR folding on a 3D torus."""

from __future__ import annotations

import math

import numpy as np
import pytest

import topoalloc
from scheduling import Job, simulate
from scheduling.cli import main
from scheduling.experiments import Component, TopologySpec
from scheduling.experiments.replay import describe_requests, requests_for_allocator, trace_points
from topologies import Mesh, Torus


@pytest.mark.parametrize(("text", "label", "machine"), [
    ("mesh:8x8x8", "mesh:8x8x8", Mesh(8, 8, 8)),
    ("torus:16x16x16", "torus:16x16x16", Torus(16, 16, 16)),
    ("Torus: 4 x 4 x 2", "torus:4x4x2", Torus(4, 4, 2)),
    ("mesh:8x8x8:wrap=1,1,1", "torus:8x8x8", Torus(8, 8, 8)),
    ("mesh:8x8x8:wrap=0,0,0", "mesh:8x8x8", Mesh(8, 8, 8)),
    ("mesh:8x8x4:wrap=1,1,0", "mesh:8x8x4:wrap=1,1,0", Mesh(8, 8, 4, wrap=(True, True, False))),
    ("mesh:8x8x4:weights=1,1,2.5:wrap=0,1,0", "mesh:8x8x4:wrap=0,1,0:weights=1,1,2.5",
     Mesh(8, 8, 4, wrap=(False, True, False), weights=(1, 1, 2.5))),
    ("torus:4x4x4:weights=1.0,1,1", "torus:4x4x4", Torus(4, 4, 4)),
    ("mesh:4x4x4x4", "mesh:4x4x4x4", Mesh(4, 4, 4, 4)),
    ({"kind": "torus", "dims": [8, 8, 8], "weights": [2, 2, 1]}, "torus:8x8x8:weights=2,2,1",
     Torus(8, 8, 8, weights=(2, 2, 1))),
    ({"kind": "mesh", "dims": [4, 4, 2], "wrap": [True, False, True]}, "mesh:4x4x2:wrap=1,0,1",
     Mesh(4, 4, 2, wrap=(True, False, True))),
    ({"kind": "mesh", "width": 8, "height": 4, "wrap": True}, "torus:8x4", Torus(8, 4)),
])
def test_a_spec_builds_its_machine_and_its_label_is_canonical_and_parses_back(text, label, machine):
    spec = TopologySpec.parse(text)
    assert spec.kind == "mesh" and spec.label == label
    assert spec.build() == machine and type(spec.build()) is type(machine)
    assert spec.size == machine.size
    assert TopologySpec.parse(spec.label) == spec


def test_the_two_dimensional_forms_keep_their_labels_and_their_fast_machine():
    """Points stored before d-dimensional meshes existed keep their identity (the label)."""
    for text in ("mesh:32x32", "mesh:32", {"kind": "mesh", "width": 32, "height": 32}):
        spec = TopologySpec.parse(text)
        assert spec == TopologySpec("mesh", (32, 32)) and spec.label == "mesh:32x32"
        assert repr(spec.build()) == "Mesh(width=32, height=32)"


@pytest.mark.parametrize(("bad", "says"), [
    ("mesh:8x8x", "bad topology 'mesh:8x8x'"),
    ("torus:8", "write a torus's sides, e.g. 'torus:8x8' or 'torus:8x8x8'"),
    ("mesh:8x0x8", "sizes must be >= 1"),
    ("torus:8x8x8:wrap=1,1,1", "a torus takes ':weights=...'"),
    ("mesh:8x8x8:wrap=1,1", "3 flags"),
    ("mesh:8x8x8:wrap=2,0,1", "got '2,0,1'"),
    ("mesh:8x8x8:weights=1,-1,1", "weights must be finite numbers > 0"),
    ("mesh:8x8x8:weights=a,1,1", "got 'a,1,1'"),
    ("mesh:8x8x8:weights=1,1", "3 numbers"),
    ("mesh:8x8x8:rings=1,1,1", "unknown option 'rings=1,1,1'"),
    ("mesh:8x8x8:wrap=1,1,1:wrap=0,0,0", "wrap is given twice"),
    ({"kind": "torus", "dims": [8, 8, 8], "wrap": True}, "a torus topology has no 'wrap'"),
    ({"kind": "mesh", "dims": [8, 8], "width": 8}, "either dims or width and height"),
    ({"kind": "torus", "dims": [8, 0, 8]}, "got 0"),
    ({"kind": "torus", "dims": "888"}, "must be a list of sides"),
    ({"kind": "torus", "depth": 8}, "has no 'depth'"),
    ({"kind": "torus"}, "needs 'dims'"),
])
def test_a_bad_spec_is_one_error_naming_the_value(bad, says):
    with pytest.raises(ValueError) as err:
        TopologySpec.parse(bad)
    assert says in str(err.value)


# -- a trace on a d-dimensional machine ---------------------------------------------------------------
def test_a_trace_on_a_torus_gives_box_allocators_near_cubes_and_the_others_counts():
    """The 2D rule (``requests_for_allocator``) carries over: a 20-processor job asks first fit for
    the torus's near-cube box of at least 20 nodes, and a non-contiguous allocator for 20 nodes."""
    torus = TopologySpec.parse("torus:8x8x8").build()
    jobs = [Job(0, 0.0, torus.request_for(20), 5.0, size=20), Job(1, 1.0, torus.request_for(64), 2.0, size=64)]
    ff, rnd = topoalloc.get("FirstFit", torus, permute=True), topoalloc.get("Random", torus)
    assert requests_for_allocator(jobs, ff) is jobs
    shape = jobs[0].request
    assert len(shape) == 3 and math.prod(shape) >= 20 and max(shape) - min(shape) <= 2
    assert jobs[1].request == (4, 4, 4)
    assert [j.request for j in requests_for_allocator(jobs, rnd)] == [20, 64]
    assert describe_requests(jobs, rnd, "Random").startswith("Random: a count n asks for n processors")
    assert "a shape of up to 3 sides" in describe_requests(jobs, ff, "FirstFit")


SWF = "\n".join(
    ["; MaxProcs: 64"]
    + [f"{i + 1} {10 * i} 0 {100 + 7 * i} {n} -1 -1 {n} {200 + 7 * i} -1 1 1 1 1 1 -1 -1 -1"
       for i, n in enumerate([8, 27, 5, 64, 12, 3, 30, 9, 16, 1])]) + "\n"


def test_replay_points_on_a_torus_mark_the_count_takers(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    spec = TopologySpec.parse("torus:4x4x4")
    points = trace_points(path, spec, [Component.of("FirstFit", permute=True), Component.of("HilbertFreeList"),
                                       Component.of("SizeClass", threshold=16)], ["EASY"])
    counts = {p.allocator.name: p.workload.get("requests") for p in points}
    assert counts == {"FirstFit": None, "HilbertFreeList": "counts", "SizeClass": "counts"}
    assert {p.topology.label for p in points} == {"torus:4x4x4"}


def test_the_replay_command_runs_on_a_torus(tmp_path, capsys):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    code = main(["replay", str(path), "--topology", "torus:4x4x4", "--allocators", "FirstFit,Random,MBS",
                 "--policies", "EASY,Conservative", "--workers", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "FirstFit: a count n asks for a shape of up to 3 sides" in out
    assert "Random: a count n asks for n processors" in out
    rows = [line for line in out.splitlines() if line.startswith("torus:4x4x4 ")]
    assert len(rows) == 6


# -- policies on a 3D torus ---------------------------------------------------------------------------
def _is_box(nodes: np.ndarray, machine: Mesh) -> bool:
    """Whether ``nodes`` are a box of ``machine`` (per dimension a run of coordinates, cyclic on a
    ring), checked by counting: the product of the per-axis runs is the number of nodes."""
    coords = np.array([machine.coords(int(v)) for v in nodes])
    sides = []
    for axis, L in enumerate(machine.dims):
        used = np.zeros(L, dtype=bool)
        used[coords[:, axis]] = True
        k = int(used.sum())
        starts = int((used & ~np.roll(used, 1)).sum()) if machine.wrap[axis] else \
            int(used[0]) + int((used[1:] & ~used[:-1]).sum())
        if k < L and starts != 1:
            return False
        sides.append(k)
    return math.prod(sides) == len(nodes)


def test_the_box_check_tells_boxes_from_other_sets():
    torus, mesh = Torus(4, 4, 4), Mesh(4, 4, 4)
    assert _is_box(np.array([0, 1, 4, 5]), torus) and _is_box(np.array([3, 0]), torus)
    assert not _is_box(np.array([3, 0]), mesh) and not _is_box(np.array([0, 2]), torus)
    assert not _is_box(np.array([0, 1, 4]), torus)


@pytest.mark.parametrize("policy", ["EASY", "Conservative", "FCFS", "RSR-1"])
def test_the_policies_place_boxes_on_a_3d_torus(policy):
    from scheduling.workloads import BoxSides, Exponential, Synthetic

    torus = Torus(4, 4, 4)
    w = Synthetic(BoxSides((4, 4, 4)), Exponential(5.0), load=0.6, machine_size=64)
    r = simulate(topoalloc.get("FirstFit", torus, permute=True), policy, w, jobs=150, warmup=10, seed=2,
                 record_placement=True)
    assert len(r) == 140 and r.placements is not None
    assert all(_is_box(nodes, torus) for nodes in r.placements.values())
    assert (np.array([len(r.placements[i]) for i in r.table["id"].tolist()]) == r.table["granted"]).all()
    if policy == "RSR-1":  # folding halves the longest side: some grants are smaller than asked
        folded = r.table["folds"] > 0
        assert folded.any() and (r.table["granted"][folded] < r.table["requested"][folded]).all()
    else:
        assert (r.table["granted"] == r.table["requested"]).all()

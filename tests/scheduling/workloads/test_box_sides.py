"""BoxSides: seed 002's uniform sides taken to d dimensions, for meshes and tori of any dimension."""

from __future__ import annotations

import math

import numpy as np
import pytest

import topoalloc
from scheduling import simulate
from scheduling.experiments import TopologySpec
from scheduling.workloads import BoxSides, Exponential, MeshSides, Synthetic
from topologies import Mesh, ParameterError, RequestTypeError, Torus


def test_each_side_is_uniform_on_its_range_and_the_mean_size_is_the_product_of_the_means():
    b = BoxSides((4, 3, 2))
    draws = np.array(b.sample(np.random.default_rng(7), 60_000))
    for axis, top in enumerate((4, 3, 2)):
        counts = np.bincount(draws[:, axis], minlength=top + 1)
        assert counts[0] == 0 and (draws[:, axis] <= top).all()
        assert np.allclose(counts[1:] / len(draws), 1 / top, atol=0.01)
    assert b.mean_size == 2.5 * 2.0 * 1.5
    assert abs(np.prod(draws, axis=1).mean() - b.mean_size) < 0.05 * b.mean_size
    assert [b.size_of(tuple(r)) for r in draws[:3].tolist()] == [math.prod(r) for r in draws[:3].tolist()]


def test_two_sides_draw_what_mesh_sides_draws_from_the_same_generator():
    """Seed 002 §4.1's MeshSides is the two-dimensional case: same stream, same requests."""
    a = BoxSides((32, 16)).sample(np.random.default_rng(3), 50)
    b = MeshSides(32, 16).sample(np.random.default_rng(3), 50)
    assert a == b


def test_requests_say_what_the_machine_of_their_dimension_takes():
    assert BoxSides((8, 8, 8)).request_kind == Torus(8, 8, 8).request_kind
    assert BoxSides((4, 4)).request_kind == Mesh(4, 4).request_kind
    assert BoxSides((4, 4, 4, 2)).max_request == (4, 4, 4, 2)
    assert BoxSides([2, 3]).max_sides == (2, 3)  # a list from a configuration file is kept as a tuple


@pytest.mark.parametrize("bad", [(), "888", (8, 0, 8), (8, 2.5, 8), (True, 8), None, 8])
def test_bad_sides_are_refused_naming_the_value(bad):
    with pytest.raises(ParameterError, match="BoxSides max_sides"):
        BoxSides(bad)


def test_a_synthetic_stream_of_boxes_runs_on_a_torus_and_is_refused_by_a_machine_of_other_dimension():
    w = Synthetic(BoxSides((4, 4, 4)), Exponential(5.0), load=0.5, machine_size=64)
    r = simulate(topoalloc.get("FirstFit", Torus(4, 4, 4), permute=True), "EASY", w, jobs=200, warmup=20, seed=1)
    assert len(r) == 180 and 0.2 < r.utilization < 0.8
    assert (r.table["granted"] == r.table["requested"]).all()
    with pytest.raises(RequestTypeError, match="a shape of up to 3 sides"):
        simulate(topoalloc.get("FirstFit", Mesh(8, 8)), "FCFS", w, jobs=10)


def test_the_workload_makes_the_same_jobs_for_every_allocator_of_a_spec():
    """Common random numbers: the stream depends on the seed only, so a box allocator and a
    non-contiguous one are compared on the same requests."""
    machine = TopologySpec.parse("torus:4x4x4").build()
    w = Synthetic(BoxSides((4, 4, 4)), Exponential(5.0), load=0.4, machine_size=machine.size)
    got = [simulate(topoalloc.get(n, machine), "FCFS", w, jobs=100, seed=5).table
           for n in ("FirstFit", "HilbertFreeList")]
    assert got[0]["id"].tolist() == got[1]["id"].tolist()
    assert got[0]["requested"].tolist() == got[1]["requested"].tolist()
    assert got[0]["arrival"].tolist() == got[1]["arrival"].tolist()

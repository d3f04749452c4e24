"""Predefined partitions (topoalloc.grid.partitions), in the manner of Slurm's topology/torus3d."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topoalloc
from topoalloc.errors import AllocatorParameterError
from topoalloc.grid import Partitions, Placement
from topoalloc.grid.partitions import axis_positions, grids_overlap_axis
from topoalloc.testing import allocator_machine, meshes_nd, tori
from topologies import Box, Mesh, RequestSizeError, RequestTypeError, Torus


def _overlapping(topology):
    """Slurm-style grids that overlap one another and themselves (tile=False)."""
    dims = topology.dims
    half = tuple(max(1, L // 2) for L in dims)
    return Partitions(topology, [Placement(half, spacing=tuple(max(1, h // 2) for h in half)),
                                 Placement(tuple(1 for _ in dims)),
                                 Placement(half, anchor=tuple(L - 1 for L in dims))], tile=False)


def _permuting(topology):
    return Partitions(topology, permute=True)


TestPartitionsMachine = allocator_machine(Partitions, meshes_nd(max_size=48), max_examples=15).TestCase
TestPartitionsTorusMachine = allocator_machine(_permuting, tori(min_dims=2, max_size=48), max_examples=15).TestCase
TestPartitionsOverlapMachine = allocator_machine(_overlapping, tori(min_dims=2, max_dims=3, max_size=64),
                                                 max_examples=15).TestCase


def test_default_grids_are_the_machine_and_its_halvings():
    p = Partitions(Torus(8, 8, 8))
    assert [g.shape for g in p.grids] == [(1, 1, 1), (1, 1, 2), (1, 2, 2), (2, 2, 2), (2, 2, 4), (2, 4, 4),
                                          (4, 4, 4), (4, 4, 8), (4, 8, 8), (8, 8, 8)]
    assert [len(g.origins) for g in p.grids] == [512, 256, 128, 64, 32, 16, 8, 4, 2, 1]
    assert p.overlaps == []
    assert [g.shape for g in Partitions(Mesh(6, 4)).grids] == [(1, 1), (1, 2), (3, 2), (3, 4), (6, 4)]


def test_slurm_rule_least_fragmentation_then_first_box():
    """Slurm's eval_nodes_torus3d.c: a 2 x 2 x 2 job goes to the box of its placement that breaks the
    fewest wholly free 4 x 4 x 4 partitions (the next size), ties to the first box (x outermost)."""
    p = Partitions(Torus(8, 8, 8), [(8, 8, 8), (4, 4, 4), (2, 2, 2)])
    a = p.allocate((4, 4, 4))
    assert a.placement == Box((0, 0, 0), (4, 4, 4))
    # every 2 x 2 x 2 box lies in one 4 x 4 x 4 box; those in the busy one are busy, so each free one
    # breaks one free 4 x 4 x 4: the first free in Slurm's order (x outermost), (0, 0, 4)
    b = p.allocate((2, 2, 2))
    assert b.placement == Box((0, 0, 4), (2, 2, 2))
    # now the 4 x 4 x 4 at (0, 0, 4) is broken: a second 2 x 2 x 2 inside it breaks no free one; the
    # first such box in Slurm's order (z innermost) is (0, 0, 6)
    c = p.allocate((2, 2, 2))
    assert c.placement == Box((0, 0, 6), (2, 2, 2))
    assert p.allocate((4, 4, 4)).placement == Box((0, 4, 0), (4, 4, 4))


def test_counts_round_up_and_shapes_go_to_the_least_partition_holding_them():
    p = Partitions(Torus(8, 8, 8), [(8, 8, 8), (4, 4, 4), (8, 4, 2), (2, 2, 2)])
    assert p.request_size(1) == 8 and p.request_size(9) == 64 and p.request_size(65) == 512
    assert p.candidates((3, 1, 1)) == (1, 2)             # both 64-node grids hold it, in the given order
    assert p.candidates((5, 1, 1)) == (2,)               # only the 8 x 4 x 2 one
    assert p.allocate((5, 1, 1)).request == (8, 4, 2)
    q = Partitions(Torus(8, 8, 8), [(8, 2, 2)], permute=True)
    assert q.allocate((2, 2, 5)).request == (8, 2, 2)    # held in another order of its sides
    with pytest.raises(RequestSizeError, match=r"\(2, 2, 5\)"):
        Partitions(Torus(8, 8, 8), [(8, 2, 2)]).allocate((2, 2, 5))
    with pytest.raises(RequestSizeError, match="65"):
        Partitions(Torus(8, 8, 8), [(4, 4, 4)]).allocate(65)
    with pytest.raises(RequestTypeError):
        p.allocate((1, 1, 1, 1))
    assert p.fold((8, 8, 8)) == (4, 4, 4) and p.fold(9) == (2, 2, 2) and p.fold(1) is None


def test_bad_grids_name_the_placement():
    t = Torus(8, 8, 8)
    with pytest.raises(AllocatorParameterError, match=r"does not tile.*dimension 0"):
        Partitions(t, [(3, 4, 4)])                      # 3 does not divide 8
    with pytest.raises(AllocatorParameterError, match="does not tile"):
        Partitions(t, [Placement((4, 4, 4), spacing=(2, 4, 4))])
    with pytest.raises(AllocatorParameterError, match="does not tile.*multiple of the side"):
        Partitions(Mesh(8, 8), [Placement((4, 4), anchor=(2, 0))])
    with pytest.raises(AllocatorParameterError, match=r"side 9 along dimension 2"):
        Partitions(t, [(1, 1, 9)])
    with pytest.raises(AllocatorParameterError, match=r"side 0"):
        Partitions(t, [(1, 0, 1)])
    with pytest.raises(AllocatorParameterError, match=r"4 entries"):
        Partitions(t, [(1, 1, 1, 1)])
    with pytest.raises(AllocatorParameterError, match=r"anchor 8 along dimension 1"):
        Partitions(t, [Placement((2, 2, 2), anchor=(0, 8, 0))], tile=False)
    with pytest.raises(AllocatorParameterError, match=r"spacing 0"):
        Partitions(t, [Placement((2, 2, 2), spacing=(0, 2, 2))], tile=False)
    with pytest.raises(AllocatorParameterError, match=r"spacing 9"):
        Partitions(t, [Placement((2, 2, 2), spacing=(9, 2, 2))], tile=False)
    with pytest.raises(AllocatorParameterError, match="non-empty"):
        Partitions(t, [])
    with pytest.raises(AllocatorParameterError, match="keys"):
        Partitions(t, [{"shape": (2, 2, 2), "origin": (0, 0, 0)}])
    # Slurm's torus3d accepts these (an overlapping grid), and so does tile=False
    loose = Partitions(t, [Placement((4, 4, 4), spacing=(2, 4, 4)), {"shape": (3, 3, 3)}], tile=False)
    assert [len(g.origins) for g in loose.grids] == [512, 16]   # 3 x 3 x 3 every 3 of 8: all 8 per axis


def test_axis_positions_follow_the_orbit_on_a_ring_and_the_lattice_on_a_line():
    """torus3d_record.c's _build_axis_positions: seed, seed + stride, ... modulo the side until back."""
    assert axis_positions(12, True, 2, 5, 4) == [5, 9, 1]
    assert axis_positions(12, True, 2, 5, 5) == [5, 10, 3, 8, 1, 6, 11, 4, 9, 2, 7, 0]
    assert axis_positions(12, False, 4, 5, 3) == [2, 5, 8]
    assert axis_positions(12, False, 13, 0, 3) == []


@settings(max_examples=300, deadline=None)
@given(L=st.integers(3, 12), data=st.data())
def test_slurm_overlap_rule_equals_brute_force_on_a_ring(L, data):
    """grids_overlap_axis (Slurm's Bezout rule, torus3d_record.c) against every pair of boxes."""
    def grid(label):
        return (data.draw(st.integers(0, L - 1), label=f"{label} anchor"),
                data.draw(st.integers(1, L), label=f"{label} spacing"),
                data.draw(st.integers(1, L), label=f"{label} side"))

    a, b = grid("a"), grid("b")
    pa = axis_positions(L, True, a[2], a[0], a[1])
    pb = axis_positions(L, True, b[2], b[0], b[1])
    brute = any(Box((x,), (a[2],)).overlaps(Box((y,), (b[2],)), (L,)) for x in pa for y in pb)
    assert grids_overlap_axis(L, True, a, b) == brute


def test_overlaps_are_flagged_as_slurm_flags_them():
    t = Torus(8, 8, 8)
    p = Partitions(t, [Placement((2, 2, 2)), Placement((2, 2, 2), anchor=(1, 0, 0)),
                       Placement((2, 2, 2), anchor=(0, 0, 4), spacing=(2, 2, 8)),
                       Placement((4, 4, 4), spacing=(2, 4, 4))], tile=False)
    # grid 0 and 1 (shifted by one along x) overlap; grid 2 is a sub-grid of grid 0; grid 3 overlaps itself
    assert p.overlaps == [(0, 1), (0, 2), (1, 2), (3, 3)]
    for i, j in p.overlaps:  # brute force: some boxes share a node
        gi, gj = p.grids[i], p.grids[j]
        pairs = itertools.product(range(len(gi.origins)), range(len(gj.origins)))
        assert any((i != j or x != y) and np.intersect1d(gi.members[x], gj.members[y]).size for x, y in pairs)


def test_registered_and_built_with_defaults():
    p = topoalloc.get("Partitions", Torus(4, 4, 4))
    assert isinstance(p, Partitions) and p.capacity == 64
    assert topoalloc.get("Partitions", Mesh(32, 32)).recognition == "partition"
    assert repr(p) == "Partitions(Torus(4, 4, 4), 7 grids)"

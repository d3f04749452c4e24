import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import UnsupportedTopologyError
from topoalloc.mesh import BestFit, BestFitOracle, FirstFit
from topoalloc.mesh.best_fit import _neighbour_score
from topoalloc.testing import allocator_machine, meshes, oracle_for
from topologies import Flat, Mesh, RequestSizeError, RequestTypeError, Submesh

TestBestFitMachine = allocator_machine(BestFit, meshes(max_side=8)).TestCase
TestBestFitRotateMachine = allocator_machine(
    lambda t: BestFit(t, rotate=True), meshes(max_side=8), max_examples=30
).TestCase


def test_the_oracle_is_found_and_checks_choices():
    bf = BestFit(Mesh(4, 4))
    assert oracle_for(bf) is BestFit.oracle
    assert isinstance(BestFit.oracle, BestFitOracle)


def _occupy(allocator, cells):
    """Fill the mesh with 1x1 grants and release all but ``cells``."""
    grants = [allocator.allocate((1, 1)) for _ in range(allocator.size)]
    for g in grants:
        if (g.placement.x, g.placement.y) not in cells:
            allocator.release(g)


def test_prefers_the_tight_slot_first_fit_skips():
    # 6x3 mesh, busy: (3, 0) and (3, 1).
    bf, ff = BestFit(Mesh(6, 3)), FirstFit(Mesh(6, 3))
    for a in (bf, ff):
        _occupy(a, {(3, 0), (3, 1)})
    # 1x2 candidates: neighbours below, above, and two on each side
    assert bf.score(0, 0, 1, 2) == 3  # below boundary, left boundary x2
    assert bf.score(2, 0, 1, 2) == 3  # below boundary, the busy column on the right x2
    assert bf.score(5, 0, 1, 2) == 3  # below boundary, right boundary x2
    assert bf.score(0, 1, 1, 2) == 3  # above boundary, left boundary x2
    assert bf.score(1, 0, 1, 2) == 1  # below boundary only
    # 2x2 candidates: (0, 0) scores 4 (below, left); (4, 0) scores 6 (below, right, busy column)
    assert bf.score(0, 0, 2, 2) == 4 and bf.score(4, 0, 2, 2) == 6 and bf.score(4, 1, 2, 2) == 5
    assert bf.allocate((2, 2)).placement == Submesh(4, 0, 2, 2)
    assert ff.allocate((2, 2)).placement == Submesh(0, 0, 2, 2)


def test_fills_a_hole_first():
    # 5x5 mesh: row 0 free, rows 1-4 busy except the single-node hole (2, 3).
    bf = BestFit(Mesh(5, 5))
    _occupy(bf, {(x, y) for x in range(5) for y in range(1, 5)} - {(2, 3)})
    assert bf.score(2, 3, 1, 1) == 4  # all four neighbours busy
    assert bf.score(0, 0, 1, 1) == 3 and bf.score(4, 0, 1, 1) == 3 and bf.score(2, 0, 1, 1) == 2
    assert bf.allocate((1, 1)).placement == Submesh(2, 3, 1, 1)  # first fit would take (0, 0)
    # 2x1 candidates are in row 0: the ends score 5, the middle ones 4; ties go to the lowest x
    assert [bf.score(x, 0, 2, 1) for x in range(4)] == [5, 4, 4, 5]
    assert bf.allocate((2, 1)).placement == Submesh(0, 0, 2, 1)
    # now (2, 0) touches the new grant on its left and ties (3, 0) at 5: the lower x wins
    assert bf.allocate((2, 1)).placement == Submesh(2, 0, 2, 1)


def test_score_matches_scores_and_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(20):
        W, H = rng.integers(1, 9, size=2)
        bf = BestFit(Mesh(int(W), int(H)))
        for _ in range(6):
            bf.allocate((int(rng.integers(1, W + 1)), int(rng.integers(1, H + 1))))
        w, h = int(rng.integers(1, W + 1)), int(rng.integers(1, H + 1))
        table = bf.scores(w, h)
        free = ~bf.busy
        for y in range(H - h + 1):
            for x in range(W - w + 1):
                assert table[y, x] == bf.score(x, y, w, h) == _neighbour_score(free, x, y, w, h)


def test_oracle_rejects_a_first_fit_choice_where_they_differ():
    ff = FirstFit(Mesh(6, 3))
    _occupy(ff, {(3, 0), (3, 1)})
    free = ~ff.busy.copy()
    got = ff.allocate((2, 2))
    with pytest.raises(AssertionError, match="expected Submesh\\(x=4, y=0"):
        BestFit.oracle.check_choice(BestFit(Mesh(6, 3)), free, (2, 2), got)


def test_rotation_only_when_needed():
    bf = BestFit(Mesh(4, 3), rotate=True)
    a = bf.allocate((3, 2))
    assert a.request == (3, 2)
    b = bf.allocate((3, 1))
    assert b.request == (3, 1)
    c = bf.allocate((2, 1))  # one free column left: turned
    assert c.request == (1, 2) and c.placement.x == 3
    assert BestFit(Mesh(2, 5), rotate=True).allocate((5, 1)).request == (1, 5)


def test_fold_and_bad_requests():
    bf = BestFit(Mesh(6, 4))
    assert bf.fold((6, 4)) == (3, 4) and bf.fold((2, 4)) == (2, 2) and bf.fold((3, 3)) == (2, 3)
    with pytest.raises(RequestSizeError):
        bf.allocate((7, 1))
    with pytest.raises(RequestTypeError):
        bf.allocate([1])
    with pytest.raises(UnsupportedTopologyError):
        BestFit(Flat(4))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=12))
def test_never_misses_and_never_overlaps(requests):
    bf = BestFit(Mesh(7, 5))
    taken = np.zeros((5, 7), dtype=int)
    for r in requests:
        free = taken == 0
        g = bf.allocate(r)
        if g is None:
            assert not BestFit.oracle(bf, free, r)
            continue
        BestFit.oracle.check_choice(bf, free, r, g)
        p = g.placement
        assert (taken[p.y : p.y_end, p.x : p.x_end] == 0).all()
        taken[p.y : p.y_end, p.x : p.x_end] = g.id

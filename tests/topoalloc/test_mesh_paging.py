"""Paging (Lo et al. 1997): whole pages, the first free ones in page order."""

import numpy as np
import pytest

from topoalloc import PageSizeError, Paging, UnknownOptionError
from topoalloc.mesh import page_order
from topoalloc.testing import allocator_machine, meshes, oracle_for, whole_pages
from topologies import Mesh, RequestSizeError

TestPaging0Machine = allocator_machine(Paging, meshes(max_side=8), oracle=whole_pages, max_examples=25).TestCase
TestPaging1SnakeMachine = allocator_machine(
    lambda t: Paging(t, size_index=1, order="snake"), meshes(min_side=2, max_side=9), max_examples=25
).TestCase
TestPaging1ShuffledMachine = allocator_machine(
    lambda t: Paging(t, size_index=1, order="shuffled"), meshes(min_side=2, max_side=9), max_examples=25
).TestCase
TestPaging2ShuffledSnakeMachine = allocator_machine(
    lambda t: Paging(t, size_index=2, order="shuffled-snake"), meshes(min_side=4, max_side=10), max_examples=20
).TestCase


def test_recognition_and_oracle():
    assert Paging(Mesh(4, 4)).recognition == "any"
    p = Paging(Mesh(4, 4), size_index=1)
    assert p.recognition == "page" and oracle_for(p) is whole_pages


def test_page_orders_on_a_4x4_page_grid():
    assert page_order(4, 4, "row-major").tolist() == list(range(16))
    assert page_order(4, 4, "snake").tolist() == [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12]
    # shuffled row-major: Z order of 2x2 groups of 2x2 pages
    assert page_order(4, 4, "shuffled").tolist() == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
    # shuffled snake: every 2x2 group visited (0,0) (1,0) (1,1) (0,1), at both levels
    assert page_order(4, 4, "shuffled-snake").tolist() == [0, 1, 5, 4, 2, 3, 7, 6, 10, 11, 15, 14, 8, 9, 13, 12]
    for order in ("row-major", "snake", "shuffled", "shuffled-snake"):
        for cols, rows in [(3, 5), (6, 2), (1, 1)]:
            assert sorted(page_order(cols, rows, order).tolist()) == list(range(cols * rows))
    assert page_order(4, 4, "Shuffled Row-Major").tolist() == page_order(4, 4, "shuffled").tolist()


@pytest.mark.parametrize("order", ["row-major", "snake", "shuffled", "shuffled-snake"])
def test_pages_are_aligned_squares_tiling_the_usable_mesh(order):
    p = Paging(Mesh(10, 7), size_index=1, order=order)  # 5 x 3 pages; column x=... all used, row y=6 not
    s = p.page_side
    assert p.pages.shape == (15, 4) and p.capacity == 60
    for nodes in p.pages:
        x, y = nodes % 10, nodes // 10
        assert x.min() % s == 0 and y.min() % s == 0
        assert x.max() - x.min() == s - 1 and y.max() - y.min() == s - 1
    assert sorted(p.pages.ravel().tolist()) == [n for n in range(70) if n // 10 < 6]


def test_grants_whole_pages_counted_as_granted_and_leaves_partial_edges_unused():
    p = Paging(Mesh(10, 6), size_index=2)  # 2 x 1 pages of 4x4: columns 8-9 and rows 4-5 are never used
    assert p.capacity == 32 and p.request_size(5) == 16 and p.request_size((4, 4)) == 16
    a = p.allocate(5)
    assert len(a.nodes) == 16 and p.free == 60 - 16
    assert a.nodes.tolist() == [x + 10 * y for y in range(4) for x in range(4)]
    b = p.allocate(1)
    assert (b.nodes % 10).min() == 4
    assert p.allocate(1) is None  # 28 nodes are free, but no page
    with pytest.raises(RequestSizeError, match="at most 32"):
        p.allocate((6, 6))
    with pytest.raises(RequestSizeError, match="33 processors"):
        p.allocate(33)


def test_fold_reduces_the_page_count():
    p = Paging(Mesh(16, 16), size_index=2)
    assert p.fold((8, 8)) == (4, 8)  # 4 pages -> 2 pages
    assert p.fold((5, 3)) is None  # one page already
    assert p.fold((8, 3)) == (4, 3)  # 24 nodes = 2 pages -> 12 nodes = 1 page
    assert p.fold((3, 8)) == (3, 4)
    assert p.fold((9, 3)) == (5, 3)  # 27 -> 15: 2 pages -> 1
    assert p.fold(33) == 17 and p.fold(17) == 9 and p.fold(16) is None


def test_bad_parameters_name_the_value():
    with pytest.raises(PageSizeError, match="-1"):
        Paging(Mesh(8, 8), size_index=-1)
    with pytest.raises(PageSizeError, match="size_index=3 gives 8x8 pages, larger than the 8x4 mesh"):
        Paging(Mesh(8, 4), size_index=3)
    with pytest.raises(PageSizeError, match="1.5"):
        Paging(Mesh(8, 8), size_index=1.5)
    with pytest.raises(UnknownOptionError, match="'zigzag'.*row-major, snake, shuffled, shuffled-snake"):
        Paging(Mesh(8, 8), order="zigzag")
    assert issubclass(PageSizeError, ValueError) and issubclass(UnknownOptionError, ValueError)


def test_first_free_pages_in_snake_order():
    p = Paging(Mesh(8, 8), size_index=1, order="snake")
    first = [p.allocate(4) for _ in range(5)]  # pages (0,0) (1,0) (2,0) (3,0) (3,1)
    assert np.array_equal(first[4].nodes, np.array([22, 23, 30, 31]))
    p.release(first[1])
    p.release(first[3])
    got = p.allocate(8)  # the two freed pages, lowest in page order first
    assert got.nodes.tolist() == sorted(first[1].nodes.tolist() + first[3].nodes.tolist())

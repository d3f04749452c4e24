"""Random and Naive (Lo et al. 1997) and the surface every non-contiguous mesh allocator shares."""

import numpy as np
import pytest

from topoalloc import MBS, Curve, MC1x1, Naive, Paging, Random
from topoalloc.testing import allocator_machine, any_free, meshes, oracle_for
from topologies import Mesh, RequestSizeError, RequestTypeError

ALL = [Random, Naive, Paging, MBS, Curve, MC1x1]


def _first_free_choice(allocator, free, request, allocation):
    """Naive: exactly the first ``n`` free nodes in row-major order (brute force over the mask)."""
    n = allocator.request_size(request)
    expected = [i for i, f in enumerate(free.ravel().tolist()) if f][:n]
    assert allocation.nodes.tolist() == expected, f"{allocation!r}: expected the first free nodes {expected}"


def naive_oracle(allocator, free, request):
    return any_free(allocator, free, request)


naive_oracle.check_choice = _first_free_choice

TestRandomMachine = allocator_machine(lambda t: Random(t, seed=7), meshes(max_side=8), max_examples=30).TestCase
TestNaiveMachine = allocator_machine(Naive, meshes(max_side=8), oracle=naive_oracle, max_examples=30).TestCase


def test_oracle_is_the_flat_machines_rule():
    assert oracle_for(Naive(Mesh(4, 4))) is any_free
    assert oracle_for(Random(Mesh(4, 4))) is any_free


@pytest.mark.parametrize("cls", ALL)
def test_requests_shapes_counts_and_bad_input(cls):
    a = cls(Mesh(6, 4))
    assert a.validate((3, 2)) == (3, 2) and a.validate(np.int64(5)) == 5
    assert a.request_size((3, 2)) == 6 and a.request_size(5) == 5
    with pytest.raises(RequestSizeError, match="25 processors"):
        a.allocate(25)
    with pytest.raises(RequestSizeError, match="at least 1"):
        a.allocate(0)
    with pytest.raises(RequestSizeError, match=r"\(7, 1\)"):
        a.allocate((7, 1))  # a side longer than the mesh, as for the contiguous allocators
    with pytest.raises(RequestTypeError):
        a.allocate(True)
    with pytest.raises(RequestTypeError):
        a.allocate(2.5)
    got = a.allocate((3, 2))
    assert got.request == (3, 2) and len(got.nodes) == 6 and a.free == 18
    assert isinstance(got.placement, np.ndarray) and np.array_equal(got.placement, got.nodes)


@pytest.mark.parametrize("cls", ALL)
def test_folds_like_a_flat_machine_and_like_the_contiguous_mesh_allocators(cls):
    from topoalloc import FirstFit

    a, ff = cls(Mesh(8, 8)), FirstFit(Mesh(8, 8))
    for r in [(5, 3), (3, 4), (4, 4), (1, 1), (8, 1)]:
        assert a.fold(r) == ff.fold(r)
    assert a.fold(9) == 5 and a.fold(2) == 1 and a.fold(1) is None


@pytest.mark.parametrize("cls", ALL)
def test_fails_only_when_too_few_nodes_are_free(cls):
    a = cls(Mesh(6, 6))
    # scatter: grant single nodes, release every other one
    singles = [a.allocate(1) for _ in range(36)]
    for g in singles[::2]:
        a.release(g)
    assert a.free == 18
    got = a.allocate((6, 3))
    assert got is not None and len(got.nodes) == 18 and a.free == 0
    assert a.allocate(1) is None


def test_naive_takes_the_first_free_nodes_in_row_major_order():
    a = Naive(Mesh(4, 3))
    x = a.allocate((4, 1))
    y = a.allocate(3)
    a.release(x)
    assert y.nodes.tolist() == [4, 5, 6]
    assert a.allocate((2, 3)).nodes.tolist() == [0, 1, 2, 3, 7, 8]


def test_random_is_reproducible_for_a_seed_and_differs_between_seeds():
    def run(seed):
        a = Random(Mesh(8, 8), seed=seed)
        out, live = [], []
        for r in [5, (3, 2), 7, 1, (2, 2), 9]:
            g = a.allocate(r)
            out.append(g.nodes.tolist())
            live.append(g)
            if len(live) > 2:
                a.release(live.pop(0))
        return out

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_random_is_uniform_over_the_free_nodes():
    a = Random(Mesh(4, 4), seed=1)
    busy = [a.allocate(1) for _ in range(16)]
    for g in busy[:10]:
        a.release(g)  # 10 free nodes
    free = set(a.free_nodes().tolist())
    counts = np.zeros(16)
    draws = 4000
    for _ in range(draws):
        g = a.allocate(2)
        counts[g.nodes] += 1
        a.release(g)
    assert set(np.flatnonzero(counts).tolist()) == free
    expected = draws * 2 / 10
    assert np.all(np.abs(counts[list(free)] - expected) < 5 * np.sqrt(expected))  # five sigma

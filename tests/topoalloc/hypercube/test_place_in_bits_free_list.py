"""``FreeList.place_in_bits`` runs ``place_in``'s search on the integer as given; its answers must
be exactly those of the generic :meth:`Allocator.place_in_bits` (the integer unpacked into a mask
for ``place_in``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import FreeList
from topoalloc.hypercube.free_list import _bit_clear_masks, _free_subcube
from topoalloc.hypercube.gray_code import _subcube_ids
from topoalloc.testing import place_in_bits_differs
from topologies import Hypercube, RequestSizeError

from ._broken import assert_caught


@st.composite
def cases(draw, max_dim=6):
    """``(allocator, k, free)``: a cube of up to ``max_dim`` dimensions, a request of any
    dimension, a free set that is the whole cube less a few nodes, a single subcube (often the only
    free one, buddy or not) or any set at all."""
    n = draw(st.integers(0, max_dim))
    size = 1 << n
    full = (1 << size) - 1
    holes = draw(st.sets(st.integers(0, size - 1), max_size=max(1, size // 4)))
    mask = draw(st.integers(0, size - 1))
    base = draw(st.integers(0, size - 1)) & ~mask
    one_cube = sum(1 << int(i) for i in _subcube_ids(base, mask))
    free = draw(st.one_of(st.just(full & ~sum(1 << h for h in holes)), st.just(one_cube), st.integers(0, full)))
    return FreeList(Hypercube(n)), draw(st.integers(0, n)), free


@settings(max_examples=400)
@given(cases())
def test_place_in_bits_answers_as_the_default(case):
    alloc, k, free = case
    assert place_in_bits_differs(alloc, k, free) is None


def test_place_in_bits_answers_as_the_default_on_random_masks_of_a_larger_cube():
    """An 8-cube, densities from sparse to full, every request size: the same answers, and
    enough of them found (not all ``None``)."""
    rng = np.random.default_rng(1991)
    alloc = FreeList(Hypercube(8))
    found = 0
    for _ in range(300):
        free_mask = rng.random(256) < rng.choice([0.3, 0.7, 0.9, 0.97])
        free = int.from_bytes(np.packbits(free_mask, bitorder="little").tobytes(), "little")
        k = int(rng.integers(0, 9))
        assert place_in_bits_differs(alloc, k, free) is None, (k, free)
        found += alloc.place_in_bits(k, free) is not None
    assert found > 100


def test_golden_non_buddy_cube():
    """The free list's example (Kim, Das & Lin's list misses it, the class docstring): with nodes
    0, 1, 3, 9, 11 of a 4-cube free the only free 2-cube is ``*0*1`` (1, 3, 9, 11)."""
    fl = FreeList(Hypercube(4))
    free = sum(1 << i for i in (0, 1, 3, 9, 11))
    assert fl.place_in_bits(2, free).tolist() == [1, 3, 9, 11]
    assert fl.place_in_bits(3, free) is None
    assert fl.place_in_bits(1, free).tolist() == [0, 1]


def test_place_in_bits_rejects_bad_requests_and_node_sets():
    fl = FreeList(Hypercube(3))
    with pytest.raises(RequestSizeError):
        fl.place_in_bits(4, 0xFF)
    with pytest.raises(ValueError, match="got -3"):
        fl.place_in_bits(1, -3)
    with pytest.raises(ValueError, match="got 256"):
        fl.place_in_bits(1, 256)


# -- the comparison catches broken variants ------------------------------------------------------
class _LastBase(FreeList):
    """Broken: the last base of the first free family instead of the first."""

    def place_in_bits(self, request, free):
        k = self.validate(request)
        found = _free_subcube(free, k, 0, 0, self.dim, _bit_clear_masks(self.dim))
        return None if found is None else _subcube_ids(found[0].bit_length() - 1, found[1])


class _CountOffByOne(FreeList):
    """Broken: gives up unless more than ``2^k`` nodes are free."""

    def place_in_bits(self, request, free):
        return None if free.bit_count() <= 1 << request else super().place_in_bits(request, free)


@pytest.mark.parametrize("broken", [_LastBase, _CountOffByOne])
def test_the_comparison_catches_a_broken_variant(broken):
    """The property of :func:`test_place_in_bits_answers_as_the_default`, run on a deliberately
    broken subclass, finds a case where it answers otherwise."""

    assert_caught(cases(), broken)

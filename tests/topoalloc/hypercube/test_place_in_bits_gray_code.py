"""``GrayCode.place_in_bits`` searches the integer node set; its answers must be exactly those of
the generic :meth:`Allocator.place_in_bits` (the integer unpacked into a mask for ``place_in``)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc import GrayCode
from topoalloc.hypercube.gray_code import _gray_steps, _spread, _subcube_ids
from topoalloc.testing import place_in_bits_differs
from topologies import Hypercube, RequestSizeError, Subcube

from ._broken import assert_caught


@st.composite
def cases(draw, max_dim=6):
    """``(allocator, k, free)``: a cube of up to ``max_dim`` dimensions with one code, two or all
    ``C(n, n/2)``; a request of any dimension; a free set that is the whole cube less a few nodes
    (large blocks free, the wrap-around block often the only one) or any set at all."""
    n = draw(st.integers(0, max_dim))
    most = math.comb(n, n // 2)
    codes = draw(st.sampled_from(sorted({1, min(2, most), most})))
    size = 1 << n
    full = (1 << size) - 1
    holes = draw(st.sets(st.integers(0, size - 1), max_size=max(1, size // 4)))
    free = draw(st.one_of(st.just(full & ~sum(1 << h for h in holes)), st.integers(0, full)))
    return GrayCode(Hypercube(n), codes=codes), draw(st.integers(0, n)), free


@settings(max_examples=400)
@given(cases())
def test_place_in_bits_answers_as_the_default(case):
    alloc, k, free = case
    assert place_in_bits_differs(alloc, k, free) is None


def test_place_in_bits_answers_as_the_default_on_random_masks_of_a_larger_cube():
    """An 8-cube with one and three codes, densities from sparse to full, every request size:
    the same answers, and enough of them found (not all ``None``)."""
    rng = np.random.default_rng(2026)
    for codes in (1, 3):
        alloc = GrayCode(Hypercube(8), codes=codes)
        found = 0
        for _ in range(300):
            free_mask = rng.random(256) < rng.choice([0.3, 0.7, 0.9, 0.97])
            free = int.from_bytes(np.packbits(free_mask, bitorder="little").tobytes(), "little")
            k = int(rng.integers(0, 9))
            assert place_in_bits_differs(alloc, k, free) is None, (codes, k, free)
            found += alloc.place_in_bits(k, free) is not None
        assert found > 100


def test_golden_blocks_of_the_3_cube():
    """The BRGC of a 3-cube lists 0 1 3 2 6 7 5 4 (Chen & Shin 1987, the reflected code): with
    nodes 0 and 4 free the only 1-cube block is the one wrapping from the last position to the
    first (likewise the 2-cube at positions 6, 7, 0, 1); with 0, 3, 4, 5, 6, 7 free the first
    1-cube block is at positions 4, 5 (nodes 6, 7) and the first 2-cube block at positions 4..7;
    the subcube ``**0`` (nodes 0, 2, 4, 6) lies at positions 0, 3, 4, 7, no block of the code."""
    g = GrayCode(Hypercube(3))
    assert g.place_in_bits(1, 0b00010001).tolist() == [0, 4]
    assert g.place_in_bits(1, 0b11111001).tolist() == [6, 7]
    assert g.place_in_bits(2, 0b11111001).tolist() == [4, 5, 6, 7]
    assert g.place_in_bits(2, 0b00110011).tolist() == [0, 1, 4, 5]  # positions 6, 7, 0, 1: wrapping round
    assert g.place_in_bits(2, 0b01010101) is None  # nodes 0, 2, 4, 6: the subcube **0, but no GC block
    assert g.place_in_bits(3, 0b11111111).tolist() == list(range(8))
    assert g.place_in_bits(0, 0b10000000).tolist() == [7]
    assert g.place_in_bits(0, 0) is None


def test_place_in_bits_rejects_bad_requests_and_node_sets():
    g = GrayCode(Hypercube(3))
    with pytest.raises(RequestSizeError):
        g.place_in_bits(4, 0xFF)
    with pytest.raises(ValueError, match="got -1"):
        g.place_in_bits(1, -1)
    with pytest.raises(ValueError, match="got 256"):
        g.place_in_bits(1, 256)
    with pytest.raises(ValueError, match="an int of 1025 bits"):
        GrayCode(Hypercube(10)).place_in_bits(1, 1 << 1024)


def test_the_gray_steps_move_each_node_to_its_code_position():
    """The delta swaps put bit ``g(i)`` at bit ``i`` for every ``i`` (one node at a time)."""
    for n in range(7):
        order = GrayCode(Hypercube(n)).orders[0].tolist()
        for i, node in enumerate(order):
            b = 1 << node
            for s, m in _gray_steps(n):
                t = ((b >> s) ^ b) & m
                b ^= t ^ (t << s)
            assert b == 1 << i, (n, i, node)


def test_subcube_ids_are_the_ascending_node_ids():
    for mask in (0, 1, 0b1010, 0b1100, 0b10011, 0b111, 0b11111111111101):  # the last: 13 dims, not cached
        base = (1 << 14) & ~mask
        assert _subcube_ids(base, mask).tolist() == Subcube(base, mask).node_ids().tolist()
    with pytest.raises(ValueError):
        _spread(0b1010)[0] = 1  # the cached offsets are read-only


# -- the comparison catches broken variants ------------------------------------------------------
class _ReversedGraySteps(GrayCode):
    """Broken: the Gray flips applied from ``j = 0`` up (the composition in the wrong order)."""

    def _bits_plan(self):
        gray, dims = super()._bits_plan()
        return gray[::-1], dims


class _NoDimensionOrder(GrayCode):
    """Broken: every code searched as if it were the plain BRGC."""

    def _bits_plan(self):
        gray, dims = super()._bits_plan()
        return gray, [[] for _ in dims]


class _NoWrapAround(GrayCode):
    """Broken: the block wrapping from the last position to the first is never taken."""

    def place_in_bits(self, request, free):
        got = super().place_in_bits(request, free)
        order = self.orders[0]
        if got is not None and 0 < request < self.dim and {int(order[0]), int(order[-1])} <= set(got.tolist()):
            return None
        return got


@pytest.mark.parametrize("broken", [_ReversedGraySteps, _NoDimensionOrder, _NoWrapAround])
def test_the_comparison_catches_a_broken_variant(broken):
    """The property of :func:`test_place_in_bits_answers_as_the_default`, run on a deliberately
    broken subclass, finds a case where it answers otherwise."""

    assert_caught(cases(), broken)

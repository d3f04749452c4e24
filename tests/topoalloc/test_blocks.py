"""The block reductions equal numpy's reshaped reductions exactly, for every block length and
memory layout they take a shortcut for."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from topoalloc._blocks import block_all, block_any, block_max, block_starts, runs_from


@st.composite
def blocked(draw, dtype):
    s = draw(st.sampled_from([1, 2, 3, 4, 5, 8, 16, 32]))
    count = draw(st.integers(1, 12))
    if dtype is bool:
        values = np.array(draw(st.lists(st.booleans(), min_size=s * count, max_size=s * count)), dtype=bool)
    else:
        floats = st.one_of(st.floats(-1e9, 1e9), st.just(-np.inf), st.just(np.inf))
        values = np.array(draw(st.lists(floats, min_size=s * count, max_size=s * count)), dtype=float)
    if draw(st.booleans()):  # a strided view, not contiguous
        wide = np.empty(2 * len(values), dtype=values.dtype)
        wide[::2] = values
        values = wide[::2]
    return values, s


@settings(max_examples=150, deadline=None)
@given(blocked(bool))
def test_boolean_blocks(case):
    mask, s = case
    assert block_all(mask, s).tolist() == mask.reshape(-1, s).all(axis=1).tolist()
    assert block_any(mask, s).tolist() == mask.reshape(-1, s).any(axis=1).tolist()


@settings(max_examples=150, deadline=None)
@given(blocked(float))
def test_maximum_blocks(case):
    values, s = case
    assert block_max(values, s).tolist() == values.reshape(-1, s).max(axis=1).tolist()


def test_slices_of_a_longer_mask():
    """Allocators reduce contiguous slices of a longer mask (one tree of a forest)."""
    rng = np.random.default_rng(3)
    mask = rng.random(320) < 0.8
    for off, size in ((0, 256), (256, 64), (1, 8), (3, 16)):
        part = mask[off : off + size]
        for s in (2, 4, 8):
            assert block_all(part, s).tolist() == part.reshape(-1, s).all(axis=1).tolist()
            assert block_any(part, s).tolist() == part.reshape(-1, s).any(axis=1).tolist()


def test_block_starts_mark_the_first_node_of_each_aligned_block():
    for n in range(0, 7):
        for k in range(0, n + 1):
            bits = block_starts(n, k)
            assert [m for m in range(1 << n) if bits >> m & 1] == list(range(0, 1 << n, 1 << k))


def test_runs_from_keeps_the_starts_of_full_runs():
    rng = np.random.default_rng(5)
    for _ in range(200):
        bits = int(rng.integers(0, 1 << 40))
        for s in (1, 2, 4, 8):
            want = sum(1 << p for p in range(40) if all(bits >> q & 1 for q in range(p, p + s)))
            assert runs_from(bits, s) == want

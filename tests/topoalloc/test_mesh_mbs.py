"""The multiple buddy strategy (Lo et al. 1997): unions of aligned power-of-two squares."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from topoalloc import MBS
from topoalloc.mesh import square_decomposition
from topoalloc.testing import allocator_machine, any_free, meshes
from topologies import Mesh


def _root_of(allocator, block):
    for r in allocator.roots:
        if r.x <= block.x and block.x_end <= r.x_end and r.y <= block.y and block.y_end <= r.y_end:
            return r
    raise AssertionError(f"{block} lies in no initial block")


def _check_free_records(allocator):
    """The free block records are the maximal free buddy blocks: they cover exactly the free nodes
    and no four buddies are all free."""
    blocks = allocator.free_blocks()
    covered = np.concatenate([b.node_ids(allocator.width) for b in blocks]) if blocks else np.zeros(0, int)
    assert np.array_equal(np.sort(covered), allocator.free_nodes()), "free records differ from the free nodes"
    listed = {(b.x, b.y, b.width) for b in blocks}
    for b in blocks:
        r = _root_of(allocator, b)
        if b.width == r.width:
            continue
        s = 2 * b.width
        px, py = r.x + (b.x - r.x) // s * s, r.y + (b.y - r.y) // s * s
        quads = {(px + dx, py + dy, b.width) for dx in (0, b.width) for dy in (0, b.width)}
        assert not quads <= listed, f"four free buddies of side {b.width} at ({px}, {py}) were not merged"


def _blocks_choice(allocator, free, request, allocation):
    """A union of aligned power-of-two squares of the initial blocks, exactly the grant's nodes."""
    n = allocator.request_size(request)
    blocks = allocator.blocks(allocation)
    nodes = np.concatenate([b.node_ids(allocator.width) for b in blocks])
    assert len(nodes) == n and np.array_equal(np.sort(nodes), allocation.nodes), "blocks are not the grant"
    for b in blocks:
        assert b.width == b.height and b.width & (b.width - 1) == 0, f"{b} is not a power-of-two square"
        r = _root_of(allocator, b)
        assert (b.x - r.x) % b.width == 0 and (b.y - r.y) % b.width == 0, f"{b} is not aligned in {r}"
    # requests only break downwards: no block is larger than the leading base-4 digit's, and there are at
    # most as many of that size as the digit (or the whole request, above the largest initial block)
    top = min(allocator.max_order, (n.bit_length() - 1) // 2)
    orders = [b.width.bit_length() - 1 for b in blocks]
    assert max(orders) <= top and orders.count(top) <= n >> (2 * top)
    _check_free_records(allocator)


def mbs_oracle(allocator, free, request):
    return any_free(allocator, free, request)


mbs_oracle.check_choice = _blocks_choice

TestMBSMachine = allocator_machine(MBS, meshes(max_side=10), oracle=mbs_oracle, max_examples=30).TestCase
TestMBSPowerOfTwoMachine = allocator_machine(
    MBS, st.sampled_from([Mesh(8, 8), Mesh(16, 16)]), oracle=mbs_oracle, max_examples=15, steps=60
).TestCase


@given(st.integers(1, 40), st.integers(1, 40))
def test_initial_decomposition_tiles_the_mesh_with_power_of_two_squares(w, h):
    roots = square_decomposition(w, h)
    cover = np.zeros((h, w), dtype=int)
    for r in roots:
        assert r.width == r.height and r.width & (r.width - 1) == 0
        cover[r.y: r.y_end, r.x: r.x_end] += 1
    assert (cover == 1).all()
    assert [r.width for r in roots] == sorted((r.width for r in roots), reverse=True)


@pytest.mark.parametrize("n", [1, 5, 27, 63, 64, 100, 255, 256])
def test_an_empty_mesh_grants_the_base_4_digits(n):
    m = MBS(Mesh(16, 16))
    sizes = sorted(b.width for b in m.blocks(m.allocate(n)))
    expected = sorted(1 << i for i in range(5) for _ in range((n >> (2 * i)) & 3))
    assert sizes == expected


def test_a_missing_block_is_broken_into_four_smaller_ones():
    m = MBS(Mesh(4, 4))
    singles = [m.allocate(1) for _ in range(16)]
    for g in singles[1::2]:  # free every other node: no free 2x2 block remains
        m.release(g)
    got = m.allocate(4)  # one 2x2 block asked for, four single nodes granted
    assert sorted(b.width for b in m.blocks(got)) == [1, 1, 1, 1]


def test_a_non_power_of_two_mesh_uses_every_node():
    m = MBS(Mesh(24, 24))
    assert [r.width for r in m.roots] == [16, 8, 8, 8, 8, 8]
    got = m.allocate(576)  # 2 * 256 + 64: the second 16x16 block is broken into 8x8 ones
    assert len(got.nodes) == 576 and m.free == 0
    assert sorted(b.width for b in m.blocks(got)) == [8, 8, 8, 8, 8, 16]
    m.release(got)
    assert sorted(b.width for b in m.free_blocks()) == [8, 8, 8, 8, 8, 16]


def test_release_merges_back_to_the_whole_mesh():
    m = MBS(Mesh(8, 8))
    rng = np.random.default_rng(0)
    live = []
    for _ in range(200):
        if live and (m.free < 20 or rng.random() < 0.4):
            m.release(live.pop(int(rng.integers(len(live)))))
        else:
            g = m.allocate(int(rng.integers(1, 12)))
            if g is not None:
                live.append(g)
        _check_free_records(m)
    for g in live:
        m.release(g)
    assert [(b.x, b.y, b.width) for b in m.free_blocks()] == [(0, 0, 8)]


def test_blocks_of_a_released_grant_are_refused():
    m = MBS(Mesh(4, 4))
    g = m.allocate(3)
    m.release(g)
    with pytest.raises(KeyError, match="not a live grant"):
        m.blocks(g)

"""The Allocator base: a frozen avoid mask is converted once and remembered (Allocator._frozen); a
grant's span."""

import numpy as np
import pytest

import topoalloc
from topologies import Flat, Hypercube, Mesh, Subcube

CASES = [
    ("Buddy", Hypercube(6), lambda rng: int(rng.integers(0, 4))),
    ("FrameSliding", Mesh(8, 8), lambda rng: (int(rng.integers(1, 5)), int(rng.integers(1, 5)))),
    ("FirstFit", Mesh(8, 8), lambda rng: (int(rng.integers(1, 5)), int(rng.integers(1, 5)))),
]


@pytest.mark.parametrize("name,topology,request_of", CASES, ids=[c[0] for c in CASES])
def test_a_remembered_frozen_mask_gives_the_grants_of_a_fresh_one(name, topology, request_of):
    """Two allocators take the same requests; one always gets frozen masks (reused for several
    requests, then replaced), the other writeable copies, which are never remembered. Their grants
    agree at every step, across allocations, releases and mask switches."""
    rng = np.random.default_rng(7)
    cls = getattr(topoalloc, name)
    memo, fresh = cls(topology), cls(topology)
    live = []
    frozen = None
    switched = 0
    for step in range(400):
        if frozen is None or rng.random() < 0.15:
            frozen = rng.random(topology.size) < rng.choice([0.05, 0.2, 0.5])
            frozen.flags.writeable = False
            switched += 1
        if live and rng.random() < 0.4:
            a, b = live.pop(int(rng.integers(len(live))))
            memo.release(a)
            fresh.release(b)
            continue
        request = request_of(rng)
        a = memo.allocate_avoiding(request, frozen)
        b = fresh.allocate_avoiding(request, frozen.copy())
        assert (a is None) == (b is None), (step, request)
        if a is not None:
            assert np.array_equal(a.nodes, b.nodes), (step, request)
            assert not frozen[a.nodes].any()
            live.append((a, b))
    assert switched > 20 and memo._frozen_memo is not None and fresh._frozen_memo is None


def test_a_writeable_or_borrowed_mask_is_never_remembered():
    b = topoalloc.Buddy(Hypercube(4))
    avoid = np.zeros(16, dtype=bool)
    b.allocate_avoiding(1, avoid)
    view = np.zeros(32, dtype=bool)[:16]
    view.flags.writeable = False  # read-only, but another array owns (and may change) its data
    b.allocate_avoiding(1, view)
    assert b._frozen_memo is None


SPANS = [
    ("Buddy", Hypercube(6), lambda rng: int(rng.integers(0, 4)), True),
    ("DHCTree", Flat(64), lambda rng: int(rng.integers(1, 20)), True),
    ("GrayCode", Hypercube(6), lambda rng: int(rng.integers(0, 4)), False),
    ("FreeList", Hypercube(6), lambda rng: int(rng.integers(0, 4)), False),
    ("FlatPool", Flat(64), lambda rng: int(rng.integers(1, 20)), False),
    ("FirstFit", Mesh(8, 8), lambda rng: (int(rng.integers(1, 5)), int(rng.integers(1, 5))), False),
]


@pytest.mark.parametrize("name,topology,request_of,always", SPANS, ids=[c[0] for c in SPANS])
def test_a_span_is_exactly_the_grants_nodes(name, topology, request_of, always):
    """``Allocation.span``, where given, is the grant's node ids as one range (checked against
    ``nodes`` over random allocations and releases); the buddy cube and the tree always give it."""
    rng = np.random.default_rng(3)
    alloc = getattr(topoalloc, name)(topology)
    live, spans = [], 0
    for _ in range(300):
        if live and rng.random() < 0.4:
            alloc.release(live.pop(int(rng.integers(len(live)))))
            continue
        got = alloc.allocate(request_of(rng))
        if got is None:
            continue
        live.append(got)
        span = got.span
        if span is None:
            assert not always
            continue
        spans += 1
        assert got.nodes.tolist() == list(range(*span))
    assert spans > 50 or not always


def test_a_subcube_has_a_span_only_when_its_addresses_are_consecutive():
    assert Subcube(base=0b1000, mask=0b0011).span == (8, 12)
    assert Subcube(base=0b0001, mask=0b1010).span is None  # *0*1: 1, 3, 9, 11


BITS = [
    ("Buddy", Hypercube(6), lambda rng: int(rng.integers(0, 7))),
    ("DHCTree", Flat(48), lambda rng: int(rng.integers(1, 33))),
    ("FrameSliding", Mesh(8, 6), lambda rng: (int(rng.integers(1, 9)), int(rng.integers(1, 7)))),
    ("FirstFit", Mesh(8, 6), lambda rng: (int(rng.integers(1, 9)), int(rng.integers(1, 7)))),
    ("GrayCode", Hypercube(5), lambda rng: int(rng.integers(0, 6))),
]


@pytest.mark.parametrize("name,topology,request_of", BITS, ids=[c[0] for c in BITS])
def test_place_in_bits_answers_as_place_in(name, topology, request_of):
    """``place_in_bits`` on the integer of a free mask gives what ``place_in`` gives on the mask
    (the buddy cube, the tree forest and frames search the integer; the others convert), over
    random masks from sparse to full and every request size."""
    rng = np.random.default_rng(11)
    alloc = getattr(topoalloc, name)(topology)
    found = 0
    for _ in range(600):
        free = rng.random(topology.size) < rng.choice([0.3, 0.7, 0.9, 1.0])
        bits = int.from_bytes(np.packbits(free, bitorder="little").tobytes(), "little")
        request = request_of(rng)
        want = alloc.place_in(request, free)
        got = alloc.place_in_bits(request, bits)
        assert (got is None) == (want is None), (request, free.astype(int).tolist())
        if got is not None:
            found += 1
            assert got.tolist() == want.tolist(), request
    assert found > 100

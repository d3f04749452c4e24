"""The Allocator base: a frozen avoid mask is converted once and remembered (Allocator._frozen)."""

import numpy as np
import pytest

import topoalloc
from topologies import Hypercube, Mesh

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

"""Frame sliding's and first fit's ``allocate_avoiding`` (kept conversions of a frozen mask, frame
sliding's refusal by rectangle arithmetic) and frame sliding's ``earliest_in`` (one or two frames
reduced slice by slice): each against the generic definition in :class:`topoalloc.Allocator`."""

from __future__ import annotations

import numpy as np
import pytest

from topoalloc import Allocator, FirstFit, FrameSliding
from topologies import Mesh


def _state(rng: np.random.Generator, cls: type, width: int, height: int) -> tuple[Allocator, Allocator, list, list]:
    """Two allocators (``cls`` on ``width x height``) in the same random state: a few grants, some
    released again; their live grants, in the same order."""
    a, b = cls(Mesh(width, height)), cls(Mesh(width, height))
    live_a, live_b = [], []
    for _ in range(int(rng.integers(0, 7))):
        request = (int(rng.integers(1, width + 1)), int(rng.integers(1, height + 1)))
        got_a, got_b = a.allocate(request), b.allocate(request)
        assert (got_a is None) == (got_b is None)
        if got_a is not None:
            live_a.append(got_a)
            live_b.append(got_b)
    return a, b, live_a, live_b


def _avoided(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A node mask: a rectangle (most often), a rectangle with one node flipped, or scattered nodes."""
    mask = np.zeros((height, width), dtype=bool)
    kind = rng.random()
    if kind < 0.75:
        y0, x0 = int(rng.integers(0, height)), int(rng.integers(0, width))
        mask[y0 : int(rng.integers(y0 + 1, height + 1)), x0 : int(rng.integers(x0 + 1, width + 1))] = True
        if kind < 0.15:
            mask[int(rng.integers(0, height)), int(rng.integers(0, width))] ^= True
    else:
        mask = rng.random((height, width)) < 0.25
    return mask.ravel().copy()


@pytest.mark.parametrize("cls", [FrameSliding, FirstFit])
def test_allocate_avoiding_is_the_generic_search(cls):
    """Allocator.allocate_avoiding's definition (the allocator's placements, made one after
    another, the first touching no avoided node), on random states, with masks frozen (kept by
    identity across questions, grants and releases) and not; the kept conversions must follow
    every change of the free nodes."""
    rng = np.random.default_rng(30)
    asked = refused = 0
    for _ in range(300):
        width, height = int(rng.integers(1, 13)), int(rng.integers(1, 13))
        fast, generic, live_fast, live_generic = _state(rng, cls, width, height)
        avoid = _avoided(rng, width, height)
        frozen = rng.random() < 0.8
        avoid.flags.writeable = not frozen
        for _ in range(6):
            request = (int(rng.integers(1, width + 1)), int(rng.integers(1, height + 1)))
            got = fast.allocate_avoiding(request, avoid)
            want = Allocator.allocate_avoiding(generic, request, avoid)
            asked += 1
            refused += got is None
            assert (got is None) == (want is None), (width, height, request)
            if got is not None:
                assert got.placement == want.placement and got.request == want.request
                live_fast.append(got)
                live_generic.append(want)
            if live_fast and rng.random() < 0.3:  # a release between questions: the kept bits must follow
                i = int(rng.integers(0, len(live_fast)))
                fast.release(live_fast.pop(i))
                generic.release(live_generic.pop(i))
            assert np.array_equal(fast.busy, generic.busy)
    assert 0.2 * asked < refused < 0.9 * asked  # both answers are exercised


def test_frame_sliding_refuses_by_arithmetic_when_no_frame_avoids_the_rectangle(monkeypatch):
    """A 20 x 24 rectangle reserved at the corner of a free 32 x 32 mesh: a 15 x 20 request has
    frames at x = 0 and 15 (both reach into columns 0-19) in the single frame row y = 0 (inside
    rows 0-23), so none avoids it and the answer is None without any frame search; an 8 x 20
    request has a frame at x = 24, off the rectangle, and is placed there (a 12 x 20 one has
    frames at x = 0 and 12 only: refused without a search too)."""
    fs = FrameSliding(Mesh(32, 32))
    corner = np.zeros((32, 32), dtype=bool)
    corner[:24, :20] = True
    avoid = _frozen(corner)
    searched = []
    search = fs._first_free
    monkeypatch.setattr(fs, "_first_free", lambda bits, w, h: searched.append((w, h)) or search(bits, w, h))
    assert fs.allocate_avoiding((15, 20), avoid) is None and searched == []
    assert fs.allocate_avoiding((12, 20), avoid) is None and searched == []
    got = fs.allocate_avoiding((8, 20), avoid)
    assert searched == [(8, 20)] and (got.placement.x, got.placement.y) == (24, 0)
    # the same mask, not frozen: no rectangle is kept, and the search refuses the request instead
    fs.release(got)
    searched.clear()
    open_mask = avoid.copy()
    assert fs.allocate_avoiding((15, 20), open_mask) is None and searched == [(15, 20)]


def test_frame_sliding_keeps_no_rectangle_for_a_mask_that_is_not_one():
    """The rectangle is kept only when the avoided nodes are exactly the block their lowest and
    highest nodes bound: one node less and the frame search answers (here it finds the frame at
    x = 0, whose nodes the hole left free)."""
    fs = FrameSliding(Mesh(8, 8))
    avoid = np.zeros((8, 8), dtype=bool)
    avoid[0:4, 0:4] = True
    assert fs.allocate_avoiding((8, 8), _frozen(avoid)) is None
    fs._off = None
    holed = avoid.copy()
    holed[0:2, 0:2] = False  # the 2 x 2 frame at (0, 0) is off the avoided nodes now
    got = fs.allocate_avoiding((2, 2), _frozen(holed))
    assert fs._off[3] is None and (got.placement.x, got.placement.y) == (0, 0)


def _frozen(mask: np.ndarray) -> np.ndarray:
    out = mask.ravel().copy()
    out.flags.writeable = False
    return out


def test_frame_sliding_earliest_in_is_the_generic_answer():
    """Allocator.earliest_in's definition (the earliest ready time at which place_in finds a
    frame, and that frame) for every shape of a 12 x 10 mesh, one- and two-frame shapes (reduced
    slice by slice) and the rest (one 4-D reduction), with ties between frames and ``now`` above
    some ready times."""
    rng = np.random.default_rng(31)
    fs = FrameSliding(Mesh(12, 10))
    for _ in range(6):
        ready = np.where(rng.random(120) < 0.5, rng.integers(0, 4, 120).astype(float), -np.inf)
        for now in (-np.inf, 0.0, 2.0):
            for w in range(1, 13):
                for h in range(1, 11):
                    got = fs.earliest_in((w, h), ready, now)
                    want = Allocator.earliest_in(fs, (w, h), ready, now)
                    assert got[0] == want[0] and got[1].tolist() == want[1].tolist(), (w, h, now)

"""Frame sliding's and first fit's ``allocate_avoiding`` (kept conversions of a frozen mask, the
refusal by rectangle arithmetic of both, first fit's bitwise test of each rejected placement),
frame sliding's ``earliest_in`` (one or two frames reduced slice by slice) and its inlined request
check: each against the generic definition in :class:`topoalloc.Allocator`."""

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
    assert fs._off[2] is None and (got.placement.x, got.placement.y) == (0, 0)


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


def _logged(search, log: list):
    """``search`` (a bound ``(bits, w, h)`` search), logging each shape it is asked about."""
    return lambda bits, w, h: log.append((w, h)) or search(bits, w, h)


def test_first_fit_refuses_by_arithmetic_when_no_submesh_fits_beside_the_rectangle(monkeypatch):
    """A 20 x 24 rectangle reserved at the lower right of a free 32 x 32 mesh leaves 12 columns
    on its left and 8 rows above it: a 15 x 25 request fits in neither, so no submesh avoids it
    and the answer is None without any search; a 12 x 25 one fits on the left and is placed at
    the origin. Turned, a 25 x 12 request is refused by the arithmetic alone unless the
    allocator may rotate it; then its turned shape would fit beside the rectangle, so the search
    answers (None, as the generic definition does: the rejected 25 x 12 placements, marked busy,
    cover the columns on the left). The same mask not frozen keeps no rectangle: the search
    answers."""
    corner = np.zeros((32, 32), dtype=bool)
    corner[:24, 12:] = True
    avoid = _frozen(corner)
    for rotate in (False, True):
        ff = FirstFit(Mesh(32, 32), rotate=rotate)
        searched: list[tuple[int, int]] = []
        monkeypatch.setattr(ff, "_first_in", _logged(ff._first_in, searched))
        assert ff.allocate_avoiding((15, 25), avoid) is None and searched == []
        assert ff.allocate_avoiding((25, 12), avoid) is None
        assert bool(searched) == rotate
        assert Allocator.allocate_avoiding(FirstFit(Mesh(32, 32), rotate=rotate), (25, 12), avoid) is None
        got = ff.allocate_avoiding((12, 25), avoid)
        assert (got.placement.x, got.placement.y, got.request) == (0, 0, (12, 25))
        ff.release(got)
        searched.clear()
        assert ff.allocate_avoiding((15, 25), avoid.copy()) is None and searched  # not frozen: searched


def test_first_fit_keeps_no_rectangle_for_a_mask_that_is_not_one():
    """As for frame sliding: a rectangle with a hole is no rectangle, and the search finds the
    2 x 2 submesh the hole left free (which the rectangle arithmetic would have refused)."""
    ff = FirstFit(Mesh(8, 8))
    avoid = np.zeros((8, 8), dtype=bool)
    avoid[0:8, 0:6] = True
    assert ff.allocate_avoiding((3, 1), _frozen(avoid)) is None  # 2 free columns only
    assert ff._off[2] == (0, 0, 6, 8)
    holed = avoid.copy()
    holed[0:2, 0:2] = False
    got = ff.allocate_avoiding((2, 2), _frozen(holed))
    assert ff._off[2] is None and (got.placement.x, got.placement.y) == (0, 0)


@pytest.mark.parametrize("request_", [(0, 1), (1, 0), (-1, 2), (33, 1), (1, 33), (True, 2), (2.0, 2), "2x2",
                                      (1, 2, 3), [2, 2], (np.int64(2), 3)])
def test_frame_sliding_inlined_request_check_answers_as_validate(request_):
    """FrameSliding.allocate and allocate_avoiding inline the request check's fast path: on bad
    and unusual requests they raise what validate raises, or accept what it accepts (and grant
    the canonical request)."""
    fs, avoid = FrameSliding(Mesh(32, 32)), _frozen(np.zeros((32, 32), dtype=bool))
    try:
        want = fs.validate(request_)
    except Exception as exc:  # noqa: BLE001 (the type is what is compared)
        for ask in (fs.allocate, lambda r: fs.allocate_avoiding(r, avoid)):
            with pytest.raises(type(exc)):
                ask(request_)
    else:
        assert fs.allocate(request_).request == want
        assert fs.allocate_avoiding(request_, avoid).request == want

import numpy as np
import pytest

from topoalloc import UnsupportedTopologyError
from topoalloc.mesh import FirstFit, FrameSliding
from topoalloc.testing import allocator_machine, frame_positions, meshes
from topologies import Flat, Mesh, RequestSizeError, RequestTypeError, Submesh


class FirstStrideFrame:
    """frame_positions, plus: the grant is the first free stride frame, y outer, x inner."""

    def __call__(self, allocator, free, request):
        return frame_positions(allocator, free, request)

    def check_choice(self, allocator, free, request, allocation):
        w, h = request
        H, W = free.shape
        frames = [
            (x, y) for y in range(0, H - h + 1, h) for x in range(0, W - w + 1, w) if free[y : y + h, x : x + w].all()
        ]
        assert frames, f"{allocation!r} granted but no stride frame was free"
        assert allocation.placement == Submesh(*frames[0], w, h), (allocation, frames[:3])


TestFrameSlidingMachine = allocator_machine(FrameSliding, meshes(max_side=10), oracle=FirstStrideFrame()).TestCase
TestFrameSlidingMachineAutoOracle = allocator_machine(FrameSliding, meshes(max_side=7), max_examples=8).TestCase


def test_frames_slide_at_stride_positions_row_major():
    fs = FrameSliding(Mesh(6, 4))
    a = fs.allocate((2, 2))
    b = fs.allocate((2, 1))
    c = fs.allocate((4, 2))
    assert a.placement == Submesh(0, 0, 2, 2)
    assert b.placement == Submesh(2, 0, 2, 1)  # (0, 0) is taken; next frame along x
    assert c.placement == Submesh(0, 2, 4, 2)  # frame rows at y = 0, 2; (0, 0) overlaps a
    assert fs.allocate((3, 3)) is None  # the 3x3 frames at (0, 0) and (3, 0) both hold busy nodes


def test_misses_a_free_submesh_off_the_stride_grid_that_first_fit_finds():
    for alloc_cls, expected in [(FrameSliding, None), (FirstFit, Submesh(1, 0, 2, 2))]:
        a = alloc_cls(Mesh(3, 2))
        a.allocate((1, 2))  # column 0
        got = a.allocate((2, 2))
        assert (got.placement if got else None) == expected, alloc_cls


def test_vertical_stride_is_the_height():
    fs = FrameSliding(Mesh(2, 5))
    fs.allocate((2, 1))  # row 0
    # 2x2 frames sit at y = 0 and 2; rows 1-2 are free but y = 1 is not a frame position
    assert fs.allocate((2, 2)).placement == Submesh(0, 2, 2, 2)
    assert fs.allocate((2, 2)) is None and fs.free == 4


def test_no_rotation():
    fs = FrameSliding(Mesh(2, 4))
    with pytest.raises(RequestSizeError):
        fs.allocate((4, 2))


def test_fold_halves_the_longer_side():
    fs = FrameSliding(Mesh(32, 32))
    assert fs.fold((5, 3)) == (3, 3)
    assert fs.fold((3, 5)) == (3, 3)
    assert fs.fold((4, 4)) == (2, 4)  # tie: the width
    assert fs.fold((2, 1)) == (1, 1)
    assert fs.fold((1, 2)) == (1, 1)
    assert fs.fold((1, 1)) is None


def test_bad_requests_and_topologies():
    fs = FrameSliding(Mesh(3, 2))
    with pytest.raises(RequestSizeError):
        fs.allocate((1, 3))
    with pytest.raises(RequestSizeError):
        fs.allocate((-1, 1))
    with pytest.raises(RequestTypeError):
        fs.allocate("2x2")
    with pytest.raises(RequestTypeError):
        fs.allocate((1, 2, 3))
    with pytest.raises(UnsupportedTopologyError):
        FrameSliding(Flat(8))


@pytest.mark.parametrize("width,height", [(8, 1), (7, 3), (6, 6), (9, 4)])
def test_covers_is_exact_on_every_frame(width, height):
    """covers(f, r) claims: wherever f finds no free frame, r finds none. Placement is monotone in
    the free set, so it suffices to check the smallest free sets on which r succeeds -- each single
    r-frame -- and there f must find a frame. Conversely a pair the rule leaves out has a frame of r
    holding no frame of f (the rule is as wide as it can be, except for sides that do not fit)."""
    fs = FrameSliding(Mesh(width, height))
    shapes = [(w, h) for w in range(1, width + 1) for h in range(1, height + 1)]

    def frames(w, h):
        for y in range(0, height - h + 1, h):
            for x in range(0, width - w + 1, w):
                free = np.zeros((height, width), dtype=bool)
                free[y : y + h, x : x + w] = True
                yield free.ravel()

    for failed in shapes:
        for request in shapes:
            if fs.covers(failed, request):
                assert all(fs.place_in(failed, free) is not None for free in frames(*request)), (
                    f"{request} covered by {failed} but one of its frames holds no {failed} frame")


def test_covers_leaves_out_sizes_on_another_grid():
    fs = FrameSliding(Mesh(8, 1))
    assert not fs.covers((3, 1), (4, 1))
    assert fs.covers((3, 1), (6, 1)) and fs.covers((3, 1), (5, 1)) and fs.covers((1, 1), (4, 1))
    free = np.zeros((1, 8), dtype=bool)
    free[0, 4:8] = True
    assert fs.place_in((4, 1), free.ravel()) is not None and fs.place_in((3, 1), free.ravel()) is None


def test_place_in_is_the_first_free_stride_frame_for_every_shape_on_32x32():
    """Large shapes (a few frames) are tested frame by frame, the others by erosion: both must give
    the first free stride frame in row-major order, on free sets where it is the first frame, a
    later one, or none."""
    rng = np.random.default_rng(7)
    fs = FrameSliding(Mesh(32, 32))
    low_rows_busy = np.ones((32, 32), dtype=bool)
    low_rows_busy[:8] = rng.random((8, 32)) >= 0.3  # frames of the first rows mostly taken
    found = 0
    for free in (rng.random((32, 32)) >= 0.02, rng.random((32, 32)) >= 0.2, low_rows_busy):
        for w in range(1, 33):
            for h in range(1, 33):
                frames = [(x, y) for y in range(0, 32 - h + 1, h) for x in range(0, 32 - w + 1, w)
                          if free[y : y + h, x : x + w].all()]
                got = fs.place_in((w, h), free.ravel())
                if not frames:
                    assert got is None, (w, h)
                    continue
                found += w * h >= 256
                x, y = frames[0]
                assert got is not None and got.tolist() == Submesh(x, y, w, h).node_ids(32).tolist(), (w, h)
    assert found > 50  # the frame-by-frame path found frames, not only none

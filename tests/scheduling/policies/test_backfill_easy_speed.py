"""EASY's fast paths on meshes change no decision: the reserved rectangle found from the
reservation's node ids by its rows' ends (``reservations._ids_box``), frame sliding's refusal of a
request no frame of which avoids the reserved rectangle, first fit's refusal of a request no
submesh of which fits beside the reserved rectangle, the free bits off a reservation kept by frame
sliding and first fit across the questions of a pass, and frame sliding's inlined ``allocate``.
Each is compared with the full work on seed 002's workload (Chang & Mohapatra, seed 002 §4.1:
Poisson arrivals, exponential service of mean 5, sides uniform on 1..32, a 32x32 mesh), and a
filter that refuses too much is shown to change the schedule."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import Job, simulate
from scheduling.policies.backfill.reservations import _ids_box
from scheduling.workloads import Exponential, MeshSides, Synthetic
from topoalloc import Allocator, FirstFit, FrameSliding
from topologies import Mesh


def _seed002(count: int, seed: int) -> list[Job]:
    """Seed 002 §4.1 at load 0.6 on 32x32 (exact estimates), then, from a second seeded stream,
    a tenth of the estimates halved (overruns) and a fifth doubled (early ends)."""
    jobs = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.6, machine_size=1024).take(count, seed=seed)
    rng = np.random.default_rng(seed + 100)
    out = []
    for j, u in zip(jobs, rng.random(len(jobs)).tolist(), strict=True):
        est = j.runtime * (0.5 if u < 0.1 else 2.0 if u < 0.3 else 1.0)
        out.append(Job(j.id, j.arrival, j.request, j.runtime, estimate=est, size=j.size))
    return out


def _run(cls: type, jobs: list[Job]) -> tuple[list, dict]:
    result = simulate(cls(Mesh(32, 32)), "EASY", jobs, jobs=None, record_placement=True)
    return result.schedule(), {k: v.tolist() for k, v in result.placements.items()}


def _box_by_definition(ids: set[int], width: int) -> tuple[int, int, int, int] | None:
    """The rectangle the ids are, found by trying every rectangle that could hold them."""
    if not ids:
        return None
    ys = [i // width for i in ids]
    xs = [i % width for i in ids]
    y, y_end, x, x_end = min(ys), max(ys) + 1, min(xs), max(xs) + 1
    whole = {r * width + c for r in range(y, y_end) for c in range(x, x_end)}
    return (y, y_end, x, x_end) if whole == ids else None


def test_ids_box_is_the_rectangle_by_definition():
    """The rows'-ends test (``reservations._ids_box``, which EASY uses for the reserved rectangle)
    answers as the definition, on rectangles, rectangles with one id moved, and scattered ids, on
    meshes of every width up to 9 (one row, whole rows, one column included)."""
    rng = np.random.default_rng(32)
    rects = 0
    for _ in range(4000):
        width, height = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        grid = np.arange(width * height).reshape(height, width)
        y0, x0 = int(rng.integers(0, height)), int(rng.integers(0, width))
        ids = set(grid[y0 : int(rng.integers(y0 + 1, height + 1)), x0 : int(rng.integers(x0 + 1, width + 1))]
                  .ravel().tolist())
        kind = rng.random()
        if kind < 0.3 and len(ids) > 1:
            ids.discard(int(rng.choice(sorted(ids))))
            ids.add(int(rng.integers(0, width * height)))
        elif kind < 0.5:
            ids = set(rng.choice(width * height, size=int(rng.integers(1, width * height + 1)), replace=False).tolist())
        arr = np.array(sorted(ids), dtype=np.int64)
        got = _ids_box(arr, width)
        assert got == _box_by_definition(ids, width), (width, height, arr)
        rects += got is not None
    assert 1000 < rects < 3900
    assert _ids_box(np.array([], dtype=np.int64), 4) is None


class _GenericAvoiding(FrameSliding):
    """Frame sliding with the generic allocate_avoiding (no kept bits, no rectangle refusal)."""

    allocate_avoiding = Allocator.allocate_avoiding


class _CountingAvoiding(FrameSliding):
    """Frame sliding counting the requests refused by the rectangle arithmetic alone."""

    refused = 0

    def allocate_avoiding(self, request, avoid):
        searched = []
        search = self._first_free
        self._first_free = lambda bits, w, h: searched.append(1) or search(bits, w, h)
        try:
            got = super().allocate_avoiding(request, avoid)
        finally:
            del self._first_free
        if got is None and not searched and request[0] * request[1] <= self.free:
            type(self).refused += 1
        return got


class _RowsIgnored(FrameSliding):
    """A filter that refuses too much: only a frame column off the reserved nodes' columns counts
    (a frame below or above them is overlooked)."""

    def allocate_avoiding(self, request, avoid):
        w, _ = self.validate(request)
        cols = np.flatnonzero(np.asarray(avoid).reshape(self.height, self.width).any(axis=0))
        if len(cols) and not (w <= cols[0] or (self.width // w - 1) * w > cols[-1]):
            return None
        return super().allocate_avoiding(request, avoid)


@pytest.mark.parametrize("seed", [1, 2])
def test_frame_sliding_refusals_change_no_decision(seed):
    """The same schedule and every placement with frame sliding's own allocate_avoiding (kept
    bits, rectangle refusal) and with the generic one, on 600 jobs of seed 002's workload with
    exact, short and long estimates; the rectangle refusal did answer many of the questions."""
    jobs = _seed002(600, seed)
    _CountingAvoiding.refused = 0
    fast = _run(_CountingAvoiding, jobs)
    assert _CountingAvoiding.refused > 100
    assert fast == _run(_GenericAvoiding, jobs) == _run(FrameSliding, jobs)


def test_a_refusal_that_overlooks_frames_below_or_above_is_caught():
    """The comparison above can fail: overlooking the frames off the reserved rows refuses
    candidates that could start, and the schedule changes."""
    jobs = _seed002(600, 1)
    assert _run(_RowsIgnored, jobs)[0] != _run(FrameSliding, jobs)[0]


class _FirstFitGeneric(FirstFit):
    allocate_avoiding = Allocator.allocate_avoiding


def test_first_fit_kept_bits_change_no_decision():
    """First fit's allocate_avoiding with the free bits off the reservation kept across a pass
    gives the generic search's schedule and placements (seed 002's jobs as above)."""
    jobs = _seed002(400, 3)
    assert _run(FirstFit, jobs) == _run(_FirstFitGeneric, jobs)


class _CountingFirstFit(FirstFit):
    """First fit counting the requests refused by the rectangle arithmetic alone."""

    refused = 0

    def allocate_avoiding(self, request, avoid):
        searched = []
        search = self._first_in
        self._first_in = lambda bits, w, h: searched.append(1) or search(bits, w, h)
        try:
            got = super().allocate_avoiding(request, avoid)
        finally:
            del self._first_in
        if got is None and not searched:
            type(self).refused += 1
        return got


class _AboveIgnored(FirstFit):
    """A first-fit refusal that refuses too much: only the columns beside the reserved nodes
    count (a submesh below or above them is overlooked)."""

    def allocate_avoiding(self, request, avoid):
        w, h = self.validate(request)
        cols = np.flatnonzero(np.asarray(avoid).reshape(self.height, self.width).any(axis=0))
        if len(cols) and not (w <= cols[0] or w <= self.width - 1 - cols[-1]):
            return None
        return super().allocate_avoiding(request, avoid)


class _GenericAllocate(FrameSliding):
    """Frame sliding through the generic Allocator.allocate (validate, then _place)."""

    allocate = Allocator.allocate


@pytest.mark.parametrize("seed", [1, 2])
def test_first_fit_rectangle_refusal_and_frame_sliding_inlined_allocate_change_no_decision(seed):
    """First fit's allocate_avoiding (its rectangle refusal and bitwise test of each rejected
    placement) gives the generic search's schedule and placements, the refusal having answered
    many questions alone; frame sliding's inlined allocate gives the generic allocate's (seed
    002's jobs as above, 600 of them)."""
    jobs = _seed002(600, seed)
    _CountingFirstFit.refused = 0
    assert _run(_CountingFirstFit, jobs) == _run(_FirstFitGeneric, jobs)
    assert _CountingFirstFit.refused > 200
    assert _run(_GenericAllocate, jobs) == _run(FrameSliding, jobs)


def test_a_first_fit_refusal_that_overlooks_rows_below_or_above_is_caught():
    """The comparison above can fail: refusing every request that does not fit beside the
    reserved columns changes the schedule."""
    jobs = _seed002(600, 1)
    assert _run(_AboveIgnored, jobs)[0] != _run(FirstFit, jobs)[0]

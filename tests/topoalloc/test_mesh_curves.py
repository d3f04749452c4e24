"""Curve allocators (Leung et al., Cplant 2002): free intervals along a Hilbert or snake curve."""

import numpy as np
import pytest

from topoalloc import Curve, UnknownOptionError
from topoalloc.mesh import curve_order
from topoalloc.testing import allocator_machine, any_free, meshes


def _intervals(free_c):
    """Maximal runs of True, brute force: [(start, length)]."""
    out, start = [], None
    for i, f in enumerate(list(free_c) + [False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append((start, i - start))
            start = None
    return out


def _curve_choice(allocator, free, request, allocation):
    """One contiguous curve interval whenever one is long enough, the one the fit rule picks, used
    from its low end; otherwise the n consecutive free nodes of least span."""
    n = allocator.request_size(request)
    free_c = free.ravel()[allocator.order].tolist()
    pos = sorted(allocator.position[allocation.nodes].tolist())
    runs = _intervals(free_c)
    long_enough = [(s, L) for s, L in runs if L >= n]
    if long_enough:
        assert pos == list(range(pos[0], pos[0] + n)), f"{allocation!r} is not one curve interval"
        if allocator.fit == "first":
            s, _ = long_enough[0]
        elif allocator.fit == "best":
            s, _ = min(long_enough, key=lambda t: (t[1], t[0]))
        else:
            counts = {}
            for _, L in runs:
                counts[L] = counts.get(L, 0) + 1

            def after(L):
                c = dict(counts)
                c[L] -= 1
                if L > n:
                    c[L - n] = c.get(L - n, 0) + 1
                return sum(v * v for v in c.values())

            s, _ = min(long_enough, key=lambda t: (after(t[1]), t[0]))
        assert pos[0] == s, f"{allocator.fit} fit should start at curve position {s}, got {pos[0]}"
    else:
        free_pos = [i for i, f in enumerate(free_c) if f]
        spans = [free_pos[j + n - 1] - free_pos[j] for j in range(len(free_pos) - n + 1)]
        j = spans.index(min(spans))
        assert pos == free_pos[j: j + n], f"expected the least-span run {free_pos[j: j + n]}, got {pos}"


def curve_oracle(allocator, free, request):
    return any_free(allocator, free, request)


curve_oracle.check_choice = _curve_choice

TestHilbertFirstFitMachine = allocator_machine(
    lambda t: Curve(t, "hilbert", "first"), meshes(max_side=8), oracle=curve_oracle, max_examples=25
).TestCase
TestHilbertBestFitMachine = allocator_machine(
    lambda t: Curve(t, "hilbert", "best"), meshes(max_side=8), oracle=curve_oracle, max_examples=25
).TestCase
TestHilbertSumOfSquaresMachine = allocator_machine(
    lambda t: Curve(t, "hilbert", "sum_of_squares"), meshes(max_side=8), oracle=curve_oracle, max_examples=25
).TestCase
TestSnakeBestFitMachine = allocator_machine(
    lambda t: Curve(t, "snake", "best"), meshes(max_side=8), oracle=curve_oracle, max_examples=15
).TestCase


def test_hilbert_on_power_of_two_squares_is_the_hilbert_curve():
    for k in range(1, 6):
        side = 1 << k
        order = curve_order(side, side)
        x, y = order % side, order // side
        assert (x[0], y[0], x[-1], y[-1]) == (0, 0, side - 1, 0)
        for j in range(1, k + 1):  # every aligned run of 4^j positions is an aligned 2^j x 2^j square
            s = 1 << j
            bx, by = x.reshape(-1, s * s), y.reshape(-1, s * s)
            assert np.all(bx.max(1) - bx.min(1) == s - 1) and np.all(by.max(1) - by.min(1) == s - 1)
            assert np.all(bx.min(1) % s == 0) and np.all(by.min(1) % s == 0)


def test_generalized_hilbert_covers_any_rectangle_with_neighbour_steps():
    for w in range(1, 20):
        for h in range(1, 20):
            order = curve_order(w, h)
            assert sorted(order.tolist()) == list(range(w * h))
            x, y = order % w, order // w
            dx, dy = np.abs(np.diff(x)), np.abs(np.diff(y))
            assert np.all(np.maximum(dx, dy) == 1), (w, h)  # neighbours or diagonal
            diagonal = int(np.sum(dx + dy == 2))
            assert diagonal <= 1 and (diagonal == 0 or (w % 2) != (h % 2)), (w, h)


def test_snake_curve():
    assert curve_order(3, 3, "snake").tolist() == [0, 1, 2, 5, 4, 3, 6, 7, 8]
    assert curve_order(3, 3, "SNAKE").tolist() == [0, 1, 2, 5, 4, 3, 6, 7, 8]


def _with_busy(alloc, busy_positions):
    """Fill the curve node by node, then free all but ``busy_positions``."""
    grants = [alloc.allocate(1) for _ in range(alloc.size)]
    for g in grants:
        if int(alloc.position[g.nodes[0]]) not in busy_positions:
            alloc.release(g)


def test_the_three_fits_choose_different_intervals():
    # snake on 16x1: free intervals [0,5) length 5, [6,9) length 3, [10,12) length 2, [13,16) length 3
    from topologies import Mesh

    busy = {5, 9, 12}
    picks = {}
    for fit in ("first", "best", "sum_of_squares"):
        c = Curve(Mesh(16, 1), "snake", fit)
        _with_busy(c, busy)
        picks[fit] = int(c.position[c.allocate(2).nodes].min())
    # first fit: the first interval; best fit: the exact 2-hole; sum of squares: lengths {5:1, 3:2, 2:1};
    # using a 3 leaves {5:1, 3:1, 2:1, 1:1} (sum 4), using the 2-hole leaves {5:1, 3:2} (sum 5)
    assert picks == {"first": 0, "best": 10, "sum_of_squares": 6}
    # intervals of lengths 5, 2, 7: an exact fit leaves {5, 7} (sum 2); using the 5 leaves {3, 2, 7} (sum 3)
    c = Curve(Mesh(16, 1), "snake", "sum_of_squares")
    _with_busy(c, {5, 8})
    assert int(c.position[c.allocate(2).nodes].min()) == 6


def test_min_span_when_no_interval_is_long_enough():
    from topologies import Mesh

    c = Curve(Mesh(12, 1), "snake", "best")
    _with_busy(c, {1, 3, 4, 5, 8, 10})  # free: 0, 2, 6, 7, 9, 11
    got = sorted(c.position[c.allocate(3).nodes].tolist())
    assert got == [6, 7, 9]  # span 3; (0, 2, 6) spans 6, (7, 9, 11) spans 4


def test_bad_options_name_the_value():
    from topologies import Mesh

    with pytest.raises(UnknownOptionError, match="'peano'.*hilbert, snake"):
        Curve(Mesh(4, 4), curve="peano")
    with pytest.raises(UnknownOptionError, match="'worst'.*first, best, sum_of_squares"):
        Curve(Mesh(4, 4), fit="worst")
    with pytest.raises(UnknownOptionError, match="'peano'"):
        curve_order(4, 4, "peano")
    assert Curve(Mesh(4, 4), curve="Hilbert", fit="sum-of-squares").fit == "sum_of_squares"

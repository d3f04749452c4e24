"""The free-time profile of conservative backfilling: free processors (and reserved nodes) over time.

See :class:`FreeProfile`.
"""

from __future__ import annotations

import bisect
import functools
import math
import operator
from collections.abc import Iterator

__all__ = ["FreeProfile"]


class FreeProfile:
    """Free processors over time, a step function: ``free[i]`` processors are free over
    ``[times[i], times[i + 1])`` (the last step lasts for ever). Conservative backfilling keeps one:
    the running jobs until their expected ends and the reservations over their intervals. On node
    sets each step also holds ``held[i]``, the reserved nodes as the bits of an integer
    (reservations that overlap in time never share a node).

    :meth:`change` adds or removes a job's rectangle (``delta`` processors over ``[start, end)``,
    and its reserved nodes),
    :meth:`first` finds the earliest start from which a job of ``n`` processors and length ``d``
    fits for its whole length (the textbook profile search of conservative backfilling). For B
    breakpoints a search is O(B) (a start whose window meets a step with too few processors
    resumes after that step), a change O(B) in the worst case (list inserts and the steps it
    spans).

    >>> p = FreeProfile(8)
    >>> p.change(0.0, 10.0, -6); p.change(4.0, 6.0, -2)   # a running job and a reservation
    >>> p.first(3, 5.0, now=1.0), p.first(2, 3.0, now=1.0), p.first(2, 4.0, now=1.0)
    (10.0, 1.0, 6.0)
    >>> p.first(2, 4.0, now=1.0, limit=6.0) is None, p.peak(1.0, 6.0)
    (True, 2)
    """

    __slots__ = ("times", "free", "held")

    def __init__(self, size: int) -> None:
        self.times: list[float] = [-math.inf]
        self.free: list[int] = [size]
        self.held: list[int] = [0]

    def change(self, start: float, end: float, delta: int, nodes: int = 0) -> None:
        """Add ``delta`` free processors over ``[start, end)`` (negative: take them; 0: only the
        nodes change), and reserve the nodes ``nodes`` (bits) there if they are not reserved, or
        free them if they are; the part before the first breakpoint is ignored (it is in the
        past). The profile stays canonical (no breakpoint between two equal steps: a change moves
        every step it spans alike, so only its two ends can become redundant, and they are
        dropped), so a step function has one representation whatever changes made it."""
        times, free, held = self.times, self.free, self.held
        if start < times[0]:
            start = times[0]
        if not end > start:
            return
        # the breakpoints at start and end, inserted (splitting their steps) if absent
        i = bisect.bisect_left(times, start)
        if i == len(times) or times[i] != start:
            times.insert(i, start)
            free.insert(i, free[i - 1])
            held.insert(i, held[i - 1])
        j = bisect.bisect_left(times, end, i)
        if j == len(times) or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
            held.insert(j, held[j - 1])
        if j - i == 1:  # one step (the most common change): no loop
            free[i] += delta
            if nodes:
                held[i] ^= nodes
        else:
            if delta:
                for k in range(i, j):
                    free[k] += delta
            if nodes:
                for k in range(i, j):
                    held[k] ^= nodes
        # drop the breakpoints the change made redundant (equal steps on both sides)
        if j < len(free) and free[j] == free[j - 1] and held[j] == held[j - 1]:
            del times[j], free[j], held[j]
        if i > 0 and free[i] == free[i - 1] and held[i] == held[i - 1]:
            del times[i], free[i], held[i]

    def trim(self, now: float) -> None:
        """Forget the steps that ended by ``now``."""
        i = bisect.bisect_right(self.times, now) - 1
        if i > 0:
            del self.times[:i], self.free[:i], self.held[:i]

    def held_over(self, start: float, end: float, since: float = math.inf, but: int = 0) -> int:
        """The nodes (bits) reserved at any time of ``[start, end)`` (of the step holding ``start``
        when the interval is empty); from ``since`` on, not counting the nodes ``but``."""
        times, held = self.times, self.held
        i = bisect.bisect_right(times, start) - 1
        j = bisect.bisect_left(times, end)
        if j <= i:
            j = i + 1
        s = bisect.bisect_left(times, since, i, j)  # the steps from since on
        bits = functools.reduce(operator.or_, held[i:s], 0)
        if s < j:
            bits |= functools.reduce(operator.or_, held[s:j], 0) & ~but
        return bits

    def rises(self, t: float) -> bool:
        """Whether the profile has a breakpoint at ``t`` where processors are freed: more free
        than just before, or reserved nodes released."""
        times = self.times
        i = bisect.bisect_left(times, t)
        return 0 < i < len(times) and times[i] == t and (
            self.free[i] > self.free[i - 1] or bool(self.held[i - 1] & ~self.held[i]))

    def starts(self, n: int, d: float, now: float, limit: float = math.inf, lift: int = 0,
               until: float = math.inf) -> Iterator[float]:
        """Every start in ``[now, min(limit, until))``, at ``now`` or at a breakpoint, from which
        ``n`` processors are free over ``[start, start + d)`` (at the start itself when ``d == 0``),
        ascending (a generator: :meth:`first` from ``now``, then from the breakpoint after each
        start found). ``lift``: count that many more processors free from ``limit`` on (the job's
        own reservation, starting at ``limit``, when looking for an earlier one)."""
        t = self.first(n, d, now, limit, lift, until)
        while t is not None:
            yield t
            t = self.first_after(t, n, d, limit, lift, until)

    def first_after(self, t: float, n: int, d: float, limit: float = math.inf, lift: int = 0,
                    until: float = math.inf) -> float | None:
        """The next of :meth:`starts` after the start ``t``: :meth:`first` from the breakpoint
        after ``t`` (``None`` if there is none)."""
        times = self.times
        i = bisect.bisect_right(times, t)
        return self.first(n, d, times[i], limit, lift, until) if i < len(times) else None

    def first(self, n: int, d: float, now: float, limit: float = math.inf, lift: int = 0,
              until: float = math.inf) -> float | None:
        """The earliest of :meth:`starts`, or ``None``: a start whose window meets a step with too
        few processors resumes after that step."""
        times, free = self.times, self.free
        m = len(times)
        i = bisect.bisect_right(times, now) - 1
        t = now
        stop_at = limit if limit < until else until
        while t < stop_at:
            if free[i] >= n:
                stop = t + d
                j = i + 1
                # the steps of the window before the limit, then (lifted) those from it on
                cap = stop if stop < limit else limit
                while j < m and times[j] < cap and free[j] >= n:
                    j += 1
                if j < m and times[j] >= limit:
                    while j < m and times[j] < stop and free[j] + lift >= n:
                        j += 1
                if j == m or times[j] >= stop:
                    return t
                i = j  # every start up to times[j] meets that step
            i += 1
            if i == m:
                return None
            t = times[i]
        return None

    def peak(self, now: float, until: float) -> int:
        """The most processors free at any time of ``[now, until)`` (-1 if empty)."""
        if not until > now:
            return -1
        times = self.times
        return max(self.free[bisect.bisect_right(times, now) - 1 : bisect.bisect_left(times, until)])

"""Efficiency-driven dynamic allocation (seed 003): EQUI, AP-EQUI, ST-EQUI, EQUAL-EFF, OPT-EFF and
ST-EQUAL-EFF, on a topology-independent machine (:class:`~topoalloc.FlatPool`).

T. D. Nguyen, R. Vaswani, J. Zahorjan, *Using Runtime Measured Workload Characteristics in
Parallel Processor Scheduling* (JSSPP 1996): §4.1 (EQUI, ST-EQUI, AP-EQUI), §4.2 (self-tuning),
§5.1 (EQUAL-EFF), §5.2 (OPT-EFF), §5.3 (ST-EQUAL-EFF).

A job is described by its speedup curve ``S(p) = p xi(p)`` (any
:class:`~scheduling.models.speedup.Speedup`: Ismail's Table 4.1 applications from
:mod:`scheduling.models.applications`, Downey's model, Amdahl, a :class:`~scheduling.models.speedup.Tabulated`
curve with a slowdown). The job's request ``n`` is the most processors it can use: no policy
gives a job more than ``n``.

Interpretations (the paper's prototypes measured efficiencies on a KSR-2; we simulate):

* **Measurements are exact.** The efficiency a job "measures" on ``p`` processors is
  ``S(p) / p`` of its curve; a self-tuning probe costs real time (one iteration at the probed
  size) but returns the true value. This is §5.2's "optimistic assumption that measured efficiency
  information is perfectly reliable"; the costs of search (§4.5, §5.3) remain.
* **Iterations.** A job's work is ``attrs["iterations"]`` equal iterations (default
  ``iterations=100``), so one iteration on ``p`` processors takes ``t(p) / iterations``.
* **Reallocation overhead.** Every change of the processors a job runs on (including a
  self-tuning probe) costs ``overhead`` time units without progress, as Ismail's ``C``.
* **EQUAL-EFF in the simulator** computes, at every arrival and departure, §5.2's iteration:
  start from equipartition, extrapolate each job's efficiency from its current allocation, hand
  out processors greedily, repeat until the allocation repeats (at most ``max_steps``), and
  move to that allocation. With ``quantum > 0`` each step of the iteration instead takes
  ``quantum`` time units (the jobs run on each intermediate allocation while it is "measured").
* **The processors a self-tuning job gives up** are re-divided equally (water-filling) among the
  jobs that have not limited themselves (ST-EQUI), or by the equal-efficiency rule
  (ST-EQUAL-EFF); jobs whose share changes tune again. A job's tuned limit only decreases (job
  speedups do not change over time in our model, so "asking for processors back" never arises).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._validate import check_int, check_real
from ..kernel.actions import Action, Timer
from ..models.speedup import Speedup
from .ismail_dynamic import DynamicPolicy, _Share, water_fill
from .registry import register

__all__ = [
    "extrapolated_beta",
    "extrapolated_efficiency",
    "equal_eff_greedy",
    "equal_eff_step",
    "EqualEffIteration",
    "equal_eff_allocation",
    "opt_eff_allocation",
    "equipartition",
    "best_size",
    "system_efficiency",
    "job_throughput",
    "golden_section_search",
    "SelfTuning",
    "EQUI",
    "APEQUI",
    "EQUALEFF",
    "OPTEFF",
    "STEQUI",
    "STEQUALEFF",
]


# -- the allocation rules, as plain functions -------------------------------------------------------
def extrapolated_beta(efficiency: float, p: int) -> float:
    """``beta`` such that ``(1 + beta) / (p + beta)`` equals the ``efficiency`` measured on ``p``
    processors (§5.1, after Dowdy): ``beta = (eps p - 1) / (1 - eps)``; ``inf`` when the
    measurement says nothing (``eps >= 1``, e.g. on one processor: the extrapolated curve is flat
    at 1).

    >>> extrapolated_beta(0.5, 4)
    2.0
    """
    if not efficiency > 0:
        raise ValueError(f"a measured efficiency must be > 0, got {efficiency}")
    if p < 1:
        raise ValueError(f"efficiency is measured on p >= 1 processors, got {p}")
    if efficiency >= 1.0 or p == 1:
        return math.inf
    return (efficiency * p - 1.0) / (1.0 - efficiency)


def extrapolated_efficiency(beta: float, p: float) -> float:
    """``(1 + beta) / (p + beta)`` (1 for ``beta = inf``)."""
    return 1.0 if beta == math.inf else (1.0 + beta) / (p + beta)


def equipartition(limits: Sequence[int], total: int) -> list[int]:
    """EQUI's shares: equal, no job above its limit, leftovers to the earliest (index order)."""
    return water_fill(list(limits), total)


def equal_eff_greedy(betas: Sequence[float], limits: Sequence[int], total: int) -> list[int]:
    """§5.1's greedy step: one processor each, then the rest one at a time to the job with the
    highest extrapolated efficiency at its current count (ties: lowest index), never above its
    limit. O(total log M).

    >>> equal_eff_greedy([math.inf, 1.0], [8, 8], 6)
    [5, 1]
    """
    m = len(betas)
    if m > total:
        raise ValueError(f"{m} jobs need at least one processor each, only {total} available")
    alloc = [1] * m
    heap = [(-extrapolated_efficiency(b, 1), i) for i, b in enumerate(betas) if limits[i] > 1]
    heapq.heapify(heap)
    rest = total - m
    while rest > 0 and heap:
        _, i = heapq.heappop(heap)
        alloc[i] += 1
        rest -= 1
        if alloc[i] < limits[i]:
            heapq.heappush(heap, (-extrapolated_efficiency(betas[i], alloc[i]), i))
    return alloc


def equal_eff_step(speedups: Sequence[Speedup], limits: Sequence[int], total: int,
                   current: Sequence[int]) -> list[int]:
    """One EQUAL-EFF iteration: measure each job's efficiency on its ``current`` count,
    extrapolate, and allocate greedily."""
    betas = [extrapolated_beta(s.speedup(p) / p, p) for s, p in zip(speedups, current, strict=True)]
    return equal_eff_greedy(betas, limits, total)


class EqualEffIteration:
    """§5.2's iteration for one set of jobs: measure the efficiencies on the current allocation,
    extrapolate, allocate greedily (:func:`equal_eff_greedy`), repeat.

    Two points the paper leaves open, and our reading:

    * A job measured on one processor shows efficiency 1 whatever its curve, which extrapolates
      to a flat curve; it keeps the ``beta`` of its last measurement on more processors (``inf``
      if it never had one).
    * "This process continues until successive allocations are identical" -- a fixed point,
      which is the answer. "It is not at all clear that this iterative process must always
      converge; however, in practice we did not encounter convergence problems." With
      sharp-kneed curves (Downey's low-variance model) it can cycle: a job measured below its
      knee extrapolates to near-linear speedup, gets most of the machine, measures poorly there,
      and falls back. When an allocation repeats without being a fixed point we stop and keep
      the allocation with the highest sum of efficiencies among *all* those the iteration has run
      on -- the start included (the scheduler has measured every one of them) -- so a cycle never
      returns something worse than an allocation already measured. (Keeping the best of the
      cycle only could: Downey curves A = 10.18, 9.88, 8.32, sigma = 0.11, 0.11, 0.77 on 32
      processors cycle [4, 24, 4] <-> [25, 3, 4], 17.33 and 16.66, below the equipartition start
      [11, 11, 10] at 26.12; OPT-EFF 26.41.) The same holds when ``max_steps`` runs out.

    ``done`` tells when the iteration has stopped; ``current`` is the allocation.

    >>> from scheduling.models.downey_speedup import Downey
    >>> it = EqualEffIteration([Downey(10.18, 0.11), Downey(9.88, 0.11), Downey(8.32, 0.77)], [32] * 3, 32)
    >>> while not it.done: _ = it.step()
    >>> it.current, len(it.history)
    ([11, 11, 10], 6)
    """

    __slots__ = ("speedups", "limits", "total", "betas", "history", "current", "done")

    def __init__(self, speedups: Sequence[Speedup], limits: Sequence[int], total: int,
                 start: Sequence[int] | None = None) -> None:
        self.speedups = list(speedups)
        self.limits = [min(int(n), total) for n in limits]
        self.total = total
        self.current = list(start) if start is not None else equipartition(self.limits, total)
        self.betas = [math.inf] * len(self.current)
        self.history: list[tuple[int, ...]] = [tuple(self.current)]
        self.done = False

    def step(self) -> list[int]:
        """One measure-extrapolate-allocate step; returns the new allocation."""
        if self.done:
            return self.current
        for i, (s, p) in enumerate(zip(self.speedups, self.current, strict=True)):
            if p > 1:
                self.betas[i] = extrapolated_beta(s.speedup(p) / p, p)
        nxt = equal_eff_greedy(self.betas, self.limits, self.total)
        key = tuple(nxt)
        if key in self.history:
            if key != self.history[-1]:  # a cycle, not a fixed point
                nxt = self.best_seen()
            self.done = True
        else:
            self.history.append(key)
        self.current = nxt
        return nxt

    def best_seen(self) -> list[int]:
        """The allocation with the highest sum of efficiencies among those the iteration has
        visited (the first such one on ties, so the start wins a tie)."""
        best = max(self.history, key=lambda a: system_efficiency(self.speedups, a))
        return list(best)


def equal_eff_allocation(speedups: Sequence[Speedup], limits: Sequence[int], total: int,
                         start: Sequence[int] | None = None, max_steps: int = 50) -> list[int]:
    """§5.2's model of EQUAL-EFF: from ``start`` (default: equipartition), iterate
    (:class:`EqualEffIteration`) until an allocation repeats (the fixed point; on a cycle, the best
    allocation seen) or ``max_steps`` steps (the best allocation seen). O(steps x total log M).

    >>> from scheduling.models.applications import application
    >>> apps = [application(k) for k in (1, 8, 16)]
    >>> equal_eff_allocation([a.speedup for a in apps], [a.max_processors for a in apps], 32)
    [7, 16, 9]
    """
    check_int(total, "total (processors)", low=0)
    check_int(max_steps, "max_steps", low=1)
    it = EqualEffIteration(speedups, limits, total, start)
    for _ in range(max_steps):
        it.step()
        if it.done:
            return it.current
    return it.best_seen()


def _curve(speedup: Speedup, limit: int) -> np.ndarray:
    return np.array([speedup.speedup(p) for p in range(1, limit + 1)], dtype=float)


def opt_eff_allocation(speedups: Sequence[Speedup | np.ndarray], limits: Sequence[int],
                       total: int) -> list[int]:
    """OPT-EFF (§5.2): the allocation maximising the sum of processor efficiencies
    ``sum_j S_j(p_j)`` with ``1 <= p_j <= limit_j`` and ``sum_j p_j <= total``, by dynamic
    programming over the full curves (``speedups`` may be Speedup objects or arrays
    ``S(1..limit)``). Ties go to fewer processors. O(M total^2) arithmetic, vectorised per job.

    >>> from scheduling.models.speedup import Linear, Amdahl
    >>> opt_eff_allocation([Amdahl(0.5), Linear()], [8, 8], 8)
    [1, 7]
    """
    check_int(total, "total (processors)", low=0)
    m = len(speedups)
    if m > total:
        raise ValueError(f"{m} jobs need at least one processor each, only {total} available")
    if m == 0:
        return []
    best = np.full(total + 1, -np.inf)
    best[0] = 0.0
    choices = []
    for s, lim in zip(speedups, limits, strict=True):
        lim = min(int(lim), total)
        curve = np.asarray(s, dtype=float)[:lim] if isinstance(s, np.ndarray) else _curve(s, lim)
        padded = np.concatenate([np.full(lim, -np.inf), best])
        # window[c, k] = padded[c + k] = best[c + k - lim]; p = lim - k  ->  best[c - p]
        cand = sliding_window_view(padded, lim)[: total + 1, ::-1] + curve[None, :]
        pick = np.argmax(cand, axis=1)
        best = cand[np.arange(total + 1), pick]
        choices.append(pick + 1)
    c = int(np.argmax(best))  # first maximum: fewest processors
    out = [0] * m
    for i in range(m - 1, -1, -1):
        p = int(choices[i][c])
        out[i] = p
        c -= p
    return out


def system_efficiency(speedups: Sequence[Speedup], allocation: Sequence[int]) -> float:
    """The sum of the efficiencies of all processors (§5): ``sum_j S_j(p_j)``."""
    return float(sum(s.speedup(p) for s, p in zip(speedups, allocation, strict=True) if p > 0))


def job_throughput(result: Any, classes: Mapping[int, Any], window: tuple[float, float] | None = None
                   ) -> dict[Any, float]:
    """Jobs completed per time unit, by class (§5.3, Table 1): ``classes`` maps a job id to its
    class (e.g. ``{j.id: j.attrs["app"] for j in jobs}``); counts the jobs of ``result.table``
    that end inside ``window`` (default ``result.window``)."""
    start, end = window if window is not None else result.window
    if not end > start:
        raise ValueError(f"throughput needs a window of positive length, got {(start, end)}")
    t = result.table
    inside = (t["end"] > start) & (t["end"] <= end)
    out: dict[Any, float] = {}
    for jid in t["id"][inside].tolist():
        c = classes[jid]
        out[c] = out.get(c, 0.0) + 1.0
    return {c: n / (end - start) for c, n in out.items()}


def best_size(speedup: Speedup, limit: int) -> int:
    """The fewest processors, at most ``limit``, that maximise ``speedup`` (AP-EQUI's cap)."""
    check_int(limit, "limit", low=1)
    curve = _curve(speedup, limit)
    return int(np.argmax(curve >= curve.max() * (1 - 1e-12))) + 1


# -- self-tuning ----------------------------------------------------------------------------------
class SelfTuning:
    """§4.2's self-tuning search, one probe at a time (the method of golden sections, McCormick).

    The job first runs one iteration on all ``P`` processors it holds and measures ``S(P)``;
    since the speedup on fewer than ``S(P)`` processors is below ``S(P)``, the best count lies in
    ``[ceil(S(P)), P]``. The search keeps the best count probed so far and the bracket between
    its probed (or bound) neighbours, and probes the golden-section point of the larger side;
    a probe that is not better moves the bracket end (for a non-unimodal curve this keeps "the
    largest subinterval that contains the currently known maximum and for which the known values
    are conformal with a unimodal function"). Ties prefer fewer processors. It ends when the
    bracket holds no unprobed count: O(log P) probes.

    >>> t = SelfTuning(16); p = t.next_probe()
    >>> while p is not None: t.record(p, min(p, 6) - 0.01 * p); p = t.next_probe()
    >>> t.best, t.probes <= 8
    (6, True)
    """

    __slots__ = ("P", "known", "lo", "hi", "best")

    def __init__(self, P: int) -> None:
        check_int(P, "self-tuning needs at least one processor: P", low=1)
        self.P = P
        self.known: dict[int, float] = {}
        self.lo = 1
        self.hi = P
        self.best: int | None = None

    @property
    def probes(self) -> int:
        return len(self.known)

    def record(self, p: int, speedup: float) -> None:
        """The measured speedup of the probe on ``p`` processors."""
        self.known[p] = speedup
        if self.best is None:  # the first probe, on all P
            self.best = p
            self.lo = max(1, min(p, math.ceil(speedup - 1e-9)))
            return
        b = self.best
        better = speedup > self.known[b] or (speedup == self.known[b] and p < b)
        if p < b:
            if better:
                self.hi, self.best = b, p
            else:
                self.lo = p
        else:
            if better:
                self.lo, self.best = b, p
            else:
                self.hi = p

    def next_probe(self) -> int | None:
        """The next count to probe, or ``None`` when the search is over."""
        if self.best is None:
            return self.P
        b, lo, hi = self.best, self.lo, self.hi
        sides = [(b - lo, -1), (hi - b, 1)]
        sides.sort(reverse=True)
        for length, sign in sides:
            if length <= 0:
                continue
            step = max(1, round(0.381966 * length))
            for d in list(range(step, length + 1)) + list(range(step - 1, 0, -1)):
                p = b + sign * d
                if p not in self.known:
                    return p
        return None


def golden_section_search(f: Callable[[int], float], P: int) -> tuple[int, int]:
    """Run :class:`SelfTuning` on ``f`` (speedup as a function of the processor count) over
    ``P`` processors; return ``(best count, number of probes)``."""
    t = SelfTuning(P)
    p = t.next_probe()
    while p is not None:
        t.record(p, f(p))
        p = t.next_probe()
    assert t.best is not None  # the first probe sets it
    return t.best, t.probes


# -- the policies ---------------------------------------------------------------------------------
class _Efficiency(DynamicPolicy):
    """Shared parts: per-job limits, curves, optional self-tuning (``tune=True``)."""

    tune = False

    def __init__(self, overhead: float = 0.0, iterations: int = 100) -> None:
        super().__init__(overhead)
        check_int(iterations, "iterations", low=1)
        self.iterations = iterations

    def limit(self, st: _Share) -> int:
        """The most processors ``st`` may get."""
        lim = min(st.n, self.P)
        return lim if st.cap is None else min(lim, st.cap)

    def _speedups(self, active: list[_Share]) -> list[Speedup]:
        return [st.job.speedup for st in active]

    # -- self-tuning ---------------------------------------------------------------------------
    def _iteration(self, st: _Share, p: int) -> float:
        k = st.job.attrs.get("iterations", self.iterations) if st.job.attrs else self.iterations
        return st.job.time_on(p, st.n) / k

    def _changed(self, st: _Share, now: float, actions: list[Action]) -> None:
        if not self.tune:
            return
        st.epoch += 1
        st.tuner = SelfTuning(st.procs)
        # the first probe runs on all held processors, which the Start/Resize just set up
        self._probe(st, st.procs, now, actions)

    def _probe(self, st: _Share, p: int, now: float, actions: list[Action]) -> None:
        it = self._iteration(st, p)
        if it <= 0:
            st.tuner = None
            return
        start = max(now, st.since)  # after any overhead already charged
        actions.append(Timer(start + it, ("tune", st.job.id, st.epoch, p)))

    def on_timer(self, key: Any, now: float) -> list[Action]:
        self.now = now
        if not (isinstance(key, tuple) and key and key[0] == "tune"):
            return []
        _, jid, epoch, p = key
        st = self.shares.get(jid)
        if st is None or st.epoch != epoch or st.tuner is None:
            return []  # finished, or re-tuned since
        tuner: SelfTuning = st.tuner
        tuner.record(p, st.job.speedup.speedup(p))
        nxt = tuner.next_probe()
        actions: list[Action] = []
        if nxt is not None:
            actions.append(self._use(st, nxt, now, self.overhead))
            self._probe(st, nxt, now, actions)
            return actions
        best = tuner.best
        assert best is not None and st.alloc is not None  # probed at least once, on processors it holds
        st.tuner = None
        if best < st.procs:
            # give the excess back and let the others have it
            st.cap = best if st.cap is None else min(st.cap, best)
            self.allocator.release(st.alloc)
            self._take(st, best)
            if st.used != best:
                actions.append(self._use(st, best, now, self.overhead))
            return actions + self.reallocate(now)
        if st.used != best:
            actions.append(self._use(st, best, now, self.overhead))
        return actions


class EQUI(_Efficiency):
    """Dynamic equipartition (seed 003 §4.1, after Tucker & Gupta): every job gets an equal
    share, never more than its request; leftovers to the earliest arrivals. Reallocates at
    arrivals and departures only. O(M log M) per event. (Ismail's :class:`DEQP` is the same rule
    with leftovers to the smallest requests.)"""

    name = "EQUI"

    def targets(self, shares: list[_Share]) -> list[int]:
        active = self._active(shares)
        return equipartition([self.limit(st) for st in active], self.P) + [0] * (len(shares) - len(active))


class APEQUI(EQUI):
    """AP-EQUI (seed 003 §4.1): equipartition with a priori speedup knowledge, no job getting
    more than the count that maximises its speedup (:func:`best_size`). O(M log M) per event plus
    O(n) once per job."""

    name = "AP-EQUI"

    def _admitted(self, st: _Share, now: float) -> None:
        st.cap = best_size(st.job.speedup, min(st.n, self.P))


class STEQUI(EQUI):
    """ST-EQUI (seed 003 §4.1–4.2): equipartition, and every job whose share changes self-tunes
    (:class:`SelfTuning`, one iteration per probe) and gives back the processors beyond its best
    count, which the others share. O(M log M) per event, O(log P) probes per retune."""

    name = "ST-EQUI"
    tune = True


class EQUALEFF(_Efficiency):
    """EQUAL-EFF (seed 003 §5.1): allocate so that the jobs' extrapolated efficiencies
    ``(1 + beta)/(p + beta)`` (``beta`` fitted to the efficiency measured on the current
    allocation) are about equal, greedily, one processor at a time; iterate from equipartition
    (§5.2, :class:`EqualEffIteration`). At every arrival and departure the iteration runs to its
    end at once (``quantum = 0``, §5.2's idealisation), or one step per ``quantum`` time units,
    the jobs running on each intermediate allocation while it is measured (§5.1's "run all jobs
    for some quantum, measure their efficiencies, transfer processors"). Cost per event
    O(steps x P log M).
    """

    name = "EQUAL-EFF"

    def __init__(self, overhead: float = 0.0, iterations: int = 100, quantum: float = 0.0,
                 max_steps: int = 50) -> None:
        super().__init__(overhead, iterations)
        check_real(quantum, "quantum", low=0)
        check_int(max_steps, "max_steps", low=1)
        self.quantum = float(quantum)
        self.max_steps = max_steps
        self._round = 0
        self._steps = 0
        self._iter: EqualEffIteration | None = None
        self._stepping = False

    def targets(self, shares: list[_Share]) -> list[int]:
        active = self._active(shares)
        pad = [0] * (len(shares) - len(active))
        if self._stepping:  # one more measured step of the current round
            assert self._iter is not None  # on_timer steps only an iteration under way
            return self._iter.step() + pad
        limits = [self.limit(st) for st in active]
        speedups = self._speedups(active)
        if self.quantum > 0:  # an event: back to equipartition, then a step every quantum
            self._iter = EqualEffIteration(speedups, limits, self.P)
            return self._iter.current + pad
        return equal_eff_allocation(speedups, limits, self.P, max_steps=self.max_steps) + pad

    def reallocate(self, now: float) -> list[Action]:
        actions = super().reallocate(now)
        if self.quantum > 0 and not self._stepping and self.shares:
            self._round += 1
            self._steps = 0
            actions.append(Timer(now + self.quantum, ("step", self._round)))
        return actions

    def on_timer(self, key: Any, now: float) -> list[Action]:
        if not (isinstance(key, tuple) and key and key[0] == "step"):
            return super().on_timer(key, now)
        self.now = now
        if key[1] != self._round or self._iter is None or self._iter.done:
            return []
        self._stepping = True
        try:
            actions = super().reallocate(now)
        finally:
            self._stepping = False
        self._steps += 1
        if not self._iter.done and self._steps < self.max_steps:
            actions.append(Timer(now + self.quantum, ("step", self._round)))
        return actions


class STEQUALEFF(EQUALEFF):
    """ST-EQUAL-EFF (seed 003 §5.3): EQUAL-EFF where every job whose share changes also
    self-tunes and gives back the processors beyond its best count."""

    name = "ST-EQUAL-EFF"
    tune = True


class OPTEFF(_Efficiency):
    """OPT-EFF (seed 003 §5.2): at every arrival and departure, the allocation that maximises the
    sum of processor efficiencies, by dynamic programming over the full (a priori) curves
    (:func:`opt_eff_allocation`). O(M P^2) arithmetic per event, vectorised."""

    name = "OPT-EFF"

    def targets(self, shares: list[_Share]) -> list[int]:
        active = self._active(shares)
        curves = []
        for st in active:
            lim = self.limit(st)
            if st.curve is None or len(st.curve) < lim:
                st.curve = _curve(st.job.speedup, lim)
            curves.append(st.curve[:lim])
        out = opt_eff_allocation(curves, [len(c) for c in curves], self.P)
        return out + [0] * (len(shares) - len(active))


#: What these policies need to run (the registry's ``needs``; ``topoalloc list`` shows it).
_NEEDS = "a flat machine (FlatPool; processor-count requests) and jobs with speedup curves; resizes running jobs"
register("EQUI", lambda: EQUI(), help="dynamic equipartition (seed 003 §4.1)", needs=_NEEDS)
register("AP-EQUI", lambda: APEQUI(), help="equipartition capped at each job's best size, a priori (seed 003 §4.1)",
         needs=_NEEDS)
register("ST-EQUI", lambda: STEQUI(), help="equipartition with self-tuning by golden sections (seed 003 §4.2)",
         needs=_NEEDS)
register("EQUAL-EFF", lambda: EQUALEFF(), help="equal extrapolated efficiency, greedy (seed 003 §5.1)", needs=_NEEDS)
register("OPT-EFF", lambda: OPTEFF(), help="maximum sum of efficiencies by dynamic programming (seed 003 §5.2)",
         needs=_NEEDS)
register("ST-EQUAL-EFF", lambda: STEQUALEFF(), help="EQUAL-EFF with self-tuning (seed 003 §5.3)", needs=_NEEDS)

"""Downey's allocation strategies for malleable jobs: PWS, AVG, MAX, SEV, ASP (seed 001 §5–6).

A. B. Downey, *A parallel workload model and its implications for processor allocation*,
UCB/CSD-96-922. Every strategy is FIFO (§5: nothing passes the head of the queue); the strategy
chooses how many processors the head gets when it starts, and the cluster size is then fixed
(jobs are malleable, not dynamically resizable). Each job's average parallelism ``A`` and
``sigma`` come from ``job.attrs`` (the :class:`scheduling.workloads.Downey` workload puts them
there), falling back to a :class:`scheduling.models.downey_speedup.Downey` speedup's fields.

**Ideal cluster size** ``n*`` per strategy (continuous, then made an integer in ``[1, N]``):

* ``PWS`` — the processor working set, maximum of the power ``S^2 / n`` (§5.1, Eq. 6);
* ``AVG`` — ``A`` (§5.2);
* ``MAX`` — the smallest ``n`` with ``S(n) = A`` (§5.2, Eq. 7);
* ``SEV`` — Sevcik's A+ with ``pi = 0`` (§5.3, Fig. 10):
  ``A - (A - 1) (sigma / sigma_max) rho``, ``sigma_max = 2``, ``rho`` the offered load;
* ``3/2 AVG`` — ``3A / 2``; ``Simplified SEV`` — SEV with every ``sigma`` taken as 1 (§6.5).

**Forms** (§6, §6.4): *greedy* — ``n*`` is only a maximum, the head starts on
``min(n*, free)`` as soon as a processor is free; *stubborn* — the head waits for ``n*`` free
processors; *hybrid* with minimum fraction ``c`` — the head waits for ``ceil(c n*)`` (at least 1)
free processors and then takes ``min(n*, free)`` (``c = 0`` is greedy, ``c = 1`` stubborn).

**Registry names**: the paper's name alone is the greedy form (the form of Table 1 and the one the
paper recommends): ``AVG``, ``PWS``, ``MAX``, ``SEV``, ``3/2 AVG``, ``Simplified SEV``; the same
with ``-greedy`` is an alias; ``-stubborn`` is the stubborn form (``AVG-stubborn``);
``-hybrid/<c>`` the hybrid form (``AVG-hybrid/0.5``; ``AVG-hybrid-0.5`` parses too).
``ASP`` (§5.4) is inherently greedy and has no other form (§6).

**Interpretations** (the paper leaves these open):

* integer sizes: ``ceil`` of the continuous ``n*`` for every rule (the smallest integer cluster
  that reaches the ideal size, as MAX's "minimum ``n`` such that ``S(n) = A``"), clipped to
  ``[1, N]``. The paper does not say how it rounds; rounding up reproduces Table 1 column by
  column (rho = 0.75, 120 days: SEV .61 .50 5,750 233 7.9 (1.05) 11.3 against the paper's .64
  .52 5,858 204 7.8 (1.04) 11.6; turnaround AVG < SEV < PWS < MAX < ASP as in the paper), where
  ``floor`` (the rounding of the workload's user request, ``floor(A)``) gives
  SEV the longest turnaround of the four, 7,040 s, and queue times 40% short;
* MAX for ``0 < sigma <= 1`` is ``2A - 1``, where Eq. 1 reaches ``A`` (its third branch starts
  there), as §5.2's definition "the minimum ``n`` such that ``S(n) = A``" requires; Eq. 7 prints
  ``2A``, which is not the minimum;
* SEV: Fig. 7/10 are given only as figures; we read "for high loads, the cluster size varies from
  A to 1, depending on sigma" as linear in both ``sigma / sigma_max`` and ``rho`` between ``pi = 0``
  (everybody gets ``A``) and ``rho = 1`` (``A`` for ``sigma = 0`` down to 1 for
  ``sigma = sigma_max``); ``rho`` and ``sigma`` are clipped to those ranges. ``rho`` is the offered
  load, known a priori (§6.3), read from ``job.attrs["load"]`` unless given to the constructor;
* ASP: at every arrival and completion the free processors are divided evenly among the queued
  jobs in FIFO order (``max(1, free // queued)`` each, remainders to later jobs, every share capped
  at the job's MAX size so the excess goes to later jobs); when there are fewer free processors
  than queued jobs the first ones get one processor each.

Cost per event: O(1) plus one ``FlatPool.allocate`` (O(P) vectorised) per job started; the
ideal size is computed once per job, at its arrival.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from topoalloc import Allocation

from .._validate import check_choice, check_real
from ..kernel.actions import Action
from ..kernel.jobs import Job
from ..models.downey_speedup import Downey as DowneySpeedup
from .base import Policy
from .registry import register

__all__ = [
    "DowneyStrategy",
    "ASP",
    "MissingJobAttributeError",
    "RULES",
    "pws_size",
    "avg_size",
    "max_size",
    "sev_size",
    "three_halves_avg_size",
    "simplified_sev_size",
    "job_parameters",
]

#: Sevcik's bound on the variance parameter (§5.3: "we have imposed the bound sigma <= 2").
SIGMA_MAX = 2.0


class MissingJobAttributeError(ValueError):
    """A job lacks an attribute a Downey strategy needs (``A``, ``sigma`` or ``load``)."""


# -- ideal cluster sizes (continuous) ------------------------------------------------------------
def pws_size(A: float, sigma: float) -> float:
    """Processor working set, the ``n`` maximising ``S(n)^2 / n`` (§5.1, Eq. 6): ``A`` for
    ``sigma <= 2A / (3A - 1)``, ``sigma (A - 1/2) / (1 - sigma/2)`` up to ``sigma = 1``, and
    ``(A sigma + A - sigma) / sigma`` in the high-variance model (``sigma > 1``).

    >>> pws_size(64.0, 0.5), pws_size(64.0, 1.0), round(pws_size(64.0, 2.0), 2)
    (64.0, 127.0, 95.0)
    """
    if sigma > 1.0:
        return (A * sigma + A - sigma) / sigma
    if sigma <= 2.0 * A / (3.0 * A - 1.0):
        return A
    return sigma * (A - 0.5) / (1.0 - sigma / 2.0)


def avg_size(A: float, sigma: float) -> float:
    """AVG: the average parallelism ``A`` (§5.2)."""
    return A


def max_size(A: float, sigma: float) -> float:
    """MAX: the smallest ``n`` with ``S(n) = A`` (§5.2, Eq. 7; ``2A - 1`` for ``0 < sigma <= 1``)."""
    return DowneySpeedup(A, sigma).saturation


def sev_size(A: float, sigma: float, load: float, sigma_max: float = SIGMA_MAX) -> float:
    """SEV, Sevcik's A+ with ``pi = 0`` (§5.3, Fig. 10): ``A - (A - 1) (sigma / sigma_max) rho``
    with ``sigma / sigma_max`` and ``rho`` clipped to ``[0, 1]``.

    >>> sev_size(33.0, 0.0, 0.75), sev_size(33.0, 2.0, 1.0), sev_size(33.0, 1.0, 0.5)
    (33.0, 1.0, 25.0)
    """
    v = min(max(sigma / sigma_max, 0.0), 1.0) if sigma_max > 0 else 1.0
    return A - (A - 1.0) * v * min(max(load, 0.0), 1.0)


def three_halves_avg_size(A: float, sigma: float) -> float:
    """3/2 AVG: ``3A / 2`` (§6.5)."""
    return 1.5 * A


def simplified_sev_size(A: float, sigma: float, load: float, sigma_max: float = SIGMA_MAX) -> float:
    """Simplified SEV: SEV with ``sigma = 1`` for every job (§6.5)."""
    return sev_size(A, 1.0, load, sigma_max)


#: name -> (size function, needs the load, integer rounding)
RULES: dict[str, tuple[Callable[..., float], bool, Callable[[float], int]]] = {
    "PWS": (pws_size, False, math.ceil),
    "AVG": (avg_size, False, math.ceil),
    "MAX": (max_size, False, math.ceil),
    "SEV": (sev_size, True, math.ceil),
    "3/2 AVG": (three_halves_avg_size, False, math.ceil),
    "Simplified SEV": (simplified_sev_size, True, math.ceil),
}


def job_parameters(job: Job) -> tuple[float, float]:
    """``(A, sigma)`` of ``job``: from ``job.attrs``, else from a Downey speedup; raises
    :class:`MissingJobAttributeError` naming the job otherwise."""
    attrs = job.attrs
    if "A" in attrs and "sigma" in attrs:
        return float(attrs["A"]), float(attrs["sigma"])
    sp = job.speedup
    if isinstance(sp, DowneySpeedup):
        return sp.A, sp.sigma
    raise MissingJobAttributeError(
        f"job {job.id} has no attrs['A'] / attrs['sigma'] and no Downey speedup; Downey's strategies need both"
    )


def _clip(n: int, N: int) -> int:
    return 1 if n < 1 else (N if n > N else n)


class DowneyStrategy(Policy):
    """A FIFO allocation strategy of Downey's (seed 001 §5–6): ``rule`` (``"PWS"``, ``"AVG"``,
    ``"MAX"``, ``"SEV"``, ``"3/2 AVG"``, ``"Simplified SEV"``) gives each job's ideal size ``n*``,
    ``c`` the guaranteed fraction of it (0 greedy, 1 stubborn, in between hybrid, §6.4). ``load``
    overrides the offered load SEV uses (default: ``job.attrs["load"]``). See the module docstring
    for the formulas, names and interpretations. O(1) per event plus one allocation per start.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> p = DowneyStrategy("AVG", 1.0); p.bind(FlatPool(Flat(64)))
    >>> p.name, p.ideal_size(Job(0, 0.0, 1, 1.0, attrs={"A": 9.7, "sigma": 0.3}))
    ('AVG-stubborn', 10)
    """

    def __init__(self, rule: str = "AVG", c: float = 0.0, *, load: float | None = None,
                 sigma_max: float = SIGMA_MAX) -> None:
        super().__init__()
        check_choice(rule, "Downey rule", RULES)
        c = check_real(c, "the minimum fraction c", low=0, high=1)
        if load is not None:
            load = check_real(load, "load", low=0)
        sigma_max = check_real(sigma_max, "sigma_max", low=0, low_open=True)
        self.rule = rule
        self.c = float(c)
        self.load = load
        self.sigma_max = sigma_max
        self._fn, self._needs_load, self._round = RULES[rule]
        if self.c == 0.0:
            self.name = rule
        elif self.c == 1.0:
            self.name = f"{rule}-stubborn"
        else:
            self.name = f"{rule}-hybrid/{self.c:g}"
        self.queue: deque[Job] = deque()
        self.running: dict[int, Allocation] = {}
        self._ideal: dict[int, int] = {}

    def ideal_size(self, job: Job) -> int:
        """The integer ideal cluster size ``n*`` of ``job`` on this machine."""
        A, sigma = job_parameters(job)
        if self._needs_load:
            load = self.load
            if load is None:
                load = job.attrs.get("load")
                if load is None:
                    raise MissingJobAttributeError(
                        f"{self.rule} needs the offered load: job {job.id} has no attrs['load'] and the policy "
                        "was built without load="
                    )
            x = self._fn(A, sigma, float(load), self.sigma_max)
        else:
            x = self._fn(A, sigma)
        return _clip(self._round(x + 1e-9 if self._round is math.floor else x - 1e-9), self.allocator.size)

    def on_arrival(self, job: Job, now: float) -> None:
        self._ideal[job.id] = self.ideal_size(job)
        self.queue.append(job)

    def on_finish(self, job: Job, now: float) -> None:
        self.allocator.release(self.running.pop(job.id))

    def decide(self, now: float) -> list[Action]:
        """Start queued jobs FIFO, each on its ideal size (or, hybrid, at least ``c`` of it)."""
        actions: list[Action] = []
        queue, alloc, c = self.queue, self.allocator, self.c
        while queue:
            free = alloc.free
            if free == 0:
                break
            head = queue[0]
            n = self._ideal[head.id]
            need = max(1, math.ceil(c * n - 1e-9))
            if free < need:
                break
            got = alloc.allocate(min(n, free))
            if got is None:  # pragma: no cover - FlatPool always places a count <= free
                break
            queue.popleft()
            del self._ideal[head.id]
            self.running[head.id] = got
            actions.append(self.start(head, got))
        return actions


class ASP(Policy):
    """Adaptive static partitioning (Downey, seed 001 §5.4): at every arrival and completion the
    free processors are divided evenly among the queued jobs, FIFO, each share capped at the job's
    MAX size (Eq. 7, "no job is allocated more processors than it can use"); see the module
    docstring for the rounding. Inherently greedy (§6). After every instant either the queue is empty
    or no processor is free. O(1) per instant plus one allocation per start.
    """

    name = "ASP"

    def __init__(self) -> None:
        super().__init__()
        self.queue: deque[Job] = deque()
        self.running: dict[int, Allocation] = {}
        self._cap: dict[int, int] = {}

    def on_arrival(self, job: Job, now: float) -> None:
        A, sigma = job_parameters(job)
        self._cap[job.id] = _clip(math.ceil(max_size(A, sigma) - 1e-9), self.allocator.size)
        self.queue.append(job)

    def on_finish(self, job: Job, now: float) -> None:
        self.allocator.release(self.running.pop(job.id))

    def decide(self, now: float) -> list[Action]:
        """Divide the free processors evenly among the queued jobs, FIFO."""
        actions: list[Action] = []
        queue, alloc = self.queue, self.allocator
        free = alloc.free
        while queue and free > 0:
            head = queue.popleft()
            n = min(max(1, free // (len(queue) + 1)), self._cap.pop(head.id))
            got = alloc.allocate(n)
            if got is None:  # pragma: no cover - FlatPool places any count <= free
                raise RuntimeError(f"{self.name}: {n} processors requested with {free} free")
            free -= n
            self.running[head.id] = got
            actions.append(self.start(head, got))
        return actions


#: What these policies need to run (the registry's ``needs``; ``topoalloc list`` shows it).
_NEEDS = "FlatPool, and jobs carrying Downey's A and sigma (the Downey workload model, or a Downey speedup per job)"


def _register() -> None:
    forms = (("", 0.0), ("-greedy", 0.0), ("-stubborn", 1.0))
    for rule in RULES:
        for suffix, c in forms:
            register(f"{rule}{suffix}", lambda rule=rule, c=c: DowneyStrategy(rule, c),
                     help=f"Downey {rule}, {'stubborn' if c else 'greedy'} (seed 001 §5-6)", needs=_NEEDS)
        register(f"{rule}-hybrid", lambda c, rule=rule: DowneyStrategy(rule, c), param="float",
                 help=f"Downey {rule}, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)", needs=_NEEDS)
    register("ASP", ASP, help="Downey's adaptive static partitioning (seed 001 §5.4)", needs=_NEEDS)


_register()

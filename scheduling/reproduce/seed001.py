"""Downey (seed 001): A. B. Downey, "A parallel workload model and its implications for processor
allocation", UCB/CSD-96-922 (1996): the workload's arrival rate (§4), Table 1 (§6.3), the stubborn
strategies (§6.1-6.2), the optimal fraction of A against load (§5.3, Figs. 8-9), cluster size against
load (Fig. 12), the minimum cluster size (§6.4, Fig. 13) and the variance-insensitive strategies (§6.5,
Fig. 15). The diagnoses are in ``docs/reproductions/seed001.md``.

Every run is :func:`~scheduling.metrics.downey.simulate_days`: independent day-long runs (12 h of
arrivals, then until the queue is empty) on N = 64 processors at offered load rho = 0.75 unless stated,
pooled by :func:`~scheduling.metrics.downey.summarize_days` into one value per seed.

**Seeds.** A replication is a seed ``s`` of the contiguous range starting at 1: its days are
``day_seeds(s, days)``, the same for every strategy (common random numbers), so two strategies are
compared seed by seed. Quick (the tests): seeds 1-5, 20 days per seed (``_QUICK_DAYS``). Full (the
verdict): seeds 1-10 (the cap), the paper's 120 days per seed (§6.3, Fig. 12, Fig. 13, Fig. 15; 60 for
Figs. 8-9, as their caption). Every ordering is a paired difference over all the seeds of the size
(:func:`~scheduling.reproduce.judge.paired`: significant when its 95% interval excludes zero at that
number of seeds, else "not significant"); every stated magnitude is :func:`~scheduling.reproduce.judge.within`
or :func:`~scheduling.reproduce.judge.bound` with its tolerance in the claim's statement. All the seeds
of a size always run (no early stop): the runs are cached and shared between claims. Cost: one
``simulate_days`` per (strategy, load, seed) used, O(jobs) events each; the full size of all the
claims took 1,116 s on one core, the reduced size about 14 s.

**Readings.** The paper never says how its continuous ideal sizes (A, 3A/2, Eq. 6's pws, Sevcik's A+)
become processor counts. The library rounds up (``scheduling/policies/downey.py``); the claims it
affects (Table 1's cells and orderings, §6.5's 3/2 AVG) also report the reading ``floor`` (every rule
but MAX, whose §5.2 definition is a minimum and stays rounded up; ASP is capped at that MAX),
run with :class:`FloorStrategy`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache

from ..kernel.jobs import Job
from ..metrics.significance import GREATER, LESS
from ..policies.base import Policy
from ..policies.downey import DowneyStrategy, job_parameters
from .claims import NOT_SIGNIFICANT, Claim, Expectation, Outcome, Reading, Size, register
from .judge import Check, fact, judged, paired, within

__all__ = ["FloorStrategy", "FractionOfA"]

GREEDY = ("SEV", "AVG", "PWS", "MAX", "ASP")
RULES = ("SEV", "AVG", "PWS", "MAX")
#: The first seed of every replication range, and the number of seeds (the cap) per size.
START = 1
_QUICK_SEEDS, _FULL_SEEDS = 5, 10
_QUICK_DAYS = 20
#: The two readings of the rounding of ideal sizes (module docstring), the library's first.
CEIL, FLOOR = "round up", "floor"

#: Table 1 (rho = 0.75, 120 days): load average, utilization, turnaround (s), queue time (s), cluster
#: size, its CV, 90th-percentile slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}
_COLS = ("load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size", "cv_cluster_size",
         "p90_slowdown")
_SHORT = {"load_average": "load", "utilization": "utilization", "mean_turnaround": "turnaround",
          "mean_queue_time": "queue time", "mean_cluster_size": "cluster size", "cv_cluster_size": "CV of size",
          "p90_slowdown": "p90 slowdown"}


class FloorStrategy(DowneyStrategy):
    """A Downey strategy whose continuous ideal size is rounded *down* (the ``floor`` reading of the
    module docstring), except MAX, which stays rounded up. Same forms, cost and validation as
    :class:`~scheduling.policies.downey.DowneyStrategy`.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> from scheduling.kernel.jobs import Job
    >>> p = FloorStrategy("AVG"); p.bind(FlatPool(Flat(64)))
    >>> p.name, p.ideal_size(Job(0, 0.0, 1, 1.0, attrs={"A": 9.7, "sigma": 0.3}))
    ('floor AVG', 9)
    """

    def __init__(self, rule: str = "AVG", c: float = 0.0) -> None:
        super().__init__(rule, c)
        if rule != "MAX":
            self._round = math.floor
        self.name = f"floor {self.name}"


class FractionOfA(DowneyStrategy):
    """§5.3's experiment for Figs. 8-9: every job's cluster size is ``k A`` (rounded up, clipped to
    ``[1, N]``), stubborn (``c = 1``: the job waits for ``k A`` processors, the library's reading of "the
    cluster size for each job is kA") or greedy (``c = 0``: ``k A`` only a maximum). O(1) per job.

    >>> from topoalloc import FlatPool; from topologies import Flat
    >>> from scheduling.kernel.jobs import Job
    >>> p = FractionOfA(0.3); p.bind(FlatPool(Flat(64)))
    >>> p.name, p.ideal_size(Job(0, 0.0, 1, 1.0, attrs={"A": 20.0, "sigma": 0.3}))
    ('0.3A-stubborn', 6)
    """

    def __init__(self, k: float, c: float = 1.0) -> None:
        super().__init__("AVG", c)
        if not 0.0 < k <= 1.0:
            raise ValueError(f"the fraction k of A must be in (0, 1], got {k!r}")
        self.k = float(k)
        self.name = f"{k:g}A-{'stubborn' if self.c == 1.0 else 'greedy' if self.c == 0.0 else f'hybrid/{c:g}'}"

    def ideal_size(self, job: Job) -> int:
        """``ceil(k A)`` clipped to ``[1, N]``."""
        A, _ = job_parameters(job)
        return min(max(math.ceil(self.k * A - 1e-9), 1), self.allocator.size)


def seeds(size: Size) -> range:
    """The replications of ``size``: seeds 1-5 (quick) or 1-10 (full)."""
    return range(START, START + size.pick(_QUICK_SEEDS, _FULL_SEEDS))


def days(size: Size, full: int = 120, quick: int = _QUICK_DAYS) -> int:
    """Simulated days per seed: ``quick`` at reduced size, ``full`` (the paper's) at full size."""
    return size.pick(quick, full)


def _split(name: str) -> tuple[str, float]:
    """``"PWS-hybrid/0.5"`` -> ``("PWS", 0.5)``; ``"AVG-stubborn"`` -> ``("AVG", 1.0)``."""
    if "-hybrid/" in name:
        rule, c = name.split("-hybrid/")
        return rule, float(c)
    if name.endswith("-stubborn"):
        return name[: -len("-stubborn")], 1.0
    return name, 0.0


def policy_key(name: str, reading: str = CEIL) -> str:
    """The cache key of strategy ``name`` (a registry name) under a rounding ``reading``: the name
    itself, or ``"floor <name>"`` (MAX and ASP are the same under both readings)."""
    if reading == CEIL or name == "ASP" or _split(name)[0] == "MAX":
        return name
    if reading != FLOOR:
        raise ValueError(f"unknown rounding reading {reading!r}; known: {CEIL!r}, {FLOOR!r}")
    return f"floor {name}"


def _factory(key: str) -> str | Callable[[], Policy]:
    if key.startswith("kA "):  # "kA <k> <c>"
        _, k, c = key.split()
        return lambda: FractionOfA(float(k), float(c))
    if key.startswith("floor "):
        rule, fraction = _split(key[len("floor "):])
        return lambda: FloorStrategy(rule, fraction)
    return key


@cache
def summary(key: str, load: float, n_days: int, seed: int) -> dict[str, float]:
    """Table 1's statistics of ``n_days`` days of strategy ``key`` at one seed (cached: claims share
    runs)."""
    from ..metrics.downey import simulate_days, summarize_days

    return summarize_days(simulate_days(_factory(key), N=64, load=load, days=n_days, seed=seed))


def values(size: Size, name: str, metric: str, load: float = 0.75, reading: str = CEIL,
           full_days: int = 120) -> list[float]:
    """``metric`` of strategy ``name`` under ``reading``, one value per seed of ``size``."""
    key, n = policy_key(name, reading), days(size, full_days)
    return [float(summary(key, load, n, s)[metric]) for s in seeds(size)]


def label(size: Size, full_days: int = 120, quick_days: int = _QUICK_DAYS) -> str:
    """``"120 days x seeds 1-10 ...: "``, what one value per seed is."""
    s = seeds(size)
    return f"{days(size, full_days, quick_days)} days x seeds {s[0]}-{s[-1]} (paired; mean [95% interval]): "


def order(name: str, a: Sequence[float], b: Sequence[float], expect: str = LESS) -> Check:
    """The paired ordering ``A expect B`` on per-seed values (seeds from :data:`START`)."""
    return paired(name, a, b, expect, start=START)


def ratios(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Per-seed ratios ``a[i] / b[i]``."""
    return [x / y for x, y in zip(a, b, strict=True)]


def with_readings(size: Size, build: Callable[[str], list[Check]], others: Sequence[str] = (FLOOR,),
                  main: str = CEIL) -> Outcome:
    """The outcome of the checks ``build(reading)`` under the library's reading ``main``, with the
    outcomes under the ``others`` beside it."""
    def one(reading: str) -> Outcome:
        checks = build(reading)
        return judged(checks, label(size) + "; ".join(str(c) for c in checks))

    return judged(build(main), one(main).ours, readings={r: one(r) for r in others})


def _rounding_readings(ceil: Expectation, floor: Expectation, floor_how: str = "",
                       ceil_quick: Expectation | None = None,
                       floor_quick: Expectation | None = None) -> tuple[Reading, ...]:
    """The two rounding readings, the library's (``ceil``, its full-size expectation) first."""
    return (Reading(CEIL, ceil, "every ideal size rounded up (the library's rules)", ceil_quick),
            Reading(FLOOR, floor, floor_how or "rounded down, MAX up (FloorStrategy)", floor_quick))


# -- §4: the arrival rate -------------------------------------------------------------------------------
def _jobs_per_day(size: Size) -> Outcome:
    from ..workloads import Downey

    w = Downey(N=64, load=0.75)
    lifetime = w.mean_lifetime / 60
    n50, n100 = (Downey(load=r).arrival_rate * 12 * 3600 for r in (0.5, 1.0))
    n75 = Downey(load=0.75).arrival_rate * 12 * 3600 * 120
    drawn = [float(len(list(Downey(N=64, load=0.75, days=120).jobs(seed=s)))) for s in seeds(size)]
    checks = [
        fact("E[L] = 271 min (within 0.5)", abs(lifetime - 271) <= 0.5, f"{lifetime:.1f} min"),
        fact("rho = lambda E[L] / N", math.isclose(w.arrival_rate * w.mean_lifetime / w.N, 0.75, rel_tol=1e-6),
             f"{w.arrival_rate * w.mean_lifetime / w.N:.6f} at rho = 0.75"),
        fact("80-90 jobs a day at rho = 0.5", 80 <= n50 <= 90, f"{n50:.1f}"),
        fact("160-175 jobs a day at rho = 1.0", 160 <= n100 <= 175, f"{n100:.1f}"),
        fact("~15000 expected jobs in 120 days (within 3%)", abs(n75 - 15000) <= 0.03 * 15000, f"{n75:,.0f}"),
        within("jobs drawn in 120 days ~ 15000 (±3%)", drawn, 15000.0, 0.03, relative=True),
    ]
    return judged(checks, values={"jobs_drawn": drawn})


register(Claim(
    id="001-s4-jobs-per-day", paper="001", where="§4, §6.3",
    statement="rho = lambda E[L] / N, where E[L] is the average sequential lifetime (271 minutes); the number of "
              "jobs per day is between 80 (rho = 0.5) and 160 (rho = 1.0); Table 1 is averaged over ~15000 jobs "
              "(120 simulated days) at rho = 0.75 (read: E[L] within 0.5 min, 80-90 and 160-175 jobs a day, "
              "15000 within 3%, expected and drawn over seeds 1-5 (quick) or 1-10)",
    paper_value="E[L] = 271 min; 80-160 jobs a day; ~15,000 jobs in 120 days",
    quantity="mean sequential lifetime; expected jobs per 12-h day at rho 0.5 and 1.0; jobs in 120 days at rho 0.75, "
             "expected and drawn (mean over seeds)",
    run=_jobs_per_day,
))


# -- Table 1 (§6.3) -------------------------------------------------------------------------------------
def _load_utilization_checks(size: Size, reading: str) -> list[Check]:
    checks = []
    for n in GREEDY:
        for i, col in enumerate(("load_average", "utilization")):
            checks.append(within(f"{n} {_SHORT[col]} ~ {PAPER_TABLE1[n][i]:.2f} (±.04)",
                                 values(size, n, col, reading=reading), PAPER_TABLE1[n][i], 0.04))
    asp = values(size, "ASP", "utilization", reading=reading)
    checks += [order(f"utilization ASP < {n}", asp, values(size, n, "utilization", reading=reading))
               for n in RULES]
    return checks


register(Claim(
    id="001-table1-load-utilization", paper="001", where="§6.3, Table 1",
    statement="Table 1 (rho = 0.75): load averages .64-.81 and utilizations .49-.52, ASP's utilization the lowest "
              "(\"All of the greedy strategies perform better than ASP\") (read: every cell's mean over seeds within "
              "±.04 of the paper's; ASP's utilization below each other strategy's, paired over seeds)",
    paper_value="load SEV .64, AVG .70, PWS .73, MAX .81, ASP .77; utilization .52, .52, .52, .51, .49",
    quantity="load average and utilization per greedy strategy (mean over seeds against each cell, ±.04); "
             "ASP's utilization minus each other's, paired over seeds",
    readings=_rounding_readings(True, False),
    run=lambda size: with_readings(size, lambda r: _load_utilization_checks(size, r)),
))


def _turnaround_checks(size: Size, reading: str) -> list[Check]:
    t = {n: values(size, n, "mean_turnaround", reading=reading) for n in GREEDY}
    return [order("turnaround SEV < PWS", t["SEV"], t["PWS"]), order("turnaround AVG < PWS", t["AVG"], t["PWS"]),
            order("turnaround PWS < MAX", t["PWS"], t["MAX"]), order("turnaround MAX < ASP", t["MAX"], t["ASP"]),
            within("turnaround SEV / AVG ~ 1 (±5%)", ratios(t["SEV"], t["AVG"]), 1.0, 0.05)]


register(Claim(
    id="001-table1-turnaround", paper="001", where="§6.3, Table 1",
    statement="AVG and PWS reduce run times by allocating more processors per job, but this benefit is almost "
              "exactly balanced by greater queue times; the average turnaround times are similar; MAX allocates so "
              "many processors per job that the additional queue time overwhelms the saved run time (read: SEV and "
              "AVG within 5% (per-seed ratio), both below PWS < MAX < ASP, each a paired difference over seeds; "
              "which of SEV and AVG is first is not asserted)",
    paper_value="AVG 5,782 < SEV 5,858 < PWS 6,017 < MAX 6,597 < ASP 7,510 s",
    quantity="mean turnaround per greedy strategy, paired differences over seeds; SEV's over AVG's per seed",
    expected=NOT_SIGNIFICANT, expected_full=True,
    readings=_rounding_readings(True, False, "rounded down, MAX up: SEV has the longest turnaround of the four rules",
                                ceil_quick=NOT_SIGNIFICANT),
    run=lambda size: with_readings(size, lambda r: _turnaround_checks(size, r)),
))


def _table_values_checks(size: Size, reading: str, cols: Sequence[str]) -> list[Check]:
    checks = []
    for n in GREEDY:
        for col in cols:
            target = float(PAPER_TABLE1[n][_COLS.index(col)])
            checks.append(within(f"{n} {_SHORT[col]} ~ {target:g} (±10%)", values(size, n, col, reading=reading),
                                 target, 0.10, relative=True))
    return checks


_MEANS = ("mean_turnaround", "mean_cluster_size", "cv_cluster_size")
_TAILS = ("mean_queue_time", "p90_slowdown")

register(Claim(
    id="001-table1-values", paper="001", where="§6.3, Table 1",
    statement="Table 1's average turnaround, average cluster size and its CV for SEV, AVG, PWS, MAX and ASP (read: "
              "each cell's mean over seeds within ±10% of the paper's, relative; the paper's cell is one 120-day "
              "run)",
    paper_value="SEV 5858 s, 7.8 (1.04); AVG 5782, 9.4 (1.07); PWS 6017, 10.2 (1.10); MAX 6597, 10.7 (1.11); "
                "ASP 7510, 9.9 (1.24) (tolerance ±10% of each)",
    quantity="mean turnaround, mean cluster size and its CV per greedy strategy, mean over seeds against each cell "
             "(±10% relative)",
    expected=NOT_SIGNIFICANT, expected_full=True,
    readings=_rounding_readings(True, False, ceil_quick=NOT_SIGNIFICANT),
    run=lambda size: with_readings(size, lambda r: _table_values_checks(size, r, _MEANS)),
))

register(Claim(
    id="001-table1-queue-slowdown-values", paper="001", where="§6.3, Table 1",
    statement="Table 1's average queue time and 90th-percentile slowdown for SEV, AVG, PWS, MAX and ASP (read: each "
              "cell's mean over seeds within ±10% of the paper's, relative; the paper's cell is one 120-day run)",
    paper_value="queue SEV 204, AVG 372, PWS 566, MAX 1115, ASP 402 s; p90 slowdown 11.6, 35.3, 77.8, 249, 63.6 "
                "(tolerance ±10% of each)",
    quantity="mean queue time and 90th-percentile slowdown per greedy strategy, mean over seeds against each cell "
             "(±10% relative)",
    expected=NOT_SIGNIFICANT, expected_full=NOT_SIGNIFICANT,
    readings=_rounding_readings(NOT_SIGNIFICANT, False),
    diagnosis="Queue times and 90th-percentile slowdowns are long-tailed: at ten seeds of 120 days the 95% intervals "
              "of eight of the ten cells still reach past ±10% of the paper's value (none lies wholly outside; the "
              "means are within 2-13%, AVG's queue 421 against 372 s the furthest). Under floor rounding the queue "
              "times and p90 slowdowns of SEV, AVG and PWS are 24-54% short (refuted). Numbers in "
              "docs/reproductions/seed001.md, \"Table 1 cell by cell\".",
    run=lambda size: with_readings(size, lambda r: _table_values_checks(size, r, _TAILS)),
))


def _load_queue_order(size: Size) -> Outcome:
    checks = []
    for key, rules in (("load_average", RULES), ("mean_queue_time", RULES), ("mean_cluster_size", RULES[:3])):
        v = {n: values(size, n, key) for n in rules}
        checks += [order(f"{_SHORT[key]} {a} < {b}", v[a], v[b]) for a, b in zip(rules, rules[1:], strict=False)]
    return judged(checks, label(size) + "; ".join(map(str, checks)))


register(Claim(
    id="001-table1-load-queue-order", paper="001", where="§6.3, Table 1",
    statement="the larger the clusters a strategy allocates, the higher the load average and the longer the queue: "
              "SEV allocates the smallest cluster sizes, resulting in the shortest queue times (read: load average "
              "and queue time in the order SEV < AVG < PWS < MAX, cluster size SEV < AVG < PWS, each step a paired "
              "difference over seeds)",
    paper_value="load .64 < .70 < .73 < .81; queue 204 < 372 < 566 < 1,115 s; size 7.8 < 9.4 < 10.2 < 10.7",
    quantity="load average, mean queue time and mean cluster size of consecutive strategies, paired over seeds",
    expected=NOT_SIGNIFICANT, expected_full=True,
    run=_load_queue_order,
))


def _sev_slowdown(size: Size) -> Outcome:
    sev = values(size, "SEV", "p90_slowdown")
    checks = [order(f"p90 slowdown SEV < half of {n}'s", sev, [0.5 * v for v in values(size, n, "p90_slowdown")])
              for n in GREEDY[1:]]
    return judged(checks, label(size) + "; ".join(map(str, checks)))


register(Claim(
    id="001-table1-sev-p90-slowdown", paper="001", where="§6.3, Table 1",
    statement="SEV has the lowest 90th-percentile slowdown of the greedy strategies (\"by far\"; read: below half of "
              "each other's, paired over seeds)",
    paper_value="SEV 11.6; AVG 35.3, PWS 77.8, MAX 249, ASP 63.6",
    quantity="90th-percentile slowdown, SEV's minus half of each other strategy's, paired over seeds",
    run=_sev_slowdown,
))


def _asp_cv(size: Size) -> Outcome:
    asp = values(size, "ASP", "cv_cluster_size")
    checks = [order(f"CV of cluster size ASP > {n}", asp, values(size, n, "cv_cluster_size"), GREATER) for n in RULES]
    return judged(checks, label(size) + "; ".join(map(str, checks)))


register(Claim(
    id="001-table1-asp-cv", paper="001", where="§6.3, Table 1",
    statement="ASP has the highest coefficient of variation of cluster size of the greedy strategies (read: above "
              "each other's, paired over seeds)",
    paper_value="ASP 1.24; SEV 1.04, AVG 1.07, PWS 1.10, MAX 1.11",
    quantity="coefficient of variation of cluster size, ASP's minus each other strategy's, paired over seeds",
    run=_asp_cv,
))


# -- §6.1-6.2: stubborn strategies --------------------------------------------------------------------------
def _stubborn_vs_greedy(size: Size) -> Outcome:
    checks = []
    for rule in RULES:
        s = {k: values(size, f"{rule}-stubborn", k) for k in _COLS}
        g = {k: values(size, rule, k) for k in _COLS}
        checks += [
            order(f"{rule} turnaround stubborn > 1.5 x greedy", s["mean_turnaround"],
                  [1.5 * v for v in g["mean_turnaround"]], GREATER),
            order(f"{rule} queue time stubborn > 5 x greedy", s["mean_queue_time"],
                  [5 * v for v in g["mean_queue_time"]], GREATER),
            order(f"{rule} p90 slowdown stubborn > 5 x greedy", s["p90_slowdown"], [5 * v for v in g["p90_slowdown"]],
                  GREATER),
            order(f"{rule} utilization stubborn < greedy", s["utilization"], g["utilization"]),
        ]
    return judged(checks, label(size) + "; ".join(map(str, checks)))


register(Claim(
    id="001-s6.1-stubborn-vs-greedy", paper="001", where="§6.1-6.2",
    statement="the greedy versions of SEV, AVG, PWS and MAX are better than the stubborn ones by all metrics; "
              "stubborn turnaround is a multiple of greedy's (read: turnaround over 1.5x, queue time and p90 "
              "slowdown over 5x, utilization lower, each a paired difference over seeds)",
    quantity="turnaround, queue time, p90 slowdown and utilization, stubborn minus a multiple of greedy, paired over "
             "seeds",
    run=_stubborn_vs_greedy,
))


def _variance_insensitive(size: Size) -> Outcome:
    s = "mean_cluster_size"
    checks = [
        within("cluster size Simplified SEV / SEV ~ 1 (±10%)", ratios(values(size, "Simplified SEV", s),
                                                                      values(size, "SEV", s)), 1.0, 0.10),
        within("cluster size 3/2 AVG / PWS ~ 1 (±10%)", ratios(values(size, "3/2 AVG", s), values(size, "PWS", s)),
               1.0, 0.10),
        within("turnaround Simplified SEV / SEV ~ 1 (±10%)", ratios(values(size, "Simplified SEV", "mean_turnaround"),
                                                                    values(size, "SEV", "mean_turnaround")), 1.0, 0.10),
    ]
    return judged(checks, label(size) + "; ".join(map(str, checks)))


register(Claim(
    id="001-fig15-variance-insensitive-sizes", paper="001", where="§6.5, Fig. 15a",
    statement="the variance-insensitive versions allocate about the same cluster sizes as the originals (Simplified "
              "SEV as SEV, 3/2 AVG as PWS), and Simplified SEV's turnaround is not significantly different from "
              "SEV's (read: the per-seed ratios' mean within 1 ± 0.10, rho = 0.75)",
    quantity="mean cluster size and mean turnaround, variance-insensitive over original per seed (±10%)",
    run=_variance_insensitive,
))


def _three_halves_checks(size: Size, reading: str) -> list[Check]:
    checks = []
    for form, form_label in (("", "greedy"), ("-hybrid/0.5", "c = 0.5")):
        for col, expect in (("mean_turnaround", GREATER), ("utilization", LESS), ("p90_slowdown", GREATER),
                            ("mean_queue_time", GREATER)):
            alt = values(size, "3/2 AVG" + form, col, reading=reading)
            pws = values(size, "PWS" + form, col, reading=reading)
            worse = sum((a > p) if expect == GREATER else (a < p) for a, p in zip(alt, pws, strict=True))
            chk = order(f"{form_label}: {_SHORT[col]} 3/2 AVG {'>' if expect == GREATER else '<'} PWS", alt, pws,
                        expect)
            checks.append(Check(chk.name, chk.state, f"{chk.text}; worse in {worse} of {len(alt)} seeds", chk.value))
    return checks


register(Claim(
    id="001-s6.5-three-halves-avg-worse", paper="001", where="§6.5, Fig. 15",
    statement="the variance-insensitive version of PWS (3/2 AVG) does significantly worse by all metrics (read: "
              "longer turnaround, lower utilization, higher p90 slowdown and longer queue, each a paired difference "
              "over seeds 1-10 (quick 1-5), in the greedy form and the hybrid form with c = 0.5; the paper does not "
              "say which form Fig. 15 uses)",
    quantity="turnaround, utilization, p90 slowdown and queue time, 3/2 AVG minus PWS, paired over seeds, greedy "
             "and c = 0.5",
    readings=_rounding_readings(True, False, "rounded down, MAX up: greedy 3/2 AVG beats PWS in turnaround"),
    run=lambda size: with_readings(size, lambda r: _three_halves_checks(size, r)),
))


# The claims on cluster sizes (§5.3, §6.1 over loads, Figs. 12-13); imported last, as they use the helpers above.
from . import seed001_clusters  # noqa: E402, F401, I001

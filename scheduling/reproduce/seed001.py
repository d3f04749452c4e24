"""Downey (seed 001): A. B. Downey, "A parallel workload model and its implications for processor
allocation", UCB/CSD-96-922 (1996): the workload's arrival rate (§4), Table 1 (§6.3), the stubborn
strategies (§6.1-6.2), cluster size against load (Fig. 12), the minimum cluster size (§6.4,
Fig. 13) and the variance-insensitive strategies (§6.5, Fig. 15).

Every run is :func:`~scheduling.metrics.downey.simulate_days`: independent day-long runs (12 h of
arrivals, then until the queue is empty) on N = 64 processors at offered load rho = 0.75 unless
stated, the same day seeds for every strategy (common random numbers), pooled by
:func:`~scheduling.metrics.downey.summarize_days`. Quick: 40 simulated days at seed 1 (10 days for
Fig. 12); each claim held for every seed 0-9 at that size unless its statement says otherwise.
Full: the paper's 120 days at seeds 5, 6 and 7 (the seeds of ``docs/reproductions/seed001.md``);
a claim is judged on the means over the seeds, with their 95% intervals in ``ours``.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from .claims import Claim, Outcome, Size, estimate, register

__all__: list[str] = []

GREEDY = ("SEV", "AVG", "PWS", "MAX", "ASP")
RULES = ("SEV", "AVG", "PWS", "MAX")

#: Table 1 (rho = 0.75, 120 days): load average, utilization, turnaround (s), queue time (s), cluster
#: size, its CV, 90th-percentile slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}


def _seeds(size: Size) -> tuple[int, ...]:
    return size.pick((1,), (5, 6, 7))


@cache
def _summary(name: str, load: float, days: int, seed: int) -> dict:
    """Table 1's statistics of ``days`` days of strategy ``name`` (cached: claims share runs)."""
    from ..metrics.downey import simulate_days, summarize_days

    return summarize_days(simulate_days(name, N=64, load=load, days=days, seed=seed))


def _values(size: Size, name: str, key: str, load: float = 0.75, quick_days: int = 40) -> list[float]:
    """``key`` of strategy ``name``, one value per seed."""
    days = size.pick(quick_days, 120)
    return [float(_summary(name, load, days, s)[key]) for s in _seeds(size)]


def _mean(size: Size, name: str, key: str, load: float = 0.75, quick_days: int = 40) -> float:
    return float(np.mean(_values(size, name, key, load, quick_days)))


def _text(size: Size, name: str, key: str, fmt: str = ".3g", load: float = 0.75, quick_days: int = 40) -> str:
    """The value with its 95% interval over the seeds (the value alone at one seed)."""
    return _pm(_values(size, name, key, load, quick_days), fmt)


def _pm(values: list[float], fmt: str) -> str:
    """``m ± h``, the mean and 95% half-width over seeds (``m`` alone at one seed)."""
    if len(values) == 1:
        return f"{values[0]:{fmt}}"
    est, _ = estimate(values)
    return f"{est.mean:{fmt}} ± {est.half_width:{fmt}}"


def _label(size: Size, quick_days: int = 40) -> str:
    seeds = _seeds(size)
    days = size.pick(quick_days, 120)
    return f"{days} days, seed {seeds[0]}: " if len(seeds) == 1 else \
        f"{days} days, seeds {', '.join(map(str, seeds))} (mean ± 95% half-width): "


# -- §4: the arrival rate -------------------------------------------------------------------------------
def _jobs_per_day(size: Size) -> Outcome:
    from ..workloads import Downey

    w = Downey(N=64, load=0.75)
    lifetime = w.mean_lifetime / 60
    n50, n100 = (Downey(load=r).arrival_rate * 12 * 3600 for r in (0.5, 1.0))
    n75 = Downey(load=0.75).arrival_rate * 12 * 3600 * 120
    holds = (abs(lifetime - 271) <= 0.5 and math.isclose(w.arrival_rate * w.mean_lifetime / w.N, 0.75, rel_tol=1e-6)
             and 80 <= n50 <= 90 and 160 <= n100 <= 175 and abs(n75 - 15000) <= 0.03 * 15000)
    ours = (f"E[L] = {lifetime:.1f} min; {n50:.1f} jobs a day at rho = 0.5, {n100:.1f} at 1.0; "
            f"{n75:,.0f} expected in 120 days at 0.75")
    values: dict[str, Any] = {"mean_lifetime_min": lifetime, "jobs_per_day_0.5": n50, "jobs_per_day_1.0": n100,
                              "jobs_120_days": n75}
    if not size.quick:  # the paper's 120 days, drawn
        drawn = [float(len(list(Downey(N=64, load=0.75, days=120).jobs(seed=s)))) for s in _seeds(size)]
        holds = holds and all(abs(n - 15000) <= 0.03 * 15000 for n in drawn)
        ours += f" ({estimate(drawn, ',.0f')[1]} drawn)"
        values["jobs_drawn"] = drawn
    return Outcome(holds, ours, values)


register(Claim(
    id="001-s4-jobs-per-day", paper="001", where="§4, §6.3",
    statement="rho = lambda E[L] / N, where E[L] is the average sequential lifetime (271 minutes); the number of "
              "jobs per day is between 80 (rho = 0.5) and 160 (rho = 1.0); Table 1 is averaged over ~15000 jobs "
              "(120 simulated days) at rho = 0.75 (read: E[L] within 0.5 min, 80-90 and 160-175 jobs a day, "
              "15000 within 3%)",
    paper_value="E[L] = 271 min; 80-160 jobs a day; ~15,000 jobs in 120 days",
    run=_jobs_per_day,
))


# -- Table 1 (§6.3) -------------------------------------------------------------------------------------
_COLS = ("load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size", "cv_cluster_size",
         "p90_slowdown")


def _load_utilization(size: Size) -> Outcome:
    load = {n: _mean(size, n, "load_average") for n in GREEDY}
    util = {n: _mean(size, n, "utilization") for n in GREEDY}
    worst = max(max(abs(load[n] - p[0]), abs(util[n] - p[1])) for n, p in PAPER_TABLE1.items())
    holds = worst <= 0.04 and min(GREEDY, key=util.__getitem__) == "ASP"
    ours = (_label(size) + "load average " + ", ".join(f"{n} {_text(size, n, 'load_average', '.3f')}" for n in GREEDY)
            + "; utilization " + ", ".join(f"{n} {_text(size, n, 'utilization', '.3f')}" for n in GREEDY)
            + f"; largest difference from the paper's cells {worst:.3f}")
    return Outcome(holds, ours,
                   {"load_average": load, "utilization": util, "largest_difference": worst})


register(Claim(
    id="001-table1-load-utilization", paper="001", where="§6.3, Table 1",
    statement="Table 1 (rho = 0.75): load averages .64-.81 and utilizations .49-.52, ASP's utilization the lowest "
              "(\"All of the greedy strategies perform better than ASP\") (read: every cell within .04)",
    paper_value="load SEV .64, AVG .70, PWS .73, MAX .81, ASP .77; utilization .52, .52, .52, .51, .49",
    run=_load_utilization,
))


def _turnaround(size: Size) -> Outcome:
    t = {n: _mean(size, n, "mean_turnaround") for n in GREEDY}
    holds = max(t["SEV"], t["AVG"]) < t["PWS"] < t["MAX"] < t["ASP"] and abs(t["SEV"] - t["AVG"]) <= 0.05 * t["AVG"]
    ours = _label(size) + "mean turnaround " + ", ".join(f"{n} {_text(size, n, 'mean_turnaround', ',.0f')}"
                                                         for n in GREEDY)
    return Outcome(holds, ours + " s", {"mean_turnaround": t})


register(Claim(
    id="001-table1-turnaround", paper="001", where="§6.3, Table 1",
    statement="AVG and PWS reduce run times by allocating more processors per job, but this benefit is almost "
              "exactly balanced by greater queue times; the average turnaround times are similar; MAX allocates so "
              "many processors per job that the additional queue time overwhelms the saved run time (read: SEV and "
              "AVG within 5%, both below PWS < MAX < ASP; which of SEV and AVG is first is not asserted)",
    paper_value="AVG 5,782 < SEV 5,858 < PWS 6,017 < MAX 6,597 < ASP 7,510 s",
    run=_turnaround,
))


def _load_queue_order(size: Size) -> Outcome:
    holds = True
    parts = []
    for key, fmt in (("load_average", ".3f"), ("mean_queue_time", ",.0f"), ("mean_cluster_size", ".3g")):
        vals = [_mean(size, n, key) for n in RULES]
        if key == "mean_cluster_size":
            holds = holds and vals[0] < vals[1] < vals[2]
        else:
            holds = holds and vals == sorted(vals)
        parts.append(key.replace("_", " ") + " " + ", ".join(f"{n} {_text(size, n, key, fmt)}" for n in RULES))
    return Outcome(holds, _label(size) + "; ".join(parts), {key: {n: _mean(size, n, key) for n in RULES}
                                             for key in ("load_average", "mean_queue_time", "mean_cluster_size")})


register(Claim(
    id="001-table1-load-queue-order", paper="001", where="§6.3, Table 1",
    statement="the larger the clusters a strategy allocates, the higher the load average and the longer the queue: "
              "SEV allocates the smallest cluster sizes, resulting in the shortest queue times (read: load average "
              "and queue time in the order SEV, AVG, PWS, MAX; cluster size SEV < AVG < PWS)",
    paper_value="load .64 < .70 < .73 < .81; queue 204 < 372 < 566 < 1,115 s; size 7.8 < 9.4 < 10.2 < 10.7",
    run=_load_queue_order,
))


def _sev_slowdown(size: Size) -> Outcome:
    p90 = {n: _mean(size, n, "p90_slowdown") for n in GREEDY}
    holds = min(p90, key=p90.__getitem__) == "SEV" and p90["SEV"] < 0.5 * min(v for k, v in p90.items() if k != "SEV")
    return Outcome(holds, _label(size) + "90th-percentile slowdown " + ", ".join(f"{n} {_text(size, n, 'p90_slowdown')}"
                                                                  for n in GREEDY), {"p90_slowdown": p90})


register(Claim(
    id="001-table1-sev-p90-slowdown", paper="001", where="§6.3, Table 1",
    statement="SEV has the lowest 90th-percentile slowdown of the greedy strategies (read: below half of any "
              "other's)",
    paper_value="SEV 11.6; AVG 35.3, PWS 77.8, MAX 249, ASP 63.6",
    run=_sev_slowdown,
))


def _asp_cv(size: Size) -> Outcome:
    cv = {n: _mean(size, n, "cv_cluster_size") for n in GREEDY}
    return Outcome(max(cv, key=cv.__getitem__) == "ASP", _label(size) + "CV of cluster size " + ", ".join(
        f"{n} {_text(size, n, 'cv_cluster_size')}" for n in GREEDY), {"cv_cluster_size": cv})


register(Claim(
    id="001-table1-asp-cv", paper="001", where="§6.3, Table 1",
    statement="ASP has the highest coefficient of variation of cluster size of the greedy strategies",
    paper_value="ASP 1.24; SEV 1.04, AVG 1.07, PWS 1.10, MAX 1.11",
    run=_asp_cv,
))


# -- §6.1-6.2: stubborn strategies --------------------------------------------------------------------------
def _stubborn_vs_greedy(size: Size) -> Outcome:
    holds, parts, values = True, [], {}
    for rule in RULES:
        g = {k: _mean(size, rule, k) for k in _COLS}
        s = {k: _mean(size, f"{rule}-stubborn", k) for k in _COLS}
        holds = holds and (s["mean_turnaround"] > 1.5 * g["mean_turnaround"]
                           and s["mean_queue_time"] > 5 * g["mean_queue_time"]
                           and s["utilization"] < g["utilization"] and s["p90_slowdown"] > 5 * g["p90_slowdown"])
        ratio = {k: s[k] / g[k] for k in ("mean_turnaround", "mean_queue_time", "p90_slowdown")}
        values[rule] = {"stubborn": s, "greedy": g}
        parts.append(f"{rule} turnaround x{ratio['mean_turnaround']:.2f}, queue x{ratio['mean_queue_time']:.1f}, "
                     f"p90 slowdown x{ratio['p90_slowdown']:.0f}, utilization {s['utilization']:.3f} against "
                     f"{g['utilization']:.3f}")
    return Outcome(holds, _label(size) + "stubborn over greedy (means): " + "; ".join(parts), values)


register(Claim(
    id="001-s6.1-stubborn-vs-greedy", paper="001", where="§6.1-6.2",
    statement="the greedy versions of SEV, AVG, PWS and MAX are better than the stubborn ones by all metrics; "
              "stubborn turnaround is a multiple of greedy's (read: turnaround over 1.5x, queue time and p90 "
              "slowdown over 5x, utilization lower)",
    run=_stubborn_vs_greedy,
))


def _stubborn_vs_asp(size: Size) -> Outcome:
    asp = _values(size, "ASP", "mean_turnaround")
    per_seed = {r: [t / a for t, a in zip(_values(size, f"{r}-stubborn", "mean_turnaround"), asp, strict=True)]
                for r in RULES}
    m = {r: float(np.mean(v)) for r, v in per_seed.items()}
    holds = (round(m["SEV"]) == 2 and 5 <= round(m["AVG"]) <= 8 and 13 <= round(m["PWS"]) <= 17
             and 17 <= round(m["MAX"]) <= 21)
    return Outcome(holds, _label(size) + "stubborn mean turnaround over ASP's: "
                   + ", ".join(f"{r} {_pm(v, '.2f')}" for r, v in per_seed.items()), {"multiples": per_seed})


register(Claim(
    id="001-s6.1-stubborn-vs-asp", paper="001", where="§6.1",
    statement="Even SEV (stubborn) yields turnaround times twice as long as ASP's. The other methods are even worse: "
              "turnaround times under AVG are 5-8 times longer than ASP's, under PWS 13-17 times longer, and under "
              "MAX 17-21 times longer (read at rho = 0.75, rounded to integers as the paper prints them)",
    paper_value="SEV 2x; AVG 5-8x; PWS 13-17x; MAX 17-21x (rho = 0.5-1.0)",
    run=_stubborn_vs_asp,
))


# -- Fig. 12, §6.4 (Fig. 13), §6.5 (Fig. 15) ------------------------------------------------------------------
def _size_vs_load(size: Size) -> Outcome:
    lo = {n: _mean(size, n, "mean_cluster_size", 0.5, 10) for n in GREEDY}
    hi = {n: _mean(size, n, "mean_cluster_size", 1.0, 10) for n in GREEDY}
    return Outcome(all(lo[n] > hi[n] for n in GREEDY),
                   _label(size, 10) + "mean cluster size at rho = 0.5 against 1.0: "
                   + ", ".join(f"{n} {_text(size, n, 'mean_cluster_size', '.3g', 0.5, 10)} against "
                               f"{_text(size, n, 'mean_cluster_size', '.3g', 1.0, 10)}" for n in GREEDY),
                   {"rho_0.5": lo, "rho_1.0": hi})


register(Claim(
    id="001-fig12-cluster-size-vs-load", paper="001", where="§6.3, Fig. 12",
    statement="in each case the cluster size decreases as load increases (SEV, AVG, PWS, MAX, ASP; rho = 0.5 "
              "against 1.0)",
    run=_size_vs_load,
))


def _large_minimum(size: Size) -> Outcome:
    ratio = {r: _mean(size, f"{r}-hybrid/0.8", "mean_turnaround") / _mean(size, r, "mean_turnaround") for r in RULES}
    return Outcome(all(v > 1.1 for v in ratio.values()),
                   _label(size) + "mean turnaround with c = 0.8 over greedy (means): "
                   + ", ".join(f"{r} x{v:.2f}" for r, v in ratio.items()),
                   {"turnaround_ratio": ratio})


register(Claim(
    id="001-fig13-large-minimum-cluster", paper="001", where="§6.4, Fig. 13",
    statement="imposing a large minimum cluster size degrades performance (read: with c = 0.8 the mean turnaround "
              "of SEV, AVG, PWS and MAX exceeds the greedy version's by over 10%)",
    run=_large_minimum,
))


def _variance_insensitive(size: Size) -> Outcome:
    def close(a: float, b: float) -> bool:
        return abs(a - b) <= 0.1 * b

    ssev, sev = _mean(size, "Simplified SEV", "mean_cluster_size"), _mean(size, "SEV", "mean_cluster_size")
    alt, pws = _mean(size, "3/2 AVG", "mean_cluster_size"), _mean(size, "PWS", "mean_cluster_size")
    tssev, tsev = _mean(size, "Simplified SEV", "mean_turnaround"), _mean(size, "SEV", "mean_turnaround")
    holds = close(ssev, sev) and close(alt, pws) and close(tssev, tsev)
    size_ = "mean_cluster_size"
    ours = (_label(size) + f"mean cluster size Simplified SEV {_text(size, 'Simplified SEV', size_)}, SEV "
            f"{_text(size, 'SEV', size_)}; 3/2 AVG {_text(size, '3/2 AVG', size_)}, PWS {_text(size, 'PWS', size_)}; "
            f"mean turnaround Simplified SEV {_text(size, 'Simplified SEV', 'mean_turnaround', ',.0f')}, SEV "
            f"{_text(size, 'SEV', 'mean_turnaround', ',.0f')} s")
    return Outcome(holds, ours,
                   {"cluster_size": {"Simplified SEV": ssev, "SEV": sev, "3/2 AVG": alt, "PWS": pws},
                    "turnaround": {"Simplified SEV": tssev, "SEV": tsev}})


register(Claim(
    id="001-fig15-variance-insensitive-sizes", paper="001", where="§6.5, Fig. 15a",
    statement="the variance-insensitive versions allocate about the same cluster sizes as the originals (Simplified "
              "SEV as SEV, 3/2 AVG as PWS), and Simplified SEV's turnaround is not significantly different from "
              "SEV's (read: within 10%)",
    run=_variance_insensitive,
))


def _three_halves_avg(size: Size) -> Outcome:
    holds, parts, values = True, [], {}
    for form, label in (("", "greedy"), ("-hybrid/0.5", "hybrid c = 0.5")):
        pws = {k: _mean(size, "PWS" + form, k) for k in _COLS}
        alt = {k: _mean(size, "3/2 AVG" + form, k) for k in _COLS}
        holds = holds and (alt["mean_turnaround"] > pws["mean_turnaround"] and alt["utilization"] < pws["utilization"]
                           and alt["p90_slowdown"] > pws["p90_slowdown"]
                           and alt["mean_queue_time"] > pws["mean_queue_time"])
        values[label] = {"3/2 AVG": alt, "PWS": pws}
        parts.append(f"{label}: turnaround {alt['mean_turnaround']:,.0f} against {pws['mean_turnaround']:,.0f} s, "
                     f"utilization {alt['utilization']:.3f} against {pws['utilization']:.3f}, p90 slowdown "
                     f"{alt['p90_slowdown']:,.1f} against {pws['p90_slowdown']:,.1f}, queue "
                     f"{alt['mean_queue_time']:,.0f} against {pws['mean_queue_time']:,.0f} s")
    return Outcome(holds, _label(size) + "3/2 AVG against PWS (means), " + "; ".join(parts), values)


register(Claim(
    id="001-s6.5-three-halves-avg-worse", paper="001", where="§6.5, Fig. 15",
    statement="the variance-insensitive version of PWS (3/2 AVG) does significantly worse by all metrics (read: "
              "longer turnaround, lower utilization, higher p90 slowdown and longer queue, in the greedy form and "
              "the hybrid form with c = 0.5; the paper does not say which form Fig. 15 uses)",
    run=_three_halves_avg,
))

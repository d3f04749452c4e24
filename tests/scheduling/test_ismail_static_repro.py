"""Reproduction of Ismail's static space sharing results (seed 000 ch. 2-3) at reduced size.

The thesis runs 8500 jobs (first 500 discarded) until the 95% half-width is 5% of the mean; here
1000-1500 jobs and two or three seeds, compared on common random numbers (every policy sees the same
jobs for a seed). Full size: ``examples/ismail_static.py``.
"""

from functools import cache

import numpy as np
import pytest

from scheduling import simulate
from scheduling.workloads.ismail import ismail_workload
from topoalloc import FlatPool
from topologies import Flat

pytestmark = pytest.mark.slow


@cache
def _summary(policy, load, sizes, runtimes, speedup, seed, jobs):
    w = ismail_workload(load=load, sizes=sizes, runtimes=runtimes, speedup=speedup)
    return simulate(FlatPool(Flat(64)), policy, w, jobs=jobs, warmup=jobs // 10, seed=seed).summary()


def mean_of(metric, policy, load, *, sizes="uniform", runtimes="uniform", speedup="misp", seeds=(0, 1), jobs=1000):
    return float(np.mean([_summary(policy, load, sizes, runtimes, speedup, s, jobs)[metric] for s in seeds]))


def response(policy, load, **kw):
    return mean_of("mean_turnaround", policy, load, **kw)


@pytest.mark.parametrize("sizes", ["uniform", "exponential"])
def test_first_fit_beats_fcfs_and_ffis_at_medium_high_load(sizes):
    """Figs. 2.9-2.10 (§2.3.3.1): "FFDS and FF produced shorter mean response times than FCFS and
    FFIS"; Figs. 2.1-2.2: because they are more effective (fragment less)."""
    kw = dict(sizes=sizes, seeds=(0, 1, 2), jobs=1500)
    t = {p: response(p, 0.7, **kw) for p in ("FCFS", "FF", "FFDS", "FFIS")}
    assert max(t["FF"], t["FFDS"]) < min(t["FCFS"], t["FFIS"]), t
    se = {p: mean_of("effectiveness", p, 0.7, **kw) for p in t}
    assert min(se["FF"], se["FFDS"]) > max(se["FCFS"], se["FFIS"]), se


LOADS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2)


def test_fff_beats_ff_and_ff_fifo_across_loads():
    """Fig. 3.3 (§3.3.2.1), MISP speedup, uniform sizes and run times: "FFF yielded shorter mean
    response times than FF and FF+FIFO across all load levels"."""
    for load in LOADS:
        t = {p: response(p, load) for p in ("FF", "FF+FIFO", "FFF")}
        assert t["FFF"] < min(t["FF"], t["FF+FIFO"]), (load, t)


def test_ff_versus_ff_fifo_crossover_under_misp():
    """Fig. 2.14 (§2.3.3.2 obs. 7): under MISP no folding (FF) is better at low to moderate loads
    and unlimited folding (FF+FIFO) at high loads (crossover near L = 0.55)."""
    assert response("FF", 0.2) < response("FF+FIFO", 0.2) and response("FF", 0.4) < response("FF+FIFO", 0.4)
    assert response("FF+FIFO", 0.8) < response("FF", 0.8) and response("FF+FIFO", 1.0) < response("FF", 1.0)


@pytest.mark.parametrize("sizes,runtimes", [("uniform", "uniform"), ("exponential", "uniform"),
                                            ("uniform", "exponential"), ("exponential", "exponential")])
def test_mfff_no_worse_than_fff_under_misp(sizes, runtimes):
    """Figs. 3.6-3.9 (§3.3.2.2): under MISP speedup FFF is inferior to MFFF, for the four
    combinations of size and run-time distributions. At moderate load the two hardly differ (we
    allow 2%); at L = 1 MFFF is strictly better."""
    kw = dict(sizes=sizes, runtimes=runtimes)
    assert response("MFFF", 0.6, **kw) <= 1.02 * response("FFF", 0.6, **kw)
    assert response("MFFF", 1.0, **kw) < response("FFF", 1.0, **kw)


def test_unlimited_folding_job_selection():
    """§2.3.2.2-2.3.3.2, Fig. 2.8 (uniform sizes, MISP): EPFP (eager) folds most and has the worst
    mean response time; FFDS+FIFO folds more than FF+FIFO, which folds more than FFIS+FIFO and
    FCFSUF."""
    names = ("FCFSUF", "FF+FIFO", "FFDS+FIFO", "FFIS+FIFO", "EPFP")
    fold = {p: mean_of("mean_folding_factor", p, 0.9) for p in names}
    t = {p: response(p, 0.9) for p in names}
    assert fold["EPFP"] == max(fold.values()) and t["EPFP"] == max(t.values()), (fold, t)
    assert fold["FFDS+FIFO"] > fold["FF+FIFO"] > max(fold["FFIS+FIFO"], fold["FCFSUF"]), fold


# -- §2.4 FFITD and §3.3.1 f2max: the diagnoses of docs/reproductions/seed000.md -------------------
def test_ffitd_between_ffis_and_ff_at_high_load():
    """§2.4, Fig. 2.21 (uniform sizes and run times): FFITD "produced shorter mean response times
    than FFIS but performed worse than FF and FFDS". Holds from L = 0.7 (8500 jobs x 4 seeds: FFITD
    402, FF 344, FFDS 327, FFIS 735); FFITD beats FFIS at every load."""
    kw = dict(seeds=(0, 1, 2), jobs=3000)
    t = {p: response(p, 0.7, **kw) for p in ("FF", "FFDS", "FFIS", "FFITD")}
    assert max(t["FF"], t["FFDS"]) < t["FFITD"] < t["FFIS"], t
    assert response("FFITD", 0.5, **kw) < response("FFIS", 0.5, **kw)


@pytest.mark.xfail(strict=True, reason="at L = 0.5 FFITD (smallest n t(n) first, t(n) known a priori) beats FF "
                   "by 4% (8500 jobs x 4 seeds: 179.1 vs 186.9; by 2-3% at L = 0.3, 0.4 and 0.6) where §2.4 says it "
                   "'performed worse than FF and FFDS' (no load given; from L = 0.7 it is, 1.17x FF): a difference "
                   "below the thesis' precision (runs to 5% relative error at 95%), which Fig. 2.21 cannot show")
def test_ffitd_worse_than_ff_at_moderate_load():
    kw = dict(seeds=(0, 1, 2, 3), jobs=8500)
    assert response("FFITD", 0.5, **kw) > response("FF", 0.5, **kw)


def f2max_ratios(policy, loads, seeds=(0, 1, 2), jobs=3000):
    """``RT(policy-f2max) / RT(policy)`` per load (r = 2/3, the thesis' value for uniform run times)."""
    return {x: response(f"{policy}-f2max", x, seeds=seeds, jobs=jobs) / response(policy, x, seeds=seeds, jobs=jobs)
            for x in loads}


def test_f2max_changes_little():
    """§3.3.1: "The second folding factor f2max did not change the mean response times and scheduling
    effectiveness values significantly" (the thesis resolves 5%: runs to 5% relative error at 95%).
    MFFF-f2max stays within 5% of MFFF at L = 0.6-1.0 (full size 0.5-2.6% longer at L = 0.2-1.2),
    FFF-f2max within 5% at L = 0.6 (3.3%); S_e moves by less than 0.01."""
    assert all(1.0 <= v < 1.05 for v in f2max_ratios("MFFF", (0.6, 1.0)).values())
    assert f2max_ratios("FFF", (0.6,))[0.6] < 1.05
    se = {p: mean_of("effectiveness", p, 1.0, seeds=(0, 1, 2), jobs=3000) for p in ("FFF", "FFF-f2max")}
    assert se["FFF-f2max"] == pytest.approx(se["FFF"], abs=0.01), se


@pytest.mark.xfail(strict=True, reason="FFF-f2max is 5-7% slower than FFF at L >= 0.8 (8500 jobs x 4 seeds, r = 2/3: "
                   "1.054 at 0.8, 1.056 at 1.0, 1.073 at 1.2; with r = 0.636, the exact ratio for run times on [10, "
                   "200]: 1.061, 1.070, 1.086): f2max = f1max - (1 - r) N_r / P_u is never above f1max, so jobs "
                   "wait for larger shares; beyond the thesis' 5% resolution, against 'did not change the mean "
                   "response times significantly' (MFFF-f2max stays within 2.6%)")
def test_f2max_within_5_percent_for_fff_at_high_load():
    assert f2max_ratios("FFF", (1.2,), seeds=(0, 1, 2, 3), jobs=8500)[1.2] < 1.05

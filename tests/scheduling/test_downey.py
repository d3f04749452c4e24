"""Downey's workload model, allocation strategies and metrics (seed 001), and Table 1's claims."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import Job, policies, simulate
from scheduling.actions import Start
from scheduling.downey_metrics import (
    DayRun,
    cluster_size_cv,
    day_seeds,
    load_average,
    measurement_window,
    simulate_days,
    slowdowns,
    summarize_days,
    utilization,
)
from scheduling.policies.downey import (
    ASP,
    DowneyStrategy,
    MissingJobAttributeError,
    max_size,
    pws_size,
    sev_size,
)
from scheduling.speedup_downey import Downey as DowneySpeedup
from scheduling.speedup_downey import eager_lower_bound
from scheduling.workloads import Downey
from topoalloc import FlatPool
from topologies import Flat

A_ = st.floats(1.0, 512.0)
SIGMA = st.floats(0.0, 4.0)


def make_job(jid: int, arrival: float, A: float, sigma: float, L: float, N: int = 64, load: float = 0.75) -> Job:
    sp = DowneySpeedup(A, sigma)
    req = max(1, min(N, int(A)))
    return Job(jid, arrival, req, L / sp.speedup(req), sp, None, req, {"A": A, "sigma": sigma, "L": L, "load": load})


# -- the speedup model (§2) -------------------------------------------------------------------------
@given(A_, SIGMA, st.floats(1.0, 2048.0))
def test_speedup_bounds(A, sigma, n):
    s = DowneySpeedup(A, sigma).speedup(n)
    assert s <= min(n, A) * (1 + 1e-12)
    assert s >= eager_lower_bound(A, n) * (1 - 1e-12)  # Eq. 3 is the sigma -> inf limit, a lower bound
    assert DowneySpeedup(A, sigma).speedup(1.0) == pytest.approx(1.0)


@given(A_, SIGMA, st.floats(1.0, 1024.0), st.floats(0.0, 64.0))
def test_speedup_is_nondecreasing(A, sigma, n, dn):
    sp = DowneySpeedup(A, sigma)
    assert sp.speedup(n + dn) >= sp.speedup(n) * (1 - 1e-12)


@given(A_, st.floats(1.0, 2048.0))
def test_low_and_high_variance_models_meet_at_sigma_one(A, n):
    lo, hi = DowneySpeedup(A, 1.0 - 1e-9).speedup(n), DowneySpeedup(A, 1.0 + 1e-9).speedup(n)
    assert lo == pytest.approx(hi, rel=1e-6)


@given(A_, SIGMA)
def test_max_is_the_smallest_size_reaching_A(A, sigma):
    sp, m = DowneySpeedup(A, sigma), max_size(A, sigma)
    assert sp.speedup(m) == pytest.approx(A)
    if m > 1.0 + 1e-6 and sigma > 1e-3:  # (as sigma -> 0 the curve touches A at n = A already)
        assert sp.speedup(m * (1 - 1e-4)) < A


@given(st.floats(1.5, 256.0), st.floats(0.0, 2.0))
def test_pws_maximises_power(A, sigma):
    """Eq. 6 is the maximum of S(n)^2 / n: no n on a fine grid beats it."""
    sp = DowneySpeedup(A, sigma)
    p = pws_size(A, sigma)
    best = max(sp.speedup(n) ** 2 / n for n in np.linspace(1.0, 4 * A, 4000))
    assert sp.speedup(p) ** 2 / p >= best * (1 - 1e-9)
    assert A / 2 <= p <= 2 * A - 1 + 1e-9  # Eager et al.'s bounds (§5.1)


def test_speedup_rejects_bad_parameters():
    with pytest.raises(ValueError, match="0.5"):
        DowneySpeedup(0.5, 0.0)
    with pytest.raises(ValueError, match="-1"):
        DowneySpeedup(4.0, -1.0)


def test_sev_is_linear_in_sigma_and_load():
    assert sev_size(33.0, 0.0, 1.0) == 33.0  # low variance keeps A
    assert sev_size(33.0, 2.0, 1.0) == 1.0  # sigma_max at full load gets 1
    assert sev_size(33.0, 2.0, 0.0) == 33.0  # pi = 0: no load, everyone gets A
    assert sev_size(33.0, 1.0, 0.5) == pytest.approx((33.0 + sev_size(33.0, 2.0, 0.5)) / 2)


# -- the workload (§3-4) -----------------------------------------------------------------------------
def test_workload_distributions_and_phases():
    w = Downey(N=64, load=0.75, days=40)
    jobs = list(w.jobs(seed=5))
    arr = np.array([j.arrival for j in jobs])
    assert (np.diff(arr) >= 0).all()
    assert ((arr % w.period) < w.day).all()  # arrivals only by day
    assert set((arr // w.period).astype(int)) == set(range(40))
    assert len(jobs) == pytest.approx(40 * w.arrival_rate * w.day, rel=0.05)
    A = np.array([j.attrs["A"] for j in jobs])
    L = np.array([j.attrs["L"] for j in jobs])
    sigma = np.array([j.attrs["sigma"] for j in jobs])
    assert A.min() >= 1 and A.max() <= 64 and sigma.min() >= 0 and sigma.max() <= 2
    assert L.min() >= math.exp(2) and L.max() <= math.exp(12)
    assert np.log(L).mean() == pytest.approx(7.0, abs=0.15)  # uniform-log on [e^2, e^12]
    assert np.log(A).mean() == pytest.approx(math.log(64) / 2, abs=0.1)
    assert sigma.mean() == pytest.approx(1.0, abs=0.05)
    sequential = np.mean([j.request == 1 for j in jobs])
    assert sequential == pytest.approx(1 / 6, abs=0.02)  # §3.2: "~17%"
    for j in jobs[:50]:
        assert j.request == max(1, int(j.attrs["A"])) and j.size == j.request
        assert j.time_on(1, j.request) == pytest.approx(j.attrs["L"])
        assert j.attrs["load"] == 0.75


def test_offered_load_definition():
    w = Downey(N=64, load=0.75)
    assert w.mean_lifetime / 60 == pytest.approx(271, abs=0.5)  # "271 minutes"
    assert w.arrival_rate * w.mean_lifetime / w.N == pytest.approx(0.75)
    n50, n100 = (Downey(load=r).arrival_rate * 12 * 3600 for r in (0.5, 1.0))
    assert 80 <= n50 <= 90 and 160 <= n100 <= 175  # "between 80 and 160" jobs per day (84.9, 169.9)
    # §6.3: Table 1 is "averaged over ~15000 jobs (120 simulated days)" at rho = 0.75: 125 a day, where
    # the round "80 ... 160" would give 120; E[L] = 271.2 min and 12-hour days give 127.4
    n75 = Downey(load=0.75).arrival_rate * 12 * 3600 * 120
    assert n75 == pytest.approx(15000, rel=0.03)


def test_workload_is_reproducible_and_endless_when_asked():
    w = Downey(days=None)
    a, b, c = w.take(400, seed=1), w.take(400, seed=1), w.take(400, seed=2)
    assert a == b and a != c
    assert a[-1].arrival > w.period  # spans several days


@pytest.mark.parametrize("kwargs, bad", [({"N": 0}, "0"), ({"load": -1.0}, "-1"), ({"days": 0}, "0"),
                                         ({"log_lifetime": (5.0, 2.0)}, "(5.0, 2.0)")])
def test_workload_rejects_bad_parameters(kwargs, bad):
    with pytest.raises(ValueError, match=bad.replace("(", r"\(").replace(")", r"\)")):
        Downey(**kwargs)


# -- the strategies (§5-6) ---------------------------------------------------------------------------
def _bound(policy, N=8):
    pool = FlatPool(Flat(N))
    policy.bind(pool)
    return policy, pool


def _sizes(actions):
    return [(a.job.id, a.processors) for a in actions if isinstance(a, Start)]


def _arrive(p, job, now):
    """Deliver one arrival as the only event of its instant and return the instant's decision."""
    p.on_arrival(job, now)
    return p.decide(now)


def _finish(p, job, now):
    p.on_finish(job, now)
    return p.decide(now)


def test_greedy_takes_what_is_free_stubborn_waits_hybrid_needs_c():
    for name, second in (("AVG", [(1, 2)]), ("AVG-stubborn", []), ("AVG-hybrid/0.5", []), ("AVG-hybrid/0.4", [(1, 2)])):
        p, _ = _bound(policies.get(name))
        assert _sizes(_arrive(p, make_job(0, 0.0, 5.8, 0.5, 100.0), 0.0)) == [(0, 6)]  # ceil(5.8)
        assert _sizes(_arrive(p, make_job(1, 1.0, 5.0, 0.5, 100.0), 1.0)) == second, name
        if not second:
            assert _sizes(_finish(p, make_job(0, 0.0, 5.8, 0.5, 100.0), 2.0)) == [(1, 5)]


def test_fifo_nothing_passes_a_blocked_head():
    p, _ = _bound(policies.get("MAX-stubborn"))
    assert _sizes(_arrive(p, make_job(0, 0.0, 3.0, 0.0, 10.0), 0.0)) == [(0, 3)]
    assert _sizes(_arrive(p, make_job(1, 0.0, 8.0, 0.0, 10.0), 0.0)) == []
    assert _sizes(_arrive(p, make_job(2, 0.0, 1.0, 0.0, 10.0), 0.0)) == []  # fits, but waits behind job 1
    assert _sizes(_finish(p, make_job(0, 0.0, 3.0, 0.0, 10.0), 5.0)) == [(1, 8)]


def test_strategy_sizes_follow_the_paper():
    """Each rule's ideal size, rounded up to the smallest integer cluster that reaches it."""
    N = 64
    for name, A, sigma, want in (("AVG", 9.7, 1.5, 10), ("AVG", 9.0, 1.5, 9), ("MAX", 9.7, 0.5, math.ceil(2 * 9.7 - 1)),
                                 ("MAX", 9.7, 1.5, math.ceil(9.7 * 2.5 - 1.5)), ("PWS", 40.0, 0.3, 40),
                                 ("PWS", 9.7, 0.9, math.ceil(0.9 * 9.2 / 0.55)),
                                 ("3/2 AVG", 9.7, 0.0, 15), ("SEV", 41.0, 2.0, 11), ("Simplified SEV", 41.0, 2.0, 26),
                                 ("SEV", 41.0, 1.0, math.ceil(41 - 40 * 0.5 * 0.75)), ("MAX", 60.0, 0.9, N)):
        p, _ = _bound(policies.get(name), N)
        assert p.ideal_size(make_job(0, 0.0, A, sigma, 1.0)) == want, name  # SEV: 41 - 40 * 0.75 = 11


def test_asp_divides_free_processors_among_the_queue():
    p, pool = _bound(ASP())
    assert _sizes(_arrive(p, make_job(0, 0.0, 8.0, 0.0, 10.0), 0.0)) == [(0, 8)]
    for i in (1, 2, 3):
        assert _arrive(p, make_job(i, 0.0, 8.0, 0.5, 10.0), 0.0) == []
    assert _sizes(_finish(p, make_job(0, 0.0, 8.0, 0.0, 10.0), 1.0)) == [(1, 2), (2, 3), (3, 3)]
    assert pool.free == 0


def test_asp_caps_at_max_and_gives_the_rest_to_later_jobs():
    p, pool = _bound(ASP())
    assert _sizes(_arrive(p, make_job(0, 0.0, 8.0, 0.0, 10.0), 0.0)) == [(0, 8)]
    p.on_arrival(make_job(1, 0.0, 1.0, 0.7, 10.0), 0.0)  # can use one processor
    p.on_arrival(make_job(2, 0.0, 8.0, 0.0, 10.0), 0.0)
    assert _sizes(_finish(p, make_job(0, 0.0, 8.0, 0.0, 10.0), 1.0)) == [(1, 1), (2, 7)]


def test_registry_names_and_errors():
    assert policies.get("SEV").name == "SEV" and policies.get("sev-greedy").name == "SEV"
    assert policies.get("3/2 AVG-stubborn").name == "3/2 AVG-stubborn"
    assert policies.get("Simplified SEV-hybrid/0.25").c == 0.25
    assert policies.get("PWS-hybrid/1").name == "PWS-stubborn"
    assert policies.get("ASP").name == "ASP"
    with pytest.raises(ValueError, match="1.5"):
        policies.get("AVG-hybrid/1.5")
    with pytest.raises(ValueError, match="'NOPE'"):
        DowneyStrategy("NOPE")
    p, _ = _bound(policies.get("SEV"))
    with pytest.raises(MissingJobAttributeError, match="job 3"):
        p.on_arrival(Job(3, 0.0, 1, 1.0), 0.0)
    with pytest.raises(MissingJobAttributeError, match="load"):
        p.on_arrival(Job(4, 0.0, 1, 1.0, DowneySpeedup(4.0, 1.0)), 0.0)


# -- metrics (§4.1) ----------------------------------------------------------------------------------
def test_metrics_by_hand():
    """N = 4, AVG-stubborn: job 0 (A=2, sigma=1, L=8) runs on 2 from 0; job 1 (A=4, sigma=0, L=8)
    waits for all 4."""
    j0, j1 = make_job(0, 0.0, 2.0, 1.0, 8.0, N=4), make_job(1, 1.0, 4.0, 0.0, 8.0, N=4)
    r = simulate(FlatPool(Flat(4)), "AVG-stubborn", [j0, j1], jobs=None)
    s2 = DowneySpeedup(2.0, 1.0).speedup(2)  # 1.6
    e0 = 8.0 / s2
    assert r.end.tolist() == pytest.approx([e0, e0 + 2.0]) and r.granted.tolist() == [2, 4]
    window = measurement_window(r, day=6.0)
    assert window == (0.0, 6.0)
    assert load_average(r, window) == pytest.approx((2 * e0 + 4 * (6.0 - e0)) / 24)
    assert utilization(r, [j0, j1], window) == pytest.approx((s2 * e0 + 4 * (6.0 - e0)) / 24)
    rN0, rN1 = 8.0 / DowneySpeedup(2.0, 1.0).speedup(4), 2.0
    assert slowdowns(r, [j0, j1]).tolist() == pytest.approx([e0 / rN0, (e0 + 2.0 - 1.0) / rN1])
    s = summarize_days([DayRun(r, {0: j0, 1: j1}, 6.0)])
    assert s["mean_queue_time"] == pytest.approx((e0 - 1.0) / 2)
    assert s["mean_cluster_size"] == 3.0 and s["cv_cluster_size"] == pytest.approx(1 / 3)
    assert measurement_window(r, day=1.0) == (0.0, e0)  # extended to the last start
    assert cluster_size_cv(np.array([5.0, 5.0])) == 0.0


def test_days_use_common_random_numbers():
    assert day_seeds(3, 4) == day_seeds(3, 4) and len(set(day_seeds(3, 4))) == 4
    a, b = simulate_days("AVG", days=2, seed=3), simulate_days("MAX", days=2, seed=3)
    assert [len(x.result) for x in a] == [len(x.result) for x in b]
    assert all(x.result.unfinished == 0 for x in a)
    with pytest.raises(ValueError, match="days=3"):
        simulate_days("AVG", days=1, workload=Downey(days=3))


# -- Table 1 and §6 at reduced size (40 simulated days instead of 120, rho = 0.75, N = 64) --------------
# Every assertion below held for each of seeds 0..9 at this size (except where noted); seed 1 is used.
# Full size (120 days) in examples/downey_table1.py; the numbers are in docs/reproductions/seed001.md.
DAYS, SEED = 40, 1
GREEDY = ("SEV", "AVG", "PWS", "MAX", "ASP")
#: Table 1 (rho = 0.75, 120 days): load average, utilization, turnaround, queue time, cluster size (CV), p90 slowdown.
PAPER_TABLE1 = {
    "SEV": (0.64, 0.52, 5858, 204, 7.8, 1.04, 11.6),
    "AVG": (0.70, 0.52, 5782, 372, 9.4, 1.07, 35.3),
    "PWS": (0.73, 0.52, 6017, 566, 10.2, 1.10, 77.8),
    "MAX": (0.81, 0.51, 6597, 1115, 10.7, 1.11, 249),
    "ASP": (0.77, 0.49, 7510, 402, 9.9, 1.24, 63.6),
}


@cache
def table(name: str, load: float = 0.75, days: int = DAYS) -> dict:
    return summarize_days(simulate_days(name, N=64, load=load, days=days, seed=SEED))


def table1() -> dict[str, tuple]:
    """Table 1 measured: ``{strategy: (load average, utilization, turnaround, queue time, cluster
    size, its CV, p90 slowdown)}`` in the paper's column order."""
    cols = ("load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size",
            "cv_cluster_size", "p90_slowdown")
    return {n: tuple(table(n)[c] for c in cols) for n in GREEDY}


@pytest.mark.parametrize("rule", ["SEV", "AVG", "PWS", "MAX"])
def test_stubborn_is_far_worse_than_greedy(rule):
    """§6.1-6.2: the greedy versions are better by all metrics; stubborn turnaround is a multiple."""
    g, s = table(rule), table(f"{rule}-stubborn")
    assert s["mean_turnaround"] > 1.5 * g["mean_turnaround"]
    assert s["mean_queue_time"] > 5 * g["mean_queue_time"]
    assert s["utilization"] < g["utilization"]
    assert s["p90_slowdown"] > 5 * g["p90_slowdown"]


def stubborn_multiples() -> dict[str, float]:
    """Stubborn mean turnaround as a multiple of ASP's (rho = 0.75)."""
    asp = table("ASP")["mean_turnaround"]
    return {r: table(f"{r}-stubborn")["mean_turnaround"] / asp for r in ("SEV", "AVG", "PWS", "MAX")}


def test_stubborn_strategies_are_worse_than_asp():
    """§6.1: "Even SEV ... yields turnaround times twice as long as ASP's. ... turnaround times under
    AVG are 5-8 times longer than ASP's, under PWS 13-17 times longer, and under MAX 17-21 times
    longer" (over rho = 0.5-1.0; here rho = 0.75, rounded to integers as the paper prints them; seed 1
    gives 2.0 / 7.1 / 15.7 / 20.6; of seeds 0..9 only seed 9 leaves a range, MAX 22.7)."""
    m = stubborn_multiples()
    assert round(m["SEV"]) == 2
    assert 5 <= round(m["AVG"]) <= 8 and 13 <= round(m["PWS"]) <= 17 and 17 <= round(m["MAX"]) <= 21, m


def test_sev_has_the_lowest_90th_percentile_slowdown_among_greedy():
    """Table 1: SEV 11.6 vs 35.3-249 for the others."""
    p90 = {n: table(n)["p90_slowdown"] for n in GREEDY}
    assert min(p90, key=p90.get) == "SEV"
    assert p90["SEV"] < 0.5 * min(v for k, v in p90.items() if k != "SEV")


def test_asp_has_the_highest_cv_of_cluster_size_among_greedy():
    """Table 1 / §6.3: ASP's CV 1.24 vs 1.04-1.11 for the others."""
    cv = {n: table(n)["cv_cluster_size"] for n in GREEDY}
    assert max(cv, key=cv.get) == "ASP"


def test_table1_orderings_of_load_and_queue_time():
    """Table 1: the larger the clusters a strategy allocates, the higher the load average and the
    longer the queue (SEV < AVG < PWS < MAX)."""
    rows = [table(n) for n in ("SEV", "AVG", "PWS", "MAX")]
    for key in ("load_average", "mean_queue_time"):
        vals = [r[key] for r in rows]
        assert vals == sorted(vals), key
    assert rows[0]["mean_cluster_size"] < rows[1]["mean_cluster_size"] < rows[2]["mean_cluster_size"]


def test_table1_turnaround_column():
    """Table 1's turnaround column, AVG 5782 < SEV 5858 < PWS 6017 < MAX 6597 < ASP 7510, and §6.3:
    "AVG and PWS reduce run times by allocating more processors per job, but this benefit is almost
    exactly balanced by greater queue times; thus ... the average turnaround times are similar";
    "MAX allocates so many processors per job that the additional queue time overwhelms the saved
    run time". SEV and AVG are within 5% of each other and both below PWS < MAX < ASP. (Which of
    SEV and AVG is first is not resolved: the paper's difference is 1.3%, ours changes sign with
    the seed.)"""
    t = {n: table(n)["mean_turnaround"] for n in GREEDY}
    assert max(t["SEV"], t["AVG"]) < t["PWS"] < t["MAX"] < t["ASP"], t
    assert t["SEV"] == pytest.approx(t["AVG"], rel=0.05), t


def test_table1_load_and_utilization_columns():
    """Table 1: load averages .64-.81 and utilizations .49-.52, ASP's the lowest ("All of the greedy
    strategies perform better than ASP"); every cell within .04 of the paper's."""
    t = table1()
    for n, paper in PAPER_TABLE1.items():
        assert t[n][0] == pytest.approx(paper[0], abs=0.04) and t[n][1] == pytest.approx(paper[1], abs=0.04), (n, t[n])
    assert min(GREEDY, key=lambda n: t[n][1]) == "ASP"


def test_cluster_size_decreases_with_load():
    """Fig. 12: in each case the cluster size decreases as load increases."""
    for n in GREEDY:
        assert table(n, 0.5, 10)["mean_cluster_size"] > table(n, 1.0, 10)["mean_cluster_size"], n


@pytest.mark.parametrize("rule", ["SEV", "AVG", "PWS", "MAX"])
def test_a_large_minimum_cluster_size_degrades_performance(rule):
    """§6.4 / Fig. 13: imposing a large minimum (c = 0.8) increases turnaround."""
    assert table(f"{rule}-hybrid/0.8")["mean_turnaround"] > 1.1 * table(rule)["mean_turnaround"]


def test_variance_insensitive_versions_allocate_the_same_sizes():
    """§6.5 / Fig. 15a, and Simplified SEV's turnaround "not significantly different" from SEV's."""
    assert table("Simplified SEV")["mean_cluster_size"] == pytest.approx(table("SEV")["mean_cluster_size"], rel=0.1)
    assert table("3/2 AVG")["mean_cluster_size"] == pytest.approx(table("PWS")["mean_cluster_size"], rel=0.1)
    assert table("Simplified SEV")["mean_turnaround"] == pytest.approx(table("SEV")["mean_turnaround"], rel=0.1)


@pytest.mark.parametrize("form", ["", "-hybrid/0.5"])
def test_three_halves_avg_is_worse_than_pws_by_all_metrics(form):
    """§6.5: "The variance-insensitive version of this strategy [3/2 AVG for PWS] does significantly
    worse by all metrics." The paper does not say which form Fig. 15 uses; it holds in the greedy
    form of Table 1 (120 days, seed 5: turnaround 6,075 vs 5,917 s, utilization .498 vs .502, p90
    slowdown 110 vs 60, queue 766 vs 544 s) and in the hybrid form with c = 0.5 (11,730 vs 9,692 s,
    .440 vs .468, 2,341 vs 1,523, 7,753 vs 5,528 s)."""
    pws, alt = table("PWS" + form), table("3/2 AVG" + form)
    assert alt["mean_turnaround"] > pws["mean_turnaround"]
    assert alt["utilization"] < pws["utilization"]
    assert alt["p90_slowdown"] > pws["p90_slowdown"]
    assert alt["mean_queue_time"] > pws["mean_queue_time"]

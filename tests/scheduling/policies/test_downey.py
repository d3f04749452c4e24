"""Downey's workload model, allocation strategies and metrics (seed 001). The paper's claims (Table 1, §6)
are defined in scheduling/reproduce/seed001.py and run by tests/scheduling/reproduce/test_reproduce.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import Job, policies, simulate
from scheduling.kernel.actions import Start
from scheduling.metrics.downey import (
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
from scheduling.models.downey_speedup import Downey as DowneySpeedup
from scheduling.models.downey_speedup import eager_lower_bound
from scheduling.policies.downey import (
    ASP,
    DowneyStrategy,
    MissingJobAttributeError,
    max_size,
    pws_size,
    sev_size,
)
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

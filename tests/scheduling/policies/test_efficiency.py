"""Nguyen, Vaswani & Zahorjan (seed 003): the extrapolated-efficiency rule, OPT-EFF's dynamic
program, self-tuning and the six policies. The paper's claims (§4.5, §5.2, §5.3) are defined once in
scheduling/reproduce/seed003.py (with the speedup curves and mixes used here) and run by
tests/scheduling/reproduce/test_reproduce.py; full-size runs are in examples/nguyen_efficiency.py.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import Job, Simulator, Tabulated, Timer
from scheduling.models.applications import application, batch_mix
from scheduling.models.speedup import Amdahl
from scheduling.policies import APEQUI, EQUALEFF, EQUI, OPTEFF, STEQUI, get
from scheduling.policies.efficiency import (
    EqualEffIteration,
    SelfTuning,
    best_size,
    equal_eff_allocation,
    equal_eff_greedy,
    equipartition,
    extrapolated_beta,
    extrapolated_efficiency,
    golden_section_search,
    opt_eff_allocation,
    system_efficiency,
)
from scheduling.reproduce.seed003 import curve_speedup, good, interactive, kinds, peaked
from topoalloc import FlatPool
from topologies import Flat


# -- the rules ------------------------------------------------------------------------------------
@given(st.floats(0.05, 0.999), st.integers(2, 128))
def test_extrapolated_curve_passes_through_the_measurement(eps, p):
    beta = extrapolated_beta(eps, p)
    assert extrapolated_efficiency(beta, p) == pytest.approx(eps)
    assert extrapolated_efficiency(beta, 1) == pytest.approx(1.0)
    assert extrapolated_efficiency(beta, p + 1) < eps  # decreasing


def test_extrapolation_edge_cases():
    assert extrapolated_beta(1.0, 8) == math.inf and extrapolated_beta(0.7, 1) == math.inf
    assert extrapolated_efficiency(math.inf, 50) == 1.0
    with pytest.raises(ValueError, match="> 0"):
        extrapolated_beta(0.0, 4)


@given(st.lists(st.floats(-0.9, 50.0), min_size=1, max_size=6), st.integers(6, 64))
def test_equal_eff_greedy_equalises_extrapolated_efficiencies(betas, total):
    limits = [total] * len(betas)
    alloc = equal_eff_greedy(betas, limits, total)
    assert sum(alloc) == total and min(alloc) >= 1
    # no processor could move to a job whose current efficiency is higher than the donor's last one
    for i, j in itertools.permutations(range(len(betas)), 2):
        if alloc[i] > 1:
            donor = extrapolated_efficiency(betas[i], alloc[i] - 1)
            assert donor >= extrapolated_efficiency(betas[j], alloc[j]) - 1e-12


def test_equal_eff_respects_limits_and_needs_a_processor_each():
    assert equal_eff_greedy([math.inf, math.inf], [2, 3], 10) == [2, 3]
    with pytest.raises(ValueError, match="at least one processor"):
        equal_eff_greedy([1.0, 1.0, 1.0], [4, 4, 4], 2)


@given(st.lists(st.lists(st.floats(0.2, 1.0), min_size=1, max_size=6), min_size=1, max_size=3),
       st.integers(3, 10))
def test_opt_eff_is_optimal(effs, total):
    """OPT-EFF's dynamic program against brute force, on arbitrary (non-monotone) curves."""
    if len(effs) > total:
        return
    speedups = [Tabulated(tuple(e)) for e in effs]
    limits = [len(e) for e in effs]
    got = opt_eff_allocation(speedups, limits, total)
    assert sum(got) <= total and all(1 <= g <= n for g, n in zip(got, limits, strict=True))
    best = max(system_efficiency(speedups, c) for c in itertools.product(*[range(1, n + 1) for n in limits])
               if sum(c) <= total)
    assert system_efficiency(speedups, got) == pytest.approx(best)


def test_opt_eff_takes_arrays_and_prefers_fewer_processors():
    flat = np.array([1.0, 2.0, 2.0, 2.0])
    assert opt_eff_allocation([flat, flat], [4, 4], 8) == [2, 2]


def test_best_size_is_the_fewest_processors_at_the_peak():
    assert best_size(peaked(32, 12, 7.0), 32) == 12
    assert best_size(curve_speedup([1, 2, 3, 3, 3]), 5) == 3
    assert best_size(Amdahl(0.1), 16) == 16


@given(st.integers(2, 64).flatmap(lambda P: st.tuples(st.just(P), st.integers(1, P), st.floats(1.0, 40.0))))
def test_self_tuning_finds_the_peak_of_a_unimodal_curve(case):
    """§4.2: the search starts on all P, narrows to [S(P), P] and finds the maximum of a unimodal
    speedup in O(log P) probes."""
    P, peak, top = case
    if peak == 1:
        f = lambda p: 1.0 / p ** 0.3  # noqa: E731 - slows down from the start
    else:
        s = peaked(P, peak, min(top, peak))
        f = s.speedup
    best, probes = golden_section_search(f, P)
    values = [f(p) for p in range(1, P + 1)]
    assert f(best) == pytest.approx(max(values[math.ceil(f(P) - 1e-9) - 1:]))
    assert probes <= 2 * math.log2(P) + 3


def test_self_tuning_starts_on_all_processors():
    t = SelfTuning(20)
    assert t.next_probe() == 20
    t.record(20, 5.0)
    assert t.lo == 5 and 5 <= t.next_probe() < 20


# -- §5.2: the iteration's result -----------------------------------------------------------------
DOWNEY_WORST = ((10.18, 0.11), (9.88, 0.11), (8.32, 0.77))


def test_equal_eff_never_returns_less_than_an_allocation_it_measured():
    """The iteration on Downey's worst mix (32 processors) cycles [4, 24, 4] <-> [25, 3, 4]
    (system efficiency 17.33 / 16.66) after starting from equipartition [11, 11, 10] (26.12);
    it returns the best allocation it measured, not the best of the cycle."""
    downey = pytest.importorskip("scheduling.models.downey_speedup")
    sp = [downey.Downey(A, s) for A, s in DOWNEY_WORST]
    it = EqualEffIteration(sp, [32] * 3, 32)
    while not it.done:
        it.step()
    assert (4, 24, 4) in it.history and (25, 3, 4) in it.history
    assert it.current == [11, 11, 10] == equipartition([32] * 3, 32)
    assert system_efficiency(sp, it.current) == pytest.approx(26.118, abs=1e-3)
    assert system_efficiency(sp, opt_eff_allocation(sp, [32] * 3, 32)) == pytest.approx(26.412, abs=1e-3)
    assert equal_eff_allocation(sp, [32] * 3, 32) == [11, 11, 10]
    # running out of steps also returns the best allocation seen
    assert equal_eff_allocation(sp, [32] * 3, 32, max_steps=4) == [11, 11, 10]


def test_on_downey_curves_equal_eff_is_never_below_what_it_measured():
    """Downey's curves (seed 001) are outside §5.2's claim (the paper's curves are measured KSR-2
    curves and smooth theoretical ones; Downey's sigma < 1 curves have slope breaks at A and
    2A - 1). Whatever EQUAL-EFF returns on them is at least the equipartition it starts from
    whenever the iteration cycles, and close to OPT-EFF on average."""
    downey = pytest.importorskip("scheduling.models.downey_speedup")
    rng = np.random.default_rng(7)
    ratios = []
    for _ in range(30):
        sp = [downey.Downey(float(np.exp(rng.uniform(0, np.log(64)))), float(rng.uniform(0, 2))) for _ in range(3)]
        for P in (8, 32, 64):
            lim = [P] * 3
            it = EqualEffIteration(sp, lim, P)
            while not it.done:
                it.step()
            got = system_efficiency(sp, it.current)
            if tuple(it.current) != it.history[-1]:  # stopped on a cycle
                assert got >= max(system_efficiency(sp, a) for a in it.history) - 1e-9
            ratios.append(got / system_efficiency(sp, opt_eff_allocation(sp, lim, P)))
    assert np.mean(ratios) > 0.95 and max(ratios) <= 1 + 1e-9


# -- the policies in the simulator ----------------------------------------------------------------
P = 32


def test_ap_equi_caps_jobs_at_their_best_size():
    p = APEQUI()
    p.bind(FlatPool(Flat(P)))
    acts = p.on_arrival(Job(0, 0.0, P, 10.0, peaked(P, 12, 7.0)), 0.0)
    assert [a.processors for a in acts] == [12]
    acts = p.on_arrival(Job(1, 0.0, P, 10.0, good(P)), 0.0)
    assert [a.processors for a in acts] == [20]


def test_self_tuning_costs_probes_and_reconfigurations():
    """ST-EQUI probes (each a processor change) where EQUI only reallocates at arrivals and
    departures; with overhead C every probe costs C."""
    r_equi = Simulator(FlatPool(Flat(P)), EQUI(), interactive("gpp")).run()
    r_st = Simulator(FlatPool(Flat(P)), STEQUI(), interactive("gpp")).run()
    assert r_st.changes.sum() > r_equi.changes.sum() + 3
    slow = Simulator(FlatPool(Flat(P)), STEQUI(overhead=1.0), interactive("gpp")).run()
    assert slow.summary()["mean_turnaround"] > r_st.summary()["mean_turnaround"]


def test_equal_eff_with_a_quantum_converges_to_the_instant_allocation():
    """EQUAL-EFF measuring one step per quantum reaches the allocation §5.2's instant iteration
    computes, after a few quanta."""
    jobs = [Job(i, 0.0, P, 500.0, s) for i, s in enumerate(kinds("gpe"))]
    inst, stepped = EQUALEFF(), EQUALEFF(quantum=1.0)
    for pol in (inst, stepped):
        pol.bind(FlatPool(Flat(P)))
    for j in jobs:
        inst.on_arrival(j, 0.0)
        acts = stepped.on_arrival(j, 0.0)
    assert [s.procs for s in stepped.shares.values()] == equipartition([P] * 3, P)
    for _ in range(50):
        timers = [a for a in acts if isinstance(a, Timer)]
        if not timers:
            break
        acts = stepped.on_timer(timers[-1].key, timers[-1].at)
    assert not timers
    assert [s.procs for s in stepped.shares.values()] == [s.procs for s in inst.shares.values()]


def test_opt_eff_policy_matches_the_dynamic_program():
    jobs = [Job(i, 0.0, n, 50.0, application(k).speedup) for i, (k, n) in enumerate([(1, 16), (6, 16), (12, 32)])]
    pol = OPTEFF()
    pol.bind(FlatPool(Flat(P)))
    for j in jobs:
        pol.on_arrival(j, 0.0)
    got = [s.procs for s in pol.shares.values()]
    assert got == opt_eff_allocation([j.speedup for j in jobs], [16, 16, 32], P)


def test_batch_mix_of_applications_runs_every_policy():
    for name in ("EQUI", "AP-EQUI", "ST-EQUI", "EQUAL-EFF", "ST-EQUAL-EFF", "OPT-EFF"):
        pol = get(name)
        r = Simulator(FlatPool(Flat(P)), pol, batch_mix([1, 6, 11], 20), jobs=15).run()
        assert len(r) == 15 and 0.5 < pol.system_efficiency((0.0, r.window[1])) <= 1.0

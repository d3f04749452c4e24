"""Workloads on switch trees: the hero mix, constraint rules on synthetic streams and trace replays,
their own random stream (common random numbers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduling import simulate
from scheduling.workloads import (
    STREAMS,
    Constrained,
    Exponential,
    HeroMix,
    LevelBySize,
    SizeThreshold,
    Switches,
    Synthetic,
    UniformCount,
    WithProbability,
    hero_mix,
    kueue_tree,
    load_swf,
    parse_rule,
    rule_from_json,
    streams,
)
from scheduling.workloads.offered import mean_granted_size, request_distribution
from topoalloc.tree import FirstFree
from topologies import ParameterError, SwitchTree, TopologyError, TreeRequest

TREE = kueue_tree()
RNG = np.random.default_rng(0)


# -- the hero mix ----------------------------------------------------------------------------------
def test_hero_mix_is_the_stated_mix():
    """The docstring's figures: 80% on 1..64, 18% on 65..320, 2% heroes of 640 or 1,280; mean 59.8;
    heroes 32% of the node time; exact pmf = sampled frequencies."""
    mix = HeroMix()
    n, p = mix.pmf()
    assert p.sum() == pytest.approx(1.0) and n.min() == 1 and n.max() == 1280
    assert p[n <= 64].sum() == pytest.approx(0.80) and p[(n > 64) & (n <= 320)].sum() == pytest.approx(0.18)
    assert p[n == 640].sum() == pytest.approx(0.01) and p[n == 1280].sum() == pytest.approx(0.01)
    assert mix.mean_size == pytest.approx(59.84, abs=0.01)
    assert (n * p)[n >= 640].sum() / mix.mean_size == pytest.approx(0.32, abs=0.005)
    x = np.array(mix.sample(np.random.default_rng(5), 200_000))
    assert x.mean() == pytest.approx(mix.mean_size, rel=0.02)
    assert np.median(x) == 13 and (x <= 8).mean() == pytest.approx(p[n <= 8].sum(), abs=0.005)
    assert set(np.unique(x[x > 320]).tolist()) == {640, 1280}
    # the load formula's mean is exact (the granted mean of an allocator that grants the count)
    assert mean_granted_size(mix, FirstFree(TREE).request_size) == pytest.approx(mix.mean_size)
    assert request_distribution(mix)[0][-1] == 1280


def test_hero_mix_scales_to_other_trees_and_checks_its_values():
    assert HeroMix.for_tree(TREE) == HeroMix()
    assert HeroMix.for_tree(SwitchTree.uniform((8,))) == HeroMix(8, 8, (8,), 0.0, 0.02)
    assert HeroMix.for_tree(SwitchTree.uniform((3, 5, 16))) == HeroMix(16, 40, (80, 240), 0.18, 0.02)
    for bad, match in [(dict(p_medium=0.9, p_hero=0.2), "at most 1"), (dict(heroes=()), "non-empty"),
                       (dict(small_max=64, medium_max=32), "medium_max"), (dict(p_hero=-0.1), "p_hero")]:
        with pytest.raises(ParameterError, match=match):
            HeroMix(**bad)
    assert HeroMix(heroes=[10, 20]).heroes == (10, 20)  # a TOML list


def test_hero_mix_workload_offers_the_load_and_is_a_tree_workload():
    w = hero_mix(0.5)
    assert w.sizes == HeroMix() and w.service == Exponential(3600.0)
    assert w.arrival_rate == pytest.approx(0.5 * 1280 / (HeroMix().mean_size * 3600.0))
    r = simulate(FirstFree(TREE), "FCFS", w, jobs=2000, warmup=200, seed=4)
    assert 0.4 < r.utilization < 0.6 and "leaf_switches" in r.table.dtype.names
    with pytest.raises(TypeError, match="SwitchTree"):
        hero_mix(0.5, tree=object())


# -- rules ------------------------------------------------------------------------------------------
def test_threshold_rule_and_a_required_level_too_small_for_the_job():
    """Jobs of at least 32 nodes need a rack; a 100-node job needs the block instead (no rack holds
    it); a job larger than a block no constraint (only the whole machine holds it)."""
    got = SizeThreshold(32).requests([31, 32, 100, 700], RNG, TREE)
    assert got == [31, TreeRequest(32, required="rack"), TreeRequest(100, required="block"), 700]
    assert SizeThreshold(1, "block", "preferred").requests([700], RNG, TREE) == [TreeRequest(700, preferred="block")]
    for r in got:  # every request is one the tree accepts
        TREE.validate_request(r)


def test_by_size_rule_is_the_issues_classes():
    got = LevelBySize().requests([1, 64, 65, 640, 641, 1280], RNG, TREE)
    assert got == [TreeRequest(1, required="rack"), TreeRequest(64, required="rack"), TreeRequest(65, required="block"),
                   TreeRequest(640, required="block"), 641, 1280]
    mine = LevelBySize(((8, "host"), (100, "rack")), kind="preferred")
    assert mine.requests([1, 8, 9, 101], RNG, TREE) == [
        TreeRequest(1, preferred="host"), TreeRequest(8, preferred="host"), TreeRequest(9, preferred="rack"), 101]


def test_switches_rule_derives_the_fewest_leaf_switches_or_takes_them():
    got = Switches(wait=300.0).requests([1, 64, 65, 640, 1280], RNG, TREE)
    assert [r.switches for r in got] == [1, 1, 2, 10, 20] and all(r.wait == 300.0 for r in got)
    given = Switches(3, min_nodes=10).requests([5, 10, 300], RNG, TREE)
    assert given == [5, TreeRequest(10, switches=3), TreeRequest(300, switches=5)]  # 300 needs 5 racks
    # an unbalanced tree: the largest leaf switches first
    odd = SwitchTree.from_switches({"top": ["a", "b", "c"]}, {"a": ["n1"], "b": [f"m{i}" for i in range(5)],
                                                             "c": ["o1", "o2"]})
    assert [r.switches for r in Switches().requests([5, 6, 8], RNG, odd)] == [1, 2, 3]


def test_probability_rule_draws_one_uniform_per_job_so_rules_are_coupled():
    counts = list(range(1, 2001))
    low = WithProbability(0.3).requests(counts, np.random.default_rng(9), TREE)
    high = WithProbability(0.6).requests(counts, np.random.default_rng(9), TREE)
    marked_low = {r.count for r in low if isinstance(r, TreeRequest)}
    marked_high = {r.count for r in high if isinstance(r, TreeRequest)}
    assert marked_low < marked_high
    assert len(marked_low) / 2000 == pytest.approx(0.3, abs=0.03) and len(marked_high) / 2000 == pytest.approx(0.6,
                                                                                                              abs=0.03)
    assert all(r.preferred == "rack" for r in high if isinstance(r, TreeRequest))


def test_rules_refuse_bad_values_and_unknown_levels_by_name():
    with pytest.raises(TopologyError, match="unknown level 'shelf'.*cluster, block, rack, host"):
        SizeThreshold(1, "shelf").requests([4], RNG, TREE)
    for make, match in [(lambda: SizeThreshold(0), "min_nodes"), (lambda: WithProbability(1.5), "p must be"),
                        (lambda: SizeThreshold(4, kind="wanted"), "kind must be one of required, preferred"),
                        (lambda: LevelBySize(((64, "rack"), (32, "block"))), "must increase"),
                        (lambda: LevelBySize(((64,),)), "pair"), (lambda: Switches(0), "switches: count"),
                        (lambda: Switches(wait=-1.0), "wait")]:
        with pytest.raises(ParameterError, match=match):
            make()


def test_rule_tables_and_command_line_forms_round_trip():
    for rule in (SizeThreshold(64), WithProbability(0.25, "block", "required"), LevelBySize(),
                 Switches(), Switches(4, 60.0, 8)):
        assert rule_from_json(rule.to_json()) == rule
    assert parse_rule("by-size:32=rack,640=block") == LevelBySize(((32, "rack"), (640, "block")))
    assert parse_rule("switches@600") == Switches(None, 600.0) == parse_rule("switches:auto@600")
    assert parse_rule("probability:0.5") == WithProbability(0.5)
    with pytest.raises(KeyError, match="no key 'level'; allowed: rule, switches, wait, min_nodes"):
        rule_from_json({"rule": "switches", "level": "rack"})
    with pytest.raises(KeyError, match="rule must be one of threshold, probability, by_size, switches"):
        rule_from_json({"rule": "rack"})
    with pytest.raises(ValueError, match="bad constraint rule 'switches:two'; write threshold:K"):
        parse_rule("switches:two")


# -- constrained workloads: common random numbers -----------------------------------------------------
def test_a_rule_changes_only_the_requests_and_has_its_own_stream():
    """The constraints stream is spawned last: the other streams, and so every job's arrival, size
    and run time, are those of the unconstrained workload; two rules see the same jobs."""
    assert STREAMS[-1] == "constraints"
    base = hero_mix(0.6)
    plain = base.take(3000, seed=11)
    for rule in (LevelBySize(), WithProbability(0.5), Switches(wait=10.0)):
        jobs = Constrained(base, rule, TREE).take(3000, seed=11)
        assert [(j.id, j.arrival, j.runtime, j.size) for j in jobs] == [(j.id, j.arrival, j.runtime, j.size)
                                                                         for j in plain]
        assert [TREE.request_size(j.request) for j in jobs] == [j.request for j in plain]
        assert any(isinstance(j.request, TreeRequest) for j in jobs)
    # the probabilistic rule's draws are the stream's: the first uniforms of streams(seed)["constraints"]
    u = streams(11)["constraints"].random(3000)
    marked = [isinstance(j.request, TreeRequest) for j in Constrained(base, WithProbability(0.5), TREE).take(3000, 11)]
    assert marked == (u < 0.5).tolist()


def test_constrained_workload_passes_the_inner_ones_properties():
    w = Constrained(Synthetic(UniformCount(1, 64), Exponential(1.0), load=0.5, machine_size=1280), LevelBySize(), TREE)
    assert w.endless and w.request_kind == SwitchTree.request_kind and w.max_request == 64
    with pytest.raises(TypeError):
        len(w)
    with pytest.raises(ParameterError, match="SwitchTree"):
        Constrained([], LevelBySize(), object())
    with pytest.raises(ParameterError, match="constraint rule"):
        Constrained([], "rack", TREE)


SWF = """; MaxProcs: 1280
1 0 0 100 700 -1 -1 700 200 -1 1 1 1 1 1 1 -1 -1
2 10 0 200 64 -1 -1 64 300 -1 1 1 1 1 1 1 -1 -1
3 20 0 300 65 -1 -1 65 400 -1 1 1 1 1 1 1 -1 -1
4 30 0 400 1280 -1 -1 1280 500 -1 1 1 1 1 1 1 -1 -1
5 40 0 50 8 -1 -1 8 60 -1 1 1 1 1 1 1 -1 -1
"""


def test_a_trace_replay_with_a_rule(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    trace = load_swf(path, topology=TREE)
    assert [j.request for j in trace] == [700, 64, 65, 1280, 8]  # counts on a tree
    w = Constrained(trace, LevelBySize(), TREE)
    assert len(w) == 5 and w.report is trace.report
    reqs = [j.request for j in w.jobs(0)]
    assert reqs == [700, TreeRequest(64, required="rack"), TreeRequest(65, required="block"), 1280,
                    TreeRequest(8, required="rack")]
    r = simulate(FirstFree(TREE), "EASY", w, jobs=None)
    assert len(r) == 5 and math.isfinite(r.summary()["mean_wait"])
    assert r.table["leaf_switches"].tolist() == [11, 1, 2, 20, 1]

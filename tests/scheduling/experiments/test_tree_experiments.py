"""Switch trees in experiment files and on the command line: topology forms, every tree allocator by
registry, [constraints] tables, configurations that cannot run, compare / replay / run / list."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from scheduling.cli import main
from scheduling.experiments import (
    ConfigError,
    LocalExecutor,
    ResultStore,
    TopologySpec,
    aggregate,
    compare_study,
    load_study,
    run_study,
    run_task,
    study_from_dict,
)
from scheduling.experiments.runner import CANNOT_RUN
from scheduling.experiments.schema import METRICS
from scheduling.experiments.snapshots import SnapshotPolicy
from scheduling.policies import get as get_policy
from scheduling.workloads import HeroMix, LevelBySize
from topoalloc import registry
from topoalloc.tree import TreeAllocator
from topologies import TreeRequest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "tree_blocks.toml"
TREE = "tree:2x4x16:block,rack,host"  # 128 nodes: racks of 16, blocks of 64
BASE = {"topology": TREE, "allocators": ["FirstFree"], "policies": ["FCFS"], "loads": [0.4], "jobs": 150,
        "warmup": 15, "replications": 1}


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


class RackBound(TreeAllocator):
    """Never spans leaf switches: a job larger than a rack can never run."""

    def _choose_count(self, n, free):
        t = self.topology
        for s in t.leaf_switch_ids.tolist():
            ids = np.flatnonzero(free[t.first[s]:t.stop[s]])[:n] + t.first[s]
            if len(ids) == n:
                return ids
        return None


@pytest.fixture
def rack_bound():
    registry.register("TestRackBound", RackBound, kind="tree", help="test: one leaf switch per job")
    try:
        yield "TestRackBound"
    finally:
        registry.unregister("TestRackBound")


# -- topologies ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, label, size, levels", [
    ("tree:2x10x64", "tree:2x10x64", 1280, ("cluster", "level1", "level2", "node")),
    ("tree:2x10x64:block,rack,host", "tree:2x10x64:block,rack,host", 1280, ("cluster", "block", "rack", "host")),
    ("TREE: 4 x 8", "tree:4x8", 32, ("cluster", "level1", "node")),
    ("fattree:4,3", "fattree:4,3", 64, ("root", "level1", "level2", "node")),
    ("fattree:2x5", "fattree:2,5", 32, ("root", "level1", "level2", "level3", "level4", "node")),
    ({"kind": "tree", "levels": [2, 4], "names": ["rack", "host"]}, "tree:2x4:rack,host", 8,
     ("cluster", "rack", "host")),
    ({"kind": "fattree", "k": 4, "n": 2}, "fattree:4,2", 16, ("root", "level1", "node")),
])
def test_tree_topology_forms(text, label, size, levels):
    spec = TopologySpec.parse(text)
    assert (spec.kind, spec.label, spec.size) == ("tree", label, size)
    assert spec.build().levels == levels and spec.build().size == size
    assert TopologySpec.parse(spec.label) == spec  # the label is what points and stores keep


@pytest.mark.parametrize("text, fragment", [
    ("tree:2x0", "count must be an integer >= 1"),
    ("tree:2x4:rack", "2 levels below the root but 1 names"),
    ("fattree:4", "write 'fattree:K,N'"),
    ("fattree:1,3", "arity k must be an integer >= 2"),
    ("tree:", "'tree:AxBx..xN'"),
    ("tree:missing.conf", "No such file"),
    ({"kind": "tree"}, "needs 'levels'"),
    ({"kind": "tree", "levels": [2], "file": "x.conf"}, "either a file or levels"),
    ({"kind": "fattree", "k": 4}, "needs 'n'"),
    ({"kind": "tree", "levels": [4], "size": 4}, "has no 'size'; allowed: levels, names, file"),
    ({"kind": "ring"}, "choose from mesh, cube, flat, tree, fattree"),
])
def test_bad_tree_topologies_are_refused_naming_the_forms(text, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(".", r"\.")):
        TopologySpec.parse(text)


def test_a_tree_from_a_topology_file(tmp_path, monkeypatch):
    pytest.importorskip("topologies.tree_files")
    conf = tmp_path / "topology.conf"
    conf.write_text("SwitchName=s0 Nodes=n[0-7]\nSwitchName=s1 Nodes=n[8-15]\nSwitchName=top Switches=s[0-1]\n")
    monkeypatch.chdir(tmp_path)
    for form in ("tree:topology.conf", {"kind": "tree", "file": "topology.conf"}):
        spec = TopologySpec.parse(form)
        assert spec.label == "tree:topology.conf" and spec.size == 16 and len(spec.build().leaf_switch_ids) == 2
    study = study_from_dict({**BASE, "topology": {"kind": "tree", "file": "topology.conf"}, "loads": [0.5]})
    row = run_task(study.points()[0].task(0))
    assert row["topology"] == "tree:topology.conf" and row["kept"] > 0 and math.isfinite(row["mean_leaf_switches"])
    (tmp_path / "bad.conf").write_text("SwitchName=s0 Nodes=\n")
    with pytest.raises(ValueError, match="bad topology 'tree:bad.conf'"):
        TopologySpec.parse("tree:bad.conf")


# -- experiment files ---------------------------------------------------------------------------------
def test_all_names_every_registered_tree_allocator_when_loaded(rack_bound):
    study = study_from_dict({**BASE, "allocators": "all"})
    names = [a.name for a in study.experiments[0].allocators]
    assert names == registry.names("tree") and "FirstFree" in names and rack_bound in names
    with pytest.raises(ConfigError, match="allocators"):
        study_from_dict({**BASE, "topology": "cube:4", "allocators": ["FirstFree"]})


def test_auto_sizes_on_a_tree_are_the_hero_mix_scaled_to_it():
    study = study_from_dict({**BASE, "workload": {"sizes": "auto"}})
    sizes = study.points()[0].workload["sizes"]
    assert sizes == {"name": "HeroMix", "small_max": 16, "medium_max": 32, "heroes": [64, 128], "p_medium": 0.18,
                     "p_hero": 0.02}
    assert HeroMix(**{k: v for k, v in sizes.items() if k != "name"}) == HeroMix(16, 32, (64, 128))


def test_constraints_table_reaches_the_jobs_and_leaves_the_job_stream_alone():
    """Two variants that differ only in their rule: other point ids, the same simulation seeds (the
    same jobs: the rule has its own stream); the rule's requests reach the simulation."""
    study = study_from_dict({**BASE, "loads": [0.6], "jobs": 300, "warmup": 30, "experiments": [
        {"name": "plain"},
        {"name": "tas", "constraints": {"rule": "by_size", "classes": [[16, "rack"], [64, "block"]]}},
        {"name": "wait", "constraints": {"rule": "switches", "wait": 1}}]})
    plain, tas, wait = (e.points()[0] for e in study.experiments)
    assert "constraints" not in plain.workload
    assert tas.workload["constraints"] == {"rule": "by_size", "classes": [[16, "rack"], [64, "block"]],
                                           "kind": "required"}
    assert wait.workload["constraints"] == {"rule": "switches", "switches": "auto", "wait": 1}
    assert len({plain.point_id, tas.point_id, wait.point_id}) == 3
    assert plain.sim_seed(0) == tas.sim_seed(0) == wait.sim_seed(0)
    rows = {p.experiment.split("/")[1]: run_task(p.task(0)) for p in (plain, tas, wait)}
    assert rows["plain"]["kept"] == rows["tas"]["kept"] == rows["wait"]["kept"] == 270
    assert rows["plain"]["blocked_by_topology"] == 0.0 and rows["tas"]["blocked_by_topology"] > 0
    assert rows["tas"]["mean_leaf_switches"] < rows["plain"]["mean_leaf_switches"]
    assert 0.0 < rows["wait"]["fraction_relaxed"] < 1.0 and rows["plain"]["fraction_relaxed"] == 0.0


@pytest.mark.parametrize("table, key, fragment", [
    ({"rule": "rack"}, "constraints.rule", "rule must be one of threshold, probability, by_size, switches"),
    ({"level": "rack"}, "constraints.rule", "missing 'rule'"),
    ({"rule": "threshold", "min_nodes": 8, "levle": "rack"}, "constraints.levle", "allowed: rule, min_nodes"),
    ({"rule": "threshold", "min_nodes": 0}, "constraints.min_nodes", "min_nodes must be an integer >= 1"),
    ({"rule": "threshold", "min_nodes": 8, "level": "shelf"}, "constraints.level",
     "has no level 'shelf'; its levels are cluster, block, rack, host"),
    ({"rule": "by_size", "classes": [[16, "rack"], [64, "pod"]]}, "constraints.classes", "no level 'pod'"),
    ({"rule": "probability", "p": 2}, "constraints.p", "p must be"),
    ("rack", "constraints", "must be a table"),
])
def test_constraints_errors_name_the_file_and_key(tmp_path, table, key, fragment):
    with pytest.raises(ConfigError) as info:
        study_from_dict({**BASE, "constraints": table}, file=tmp_path / "x.toml")
    assert info.value.key == key and fragment in str(info.value) and "x.toml" in str(info.value)


def test_constraints_need_a_tree(tmp_path):
    path = write(tmp_path, """
        topology = "flat:16"
        allocators = ["FlatPool"]
        policies = ["FCFS"]
        loads = [0.5]
        [constraints]
        rule = "switches"
    """)
    with pytest.raises(ConfigError, match="key 'constraints': topology constraints need a switch tree"):
        load_study(path)


SWF = """; MaxProcs: 128
1 0 0 100 20 -1 -1 20 200 -1 1 1 1 1 1 1 -1 -1
2 10 0 200 16 -1 -1 16 300 -1 1 1 1 1 1 1 -1 -1
3 20 0 300 64 -1 -1 64 400 -1 1 1 1 1 1 1 -1 -1
4 30 0 400 100 -1 -1 100 500 -1 1 1 1 1 1 1 -1 -1
5 40 0 50 8 -1 -1 8 60 -1 1 1 1 1 1 1 -1 -1
6 45 0 50 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1
"""


def test_a_trace_model_on_a_tree_with_constraints(tmp_path, monkeypatch):
    d = tmp_path / "traces"
    d.mkdir()
    (d / "tiny.swf").write_text(SWF)
    monkeypatch.setenv("TOPOALLOC_TRACES", str(d))
    study = study_from_dict({**BASE, "policies": ["FCFS", "EASY"], "loads": "recorded", "jobs": "all", "warmup": 0,
                             "workload": {"model": {"name": "Trace", "file": "tiny"}},
                             "constraints": {"rule": "by_size", "classes": [[16, "rack"], [64, "block"]]}})
    (p, q) = study.points()
    assert p.load is None and p.workload["constraints"]["rule"] == "by_size"
    row = run_task(p.task(0))
    assert row["kept"] == 6 and row["mean_leaf_switches"] == pytest.approx((2 + 1 + 4 + 7 + 1 + 1) / 6)


# -- configurations that cannot run ------------------------------------------------------------------
def test_a_configuration_that_cannot_run_is_reported_not_fatal(rack_bound, tmp_path, capsys):
    """RackBound cannot place the hero mix's jobs larger than a rack: its points are reported (not
    stored), FirstFree's run; compare leaves it out with the reason."""
    study = study_from_dict({**BASE, "allocators": ["FirstFree", rack_bound], "replications": 2})
    store = ResultStore()
    stats = run_study(study, store, LocalExecutor(1), progress=False)
    bound = [p for p in study.points() if p.allocator.name == rack_bound][0]
    assert list(stats.cannot_run) == [bound.point_id] and "cannot place even on the empty machine" in \
        stats.cannot_run[bound.point_id]
    assert {r["allocator"] for r in store.rows()} == {"FirstFree"} and len(store) == 2
    assert CANNOT_RUN in run_task(bound.task(0))
    _, skipped = compare_study(topologies=[TREE], allocators=["FirstFree", rack_bound], replications=1, jobs=100)
    assert skipped == {rack_bound: f"{rack_bound} cannot place a 128-node job on the empty {TREE}"}
    path = write(tmp_path, f"""
        name = "cannot"
        topology = "{TREE}"
        allocators = ["FirstFree", "{rack_bound}"]
        policies = ["FCFS"]
        loads = [0.4]
        jobs = 150
        replications = 1
    """)
    assert main(["run", str(path), "--store", str(tmp_path / "c.sqlite"), "--no-plots", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "not run (the allocator cannot place a job of the workload even on the empty machine):" in out
    assert f"{rack_bound} FCFS load 0.4:" in out and "FirstFree" in out


# -- the command line ---------------------------------------------------------------------------------
def test_compare_on_a_tree_runs_every_tree_allocator_with_constraints(capsys):
    code = main(["compare", "--topology", TREE, "--policies", "FCFS,EASY", "--loads", "0.4", "--jobs", "150",
                 "--replications", "1", "--workers", "1", "--constraints", "by-size:16=rack,64=block",
                 "--metrics", "mean_wait,blocked_fraction,mean_leaf_switches"])
    out = capsys.readouterr().out
    assert code == 0
    assert "the kueue#4634 mix on a tree" in out and "rule=by_size" in out
    lines = [ln for ln in out.splitlines() if ln.startswith(TREE)]
    assert len(lines) == 2 * len(registry.names("tree"))
    assert "leaf switches per job" in out and "fraction of time blocked by topology" in out


def test_compare_refuses_constraints_off_a_tree(capsys):
    assert main(["compare", "--topology", "cube:4", "--constraints", "switches", "--jobs", "50"]) == 2
    assert "topology constraints need a switch tree" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:  # argparse's own usage error
        main(["compare", "--topology", TREE, "--constraints", "switches:x"])
    assert info.value.code == 2 and "bad constraint rule 'switches:x'" in capsys.readouterr().err


def test_replay_on_a_tree_with_a_switches_wait(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    code = main(["replay", str(trace), "--topology", TREE, "--policies", "FCFS,EASY", "--constraints",
                 "switches@30", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "replay on tree:2x4x16:block,rack,host" in out
    rows = [ln for ln in out.splitlines() if ln.startswith(TREE)]
    assert len(rows) == 2 and all("FirstFree" in ln for ln in rows)
    assert "leaf switches per job" in out


def test_list_shows_the_tree_allocators_topologies_and_rules(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    tree_line = next(ln for ln in out.splitlines() if ln.strip().startswith("tree:AxBx..xN"))
    assert all(name in tree_line for name in registry.names("tree"))
    assert "switches[:N|auto][@T]" in out and "FirstFree" in out


# -- the kueue#4634 example ---------------------------------------------------------------------------
def test_the_tree_blocks_example_runs_every_tree_allocator_under_fcfs_and_easy():
    study = load_study(EXAMPLE)
    assert [e.name for e in study.experiments] == ["tree-blocks/plain", "tree-blocks/tas"]
    for e in study.experiments:
        assert [a.name for a in e.allocators] == registry.names("tree") and e.policies == ("FCFS", "EASY")
        assert e.topology.label == "tree:2x10x64:block,rack,host"
        assert e.points()[0].workload["sizes"]["name"] == "HeroMix"
    assert study.experiments[1].points()[0].workload["constraints"]["rule"] == "by_size"
    assert set(study.table) <= set(METRICS) and {"utilization", "mean_wait", "mean_bounded_slowdown",
                                                 "mean_leaf_switches", "blocked_by_topology"} <= set(study.table)
    # a small run of the "tas" variant (FirstFree, EASY): the table's metrics are all there
    exp = study.experiments[1]
    point = [p for p in exp.points() if p.allocator.name == "FirstFree" and p.policy == "EASY"][-1]
    small = type(point)(**{**point.__dict__, "jobs": 400, "warmup": 40})
    row = run_task(small.task(0))
    assert all(math.isfinite(row[m]) for m in study.table) and row["kept"] == 360
    assert row["blocked_by_topology"] >= 0.0 and 1.0 <= row["mean_leaf_switches"] < 3.0
    assert aggregate([row])[0].estimates["mean_leaf_switches"].mean == row["mean_leaf_switches"]


def test_snapshot_policy_keeps_the_wait_and_the_head():
    inner = get_policy("Conservative")  # it says which job heads its queue; FCFS and EASY: the oldest waiting
    wrapped = SnapshotPolicy(inner, [1.0])
    assert wrapped.switches_wait and wrapped.queue_head == inner.queue_head
    assert SnapshotPolicy(get_policy("EASY"), [1.0]).switches_wait
    assert not hasattr(SnapshotPolicy(get_policy("EASY"), [1.0]), "queue_head")
    assert not SnapshotPolicy(get_policy("DEQP"), [1.0]).switches_wait
    assert LevelBySize().requests([8], None, TopologySpec.parse(TREE).build()) == [TreeRequest(8, required="rack")]

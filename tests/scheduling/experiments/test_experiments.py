"""Experiment descriptions, seeds, the allocator registry and sweeps (scheduling.experiments)."""

from __future__ import annotations

import dataclasses
import math
import textwrap

import pytest

from scheduling import simulate
from scheduling.experiments import (
    Component,
    ConfigError,
    LocalExecutor,
    ResultStore,
    Target,
    TopologySpec,
    WorkloadSpec,
    aggregate,
    compare_study,
    fairness_curves,
    format_table,
    load_study,
    registry,
    replications_needed,
    run_study,
    run_task,
    study_from_dict,
)
from scheduling.experiments import defaults as compare_defaults
from scheduling.metrics.summary import confidence_interval

TINY = {
    "name": "tiny",
    "topology": "cube:5",
    "allocators": ["Buddy"],
    "policies": ["RSR-0", "RSR-1"],
    "loads": [0.4, 0.7],
    "jobs": 150,
    "warmup": 15,
    "replications": 2,
    "seed": 7,
}


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# -- topology and components ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, kind, shape",
    [("mesh:32x16", "mesh", (32, 16)), ("mesh:8", "mesh", (8, 8)), ("cube:8", "cube", (8,)),
     ("hypercube:3", "cube", (3,)), ("flat:320", "flat", (320,)),
     ({"kind": "mesh", "width": 4, "height": 2}, "mesh", (4, 2))],
)
def test_topology_forms(text, kind, shape):
    spec = TopologySpec.parse(text)
    assert (spec.kind, spec.shape) == (kind, shape)
    assert spec.build().size == spec.size
    assert TopologySpec.parse(spec.label) == spec


@pytest.mark.parametrize("bad", ["torus:4", "mesh:axb", "cube:-1", "mesh:0x4", "cube:30", 8,
                                 {"kind": "cube", "size": 3}, {"kind": "mesh", "width": 4}])
def test_topology_errors_name_the_value(bad):
    with pytest.raises(ValueError, match="topology|has no|needs"):
        TopologySpec.parse(bad)


def test_component_label_and_json_round_trip():
    c = Component.from_json({"name": "GrayCode", "codes": 2})
    assert c.label == "GrayCode(codes=2)"
    assert Component.from_json(c.to_json()) == c
    assert Component.from_json("Buddy").label == "Buddy"


# -- TOML loading and its errors --------------------------------------------------------------------
def test_load_study_with_variants(tmp_path):
    path = write(tmp_path, """
        name = "v"
        topology = "cube:4"
        allocators = ["buddy"]
        policies = ["rsr-1", "limit-2"]
        loads = [0.3, 0.5]
        jobs = 100
        warmup = 10
        [workload]
        service = { name = "TruncatedNormal", mu = 5.0, sd = 2.0 }
        [[experiments]]
        name = "uniform"
        [[experiments]]
        name = "normal"
        workload = { sizes = { name = "CubeDims", max_dim = 3, probs = [0.1, 0.4, 0.4, 0.1] } }
        loads = [0.6]
        [[plots]]
        kind = "fairness"
        logy = true
    """)
    study = load_study(path)
    assert [e.name for e in study.experiments] == ["v/uniform", "v/normal"]
    uni, norm = study.experiments
    assert uni.policies == ("RSR-1", "Limit-2")  # canonical spelling of the registry
    assert [a.name for a in uni.allocators] == ["Buddy"]
    assert norm.loads == (0.6,) and uni.loads == (0.3, 0.5)
    assert norm.workload.service.name == "TruncatedNormal"  # inherited from the top level
    assert norm.workload.sizes.kwargs["probs"] == [0.1, 0.4, 0.4, 0.1]
    assert len(uni.points()) == 1 * 2 * 2 and len(norm.points()) == 2
    assert study.plots[0].kind == "fairness" and study.plots[0].logy


@pytest.mark.parametrize(
    "text, key, fragment",
    [
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\ncolour = 1', "colour",
         "allowed: name, description"),
        ('topology = "cube:4"\nallocators = ["Buddy", "Bogus"]\npolicies = ["FCFS"]\nloads = [0.5]',
         "allocators[1]", "choose from Buddy2D"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["RSR-1", "NOPE"]\nloads = [0.5]',
         "policies[1]", "unknown policy 'NOPE'"),
        ('topology = "cube:4"\nallocators = ["FirstFit"]\npolicies = ["FCFS"]\nloads = [0.5]', "allocators[0]",
         "for a cube choose from Buddy"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5, -1]', "loads", "> 0"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\njobs = 10\nwarmup = 10',
         "warmup", "smaller than jobs"),
        ('topology = "ring:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]', "topology",
         "mesh:WxH"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
         '[workload]\nservice = { name = "Exponential", mena = 5 }', "workload.service", "allowed: mean"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
         '[workload]\nsizes = "Gaussian"', "workload.sizes", "choose from MeshSides"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
         '[target]\nmetric = "speed"', "target.metric", "choose from mean_turnaround"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
         '[[plots]]\nkind = "pie"', "plots[0].kind", "choose from load, utilization, fairness"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\n', "loads", "missing"),
        ('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
         '[[experiments]]\nname = "x"\npolicies = ["Zap"]', "experiments[0].policies[0]", "unknown policy 'Zap'"),
    ],
)
def test_config_errors_name_file_key_and_choices(tmp_path, text, key, fragment):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ConfigError) as info:
        load_study(path)
    msg = str(info.value)
    assert "bad.toml" in msg and f"key '{key}'" in msg and fragment in msg, msg
    assert info.value.key == key


def test_invalid_toml_names_the_file(tmp_path):
    path = write(tmp_path, 'topology = "cube:4\n', "broken.toml")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_study(path)
    with pytest.raises(ConfigError, match="no such file"):
        load_study(tmp_path / "absent.toml")


# -- points and seeds -------------------------------------------------------------------------------
def test_auto_sizes_follow_seed002():
    mesh = TopologySpec.parse("mesh:32x32")
    auto = WorkloadSpec()
    assert auto.resolve(mesh, "Buddy2D").sizes == Component.of("Squares", max_side=32)
    assert auto.resolve(mesh, "FirstFit").sizes == Component.of("MeshSides", max_w=32, max_h=32)
    assert auto.resolve(TopologySpec.parse("cube:8"), "Buddy").sizes == Component.of("CubeDims", max_dim=7)
    assert auto.resolve(TopologySpec.parse("flat:64"), "FlatPool").sizes.kwargs == {"low": 1, "high": 64}


def test_seeds_depend_on_stream_not_on_allocator_policy_or_order():
    study = study_from_dict({**TINY, "topology": "mesh:8x8", "allocators": ["FirstFit", "BestFit"]})
    pts = study.points()
    by = {(p.allocator.name, p.policy, p.load): p for p in pts}
    # common random numbers: same jobs for every allocator and policy at a load and replication
    assert by[("FirstFit", "RSR-0", 0.4)].sim_seed(0) == by[("BestFit", "RSR-1", 0.4)].sim_seed(0)
    # independent streams across loads and replications
    seeds = {by[("FirstFit", "RSR-0", load)].sim_seed(r) for load in (0.4, 0.7) for r in range(3)}
    assert len(seeds) == 6
    # the same description built again (in another order) gives the same ids and seeds
    again = study_from_dict({**TINY, "topology": "mesh:8x8", "allocators": ["BestFit", "FirstFit"],
                             "loads": [0.7, 0.4]})
    assert {(p.point_id, p.sim_seed(1)) for p in again.points()} == {(p.point_id, p.sim_seed(1)) for p in pts}
    # a different experiment seed changes the streams
    other = study_from_dict({**TINY, "topology": "mesh:8x8", "allocators": ["FirstFit"], "seed": 8}).points()[0]
    assert other.sim_seed(0) != by[("FirstFit", "RSR-0", 0.4)].sim_seed(0)


def test_run_task_is_the_simulation_with_the_derived_seed():
    study = study_from_dict(TINY)
    point = study.points()[1]
    task = point.task(1)
    row, again = run_task(task), run_task(task)
    assert {k: v for k, v in row.items() if k not in ("wall_time", "finished_at")} == \
        {k: v for k, v in again.items() if k not in ("wall_time", "finished_at")}
    topo = TopologySpec.parse("cube:5")
    wl = WorkloadSpec().resolve(topo, "Buddy").build(point.load, 32)
    direct = simulate(registry.make_allocator("Buddy", topo.build()), point.policy, wl, jobs=150, warmup=15,
                      seed=task["sim_seed"]).summary()
    assert row["mean_turnaround"] == direct["mean_turnaround"]
    assert row["utilization"] == direct["utilization"] and row["kept"] == direct["jobs"]
    assert sum(row["fairness"]["count"]) == row["kept"]
    assert math.isclose(sum(row["fairness"]["sum"]) / row["kept"], row["mean_turnaround"])


def test_process_pool_gives_the_serial_results():
    study = study_from_dict(TINY)
    serial, pooled = ResultStore(), ResultStore()
    run_study(study, serial, LocalExecutor(1), progress=False)
    stats = run_study(study, pooled, LocalExecutor(2), progress=False)
    assert stats.ran == 8
    key = ("point_id", "replication", "sim_seed", "mean_turnaround", "utilization", "effectiveness", "fairness")

    def rows(s):
        return sorted(tuple(str(r[k]) for k in key) for r in s.rows())

    assert rows(serial) == rows(pooled)


# -- adaptive replications --------------------------------------------------------------------------
def test_replications_needed():
    t = Target("mean_turnaround", relative=0.05, min_runs=3, max_runs=10)
    assert replications_needed([], t) == 3
    assert replications_needed([10.0, 10.1, 9.9], t) == 3  # already within 5%
    wide = replications_needed([5.0, 15.0, 10.0], t)
    assert 4 <= wide <= 10
    assert replications_needed([5.0, 15.0, 10.0] + [10.0] * 7, t) == 10  # capped


def test_target_runs_rounds_until_met_or_capped():
    loose = study_from_dict({**{k: v for k, v in TINY.items() if k != "replications"}, "loads": [0.4],
                             "target": {"relative": 10.0, "min": 2, "max": 4}})
    store = ResultStore()
    stats = run_study(loose, store, LocalExecutor(1), progress=False)
    assert stats.ran == 2 * 2 and stats.rounds == 1
    tight = study_from_dict({**{k: v for k, v in TINY.items() if k != "replications"}, "loads": [0.7],
                             "target": {"relative": 1e-6, "min": 2, "max": 4}})
    store = ResultStore()
    stats = run_study(tight, store, LocalExecutor(1), progress=False)
    assert stats.ran == 2 * 4 and stats.rounds >= 2
    assert {s.n for s in aggregate(store.rows())} == {4}


# -- summaries --------------------------------------------------------------------------------------
def test_aggregate_is_the_confidence_interval_of_the_rows():
    study = study_from_dict(TINY)
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    summaries = aggregate(store.rows(), order=[p.point_id for p in study.points()])
    assert [(s.policy, s.load) for s in summaries] == [("RSR-0", 0.4), ("RSR-0", 0.7), ("RSR-1", 0.4), ("RSR-1", 0.7)]
    s = summaries[1]
    vals = [r["mean_turnaround"] for r in store.rows() if r["point_id"] == s.point_id]
    assert s["mean_turnaround"] == confidence_interval(vals, "positive") and s.n == 2
    table = format_table(summaries)
    lines = table.splitlines()
    assert "mean turnaround" in lines[0] and "S_e" in lines[0] and lines[2 + 4] == ""
    # two replications: no interval (t = 12.7), and the table says why
    assert all("±" not in line and "[" not in line for line in lines[2:6])
    assert "no interval where n < 3" in lines[7]
    three = aggregate(store.rows() + [{**r, "replication": 2} for r in store.rows()[::2]],
                      order=[p.point_id for p in study.points()])
    assert all("±" in line or "[" in line for line in format_table(three, notes=False).splitlines()[2:])


def test_fairness_curves_bin_mesh_sizes_and_keep_cube_sizes():
    cube = study_from_dict({**TINY, "loads": [0.7]})
    store = ResultStore()
    run_study(cube, store, LocalExecutor(1), progress=False)
    curves = fairness_curves(store.rows(), load=0.7)
    assert len(curves) == 2 and not curves[0].binned
    assert set(curves[0].size.tolist()) <= {1, 2, 4, 8, 16}
    mesh = study_from_dict({**TINY, "topology": "mesh:16x16", "allocators": ["FirstFit"], "policies": ["FCFS"],
                            "loads": [0.3]})
    store = ResultStore()
    run_study(mesh, store, LocalExecutor(1), progress=False)
    (curve,) = fairness_curves(store.rows())
    assert curve.binned and all(math.log2(s).is_integer() for s in curve.size)
    assert curve.jobs.sum() == sum(r["kept"] for r in store.rows())


# -- the allocator registry and the compare default -------------------------------------------------
def test_registry_names_aliases_and_allocators_that_cannot_run(monkeypatch):
    import topoalloc
    from topoalloc import registry as allocators

    assert registry.canonical_allocator("first_fit") == "FirstFit"
    assert registry.canonical_allocator("tdb") == "Buddy2D"
    with pytest.raises(registry.UnknownAllocatorError, match="known: Buddy2D"):
        registry.canonical_allocator("Nope")
    assert registry.UnknownAllocatorError is topoalloc.UnknownAllocatorError  # one registry
    monkeypatch.setattr(allocators, "_ALLOCATORS", dict(allocators._ALLOCATORS))

    def phantom(topology):
        raise topoalloc.UnsupportedTopologyError(f"Phantom cannot manage {topology!r}")

    registry.register_allocator("Phantom", "cube", factory=phantom, help="not written yet")
    assert registry.allocator_kind("phantom") == "cube" and "Phantom" in topoalloc.names("cube")
    # the compare default leaves an allocator that cannot run out and says why, instead of crashing
    monkeypatch.setitem(compare_defaults.COMPARE_ALLOCATORS, "cube", ("Buddy", "Phantom"))
    study, skipped = compare_study(topologies=["cube:4"], loads=[0.5], replications=2, jobs=50, warmup=5)
    assert [a.name for a in study.experiments[0].allocators] == ["Buddy"]
    assert "Phantom" in skipped and "cannot manage" in skipped["Phantom"]
    with pytest.raises(ConfigError, match="Phantom"):
        compare_study(allocators=["Phantom"])


def test_compare_default_has_every_available_allocator():
    study, skipped = compare_study()
    got = {e.topology.label: [a.name for a in e.allocators] for e in study.experiments}
    for kind, label in (("mesh", "mesh:32x32"), ("cube", "cube:8")):
        expected = [a for a in compare_defaults.COMPARE_ALLOCATORS[kind] if a not in skipped]
        assert got.get(label, []) == expected
    assert set(compare_defaults.COMPARE_ALLOCATORS["mesh"]) == {"Buddy2D", "FrameSliding", "FirstFit", "BestFit"}
    assert set(compare_defaults.COMPARE_ALLOCATORS["cube"]) == {"Buddy", "GrayCode", "FreeList"}
    assert all(e.policies == ("RSR-0", "RSR-1") for e in study.experiments)
    # Buddy2D cannot run on a mesh that is not a power-of-two square: left out with the reason
    study, skipped = compare_study(topologies=["mesh:12x10"], loads=[0.3])
    assert "Buddy2D" in skipped and "power-of-two" in skipped["Buddy2D"]
    with pytest.raises(ConfigError, match="Buddy2D"):
        compare_study(topologies=["mesh:12x10"], allocators=["Buddy2D"])


def test_variant_replication_rule_replaces_the_top_level():
    study = study_from_dict({"topology": "cube:4", "allocators": ["Buddy"], "policies": ["FCFS"], "loads": [0.5],
                             "target": {"relative": 0.1, "min": 2, "max": 5},
                             "experiments": [{"name": "a"}, {"name": "b", "replications": 4}]})
    a, b = study.experiments
    assert a.target == Target("mean_turnaround", 0.1, 2, 5)
    assert b.target is None and b.replications == 4


# -- recorded traces as a workload model (seed 004) -------------------------------------------------
_SWF = """\
; UnixStartTime: 0
; TimeZoneString: UTC
; MaxProcs: 16
1 0 0 100 4 90 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 50 0 200 8 -1 -1 8 300 -1 1 1 1 1 1 1 -1 -1
3 60 0 150 16 10 -1 16 300 -1 1 1 1 1 1 1 -1 -1
4 70 0 80 1 5 -1 1 100 -1 1 1 1 1 1 1 -1 -1
5 2678400 0 300 2 250 -1 2 400 -1 1 1 1 1 1 1 -1 -1
6 2678500 0 400 32 350 -1 32 500 -1 1 1 1 1 1 1 -1 -1
7 2678600 0 500 3 0 -1 3 600 -1 1 1 1 1 1 1 -1 -1
8 2678700 0 600 5 400 -1 5 700 -1 1 1 1 1 1 1 -1 -1
"""


@pytest.fixture
def tiny_trace(tmp_path, monkeypatch):
    d = tmp_path / "traces"
    d.mkdir()
    (d / "tiny.swf").write_text(_SWF)
    monkeypatch.setenv("TOPOALLOC_TRACES", str(d))
    return d / "tiny.swf"


def _trace_study(**model):
    return study_from_dict({"topology": "flat:16", "allocators": ["FlatPool"], "policies": ["FCFS", "EASY"],
                            "workload": {"model": {"name": "Trace", "file": "tiny", **model}}})


def test_trace_model_runs_the_recorded_jobs_like_a_direct_simulation(tiny_trace):
    from scheduling.workloads import load_swf
    from topoalloc import FlatPool
    from topologies import Flat

    study = _trace_study()
    (exp,) = study.experiments
    assert exp.loads == (None,) and exp.replications == 1 and exp.jobs is None and exp.warmup == 0
    p_fcfs, p_easy = study.points()
    assert p_fcfs.load is None and p_fcfs.workload == {"model": {"name": "Trace", "file": "tiny"}}
    assert "tiny.swf" not in str(p_fcfs.config())  # a name, never a path
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    rows = {r["policy"]: r for r in store.rows()}
    jobs = list(load_swf(tiny_trace, machine_size=16))  # job 6 (32 processors) is skipped
    assert len(jobs) == 7
    for name, row in rows.items():
        direct = simulate(FlatPool(Flat(16)), name, jobs, jobs=None).summary()
        assert row["kept"] == 7 and row["mean_turnaround"] == pytest.approx(direct["mean_turnaround"], rel=1e-12)
    assert "trace" in format_table(aggregate(store.rows()))  # load column of a recorded rate


def test_trace_model_filters_month_cpu_and_limit(tiny_trace):
    def ids(**model):
        params = {"file": "tiny", **model}
        return [j.id for j in registry.make_workload("Trace", params, load=None, machine_size=16).jobs()]

    assert ids() == [1, 2, 3, 4, 5, 7, 8]
    assert ids(month="1970-01") == [1, 2, 3, 4] and ids(month="1970-02") == [5, 7, 8]
    assert ids(window=[60, 2678500]) == [3, 4, 5]
    assert ids(nonzero_cpu=True) == [1, 3, 4, 5, 8]  # -1 (unknown) and 0 dropped
    assert ids(nonzero_cpu=True, limit=3) == [1, 3, 4]  # the limit counts kept jobs
    assert ids(too_large="clamp") == [1, 2, 3, 4, 5, 6, 7, 8]
    with pytest.raises(ValueError, match="no job left"):
        ids(window=[100, 200])


def test_trace_model_scales_arrivals_to_offered_loads(tiny_trace):
    from scheduling.formats.swf_load import offered_load

    study = _trace_study(month="1970-01")
    scaled = dataclasses.replace(study.experiments[0], loads=(None, 0.5, 2.0))
    pts = [p for p in scaled.points() if p.policy == "FCFS"]
    assert [p.load for p in pts] == [None, 0.5, 2.0] and len({p.point_id for p in pts}) == 3
    w = registry.make_workload("Trace", {"file": "tiny", "month": "1970-01"}, load=None, machine_size=16)
    recorded = w.jobs()
    for load in (0.5, 2.0):
        jobs = registry.make_workload("Trace", {"file": "tiny", "month": "1970-01"}, load=load,
                                      machine_size=16).jobs()
        assert offered_load(jobs, 16) == pytest.approx(load)
        assert [j.arrival for j in jobs][0] == recorded[0].arrival
        assert [(j.id, j.runtime) for j in jobs] == [(j.id, j.runtime) for j in recorded]
    text = 'topology = "flat:16"\nallocators = ["FlatPool"]\npolicies = ["FCFS"]\nloads = ["recorded", 0.5]\n' \
           '[workload]\nmodel = { name = "Trace", file = "tiny" }\n'
    assert study_from_dict(__import__("tomllib").loads(text)).experiments[0].loads == (None, 0.5)


def test_class_rows_pool_replications_from_the_stored_sums():
    from scheduling.experiments import class_rows

    row = {"fairness": {"size": [1, 2, 5], "count": [2, 1, 1], "sum": [30.0, 10.0, 50.0],
                        "service": [20.0, 5.0, 10.0], "queueing": [4.0, 1.0, 0.0]}}
    (c0, c1, c2, c3) = class_rows([row, row])
    assert (c0.jobs, c0.response, c0.service, c0.queueing, c0.sharing, c0.waiting) == (4, 15.0, 10.0, 2.0, 3.0, 5.0)
    assert (c1.jobs, c1.normalized) == (2, 2.0) and c2.jobs == 0 and math.isnan(c2.response)
    assert (c3.jobs, c3.normalized, c3.queueing, c3.execution) == (2, 5.0, 0.0, 50.0)
    assert len(class_rows([row], classes=6)) == 6
    with pytest.raises(ValueError, match="without the per-size service and queueing sums"):
        class_rows([{"point_id": "x", "replication": 0, "fairness": {"size": [1], "count": [1], "sum": [2.0]}}])


def test_make_policy_refuses_a_rebuild_that_loses_a_setting(monkeypatch):
    class Lossy:
        def __init__(self, a: float = 1.0, secret: bool = False) -> None:
            self.a = a
            self.name = "Lossy-secret" if secret else "Lossy"

    monkeypatch.setattr(registry._policies, "get", lambda name: Lossy(secret=True))
    assert registry.policy_parameters("Lossy") == {"a": 1.0}
    with pytest.raises(registry.PolicyParameterError, match="cannot be rebuilt.*'Lossy'"):
        registry.make_policy("Lossy", {"a": 2.0})


def test_gang_policies_keep_assignment_and_quanta_under_new_parameters():
    pol = registry.make_policy("Gang-Vanilla-Rho", {"cycle": 3000.0, "switch_cost": 16.0})
    assert (pol.name, pol.quanta_mode, pol.switch_cost) == ("Gang-Vanilla-Rho-T-3000", "rho", 16.0)
    pol = registry.make_policy("Gang-Migrate-Root", {"assignment": "weight", "cycle": 300})
    assert (pol.name, pol._assignment) == ("Gang-Migrate-Root-Weight-T-300", "weight")


# -- worker processes die with the command ----------------------------------------------------------
def _children(pid):
    out = []
    for stat in __import__("glob").glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.split("/")[2]))
    return out


def _alive(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (only its exit status is left)


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="reads /proc (Linux)")
def test_workers_exit_when_the_command_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    # slow simulations (free-list allocation on a 10-cube) so the workers are busy when the command dies
    cmd = [sys.executable, "-m", "scheduling.cli", "compare", "--topology", "cube:10", "--allocators", "FreeList",
           "--loads", "0.5", "--replications", "4", "--jobs", "100000", "--workers", "2", "--no-progress",
           "--store", str(tmp_path / "k.sqlite")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) >= 2, "the command did not start its workers"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "workers outlived the killed command"
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:  # whatever the outcome, leave nothing running
            if _alive(w):
                os.kill(w, signal.SIGKILL)


def test_a_trace_runs_once_whatever_the_replications_and_says_why(tiny_trace, capsys):
    from scheduling.cli._common import sizes_line

    study = study_from_dict({"topology": "flat:16", "allocators": ["FlatPool"], "policies": ["FCFS"],
                             "replications": 3, "workload": {"model": {"name": "Trace", "file": "tiny"}}})
    for s in (study, study.with_overrides(replications=5)):
        store = ResultStore()
        assert run_study(s, store, LocalExecutor(1), progress=False).ran == 1  # replays are identical
        (summary,) = aggregate(store.rows())
        assert summary.n == 1 and math.isnan(summary["mean_turnaround"].half_width)
    assert "one run per point (a recorded trace replays identically" in sizes_line(study)


# -- offered load: requested and granted processors (seed 002 §4.1, the 2D buddy) -------------------
def test_buddy2d_is_offered_its_granted_squares_and_the_tables_say_so():
    from scheduling.experiments.report import format_table

    base = {"topology": "mesh:32x32", "allocators": ["Buddy2D", "FirstFit"], "policies": ["RSR-1"], "loads": [0.2],
            "jobs": 4000, "warmup": 400, "replications": 1, "seed": 5}
    squares = {"sizes": {"name": "Squares", "max_side": 32}}
    req = study_from_dict({**base, "workload": squares})
    granted = study_from_dict({**base, "workload": {**squares, "load_basis": "granted"}})
    rows = {}
    for name, study in (("requested", req), ("granted", granted)):
        store = ResultStore()
        run_study(study, store, LocalExecutor(1), progress=False)
        rows[name] = {r["allocator"]: r for r in store.rows()}
    b_req, b_gr = rows["requested"]["Buddy2D"], rows["granted"]["Buddy2D"]
    # mean square 357.5 requested, 585.2 granted: the nominal load offers the buddy 1.64x in occupied processors
    assert b_req["offered_requested"] == 0.2 and b_req["offered_granted"] == pytest.approx(0.2 * 585.15625 / 357.5)
    assert b_req["utilization"] == pytest.approx(b_req["offered_granted"], abs=0.03)
    # read as seed 002 §4.1 does ("load approximately equals utilisation before saturation"): the granted mean
    assert b_gr["offered_granted"] == 0.2 and b_gr["utilization"] == pytest.approx(0.2, abs=0.03)
    # first fit grants the request: both bases offer it the same load
    ff_req, ff_gr = rows["requested"]["FirstFit"], rows["granted"]["FirstFit"]
    assert ff_req["offered_granted"] == ff_gr["offered_granted"] == ff_gr["offered_requested"] == 0.2
    store = ResultStore()
    run_study(req, store, LocalExecutor(1), progress=False)
    table = format_table(aggregate(store.rows()))
    assert "granted load" in table.splitlines()[0] and "0.327" in table and "granted load: the work" in table
    with pytest.raises(ConfigError, match="load_basis"):
        study_from_dict({**base, "workload": {"load_basis": "occupied"}})


def test_compare_runs_every_mesh_allocator_on_one_job_stream():
    study, _ = compare_study(topologies=["mesh:32x32"], loads=[0.2], replications=2, jobs=200, warmup=20)
    (exp,) = study.experiments
    points = exp.points()
    assert len({canonical(p.workload) for p in points}) == 1  # Buddy2D too: the same rectangles
    assert len({p.sim_seed(0) for p in points}) == 1  # and the same seeds: common random numbers


def canonical(obj):
    from scheduling.experiments.schema import canonical_json

    return canonical_json(obj)


# -- saturation -------------------------------------------------------------------------------------
def test_saturated_points_are_flagged_in_rows_and_tables():
    study = study_from_dict({"topology": "cube:8", "allocators": ["Buddy"], "policies": ["RSR-0", "RSR-1"],
                             "loads": [0.5, 1.0], "jobs": 3000, "warmup": 300, "replications": 3, "seed": 2})
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    summaries = {(s.policy, s.load): s for s in aggregate(store.rows())}
    assert summaries[("RSR-0", 1.0)].saturated and summaries[("RSR-1", 1.0)].saturated
    assert not summaries[("RSR-0", 0.5)].saturated_runs and not summaries[("RSR-1", 0.5)].saturated_runs
    lines = format_table(list(summaries.values())).splitlines()
    sat = [line for line in lines if "  1  " in line]
    assert len(sat) == 2 and all(" yes " in line and " sat " in line for line in sat)
    assert any(line.startswith("sat: saturated") for line in lines)


def test_saturation_loads_bracket_the_papers_headline():
    """Seed 002 §4.2: on the 8-cube with buddy, RSR-0 saturates near 0.67 utilisation while RSR-1
    carries loads past 0.8 (issue 12's long runs: 0.838)."""
    from scheduling.experiments.saturation import format_saturation, saturation_loads

    study = study_from_dict({"topology": "cube:8", "allocators": ["Buddy"], "policies": ["RSR-0", "RSR-1"],
                             "loads": [0.6], "jobs": 6000, "warmup": 500, "replications": 2, "seed": 2})
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    found = {s.policy: s for s in saturation_loads(study, store, LocalExecutor(1), tolerance=0.04, jobs=6000)}
    r0, r1 = found["RSR-0"], found["RSR-1"]
    assert 0.6 <= r0.stable < r0.saturated <= 0.75 and r0.capacity == pytest.approx(0.67, abs=0.03)
    assert 0.8 <= r1.stable < r1.saturated <= 0.92 and r1.capacity > 0.8
    assert r0.saturated - r0.stable <= 0.04 and r1.saturated - r1.stable <= 0.04
    again = saturation_loads(study, store, LocalExecutor(1), tolerance=0.04, jobs=6000)  # stored probes are reused
    assert [(s.stable, s.saturated) for s in again] == [(r0.stable, r0.saturated), (r1.stable, r1.saturated)]
    assert "RSR-1" in format_saturation(again)


def test_a_trace_is_not_judged_saturated_and_its_table_says_why_there_is_no_interval(tiny_trace):
    store = ResultStore()
    run_study(_trace_study(), store, LocalExecutor(1), progress=False)
    assert all(math.isnan(r["saturated"]) for r in store.rows())  # a log's bursts are not a saturation
    table = format_table(aggregate(store.rows()))
    assert "trace: one run per point, no interval" in table and "n < 3" not in table


def test_the_default_compare_says_how_its_numbers_are_obtained():
    from scheduling.cli._common import sizes_line

    study, _ = compare_study()
    for exp in study.experiments:
        assert exp.jobs == 5000 and exp.warmup == 500 and exp.replication_rule == compare_defaults.COMPARE_TARGET
        assert exp.replication_rule.relative == 0.05 and exp.replication_rule.min_runs >= 3
    line = sizes_line(study)
    assert "5000 jobs per run (first 500 discarded)" in line and "within ±5% of its mean (3 to 10" in line
    fixed, _ = compare_study(replications=4, jobs=800)
    assert {e.replication_rule for e in fixed.experiments} == {4} and {e.warmup for e in fixed.experiments} == {80}


def test_unique_inverse_is_numpys():
    import numpy as np

    from scheduling.experiments.runner import _unique_inverse

    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 1000):
        for high in (1, 3, 300):
            values = rng.integers(1, high + 1, n)
            sizes, inverse = np.unique(values, return_inverse=True)
            got_sizes, got_inverse = _unique_inverse(values)
            assert np.array_equal(got_sizes, sizes) and np.array_equal(got_inverse, inverse)

"""Every examples/*.toml loads and runs through the experiments machinery; the configuration keys the
seed 000, 001, 003 and 004 examples need (workload models incl. recorded traces, policy parameters,
the printed table, extra metrics) behave and report errors with the file, the key and the allowed
choices."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import sqlite3
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest

from scheduling import simulate
from scheduling.experiments import (
    Component,
    ConfigError,
    LocalExecutor,
    ResultStore,
    Study,
    aggregate,
    load_study,
    registry,
    run_study,
    run_task,
    study_from_dict,
)
from scheduling.experiments.schema import METRICS
from scheduling.metrics.downey import simulate_days, summarize_days
from scheduling.workloads import TraceNotFoundError, trace_path
from scheduling.workloads.ismail import ismail_workload
from topoalloc import FlatPool
from topologies import Flat

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
TOMLS = sorted(EXAMPLES.glob("*.toml"))
SCRIPTS = {  # the example scripts that wrap TOML files, and the files each must run
    "rsr_mesh.py": ["seed002_fig1_mesh_rsr.toml", "seed002_fig3_frame_vs_firstfit.toml"],
    "ismail_static.py": ["seed000_fig2_9_static_nofold.toml", "seed000_fig3_3_adaptive.toml",
                         "seed000_fig3_6_limited.toml"],
    "ismail_dynamic.py": ["seed000_fig4_4_dynamic_misp.toml", "seed000_fig4_2_dynamic_linear.toml"],
    "downey_table1.py": ["seed001_table1.toml"],
    "nguyen_efficiency.py": ["seed003_fig6_batch.toml"],
    "gang_ctc.py": ["seed004_fig3_gang_ctc.toml"],
}


def tiny(study: Study) -> Study:
    """``study`` at a size that proves it runs: its highest load, one replication, 60 jobs (or one
    day of Downey's model, or the first 60 jobs of a trace)."""
    exps = []
    for e in study.experiments:
        w = e.workload
        if w.model is not None and w.episodes > 1:
            w = dataclasses.replace(w, model=Component.of(w.model.name, **{**w.model.kwargs, "days": 1}))
        if w.trace:
            w = dataclasses.replace(w, model=Component.of(w.model.name, **{**w.model.kwargs, "limit": 60}))
        exps.append(dataclasses.replace(e, loads=e.loads[-1:], replications=1, target=None, workload=w,
                                        jobs=None if e.jobs is None else 60, warmup=0 if e.jobs is None else 6))
    return dataclasses.replace(study, experiments=tuple(exps))


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def skip_without_traces(path: Path) -> None:
    """Skip when an example file replays a trace that is not in the traces directory."""
    data = tomllib.loads(path.read_text())
    for table in [data, *data.get("experiments", [])]:
        model = (table.get("workload") or {}).get("model")
        if isinstance(model, dict) and str(model.get("name", "")).lower() == "trace":
            try:
                trace_path(model["file"])
            except TraceNotFoundError as exc:
                pytest.skip(f"{path.name} replays a trace that is not available (set TOPOALLOC_TRACES): {exc}")


# -- every example file -----------------------------------------------------------------------------
def test_examples_exist_for_every_seed():
    names = {p.name.split("_")[0] for p in TOMLS}
    assert {"seed000", "seed001", "seed002", "seed003", "seed004"} <= names
    for script, files in SCRIPTS.items():
        text = (EXAMPLES / script).read_text()
        for f in files:
            assert (EXAMPLES / f).is_file(), f
            assert f in text, f"{script} does not run {f}"
        assert "scheduling.cli" in text or "from scheduling.cli import" in text


@pytest.mark.parametrize("path", TOMLS, ids=lambda p: p.stem)
def test_example_loads_and_runs_tiny(path):
    skip_without_traces(path)
    study = load_study(path)  # validates every name, key and value
    assert study.description and all(e.policies and e.loads for e in study.experiments)
    small = tiny(study)
    store = ResultStore()
    stats = run_study(small, store, LocalExecutor(1), progress=False)
    points = small.points()
    assert stats.ran == len(points) and len(store) == len(points)
    rows = store.rows()
    assert {r["point_id"] for r in rows} == {p.point_id for p in points}
    for r in rows:
        assert r["kept"] > 0 and math.isfinite(r["mean_turnaround"]) and r["mean_turnaround"] > 0, r["policy"]
        assert 0 < r["utilization"] <= 1 + 1e-9
        if r["policy"].split("(")[0] in ("DEQP", "DPROP", "DFCFS", "DSMJF", "EQUI", "OPT-EFF", "EQUAL-EFF"):
            assert 0 < r["system_efficiency"] <= r["utilization"] + 1e-9  # speedup(m) <= m
        if "model" in r["workload"] and r["workload"]["model"]["name"] == "Downey":
            assert 0 < r["system_efficiency"] <= r["load_average"] <= 1 + 1e-9
    # the metrics the file prints are known to the summaries
    if study.table:
        summaries = aggregate(rows)
        assert all(m in summaries[0].estimates for m in study.table)


def test_example_figures_render_new_metrics(tmp_path):
    pytest.importorskip("matplotlib")
    from scheduling.plots import study_figures

    study = tiny(load_study(EXAMPLES / "seed000_fig4_2_dynamic_linear.toml"))
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    paths = study_figures(store, tmp_path, study=study.name)
    assert sorted(p.name for p in paths) == ["seed000-fig4_2.png", "seed000-table4_3.png"]
    assert all(p.stat().st_size > 1000 for p in paths)


# -- workload models --------------------------------------------------------------------------------
BASE = {"topology": "flat:64", "allocators": ["FlatPool"], "loads": [0.6], "jobs": 300, "warmup": 30,
        "replications": 1, "seed": 3}


def test_ismail_model_is_the_thesis_workload_with_the_derived_seed():
    study = study_from_dict({**BASE, "policies": ["FF"],
                             "workload": {"model": {"name": "ismail", "sizes": "exponential"}}})
    (point,) = study.points()
    assert point.workload == {"model": {"name": "Ismail", "sizes": "exponential"}}
    task = point.task(0)
    row = run_task(task)
    direct = simulate(FlatPool(Flat(64)), "FF", ismail_workload(P=64, sizes="exponential", load=0.6), jobs=300,
                      warmup=30, seed=task["sim_seed"]).summary()
    assert row["mean_turnaround"] == direct["mean_turnaround"] and row["kept"] == direct["jobs"]
    assert math.isnan(row["system_efficiency"])  # a static policy does not track useful work


@pytest.mark.parametrize("days", [1, 3])
def test_downey_model_pools_separate_days_like_downey_metrics(days):
    study = study_from_dict({**{k: v for k, v in BASE.items() if k not in ("jobs", "warmup")}, "loads": [0.75],
                             "policies": ["SEV"], "workload": {"model": {"name": "Downey", "days": days}}})
    (exp,) = study.experiments
    assert exp.jobs is None and exp.warmup == 0  # a finite workload runs out by default
    task = study.points()[0].task(0)
    row = run_task(task)
    ref = summarize_days(simulate_days("SEV", N=64, load=0.75, days=days, seed=task["sim_seed"]))
    assert row["kept"] == ref["jobs"]
    for metric, key in (("load_average", "load_average"), ("system_efficiency", "utilization"),
                        ("mean_turnaround", "mean_turnaround"), ("mean_wait", "mean_queue_time"),
                        ("mean_cluster_size", "mean_cluster_size"), ("cv_cluster_size", "cv_cluster_size"),
                        ("p90_slowdown", "p90_slowdown")):
        assert row[metric] == pytest.approx(ref[key], rel=1e-9), metric


def test_policy_parameters_reach_the_simulation_and_label_the_rows():
    study = study_from_dict({**BASE, "loads": [0.8], "replications": 2,
                             "policies": ["DEQP", {"name": "deqp", "overhead": 5.0}],
                             "workload": {"model": {"name": "IsmailDynamic", "execution": "short"}}})
    plain, costly = study.experiments[0].policies
    assert plain == "DEQP" and costly == Component.of("DEQP", overhead=5.0)
    p0, p1 = study.points()
    assert "policy_params" not in p0.config() and p1.config()["policy_params"] == {"overhead": 5.0}
    assert p0.sim_seed(1) == p1.sim_seed(1)  # the same jobs: common random numbers across parameters
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    by = {s.policy: s for s in aggregate(store.rows())}
    assert set(by) == {"DEQP", "DEQP(overhead=5.0)"}
    # every reconfiguration costs 5 time units on jobs of 1..10: response times grow
    assert by["DEQP(overhead=5.0)"]["mean_turnaround"].mean > 1.2 * by["DEQP"]["mean_turnaround"].mean
    assert by["DEQP"]["mean_changes"].mean > 0


def test_system_efficiency_is_the_policys_own_measure():
    study = study_from_dict({**BASE, "policies": ["EQUAL-EFF"], "workload": {"model": {"name": "Applications"}}})
    task = study.points()[0].task(0)
    row = run_task(task)
    pol = registry.make_policy("EQUAL-EFF")
    work = registry.make_workload("Applications", {}, load=0.6, machine_size=64)
    res = simulate(FlatPool(Flat(64)), pol, work, jobs=300, warmup=30, seed=task["sim_seed"])
    assert row["system_efficiency"] == pytest.approx(pol.system_efficiency(res.window), rel=1e-12)
    assert row["mean_changes"] == pytest.approx(float(res.table["changes"].mean()))
    assert row["mean_moved"] == pytest.approx(float(res.table["moved"].mean()))
    granted = res.table["granted"].astype(float)
    assert row["cv_cluster_size"] == pytest.approx(granted.std() / granted.mean())


def test_batch_mix_example_reproduces_equal_eff_close_to_opt_eff():
    """Seed 003 §5.2-5.3 on the example file as written (one deterministic run per point, < 1 s):
    EQUAL-EFF within 10% of OPT-EFF's system efficiency on every mix, EQUI below EQUAL-EFF on some."""
    study = load_study(EXAMPLES / "seed003_fig6_batch.toml")
    store = ResultStore()
    run_study(study, store, LocalExecutor(1), progress=False)
    eff: dict[str, dict[str, float]] = {}
    for s in aggregate(store.rows()):
        eff.setdefault(s.experiment, {})[s.policy] = s["system_efficiency"].mean
    assert len(eff) == len(study.experiments)
    for mix, row in eff.items():
        assert 0.9 * row["OPT-EFF"] <= row["EQUAL-EFF"] <= row["OPT-EFF"] * (1 + 1e-9), mix
    assert any(row["EQUI"] < 0.95 * row["EQUAL-EFF"] for row in eff.values())


def test_make_policy_rebuilds_with_validated_parameters():
    assert registry.policy_parameters("DPROP-SM/2") == {"x": 2.0, "overhead": 0.0}
    p = registry.make_policy("DPROP-SM/2", {"overhead": 1.5})
    assert (p.name, p.x, p.overhead) == ("DPROP-SM/2", 2.0, 1.5)
    assert registry.make_policy("SEV", {"c": 0.5}).name == "SEV-hybrid/0.5"
    with pytest.raises(registry.PolicyParameterError, match="no parameter 'C'; allowed: overhead"):
        registry.make_policy("DEQP", {"C": 1.0})
    with pytest.raises(ValueError, match="overhead C"):
        registry.make_policy("DEQP", {"overhead": -1.0})


# -- errors name the file, the key and the choices --------------------------------------------------
HEAD = 'topology = "flat:64"\nallocators = ["FlatPool"]\nloads = [0.5]\n'


@pytest.mark.parametrize(
    "text, key, fragment",
    [
        (HEAD + 'policies = ["FF"]\n[workload]\nmodel = { name = "Feitelson" }', "workload.model.name",
         "choose from Ismail, IsmailDynamic, Applications, BatchMix, Downey"),
        (HEAD + 'policies = ["FF"]\n[workload]\nmodel = { name = "Ismail", sizes = "normal" }',
         "workload.model.sizes", "must be one of uniform, exponential"),
        (HEAD + 'policies = ["FF"]\n[workload]\nmodel = { name = "Ismail", colour = 1 }', "workload.model.colour",
         "allowed: sizes, runtimes, speedup"),
        (HEAD + 'policies = ["DEQP"]\n[workload]\nmodel = { name = "IsmailDynamic", execution = "long" }',
         "workload.model.execution", "uniform, exponential, short, applications"),
        (HEAD + 'policies = ["SEV"]\n[workload]\nmodel = { name = "Downey", days = 0 }', "workload.model.days",
         "positive integer"),
        ('topology = "flat:16"\nallocators = ["FlatPool"]\nloads = [1]\npolicies = ["EQUI"]\n'
         '[workload]\nmodel = { name = "BatchMix", numbers = [1, 11] }', "workload.model.numbers",
         "[11] request more than the machine's 16"),
        (HEAD + 'policies = ["FF"]\n[workload]\nmodel = "Ismail"\nsizes = "CubeDims"', "workload.model",
         "not both"),
        ('topology = "mesh:8x8"\nallocators = ["FirstFit"]\nloads = [0.5]\npolicies = ["FCFS"]\n'
         '[workload]\nmodel = "Ismail"', "workload.model", "flat topology, not mesh:8x8"),
        (HEAD + 'policies = [{ name = "DEQP", C = 1.0 }]', "policies[0].C", "allowed: overhead"),
        (HEAD + 'policies = ["FF", { name = "DEQP", overhead = -2 }]', "policies[1]", "overhead C must be"),
        (HEAD + 'policies = [{ name = "DEQQ", overhead = 1 }]', "policies[0].name", "did you mean DEQP?"),
        (HEAD + 'policies = [{ overhead = 1 }]', "policies[0]", "needs a string 'name'"),
        (HEAD + 'policies = ["DEQP", { name = "deqp" }]', "policies", "listed twice"),
        (HEAD + 'policies = ["FF"]\ntable = ["mean_turnaround", "speed"]', "table[1]",
         "choose from mean_turnaround"),
        (HEAD + 'policies = ["FF"]\njobs = "all"', "jobs", "finite workload"),
        (HEAD + 'policies = ["FF"]\n[[plots]]\nmetric = "changes"', "plots[0].metric", "mean_changes"),
    ],
)
def test_new_keys_report_file_key_and_choices(tmp_path, text, key, fragment):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ConfigError) as info:
        load_study(path)
    msg = str(info.value)
    assert "bad.toml" in msg and f"key '{key}'" in msg and fragment in msg, msg
    assert info.value.key == key


def test_variant_overrides_the_model_and_policies():
    path_text = HEAD + textwrap.dedent("""\
        policies = ["DEQP"]
        table = ["mean_turnaround", "mean_changes"]
        [workload]
        model = { name = "IsmailDynamic", execution = "uniform" }
        [[experiments]]
        name = "a"
        [[experiments]]
        name = "b"
        policies = [{ name = "DEQP", overhead = 1 }, "MFFF"]
        workload = { model = { name = "IsmailDynamic", execution = "exponential" } }
    """)
    study = study_from_dict(__import__("tomllib").loads(path_text))
    a, b = study.experiments
    assert a.workload.model.kwargs == {"execution": "uniform"} and b.workload.model.kwargs == {"execution":
                                                                                               "exponential"}
    assert b.policies == (Component.of("DEQP", overhead=1), "MFFF")
    assert study.table == ("mean_turnaround", "mean_changes")
    assert [p.policy_label for p in b.points()] == ["DEQP(overhead=1)", "MFFF"]


# -- stores written before the new metrics ----------------------------------------------------------
def test_old_store_gains_the_new_metric_columns(tmp_path):
    path = tmp_path / "old.sqlite"
    with ResultStore(path) as store:
        study = study_from_dict({**BASE, "policies": ["FF"], "workload": {"model": {"name": "Ismail"}}})
        run_study(study, store, LocalExecutor(1), progress=False)
    con = sqlite3.connect(path)  # make it look like a file of the previous version
    con.execute("ALTER TABLE results DROP COLUMN mean_changes")
    con.execute("ALTER TABLE results DROP COLUMN load_average")
    con.commit()
    con.close()
    with ResultStore(path) as store:
        (row,) = store.rows()
        assert math.isnan(row["mean_changes"]) and math.isnan(row["load_average"])
        assert math.isfinite(row["mean_turnaround"])
        again = run_study(study, store, LocalExecutor(1), progress=False)
        assert again.ran == 0 and again.skipped == 1  # resumes: the stored point is kept
        cols = {r[1] for r in store._conn.execute("PRAGMA table_info(results)")}
    assert set(METRICS) <= cols


def test_row_metrics_are_numbers_or_one_nan():
    row = run_task(study_from_dict({**BASE, "policies": ["FF"],
                                    "workload": {"model": {"name": "Ismail"}}}).points()[0].task(0))
    nans = [m for m in METRICS if row[m] != row[m]]
    # flat: no hops, no leaf switches; no run-time model: no dilation, no interference
    assert nans == ["system_efficiency", "load_average", "mean_hops", "mean_components", "mean_leaf_switches",
                    "fraction_relaxed", "mean_dilation", "mean_interference", "interference_fraction"]
    assert all(row[m] is math.nan for m in nans)  # equal rows compare equal
    assert np.isfinite([row[m] for m in METRICS if m not in nans]).all()


def test_topoalloc_run_prints_the_files_table(tmp_path, capsys):
    from scheduling.cli import main

    path = write(tmp_path, """
        name = "t"
        topology = "flat:64"
        allocators = ["FlatPool"]
        policies = ["SEV", "ASP"]
        loads = [0.75]
        replications = 1
        table = ["p90_slowdown", "cv_cluster_size"]
        [workload]
        model = { name = "Downey", days = 2 }
    """)
    out_csv = tmp_path / "t.csv"
    assert main(["run", str(path), "--store", str(tmp_path / "t.sqlite"), "--no-plots", "--workers", "1",
                 "--out", str(out_csv)]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("topology"))
    assert "90th pct slowdown" in header and "CV of cluster size" in header and "S_e" not in header
    assert "every job of the workload per run" in text
    assert out_csv.read_text().splitlines()[0].endswith(
        "p90_slowdown_mean,p90_slowdown_half_width,p90_slowdown_low,p90_slowdown_high,"
        "cv_cluster_size_mean,cv_cluster_size_half_width,cv_cluster_size_low,cv_cluster_size_high")


# -- seed 004: a recorded trace, gang policies with parameters, per-class tables --------------------
SEED004 = EXAMPLES / "seed004_fig3_gang_ctc.toml"


def test_seed004_file_describes_the_papers_runs():
    skip_without_traces(SEED004)
    study = load_study(SEED004)
    recorded, easy, cheap, costly, pushdown, every = study.experiments
    assert [a.name for e in study.experiments for a in e.allocators] == ["FlatPool", "FlatPool"] + ["DHCTree"] * 4
    assert all(e.topology.label == "flat:320" and e.loads == (None,) and e.replications == 1 and e.jobs is None
               for e in study.experiments)
    assert recorded.policies == ("Recorded",) and easy.policies == ("EASY",)  # EASY-LL is the log's schedule
    for exp, cost in ((cheap, 1), (costly, 16)):
        got = {(p.name, p.kwargs["cycle"], p.kwargs["switch_cost"]) for p in exp.policies}
        assert got == {(v, t, cost) for v in ("Gang-Vanilla", "Gang-PushDown-Weight", "Gang-Migrate-Root",
                                               "Gang-Migrate-Leaves") for t in (300, 1000, 3000)}
    assert {(p.name, p.kwargs.get("trees")) for p in pushdown.policies} == {("Gang-PushDown", None),
                                                                           ("Gang-PushDown-Weight", "together")}
    assert {p.kwargs["switch_charge"] for p in every.policies} == {"every-slot"}
    model = study.experiments[0].workload.model.kwargs
    assert model == {"file": "CTC-SP2-1996-3.1-cln", "month": "1996-08", "too_large": "skip", "nonzero_cpu": True,
                     "known_wait": True}
    assert len(study.points()) == 38
    # the policy tables reach the policies: push-down keeps its weight assignment under new parameters
    pol = registry.make_policy("Gang-PushDown-Weight", {"cycle": 300, "switch_cost": 16})
    assert (pol.variant, pol.cycle, pol.switch_cost, pol._assignment) == ("pushdown", 300.0, 16.0, "weight")
    assert pol.tree_mode == "independent"
    pol = registry.make_policy("Gang-PushDown-Weight", {"trees": "together"})
    assert (pol.tree_mode, pol._assignment, pol.name) == ("together", "weight", "Gang-PushDown-Weight-Together")


def test_seed004_stored_class_table_is_the_simulations():
    """Fig. 3's per-class table from a stored row equals gang_metrics.class_table of the same run."""
    from scheduling.experiments import class_rows
    from scheduling.metrics.gang import class_table
    from topoalloc import DHCTree

    skip_without_traces(SEED004)
    study = tiny(load_study(SEED004))
    point = next(p for p in study.points() if p.policy == "Gang-Migrate-Leaves" and p.policy_label.endswith(
        "(cycle=300, switch_cost=16)"))
    row = run_task(point.task(0))
    params = {k: v for k, v in point.workload["model"].items() if k != "name"}
    jobs = registry.make_workload("Trace", params, load=None, machine_size=320).jobs()
    assert len(jobs) == 60 and all(j.attrs["swf"].average_cpu_time > 0 for j in jobs)
    result = simulate(DHCTree(Flat(320)), registry.make_policy("Gang-Migrate-Leaves", {"cycle": 300,
                                                                                       "switch_cost": 16}),
                      jobs, jobs=None)
    want, got = class_table(result, 10), class_rows([row], 10)
    assert [r.jobs for r in got] == [r.jobs for r in want] and sum(r.jobs for r in got) == 60
    for g, w in zip(got, want, strict=True):
        for attr in ("service", "queueing", "execution", "sharing", "waiting", "response", "normalized"):
            a, b = getattr(g, attr), getattr(w, attr)
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-6), (g.cls, attr)
    assert any(r.sharing > 0 for r in got if r.jobs)  # gang scheduling shares: H > 0 somewhere


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), EXAMPLES / name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gang_ctc_limit_writes_a_renamed_copy_with_the_limit(tmp_path):
    mod = _example("gang_ctc.py")
    path = mod.limited_copy(250, tmp_path)
    original = tomllib.loads(SEED004.read_text())
    copy = tomllib.loads(path.read_text())
    assert copy["name"] == original["name"] + "-limit250"
    assert copy["workload"]["model"] == {**original["workload"]["model"], "limit": 250}
    strip = ("name", "description", "workload")
    assert {k: v for k, v in copy.items() if k not in strip} == {k: v for k, v in original.items() if k not in strip}


# -- the Trace workload model's keys: errors name the file, the key and the choices -----------------
SWF = """\
; UnixStartTime: 0
; TimeZoneString: UTC
; MaxProcs: 16
1 0 0 100 4 90 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 50 0 200 8 -1 -1 8 300 -1 1 1 1 1 1 1 -1 -1
3 2678400 0 300 2 250 -1 2 400 -1 1 1 1 1 1 1 -1 -1
4 2678500 0 400 32 350 -1 32 500 -1 1 1 1 1 1 1 -1 -1
"""
TRACE_HEAD = 'topology = "flat:16"\nallocators = ["FlatPool"]\npolicies = ["FCFS"]\n'


@pytest.fixture
def traces(tmp_path, monkeypatch):
    d = tmp_path / "traces"
    d.mkdir()
    (d / "tiny.swf").write_text(SWF)
    monkeypatch.setenv("TOPOALLOC_TRACES", str(d))
    return d


@pytest.mark.parametrize(
    "text, key, fragments",
    [
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "CTC" }', "workload.model.file",
         ["trace 'CTC' not found", "TOPOALLOC_TRACES", "tiny.swf"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace" }', "workload.model.file", ["is required"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "../traces/tiny.swf" }', "workload.model.file",
         ["not a path", "TOPOALLOC_TRACES"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", too_large = "drop" }',
         "workload.model.too_large", ["skip, clamp, error"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", size = "used" }', "workload.model.size",
         ["requested, allocated"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", month = "August" }',
         "workload.model.month", ["'YYYY-MM'"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", month = "1969-12" }',
         "workload.model.month", ["begins before the trace"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", month = "1970-01", window = [0, 9] }',
         "workload.model.window", ["not both"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", window = [10, 5] }',
         "workload.model.window", ["0 <= start < end"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", limit = 0 }', "workload.model.limit",
         ["positive integer"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", nonzero_cpu = "yes" }',
         "workload.model.nonzero_cpu", ["true or false"]),
        (TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny", colour = 1 }', "workload.model.colour",
         ["allowed: file, month, window, too_large, size, nonzero_cpu, limit"]),
        (TRACE_HEAD + 'loads = ["fast"]\n[workload]\nmodel = { name = "Trace", file = "tiny" }', "loads",
         ["'recorded' (the trace's own arrival rate) or a list of offered loads"]),
        (TRACE_HEAD + 'loads = ["recorded", "recorded"]\n[workload]\nmodel = { name = "Trace", file = "tiny" }',
         "loads", ["listed twice"]),
        (TRACE_HEAD + 'loads = "recorded"', "loads", ["recorded workload (model Trace)", "offered loads"]),
        (TRACE_HEAD, "loads", ["missing (required)"]),
        ('topology = "mesh:4x4"\nallocators = ["FirstFit"]\npolicies = ["FCFS"]\n[workload]\n'
         'model = { name = "Trace", file = "tiny" }', "workload.model", ["flat or tree topology, not mesh:4x4"]),
        ('topology = "flat:16"\nallocators = ["DHCTree"]\npolicies = [{ name = "Gang-Vanilla", cycle = -1 }]\n'
         '[workload]\nmodel = { name = "Trace", file = "tiny" }', "policies[0]", ["cycle must be a finite number > 0"]),
        ('topology = "flat:16"\nallocators = ["DHCTree"]\npolicies = [{ name = "Gang-Vanilla", quantum = 1 }]\n'
         '[workload]\nmodel = { name = "Trace", file = "tiny" }', "policies[0].quantum",
         ["allowed: variant, cycle, switch_cost, quanta, assignment"]),
        ('topology = "flat:16"\nallocators = ["DHCTree"]\npolicies = [{ name = "Gang-Vanilla", assignment = "best" }]\n'
         '[workload]\nmodel = { name = "Trace", file = "tiny" }', "policies[0]", ["first_fit, weight"]),
    ],
)
def test_trace_keys_report_file_key_and_choices(tmp_path, traces, text, key, fragments):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ConfigError) as info:
        load_study(path)
    msg = str(info.value)
    assert "bad.toml" in msg and f"key '{key}'" in msg, msg
    assert all(f in msg for f in fragments), msg
    assert info.value.key == key


def test_trace_that_disappears_fails_the_task_naming_it(tmp_path, traces):
    from scheduling.experiments import TaskError

    study = load_study(write(tmp_path, TRACE_HEAD + '[workload]\nmodel = { name = "Trace", file = "tiny" }'))
    (traces / "tiny.swf").unlink()
    with pytest.raises(TaskError, match="trace 'tiny' not found.*TOPOALLOC_TRACES"):
        run_task(study.points()[0].task(0))


def test_gang_ctc_prints_the_papers_table_beside_the_recorded_one(capsys):
    """The Fig. 3 comparison: counts and their differences, the class-6 note, the filter remark."""
    import dataclasses as dc

    from scheduling.metrics.gang import FIG3

    mod = _example("gang_ctc.py")
    ours = [dc.replace(r, jobs=r.jobs + d) for r, d in zip(FIG3, (538, 239, 200, 50, 29, -10, -13, 1, 0, 0),
                                                           strict=True)]
    row = {"experiment": "seed004-fig3/EASY-LL (recorded)", "config": {"policy": "Recorded"}}
    gang = {"experiment": "seed004-fig3/switch 1 s",
            "config": {"policy": "Gang-Migrate-Leaves", "policy_params": {"cycle": 1000, "switch_cost": 1}}}
    mod.print_fig3([(row, ours), (gang, list(FIG3))])
    out = capsys.readouterr().out
    assert "    0   2408   2946   +538" in out and "  all   6049   7083  +1034" in out
    assert "printed 93,189" in out and "= 9,319" in out
    assert "classes [5, 6] hold fewer jobs here" in out and "Classes [8, 9] have the paper's count" in out
    assert mod.label(gang) == "Gang-Migrate-Leaves T=1000" and mod.label(row) == "EASY-LL (recorded)"
    mod.print_fig3([(row, ours)], limit=300)
    assert "--limit 300" in capsys.readouterr().out

"""Every examples/*.toml loads and runs through the experiments machinery; the configuration keys the
seed 000, 001 and 003 examples need (workload models, policy parameters, the printed table, extra
metrics) behave and report errors with the file, the key and the allowed choices."""

from __future__ import annotations

import dataclasses
import math
import sqlite3
import textwrap
from pathlib import Path

import numpy as np
import pytest

from scheduling import simulate
from scheduling.downey_metrics import simulate_days, summarize_days
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
from scheduling.experiments.config import METRICS
from scheduling.workloads.ismail import ismail_workload
from topoalloc import FlatPool
from topologies import Flat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOMLS = sorted(EXAMPLES.glob("*.toml"))
SCRIPTS = {  # the example scripts that wrap TOML files, and the files each must run
    "rsr_mesh.py": ["seed002_fig1_mesh_rsr.toml", "seed002_fig3_frame_vs_firstfit.toml"],
    "ismail_static.py": ["seed000_fig2_9_static_nofold.toml", "seed000_fig3_3_adaptive.toml",
                         "seed000_fig3_6_limited.toml"],
    "ismail_dynamic.py": ["seed000_fig4_4_dynamic_misp.toml", "seed000_fig4_2_dynamic_linear.toml"],
    "downey_table1.py": ["seed001_table1.toml"],
    "nguyen_efficiency.py": ["seed003_fig6_batch.toml"],
}


def tiny(study: Study) -> Study:
    """``study`` at a size that proves it runs: its highest load, one replication, 60 jobs (or one
    day of Downey's model)."""
    exps = []
    for e in study.experiments:
        w = e.workload
        if w.model is not None and w.episodes > 1:
            w = dataclasses.replace(w, model=Component.of(w.model.name, **{**w.model.kwargs, "days": 1}))
        exps.append(dataclasses.replace(e, loads=e.loads[-1:], replications=1, target=None, workload=w,
                                        jobs=None if e.jobs is None else 60, warmup=0 if e.jobs is None else 6))
    return dataclasses.replace(study, experiments=tuple(exps))


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# -- every example file -----------------------------------------------------------------------------
def test_examples_exist_for_every_seed():
    names = {p.name.split("_")[0] for p in TOMLS}
    assert {"seed000", "seed001", "seed002", "seed003"} <= names
    for script, files in SCRIPTS.items():
        text = (EXAMPLES / script).read_text()
        for f in files:
            assert (EXAMPLES / f).is_file(), f
            assert f in text, f"{script} does not run {f}"
        assert "scheduling.cli" in text or "from scheduling.cli import" in text


@pytest.mark.parametrize("path", TOMLS, ids=lambda p: p.stem)
def test_example_loads_and_runs_tiny(path):
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
        (HEAD + 'policies = [{ name = "DEQQ", overhead = 1 }]', "policies[0].name", "choose from"),
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
    assert nans == ["system_efficiency", "load_average"]
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
    assert out_csv.read_text().splitlines()[0].endswith("p90_slowdown_mean,p90_slowdown_half_width,"
                                                        "cv_cluster_size_mean,cv_cluster_size_half_width")

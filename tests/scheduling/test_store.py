"""The SQLite result store: one row per point and replication, resume, atomic rows, export."""

from __future__ import annotations

import csv
import sqlite3

import pytest

from scheduling.experiments import LocalExecutor, ResultStore, package_version, run_study, study_from_dict
from scheduling.experiments.store import ROW_COLUMNS

STUDY = {
    "name": "store-test",
    "topology": "cube:5",
    "allocators": ["Buddy"],
    "policies": ["RSR-0", "RSR-1"],
    "loads": [0.4, 0.7],
    "jobs": 120,
    "warmup": 10,
    "replications": 2,
    "seed": 3,
}


def comparable(store):
    keys = ("point_id", "replication", "sim_seed", "mean_turnaround", "utilization", "effectiveness", "kept")
    return sorted(tuple(r[k] for k in keys) for r in store.rows())


class Interrupting:
    """An executor that runs tasks serially and 'crashes' after ``after`` results."""

    def __init__(self, after):
        self.after = after

    def map_unordered(self, fn, tasks):
        for i, t in enumerate(tasks):
            if i == self.after:
                raise KeyboardInterrupt
            yield fn(t)

    def close(self):
        pass


def test_rows_hold_configuration_version_and_metrics(tmp_path):
    study = study_from_dict(STUDY)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        stats = run_study(study, store, LocalExecutor(1), progress=False)
        assert stats.ran == len(store) == 2 * 2 * 2
        rows = store.rows()
    row = rows[0]
    assert row["version"] == package_version()
    assert row["config"]["topology"] == "cube:5" and row["config"]["jobs"] == 120
    assert row["config"]["workload"]["sizes"] == {"name": "CubeDims", "max_dim": 4}
    assert row["experiment"] == "store-test" and row["policy"] in ("RSR-0", "RSR-1")
    assert 0 < row["utilization"] < 1 and row["kept"] > 0
    assert {(r["point_id"], r["replication"]) for r in rows} == ResultStore(path).done()
    assert ResultStore(path).studies()["store-test"]["experiments"][0]["jobs"] == 120


def test_rerun_skips_stored_points(tmp_path):
    study = study_from_dict(STUDY)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        run_study(study, store, LocalExecutor(1), progress=False)
        before = comparable(store)
    with ResultStore(path) as store:
        stats = run_study(study, store, LocalExecutor(1), progress=False)
        assert (stats.ran, stats.skipped) == (0, 8)
        assert comparable(store) == before
    # more replications run only the new ones
    with ResultStore(path) as store:
        stats = run_study(study.with_overrides(replications=3), store, LocalExecutor(1), progress=False)
        assert (stats.ran, stats.skipped) == (4, 8)


def test_interrupted_sweep_resumes_to_the_same_results(tmp_path):
    study = study_from_dict(STUDY)
    whole = ResultStore()
    run_study(study, whole, LocalExecutor(1), progress=False)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store, pytest.raises(KeyboardInterrupt):
        run_study(study, store, Interrupting(after=3), progress=False)
    with ResultStore(path) as store:
        assert len(store) == 3  # every finished point stored, nothing else
        stats = run_study(study, store, LocalExecutor(1), progress=False)
        assert (stats.ran, stats.skipped) == (5, 3)
        assert comparable(store) == comparable(whole)


def test_a_row_is_stored_whole_or_not_at_all():
    store = ResultStore()
    with pytest.raises(ValueError, match="needs config"):
        store.add({"point_id": "p", "replication": 0, "mean_turnaround": 1.0})  # no configuration
    with pytest.raises(sqlite3.Error):  # a value SQLite cannot bind fails the whole insert
        store.add({"point_id": "p", "replication": 0, "config": {"a": 1}, "kept": object()})
    assert len(store) == 0
    row = {c: None for c in ROW_COLUMNS} | {"point_id": "p", "replication": 0, "config": {"a": 1}}
    assert store.add(row) is True
    assert store.add(row) is False  # the same point and replication again: kept once
    assert len(store) == 1 and store.rows()[0]["config"] == {"a": 1}


def test_foreign_schema_is_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    with ResultStore(path):
        pass
    con = sqlite3.connect(path)
    with con:
        con.execute("UPDATE meta SET value = '999' WHERE key = 'schema'")
    con.close()
    with pytest.raises(ValueError, match="schema 999"):
        ResultStore(path)


def test_csv_export(tmp_path):
    store = ResultStore()
    run_study(study_from_dict(STUDY), store, LocalExecutor(1), progress=False)
    out = tmp_path / "rows.csv"
    assert store.export(out) == 8
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and "fairness" not in rows[0]
    assert {r["policy"] for r in rows} == {"RSR-0", "RSR-1"}
    by_key = {(r["point_id"], int(r["replication"])): float(r["mean_turnaround"]) for r in rows}
    for r in store.rows():
        assert by_key[(r["point_id"], r["replication"])] == pytest.approx(r["mean_turnaround"], rel=1e-12)
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        store.export(tmp_path / "rows.xlsx")


def test_parquet_export(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet export needs pyarrow (topoalloc[parquet])")
    store = ResultStore()
    run_study(study_from_dict(STUDY), store, LocalExecutor(1), progress=False)
    out = tmp_path / "rows.parquet"
    assert store.export(out) == 8
    table = pq.read_table(out)
    assert table.num_rows == 8 and "mean_turnaround" in table.column_names

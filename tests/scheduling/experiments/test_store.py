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


# -- identity: a stored row is only ever served for its own configuration ---------------------------
def test_every_configuration_field_changes_the_point_id(monkeypatch):
    import scheduling.experiments.schema as config

    base = study_from_dict(STUDY).points()[0]
    changed = [study_from_dict({**STUDY, **change}).points()[0] for change in (
        {"jobs": 121}, {"warmup": 11}, {"seed": 4}, {"loads": [0.41]}, {"topology": "cube:6"},
        {"workload": {"service": {"name": "Exponential", "mean": 4.0}}},
        {"workload": {"load_basis": "granted"}},
        {"policies": [{"name": "RSR-0"}, "RSR-1"], "allocators": [{"name": "GrayCode", "codes": 2}]},
    )]
    ids = [p.point_id for p in changed]
    assert base.point_id not in ids and len(set(ids)) == len(ids)
    before = base.point_id
    monkeypatch.setattr(config, "SIMULATION_SEMANTICS", config.SIMULATION_SEMANTICS + 1)
    assert study_from_dict(STUDY).points()[0].point_id != before  # another simulator: another key


def test_other_run_lengths_and_replication_counts_are_never_mixed(tmp_path):
    from scheduling.experiments import aggregate
    from scheduling.experiments.runner import study_rows

    path = tmp_path / "r.sqlite"
    short = study_from_dict(STUDY)
    longer = short.with_overrides(jobs=240)
    with ResultStore(path) as store:
        run_study(short, store, LocalExecutor(1), progress=False)
        stats = run_study(longer, store, LocalExecutor(1), progress=False)
        assert (stats.ran, stats.skipped) == (8, 0)  # nothing of the 120-job runs is reused
        rows = study_rows(longer, store)
        assert len(rows) == 8 and {r["jobs"] for r in rows} == {240}
        assert store.unused_rows([p.point_id for p in longer.points()], ["store-test"]) == 8
        fresh = ResultStore()
        run_study(longer, fresh, LocalExecutor(1), progress=False)
        assert comparable_rows(rows) == comparable_rows(fresh.rows())
        # more replications: the table has three; back to two: the table has two again
        run_study(longer.with_overrides(replications=3), store, LocalExecutor(1), progress=False)
        assert {s.n for s in aggregate(study_rows(longer.with_overrides(replications=3), store))} == {3}
        assert {s.n for s in aggregate(study_rows(longer, store))} == {2}


def comparable_rows(rows):
    keys = ("point_id", "replication", "sim_seed", "mean_turnaround", "utilization", "kept")
    return sorted(tuple(r[k] for k in keys) for r in rows)


def test_the_command_line_shows_only_the_configuration_asked_for(tmp_path, capsys):
    from scheduling.cli import main

    from ..cli.test_cli import table_lines

    store = tmp_path / "X.sqlite"
    base = ["compare", "--topology", "cube:4", "--allocators", "Buddy", "--loads", "0.5", "--workers", "1",
            "--no-progress"]
    assert main([*base, "--replications", "2", "--jobs", "300", "--store", str(store)]) == 0
    capsys.readouterr()
    assert main([*base, "--replications", "2", "--jobs", "600", "--store", str(store)]) == 0
    second = capsys.readouterr().out
    assert "0 of 4 simulations loaded" in second and "4 stored rows under the same names" in second
    assert main([*base, "--replications", "2", "--jobs", "600"]) == 0  # the same, from scratch
    assert table_lines(second) == table_lines(capsys.readouterr().out)
    assert main([*base, "--replications", "3", "--jobs", "600", "--store", str(store)]) == 0
    third = capsys.readouterr().out
    assert "4 of 6 simulations loaded" in third
    assert {line.split()[4] for line in table_lines(third)} == {"3"}  # n = 3, not the stored 2


def test_a_schema_1_store_is_upgraded_and_its_rows_never_served(tmp_path, capsys):
    path = tmp_path / "old.sqlite"
    study = study_from_dict(STUDY)
    with ResultStore(path) as store:
        run_study(study, store, LocalExecutor(1), progress=False)
    con = sqlite3.connect(path)  # make it a file of the previous schema: ids without the semantics
    with con:
        con.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        con.execute("UPDATE results SET point_id = 'old-' || point_id")
        con.execute("ALTER TABLE results DROP COLUMN semantics")
    con.close()
    with ResultStore(path) as store:
        assert store.upgraded_from == 1 and store.unused_rows() == 8
        stats = run_study(study, store, LocalExecutor(1), progress=False)
        assert (stats.ran, stats.skipped) == (8, 0)
    with ResultStore(path) as store:
        assert store.upgraded_from is None and len(store) == 16
    con = sqlite3.connect(path)
    with con:
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    con.close()
    from scheduling.experiments.store import StoreVersionError

    with pytest.raises(StoreVersionError, match="newer topoalloc"):
        ResultStore(path)
    not_a_store = tmp_path / "README.md"
    not_a_store.write_text("# not SQLite\n" * 100)
    with pytest.raises(StoreVersionError, match="not a topoalloc result store"):
        ResultStore(not_a_store)


def test_exports_are_deterministic(tmp_path):
    """Two runs of one study, in parallel (results arrive in any order), export identical files
    apart from the timing columns, which come last (or not at all with timing=False)."""
    study = study_from_dict(STUDY)
    files = []
    for i in range(2):
        store = ResultStore(tmp_path / f"r{i}.sqlite")
        run_study(study, store, LocalExecutor(2), progress=False)
        store.export(tmp_path / f"r{i}.csv")
        store.export(tmp_path / f"r{i}-nt.csv", timing=False)
        files.append(store)
    assert (tmp_path / "r0-nt.csv").read_bytes() == (tmp_path / "r1-nt.csv").read_bytes()
    with_timing = [list(csv.reader(open(tmp_path / f"r{i}.csv"))) for i in range(2)]
    assert with_timing[0][0][-2:] == ["wall_time", "finished_at"]
    assert [r[:-2] for r in with_timing[0]] == [r[:-2] for r in with_timing[1]]
    rows = with_timing[0][1:]
    head = with_timing[0][0]
    order = [(r[head.index("policy")], float(r[head.index("load")]), int(r[head.index("replication")])) for r in rows]
    assert order == sorted(order)  # by configuration, load and replication

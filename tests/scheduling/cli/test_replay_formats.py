"""``topoalloc replay`` on Batsim workloads and Slurm ``sacct`` dumps, the recorded placements of a
site's log replayed by ``--policies Recorded``, and ``--export``."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from scheduling.cli import build_parser, main
from scheduling.cli.replay import EXPORT_CHOICES
from scheduling.experiments import ResultStore
from scheduling.experiments.replay import export_task
from scheduling.formats import EXPORT_FORMATS
from scheduling.formats.batsim_jobs import read_jobs_csv
from scheduling.workloads import read_placements, read_swf

RUN = ["--workers", "1", "--no-progress"]

#: Two leaf switches of four nodes.
TOPOLOGY_CONF = """# two racks
SwitchName=s0 Nodes=n[01-04]
SwitchName=s1 Nodes=n[05-08]
SwitchName=top Switches=s[0-1]
"""
#: A small dump with the quirks of real ones: steps, a job cancelled while pending (``Unknown``
#: start, ``None assigned``), a pending array's summary line, an array task, a timed-out job.
SACCT = """JobID|JobIDRaw|Submit|Start|End|Timelimit|NNodes|NodeList|State|Partition
1|1|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:20:00|2|n[04-05]|COMPLETED|batch
1.batch|1.batch|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00||1|n04|COMPLETED|
1.extern|1.extern|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00||2|n[04-05]|COMPLETED|
2|2|2024-05-01T10:01:00|2024-05-01T10:02:00|2024-05-01T10:12:00|00:30:00|3|n[01-02,08]|TIMEOUT|batch
3|3|2024-05-01T10:02:00|Unknown|2024-05-01T10:03:00|00:30:00|1|None assigned|CANCELLED by 1000|batch
4_1|5|2024-05-01T10:03:00|2024-05-01T10:05:00|2024-05-01T10:06:00|UNLIMITED|1|n03|FAILED|batch
4_[2-3]|4|2024-05-01T10:03:00|Unknown|Unknown|UNLIMITED|1|None assigned|PENDING|batch
"""
WORKLOAD = {"nb_res": 8, "profiles": {"d": {"type": "delay", "delay": 100}, "e": {"type": "delay", "delay": 50}},
            "jobs": [{"id": "1", "subtime": 0, "res": 4, "profile": "d", "walltime": 200},
                     {"id": "2", "subtime": 30, "res": 8, "profile": "e"},
                     {"id": "3", "subtime": 40, "res": 2, "profile": "e"}]}


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """The site's files in the current folder (``tree:topology.conf`` is read relative to it)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "topology.conf").write_text(TOPOLOGY_CONF)
    (tmp_path / "site.sacct").write_text(SACCT)
    (tmp_path / "w.json").write_text(json.dumps(WORKLOAD, indent=1))
    return tmp_path


def rows_of(out: str) -> dict[tuple[str, str], list[str]]:
    """The result table's rows by (allocator, policy): the columns after the topology."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("---"))
    table = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        cells = line.split()
        table[(cells[1], cells[2])] = cells[3:]
    return table


def test_an_sacct_dump_replays_its_recorded_placements_beside_the_allocators(site, capsys):
    """Golden values computed by hand from ``SACCT`` on ``TOPOLOGY_CONF`` (n01-n04 on leaf s0,
    n05-n08 on s1; a hop is one link, so two nodes under one leaf are 2 hops apart, under
    different leaves 4): the kept jobs are 1 (n04,n05: 2 leaves, 4 hops), 2 (n01,n02,n08: 2
    leaves, pairwise 2, 4, 4 hops) and array task 4_1 (n03: 1 leaf, 0 hops), so the recorded
    schedule has 5/3 leaf switches per job and (4 + 10/3 + 0)/3 = 2.444 mean hops; its waits
    are 0, 60 and 120 s (mean 60)."""
    assert main(["replay", "site.sacct", "--topology", "tree:topology.conf", "--allocators", "FirstFree,SlurmTree",
                 "--policies", "Recorded,FCFS", *RUN]) == 0
    out = capsys.readouterr().out
    assert ("site.sacct: 8 lines, 5 records, 3 jobs kept; 2 skipped: never started; 2 job steps (not jobs); "
            "kept: 1 COMPLETED, 1 FAILED, 1 TIMEOUT") in out
    table = rows_of(out)
    # columns: load, n, turnaround, wait, utilisation, S_e, bounded slowdown, leaf switches, hops, blocked
    for alloc in ("FirstFree", "SlurmTree"):  # Recorded uses no allocator: the same recorded schedule
        recorded = table[(alloc, "Recorded")]
        assert recorded[3] == "60" and recorded[7] == "1.667" and recorded[8] == "2.444"
    # the allocators on the same jobs, nobody waiting: SlurmTree keeps every job on one leaf switch
    assert table[("SlurmTree", "FCFS")][7] == "1" and table[("SlurmTree", "FCFS")][3] == "0"
    assert float(table[("FirstFree", "FCFS")][7]) < 5 / 3


# a run whose jobs have no nodes averages no hops (numpy warns of the empty mean; the table shows n/a)
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
def test_node_names_are_mapped_only_on_the_sites_own_tree_file(site, capsys):
    """On a tree given by its level counts the node names are made up, so the dump's ``NodeList``
    is not mapped: the recorded schedule has no placements (``n/a``), the times are the same."""
    assert main(["replay", "site.sacct", "--topology", "tree:2x4", "--policies", "Recorded", *RUN]) == 0
    recorded = rows_of(capsys.readouterr().out)[("FirstFree", "Recorded")]
    assert recorded[3] == "60" and recorded[7] == "n/a" and recorded[8] == "n/a"


def test_export_batsim_writes_each_schedule_with_its_nodes(site, capsys):
    """The Recorded file holds the dump's own schedule: starts 0, 120 and 300 s after the first
    submission (10:00:00, 10:02:00, 10:05:00) on the nodes the ``NodeList`` names (ids in
    ``topology.conf`` order: n04,n05 -> 3-4; n01,n02,n08 -> 0-1 7; n03 -> 2)."""
    assert main(["replay", "site.sacct", "--topology", "tree:topology.conf", "--allocators", "FirstFree,SlurmTree",
                 "--policies", "Recorded,FCFS", "--export", "batsim", "--export-dir", "out", "--store", "s.sqlite",
                 *RUN]) == 0
    out = capsys.readouterr().out
    names = ["FirstFree-Recorded-trace", "FirstFree-FCFS-trace", "SlurmTree-Recorded-trace", "SlurmTree-FCFS-trace"]
    for name in names:
        assert f"wrote out/{name}_jobs.csv" in out
    assert "exported 4 schedules" in out and "resumed" not in out
    rec = read_jobs_csv(site / "out" / "FirstFree-Recorded-trace_jobs.csv")
    assert rec.ids.tolist() == [1, 2, 5] and rec.starting_time.tolist() == [0.0, 120.0, 300.0]
    assert rec.columns["allocated_resources"] == ["3-4", "0-1 7", "2"]
    assert rec.columns["workload_name"] == ["site"] * 3
    assert rec.final_state == ["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_FAILED"]
    # the exported schedules are the runs the table reports (a second simulation of the same configuration)
    with ResultStore("s.sqlite") as store:
        stored = {(r["allocator"], r["policy"]): r for r in store.rows()}
    for (alloc, pol), row in stored.items():
        s = read_jobs_csv(site / "out" / f"{alloc}-{pol}-trace_jobs.csv")
        assert len(s) == row["kept"]
        assert np.mean(s.finish_time - s.submission_time) == pytest.approx(row["mean_turnaround"])
        assert np.mean(s.starting_time - s.submission_time) == pytest.approx(row["mean_wait"])
        nodes = np.diff(s.offsets)
        assert nodes.tolist() == s.columns["requested_number_of_resources"].tolist()
    slurm = read_jobs_csv(site / "out" / "SlurmTree-FCFS-trace_jobs.csv")
    assert all(len(set(np.asarray(v) // 4)) == 1 for v in slurm.placements.values())  # one leaf switch each


def test_export_reruns_the_configurations_resumed_from_the_store(site, capsys):
    args = ["replay", "site.sacct", "--topology", "tree:topology.conf", "--policies", "Recorded", "--store",
            "s.sqlite", *RUN]
    assert main(args) == 0
    capsys.readouterr()
    assert main([*args, "--export", "swf", "--export-dir", "again"]) == 0
    out = capsys.readouterr().out
    assert "0 simulations" in out and "(1 of them resumed from --store)" in out
    assert "wrote again/FirstFree-Recorded-trace.swf" in out and "exported 1 schedule in" in out
    _, records, _ = read_swf(site / "again" / "FirstFree-Recorded-trace.swf")
    assert [r.wait_time for _, r in records] == [0.0, 60.0, 120.0]
    nodes = read_placements(site / "again" / "FirstFree-Recorded-trace.swf.nodes.csv")
    assert {k: v.tolist() for k, v in nodes.items()} == {1: [3, 4], 2: [0, 1, 7], 5: [2]}


def test_a_batsim_workload_replays_and_exports(site, capsys):
    assert main(["replay", "w.json", "--policies", "FCFS,EASY", "--export", "batsim", *RUN]) == 0
    out = capsys.readouterr().out
    assert "replay on flat:8: w.json: " in out and "3 jobs kept" in out
    s = read_jobs_csv(site / "FlatPool-EASY-trace_jobs.csv")  # --export-dir defaults to the current folder
    # job 2 (8 of 8) waits for job 1 (ends at 100); EASY lets job 3 (2 nodes, 50 s) through at 40
    assert dict(zip(s.ids.tolist(), s.starting_time.tolist(), strict=True)) == {1: 0.0, 2: 100.0, 3: 40.0}
    assert set(s.columns["workload_name"]) == {"w"} and s.requested_time.tolist() == [200.0, -1.0, -1.0]


@pytest.mark.parametrize("name, content, message", [
    ("bad.json", '{"nb_res": 4, "jobs": [\n{"id": 1,}\n]}', "bad.json, line 2: malformed JSON"),
    ("unknown.json", json.dumps({"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "p"}],
                                 "profiles": {"p": {"type": "magic"}}}), "unknown profile type 'magic'"),
    ("short.sacct", "JobID|Submit|Start|End\n1|x|y|z\n", "the header lacks NNodes, NodeList, State"),
    ("alien.sacct", SACCT.replace("n03|FAILED", "x99|FAILED"),
     "alien.sacct, line 7: NodeList 'x99' names node 'x99', which topology.conf does not have"),
    ("x_jobs.csv", "job_id,workload_name\n1,w0\n", "a Batsim _jobs.csv is a schedule"),
])
def test_bad_files_are_one_line_errors_naming_the_file(site, capsys, name, content, message):
    (site / name).write_text(content)
    assert main(["replay", name, "--topology", "tree:topology.conf", *RUN]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("topoalloc replay: error: ") and message in err and name in err


def test_export_options_and_help(site, capsys):
    assert EXPORT_CHOICES == EXPORT_FORMATS
    text = build_parser()._subparsers._group_actions[0].choices["replay"].format_help()
    assert "--export {batsim,swf}" in text and "--export-dir DIR" in text and "recognised by content" in text
    assert "resumed from --store" in " ".join(text.split())
    (site / "taken").write_text("a file")
    assert main(["replay", "w.json", "--export", "batsim", "--export-dir", "taken", *RUN]) == 2
    assert "--export-dir: taken is a file, not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["replay", "w.json", "--export", "csv", *RUN])
    assert info.value.code == 2 and "invalid choice: 'csv'" in capsys.readouterr().err


def test_export_tasks_pickle_for_the_worker_processes(site):
    from scheduling.experiments import Component, TopologySpec, trace_points
    from scheduling.formats import export_name

    (point,) = trace_points(site / "w.json", TopologySpec.parse("flat:8"), [Component("FlatPool")], ["FCFS"])
    task = point.task(0)
    task["export"] = {"format": "batsim", "dir": "pickled", "name": export_name("FlatPool", "FCFS"),
                      "workload_name": "w"}
    got = pickle.loads(pickle.dumps(export_task))(pickle.loads(pickle.dumps(task)))
    assert got == {"point_id": point.point_id, "paths": ["pickled/FlatPool-FCFS_jobs.csv"]}
    assert read_jobs_csv(site / "pickled" / "FlatPool-FCFS_jobs.csv").ids.tolist() == [1, 2, 3]

"""What a newcomer running the command line hit (issue 32, items 1, 2, 6, 7, 8, 9 and 11): a
configuration that cannot run reported in the table, replays that drop what an allocator cannot
grant, oversize requests caught at validation, points short of the precision target marked, time
units and unbounded backlogs said, replays that report each configuration as it finishes, and the
smaller wording fixes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scheduling.cli import main
from scheduling.kernel.jobs import Job

QUICK = ["--workers", "1", "--no-progress"]


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def swf(tmp_path: Path, jobs: list[tuple[int, int, int]], max_procs: int, name: str = "t.swf") -> Path:
    """An SWF file of ``(submit, run time, processors)`` jobs (18 fields each, unknowns -1)."""
    lines = [f"; MaxProcs: {max_procs}"]
    for i, (submit, run, procs) in enumerate(jobs, start=1):
        fields = [i, submit, 0, run, procs, -1, -1, procs, run, -1, 1, 1, 1, 1, 1, -1, -1, -1]
        lines.append(" ".join(map(str, fields)))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def small_trace(tmp_path: Path) -> Path:
    """40 jobs on 100 processors, two of them (jobs 5 and 17) of 79 processors: they fit the
    machine, not the 100-processor DHC forest, whose largest tree has 64 (the KTH-SP2 case)."""
    jobs = [(20 * i, 50 + (7 * i) % 300, 79 if i in (5, 17) else 1 + (11 * i) % 40) for i in range(1, 41)]
    return swf(tmp_path, jobs, 100)


def table_body(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("---"))
    body = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        body.append(line)
    return body


# -- item 1: a configuration that cannot run does not take the others down ---------------------------
def test_compare_on_flat_320_reports_dhctree_in_the_table_and_runs_flatpool(capsys):
    """Issue 32 item 1: ``compare --topology flat:320`` stopped with a RequestSizeError (a job of
    274 processors above the DHC forest's largest tree of 256) and printed no table."""
    code = main(["compare", "--topology", "flat:320", "--allocators", "FlatPool,DHCTree", "--policies", "FCFS",
                 "--loads", "0.3", "--jobs", "120", "--replications", "1", *QUICK])
    out = capsys.readouterr().out
    assert code == 0
    body = table_body(out)
    assert any(line.split()[1] == "FlatPool" and "not run" not in line for line in body)
    dhc = [line for line in body if "DHCTree" in line]
    assert len(dhc) == 1 and "not run:" in dhc[0] and "256 processors" in dhc[0]


def test_run_reports_a_request_above_the_allocators_largest_grant_as_a_table_row(tmp_path, capsys):
    """A run (not only compare): the RequestSizeError DHCTree raises for a job above its largest tree
    is a configuration that cannot run, reported in the table; FlatPool's points run."""
    path = write(tmp_path, """
        name = "dhc320"
        topology = "flat:320"
        allocators = ["FlatPool", "DHCTree"]
        policies = ["FCFS"]
        loads = [0.3]
        jobs = 120
        replications = 1
    """)
    code = main(["run", str(path), "--store", str(tmp_path / "s.sqlite"), "--no-plots", *QUICK])
    out = capsys.readouterr().out
    assert code == 0
    body = table_body(out)
    assert [line.split()[1] for line in body] == ["FlatPool", "DHCTree"]
    assert "not run:" in body[1] and "largest DHC partition" in body[1]
    assert "not run:" not in body[0]


# -- item 2: --oversize applies to what the allocator can grant ---------------------------------------
def test_fit_to_allocator_skips_clamps_or_keeps():
    from scheduling.experiments.replay import fit_to_allocator
    from topoalloc import DHCTree, FlatPool
    from topologies import Flat

    jobs = [Job(0, 0.0, 79, 1.0), Job(1, 1.0, 8, 1.0), Job(2, 2.0, 79, 1.0)]
    fit = fit_to_allocator(jobs, DHCTree(Flat(100)))
    assert [j.id for j in fit.jobs] == [1] and fit.skipped == (0, 2) and fit.refused == (79,)
    clamp = fit_to_allocator(jobs, DHCTree(Flat(100)), "clamp")
    assert [j.request for j in clamp.jobs] == [64, 8, 64] and clamp.clamped == (0, 2) and clamp.largest == 64
    kept = fit_to_allocator(jobs, DHCTree(Flat(100)), "error")
    assert kept.jobs is jobs and kept.refused == (79,)
    same = fit_to_allocator(jobs, FlatPool(Flat(100)))
    assert same.jobs is jobs and not same.changed
    with pytest.raises(ValueError, match="'drop'"):
        fit_to_allocator(jobs, FlatPool(Flat(100)), "drop")


def test_replay_skips_the_jobs_an_allocator_cannot_grant_and_counts_them(tmp_path, capsys):
    """Issue 32 item 2: the KTH-SP2 replay under DHCTree died on a 79-processor job (the 100-processor
    forest's largest tree has 64); the same shape on a small trace."""
    trace = small_trace(tmp_path)
    code = main(["replay", str(trace), "--allocators", "DHCTree,FlatPool", "--policies", "FCFS", *QUICK])
    out = capsys.readouterr().out
    assert code == 0
    assert "DHCTree: 2 jobs skipped: it cannot grant the request 79 even on the empty machine" in out
    assert "FlatPool:" not in out.split("finished")[0]  # FlatPool grants every job: nothing said
    assert out.index("DHCTree: 2 jobs skipped") < out.index("finished 1/2")  # said before the run
    body = table_body(out)
    assert [line.split()[1] for line in body] == ["DHCTree", "FlatPool"]


def test_replay_oversize_clamp_and_error_apply_to_the_allocator(tmp_path, capsys):
    trace = small_trace(tmp_path)
    assert main(["replay", str(trace), "--allocators", "DHCTree", "--oversize", "clamp", *QUICK]) == 0
    out = capsys.readouterr().out
    assert "DHCTree: 2 clamped to its largest grant (64)" in out
    code = main(["replay", str(trace), "--allocators", "DHCTree", "--oversize", "error", *QUICK])
    captured = capsys.readouterr()
    assert code == 2 and "finished" not in captured.out
    assert "job 5 requests 79, which DHCTree cannot grant even on the empty flat:100" in captured.err


# -- item 6: requests larger than the machine caught at validation -------------------------------------
def test_a_size_distribution_larger_than_the_machine_is_refused_at_validation(tmp_path, capsys):
    """Issue 32 item 6: ``CubeDims`` with ``max_dim = 12`` on ``cube:8`` failed only once the run had
    started, leaving an empty store file."""
    path = write(tmp_path, """
        name = "big"
        topology = "cube:8"
        allocators = ["Buddy"]
        policies = ["FCFS"]
        loads = [0.3]
        jobs = 50
        replications = 1
        [workload]
        sizes = { name = "CubeDims", max_dim = 12 }
        service = { name = "Exponential", mean = 5.0 }
    """)
    store = tmp_path / "big.sqlite"
    assert main(["run", str(path), "--store", str(store), "--no-plots", *QUICK]) == 2
    err = capsys.readouterr().err
    assert "key 'workload.sizes'" in err and "12-cube" in err and "cube:8" in err
    assert not store.exists()


# -- item 7: points short of the precision target are marked, and the cap can be raised ---------------
def test_points_at_the_replication_cap_short_of_the_target_are_marked_and_counted(capsys):
    """Issue 32 item 7: points that stopped at the 10-replication cap with a half-width of 32-76% of
    the mean were shown like the others; here a 1% target cannot be met in 3 runs of 120 jobs."""
    args = ["compare", "--topology", "cube:5", "--allocators", "Buddy", "--policies", "FCFS", "--loads", "0.4",
            "--jobs", "120", "--target", "0.01", *QUICK]
    assert main([*args, "--max-replications", "3"]) == 0
    out = capsys.readouterr().out
    assert "precision: 1 of 1 points reached the cap of 3 replications short of the precision target" in out
    body = table_body(out)
    assert len(body) == 1 and body[0].split()[4] == "3!"
    assert "n!: the point reached its replication cap" in out
    assert main([*args, "--max-replications", "4"]) == 0
    body = table_body(capsys.readouterr().out)
    assert body[0].split()[4] == "4!"


def test_max_replications_is_checked():
    from scheduling.experiments import ConfigError
    from scheduling.experiments.defaults import compare_study

    with pytest.raises(ConfigError, match="--max-replications.*>= 3.*got 2"):
        compare_study(topologies=["cube:5"], max_replications=2)
    with pytest.raises(ConfigError, match="not both"):
        compare_study(topologies=["cube:5"], max_replications=5, replications=2)
    study, _ = compare_study(topologies=["cube:5"], max_replications=25)
    assert study.experiments[0].target.max_runs == 25


# -- item 8: time units, and a replay whose backlog grows without bound --------------------------------
def test_time_columns_say_their_unit(tmp_path, capsys):
    assert main(["replay", str(small_trace(tmp_path)), *QUICK]) == 0
    out = capsys.readouterr().out
    assert "mean turnaround (s)" in out and "mean wait (s)" in out
    assert main(["compare", "--topology", "cube:5", "--allocators", "Buddy", "--policies", "FCFS", "--loads",
                 "0.4", "--jobs", "120", "--replications", "1", *QUICK]) == 0
    out = capsys.readouterr().out
    assert "mean turnaround (t.u.)" in out and "the unit of the service times" in out


def test_a_replay_whose_backlog_grows_without_bound_is_flagged(tmp_path, capsys):
    """Issue 32 item 8: a replay of KTH-SP2 under FCFS showed a mean wait of 4.5 days with a blank
    saturated column. Here every job needs the whole machine for 10 s and one arrives every 2 s."""
    trace = swf(tmp_path, [(2 * i, 10, 16) for i in range(400)], 16)
    assert main(["replay", str(trace), *QUICK]) == 0
    out = capsys.readouterr().out
    assert "backlog grows without bound" in out
    assert "FlatPool FCFS trace: backlog growth" in out
    assert main(["replay", str(small_trace(tmp_path)), "--allocators", "FlatPool", *QUICK]) == 0
    assert "backlog grows without bound" not in capsys.readouterr().out


def test_backlog_unbounded_applies_the_synthetic_saturation_thresholds():
    from scheduling.experiments.runner import backlog_unbounded
    from scheduling.metrics.summary import SATURATION_GROWTH, SATURATION_Z

    assert backlog_unbounded({"backlog_growth": SATURATION_GROWTH, "backlog_rise_sd": SATURATION_Z})
    assert not backlog_unbounded({"backlog_growth": SATURATION_GROWTH / 2, "backlog_rise_sd": 100.0})
    assert not backlog_unbounded({"backlog_growth": 0.5, "backlog_rise_sd": SATURATION_Z / 2})
    assert not backlog_unbounded({})


# -- item 9: each finished configuration as it completes; --out written incrementally -----------------
def test_replay_prints_each_configuration_as_it_finishes_and_keeps_out_current(tmp_path, capsys, monkeypatch):
    from scheduling.experiments import report

    writes = []
    real = report.write_summaries

    def spy(summaries, path, *args, **kwargs):
        writes.append(len(summaries))
        return real(summaries, path, *args, **kwargs)

    monkeypatch.setattr(report, "write_summaries", spy)
    out_file = tmp_path / "replay.csv"
    code = main(["replay", str(small_trace(tmp_path)), "--allocators", "FlatPool,DHCTree", "--policies",
                 "FCFS,EASY", "--out", str(out_file), *QUICK])
    out = capsys.readouterr().out
    assert code == 0
    done = [line for line in out.splitlines() if line.startswith("finished ")]
    assert [line.split()[1] for line in done] == ["1/4:", "2/4:", "3/4:", "4/4:"]
    assert out.index("finished 4/4") < out.index("topology  allocator")  # before the table
    assert writes[:4] == [1, 2, 3, 4]  # --out rewritten as each configuration finished, then at the end
    assert len(out_file.read_text().splitlines()) == 5 and not (tmp_path / "replay.csv.part").exists()


# -- item 11: smaller things --------------------------------------------------------------------------
def test_list_writes_dprop_sm_as_the_readme_does(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "DPROP-SM/x" in out and "DPROP-SH/x" in out and "AVG-hybrid/x" in out
    assert "DPROP-SM-<float>" not in out and "RSR-<int>" in out


def test_an_error_in_the_top_level_workload_is_reported_at_the_top_level(tmp_path, capsys):
    text = """
        name = "wl"
        topology = "cube:8"
        allocators = ["Buddy"]
        policies = ["FCFS"]
        loads = [0.3]
        jobs = 50
        [workload]
        sizes = { name = "CubeDims", max_dim = 3, bogus = 1 }
        [[experiments]]
        name = "a"
        workload = { service = { name = "Exponential", mean = 2.0 } }
    """
    assert main(["sweep", str(write(tmp_path, text)), "--store", str(tmp_path / "s.sqlite"), *QUICK]) == 2
    err = capsys.readouterr().err
    assert "key 'workload.sizes'" in err and "experiments[0]" not in err and "bogus" in err
    own = text.replace('service = { name = "Exponential", mean = 2.0 }', 'sizes = { name = "CubeDims", max_dim = -3 }')
    assert main(["sweep", str(write(tmp_path, own)), "--store", str(tmp_path / "s.sqlite"), *QUICK]) == 2
    assert "key 'experiments[0].workload.sizes'" in capsys.readouterr().err


def test_target_nan_is_described_as_a_relative_half_width(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--target", "nan"])
    err = capsys.readouterr().err
    assert "relative half-width in (0, 1), got 'nan'" in err and "load width" not in err


def test_run_max_replications_raises_the_files_cap(tmp_path, capsys):
    """``run --max-replications`` overrides a ``[target]``'s ``max``; the points still short are marked."""
    path = write(tmp_path, """
        name = "cap"
        topology = "cube:5"
        allocators = ["Buddy"]
        policies = ["FCFS"]
        loads = [0.4]
        jobs = 120
        [target]
        relative = 0.01
        min = 2
        max = 3
    """)
    store = str(tmp_path / "cap.sqlite")
    assert main(["run", str(path), "--store", store, "--no-plots", *QUICK]) == 0
    assert table_body(capsys.readouterr().out)[0].split()[4] == "3!"
    assert main(["run", str(path), "--store", store, "--no-plots", "--max-replications", "5", *QUICK]) == 0
    out = capsys.readouterr().out
    assert table_body(out)[0].split()[4] == "5!" and "3 of 5 simulations loaded" in out
    assert main(["run", str(path), "--store", store, "--max-replications", "1", *QUICK]) == 2
    err = capsys.readouterr().err
    assert "key '--max-replications': must be an integer >= 2" in err and "got 1" in err


def test_compare_rewrites_out_while_it_runs(tmp_path, capsys, monkeypatch):
    """Issue 32 item 9: ``--out`` was written only at the end; compare and run now rewrite it as rows
    arrive (here on every row: the throttle set to 0 s)."""
    from scheduling.cli import _common
    from scheduling.experiments import report

    writes = []
    real = report.write_summaries

    def spy(summaries, path, *args, **kwargs):
        writes.append(len(summaries))
        return real(summaries, path, *args, **kwargs)

    monkeypatch.setattr(report, "write_summaries", spy)
    monkeypatch.setattr(_common, "OUT_EVERY", 0.0)
    out_file = tmp_path / "c.txt"
    assert main(["compare", "--topology", "cube:5", "--allocators", "Buddy,GrayCode", "--policies", "FCFS",
                 "--loads", "0.3", "--jobs", "120", "--replications", "1", "--out", str(out_file), *QUICK]) == 0
    assert writes == [1, 2, 2]  # after each of the two rows, then the final table
    assert "mean turnaround (t.u.)" in out_file.read_text()

"""The ``topoalloc`` command line, called in-process through ``main(argv)``."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import scheduling
from scheduling.cli import build_parser, main
from scheduling.experiments import PlotSpec, ResultStore, load_study
from scheduling.experiments import registry as reg

# the seed 002 examples (every examples/*.toml is loaded and run by test_examples_toml.py)
EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("seed002_*.toml"))
SMALL = ["--jobs", "120", "--warmup", "10", "--workers", "1", "--no-progress"]


def table_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("---") or line.startswith("----"))
    body = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        body.append(line)
    return body


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"topoalloc {scheduling.__version__}"


def test_every_subcommand_help_shows_an_example():
    parser = build_parser()
    subs = parser._subparsers._group_actions[0].choices
    assert set(subs) == {"compare", "run", "sweep", "replay", "plot", "snapshot", "export", "list", "reproduce"}
    for name, sub in subs.items():
        text = sub.format_help()
        assert "example:" in text and f"topoalloc {name}" in text, name


def test_console_script_is_installed():
    exe = shutil.which("topoalloc")
    if exe is None:
        pytest.skip("the topoalloc console script is not on PATH (package not installed)")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("topoalloc ")


def test_compare_small(tmp_path, capsys):
    out_csv = tmp_path / "table.csv"
    code = main(["compare", "--allocators", "Buddy,FreeList", "--topology", "cube:5", "--loads", "0.4,0.7",
                 "--replications", "3", *SMALL, "--out", str(out_csv)])
    assert code == 0
    captured = capsys.readouterr()
    out = captured.out
    assert captured.err == ""  # no progress bar when stderr is not a terminal
    assert "120 jobs per run (first 10 discarded), 3 replications, seed 0" in out
    rows = table_lines(out)
    assert len(rows) == 2 * 2 * 2
    assert all("cube:5" in r and "±" in r for r in rows)
    assert {r.split()[1] for r in rows} == {"Buddy", "FreeList"} and {r.split()[2] for r in rows} == {"RSR-0", "RSR-1"}
    with open(out_csv) as fh:
        written = list(csv.DictReader(fh))
    assert len(written) == 8 and float(written[0]["utilization_mean"]) > 0
    assert written[0]["replications"] == "3"


def test_compare_store_resumes(tmp_path, capsys):
    store = tmp_path / "c.sqlite"
    args = ["compare", "--allocators", "Buddy", "--topology", "cube:4", "--loads", "0.5", "--replications", "2",
            *SMALL, "--store", str(store)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    second = capsys.readouterr().out
    assert "0 simulations" in second and f"4 of 4 simulations loaded from {store}" in second
    assert table_lines(first) == table_lines(second)
    assert len(ResultStore(store)) == 4


def test_compare_reports_bad_names(capsys):
    assert main(["compare", "--allocators", "Nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown allocator 'Nonesuch'" in err and "FirstFit" in err
    assert main(["compare", "--policies", "RSR-0,Bogus"]) == 2
    assert "unknown policy 'Bogus'" in capsys.readouterr().err
    assert main(["compare", "--topology", "cube:4", "--allocators", "FirstFit"]) == 2
    assert "FirstFit runs on a mesh topology" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", "--loads", "0.5,-1"])


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_load_and_use_available_allocators(path):
    study = load_study(path)
    assert study.description and study.plots
    for exp in study.experiments:
        for alloc in exp.allocators:
            assert reg.canonical_allocator(alloc.name) == alloc.name
        assert exp.jobs == 50500 and exp.warmup == 500  # seed 002 §4.1


def test_run_example_reduced(tmp_path, capsys):
    example = next(p for p in EXAMPLES if "fig5" in p.name)
    store = tmp_path / "fig5.sqlite"
    args = ["run", str(example), "--replications", "2", *SMALL, "--store", str(store), "--plots", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Seed 002 Fig. 5" in out
    rows = table_lines(out)
    assert len(rows) == 6 and {r.split()[0] for r in rows} == {"seed002-fig5/a", "seed002-fig5/b"}
    assert (tmp_path / "seed002-fig5.png").read_bytes()[:4] == b"\x89PNG"
    assert main(args + ["--no-plots"]) == 0
    assert "0 simulations" in capsys.readouterr().out


def test_every_example_runs_reduced(tmp_path, capsys):
    for example in EXAMPLES:
        store = tmp_path / f"{example.stem}.sqlite"
        code = main(["sweep", str(example), "--loads", "0.5", "--replications", "1", "--jobs", "60", "--warmup", "5",
                     "--workers", "1", "--no-progress", "--store", str(store)])
        assert code == 0, example
        study = load_study(example)
        expected = sum(len(e.allocators) * len(e.policies) for e in study.experiments)
        assert len(ResultStore(store)) == expected
    assert "next: topoalloc plot" in capsys.readouterr().out


def test_run_reports_config_errors(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('topology = "mesh:8x8"\nallocators = ["FirstFit"]\npolicies = ["FCFS"]\nloads = [0.5]\n'
                   'workload = { sizes = "Bananas" }\n')
    assert main(["run", str(bad), "--store", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "key 'workload.sizes'" in err and "MeshSides" in err


def test_sweep_plot_export(tmp_path, capsys):
    example = next(p for p in EXAMPLES if "fig2" in p.name)
    store = tmp_path / "fig2.sqlite"
    assert main(["sweep", str(example), "--loads", "0.3,0.6", "--replications", "2", "--jobs", "80", "--warmup", "5",
                 "--workers", "1", "--no-progress", "--store", str(store)]) == 0
    capsys.readouterr()
    figs = tmp_path / "figs"
    assert main(["plot", str(store), "--out", str(figs), "--dpi", "30"]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in figs.iterdir()) == ["seed002-fig2-utilization.png", "seed002-fig2.png"]
    assert out.count("figure:") == 2
    assert main(["plot", str(store), "--out", str(figs), "--kind", "fairness", "--load", "0.6", "--dpi", "30"]) == 0
    assert (figs / "seed002-fig2-fairness.png").exists()
    out_csv = tmp_path / "rows.csv"
    assert main(["export", str(store), str(out_csv)]) == 0
    with open(out_csv) as fh:
        assert len(list(csv.DictReader(fh))) == 2 * 5 * 2 * 2  # variants x policies x loads x replications
    no_timing = tmp_path / "rows-nt.csv"
    assert main(["export", str(store), str(no_timing), "--no-timing"]) == 0
    head = no_timing.read_text().splitlines()[0].split(",")
    assert "wall_time" not in head and "finished_at" not in head and "semantics" in head
    assert out_csv.read_text().splitlines()[0].endswith(",wall_time,finished_at")
    assert main(["plot", str(tmp_path / "missing.sqlite")]) == 2
    assert main(["export", str(store), str(tmp_path / "rows.json")]) == 2


SWF = """; Version: 2.2
; MaxProcs: 16
    1    0   -1   100   4   -1   -1   4   200   -1   1   1   -1   -1   -1   -1   -1   -1
    2   10   -1    50  16   -1   -1  16   100   -1   1   1   -1   -1   -1   -1   -1   -1
    3   20   -1    30   2   -1   -1   2    60   -1   1   1   -1   -1   -1   -1   -1   -1
    4   25   -1    40   8   -1   -1   8    80   -1   1   1   -1   -1   -1   -1   -1   -1
    5   30   -1    10   1   -1   -1   1    20   -1   1   1   -1   -1   -1   -1   -1   -1
    6   90   -1    20  32   -1   -1  32    20   -1   1   1   -1   -1   -1   -1   -1   -1
"""


def test_replay_a_tiny_trace(tmp_path, capsys):
    pytest.importorskip("scheduling.formats.swf_load", reason="replay needs the SWF reader")
    trace = tmp_path / "tiny.swf"
    trace.write_text(SWF)
    assert main(["replay", str(trace), "--policies", "FCFS,RSR-1", "--topology", "cube:4", "--allocators", "Buddy",
                 "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "5 jobs kept" in out and "too large" in out  # the 32-processor job does not fit 16
    rows = table_lines(out)
    assert len(rows) == 2 and all(r.split()[3] == "trace" for r in rows)
    # FCFS: job 2 (16 procs) waits for job 1 (ends at 100); the others queue behind it
    fcfs = next(r for r in rows if "FCFS" in r)
    assert float(fcfs.split()[6]) > 0  # mean wait
    assert main(["replay", str(trace), "--loads", "0.5", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "flat:16" in out and "rescaled" in out
    assert main(["replay", str(tmp_path / "none.swf")]) == 2


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


def test_replay_finds_bare_trace_names_in_the_traces_directory(tmp_path, monkeypatch, capsys):
    import gzip

    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "tiny.swf.gz").write_bytes(gzip.compress(SWF.encode()))
    monkeypatch.setenv("TOPOALLOC_TRACES", str(traces))
    monkeypatch.chdir(tmp_path)
    for name in ("tiny", "tiny.swf.gz"):
        assert main(["replay", name, "--topology", "cube:4", "--workers", "1", "--no-progress"]) == 0
        assert "tiny.swf.gz: 8 lines, 6 records, 5 jobs kept" in capsys.readouterr().out
    assert main(["replay", "nonesuch", "--workers", "1"]) == 2
    err = _one_line_error(capsys)
    assert "no such trace file: nonesuch" in err and "tiny.swf.gz" in err and "TOPOALLOC_TRACES" in err


def test_replay_oversize_choices(tmp_path, capsys):
    trace = tmp_path / "tiny.swf"
    trace.write_text(SWF)
    run = ["--topology", "mesh:4x4", "--workers", "1", "--no-progress"]
    assert main(["replay", str(trace), *run, "--oversize", "clamp"]) == 0
    assert "6 jobs kept; 1 clamped to the machine" in capsys.readouterr().out
    assert main(["replay", str(trace), *run, "--oversize", "error"]) == 2
    assert "tiny.swf: line 8: job 6 needs 32 processors, the machine has 16" in _one_line_error(capsys)
    assert main(["replay", str(trace), *run]) == 0
    assert "1 skipped: too large for the machine" in capsys.readouterr().out
    help_text = build_parser()._subparsers._group_actions[0].choices["replay"].format_help()
    assert "--oversize {skip,clamp,error}" in help_text and "w = ceil(sqrt(n))" in help_text
    assert "smallest subcube" in help_text


@pytest.mark.parametrize("content, message", [
    (None, "is a directory, not an SWF trace file"),
    ("truncated", "truncated gzip file"),
    ("", "no job to simulate: t.swf has no data line (an empty file)"),
    ("; MaxProcs: 16\n;\n", "no job to simulate: t.swf has no data line (2 lines, only comments and blank lines)"),
    ("; MaxProcs: 16\n1 0 -1 -1 4 -1 -1 4 -1 -1 1 1 -1 -1 -1 -1 -1 -1\nnot data\n",
     "no job to simulate: the one record of t.swf was skipped (1 malformed line, 1 unknown run time)"),
    ("; MaxProcs: 64\n1 0 -1 10 40 -1 -1 40 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n",
     "no job of the trace fits flat:16"),
])
@pytest.mark.parametrize("topology", [None, "flat:16"])
def test_replay_of_a_file_without_jobs_or_not_a_trace_is_one_line(tmp_path, capsys, content, message, topology):
    import gzip

    path = tmp_path / "t.swf"
    if content is None:
        path.mkdir()
    elif content == "truncated":
        path.write_bytes(gzip.compress(SWF.encode() * 50)[:200])
    else:
        path.write_text(content)
    if topology is None and "fits" in message:  # the default machine is the header's 64 processors: it fits
        assert main(["replay", str(path), "--workers", "1", "--no-progress"]) == 0
        return
    args = ["replay", str(path), "--workers", "1", "--no-progress"] + (["--topology", topology] if topology else [])
    assert main(args) == 2
    err = _one_line_error(capsys)
    assert err.startswith("topoalloc replay: error: ") and message in err and "t.swf" in err


def test_snapshot_pictures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    occ, sched = tmp_path / "occ.png", tmp_path / "sched.png"
    assert main(["snapshot", "--topology", "mesh:8x8", "--allocator", "FrameSliding", "--jobs", "40", "--count", "3",
                 "--out", str(occ), "--schedule", str(sched)]) == 0
    assert occ.read_bytes()[:4] == b"\x89PNG" and sched.read_bytes()[:4] == b"\x89PNG"
    assert main(["snapshot", "--topology", "cube:4", "--allocator", "FirstFit"]) == 2
    assert "runs on a mesh" in capsys.readouterr().err


def test_snapshot_writes_only_what_was_asked_for(tmp_path, monkeypatch):
    """Issue 32 item 10: --schedule alone wrote an occupancy.png nobody asked for."""
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert main(["snapshot", "--topology", "mesh:8x8", "--jobs", "30", "--count", "2", "--schedule", "s.png"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.png"]


def test_list_names_every_allocator_including_a_users(monkeypatch, capsys):
    import topoalloc
    from topoalloc import registry as allocators

    monkeypatch.setattr(allocators, "_ALLOCATORS", dict(allocators._ALLOCATORS))
    topoalloc.register("Phantom", topoalloc.Naive, help="a user's allocator")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in reg.allocator_names():
        assert name in out
    assert "a user's allocator" in out.split("Phantom", 1)[1].splitlines()[0]
    assert "RSR-<int>" in out and "MeshSides" in out


def test_stored_run_reads_back_what_run_stored(tmp_path, monkeypatch):
    from scheduling.cli import main, stored_run

    monkeypatch.chdir(tmp_path)
    config = Path(__file__).resolve().parents[3] / "examples" / "seed002_fig5_cube_fairness.toml"
    args = ["--jobs", "300", "--warmup", "30", "--replications", "2", "--loads", "0.5", "--no-plots", "--no-progress"]
    assert main(["run", str(config), *args]) == 0
    run = stored_run(config, args)
    points = run.study.points()
    assert len(run.rows) == 2 * len(points)  # every point, both replications
    assert [s.n for s in run.summaries] == [2] * len(points)
    assert [r["replication"] for r in run.rows[:2]] == [0, 1]


def test_run_then_a_longer_run_shows_and_draws_only_the_longer_one(tmp_path, capsys, monkeypatch):
    """The README's preview-then-full-run workflow on one store: the second table and its figures
    hold only the second configuration's rows."""
    from scheduling import plots

    good = tmp_path / "good.toml"
    good.write_text('name = "good"\ntopology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["RSR-0", "RSR-1"]\n'
                    'loads = [0.5]\njobs = 300\nwarmup = 30\nreplications = 3\n')
    store = tmp_path / "R.sqlite"
    base = ["run", str(good), "--store", str(store), "--workers", "1", "--no-progress", "--no-plots"]
    assert main(base) == 0
    capsys.readouterr()
    assert main([*base, "--jobs", "600"]) == 0
    out = capsys.readouterr().out
    assert len(table_lines(out)) == 2 and "0 of 6 simulations loaded" in out
    class NoFigure:
        def savefig(self, *args, **kwargs):
            pass

    drawn = []

    def load_figure(summaries, *args, **kwargs):
        drawn.append(list(summaries))
        return NoFigure()

    monkeypatch.setattr(plots, "load_figure", load_figure)
    plots.study_figures(ResultStore(store), tmp_path, specs=[PlotSpec("load")])
    (summaries,) = drawn
    assert len(summaries) == 2 and {s.n for s in summaries} == {3}
    rows = ResultStore(store).rows(point_ids=[s.point_id for s in summaries])
    assert {r["jobs"] for r in rows} == {600}


def test_compare_reports_and_draws_placement_metrics(tmp_path, capsys):
    import csv

    pytest.importorskip("matplotlib")
    figs, table = tmp_path / "figs", tmp_path / "t.csv"
    assert main(["compare", "--allocators", "FirstFit,Random", "--loads", "0.2", "--jobs", "300",
                 "--replications", "3", "--comm", "0.5:1", "--runtime-model", "dilation", "--out", str(table),
                 "--metrics", "mean_turnaround,mean_hops", "--plots", str(figs), "--no-progress",
                 "--workers", "1"]) == 0
    assert "mean pairwise hops per job" in capsys.readouterr().out
    rows = list(csv.DictReader(table.open()))
    hops = {r["allocator"]: float(r["mean_hops_mean"]) for r in rows if r["policy"] == "RSR-0"}
    assert hops["Random"] > hops["FirstFit"] > 0  # Random scatters its nodes
    assert (figs / "compare-mean_hops.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("flags,match", [
    (["--metrics", "nope"], "unknown metric 'nope'"),
    (["--comm", "1.5"], "--comm must be a number in \\[0, 1\\]"),
    (["--comm", "0.9:0.1"], "LOW <= HIGH"),
    (["--runtime-model", "dilation"], "--runtime-model needs --comm"),
    (["--comm", "0.5", "--runtime-model", "teleport"], "--runtime-model must be"),
    (["--comm", "0.5", "--runtime-model", "hop-bytes:ring"], "unknown communication pattern 'ring'"),
])
def test_compare_refuses_bad_placement_options(flags, match, capsys):
    assert main(["compare", "--allocators", "FirstFit", "--jobs", "100", *flags]) == 2
    assert re.search(match, capsys.readouterr().err)

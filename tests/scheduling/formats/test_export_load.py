"""Trace files recognised and loaded whatever their format; schedules exported as Batsim or SWF files."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from scheduling import Job, simulate
from scheduling.formats import EXPORT_FORMATS, export, export_name
from scheduling.formats.batsim import BatsimError
from scheduling.formats.batsim_jobs import read_jobs_csv, write_jobs_csv
from scheduling.formats.load import TraceFormatError, detect_format, load_trace, replay_recorded
from scheduling.formats.sacct import read_sacct
from scheduling.workloads import load_swf, read_placements, read_swf
from topoalloc import FirstFree, FlatPool
from topologies import Flat, Mesh, SwitchTree
from topologies.errors import ParameterError
from topologies.tree_files import read_slurm_topology_conf

from .test_sacct import TOPOLOGY_CONF, dump

SWF = "; MaxProcs: 8\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 30 0 50 8 -1 -1 8 -1 -1 1 1 1 -1 1 -1 -1 -1\n" \
      "3 40 0 20 12 -1 -1 12 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
WORKLOAD = {"nb_res": 8, "profiles": {"d": {"type": "delay", "delay": 100}, "e": {"type": "delay", "delay": 50}},
            "jobs": [{"id": "1", "subtime": 0, "res": 4, "profile": "d", "walltime": 200},
                     {"id": "2", "subtime": 30, "res": 8, "profile": "e"},
                     {"id": "3", "subtime": 40, "res": 12, "profile": "e"}]}


@pytest.fixture()
def files(tmp_path):
    out = {"swf": tmp_path / "t.swf", "swf.gz": tmp_path / "t.swf.gz", "batsim": tmp_path / "w.json",
           "batsim.gz": tmp_path / "w.json.gz", "sacct": tmp_path / "site.log", "jobs": tmp_path / "x_jobs.csv"}
    out["swf"].write_text(SWF)
    out["swf.gz"].write_bytes(gzip.compress(SWF.encode()))
    out["batsim"].write_text(json.dumps(WORKLOAD, indent=1))
    out["batsim.gz"].write_bytes(gzip.compress(json.dumps(WORKLOAD).encode()))
    out["sacct"].write_text(dump())
    out["jobs"].write_text("job_id,workload_name,submission_time\n1,w0,0\n")
    return out


def test_formats_are_recognised_by_content_not_name(files, tmp_path):
    assert {k: detect_format(p) for k, p in files.items()} == {
        "swf": "swf", "swf.gz": "swf", "batsim": "batsim", "batsim.gz": "batsim", "sacct": "sacct",
        "jobs": "batsim-jobs"}
    odd = tmp_path / "notes.swf"
    odd.write_text("Dear colleague,\n")
    with pytest.raises(TraceFormatError, match=r"notes\.swf: not a trace of a known format .* 'Dear colleague,'"):
        detect_format(odd)
    with pytest.raises(FileNotFoundError):
        detect_format(tmp_path / "missing.swf")


def test_each_format_loads_as_jobs_with_a_report(files):
    swf = load_trace(files["swf"], Flat(8))
    assert [(j.id, j.size) for j in swf] == [(j.id, j.size) for j in load_swf(files["swf"], topology=Flat(8))]
    batsim = load_trace(files["batsim.gz"], Flat(8))
    assert [(j.id, j.arrival, j.size, j.runtime) for j in batsim] == [(j.id, j.arrival, j.size, j.runtime) for j in swf]
    assert batsim.report.counts == swf.report.counts == {"too large for the machine": 1}
    tree = read_slurm_topology_conf(TOPOLOGY_CONF)
    sacct = load_trace(files["sacct"], tree)
    assert [j.id for j in sacct] == [j.id for j in read_sacct(files["sacct"], tree)]
    assert sacct[0].attrs["nodes"].tolist() == [0, 1]
    flat = load_trace(files["sacct"], Flat(12))  # not the site's tree: node names are not mapped
    assert flat[0].attrs["nodes"] is None
    assert len(flat) == len(sacct) + 2  # jobs 115 and 123: their node lists are not checked against NNodes
    with pytest.raises(TraceFormatError, match="a Batsim _jobs.csv is a schedule"):
        load_trace(files["jobs"])


def test_oversized_jobs_skip_clamp_or_stop(files):
    clamped = load_trace(files["batsim"], Flat(8), too_large="clamp")
    assert [j.size for j in clamped] == [4, 8, 8] and clamped.report.clamped == [3]
    assert clamped.machine_size == 8
    with pytest.raises(BatsimError, match=r"requests 12 resources, the machine has 8"):
        load_trace(files["batsim"], Flat(8), too_large="error")
    with pytest.raises(TraceFormatError, match="too_large must be"):
        load_trace(files["batsim"], too_large="shrink")


def test_requests_are_made_for_the_topology_and_arrival_gaps_scaled(files):
    on_mesh = load_trace(files["batsim"], Mesh(4, 2), rate_factor=2.0)
    assert [j.request for j in on_mesh] == [Mesh(4, 2).request_for(4), Mesh(4, 2).request_for(8)]
    assert [j.arrival for j in on_mesh] == [0.0, 15.0]
    assert on_mesh.report.counts == {"too large for the machine": 1}
    with pytest.raises(TraceFormatError, match="rate_factor must be a finite number > 0"):
        load_trace(files["batsim"], rate_factor=0)


def _tree_result():
    tree = SwitchTree.uniform((2, 4))
    jobs = [Job(i, float(i), 1 + i % 3, 10.0 + i, estimate=30.0, size=1 + i % 3) for i in range(8)]
    return simulate(FirstFree(tree), "FCFS", jobs, jobs=None, record_placement=True), jobs


def test_export_batsim_writes_a_jobs_file_that_reads_back(tmp_path):
    r, jobs = _tree_result()
    (path,) = export(r, "batsim", tmp_path / "out" / "deeper", export_name("FirstFree", "FCFS", "trace"), jobs=jobs)
    assert path.name == "FirstFree-FCFS-trace_jobs.csv" and path.parent.name == "deeper"
    back = read_jobs_csv(path)
    assert back.schedule() == r.schedule()
    assert all(back.placements[i].tolist() == r.placements[i].tolist() for i in r.id.tolist())


def test_export_swf_writes_the_schedule_and_its_nodes(tmp_path):
    r, jobs = _tree_result()
    paths = export(r, "swf", tmp_path, "ff", jobs=jobs)
    assert [p.name for p in paths] == ["ff.swf", "ff.swf.nodes.csv"]
    header, records, report = read_swf(paths[0])
    assert header.max_procs == 8 and len(records) == len(r) and not report.skipped
    nodes = read_placements(paths[1])
    assert {k: v.tolist() for k, v in nodes.items()} == {k: v.tolist() for k, v in r.placements.items()}
    flat = simulate(FlatPool(Flat(4)), "FCFS", [Job(0, 0.0, 2, 1.0)], jobs=None)
    assert [p.name for p in export(flat, "swf", tmp_path, "flat")] == ["flat.swf"]


@pytest.mark.parametrize("fmt,name,message", [
    ("csv", "x", "export format must be one of batsim, swf, got 'csv'"),
    ("batsim", "", "export name must be a file stem"),
    ("batsim", "a/b", "export name must be a file stem"),
    ("swf", "..", "export name must be a file stem"),
])
def test_export_refuses_a_bad_format_or_name(tmp_path, fmt, name, message):
    r, _ = _tree_result()
    with pytest.raises(ParameterError, match=message):
        export(r, fmt, tmp_path, name)


def test_export_names_and_formats():
    assert EXPORT_FORMATS == ("batsim", "swf")
    assert export_name("KueueTAS", "EASY", "load 0.8", None) == "KueueTAS-EASY-load_0.8"
    assert export_name("a/b", "c:d") == "a_b-c_d"
    with pytest.raises(ParameterError):
        export_name("///")


def test_a_site_log_replayed_and_exported_keeps_its_recorded_nodes(tmp_path):
    tree = read_slurm_topology_conf(TOPOLOGY_CONF)
    trace = load_trace(_write(tmp_path, dump()), tree)
    r = replay_recorded(trace)
    (path,) = export(r, "batsim", tmp_path, "recorded", jobs=trace, workload_name="site")
    back = read_jobs_csv(path)
    by_id = {j.id: j for j in trace}
    assert back.ids.tolist() == r.id.tolist()
    for i in back.ids.tolist():
        assert back.placements[i].tolist() == by_id[i].attrs["nodes"].tolist()
    states = dict(zip(back.ids.tolist(), back.final_state, strict=True))
    assert states[103] == "COMPLETED_FAILED" and states[104] == "COMPLETED_WALLTIME_REACHED"
    assert states[113] == "COMPLETED_KILLED" and states[101] == "COMPLETED_SUCCESSFULLY"
    assert np.array_equal(back.requested_time[back.ids == 104], [1800.0])


def _write(folder, text):
    path = folder / "site.sacct"
    path.write_text(text)
    return path


def test_jobs_files_written_for_a_flat_machine_keep_counts(tmp_path):
    r = simulate(FlatPool(Flat(4)), "FCFS", [Job(0, 0.0, 2, 1.5), Job(1, 0.25, 4, 1.0)], jobs=None)
    write_jobs_csv(tmp_path / "f_jobs.csv", r)
    back = read_jobs_csv(tmp_path / "f_jobs.csv")
    assert back.requested_number_of_resources.tolist() == [2, 4] and back.finish_time.tolist() == [1.5, 2.5]


def test_node_names_are_mapped_as_map_nodes_says(files):
    tree = read_slurm_topology_conf(TOPOLOGY_CONF)
    assert load_trace(files["sacct"], tree)[0].attrs["nodes"].tolist() == [0, 1]
    unmapped = load_trace(files["sacct"], tree, map_nodes=False)  # a tree by its level counts: made-up names
    assert unmapped[0].attrs["nodes"] is None and len(unmapped) == len(load_trace(files["sacct"], Flat(12)))
    with pytest.raises(TraceFormatError, match="map_nodes=True needs a SwitchTree"):
        load_trace(files["sacct"], Flat(12), map_nodes=True)


def test_a_truncated_or_corrupt_gzip_is_reported_by_the_formats_reader(tmp_path):
    """Recognising a format reads the first 8 KiB that decompress; the rest is the reader's to judge."""
    from scheduling.workloads import SWFReadError

    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(gzip.compress((SWF * 400).encode())[:300])
    assert detect_format(cut) == "swf"
    with pytest.raises(SWFReadError, match="truncated gzip file"):
        load_trace(cut)
    big = json.dumps({**WORKLOAD, "jobs": WORKLOAD["jobs"] * 300}).encode()
    cut_json = tmp_path / "cut.json.gz"
    cut_json.write_bytes(gzip.compress(big)[:200])
    assert detect_format(cut_json) == "batsim"
    with pytest.raises(BatsimError, match="cut.json.gz: is not a valid gzip file"):
        load_trace(cut_json)


def test_every_public_name_is_what_its_module_defines_even_after_importing_every_module():
    """A package attribute named like one of its modules is replaced by the module once that is
    imported; no public name of scheduling.formats may be a module's name."""
    import importlib
    import pkgutil
    import types

    import scheduling.formats as formats

    for info in pkgutil.iter_modules(formats.__path__):
        importlib.import_module(f"scheduling.formats.{info.name}")
    assert not [n for n in formats.__all__ if isinstance(getattr(formats, n), types.ModuleType)]
    assert formats.export.__module__ == "scheduling.formats.schedule_export"

"""Batsim's formats: interval sets, the workload JSON read and written, ``_jobs.csv`` written and read back,
and the file checked against Batsim's documented column rules."""

from __future__ import annotations

import gzip
import io
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import Job, simulate
from scheduling.formats import batsim
from scheduling.formats._columns import _decimal_fields, _field_strings, _float_text, _int_text, _split_fields
from scheduling.formats._procset import (
    IntervalSetError,
    format_column,
    format_intervals,
    parse_column,
    parse_intervals,
)
from scheduling.formats.batsim import FINAL_STATES, JOBS_COLUMNS, BatsimError, read_workload, write_workload
from scheduling.formats.batsim_jobs import read_jobs_csv, write_jobs_csv
from scheduling.workloads import load_swf
from topoalloc import FirstFree, SlurmTree
from topologies import SwitchTree

# -- interval sets ----------------------------------------------------------------------------------


def test_interval_set_examples_of_the_batsim_documentation():
    """Batsim docs/interval-set.rst: {1, 2, 3, 5, 7} "can be represented as 1-3 5 7, 1-2 3 5 7, 1 2 3 5 7,
    1-2 1-3 5 7 or even 5 2-2 7 1-3"; its canonical form is 1-3 5 7; [37, 42] is 37-42."""
    for text in ("1-3 5 7", "1-2 3 5 7", "1 2 3 5 7", "1-2 1-3 5 7", "5 2-2 7 1-3"):
        assert parse_intervals(text).tolist() == [1, 2, 3, 5, 7]
    assert format_intervals([1, 2, 3, 5, 7]) == "1-3 5 7"
    assert format_intervals(range(37, 43)) == "37-42"
    assert format_intervals([4]) == "4" and format_intervals([]) == ""


_CANONICAL = re.compile(r"^(\d+(-\d+)?( \d+(-\d+)?)*)?$")


def _is_canonical(text: str) -> bool:
    """Batsim's canonical rules: disjoint, maximal, single ids alone, ascending."""
    if not _CANONICAL.match(text):
        return False
    prev = None
    for part in text.split():
        a, _, b = part.partition("-")
        lo, hi = int(a), int(b or a)
        if b and lo >= hi:  # a-a is not canonical, a > b is not an interval
            return False
        if prev is not None and lo <= prev + 1:  # overlapping or adjacent: not maximal
            return False
        prev = hi
    return True


@given(st.sets(st.integers(0, 300), max_size=60))
def test_any_set_is_written_canonically_and_read_back_exactly(ids):
    text = format_intervals(ids)
    assert _is_canonical(text)
    assert parse_intervals(text).tolist() == sorted(ids)


@given(st.lists(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5)), max_size=6), max_size=12))
def test_a_column_of_any_writings_parses_as_each_string_alone(spec):
    """Non-canonical writings (overlaps, any order, a-a) of a whole column at once."""
    texts = [" ".join(f"{a}-{a + k}" if k else str(a) for a, k in sets) for sets in spec]
    ids, offsets = parse_column(texts)
    assert offsets.size == len(texts) + 1
    for i in range(len(texts)):
        want = sorted({v for a, k in spec[i] for v in range(a, a + k + 1)})
        assert ids[offsets[i]:offsets[i + 1]].tolist() == want
    assert format_column(ids, offsets) == [format_intervals(ids[offsets[i]:offsets[i + 1]]) for i in range(len(texts))]


@pytest.mark.parametrize("text,problem", [
    ("1-", "'-' not between"), ("-1", "'-' not between"), ("1--2", "'-' not between"), ("1-2-3", "two '-'"),
    ("3-1", "a > b"), ("1,2", "character other"), ("x", "character other"), ("1\n2", "character other"),
])
def test_a_bad_interval_set_is_an_error_naming_it(text, problem):
    with pytest.raises(IntervalSetError, match=re.escape(problem)) as info:
        parse_intervals(text)
    assert info.value.text == text


def test_a_bad_string_in_a_column_is_named_with_its_position():
    with pytest.raises(IntervalSetError) as info:
        parse_column(["0-3", "4 5", "7-6", "9"])
    assert (info.value.index, info.value.text) == (2, "7-6")


def test_writing_refuses_ids_that_are_not_ascending_and_distinct():
    with pytest.raises(IntervalSetError, match="ascending"):
        format_column(np.array([3, 1]), np.array([0, 2]))


# -- workloads --------------------------------------------------------------------------------------

#: Profiles of each kind Batsim documents (docs/input-workload.rst), the parallel task's matrix the page's
#: own example (cpu [5e6, 0, 0, 0]; com rows [5e6, 0, 0, 0], [5e6, 5e6, 0, 0], [5e6, 5e6, 0, 0], [5e6, 5e6, 5e6, 0]).
WORKLOAD = {
    "nb_res": 4,
    "jobs": [
        {"id": "delay", "subtime": 0, "walltime": 30, "res": 1, "profile": "delay"},
        {"id": "simple", "subtime": 1, "walltime": 100, "res": 4, "profile": "simple"},
        {"id": "homo", "subtime": 10, "walltime": 100, "res": 4, "profile": "homogeneous"},
        {"id": "total2", "subtime": 15, "walltime": 30, "res": 2, "profile": "homogeneous_total"},
        {"id": "total4", "subtime": 15, "res": 4, "profile": "homogeneous_total"},
        {"id": "seq", "subtime": 32, "walltime": 100, "res": 4, "profile": "sequence"},
        {"id": "smpi", "subtime": 40, "res": 2, "profile": "trace"},
    ],
    "profiles": {
        "delay": {"type": "DelayProfile", "delay": 20.20},
        "simple": {"type": "ParallelTaskProfile", "cpu": [5e6, 0, 0, 0],
                   "com": [5e6, 0, 0, 0, 5e6, 5e6, 0, 0, 5e6, 5e6, 0, 0, 5e6, 5e6, 5e6, 0]},
        "homogeneous": {"type": "parallel_homogeneous", "cpu": 10e6, "com": 1e6},
        "homogeneous_total": {"type": "ParallelTaskHomogeneousProfile", "cpu": 10e6, "com": 1e6,
                              "generation_strategy": "DefinedAmountsSpreadUniformly"},
        "sequence": {"type": "composed", "repeat": 4, "seq": ["simple", "homogeneous", "simple"]},
        "trace": {"type": "smpi", "trace": "smpi/compute_only/traces.txt"},
    },
}


def _text(doc: dict) -> io.StringIO:
    return io.StringIO(json.dumps(doc, indent=2))


def test_run_times_of_each_profile_type_on_a_platform():
    """Hand-computed with 1e6 flop/s hosts and 1e6 B/s links (the parallel task lasts as long as its most
    loaded resource): the documentation's matrix sends and receives 15e6 bytes per host -> 15 s against
    5 s of computation; homogeneous 10e6 flops -> 10 s against 2 (n-1) 1e6 B = 6 s; spread over n: 5 s (n=2),
    2.5 s (n=4); the sequence 4 x (15 + 10 + 15) = 160 s; delay 20.2 s; the SMPI replay has no run time."""
    w = read_workload(_text(WORKLOAD), host_speed=1e6, bandwidth=1e6)
    got = {j.attrs["batsim_id"]: j.runtime for j in w}
    assert got == {"delay": 20.2, "simple": 15.0, "homo": 10.0, "total2": 5.0, "total4": 2.5, "seq": 160.0}
    lines = json.dumps(WORKLOAD, indent=2).splitlines()
    (skip,) = w.report.skipped
    assert skip.reason == "no run time for this profile type"
    assert lines[skip.line - 1].strip() == "{" and '"id": "smpi"' in lines[skip.line]  # the line of the job's {
    assert "jobs[6] (id 'smpi')" in w.report.skipped[0].detail
    simple = next(j for j in w if j.attrs["batsim_id"] == "simple")
    assert simple.attrs["com"].shape == (4, 4) and simple.attrs["com"][3].tolist() == [5e6, 5e6, 5e6, 0]
    assert simple.comm == 0.0 and not simple.attrs["com"].flags.writeable
    assert next(j for j in w if j.attrs["batsim_id"] == "homo").attrs["com_per_pair"] == 1e6
    assert [j.id for j in w] == list(range(6))  # not every id is an integer: positions in the file


def test_without_a_platform_parallel_tasks_are_skipped_and_reported():
    w = read_workload(_text(WORKLOAD))
    assert [j.attrs["batsim_id"] for j in w] == ["delay"]
    assert w.report.counts == {"no run time without a platform": 5, "no run time for this profile type": 1}
    assert w.report.records == 7 and w.report.jobs == 1


def test_a_workload_read_and_written_back_keeps_every_job_and_profile(tmp_path):
    w = read_workload(_text(WORKLOAD))
    out = tmp_path / "w.json.gz"
    assert write_workload(out, w) == 7
    assert json.loads(gzip.decompress(out.read_bytes())) == WORKLOAD
    again = read_workload(out)
    assert [(j.id, j.arrival, j.runtime, j.estimate) for j in again] == [(j.id, j.arrival, j.runtime, j.estimate)
                                                                          for j in w]


def test_integer_ids_are_the_job_ids_and_jobs_come_in_arrival_order():
    doc = {"nb_res": 8, "profiles": {"d": {"type": "delay", "delay": 3}},
           "jobs": [{"id": "7", "subtime": 5.5, "res": 2, "profile": "d"}, {"id": 3, "subtime": 1, "res": 8,
                                                                            "profile": "d", "walltime": -1}]}
    w = read_workload(doc)
    assert [(j.id, j.arrival, j.size, j.estimate) for j in w] == [(3, 1.0, 8, None), (7, 5.5, 2, None)]
    assert w.report.reordered == 1


def test_jobs_of_any_trace_written_as_a_workload_read_back_exactly(tmp_path):
    rng = np.random.default_rng(3)
    jobs = [Job(i, float(t), int(n), float(r), estimate=float(r) * 2 + 0.125, size=int(n))
            for i, (t, n, r) in enumerate(zip(np.sort(rng.uniform(0, 1e5, 40)), rng.integers(1, 9, 40),
                                              rng.uniform(0, 5e3, 40), strict=True))]
    path = tmp_path / "w.json"
    write_workload(path, jobs, nb_res=8, batsim5=True)
    doc = json.loads(path.read_text())
    assert {p["type"] for p in doc["profiles"].values()} == {"DelayProfile"}
    back = read_workload(path)
    assert [(j.id, j.arrival, j.size, j.runtime, j.estimate) for j in back] == \
        [(j.id, j.arrival, j.size, j.runtime, j.estimate) for j in jobs]


def test_an_swf_trace_becomes_a_batsim_workload(tmp_path):
    swf = ("; MaxProcs: 16\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
           "2 30 0 50.5 16 -1 -1 16 -1 -1 1 1 1 -1 1 -1 -1 -1\n")
    trace = load_swf(io.StringIO(swf))
    write_workload(tmp_path / "w.json", trace)
    w = read_workload(tmp_path / "w.json")
    assert w.machine_size == 16
    assert [(j.id, j.arrival, j.size, j.runtime, j.estimate) for j in w] == [(1, 0.0, 4, 100.0, 200.0),
                                                                            (2, 30.0, 16, 50.5, 50.5)]


# -- bad input --------------------------------------------------------------------------------------
def test_malformed_json_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"nb_res": 4,\n "jobs": [\n  {"id": "1", "subtime": 0,, "res": 1}\n ]}\n')
    with pytest.raises(BatsimError, match=r"bad\.json, line 3: malformed JSON at column 28: Expecting") as info:
        read_workload(path)
    assert info.value.line == 3


def test_an_unknown_profile_type_is_an_error_naming_the_profile_and_its_line():
    doc = json.loads(json.dumps(WORKLOAD))
    doc["profiles"]["odd"] = {"type": "quantum", "qubits": 3}
    with pytest.raises(BatsimError, match=r"line \d+: profile 'odd': unknown profile type 'quantum'") as info:
        read_workload(_text(doc))
    assert json.dumps(doc, indent=2).splitlines()[info.value.line - 1].strip().startswith('"odd"')


def test_delays_whose_sum_overflows_are_read_and_a_composed_overflow_is_a_reported_skip():
    """Each delay of 1e308 is a valid (finite) run time, though two of them sum past the largest
    float: the reader's one-sum check of the delays falls back to checking each (it raised
    OverflowError before), and a composed profile whose parts' sum overflows skips its job with
    the reason, as a profile without a run time does."""
    delays = {"nb_res": 4, "profiles": {"a": {"type": "delay", "delay": 1e308}, "b": {"type": "delay", "delay": 1e308}},
              "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "a"},
                       {"id": "2", "subtime": 1, "res": 1, "profile": "b"}]}
    for indent in (None, 2):  # the byte reader's layout and the JSON reader's
        w = read_workload(io.BytesIO(json.dumps(delays, indent=indent).encode()))
        assert [j.runtime for j in w] == [1e308, 1e308]
    composed = {"nb_res": 4, "profiles": {"a": {"type": "delay", "delay": 1e308},
                                          "c": {"type": "composed", "seq": ["a", "a"]}},
                "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "c"},
                         {"id": "2", "subtime": 1, "res": 1, "profile": "a"}]}
    w = read_workload(_text(composed))
    assert [j.id for j in w] == [2]
    (s,) = w.report.skipped
    assert s.reason == "its parts' run times sum past the largest float"
    assert s.detail == "jobs[0] (id '1'): profile 'c' of type 'composed'"


def test_a_job_larger_than_the_machine_is_skipped_and_reported_or_refused():
    doc = {"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 1}},
           "jobs": [{"id": "1", "subtime": 0, "res": 2, "profile": "d"},
                    {"id": "2", "subtime": 0, "res": 6, "profile": "d"}]}
    w = read_workload(_text(doc))
    assert [j.id for j in w] == [1]
    (s,) = w.report.skipped
    assert (s.reason, s.detail) == ("too large for the machine", "jobs[1] (id '2'): res = 6 > 4")
    lines = json.dumps(doc, indent=2).splitlines()
    assert lines[s.line - 1].strip() == "{" and '"id": "2"' in lines[s.line]
    message = rf"line {s.line}: jobs\[1\] \(id '2'\): requests 6 resources, the machine has 4"
    with pytest.raises(BatsimError, match=message):
        read_workload(_text(doc), too_large="error")
    assert len(read_workload(_text(doc), machine_size=8)) == 2


@pytest.mark.parametrize("change,message", [
    (lambda d: d["jobs"][0].pop("res"), r"jobs\[0\] \(id '1'\) has no 'res'"),
    (lambda d: d["jobs"][0].update(res=2.5), r"'res' must be a positive integer, got 2.5"),
    (lambda d: d["jobs"][0].update(res=0), r"'res' must be a positive integer, got 0"),
    (lambda d: d["jobs"][0].update(subtime="soon"), r"'subtime' must be a number, got \"soon\""),
    (lambda d: d["jobs"][0].update(profile="nope"), r"'profile' 'nope' is not a profile"),
    (lambda d: d["jobs"].append(dict(d["jobs"][0])), r"repeats an earlier job's id"),
    (lambda d: d["profiles"]["p"].update(com=[1, 2, 3]), r"profile 'p': 'com' has 3 values, 2 x 2 = 4 needed"),
    (lambda d: d["profiles"].update(q={"type": "composed", "seq": ["q"]}) or d["jobs"][0].update(profile="q"),
     r"'seq' loops back to itself \(q -> q\)"),
    (lambda d: d["profiles"].update(r={"type": "delay", "delay": -1}), r"profile 'r': 'delay' must be a number >= 0"),
    (lambda d: d.pop("profiles"), r"the workload has no 'profiles' object"),
    (lambda d: d.pop("nb_res"), r"the workload has no 'nb_res'; give machine_size"),
])
def test_invalid_workloads_are_errors_naming_the_value(change, message):
    doc = {"nb_res": 4, "profiles": {"p": {"type": "parallel", "cpu": [1, 1], "com": [0, 1, 1, 0]}},
           "jobs": [{"id": "1", "subtime": 0, "res": 2, "profile": "p"}]}
    change(doc)
    with pytest.raises(BatsimError, match=message):
        read_workload(_text(doc), host_speed=1.0, bandwidth=1.0)


def test_a_job_whose_res_differs_from_its_parallel_profile_is_refused():
    doc = {"nb_res": 4, "profiles": {"p": {"type": "parallel", "cpu": [1, 1]}},
           "jobs": [{"id": "1", "subtime": 0, "res": 3, "profile": "p"}]}
    with pytest.raises(BatsimError, match="requests 3 resources but its parallel profile 'p' has 2 hosts"):
        read_workload(doc, host_speed=1.0, bandwidth=1.0)


def test_a_negative_submission_time_is_skipped_and_reported():
    doc = {"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 1}},
           "jobs": [{"id": "1", "subtime": -5, "res": 1, "profile": "d"}]}
    w = read_workload(doc)
    assert len(w) == 0 and w.report.counts == {"negative submit time": 1}
    assert "all 7" not in w.report.no_jobs_reason() and "skipped" in w.report.no_jobs_reason()


# -- _jobs.csv --------------------------------------------------------------------------------------
def _tree_run(seed: int = 0, n: int = 60):
    rng = np.random.default_rng(seed)
    tree = SwitchTree.uniform((4, 8))
    jobs = [Job(i, float(t), int(k), float(r), estimate=float(r) * 1.5, size=int(k))
            for i, (t, k, r) in enumerate(zip(np.sort(rng.uniform(0, 500, n)), rng.integers(1, 13, n),
                                              rng.uniform(1, 60, n), strict=True))]
    return simulate(SlurmTree(tree), "EASY", jobs, jobs=None, record_placement=True), jobs


def test_jobs_csv_has_batsims_columns_in_batsims_order():
    """Batsim docs/output-jobs.rst ("the following fields in this order") and src/export.cpp JobsTracer."""
    assert JOBS_COLUMNS == ("job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                            "requested_time", "success", "final_state", "starting_time", "execution_time",
                            "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
                            "consumed_energy", "metadata")


def test_a_schedule_written_as_jobs_csv_reads_back_equal(tmp_path):
    result, jobs = _tree_run()
    path = tmp_path / "easy_jobs.csv"
    assert write_jobs_csv(path, result, jobs) == len(result)
    back = read_jobs_csv(path)
    assert back.header == JOBS_COLUMNS and not back.report.skipped
    assert back.ids.tolist() == result.id.tolist()
    assert back.starting_time.tolist() == result.start.tolist()  # exactly: non-integral times included
    assert back.finish_time.tolist() == result.end.tolist()
    assert back.submission_time.tolist() == result.arrival.tolist()
    assert back.requested_time.tolist() == [j.estimate for j in sorted(jobs, key=lambda j: j.arrival)
                                            if j.id in set(result.id.tolist())]
    assert set(back.placements) == set(result.placements)
    for jid, nodes in result.placements.items():
        assert back.placements[jid].tolist() == nodes.tolist()
    assert back.schedule() == [(i, s, e, g) for i, s, e, g in result.schedule()]


def _check_batsim_rules(text: str) -> int:
    """Batsim's documented jobs file (docs/output-jobs.rst, docs/interval-set.rst), column by column: the header
    is the 17 columns in order; job_id unique and non-empty; numbers where numbers are; success 1 exactly for
    COMPLETED_SUCCESSFULLY; execution_time = finish - starting; waiting_time = starting - submission;
    turnaround_time = finish - submission; stretch = turnaround / execution; allocated_resources a canonical
    interval set (what every implementation must read) holding requested_number_of_resources ids. Returns rows."""
    lines = text.split("\n")
    assert lines[-1] == "" and lines[0] == ",".join(JOBS_COLUMNS)
    seen = set()
    for line in lines[1:-1]:
        f = dict(zip(JOBS_COLUMNS, line.split(","), strict=True))
        assert f["job_id"] and f["job_id"] not in seen
        seen.add(f["job_id"])
        sub, start, end = float(f["submission_time"]), float(f["starting_time"]), float(f["finish_time"])
        assert int(f["requested_number_of_resources"]) >= 1
        float(f["requested_time"])
        float(f["consumed_energy"])
        assert f["final_state"] in FINAL_STATES
        assert (f["success"] == "1") == (f["final_state"] == "COMPLETED_SUCCESSFULLY") and f["success"] in "01"
        for col, value in (("execution_time", end - start), ("waiting_time", start - sub),
                           ("turnaround_time", end - sub)):
            assert math.isclose(float(f[col]), value, rel_tol=1e-12, abs_tol=1e-9), col
        expected = (end - sub) / (end - start) if end > start else math.inf
        assert math.isclose(float(f["stretch"]), expected, rel_tol=1e-12), line
        alloc = f["allocated_resources"]
        assert _is_canonical(alloc) and alloc
        assert parse_intervals(alloc).size == int(f["requested_number_of_resources"])
    return len(lines) - 2


def test_the_file_follows_batsims_documented_rules_column_by_column():
    """The consumer check (Batsim's own documented rules, see _check_batsim_rules): evalys, the consumer the
    issue names, needs pandas, which this project does not depend on (the optional test below runs it when
    it is installed)."""
    result, jobs = _tree_run(seed=5)
    out = io.StringIO()
    write_jobs_csv(out, result, jobs)
    assert _check_batsim_rules(out.getvalue()) == len(result)


def test_evalys_reads_the_file_when_installed(tmp_path):
    """evalys's JobSet.from_csv (evalys/jobset.py: pandas.read_csv with ProcSet.from_str on allocated_resources)."""
    evalys_jobset = pytest.importorskip("evalys.jobset", reason="evalys (with pandas and procset) is not installed; "
                                        "the documented-rules check above covers the format")
    result, jobs = _tree_run(seed=6)
    path = tmp_path / "x_jobs.csv"
    write_jobs_csv(path, result, jobs)
    js = evalys_jobset.JobSet.from_csv(str(path))
    assert len(js.df) == len(result)
    assert js.df["proc_alloc"].tolist() == result.granted.tolist()


def test_zero_length_jobs_and_states_from_slurm():
    jobs = [Job(0, 0.0, 2, 0.0, size=2, attrs={"state": "TIMEOUT"}), Job(1, 1.0, 1, 5.0, attrs={"state": "FAILED"}),
            Job(2, 2.0, 4, 0.0)]  # waits for job 1: a turnaround, no run time
    r = simulate(FirstFree(SwitchTree.uniform((2, 2))), "FCFS", jobs, jobs=None, record_placement=True)
    out = io.StringIO()
    write_jobs_csv(out, r, jobs, workload_name="site")
    rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
    col = {c: i for i, c in enumerate(JOBS_COLUMNS)}
    assert [(r_[col["final_state"]], r_[col["success"]], r_[col["stretch"]]) for r_ in rows] == [
        ("COMPLETED_WALLTIME_REACHED", "0", "nan"), ("COMPLETED_FAILED", "0", "1"),
        ("COMPLETED_SUCCESSFULLY", "1", "inf")]
    assert {r_[col["workload_name"]] for r_ in rows} == {"site"}


def test_a_result_without_placements_writes_empty_allocations():
    from topoalloc import FlatPool
    from topologies import Flat

    r = simulate(FlatPool(Flat(4)), "FCFS", [Job(0, 0.0, 2, 1.0)], jobs=None)
    out = io.StringIO()
    write_jobs_csv(out, r)
    assert out.getvalue().splitlines()[1].split(",")[JOBS_COLUMNS.index("allocated_resources")] == ""


def test_batsims_own_output_reads_with_rejected_jobs_quoted_metadata_and_six_decimals():
    """As Batsim's JobsTracer writes it (src/export.cpp: to_string(double) gives six decimals; a rejected job
    has empty times and allocation), with a metadata field quoted because it holds a comma."""
    text = (",".join(JOBS_COLUMNS) + "\n"
            "w0!1,w0,delay,0.000000,2,60.000000,1,COMPLETED_SUCCESSFULLY,3.000000,20.200000,23.200000,3.000000,"
            "23.200000,1.148515,0-1,-1.000000,\n"
            'w0!2,w0,delay,1.500000,9,60.000000,0,REJECTED,,,,,,,,,"{""a"": 1, ""b"": 2}"\n')
    s = read_jobs_csv(io.StringIO(text))
    assert s.ids is None and s.job_id == ["w0!1", "w0!2"]
    assert s.starting_time[0] == 3.0 and math.isnan(s.starting_time[1])
    assert s.placements["w0!1"].tolist() == [0, 1] and s.placements["w0!2"].tolist() == []
    assert s.metadata[1] == '{"a": 1, "b": 2}' and s.final_state == ["COMPLETED_SUCCESSFULLY", "REJECTED"]
    assert s.stretch[0] == 1.148515 and s.requested_number_of_resources.tolist() == [2, 9]


def test_bad_rows_of_a_jobs_file_are_skipped_and_reported():
    text = (",".join(JOBS_COLUMNS) + "\n"
            "1,w0,,0,2,-1,1,COMPLETED_SUCCESSFULLY,0,5,5,0,5,1,0-1,-1,\n"
            "2,w0,,0,2,-1,1,COMPLETED_SUCCESSFULLY,0,5\n"
            "3,w0,,zero,2,-1,1,COMPLETED_SUCCESSFULLY,0,5,5,0,5,1,2-3,-1,\n"
            "4,w0,,0,2,-1,1,COMPLETED_SUCCESSFULLY,0,5,5,0,5,1,5-4,-1,\n"
            "5,w0,,0,1,-1,1,COMPLETED_SUCCESSFULLY,1,2,3,1,3,3,7,-1,\n")
    s = read_jobs_csv(io.StringIO(text))
    assert s.ids.tolist() == [1, 5] and s.placements[5].tolist() == [7]
    assert [(k.line, k.reason) for k in s.report.skipped] == [
        (3, "wrong field count"), (4, "non-numeric field"), (5, "bad interval set")]
    assert "submission_time = 'zero'" in s.report.skipped[1].detail and "'5-4'" in s.report.skipped[2].detail


def test_a_jobs_file_without_the_needed_columns_is_an_error():
    with pytest.raises(BatsimError, match="line 1: the header lacks column allocated_resources"):
        read_jobs_csv(io.StringIO("job_id,submission_time,starting_time,finish_time\n1,0,0,1\n"))
    bad = read_jobs_csv(io.StringIO(",".join(JOBS_COLUMNS) + "\n1,w0,,0,1,-1,1,X,0,oops,1,0,1,1,0,-1,\n"))
    with pytest.raises(BatsimError, match=r"line 2: execution_time = 'oops' is not a number"):
        _ = bad.execution_time


# -- the column-at-a-time text machinery the readers and writers run on ----------------------------


def _fields(col):
    data, lengths = col
    text = data.tobytes().decode("utf-8", "surrogatepass")
    at = np.cumsum(lengths) - lengths
    return [text[a:a + n] for a, n in zip(at.tolist(), lengths.tolist(), strict=True)]


@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=40))
def test_integers_are_written_as_str_writes_them(values):
    assert _fields(_int_text(np.array(values, dtype=np.int64))) == [str(v) for v in values]


@given(st.lists(st.floats(), max_size=40))
def test_floats_are_written_as_exact_text_and_as_json_writes_them(values):
    a = np.array(values, dtype=float)
    assert _fields(_float_text(a, json=True)) == [repr(v) for v in values]  # float.__repr__, what json.dumps uses
    for text, v in zip(_fields(_float_text(a)), values, strict=True):
        assert float(text) == v or (math.isnan(v) and text == "nan")
        assert "." not in text or not float(text).is_integer() or abs(v) >= 1e15 or text == "-0.0"  # sign kept


_NUMBER = st.one_of(st.integers(-10**17, 10**17).map(str), st.floats(allow_nan=False).map(repr),
                    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
                    st.text(alphabet="0123456789.-+e_", max_size=9))


@given(st.lists(_NUMBER, max_size=30))
def test_plain_decimals_are_read_as_float_reads_them_and_the_rest_left_to_it(texts):
    data = np.frombuffer(("|".join(texts) + "|").encode(), dtype=np.uint8)
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    starts = np.cumsum(lengths + 1) - (lengths + 1)
    values, ok = _decimal_fields(data, starts, starts + lengths)
    for text, v, good in zip(texts, values.tolist(), ok.tolist(), strict=True):
        plain = re.fullmatch(r"[+-]?(\d*\.?\d*)", text) is not None and 1 <= sum(c.isdigit() for c in text) <= 15
        assert good == plain, text
        if good:
            assert v == float(text) and math.copysign(1, v) == math.copysign(1, float(text)), text


@given(st.lists(st.lists(st.text(alphabet="ab,é0", max_size=4).filter(lambda t: "," not in t), min_size=3,
                         max_size=3), max_size=8))
def test_a_files_fields_split_into_columns_and_back_into_strings(rows):
    data = np.frombuffer("".join(",".join(r) + "\n" for r in rows).encode(), dtype=np.uint8)
    starts, ends = _split_fields(data, ord(","), 3)
    for k in range(3):
        assert _field_strings(data, starts[:, k], ends[:, k]) == [r[k] for r in rows]
    assert _split_fields(data, ord(","), 4) is None or not rows


def test_a_workload_written_a_column_at_a_time_is_what_json_dumps_writes(tmp_path):
    """The writer builds the JSON text itself (speed); it must be byte for byte what ``json.dumps``
    gives for the same document, whatever the ids (escaped strings), times and estimates."""
    from scheduling.formats.batsim import _document

    jobs = [Job(3, 0.5, 2, 10.25, estimate=60.0, size=2, attrs={"batsim_id": 'we"ird\u00e9\n'}),
            Job(4, 1e16, 3, 0.0, size=3), Job(5, 2.0, (2, 2), 1 / 3, estimate=1e-7),
            Job(6, 2.0, 4, 10.25, estimate=5.0, size=4, attrs={"batsim_id": "x"}), Job(7, 7.0, 1, 3.0, size=1)]
    for batsim5 in (False, True):
        out = io.StringIO()
        assert write_workload(out, jobs, batsim5=batsim5) == 5
        assert out.getvalue() == json.dumps(_document(jobs, None, batsim5)) + "\n"
    for indent in (None, 1):  # indent: the json module writes it
        path = tmp_path / f"w{indent}.json"
        write_workload(path, jobs, indent=indent, nb_res=8)
        assert json.loads(path.read_text()) == _document(jobs, 8, False)
    empty = io.StringIO()
    write_workload(empty, [])
    assert json.loads(empty.getvalue()) == {"nb_res": 1, "jobs": [], "profiles": {}}


def test_ids_that_differ_as_strings_but_not_as_integers_number_the_jobs_by_position():
    doc = {"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 1}},
           "jobs": [{"id": "7", "subtime": 0, "res": 1, "profile": "p"}, {"id": "007", "subtime": 1, "res": 1,
                                                                          "profile": "p"}]}
    w = read_workload(doc)
    assert [j.id for j in w] == [0, 1] and [j.attrs["batsim_id"] for j in w] == ["7", "007"]


class _NoOrjson:
    """Stands in for orjson in the reader: every parse fails, so the standard library's ``json`` reads
    (the reader's path before orjson, kept as its fallback: the reference)."""

    JSONDecodeError = batsim.orjson.JSONDecodeError

    @staticmethod
    def loads(data: object) -> object:
        raise batsim.orjson.JSONDecodeError("refused", "", 0)


def _jobs_as_tuples(w: batsim.BatsimWorkload) -> list[tuple]:
    return [(j.id, j.arrival, j.request, j.runtime, j.estimate, j.size, j.comm,
             {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in j.attrs.items()}) for j in w]


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch, **kw: object) -> tuple:
    fast = read_workload(io.BytesIO(text.encode()), **kw)
    with monkeypatch.context() as m:
        m.setattr(batsim, "orjson", _NoOrjson)
        slow = read_workload(io.BytesIO(text.encode()), **kw)
    return fast, slow


@pytest.mark.parametrize("seed", [0, 1])
def test_orjson_reads_what_the_standard_library_reads(monkeypatch, seed):
    """The reader parses with orjson; the reference is the same reader on the standard library's
    ``json`` (orjson made to fail): jobs, attrs, records, document and report must be equal, on a
    workload with integer and string ids, floats of 17 digits, jobs out of order, skipped jobs and
    every profile kind of WORKLOAD."""
    rng = np.random.default_rng(seed)
    doc = json.loads(json.dumps(WORKLOAD))
    doc["nb_res"] = 8
    for i in range(300):
        job = {"id": str(1000 + i) if seed == 0 else (i if i % 2 else f"{i:03d}x"),
               "subtime": float(rng.uniform(-5, 1e4)) if i % 3 else int(rng.integers(0, 10_000)),
               "res": int(rng.integers(1, 11)), "profile": f"d{i % 37}"}
        if i % 4:
            job["walltime"] = float(rng.uniform(0, 1e5)) if i % 5 else -1
        doc["jobs"].append(job)
    for k in range(37):
        doc["profiles"][f"d{k}"] = {"type": "delay" if k % 2 else "DelayProfile",
                                    "delay": float(rng.uniform(0, 1e4)) if k % 3 else k}
    fast, slow = _both_ways(json.dumps(doc, indent=1), monkeypatch, host_speed=1e6, bandwidth=1e6)
    assert len(fast) > 200 and fast.report.skipped
    assert _jobs_as_tuples(fast) == _jobs_as_tuples(slow)
    assert fast.records == slow.records and fast.document == slow.document == doc
    assert fast.report == slow.report


@pytest.mark.parametrize("text,problem,line", [
    ('{"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 1}},\n "jobs": [\n'
     '  {"id": "1", "subtime": NaN, "res": 1, "profile": "p"}]}', r"'subtime' must be finite", 3),
    ('{"nb_res": 4,\n "profiles": {"p": {"type": "delay", "delay": Infinity}},\n "jobs": []}',
     r"profile 'p': 'delay' must be a number >= 0, got inf", 2),
    ('{"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 1}},\n "jobs": [\n'
     '  {"id": "1", "subtime": 0, "res": 1.5, "profile": "p"}]}', r"'res' must be a positive integer, got 1.5", 3),
])
def test_values_orjson_refuses_are_read_as_the_standard_library_reads_them(text, problem, line):
    """NaN and Infinity (which only Python's json takes): the same error as before orjson, at the same line."""
    with pytest.raises(BatsimError, match=problem) as info:
        read_workload(io.StringIO(text))
    assert info.value.line == line


def test_integers_beyond_64_bits_and_lone_surrogates_read_as_the_standard_library_reads_them(monkeypatch):
    """orjson reads an integer beyond 64 bits as a float and refuses a lone surrogate escape; the
    reader then takes the standard library's reading: a huge ``res`` is a job too large for the
    machine (not a non-integer), a huge integer id is the job's id, ``"\ud800"`` an id."""
    big = 2**70
    text = ('{"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 1}}, "jobs": ['
            f'{{"id": {big}, "subtime": 0, "res": 2, "profile": "p"}}, '
            f'{{"id": 5, "subtime": 1, "res": {big}, "profile": "p"}}]}}')
    fast, slow = _both_ways(text, monkeypatch)
    assert [j.id for j in fast] == [big] and fast.document["jobs"][1]["res"] == big
    (s,) = fast.report.skipped
    assert s.reason == "too large for the machine" and s.line == 1
    assert _jobs_as_tuples(fast) == _jobs_as_tuples(slow) and fast.report == slow.report
    lone = '{"nb_res": 4, "profiles": {"p": {"type": "delay", "delay": 1}}, "jobs": [' \
           '{"id": "\\ud800", "subtime": 0, "res": 2, "profile": "p"}]}'
    (job,) = read_workload(io.StringIO(lone))
    assert job.attrs["batsim_id"] == "\ud800" and job.id == 0


def test_a_file_that_is_not_utf8_is_an_error_naming_its_line(tmp_path):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"nb_res": 4,\n "jobs": [{"id": "caf\xe9"}], "profiles": {}}')
    with pytest.raises(BatsimError, match=r"latin\.json, line 2: is not UTF-8 text \(invalid continuation byte"):
        read_workload(path)


def test_the_columnar_jobs_reader_gives_what_the_line_reader_gives(tmp_path):
    """An unquoted file is read a column at a time; the same file with CRLF line ends goes through
    the csv module line by line (the reference): the schedules must agree, for a schedule with
    non-integral times, values beyond the plain decimals (an exponent, 17 digits) and a rejected job."""
    tree = SwitchTree.uniform((2, 4))
    jobs = [Job(i, 0.1 * i + 1e-9 * (i % 3), 1 + i % 5, 1 / (i + 1) + 3, estimate=10.0 + i) for i in range(40)]
    r = simulate(SlurmTree(tree), "EASY", jobs, jobs=None, record_placement=True)
    path = tmp_path / "s_jobs.csv"
    write_jobs_csv(path, r, jobs)
    text = path.read_text()
    text += "x,w0,,1e-05,2,60,0,REJECTED,,,,,,,,-1,\ny,w0,,0.30000000000000004,2,-1,0,REJECTED,,,,,,,,-1,\n"
    fast, slow = read_jobs_csv(io.StringIO(text)), read_jobs_csv(io.StringIO(text.replace("\n", "\r\n")))
    assert fast.ids is None and fast.job_id == slow.job_id and len(fast) == 42
    for col in ("submission_time", "starting_time", "finish_time", "requested_number_of_resources", "stretch",
                "requested_time", "success"):
        np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))
    assert fast.submission_time[-2:].tolist() == [1e-05, 0.30000000000000004]
    assert fast.nodes.tolist() == slow.nodes.tolist() and fast.offsets.tolist() == slow.offsets.tolist()
    assert list(fast.columns) == list(slow.columns) and fast.final_state == slow.final_state
    assert [(k, v.tolist()) for k, v in fast.placements.items()] == [(k, v.tolist()) for k, v in
                                                                   slow.placements.items()]
    assert fast.report.lines == slow.report.lines == 43 and not fast.report.skipped
    assert str(fast.schedule()) == str(slow.schedule())  # NaN times of the rejected jobs compare by text

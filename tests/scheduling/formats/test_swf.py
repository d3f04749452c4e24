"""The SWF reader and writer: fields, header, gzip, every skipped line reported, filters, round trips."""

from __future__ import annotations

import gzip
import io
import logging
import warnings

import pytest

from scheduling import Job, simulate
from scheduling.formats import SWF_FIELDS, SWFReport
from scheduling.workloads import (
    SWFError,
    SWFHeader,
    SWFRecord,
    SWFWarning,
    TraceNotFoundError,
    load_swf,
    read_swf,
    trace_path,
    write_records,
    write_swf,
)
from topoalloc import FlatPool
from topologies import Flat, Hypercube, Mesh

HEADER = """; Version: 2.2
; Computer: IBM SP2
; Acknowledge: someone
; Information: http://example.org/
;              http://example.org/more
; MaxJobs: 99
; UnixStartTime: 835823160
; TimeZoneString: US/Eastern
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: 338
; Queue:  1 DSI
; Queue:  2 astro
;
"""


def line(job=1, submit=0, wait=-1, run=10, alloc=4, req=-1, req_time=-1, **kw) -> str:
    values = {name: -1 for name in SWF_FIELDS}
    values.update(job_id=job, submit_time=submit, wait_time=wait, run_time=run, allocated_processors=alloc,
                  requested_processors=req, requested_time=req_time, status=1)
    values.update(kw)
    return " ".join(str(values[name]) for name in SWF_FIELDS)


def write(tmp_path, text: str, name: str = "t.swf", compress: bool = False):
    p = tmp_path / name
    p.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    return p


# -- parsing ---------------------------------------------------------------------------------------
def test_record_has_all_18_fields_with_types():
    text = HEADER + "   7  100  35  937  306  142.50  2048  300  35100  4096  1  97  3  307  2  1  5  60\n"
    header, records, report = read_swf(io.StringIO(text))
    assert len(SWF_FIELDS) == 18 and report.skipped == []
    number, rec = records[0]
    assert number == HEADER.count("\n") + 1
    assert rec == SWFRecord(7, 100.0, 35.0, 937.0, 306, 142.5, 2048.0, 300, 35100.0, 4096.0, 1, 97, 3, 307, 2, 1, 5,
                            60.0)
    assert isinstance(rec.job_id, int) and isinstance(rec.average_cpu_time, float)
    with pytest.raises(AttributeError):
        rec.run_time = 1.0  # frozen
    assert not hasattr(rec, "__dict__")  # slotted


def test_header_labels_take_the_leading_integer():
    header, _, _ = read_swf(io.StringIO(HEADER + line() + "\n"))
    assert header.max_nodes == 338 and header.max_procs == 338 and header.max_jobs == 99
    assert header.unix_start_time == 835823160 and header.time_zone_string == "US/Eastern"
    assert header.computer == "IBM SP2" and header.version == "2.2"
    assert header.fields["Queue"] == ("1 DSI", "2 astro")
    assert header.get("information") == "http://example.org/ http://example.org/more"  # continuation line
    assert header.machine_size == 338
    only_nodes = SWFHeader.from_comments([" MaxNodes: 256"])
    assert only_nodes.max_procs is None and only_nodes.machine_size == 256
    assert SWFHeader.from_comments([" MaxNodes: 400 (48 interactive, 352 batch)"]).max_nodes == 400


@pytest.mark.parametrize("name", ["plain.swf", "plain.swf.gz"])
@pytest.mark.parametrize("compress", [False, True])
def test_gzip_is_recognised_by_magic_bytes_not_name(tmp_path, name, compress):
    text = HEADER + line(1) + "\n" + line(2, submit=5) + "\n"
    trace = load_swf(write(tmp_path, text, name, compress))
    assert [j.id for j in trace] == [1, 2] and trace.header.max_procs == 338
    # binary and text file objects too
    raw = gzip.compress(text.encode()) if compress else text.encode()
    assert [j.id for j in load_swf(io.BytesIO(raw))] == [1, 2]
    with open(tmp_path / name, "rb") as fh:
        assert [j.id for j in load_swf(fh)] == [1, 2]


def test_every_skipped_line_is_reported_with_number_and_reason(tmp_path):
    body = [
        line(1, submit=0, alloc=4),                                  # kept
        "this is not a data line",                                   # malformed
        " ".join(["1"] * 17),                                        # wrong field count
        line(4, submit=3).replace(" 10 ", " ten ", 1),               # non-numeric
        line(5, submit=4, alloc="2.5"),                              # non-integer processors
        line(6, submit=5, alloc=-1, req=-1),                         # unknown size
        line(7, submit=6, run=-1),                                   # unknown run time
        line(8, submit=7, run=-5),                                   # negative run time
        line(9, submit=8, alloc=500),                                # larger than MaxProcs 338
        line(10, submit=9, alloc=2),                                 # kept
        "",                                                          # blank: not a record, not skipped
        "; a comment after the data",                                # ignored
    ]
    p = write(tmp_path, HEADER + "\n".join(body) + "\n")
    trace = load_swf(p)
    first = HEADER.count("\n") + 1
    got = [(s.line - first, s.reason) for s in trace.report.skipped]
    assert got == [
        (1, "malformed line"),
        (2, "wrong field count"),
        (3, "non-numeric field"),
        (4, "non-integer field"),
        (5, "unknown size"),
        (6, "unknown run time"),
        (7, "negative run time"),
        (8, "too large for the machine"),
    ]
    assert [j.id for j in trace] == [1, 10]
    assert trace.report.counts["unknown size"] == 1 and sum(trace.report.counts.values()) == 8
    assert trace.report.jobs == 2 and trace.report.records == 6
    assert "500 processors > 338" in trace.report.skipped[-1].detail
    assert "run_time = -5" in str(trace.report.skipped[-2])
    assert set(trace.report.counts) <= set(SWFReport.REASONS)


def test_size_estimate_and_fallbacks():
    text = "\n".join([
        line(1, alloc=8, req=6, req_time=100, run=50),   # requested size, requested time
        line(2, submit=1, alloc=8, req=-1, req_time=-1, run=50),  # allocated size, estimate = run time
        line(3, submit=2, alloc=-1, req=3, run=7),        # allocated unknown: requested
    ])
    jobs = load_swf(io.StringIO(text), machine_size=16).jobs()
    assert [(j.request, j.size, j.runtime, j.estimate) for j in jobs] == [
        (6, 6, 50.0, 100.0), (8, 8, 50.0, 50.0), (3, 3, 7.0, 7.0)]
    alloc_first = load_swf(io.StringIO(text), machine_size=16, size="allocated").jobs()
    assert [j.size for j in alloc_first] == [8, 8, 3]
    assert jobs[0].attrs["swf"].requested_processors == 6 and jobs[2].attrs["line"] == 3


def test_jobs_built_field_by_field_equal_the_constructors():
    """The reader stores the Job fields directly (no Python call per job) when its arrays pass Job's
    own checks; the jobs must be exactly what Job(...) builds, and the fast path must stay in use."""
    from scheduling.formats import _columns

    text = "\n".join([line(1, alloc=8, req=6, req_time=100, run=50), line(2, submit=1, alloc=8, run=0),
                      line(3, submit=2, alloc=-1, req=3, run=7)])
    jobs = load_swf(io.StringIO(text), machine_size=16).jobs()
    assert _columns._JOB_BY_FIELDS, "Job's fields changed: update _columns._JOB_FIELDS and _make_jobs"
    rebuilt = [Job(j.id, j.arrival, j.request, j.runtime, estimate=j.estimate, size=j.size, attrs=j.attrs)
               for j in jobs]
    assert jobs == rebuilt and [j.comm for j in jobs] == [0.0] * 3
    assert [hash(j) for j in jobs] == [hash(k) for k in rebuilt]


def test_too_large_skip_clamp_or_error():
    text = "\n".join([line(1, alloc=4), line(2, submit=1, alloc=40), line(3, submit=2, alloc=8)])
    assert [j.id for j in load_swf(io.StringIO(text), machine_size=8)] == [1, 3]
    clamped = load_swf(io.StringIO(text), machine_size=8, too_large="clamp")
    assert [j.size for j in clamped] == [4, 8, 8] and clamped.report.clamped == [2]
    with pytest.raises(SWFError, match="needs 40 processors"):
        load_swf(io.StringIO(text), machine_size=8, too_large="error")
    with pytest.raises(SWFError, match="too_large"):
        load_swf(io.StringIO(text), too_large="drop")


def test_time_window_and_limit():
    text = "\n".join(line(i, submit=10 * i) for i in range(10))
    trace = load_swf(io.StringIO(text), machine_size=8, window=(20, 50))
    assert [j.id for j in trace] == [2, 3, 4]
    assert [s.reason for s in trace.report.skipped] == ["outside the time window"] * 7
    assert [j.id for j in load_swf(io.StringIO(text), machine_size=8, window=(None, 15))] == [0, 1]
    assert [j.id for j in load_swf(io.StringIO(text), machine_size=8, limit=4)] == [0, 1, 2, 3]
    with pytest.raises(SWFError, match="before its start"):
        load_swf(io.StringIO(text), window=(50, 20))


def test_rate_factor_compresses_gaps_and_scales_the_load():
    text = "\n".join(line(i, submit=100 + 10 * i, run=30, alloc=2) for i in range(6))
    base = load_swf(io.StringIO(text), machine_size=8)
    fast = load_swf(io.StringIO(text), machine_size=8, rate_factor=2.5)
    assert [j.arrival for j in fast] == [100 + 4 * i for i in range(6)]
    assert [j.runtime for j in fast] == [j.runtime for j in base]
    assert fast.offered_load() == pytest.approx(2.5 * base.offered_load())
    factor = base.rate_factor_for(0.9)
    assert load_swf(io.StringIO(text), machine_size=8, rate_factor=factor).offered_load() == pytest.approx(0.9)
    with pytest.raises(SWFError, match="rate_factor"):
        load_swf(io.StringIO(text), rate_factor=0)


def test_out_of_order_submits_are_sorted_and_counted():
    text = "\n".join([line(1, submit=5), line(2, submit=3), line(3, submit=3), line(4, submit=9)])
    trace = load_swf(io.StringIO(text), machine_size=8)
    assert [j.id for j in trace] == [2, 3, 1, 4] and trace.report.reordered == 1


def test_requests_for_a_topology():
    text = "\n".join([line(1, alloc=5), line(2, submit=1, alloc=12), line(3, submit=2, alloc=64)])
    cube = load_swf(io.StringIO(text), topology=Hypercube(5))
    assert [(j.request, j.size) for j in cube] == [(3, 5), (4, 12)]  # 64 > 32: skipped as too large
    assert cube.machine_size == 32
    mesh = load_swf(io.StringIO(text), topology=Mesh(8, 8))
    assert [j.request for j in mesh] == [(3, 2), (4, 3), (8, 8)]

    class Picky:  # a topology that has no request for some sizes
        size = 64

        def request_for(self, n):
            if n % 2:
                raise ValueError(f"odd size {n}")
            return n

    picky = load_swf(io.StringIO(text), topology=Picky())
    assert [j.id for j in picky] == [2, 3]
    first = picky.report.skipped[0]
    assert first.reason == "no request on the topology" and "odd size 5" in first.detail


def test_warn_and_log(caplog):
    text = line(1) + "\nrubbish\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_swf(io.StringIO(text), machine_size=8)
        assert not caught
        with caplog.at_level(logging.DEBUG, logger="scheduling.formats.swf_load"):
            load_swf(io.StringIO(text), machine_size=8, warn=True)
    assert len(caught) == 1 and issubclass(caught[0].category, SWFWarning)
    assert "malformed line" in str(caught[0].message)
    assert any("line 2: malformed line" in r.getMessage() for r in caplog.records)


# -- finding traces ----------------------------------------------------------------------------------
def test_trace_path_env_default_and_error(tmp_path, monkeypatch):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "small.swf.gz").write_bytes(gzip.compress(line().encode()))
    (d / "other.swf").write_text(line())
    monkeypatch.setenv("TOPOALLOC_TRACES", str(d))
    assert trace_path("small") == d / "small.swf.gz"
    assert trace_path("other.swf") == d / "other.swf"
    with pytest.raises(TraceNotFoundError, match="other.swf, small.swf.gz") as err:
        trace_path("missing")
    assert "TOPOALLOC_TRACES" in str(err.value)
    # default: ../shared/traces from the current directory
    monkeypatch.delenv("TOPOALLOC_TRACES")
    shared = tmp_path / "shared" / "traces"
    shared.mkdir(parents=True)
    (shared / "x.swf").write_text(line())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert trace_path("x").resolve() == (shared / "x.swf").resolve()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TraceNotFoundError, match="does not exist"):
        trace_path("x")


# -- writing -----------------------------------------------------------------------------------------
def test_records_round_trip(tmp_path):
    text = HEADER + "\n".join([
        "1 0 5 10 4 1.25 100 4 20 200 1 3 4 5 1 1 -1 -1",
        "2 3 0 0.5 2 -1 -1 2 20 -1 0 3 4 5 1 1 1 12",
    ]) + "\n"
    header, records, _ = read_swf(io.StringIO(text))
    out = tmp_path / "copy.swf.gz"
    assert write_records(out, [r for _, r in records], header) == 2
    header2, records2, report2 = read_swf(out)
    assert [r for _, r in records2] == [r for _, r in records] and report2.skipped == []
    assert header2.max_nodes == 338 and header2.fields["Queue"] == header.fields["Queue"]


def test_schedule_round_trip(tmp_path):
    rows = [line(i, submit=3 * i, run=7 + (i * 5) % 11, alloc=1 + (i * 3) % 8, req_time=30, user_id=40 + i % 3)
            for i in range(1, 40)]
    trace = load_swf(io.StringIO(HEADER + "\n".join(rows)), machine_size=8)
    result = simulate(FlatPool(Flat(8)), "FCFS", trace, jobs=None)
    out = tmp_path / "sched.swf"
    assert write_swf(out, result, trace.jobs(), header=trace.header) == len(trace)
    back = load_swf(out)
    assert back.header.max_procs == 8 and back.header.unix_start_time == 835823160
    table = result.table
    got = [(r.job_id, r.submit_time, r.wait_time, r.run_time, r.allocated_processors) for r in back.records]
    want = [(int(t["id"]), float(t["arrival"]), float(t["start"] - t["arrival"]), float(t["end"] - t["start"]),
             int(t["granted"])) for t in table]
    assert got == want
    assert any(w > 0 for _, _, w, _, _ in got)  # the schedule has waits: the test is not trivial
    assert [r.user_id for r in back.records] == [j.attrs["swf"].user_id for j in trace]
    assert all(r.requested_time == 30 and r.status == 1 and r.average_cpu_time == -1 for r in back.records)
    # the written trace replays to the same schedule
    again = simulate(FlatPool(Flat(8)), "FCFS", back, jobs=None)
    assert again.schedule() == result.schedule()


def test_writer_without_originals_and_fractional_times(tmp_path):
    jobs = [Job(0, 0.25, 2, 1.1), Job(1, 0.3, 4, 2.0 / 3.0)]
    result = simulate(FlatPool(Flat(4)), "FCFS", jobs, jobs=None)
    buf = io.StringIO()
    write_swf(buf, result, note="fractional")
    _, records, _ = read_swf(io.StringIO(buf.getvalue()))
    recs = [r for _, r in records]
    assert [r.submit_time + r.wait_time + r.run_time for r in recs] == result.end.tolist()
    assert [r.requested_processors for r in recs] == [2, 4] and recs[0].requested_time == -1


# -- real traces (skipped when the shared traces are absent) --------------------------------------------
def _real(name: str):
    try:
        return trace_path(name)
    except TraceNotFoundError as exc:
        pytest.skip(f"trace {name} not available: {exc}")


def test_real_lublin_trace():
    path = _real("lublin_256")
    trace = load_swf(path)
    assert trace.machine_size == 256 and trace.header.max_nodes == 256 and trace.header.max_procs is None
    with gzip.open(path, "rt") as fh:
        data = [ln.split() for ln in fh if ln.strip() and not ln.lstrip().startswith(";")]
    assert len(trace) == len(data) and trace.report.skipped == []
    assert [j.size for j in trace[:50]] == [int(d[4]) for d in data[:50]]
    assert all(j.estimate == j.runtime for j in trace)  # no requested times in lublin


def test_real_ctc_header():
    trace = load_swf(_real("CTC-SP2-1996-3.1-cln"), limit=20)
    assert trace.header.max_nodes == 338 and trace.header.max_procs == 338 and len(trace) == 20
    assert trace.header.unix_start_time == 835823160
    assert all(j.size == j.attrs["swf"].allocated_processors for j in trace)  # no requested processors in CTC


# -- files that are not traces, traces without a job --------------------------------------------------
def test_truncated_or_corrupt_gzip_and_directories_name_the_file(tmp_path):
    from scheduling.workloads import SWFReadError

    data = gzip.compress((HEADER + "\n".join(line(i, submit=i) for i in range(2000)) + "\n").encode())
    cut = write(tmp_path, "", "cut.swf.gz")
    cut.write_bytes(data[: len(data) // 2])
    for reader in (load_swf, read_swf):
        with pytest.raises(SWFReadError, match=r"cut\.swf\.gz.*truncated gzip"):
            reader(cut)
    bad = tmp_path / "bad.swf.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not a gzip stream at all" * 10)
    with pytest.raises(SWFReadError, match=r"bad\.swf\.gz.*not a valid gzip"):
        load_swf(bad)
    with pytest.raises(SWFReadError, match=r"is a directory"):
        load_swf(tmp_path)
    assert issubclass(SWFReadError, SWFError)
    with pytest.raises(FileNotFoundError, match="missing.swf"):
        load_swf(tmp_path / "missing.swf")


@pytest.mark.parametrize("text, why", [
    ("", "has no data line (an empty file)"),
    (HEADER, f"has no data line ({HEADER.count(chr(10))} lines, only comments and blank lines)"),
    (HEADER + "garbage here\n1 2 3\n",
     "has no valid data line (2 lines skipped: 1 malformed line, 1 wrong field count)"),
    (HEADER + line(1, run=-1) + "\n" + line(2, alloc=-1, req=-1) + "\n",
     "all 2 records of t.swf were skipped (1 unknown run time, 1 unknown size)"),
])
def test_a_trace_without_jobs_is_refused_by_simulate(tmp_path, text, why):
    from scheduling import EmptyWorkloadError

    trace = load_swf(write(tmp_path, text))
    assert len(trace) == 0  # reading it is fine: the report says what is there
    with pytest.raises(EmptyWorkloadError, match="no job to simulate: ") as err:
        simulate(FlatPool(Flat(8)), "FCFS", trace, jobs=None)
    assert why in str(err.value) and "t.swf" in str(err.value)
    with pytest.raises(EmptyWorkloadError, match="no jobs"):
        simulate(FlatPool(Flat(8)), "EASY", [], jobs=None)
    # a trace built by hand, and one filtered down to nothing
    empty = type(trace)([], [], trace.header, trace.report, 8)
    with pytest.raises(EmptyWorkloadError):
        simulate(FlatPool(Flat(8)), "FCFS", empty, jobs=None)


def test_a_window_with_no_job_says_so():
    from scheduling import EmptyWorkloadError

    trace = load_swf(io.StringIO("\n".join(line(i, submit=10 * i) for i in range(5))), machine_size=8,
                     window=(1000, None))
    with pytest.raises(EmptyWorkloadError, match=r"all 5 records of the trace were skipped \(5 outside the time"):
        simulate(FlatPool(Flat(8)), "FCFS", trace, jobs=None)


def test_the_no_job_reason_counts_in_plurals():
    """Issue 32 item 11: "2 malformed line"."""
    import io
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = load_swf(io.BytesIO(b"garbage here\nmore garbage\n"))
    assert trace.report.no_jobs_reason().endswith("(2 lines skipped: 2 malformed lines)")

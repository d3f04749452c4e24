"""The vectorised SWF reader against a plain per-line reference: same records, same jobs, same report.

The reference below reads a trace the obvious way (Python's universal-newline text decoding, one
line at a time, ``str.split`` and ``int``/``float`` on each field, the filters applied per record):
it is the specification the fast reader must match exactly, on every shared trace (skipped when
absent) and on crafted files with every kind of bad line.
"""

from __future__ import annotations

import gc
import gzip
import io
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.formats import swf_read, swf_records
from scheduling.workloads import TraceNotFoundError, load_swf, read_swf, trace_path
from topologies import Flat, Hypercube, Mesh

FIELDS = ("job_id", "submit_time", "wait_time", "run_time", "allocated_processors", "average_cpu_time",
          "used_memory", "requested_processors", "requested_time", "requested_memory", "status", "user_id",
          "group_id", "executable", "queue", "partition", "preceding_job", "think_time")
INTS = {"job_id", "allocated_processors", "requested_processors", "status", "user_id", "group_id", "executable",
        "queue", "partition", "preceding_job"}
TRACES = ("lublin_256", "NASA-iPSC-1993-3.1-cln", "SDSC-Par-1996-3.1-cln", "CTC-SP2-1996-3.1-cln",
          "SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln")


@pytest.fixture(autouse=True, scope="module")
def _no_cyclic_gc():
    """The reference makes millions of small objects and no cycles: collecting would only slow it."""
    enabled = gc.isenabled()
    gc.disable()
    yield
    if enabled:
        gc.enable()


# -- the reference -----------------------------------------------------------------------------------
def _text(data: bytes) -> io.TextIOWrapper:
    raw = io.BytesIO(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=None)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _fmt(v):
    if isinstance(v, int):
        return str(v)
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(float(v))


def _values(parts: list[str]):
    """The 18 values of a line, or ``(reason, detail)``."""
    try:
        vals = [int(p) if name in INTS else float(p) for name, p in zip(FIELDS, parts, strict=True)]
        if math.isfinite(sum(vals)):
            return tuple(vals)
    except (ValueError, OverflowError):
        pass
    vals = []
    for name, p in zip(FIELDS, parts, strict=True):
        if not _is_float(p) or not math.isfinite(float(p)):
            return "non-numeric field", f"{name} = {p!r}"
        v = float(p)
        if name in INTS:
            if v != int(v):
                return "non-integer field", f"{name} = {p!r}"
            v = int(v)
        vals.append(v)
    return tuple(vals)


def reference_read(data: bytes, lines=None):
    """``(comments, [(line, values)], [(line, reason, detail, text)], lines read)``."""
    comments, records, skipped = [], [], []
    in_header, number = True, 0
    for number, line in enumerate(lines if lines is not None else _text(data), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            if in_header:
                comments.append(line.rstrip("\r\n").lstrip()[1:])
            continue
        in_header = False
        body = stripped.split(";", 1)[0]
        parts = body.split()
        if len(parts) != 18:
            if all(_is_float(p) for p in parts):
                skipped.append((number, "wrong field count", f"{len(parts)} fields, expected 18", line.rstrip("\n")))
            else:
                skipped.append((number, "malformed line", f"not a data line: {body[:40]!r}", line.rstrip("\n")))
            continue
        got = _values(parts)
        if isinstance(got[0], str):
            skipped.append((number, got[0], got[1], line.rstrip("\n")))
        else:
            records.append((number, got))
    return comments, records, skipped, number


def reference_load(data: bytes, *, machine_size=None, topology=None, window=None, too_large="skip", rate_factor=1.0,
                   size="requested", limit=None, parsed=None, lines=None):
    """``(jobs as tuples, report as a dict)`` as :func:`load_swf` must give them."""
    comments, records, read_skips, nlines = parsed or reference_read(data, lines)
    header = swf_records.SWFHeader.from_comments(comments)
    P = machine_size or (topology.size if topology is not None else header.machine_size)
    lo, hi = window or (None, None)
    kept, skipped, clamped, cutoff = [], [], [], None
    JOB, SUBMIT, RUN, ALLOC, REQ, WANTED = (FIELDS.index(f) for f in (
        "job_id", "submit_time", "run_time", "allocated_processors", "requested_processors", "requested_time"))
    for number, v in records:
        a, b = (v[REQ], v[ALLOC]) if size == "requested" else (v[ALLOC], v[REQ])
        n = a if a > 0 else b
        if n <= 0:
            skipped.append((number, "unknown size", f"requested {v[REQ]}, allocated {v[ALLOC]}", v))
            continue
        if v[RUN] < 0:
            reason = "unknown run time" if v[RUN] == -1 else "negative run time"
            skipped.append((number, reason, f"run_time = {_fmt(v[RUN])}", v))
            continue
        if v[SUBMIT] < 0:
            reason = "unknown submit time" if v[SUBMIT] == -1 else "negative submit time"
            skipped.append((number, reason, f"submit_time = {_fmt(v[SUBMIT])}", v))
            continue
        if (lo is not None and v[SUBMIT] < lo) or (hi is not None and v[SUBMIT] >= hi):
            skipped.append((number, "outside the time window", f"submit_time = {_fmt(v[SUBMIT])} not in [{lo}, {hi})",
                            v))
            continue
        if P is not None and n > P:
            if too_large == "skip":
                skipped.append((number, "too large for the machine", f"{n} processors > {P}", v))
                continue
            if too_large == "error":
                return "error", number
            clamped.append(number)
            n = P
        request = n
        if topology is not None:
            try:
                request = topology.request_for(n)
            except (ValueError, TypeError) as exc:
                skipped.append((number, "no request on the topology", f"{n} processors: {exc}", v))
                continue
        estimate = v[WANTED] if v[WANTED] > 0 else v[RUN]
        kept.append([v[JOB], float(v[SUBMIT]), request, float(v[RUN]), float(estimate), n, number, v])
        if limit is not None and len(kept) >= limit:
            cutoff = number
            break
    reordered = sum(1 for x, y in zip(kept, kept[1:], strict=False) if y[1] < x[1])
    kept.sort(key=lambda j: j[1])  # stable
    if rate_factor != 1.0 and kept:
        first = kept[0][1]
        for j in kept:
            j[1] = first + (j[1] - first) / rate_factor
    skipped = [(n, reason, detail, " ".join(map(_fmt, v))) for n, reason, detail, v in skipped]
    skips = sorted([s for s in read_skips if cutoff is None or s[0] <= cutoff] + skipped, key=lambda s: s[0])
    report = {"lines": cutoff if cutoff is not None else nlines,
              "records": sum(1 for n, _ in records if cutoff is None or n <= cutoff), "jobs": len(kept),
              "skipped": skips, "clamped": clamped, "reordered": reordered, "comments": tuple(comments),
              "machine_size": P}
    return [tuple(j) for j in kept], report


def fast_load(source, **kw):
    trace = load_swf(source, **kw)
    jobs = [(j.id, j.arrival, j.request, j.runtime, j.estimate, j.size, j.attrs["line"], tuple(j.attrs["swf"]))
            for j in trace]
    for j in _sample(trace.jobs()):  # the types the reference gives, and the record is the job's own
        assert type(j.id) is int and type(j.size) is int and type(j.arrival) is float and type(j.estimate) is float
        assert type(j.attrs["swf"]) is swf_records.SWFRecord
    rep = trace.report
    report = {"lines": rep.lines, "records": rep.records, "jobs": rep.jobs,
              "skipped": [(s.line, s.reason, s.detail, s.text) for s in rep.skipped], "clamped": rep.clamped,
              "reordered": rep.reordered, "comments": trace.header.comments, "machine_size": trace.machine_size}
    assert [r for r in trace.records] == [j.attrs["swf"] for j in trace]
    return jobs, report


def _sample(items: list) -> list:
    """All of a short list; every 37th item and the last of a long one (types are checked on these)."""
    return items if len(items) <= 5000 else items[::37] + items[-1:]


def assert_same(data: bytes, *, parsed=None, **kw):
    want = reference_load(data, parsed=parsed, **kw)
    if want[0] == "error":
        with pytest.raises(swf_records.SWFError, match=f"line {want[1]}: "):
            load_swf(io.BytesIO(data), **kw)
        return
    got = fast_load(io.BytesIO(data), **kw)
    assert got[1] == want[1]
    assert got[0] == want[0]
    for g, w in zip(_sample(got[0]), _sample(want[0]), strict=True):  # types too: 1 == 1.0 would hide a float id
        assert [type(x) for x in g[-1]] == [type(x) for x in w[-1]]
        assert [math.copysign(1, x) for x in g[-1] if x == 0] == [math.copysign(1, x) for x in w[-1] if x == 0]


def assert_read_same(data: bytes):
    comments, records, skipped, nlines = reference_read(data)
    header, got, report = read_swf(io.BytesIO(data))
    assert header.comments == tuple(comments)
    assert [(n, tuple(r)) for n, r in got] == records
    assert [[type(x) for x in r] for _, r in _sample(got)] == [[type(x) for x in v] for _, v in _sample(records)]
    assert [(s.line, s.reason, s.detail, s.text) for s in report.skipped] == skipped
    assert report.lines == nlines and report.records == len(records)


# -- crafted files -----------------------------------------------------------------------------------
def rec(job=1, submit=0, run=10, alloc=4, req=-1, req_time=-1, **kw) -> list[str]:
    v = {name: "-1" for name in FIELDS}
    v.update(job_id=job, submit_time=submit, run_time=run, allocated_processors=alloc, requested_processors=req,
             requested_time=req_time, status=1, **kw)
    return [str(v[name]) for name in FIELDS]


def line(*args, sep=" ", **kw) -> str:
    return sep.join(rec(*args, **kw))


BAD_AND_ODD_LINES = [
    line(1, 0),
    "this is not a data line",                       # malformed
    " ".join(["1"] * 17),                            # wrong field count
    " ".join(["1"] * 19),
    line(4, 3).replace(" 10 ", " ten ", 1),          # non-numeric
    line(5, 4, alloc="2.5"),                         # non-integer processors
    line(6, 5, alloc="17.0"),                        # an integer written with a fraction: 17
    line(7, 6, alloc=-1, req=-1),                    # unknown size
    line(8, 7, run=-1),                              # unknown run time
    line(9, 8, run=-5),                              # negative run time
    line(10, 9, alloc=500),                          # larger than the machine
    line(11, 2, run="1e3"),                          # exponent
    line(12, 10, run="nan"), line(13, 10, run="inf"), line(14, 10, run="-Infinity"),
    line(15, 11, run="+5", alloc="+3"), line(16, 12, run="-0", wait_time="-0.0"),
    line(17, 13, run=".5", think_time="5."), line(18, 14, run="-.5"), line(19, 15, run="1-2"),
    line(20, 16, run="--1"), line(21, 17, run="1..2"), line(22, 18, run="+"), line(23, 19, run="-"),
    line(24, 20, run="."), line(25, 21, run="0.1234567"), line(26, 22, run="12345678.1234567"),
    line(27, 23, run="123456789012345"), line(28, 24, run="1234567890123456"), line(29, 25, run="9.87654321"),
    line(123456789012345678901, 26),                 # a job id beyond 64 bits
    line(31, 27, run=str(10**400)),                  # an integer too large for a float
    line(32, "1_000"),                               # Python accepts underscores
    line(33, 29, sep="\t"), line(34, 30, sep=" \v\f "),
    line(35, 31) + " ; a trailing comment",
    "; a comment after the data", "   ", "",
    line(36, 32, sep="\x1c"),                        # str.split separates at \x1c, bytes do not
    line(37, 33, sep="\xa0"),                        # a non-breaking space separates too
    line(38, 34, run="\uff11\uff10"),                # full-width digits: float() reads them
    line(39, 35, run="1\x00"),                       # a NUL byte
    line(40, 36, run="0x10"),
    line(41, "00000000000000000001"),                # out of arrival order, long zero-padded number
    line(42, 1),                                     # ties keep file order
    line(43, 37, alloc=2, req=3, req_time=99),
    line(44, 38, alloc=300, req=-1), line(45, 39, alloc=-1, req=7),
    line(46, 40, alloc=0, req=0),
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 ;",
    "7" * 30,
    line(47, 41, used_memory="2048.000000000000001"),
    line(48, 42, run="91528947.00282669"),           # 16 digits: mantissa / 10**8 would round twice
    line(49, 43, run="123456789.5", think_time="1.123456789"),  # more than 8 digits on one side
    line(50, 44, run="9007199254740993"),            # 2**53 + 1
    line(51, 45, wait_time="-0"),                    # -0.0: the sign of zero is kept
]


def crafted(extra: list[str] | None = None, newline: str = "\n", header: str = "; MaxProcs: 338\n;\n") -> bytes:
    body = BAD_AND_ODD_LINES + (extra or [])
    return (header.replace("\n", newline) + newline.join(body) + newline).encode("utf-8")


FILTERS = [
    {},
    {"machine_size": 16, "too_large": "clamp"},
    {"machine_size": 16, "too_large": "error"},
    {"window": (3, 30), "rate_factor": 2.5},
    {"window": (None, 20), "size": "allocated", "limit": 5},
    {"topology": Mesh(4, 4)},
    {"topology": Hypercube(5), "too_large": "clamp", "limit": 12},
    {"topology": Flat(8), "rate_factor": 3},
]


@pytest.mark.parametrize("kw", FILTERS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_crafted_lines_match_the_reference(kw):
    data = crafted()
    assert_same(data, **kw)
    assert_same(gzip.compress(data), **kw)


def test_crafted_read_matches_the_reference():
    data = crafted()
    assert_read_same(data)
    _, _, skipped, _ = reference_read(data)
    reasons = {s[1] for s in skipped}
    assert reasons == {"malformed line", "wrong field count", "non-numeric field", "non-integer field"}
    assert len(skipped) > 15  # the file does exercise the skips


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_other_line_ends_match_the_reference(newline):
    data = crafted(newline=newline)
    assert_read_same(data)
    assert_same(data, machine_size=64)


def test_text_streams_and_edge_files_match_the_reference():
    # a text stream ends lines at "\n" only ("\r" is whitespace in it), as iterating it does
    text = crafted(newline="\r\n").decode()
    comments, records, skipped, _ = reference_read(b"", lines=io.StringIO(text))
    header, got, report = read_swf(io.StringIO(text))
    assert [(n, tuple(r)) for n, r in got] == records
    assert [(s.line, s.reason, s.detail, s.text) for s in report.skipped] == skipped
    for data in (b"", b"\n\n", b"; only\n; comments\n", b"; MaxProcs: 8", line(1, 0).encode(),  # no final newline
                 b"\xef\xbb\xbf" + crafted(),  # a byte-order mark makes the first line data
                 b"; h\n" + line(1, 0).encode() + b"\n\xff\xfe bad bytes\n" + line(2, 1).encode() + b"\n",
                 b"; MaxProcs: 8\n\n   \n" + line(1, 0).encode() + b"\n; late: comment\n" + line(2, 1).encode(),
                 "\n".join(line(i, i, wait_time="-0" if i == 2 else "0") for i in range(5)).encode()):
        assert_read_same(data)
        assert_same(data, machine_size=8)


@pytest.mark.parametrize("block", [1, 7, 64, 1000])
def test_tiny_read_blocks_change_nothing(monkeypatch, block):
    data = crafted([line(100 + i, 50 + i, alloc=1 + i % 9) for i in range(300)])
    want = fast_load(io.BytesIO(data), machine_size=8)
    monkeypatch.setattr(swf_read, "_BLOCK", block)
    assert fast_load(io.BytesIO(data), machine_size=8) == want
    assert fast_load(io.BytesIO(gzip.compress(data)), machine_size=8, limit=40) == \
        fast_load(io.BytesIO(data), machine_size=8, limit=40)
    assert_same(data, machine_size=8, limit=40)
    for newline in ("\r\n", "\r"):  # a "\r\n" split between two blocks is still one line end
        assert_same(crafted([line(100 + i, 50 + i) for i in range(50)], newline=newline), machine_size=8)


def test_many_pieces_with_bad_lines_everywhere():
    rng = random.Random(7)
    body = []
    for i in range(20000):  # several of the reader's pieces
        body.append(rng.choice(BAD_AND_ODD_LINES) if rng.random() < 0.05 else
                    line(i, i // 3, run=rng.choice(["0", "5", "12.5", "-1", "3600"]), alloc=rng.randint(-1, 40),
                         req=rng.choice([-1, rng.randint(1, 40)]), req_time=rng.choice(["-1", "60", "7.25"])))
    data = "\n".join(body).encode()
    assert len(data) > 3 * swf_read._BLOCK
    parsed = reference_read(data)
    for kw in ({"machine_size": 32}, {"machine_size": 32, "too_large": "clamp", "window": (100, 5000)},
               {"topology": Mesh(6, 6), "limit": 15000}):
        assert_same(data, parsed=parsed, **kw)


TOKENS = st.sampled_from(["0", "1", "-1", "17", "+3", "007", "2.5", "17.0", ".5", "5.", "-.5", "1e3", "nan", "-",
                          ".", "1-2", "123456789", "1234567890123456", "0.000000001", "x", ";", "-0", "9" * 20])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.lists(TOKENS, min_size=16, max_size=19), st.lists(TOKENS, min_size=0, max_size=3)),
                max_size=12),
       st.sampled_from([" ", "  ", "\t", " \t "]))
def test_random_lines_match_the_reference(rows, sep):
    data = "\n".join(sep.join(r) for r in rows).encode()
    assert_read_same(data)
    assert_same(data, machine_size=16)


# -- the shared traces -------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=TRACES)
def shared_trace(request):
    try:
        path = trace_path(request.param)
    except TraceNotFoundError as exc:
        pytest.skip(f"trace {request.param} not available: {exc}")
    data = path.read_bytes()
    return request.param, data, reference_read(data)


def test_shared_traces_match_the_reference(shared_trace):
    name, data, parsed = shared_trace
    assert_same(data, parsed=parsed)
    comments, records, skipped, _ = parsed
    header, got, report = read_swf(io.BytesIO(data))
    assert header.comments == tuple(comments) and len(got) == len(records)
    assert [(s.line, s.reason, s.detail, s.text) for s in report.skipped] == skipped
    assert all(n == m and tuple(r) == v for (n, r), (m, v) in zip(got, records, strict=True))


def test_shared_traces_match_the_reference_with_filters(shared_trace):
    name, data, parsed = shared_trace
    records = parsed[1]
    first, last = records[0][1][1], records[-1][1][1]
    some = min(len(records) // 2, 20000)  # several of the reader's pieces, and a limit that falls inside one
    assert_same(data, parsed=parsed, topology=Hypercube(7), too_large="clamp", rate_factor=1.7, limit=some)
    assert_same(data, parsed=parsed, topology=Mesh(10, 12), window=(first + (last - first) / 3, None),
                size="allocated", limit=some)

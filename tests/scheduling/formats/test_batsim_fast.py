"""The Batsim workload reader's byte-level path (``scheduling/formats/_batsim_fast.py``) against its JSON
path, the reference: the same jobs, records, document and report for every file the byte-level path reads
(any uniform layout: ``json.dumps`` with any indentation, key order and separators, Batsim's converter's),
the same error for every file it declines (mixed layouts among them); and the ``_jobs.csv`` writer's paths
(every job known or not, cells or packed columns, contiguous or scattered allocations) against each other."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import Job
from scheduling.formats import batsim
from scheduling.formats._batsim_fast import delay_workload
from scheduling.formats.batsim import BatsimError, read_workload, write_workload


def _jobs(w: batsim.BatsimWorkload) -> list[tuple]:
    return [(j.id, j.arrival, j.request, j.runtime, j.estimate, j.size, j.comm, j.speedup, dict(j.attrs)) for j in w]


def _read(text: str | bytes, fast: bool, monkeypatch: pytest.MonkeyPatch, **kw: object) -> object:
    """The workload (or the error) of ``text``, by the byte-level path where it applies (``fast``) or
    by the JSON path alone."""
    data = text.encode() if isinstance(text, str) else text
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(batsim, "delay_workload", lambda data: None)
        try:
            return read_workload(io.BytesIO(data), **kw)
        except (BatsimError, ValueError) as exc:
            return exc


def _same(text: str | bytes, monkeypatch: pytest.MonkeyPatch, **kw: object) -> object:
    """Read both ways and check they agree: jobs, report, records and document, or the error's type
    and message."""
    fast, slow = _read(text, True, monkeypatch, **kw), _read(text, False, monkeypatch, **kw)
    if isinstance(slow, Exception):
        assert type(fast) is type(slow) and str(fast) == str(slow)
        return slow
    assert isinstance(fast, batsim.BatsimWorkload)
    assert _jobs(fast) == _jobs(slow)
    assert [type(j.arrival) for j in fast] == [type(j.arrival) for j in slow]
    assert [type(j.estimate) for j in fast] == [type(j.estimate) for j in slow]
    assert fast.report == slow.report and fast.machine_size == slow.machine_size
    assert fast.records == slow.records and fast.document == slow.document
    return fast


def _byte_path(text: str | bytes, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the reader took the byte-level path (which leaves the document to be parsed on first use)."""
    w = _read(text, True, monkeypatch)
    return isinstance(w, batsim.BatsimWorkload) and w._unparsed is not None


def _base(n: int = 40, seed: int = 0) -> str:
    """A converted trace as ``write_workload`` writes it: integral and non-integral times, ids 1..n."""
    rng = np.random.default_rng(seed)
    arrivals = np.sort(rng.integers(0, 5000, n)).astype(float) + (np.arange(n) % 3) / 4
    jobs = [Job(i + 1, float(t), int(k), float(r), estimate=float(e), size=int(k))
            for i, (t, k, r, e) in enumerate(zip(arrivals, rng.integers(1, 9, n), rng.integers(1, 20, n) * 1.5,
                                                 rng.integers(60, 900, n), strict=True))]
    out = io.StringIO()
    write_workload(out, jobs, nb_res=8)
    return out.getvalue()


def test_a_converted_trace_is_read_from_its_bytes_with_the_json_readers_jobs(monkeypatch):
    text = _base()
    assert delay_workload(text.encode()) is not None  # the byte-level path applies
    w = _same(text, monkeypatch)
    assert len(w) == 40 and w._unparsed is None  # the document parsed on first use (by _same)
    fresh = read_workload(io.BytesIO(text.encode()))
    assert fresh._unparsed is not None and fresh.document == json.loads(text)
    assert [r["id"] for r in fresh.records] == [j.attrs["batsim_id"] for j in fresh]


#: Changes to the text of ``_base()``: each either keeps the byte-level path (True) or must make the reader
#: decline it (False: the layout, or a job the JSON path skips or refuses); both ways must give the same
#: workload or the same error.
CHANGES = [
    ("integers for times", lambda t: re.sub(r'"subtime": (\d+)\.0,', r'"subtime": \1,', t), True),
    ("jobs out of order", lambda t: t.replace('"subtime": 0.0', '"subtime": 99999.5', 1)
     if '"subtime": 0.0' in t else re.sub(r'"subtime": [0-9.]+', '"subtime": 99999.5', t, count=1), True),
    ("Batsim 5 profile types", lambda t: t.replace('"type": "delay"', '"type": "DelayProfile"', 3), True),
    ("trailing spaces, no final newline", lambda t: t.rstrip("\n") + " \t ", True),
    ("a non-ASCII profile name", lambda t: t.replace('"profile": "1.5"', '"profile": "\u00e9"').replace(
        '"1.5": {', '"\u00e9": {'), True),
    ("a walltime of 0", lambda t: re.sub(r'"walltime": [0-9.]+', '"walltime": 0.0', t, count=2), True),
    ("a negative walltime", lambda t: re.sub(r'"walltime": [0-9.]+', '"walltime": -1', t, count=2), True),
    ("ids '7' and '007'", lambda t: t.replace('"id": "2"', '"id": "001"'), False),
    ("a repeated id", lambda t: t.replace('"id": "2"', '"id": "1"'), False),
    ("ids that are not digits", lambda t: t.replace('"id": "2"', '"id": "x2"'), False),
    ("integer ids", lambda t: re.sub(r'"id": "(\d+)"', r'"id": \1', t), True),
    ("indented", lambda t: json.dumps(json.loads(t), indent=1), True),
    ("other key order", lambda t: json.dumps(json.loads(t), sort_keys=True), True),
    ("an exponent", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": 1e2', t, count=1), False),
    ("17 digits", lambda t: re.sub(r'"walltime": [0-9.]+', '"walltime": 0.30000000000000004', t, count=1), False),
    ("a leading zero (not JSON)", lambda t: re.sub(r'"res": (\d)', r'"res": 0\1', t, count=1), False),
    ("'.5' (not JSON)", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": .5', t, count=1), False),
    ("'5.' (not JSON)", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": 5.', t, count=1), False),
    ("'+5' (not JSON)", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": +5', t, count=1), False),
    ("'-0'", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": -0', t, count=1), False),
    ("a negative subtime", lambda t: re.sub(r'"subtime": [0-9.]+', '"subtime": -3.5', t, count=1), False),
    ("res 0", lambda t: re.sub(r'"res": \d', '"res": 0', t, count=1), False),
    ("res above nb_res", lambda t: re.sub(r'"res": \d', '"res": 9', t, count=1), False),
    ("nb_res 0", lambda t: t.replace('"nb_res": 8', '"nb_res": 0'), False),
    ("an escape in a name", lambda t: t.replace('"profile": "1.5"', '"profile": "\\u0031.5"'), False),
    ("a tab in a name (not JSON)", lambda t: t.replace('"profile": "1.5"', '"profile": "1\t5"'), False),
    ("an unknown profile", lambda t: t.replace('"profile": "1.5"', '"profile": "nope"', 1), False),
    ("a repeated profile name", lambda t: t.replace('"profiles": {', '"profiles": {"1.5": {"type": "delay", '
                                                    '"delay": 7.0}, '), False),
    ("a negative unused delay", lambda t: t.replace('"profiles": {', '"profiles": {"u": {"type": "delay", '
                                                    '"delay": -1.0}, '), False),
    ("a parallel profile", lambda t: t.replace('"profiles": {', '"profiles": {"u": {"type": "parallel", '
                                               '"cpu": [1]}, '), False),
    ("an unknown profile type", lambda t: t.replace('"type": "delay"', '"type": "quantum"', 1), False),
    ("a missing walltime", lambda t: re.sub(r', "walltime": [0-9.]+', '', t, count=1), False),
    ("a job without res", lambda t: re.sub(r' "res": \d+,', '', t, count=1), False),
    ("malformed JSON", lambda t: t.replace('"res": ', '"res": ,', 1), False),
    ("truncated", lambda t: t[:-40], False),
]


@pytest.mark.parametrize("label,change,kept", CHANGES, ids=[c[0] for c in CHANGES])
def test_every_change_reads_as_the_json_reader_reads_it(monkeypatch, label, change, kept):
    text = change(_base())
    assert text != _base()
    assert _byte_path(text, monkeypatch) == kept
    _same(text, monkeypatch)
    _same(text, monkeypatch, machine_size=16)
    _same(text, monkeypatch, too_large="error")


def _converted(n: int = 30, seed: int = 3) -> dict:
    """A workload with the members, key names and value types of Batsim's own converter
    (``tools/swf_to_batsim_workload_delay.py`` in ``oar-team/batsim``): integer ids from 0, float
    ``subtime`` and ``walltime``, integer ``res``, ``profile`` the string of an integral run time whose
    ``delay`` profile holds that integer; top-level ``version``, ``command``, ``date`` and
    ``description`` beside ``nb_res``, ``jobs`` and ``profiles``."""
    rng = np.random.default_rng(seed)
    runs = (rng.integers(1, 12, n) * 60).tolist()
    subs = np.sort(rng.integers(0, 10**5, n)).astype(float).tolist()
    jobs = [{"id": i, "subtime": subs[i] - subs[0], "walltime": 2.0 * runs[i], "res": int(r), "profile": str(runs[i])}
            for i, r in enumerate(rng.integers(1, 17, n))]
    return {"version": 0, "command": "swf_to_batsim_workload_delay.py in.swf out.json -i 4",
            "date": "2026-01-01 00:00:00.000000", "description": "this workload had been automatically generated",
            "nb_res": 16, "jobs": jobs, "profiles": {str(r): {"type": "delay", "delay": r} for r in sorted(set(runs))}}


def _reordered(doc: dict, order: tuple[str, ...]) -> dict:
    """``doc`` with every job's keys in ``order``."""
    return {**doc, "jobs": [{k: j[k] for k in order} for j in doc["jobs"]]}


#: Layouts of one workload: ``json.dumps`` keyword arguments (indentation, sorted keys, separators), a key
#: order of the jobs and the converter's members; each must be read from its bytes.
LAYOUTS = [
    ("json.dumps", {}),
    ("indent=2", {"indent": 2}),
    ("indent=4", {"indent": 4}),
    ("indent=0 (newlines)", {"indent": 0}),
    ("indent with tabs", {"indent": "\t"}),
    ("sort_keys", {"sort_keys": True}),
    ("sort_keys, indent=2", {"sort_keys": True, "indent": 2}),
    ("sort_keys, indent=4", {"sort_keys": True, "indent": 4}),
    ("compact separators", {"separators": (",", ":")}),
    ("compact, sorted", {"separators": (",", ":"), "sort_keys": True}),
    ("indent=2, spaced colons", {"indent": 2, "separators": (" ,", " : ")}),
]


@pytest.mark.parametrize("label,kw", LAYOUTS, ids=[x[0] for x in LAYOUTS])
@pytest.mark.parametrize("source", ["ours", "converter"])
def test_every_uniform_layout_is_read_from_its_bytes_as_the_json_reader_reads_it(monkeypatch, label, kw, source):
    """Batsim's converter writes ``json.dump(data, out, indent=args.indent, sort_keys=True)``
    (``tools/swf_to_batsim_workload_delay.py`` in ``oar-team/batsim``; ``-i`` sets the indent, none by
    default); other scripts use ``json.dump`` with other arguments. Each layout takes the byte-level path
    and reads as the JSON path reads it."""
    doc = json.loads(_base()) if source == "ours" else _converted()
    text = json.dumps(doc, **kw)
    assert delay_workload(text.encode()) is not None
    assert _byte_path(text, monkeypatch)
    w = _same(text, monkeypatch)
    assert len(w) == len(doc["jobs"])
    if source == "converter":  # integer ids: the job's id and its batsim_id are the integer
        assert [j.attrs["batsim_id"] for j in w] == [j.id for j in w] == list(range(len(doc["jobs"])))
    _same(text.replace("\n", "\r\n"), monkeypatch)  # CRLF line ends: whitespace like any other
    assert _byte_path(text.replace("\n", "\r\n"), monkeypatch)


KEY_ORDERS = [("walltime", "res", "subtime", "id", "profile"), ("profile", "id", "walltime", "subtime", "res"),
              ("res", "profile", "walltime", "id", "subtime")]


@pytest.mark.parametrize("order", KEY_ORDERS, ids=["-".join(o) for o in KEY_ORDERS])
@pytest.mark.parametrize("indent", [None, 2])
def test_any_key_order_is_read_from_its_bytes(monkeypatch, order, indent):
    """A string value first or last in the job, a number first or last: each placed by its quotes."""
    for doc in (json.loads(_base()), _converted()):
        text = json.dumps(_reordered(doc, order), indent=indent)
        assert _byte_path(text, monkeypatch)
        _same(text, monkeypatch)
        _same(text, monkeypatch, machine_size=8)  # some jobs too large: the JSON path skips them


def test_one_job_and_one_profile_and_members_in_any_order(monkeypatch):
    doc = {"profiles": {"p": {"delay": 3, "type": "DelayProfile"}}, "x": None, "jobs": [
        {"id": "9", "subtime": 1, "res": 1, "profile": "p", "walltime": -1}], "flag": True, "nb_res": 2}
    for kw in ({}, {"indent": 3}, {"sort_keys": True}):
        text = json.dumps(doc, **kw)
        assert _byte_path(text, monkeypatch)
        w = _same(text, monkeypatch)
        assert [(j.id, j.runtime, j.estimate) for j in w] == [(9, 3.0, None)]


def _indent_job(text: str, i: int) -> str:
    """``text`` (one line, ``json.dumps``) with job ``i`` written over several lines."""
    doc = json.loads(text)
    one = json.dumps(doc["jobs"][i])
    return text.replace(one, json.dumps(doc["jobs"][i], indent=2), 1)


#: Files whose jobs or profiles do not share one layout, or hold what the byte-level path leaves to the JSON
#: parser: each must make it decline, and read as the JSON path reads it.
MIXED = [
    ("one job indented", lambda t: _indent_job(t, 5)),
    ("the last job indented", lambda t: _indent_job(t, 39)),
    ("one job's keys in another order", lambda t: re.sub(r'\{"id": "3", "subtime": ([0-9.]+), ',
                                                         r'{"subtime": \1, "id": "3", ', t)),
    ("one job with an extra key", lambda t: t.replace('{"id": "4", ', '{"id": "4", "user": "u", ')),
    ("every job with an extra key", lambda t: t.replace('{"id": ', '{"user": "u", "id": ')),
    ("a string res", lambda t: re.sub(r'"res": (\d+)', r'"res": "\1"', t, count=1)),
    ("a float res", lambda t: re.sub(r'"res": (\d+)', r'"res": \1.0', t, count=1)),
    ("a null walltime", lambda t: re.sub(r'"walltime": [0-9.]+', '"walltime": null', t, count=1)),
    ("a string id among integer ids", lambda t: re.sub(r'"id": "(\d+)"', r'"id": \1', t).replace(
        '"id": 7,', '"id": "7",')),
    ("a separator of its own", lambda t: t.replace('}, {"id": "6"', '},  {"id": "6"')),
    ("one profile's keys in another order", lambda t: re.sub(r'"(\d+(?:\.5)?)": \{"type": "delay", "delay": '
                                                             r'([0-9.]+)\}', r'"\1": {"delay": \2, "type": '
                                                             r'"delay"}', t, count=1)),
    ("a profile with an extra key", lambda t: t.replace('{"type": "delay", ', '{"type": "delay", "x": 1, ', 1)),
    ("a nested top-level member", lambda t: t.replace('{"nb_res": 8, ', '{"meta": {"a": 1}, "nb_res": 8, ')),
    ("a top-level string with an escape", lambda t: t.replace('{"nb_res": 8, ', '{"cmd": "a\\"b", "nb_res": 8, ')),
    ("a repeated top-level key", lambda t: t.replace('{"nb_res": 8, ', '{"nb_res": 8, "nb_res": 9, ')),
    ("no nb_res", lambda t: t.replace('{"nb_res": 8, ', '{')),
    ("text after the object", lambda t: t.rstrip() + " 1"),
]


@pytest.mark.parametrize("label,change", MIXED, ids=[x[0] for x in MIXED])
def test_mixed_layouts_fall_back_to_the_json_reader(monkeypatch, label, change):
    text = change(_base())
    assert text != _base()
    assert delay_workload(text.encode()) is None
    _same(text, monkeypatch)
    _same(text, monkeypatch, machine_size=16)


def test_a_converted_workload_with_an_indented_job_falls_back(monkeypatch):
    """The converter's layout with one job written on one line: two layouts, read by the JSON path."""
    doc = _converted()
    text = json.dumps(doc, indent=2, sort_keys=True)
    one = json.dumps(doc["jobs"][3], indent=2, sort_keys=True).replace("\n", "\n    ")
    assert one in text
    mixed = text.replace(one, json.dumps(doc["jobs"][3], sort_keys=True))
    assert delay_workload(mixed.encode()) is None
    _same(mixed, monkeypatch)


def test_invalid_utf8_and_large_files_agree(monkeypatch):
    bad = _base().encode().replace(b'"profile": "1.5"', b'"profile": "\xe9"', 1)
    assert delay_workload(bad) is None
    assert isinstance(_same(bad, monkeypatch), BatsimError)
    _same(_base(2000, seed=5), monkeypatch)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from([0, 1, 2, 3]), st.integers(1, 64),
                          st.integers(0, 10**5), st.integers(-5, 10**5)), min_size=1, max_size=30),
       st.booleans(), st.sampled_from([None, 0, 2]), st.booleans(), st.booleans())
def test_workloads_written_by_json_dumps_read_the_same_both_ways(rows, batsim5, indent, sort_keys, int_ids):
    """Any times (integral, quarters), sizes, walltimes (some <= 0) and shared profiles, string or
    integer ids, in the layouts ``json.dumps`` writes with or without indentation and sorted keys."""
    doc = {"nb_res": 64, "jobs": [], "profiles": {}}
    for i, (t, q, res, run, wall) in enumerate(rows):
        name = f"p{run % 7}"
        doc["profiles"][name] = {"type": "DelayProfile" if batsim5 else "delay", "delay": run / 4}
        doc["jobs"].append({"id": 1000 - i if int_ids else str(1000 - i), "subtime": t + q / 4, "res": res,
                            "profile": name, "walltime": wall})
    text = json.dumps(doc, indent=indent, sort_keys=sort_keys)
    assert delay_workload(text.encode()) is not None
    with pytest.MonkeyPatch.context() as m:
        _same(text, m)


def test_jobs_csv_rows_are_the_same_whether_every_job_is_known_or_some_are_not():
    """``write_jobs_csv`` takes each job's request, estimate, Batsim id, profile and Slurm state from the
    workload's jobs by C-level passes when every job is known, per job otherwise: a job left out of
    ``jobs`` keeps the result's own count, ``-1`` for its time and its id; the others are written as when
    every job is given."""
    from scheduling import simulate
    from scheduling.formats import write_jobs_csv
    from topoalloc import FirstFree
    from topologies import SwitchTree

    jobs = [Job(i, float(i), 1 + i % 3, 2.0 + i, estimate=10.0 + i if i % 4 else None, size=1 + i % 3,
                attrs={"batsim_id": f"w!{i}", "batsim_profile": f"p{i % 2}", **({"state": "FAILED"} if i == 5 else {})})
            for i in range(12)]
    r = simulate(FirstFree(SwitchTree.uniform((2, 4))), "FCFS", jobs, jobs=None, record_placement=True)
    rows = {}
    for label, known in (("all", jobs), ("some", [j for j in jobs if j.id != 7])):
        out = io.StringIO()
        write_jobs_csv(out, r, iter(known))
        rows[label] = {line.split(",")[0]: line for line in out.getvalue().splitlines()[1:]}
    seven = rows["some"].pop("7").split(",")
    assert seven[2] == "" and seven[4] == "2" and seven[5] == "-1"  # profile, requested resources and time
    assert rows["all"].pop("w!7").split(",")[4:6] == ["2", "17"]
    assert rows["some"] == rows["all"] and len(rows["all"]) == 11
    assert rows["all"]["w!5"].split(",")[6:8] == ["0", "COMPLETED_FAILED"] and rows["all"]["w!4"].split(",")[5] == "-1"


# -- the _jobs.csv writer's cells (scheduling/formats/_columns.py, _procset.py) ---------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-10**18, 10**18), st.integers(-10**9, 10**9), st.integers(0, 99)), max_size=40),
       st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**16, 10**16).map(float),
                          st.sampled_from([0.0, -0.0, 0.5, 1e15, -1e15, 999999999999999.0])), max_size=40))
def test_cells_hold_the_text_of_the_packed_columns(ints, floats):
    """``_int_cells`` and ``_float_cells`` hold, between NUL bytes, the very text ``_int_text`` and
    ``_float_text`` write (which ``str(int)`` and ``repr`` give); ``_lines`` of any mix of cells and packed
    columns is ``_rows`` of the packed ones."""
    from scheduling.formats._columns import _float_cells, _float_text, _int_cells, _int_text, _lines, _rows, _str_text

    i64 = np.array(ints, dtype=np.int64)
    for cells, (data, lengths) in ((_int_cells(i64), _int_text(i64)),
                                   (_float_cells(np.array(floats)), _float_text(np.array(floats)))):
        assert cells[0][cells[0] != 0].tobytes() == data.tobytes() and cells[1].tolist() == lengths.tolist()
    assert _int_text(np.array(ints, dtype=np.int64))[0].tobytes() == "".join(map(str, ints)).encode()
    n = min(len(ints), len(floats))
    a, b = np.array(ints[:n], dtype=np.int64), np.array(floats[:n])
    names = _str_text([f"j{i}" * (i % 3) for i in range(n)])
    packed = [_int_text(a), names, _float_text(b), _float_text(b)]
    mixed = [_int_cells(a), names, _float_cells(b), _float_text(b)]
    assert _lines(mixed, n, b",", b"\n").tobytes() == _rows(packed, n, b",", b"\n")[0].tobytes()


def test_lines_falls_back_where_a_field_holds_a_nul_or_is_far_wider_than_the_others():
    from scheduling.formats._columns import _int_cells, _int_text, _lines, _rows, _str_text

    a = np.arange(50)
    for strings in (["a\x00b"] + ["c"] * 49, ["x" * 5000] + ["y"] * 49):
        col = _str_text(strings)
        assert _lines([_int_cells(a), col], 50, b",", b"\n").tobytes() == _rows([_int_text(a), col], 50, b",",
                                                                                   b"\n")[0].tobytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.integers(0, 10**6), st.integers(0, 6)).map(lambda r: np.arange(r[0], sum(r))),
                          st.lists(st.integers(-1, 40), max_size=5).map(lambda ids: np.array(ids, dtype=np.int64))),
                min_size=1, max_size=12))
def test_interval_cells_write_what_interval_text_writes_or_decline(parts):
    """A contiguous allocation (``a``, ``a-b``) or none as cells; anything else (several runs, ids out of
    order, repeated or negative) declined, for :func:`interval_text` to write or refuse."""
    from scheduling.formats._procset import interval_cells, interval_text

    ids = np.concatenate(parts).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum([p.size for p in parts])])
    got = interval_cells(ids, offsets)
    contiguous = all(p.size == 0 or (p.min() >= 0 and (np.diff(p) == 1).all()) for p in parts) and ids.size > 0
    assert (got is not None) == contiguous
    if got is not None:
        data, lengths = interval_text(ids, offsets)
        assert got[0][got[0] != 0].tobytes() == data.tobytes() and got[1].tolist() == lengths.tolist()


def test_jobs_csv_is_the_same_with_contiguous_and_scattered_allocations():
    """``write_jobs_csv`` writes contiguous allocations through cells and any other through
    ``interval_text``: both give the interval sets ``format_intervals`` gives, in Batsim's column."""
    from scheduling.formats import write_jobs_csv
    from scheduling.formats._procset import format_intervals
    from scheduling.kernel.result import SimulationResult

    n = 6
    dtype = [("id", np.int64), ("ordinal", np.int64), ("arrival", float), ("start", float), ("end", float),
             ("requested", np.int64), ("granted", np.int64), ("folds", np.int64), ("changes", np.int64),
             ("moved", np.int64), ("runtime", float)]
    t = np.zeros(n, dtype=dtype)
    t["id"] = np.arange(n)
    t["start"], t["end"] = np.arange(n) * 2.0, np.arange(n) * 2.0 + 1.5
    t["requested"] = t["granted"] = 3
    for placements in ({i: np.arange(3 * i, 3 * i + 3) for i in range(n)},
                       {i: np.array([i, 10 + i, 20 + i]) for i in range(n)}):
        r = SimulationResult(t, 64, (0.0, 12.0), 0.0, 0.0, 12.0, "X", "x", 0, placements=placements)
        out = io.StringIO()
        write_jobs_csv(out, r)
        rows = [line.split(",") for line in out.getvalue().splitlines()[1:]]
        assert [row[14] for row in rows] == [format_intervals(placements[i]) for i in range(n)]
        assert [row[13] for row in rows] == [repr(v) if v != int(v) else str(int(v))
                                             for v in ((t["end"] - t["arrival"]) / (t["end"] - t["start"])).tolist()]

"""The bulk steps of the sacct reader (scheduling/formats/_sacct_fast.py and the column parsers it
feeds): each one equals its one-by-one reference, and the whole reader gives the line reader's jobs
and report on the benchmark's dump."""

from __future__ import annotations

import copy
import importlib.util
import io
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling.formats import sacct as sacct_module
from scheduling.formats._sacct_fast import _skipped_lines, _small_uints, _state_counts, _step_lines
from scheduling.formats._sacct_fields import _civil_seconds
from scheduling.formats.sacct import read_sacct
from topologies.tree_files import read_slurm_topology_conf

from .test_sacct import _as_compared

ROOT = Path(__file__).resolve().parents[3]


def _benchmark():
    """benchmarks/formats.py as a module (its dump writer and synthetic site)."""
    spec = importlib.util.spec_from_file_location("formats_benchmark", ROOT / "benchmarks" / "formats.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("variant", ["as written", "other states and partitions"])
def test_the_benchmarks_dump_reads_from_its_bytes_as_line_by_line(tmp_path, variant):
    """The benchmark's dump (benchmarks/formats.py, write_sacct: jobs with their .batch and .extern
    steps, 5% cancelled before they started), 3,000 jobs of it: the column-at-a-time reading of
    its bytes gives the line reader's jobs, records and report (the reference), also with failed
    jobs, another partition and filters."""
    bench = _benchmark()
    path = tmp_path / "site.sacct"
    bench.write_sacct(path, bench.make_jobs(3000, seed=3))
    text = path.read_text()
    if variant != "as written":
        lines = text.splitlines()
        for i in range(1, len(lines), 7):
            lines[i] = lines[i].replace("|COMPLETED|batch", "|FAILED|debug")
        text = "\n".join(lines) + "\n"
        path.write_text(text)
    tree = read_slurm_topology_conf(bench.site_conf())
    for kwargs in ({}, {"states": ["COMPLETED"]}, {"partitions": ["batch"]}):
        fast, slow = read_sacct(path, tree, **kwargs), read_sacct(io.StringIO(text), tree, **kwargs)
        assert _as_compared(fast) == _as_compared(slow)
        assert list(fast.report.states) == list(slow.report.states)
    every = read_sacct(path, tree)
    assert every.report.steps == 2 * len(every) and len(every.report.skipped) == 150  # 3000 // 20 cancelled


@pytest.mark.parametrize("kept", ["all", "most", "few", "JobID second"])
def test_records_are_decoded_when_first_asked_for(tmp_path, kept):
    """A dump read from its bytes decodes its kept lines (``records``) only when they are first
    asked for, then keeps them: the same lines as the line reader's, whether every job line is
    kept, most are (the benchmark's 5% never started: the whole body decoded then), few are (a
    partition filter: the few lines gathered at once), or the step lines stay in the body
    (``JobID`` not the first column: the kept lines' bytes gathered at once, decoded later).
    Setting ``records`` replaces them (``load`` filters a trace's jobs that way)."""
    bench = _benchmark()
    path = tmp_path / "site.sacct"
    bench.write_sacct(path, bench.make_jobs(400, seed=5))
    text = path.read_text()
    if kept == "JobID second":
        text = "\n".join("|".join([f[1], f[0], *f[2:]]) for f in (ln.split("|") for ln in text.splitlines())) + "\n"
    if kept == "all":
        text = "\n".join(ln for ln in text.splitlines() if "CANCELLED" not in ln) + "\n"
    elif kept == "few":
        lines = text.splitlines()
        text = "\n".join(ln if i % 20 else ln.replace("|batch", "|debug") for i, ln in enumerate(lines)) + "\n"
    path.write_text(text)
    tree = read_slurm_topology_conf(bench.site_conf())
    kwargs = {"partitions": ["debug"]} if kept == "few" else {}
    fast, slow = read_sacct(path, tree, **kwargs), read_sacct(io.StringIO(text), tree, **kwargs)
    assert len(fast) > 0
    assert fast._unread is not None  # not decoded yet (few: made at once, a gather of their bytes, kept)
    assert fast.records == slow.records and len(fast.records) == len(fast)
    assert fast._unread is None and fast.records is fast.records  # decoded once, then kept
    again = read_sacct(path, tree, **kwargs)  # pickled (a worker process) or copied before its records are asked for
    for twin in (pickle.loads(pickle.dumps(again)), copy.deepcopy(again)):
        assert twin.records == slow.records and [j.id for j in twin] == [j.id for j in slow]
    fast.records = fast.records[:1]
    assert fast.records == slow.records[:1]


def _line_starts(lines: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = np.frombuffer("".join(line + "\n" for line in lines).encode(), dtype=np.uint8)
    lens = np.array([len(line.encode()) for line in lines], dtype=np.int64)
    return data, np.cumsum(lens + 1) - (lens + 1), lens


_JOBID = st.one_of(
    st.builds(str, st.integers(0, 10**9)),
    st.builds(lambda a, b: f"{a}.{b}", st.integers(0, 10**9), st.sampled_from(["batch", "extern", "0", "12"])),
    st.builds(lambda a, b: f"{a}_{b}", st.integers(0, 10**6), st.integers(0, 999)),
    st.text(alphabet="0123456789._+[]-x", max_size=20),
)


@given(st.lists(st.tuples(_JOBID, st.text(alphabet="ab|.|", max_size=20)), min_size=1, max_size=30),
       st.booleans())
def test_step_lines_are_the_lines_with_a_dot_before_their_first_bar(rows, bar):
    """A step line has a '.' in its JobID, the text before its first '|' (sacct(1): JobID.JobStep);
    read from each line's first two words, the answer must be the line reader's
    ("." in line[:line.find("|")]) for every line, or None (the caller then reads a wider window)
    -- and not None when every line's JobID ends within its first 16 bytes."""
    lines = [j + ("|" if bar else "") + rest for j, rest in rows]
    data, starts, lens = _line_starts(lines)
    want = ["." in line[:line.find("|")] for line in lines]
    for ascii in ({True, False} if data.max(initial=0) < 128 else {False}):
        got = _step_lines(data, starts, lens, ascii)
        if got is not None:
            assert got.tolist() == want
        elif all(0 <= line.find("|") < 16 for line in lines):
            pytest.fail(f"declined lines whose JobIDs end within 16 bytes: {lines!r}")


@given(st.lists(st.one_of(st.integers(0, 10**8).map(str), st.sampled_from(["", "1.0", "-1", "x", "٣", "00000001",
                                                                            "123456789", " 7", "7 "])),
                max_size=20))
def test_small_counts_read_from_one_word_are_what_int_reads(texts):
    """Fields of 1 to 8 ASCII digits become int64 from the word that ends each; any column with
    another field is declined (None), for the reader's other conversions."""
    data = np.frombuffer(("|".join(texts) + "|").encode(), dtype=np.uint8)
    lens = np.array([len(t.encode()) for t in texts], dtype=np.int64)
    starts = np.cumsum(lens + 1) - (lens + 1)
    got = _small_uints(data, starts, starts + lens)
    if all(t.isascii() and t.isdigit() and len(t) <= 8 for t in texts):
        assert got is not None and got.tolist() == [int(t) for t in texts]
    else:
        assert got is None


def test_times_from_their_digits_are_numpys_over_ten_thousand_years():
    """Every year 1-9999 (leap rules of the proleptic Gregorian calendar: 1900 is not a leap year,
    2000 is): the seconds are numpy's datetime64 of the same text."""
    rng = np.random.Generator(np.random.PCG64(7))
    lo, hi = (np.datetime64(t, "s").astype(np.int64) for t in ("0001-01-01T00:00:00", "9999-12-31T23:59:59"))
    secs = np.concatenate([rng.integers(lo, hi, 20_000),
                           np.array(["1900-02-28T23:59:59", "1900-03-01T00:00:00", "2000-02-29T12:00:00",
                                     "1970-01-01T00:00:00", "1969-12-31T23:59:59"],
                                    dtype="datetime64[s]").astype(np.int64)])
    texts = np.datetime_as_string(secs.astype("datetime64[s]"), unit="s")
    cells = np.frombuffer("".join(texts.tolist()).encode(), dtype=np.uint8).reshape(-1, 19)
    assert _civil_seconds(cells).tolist() == secs.tolist()
    for bad in ("1900-02-29T00:00:00", "2024-04-31T00:00:00", "0000-01-01T00:00:00", "2024-01-01T00:60:00"):
        assert _civil_seconds(np.frombuffer(bad.encode(), dtype=np.uint8).reshape(1, 19)) is None


def test_skip_details_made_per_reason_are_the_one_row_references():
    """The report's details are made per reason over all rows of that reason; each must be the text
    sacct._detail (the one-row reference) gives, for every reason code."""
    reasons = sacct_module._REASONS
    n = len(reasons)
    rows = list(range(1, n))  # one row per reason code 1..n-1
    texts = {c: {i: f"{c[:2]}{i}" for i in range(n)} for c in ("JobID", "State", "Start", "NodeList", "Partition",
                                                                 "Submit", "End", "NNodes", "Timelimit")}
    nodes = {i: (None if i % 2 else np.arange(i)) for i in range(n)}
    ids = np.arange(100, 100 + n)
    got = _skipped_lines(rows, rows, reasons, sacct_module._R_NOT_STARTED, sacct_module._R_NO_START,
                         lambda c, at: [texts[c][i] for i in at],
                         lambda at: [0 if nodes[i] is None else nodes[i].size for i in at],
                         ids, 64, list(range(10, 10 + n)), [f"line {i}" for i in rows])
    want = [sacct_module._detail(code, code, texts, nodes, ids, 64) for code in rows]
    assert [s.detail for s in got] == want
    assert [(s.line, s.reason, s.text) for s in got] == [(10 + i, reasons[i], f"line {i}") for i in rows]


def test_state_counts_are_counters_in_order_of_first_use():
    codes = np.array([2, 0, 2, 1, 3, 0])
    names = ["FAILED", "COMPLETED", "CANCELLED", "COMPLETED"]
    from collections import Counter

    got = _state_counts(codes, names)
    want = dict(Counter(names[c] for c in codes.tolist()))
    assert got == want and list(got) == list(want)


_FIELD = st.one_of(st.sampled_from(["", "a", "COMPLETED", "CANCELLED by 0", "node[0001-0064]", "n1,n2",
                                    "COMPLETED\x00"]),
                   st.text(alphabet="ab[],-019", max_size=40))


@given(st.lists(_FIELD, max_size=60))
def test_columns_factorized_through_a_table_are_numbered_by_first_use(texts):
    """Distinct node lists found through an open table of hashes, and states or partitions (up to 8
    values) by comparison alone: each field's code is the rank of its value's first use, and
    first[k] the row where value k first occurs (a dict built row by row is the reference), as the
    sort-based _columns._factorize numbers them."""
    from scheduling.formats._columns import _factorize
    from scheduling.formats._sacct_fast import _factorize_few, _factorize_table

    data = np.frombuffer(("|".join(texts) + "|").encode(), dtype=np.uint8)
    lens = np.array([len(t.encode()) for t in texts], dtype=np.int64)
    starts = np.cumsum(lens + 1) - (lens + 1)
    got = _factorize_table(data, starts, starts + lens)
    order = list(dict.fromkeys(texts))
    assert got is not None
    assert got[0].tolist() == [order.index(t) for t in texts]
    assert got[1].tolist() == [texts.index(v) for v in order]
    ref = _factorize(data, starts, starts + lens)
    assert ref is None or (ref[0].tolist() == got[0].tolist() and ref[1].tolist() == got[1].tolist())
    few = _factorize_few(data, starts, starts + lens)  # by comparison alone, up to 8 values
    if len(order) <= 8:
        assert few is not None and few[0].tolist() == got[0].tolist() and few[1].tolist() == got[1].tolist()
    else:
        assert few is None


def test_a_table_of_colliding_hashes_never_merges_values(monkeypatch):
    """With a multiplier of 0 every field's hash is its last word's: values sharing it share every
    slot, so each round of the table finds one of them (the slot's row) and leaves the others for
    the next round; all are numbered exactly, and beyond 8 such values the table declines (None)
    rather than merge any."""
    from scheduling.formats import _columns, _sacct_fast

    def run(texts):
        data = np.frombuffer(("|".join(texts) + "|").encode(), dtype=np.uint8)
        lens = np.array([len(t) for t in texts], dtype=np.int64)
        starts = np.cumsum(lens + 1) - (lens + 1)
        return _sacct_fast._factorize_table(data, starts, starts + lens)

    monkeypatch.setattr(_columns, "_MIX", np.uint64(0))  # the fields' hash (_columns._field_hashes)
    codes, first = run(["aaaaaaaaX", "bbbbbbbbX", "aaaaaaaaX", "c", "ccccccccX"])
    assert codes.tolist() == [0, 1, 0, 2, 3] and first.tolist() == [0, 1, 3, 4]
    assert run([f"{k}" * 8 + "X" for k in range(9)]) is None


@given(st.lists(st.integers(0, 9), max_size=40))
def test_first_uses_are_numpys_unique_in_order_of_first_use(values):
    from scheduling.formats._sacct_fast import _first_uses

    codes = np.array(values, dtype=np.int64)
    used, first = _first_uses(codes, 10)
    want = list(dict.fromkeys(values))
    assert used.tolist() == want and first.tolist() == [values.index(v) for v in want]


@pytest.mark.parametrize("brk", ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\t", "\x00"])
def test_a_line_break_other_than_newline_anywhere_sends_the_dump_to_the_line_reader(tmp_path, brk):
    """str.splitlines also ends lines at \\r, \\v, \\f and \\x1c-\\x1e: the byte reader looks for them
    in the header line, and in the body with its newlines (the bytes below 0x20), and leaves any
    dump holding one to the line reader, so both give the same jobs, report or error (a tab or a
    NUL is not a line break: the byte reader reads on)."""
    from .test_sacct import LINES, TOPOLOGY_CONF, dump

    tree = read_slurm_topology_conf(TOPOLOGY_CONF)
    base = dump([(t, w) for t, w in LINES if w != "wrong field count"])
    for where in (5, 200, len(base) // 2, len(base) - 3):
        text = base[:where] + brk + base[where:]
        path = tmp_path / "site.txt"
        path.write_bytes(text.encode())

        def read(source):
            try:
                return _as_compared(read_sacct(source, tree))
            except sacct_module.SacctError as exc:
                return exc.line, exc.problem

        assert read(path) == read(io.StringIO(text))


@given(st.lists(st.lists(st.text("ab|", max_size=3), min_size=1, max_size=4).map("|".join), min_size=1, max_size=6),
       st.integers(1, 4))
def test_fields_split_with_known_line_ends_are_the_fields_split_without(lines, width):
    """_columns._split_fields given the newlines (as _sacct_fields._drop_steps knows them) looks for
    the separators alone; it must give what the full split gives, and decline (None) on the same
    inputs: a line with another number of fields, even when the total count is right."""
    from scheduling.formats._columns import _split_fields

    data = np.frombuffer(("\n".join(lines) + "\n").encode(), dtype=np.uint8)
    want = _split_fields(data, ord("|"), width)
    got = _split_fields(data, ord("|"), width, np.flatnonzero(data == 10))
    assert (got is None) == (want is None)
    if got is not None:
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def _outcome(read):
    """What a read gives: its jobs, records and report (test_sacct._as_compared), or its error's type."""
    try:
        return _as_compared(read())
    except Exception as exc:  # noqa: BLE001 -- the error's type is the outcome compared
        return type(exc)


@pytest.mark.parametrize("variant", ["as written", "no last newline", "header only", "empty", "not ascii",
                                     "crlf", "gzipped"])
def test_a_path_reads_as_its_bytes_from_an_open_file(tmp_path, variant):
    """A path and an open binary file of the same bytes read alike (the same jobs, records, report
    and errors), for the quirky dump of test_sacct and its odd shapes (the byte-table path and the
    line reader, gzip, an empty file)."""
    from .test_sacct import TOPOLOGY_CONF, dump

    tree = read_slurm_topology_conf(TOPOLOGY_CONF)
    text = dump()
    data = {"as written": text.encode(), "no last newline": text.rstrip("\n").encode(),
            "header only": text.split("\n", 1)[0].encode() + b"\n", "empty": b"",
            "not ascii": text.replace("|sim|", "|s\u00efm|").encode(),
            "crlf": text.replace("\n", "\r\n").encode(), "gzipped": __import__("gzip").compress(text.encode())}[variant]
    path = tmp_path / "site.sacct"
    path.write_bytes(data)
    raw, _ = sacct_module._read_raw(path)
    assert raw == (text.encode() if variant == "gzipped" else data)
    got = _outcome(lambda: read_sacct(path, tree))
    want = _outcome(lambda: read_sacct(io.BytesIO(data), tree))
    assert got == want
    if variant in ("as written", "no last newline", "not ascii"):
        assert len(got[0]) == 9  # the kept jobs of test_sacct.LINES


def test_fields_are_split_into_contiguous_columns():
    """_columns._split_fields returns its (lines, width) tables column-major, so that a column the
    readers take (starts[:, k]) is one contiguous array; the values are the fields' bounds."""
    from scheduling.formats._columns import _split_fields

    data = np.frombuffer(b"a|bc|d\n|e|fg\nhh|i|\n", dtype=np.uint8)
    for line_ends in (None, np.flatnonzero(data == 10)):
        starts, ends = _split_fields(data, ord("|"), 3, line_ends)
        assert starts.shape == ends.shape == (3, 3)
        assert all(starts[:, k].flags.c_contiguous and ends[:, k].flags.c_contiguous for k in range(3))
        text = data.tobytes().decode()
        assert [[text[a:b] for a, b in zip(s, e, strict=True)] for s, e in zip(starts.tolist(), ends.tolist(),
                                                                              strict=True)] == \
            [line.split("|") for line in text.splitlines()]

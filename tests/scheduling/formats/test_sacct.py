"""Slurm accounting dumps (sacct --parsable2): which lines become jobs, every other line reported, node lists
mapped on the site's tree, the recorded schedule replayed with its nodes and the same jobs re-placed."""

from __future__ import annotations

import gzip
import io

import hostlist
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling import simulate
from scheduling.formats.load import replay_recorded
from scheduling.formats.sacct import SacctError, expand_nodelist, parse_timelimit, read_sacct
from topoalloc import FirstFree, KueueTAS, SlurmTree
from topoalloc.locality import mean_hops
from topologies.tree_files import read_slurm_topology_conf

TOPOLOGY_CONF = """# a small site: two racks of compute nodes and one of GPU nodes
SwitchName=leaf0 Nodes=n[01-04]
SwitchName=leaf1 Nodes=n[05-08]
SwitchName=leaf2 Nodes=gpu[1-4]
SwitchName=spine Switches=leaf[0-2]
"""
HEADER = "JobID|JobIDRaw|JobName|Partition|Submit|Start|End|Timelimit|NNodes|NodeList|State"


def _day(hms: str) -> str:
    return f"2024-03-01T{hms}"


#: A synthetic dump with the quirks of real ones (sacct(1): steps JobID.batch/.extern/.0, arrays
#: ArrayJobID_TaskID and a pending array's summary 105_[3-5], heterogeneous components 116+0, Unknown and None
#: times, 'None assigned' node lists, "CANCELLED by UID", UNLIMITED and Partition_limit time limits); the
#: comment after each line is what the reader must do with it.
LINES = [
    ("101|101|sim|batch|{0}08:00:00|{0}08:00:10|{0}09:00:10|02:00:00|2|n[01-02]|COMPLETED", "kept"),
    ("101.batch|101.batch|batch||{0}08:00:10|{0}08:00:10|{0}09:00:10||1|n01|COMPLETED", "step"),
    ("101.extern|101.extern|extern||{0}08:00:10|{0}08:00:10|{0}09:00:10||2|n[01-02]|COMPLETED", "step"),
    ("101.0|101.0|mpi||{0}08:00:11|{0}08:00:11|{0}09:00:09||2|n[01-02]|COMPLETED", "step"),
    ("102|102|cancel|batch|{0}08:05:00|Unknown|{0}08:06:00|01:00:00|1|None assigned|CANCELLED by 5001",
     "never started"),
    ("103|103|fail|batch|{0}08:10:00|{0}08:10:00|{0}08:20:00|1-00:00:00|3|n[04-06]|FAILED", "kept"),
    ("104|104|long|batch|{0}08:11:00|{0}08:12:00|{0}08:42:00|00:30:00|1|gpu1|TIMEOUT", "kept"),
    ("105_1|106|arr|batch|{0}08:20:00|{0}08:20:00|{0}08:25:00|UNLIMITED|1|gpu2|COMPLETED", "kept"),
    ("105_1.batch|106.batch|batch||{0}08:20:00|{0}08:20:00|{0}08:25:00||1|gpu2|COMPLETED", "step"),
    ("105_2|107|arr|batch|{0}08:20:00|{0}08:21:00|{0}08:22:00|UNLIMITED|1|gpu3|OUT_OF_MEMORY", "kept"),
    ("105_[3-5]|105|arr|batch|{0}08:20:00|Unknown|Unknown|UNLIMITED|1|None assigned|PENDING", "never started"),
    ("108|108|run|batch|{0}08:30:00|{0}08:30:05|Unknown|Partition_limit|2|n[07-08]|RUNNING", "still running"),
    ("109|109|nf|debug|{0}08:31:00|{0}08:31:00|{0}08:40:00|00:10:00|2|n07,n08|NODE_FAIL", "kept"),
    ("110|110|rq|batch|{0}08:32:00|{0}08:33:00|{0}08:34:00|01:00:00|1|n03|REQUEUED", "requeued"),
    ("111|111|odd|batch|{0}08:33:00|{0}08:33:00|{0}08:34:00|01:00:00|1|n03|WEIRD", "unknown state"),
    ("112|112|short|batch|{0}08:34:00", "wrong field count"),
    ("113|113|cx|batch|{0}08:35:00|{0}08:36:00|{0}08:37:30|01:00:00|2|gpu[3-4]|CANCELLED by 0", "kept"),
    ("114|114|pend|batch|{0}08:36:00|None|None|01:00:00|1|None assigned|PENDING", "never started"),
    ("115|115|mm|batch|{0}08:37:00|{0}08:37:00|{0}08:38:00|01:00:00|3|n[01-02]|COMPLETED", "node count mismatch"),
    ("116+0|116|het|batch|{0}08:38:00|{0}08:38:30|{0}08:39:30|00:05:00|1|n05|COMPLETED", "kept"),
    ("116+1|117|het|batch|{0}08:38:00|{0}08:38:30|{0}08:39:30|00:05:00|1|gpu4|COMPLETED", "kept"),
    ("118|118|skew|batch|{0}08:40:00|{0}08:39:00|{0}08:41:00|01:00:00|1|n06|COMPLETED", "start before submit"),
    ("119|119|rev|batch|{0}08:41:00|{0}08:42:00|{0}08:41:30|01:00:00|1|n06|COMPLETED", "end before start"),
    ("120|120|when|batch|yesterday|{0}08:42:00|{0}08:43:00|01:00:00|1|n06|COMPLETED", "bad time"),
    ("121|121|tl|batch|{0}08:43:00|{0}08:43:00|{0}08:44:00|soon|1|n06|COMPLETED", "bad time limit"),
    ("122|122|dup|batch|{0}08:44:00|{0}08:44:00|{0}08:45:00|01:00:00|x|n06|COMPLETED", "non-integer field"),
    ("101|101|again|batch|{0}08:45:00|{0}08:45:00|{0}08:46:00|01:00:00|1|n06|COMPLETED", "duplicate job id"),
    ("123|123|rep|batch|{0}08:46:00|{0}08:46:00|{0}08:47:00|01:00:00|2|n06,n06|COMPLETED", "repeated node"),
]


def dump(lines=LINES, header=HEADER) -> str:
    return "\n".join([header] + [text.format("2024-03-01T") for text, _ in lines]) + "\n"


@pytest.fixture(scope="module")
def tree():
    return read_slurm_topology_conf(TOPOLOGY_CONF)


def test_each_line_is_kept_or_counted_and_reported_as_slurm_defines_it(tree):
    trace = read_sacct(io.StringIO(dump()), tree)
    report = trace.report
    expected_skips = [(i + 2, what) for i, (_, what) in enumerate(LINES) if what not in ("kept", "step")]
    assert [(s.line, s.reason) for s in report.skipped] == expected_skips
    assert report.steps == sum(what == "step" for _, what in LINES)
    kept_lines = [i + 2 for i, (_, what) in enumerate(LINES) if what == "kept"]
    assert sorted(j.attrs["line"] for j in trace) == kept_lines
    assert report.jobs == len(trace) == len(kept_lines)
    assert report.records == len(LINES) - report.steps
    assert report.states == {"COMPLETED": 4, "FAILED": 1, "TIMEOUT": 1, "OUT_OF_MEMORY": 1, "NODE_FAIL": 1,
                             "CANCELLED": 1}
    text = str(report)
    assert "4 job steps (not jobs)" in text and "3 skipped: never started" in text


def test_skip_details_name_the_job_and_the_value(tree):
    details = {s.reason: s.detail for s in read_sacct(io.StringIO(dump()), tree).report.skipped}
    assert details["node count mismatch"] == "job 115: NNodes = 3, NodeList = 'n[01-02]' (2 nodes)"
    assert details["unknown state"] == "job 111: State = 'WEIRD'"
    assert details["bad time"] == "job 120: Submit = 'yesterday', Start = '2024-03-01T08:42:00', End = " \
                                  "'2024-03-01T08:43:00'"
    assert details["wrong field count"] == "5 fields, expected 11"
    assert details["duplicate job id"] == "job 101: id 101 repeats an earlier job's"
    assert details["bad time limit"] == "job 121: Timelimit = 'soon'"


def test_kept_jobs_carry_their_times_nodes_and_limits(tree):
    trace = read_sacct(io.StringIO(dump()), tree)
    by_id = {j.id: j for j in trace}
    assert list(by_id) == [101, 103, 104, 106, 107, 109, 113, 116, 117]  # JobIDRaw; in order of submission
    j = by_id[101]
    assert (j.arrival, j.runtime, j.estimate, j.size, j.request) == (0.0, 3600.0, 7200.0, 2, 2)
    assert j.attrs["recorded_wait"] == 10.0 and j.attrs["nodes"].tolist() == [0, 1]
    assert by_id[103].attrs["nodes"].tolist() == [3, 4, 5] and by_id[103].estimate == 86400.0
    assert by_id[106].estimate is None and by_id[106].attrs["slurm_id"] == "105_1"
    assert by_id[109].attrs["nodes"].tolist() == [6, 7] and by_id[109].attrs["partition"] == "debug"
    assert by_id[113].attrs["state"] == "CANCELLED" and by_id[113].runtime == 90.0
    assert by_id[117].attrs["slurm_id"] == "116+1" and by_id[117].attrs["nodes"].tolist() == [11]
    assert trace.origin == "2024-03-01T08:00:00"
    assert not j.attrs["nodes"].flags.writeable


def test_states_and_partitions_select_jobs_and_report_the_others(tree):
    trace = read_sacct(io.StringIO(dump()), tree, states=("COMPLETED",), partitions=("batch",))
    assert sorted(j.id for j in trace) == [101, 106, 116, 117]
    counts = trace.report.counts
    assert counts["state not kept"] == 6 and "other partition" not in counts  # the state filter comes first
    with pytest.raises(SacctError, match="states must be finished Slurm states"):
        read_sacct(io.StringIO(dump()), tree, states=("RUNNING",))
    only_batch = read_sacct(io.StringIO(dump()), tree, partitions=("batch",))
    assert 109 not in {j.id for j in only_batch} and only_batch.report.counts["other partition"] == 1


def test_without_jobidraw_array_tasks_and_components_are_numbered_after_the_plain_ids(tree):
    header = "JobID|Submit|Start|End|NNodes|NodeList|State"
    lines = [(t, w) for t, w in LINES if w == "kept"]
    text = "\n".join([header] + ["|".join(t.format("2024-03-01T").split("|")[i] for i in (0, 4, 5, 6, 8, 9, 10))
                                 for t, _ in lines]) + "\n"
    trace = read_sacct(io.StringIO(text), tree)
    assert {j.attrs["slurm_id"]: j.id for j in trace} == {"101": 101, "103": 103, "104": 104, "105_1": 114,
                                                          "105_2": 115, "109": 109, "113": 113, "116+0": 116,
                                                          "116+1": 117}
    assert all(j.estimate is None for j in trace)


def test_a_gzipped_dump_a_parsable_dump_and_an_origin(tmp_path, tree):
    path = tmp_path / "site.sacct.gz"
    path.write_bytes(gzip.compress(dump().encode()))
    a = read_sacct(path, tree)
    parsable = "\n".join(line + "|" for line in dump().splitlines()) + "\n"  # sacct --parsable: a '|' at the end
    b = read_sacct(io.StringIO(parsable), tree, origin="2024-03-01T07:00:00")
    assert [j.id for j in a] == [j.id for j in b]
    assert [j.arrival + 3600 for j in a] == [j.arrival for j in b]
    assert a.report.source == "site.sacct.gz"


def test_without_a_topology_jobs_carry_no_nodes_and_the_machine_bounds_sizes():
    trace = read_sacct(io.StringIO(dump()), machine_size=2)
    assert all(j.attrs["nodes"] is None for j in trace)
    too_large = [s.detail for s in trace.report.skipped if s.reason == "too large for the machine"]
    assert too_large == ["job 103: NNodes = 3 > 2", "job 115: NNodes = 3 > 2"]
    assert "node count mismatch" not in trace.report.counts  # nothing to count against


def test_an_unknown_node_is_an_error_naming_file_line_and_value(tmp_path, tree):
    path = tmp_path / "log.txt"
    path.write_text(HEADER + "\n" + LINES[0][0].format("2024-03-01T") + "\n"
                    + "130|130|x|batch|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T09:01:00|01:00:00|2|"
                      "n[08-09]|COMPLETED\n")
    with pytest.raises(SacctError, match=r"log\.txt, line 3: NodeList 'n\[08-09\]' names node 'n09', which "
                                         r"the topology does not have"):
        read_sacct(path, tree)


def test_a_bad_hostlist_is_an_error_naming_file_line_and_value(tree):
    text = HEADER + "\n130|130|x|batch|2024-03-01T09:00:00|2024-03-01T09:00:00|2024-03-01T09:01:00|01:00:00|2|" \
                    "n[08-|COMPLETED\n"
    with pytest.raises(SacctError, match=r"line 2: NodeList 'n\[08-' is not a hostlist expression"):
        read_sacct(io.StringIO(text), tree)


@pytest.mark.parametrize("text,message", [
    ("", "is empty"),
    ("101|2024-03-01T08:00:00\n", "line 1: no header line"),
    ("JobID|Submit|Start|End|NodeList|State\n", "line 1: the header lacks NNodes"),
    ("JobID|Submit|Start|End|NNodes|NodeList|State|State\n", "names State twice"),
])
def test_a_dump_without_a_usable_header_is_an_error(text, message):
    with pytest.raises(SacctError, match=message):
        read_sacct(io.StringIO(text))


def test_time_limits_in_slurms_formats():
    """sacct(1) Timelimit: the Elapsed format [DD-[HH:]]MM:SS, UNLIMITED, Partition_limit."""
    assert [parse_timelimit(t) for t in ("00:30:00", "30:00", "2-00:00:00", "1-02:03:04", "UNLIMITED",
                                         "Partition_limit", "", "1-12")] == [1800.0, 1800.0, 172800.0, 93784.0, None,
                                                                            None, None, 129600.0]
    with pytest.raises(ValueError, match="not a time limit"):
        parse_timelimit("1h")


COMPLEX = ["rack[1-2]-node[01-02]", "n[1-3]-ib", "a,b[1-2],c[01-03,7]", "x[9-11]", "gpu[001-003,010]",
           "node1,node2", "p[5]", "q[07-10]s", "n[1-2],m[3-4]x"]


@pytest.mark.parametrize("expr", COMPLEX)
def test_hostlists_expand_as_python_hostlist_does(expr):
    assert expand_nodelist(expr) == hostlist.expand_hostlist(expr, allow_duplicates=True)


_name = st.text("abcxyz-", min_size=1, max_size=4)
_range = st.tuples(st.integers(0, 120), st.integers(0, 12), st.integers(1, 4)).map(
    lambda t: f"{t[0]:0{t[2]}d}" if not t[1] else f"{t[0]:0{t[2]}d}-{t[0] + t[1]}")


@given(st.lists(st.tuples(_name, st.lists(_range, min_size=1, max_size=3), st.sampled_from(["", "-ib", "s"])),
                min_size=1, max_size=3))
def test_the_simple_forms_expand_as_python_hostlist_does(items):
    expr = ",".join(f"{p}[{','.join(r)}]{s}" for p, r, s in items)
    assert expand_nodelist(expr) == hostlist.expand_hostlist(expr, allow_duplicates=True)


def test_the_recorded_schedule_replays_with_its_nodes_and_their_locality(tree):
    trace = read_sacct(io.StringIO(dump()), tree)
    r = replay_recorded(trace)
    assert r.allocator == "recorded" and r.policy == "Recorded" and r.unfinished == 0
    by_id = {j.id: j for j in trace}
    assert r.start.tolist() == [by_id[i].arrival + by_id[i].attrs["recorded_wait"] for i in r.id.tolist()]
    assert r.end.tolist() == [s + by_id[i].runtime for s, i in zip(r.start.tolist(), r.id.tolist(), strict=True)]
    for i, leaves, hops in zip(r.id.tolist(), r.leaf_switches.tolist(), r.mean_hops.tolist(), strict=True):
        nodes = by_id[i].attrs["nodes"]
        assert r.placements[i].tolist() == nodes.tolist()
        assert leaves == len(set(tree.leaf_of[nodes].tolist()))
        assert hops == pytest.approx(mean_hops(tree, nodes) if nodes.size > 1 else 0.0)
    assert dict(zip(r.id.tolist(), r.leaf_switches.tolist(), strict=True))[103] == 2  # n04 and n05, n06


@pytest.mark.parametrize("allocator", [SlurmTree, KueueTAS, FirstFree])
def test_the_same_jobs_re_placed_by_an_allocator(tree, allocator):
    trace = read_sacct(io.StringIO(dump()), tree)
    r = simulate(allocator(tree), "FCFS", trace, jobs=None, record_placement=True)
    assert len(r) == len(trace) and r.unfinished == 0
    assert sorted(r.id.tolist()) == sorted(j.id for j in trace)
    assert all(len(r.placements[i]) == s for i, s in zip(r.id.tolist(), r.granted.tolist(), strict=True))
    assert (r.leaf_switches >= 1).all() and np.isfinite(r.mean_hops).all()


# -- the column-at-a-time reading of a well-formed dump ---------------------------------------------


def _as_compared(trace):
    jobs = [(j.id, j.arrival, j.runtime, j.estimate, j.size, j.request,
             {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in j.attrs.items()}) for j in trace]
    report = trace.report
    return (jobs, trace.records, trace.origin, str(report).split(": ", 1)[1], report.steps, report.states,
            [(s.line, s.reason, s.detail, s.text) for s in report.skipped])


@pytest.mark.parametrize("parsable", [False, True])
def test_a_dump_read_from_its_bytes_gives_what_the_line_reader_gives(tmp_path, tree, parsable):
    """A file whose every line has its fields is read a column at a time from its bytes; an open
    text file goes line by line (the reference). Every line of LINES but the cut one, so that each
    reason of the report is exercised both ways, plus --parsable's trailing '|'."""
    lines = [(t, why) for t, why in LINES if why != "wrong field count"]
    text = dump(lines)
    if parsable:
        text = "\n".join(line + "|" for line in text.splitlines()) + "\n"
    path = tmp_path / "site.txt"
    path.write_text(text)
    for kwargs in ({}, {"states": ["COMPLETED", "FAILED"]}, {"partitions": ["batch"]}):
        for topo in (tree, None):
            fast, slow = read_sacct(path, topo, **kwargs), read_sacct(io.StringIO(text), topo, **kwargs)
            assert _as_compared(fast) == _as_compared(slow)
    every = read_sacct(path, tree)
    assert len(every) == sum(why == "kept" for _, why in lines) and every.report.steps == 4
    assert every.records[0] == lines[0][0].format("2024-03-01T")  # as read, without --parsable's '|'


def test_a_dump_in_any_other_shape_is_read_line_by_line(tmp_path, tree):
    """A cut line, CRLF line ends, a blank line: the line reader's results, whatever the source."""
    text = dump()
    for variant in (text, text.replace("\n", "\r\n"), text.replace("\n", "\n\n", 3)):
        path = tmp_path / "v.txt"
        path.write_bytes(variant.encode())
        assert _as_compared(read_sacct(path, tree)) == _as_compared(read_sacct(io.StringIO(variant), tree))


@given(st.lists(st.datetimes(min_value=__import__("datetime").datetime(1, 1, 1)), max_size=20),
       st.lists(st.sampled_from(["Unknown", "None", "", "2024-02-30T00:00:00", "2023-02-29T10:00:00",
                                 "2024-13-01T00:00:00", "2024-01-01T24:00:00", "2024-01-01 00:00:00",
                                 "2024-02-29T23:59:59", "1900-02-29T00:00:00", "2000-02-29T00:00:00"]), max_size=3))
def test_times_are_read_as_numpy_reads_them(stamps, odd):
    """sacct prints YYYY-MM-DDTHH:MM:SS (src/common/parse_time.c); the column parser must give
    numpy's datetime64 for every valid one, NaT for Unknown/None/empty, and hand any column with
    something else to the reference parser, which decides what is bad."""
    from scheduling.formats.sacct import _fast_times, _times

    def fast(texts):
        data = np.frombuffer(("|".join(texts) + "|").encode(), dtype=np.uint8)
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
        starts = np.cumsum(lengths + 1) - (lengths + 1)
        return _fast_times(data, starts, starts + lengths)

    texts = [d.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0") for d in stamps] + ["Unknown", "None", ""]
    got, want = fast(texts), _times(texts)
    assert got is not None and not got[1].any() and not want[1].any()
    assert got[0].tolist() == want[0].tolist()
    got = fast(texts + odd)  # anything else: left to the reference (None), or read as it reads it
    want = _times(texts + odd)
    assert got is None or (got[0].tolist() == want[0].tolist() and not want[1].any())


_NAMES = [f"node{i:04d}" for i in range(1, 120)] + [f"gpu{i}" for i in range(1, 30)] + \
    [f"a{i:02d}-ib" for i in range(0, 120)] + ["login", "x9y7"]
_ITEM = st.one_of(
    st.builds(lambda a, b, w: f"node[{a:0{w}d}-{a + b:0{w}d}]", st.integers(0, 125), st.integers(0, 20),
              st.integers(1, 5)),
    st.builds(lambda a: f"node{a:04d}", st.integers(0, 125)),
    st.builds(lambda a, b: f"gpu[{a}-{a + b}]", st.integers(0, 35), st.integers(0, 15)),
    st.builds(lambda a, b, c: f"a[{a:02d}-{a + b:02d},{c}]-ib", st.integers(0, 125), st.integers(0, 9),
              st.integers(0, 125)),
    st.sampled_from(["login", "x9y7", "node[0001,0001]", "node[3-1]", "node[x]", "node[1-", "gpu[8-12]",
                     "node[0098-0101]", "a[7-12]-ib", "gpu[²]", "n,,gpu1"]),
)


_SHUFFLED = dict(zip(_NAMES, np.random.default_rng(7).permutation(len(_NAMES)).tolist(), strict=True))


def _mapped(exprs, index):
    """``_map_nodelists``'s columns as ``{list: (ids, repeats)}`` over the lists it mapped, checking
    that its columns agree (a size of -1 and no ids for a list left out)."""
    from scheduling.formats._sacct_fields import _map_nodelists

    lists, sizes, repeats = _map_nodelists(exprs, index)
    assert len(lists) == sizes.size == repeats.size == len(exprs)
    assert [-1 if a is None else a.size for a in lists] == sizes.tolist()
    assert all(a is None or not a.flags.writeable for a in lists)
    return {e: (a, r) for e, a, r in zip(exprs, lists, repeats.tolist(), strict=True) if a is not None}


@given(st.lists(st.lists(_ITEM, min_size=1, max_size=3).map(",".join), min_size=1, max_size=12, unique=True))
def test_node_lists_mapped_all_at_once_are_mapped_as_one_by_one(exprs):
    """Many distinct node lists are mapped with one numpy gather through the node names grouped by
    prefix, suffix and digit count; each one it maps must be what the one-by-one mapping (names
    expanded as python-hostlist does, then looked up) gives, and the lists it leaves out must be
    the ones that mapping refuses or that are in other forms."""
    from scheduling.formats.sacct import _node_ids

    index = {n: i for i, n in enumerate(_NAMES)}
    # the names numbered in their order (lists come out sorted) and shuffled (lists sorted here)
    for numbering in (index, _SHUFFLED):
        got = _mapped(exprs, numbering)
        for e in exprs:
            try:
                want = _node_ids(e, numbering, "f", 1, None)
            except SacctError:
                assert e not in got
                continue
            if e in got:
                assert got[e][0].tolist() == want[0].tolist() and got[e][1] == want[1]
    # the simple forms over known names are all mapped at once
    simple = ["node[0001-0004,0009]", "gpu[8-12],node0003", "a[07-12]-ib,login", "node[0098-0101],x9y7", "gpu1"]
    assert set(_mapped(simple, index)) == set(simple)


_BRACKET = st.one_of(
    st.text(alphabet="0123456789,-", max_size=12).map(lambda c: f"node[{c}]"),
    st.text(alphabet="0123456789,-[]", max_size=8).map(lambda c: f"a[{c}]-ib"),
    st.builds(lambda a, b, c: f"node[{a:04d}-{a + b:04d},{c:04d}]", st.integers(0, 125), st.integers(0, 9),
              st.integers(0, 125)),
    st.builds(lambda a, b: f"gpu[{a},{b}]", st.integers(0, 35), st.integers(0, 35)),
)


def _one_by_one(exprs, index):
    """``_map_nodelists`` with its bulk path for lists of one bracket turned off."""
    from scheduling.formats import _sacct_fields

    none = np.zeros(0, dtype=np.int64)
    real = _sacct_fields._bracket_ranges
    _sacct_fields._bracket_ranges = lambda e, t: (np.zeros(len(e), dtype=bool), none, none, none)
    try:
        return _mapped(exprs, index)
    finally:
        _sacct_fields._bracket_ranges = real


@given(st.lists(st.one_of(st.lists(_ITEM, min_size=1, max_size=3).map(",".join), _BRACKET), min_size=1,
                max_size=12, unique=True))
def test_node_lists_of_one_bracket_mapped_in_bulk_as_one_by_one(exprs):
    """The lists of one bracket (``node[0001-0004,0009]``) are parsed for all lists at once with
    numpy; what that maps must be what the one-by-one path maps (same lists, same ids, same
    repeats), whatever the brackets hold."""
    index = {n: i for i, n in enumerate(_NAMES)}
    got, want = _mapped(exprs, index), _one_by_one(exprs, index)
    assert list(got) == list(want)
    for e in want:
        assert got[e][0].tolist() == want[e][0].tolist() and got[e][1] == want[e][1]


def test_node_lists_of_one_bracket_are_taken_in_bulk_and_the_rest_left():
    """Which lists the bulk path takes: one bracket of ranges within one digit count over a known
    family; a range crossing a digit count, a descending or malformed range, a second item
    outside the bracket, an unknown family and a plain name are left to the one-by-one path."""
    from scheduling.formats._sacct_fields import _bracket_ranges

    tables = {("node", "", 4): (1, 200), ("a", "-ib", 2): (300, 120), ("gpu", "", 1): (500, 10),
              ("gpu1,node", "", 4): (600, 10)}  # (a name with a comma: no topology has one)
    taken = ["node[0001-0004,0009]", "a[07-12]-ib", "node[0005]", "gpu[1-3,7]", "a[00,01,02]-ib"]
    left = ["gpu[8-12]", "node[0003-0001]", "node[0001--0003]", "node[0001-0002-0003]", "node[0001,,0002]",
            "node[0001-0004],gpu1", "gpu1,node[0001]", "rack[01-02]", "node0003", "node[]", "node[0001-0002",
            "node[-0001]", "node[0001-]", "node[0001-0300]", "node[1234567890]"]
    done, owner, begin, length = _bracket_ranges(taken + left, tables)
    assert done.tolist() == [True] * len(taken) + [False] * len(left)
    assert list(zip(owner.tolist(), begin.tolist(), length.tolist(), strict=True)) == [
        (0, 2, 4), (0, 10, 1), (1, 307, 6), (2, 6, 1), (3, 501, 3), (3, 507, 1), (4, 300, 1), (4, 301, 1),
        (4, 302, 1)]


# -- the bulk paths of a well-formed dump: steps dropped first, columns by distinct value ------------


def _job_first(text: str, header: str) -> str:
    """``text`` (a dump under HEADER) with its columns in the order of ``header``."""
    names = HEADER.split("|")
    order = [names.index(c) for c in header.split("|")]
    lines = text.splitlines()
    return "\n".join("|".join(line.split("|")[k] for k in order) for line in lines) + "\n"


@pytest.mark.parametrize("variant", ["as is", "JobID not first", "a long JobID", "a long node list", "only jobs",
                                     "parsable", "no final newline"])
def test_a_dump_with_its_steps_dropped_first_reads_as_line_by_line(tmp_path, tree, variant):
    """Step lines are found from each line's first bytes and dropped before the fields are split;
    a dump whose JobID is not the first column, one with a JobID longer than that window, one
    whose job lines differ much in length (another way of gathering them) and one without steps
    must all read as the line reader reads them (the reference)."""
    lines = [(t, why) for t, why in LINES if why != "wrong field count"]
    text = dump(lines)
    if variant == "JobID not first":
        text = _job_first(text, "Partition|JobID|JobIDRaw|JobName|Submit|Start|End|Timelimit|NNodes|NodeList|State")
    elif variant == "a long JobID":
        text = text.replace("101.extern|", "101." + "x" * 40 + "|")
    elif variant == "a long node list":
        text = text.replace("|n07,n08|", "|" + ",".join(["n07", "n08"] + ["n07"] * 400) + "|")
    elif variant == "only jobs":
        text = "".join(line + "\n" for line in text.splitlines() if "." not in line.split("|")[0])
    elif variant == "parsable":
        text = "".join(line + "|\n" for line in text.splitlines())
    elif variant == "no final newline":
        text = text.rstrip("\n")
    path = tmp_path / "site.txt"
    path.write_text(text)
    fast, slow = read_sacct(path, tree), read_sacct(io.StringIO(text), tree)
    assert _as_compared(fast) == _as_compared(slow)
    assert fast.report.steps == (0 if variant == "only jobs" else 4)
    assert len(fast) == (8 if variant == "a long node list" else 9)  # the long list: a node count mismatch


def test_columns_are_factorized_exactly_even_when_their_hashes_collide(monkeypatch):
    """Distinct values are found by hashing each field's bytes; every field is then compared with
    its value's first occurrence, so a collision (forced here by a multiplier of 0, which keeps only
    the last word) declines rather than merging two values."""
    from scheduling.formats import _columns

    texts = ["aaaaaaaaX", "bbbbbbbbX", "aaaaaaaaX", "", "c", "bbbbbbbbX"]
    data = np.frombuffer("|".join(texts).encode(), dtype=np.uint8)
    lens = np.array([len(t) for t in texts])
    starts = np.cumsum(lens + 1) - (lens + 1)
    codes, first = _columns._factorize(data, starts, starts + lens)
    assert codes.tolist() == [0, 1, 0, 2, 3, 1] and first.tolist() == [0, 1, 3, 4]
    many = [f"v{i % 23}" for i in range(200)]  # beyond the few values peeled off one by one: a sort
    mdata = np.frombuffer("|".join(many).encode(), dtype=np.uint8)
    mlens = np.array([len(t) for t in many])
    mstarts = np.cumsum(mlens + 1) - (mlens + 1)
    mcodes, mfirst = _columns._factorize(mdata, mstarts, mstarts + mlens)
    assert mcodes.tolist() == [i % 23 for i in range(200)] and mfirst.tolist() == list(range(23))
    monkeypatch.setattr(_columns, "_MIX", np.uint64(0))
    assert _columns._factorize(data, starts, starts + lens) is None


@given(st.lists(st.one_of(
    st.builds(lambda d, h, m, s: f"{d}-{h:02d}:{m:02d}:{s:02d}", st.integers(0, 10**11), st.integers(0, 99),
              st.integers(0, 99), st.integers(0, 99)),
    st.builds(lambda h, m, s: f"{h:02d}:{m:02d}:{s:02d}", st.integers(0, 999), st.integers(0, 99), st.integers(0, 99)),
    st.builds(lambda m, s: f"{m:02d}:{s:02d}", st.integers(0, 999), st.integers(0, 99)),
    st.sampled_from(["UNLIMITED", "Partition_limit", "INVALID", "", "soon", "1-02", "1-02:30", "00:01:00.5",
                     "-1:00:00", "1--02:00:00", "٣:00:00", "12:3:00", "1:2", ":00:00", "00:00:"]),
    st.text(alphabet="0123456789:-.", max_size=14)), max_size=30))
def test_time_limits_read_at_once_are_read_as_one_by_one(texts):
    """Timelimit's printed forms are converted from their digits over all distinct values at once;
    each must be what parse_timelimit gives (seconds, None), and "bad" where it refuses."""
    from scheduling.formats.sacct import _time_limits

    def one(text):
        try:
            return parse_timelimit(text)
        except ValueError:
            return "bad"

    assert _time_limits(texts) == [one(t) for t in texts]


@given(st.lists(st.one_of(st.integers(0, 10**15).map(str), st.sampled_from(["", "+1", "-1", "1.0", "1e3", "٣", "x",
                                                                             "0001", "1" * 16])), max_size=20))
def test_counts_read_at_once_are_what_int_reads(texts):
    """Digits-only fields (1 to 15 of them) become int64 from their bytes; any column with another
    field is declined (None), for the caller's string conversion."""
    from scheduling.formats._columns import _uints

    data = np.frombuffer("|".join(texts).encode(), dtype=np.uint8)
    lens = np.array([len(t.encode()) for t in texts], dtype=np.int64)
    starts = np.cumsum(lens + 1) - (lens + 1)
    got = _uints(data, starts, starts + lens)
    if all(t.isascii() and t.isdigit() and len(t) <= 15 for t in texts):
        assert got is not None and got.tolist() == [int(t) for t in texts]
    else:
        assert got is None

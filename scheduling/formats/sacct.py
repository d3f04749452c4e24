"""Slurm accounting dumps (``sacct --parsable2``) as jobs with their recorded schedule and nodes.

A site's history: ``sacct --allusers --parsable2 --format=JobID,JobIDRaw,Submit,Start,End,Timelimit,
NNodes,NodeList,State,Partition --starttime ... --endtime ...``, one ``|``-separated line per job and
per job step under a header line naming the columns. :func:`read_sacct` turns the jobs into
:class:`~scheduling.kernel.jobs.Job` values that carry their recorded wait and nodes, so that the
site's own schedule replays as a result (:func:`scheduling.formats.load.replay_recorded`, the
``Recorded`` pseudo-policy with the log's placements) and the same jobs can be re-placed by any
allocator on the site's tree (read from its ``topology.conf`` / ``topology.yaml`` with
:func:`topologies.tree_files.read_tree_file`).

Sources (read to learn the format; the code is this module's own): ``sacct(1)`` (Slurm's
``doc/man/man1/sacct.1``: ``--parsable2``, the fields ``JobID`` -- ``JobID[.JobStep]``, arrays
``ArrayJobID_ArrayTaskID``, heterogeneous jobs ``HetJobID+HetJobOffset`` --, ``JobIDRaw``,
``NNodes`` -- "if the job is running, or ran, this count will be the number allocated" --,
``Timelimit`` -- the ``Elapsed`` format ``[DD-[HH:]]MM:SS`` plus ``UNLIMITED`` and
``Partition_limit`` --, and the section JOB STATE CODES); Slurm's time printing
(``src/common/parse_time.c``: a time of 0 or INFINITE prints ``Unknown``, NO_VAL ``None``; times
are ``YYYY-MM-DDTHH:MM:SS``); the accounting storage's ``None assigned`` node list of a job that
never had nodes (``src/plugins/accounting_storage/mysql/as_mysql_job.c``).

**Which lines become jobs** (every other line is counted and reported; nothing is dropped
silently):

* a **step** (``123.batch``, ``123.extern``, ``123.0``, ``123_4.batch``): part of its job, not a
  job; counted in :attr:`SacctReport.steps`;
* a job in a **finished** state (:data:`FINISHED_STATES`: ``COMPLETED``, ``FAILED``,
  ``TIMEOUT``, ``CANCELLED``, ``NODE_FAIL``, ``OUT_OF_MEMORY``, ``PREEMPTED``, ``BOOT_FAIL``,
  ``DEADLINE``; ``CANCELLED by 1234`` is ``CANCELLED``) that **started** -- a known ``Start`` and a
  node list -- is kept: it held its nodes from ``Start`` to ``End`` whatever ended it (Slurm
  charges a cancelled, failed or timed-out job for that time). Interpretation: its run time is
  ``End - Start``, the time it held the nodes, also when another allocator re-places it;
  ``states=`` keeps fewer (the others: ``state not kept``);
* a finished job that never started (cancelled while pending: ``Start`` ``Unknown`` or ``None``,
  ``NodeList`` ``None assigned``) and a ``PENDING`` job: ``never started``;
* ``RUNNING``, ``SUSPENDED`` and the other states of a job still holding its nodes (no ``End``):
  ``still running``; ``REQUEUED`` (and ``REQUEUE_HOLD``, ``REQUEUE_FED``, ``SPECIAL_EXIT``): the
  attempt of a job that Slurm put back in the queue, which reappears with its final state:
  ``requeued``; ``REVOKED`` (a federation sibling that ran on another cluster): ``revoked``; any
  other state: ``unknown state``;
* array tasks (``123_4``) and heterogeneous components (``123+1``) are jobs of their own; a pending
  array's summary line (``123_[5-9]``) is ``PENDING``.

A kept job is a :class:`~scheduling.kernel.jobs.Job` of ``NNodes`` nodes (its request: the
topology's ``request_for``, a node count on a tree) arriving at ``Submit``, in seconds from
``origin`` (default: the earliest kept submission), with run time ``End - Start``, estimate the
``Timelimit`` (``None`` when ``UNLIMITED`` or ``Partition_limit``), and ``attrs``
``recorded_wait`` (``Start - Submit``: what the ``Recorded`` policy replays), ``nodes`` (the node
ids on ``topology``, read-only, ascending), ``slurm_id``, ``state``, ``partition`` and ``line``.
Ids: ``JobIDRaw`` when the dump has it; else a plain ``JobID``'s number, and array tasks and
heterogeneous components numbered after the largest plain id in line order (their ``JobID`` is
``slurm_id``). Times are read as written (local wall-clock time, no zone): a dump spanning a
daylight-saving change is off by that hour across it (dump with ``SLURM_TIME_FORMAT`` unset, or in
UTC with ``TZ=UTC sacct ...``).

Further skips (reported, with line and value): ``wrong field count`` (``|`` inside a field, a cut
line), ``bad time``, ``unknown submit time``, ``unknown end time``, ``start before submit``,
``end before start``, ``non-integer field``, ``bad time limit``, ``node count mismatch``
(``NNodes`` is not the node list's length), ``repeated node``, ``too large for the machine`` (only
without a topology), ``other partition`` (``partitions=``), ``duplicate job id``. Errors
(:class:`SacctError`, naming file, line and value): no header line or a required column missing
(``JobID``, ``Submit``, ``Start``, ``End``, ``NNodes``, ``NodeList``, ``State``); a node list that
is not a hostlist expression; a node that the topology lacks.

**Speed.** A file whose every line has its fields, ends in ``\n`` and starts with its header is
read a column at a time from its bytes (:func:`~._columns._split_fields`): step lines found by the
``.`` in their ``JobID`` field, the times converted from their digits by the days-from-civil
formula (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", ``days_from_civil``: numpy's
proleptic Gregorian calendar), the counts and ids by :func:`~._columns._decimal_fields`, and only
the columns used turned into strings; any other file (a cut line, CRLF line ends, an open text
file) is read line by line by the reference reader, and a column holding anything the column
parsers do not take is converted by it too, so both give the same jobs and report (a test checks
this). Each distinct ``NodeList`` and ``Timelimit`` is expanded once; many node lists are mapped
at once (:func:`_map_nodelists`: the topology's names grouped by prefix, suffix and digit count,
each range one slice of a lookup array), the others one by one, the simple hostlist forms
(``node[001-004,010]``, ``a1,b[2-3]-ib``) expanded here and every other form by
``python-hostlist`` (tests check both give the same names). O(bytes) numpy work plus O(jobs)
Python objects and O(ranges) for the node lists; ``benchmarks/formats.py`` measures it.

>>> import io
>>> from topologies.tree_files import read_slurm_topology_conf
>>> tree = read_slurm_topology_conf("SwitchName=s0 Nodes=n[1-4]\\nSwitchName=s1 Nodes=n[5-8]\\n"
...                                 "SwitchName=top Switches=s[0-1]\\n")
>>> dump = ("JobID|Submit|Start|End|Timelimit|NNodes|NodeList|State|Partition\\n"
...         "7|2024-05-01T10:00:00|2024-05-01T10:00:30|2024-05-01T11:00:30|02:00:00|3|n[4-6]|COMPLETED|batch\\n"
...         "7.batch|2024-05-01T10:00:30|2024-05-01T10:00:30|2024-05-01T11:00:30||1|n4|COMPLETED|\\n"
...         "8|2024-05-01T10:05:00|Unknown|2024-05-01T10:06:00|01:00:00|1|None assigned|CANCELLED by 1000|batch\\n")
>>> trace = read_sacct(io.StringIO(dump), tree)
>>> j = trace[0]
>>> j.id, j.arrival, j.runtime, j.estimate, j.attrs["recorded_wait"], j.attrs["nodes"].tolist()
(7, 0.0, 3600.0, 7200.0, 30.0, [3, 4, 5])
>>> print(trace.report)
<sacct>: 4 lines, 2 records, 1 jobs kept; 1 skipped: never started; 1 job steps (not jobs); kept: 1 COMPLETED
"""

from __future__ import annotations

import gzip
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..kernel.jobs import Job
from ..workloads import SkippedLine, SWFHeader, SWFReport, SWFTrace
from ._columns import _decimal_fields, _field_strings, _gather, _gc_paused, _make_jobs, _picker, _split_fields
from ._errors import FileLineError

__all__ = [
    "SacctError",
    "SacctReport",
    "SacctTrace",
    "read_sacct",
    "expand_nodelist",
    "parse_timelimit",
    "FINISHED_STATES",
    "REQUIRED_COLUMNS",
]

#: Columns a dump must have (``sacct --format=...``).
REQUIRED_COLUMNS = ("JobID", "Submit", "Start", "End", "NNodes", "NodeList", "State")
#: Finished states (``sacct(1)``, JOB STATE CODES): a job in one of them that started is kept.
FINISHED_STATES = ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                   "BOOT_FAIL", "DEADLINE")
_ACTIVE = frozenset(("RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "RESIZING", "STOPPED", "SIGNALING",
                     "STAGE_OUT", "POWER_UP_NODE", "UPDATE_DB"))
_REQUEUED = frozenset(("REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "SPECIAL_EXIT", "RESV_DEL_HOLD"))
_NO_TIME = frozenset(("Unknown", "None", ""))
_NO_NODES = frozenset(("None assigned", "(null)", ""))
_NO_LIMIT = frozenset(("UNLIMITED", "Partition_limit", "INVALID", ""))
_GZIP_MAGIC = b"\x1f\x8b"


class SacctError(FileLineError):
    """An ``sacct`` dump that cannot be read: the message names the file, the line and the value;
    ``file``, ``line`` and ``problem`` hold the parts."""


@dataclass
class SacctReport(SWFReport):
    """What reading a dump did (an :class:`~scheduling.workloads.SWFReport`: ``lines``, ``records``
    = data lines, ``jobs`` kept, every ``skipped`` job line with its reason and value), plus the
    ``steps`` (step lines, parts of jobs) and the kept jobs per Slurm ``state``."""

    REASONS = ("wrong field count", "never started", "still running", "requeued",  # type: ignore[assignment]
               "revoked", "unknown state", "state not kept", "other partition", "bad time", "unknown submit time",
               "unknown end time",
               "start before submit", "end before start", "non-integer field", "bad time limit",
               "node count mismatch", "repeated node", "too large for the machine", "duplicate job id")

    steps: int = 0
    states: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        out = super().__str__()
        if self.steps:
            out += f"; {self.steps} job steps (not jobs)"
        if self.states:
            out += "; kept: " + ", ".join(f"{n} {s}" for s, n in sorted(self.states.items()))
        return out


class SacctTrace(SWFTrace):
    """An ``sacct`` dump as jobs: a workload for :func:`~scheduling.simulate` and a sequence of
    :class:`~scheduling.kernel.jobs.Job` (an :class:`~scheduling.workloads.SWFTrace` in all but its
    source). ``records`` holds each kept job's line as read (``columns`` names its fields),
    ``topology`` the tree its nodes were mapped on, ``origin`` the time that is 0 (ISO text)."""

    def __init__(self, jobs: list[Job], records: list[str], columns: tuple[str, ...],
                 report: SacctReport, machine_size: int | None, topology: Any, origin: str | None) -> None:
        super().__init__(jobs, records, SWFHeader(), report, machine_size)  # type: ignore[arg-type]
        self.columns = columns
        self.topology = topology
        self.origin = origin

    def __repr__(self) -> str:
        return f"<SacctTrace {self.report.source} {len(self)} jobs on {self.machine_size} nodes>"


# -- fields -----------------------------------------------------------------------------------------
_TIMELIMIT = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$")


def parse_timelimit(text: str) -> float | None:
    """Seconds of a ``Timelimit`` (or ``Elapsed``) field, ``[D-][HH:]MM:SS``; ``None`` for
    ``UNLIMITED``, ``Partition_limit``, ``INVALID`` or empty. Anything else: :class:`ValueError`.

    >>> parse_timelimit("1-02:00:00"), parse_timelimit("30:00"), parse_timelimit("UNLIMITED")
    (93600.0, 1800.0, None)
    """
    if text in _NO_LIMIT:
        return None
    m = _TIMELIMIT.match(text)
    if m is None:
        # "D-HH" and "D-HH:MM" (time_str2mins forms; not printed by sacct, accepted)
        m2 = re.match(r"^(\d+)-(\d+)(?::(\d+))?$", text)
        if m2 is None:
            raise ValueError(f"not a time limit: {text!r}")
        d, h, mi = int(m2.group(1)), int(m2.group(2)), int(m2.group(3) or 0)
        return float(((d * 24 + h) * 60 + mi) * 60)
    d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    return float(((d * 24 + h) * 60 + mi) * 60 + s)


_ITEMS = re.compile(r"(?:[^,\[]|\[[^\]]*\])+")
_SIMPLE = re.compile(r"([^\[\],]*)\[([0-9,\-]+)\]([^\[\],]*)")


def expand_nodelist(expr: str) -> list[str]:
    """The node names of a Slurm hostlist expression, in order (repeats kept): the simple forms --
    names, and ``prefix[ranges]suffix`` items with one bracket each, a range ``a-b`` padded to the
    digits of ``a`` -- here, any other form by ``python-hostlist`` (whose rules these follow).
    A bad expression raises ``hostlist.BadHostlist``.

    >>> expand_nodelist("node[008-010,012],gpu1")
    ['node008', 'node009', 'node010', 'node012', 'gpu1']
    """
    if "[" not in expr and "]" not in expr:
        return [p for p in expr.split(",") if p]
    items = _ITEMS.findall(expr)
    if ",".join(items) == expr:
        out: list[str] = []
        for item in items:
            m = _SIMPLE.fullmatch(item)
            if m is None:
                break
            prefix, ranges, suffix = m.groups()
            ok = True
            for r in ranges.split(","):
                lo_s, dash, hi_s = r.partition("-")
                if not lo_s or not lo_s.isdigit() or (dash and (not hi_s.isdigit())):
                    ok = False
                    break
                if not dash:
                    out.append(prefix + r + suffix)
                    continue
                lo, hi = int(lo_s), int(hi_s)
                if hi < lo:
                    ok = False
                    break
                w = len(lo_s)
                out.extend([f"{prefix}{i:0{w}d}{suffix}" for i in range(lo, hi + 1)])
            if not ok:
                break
        else:
            return out
    import hostlist

    return [str(n) for n in hostlist.expand_hostlist(expr, allow_duplicates=True)]


def _read_raw(source: str | os.PathLike | IO) -> tuple[bytes | str, str]:
    """``(data, name)``: a path's bytes (gunzipped), or what an open file gives (bytes or text)."""
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise FileNotFoundError(f"sacct dump {name!r} does not exist")
        if path.is_dir():
            raise SacctError(name, None, "is a directory, not an sacct dump")
        data: Any = path.read_bytes()
    else:
        name = str(getattr(source, "name", "") or "<sacct>")
        data = source.read()
    if isinstance(data, bytes) and data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise SacctError(name, None, f"is not a valid gzip file ({exc})") from None
    return data, name


_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def _times(values: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(datetime64[s] array with NaT where unknown, bad)``: ``bad`` marks values that are neither
    a ``YYYY-MM-DDTHH:MM:SS`` time nor ``Unknown``/``None``/empty."""
    filled = [v if v not in _NO_TIME else "NaT" for v in values]
    bad = np.zeros(len(filled), dtype=bool)
    if set(map(len, filled)) <= {19, 3}:
        try:
            return np.array(filled, dtype="datetime64[s]"), bad
        except ValueError:
            pass
    out = np.full(len(filled), np.datetime64("NaT"), dtype="datetime64[s]")
    for i, v in enumerate(filled):
        if v == "NaT":
            continue
        if _TIME.fullmatch(v) is None:
            bad[i] = True
            continue
        try:
            out[i] = np.datetime64(v, "s")
        except ValueError:
            bad[i] = True
    return out, bad


# -- reading ----------------------------------------------------------------------------------------
#: Reason codes of the row filters, in the order they apply.
_REASONS = ("", "unknown state", "never started", "still running", "requeued", "revoked", "state not kept",
            "other partition", "bad time", "unknown submit time", "never started", "unknown end time",
            "start before submit", "end before start", "non-integer field", "bad time limit",
            "node count mismatch", "repeated node", "too large for the machine", "duplicate job id")
_R = {r: i for i, r in enumerate(_REASONS) if r != "never started"}
_R_NOT_STARTED, _R_NO_START = 2, 10


def read_sacct(source: str | os.PathLike | IO, topology: Any = None, *, states: Iterable[str] = FINISHED_STATES,
               partitions: Iterable[str] | None = None, origin: Any = None,
               machine_size: int | None = None) -> SacctTrace:
    """Read an ``sacct --parsable2`` dump (a path, plain or gzip, or an open file) as jobs in order
    of submission (stable in line order); see the module docstring for which lines become jobs,
    their fields and what is skipped (reported in the trace's ``report``, a :class:`SacctReport`) or refused
    (:class:`SacctError`). ``--parsable`` dumps (a ``|`` ending every line) are read too.

    ``topology``: the site's :class:`~topologies.SwitchTree` (its ``node_names`` give each
    ``NodeList`` name its id); without it jobs carry no ``nodes`` and ``machine_size`` (if given)
    bounds the job sizes. ``states``: the finished states kept (default all of
    :data:`FINISHED_STATES`). ``partitions``: keep only these. ``origin``: the time 0 (an ISO
    string or ``numpy.datetime64``; default the earliest kept submission). O(lines + nodes).
    """
    with _gc_paused():
        return _read_sacct(source, topology, states, partitions, origin, machine_size)


def _read_sacct(source: str | os.PathLike | IO, topology: Any, states: Iterable[str],
                partitions: Iterable[str] | None, origin: Any, machine_size: int | None) -> SacctTrace:
    keep_states = frozenset(states)
    unknown = keep_states - set(FINISHED_STATES)
    if unknown:
        raise SacctError("read_sacct", None, f"states must be finished Slurm states ({', '.join(FINISHED_STATES)}); "
                                             f"got {', '.join(sorted(unknown))}")
    parts = frozenset(partitions) if partitions is not None else None
    node_index: dict[str, int] | None = None
    size = machine_size
    if topology is not None:
        names = getattr(topology, "node_names", None)
        if names is None:
            raise SacctError("read_sacct", None, f"topology must be a SwitchTree with node names, got {topology!r}")
        node_index = {n: i for i, n in enumerate(names)}
        size = topology.size
    data, name = _read_raw(source)
    report = SacctReport()
    table: _Table | None = _byte_table(data, name, report) if isinstance(data, bytes) else None
    if table is None:  # anything but a well-formed dump: line by line, every odd line reported
        report = SacctReport()
        table = _line_table(data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data, name,
                            report)
    report.source = os.path.basename(name)
    header = table.header
    col = table.col
    line_of = table.line_of
    if not table.n:
        return SacctTrace([], [], header, report, size, topology, None)

    jobid = table.strings("JobID")
    state_text = table.strings("State")
    normal = {t: t.split(" ", 1)[0].rstrip("+") for t in set(state_text)}  # "CANCELLED by 1234" is CANCELLED
    state = list(map(normal.__getitem__, state_text))
    nodelist = table.strings("NodeList")
    n = table.n
    reason = np.zeros(n, dtype=np.int8)

    def mark(mask: np.ndarray, code: int) -> None:
        reason[(reason == 0) & mask] = code

    kind = {**dict.fromkeys(FINISHED_STATES, 0), **dict.fromkeys(_ACTIVE, 3), **dict.fromkeys(_REQUEUED, 4),
            "PENDING": 2, "REVOKED": 5}
    code_of = {t: kind.get(v, 1) for t, v in normal.items()}
    reason[:] = np.fromiter(map(code_of.__getitem__, state_text), dtype=np.int8, count=n)
    if not set(normal.values()) <= keep_states:
        dropped = {t: v not in keep_states for t, v in normal.items()}
        mark(np.fromiter(map(dropped.__getitem__, state_text), dtype=bool, count=n), _R["state not kept"])
    partition: list[Any] = table.strings("Partition") if "Partition" in col else [None] * n
    if parts is not None:
        mark(np.fromiter((p not in parts for p in partition), dtype=bool, count=n), _R["other partition"])
    submit, bad1 = table.times("Submit")
    start, bad2 = table.times("Start")
    end, bad3 = table.times("End")
    mark(bad1 | bad2 | bad3, _R["bad time"])
    mark(np.isnat(submit), _R["unknown submit time"])
    empty = {e: e in _NO_NODES for e in set(nodelist)}
    no_nodes = np.fromiter(map(empty.__getitem__, nodelist), dtype=bool, count=n) if any(empty.values()) else \
        np.zeros(n, dtype=bool)
    mark(np.isnat(start) | no_nodes, _R_NO_START)
    mark(np.isnat(end), _R["unknown end time"])
    sub_i = submit.astype(np.int64)
    start_i = start.astype(np.int64)
    end_i = end.astype(np.int64)
    mark(start_i < sub_i, _R["start before submit"])
    mark(end_i < start_i, _R["end before start"])
    nnodes = table.counts("NNodes")
    mark(nnodes < 1, _R["non-integer field"])
    limits: dict[str, float | None | str] = {}
    tl_text = table.strings("Timelimit") if "Timelimit" in col else [""] * n
    for v in dict.fromkeys(tl_text):
        try:
            limits[v] = parse_timelimit(v)
        except ValueError:
            limits[v] = "bad"
    if "bad" in limits.values():
        mark(np.fromiter((limits[v] == "bad" for v in tl_text), dtype=bool, count=n), _R["bad time limit"])
    # node lists of the jobs still in: each distinct one expanded once
    nodes: list[np.ndarray | None] = [None] * n
    if node_index is not None:
        live = np.flatnonzero(reason == 0)
        live_list = live.tolist()
        exprs = _picker(live_list)(nodelist) if live_list else []
        where = dict.fromkeys(exprs)  # each distinct node list, in order of first use
        # many lists: all at once (the topology's names indexed once); a few: one by one
        mapped = _map_nodelists(list(where), node_index) if len(where) * 16 >= len(node_index) else {}
        if len(mapped) < len(where):  # the others one by one, in order: the first bad one is the error
            first_line = dict(zip(reversed(exprs), reversed(_picker(live_list)(line_of)), strict=True))
            for e in where:
                if e not in mapped:
                    mapped[e] = _node_ids(e, node_index, name, first_line[e], topology)
        got = [mapped[e] for e in where]
        for k, e in enumerate(where):
            where[e] = k
        pos = np.fromiter(map(where.__getitem__, exprs), dtype=np.int64, count=len(exprs))
        count = np.zeros(n, dtype=np.int64)
        repeated = np.zeros(n, dtype=bool)
        count[live] = np.array([g[0].size for g in got], dtype=np.int64)[pos] if got else 0
        repeated[live] = np.array([g[1] for g in got], dtype=bool)[pos] if got else False
        arrays = [g[0] for g in got]
        for i, a in zip(live.tolist(), map(arrays.__getitem__, pos.tolist()), strict=True):
            nodes[i] = a
        alive = reason == 0
        mark(alive & (count != nnodes), _R["node count mismatch"])
        mark(alive & repeated, _R["repeated node"])
    elif size is not None:
        mark(nnodes > size, _R["too large for the machine"])
    # ids
    ids = table.ids()
    alive_idx = np.flatnonzero(reason == 0)
    alive_ids = np.sort(ids[alive_idx])
    if (alive_ids[1:] == alive_ids[:-1]).any():
        seen: set[int] = set()
        for i in alive_idx.tolist():
            if int(ids[i]) in seen:
                reason[i] = _R["duplicate job id"]
            seen.add(int(ids[i]))
    # the report
    skipped = np.flatnonzero(reason).tolist()
    if skipped:
        cols = {c: dict(zip(skipped, table.strings_at(c, skipped), strict=True))
                for c in ("Submit", "Start", "End", "NNodes")}
        raw = table.raw(skipped)
        for i, text in zip(skipped, raw, strict=True):
            code = int(reason[i])
            report.skip(line_of[i], _REASONS[code], _detail(code, i, jobid, state_text, cols["Submit"], cols["Start"],
                                                            cols["End"], cols["NNodes"], nodelist, tl_text, partition,
                                                            nodes, ids, size), text)
    keep = np.flatnonzero(reason == 0)
    if not keep.size:
        report.skipped.sort(key=_line)
        return SacctTrace([], [], header, report, size, topology, None)
    t0 = np.datetime64(origin, "s") if origin is not None else submit[keep].min()
    base = t0.astype(np.int64)
    arrival = (sub_i[keep] - base).astype(float)
    order = np.argsort(arrival, kind="stable")
    report.reordered = int(np.count_nonzero(np.diff(arrival) < 0))
    keep, arrival = keep[order], arrival[order]
    wait = (start_i[keep] - sub_i[keep]).astype(float).tolist()
    runtime = (end_i[keep] - start_i[keep]).astype(float)
    request_for = getattr(topology, "request_for", None)
    idx = keep.tolist()
    pick = _picker(idx)
    sizes = nnodes[keep].tolist()
    requests = sizes
    if request_for is not None:
        made = {v: request_for(v) for v in set(sizes)}
        requests = list(map(made.__getitem__, sizes))
    picked: list[Any] = pick(list(map(limits.__getitem__, tl_text)))
    estimates: list[float | None] = [e if e.__class__ is float else None for e in picked]
    kept_lines = pick(line_of)
    attrs = [{"recorded_wait": w, "nodes": nd, "slurm_id": j, "state": st, "partition": pa, "line": ln}
             for w, nd, j, st, pa, ln in zip(wait, pick(nodes), pick(jobid), pick(state), pick(partition), kept_lines,
                                             strict=True)]
    jobs = _make_jobs(ids[keep].tolist(), arrival.tolist(), requests, runtime.tolist(), estimates, sizes, attrs,
                      arrays=(arrival, runtime))
    records = table.raw(idx)
    report.jobs = len(jobs)
    report.states = dict(Counter(pick(state)))
    report.skipped.sort(key=_line)
    return SacctTrace(jobs, records, header, report, size, topology, str(t0))


class _Table:
    """The job lines of a dump as columns, from the split lines (the reference, any input):
    ``header`` and ``col`` (name -> index), ``n`` job lines, ``line_of`` their line numbers, the
    columns as strings (:meth:`strings`), times (:meth:`times`), node counts (:meth:`counts`), the
    job ids (:meth:`ids`) and the lines as read (:meth:`raw`)."""

    def __init__(self, header: tuple[str, ...], rows: list[list[str]], raw_lines: list[str],
                 line_of: Sequence[int]) -> None:
        self.header = header
        self.col = {c: i for i, c in enumerate(header)}
        self.rows = rows
        self.raw_lines = raw_lines
        self.line_of = line_of
        self.n = len(rows)
        self._strings: dict[str, list[str]] = {}

    def strings(self, c: str) -> list[str]:
        got = self._strings.get(c)
        if got is None:
            i = self.col[c]
            got = self._strings[c] = [r[i] for r in self.rows]
        return got

    def strings_at(self, c: str, rows: list[int]) -> list[str]:
        """The column's strings at ``rows``."""
        got = self.strings(c)
        return [got[i] for i in rows]

    def times(self, c: str) -> tuple[np.ndarray, np.ndarray]:
        """``(datetime64[s] with NaT where unknown, bad)``."""
        return _times(self.strings(c))

    def counts(self, c: str) -> np.ndarray:
        """The column's integers, -1 where a value is not a non-negative integer."""
        text = self.strings(c)
        try:
            return np.array(text, dtype=np.int64)
        except ValueError:
            return np.array([int(v) if v.isdigit() else -1 for v in text], dtype=np.int64)

    def ids(self) -> np.ndarray:
        """Integer ids (:func:`_ids`)."""
        return np.array(_ids(self.strings("JobID"), self.strings("JobIDRaw") if "JobIDRaw" in self.col else None),
                        dtype=np.int64)

    def raw(self, rows: list[int]) -> list[str]:
        return [self.raw_lines[i] for i in rows]


def _header(lines: list[str], first: int, name: str) -> tuple[tuple[str, ...], bool]:
    """The column names of header line ``first`` (0-based) and whether it is ``--parsable`` (a ``|``
    ending each line); a missing or incomplete header is an error."""
    header_line = lines[first]
    parsable1 = header_line.endswith("|")
    header = tuple((header_line[:-1] if parsable1 else header_line).split("|"))
    if "JobID" not in header:
        raise SacctError(name, first + 1, f"no header line naming the columns (dump with sacct --parsable2 and "
                                          f"without --noheader); got {header_line[:80]!r}")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SacctError(name, first + 1, f"the header lacks {', '.join(missing)} (add them to sacct --format)")
    dup = [c for c, k in Counter(header).items() if k > 1]
    if dup:
        raise SacctError(name, first + 1, f"the header names {', '.join(dup)} twice")
    return header, parsable1


def _line_table(text: str, name: str, report: SacctReport) -> _Table:
    """The job lines of ``text`` line by line: step lines counted, lines with another field count
    reported (``wrong field count``)."""
    lines = text.splitlines()
    report.lines = len(lines)
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise SacctError(name, None, "is empty (no header line)")
    header, parsable1 = _header(lines, first, name)
    col = {c: i for i, c in enumerate(header)}
    width = len(header)
    body = lines[first + 1:]
    if parsable1:
        body = [ln[:-1] if ln.endswith("|") else ln for ln in body]
    # steps first, from their JobID alone (most lines of a dump are steps): only the job lines are split
    k = col["JobID"]
    if k == 0:
        jobids = [ln[:ln.find("|")] for ln in body]
    else:
        jobids = [ln.split("|", k + 1)[k] if ln.count("|") >= k else "" for ln in body]
    step = ["." in j for j in jobids]
    report.steps = sum(step)
    idx = [i for i, st in enumerate(step) if not st and body[i].strip()]
    raw_lines = _picker(idx)(body) if idx else []
    line_of = [first + 2 + i for i in idx]
    report.records = len(idx)
    rows, kept_lines, kept_raw = [], [], []
    for ln, raw in zip(line_of, raw_lines, strict=True):
        r = raw.split("|")
        if len(r) == width:
            rows.append(r)
            kept_lines.append(ln)
            kept_raw.append(raw)
        else:
            report.skip(ln, "wrong field count", f"{len(r)} fields, expected {width}", raw)
    return _Table(header, rows, kept_raw, kept_lines)


class _ByteTable(_Table):
    """:class:`_Table` of a well-formed dump, a column at a time from its bytes: fields found by
    :func:`~._columns._split_fields`, strings made per column when asked for, times and counts
    converted by numpy (:func:`_fast_times`; a column holding anything else is converted as
    :class:`_Table` does)."""

    def __init__(self, header: tuple[str, ...], data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 line_starts: np.ndarray, line_ends: np.ndarray, line_of: Sequence[int]) -> None:
        super().__init__(header, [], [], line_of)
        self.data = data
        self.starts = starts
        self.ends = ends
        self.line_starts = line_starts
        self.line_ends = line_ends
        self.line_index = [ln - 2 for ln in line_of]  # the job lines among the body's lines
        self.n = starts.shape[0]
        self._lines: list[str] | None = None
        self.parsable1 = False  # lines end with '|' (sacct --parsable)

    def strings(self, c: str) -> list[str]:
        got = self._strings.get(c)
        if got is None:
            k = self.col[c]
            got = self._strings[c] = _field_strings(self.data, self.starts[:, k], self.ends[:, k], "replace")
        return got

    def strings_at(self, c: str, rows: list[int]) -> list[str]:
        if c in self._strings:
            return super().strings_at(c, rows)
        k = self.col[c]
        at = np.asarray(rows, dtype=np.int64)
        return _field_strings(self.data, self.starts[at, k], self.ends[at, k], "replace")

    def times(self, c: str) -> tuple[np.ndarray, np.ndarray]:
        k = self.col[c]
        got = _fast_times(self.data, self.starts[:, k], self.ends[:, k])
        return got if got is not None else _times(self.strings(c))

    def counts(self, c: str) -> np.ndarray:
        k = self.col[c]
        values, ok = _decimal_fields(self.data, self.starts[:, k], self.ends[:, k])
        digits = _gather(self.data, self.starts[:, k], self.ends[:, k], ord("0"))
        if ok.all() and ((digits >= 48) & (digits <= 57)).all():
            return values.astype(np.int64)
        return super().counts(c)

    def ids(self) -> np.ndarray:
        if "JobIDRaw" in self.col:
            k = self.col["JobIDRaw"]
            lens = self.ends[:, k] - self.starts[:, k]
            digits = _gather(self.data, self.starts[:, k], self.ends[:, k], ord("0"))
            if self.n and lens.min() > 0 and lens.max() <= 15 and ((digits >= 48) & (digits <= 57)).all():
                return _decimal_fields(self.data, self.starts[:, k], self.ends[:, k])[0].astype(np.int64)
        return super().ids()

    def raw(self, rows: list[int]) -> list[str]:
        if len(rows) * 8 < self.n:  # a few: gathered
            at = np.asarray(rows, dtype=np.int64)
            return _field_strings(self.data, self.line_starts[at], self.line_ends[at], "replace")
        if self._lines is None:  # many: the whole body decoded and split once
            lines = self.data.tobytes().decode("utf-8", errors="replace").split("\n")
            self._lines = _picker(self.line_index)(lines) if self.n else []
            if self.parsable1:
                self._lines = [ln[:-1] for ln in self._lines]
        return _picker(rows)(self._lines) if rows else []


_ODD_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")  # line breaks of str.splitlines other than \n


def _byte_table(raw: bytes, name: str, report: SacctReport) -> _ByteTable | None:
    """The job lines of a well-formed dump (the header on the first line, every line with its
    fields, nothing but ``\\n`` ending lines) found with numpy, steps counted; ``None`` for any
    other input (:func:`_line_table` then reads it). O(bytes)."""
    if any(b in raw for b in _ODD_BREAKS):
        return None
    if not raw.isascii():
        text = raw.decode("utf-8", errors="replace")
        if "\x85" in text or "\u2028" in text or "\u2029" in text:
            return None
    cut = raw.find(b"\n")
    head = (raw if cut < 0 else raw[:cut]).decode("utf-8", errors="replace")
    if not head.strip():
        return None
    header, parsable1 = _header([head], 0, name)
    body = b"" if cut < 0 else raw[cut + 1:]
    if body and not body.endswith(b"\n"):
        body += b"\n"
    data = np.frombuffer(body, dtype=np.uint8)
    width = len(header) + parsable1
    fields = _split_fields(data, ord("|"), width)
    if fields is None:
        return None
    starts, ends = fields
    if parsable1:
        if (ends[:, -1] != starts[:, -1]).any():
            return None
        starts, ends = starts[:, :-1], ends[:, :-1]
    lines = starts.shape[0]
    report.lines = lines + 1
    # step lines: a '.' in the JobID field
    k = header.index("JobID")
    dots = np.flatnonzero(data == 46)
    line = np.searchsorted(starts[:, 0], dots, side="right") - 1
    inside = (dots >= starts[line, k]) & (dots < ends[line, k]) if dots.size else np.zeros(0, dtype=bool)
    step = np.zeros(lines, dtype=bool)
    step[line[inside]] = True
    report.steps = int(np.count_nonzero(step))
    jobs = np.flatnonzero(~step)
    report.records = int(jobs.size)
    line_starts = starts[jobs, 0]
    line_ends = ends[jobs, -1]  # the line as read (without --parsable's trailing '|', as the line reader keeps it)
    table = _ByteTable(header, data, starts[jobs], ends[jobs], line_starts, line_ends, (jobs + 2).tolist())
    table.parsable1 = parsable1
    return table


_NAT = np.iinfo(np.int64).min
_TIME_PLACES = np.array([0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18])  # the digits of YYYY-MM-DDTHH:MM:SS
_TIME_MARKS = {4: 45, 7: 45, 10: 84, 13: 58, 16: 58}  # '-', '-', 'T', ':', ':'
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])


def _fast_times(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_times` of fields in the bytes: ``YYYY-MM-DDTHH:MM:SS`` (a valid date and time of a
    year >= 1) converted to seconds since the epoch by the days-from-civil formula (proleptic
    Gregorian, numpy's own), ``Unknown``, ``None`` and empty as NaT; ``None`` when a field is
    anything else (the caller then asks :func:`_times`, which decides what is bad). O(fields)."""
    lens = ends - starts
    n = lens.size
    full = np.flatnonzero(lens == 19)
    out = np.full(n, _NAT, dtype=np.int64)
    if full.size != n:
        rest = np.flatnonzero(lens != 19)
        if not np.isin(lens[rest], (0, 4, 7)).all():
            return None
        words = _field_strings(data, starts[rest], ends[rest], "replace")
        if not set(words) <= _NO_TIME:
            return None
    if full.size:
        first = starts[full]
        for place, mark in _TIME_MARKS.items():
            if not (data[first + place] == mark).all():
                return None
        d = data[first + _TIME_PLACES[:, None]].astype(np.int32) - 48  # one row per digit place
        if ((d < 0) | (d > 9)).any():
            return None
        d10 = d[0::2] * 10 + d[1::2]  # the two-digit groups: century, year, month, day, hour, minute, second
        y = (d10[0] * 100 + d10[1]).astype(np.int64)
        m, day, hh, mm, ss = d10[2], d10[3], d10[4], d10[5], d10[6]
        leap = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
        month_ok = (m >= 1) & (m <= 12)
        dim = _MONTH_DAYS[np.where(month_ok, m, 1)] + (leap & (m == 2))
        if not (month_ok & (y >= 1) & (day >= 1) & (day <= dim) & (hh <= 23) & (mm <= 59) & (ss <= 59)).all():
            return None
        yy = y - (m <= 2)  # days from civil (H. Hinnant, "chrono-compatible low-level date algorithms")
        era = yy // 400
        yoe = yy - era * 400
        doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + day - 1
        doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
        days = era * 146097 + doe - 719468
        out[full] = days * 86400 + (hh * 3600 + mm * 60 + ss)
    return out.view("datetime64[s]"), np.zeros(n, dtype=bool)


def _line(s: SkippedLine) -> int:
    return s.line


def _ids(jobid: list[str], raw: list[str] | None) -> list[int]:
    """Integer ids (module docstring): ``JobIDRaw``, else plain ``JobID`` numbers, array tasks and
    heterogeneous components numbered after the largest plain one."""
    if raw is not None and all(v.isdigit() for v in raw):
        return [int(v) for v in raw]
    plain = [int(j) if j.isdigit() else None for j in jobid]
    top = max((p for p in plain if p is not None), default=0)
    out = []
    for p in plain:
        if p is None:
            top += 1
            p = top
        out.append(p)
    return out


_NAME_PARTS = re.compile(r"(.*?)([0-9]+)([^0-9]*)")


def _map_nodelists(exprs: list[str], index: dict[str, int]) -> dict[str, tuple[np.ndarray, bool]]:
    """:func:`_node_ids` of the node lists ``exprs`` written in the simple forms (``a1``,
    ``p[001-004,9]s``, comma-separated) whose every name is a node of ``index``, all at once:
    each range becomes ``(first id, count)`` through the topology's names grouped by prefix,
    suffix and digit count (``node0007`` is value 7 of family ``("node", "", 4)``, a range's name
    ``f"{i:0{w}d}"`` having ``max(w, len(str(i)))`` digits), so the ids come from one numpy gather
    and the per-list sorting from one ``lexsort``. Lists in other forms or naming an unknown node
    are left out (the caller maps them one by one and reports them). O(names + nodes) plus
    O(ranges) Python work: worth it when the lists are not far fewer than the topology's nodes."""
    if not exprs:
        return {}
    family: dict[tuple[str, str, int], dict[int, int]] = {}
    for nm, i in index.items():
        m = _NAME_PARTS.fullmatch(nm)
        if m is not None:
            family.setdefault((m.group(1), m.group(3), len(m.group(2))), {})[int(m.group(2))] = i
    tables: dict[tuple[str, str, int], tuple[int, int]] = {}  # family -> (offset in lookup, size)
    parts = [np.full(1, -1, dtype=np.int64)]  # lookup[0]: unknown
    at = 1
    for key, members in family.items():
        size = max(members) + 1
        table = np.full(size, -1, dtype=np.int64)
        table[list(members)] = list(members.values())
        tables[key] = (at, size)
        parts.append(table)
        at += size
    direct = at  # then every id as itself: a plain name's entry
    parts.append(np.arange(max(index.values(), default=-1) + 1, dtype=np.int64))
    lookup = np.concatenate(parts)
    owner: list[int] = []  # per range: its list, where its values start in lookup, how many
    begin: list[int] = []
    length: list[int] = []
    good: list[str] = []
    for e in exprs:
        ranges = _ranges(e, index, tables, direct)
        if ranges is None:
            continue
        k = len(good)
        good.append(e)
        for b, c in ranges:
            owner.append(k)
            begin.append(b)
            length.append(c)
    if not good:
        return {}
    lens = np.array(length, dtype=np.int64)
    ids = lookup[np.repeat(np.array(begin, dtype=np.int64) - (np.cumsum(lens) - lens), lens) + np.arange(lens.sum())]
    of = np.repeat(np.array(owner, dtype=np.int64), lens)
    unknown = np.zeros(len(good), dtype=bool)
    unknown[of[ids < 0]] = True
    order = np.lexsort((ids, of))
    ids, of = ids[order], of[order]
    same = np.zeros(len(good), dtype=bool)
    same[of[1:][(ids[1:] == ids[:-1]) & (of[1:] == of[:-1])]] = True
    bounds = np.zeros(len(good) + 1, dtype=np.int64)
    np.cumsum(np.bincount(of, minlength=len(good)), out=bounds[1:])
    ids.flags.writeable = False
    out = {}
    for k, e in enumerate(good):
        if not unknown[k]:
            out[e] = (ids[bounds[k]:bounds[k + 1]], bool(same[k]))
    return out


def _ranges(expr: str, index: dict[str, int], tables: dict[tuple[str, str, int], tuple[int, int]],
            direct: int) -> list[tuple[int, int]] | None:
    """The ranges of a node list in the simple forms as ``(start in lookup, count)`` (a plain name:
    its id's entry at ``direct + id``), or ``None`` (another form, an unknown name, a range value
    outside its family's table)."""
    out = []
    for item in (_ITEMS.findall(expr) if "[" in expr else expr.split(",")):
        if "[" not in item:
            i = index.get(item)
            if i is None:
                return None
            out.append((direct + i, 1))
            continue
        m = _SIMPLE.fullmatch(item)
        if m is None:
            return None
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo_s, dash, hi_s = r.partition("-")
            if not (lo_s.isascii() and lo_s.isdigit()) or (dash and not (hi_s.isascii() and hi_s.isdigit())):
                return None
            lo = int(lo_s)
            hi = int(hi_s) if dash else lo
            if hi < lo:
                return None
            w = len(lo_s)
            while lo <= hi:  # the values of one digit count at a time: [8-12] is 8-9 (1 digit), 10-12 (2)
                digits = max(w, len(str(lo)))
                top = min(hi, 10 ** digits - 1)
                where = tables.get((prefix, suffix, digits))
                if where is None or top >= where[1]:
                    return None
                out.append((where[0] + lo, top - lo + 1))
                lo = top + 1
    return out if (",".join(_ITEMS.findall(expr)) == expr if "[" in expr else True) else None


def _node_ids(expr: str, index: dict[str, int], file: str, line: int, topology: Any) -> tuple[np.ndarray, bool]:
    """The node ids of ``expr`` on the topology, ascending (read-only), and whether a node repeats."""
    try:
        names = expand_nodelist(expr)
    except Exception as exc:  # hostlist.BadHostlist and the like
        raise SacctError(file, line, f"NodeList {expr!r} is not a hostlist expression ({exc})") from None
    try:
        ids = sorted([index[m] for m in names])
    except KeyError as exc:
        where = getattr(topology, "source", None) or "the topology"
        raise SacctError(file, line, f"NodeList {expr!r} names node {exc.args[0]!r}, which {where} does not have"
                         ) from None
    out = np.array(ids, dtype=np.int64)
    out.flags.writeable = False
    return out, len(set(ids)) != len(ids)


def _detail(code: int, i: int, jobid: Sequence[str], state: Sequence[str], submit: Mapping[int, str],
            start: Mapping[int, str], end: Mapping[int, str], nnodes: Mapping[int, str], nodelist: Sequence[str],
            limit: Sequence[str], partition: Sequence[Any], nodes: Sequence[Any], ids: np.ndarray,
            size: int | None) -> str:
    j = f"job {jobid[i]}"
    r = _REASONS[code]
    if r in ("unknown state", "still running", "requeued", "revoked", "state not kept"):
        return f"{j}: State = {state[i]!r}"
    if code == _R_NOT_STARTED:
        return f"{j}: State = {state[i]!r}"
    if code == _R_NO_START:
        return f"{j}: State = {state[i]!r}, Start = {start[i]!r}, NodeList = {nodelist[i]!r}"
    if r == "other partition":
        return f"{j}: Partition = {partition[i]!r}"
    if r in ("bad time", "unknown submit time", "unknown end time", "start before submit", "end before start"):
        return f"{j}: Submit = {submit[i]!r}, Start = {start[i]!r}, End = {end[i]!r}"
    if r == "non-integer field":
        return f"{j}: NNodes = {nnodes[i]!r}"
    if r == "bad time limit":
        return f"{j}: Timelimit = {limit[i]!r}"
    if r in ("node count mismatch", "repeated node"):
        got = nodes[i]
        return f"{j}: NNodes = {nnodes[i]}, NodeList = {nodelist[i]!r} ({0 if got is None else got.size} nodes)"
    if r == "too large for the machine":
        return f"{j}: NNodes = {nnodes[i]} > {size}"
    return f"{j}: id {ids[i]} repeats an earlier job's"

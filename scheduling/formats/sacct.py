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
read a column at a time from its bytes (the field parsers: :mod:`._sacct_fields`, the bulk steps:
:mod:`._sacct_fast`). When ``JobID`` is the first column, the step lines (two or more per job in a
real dump) are dropped first, in bulk: each line's first 8 bytes (16 for a longer JobID) are read
as one 64-bit word, whose ``|`` and ``.`` bytes are marked eight at a time
(:func:`~._sacct_fast._step_lines`; a JobID of 16 bytes or more: a 32-byte window,
:func:`~._sacct_fields._drop_steps`), and only the job lines are gathered and split into fields
(:func:`~._columns._split_fields`, at the newlines already found: only the ``|`` are looked for).
The columns of few distinct values (``State``, ``NodeList``,
``Partition``) are factorized from their bytes (the states and partitions, a few values, by
comparison alone: :func:`~._sacct_fast._factorize_few`; the node lists, many values, through an
open table of their hashes, no sort: :func:`~._sacct_fast._factorize_table`; either one declining
to the hashed and sorted :func:`~._columns._factorize`), so that each distinct value is decoded and
mapped once and the kept jobs share its objects; the times are converted from their digits
(:func:`~._sacct_fields._civil_seconds`: each year present dated once by the days-from-civil
formula, H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", ``days_from_civil``: numpy's
proleptic Gregorian calendar, each time a lookup of its year and month), the time limits in the
forms sacct prints from their digits (:func:`~._sacct_fields._limit_seconds`, the others by
:func:`parse_timelimit`), the counts and ids from one word each
(:func:`~._sacct_fast._small_uints`; longer ones by :func:`~._columns._uints`), and only ``JobID``
and the job lines turned into strings (the lines with one decode and one split, before the skipped
ones are reported, so that both take theirs from it). Any other file (a cut line, CRLF line ends,
an open text file) is read line by line by the reference reader, and a column holding anything the
column parsers do not take is converted by it too, so both give the same jobs and report (tests
check this, on the tests' quirky dumps and on the benchmark's). Many node lists are mapped at once
(:func:`~._sacct_fields._map_nodelists`: the topology's names grouped by prefix, suffix and digit
count, each range one slice of a lookup array; the lists of one bracket, ``node[0001-0004,0009]``,
parsed for all lists together with numpy by :func:`~._sacct_fields._bracket_ranges`; sorted and
free of repeats decided per range), the others one by one, the simple hostlist forms
(``node[001-004,010]``, ``a1,b[2-3]-ib``) expanded here and every other form by ``python-hostlist``
(tests check both give the same names). The skipped lines are reported a reason at a time
(:func:`~._sacct_fast._skipped_lines`; :func:`_detail` is the one-row reference). O(bytes) numpy
work plus O(jobs) Python objects and O(ranges) for the node lists; ``benchmarks/formats.py``
measures it (``--only sacct``).

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..kernel.jobs import Job
from ..workloads import SkippedLine, SWFHeader, SWFReport, SWFTrace
from ._columns import (
    _factorize,
    _field_strings,
    _gather,
    _gc_paused,
    _make_jobs,
    _picker,
    _rows_at,
    _split_fields,
    _uints,
)
from ._errors import FileLineError
from ._sacct_fast import (
    _body_lines,
    _factorize_few,
    _factorize_table,
    _first_uses,
    _pick_objects,
    _skipped_lines,
    _small_uints,
    _state_counts,
)
from ._sacct_fields import (
    _ITEMS,
    _LIMIT_WIDTH,
    _NO_TIME,
    _SIMPLE,
    _drop_steps,
    _fast_times,
    _limit_seconds,
    _map_nodelists,
)

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
    ``topology`` the tree its nodes were mapped on, ``origin`` the time that is 0 (ISO text).

    A dump read from its bytes decodes ``records`` when they are first asked for (``unread``: the
    function that makes them), as :class:`~scheduling.formats.batsim.BatsimWorkload` parses its
    ``document``: most replays never look at the lines, and decoding a third of a dump's bytes
    into strings is a tenth of its reading."""

    def __init__(self, jobs: list[Job], records: list[str] | None, columns: tuple[str, ...],
                 report: SacctReport, machine_size: int | None, topology: Any, origin: str | None,
                 unread: Callable[[], list[str]] | None = None) -> None:
        super().__init__(jobs, records, SWFHeader(), report, machine_size)  # type: ignore[arg-type]
        self.columns = columns
        self.topology = topology
        self.origin = origin
        self._unread = unread

    @property  # type: ignore[override]
    def records(self) -> list[str]:
        """Each kept job's line as read, aligned with the jobs."""
        if self._unread is not None:
            self._records = self._unread()
            self._unread = None
        return self._records

    @records.setter  # type: ignore[override]
    def records(self, value: list[str] | None) -> None:
        self._records = value  # type: ignore[assignment]
        self._unread = None

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle or copy, with the records decoded (the function that decodes them
        is the read's own and does not pickle)."""
        self.records  # noqa: B018 -- decoded (and kept) when not yet
        return dict(self.__dict__)

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


def _time_limits(texts: list[str]) -> list[float | None | str]:
    """:func:`parse_timelimit` of each text, ``"bad"`` where it refuses one. The forms sacct prints
    -- ``MM:SS``, ``HH:MM:SS``, ``D-HH:MM:SS`` in ASCII digits -- are converted at once from their
    digits (:func:`~._sacct_fields._limit_seconds`), any other text by :func:`parse_timelimit`. O(characters).

    >>> _time_limits(["1-02:00:00", "30:00", "UNLIMITED", "soon"])
    [93600.0, 1800.0, None, 'bad']
    """
    out: list[float | None | str] = [None] * len(texts)
    todo: Sequence[int] = range(len(texts))
    joined = "\n".join(texts)
    if texts and joined.isascii():
        data = np.frombuffer(b"\n" * _LIMIT_WIDTH + joined.encode("ascii"), dtype=np.uint8)
        lens = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        ends = np.cumsum(lens + 1) - 1  # where each text ends in ``joined``, i.e. its last bytes start in ``data``
        secs, ok = _limit_seconds(_rows_at(data, ends, _LIMIT_WIDTH), lens)
        good = np.flatnonzero(ok).tolist()
        for k, v in zip(good, secs[good].astype(np.float64).tolist(), strict=True):
            out[k] = v
        todo = np.flatnonzero(~ok).tolist()
    for k in todo:
        try:
            out[k] = parse_timelimit(texts[k])
        except ValueError:
            out[k] = "bad"
    return out


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
    table: _Table | None = _byte_table(data, name, report) if not isinstance(data, str) else None
    if table is None:  # anything but a well-formed dump: line by line, every odd line reported
        report = SacctReport()
        table = _line_table(data if isinstance(data, str) else str(data, "utf-8", "replace"), name, report)
    report.source = os.path.basename(name)
    header = table.header
    col = table.col
    line_of = table.line_of
    if not table.n:
        return SacctTrace([], [], header, report, size, topology, None)

    jobid = table.strings("JobID")
    n = table.n
    # the columns of few distinct values as (code per row, distinct strings): per distinct value, not per row
    st_code, st_text = table.codes("State")
    st_norm = [t.split(" ", 1)[0].rstrip("+") for t in st_text]  # "CANCELLED by 1234" is CANCELLED
    nl_code, nl_text = table.codes("NodeList")
    pa_text: list[Any] = [None]  # no Partition column: None
    pa_code = np.zeros(n, dtype=np.int64)
    if "Partition" in col:
        pa_code, pa_text = table.codes("Partition")
    reason = np.zeros(n, dtype=np.int8)

    def mark(mask: np.ndarray, code: int) -> None:
        if mask.any():  # most reasons mark no row: one pass, not three
            reason[(reason == 0) & mask] = code

    def per_row(values: list[Any], codes: np.ndarray, dtype: Any) -> np.ndarray:
        return np.array(values, dtype=dtype)[codes]

    kind = {**dict.fromkeys(FINISHED_STATES, 0), **dict.fromkeys(_ACTIVE, 3), **dict.fromkeys(_REQUEUED, 4),
            "PENDING": 2, "REVOKED": 5}
    reason[:] = per_row([kind.get(v, 1) for v in st_norm], st_code, np.int8)
    if not set(st_norm) <= keep_states:
        mark(per_row([v not in keep_states for v in st_norm], st_code, bool), _R["state not kept"])
    if parts is not None:
        mark(per_row([p not in parts for p in pa_text], pa_code, bool), _R["other partition"])
    submit, bad1 = table.times("Submit")
    start, bad2 = table.times("Start")
    end, bad3 = table.times("End")
    mark(bad1 | bad2 | bad3, _R["bad time"])
    mark(np.isnat(submit), _R["unknown submit time"])
    mark(np.isnat(start) | per_row([e in _NO_NODES for e in nl_text], nl_code, bool), _R_NO_START)
    mark(np.isnat(end), _R["unknown end time"])
    sub_i = submit.astype(np.int64)
    start_i = start.astype(np.int64)
    end_i = end.astype(np.int64)
    mark(start_i < sub_i, _R["start before submit"])
    mark(end_i < start_i, _R["end before start"])
    nnodes = table.counts("NNodes")
    mark(nnodes < 1, _R["non-integer field"])
    # seconds, NaN for no limit (UNLIMITED...), and the limits parse_timelimit refuses
    limit, bad_limit = table.limits("Timelimit") if "Timelimit" in col else (np.full(n, np.nan), np.zeros(n, bool))
    mark(bad_limit, _R["bad time limit"])
    # node lists of the jobs still in: each distinct one expanded once
    node_pos = np.full(n, -1, dtype=np.int64)  # each row's node list in ``arrays`` (-1: none)
    arrays: list[np.ndarray | None] = [None]
    if node_index is not None:
        live = np.flatnonzero(reason == 0)
        live_codes = nl_code[live]
        used, first = _first_uses(live_codes, len(nl_text))  # each distinct node list, in order of first use
        exprs = [nl_text[c] for c in used.tolist()]
        # many lists: all at once (the topology's names indexed once); a few: one by one
        if len(exprs) * 16 >= len(node_index):
            got, sizes, repeats = _map_nodelists(exprs, node_index)
        else:
            got, sizes, repeats = [None] * len(exprs), np.full(len(exprs), -1), np.zeros(len(exprs), dtype=bool)
        missing = np.flatnonzero(sizes < 0).tolist()
        if missing:  # the others one by one, in order: the first bad one is the error
            at = live[first]
            for j in missing:
                ids_j, rep = _node_ids(exprs[j], node_index, name, line_of[int(at[j])], topology)
                got[j], sizes[j], repeats[j] = ids_j, ids_j.size, rep
        slot = np.full(len(nl_text), -1, dtype=np.int64)
        slot[used] = np.arange(used.size)
        pos = slot[live_codes]
        count = np.zeros(n, dtype=np.int64)
        repeated = np.zeros(n, dtype=bool)
        count[live] = sizes[pos]
        repeated[live] = repeats[pos]
        arrays = [*got, None]  # [-1]: no node list
        node_pos[live] = pos
        alive = reason == 0
        mark(alive & (count != nnodes), _R["node count mismatch"])
        mark(alive & repeated, _R["repeated node"])
    elif size is not None:
        mark(nnodes > size, _R["too large for the machine"])
    # ids
    ids = table.ids()
    alive_idx = np.flatnonzero(reason == 0)
    alive_ids = ids[alive_idx]
    if not (alive_ids[1:] > alive_ids[:-1]).all() and (np.diff(np.sort(alive_ids)) == 0).any():  # ascending: none
        seen: set[int] = set()
        for i in alive_idx.tolist():
            if int(ids[i]) in seen:
                reason[i] = _R["duplicate job id"]
            seen.add(int(ids[i]))
    # the report
    skipped = np.flatnonzero(reason).tolist()
    ordered = not report.skipped  # only this reader's entries, made in the order of the rows: by line already
    if skipped:
        coded = {"State": (st_code, st_text), "NodeList": (nl_code, nl_text), "Partition": (pa_code, pa_text)}

        def column(c: str, rows: list[int]) -> list[Any]:
            if c in coded:
                codes, texts = coded[c]
                return list(map(texts.__getitem__, codes[rows].tolist()))
            if c == "JobID":
                return [jobid[i] for i in rows]
            return table.strings_at(c, rows) if c in col else [""] * len(rows)

        def node_counts(rows: list[int]) -> list[int]:
            return [0 if a is None else a.size for a in map(arrays.__getitem__, node_pos[rows].tolist())]

        report.skipped.extend(_skipped_lines(skipped, reason[skipped].tolist(), _REASONS, _R_NOT_STARTED, _R_NO_START,
                                             column, node_counts, ids, size, line_of,
                                             table.raw(skipped)))
    keep = np.flatnonzero(reason == 0)
    if not keep.size:
        if not ordered:
            report.skipped.sort(key=_line)
        return SacctTrace([], [], header, report, size, topology, None)
    t0 = np.datetime64(origin, "s") if origin is not None else submit[keep].min()
    base = t0.astype(np.int64)
    arrival = (sub_i[keep] - base).astype(float)
    report.reordered = int(np.count_nonzero(np.diff(arrival) < 0))
    if report.reordered:  # else in order already: the stable sort would leave every job in its place
        order = np.argsort(arrival, kind="stable")
        keep, arrival = keep[order], arrival[order]
    wait = (start_i[keep] - sub_i[keep]).astype(float).tolist()
    runtime = (end_i[keep] - start_i[keep]).astype(float)
    request_for = getattr(topology, "request_for", None)
    idx = keep.tolist()
    sizes = nnodes[keep].tolist()
    requests = sizes
    if request_for is not None:
        kept_counts = nnodes[keep]  # at least 1 each (else skipped); the distinct ones, ascending:
        top = int(kept_counts.max())  # a count table when they are small (O(jobs + top), not a sort)
        distinct = np.flatnonzero(np.bincount(kept_counts)) if top <= 4 * keep.size + 4096 else np.unique(kept_counts)
        made = {v: request_for(v) for v in distinct.tolist()}
        if not all(r.__class__ is int and r == v for v, r in made.items()):  # a count asks for itself: sizes
            requests = list(map(made.__getitem__, sizes))
    # per kept job, the shared objects of its distinct values (a float or None limit: "bad" is not kept)
    kept_limit = limit[keep]
    estimates: list[Any] = kept_limit.tolist()
    for i in np.flatnonzero(np.isnan(kept_limit)).tolist():  # no limit: no estimate
        estimates[i] = None
    kept_codes = st_code[keep]
    states = _pick_objects(st_norm, kept_codes)
    partitions = _pick_objects(pa_text, pa_code[keep])
    kept_nodes = _pick_objects(arrays, node_pos[keep])
    pick = _picker(idx)  # one itemgetter for both columns
    slurm_ids, lines = pick(jobid), pick(line_of)
    attrs = [{"recorded_wait": w, "nodes": nd, "slurm_id": j, "state": st, "partition": pa, "line": ln}
             for w, nd, j, st, pa, ln in zip(wait, kept_nodes, slurm_ids, states, partitions, lines, strict=True)]
    jobs = _make_jobs(ids[keep].tolist(), arrival.tolist(), requests, runtime.tolist(), estimates, sizes, attrs,
                      arrays=(arrival, runtime))
    report.jobs = len(jobs)
    report.states = _state_counts(kept_codes, st_norm)
    if not ordered:
        report.skipped.sort(key=_line)
    return SacctTrace(jobs, None, header, report, size, topology, str(t0), table.raw_later(idx))


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

    def codes(self, c: str) -> tuple[np.ndarray, list[str]]:
        """``(codes, distinct)``: the column's distinct strings in order of first use, and each
        row's index among them."""
        return _codes(self.strings(c))

    def limits(self, c: str) -> tuple[np.ndarray, np.ndarray]:
        """``(seconds, bad)``: each time limit of the column (:func:`parse_timelimit`; NaN for no
        limit) and whether it refuses it (NaN then too)."""
        return _limit_rows(self.strings(c))

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
        """The lines at ``rows`` as read."""
        return [self.raw_lines[i] for i in rows]

    def raw_later(self, rows: list[int]) -> Callable[[], list[str]]:
        """A function giving :meth:`raw` of ``rows`` (here made now: the lines are strings already)."""
        lines = self.raw(rows)
        return lambda: lines


def _codes(strings: list[str]) -> tuple[np.ndarray, list[str]]:
    """``(codes, distinct)`` of strings: the distinct ones in order of first use, each one's index."""
    index = dict.fromkeys(strings)
    distinct = list(index)
    for k, v in enumerate(distinct):
        index[v] = k
    return np.fromiter(map(index.__getitem__, strings), dtype=np.int64, count=len(strings)), distinct


def _limit_rows(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(seconds, bad)`` of time limits (:func:`_time_limits` of each distinct one; NaN for no limit
    and for a refused one, which ``bad`` marks)."""
    codes, distinct = _codes(strings)
    parsed = _time_limits(distinct)
    seconds = np.array([v if v.__class__ is float else np.nan for v in parsed], dtype=np.float64)
    return seconds[codes], np.array([v == "bad" for v in parsed], dtype=bool)[codes]


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
    converted by numpy (:func:`~._sacct_fields._fast_times`; a column holding anything else is converted as
    :class:`_Table` does)."""

    def __init__(self, header: tuple[str, ...], data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 line_starts: np.ndarray, line_ends: np.ndarray, line_of: Sequence[int],
                 line_index: list[int] | None) -> None:
        super().__init__(header, [], [], line_of)
        self.data = data
        self.starts = starts
        self.ends = ends
        self.line_starts = line_starts
        self.line_ends = line_ends
        self.line_index = line_index  # the job lines among the lines of ``data`` (None: all of them)
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

    def limits(self, c: str) -> tuple[np.ndarray, np.ndarray]:
        k = self.col[c]
        ends = self.ends[:, k]
        if c in self._strings or not self.n or ends[0] < _LIMIT_WIDTH:
            return super().limits(c)
        secs, ok = _limit_seconds(_rows_at(self.data, ends - _LIMIT_WIDTH, _LIMIT_WIDTH), ends - self.starts[:, k])
        out = secs.astype(np.float64)
        bad = np.zeros(self.n, dtype=bool)
        rest = np.flatnonzero(~ok)
        if rest.size:  # UNLIMITED and the forms sacct does not print: as the strings give them
            out[rest], bad[rest] = _limit_rows(self.strings_at(c, rest.tolist()))
        return out, bad

    def codes(self, c: str) -> tuple[np.ndarray, list[str]]:
        k = self.col[c]
        got = None
        if c not in self._strings:
            starts, ends = self.starts[:, k], self.ends[:, k]
            # node lists: many values, found through a table; states, partitions: a few, peeled off
            got = (_factorize_table if c == "NodeList" else _factorize_few)(self.data, starts, ends)
            if got is None:
                got = _factorize(self.data, starts, ends)
        if got is None:
            return super().codes(c)
        codes, first = got
        return codes, _field_strings(self.data, self.starts[first, k], self.ends[first, k], "replace")

    def times(self, c: str) -> tuple[np.ndarray, np.ndarray]:
        k = self.col[c]
        got = _fast_times(self.data, self.starts[:, k], self.ends[:, k])
        return got if got is not None else _times(self.strings(c))

    def _digits(self, k: int) -> np.ndarray | None:
        """Column ``k`` as unsigned integers (one word each, else the digits' matrix), or ``None``."""
        values = _small_uints(self.data, self.starts[:, k], self.ends[:, k])
        return values if values is not None else _uints(self.data, self.starts[:, k], self.ends[:, k])

    def counts(self, c: str) -> np.ndarray:
        values = self._digits(self.col[c])
        return values if values is not None else super().counts(c)

    def ids(self) -> np.ndarray:
        if "JobIDRaw" in self.col:
            values = self._digits(self.col["JobIDRaw"])
            if values is not None:
                return values
        return super().ids()

    def raw(self, rows: list[int]) -> list[str]:
        """The lines at ``rows`` as read: a few gathered, else the whole body decoded once (and kept)."""
        if len(rows) * 8 < self.n and self._lines is None:  # a few: gathered
            at = np.asarray(rows, dtype=np.int64)
            return _field_strings(self.data, self.line_starts[at], self.line_ends[at], "replace")
        if self._lines is None:  # many: the whole body decoded and split once
            self._lines = _body_lines(self.data, self.line_index, self.n, self.parsable1)
        return _picker(rows)(self._lines) if rows else []

    def raw_later(self, rows: list[int]) -> Callable[[], list[str]]:
        """A function giving :meth:`raw` of ``rows``: when most rows' lines are asked for and the
        body is not decoded yet, it decodes them when called, keeping only bytes until then (the
        job lines' own, gathered now if the body holds the step lines too: never more than the
        lines would take); otherwise the lines are made now."""
        if self._lines is not None or len(rows) * 8 < self.n:
            lines = self.raw(rows)
            return lambda: lines
        if self.line_index is not None:  # the body with its step lines: the kept lines' bytes, end to end
            at = np.asarray(rows, dtype=np.int64)
            joined = _gather(self.data, self.line_starts[at], self.line_ends[at])
            return lambda: joined[:-1].tobytes().decode("utf-8", "replace").split("\n")  # (_field_strings)
        data, n, parsable1 = self.data, self.n, self.parsable1

        def later() -> list[str]:
            body = _body_lines(data, None, n, parsable1)
            return body if len(rows) == n else _picker(rows)(body)  # (rows ascend: all of them or a pick)

        return later


_ODD_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")  # line breaks of str.splitlines other than \n


def _byte_table(raw: bytes, name: str, report: SacctReport) -> _ByteTable | None:
    """The job lines of a well-formed dump (the header on the first line, every line with its
    fields, nothing but ``\\n`` ending lines) found with numpy, steps counted; ``None`` for any
    other input (:func:`_line_table` then reads it). O(bytes)."""
    cut = raw.find(b"\n")
    first = raw if cut < 0 else raw[:cut]
    if any(b in first for b in _ODD_BREAKS):  # in the header line (the body's are looked for with its newlines)
        return None
    ascii = bool(np.frombuffer(raw, dtype=np.uint8).max(initial=0) < 128)  # raw.isascii(), a SIMD reduction
    if not ascii:
        text = str(raw, "utf-8", "replace")
        if "\x85" in text or "\u2028" in text or "\u2029" in text:
            return None
    head = first.decode("utf-8", errors="replace")
    if not head.strip():
        return None
    header, parsable1 = _header([head], 0, name)
    data = np.frombuffer(raw, dtype=np.uint8)[cut + 1:] if cut >= 0 else np.zeros(0, dtype=np.uint8)  # a view
    if data.size and data[-1] != 10:
        data = np.append(data, np.uint8(10))
    width = len(header) + parsable1
    k = header.index("JobID")
    dropped = _drop_steps(data, parsable1, ascii) if k == 0 else None
    if dropped is None and any(b in raw for b in _ODD_BREAKS):  # (_drop_steps found none, if it answered)
        return None
    line_ends = None
    if dropped is not None:  # the step lines gone before any per-field work
        data, job_lines, lines, line_ends = dropped
    fields = _split_fields(data, ord("|"), width, line_ends)
    if fields is None:
        return None
    starts, ends = fields
    if parsable1:
        if (ends[:, -1] != starts[:, -1]).any():
            return None
        starts, ends = starts[:, :-1], ends[:, :-1]
    if dropped is None:
        lines = starts.shape[0]
        # step lines: a '.' in the JobID field
        dots = np.flatnonzero(data == 46)
        line = np.searchsorted(starts[:, 0], dots, side="right") - 1
        inside = (dots >= starts[line, k]) & (dots < ends[line, k]) if dots.size else np.zeros(0, dtype=bool)
        step = np.zeros(lines, dtype=bool)
        step[line[inside]] = True
        job_lines = np.flatnonzero(~step)
        starts, ends = starts[job_lines], ends[job_lines]
    report.lines = lines + 1
    report.steps = lines - int(job_lines.size)
    report.records = int(job_lines.size)
    line_starts = starts[:, 0]
    line_ends = ends[:, -1]  # the line as read (without --parsable's trailing '|', as the line reader keeps it)
    table = _ByteTable(header, data, starts, ends, line_starts, line_ends, (job_lines + 2).tolist(),
                       None if dropped is not None else job_lines.tolist())
    table.parsable1 = parsable1
    return table


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


def _detail(code: int, i: int, cols: Mapping[str, Mapping[int, Any]], nodes: Mapping[int, Any], ids: np.ndarray,
            size: int | None) -> str:
    """The detail of skipped row ``i``: its job and the values behind ``code`` (``cols``: column ->
    row -> text, for the skipped rows). The one-row reference of
    :func:`~._sacct_fast._skipped_lines`, which makes them a reason at a time (tests compare them)."""
    j = f"job {cols['JobID'][i]}"
    r = _REASONS[code]
    if r in ("unknown state", "still running", "requeued", "revoked", "state not kept") or code == _R_NOT_STARTED:
        return f"{j}: State = {cols['State'][i]!r}"
    if code == _R_NO_START:
        return f"{j}: State = {cols['State'][i]!r}, Start = {cols['Start'][i]!r}, NodeList = {cols['NodeList'][i]!r}"
    if r == "other partition":
        return f"{j}: Partition = {cols['Partition'][i]!r}"
    if r in ("bad time", "unknown submit time", "unknown end time", "start before submit", "end before start"):
        return f"{j}: Submit = {cols['Submit'][i]!r}, Start = {cols['Start'][i]!r}, End = {cols['End'][i]!r}"
    if r == "non-integer field":
        return f"{j}: NNodes = {cols['NNodes'][i]!r}"
    if r == "bad time limit":
        return f"{j}: Timelimit = {cols['Timelimit'][i]!r}"
    if r in ("node count mismatch", "repeated node"):
        got = nodes[i]
        return (f"{j}: NNodes = {cols['NNodes'][i]}, NodeList = {cols['NodeList'][i]!r} "
                f"({0 if got is None else got.size} nodes)")
    if r == "too large for the machine":
        return f"{j}: NNodes = {cols['NNodes'][i]} > {size}"
    return f"{j}: id {ids[i]} repeats an earlier job's"

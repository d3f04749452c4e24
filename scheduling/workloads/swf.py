"""The Standard Workload Format (SWF) of the Parallel Workloads Archive: read traces, write schedules.

SWF (Chapin, Cirne, Feitelson et al., "Benchmarks and standards for the evaluation of parallel job
schedulers", JSSPP 1999; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) is one job per
line, 18 whitespace-separated numbers, ``-1`` where a value is unknown, and header comments
``; Label: value`` at the top::

    ; MaxProcs: 338
        1   0   588530   937   306   142.00   -1   -1   35100   -1   1   97   -1   307   3   -1   -1   -1

:func:`read_swf` parses a file (plain text or gzip, recognised by its magic bytes, not its name) into
an :class:`SWFHeader` and :class:`SWFRecord` values, reporting every line it cannot parse.
:func:`load_swf` turns the records into scheduling :class:`~scheduling.jobs.Job` values (an
:class:`SWFTrace`, usable directly as a workload), with filters, and reports **every** line it
skips, with its line number and the reason, in an :class:`SWFReport`. :func:`write_swf` writes a
simulated schedule back as SWF so that other tools (evalys, the archive's own scripts) can read it.
:func:`trace_path` finds a trace in the shared traces directory.

Interpretations (the format leaves them open):

* **Size.** A job's processor count is its *requested processors* (field 8); where that is ``-1``
  (CTC, SDSC-Par and lublin have no request data) the *allocated processors* (field 5) are used.
  ``size="allocated"`` prefers field 5 and falls back to field 8.
* **Run time.** The real run time (field 4) is the job's run time on its request; ``-1`` (unknown:
  cancelled jobs) skips the line. Zero run times are kept.
* **Estimate.** The requested time (field 9) is the user's estimate (backfilling uses it); where it
  is ``-1`` the estimate falls back to the run time (a perfect estimate). Estimates shorter than the
  run time are kept as they are (jobs that ran past their limit): see
  :mod:`scheduling.policies.backfilling` for what the backfilling policies then do.
* **Arrival.** The submit time (field 2), in seconds from the log's start, unchanged; ``rate_factor``
  compresses the gaps between arrivals (``arrival' = first + (arrival - first) / rate_factor``).
* **Order.** Jobs are returned in order of arrival (stable in line order), as the simulator needs;
  :attr:`SWFReport.reordered` counts jobs that were out of order in the file.
"""

from __future__ import annotations

import gzip
import io
import logging
import math
import os
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from ..jobs import Job

__all__ = [
    "SWFRecord",
    "SWFHeader",
    "SkippedLine",
    "SWFReport",
    "SWFTrace",
    "SWFError",
    "SWFWarning",
    "TraceNotFoundError",
    "SWF_FIELDS",
    "read_swf",
    "load_swf",
    "write_swf",
    "write_records",
    "trace_path",
    "traces_dir",
    "offered_load",
    "TRACES_ENV",
    "DEFAULT_TRACES_DIR",
]

logger = logging.getLogger(__name__)

#: The environment variable naming the directory of SWF traces.
TRACES_ENV = "TOPOALLOC_TRACES"
#: Where traces are looked for when the variable is not set (relative to the current directory).
DEFAULT_TRACES_DIR = os.path.join("..", "shared", "traces")

_GZIP_MAGIC = b"\x1f\x8b"


class SWFError(ValueError):
    """A file or an argument that the SWF reader or writer cannot use."""


class SWFWarning(UserWarning):
    """Emitted by :func:`load_swf` with ``warn=True`` when lines were skipped."""


class TraceNotFoundError(FileNotFoundError):
    """:func:`trace_path` found no such trace; the message lists what the directory holds."""


# -- records --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SWFRecord:
    """One SWF data line: the 18 fields in file order, ``-1`` where unknown.

    Times are in seconds, memory in kilobytes per processor (as the format defines them).
    """

    job_id: int
    submit_time: float
    wait_time: float
    run_time: float
    allocated_processors: int
    average_cpu_time: float
    used_memory: float
    requested_processors: int
    requested_time: float
    requested_memory: float
    status: int
    user_id: int
    group_id: int
    executable: int
    queue: int
    partition: int
    preceding_job: int
    think_time: float

    def to_line(self) -> str:
        """The record as one SWF line (integral values written without a decimal point)."""
        return " ".join(_fmt(getattr(self, name)) for name in SWF_FIELDS)


#: The 18 field names, in file order.
SWF_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SWFRecord))
_INT_FIELDS = frozenset(f.name for f in fields(SWFRecord) if f.type in ("int", int))


def _fmt(value: float | int) -> str:
    if isinstance(value, int):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))  # shortest text that reads back to the same float


_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")


def _leading_int(text: str | None) -> int | None:
    if text is None:
        return None
    m = _LEADING_INT.match(text)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class SWFHeader:
    """The header comments of an SWF file.

    The common labels are parsed into attributes (``None`` when absent): integer labels take the
    **leading** integer of the value, so ``MaxNodes: 338 (batch partition; 512 total)`` gives 338.
    ``fields`` keeps every ``Label: value`` pair as written (a label may repeat, e.g. ``Queue``),
    ``comments`` every header line without its ``;``.
    """

    version: str | None = None
    computer: str | None = None
    installation: str | None = None
    max_jobs: int | None = None
    max_records: int | None = None
    max_nodes: int | None = None
    max_procs: int | None = None
    max_runtime: int | None = None
    max_memory: int | None = None
    allow_overuse: str | None = None
    unix_start_time: int | None = None
    time_zone: int | None = None
    time_zone_string: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    preemption: str | None = None
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    comments: tuple[str, ...] = ()

    @property
    def machine_size(self) -> int | None:
        """``MaxProcs``, else ``MaxNodes``, else ``None``."""
        return self.max_procs if self.max_procs is not None else self.max_nodes

    def get(self, label: str) -> str | None:
        """The first value given for ``label`` (case-insensitive), or ``None``."""
        for key, values in self.fields.items():
            if key.lower() == label.lower():
                return values[0] if values else None
        return None

    @classmethod
    def from_comments(cls, comments: Sequence[str]) -> SWFHeader:
        """Parse header lines (without the leading ``;``)."""
        found: dict[str, list[str]] = {}
        last: str | None = None
        for text in comments:
            m = _LABEL.match(text)
            if m:
                last = m.group(1).strip()
                found.setdefault(last, []).append((m.group(2) or "").strip())
            elif last is not None and text.strip() and text[:1].isspace() and found[last]:
                found[last][-1] = (found[last][-1] + " " + text.strip()).strip()  # continuation line
            else:
                last = None
        kw: dict[str, Any] = {}
        lower = {k.lower(): v for k, v in found.items()}
        for attr, label, kind in _HEADER_LABELS:
            values = lower.get(label.lower())
            if not values:
                continue
            kw[attr] = _leading_int(values[0]) if kind is int else values[0]
        return cls(**kw, fields={k: tuple(v) for k, v in found.items()}, comments=tuple(comments))

    def to_lines(self) -> list[str]:
        """The header as ``; Label: value`` lines (every label in ``fields``, in order)."""
        out = []
        for label, values in self.fields.items():
            for value in values:
                out.append(f"; {label}: {value}".rstrip())
        return out


_LABEL = re.compile(r"^ {0,3}([A-Za-z][A-Za-z0-9_ /-]*?)\s*:(?:\s+(.*)|\s*)$")
_HEADER_LABELS: tuple[tuple[str, str, type], ...] = (
    ("version", "Version", str),
    ("computer", "Computer", str),
    ("installation", "Installation", str),
    ("max_jobs", "MaxJobs", int),
    ("max_records", "MaxRecords", int),
    ("max_nodes", "MaxNodes", int),
    ("max_procs", "MaxProcs", int),
    ("max_runtime", "MaxRuntime", int),
    ("max_memory", "MaxMemory", int),
    ("allow_overuse", "AllowOveruse", str),
    ("unix_start_time", "UnixStartTime", int),
    ("time_zone", "TimeZone", int),
    ("time_zone_string", "TimeZoneString", str),
    ("start_time", "StartTime", str),
    ("end_time", "EndTime", str),
    ("preemption", "Preemption", str),
)


# -- the report -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line that did not become a job: its 1-based ``line`` number, the ``reason`` (one of
    :data:`SWFReport.REASONS`), a ``detail`` naming the offending value, and the line's text."""

    line: int
    reason: str
    detail: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason} ({self.detail})"


@dataclass
class SWFReport:
    """What reading a trace did: ``lines`` read, data ``records`` parsed, ``jobs`` kept, every
    ``skipped`` line with its reason, the line numbers of ``clamped`` jobs (larger than the machine,
    cut down to it with ``too_large="clamp"``), and how many jobs were ``reordered`` (out of
    arrival order in the file). ``counts`` gives the number skipped per reason."""

    #: The reasons a line can be skipped for.
    REASONS = (
        "malformed line",
        "wrong field count",
        "non-numeric field",
        "non-integer field",
        "unknown size",
        "unknown run time",
        "negative run time",
        "too large for the machine",
        "no request on the topology",
        "outside the time window",
    )

    source: str = ""
    lines: int = 0
    records: int = 0
    jobs: int = 0
    skipped: list[SkippedLine] = field(default_factory=list)
    clamped: list[int] = field(default_factory=list)
    reordered: int = 0

    @property
    def counts(self) -> dict[str, int]:
        """Number of skipped lines per reason (only reasons that occurred)."""
        return dict(Counter(s.reason for s in self.skipped))

    def skip(self, line: int, reason: str, detail: str, text: str) -> None:
        self.skipped.append(SkippedLine(line, reason, detail, text.rstrip("\n")))

    def __str__(self) -> str:
        parts = [f"{self.source or 'SWF'}: {self.lines} lines, {self.records} records, {self.jobs} jobs kept"]
        for reason, n in sorted(self.counts.items()):
            parts.append(f"{n} skipped: {reason}")
        if self.clamped:
            parts.append(f"{len(self.clamped)} clamped to the machine")
        if self.reordered:
            parts.append(f"{self.reordered} out of arrival order (sorted)")
        return "; ".join(parts)


# -- opening --------------------------------------------------------------------------------------
def _open_text(source: str | os.PathLike | IO) -> tuple[IO[str], bool, str]:
    """A text stream for ``source`` (path, binary or text file object); gzip by magic bytes."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"SWF file {str(path)!r} does not exist")
        with open(path, "rb") as fh:
            magic = fh.read(2)
        raw = gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")
        return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=None), True, str(path)
    name = getattr(source, "name", "") or ""
    if isinstance(source, io.TextIOBase):
        return source, False, str(name)
    peek = source.peek(2)[:2] if hasattr(source, "peek") else None
    if peek is None:
        data = source.read()
        if isinstance(data, str):
            return io.StringIO(data), True, str(name)
        raw = io.BytesIO(gzip.decompress(data) if data[:2] == _GZIP_MAGIC else data)
    else:
        raw = gzip.GzipFile(fileobj=source) if peek == _GZIP_MAGIC else source
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=None), False, str(name)


_CONVERTERS = tuple(int if name in _INT_FIELDS else float for name in SWF_FIELDS)


def _parse_record(parts: list[str]) -> tuple[SWFRecord | None, str, str]:
    """``(record, "", "")`` or ``(None, reason, detail)``."""
    try:
        values = [conv(text) for conv, text in zip(_CONVERTERS, parts, strict=True)]
    except ValueError:
        values = None
    if values is not None and math.isfinite(sum(values)):
        return SWFRecord(*values), "", ""
    # slow path: an integer written with a fraction ("17.0"), or find the culprit
    values = []
    for name, conv, text in zip(SWF_FIELDS, _CONVERTERS, parts, strict=True):
        try:
            v = float(text)
        except ValueError:
            return None, "non-numeric field", f"{name} = {text!r}"
        if not math.isfinite(v):
            return None, "non-numeric field", f"{name} = {text!r}"
        if conv is int:
            if v != int(v):
                return None, "non-integer field", f"{name} = {text!r}"
            v = int(v)
        values.append(v)
    return SWFRecord(*values), "", ""


def _iter_swf(text: IO[str], report: SWFReport, comments: list[str]) -> Iterator[tuple[int, SWFRecord]]:
    in_header = True
    for number, line in enumerate(text, start=1):
        report.lines = number
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            if in_header:
                comments.append(line.rstrip("\r\n").lstrip()[1:])
            continue
        in_header = False
        body = stripped.split(";", 1)[0]  # a trailing comment is not data
        parts = body.split()
        if not parts:
            report.skip(number, "malformed line", "no fields", line)
            continue
        if len(parts) != 18:
            if not all(_looks_numeric(p) for p in parts):
                report.skip(number, "malformed line", f"not a data line: {body[:40]!r}", line)
            else:
                report.skip(number, "wrong field count", f"{len(parts)} fields, expected 18", line)
            continue
        record, reason, detail = _parse_record(parts)
        if record is None:
            report.skip(number, reason, detail, line)
            continue
        report.records += 1
        yield number, record


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_swf(source: str | os.PathLike | IO) -> tuple[SWFHeader, list[tuple[int, SWFRecord]], SWFReport]:
    """Parse an SWF file: ``(header, [(line_number, record), ...], report)``.

    ``source`` is a path or an open file (text or binary); gzip is recognised by its magic bytes.
    Lines that are not 18 numbers are skipped and listed in the report (``malformed line``,
    ``wrong field count``, ``non-numeric field``, ``non-integer field`` for a fractional value in an
    integer field). Comment lines after the first data line are ignored. O(lines).

    >>> import io
    >>> text = "; MaxProcs: 8\\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\\n2 3 oops\\n"
    >>> header, records, report = read_swf(io.StringIO(text))
    >>> header.max_procs, records[0][1].run_time, [(s.line, s.reason) for s in report.skipped]
    (8, 10.0, [(3, 'malformed line')])
    """
    text, owned, name = _open_text(source)
    report = SWFReport(source=os.path.basename(name) if name else "")
    comments: list[str] = []
    try:
        records = list(_iter_swf(text, report, comments))
    finally:
        if owned:
            text.close()
    return SWFHeader.from_comments(comments), records, report


# -- jobs -----------------------------------------------------------------------------------------
class SWFTrace:
    """A trace turned into jobs: a workload for :func:`~scheduling.simulate` (``jobs(seed)`` returns
    the same list for every seed) and a sequence of :class:`~scheduling.jobs.Job`.

    ``header`` is the file's :class:`SWFHeader`, ``records`` the :class:`SWFRecord` of each kept job
    (aligned with the jobs; each job also carries it as ``job.attrs["swf"]`` with its line number as
    ``job.attrs["line"]``), ``report`` the :class:`SWFReport`, ``machine_size`` the processor count
    the filters used.
    """

    def __init__(self, jobs: list[Job], records: list[SWFRecord], header: SWFHeader, report: SWFReport,
                 machine_size: int | None) -> None:
        self._jobs = jobs
        self.records = records
        self.header = header
        self.report = report
        self.machine_size = machine_size

    def jobs(self, seed: int = 0) -> list[Job]:
        """The jobs, in arrival order (``seed`` is ignored: a trace is one sample)."""
        return self._jobs

    def __iter__(self) -> Iterator[Job]:
        return iter(self._jobs)

    def __len__(self) -> int:
        return len(self._jobs)

    def __getitem__(self, index):
        return self._jobs[index]

    def offered_load(self, machine_size: int | None = None) -> float:
        """:func:`offered_load` of the jobs on ``machine_size`` (default: the trace's)."""
        return offered_load(self._jobs, machine_size or self.machine_size)

    def rate_factor_for(self, load: float, machine_size: int | None = None) -> float:
        """The ``rate_factor`` that makes the offered load ``load`` (load scales linearly with it)."""
        if not load > 0:
            raise SWFError(f"target load must be > 0, got {load!r}")
        now = self.offered_load(machine_size)
        if now <= 0:
            raise SWFError("the trace offers no load (zero work or a single instant); cannot scale it")
        return load / now

    def __repr__(self) -> str:
        return f"<SWFTrace {self.report.source or ''} {len(self._jobs)} jobs on {self.machine_size} processors>"


def offered_load(jobs: Sequence[Job], machine_size: int) -> float:
    """Work over capacity: ``sum(size * runtime) / (machine_size * (last arrival - first arrival))``
    (Feitelson's offered load of a trace). ``size`` is ``job.size`` (the trace's processor count)."""
    if not jobs:
        return 0.0
    if not machine_size or machine_size <= 0:
        raise SWFError(f"machine_size must be a positive integer, got {machine_size!r}")
    span = jobs[-1].arrival - jobs[0].arrival
    if span <= 0:
        return 0.0
    work = math.fsum((j.size or 0) * j.runtime for j in jobs)
    return work / (machine_size * span)


def load_swf(
    source: str | os.PathLike | IO,
    *,
    machine_size: int | None = None,
    topology: Any = None,
    window: tuple[float | None, float | None] | None = None,
    too_large: str = "skip",
    rate_factor: float = 1.0,
    size: str = "requested",
    limit: int | None = None,
    warn: bool = False,
) -> SWFTrace:
    """Read an SWF trace as scheduling jobs; every line that does not become a job is in the report.

    ``machine_size``: processors of the machine (default: the topology's size, else the header's
    ``MaxProcs``/``MaxNodes``); jobs larger are skipped (``too_large="skip"``), cut to the machine
    (``"clamp"``, listed in :attr:`SWFReport.clamped`) or raise :class:`SWFError` (``"error"``).
    ``topology``: when given, each job's request is ``topology.request_for(size)`` (a count on a
    :class:`~topologies.Flat` machine, a side pair on a mesh, a dimension on a cube); a size the
    topology has no request for is skipped (``no request on the topology``). Without it the request
    is the processor count. ``window=(start, end)``: keep jobs submitted in ``[start, end)``
    (seconds from the log's start; either end ``None`` for open). ``rate_factor``: multiply the
    arrival rate, dividing every gap between kept arrivals by it (``2.0`` doubles the offered load;
    :meth:`SWFTrace.rate_factor_for` finds it for a target load). ``size``: ``"requested"`` (field
    8, falling back to field 5) or ``"allocated"`` (field 5, falling back to field 8). ``limit``:
    stop after this many jobs (the rest of the file is not read, so not reported). ``warn``: emit one
    :class:`SWFWarning` summarising the skipped lines (each is also logged at DEBUG level on the
    ``scheduling.workloads.swf`` logger, the summary at INFO).

    Skip reasons, beyond :func:`read_swf`'s: ``unknown size`` (fields 5 and 8 both <= 0),
    ``unknown run time`` (-1), ``negative run time``, ``too large for the machine``, ``no request on
    the topology``, ``outside the time window``. O(lines + jobs log jobs).
    """
    if too_large not in ("skip", "clamp", "error"):
        raise SWFError(f"too_large must be 'skip', 'clamp' or 'error', got {too_large!r}")
    if size not in ("requested", "allocated"):
        raise SWFError(f"size must be 'requested' or 'allocated', got {size!r}")
    if isinstance(rate_factor, bool) or not isinstance(rate_factor, (int, float)) or not rate_factor > 0 \
            or not math.isfinite(rate_factor):
        raise SWFError(f"rate_factor must be a finite number > 0, got {rate_factor!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise SWFError(f"limit must be a positive integer or None, got {limit!r}")
    lo, hi = (None, None) if window is None else window
    if lo is not None and hi is not None and hi < lo:
        raise SWFError(f"window end {hi!r} is before its start {lo!r}")

    text, owned, name = _open_text(source)
    report = SWFReport(source=os.path.basename(name) if name else "")
    comments: list[str] = []
    kept: list[tuple[float, int, Job, SWFRecord]] = []
    P = machine_size
    request_for = topology.request_for if topology is not None else None
    try:
        records = _iter_swf(text, report, comments)
        header: SWFHeader | None = None
        for number, rec in records:
            if header is None:
                header = SWFHeader.from_comments(comments)
                if P is None:
                    P = topology.size if topology is not None else header.machine_size
                if P is not None and (isinstance(P, bool) or not isinstance(P, int) or P < 1):
                    raise SWFError(f"machine_size must be a positive integer, got {P!r}")
            first, second = (rec.requested_processors, rec.allocated_processors) if size == "requested" else (
                rec.allocated_processors, rec.requested_processors)
            n = first if first > 0 else second
            if n <= 0:
                report.skip(number, "unknown size", f"requested {rec.requested_processors}, allocated "
                            f"{rec.allocated_processors}", rec.to_line())
                continue
            if rec.run_time < 0:
                reason = "unknown run time" if rec.run_time == -1 else "negative run time"
                report.skip(number, reason, f"run_time = {_fmt(rec.run_time)}", rec.to_line())
                continue
            if (lo is not None and rec.submit_time < lo) or (hi is not None and rec.submit_time >= hi):
                report.skip(number, "outside the time window", f"submit_time = {_fmt(rec.submit_time)} not in "
                            f"[{lo}, {hi})", rec.to_line())
                continue
            if P is not None and n > P:
                if too_large == "skip":
                    report.skip(number, "too large for the machine", f"{n} processors > {P}", rec.to_line())
                    continue
                if too_large == "error":
                    raise SWFError(f"line {number}: job {rec.job_id} needs {n} processors, the machine has {P}")
                report.clamped.append(number)
                n = P
            if request_for is not None:
                try:
                    request = request_for(n)
                except (ValueError, TypeError) as exc:
                    report.skip(number, "no request on the topology", f"{n} processors: {exc}", rec.to_line())
                    continue
            else:
                request = n
            estimate = rec.requested_time if rec.requested_time > 0 else rec.run_time
            job = Job(rec.job_id, float(rec.submit_time), request, float(rec.run_time), estimate=float(estimate),
                      size=n, attrs={"swf": rec, "line": number})
            kept.append((job.arrival, len(kept), job, rec))
            if limit is not None and len(kept) >= limit:
                break
        if header is None:
            header = SWFHeader.from_comments(comments)
            if P is None:
                P = topology.size if topology is not None else header.machine_size
    finally:
        if owned:
            text.close()

    report.reordered = sum(1 for a, b in zip(kept, kept[1:], strict=False) if b[0] < a[0])
    if report.reordered:
        kept.sort(key=lambda item: (item[0], item[1]))
    jobs = [item[2] for item in kept]
    recs = [item[3] for item in kept]
    if rate_factor != 1.0 and jobs:
        first = jobs[0].arrival
        jobs = [_with_arrival(j, first + (j.arrival - first) / rate_factor) for j in jobs]
    report.jobs = len(jobs)
    for s in report.skipped:
        logger.debug("%s: skipped %s", report.source, s)
    if report.skipped or report.clamped:
        logger.info("%s", report)
        if warn:
            warnings.warn(str(report), SWFWarning, stacklevel=2)
    return SWFTrace(jobs, recs, header, report, P)


def _with_arrival(job: Job, arrival: float) -> Job:
    return Job(job.id, arrival, job.request, job.runtime, job.speedup, job.estimate, job.size, job.attrs)


# -- finding traces -------------------------------------------------------------------------------
def traces_dir() -> Path:
    """The traces directory: ``$TOPOALLOC_TRACES``, else ``../shared/traces`` from the current
    directory."""
    return Path(os.environ.get(TRACES_ENV) or DEFAULT_TRACES_DIR)


_SUFFIXES = ("", ".swf", ".swf.gz", ".gz")


def trace_path(name: str) -> Path:
    """The path of trace ``name`` in :func:`traces_dir`: the exact file name, or ``name`` plus
    ``.swf``, ``.swf.gz`` or ``.gz`` (so ``trace_path("lublin_256")`` finds ``lublin_256.swf.gz``).
    Raises :class:`TraceNotFoundError` naming the directory, how to point elsewhere, and the traces
    the directory holds."""
    if not isinstance(name, str) or not name:
        raise SWFError(f"a trace name must be a non-empty string, got {name!r}")
    base = traces_dir()
    for suffix in _SUFFIXES:
        p = base / (name + suffix)
        if p.is_file():
            return p
    if not base.is_dir():
        raise TraceNotFoundError(
            f"trace {name!r}: the traces directory {str(base)!r} does not exist (resolved from "
            f"{os.getcwd()!r}); set {TRACES_ENV} to the directory holding the SWF files"
        )
    have = sorted(p.name for p in base.iterdir() if p.is_file() and ".swf" in p.name)
    listing = ", ".join(have) if have else "no .swf files"
    raise TraceNotFoundError(
        f"trace {name!r} not found in {str(base)!r} (tried suffixes {', '.join(repr(s) for s in _SUFFIXES)}); "
        f"it holds: {listing}; set {TRACES_ENV} to use another directory"
    )


# -- writing --------------------------------------------------------------------------------------
def _open_out(target: str | os.PathLike | IO) -> tuple[IO[str], bool]:
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if path.name.endswith(".gz"):
            return io.TextIOWrapper(gzip.open(path, "wb"), encoding="utf-8", newline="\n"), True
        return open(path, "w", encoding="utf-8", newline="\n"), True
    return target, False


def write_records(target: str | os.PathLike | IO, records: Iterable[SWFRecord],
                  header: SWFHeader | Sequence[str] | None = None) -> int:
    """Write ``records`` as SWF lines after ``header`` (an :class:`SWFHeader`, whose ``fields`` are
    written as ``; Label: value`` lines, or ready-made lines). A path ending in ``.gz`` is gzipped.
    Returns the number of records written."""
    out, owned = _open_out(target)
    count = 0
    try:
        if header is not None:
            lines = header.to_lines() if isinstance(header, SWFHeader) else list(header)
            for h in lines:
                out.write((h if h.startswith(";") else "; " + h) + "\n")
        for rec in records:
            out.write(rec.to_line() + "\n")
            count += 1
    finally:
        if owned:
            out.close()
    return count


def write_swf(target: str | os.PathLike | IO, result: Any, jobs: Iterable[Job] | None = None, *,
              header: SWFHeader | None = None, note: str | None = None,
              placements: str | os.PathLike | bool | None = None) -> int:
    """Write a simulated schedule as SWF, one line per job of ``result`` (a
    :class:`~scheduling.SimulationResult`), in arrival order.

    Written from the simulation: job number (the job's id), submit time (arrival), wait time
    (start - arrival), run time (end - start), allocated processors (granted), status 1
    (completed). From the original ``jobs`` (matched by id), when given: requested processors
    (``job.size``), requested time (``job.estimate``), and, for jobs read by :func:`load_swf`, the
    requested memory, user, group, executable, queue, partition, preceding job and think time of
    the original record. Average CPU time and used memory are measurements of the original run and
    are written as -1. The header gives ``MaxProcs``/``MaxNodes`` = the simulated machine, the policy
    and allocator, and ``UnixStartTime``/``TimeZoneString`` copied from ``header`` (the original
    trace's) when given. Times that are whole numbers are written as integers, others exactly (as
    Python writes floats), so :func:`read_swf` reads back the same values. Returns the number of
    jobs written.

    SWF has no field for the nodes a job ran on, so when ``result`` recorded placements
    (``record_placement=True``) they go to a sidecar file
    (:func:`~scheduling.workloads.write_placements`): ``placements`` is its path, or by default
    ``<target>.nodes.csv`` next to a ``target`` path (``False``: none).
    """
    table = result.table
    originals: dict[int, Job] = {}
    if jobs is not None:
        for j in jobs:
            originals[j.id] = j
    lines = [
        "Version: 2.2",
        "Computer: topoalloc simulation",
        f"Note: simulated schedule, policy {getattr(result, 'policy', '?')}, allocator "
        f"{getattr(result, 'allocator', '?')}",
    ]
    if note:
        lines.append(f"Note: {note}")
    lines += [f"MaxJobs: {len(table)}", f"MaxRecords: {len(table)}", f"MaxNodes: {result.size}",
              f"MaxProcs: {result.size}"]
    if header is not None:
        for attr, label in (("unix_start_time", "UnixStartTime"), ("time_zone", "TimeZone"),
                            ("time_zone_string", "TimeZoneString")):
            value = getattr(header, attr)
            if value is not None:
                lines.append(f"{label}: {value}")

    def records() -> Iterator[SWFRecord]:
        for row in table:
            jid = int(row["id"])
            arrival, start, end = float(row["arrival"]), float(row["start"]), float(row["end"])
            job = originals.get(jid)
            orig = job.attrs.get("swf") if job is not None else None
            req_procs = int(job.size) if job is not None and job.size is not None else int(row["requested"])
            req_time = float(job.estimate) if job is not None and job.estimate is not None else -1
            if orig is not None:
                extra = (orig.requested_memory, 1, orig.user_id, orig.group_id, orig.executable, orig.queue,
                         orig.partition, orig.preceding_job, orig.think_time)
            else:
                extra = (-1, 1, -1, -1, -1, -1, -1, -1, -1)
            yield SWFRecord(jid, arrival, start - arrival, end - start, int(row["granted"]), -1, -1, req_procs,
                            req_time, *extra)

    written = write_records(target, records(), lines)
    recorded = getattr(result, "placements", None)
    if recorded is not None and placements is not False:
        if placements is None or placements is True:
            if not isinstance(target, str | os.PathLike):
                if placements is True:
                    raise ValueError("placements=True needs a target path (or give the sidecar's path)")
                return written
            placements = f"{os.fspath(target)}.nodes.csv"
        from .placements import write_placements

        write_placements(placements, recorded)
    return written

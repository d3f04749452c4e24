"""The Standard Workload Format (SWF) of the Parallel Workloads Archive: read traces, write schedules.

SWF (Chapin, Cirne, Feitelson et al., "Benchmarks and standards for the evaluation of parallel job
schedulers", JSSPP 1999; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) is one job per
line, 18 whitespace-separated numbers, ``-1`` where a value is unknown, and header comments
``; Label: value`` at the top::

    ; MaxProcs: 338
        1   0   588530   937   306   142.00   -1   -1   35100   -1   1   97   -1   307   3   -1   -1   -1

:func:`read_swf` parses a file (plain text or gzip, recognised by its magic bytes, not its name) into
an :class:`SWFHeader` and :class:`SWFRecord` values, reporting every line it cannot parse.
:func:`load_swf` turns the records into scheduling :class:`~scheduling.kernel.jobs.Job` values (an
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
  compresses the gaps between arrivals (``arrival' = first + (arrival - first) / rate_factor``). A
  negative submit time (before the log's start: ``-1``, the format's "unknown", or a clock error)
  skips the line (``unknown submit time``, ``negative submit time``), as an unknown run time does:
  the other jobs keep their times, so a simulation (which starts at time 0) can replay the rest.
* **Order.** Jobs are returned in order of arrival (stable in line order), as the simulator needs;
  :attr:`SWFReport.reordered` counts jobs that were out of order in the file.

**Speed.** The file is read in pieces of 256 KiB. In each, numpy finds the lines and tokens and
converts every token of the plain forms ``[+-]digits[.digits]`` (at most 15 digits, at most 8 on
either side of the point, where the conversion is exact and equals Python's ``int``/``float``) from
the 64-bit words that end its digit groups (:func:`_digits`). A line that is anything else (a
comment, a letter, an exponent, a wrong field count, a fraction in an integer field...) goes to the
per-line parser (:func:`_parse_line`), which decides whether and why it is skipped, so the records
and the report are exactly those of reading line by line (a test checks this on every shared trace
and on crafted files). The filters of :func:`load_swf` then work on whole columns and the jobs are
built field by field. O(bytes) numpy work plus O(jobs) Python objects: about 300,000-450,000 lines
per second (``benchmarks/swf.py``), against 80,000-100,000 for the per-line reader it replaces.
A file that is not a trace (a directory, a truncated or corrupt gzip stream) raises
:class:`SWFReadError` naming it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import gzip
import io
import itertools
import math
import os
import re
import sys
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple, get_type_hints

import numpy as np

from ..kernel.jobs import Job

__all__ = [
    "SWFRecord",
    "SWFHeader",
    "SkippedLine",
    "SWFReport",
    "SWFTrace",
    "SWFError",
    "SWFReadError",
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


def _log_report(report: SWFReport) -> None:
    """Log the skipped lines (DEBUG) and the report's summary (INFO) when something was skipped or
    clamped, to the ``scheduling.workloads.swf`` logger -- unless no module has imported
    :mod:`logging`: then nothing was configured that would show a DEBUG or INFO record (the root
    logger's level and its last-resort handler's are WARNING), and a reader need not import
    logging to find that out."""
    logging = sys.modules.get("logging")
    if logging is None:
        return
    logger = logging.getLogger(__name__)
    if logger.isEnabledFor(logging.DEBUG):
        for s in report.skipped:
            logger.debug("%s: skipped %s", report.source, s)
    if report.skipped or report.clamped:
        logger.info("%s", report)


def __getattr__(name: str) -> Any:
    if name == "logger":  # the module's logger (imports logging)
        import logging

        return logging.getLogger(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: The environment variable naming the directory of SWF traces.
TRACES_ENV = "TOPOALLOC_TRACES"
#: Where traces are looked for when the variable is not set (relative to the current directory).
DEFAULT_TRACES_DIR = os.path.join("..", "shared", "traces")

_GZIP_MAGIC = b"\x1f\x8b"


class SWFError(ValueError):
    """A file or an argument that the SWF reader or writer cannot use."""


class SWFWarning(UserWarning):
    """Emitted by :func:`load_swf` with ``warn=True`` when lines were skipped."""


class SWFReadError(SWFError):
    """A file the reader cannot read as text: a directory, a truncated or corrupt gzip stream. The
    message names the file and what is wrong."""


class TraceNotFoundError(FileNotFoundError):
    """:func:`trace_path` found no such trace; the message lists what the directory holds."""


# -- records --------------------------------------------------------------------------------------
class SWFRecord(NamedTuple):
    """One SWF data line: the 18 fields in file order, ``-1`` where unknown.

    Times are in seconds, memory in kilobytes per processor (as the format defines them). An
    immutable named tuple (no per-instance dictionary): a trace holds one per job, and building a
    tuple costs a tenth of a frozen dataclass.
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
        return " ".join(map(_fmt, self))


#: The 18 field names, in file order.
SWF_FIELDS: tuple[str, ...] = SWFRecord._fields
_INT_FIELDS = frozenset(name for name, kind in get_type_hints(SWFRecord).items() if kind is int)
#: Column of each field in the integer and float tables the reader builds.
_INT_COLS = tuple(i for i, name in enumerate(SWF_FIELDS) if name in _INT_FIELDS)
_FLOAT_COLS = tuple(i for i, name in enumerate(SWF_FIELDS) if name not in _INT_FIELDS)
_ICOL = {SWF_FIELDS[c]: k for k, c in enumerate(_INT_COLS)}
_FCOL = {SWF_FIELDS[c]: k for k, c in enumerate(_FLOAT_COLS)}
_new_record = functools.partial(tuple.__new__, SWFRecord)
_JOB_ID, _SUBMIT, _RUN, _WANTED = (SWF_FIELDS.index(f) for f in ("job_id", "submit_time", "run_time", "requested_time"))


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
class SkippedLine:
    """A line that did not become a job: its 1-based ``line`` number, the ``reason`` (one of
    :data:`SWFReport.REASONS`), a ``detail`` naming the offending value, and the line's ``text``
    (for a record dropped by :func:`load_swf`'s filters, the record as :meth:`SWFRecord.to_line`
    writes it, formatted when first asked for: a month's window can skip most of a large trace).
    An immutable value: equal when the four fields are.

    >>> s = SkippedLine(3, "malformed line", "not a data line: 'x'", "x")
    >>> str(s), s.text, s == SkippedLine(3, "malformed line", "not a data line: 'x'", "x")
    ("line 3: malformed line (not a data line: 'x')", 'x', True)
    """

    __slots__ = ("line", "reason", "detail", "_text", "_rows")

    line: int
    reason: str
    detail: str

    def __init__(self, line: int, reason: str, detail: str, text: str) -> None:
        for name, value in (("line", line), ("reason", reason), ("detail", detail), ("_text", text), ("_rows", None)):
            object.__setattr__(self, name, value)

    @property
    def text(self) -> str:
        if self._rows is not None:  # a row of the reader's table: its record's line, once
            object.__setattr__(self, "_text", self._rows.record(self._text).to_line())
            object.__setattr__(self, "_rows", None)
        return self._text

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"SkippedLine is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"SkippedLine is immutable: cannot delete {name!r}")

    def _key(self) -> tuple[int, str, str, str]:
        return (self.line, self.reason, self.detail, self.text)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if type(other) is type(self) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"SkippedLine(line={self.line!r}, reason={self.reason!r}, detail={self.detail!r}, "
                f"text={self.text!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (SkippedLine, self._key())

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
        "unknown submit time",
        "negative submit time",
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

    def no_jobs_reason(self) -> str:
        """Why no job was kept, in words: an empty file, only comments, or what every line was
        skipped for (for "no job to simulate" messages).

        >>> SWFReport("x.swf", lines=3).no_jobs_reason()
        'x.swf has no data line (3 lines, only comments and blank lines)'
        """
        name = self.source or "the trace"
        counts = ", ".join(f"{n} {reason}{'s' if n != 1 and reason.endswith('line') else ''}"
                           for reason, n in sorted(self.counts.items()))
        if self.records:
            which = "the one record" if self.records == 1 else f"all {self.records} records"
            return f"{which} of {name} {'was' if self.records == 1 else 'were'} skipped ({counts})"
        if self.skipped:
            n = len(self.skipped)
            return f"{name} has no valid data line ({n} line{'s' if n > 1 else ''} skipped: {counts})"
        what = f"{self.lines} lines, only comments and blank lines" if self.lines else "an empty file"
        return f"{name} has no data line ({what})"

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
_BLOCK = 1 << 18  # bytes of text parsed at a time (numpy's temporaries stay in the cache)


def _describe(name: str) -> str:
    return f"SWF file {name!r}" if name else "the SWF stream"


def _read_blocks(raw: IO[bytes], gz: bool, name: str) -> Iterator[bytes]:
    """The (decompressed) bytes of ``raw`` in blocks; a broken gzip stream is an :class:`SWFReadError`."""
    stream: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
    try:
        while True:
            block = stream.read(_BLOCK)
            if not block:
                return
            yield block
    except EOFError:
        raise SWFReadError(f"{_describe(name)} is a truncated gzip file: the compressed data ends before "
                           "the end-of-stream marker (an incomplete download or copy?)") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise SWFReadError(f"{_describe(name)} is not a valid gzip file ({exc})") from None


def _open_blocks(source: str | os.PathLike | IO) -> tuple[Iterator[bytes], str, bool]:
    r"""``(blocks, name, text)``: the bytes of ``source`` (a path, or a binary or text file object;
    gzip recognised by its magic bytes) in blocks, its name, and whether it was a text stream (whose
    lines end at ``\n`` only, as the stream gives them; a file's ``\r\n`` and ``\r`` end lines too)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = str(path)
        if not path.exists():
            raise FileNotFoundError(f"SWF file {name!r} does not exist")
        if path.is_dir():
            raise SWFReadError(f"SWF file {name!r} is a directory, not a trace file")

        def from_path() -> Iterator[bytes]:
            with open(path, "rb") as fh:
                gz = fh.read(2) == _GZIP_MAGIC
                fh.seek(0)
                yield from _read_blocks(fh, gz, name)

        return from_path(), name, False
    name = str(getattr(source, "name", "") or "")
    if isinstance(source, io.TextIOBase):
        return iter((source.read().encode("utf-8", "surrogatepass"),)), name, True
    peek = source.peek(2)[:2] if hasattr(source, "peek") else None
    if peek is None:
        data = source.read()
        if isinstance(data, str):
            return iter((data.encode("utf-8", "surrogatepass"),)), name, True
        return _read_blocks(io.BytesIO(data), data[:2] == _GZIP_MAGIC, name), name, False
    return _read_blocks(source, peek == _GZIP_MAGIC, name), name, False


def _line_chunks(blocks: Iterator[bytes], text: bool) -> Iterator[bytes]:
    r"""Pieces of the file that end at a line end (the last one may not); in a file (not a text
    stream) ``\r\n`` and ``\r`` are turned into ``\n``, as Python's universal newlines do."""
    def lines(piece: bytes) -> bytes:
        return piece if text or b"\r" not in piece else piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    pending: list[bytes] = []  # the start of a line that continues in the next block
    for block in blocks:
        cut = block.rfind(b"\n") + 1
        if not cut:
            pending.append(block)
            continue
        yield lines(b"".join([*pending, block[:cut]]) if pending else block[:cut])
        pending = [block[cut:]] if cut < len(block) else []
    if pending:
        yield lines(b"".join(pending))


# -- parsing --------------------------------------------------------------------------------------
_CONVERTERS = tuple(int if name in _INT_FIELDS else float for name in SWF_FIELDS)


def _parse_record(parts: list[str]) -> tuple[SWFRecord | None, str, str]:
    """``(record, "", "")`` or ``(None, reason, detail)``."""
    try:
        values = [conv(text) for conv, text in zip(_CONVERTERS, parts, strict=True)]
        if math.isfinite(sum(values)):
            return SWFRecord(*values), "", ""
    except (ValueError, OverflowError):  # OverflowError: an integer too large for a float
        pass
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


def _parse_line(line: str) -> tuple[SWFRecord | None, str, str] | None:
    """One line after the header, the reference semantics of the reader: ``None`` for a blank or
    comment line, else :func:`_parse_record`'s result or ``(None, reason, detail)``."""
    stripped = line.strip()
    if not stripped or stripped.startswith(";"):
        return None
    body = stripped.split(";", 1)[0]  # a trailing comment is not data
    parts = body.split()
    if not parts:
        return None, "malformed line", "no fields"
    if len(parts) != 18:
        if not all(_looks_numeric(p) for p in parts):
            return None, "malformed line", f"not a data line: {body[:40]!r}"
        return None, "wrong field count", f"{len(parts)} fields, expected 18"
    return _parse_record(parts)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# The vectorised parser reads every token as at most two groups of up to 8 decimal digits, each
# converted at once from the 8 bytes that end it (as a little-endian 64-bit word: the "SWAR" method).
_PLAIN = b"0123456789+-. \t\n\v\f\r"  # bytes of a plain data line; any other sends its line to the reference
_ODD = np.ones(256, dtype=bool)
_ODD[np.frombuffer(_PLAIN, dtype=np.uint8)] = False
_PAD = b" " * 8  # so that the 8 bytes ending at any token's end are inside the buffer
_U64 = np.dtype("<u8")
#: _LOW[n]: all bytes of a little-endian word but its last n; _DIGITS[n]: the low nibbles of its last n bytes.
_LOW = np.array([(1 << (8 * (8 - n))) - 1 for n in range(9)], dtype=np.uint64)
_DIGITS = np.array([0x0F0F0F0F0F0F0F0F & ~int(low) for low in _LOW], dtype=np.uint64)
_BIT4 = np.uint64(0x1010101010101010)  # set in every digit byte, clear in "+", "-" and "."
_M8, _M16 = np.uint64(0x00FF00FF00FF00FF), np.uint64(0x0000FFFF0000FFFF)
_K8, _K16, _K32 = np.uint64(10 * 2**8 + 1), np.uint64(100 * 2**16 + 1), np.uint64(10000 * 2**32 + 1)
_S8, _S16, _S32 = np.uint64(8), np.uint64(16), np.uint64(32)
_POW10_INT = 10 ** np.arange(9, dtype=np.uint64)
_POW10 = 10.0 ** np.arange(23)  # exact floats
_MAX_DIGITS = 15  # a mantissa below 10**15 < 2**53 is exact in a float64
_INT_IDX = np.array(_INT_COLS)
_FLOAT_IDX = np.array(_FLOAT_COLS)


def _digits(words: np.ndarray, end: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(value, ok)``: the number written by the ``n`` (0..8) bytes before each ``end`` and whether
    they are all digits, for tokens of plain lines (made of digits, signs and points only: there a
    byte is a digit exactly when its bit 4 is set). ``words[i]`` is the little-endian 64-bit word of
    bytes ``i..i+7``; the first digit is its low byte's, so three multiply-and-shift steps combine
    the 8 digits pairwise into the number (the usual SWAR decimal conversion)."""
    w = words[end - 8]
    ok = ((w | _LOW[n]) & _BIT4) == _BIT4
    x = w & _DIGITS[n]  # the digits' values, zeros in front
    x *= _K8
    x >>= _S8
    x &= _M8
    x *= _K16
    x >>= _S16
    x &= _M16
    x *= _K32
    x >>= _S32
    return x, ok


@dataclass(slots=True)
class _Rows:
    """Parsed records as columns: ``line`` numbers, the integer fields (``ints``, int64, or object
    when a value does not fit) and the float fields (``floats``), one row per record, in line order."""

    line: np.ndarray
    ints: np.ndarray
    floats: np.ndarray

    @classmethod
    def concat(cls, parts: Sequence[_Rows]) -> _Rows:
        if not parts:
            return cls(np.zeros(0, np.int64), np.zeros((0, len(_INT_COLS)), np.int64),
                       np.zeros((0, len(_FLOAT_COLS))))
        if len(parts) == 1:
            return parts[0]
        return cls(np.concatenate([p.line for p in parts]), np.concatenate([p.ints for p in parts]),
                   np.concatenate([p.floats for p in parts]))

    def take(self, index: np.ndarray) -> _Rows:
        return _Rows(self.line[index], self.ints[index], self.floats[index])

    def record(self, i: int) -> SWFRecord:
        values: list[Any] = [0] * 18
        for k, c in enumerate(_INT_COLS):
            values[c] = int(self.ints[i, k])
        for k, c in enumerate(_FLOAT_COLS):
            values[c] = float(self.floats[i, k])
        return _new_record(values)

    def columns(self) -> list[list[Any]]:
        """The 18 fields as lists of Python numbers (a column of one value repeats one object)."""
        cols: list[Any] = [None] * 18
        n = self.line.size
        for table, where in ((self.ints, _INT_COLS), (self.floats, _FLOAT_COLS)):
            bits = np.ascontiguousarray(table).view(np.int64) if table.dtype == np.float64 else table  # -0.0 != 0.0
            same = (bits == bits[:1]).all(axis=0) if n else np.zeros(len(where), dtype=bool)
            for k, c in enumerate(where):
                cols[c] = table[:1, k].tolist() * n if same[k] else table[:, k].tolist()
        return cols

    def records(self, cols: list[list[Any]] | None = None) -> list[SWFRecord]:
        """The rows as :class:`SWFRecord` values (from :meth:`columns` if given)."""
        return list(map(_new_record, zip(*(cols or self.columns()), strict=True)))


def _parse_chunk(chunk: bytes, first: int, errors: str, report: SWFReport) -> _Rows:
    """The records of ``chunk`` (whole lines after the header; its first line is number ``first``);
    lines that are not records go to ``report``.

    Vectorised: line and token boundaries and every token's value come from numpy over the whole
    chunk. A token is parsed here only in the forms where that is exact and agrees with Python's
    ``int``/``float``: ``[+-]digits[.digits]`` with at most 15 digits, at most 8 on either side of
    the point (the mantissa, below 2**53, divided by a power of ten <= 10**22 is correctly rounded,
    as ``float`` is). Every line that is not 18 such tokens with integral integer fields (a comment,
    a letter, an exponent, a long number, a wrong field count...) is handed to :func:`_parse_line`,
    the reference, which decides what it is and why it is skipped: the fast path never changes a
    result, it only avoids the per-line work.
    """
    buf = _PAD + chunk if chunk[-1:] == b"\n" else _PAD + chunk + b"\n"
    a = np.frombuffer(buf, dtype=np.uint8)
    ws = a <= 32
    edges = np.flatnonzero(ws[1:] != ws[:-1]) + 1  # token starts and ends, alternating
    ts, te = edges[0::2], edges[1::2]
    ntok = ts.size
    ends = np.flatnonzero(a == 10)
    starts = np.empty(ends.size, dtype=np.int64)
    starts[:1] = len(_PAD)
    starts[1:] = ends[:-1] + 1
    first_tok = np.searchsorted(ts, starts)
    count = np.diff(np.append(first_tok, ntok))
    good = count == 18
    if chunk.translate(None, _PLAIN):  # a byte no plain data line has (a letter, ';', a control byte...)
        odd = np.flatnonzero(_ODD[a])
        good[np.searchsorted(starts, odd, side="right") - 1] = False
    if good.any():
        # Tokens of plain lines start with a digit, a sign or a point; most have no point and at most
        # 8 digits and are converted here; the others (a point, more digits) are the few "special" ones.
        lead = a[ts]
        signed = lead < 46  # "+" or "-"
        ndig = te - ts - signed
        words = np.ndarray((a.size - 7,), dtype=_U64, buffer=buf, strides=(1,))
        mant, valid = _digits(words, te, np.minimum(ndig, 8))
        valid &= ndig >= 1
        dots = np.flatnonzero(a == 46)
        special = np.flatnonzero(ndig > 8)
        if dots.size:
            dot_tok, first_dot, ndots = np.unique(np.searchsorted(ts, dots, side="right") - 1, return_index=True,
                                                  return_counts=True)
            special = np.union1d(special, dot_tok)
            at = np.searchsorted(dot_tok, special)
            hasdot = (at < dot_tok.size) & (dot_tok[np.minimum(at, dot_tok.size - 1)] == special)
            ndots = np.where(hasdot, ndots[np.minimum(at, dot_tok.size - 1)], 0)
            dotpos = np.where(hasdot, dots[first_dot[np.minimum(at, dot_tok.size - 1)]], 0)
        if special.size:
            s_ts, s_te = ts[special], te[special]
            if not dots.size:
                hasdot = np.zeros(special.size, dtype=bool)
                ndots = dotpos = np.zeros(special.size, dtype=np.int64)
            nd = s_te - s_ts - signed[special] - ndots
            nb = np.where(hasdot, s_te - dotpos - 1, np.minimum(nd, 8))  # digits of the last group
            na = nd - nb  # digits before it: the integer part, or the leading digits of a long number
            ok = (nd >= 1) & (nd <= _MAX_DIGITS) & (ndots <= 1) & (na <= 8) & (nb <= 8)
            np.clip(nb, 0, 8, out=nb)
            np.clip(na, 0, 8, out=na)
            low, ok_low = _digits(words, s_te, nb)
            high, ok_high = _digits(words, np.where(hasdot, dotpos, s_te - 8), na)
            valid[special] = ok & ok_low & ok_high
            value = mant.astype(np.float64)
            value[special] = (high * _POW10_INT[nb] + low) / _POW10[np.where(hasdot, nb, 0)]
        else:
            value = mant.astype(np.float64)
        np.negative(value, out=value, where=lead == 45)
        bad_tok = np.flatnonzero(~valid)
        if bad_tok.size:
            good[np.searchsorted(starts, ts[bad_tok], side="right") - 1] = False
        lines = np.flatnonzero(good)
        base = first_tok[lines, None]
        ints = value[base + _INT_IDX]
        if dots.size:  # "17.0" is 17, "2.5" is reported: the reference decides
            whole = (ints == np.floor(ints)).all(axis=1)
            if not whole.all():
                good[lines[~whole]] = False
                lines, base, ints = lines[whole], base[whole], ints[whole]
        rows = _Rows(lines + first, ints.astype(np.int64), value[base + _FLOAT_IDX])
    else:
        rows = _Rows.concat([])
    slow = np.flatnonzero(~good & (count > 0))
    if not slow.size:
        return rows
    extra: list[tuple[int, SWFRecord]] = []
    for i in slow.tolist():
        number = first + i
        text = buf[starts[i]:ends[i]].decode("utf-8", errors)
        parsed = _parse_line(text)
        if parsed is None:
            continue
        rec, reason, detail = parsed
        if rec is None:
            report.skip(number, reason, detail, text)
        else:
            extra.append((number, rec))
    if not extra:
        return rows
    ivals = [[r[c] for c in _INT_COLS] for _, r in extra]
    try:
        iarr = np.array(ivals, dtype=np.int64)
    except OverflowError:  # an integer beyond 64 bits: keep Python ints
        iarr = np.empty((len(ivals), len(_INT_COLS)), dtype=object)
        iarr[:] = ivals
        rows.ints = rows.ints.astype(object)
    merged = _Rows(np.concatenate([rows.line, np.array([n for n, _ in extra], dtype=np.int64)]),
                   np.concatenate([rows.ints, iarr]),
                   np.concatenate([rows.floats, np.array([[r[c] for c in _FLOAT_COLS] for _, r in extra],
                                                         dtype=np.float64)]))
    return merged.take(np.argsort(merged.line, kind="stable"))


def _parse(source: str | os.PathLike | IO, report: SWFReport, comments: list[str]) -> Iterator[_Rows]:
    """The records of ``source``, one :class:`_Rows` per piece of the file; the header comments go
    to ``comments`` (complete before the first piece is yielded), ``report.lines`` counts the lines
    read. Reading stops when the caller stops iterating."""
    blocks, name, text = _open_blocks(source)
    report.source = os.path.basename(name) if name else ""
    errors = "surrogatepass" if text else "replace"
    number = 0  # lines consumed
    in_header = True
    for chunk in _line_chunks(blocks, text):
        pos = 0
        if in_header:  # the header: comments and blank lines up to the first other line
            n = len(chunk)
            while pos < n:
                end = chunk.find(b"\n", pos)
                end = n if end < 0 else end
                line = chunk[pos:end].decode("utf-8", errors)
                stripped = line.strip()
                if stripped and not stripped.startswith(";"):
                    in_header = False
                    break
                if stripped:
                    comments.append(line.rstrip("\r\n").lstrip()[1:])
                number += 1
                pos = end + 1
            if in_header:
                report.lines = number
                continue
            chunk = chunk[pos:]
        rows = _parse_chunk(chunk, number + 1, errors, report)
        number += chunk.count(b"\n") + (chunk[-1:] != b"\n")
        report.lines = number
        report.records += rows.line.size
        yield rows


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
    report = SWFReport()
    comments: list[str] = []
    with _gc_paused():
        rows = _Rows.concat(list(_parse(source, report, comments)))
        report.skipped.sort(key=_line_of)
        records = list(zip(rows.line.tolist(), rows.records(), strict=True))
    return SWFHeader.from_comments(comments), records, report


def _line_of(skipped: SkippedLine) -> int:
    return skipped.line


# -- jobs -----------------------------------------------------------------------------------------
class SWFTrace:
    """A trace turned into jobs: a workload for :func:`~scheduling.simulate` (``jobs(seed)`` returns
    the same list for every seed) and a sequence of :class:`~scheduling.kernel.jobs.Job`.

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
    ``unknown run time`` (-1), ``negative run time``, ``unknown submit time`` (-1), ``negative submit
    time``, ``too large for the machine``, ``no request on the topology``, ``outside the time
    window``. O(lines + jobs log jobs).
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

    with _gc_paused():
        return _load_swf(source, machine_size, topology, lo, hi, too_large, rate_factor, size, limit, warn)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a trace's records and jobs are built: the reader makes no
    reference cycles, and the collector's passes over the growing lists of new containers would
    otherwise cost as much as building them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load_swf(source: str | os.PathLike | IO, machine_size: int | None, topology: Any, lo: float | None,
              hi: float | None, too_large: str, rate_factor: float, size: str, limit: int | None,
              warn: bool) -> SWFTrace:
    report = SWFReport()
    comments: list[str] = []
    header: SWFHeader | None = None
    P = machine_size
    request_for = topology.request_for if topology is not None else None
    requests: dict[int, Any] = {}  # processor count -> request, or _NoRequest
    kept: list[tuple[_Rows, np.ndarray]] = []
    nkept = 0
    cutoff: int | None = None  # line of the limit-th job
    first_col, second_col = ((_ICOL["requested_processors"], _ICOL["allocated_processors"]) if size == "requested"
                             else (_ICOL["allocated_processors"], _ICOL["requested_processors"]))
    run_col, submit_col = _FCOL["run_time"], _FCOL["submit_time"]
    skipped: list[tuple[_Rows, np.ndarray, np.ndarray]] = []  # rows the filters drop
    parts = _parse(source, report, comments)
    try:
        for rows in parts:
            if header is None:
                header = SWFHeader.from_comments(comments)
                if P is None:
                    P = topology.size if topology is not None else header.machine_size
                if P is not None and (isinstance(P, bool) or not isinstance(P, int) or P < 1):
                    raise SWFError(f"machine_size must be a positive integer, got {P!r}")
            first, second = rows.ints[:, first_col], rows.ints[:, second_col]
            n = np.where(first > 0, first, second)
            run, submit = rows.floats[:, run_col], rows.floats[:, submit_col]
            # the filters, in the order the reference applies them to each line
            unknown = n <= 0
            left = ~unknown
            badrun = left & (run < 0)
            left &= ~badrun
            badsubmit = left & (submit < 0)
            left &= ~badsubmit
            outside = np.zeros(n.size, dtype=bool)
            if lo is not None:
                outside |= submit < lo
            if hi is not None:
                outside |= submit >= hi
            outside &= left
            left &= ~outside
            over = left & (n > P) if P is not None else np.zeros(n.size, dtype=bool)
            if too_large == "clamp" and over.any():
                n = n.copy()
                n[over] = P
            elif too_large != "clamp":
                left &= ~over
            norequest = np.zeros(n.size, dtype=bool)
            if request_for is not None and left.any():
                for value in sorted(set(n[left].tolist())):  # (np.unique would import numpy.ma)
                    if value not in requests:
                        try:
                            requests[value] = request_for(value)
                        except (ValueError, TypeError) as exc:
                            requests[value] = _NoRequest(str(exc))
                refused = [v for v, r in requests.items() if isinstance(r, _NoRequest)]
                if refused:
                    norequest = left & np.isin(n, refused)
                    left &= ~norequest
            take = np.flatnonzero(left)
            end = rows.line.size  # rows of this piece that count (all, unless the limit falls in it)
            if limit is not None and nkept + take.size >= limit:
                last = int(take[limit - nkept - 1])
                cutoff = int(rows.line[last])
                end = last + 1
                take = take[: limit - nkept]
            if too_large == "error" and over[:end].any():
                i = int(np.argmax(over))
                raise SWFError(f"line {int(rows.line[i])}: job {rows.ints[i, _ICOL['job_id']]} needs {n[i]} "
                               f"processors, the machine has {P}")
            kinds = np.zeros(n.size, dtype=np.int8)  # why each row is skipped (see _report_skips), 0: it is not
            for kind, mask in enumerate((unknown, badrun, outside, over if too_large == "skip" else None,
                                         norequest, badsubmit), start=1):
                if mask is not None:
                    kinds[mask] = kind
            dropped = np.flatnonzero(kinds[:end])
            if dropped.size:
                skipped.append((rows.take(dropped), kinds[dropped], n[dropped]))
            if too_large == "clamp":
                report.clamped.extend(rows.line[np.flatnonzero(over[:end])].tolist())
            kept.append((rows, n) if take.size == n.size else (rows.take(take), n[take]))
            nkept += take.size
            if cutoff is not None:
                report.records -= rows.line.size - end
                report.lines = cutoff
                break
        if header is None:
            header = SWFHeader.from_comments(comments)
            if P is None:
                P = topology.size if topology is not None else header.machine_size
    finally:
        parts.close()

    if skipped:
        _report_skips(report, _Rows.concat([r for r, _, _ in skipped]), np.concatenate([k for _, k, _ in skipped]),
                      np.concatenate([c for _, _, c in skipped]), lo, hi, P, requests)
    if cutoff is not None:
        report.skipped = [s for s in report.skipped if s.line <= cutoff]
    report.skipped.sort(key=_line_of)
    report.clamped.sort()

    rows = _Rows.concat([r for r, _ in kept])
    sizes = np.concatenate([c for _, c in kept]) if kept else np.zeros(0, dtype=np.int64)
    arrival = rows.floats[:, submit_col]
    report.reordered = int(np.count_nonzero(arrival[1:] < arrival[:-1]))
    if report.reordered:
        order = np.argsort(arrival, kind="stable")
        rows, sizes, arrival = rows.take(order), sizes[order], arrival[order]
    if rate_factor != 1.0 and arrival.size:
        arrival = arrival[0] + (arrival - arrival[0]) / rate_factor
    run = rows.floats[:, run_col]
    wanted = rows.floats[:, _FCOL["requested_time"]]
    estimate = np.where(wanted > 0, wanted, run)
    cols = rows.columns()
    records = rows.records(cols)
    size_list = sizes.tolist()
    request_list = size_list if request_for is None else [requests[c] for c in size_list]
    attrs = [{"swf": rec, "line": number} for rec, number in zip(records, rows.line.tolist(), strict=True)]
    # the job and its record share the number objects where the values are the same
    arrivals = cols[_SUBMIT] if rate_factor == 1.0 else arrival.tolist()
    estimates = cols[_WANTED] if bool((wanted > 0).all()) else estimate.tolist()
    jobs = _make_jobs(cols[_JOB_ID], arrivals, request_list, cols[_RUN], estimates, size_list, attrs, arrival, run)
    report.jobs = len(jobs)
    _log_report(report)
    if warn and (report.skipped or report.clamped):
        warnings.warn(str(report), SWFWarning, stacklevel=2)
    return SWFTrace(jobs, records, header, report, P)


def _report_skips(report: SWFReport, rows: _Rows, kinds: np.ndarray, counts: np.ndarray, lo: float | None,
                  hi: float | None, P: int | None, requests: dict[int, Any]) -> None:
    """Add the rows :func:`load_swf`'s filters dropped to ``report`` (``kinds``: 1 unknown size, 2 run
    time, 3 time window, 4 too large, 5 no request, 6 submit time; ``counts``: the processor
    counts). Built a column at a time: a month's window drops most lines of a trace."""
    n = kinds.size
    reasons: list[Any] = [None] * n
    details: list[Any] = [None] * n
    for kind in np.unique(kinds).tolist():
        idx = np.flatnonzero(kinds == kind)
        if kind == 1:
            why = itertools.repeat("unknown size")
            what = [f"requested {r}, allocated {a}" for r, a in zip(
                rows.ints[idx, _ICOL["requested_processors"]].tolist(),
                rows.ints[idx, _ICOL["allocated_processors"]].tolist(), strict=True)]
        elif kind == 2:
            run = rows.floats[idx, _FCOL["run_time"]]
            why = ["unknown run time" if t == -1 else "negative run time" for t in run.tolist()]
            what = [f"run_time = {t}" for t in _fmt_column(run)]
        elif kind == 3:
            why = itertools.repeat("outside the time window")
            submit = rows.floats[idx, _FCOL["submit_time"]]
            what = [f"submit_time = {t} not in [{lo}, {hi})" for t in _fmt_column(submit)]
        elif kind == 6:
            submit = rows.floats[idx, _FCOL["submit_time"]]
            why = ["unknown submit time" if t == -1 else "negative submit time" for t in submit.tolist()]
            what = [f"submit_time = {t}" for t in _fmt_column(submit)]
        elif kind == 4:
            why = itertools.repeat("too large for the machine")
            what = [f"{c} processors > {P}" for c in counts[idx].tolist()]
        else:
            why = itertools.repeat("no request on the topology")
            what = [f"{c} processors: {requests[c]}" for c in counts[idx].tolist()]
        for i, reason, detail in zip(idx.tolist(), why, what):  # noqa: B905 (why may be endless)
            reasons[i], details[i] = reason, detail
    skipped = list(map(object.__new__, itertools.repeat(SkippedLine, n)))
    for name, column in (("line", rows.line.tolist()), ("reason", reasons), ("detail", details),
                         ("_text", range(n)), ("_rows", itertools.repeat(rows, n))):  # the text: when asked for
        collections.deque(map(getattr(SkippedLine, name).__set__, skipped, column), maxlen=0)
    report.skipped.extend(skipped)


def _fmt_column(values: np.ndarray) -> list[str]:
    """:func:`_fmt` of each float of ``values``."""
    whole = (values == np.floor(values)) & (np.abs(values) < 1e15)
    if whole.all():
        return list(map(str, values.astype(np.int64).tolist()))
    out = np.empty(values.size, dtype=object)
    out[whole] = list(map(str, values[whole].astype(np.int64).tolist()))
    out[~whole] = list(map(repr, values[~whole].tolist()))
    return out.tolist()


class _NoRequest(str):
    """Why the topology has no request for a processor count (``request_for`` raised)."""


_LINEAR = Job.__dataclass_fields__["speedup"].default  # the default speedup of a Job
_JOB_FIELDS = ("id", "arrival", "request", "runtime", "speedup", "estimate", "size", "attrs", "comm")
#: Whether jobs may be built field by field (see :func:`_make_jobs`).
_JOB_BY_FIELDS = tuple(Job.__dataclass_fields__) == _JOB_FIELDS and Job.__slots__ == _JOB_FIELDS


def _make_jobs(ids: list, arrivals: list, requests: list, runtimes: list, estimates: list, sizes: list,
               attrs: list, arrival: np.ndarray, run: np.ndarray) -> list[Job]:
    """``Job(id, arrival, request, runtime, estimate=, size=, attrs=)`` for each position
    (``arrival`` and ``run``: the same times as arrays).

    :class:`~scheduling.kernel.jobs.Job` is a frozen slotted dataclass whose ``__init__`` stores its fields
    and whose ``__post_init__`` refuses a non-finite arrival, a run time that is negative or not
    finite, and a communication fraction outside [0, 1]. When the arrays pass those checks (checked
    here, vectorised; the fraction is Job's default 0), storing the fields one at a time over all
    jobs (the slots' descriptors called from ``map``) builds the same jobs without a Python call per
    job, about three times as fast. Otherwise, or if ``Job`` changes (other fields), its
    constructor is used, and refuses the bad job by its id."""
    valid = bool(np.isfinite(arrival).all() and np.isfinite(run).all() and (run >= 0).all())
    if not (_JOB_BY_FIELDS and valid):
        return list(map(Job, ids, arrivals, requests, runtimes, itertools.repeat(_LINEAR), estimates, sizes, attrs))
    jobs = list(map(object.__new__, itertools.repeat(Job, len(ids))))
    columns = (ids, arrivals, requests, runtimes, itertools.repeat(_LINEAR), estimates, sizes, attrs,
               itertools.repeat(0.0))
    for name, column in zip(_JOB_FIELDS, columns, strict=True):
        collections.deque(map(getattr(Job, name).__set__, jobs, column), maxlen=0)
    return jobs


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

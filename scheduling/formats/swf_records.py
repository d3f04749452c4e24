"""The Standard Workload Format (SWF) of the Parallel Workloads Archive: its records, its header, the
report of a read and the errors of the SWF reader and writer.

SWF (Chapin, Cirne, Feitelson et al., "Benchmarks and standards for the evaluation of parallel job
schedulers", JSSPP 1999; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) is one job per
line, 18 whitespace-separated numbers, ``-1`` where a value is unknown, and header comments
``; Label: value`` at the top::

    ; MaxProcs: 338
        1   0   588530   937   306   142.00   -1   -1   35100   -1   1   97   -1   307   3   -1   -1   -1

An :class:`SWFRecord` is one data line (the 18 fields in file order), an :class:`SWFHeader` the
header comments, an :class:`SWFReport` what a read did (every :class:`SkippedLine` with its
reason). Reading is :mod:`scheduling.formats.swf_read` (records) and
:mod:`scheduling.formats.swf_load` (jobs), writing :mod:`scheduling.formats.swf_write`.

Interpretation (the format leaves it open): an integer header label takes the **leading** integer
of its value, so ``MaxNodes: 338 (batch partition; 512 total)`` gives 338.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, get_type_hints

if TYPE_CHECKING:
    from .swf_read import _Rows

__all__ = [
    "SWFRecord",
    "SWFHeader",
    "SkippedLine",
    "SWFReport",
    "SWFError",
    "SWFReadError",
    "SWFWarning",
    "SWF_FIELDS",
]


class SWFError(ValueError):
    """A file or an argument that the SWF reader or writer cannot use."""


class SWFWarning(UserWarning):
    """Emitted by :func:`~scheduling.formats.swf_load.load_swf` with ``warn=True`` when lines were skipped."""


class SWFReadError(SWFError):
    """A file the reader cannot read as text: a directory, a truncated or corrupt gzip stream. The
    message names the file and what is wrong."""


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
    :data:`SWFReport.REASONS`), a ``detail`` naming the offending value, and the line's ``text`` (for a record
    dropped by :func:`~scheduling.formats.swf_load.load_swf`'s filters, the record as :meth:`SWFRecord.to_line`
    writes it, formatted when first asked for: a month's window can skip most of a large trace). An immutable value:
    equal when the four fields are.

    >>> s = SkippedLine(3, "malformed line", "not a data line: 'x'", "x")
    >>> str(s), s.text, s == SkippedLine(3, "malformed line", "not a data line: 'x'", "x")
    ("line 3: malformed line (not a data line: 'x')", 'x', True)
    """

    __slots__ = ("line", "reason", "detail", "_text", "_rows")

    line: int
    reason: str
    detail: str
    _text: Any  # the text; while ``_rows`` is set, the index of its row there
    _rows: _Rows | None

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

"""SWF traces as scheduling jobs: :func:`load_swf` turns the records of a trace into
:class:`~scheduling.kernel.jobs.Job` values (an :class:`SWFTrace`, usable directly as a workload),
with filters, and reports **every** line it skips, with its line number and the reason, in an
:class:`~scheduling.formats.swf_records.SWFReport`.

Interpretations (the format leaves them open):

* **Size.** A job's processor count is its *requested processors* (field 8); where that is ``-1``
  (CTC, SDSC-Par and lublin have no request data) the *allocated processors* (field 5) are used.
  ``size="allocated"`` prefers field 5 and falls back to field 8.
* **Run time.** The real run time (field 4) is the job's run time on its request; ``-1`` (unknown:
  cancelled jobs) skips the line. Zero run times are kept.
* **Estimate.** The requested time (field 9) is the user's estimate (backfilling uses it); where it
  is ``-1`` the estimate falls back to the run time (a perfect estimate). Estimates shorter than the
  run time are kept as they are (jobs that ran past their limit): see
  :mod:`scheduling.policies.backfill` for what the backfilling policies then do.
* **Arrival.** The submit time (field 2), in seconds from the log's start, unchanged; ``rate_factor``
  compresses the gaps between arrivals (``arrival' = first + (arrival - first) / rate_factor``). A
  negative submit time (before the log's start: ``-1``, the format's "unknown", or a clock error)
  skips the line (``unknown submit time``, ``negative submit time``), as an unknown run time does:
  the other jobs keep their times, so a simulation (which starts at time 0) can replay the rest.
* **Order.** Jobs are returned in order of arrival (stable in line order), as the simulator needs;
  :attr:`SWFReport.reordered <scheduling.formats.swf_records.SWFReport.reordered>` counts jobs that
  were out of order in the file.

**Speed.** The records come from the vectorised parser of :mod:`scheduling.formats.swf_read`; the
filters work on whole columns and the jobs are built field by field. O(bytes) numpy work plus
O(jobs) Python objects: about 300,000-450,000 lines per second (``benchmarks/swf.py``), against
80,000-100,000 for the per-line reader it replaces.
"""

from __future__ import annotations

import collections
import itertools
import math
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, overload

import numpy as np

from ..kernel.jobs import Job
from ._columns import _gc_paused, _make_jobs
from .swf_read import _line_of, _parse, _Rows
from .swf_records import (
    _FCOL,
    _ICOL,
    _JOB_ID,
    _RUN,
    _SUBMIT,
    _WANTED,
    SkippedLine,
    SWFError,
    SWFHeader,
    SWFRecord,
    SWFReport,
    SWFWarning,
)

__all__ = ["SWFTrace", "load_swf", "offered_load"]


def _log_report(report: SWFReport) -> None:
    """Log the skipped lines (DEBUG) and the report's summary (INFO) when something was skipped or
    clamped, to the ``scheduling.formats.swf_load`` logger -- unless no module has imported
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


# -- jobs -----------------------------------------------------------------------------------------
class SWFTrace:
    """A trace turned into jobs: a workload for :func:`~scheduling.simulate` (``jobs(seed)`` returns
    the same list for every seed) and a sequence of :class:`~scheduling.kernel.jobs.Job`.

    ``header`` is the file's :class:`~scheduling.formats.swf_records.SWFHeader`, ``records`` the
    :class:`~scheduling.formats.swf_records.SWFRecord` of each kept job (aligned with the jobs; each job also
    carries it as ``job.attrs["swf"]`` with its line number as ``job.attrs["line"]``), ``report`` the
    :class:`~scheduling.formats.swf_records.SWFReport`, ``machine_size`` the processor count the filters used.
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

    @overload
    def __getitem__(self, index: int) -> Job: ...
    @overload
    def __getitem__(self, index: slice) -> list[Job]: ...
    def __getitem__(self, index: int | slice) -> Job | list[Job]:
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


def offered_load(jobs: Sequence[Job], machine_size: int | None) -> float:
    """Work over capacity: ``sum(size * runtime) / (machine_size * (last arrival - first arrival))``
    (Feitelson's offered load of a trace). ``size`` is ``job.size`` (the trace's processor count). A
    ``machine_size`` that is not positive (or ``None``, unknown) is an :class:`SWFError`."""
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
    ``MaxProcs``/``MaxNodes``); jobs larger are skipped (``too_large="skip"``), cut to the machine (``"clamp"``,
    listed in :attr:`SWFReport.clamped <scheduling.formats.swf_records.SWFReport.clamped>`) or raise
    :class:`~scheduling.formats.swf_records.SWFError` (``"error"``). ``topology``: when given, each job's request is
    ``topology.request_for(size)`` (a count on a :class:`~topologies.Flat` machine, a side pair on a mesh, a
    dimension on a cube); a size the topology has no request for is skipped (``no request on the topology``).
    Without it the request is the processor count. ``window=(start, end)``: keep jobs submitted in ``[start, end)``
    (seconds from the log's start; either end ``None`` for open). ``rate_factor``: multiply the arrival rate,
    dividing every gap between kept arrivals by it (``2.0`` doubles the offered load;
    :meth:`SWFTrace.rate_factor_for` finds it for a target load). ``size``: ``"requested"`` (field 8, falling back
    to field 5) or ``"allocated"`` (field 5, falling back to field 8). ``limit``: stop after this many jobs (the
    rest of the file is not read, so not reported). ``warn``: emit one
    :class:`~scheduling.formats.swf_records.SWFWarning` summarising the skipped lines (each is also logged at DEBUG
    level on the ``scheduling.formats.swf_load`` logger, the summary at INFO).

    Skip reasons, beyond :func:`~scheduling.formats.swf_read.read_swf`'s: ``unknown size`` (fields 5 and 8 both <=
    0), ``unknown run time`` (-1), ``negative run time``, ``unknown submit time`` (-1), ``negative submit time``,
    ``too large for the machine``, ``no request on the topology``, ``outside the time window``. O(lines + jobs log
    jobs).
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
    jobs = _make_jobs(cols[_JOB_ID], arrivals, request_list, cols[_RUN], estimates, size_list, attrs,
                      arrays=(arrival, run))
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
        why: Iterable[str]
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
    """The text ``SWFRecord.to_line`` writes for each float of ``values``."""
    whole = (values == np.floor(values)) & (np.abs(values) < 1e15)
    if whole.all():
        return list(map(str, values.astype(np.int64).tolist()))
    out = np.empty(values.size, dtype=object)
    out[whole] = list(map(str, values[whole].astype(np.int64).tolist()))
    out[~whole] = list(map(repr, values[~whole].tolist()))
    return out.tolist()


class _NoRequest(str):
    """Why the topology has no request for a processor count (``request_for`` raised)."""
